"""The benchmark behind scripts/bench: runs each workload several times, side by side,
and prints one table of medians, minimums, maximums, frame rates, peak memory and ratios."""
import argparse, hashlib, os, re, shlex, shutil, statistics, subprocess, sys, time

p = argparse.ArgumentParser()
p.add_argument("--segue", required=True)
p.add_argument("--photos", required=True)
p.add_argument("--work", required=True)
p.add_argument("--runs", type=int, default=3)
p.add_argument("--compose-runs", type=int, default=5,
               help="rounds of the compose rates (a second or so each), whose one- and two-thread runs are paired round by round")
p.add_argument("--baseline", help="another segue binary: compose rates only, this one and the baseline alternated, with ratios")
p.add_argument("--threads", type=int, default=1, help="compositor threads of the --baseline comparison")
p.add_argument("--kinds", help="with --baseline: only these transitions (comma-separated, as transition.kind names them), each on the crossfade preset")
p.add_argument("--export-baseline", help="another segue binary: the exports (--only narrows them) on this one and the baseline alternated, "
               "with each round's ratio and the spread of each binary's own rounds; no floors")
p.add_argument("--only", help="only the exports whose names start with these, comma-separated (text10,story10,clips,...; a comma followed by a space belongs to a name: 'story4 stories-cube, deterministic'), and no compose rates")
p.add_argument("--compose-only", action="store_true", help="the compose rates (and the instruction count) without the exports")
p.add_argument("--xfade-only", action="store_true", help="only the xfade catalogue's compose rates against FFmpeg's own xfade")
p.add_argument("--xfade-ffmpeg", help="the FFmpeg whose xfade the catalogue is measured against (default: FFmpeg's newest release, "
               "PyPI's imageio-ffmpeg, installed into a virtual environment under --work; Debian 12's FFmpeg 5.1 lacks 12 of the names)")
p.add_argument("--gl-only", action="store_true", help="only the gl-transitions ports' compose rates, each beside its GLSL file run by llvmpipe on one thread")
p.add_argument("--luma-only", action="store_true", help="only the compose rates of transitions of the user's own: luma wipes beside a wipe and a crossfade, a GLSL file beside its native port")
p.add_argument("--floor-only", action="store_true", help="only what loading one bilinear sample a pixel costs at 1080x1920, loads alone, at Swirl's, kaleidoscope's and swap's points, with and without asking the cache ahead (scripts/sampling-floor.c)")
p.add_argument("--rows", type=int, default=200, help="rows of the template workload (a 6-second 540x960 card per row)")
p.add_argument("--chunk-size", default="540x960", help="canvas of the chunks workload (a 10-minute story in 8 chunks)")
p.add_argument("--chunk-minutes", type=float, default=10, help="length of the chunks workload's story")
p.add_argument("--preview-saves", type=int, default=500, help="saves of the story in the preview workload's memory check (an hour of editing)")
args = p.parse_args()

os.makedirs(args.work, exist_ok=True)
photos = [os.path.join(args.photos, n + ".jpg") for n in ["Garden", "Aqua", "LadyBird", "TwoWings"]]
W, H, FPS = 1080, 1920, 30
X264 = ["-c:v", "libx264", "-preset", "veryfast", "-crf", "20", "-threads", "2", "-pix_fmt", "yuv420p", "-movflags", "+faststart"]
# story4 in Segue's timeline: 4 holds of 1.75 s and 3 transitions of 0.5 s = 8.5 s, 255 frames.
STORY4 = ["--set", "hold=1.75", "--set", "transition.duration=0.5", "--set", "encode.speed=veryfast",
          "--set", "encode.crf=20", "--set", "encode.threads=2", "--set", "fit=fill", "--size", f"{W}x{H}", "--fps", str(FPS)]


def asked(name):
    """Whether the workload `name` runs: every one without --only, else those a comma-separated
    --only value begins."""
    return not args.only or any(name.startswith(p) for p in re.split(r",(?! )", args.only))


def run(cmd, env=None):
    """Runs a command (with `env` added to the environment); returns (seconds, peak RSS in MB, stderr)."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=dict(os.environ, **env) if env else None)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.monotonic() - start
    err = proc.stderr.read().decode()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{err}")
    return seconds, usage.ru_maxrss / 1024, err


def frames(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                          "stream=nb_read_frames", "-of", "csv=p=0", path], capture_output=True, text=True).stdout
    return int(out.strip())


def segue(transition, output, extra=()):
    return [args.segue, "render", "--preset", transition, "--force", "--quiet", *STORY4, *extra, *photos, "-o", output]


# Compose rates are measured over 6.6 s of transition (198 frames), long enough that the
# first frame's wait for its pictures weighs little, and not a length at which a slide moves
# by whole pixels each frame (3 s, 90 frames: 12 pixels), which would make it a copy.
COMPOSE_SECONDS = 6.6

# Compose rates against another build: each workload alternately on both binaries, one
# compositor thread (or --threads), so that load on the machine hits both alike.
COMPOSE = [("slide", []), ("crossfade", []), ("crossfade, fit", ["--set", "fit=fit"]), ("stories-cube", []),
           ("telegram-cube", []), ("flip", []), ("iris", []), ("cube-fold", []), ("instagram-zoom", []),
           # Ken Burns: holds that move (zooming in), every frame composed.
           ("slide, Ken Burns hold", ["--set", "motion.kind=in", "--set", f"hold={COMPOSE_SECONDS}", "--set", "transition.duration=0"])]
if args.baseline:
    rates = {}
    compose = [(f"crossfade, {k}", ["--set", f"transition.kind={k}"]) for k in args.kinds.split(",")] if args.kinds else COMPOSE
    for r in range(args.runs):
        for name, extra in compose:
            order = [("this", args.segue), ("baseline", args.baseline)]
            for label, binary in (order if r % 2 == 0 else order[::-1]):
                _, _, err = run([binary, "render", "--preset", name.split(",")[0], "--set", "hold=0", "--set", f"transition.duration={COMPOSE_SECONDS}", *extra,
                                 "--size", f"{W}x{H}", "--threads", str(args.threads), "--format", "null", photos[0], photos[1], "-o", "-"])
                rates.setdefault((name, label), []).append(float(re.search(r"composed in [0-9.]+ s, ([0-9.]+) fps", err).group(1)))
    threads = "1 thread" if args.threads == 1 else f"{args.threads} threads"
    print(f"{'compose fps, 1080x1920, %s (median of %d)' % (threads, args.runs):<48} {'this':>8} {'baseline':>9} {'ratio':>6}  per-round ratios")
    for name, _ in compose:
        a, b = rates[(name, "this")], rates[(name, "baseline")]
        ratios = " ".join(f"{x / y:.2f}" for x, y in sorted(zip(a, b), key=lambda p: p[0] / p[1]))
        print(f"{name:<48} {statistics.median(a):>8.1f} {statistics.median(b):>9.1f} {statistics.median(a) / statistics.median(b):>6.2f}  {ratios}")
    sys.exit(0)

# Exports against their encode floor: each Segue video's own frames, written raw by Segue
# (`-o frames.yuv`: the yuv420p planes its encoder is given), encoded by FFmpeg with the same
# libx264 settings, so that only encoding is timed. With Segue's settings in full (x264's
# lookahead in the calling thread, sync-lookahead=0, which keeps Segue's MP4 bytes the same
# on every run; BT.709 tags, square pixels, closed GOPs, bitexact) FFmpeg writes the very
# H.264 bytes Segue wrote, which is checked: the floor does the same encoding work. The
# export is also timed against FFmpeg's default settings (threaded lookahead). A first,
# untimed Segue run makes the video; then each round runs Segue and both floors (and FFmpeg's
# own filter graph where it can do the same: xfade, a clip's fill) one after the other, in an
# order that alternates, so that the machine's load hits all alike; a ratio is the median of
# the rounds' ratios.
exports = []   # dicts, one per workload
# Segue keeps x264 off its AVX-512 routines (with them its output varies from run to run
# when it encodes on other threads): the floor does too, on a CPU that has them.
AVX512 = " avx512f " in open("/proc/cpuinfo").read().replace("\n", " ")
SAME = ["-x264-params", "sync-lookahead=0" + (":asm=AVX2" if AVX512 else "")]
TAGS_IN = ["-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709", "-color_range", "tv"]


def h264(path):
    """The MD5 of a video's H.264 stream (Annex B), without its container."""
    out = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:v", "-c", "copy", "-bsf:v", "h264_mp4toannexb", "-f", "h264", "-"],
                         capture_output=True, check=True).stdout
    return hashlib.md5(out).hexdigest()


