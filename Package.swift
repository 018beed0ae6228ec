// swift-tools-version:6.0
import PackageDescription

/// `SEGUE_PACKAGE=library-tests` (scripts/tsan) leaves out the command line, the preview
/// server and their tests, with the packages only they use: the thread sanitizer's build then
/// compiles only the library and its unit tests.
let libraryTestsOnly = Context.environment["SEGUE_PACKAGE"] == "library-tests"

let package = Package(
    name: "Segue",
    products: [.library(name: "Segue", targets: ["Segue"])] + (libraryTestsOnly ? [] : [.executable(name: "segue", targets: ["segue"])]),
    dependencies: [
        // Templates: Mustache renders a story's {{variables}} (their rows are read by Segue's own
        // CSV and JSON Lines readers, Batch/TemplateBatch.swift).
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
    ] + (libraryTestsOnly ? [] : [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // segue preview's local web server.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // The preview's check of each request's target, as NIO parses it (Hummingbird's own).
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
        // segue serve: its routes and types generated from its OpenAPI document (ahead of time,
        // scripts/openapi-generate), its jobs in SQLite, its webhooks signed and sent.
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.8.0"),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.20.0"),
    ]),
    targets: [
        // FFmpeg's libraries, found through pkg-config; Debian's -dev packages provide them.
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat",
            providers: [.apt(["pkg-config", "libavcodec-dev", "libavformat-dev", "libswscale-dev", "libswresample-dev", "libavfilter-dev", "libavutil-dev"])]
        ),
        // LittleCMS converts pictures with an ICC profile to sRGB; libheif decodes iPhone photos.
        .systemLibrary(name: "CLittleCMS", pkgConfig: "lcms2", providers: [.apt(["liblcms2-dev"])]),
        .systemLibrary(name: "CHeif", pkgConfig: "libheif", providers: [.apt(["libheif-dev"])]),
        // libyaml's event parser reads presets, stories and manifests.
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        // Pango lays text out (HarfBuzz, fontconfig, bidi) and Cairo draws it.
        .systemLibrary(name: "CPango", pkgConfig: "pangocairo", providers: [.apt(["libpango1.0-dev", "libcairo2-dev"])]),
        // libwebp's demux and decode API reads animated WebP stickers, which FFmpeg cannot decode.
        .systemLibrary(name: "CWebP", pkgConfig: "libwebpdemux", providers: [.apt(["libwebp-dev"])]),
        // The C layer over FFmpeg, LittleCMS, libheif, PangoCairo and libwebp, one file per concern
        // (include/segue_av.h lists them): stills, clips, stickers, text, the soundtrack's sources and
        // its libavfilter mix (libavfilter loaded when first needed, lavfi.c), the MP4 and PNG writers, digests, host facts. Swift owns each C object
        // through a final class.
        .target(
            name: "CSegueAV",
            dependencies: ["CFFmpeg", "CLittleCMS", "CHeif", "CPango", "CWebP"],
            linkerSettings: [
                .linkedLibrary("avformat"), .linkedLibrary("avcodec"),
                .linkedLibrary("swscale"), .linkedLibrary("swresample"), .linkedLibrary("avutil"),
                .linkedLibrary("lcms2"), .linkedLibrary("heif"),
                .linkedLibrary("pangocairo-1.0"), .linkedLibrary("pango-1.0"), .linkedLibrary("cairo"),
                .linkedLibrary("gobject-2.0"), .linkedLibrary("glib-2.0"), .linkedLibrary("fontconfig"),
                .linkedLibrary("webpdemux"), .linkedLibrary("webp"),
            ]
        ),
        // The per-pixel loops: plain C compiled for each vector width, and hand-written AVX2 and
        // AVX-512 paths for the warp, chosen at run time by what the CPU has; every path gives
        // the same bytes.
        .target(name: "CSegueKernels"),
        .target(
            name: "Segue",
            dependencies: ["CSegueAV", "CSegueKernels", "CYAML", .product(name: "Mustache", package: "swift-mustache")],
            plugins: ["EmbedResources"]
        ),
        // Presets/*.yaml and the build's commit, compiled into the library at build time.
        .plugin(name: "EmbedResources", capability: .buildTool(), dependencies: ["segue-embed"]),
        .executableTarget(name: "segue-embed"),
        // What both test modules share: the repository's files, fresh folders, running programs.
        .target(name: "SegueTestSupport", path: "Tests/SegueTestSupport"),
        .testTarget(
            name: "SegueTests",
            dependencies: ["Segue", "CSegueAV", "CLittleCMS", "CHeif", "SegueTestSupport"],
            exclude: ["Golden"]
        ),
    ] + (libraryTestsOnly ? [] : [
        // `segue preview`: a local web server (Hummingbird) beside the library, and its page
        // (Page/), compiled into the binary. The library never knows it exists.
        .target(
            name: "SeguePreview",
            dependencies: ["Segue", .product(name: "Hummingbird", package: "hummingbird"), .product(name: "Logging", package: "swift-log"),
                           .product(name: "HummingbirdCore", package: "hummingbird"), .product(name: "HTTPTypes", package: "swift-http-types"),
                           .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio")],
            resources: [.embedInCode("Page")]
        ),
        // `segue serve`: the render service (Hummingbird, its OpenAPI document's generated
        // routes in Generated/), jobs in SQLite, webhooks; beside the library as the preview is.
        .target(
            name: "SegueServe",
            dependencies: ["Segue", .product(name: "Hummingbird", package: "hummingbird"), .product(name: "Logging", package: "swift-log"),
                           .product(name: "HTTPTypes", package: "swift-http-types"),
                           .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                           .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
                           .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Crypto", package: "swift-crypto"),
                           .product(name: "AsyncHTTPClient", package: "async-http-client")],
            exclude: ["openapi.yaml", "openapi-generator-config.yaml"],
            resources: [.embedInCode("openapi.json")]
        ),
        .executableTarget(
            name: "segue",
            dependencies: ["Segue", "SeguePreview", "SegueServe", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .testTarget(
            name: "SegueCLITests",
            dependencies: ["segue", "SeguePreview", "SegueServe", "SegueTestSupport"]
        ),
    ]),
    swiftLanguageModes: [.v6]
)
