"""The benchmark behind scripts/bench: runs each workload several times, side by side,
and prints one table of medians, minimums, maximums, frame rates, peak memory and ratios."""
import argparse, os, re, shutil, statistics, subprocess, sys, time

p = argparse.ArgumentParser()
p.add_argument("--segue", required=True)
p.add_argument("--photos", required=True)
p.add_argument("--work", required=True)
p.add_argument("--runs", type=int, default=3)
p.add_argument("--baseline", help="another segue binary: compose rates only, this one and the baseline alternated, with ratios")
args = p.parse_args()

os.makedirs(args.work, exist_ok=True)
photos = [os.path.join(args.photos, n + ".jpg") for n in ["Garden", "Aqua", "LadyBird", "TwoWings"]]
W, H, FPS = 1080, 1920, 30
X264 = ["-c:v", "libx264", "-preset", "veryfast", "-crf", "20", "-threads", "2", "-pix_fmt", "yuv420p", "-movflags", "+faststart"]
# story4 in Segue's timeline: 4 holds of 1.75 s and 3 transitions of 0.5 s = 8.5 s, 255 frames.
STORY4 = ["--set", "hold=1.75", "--set", "transition.duration=0.5", "--set", "encode.speed=veryfast",
          "--set", "encode.crf=20", "--set", "encode.threads=2", "--set", "fit=fill", "--size", f"{W}x{H}", "--fps", str(FPS)]