def export(name, cmd, output, count, graph=None):
    if not asked(name):
        return
    print(f"  {name}", file=sys.stderr)
    run(cmd)
    got = frames(output)
    if got != count:
        sys.exit(f"{name}: wrote {got} frames, expected {count}")
    if args.export_baseline:
        # The same command on the other binary; whether the two write the same video's bytes.
        base_cmd = [args.export_baseline] + cmd[1:]
        mine = h264(output)
        run(base_cmd)
        same = h264(output) == mine
        times = {"segue": [], "baseline": []}
        for r in range(args.runs):
            for kind, c in ([("segue", cmd), ("baseline", base_cmd)] if r % 2 == 0 else [("baseline", base_cmd), ("segue", cmd)]):
                times[kind].append(run(c)[0])
        a, b = times["segue"], times["baseline"]
        exports.append(dict(name=name, frames=count, segue=statistics.median(a), baseline=statistics.median(b), same_bytes=same,
                            ratios=sorted(x / y for x, y in zip(a, b)),
                            spread=(max(a) - min(a)) / statistics.median(a), base_spread=(max(b) - min(b)) / statistics.median(b)))
        return
    raw = os.path.join(args.work, "frames.yuv")
    run(cmd[:-1] + [raw])
    if os.path.getsize(raw) != count * W * H * 3 // 2:
        sys.exit(f"{name}: {raw} holds {os.path.getsize(raw)} bytes, expected {count} frames of {W}x{H} yuv420p")
    floor_out = os.path.join(args.work, "floor.mp4")
    default_cmd = ["ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", f"{W}x{H}", "-r", str(FPS), *TAGS_IN,
                   "-i", raw, "-vf", "setsar=1", "-flags", "+bitexact+cgop", *X264, floor_out]
    floor_cmd = default_cmd[:-1] + SAME + [floor_out]
    run(floor_cmd)
    same_bytes = h264(floor_out) == h264(output)
    runs = [("segue", cmd), ("floor", floor_cmd), ("default", default_cmd)] + ([("graph", graph)] if graph else [])
    times, peaks = {k: [] for k, _ in runs}, {k: [] for k, _ in runs}
    for r in range(args.runs):
        for kind, c in (runs if r % 2 == 0 else runs[::-1]):
            t, m, _ = run(c)
            times[kind].append(t)
            peaks[kind].append(m)
    os.remove(raw)
    exports.append(dict(name=name, frames=count, segue=statistics.median(times["segue"]), floor=statistics.median(times["floor"]),
                        ratios=sorted(a / b for a, b in zip(times["segue"], times["floor"])), same_bytes=same_bytes,
                        default=statistics.median(a / b for a, b in zip(times["segue"], times["default"])),
                        default_ratios=sorted(a / b for a, b in zip(times["segue"], times["default"])),
                        graph=statistics.median(a / b for a, b in zip(times["segue"], times["graph"])) if graph else None,
                        peak=max(peaks["segue"]), floor_peak=max(peaks["floor"])))


def story_export(name, stem, story, count, graph=None):
    """Writes `story` to WORK/STEM.yaml and measures its export as `name` (against FFmpeg's own
    filter `graph` on the same inputs, when given: a command less its output)."""
    path = os.path.join(args.work, f"{stem}.yaml")
    with open(path, "w") as f:
        f.write(story)
    out = os.path.join(args.work, f"segue-{stem}.mp4")
    export(name, [args.segue, "render", "--story", path, "--size", f"{W}x{H}", "--fps", str(FPS), "--force", "--quiet", "-o", out], out, count,
           graph + [os.path.join(args.work, f"graph-{stem}.mp4")] if graph else None)


def gif_export():
    """A GIF of story4 against FFmpeg's own two-pass palette commands on the same frames, read
    raw; alternated rounds. (segue s, ffmpeg s, median ratio, ratios), or None when not asked."""
    name = "gif story4"
    if not asked(name):
        return None
    print(f"  {name}", file=sys.stderr)
    out = os.path.join(args.work, "segue.gif")
    cmd = [args.segue, "render", "--preset", "stories-cube", "--force", "--quiet", "--set", "hold=1.75", "--set", "transition.duration=0.5",
           "--set", "fit=fill", "--size", "480x854", *photos, "-o", out]
    run(cmd)
    pngs = os.path.join(args.work, "gif-frames")
    shutil.rmtree(pngs, ignore_errors=True)
    run(cmd[:-2] + ["--fps", "15", "-o", pngs])
    raw = os.path.join(args.work, "gif.rgba")
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-framerate", "15", "-i", pngs + "/frame-%05d.png", "-f", "rawvideo", "-pix_fmt", "rgba", raw], check=True)
    src = ["-f", "rawvideo", "-pix_fmt", "rgba", "-s", "480x854", "-r", "15", "-i", raw]
    palette = os.path.join(args.work, "palette.png")
    ffmpeg = ["bash", "-c", shlex.join(["ffmpeg", "-v", "error", "-y", *src, "-vf", "palettegen", palette]) + " && " +
              shlex.join(["ffmpeg", "-v", "error", "-y", *src, "-i", palette, "-lavfi", "paletteuse", os.path.join(args.work, "ffmpeg.gif")])]
    times = {"segue": [], "ffmpeg": []}
    for r in range(args.runs):
        for kind, c in ([("segue", cmd), ("ffmpeg", ffmpeg)] if r % 2 == 0 else [("ffmpeg", ffmpeg), ("segue", cmd)]):
            times[kind].append(run(c)[0])
    ratios = sorted(a / b for a, b in zip(times["segue"], times["ffmpeg"]))
    os.remove(raw)
    return statistics.median(times["segue"]), statistics.median(times["ffmpeg"]), statistics.median(ratios), ratios


def workspace(name, folder, detail=""):
    """The folder a workload `name` works in (made under --work), or None when it is not asked."""
    if not asked(name):
        return None
    print(f"  {name}{detail}", file=sys.stderr)
    work = os.path.join(args.work, folder)
    os.makedirs(work, exist_ok=True)
    return work


