# SPDX-License-Identifier: GPL-2.0
"""iolens serve: its exposition against promtool, a real Prometheus server
scraping it against /proc/diskstats and `iolens lat`, bad and many clients,
and memory over a long run.  Every process started is ended, also on
failure."""
import http.client
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import threading
import time

import pytest

from helpers import (IOLENS, OWN, TMPFS, DirectIO, Loop, Prometheus, TraceInstance,
                     assert_counts_equal, free_port, line_of, load_json, need, samples,
                     uncached_file, value, wait_idle)

# le bounds of the duration histograms (src/serve/metrics.c), in ns.
DUR_BOUNDS = [1000, 2496, 4992, 9984, 24832, 49664, 99328, 249856, 499712,
              999424, 2490368, 4980736, 9961472, 24903680, 49807360,
              99614720, 249561088, 499122176, 998244352, 2483027968,
              4966055936, 9932111872]


def workload(lo, n=300, seed=1):
    """Known O_DIRECT I/O: 4 KiB writes and 64 KiB reads, one request each."""
    rnd = random.Random(seed)
    io = DirectIO(lo.dev)
    try:
        for i in range(n):
            io.write(rnd.randrange(lo.size // 4096) * 4096, 4096)
            if i % 3 == 0:
                io.read(rnd.randrange(lo.size // 65536) * 65536, 65536)
    finally:
        io.close()
    wait_idle(lo)


# What only --detail exports: per-request work in the kernel.
DETAIL_ONLY = ("iolens_queue_depth", "iolens_busy_seconds_total", "iolens_misaligned_writes_total",
               "iolens_rmw_reads_total", "iolens_completions_missed_total",
               "iolens_inflight_oldest_seconds")


@pytest.mark.fast
@pytest.mark.parametrize("detail", [False, True], ids=["default", "detail"])
def test_serve_promtool_and_exposition(iolens, loop, serve, detail):
    """A scrape after I/O passes `promtool check metrics`; its counters are
    the diskstats delta, by default read from diskstats, with --detail
    counted in the kernel; the duration histograms count each request once
    (and with --detail the queue depth histogram); the families only
    --detail exports are there only with it; OpenMetrics when asked, with # EOF; / and
    /healthz; 405 and 404; SIGHUP harmless, SIGTERM exits 0."""
    promtool = need("promtool")
    s = serve(["-d", loop.name] + (["--detail"] if detail else []))
    before = loop.diskstats()
    workload(loop, 100)
    after = loop.diskstats()
    time.sleep(2.2)  # the collector reads every second
    body = s.metrics()
    p = subprocess.run([promtool, "check", "metrics"], input=body,
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stdout + p.stderr
    dev = loop.name
    assert value(body, "iolens_requests_total", device=dev, op="write") == \
        after["w_ios"] - before["w_ios"]
    assert value(body, "iolens_requests_total", device=dev, op="read") == \
        after["r_ios"] - before["r_ios"]
    assert value(body, "iolens_bytes_total", device=dev, op="write") == \
        (after["w_sectors"] - before["w_sectors"]) * 512
    assert value(body, "iolens_merged_total", device=dev, op="write") == \
        after["w_merges"] - before["w_merges"]
    assert value(body, "iolens_io_time_weighted_seconds_total", device=dev) == \
        pytest.approx((after["weighted_ms"] - before["weighted_ms"]) / 1000)
    assert value(body, "iolens_inflight_requests", device=dev) == 0
    for name in DETAIL_ONLY:
        assert (("# TYPE %s " % name) in body) == detail, name
    # The histograms count every request once, cumulative up to +Inf.
    hists = ["iolens_request_duration_seconds", "iolens_queue_duration_seconds",
             "iolens_device_duration_seconds"] + (["iolens_queue_depth"] if detail else [])
    for h in hists:
        b = samples(body, h + "_bucket")
        mine = sorted((float(dict(k)["le"]), v) for k, v in b.items()
                      if ("device", dev) in k and ("op", "write") in k)
        counts = [v for _, v in mine]
        assert counts == sorted(counts)
        assert counts[-1] == value(body, h + "_count", device=dev, op="write") == \
            after["w_ios"] - before["w_ios"]
    if detail:
        assert value(body, "iolens_busy_seconds_total", device=dev) > 0
    assert "iolens_process_cpu_seconds_total " in body

    status, ctype, om = s.get(accept="application/openmetrics-text;version=1.0.0,text/plain;q=0.5")
    assert status == 200 and ctype.startswith("application/openmetrics-text")
    assert om.endswith("# EOF\n") and "# TYPE iolens_requests counter" in om
    status, ctype, text = s.get()
    assert ctype.startswith("text/plain; version=0.0.4") and "# EOF" not in text
    assert s.get("/")[0] == 200 and 'href="/metrics"' in s.get("/")[2]
    assert s.get("/healthz")[:1] == (200,)
    assert s.get("/nothing")[0] == 404
    c = http.client.HTTPConnection("127.0.0.1", s.port, timeout=5)
    c.request("POST", "/metrics", body="x")
    r = c.getresponse()
    assert r.status == 405 and "GET" in r.getheader("Allow")
    c.close()

    s.proc.send_signal(signal.SIGHUP)
    time.sleep(0.3)
    s.proc.send_signal(signal.SIGHUP)
    assert s.get("/healthz")[0] == 200
    assert s.stop() == 0
    assert s.stderr().count("SIGHUP ignored") == 1


def sysfs_size(name):
    with open("/sys/class/block/%s/size" % name) as f:
        return int(f.read())


def counts(body, dev):
    """iolens_requests_total of `dev` by op; {} when it has no series."""
    return {dict(k)["op"]: v for k, v in samples(body, "iolens_requests_total").items()
            if ("device", dev) in k}


def test_serve_every_disk_from_the_start(iolens, loop, partition, serve):
    """By default every whole disk that did I/O since boot has its series
    from serve's start, at 0, before it does any more (a rate over the
    first requests then sees them); a disk attached after serve started
    counts from its start, as diskstats does; an unattached loop device
    that never did I/O and a partition that did have none (its disk has
    it)."""
    io = DirectIO(partition)
    io.read(0, 4096)
    io.close()
    wait_idle(loop)
    s = serve()
    time.sleep(1.2)
    assert counts(s.metrics(), loop.name) == {"read": 0, "write": 0, "discard": 0, "flush": 0}
    with open("/proc/diskstats") as f:
        # A loop device of a number used before keeps its counts (when
        # serve started they were its start); a new one starts from 0.
        before = {l.split()[2]: [int(x) for x in l.split()[3:]] for l in f}
    # An unbound loop device keeps the counts of its last use (6.18 as
    # 6.1): one that did I/O since boot shows, as in iostat; the others not.
    unbound = [n for n in before if n.startswith("loop") and
               sysfs_size(n) == 0 and not any(before[n])]
    late = Loop()
    try:
        io = DirectIO(late.dev)
        for i in range(10):
            io.write(i * 4096, 4096)
        io.close()
        wait_idle(late)
        d = late.diskstats()
        was = before.get(late.name, [0] * 11)
        time.sleep(2.2)
        body = s.metrics()
        got = counts(body, late.name)
        assert got["write"] == d["w_ios"] - was[4] >= 10, (got, d, was)
        assert got["read"] == d["r_ios"] - was[0], (got, d, was)
        assert value(body, "iolens_bytes_total", device=late.name, op="write") == \
            (d["w_sectors"] - was[6]) * 512
    finally:
        late.close()
    assert counts(body, loop.name) == {"read": 0, "write": 0, "discard": 0, "flush": 0}
    names = {dict(k)["device"] for k in samples(body, "iolens_requests_total")}
    assert not names & set(unbound) - {late.name}, (names, unbound)
    assert loop.name in names and os.path.basename(partition) not in names, names
    assert s.stop() == 0


@pytest.mark.fast
def test_serve_usage_errors(iolens, root):
    for arg in ("foo", "127.0.0.1", "127.0.0.1:0", "127.0.0.1:70000",
                "localhost:9633", "[::1:9633", "1.2.3:80"):
        p = subprocess.run([IOLENS, "serve", "--listen", arg],
                           capture_output=True, text=True, timeout=10)
        assert p.returncode == 2, (arg, p.stderr)
        assert len(p.stderr.splitlines()) == 1 and "--listen" in p.stderr
    for args, what in ((["--labels", "pid"], "--labels"), (["--labels", "comm,"], "--labels"),
                       (["--max-label-sets", "0"], "--max-label-sets"),
                       (["--max-label-sets", "9x"], "--max-label-sets")):
        p = subprocess.run([IOLENS, "serve"] + args, capture_output=True, text=True, timeout=10)
        assert p.returncode == 2, (args, p.stderr)
        assert len(p.stderr.splitlines()) == 1 and what in p.stderr
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        addr = "127.0.0.1:%d" % taken.getsockname()[1]
        p = subprocess.run([IOLENS, "serve", "--listen", addr],
                           capture_output=True, text=True, timeout=10)
    assert p.returncode == 1 and addr in p.stderr and "in use" in p.stderr


# From the end of I/O to a sample holding it: the collector's read (1 s),
# one more that finds a missed completion (the disk idle a whole interval,
# 1 s), the next scrape (1 s), and slack for a loaded 2-core machine.
SETTLE = 4.5


def settle(t):
    time.sleep(max(0, t + SETTLE + 0.5 - time.time()))
    return t + SETTLE


def test_serve_prometheus(iolens, loop, serve, tracer, tmp_path):
    """A real Prometheus scraping every second: the request counter between
    two instants equals the /proc/diskstats delta of the workload between
    them, and histogram_quantile(0.99) over the same span falls in the
    fold bucket of `iolens lat`'s p99 or the next one (lat ends a request
    at the driver's completion, serve at the block layer's accounting, a
    few us later, and interpolation puts Prometheus anywhere in a bucket)."""
    s = serve(["-d", loop.name])
    prom = Prometheus(s.port, str(tmp_path))
    try:
        dev = loop.name
        workload(loop, 5, seed=7)  # the device's slot, so a series exists
        t0 = settle(time.time())
        d0 = loop.diskstats()
        series = 'iolens_requests_total{device="%s",op="%%s"}' % dev
        w0 = prom.scalar(series % "write", t0)
        r0 = prom.scalar(series % "read", t0)

        lat = tracer(["lat", "--total", "-j", "-d", dev])
        workload(loop, 600, seed=8)
        d1 = loop.diskstats()
        (rep,) = [json.loads(x) for x in lat.stop().splitlines()]
        t1 = settle(time.time())
        w = prom.scalar(series % "write", t1) - w0
        r = prom.scalar(series % "read", t1) - r0
        assert (w, r) == (d1["w_ios"] - d0["w_ios"], d1["r_ios"] - d0["r_ios"])
        assert d1["w_ios"] - d0["w_ios"] >= 600

        span = "%dms" % round((t1 - t0) * 1000)
        b = 'iolens_request_duration_seconds_bucket{device="%s"}' % dev
        q99 = prom.scalar("histogram_quantile(0.99, sum by (le) (%s - %s offset %s))"
                          % (b, b, span), t1) * 1e9
        (h,) = [x for x in rep["histograms"] if x["kind"] == "total"]
        assert h["count"] == w + r
        p99 = h["p99"]
        i = next(k for k, e in enumerate(DUR_BOUNDS + [float("inf")]) if p99 < e)
        lo = DUR_BOUNDS[i - 1] if i > 0 else 0
        hi = DUR_BOUNDS[i + 1] if i + 1 < len(DUR_BOUNDS) else float("inf")
        print("serve p99 %.0f ns (prometheus), lat p99 %d ns, fold bucket [%d, %d)" % (q99, p99, lo, hi))
        assert lo <= q99 <= hi, (q99, p99, lo, hi)
    finally:
        prom.stop()


def raw(port, data, timeout=10):
    """Sends `data`, returns what comes back until the server closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as c:
        c.sendall(data)
        got = b""
        try:
            while True:
                chunk = c.recv(65536)
                if not chunk:
                    break
                got += chunk
        except ConnectionResetError:
            pass
        return got


def test_serve_bad_and_many_clients(iolens, serve):
    """Malformed requests get an error or a close, a silent client holds
    nobody else up and is dropped after the timeout, 200 scrapes at once
    from 50 addresses are all answered; the server serves on."""
    s = serve()
    for bad in (b"GARBAGE\r\n\r\n", b"GET\r\n\r\n", b"GET /metrics HTTP/9.9\r\n\r\n",
                b"\x00\xff\xfe" * 100 + b"\r\n\r\n",
                b"GET /metrics HTTP/1.1\r\nX: " + b"a" * 100000 + b"\r\n\r\n"):
        got = raw(s.port, bad)
        assert got == b"" or re.match(rb"HTTP/1\.[01] [45]\d\d ", got), got[:200]
        assert s.proc.poll() is None
    # A body announced and never sent: answered without it, then closed.
    got = raw(s.port, b"GET /metrics HTTP/1.1\r\nContent-Length: 99999999\r\n\r\nxx")
    assert re.match(rb"HTTP/1\.1 (200|4\d\d) ", got), got[:200]
    assert s.get()[0] == 200

    silent = socket.create_connection(("127.0.0.1", s.port), timeout=15)
    try:
        t = time.time()
        assert s.get(timeout=5)[0] == 200
        assert time.time() - t < 1
        t = time.time()
        assert silent.recv(100) == b""  # closed by the 5 s timeout
        assert time.time() - t < 12
    finally:
        silent.close()

    results = []

    def scrape(i):
        try:
            status, _, body = s.get(timeout=30, source="127.0.1.%d" % (1 + i % 50))
            results.append("ok" if status == 200 and "iolens_process_cpu" in body else status)
        except (ConnectionResetError, ConnectionRefusedError, BrokenPipeError,
                http.client.RemoteDisconnected):
            results.append("refused")
        except Exception as e:  # anything else is a failure of the test
            results.append(repr(e))
    # From 50 addresses, 4 each: none is past a cap, so every one is answered.
    threads = [threading.Thread(target=scrape, args=(i,)) for i in range(200)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
    assert not any(th.is_alive() for th in threads)
    assert results == ["ok"] * 200, [r for r in results if r != "ok"][:5]
    assert s.proc.poll() is None
    assert s.get()[0] == 200 and s.get("/healthz")[0] == 200
    assert s.stop() == 0


@pytest.mark.fast
def test_serve_paths_exact(iolens, serve):
    """A route is its path exactly: a NUL in the path, encoded or raw, or
    any byte after the route is 404 (a NUL once cut the path to the route:
    /metrics%00junk was /metrics).  A query string is not the path: a
    scraper may send one (params: in Prometheus, node_exporter's
    collect[]), and it is still /metrics."""
    s = serve()

    def status(target, method=b"GET", version=b"HTTP/1.1"):
        got = raw(s.port, method + b" " + target + b" " + version + b"\r\nHost: x\r\n\r\n")
        m = re.match(rb"HTTP/1\.[01] (\d\d\d) ", got)
        assert m, (target, got[:200])
        return int(m.group(1))
    for target in (b"/metrics%00junk", b"/healthz%00.html", b"/metrics%00", b"/%00",
                   b"/metrics\x00junk", b"/healthz\x00.html", b"/\x00x", b"/metrics\x00",
                   b"/metrics/", b"/metrics%2F", b"/metrics%2f", b"/metrics%", b"/metricsx",
                   b"/healthz/", b"//metrics", b"/metrics%3Fx", b"/metrics#x"):
        assert status(target) == 404, target
        assert status(target, method=b"HEAD") == 404, target
    for target in (b"/metrics", b"/healthz", b"/", b"/metrics?x", b"/metrics?",
                   b"/metrics?collect[]=diskstats&collect[]=x%00y", b"/healthz?x=1",
                   b"/%6detrics"):
        assert status(target) == 200, target
        assert status(target, method=b"HEAD") == 200, target
        assert status(target, version=b"HTTP/1.0") == 200, target
    assert s.get()[0] == 200 and s.get("/healthz")[0] == 200
    assert s.stop() == 0


def trickler(port, source, stop, every=0.5, again=False):
    """A slowloris client: a request line, then a header line `every` s,
    never the end of its headers; `again`: connects anew each time the
    server closes it, until `stop`.  How many times it was closed."""
    closed = 0
    while not stop.is_set():
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=5,
                                          source_address=(source, 0)) as c:
                c.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
                while not stop.wait(every):
                    c.sendall(b"X-Slow: 1\r\n")
        except OSError:  # closed by the server: the cap or the deadline
            closed += 1
        if not again:
            break
    return closed


@pytest.mark.nosan
def test_serve_under_slow_clients(iolens, serve):
    """200 clients trickling their headers, from 200 addresses, for 10 s:
    /metrics answers every time within 1 s and RSS stays within what the
    per-connection cap allows; of 80 idle connections from one address
    the 64 newest stay and the 16 oldest are closed at once, while other
    addresses are served."""
    s = serve()
    base = s.rss_kib()
    stop = threading.Event()
    slow = [threading.Thread(target=trickler, args=(s.port, "127.0.2.%d" % (1 + i % 250), stop))
            for i in range(200)]
    for th in slow:
        th.start()
    try:
        time.sleep(2)
        rss = []
        for _ in range(8):
            t = time.time()
            assert s.get(timeout=5)[0] == 200
            assert time.time() - t < 1
            rss.append(s.rss_kib())
            time.sleep(1)
        print("serve RSS %d KiB, under 200 slow clients: %s KiB" % (base, rss))
        # What each connection holds is capped (32 KiB of request, its
        # pages touched as the headers come): at most 200 * 32 KiB.
        assert max(rss) - base < 200 * 32, (base, rss)
    finally:
        stop.set()
        for th in slow:
            th.join(30)
    idle = []
    try:
        for _ in range(80):
            idle.append(socket.create_connection(("127.0.0.1", s.port), timeout=5,
                                                 source_address=("127.0.3.1", 0)))
        time.sleep(0.5)
        closed = []
        for c in idle:
            c.setblocking(False)
            try:
                closed.append(c.recv(1) == b"")
            except BlockingIOError:
                closed.append(False)
            except ConnectionResetError:
                closed.append(True)
        assert closed == [True] * 16 + [False] * 64, closed
        assert s.get(timeout=5)[0] == 200
    finally:
        for c in idle:
            c.close()
    assert s.stop() == 0


@pytest.mark.nosan
def test_serve_scraper_among_tricklers_of_its_address(iolens, serve):
    """70 clients from the scraper's own address (127.0.0.1) trickle a
    header line every 2 s and connect again whenever closed: the scraper
    still gets /metrics within 1 s, every second for 10 s.  Each new
    connection past 64 of one address closes the oldest of them that has
    not sent a whole request, never the newcomer (which was the cap's
    answer, and blinded a scraper behind one local user's process)."""
    s = serve()
    stop = threading.Event()
    closed = []
    slow = [threading.Thread(target=lambda: closed.append(
        trickler(s.port, "127.0.0.1", stop, every=2, again=True))) for _ in range(70)]
    for th in slow:
        th.start()
    try:
        time.sleep(3)
        took = []
        end = time.time() + 10
        while time.time() < end:
            t = time.time()
            status, _, body = s.get(timeout=5)
            took.append(time.time() - t)
            assert status == 200 and "iolens_process_cpu" in body
            time.sleep(max(0, t + 1 - time.time()))
        print("scrapes took %s s" % ["%.3f" % x for x in took])
        assert len(took) >= 9 and max(took) < 1, took
    finally:
        stop.set()
        for th in slow:
            th.join(30)
    assert not any(th.is_alive() for th in slow)
    # The scraper's connections closed tricklers: 6 at least at the
    # start, one for each scrape, and the 10 s deadline the rest.
    assert sum(closed) >= 6 + len(took), closed
    assert s.get()[0] == 200
    assert s.stop() == 0


def test_serve_request_deadline(iolens, serve):
    """A header line every second resets the 5 s idle timeout for ever;
    the 10 s deadline of a connection ends it, while others are served."""
    s = serve()
    slow = socket.create_connection(("127.0.0.1", s.port), timeout=30,
                                    source_address=("127.0.4.1", 0))
    try:
        start = time.time()
        slow.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
        slow.setblocking(False)
        closed = None
        while closed is None and time.time() - start < 16:
            assert s.get(timeout=5)[0] == 200
            time.sleep(1)
            try:
                assert slow.recv(100) == b"", "answered a request never finished"
                closed = time.time() - start
            except BlockingIOError:
                slow.sendall(b"X-Slow: 1\r\n")
            except (ConnectionResetError, BrokenPipeError):
                closed = time.time() - start
        assert closed is not None and 10 <= closed < 12, closed
    finally:
        slow.close()
    assert s.stop() == 0


@pytest.mark.nosan
def test_serve_memory_flat(iolens, loop, serve):
    """A minute of I/O and a scrape every 50 ms, label sets on: RSS grows
    by less than 1 MiB after the first 20 s (allocator warm-up).  Only the test's own disk: writeback of earlier tests on
    other disks would bring new label sets, which rightly take memory."""
    s = serve(["--labels", "comm,cgroup", "-d", loop.name])
    stop = threading.Event()

    def io():
        while not stop.is_set():
            workload(loop, 50, seed=random.randrange(1 << 30))
    th = threading.Thread(target=io)
    th.start()
    try:
        end = time.time() + 60
        base = None
        t_base = time.time() + 20
        peak = 0
        n = 0
        while time.time() < end:
            assert s.get()[0] == 200
            n += 1
            if base is None and time.time() >= t_base:
                base = s.rss_kib()
            elif base is not None:
                peak = max(peak, s.rss_kib())
            time.sleep(0.05)
    finally:
        stop.set()
        th.join(60)
    print("serve RSS %d KiB after 20 s, peak %d KiB over %d scrapes" % (base, peak, n))
    assert n > 500
    assert peak - base < 1024, (base, peak)


def data_reads(lo, action):
    """The data reads (tracefs rwbs "R" and readahead "RA", not metadata
    "RM") the device saw while action() ran."""
    trace = TraceInstance(lo)
    try:
        action()
        wait_idle(lo)
        assert trace.overruns() == 0
        return [e for e in trace.read()
                if e[0] == "block_rq_issue" and e[1] in ("R", "RA")]
    finally:
        trace.close()


def test_serve_rmw_reads(iolens, loop, ext4, serve):
    """Plain reads of a file not in the page cache are not RMW reads.  Then
    buffered 4000-byte pwrites at random record indexes of another such
    file: iolens_rmw_reads_total and its bytes equal the data reads the
    device saw meanwhile, about one per write."""
    size = 2000000
    paths = [str(ext4 / name) for name in ("plain", "records")]
    for path in paths:
        uncached_file(path, size)
    wait_idle(loop)
    s = serve(["-d", loop.name, "--detail"])

    def read_all():
        with open(paths[0], "rb", buffering=0) as f:
            while f.read(4096):
                pass
    plain = data_reads(loop, read_all)
    time.sleep(2.2)  # the collector reads every second
    assert plain and value(s.metrics(), "iolens_rmw_reads_total", device=loop.name) == 0

    jobs = []
    reads = data_reads(loop, lambda: jobs.extend(load_json(
        ["--name=w", "--ioengine=psync", "--filename=" + paths[1], "--rw=randwrite",
         "--bs=4000", "--size=%d" % size, "--direct=0"])["jobs"]))
    time.sleep(2.2)
    body = s.metrics()
    writes = jobs[0]["write"]["total_ios"]
    n = value(body, "iolens_rmw_reads_total", device=loop.name)
    print("%d plain reads; %d writes, %d RMW reads, %d data reads in tracefs" % (
        len(plain), writes, n, len(reads)))
    assert n == len(reads)
    assert value(body, "iolens_rmw_read_bytes_total", device=loop.name) == \
        sum(e[3] * 512 for e in reads)
    assert 0.9 * writes <= n <= 1.1 * writes, (n, writes)


CHILD = """
import ctypes, mmap, os, sys
cg, comm, dev, op, n, bs = sys.argv[1:]
n, bs = int(n), int(bs)
if cg:
    with open(cg + "/cgroup.procs", "w") as f:
        f.write("0")
ctypes.CDLL(None).prctl(15, comm.encode("latin-1"), 0, 0, 0)  # PR_SET_NAME
fd = os.open(dev, os.O_RDWR | os.O_DIRECT)
buf = mmap.mmap(-1, bs)
for i in range(n):
    if op == "read":
        assert os.preadv(fd, [buf], i * bs) == bs
    else:
        assert os.pwrite(fd, buf, i * bs) == bs
"""


def child(cg, comm, dev, op, n, bs):
    """n O_DIRECT requests of bs bytes by a process named comm in cgroup
    cg ("" = this one's); it has exited when this returns."""
    subprocess.run(["python3", "-c", CHILD, cg, comm, dev, op, str(n), str(bs)],
                   check=True, timeout=60)


def test_serve_labels_comm_cgroup(iolens, loop, serve, blkio_cgroups):
    """--labels comm,cgroup: processes named for the test, in cgroups made
    for it, do known O_DIRECT requests.  Each comm and each cgroup has
    exactly its requests and bytes; two comms that differ only in bytes a
    label cannot carry are one series, the sum of both; every family adds up
    to the device's diskstats delta; promtool accepts the page."""
    promtool = need("promtool")
    label_a, cg_a = blkio_cgroups("a")
    label_b, cg_b = blkio_cgroups("b")
    wait_idle(loop)
    s = serve(["-d", loop.name, "--labels", "comm,cgroup"])
    d0 = loop.diskstats()
    child(cg_a, "iolens-rd", loop.dev, "read", 40, 65536)
    child(cg_b, "iolens-wr", loop.dev, "write", 70, 4096)
    child(cg_b, "iolens-\x01x", loop.dev, "read", 5, 4096)
    child(cg_b, "iolens-\x02x", loop.dev, "read", 6, 4096)
    wait_idle(loop)
    d1 = loop.diskstats()
    time.sleep(3.2)  # a new cgroup's path can take the collector two reads
    body = s.metrics()
    p = subprocess.run([promtool, "check", "metrics"], input=body,
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stdout + p.stderr
    dev = loop.name

    def got(family, **labels):
        return (value(body, "iolens_%s_requests_total" % family, device=dev, **labels),
                value(body, "iolens_%s_bytes_total" % family, device=dev, **labels))
    assert got("comm", op="read", comm="iolens-rd") == (40, 40 * 65536)
    assert got("comm", op="write", comm="iolens-wr") == (70, 70 * 4096)
    # Control bytes are shown escaped, as \xNN (a label's backslash is
    # written \\): the two names stay apart.
    assert got("comm", op="read", comm="iolens-\\\\x01x") == (5, 5 * 4096)
    assert got("comm", op="read", comm="iolens-\\\\x02x") == (6, 6 * 4096)
    assert got("cgroup", op="read", cgroup=label_a) == (40, 40 * 65536)
    assert got("cgroup", op="write", cgroup=label_b) == (70, 70 * 4096)
    assert got("cgroup", op="read", cgroup=label_b) == (11, 11 * 4096)
    for family in ("comm", "cgroup"):
        assert_counts_equal(dev, d0, d1, {op: got(family, op=op) for op in ("read", "write")})
    # rd, wr and the two escaped names.
    assert len(samples(body, "iolens_comm_requests_total")) == 4


@pytest.mark.parametrize("sched", ["none", "mq-deadline"])
def test_serve_label_cap(iolens, loop, serve, sched):
    """--max-label-sets 2: the first two label sets are kept exactly, a
    third process's requests go to comm="(other)", and the family still adds
    up to the device; with and without a scheduler (its tags are not the
    driver's: comm alone keeps the submitter by tag, see owner_slots)."""
    with open("/sys/block/%s/queue/scheduler" % loop.name, "w") as f:
        f.write(sched)
    wait_idle(loop)
    s = serve(["-d", loop.name, "--labels", "comm", "--max-label-sets", "2"])
    for i, n in enumerate((10, 20, 30)):
        child("", "iolens-cap%d" % i, loop.dev, "read", n, 4096)
    wait_idle(loop)
    time.sleep(2.2)
    body = s.metrics()
    comm = samples(body, "iolens_comm_requests_total")
    assert {dict(k)["comm"]: v for k, v in comm.items()} == \
        {"iolens-cap0": 10, "iolens-cap1": 20, "(other)": 30}
    assert value(body, "iolens_requests_total", device=loop.name, op="read") == 60


def test_serve_least_privileges(iolens, loop, serve, tmp_path):
    """As the unit runs it: an unprivileged user with only CAP_BPF and
    CAP_PERFMON (ambient), nothing else in the bounding set.  It serves, and
    its counters are the diskstats delta."""
    setpriv = need("setpriv")
    binary = os.path.join(TMPFS, OWN + "iolens-serve")
    shutil.copy(IOLENS, binary)
    os.chmod(binary, 0o755)
    port = free_port()
    caps = "-all,+bpf,+perfmon"
    p = subprocess.Popen([setpriv, "--reuid=65534", "--regid=65534", "--clear-groups",
                          "--inh-caps=" + caps, "--ambient-caps=" + caps,
                          "--bounding-set=" + caps, binary, "serve",
                          "--listen", "127.0.0.1:%d" % port, "-d", loop.name],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        # Without CAP_SYS_ADMIN it cannot turn on bpf_stats itself: one
        # line says so, unless the sysctl already has them on.
        with open("/proc/sys/kernel/bpf_stats_enabled") as f:
            stats_on = f.read().strip() == "1"
        line = line_of(p)
        if not stats_on:
            assert "no iolens_bpf_* metrics: cannot enable BPF run-time " \
                "statistics (Operation not permitted; needs CAP_SYS_ADMIN" in line, line
            line = line_of(p)
        assert "serving http://" in line, line
        with open("/proc/%d/status" % p.pid) as f:
            status = f.read()
        assert re.search(r"Uid:\s+65534", status)
        # CAP_PERFMON is bit 38, CAP_BPF bit 39.
        assert int(re.search(r"CapEff:\s+(\w+)", status).group(1), 16) == 3 << 38
        d0 = loop.diskstats()
        workload(loop, 50)
        d1 = loop.diskstats()
        time.sleep(2.2)
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        c.request("GET", "/metrics")
        body = c.getresponse().read().decode()
        c.close()
        assert value(body, "iolens_requests_total", device=loop.name, op="write") == \
            d1["w_ios"] - d0["w_ios"]
        p.send_signal(signal.SIGTERM)
        assert p.wait(timeout=15) == 0
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        os.unlink(binary)
