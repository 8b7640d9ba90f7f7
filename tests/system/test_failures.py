# SPDX-License-Identifier: GPL-2.0
"""Failed and stuck requests in every view.  The disk: faultfs under a loop
device (FaultyDisk), whose reads of one range end in EIO, which the loop
driver completes with BLK_STS_IOERR, and whose reads of another stay in
flight until the test releases them.  Ground truth: the reads this test
made and saw fail or hang, /proc/diskstats and faultfs's own counts."""
import json
import os
import subprocess
import time

from helpers import (IOLENS, html_report, json_lines, line_of, need, run, samples, value,
                     wait_idle)

MIB = 1 << 20
N = 20


def ops_sum(reports, name, op, key):
    return sum(d["ops"][op][key] for r in reports for d in r["devices"]
               if d["disk_device"] == name)


def test_stat_counts_failed_requests_by_status(iolens, faulty, background, stat):
    """stat -j: the interval's reads are diskstats', of them the 20 that
    failed are "failed" with status IOERR, and only the 20 that succeeded
    are timed; the text report has a failed% column and a line naming the
    device and the status."""
    t = stat(["-d", faulty.name])
    faulty.failing_reads(N)
    _, reps = t.stop_when_idle(faulty)
    assert ops_sum(reps, faulty.name, "read", "ios") == 2 * N
    assert ops_sum(reps, faulty.name, "read", "failed") == N
    assert ops_sum(reps, faulty.name, "read", "requeues") == 0
    by = {}
    for r in reps:
        for d in r["devices"]:
            if d["disk_device"] == faulty.name:
                for s, n in d["ops"]["read"]["failed_by_status"].items():
                    by[s] = by.get(s, 0) + n
    assert by == {"IOERR": N}
    assert ops_sum(reps, faulty.name, "read", "timed") == N
    assert all(r["failures_not_by_status"] == 0 for r in reps)

    text = background(["stat", "-y", "-d", faulty.name, "2", "2"])
    text.wait_for("Device ")
    faulty.failing_reads(5)
    assert text.proc.wait(timeout=60) == 0
    lines = text.output().splitlines()
    out = "\n".join(lines)
    line = "(%s: 5 of 10 read requests failed: IOERR 5)" % faulty.name
    assert line in lines, out
    at = lines.index(line)
    assert lines[at - 2].split()[-1] == "failed%", out
    assert lines[at - 1].split()[:3] == [faulty.name, "read", "10"], out
    assert lines[at - 1].split()[-1] == "50.0%", out


def test_lat_keeps_failures_out_of_the_histogram(iolens, faulty, tracer):
    """lat -j: the device-time histogram of the reads holds the 20 that
    succeeded; the 20 that failed are listed apart, by status."""
    t = tracer(["lat", "-j", "-d", faulty.name])
    faulty.failing_reads(N)
    rep = json.loads(t.stop().strip().splitlines()[-1])
    assert sum(h["count"] for h in rep["histograms"]) == N, rep["histograms"]
    failed = [(f["disk"], f["op"], f["status"], f["count"]) for f in rep["failed"]]
    assert failed == [(faulty.name, "read", "IOERR", N)], rep["failed"]
    assert rep["failed"][0]["avg_ns"] > 0


def test_lat_by_status_and_hwq_times_failures_apart(iolens, faulty, tracer):
    """lat -j --by status,hwq: the 20 failed reads in a histogram of their
    own status, IOERR, the 20 that succeeded in "ok", none listed apart;
    all of them on the loop device's one hardware queue, 0."""
    t = tracer(["lat", "-j", "--by", "status,hwq", "-d", faulty.name])
    faulty.failing_reads(N)
    rep = json.loads(t.stop().strip().splitlines()[-1])
    counts = {}
    for h in rep["histograms"]:
        assert h["hwq"] == 0, h
        counts[h["status"]] = counts.get(h["status"], 0) + h["count"]
    assert counts == {"ok": N, "IOERR": N}, counts
    assert rep["failed"] == []


