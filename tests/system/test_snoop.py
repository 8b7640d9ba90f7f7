# SPDX-License-Identifier: GPL-2.0
"""iolens snoop against independent ground truth: the tracefs block events
and /proc/diskstats of an otherwise idle loop device."""
import csv
import io
import json
import mmap
import os
import signal
import subprocess
import time

import pytest

from helpers import (EXT4_SUBMITTERS, IOLENS, SUBMIT_CTX, WORKLOAD,
                     do_workload, frames_of, fsync_then_direct_reads, html_report, json_lines,
                     my_comm, run, snoop_exact, wait_idle)
from tracegen import synthetic_trace


def test_snoop_shows_each_failed_request(iolens, faulty, tracer):
    """A disk that fails (faultfs: a loop device whose reads of one range
    end in EIO, which the loop driver completes with BLK_STS_IOERR): 20
    direct reads there are 20 requests with status IOERR, each where it was
    read; 20 reads elsewhere are "ok"; all 40 are the reads diskstats
    counts, and the 20 the ones faultfs failed."""
    mib = 1 << 20
    t = tracer(["snoop", "-j", "-d", faulty.name])
    before, after = faulty.failing_reads(20, mib)
    recs, summary = json_lines(t.stop())
    reads = [r for r in recs if r["op"] == "read"]
    where = {s: sorted(r["sector"] * 512 for r in reads if r["status"] == s)
             for s in ("IOERR", "ok")}
    assert where == {"IOERR": [mib + i * 4096 for i in range(20)],
                     "ok": [i * 4096 for i in range(20)]}, reads
    assert len(reads) == after["r_ios"] - before["r_ios"] == 40
    assert summary["lost"] == 0


def test_snoop_times_a_request_held_in_the_device(iolens, faulty, tracer):
    """faultfs holds a read in flight until the test releases it, half a
    second later: snoop's line comes once it completes, its device time
    the hold (between what the test measured around the read and its
    release), and the read before it, not held, far under it."""
    faulty.hold(0, 4096)
    wait_idle(faulty)
    t = tracer(["snoop", "-j", "-d", faulty.name])
    fd = os.open(faulty.dev, os.O_RDONLY | os.O_DIRECT)
    buf = mmap.mmap(-1, 4096)
    try:
        assert os.preadv(fd, [buf], 8192) == 4096
        reader = subprocess.Popen(["dd", "if=" + faulty.dev, "of=/dev/null", "bs=4k",
                                   "count=1", "iflag=direct", "status=none"])
        for _ in range(100):
            if faulty.counts()["held"]:
                break
            time.sleep(0.01)
        t0 = time.monotonic_ns()
        time.sleep(0.5)
        faulty.release()
        t1 = time.monotonic_ns()
        assert reader.wait(timeout=10) == 0
    finally:
        os.close(fd)
    wait_idle(faulty)
    recs, _ = json_lines(t.stop())
    held = [r for r in recs if r["op"] == "read" and r["sector"] == 0]
    quick = [r for r in recs if r["op"] == "read" and r["sector"] == 16]
    assert len(held) == len(quick) == 1, recs
    assert 500_000_000 <= held[0]["device_ns"] <= t1 - t0 + 500_000_000, held
    assert held[0]["status"] == "ok"
    assert quick[0]["total_ns"] < 100_000_000, quick


@pytest.mark.fast
@pytest.mark.parametrize("attach", ["tp_btf", "raw_tp"])
def test_snoop_exact_against_tracefs_and_diskstats(iolens, loop, tracefs, tracer,
                                                   attach):
    t, summary = snoop_exact(tracer, loop, tracefs, attach)
    assert t.attach == summary["attach"] == attach


def test_snoop_text_and_csv(iolens, loop, tracer):
    t = tracer(["snoop", "-d", loop.name])
    do_workload(loop, WORKLOAD[:2])
    wait_idle(loop)
    lines = t.stop().splitlines()
    assert lines[0].split()[:6] == ["TIME(s)", "COMM", "PID", "TID", "DISK", "MAJ:MIN"]
    rows = [line.split() for line in lines[1:]]
    assert len(rows) == 2
    assert rows[0][2] == str(os.getpid()) and rows[0][4] == loop.name
    assert rows[0][5] == "%d:%d" % (loop.major, loop.minor)
    assert (rows[0][6], rows[0][8], rows[0][9]) == ("write", "0", "4096")
    assert (rows[1][6], rows[1][8], rows[1][9]) == ("write", "2048", "8192")
    # microseconds with three decimals: sub-microsecond precision kept
    for col in (10, 11, 12):
        whole, frac = rows[0][col].split(".")
        assert whole.isdigit() and len(frac) == 3
    assert "2 requests shown" in t.stderr and "0 lost" in t.stderr

    t = tracer(["snoop", "--csv", "-d", loop.name])
    do_workload(loop, WORKLOAD[2:3])
    wait_idle(loop)
    rows = list(csv.DictReader(io.StringIO(t.stop())))
    assert len(rows) == 1
    row = rows[0]
    assert (row["op"], row["sector"], row["bytes"], row["pid"]) == ("read", "0", "4096", str(os.getpid()))
    assert row["rwbs"] == "RS"