def template_export():
    """`segue batch --template` of ROWS 6-second 540x960 cards (a name, a photo, music), one
    process, against the encode floor of the same frames: FFmpeg encoding ten rows' own yuv420p
    frames (cycled to ROWS videos) with Segue's x264 settings, and the music's 6 seconds as the
    stereo 48 kHz AAC Segue writes; one process at a time, and in as many lanes at once as Segue
    runs rows. (rows, segue s, floor s one at a time, floor s at once, lanes, median ratio to the
    faster floor, ratios), or None when not asked."""
    work = workspace("template rows", "template", f" ({args.rows})")
    if work is None:
        return None
    music = os.path.join(work, "music.m4a")
    if not os.path.exists(music):
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=330:duration=30", "-f", "lavfi", "-i",
                        "anoisesrc=d=30:a=0.05", "-filter_complex", "amix=inputs=2", "-c:a", "aac", music], check=True)
    with open(os.path.join(work, "card.yaml"), "w") as f:
        f.write("vars: {name: ~, photo: ~}\npreset: crossfade\naudio: {file: music.m4a, fadeOut: 1}\n"
                "set: {canvas.size: [540, 960], canvas.scale: 1.5, hold: 6, motion.kind: in, fit: fill, encode.speed: veryfast, encode.crf: 20, encode.threads: 2}\n"
                "overlays:\n  - {text: \"Welcome, {{name}}\", style: strong, at: [0.5, 0.8]}\nslides:\n  - image: \"{{photo}}\"\n")
    nature = sorted(os.path.abspath(os.path.join(args.photos, n)) for n in os.listdir(args.photos) if n.endswith(".jpg"))
    with open(os.path.join(work, "rows.csv"), "w") as f:
        f.write("id,name,photo\n" + "".join(f"r{i:04d},Person {i},{nature[i % len(nature)]}\n" for i in range(args.rows)))
    with open(os.path.join(work, "ten.csv"), "w") as f:
        f.write("id,name,photo\n" + "".join(f"r{i:04d},Person {i},{nature[i % len(nature)]}\n" for i in range(10)))
    card, rows = os.path.join(work, "card.yaml"), os.path.join(work, "rows.csv")
    cmd = [args.segue, "batch", "--template", card, "--data", rows, "-o", os.path.join(work, "out", "{{id}}.mp4"), "--force", "--quiet"]
    run([args.segue, "batch", "--template", card, "--data", os.path.join(work, "ten.csv"), "-o", os.path.join(work, "yuv", "{{id}}.yuv"), "--force", "--quiet"])
    wav = os.path.join(work, "music6.wav")
    # The sound Segue writes: the (mono) music faded out on Segue's curve and put at full level
    # in both channels (FFmpeg's `-ac 2` would mix it in 3 dB lower, which the AAC encoder
    # spends less time on), as stereo at 48 kHz.
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-t", "6", "-i", music, "-af", "afade=t=out:st=5:d=1:curve=hsin,pan=stereo|c0=c0|c1=c0", "-ar", "48000",
                    "-c:a", "pcm_f32le", wav], check=True)
    encodes = [shlex.join(["ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "540x960", "-r", "30", *TAGS_IN,
                           "-i", os.path.join(work, "yuv", f"r{i % 10:04d}.yuv"), "-i", wav, "-vf", "setsar=1", "-flags", "+bitexact+cgop",
                           *X264[:-2], *SAME, "-c:a", "aac", "-b:a", "192k", "-movflags", "+faststart", os.path.join(work, "floor.mp4")])
               for i in range(args.rows)]
    # The floor one process at a time, and in as many lanes at once as Segue runs rows at once
    # (`--jobs auto`: one for each 1.5 CPUs), each lane its own output: the faster is the floor.
    lanes = max(1, (2 * len(os.sched_getaffinity(0)) + 2) // 3)
    def lane(k):
        return " && ".join(e.replace(shlex.quote(os.path.join(work, "floor.mp4")), shlex.quote(os.path.join(work, f"floor{k}.mp4")))
                           for e in encodes[k::lanes])
    floors = {"floor": ["bash", "-c", " && ".join(encodes)],
              "floor at once": ["bash", "-c", " & ".join(f"( {lane(k)} )" for k in range(lanes)) + " & wait"]}
    times = {"segue": [], "floor": [], "floor at once": []}
    kinds = [("segue", cmd)] + list(floors.items())
    for r in range(args.runs):
        for kind, c in (kinds if r % 2 == 0 else kinds[::-1]):
            times[kind].append(run(c)[0])
    best = [min(a, b) for a, b in zip(times["floor"], times["floor at once"])]
    ratios = sorted(a / b for a, b in zip(times["segue"], best))
    shutil.rmtree(os.path.join(work, "yuv"), ignore_errors=True)
    return (args.rows, statistics.median(times["segue"]), statistics.median(times["floor"]), statistics.median(times["floor at once"]),
            lanes, statistics.median(ratios), ratios)


def planning():
    """`segue batch --dry-run` of a template's rows and of a manifest's jobs, 10,000 and 100,000
    of each (a card with a name and a photo, the photos shared by the rows), alternated round by
    round: seconds and peak memory, and the ratio of the two sizes' times (10 when linear), or
    None when not asked."""
    name = "planning"
    if not asked(name):
        return None
    print(f"  {name}", file=sys.stderr)
    work = os.path.join(args.work, "planning")
    os.makedirs(work, exist_ok=True)
    nature = sorted(os.path.abspath(os.path.join(args.photos, n)) for n in os.listdir(args.photos) if n.endswith(".jpg"))[:8]
    # The photos beside the files, named as a user's would be (paths relative to the manifest).
    for i, photo in enumerate(nature):
        if not os.path.exists(os.path.join(work, f"p{i}.jpg")):
            os.symlink(photo, os.path.join(work, f"p{i}.jpg"))
    nature = [f"p{i}.jpg" for i in range(len(nature))]
    with open(os.path.join(work, "card.yaml"), "w") as f:
        f.write("vars: {name: ~, photo: ~}\npreset: crossfade\nset: {canvas.size: [540, 960], canvas.scale: 1.5, hold: 2.5}\n"
                "overlays: [{text: \"Welcome, {{name}}\", style: strong, at: [0.5, 0.78]}]\nslides: [{image: \"{{photo}}\", motion: in}]\n")
    sizes = [10_000, 100_000]
    commands = {}
    for n in sizes:
        rows, manifest = os.path.join(work, f"rows{n}.csv"), os.path.join(work, f"jobs{n}.yaml")
        if not os.path.exists(manifest):
            with open(rows, "w") as f:
                f.write("id,name,photo\n" + "".join(f"r{i:06d},Person {i},{nature[i % len(nature)]}\n" for i in range(n)))
            with open(manifest, "w") as f:
                f.write("jobs:\n" + "".join(f"  - {{inputs: [{nature[i % len(nature)]}, {nature[(i + 1) % len(nature)]}], output: out/j{i:06d}.mp4}}\n"
                                            for i in range(n)))
        commands[("template", n)] = [args.segue, "batch", "--template", os.path.join(work, "card.yaml"), "--data", rows,
                                     "-o", os.path.join(work, "out", "{{id}}.mp4"), "--dry-run", "--quiet"]
        commands[("manifest", n)] = [args.segue, "batch", manifest, "--dry-run", "--quiet"]
    results = {key: [] for key in commands}
    keys = list(commands)
    for r in range(args.runs):
        for key in (keys if r % 2 == 0 else keys[::-1]):
            results[key].append(run(commands[key])[:2])
    return {key: (statistics.median(t for t, _ in v), max(m for _, m in v), [t for t, _ in v]) for key, v in results.items()}


def beats_workload():
    """Cuts on the beat: `segue beats` of a three-minute MP3 on one core (taskset), and the dry
    run of a 2,000-slide story (76 minutes: the track looped) with `timing: beats` (its analysis kept from a first run) beside the
    same story timed by its holds, and a 100-row template's dry run with the cache empty beside
    the same without timing, alternated round by round; None when not asked."""
    work = workspace("beats", "beats")
    if work is None:
        return None
    track = os.path.join(work, "drums180.mp3")
    if not os.path.exists(track):
        # 100 BPM: a kick on every beat, a snare on 2 and 4, hi-hat eighths, under a chord.
        p = 0.6
        sound = (f"0.6*sin(2*PI*60*t)*exp(-mod(t\\,{p})*12)+0.35*sin(2*PI*190*t)*exp(-mod(t-{p}\\,{2 * p})*18)*gte(mod(t\\,{2 * p})\\,{p})"
                 f"+0.08*sin(2*PI*7000*t)*exp(-mod(t\\,{p / 2})*60)+0.05*(sin(2*PI*220*t)+sin(2*PI*277*t)+sin(2*PI*330*t))")
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"aevalsrc='{sound}':s=44100:d=180", "-b:a", "192k", track], check=True)
    nature = sorted(os.path.abspath(os.path.join(args.photos, n)) for n in os.listdir(args.photos) if n.endswith(".jpg"))[:8]
    slides = "".join(f"  - {{image: {nature[i % len(nature)]}, hold: {1.5 + 0.1 * (i % 7):.1f}}}\n" for i in range(2000))
    for timing in ("beats", "none"):
        with open(os.path.join(work, f"story-{timing}.yaml"), "w") as f:
            f.write(f"preset: crossfade\naudio: drums180.mp3\ntiming: {timing}\nslides:\n{slides}")
        with open(os.path.join(work, f"card-{timing}.yaml"), "w") as f:
            f.write(f"vars: {{name: ~}}\npreset: crossfade\naudio: drums180.mp3\ntiming: {timing}\nset: {{canvas.size: [540, 960], canvas.scale: 1.5}}\n"
                    f"overlays: [{{text: \"{{{{name}}}}\"}}]\nslides: [{{image: {nature[0]}}}, {{image: {nature[1]}}}, {{image: {nature[2]}}}]\n")
    with open(os.path.join(work, "rows.csv"), "w") as f:
        f.write("id,name\n" + "".join(f"r{i},Person {i}\n" for i in range(100)))
    cache = os.path.join(work, "cache")
    warm = {"SEGUE_CACHE": cache}
    def story(timing):
        return [args.segue, "render", "--story", os.path.join(work, f"story-{timing}.yaml"), "-o", os.path.join(work, "out.mp4"), "--dry-run", "--force",
                "--max-pixel-frames", "1e13"]
    def template(timing):
        return [args.segue, "batch", "--template", os.path.join(work, f"card-{timing}.yaml"), "--data", os.path.join(work, "rows.csv"),
                "-o", os.path.join(work, "out", "{{id}}.mp4"), "--dry-run", "--quiet"]
    run(story("beats"), env=warm)
    results = {k: [] for k in ("analysis", "beats", "plain", "template-cold", "template-plain")}
    for r in range(args.runs):
        order = list(results) if r % 2 == 0 else list(results)[::-1]
        for key in order:
            if key == "analysis":
                results[key].append(run(["taskset", "-c", "0", args.segue, "beats", track])[0])
            elif key in ("beats", "plain"):
                results[key].append(run(story("beats" if key == "beats" else "none"), env=warm)[0])
            else:
                cold = os.path.join(work, f"cold{r}")
                shutil.rmtree(cold, ignore_errors=True)
                results[key].append(run(template("beats" if key == "template-cold" else "none"), env={"SEGUE_CACHE": cold})[0])
    return {k: (statistics.median(v), v) for k, v in results.items()}