def run(cmd):
    """Runs a command; returns (seconds, peak RSS in MB, stderr)."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
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


rows = {}


def measure(name, cmd, output=None, count=255):
    times, rss = [], []
    for _ in range(args.runs):
        if output and os.path.exists(output):
            os.remove(output)
        t, m, _ = run(cmd)
        times.append(t)
        rss.append(m)
    if output:
        got = frames(output)
        if got != count:
            sys.exit(f"{name}: wrote {got} frames, expected {count}")
    rows[name] = (statistics.median(times), min(times), max(times), count / statistics.median(times), max(rss))
    print(f"  {name}: median {rows[name][0]:.2f} s", file=sys.stderr)


def segue(transition, output, extra=()):
    return [args.segue, "render", "--preset", transition, "--force", "--quiet", *STORY4, *extra, *photos, "-o", output]


# Compose rates against another build: each workload alternately on both binaries, one
# compositor thread, so that load on the machine hits both alike.
COMPOSE = [("slide", []), ("crossfade", []), ("crossfade, fit", ["--set", "fit=fit"]), ("stories-cube", []),
           ("telegram-cube", []), ("flip", []), ("cube-fold", []), ("instagram-zoom", []),
           # Ken Burns: holds that move (zooming in), every frame composed.
           ("slide, Ken Burns hold", ["--set", "motion.kind=in", "--set", "hold=3", "--set", "transition.duration=0"])]
if args.baseline:
    rates = {}
    for r in range(args.runs):
        for name, extra in COMPOSE:
            order = [("this", args.segue), ("baseline", args.baseline)]
            for label, binary in (order if r % 2 == 0 else order[::-1]):
                _, _, err = run([binary, "render", "--preset", name.split(",")[0], "--set", "hold=0", "--set", "transition.duration=6", *extra,
                                 "--size", f"{W}x{H}", "--threads", "1", "--format", "null", photos[0], photos[1], "-o", "-"])
                rates.setdefault((name, label), []).append(float(re.search(r"composed in [0-9.]+ s, ([0-9.]+) fps", err).group(1)))
    print(f"{'compose fps, 1080x1920, 1 thread (median of %d)' % args.runs:<48} {'this':>8} {'baseline':>9} {'ratio':>6}  per-round ratios")
    for name, _ in COMPOSE:
        a, b = rates[(name, "this")], rates[(name, "baseline")]
        ratios = " ".join(f"{x / y:.2f}" for x, y in sorted(zip(a, b), key=lambda p: p[0] / p[1]))
        print(f"{name:<48} {statistics.median(a):>8.1f} {statistics.median(b):>9.1f} {statistics.median(a) / statistics.median(b):>6.2f}  {ratios}")
    sys.exit(0)

print(f"story4, {args.runs} runs each", file=sys.stderr)
for t in ["slide", "crossfade", "stories-cube", "telegram-cube"]:
    out = os.path.join(args.work, f"segue-{t}.mp4")
    measure(f"segue {t}", segue(t, out), out)

chain = "".join(f"[{i}]scale={W}:{H}:force_original_aspect_ratio=increase,crop={W}:{H},setsar=1,format=yuv420p[v{i}];" for i in range(4))
for t in ["slideleft", "fade"]:
    out = os.path.join(args.work, f"xfade-{t}.mp4")
    graph = chain + f"[v0][v1]xfade=transition={t}:duration=0.5:offset=2[a];[a][v2]xfade=transition={t}:duration=0.5:offset=4[b];" \
                    f"[b][v3]xfade=transition={t}:duration=0.5:offset=6,format=yuv420p"
    inputs = [a for ph in photos for a in ["-loop", "1", "-framerate", str(FPS), "-t", "2.5", "-i", ph]]
    measure(f"ffmpeg xfade {t}", ["ffmpeg", "-v", "error", "-y", *inputs, "-filter_complex", graph, *X264, out], out)

# The encode floor: each Segue video's own 255 frames, as raw yuv420p, into the same libx264
# settings, so that only encoding is timed (frames of different content encode at different speeds).
for t in ["slide", "crossfade", "stories-cube", "telegram-cube"]:
    raw = os.path.join(args.work, "story4.yuv")
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", os.path.join(args.work, f"segue-{t}.mp4"), "-f", "rawvideo",
                    "-pix_fmt", "yuv420p", raw], check=True)
    floor_out = os.path.join(args.work, "floor.mp4")
    measure(f"encode floor, {t} frames", ["ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "yuv420p",
                                          "-s", f"{W}x{H}", "-r", str(FPS), "-i", raw, *X264, floor_out], floor_out)
    os.remove(raw)

# A 60-second video: memory must stay flat however long the video is.
long_out = os.path.join(args.work, "segue-60s.mp4")
long_cmd = segue("slide", long_out, ["--set", "hold=14.625"])
t, long_rss, _ = run(long_cmd)
rows["segue slide, 60 s video"] = (t, t, t, 1800 / t, long_rss)

# story10: a story of ten photos, Ken Burns motion on every slide, a different cut each time.
nature = sorted(os.path.abspath(os.path.join(args.photos, n)) for n in os.listdir(args.photos) if n.endswith(".jpg"))[:10]
motions = ["in", "out", "left", "right", "up", "down"]
cuts = ["stories-cube", "crossfade", "telegram-cube", "slide", "flip", "iris"]
story = "preset: stories-cube\nset: {encode.speed: veryfast, encode.crf: 20, encode.threads: 2, fit: fill}\nslides:\n"
for i, photo in enumerate(nature):
    story += f"  - image: {photo}\n    hold: 1.5\n    motion: {motions[i % len(motions)]}\n"
    if i < len(nature) - 1:
        story += f"    transition: {{kind: {cuts[i % len(cuts)]}, duration: 0.5}}\n"
story_path = os.path.join(args.work, "story10.yaml")
with open(story_path, "w") as f:
    f.write(story)
story10_frames = round(FPS * (1.5 * len(nature) + 0.5 * (len(nature) - 1)))
story10_out = os.path.join(args.work, "segue-story10.mp4")
measure("segue story10", [args.segue, "render", "--story", story_path, "--size", f"{W}x{H}", "--fps", str(FPS), "--force", "--quiet",
                          "-o", story10_out], story10_out, story10_frames)
raw = os.path.join(args.work, "story10.yuv")
subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", story10_out, "-f", "rawvideo", "-pix_fmt", "yuv420p", raw], check=True)
floor_out = os.path.join(args.work, "floor.mp4")
measure("encode floor, story10 frames", ["ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "yuv420p",
                                          "-s", f"{W}x{H}", "-r", str(FPS), "-i", raw, *X264, floor_out], floor_out, story10_frames)
os.remove(raw)

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
clips_path = os.path.join(args.work, "clips.yaml")
with open(clips_path, "w") as f:
    f.write(story)
clips_frames = round(FPS * (1.5 + 3 + 3 + 1.5 + 3.5 + 4 * 0.5))
clips_out = os.path.join(args.work, "segue-clips.mp4")
measure("segue clips (3 clips, 2 photos, cubes)", [args.segue, "render", "--story", clips_path, "--size", f"{W}x{H}", "--fps", str(FPS),
                                                   "--force", "--quiet", "-o", clips_out], clips_out, clips_frames)
raw = os.path.join(args.work, "clips.yuv")
subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", clips_out, "-f", "rawvideo", "-pix_fmt", "yuv420p", raw], check=True)
measure("encode floor, clips frames", ["ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "yuv420p",
                                       "-s", f"{W}x{H}", "-r", str(FPS), "-i", raw, *X264, floor_out], floor_out, clips_frames)
os.remove(raw)

# Memory with a long clip: a 60-second 1080x1920 clip against the 60-second still video above.
long_clip = os.path.join(args.work, "clip-60s.mp4")
if not os.path.exists(long_clip):
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=1080x1920:r=30:d=60", "-c:v", "libx264",
                    "-preset", "ultrafast", "-pix_fmt", "yuv420p", long_clip], check=True)
clip60_out = os.path.join(args.work, "segue-clip-60s.mp4")
t, clip60_rss, _ = run([args.segue, "render", "--preset", "slide", "--force", "--quiet", *STORY4, long_clip, "-o", clip60_out])
rows["segue clip, 60 s 1080x1920 clip"] = (t, t, t, 1800 / t, clip60_rss)

floor = {t: rows[f"encode floor, {t} frames"][0] for t in ["slide", "crossfade", "stories-cube", "telegram-cube", "story10", "clips"]}
xfade = {"slide": rows["ffmpeg xfade slideleft"][0], "crossfade": rows["ffmpeg xfade fade"][0]}
print()
print(f"{'workload':<42} {'median s':>9} {'min s':>7} {'max s':>7} {'fps':>7} {'peak MB':>8} {'÷ floor':>8} {'÷ xfade':>8}")
for name, (med, lo, hi, fps, rss) in rows.items():
    kind = name.split()[1].rstrip(",") if name.startswith("segue ") else None
    over_floor = f"{med / floor[kind]:.2f}" if kind in floor and "60 s" not in name else ""
    if "60 s 1080x1920 clip" in name:
        over_floor = f"{rss - rows['segue slide, 60 s video'][4]:+.0f} MB"
    over_xfade = f"{med / xfade[kind]:.2f}" if kind in xfade and "60 s" not in name else ""
    print(f"{name:<42} {med:>9.2f} {lo:>7.2f} {hi:>7.2f} {fps:>7.1f} {rss:>8.0f} {over_floor:>8} {over_xfade:>8}")

# Rendering alone (composed and dropped), every frame a transition frame, at 1080x1920.
print()
print(f"{'render only, 1080x1920 (fps, median)':<42} {'1 thread':>9} {'2 threads':>10} {'2 ÷ 1':>7}")
# "crossfade, fit" letterboxes the photos: the fading page (background and picture) is
# composed apart and faded once (group opacity), the one place an offscreen buffer is used.
for t, extra in COMPOSE:
    rates = {}
    for threads in (1, 2):
        samples = []
        for _ in range(args.runs):
            _, _, err = run([args.segue, "render", "--preset", t.split(",")[0], "--set", "hold=0", "--set", "transition.duration=3", *extra,
                             "--size", f"{W}x{H}", "--threads", str(threads), "--format", "null", photos[0], photos[1], "-o", "-"])
            m = re.search(r"composed in [0-9.]+ s, ([0-9.]+) fps", err)
            samples.append(float(m.group(1)))
        rates[threads] = statistics.median(samples)
    print(f"{t:<42} {rates[1]:>9.1f} {rates[2]:>10.1f} {rates[2] / rates[1]:>7.2f}")

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
