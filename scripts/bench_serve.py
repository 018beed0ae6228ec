"""segue serve under load, for scripts/bench (--only serve):
    bench_serve.py SEGUE WORK [COUNT]
1,000 tiny renders (COUNT) submitted by 32 clients at once: how many jobs, any run twice, the
submit latency's median and p99 while renders run, and again with the clients at a steady
1,000 a second; the service's overhead per render (submit
to done, against `segue render` of the same story, alternated); 10,000 renders queued behind a
long one: the service's peak memory, and how soon it answers again after a kill -9."""
import http.client, json, os, shutil, signal, statistics, subprocess, sys, threading, time, urllib.request

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


class Client:
    """One client's connection, kept open between its requests (as an HTTP client pool does)."""
    def __init__(self, base):
        host, port = base.split("//")[1].split(":")
        self.connection = http.client.HTTPConnection(host, int(port), timeout=60)

    def post(self, story):
        began = time.monotonic()
        self.connection.request("POST", "/v1/renders", body=json.dumps({"story": story}), headers={"content-type": "application/json"})
        answer = self.connection.getresponse()
        render = json.loads(answer.read())
        if answer.status not in (200, 202):
            raise RuntimeError(f"{answer.status}: {render}")
        return render, time.monotonic() - began


def get(base, path):
    with urllib.request.urlopen(base + path) as answer:
        return json.load(answer)


def tiny(i):
    # Distinct by their hold, so that no render is answered from another's fingerprint.
    return {"set": {"canvas.size": [64, 112], "hold": 0.2 + i * 1e-5, "transition.duration": 0.1}, "slides": [{"image": "a.png"}, {"image": "b.png"}]}


def peak(pid):
    return int(next(l for l in open(f"/proc/{pid}/status") if l.startswith("VmHWM")).split()[1]) / 1024


# 1. COUNT renders from 32 clients at once.
server, base = start(os.path.join(work, "store1"), "--workers", "2")
latencies, ids, lock = [], [], threading.Lock()
def client(k):
    mine = Client(base)
    for i in range(k, count, 32):
        render, seconds = mine.post(tiny(i))
        with lock:
            latencies.append(seconds)
            ids.append(render["id"])
threads = [threading.Thread(target=client, args=(k,)) for k in range(32)]
[t.start() for t in threads]
[t.join() for t in threads]
while get(base, "/v1/health")["queued"] + get(base, "/v1/health")["running"] > 0:
    time.sleep(0.2)
done, after = [], None
while True:
    page = get(base, "/v1/renders?limit=100" + (f"&after={after}" if after else ""))
    done += page["renders"]
    after = page.get("next")
    if not after:
        break
latencies.sort()
print(f"serve: {len(ids)} submitted by 32 clients, {len(set(ids))} renders, {sum(1 for r in done if r['status'] == 'done')} done, "
      f"{sum(1 for r in done if r['attempts'] != 1)} run other than once; submit latency median {statistics.median(latencies) * 1000:.1f} ms, "
      f"p99 {latencies[int(len(latencies) * 0.99)] * 1000:.1f} ms (target 20)")

# 1b. The same clients at a steady pace (1,000 submissions a second between them, each at its
# own times), renders running: the latency of a submission that does not queue behind a burst.
paced, lock, began = [], threading.Lock(), time.monotonic() + 0.2
rate, sent = 1000.0, 3000
def steady(k):
    mine = Client(base)
    for n, i in enumerate(range(k, sent, 32)):
        pause = began + (k / 32 + n) * 32 / rate - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        seconds = mine.post(tiny(count + 1000 + i))[1]
        with lock:
            paced.append(seconds)
threads = [threading.Thread(target=steady, args=(k,)) for k in range(32)]
[t.start() for t in threads]
[t.join() for t in threads]
paced.sort()
print(f"serve: {sent} submitted by 32 clients at {rate:.0f} a second in all: submit latency median {statistics.median(paced) * 1000:.1f} ms, "
      f"p99 {paced[int(len(paced) * 0.99)] * 1000:.1f} ms (target 20)")
while get(base, "/v1/health")["queued"] + get(base, "/v1/health")["running"] > 0:
    time.sleep(0.2)

# 2. Overhead per render: submit to done against segue render of the same story, alternated.
story = os.path.join(inputs, "one.yaml")
service, direct = [], []
for r in range(10):
    s = tiny(count + 100 + r)
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
waits = [None] * queued
def fill(k):
    mine = Client(base)
    for i in range(k, queued, 32):
        waits[i] = mine.post(tiny(i))[1]
threads = [threading.Thread(target=fill, args=(k,)) for k in range(32)]
[t.start() for t in threads]
[t.join() for t in threads]
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