def rows_reading():
    """What reading a template's rows costs, CSV and JSON Lines (three short fields a row, as
    VolumeTests writes them): the instructions TemplateData.load executes a row, counted by
    callgrind over 5,000 rows (the load alone, --toggle-collect), and the time they take at
    the rate the same dry run executes instructions natively; None when not asked."""
    work = workspace("rows", "rows")
    if work is None:
        return None
    with open(os.path.join(work, "card.yaml"), "w") as f:
        f.write("vars: {name: ~}\npreset: crossfade\nset: {canvas.size: [90, 160], canvas.scale: 0.25, hold: 1}\n"
                "overlays: [{text: \"{{name}}\"}]\nslides: [{image: a.jpg}]\n")
    shutil.copy("Examples/a.jpg", os.path.join(work, "a.jpg"))
    n = 5_000
    files = {"csv": os.path.join(work, f"rows{n}.csv"), "jsonl": os.path.join(work, f"rows{n}.jsonl")}
    with open(files["csv"], "w") as f:
        f.write("id,name,photo\n" + "".join(f'r{k},"Name, {k}",p{k % 7}.jpg\n' for k in range(n)))
    with open(files["jsonl"], "w") as f:
        f.write("".join(f'{{"id": "r{k}", "name": "Name {k}", "photo": "p{k % 7}.jpg"' + (f', "extra": {k}' if k % 3 == 0 else "") + "}\n"
                        for k in range(n)))
    stripped = os.path.join(args.work, "segue-stripped")
    shutil.copy(args.segue, stripped)
    subprocess.run(["strip", "--strip-debug", stripped], check=True)  # valgrind 3.19 cannot read the newest DWARF
    results = {}
    for kind, data in files.items():
        command = [stripped, "batch", "--template", os.path.join(work, "card.yaml"), "--data", data,
                   "-o", os.path.join(work, "out", "{{id}}.mp4"), "--dry-run", "--quiet"]
        natively = statistics.median(run(command)[0] for _ in range(args.runs))
        whole = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command], capture_output=True, text=True)
        load = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", "--collect-atstart=no",
                               "--toggle-collect=*TemplateData*load*", *command], capture_output=True, text=True)
        counted = [re.search(r"Collected : (\d+)", r.stderr) for r in (whole, load)]
        if not all(counted):
            results[kind] = None
            continue
        total, loading = (int(m.group(1)) for m in counted)
        rate = total / natively          # instructions a second, natively, for this run
        results[kind] = (loading / n, loading / rate / n * 1e6, natively)
    return n, results


def growth():
    """What voices on a soundtrack, words of a highlighted cue, and a long word cost at 1k, 2k and
    4k of them (the medians of alternated runs, and each size's time over the one before:
    about 2 when it grows in proportion); None when not asked."""
    work = workspace("growth", "growth")
    if work is None:
        return None
    shutil.copy("Examples/a.jpg", os.path.join(work, "a.jpg"))
    voice = os.path.join(work, "voice.wav")
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=f=440:d=0.5", "-ac", "1", voice], check=True)
    small = "set: {canvas.size: [64, 64], canvas.scale: 0.25, fps: 10}\n"
    cases = {}
    for n in (1_000, 2_000, 4_000):
        # A voice every 20 ms over a 20 s story (0.5 s each: 25 heard at once).
        with open(os.path.join(work, f"voices{n}.yaml"), "w") as f:
            f.write(small + "slides: [{image: a.jpg, hold: 20}]\nvoice:\n" + "".join(f"  - {{file: voice.wav, at: {20 * k / n:.4f}}}\n" for k in range(n)))
        with open(os.path.join(work, f"words{n}.srt"), "w") as f:
            f.write("1\n00:00:00,000 --> 00:00:10,000\n" + " ".join(f"w{k}" for k in range(n)) + "\n\n")
        with open(os.path.join(work, f"words{n}.yaml"), "w") as f:
            f.write(small + f"captions: {{file: words{n}.srt, words: highlight, size: 2}}\nslides: [{{image: a.jpg, hold: 10}}]\n")
        cases[("voices", n)] = [args.segue, "render", "--story", os.path.join(work, f"voices{n}.yaml"), "--chunk", "sound", "--force", "--quiet",
                                "-o", os.path.join(work, "voices.mp4")]
        cases[("words", n)] = [args.segue, "render", "--story", os.path.join(work, f"words{n}.yaml"), "--force", "--quiet",
                               "-o", os.path.join(work, "words.mp4")]
    times = {key: [] for key in cases}
    for _ in range(args.runs):
        for key, command in cases.items():
            times[key].append(run(command)[:2])
    return {key: (statistics.median(t for t, _ in runs), max(m for _, m in runs)) for key, runs in times.items()}