def test_snoop_filters(iolens, loop, tracer):
    t_read = tracer(["snoop", "-j", "-d", loop.name, "-O", "read"])
    t_pid = tracer(["snoop", "-j", "-d", loop.name, "-p", "1"])
    t_slow = tracer(["snoop", "-j", "-d", loop.name, "-m", "10s"])
    t_comm = tracer(["snoop", "-j", "-d", loop.name, "-c", my_comm()])
    done = do_workload(loop)
    wait_idle(loop)
    recs, _ = json_lines(t_read.stop())
    assert [(r["op"], r["sector"] * 512) for r in recs] == \
        [(op, off) for op, off, _ in done if op == "read"]
    assert json_lines(t_pid.stop())[0] == []
    assert json_lines(t_slow.stop())[0] == []
    assert len(json_lines(t_comm.stop())[0]) == len(done)


def snoop_fio_reads(loop, tracer, *fio_args):
    """snoop -j over fio's 4 KiB random O_DIRECT reads of 16 MiB of the
    loop device: (records, summary, reads fio did, read requests and read
    merges diskstats counted).  Two of fio's reads of adjacent blocks in
    one plug are one request: fio's reads are the requests plus the
    merges."""
    t = tracer(["snoop", "-j", "-d", loop.name])
    before = loop.diskstats()
    out = subprocess.run(
        ["fio", "--filename=" + loop.dev, "--rw=randread", "--bs=4k",
         "--direct=1", "--size=16M", "--randrepeat=1", "--output-format=json"] +
        list(fio_args), check=True, capture_output=True, text=True).stdout
    wait_idle(loop)
    after = loop.diskstats()
    recs, summary = json_lines(t.stop())
    fio_ios = sum(j["read"]["total_ios"] for j in json.loads(out)["jobs"])
    return (recs, summary, fio_ios, after["r_ios"] - before["r_ios"],
            after["r_merges"] - before["r_merges"])


def assert_each_request_once(recs):
    """No request twice.  Not told apart by start and sector alone: since
    6.9 requests submitted under one plug share its cached start time
    (blk_time_get_ns()), and a job's next loop may read a sector again in
    the same batch."""
    keys = {(r["tid"], r["ts_start"], r["ts_issue"], r["ts_complete"], r["sector"])
            for r in recs}
    assert len(keys) == len(recs)


def test_snoop_queue_depth_matches_fio(iolens, loop, tracer, tmp_path):
    """Concurrent I/O: every request fio counted is there once, and the
    in-flight count at issue never exceeds fio's iodepth."""
    recs, summary, fio_ios, reads, merges = snoop_fio_reads(
        loop, tracer, "--name=qd", "--ioengine=libaio", "--iodepth=8",
        "--number_ios=2000")
    assert fio_ios == 2000
    fio_recs = [r for r in recs if r["comm"] == "fio"]
    assert len(fio_recs) + merges == fio_ios
    assert reads == len(recs)
    # A completion the kernel did not deliver (reported as "unseen") keeps
    # its request counted in flight until its memory is reused.
    depths = [r["qd"] for r in recs]
    assert 1 < max(depths) <= 8 + summary["unseen"]
    assert summary["lost"] == 0
    for r in recs:
        assert (r["status"] == "unseen") == (r["ts_complete"] == 0)


def test_snoop_consumers_merge_lines_in_time_order(iolens, loop, tracer):
    """A consumer thread per CPU formats its ring's requests; the lines come
    out merged by time, each request once.  Two fio jobs pinned to
    different CPUs so that both rings fill at once: unmerged, the lines
    would come in runs of one ring's, tens of ms apart."""
    recs, summary, fio_ios, reads, merges = snoop_fio_reads(
        loop, tracer, "--name=m", "--ioengine=io_uring", "--iodepth=16",
        "--numjobs=2", "--cpus_allowed=0,1", "--cpus_allowed_policy=split",
        "--loops=4")
    assert fio_ios == 32768 and summary["lost"] == 0
    assert reads == len(recs) == summary["requests"]
    assert len([r for r in recs if r["comm"] == "fio"]) + merges == fio_ios
    assert_each_request_once(recs)
    # A completion is stamped just before its record is reserved: two
    # CPUs may swap places in one ring by microseconds, never more.
    times = [r["time_s"] for r in recs if r["status"] != "unseen"]
    back = max(a - b for a, b in zip(times, times[1:]))
    assert back < 0.001, "lines out of time order by %.3f ms" % (back * 1e3)


