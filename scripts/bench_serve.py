"""segue serve under load, for scripts/bench (--only serve):
    bench_serve.py SEGUE WORK [COUNT]
1,000 tiny renders (COUNT) submitted by 32 clients at once, in three bursts: how many jobs, any
run twice, the submit latency's median and p99 while renders run (the median of the bursts'),
and again with the clients at a steady 1,000 a second; the service's overhead per render
(submit to done, against `segue render` of the same story, alternated); 10,000 renders queued
behind a long one: the service's peak memory, and how soon it answers again after a kill -9."""
import asyncio, json, os, shutil, signal, statistics, subprocess, sys, time, urllib.request

segue, work = sys.argv[1], os.path.join(sys.argv[2], "serve")
count = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
shutil.rmtree(work, ignore_errors=True)
inputs = os.path.join(work, "inputs")
os.makedirs(inputs)
for name, source in (("a.png", "testsrc=size=160x120"), ("b.png", "color=red:size=160x120")):
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", source, "-frames:v", "1", os.path.join(inputs, name)], check=True)


def start(store, *extra):
    process = subprocess.Popen([segue, "serve", "--port", "0", "--store", store, "--inputs", inputs, *extra], stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    return process, line.split("serving at ")[1].split(" ")[0].rstrip("/")


def post(base, story):
    request = urllib.request.Request(base + "/v1/renders", data=json.dumps({"story": story}).encode(), headers={"content-type": "application/json"})
    began = time.monotonic()
    with urllib.request.urlopen(request) as answer:
        return json.load(answer), time.monotonic() - began


async def submit(base, plans):
    """Each plan a client's: its stories, each with the moment to send it (or None: at once).
    Every client keeps one HTTP/1.1 connection open and waits for each answer before its next
    request. All are driven from one thread (asyncio), so that a latency is the service's:
    32 threads of http.client wait for Python's interpreter lock in turn, which adds about
    10 ms to the p99 of a request the service answers in 1 ms (GET /openapi.json)."""
    host, port = base.split("//")[1].split(":")
    async def client(plan):
        reader, writer = await asyncio.open_connection(host, int(port))
        answers = []
        for story, at in plan:
            if at is not None and at > time.monotonic():
                await asyncio.sleep(at - time.monotonic())
            body = json.dumps({"story": story}).encode()
            began = time.monotonic()
            writer.write(f"POST /v1/renders HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
            head = (await reader.readuntil(b"\r\n\r\n")).decode().split("\r\n")
            length = next(int(line.split(":")[1]) for line in head if line.lower().startswith("content-length:"))
            render = json.loads(await reader.readexactly(length))
            seconds = time.monotonic() - began
            if head[0].split(" ")[1] not in ("200", "202"):
                raise RuntimeError(f"{head[0]}: {render}")
            answers.append((render, seconds))
        writer.close()
        return answers
    return await asyncio.gather(*(client(plan) for plan in plans))


def burst(base, stories):
    """`stories` sent by 32 clients at once, each its share in turn: the renders and latencies, in order."""
    answers = asyncio.run(submit(base, [[(stories[i], None) for i in range(k, len(stories), 32)] for k in range(32)]))
    ordered = [None] * len(stories)
    for k, mine in enumerate(answers):
        for n, answer in enumerate(mine):
            ordered[k + 32 * n] = answer
    return ordered


def get(base, path):
    with urllib.request.urlopen(base + path) as answer:
        return json.load(answer)


def tiny(i):
    # Distinct by their hold, so that no render is answered from another's fingerprint.
    return {"set": {"canvas.size": [64, 112], "hold": 0.2 + i * 1e-5, "transition.duration": 0.1}, "slides": [{"image": "a.png"}, {"image": "b.png"}]}


def peak(pid):
    return int(next(l for l in open(f"/proc/{pid}/status") if l.startswith("VmHWM")).split()[1]) / 1024


# 1. COUNT renders from 32 clients at once, three times over (a burst of a quarter of a second
# on a shared machine is noisy: its p99 is the median of the three), renders running throughout.
server, base = start(os.path.join(work, "store1"), "--workers", "2")
rounds = [burst(base, [tiny(r * count + i) for i in range(count)]) for r in range(3)]
ids = [render["id"] for answers in rounds for render, _ in answers]
while get(base, "/v1/health")["queued"] + get(base, "/v1/health")["running"] > 0:
    time.sleep(0.2)
done, after = [], None
while True:
    page = get(base, "/v1/renders?limit=100" + (f"&after={after}" if after else ""))
    done += page["renders"]
    after = page.get("next")
    if not after:
        break
p99s, medians = [], []
for answers in rounds:
    latencies = sorted(seconds for _, seconds in answers)
    p99s.append(latencies[int(len(latencies) * 0.99)] * 1000)
    medians.append(statistics.median(latencies) * 1000)
print(f"serve: {len(ids)} submitted by 32 clients in 3 bursts of {count}, {len(set(ids))} renders, {sum(1 for r in done if r['status'] == 'done')} done, "
      f"{sum(1 for r in done if r['attempts'] != 1)} run other than once; submit latency median {statistics.median(medians):.1f} ms, "
      f"p99 {statistics.median(p99s):.1f} ms (bursts: {', '.join(f'{p:.1f}' for p in p99s)}; target 20)")

# 1b. The same clients at a steady pace (1,000 submissions a second between them, each at its
# own times), renders running: the latency of a submission that does not queue behind a burst.
rate, sent, began = 1000.0, 3000, time.monotonic() + 0.2
paced = [seconds for mine in asyncio.run(submit(base, [[(tiny(3 * count + 1000 + i), began + (k / 32 + n) * 32 / rate) for n, i in enumerate(range(k, sent, 32))]
                                                      for k in range(32)])) for _, seconds in mine]
paced.sort()
print(f"serve: {sent} submitted by 32 clients at {rate:.0f} a second in all: submit latency median {statistics.median(paced) * 1000:.1f} ms, "
      f"p99 {paced[int(len(paced) * 0.99)] * 1000:.1f} ms (target 20)")
while get(base, "/v1/health")["queued"] + get(base, "/v1/health")["running"] > 0:
    time.sleep(0.2)

# 2. Overhead per render: submit to done against segue render of the same story, alternated.
story = os.path.join(inputs, "one.yaml")
service, direct = [], []
for r in range(10):
    s = tiny(3 * count + 100 + r)
    began = time.monotonic()
    render, _ = post(base, s)
    while get(base, f"/v1/renders/{render['id']}")["status"] not in ("done", "failed"):
        time.sleep(0.005)
    service.append(time.monotonic() - began)
    with open(story, "w") as f:
        json.dump(dict(s, set=dict(s["set"], hold=s["set"]["hold"] + 1e-6)), f)
    began = time.monotonic()
    subprocess.run([segue, "render", "--story", story, "-o", os.path.join(work, "direct.mp4"), "--force", "--quiet"], check=True)
    direct.append(time.monotonic() - began)
print(f"serve: submit to done {statistics.median(service) * 1000:.0f} ms, segue render {statistics.median(direct) * 1000:.0f} ms: "
      f"overhead {(statistics.median(service) - statistics.median(direct)) * 1000:.0f} ms a render (target 100)")
server.terminate()
server.wait()

# 3. 10,000 renders queued behind a long one: memory, and a restart.
store = os.path.join(work, "store2")
server, base = start(store, "--workers", "1", "--max-queued", "20000")
post(base, {"set": {"canvas.size": [64, 112]}, "slides": [{"image": "a.png", "hold": 3600}, {"image": "b.png", "hold": 3600}]})
queued = 10000
waits = [seconds for _, seconds in burst(base, [tiny(i) for i in range(queued)])]
first, last = statistics.median(waits[:1000]), statistics.median(waits[-1000:])
print(f"serve: {get(base, '/v1/health')['queued']} queued, the service's peak memory {peak(server.pid):.0f} MB (target 150); "
      f"submit latency median {first * 1000:.1f} ms for the first 1,000, {last * 1000:.1f} ms for the last (ratio {last / first:.2f})")
server.send_signal(signal.SIGKILL)
server.wait()
began = time.monotonic()
server, base = start(store, "--workers", "1", "--max-queued", "20000")
get(base, "/v1/health")
accepting = time.monotonic() - began
post(base, tiny(queued + 1))
print(f"serve: restarted with {queued} queued, answering after {accepting:.2f} s (target 2)")
server.send_signal(signal.SIGKILL)
server.wait()