def chunks_export():
    """A long story (40 photos, Ken Burns on each, cubes, looped music) rendered on one machine
    and as 8 chunks and the sound chunk, each task alone on the machine's cores, then joined; the
    two alternated round by round. Prints each chunk's time, its start-up (inputs prepared), the
    sound task's, the join's, and the speed-up the numbers give for 8, 32, 128 and 512 tasks of
    this machine. None when not asked."""
    name = "chunks"
    if not asked(name):
        return None
    work = os.path.join(args.work, "chunks")
    os.makedirs(work, exist_ok=True)
    music = os.path.join(work, "music.m4a")
    if not os.path.exists(music):
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=330:duration=30", "-c:a", "aac", music], check=True)
    nature = sorted(os.path.abspath(os.path.join(args.photos, n)) for n in os.listdir(args.photos) if n.endswith(".jpg"))
    hold = args.chunk_minutes * 60 / 40 - 0.5
    w, h = args.chunk_size.split("x")
    story = (f"preset: stories-cube\naudio: {{file: music.m4a, loop: true}}\nset: {{canvas.size: [{w}, {h}], canvas.scale: {int(w) / 360:g}, "
             f"hold: {hold:g}, transition.duration: 0.5, fit: fill, encode.speed: veryfast, encode.crf: 20, encode.threads: 2}}\nslides:\n")
    motions = ["in", "out", "left", "right", "up", "down"]
    story += "".join(f"  - {{image: {nature[i % len(nature)]}, motion: {motions[i % len(motions)]}}}\n" for i in range(40))
    path = os.path.join(work, "long.yaml")
    with open(path, "w") as f:
        f.write(story)
    one, out = os.path.join(work, "one.mp4"), os.path.join(work, "out.mp4")
    n = 8
    print(f"  {name} ({args.chunk_minutes:g} minutes at {args.chunk_size}, {n} chunks)", file=sys.stderr)
    times = {"one": [], "chunks": [], "join": [], "startup": [], "sound": []}
    per_chunk = []
    for r in range(args.runs):
        def single():
            times["one"].append(run([args.segue, "render", "--story", path, "-o", one, "--force", "--quiet"])[0])
        def chunked():
            shutil.rmtree(out + ".chunks", ignore_errors=True)
            spent = []
            for k in range(1, n + 1):
                seconds, _, err = run([args.segue, "render", "--story", path, "-o", out, "--chunk", f"{k}/{n}"])
                spent.append(seconds)
                times["startup"].append(float(re.search(r"inputs prepared in ([0-9.]+) s", err).group(1)))
            per_chunk.append(spent)
            times["chunks"].append(sum(spent))
            times["sound"].append(run([args.segue, "render", "--story", path, "-o", out, "--chunk", "sound"])[0])
            times["join"].append(run([args.segue, "join", "--story", path, "-o", out, "--force", "--quiet"])[0])
        for step in ((single, chunked) if r % 2 == 0 else (chunked, single)):
            step()
    count = frames(one)
    t1, join, startup = statistics.median(times["one"]), statistics.median(times["join"]), statistics.median(times["startup"])
    sound = statistics.median(times["sound"])
    chunk = [statistics.median(c) for c in zip(*per_chunk)]
    # On P machines like this one, P - 1 chunks and the sound task at once: the slower of a
    # chunk (its start-up and its share of the frames) and the sound, then the join.
    per_frame = (statistics.median(times["chunks"]) - n * startup) / count
    model = {p: max(startup + per_frame * -(-count // (p - 1)), sound) + join for p in (8, 32, 128, 512)}
    return dict(frames=count, one=t1, chunk=chunk, join=join, startup=startup, sound=sound, model=model,
                ratios=sorted(c / o for c, o in zip(times["chunks"], times["one"])))


def preview_workload(story10):
    """`segue preview` of story10 (ten photos, Ken Burns, six kinds of cut) on this machine's
    cores, over HTTP as the page asks: seconds from start to the first proxy, from saving a
    slide's new hold to the updated proxy (each round a hold on a slide spread over the story,
    the slides alternating), a frame at full resolution (20 frames spread over the story), and
    the server's memory over --preview-saves saves. None when not asked."""
    name = "preview"
    if not asked(name):
        return None
    import json, urllib.request
    print(f"  {name} (story10, {args.preview_saves} saves)", file=sys.stderr)
    work = os.path.join(args.work, "preview")
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, "story10.yaml")
    lines = story10.splitlines(keepends=True)
    holds = [i for i, line in enumerate(lines) if line.strip().startswith("hold:")]

    def save(slide, hold):
        edited = list(lines)
        edited[holds[slide]] = f"    hold: {hold:g}\n"
        with open(path + ".new", "w") as f:
            f.writelines(edited)
        os.replace(path + ".new", path)

    def api(address):
        with urllib.request.urlopen(address + "api/story") as r:
            return json.load(r)

    def rss(pid):
        with open(f"/proc/{pid}/status") as f:
            return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1)) / 1024

    first, updates, rendered, frame_times, memory = [], [], [], [], None
    for r in range(args.runs):
        save(0, 1.5)
        start = time.monotonic()
        server = subprocess.Popen([args.segue, "preview", path, "--port", "0", "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        address = server.stdout.readline().strip()
        while not api(address)["ok"]:
            time.sleep(0.01)
        first.append(time.monotonic() - start)
        for n in range(6):
            slide, version = (3 * n + r) % 10, api(address)["version"]
            start = time.monotonic()
            save(slide, 2.5 if n % 2 == 0 else 1.5)
            while (reply := api(address))["version"] == version:
                time.sleep(0.005)
            updates.append(time.monotonic() - start)
            rendered.append(reply["build"]["rendered"])
        count = api(address)["story"]["frameCount"]
        for k in range(20):
            start = time.monotonic()
            with urllib.request.urlopen(address + f"frame/{(k * 37 + r * 11) % count}") as reply:
                reply.read()
            frame_times.append(time.monotonic() - start)
        if r == 0 and args.preview_saves:
            before, peak = rss(server.pid), 0
            for n in range(args.preview_saves):
                version = api(address)["version"]
                save(n % 10, 1.5 + 0.1 * (n % 7))
                while api(address)["version"] == version:
                    time.sleep(0.005)
                peak = max(peak, rss(server.pid))
            memory = (before, rss(server.pid), peak)
        server.terminate()
        server.wait()
    save(0, 1.5)
    return dict(first=first, updates=updates, rendered=rendered, frames=frame_times, memory=memory)


# The twelve cuts of story13: xfade's and gl-transitions' ports, masks, mixes and displacements.
STORY13_CUTS = ["wipetl", "circleopen", "radial", "smoothleft", "dissolve", "pixelize", "hblur", "zoomin",
                "gl:crosswarp", "gl:heart", "gl:directionalwipe", "gl:Directional"]


def exports_table():
    """The export rounds, the exports table and the memory figures."""
    print(f"exports, {args.runs} alternated rounds each", file=sys.stderr)
    chain = "".join(f"[{i}]scale={W}:{H}:force_original_aspect_ratio=increase,crop={W}:{H},setsar=1,format=yuv420p[v{i}];" for i in range(4))
    xfade_inputs = [a for ph in photos for a in ["-loop", "1", "-framerate", str(FPS), "-t", "2.5", "-i", ph]]
    for t in ["slide", "crossfade", "stories-cube", "telegram-cube"]:
        out = os.path.join(args.work, f"segue-{t}.mp4")
        xfade = None
        if t in ("slide", "crossfade"):
            kind = {"slide": "slideleft", "crossfade": "fade"}[t]
            graph = chain + f"[v0][v1]xfade=transition={kind}:duration=0.5:offset=2[a];[a][v2]xfade=transition={kind}:duration=0.5:offset=4[b];" \
                            f"[b][v3]xfade=transition={kind}:duration=0.5:offset=6,format=yuv420p"
            xfade = ["ffmpeg", "-v", "error", "-y", *xfade_inputs, "-filter_complex", graph, *X264, os.path.join(args.work, f"xfade-{kind}.mp4")]
        export(f"story4 {t}", segue(t, out), out, 255, xfade)
    # The same with x264's threaded lookahead (encode.deterministic: false): its "÷ ffmpeg" is
    # against FFmpeg's default settings, which use that lookahead too.
    out = os.path.join(args.work, "segue-threaded.mp4")
    export("story4 stories-cube, deterministic: false", segue("stories-cube", out, ["--set", "encode.deterministic=false"]), out, 255)

    # heavy8: eight photos, short holds (0.3 s) and long cubes (0.7 s): mostly transition frames.
    nature = sorted(os.path.abspath(os.path.join(args.photos, n)) for n in os.listdir(args.photos) if n.endswith(".jpg"))
    heavy_out = os.path.join(args.work, "segue-heavy8.mp4")
    export("heavy8 stories-cube", [args.segue, "render", "--preset", "stories-cube", "--force", "--quiet", *STORY4, "--set", "hold=0.3",
                                   "--set", "transition.duration=0.7", *nature[:8], "-o", heavy_out], heavy_out, round(FPS * (8 * 0.3 + 7 * 0.7)))

    # story10: a story of ten photos, Ken Burns motion on every slide, a different cut each time.
    motions = ["in", "out", "left", "right", "up", "down"]
    cuts = ["stories-cube", "crossfade", "telegram-cube", "slide", "flip", "iris"]
    story = "preset: stories-cube\nset: {encode.speed: veryfast, encode.crf: 20, encode.threads: 2, fit: fill}\nslides:\n"
    for i, photo in enumerate(nature[:10]):
        story += f"  - image: {photo}\n    hold: 1.5\n    motion: {motions[i % len(motions)]}\n"
        if i < 9:
            story += f"    transition: {{kind: {cuts[i % len(cuts)]}, duration: 0.5}}\n"
    story_export("story10 (motion, 6 kinds of cut)", "story10", story, round(FPS * (1.5 * 10 + 0.5 * 9)))
    story10 = story

    # story13: thirteen photos (the twelve of nature, the first again) joined by twelve of the
    # transitions ported from FFmpeg's xfade and gl-transitions, holds still.
    new_cuts = STORY13_CUTS
    story = "preset: crossfade\nset: {encode.speed: veryfast, encode.crf: 20, encode.threads: 2, fit: fill}\nslides:\n"
    for i, photo in enumerate((nature * 2)[:13]):
        story += f"  - image: {photo}\n    hold: 1.5\n"
        if i < 12:
            story += f"    transition: {{kind: '{new_cuts[i]}', duration: 0.5}}\n"
    story_export("story13 (12 new transitions)", "story13", story, round(FPS * (1.5 * 13 + 0.5 * 12)))

    # film13: thirteen photos joined by twelve 0.5 s cuts (slide, stories-cube, whip in turn),
    # sharp and with motion blur (180 degrees; whip its own 360), samples auto: what a blurred
    # story costs against the same story unblurred.
    for blurred in [False, True]:
        story = "preset: crossfade\nset: {encode.speed: veryfast, encode.crf: 20, encode.threads: 2, fit: fill}\nslides:\n"
        for i, photo in enumerate((nature * 2)[:13]):
            story += f"  - image: {photo}\n    hold: 1.5\n"
            if i < 12:
                kind = ["slide", "stories-cube", "whip"][i % 3]
                blur = (f"blur: {360 if blurred else 0}" if kind == "whip" else f"motionBlur: {180 if blurred else 0}")
                story += f"    transition: {{kind: {kind}, duration: 0.5, {blur}}}\n"
        name = "film13-blurred" if blurred else "film13-sharp"
        story_export(f"{name} (12 cuts: slide, cube, whip)", name, story, round(FPS * (1.5 * 13 + 0.5 * 12)))

    # stinger13: thirteen photos joined by twelve stingers (a 1 s VP9 clip with alpha, a disc
    # crossing the frame, the pages switching at 0.5 s), against the same with 1 s crossfades.
    sting = os.path.join(args.work, "stinger.webm")
    if not os.path.exists(sting):
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                        f"color=c=white:s={W}x{H}:r={FPS}:d=1,format=rgba,geq=r=255:g=255:b=255:a='clip(255*(300.5-hypot(X-(-300+1700*T)\\,Y-960))\\,0\\,255)'",
                        "-c:v", "libvpx-vp9", "-pix_fmt", "yuva420p", "-b:v", "2M", sting], check=True)
    for kind in ["crossfade", "stinger"]:
        cut = "{kind: crossfade, duration: 1}" if kind == "crossfade" else f"{{kind: stinger, clip: {os.path.abspath(sting)}, cut: 0.5}}"
        story = "preset: crossfade\nset: {encode.speed: veryfast, encode.crf: 20, encode.threads: 2, fit: fill}\nslides:\n"
        for i, photo in enumerate((nature * 2)[:13]):
            story += f"  - image: {photo}\n    hold: 1.5\n" + (f"    transition: {cut}\n" if i < 12 else "")
        story_export(f"{kind}13 (12 one-second cuts)", f"{kind}13", story, round(FPS * (1.5 * 13 + 12)))

    # text10: story10 with a styled title on every slide (popping in, riding on the page) and
    # captions all through, the spoken word highlighted: text is drawn once per look.
    styles = ["strong", "classic", "modern", "neon", "typewriter"]
    text_story = ""
    for line in story10.splitlines(keepends=True):
        text_story += line
        if line.strip().startswith("hold:"):
            n = text_story.count("- image:")
            text_story += f"    overlays:\n      - {{text: \"Day {n} · ☀️ Lisbon\", style: {styles[n % len(styles)]}, at: [0.5, 0.2], in: pop}}\n"
    words = "the light here is something else and we walk all day".split()
    srt, t, n = "", 0.0, 1
    while t < 19.5:
        end = min(19.5, t + 1.8)
        stamp = lambda x: "%02d:%02d:%02d,%03d" % (int(x) // 3600, int(x) // 60 % 60, int(x) % 60, round(x * 1000) % 1000)
        srt += f"{n}\n{stamp(t)} --> {stamp(end)}\n{' '.join(words[(n * 3 + k) % len(words)] for k in range(5))}\n\n"
        t, n = end + 0.2, n + 1
    srt_path = os.path.join(args.work, "text10.srt")
    with open(srt_path, "w") as f:
        f.write(srt)
    text_story = text_story.replace("slides:\n", "captions: {file: text10.srt, words: highlight}\nslides:\n", 1)
    story_export("text10 (story10, titles, captions)", "text10", text_story, round(FPS * (1.5 * 10 + 0.5 * 9)))

    # clips: a story of three phone-sized clips and two photos joined by 0.5 s cubes. The clips are
    # made by FFmpeg (H.264, as phones record): 1080x1920 at 30 fps, 1920x1080 at 24 fps (filled
    # into the portrait frame), 720x1280 at 30 fps; 4 s each, each on screen as long as it plays.
    clip_specs = [("portrait", "1080x1920", 30), ("landscape", "1920x1080", 24), ("small", "720x1280", 30)]
    clips = []
    for name, size, rate in clip_specs:
        path = os.path.join(args.work, f"clip-{name}.mp4")
        if not os.path.exists(path):
            subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=s={size}:r={rate}:d=4", "-c:v", "libx264",
                            "-preset", "veryfast", "-pix_fmt", "yuv420p", path], check=True)
        clips.append(os.path.abspath(path))
    story = "preset: stories-cube\nset: {encode.speed: veryfast, encode.crf: 20, encode.threads: 2, fit: fill, transition.duration: 0.5}\nslides:\n"
    for kind, path in [("image", photos[0]), ("clip", clips[0]), ("clip", clips[1]), ("image", photos[1]), ("clip", clips[2])]:
        story += f"  - {kind}: {os.path.abspath(path)}\n" + ("    hold: 1.5\n" if kind == "image" else "")
    # FFmpeg doing less than Segue with its own filters: each clip decoded whole and filled into
    # the frame (scaled and cropped, bicubic), the photos shown 1.25 s each, all joined by plain
    # cuts (concat: no cubes) into as many frames, with Segue's x264 settings.
    fill = f"scale={W}:{H}:force_original_aspect_ratio=increase:flags=bicubic,crop={W}:{H},fps={FPS},setsar=1,format=yuv420p"
    still = ["-loop", "1", "-framerate", str(FPS), "-t", "1.25", "-i"]
    inputs = [*still, photos[0], "-i", clips[0], "-i", clips[1], *still, photos[1], "-i", clips[2]]
    cuts = "".join(f"[{i}:v]{fill}[v{i}];" for i in range(5)) + "[v0][v1][v2][v3][v4]concat=n=5:v=1:a=0"
    graph = ["ffmpeg", "-v", "error", "-y", *inputs, "-filter_complex", cuts, "-flags", "+bitexact+cgop", *X264, *SAME, *TAGS_IN]
    story_export("clips (3 clips, 2 photos, cubes)", "clips", story, round(FPS * (1.5 + 3 + 3 + 1.5 + 3.5 + 4 * 0.5)), graph)

    # blurclip: the landscape clip alone in the portrait frame, fitted over a blurred copy of
    # itself (fit: blur), against the same with fit: fill. Both also against FFmpeg doing the
    # same work with its own filters (÷ graph), the clip decoded and scaled as Segue must.
    graphs = {"blur": f"[0:v]split[a][b];[a]scale=270:480:force_original_aspect_ratio=increase,crop=270:480,gblur=sigma=6,"
                      f"colorchannelmixer=rr=0.85:gg=0.85:bb=0.85,scale={W}:{H}[bg];[b]scale={W}:-2[fg];[bg][fg]overlay=0:(H-h)/2,fps={FPS},setsar=1",
              "fill": f"[0:v]crop=2*round(ih*{W}/{H}/2):ih,scale={W}:{H}:flags=bicubic,fps={FPS},setsar=1"}
    for fit in ["blur", "fill"]:
        story = f"preset: stories-cube\nset: {{encode.speed: veryfast, encode.crf: 20, encode.threads: 2, fit: {fit}}}\nslides:\n  - clip: {clips[1]}\n"
        graph = ["ffmpeg", "-v", "error", "-y", "-i", clips[1], "-filter_complex", graphs[fit], "-flags", "+bitexact+cgop", *X264, *SAME, *TAGS_IN]
        story_export(f"blurclip-{fit} (landscape clip)", f"blurclip-{fit}", story, round(FPS * 4), graph)

    gif = gif_export()
    template = template_export()
    plans = planning()
    beats = beats_workload()
    rows = rows_reading()
    grown = growth()
    chunks = chunks_export()
    preview = preview_workload(story10)

    long_rss = clip60_rss = None
    if not args.only:
        # Memory however long the video: 60 seconds of stills, and a 60-second 1080x1920 clip.
        long_out = os.path.join(args.work, "segue-60s.mp4")
        _, long_rss, _ = run(segue("slide", long_out, ["--set", "hold=14.625"]))
        long_clip = os.path.join(args.work, "clip-60s.mp4")
        if not os.path.exists(long_clip):
            subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=1080x1920:r=30:d=60", "-c:v", "libx264",
                            "-preset", "ultrafast", "-pix_fmt", "yuv420p", long_clip], check=True)
        clip60_out = os.path.join(args.work, "segue-clip-60s.mp4")
        _, clip60_rss, _ = run([args.segue, "render", "--preset", "slide", "--force", "--quiet", *STORY4, long_clip, "-o", clip60_out])

    if args.export_baseline:
        print()
        print(f"{'export, 1080x1920 30 fps (median of %d rounds)' % args.runs:<42} {'this s':>7} {'base s':>7} {'ratio':>6} "
              f"{'spread':>7} {'base spread':>12} {'bytes':>6}  rounds this ÷ base")
        for e in exports:
            print(f"{e['name']:<42} {e['segue']:>7.2f} {e['baseline']:>7.2f} {statistics.median(e['ratios']):>6.2f} {e['spread']:>7.1%} "
                  f"{e['base_spread']:>12.1%} {'same' if e['same_bytes'] else 'DIFF':>6}  {' '.join(f'{r:.2f}' for r in e['ratios'])}")
        print("spread: (slowest - fastest) ÷ median of a binary's own rounds; bytes: whether both wrote the same H.264 stream")
        return
    print()
    print(f"{'export, 1080x1920 30 fps (median of %d rounds)' % args.runs:<36} {'frames':>6} {'segue s':>8} {'floor s':>8} {'÷ floor':>8} "
          f"{'rounds ÷ floor':>16} {'bytes':>6} {'÷ ffmpeg':>9} {'÷ graph':>8} {'peak MB':>8} {'floor MB':>9}")
    for e in exports:
        rounds = " ".join(f"{r:.2f}" for r in e["ratios"])
        over_graph = f"{e['graph']:.2f}" if e["graph"] else ""
        print(f"{e['name']:<36} {e['frames']:>6} {e['segue']:>8.2f} {e['floor']:>8.2f} {statistics.median(e['ratios']):>8.2f} {rounds:>16} "
              f"{'same' if e['same_bytes'] else 'DIFF':>6} {e['default']:>9.2f} {over_graph:>8} {e['peak']:>8.0f} {e['floor_peak']:>9.0f}")
    # The rows whose goal is against FFmpeg's default settings show that ratio's rounds too.
    for e in exports:
        if "deterministic: false" in e["name"]:
            print(f"{e['name']} ÷ FFmpeg's default settings, rounds: {' '.join(f'{r:.2f}' for r in e['default_ratios'])}")
    if gif:
        print(f"GIF, story4 stories-cube at 480x854, 15 fps: segue {gif[0]:.2f} s, FFmpeg's palettegen then paletteuse on the same frames "
              f"(raw RGBA) {gif[1]:.2f} s: {gif[2]:.2f}× (rounds {' '.join(f'{x:.2f}' for x in gif[3])})")
    if template:
        n, a, b, b2, lanes, ratio, ratios = template
        print(f"templates, {n} rows of a 6-second 540x960 card (name, photo, music), one process (--jobs auto): segue {a:.1f} s "
              f"({60 * n / a:.0f} videos/min); encode floor one at a time {b:.1f} s ({60 * n / b:.0f} videos/min), {lanes} at a time "
              f"{b2:.1f} s ({60 * n / b2:.0f} videos/min): {ratio:.2f}× the faster floor (rounds {' '.join(f'{x:.2f}' for x in ratios)})")
    if grown:
        for kind, what in (("voices", "voices on a 20 s soundtrack (--chunk sound)"), ("words", "words of one highlighted 10 s cue")):
            sizes = [n for k, n in grown if k == kind]
            cells = [f"{n:,}: {grown[(kind, n)][0]:.2f} s {grown[(kind, n)][1]:.0f} MB" for n in sizes]
            steps = [grown[(kind, b)][0] / grown[(kind, a)][0] for a, b in zip(sizes, sizes[1:])]
            print(f"growth, {what}: " + ", ".join(cells) + "; each over the one before " + " ".join(f"{x:.2f}×" for x in steps))
    if rows:
        n, results = rows
        for kind, r in results.items():
            print(f"rows, TemplateData.load of {n:,} {kind} rows (callgrind, the load alone): " +
                  (f"{r[0]:,.0f} instructions a row, about {r[1]:.2f} µs a row at the dry run's native rate ({r[2]:.2f} s for the whole dry run)"
                   if r else "not measured"))
    if beats:
        b = beats
        print(f"beats, segue beats of a 3-minute MP3 on one core: {b['analysis'][0]:.2f} s (runs {' '.join(f'{x:.2f}' for x in b['analysis'][1])}); "
              f"--dry-run of 2,000 slides with timing: beats {b['beats'][0]:.3f} s, timed by their holds {b['plain'][0]:.3f} s: "
              f"{b['beats'][0] / b['plain'][0]:.2f}×; a 100-row template's --dry-run, the cache empty {b['template-cold'][0]:.2f} s, "
              f"without timing {b['template-plain'][0]:.2f} s (one analysis for the hundred rows)")
    if plans:
        for kind in ("template", "manifest"):
            (a, ma, _), (b, mb, rounds) = plans[(kind, 10_000)], plans[(kind, 100_000)]
            print(f"planning, --dry-run of a {kind}'s {'rows' if kind == 'template' else 'jobs'} (median of {args.runs}): 10,000 {a:.2f} s, "
                  f"{ma:.0f} MB; 100,000 {b:.2f} s, {mb:.0f} MB (rounds {' '.join(f'{x:.2f}' for x in rounds)}); ratio {b / a:.1f} (10 is linear)")
    if chunks:
        c = chunks
        print(f"chunks, a {args.chunk_minutes:g}-minute story at {args.chunk_size} ({c['frames']} frames): one machine {c['one']:.1f} s; "
              f"8 chunks one after another {sum(c['chunk']):.1f} s (÷ one machine, rounds {' '.join(f'{x:.2f}' for x in c['ratios'])}), "
              f"each {' '.join(f'{x:.1f}' for x in c['chunk'])} s, start-up {c['startup']:.2f} s; sound task {c['sound']:.2f} s; join {c['join']:.2f} s")
        print("  speed-up on P tasks on machines like this one (P - 1 chunks and the sound at once, then the join): " +
              ", ".join(f"{p}: {c['one'] / t:.1f}× ({t:.1f} s)" for p, t in c["model"].items()))
    if preview:
        v = preview
        print(f"preview, story10 on this machine (median of {args.runs} starts, {len(v['updates'])} edits, {len(v['frames'])} frames): "
              f"first proxy {statistics.median(v['first']):.2f} s (rounds {' '.join(f'{x:.2f}' for x in v['first'])}); "
              f"a slide's hold saved to the updated proxy {statistics.median(v['updates']):.2f} s (max {max(v['updates']):.2f}, parts rendered "
              f"{min(v['rendered'])}-{max(v['rendered'])} of 10); a frame at 1080x1920 {1000 * statistics.median(v['frames']):.0f} ms "
              f"(max {1000 * max(v['frames']):.0f})")
        if v["memory"]:
            b, a, m = v["memory"]
            print(f"  memory over {args.preview_saves} saves: {b:.0f} MB after the first proxy, {a:.0f} MB after the last ({a - b:+.0f}), peak {m:.0f}")
    if long_rss is not None:
        print(f"peak MB, 60 s of stills: {long_rss:.0f}; a 60-second 1080x1920 clip: {clip60_rss:.0f} (story4 slide: {exports[0]['peak']:.0f})")
    print("floor: Segue's own yuv420p frames (-o frames.yuv) encoded by FFmpeg with Segue's x264 settings; bytes: whether its H.264")
    print("stream equals Segue's; ÷ ffmpeg: against FFmpeg's default settings, whose threaded lookahead Segue does not use;")
    print("÷ graph: against FFmpeg doing the same with its own filters (xfade for story4's flat cuts, with FFmpeg's default")
    print("settings; a clip's fill decoded, scaled, blurred and overlaid, with Segue's x264 settings; for clips, FFmpeg doing")
    print("less: the clips and photos filled into the frame and joined by plain cuts, no cubes)")


