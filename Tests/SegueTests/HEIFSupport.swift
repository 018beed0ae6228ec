import CHeif
import Foundation

/// HEIF files made by libheif's own encoder, as an iPhone saves its photos: HEVC, a
/// rotation kept as irot/imir (the pixels stored as the sensor saw them) and an ICC profile.
enum HEIFFixture {
    /// Encodes `width` x `height` RGB pixels (`rgb(x, y)`) with `orientation` (EXIF numbering)
    /// and `profile`, at lossy quality 95.
    static func write(_ path: String, width: Int, height: Int, orientation: heif_orientation, profile: [UInt8],
                      _ rgb: (Int, Int) -> (UInt8, UInt8, UInt8)) throws {
        let context = heif_context_alloc()
        defer { heif_context_free(context) }
        var encoder: OpaquePointer?
        try check(heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder))
        defer { heif_encoder_release(encoder) }
        try check(heif_encoder_set_lossy_quality(encoder, 95))
        var image: OpaquePointer?
        try check(heif_image_create(Int32(width), Int32(height), heif_colorspace_RGB, heif_chroma_interleaved_RGB, &image))
        defer { heif_image_release(image) }
        try check(heif_image_add_plane(image, heif_channel_interleaved, Int32(width), Int32(height), 8))
        var stride: Int32 = 0
        let plane = heif_image_get_plane(image, heif_channel_interleaved, &stride)!
        for y in 0..<height {
            for x in 0..<width {
                let (r, g, b) = rgb(x, y)
                let p = plane + y * Int(stride) + x * 3
                p[0] = r; p[1] = g; p[2] = b
            }
        }
        try profile.withUnsafeBytes { try check(heif_image_set_raw_color_profile(image, "prof", $0.baseAddress, profile.count)) }
        let options = heif_encoding_options_alloc()!
        defer { heif_encoding_options_free(options) }
        options.pointee.image_orientation = orientation
        try check(heif_context_encode_image(context, image, encoder, options, nil))
        try check(heif_context_write_to_file(context, path))
    }

    /// The stored pixel at (x, y), decoded by libheif without its rotation or any colour
    /// conversion: what the file's profile describes.
    static func storedPixel(_ path: String, x: Int, y: Int) throws -> (Int, Int, Int) {
        let context = heif_context_alloc()
        defer { heif_context_free(context) }
        try check(heif_context_read_from_file(context, path, nil))
        var handle: OpaquePointer?
        try check(heif_context_get_primary_image_handle(context, &handle))
        defer { heif_image_handle_release(handle) }
        let options = heif_decoding_options_alloc()!
        defer { heif_decoding_options_free(options) }
        options.pointee.ignore_transformations = 1
        var image: OpaquePointer?
        try check(heif_decode_image(handle, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGB, options))
        defer { heif_image_release(image) }
        var stride: Int32 = 0
        let plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride)!
        let p = plane + y * Int(stride) + x * 3
        return (Int(p[0]), Int(p[1]), Int(p[2]))
    }

    struct Failure: Error, CustomStringConvertible { let description: String }

    static func check(_ error: heif_error) throws {
        guard error.code != heif_error_Ok else { return }
        throw Failure(description: error.message.map { String(cString: $0) } ?? "libheif error \(error.code)")
    }
}