def test_top_counts_a_process_failed_requests(iolens, faulty):
    """top -j: this process's row counts its 20 failed reads apart
    (block_failed) among its 40 block requests; the device says 20 of its
    requests failed, by status.  A frame reads its maps one after another,
    so one taken during the reads may count a failure before the success
    read just before it: the frames are read until both counts are whole
    (since start, -a), then judged exactly."""
    p = subprocess.Popen([IOLENS, "top", "-j", "-a", "-p", str(os.getpid()), "-d", "0.5"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line_of(p, p.stdout)
        faulty.failing_reads(N)
        failed = {}
        for _ in range(20):
            frame = json.loads(line_of(p, p.stdout))
            mine = [r for r in frame["processes"] if r["pid"] == os.getpid()]
            for d in frame["devices"]:
                if d["disk_device"] == faulty.name and d["failed"]:
                    for s, n in d["failed_by_status"].items():
                        failed[s] = failed.get(s, 0) + n
            if (mine and mine[0]["block_failed"] >= N and mine[0]["block_requests"] >= 2 * N
                    and sum(failed.values()) >= N):
                break
        assert mine and mine[0]["block_failed"] == N, mine
        assert mine[0]["block_requests"] == 2 * N
        assert failed == {"IOERR": N}
    finally:
        p.kill()
        p.wait()


def test_serve_exports_failed_requests_by_status(iolens, faulty, serve):
    """/metrics: iolens_requests_failed_total{device,op,status} is 20 for
    IOERR reads, of the 40 reads of iolens_requests_total; promtool
    accepts the page; the duration histogram counts the 20 successes and
    keeps its _sum."""
    promtool = need("promtool")
    s = serve(["-d", faulty.name])
    faulty.failing_reads(N)
    time.sleep(2.2)
    body = s.metrics()
    chk = subprocess.run([promtool, "check", "metrics"], input=body,
                         capture_output=True, text=True, timeout=30)
    assert chk.returncode == 0, chk.stdout + chk.stderr
    dev = faulty.name
    assert value(body, "iolens_requests_total", device=dev, op="read") == 2 * N
    assert samples(body, "iolens_requests_failed_total") == {
        frozenset({("device", dev), ("op", "read"), ("status", "IOERR")}): N}
    assert value(body, "iolens_request_duration_seconds_count", device=dev, op="read") == N
    assert value(body, "iolens_request_duration_seconds_sum", device=dev, op="read") > 0


def test_snoop_and_report_keep_only_failures(iolens, faulty, tracer, tmp_path):
    """snoop -E shows the 20 failed reads and none of the 20 that
    succeeded; a recording of all 40, reported with -E, the same 20, and
    its summary counts 20 failed of the 40; -E -m with a bound no request
    reaches keeps the failures still."""
    snoop = tracer(["snoop", "-j", "-E", "-d", faulty.name])
    path = str(tmp_path / "f.iol")
    rec = tracer(["record", "-o", path, "-d", faulty.name])
    faulty.failing_reads(N)
    recs, _ = json_lines(snoop.stop())
    rec.stop()
    want = [MIB + i * 4096 for i in range(N)]
    assert sorted(r["sector"] * 512 for r in recs) == want, recs
    assert {r["status"] for r in recs} == {"IOERR"}
    for args in (["-E"], ["-E", "-m", "100s"]):
        r = run(["report", "-f", "json"] + args + [path])
        assert r.returncode == 0, r.stderr
        shown, summary = json_lines(r.stdout)
        assert sorted(x["sector"] * 512 for x in shown) == want
        assert summary["requests_shown"] == summary["failed"] == N
    r = run(["report", "-f", "json", path])
    shown, summary = json_lines(r.stdout)
    assert summary["requests_total"] == summary["requests_shown"] == 2 * N
    assert summary["failed"] == N
    r = run(["report", path])
    assert "%d of %d requests shown" % (2 * N, 2 * N) in r.stdout
    assert "%d of them FAILED" % N in r.stdout
    # The HTML page: failures counted per bin and listed, out of the
    # latency heat maps, drawn in the IOPS chart.
    html, data = html_report(path, str(tmp_path / "f.html"))
    assert data["failed"] == sum(data["failed_per_bin"]) == N
    assert sorted(x["sector"] * 512 for x in data["failures"]) == want
    assert {(x["op"], x["status"], x["device"]) for x in data["failures"]} == \
        {("read", "IOERR", faulty.name)}
    assert [d["failed"] for d in data["devices"]] == [N]
    for k in ("latency_heatmap", "device_heatmap"):
        assert sum(c[2] for c in data[k]) == N, k
    assert ">failed</text>" in html and "<h2>Failed requests</h2>" in html


def test_stat_warns_of_a_request_stuck_in_the_device(iolens, faulty, background, stat):
    """A read held in the device 3.5 s: while it is held, stat -j's oldest
    request in flight grows past --stuck 1s and names it (sector, size,
    dd's pid), and the text report has a STUCK line a report naming the
    device and the read; once released, the age is 0 again."""
    t = stat(["-d", faulty.name, "--stuck", "1s"])
    text = background(["stat", "-y", "--stuck", "1s", "-d", faulty.name, "1"])
    text.wait_for("Device ")
    with faulty.held_read(2048) as reader:
        time.sleep(3.5)
        reps = t.reports()
    _, after = t.stop_when_idle(faulty)
    out = text.stop()
    ages = [d["inflight_oldest_s"] for r in reps for d in r["devices"]
            if d["disk_device"] == faulty.name]
    assert max(ages) >= 2.5, ages
    stuck = [d["stuck"] for r in reps for d in r["devices"]
             if d["disk_device"] == faulty.name and d["stuck"]]
    assert stuck, reps
    assert {(s["sector"], s["bytes"], s["pid"], s["comm"]) for s in stuck} == \
        {(2048, 4096, reader.pid, "dd")}
    # One line a report while it is held past 1 s: 2 or 3 of them.
    lines = [l for l in out.splitlines() if l.startswith("STUCK: ")]
    assert 2 <= len(lines) <= 3, out
    assert lines[0].startswith("STUCK: %s has a request in flight for " % faulty.name)
    assert ": read of 4096 bytes at sector 2048, " in lines[0]
    assert "by pid %d (dd)" % reader.pid in lines[0], lines[0]
    last = [d for d in after[-1]["devices"] if d["disk_device"] == faulty.name]
    assert last[0]["inflight_oldest_s"] == 0 and last[0]["stuck"] is None


def test_top_and_serve_show_a_stuck_request(iolens, faulty, serve, background):
    """A held read: top -b's frames get a STUCK line naming the device and
    the read's sector while it is held; /metrics' (serve --detail)
    iolens_inflight_oldest_seconds for the device passes 2 s, and is 0
    once it is released, as iolens_inflight_requests (the kernel's) is 1
    and then 0; promtool accepts the page."""
    promtool = need("promtool")
    s = serve(["-d", faulty.name, "--detail"])
    top = background(["top", "-b", "-d", "0.5", "--stuck", "1s"])
    top.wait_for("iolens top - ")
    with faulty.held_read(4096):
        time.sleep(3.2)
        held = s.metrics()
    out = top.stop()
    wait_idle(faulty)
    time.sleep(1.2)
    after = s.metrics()
    chk = subprocess.run([promtool, "check", "metrics"], input=held,
                         capture_output=True, text=True, timeout=30)
    assert chk.returncode == 0, chk.stdout + chk.stderr
    assert value(held, "iolens_inflight_oldest_seconds", device=faulty.name) >= 2.0
    assert value(after, "iolens_inflight_oldest_seconds", device=faulty.name) == 0
    assert value(held, "iolens_inflight_requests", device=faulty.name) == 1
    assert value(after, "iolens_inflight_requests", device=faulty.name) == 0
    lines = [l for l in out.splitlines() if l.startswith("STUCK: %s " % faulty.name)]
    assert lines, out
    assert all(": read of 4096 bytes at sector 4096, " in l for l in lines), lines


def test_snoop_warns_once_of_a_request_stuck_in_flight(iolens, faulty, tracer):
    """snoop --stuck 1s: a read held 2.5 s is one STUCK line on stderr
    while it is held (device, sector, dd's pid), once however many scans
    see it; stdout keeps one JSON record per request, the held read's
    among them once it completes."""
    t = tracer(["snoop", "-j", "--stuck", "1s", "-d", faulty.name])
    with faulty.held_read(6144) as reader:
        time.sleep(2.5)
    wait_idle(faulty)
    recs, _ = json_lines(t.stop())
    lines = [l for l in t.stderr.splitlines() if "STUCK" in l]
    assert len(lines) == 1, t.stderr
    head = "iolens snoop: STUCK: %s: read of 4096 bytes at sector 6144, by pid %d (dd), " \
           "in flight for " % (faulty.name, reader.pid)
    assert lines[0].startswith(head) and lines[0].endswith(" s"), lines
    assert 1.0 <= float(lines[0][len(head):-2]) < 2.5
    assert [r["sector"] for r in recs if r["op"] == "read"] == [6144]