def newest_ffmpeg():
    """FFmpeg's newest release as PyPI's imageio-ffmpeg ships it (a static build), installed once
    into a virtual environment under --work: the same FFmpeg the tests compare with."""
    if args.xfade_ffmpeg:
        return args.xfade_ffmpeg
    venv = os.path.join(args.work, "venv")
    python = os.path.join(venv, "bin", "python3")
    if not os.path.exists(python):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    if subprocess.run([python, "-c", "import imageio_ffmpeg"], capture_output=True).returncode != 0:
        subprocess.run([python, "-m", "pip", "install", "--quiet", "imageio-ffmpeg"], check=True)
    return subprocess.run([python, "-c", "import imageio_ffmpeg; print(imageio_ffmpeg.get_ffmpeg_exe())"],
                          capture_output=True, text=True, check=True).stdout.strip()


def xfade_table():
    """Each transition ported from FFmpeg's xfade composed at 1080x1920 on one thread (--format
    null), against FFmpeg's xfade on the same two photos (planar RGB read raw, one filter thread,
    -f null), alternated round by round: frames per second, and their ratio."""
    # FFmpeg's whole list, in the order `ffmpeg -h filter=xfade` gives it.
    names = ["fade", "wipeleft", "wiperight", "wipeup", "wipedown", "slideleft", "slideright", "slideup", "slidedown", "circlecrop",
             "rectcrop", "distance", "fadeblack", "fadewhite", "radial", "smoothleft", "smoothright", "smoothup", "smoothdown",
             "circleopen", "circleclose", "vertopen", "vertclose", "horzopen", "horzclose", "dissolve", "pixelize", "diagtl", "diagtr",
             "diagbl", "diagbr", "hlslice", "hrslice", "vuslice", "vdslice", "hblur", "fadegrays", "wipetl", "wipetr", "wipebl", "wipebr",
             "squeezeh", "squeezev", "zoomin", "fadefast", "fadeslow", "hlwind", "hrwind", "vuwind", "vdwind", "coverleft", "coverright",
             "coverup", "coverdown", "revealleft", "revealright", "revealup", "revealdown"]
    if args.only:
        names = [n for n in names if asked(n)]
    ffmpeg = newest_ffmpeg()
    frames, seconds = 60, 2
    raw = []
    for i, photo in enumerate(photos[:2]):
        path = os.path.join(args.work, f"xfade-{i}.gbrp")
        if not os.path.exists(path):
            subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", photo, "-vf", f"scale={W}:{H}:force_original_aspect_ratio=increase,crop={W}:{H}",
                            "-frames:v", "1", "-pix_fmt", "gbrp", "-f", "rawvideo", path], check=True)
        raw.append(path)
    print()
    version = subprocess.run([ffmpeg, "-version"], capture_output=True, text=True).stdout.split()[2]
    print(f"{'xfade catalogue, 1080x1920, 1 thread (median of %d)' % args.compose_runs:<52} {'segue fps':>9} {'ffmpeg fps':>10} {'ratio':>6}  (FFmpeg {version})")
    for name in names:
        ours, theirs = [], []
        for r in range(args.compose_runs):
            for who in (("segue", "ffmpeg") if r % 2 == 0 else ("ffmpeg", "segue")):
                if who == "segue":
                    _, _, err = run([args.segue, "render", "--preset", "crossfade", "--set", f"transition.kind={name}", "--set", "hold=0",
                                     "--set", f"transition.duration={seconds}", "--size", f"{W}x{H}", "--threads", "1", "--format", "null",
                                     photos[0], photos[1], "-o", "-"])
                    ours.append(float(re.search(r"composed in [0-9.]+ s, ([0-9.]+) fps", err).group(1)))
                else:
                    start = time.monotonic()
                    subprocess.run([ffmpeg, "-v", "error", "-threads", "1", "-filter_threads", "1", "-filter_complex_threads", "1",
                                    *[a for path in raw for a in ("-stream_loop", "-1", "-f", "rawvideo", "-pix_fmt", "gbrp", "-s", f"{W}x{H}", "-r", str(FPS), "-i", path)],
                                    "-filter_complex", f"[0][1]xfade=transition={name}:duration={seconds}:offset=0,trim=end_frame={frames}",
                                    "-f", "null", "-"], check=True)
                    theirs.append(frames / (time.monotonic() - start))
        a, b = statistics.median(ours), statistics.median(theirs)
        print(f"{name:<52} {a:>9.1f} {b:>10.1f} {a / b:>6.2f}")