def test_snoop_count_stops_at_the_nth_line(iolens, loop):
    """-n N: the first N requests in time order, then snoop ends itself."""
    p = subprocess.Popen([IOLENS, "snoop", "-j", "-n", "5", "-d", loop.name],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert "Tracing" in p.stderr.readline()
        done = do_workload(loop)
        out, err = p.communicate(timeout=30)
    finally:
        p.kill()
    recs, summary = json_lines(out)
    assert p.returncode == 0, err
    assert [(r["op"], r["sector"] * 512, r["bytes"]) for r in recs] == done[:5]
    assert summary["requests"] == 5 and "5 requests shown" in err


def test_snoop_output_that_cannot_be_written(iolens, loop):
    """Lines that cannot be written end the run with one line saying why
    and exit 1, not a silent loss."""
    with open("/dev/full", "w") as full:
        p = subprocess.Popen([IOLENS, "snoop", "-j", "-d", loop.name],
                             stdout=full, stderr=subprocess.PIPE, text=True)
    try:
        assert "Tracing" in p.stderr.readline()
        do_workload(loop)
        err = p.communicate(timeout=30)[1]
    finally:
        p.kill()
    assert p.returncode == 1, err
    assert err.splitlines()[0] == \
        "iolens snoop: cannot write the output: No space left on device"
    assert "0 requests shown" in err


def test_snoop_lines_whole_through_a_blocked_pipe(iolens, loop):
    """Lines go out a thousand at a time with writev(); into a pipe nobody
    reads, writev() blocks, and the SIGINT that ends snoop may cut it short
    mid-line (SA_RESTART restarts only a write that wrote nothing).  Every
    line still comes out whole, each request once."""
    p = subprocess.Popen([IOLENS, "snoop", "-j", "-d", loop.name],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert b"Tracing" in p.stderr.readline()
        before = loop.diskstats()
        subprocess.run(["fio", "--name=pipe", "--filename=" + loop.dev,
                        "--rw=randread", "--bs=4k", "--direct=1", "--size=16M",
                        "--ioengine=io_uring", "--iodepth=16",
                        "--number_ios=20000"], check=True, capture_output=True)
        wait_idle(loop)
        reads = loop.diskstats()["r_ios"] - before["r_ios"]
        # 20,000 lines of 400 bytes are far past what a pipe holds.
        time.sleep(0.5)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
    finally:
        p.kill()
    assert p.returncode == 0, err
    recs, summary = json_lines(out.decode())
    assert len(recs) == reads == summary["requests"] and summary["lost"] == 0
    assert_each_request_once(recs)


@pytest.mark.fast
def test_snoop_usage_errors(iolens):
    for cmd in ("snoop", "record", "report", "doctor"):
        for args in (["--bogus"], ["-q"]):
            r = run([cmd] + args)
            assert r.returncode == 2 and r.stdout == "", (cmd, args)
            assert r.stderr.count("\n") == 1 and args[0] in r.stderr, r.stderr
    r = run(["snoop", "-D"])
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "needs a value" in r.stderr
    r = run(["snoop", "-D", "inf"])
    assert r.returncode == 2 and "bad duration" in r.stderr
    r = run(["snoop", "-d", "nosuchdisk0"])
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "nosuchdisk0" in r.stderr
    r = run(["snoop", "-m", "fast"])
    assert r.returncode == 2 and "bad latency" in r.stderr
    r = run(["snoop", "-O", "sideways"])
    assert r.returncode == 2 and "unknown op" in r.stderr
    r = run(["snoop", "--help"])
    assert r.returncode == 0 and "examples:" in r.stdout


def test_snoop_requests_in_flight_at_attach(iolens, loop, tracer):
    """Attaching under load: requests whose issue was not seen (in flight
    before the hooks were attached) complete with their start and issue
    shown as unknown, never guessed.

    Whether a request is in flight as the hooks attach is a race the test
    can only make likely: on this fast device even fio at iodepth 16
    leaves the queue empty now and then (4 KiB reads: a third of the
    time, and one attach in ten saw no such request).  Reads of 512 KiB
    (the largest the loop device takes whole) keep it nearly full, and
    the tracer attaches up to three times, each run checked in full."""
    fio = subprocess.Popen(
        ["fio", "--name=busy", "--filename=" + loop.dev, "--rw=randread",
         "--bs=512k", "--direct=1", "--ioengine=libaio", "--iodepth=16",
         "--runtime=10", "--time_based", "--output-format=json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(1)
        for _ in range(3):
            t = tracer(["snoop", "-j", "-d", loop.name])
            time.sleep(0.5)
            recs, summary = json_lines(t.stop())
            early = check_attached_under_load(recs, summary)
            if early:
                break
    finally:
        fio.terminate()
        fio.wait()
    assert early, "no request was in flight at any of 3 attaches under iodepth 16?"


def check_attached_under_load(recs, summary):
    """The requests in flight at attach, each shown with what was not seen
    unknown; every other request complete and plausible."""
    assert summary["lost"] == 0
    early = [r for r in recs if r["ctx"] == "none"]
    for r in early:
        assert r["pid"] is None and r["comm"] is None
        assert r["queue_ns"] is None and r["device_ns"] is None
        assert r["total_ns"] is None and r["qd"] is None
        assert r["bytes"] == 512 << 10
    for r in recs:
        if r["status"] == "unseen":
            assert r["device_ns"] is None and r["total_ns"] is None
        elif r["ctx"] != "none":
            assert r["comm"] == "fio" and r["device_ns"] > 0
            assert 1 <= r["qd"] <= 16 + summary["unseen"], str(summary)
    return early


def test_snoop_writeback_attributed_to_flusher(iolens, loop, ext4, tracer):
    """Buffered writes reach the disk from the flusher: snoop says so instead
    of charging them to the process that wrote the page cache."""
    wait_idle(loop)
    t = tracer(["snoop", "-j", "-d", loop.name])
    subprocess.run(["dd", "if=/dev/zero", "of=%s/f" % ext4, "bs=64k",
                    "count=32", "status=none"], check=True)
    subprocess.run(["sync"], check=True)
    wait_idle(loop)
    recs, summary = json_lines(t.stop())
    # (ctx "none": a journal write already in flight when snoop attached)
    data = [r for r in recs if r["op"] == "write" and r["ctx"] != "none" and
            not r["comm"].startswith("jbd2/")]
    assert sum(r["bytes"] for r in data) >= 2 << 20
    # dd may read metadata itself, but it writes only the page cache.
    assert all(r["comm"] != "dd" for r in data)
    flushed = [r for r in data if r["comm"].startswith("kworker")]
    assert sum(r["bytes"] for r in flushed) >= 2 << 20
    assert all(r["ctx"] in SUBMIT_CTX for r in flushed)


def cgroup2_mount():
    with open("/proc/self/mounts") as f:
        for line in f:
            dev, mnt, fstype = line.split()[:3]
            if fstype == "cgroup2":
                return mnt
    pytest.skip("no cgroup2 mount")


def test_snoop_cgroup_filter(iolens, loop, tracer):
    """-G matches the submitter's cgroup by path prefix: requests done from
    a cgroup this test makes are shown under it, and under no other."""
    root = cgroup2_mount()
    name = "iolens-test-%d" % os.getpid()
    path = os.path.join(root, name)
    with open("/proc/self/cgroup") as f:
        home = [line.split(":", 2)[2].strip() for line in f if line.startswith("0::")][0]
    os.mkdir(path)
    try:
        t_in = tracer(["snoop", "-j", "-d", loop.name, "-G", "/" + name])
        t_out = tracer(["snoop", "-j", "-d", loop.name, "-G", "/iolens-no-such-cgroup"])
        with open(os.path.join(path, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))
        try:
            done = do_workload(loop, WORKLOAD[:3])
        finally:
            with open(os.path.join(root, home.lstrip("/"), "cgroup.procs"), "w") as f:
                f.write(str(os.getpid()))
        wait_idle(loop)
        recs = json_lines(t_in.stop())[0]
        assert len(recs) == len(done)
        assert all(r["cgroup"] == "/" + name for r in recs)
        assert json_lines(t_out.stop())[0] == []
    finally:
        os.rmdir(path)
    assert run(["snoop", "-G", "relative"]).returncode == 2


def test_cli_basics(iolens):
    r = run(["--version"])
    assert r.returncode == 0 and r.stdout.startswith("iolens ")
    r = run(["--help"])
    assert r.returncode == 0
    for cmd in ("snoop", "record", "report", "doctor"):
        assert cmd in r.stdout
        h = run([cmd, "--help"])
        assert h.returncode == 0 and "examples:" in h.stdout, cmd
    r = run(["frobnicate"])
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert run([]).returncode == 2


def test_snoop_and_record_stacks_tell_journal_from_direct_reads(iolens, loop, ext4, tracer,
                                                                 tmp_path):
    """snoop --stacks and record --stacks on ext4 (data=ordered): a file
    written and fsync()ed, then 16 direct reads of it.  Each request's
    submitting kernel stack tells the fsync's writeback, the jbd2 journal
    commit and the direct reads apart (as lat --by stack does), no stack two
    of them; the direct reads are exactly the 16 diskstats counted, and a
    request has no stack only if it was not seen before its completion
    (then "not seen submitting") or its stack was not kept.  The trace file
    holds the same stacks: report -f json and -f csv (folded, outermost
    first) show them for the same requests, named where they were taken."""
    trace = str(tmp_path / "s.iol")
    wait_idle(loop)
    # record's window holds snoop's; ext4's lazy init thread may read
    # bitmaps in the background, also while they start and stop.
    rec = tracer(["record", "--stacks", "-o", trace, "-d", loop.name])
    before = loop.diskstats()
    snoop = tracer(["snoop", "-j", "--stacks", "-d", loop.name])
    d0, d1, d2 = fsync_then_direct_reads(loop, ext4)
    lines, _ = json_lines(snoop.stop())
    d3 = loop.diskstats()
    rec.stop()
    counts = {c: 0 for c in EXT4_SUBMITTERS}
    for r in lines:
        names = frames_of(r)
        seen = [c for c, fn in EXT4_SUBMITTERS.items() if fn in names]
        assert len(seen) <= 1, names
        for c in seen:
            counts[c] += 1
        # (an fsync may read metadata it writes back)
        assert r["op"] == "read" or "direct" not in seen, r
    assert d2["r_ios"] - d1["r_ios"] == 16
    assert counts["direct"] == 16 and counts["fsync"] >= 1 and counts["journal"] >= 1, counts
    reads = sum(r["op"] == "read" for r in lines)
    assert d2["r_ios"] - d0["r_ios"] <= reads <= d3["r_ios"] - before["r_ios"], \
        ([(r["comm"], r["flags"], frames_of(r)[-6:]) for r in lines if r["op"] == "read"],
         d0, d2, d3)
    # Every line diskstats counts, and the requests inside flush sequences,
    # which it does not.
    assert len(lines) >= sum(d2[k] - d0[k] for k in ("r_ios", "w_ios", "f_ios"))
    # A stack wherever the request was seen before its completion: where
    # it started, or where it was inserted or issued (ctx says which; the
    # flushes the block layer makes have no start).
    for r in lines:
        if r["ctx"] == "none":
            assert r["stack"] is None and r["stack_unknown"] == "not seen submitting", r
        else:
            assert r["stack"] or r["stack_unknown"] == "not kept", r

    def key(r):
        return (r["ts_start"], r["sector"], r["op"])

    p = run(["report", "-f", "json", "--stacks", trace])
    assert p.returncode == 0, p.stderr
    recs, _ = json_lines(p.stdout)
    recorded = {key(r): r["stack"] for r in recs}
    assert all(recorded[key(r)] == r["stack"] for r in lines)
    p = run(["report", "-f", "csv", "--stacks", trace])
    assert p.returncode == 0, p.stderr
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    assert len(rows) == len(recs)
    for row, r in zip(rows, recs):
        assert row["stack"] == ";".join(reversed(r["stack"] or [])), (row, r)
    # The HTML page sums the requests by stack: the direct reads' is 16.
    html, data = html_report(trace, str(tmp_path / "s.html"))
    assert "<h2>Submitting stacks</h2>" in html
    assert sum(s["requests"] for s in data["stacks"]) == len(recs) and \
        data["stacks_others"] == 0
    assert sum(s["requests"] for s in data["stacks"] if "iomap_dio_rw" in frames_of(s)) == 16


def test_stacks_usage(iolens, tmp_path):
    """report --stacks needs a trace made with them, and a line format."""
    old = str(tmp_path / "v2.iol")
    synthetic_trace(old, 10)
    for args, what in ((["--stacks", old], "recorded without --stacks"),
                       (["-f", "html", "-o", str(tmp_path / "x.html"), "--stacks", old],
                        "--stacks is for -f text, csv and json")):
        p = run(["report"] + args)
        assert p.returncode == 2 and what in p.stderr, p.stderr
        assert len(p.stderr.strip().splitlines()) == 1
    # The version 2 file itself still reads.
    assert run(["report", old]).returncode == 0