def gl_table():
    """Each gl-transitions port composed at 1080x1920 on one thread (--format null, a 0.5 s
    transition: 15 frames), beside the same GLSL file (Tests/Reference/gl-transitions) run by
    Mesa's llvmpipe on one thread (LP_NUM_THREADS=1), alternated round by round: frames per
    second, and the port's rate over llvmpipe's. llvmpipe compiles the shader to vector code
    that runs several pixels at once: it shows what the same math costs on this CPU."""
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Reference", "gl-transitions")
    listed = subprocess.run([args.segue, "transitions"], capture_output=True, text=True, check=True).stdout
    ports = [line.split()[0] for line in listed.splitlines() if line.startswith("gl:")]
    if args.only:
        ports = [n for n in ports if asked(n)]
    rates = {n: ([], []) for n in ports}
    for r in range(args.compose_runs):
        for name in (ports if r % 2 == 0 else ports[::-1]):
            for which in ((0, 1) if r % 2 == 0 else (1, 0)):
                kind = ["--set", f"transition.kind={name}"] if which == 0 else \
                    ["--set", "transition.kind=glsl", "--set", f"transition.file={os.path.join(folder, name[3:] + '.glsl')}"]
                _, _, err = run([args.segue, "render", "--preset", "crossfade", "--set", "hold=0", "--set", "transition.duration=0.5", *kind,
                                 "--size", f"{W}x{H}", "--threads", "1", "--format", "null", photos[0], photos[1], "-o", "-"],
                                env={"LP_NUM_THREADS": "1"})
                rates[name][which].append(float(re.search(r"composed in [0-9.]+ s, ([0-9.]+) fps", err).group(1)))
    print()
    print(f"{'gl-transitions ports, 1080x1920, 1 thread (median of %d)' % args.compose_runs:<52} {'segue fps':>9} {'llvmpipe':>9} {'ratio':>6}")
    for name in ports:
        a, b = statistics.median(rates[name][0]), statistics.median(rates[name][1])
        print(f"{name:<52} {a:>9.1f} {b:>9.1f} {a / b:>6.2f}")


CROSSWARP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Reference", "gl-transitions", "crosswarp.glsl")


def luma_table():
    """Transitions of the user's own composed at 1080x1920 on one compositor thread (--format
    null, every frame inside the transition): luma wipes (a built-in matte, a photo's luma as
    the matte) and for scale xfade's wipeleft and a crossfade; a GLSL file run by llvmpipe and
    Segue's native port of it. Alternated round by round: frames per second, each over
    wipeleft, and what a GLSL frame costs in native ones."""
    cases = [("luma, clock", ["--set", "transition.kind=luma", "--set", "transition.matte=clock"]),
             ("luma, blocks, softness 0.3", ["--set", "transition.kind=luma", "--set", "transition.matte=blocks", "--set", "transition.softness=0.3"]),
             ("luma, a photo as the matte", ["--set", "transition.kind=luma", "--set", f"transition.matte={photos[2]}"]),
             ("wipeleft", ["--set", "transition.kind=wipeleft"]),
             ("crossfade", ["--set", "transition.kind=crossfade"]),
             ("glsl, crosswarp.glsl, llvmpipe on 1 thread", ["--set", "transition.kind=glsl", "--set", f"transition.file={CROSSWARP}"]),
             ("gl:crosswarp, the native port", ["--set", "transition.kind=gl:crosswarp"])]
    rates = {name: [] for name, _ in cases}
    for r in range(args.compose_runs):
        for name, extra in (cases if r % 2 == 0 else cases[::-1]):
            _, _, err = run([args.segue, "render", "--preset", "crossfade", "--set", "hold=0", "--set", "transition.duration=2", *extra,
                             "--size", f"{W}x{H}", "--threads", "1", "--format", "null", photos[0], photos[1], "-o", "-"],
                            env={"LP_NUM_THREADS": "1"})
            rates[name].append(float(re.search(r"composed in [0-9.]+ s, ([0-9.]+) fps", err).group(1)))
    wipe = statistics.median(rates["wipeleft"])
    print()
    print(f"{'luma wipes, 1080x1920, 1 thread (median of %d)' % args.compose_runs:<52} {'fps':>7} {'÷ wipeleft':>11}")
    for name, _ in cases:
        fps = statistics.median(rates[name])
        print(f"{name:<52} {fps:>7.1f} {fps / wipe:>11.2f}")
    glsl, port = statistics.median(rates[cases[-2][0]]), statistics.median(rates[cases[-1][0]])
    print(f"{'a GLSL frame costs this many native frames (crosswarp)':<52} {port / glsl:>7.2f}")


def floor_table():
    """The sampling floor: scripts/sampling-floor.c compiled and run, --compose-runs rounds (at
    least 9), each case's median. A transition whose frame samples so costs at least that."""
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sampling-floor.c")
    binary = os.path.join(args.work, "sampling-floor")
    os.makedirs(args.work, exist_ok=True)
    compiler = shutil.which("clang") or shutil.which("cc")  # clang, as the kernels are built
    subprocess.run([compiler, "-O2", "-o", binary, source, "-lm"], check=True)
    print()
    print(subprocess.run([binary, str(max(args.compose_runs, 9))], check=True, capture_output=True, text=True).stdout, end="")


if args.floor_only:
    floor_table()
    sys.exit(0)
if args.xfade_only:
    xfade_table()
    sys.exit(0)
if args.gl_only:
    gl_table()
    sys.exit(0)
if args.luma_only:
    luma_table()
    sys.exit(0)
if asked("serve") and not args.compose_only and not args.baseline:
    # segue serve under load (scripts/bench_serve.py): jobs, latency, overhead, memory, restart.
    subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench_serve.py"), args.segue, args.work], check=True)
if not args.compose_only:
    exports_table()
if args.only:
    sys.exit(0)

# Rendering alone (--format null: each band drawn in a scratch buffer, as an export draws it, and
# dropped; no yuv420p conversion), every frame a transition frame, at 1080x1920;
# one and two compositor threads alternated round by round.
print()
print(f"{'compose fps, 1080x1920 (median of %d)' % args.compose_runs:<40} {'1 thread':>9} {'2 threads':>10} {'2 ÷ 1':>7}  rounds 2 ÷ 1")
# "crossfade, fit" letterboxes the photos: the fading page (background and picture) is
# composed apart and faded once (group opacity), the one place an offscreen buffer is used.
for t, extra in COMPOSE:
    samples = {1: [], 2: []}
    for r in range(args.compose_runs):
        for threads in ((1, 2) if r % 2 == 0 else (2, 1)):
            _, _, err = run([args.segue, "render", "--preset", t.split(",")[0], "--set", "hold=0", "--set", f"transition.duration={COMPOSE_SECONDS}", *extra,
                             "--size", f"{W}x{H}", "--threads", str(threads), "--format", "null", photos[0], photos[1], "-o", "-"])
            samples[threads].append(float(re.search(r"composed in [0-9.]+ s, ([0-9.]+) fps", err).group(1)))
    # Each round's two runs follow each other, so their ratio is spared most of the machine's
    # drift from minute to minute: the median of those ratios, and each of them in order.
    ratios = sorted(b / a for a, b in zip(samples[1], samples[2]))
    one, two = statistics.median(samples[1]), statistics.median(samples[2])
    print(f"{t:<40} {one:>9.1f} {two:>10.1f} {statistics.median(ratios):>7.2f}  {' '.join(f'{x:.2f}' for x in ratios)}")

# A figure that does not depend on the machine's load: instructions of a fixed small render.
stripped = os.path.join(args.work, "segue-stripped")
shutil.copy(args.segue, stripped)
subprocess.run(["strip", "--strip-debug", stripped], check=True)  # valgrind 3.19 cannot read the newest DWARF
env = dict(os.environ, SEGUE_PRESETS=os.path.join(os.getcwd(), "Presets"))
cg = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", stripped, "render", "--preset",
                     "stories-cube", "--size", "180x320", "--set", "canvas.scale=0.5", "--set", "hold=0", "--threads", "1",
                     "--format", "null", "Examples/a.jpg", "Examples/b.png", "-o", "-"], capture_output=True, text=True, env=env)
m = re.search(r"Collected : (\d+)", cg.stderr)
print()
print(f"callgrind: {int(m.group(1)):,} instructions for stories-cube, 180x320, 15 frames, 1 thread" if m else "callgrind: not measured")
