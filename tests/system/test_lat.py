# SPDX-License-Identifier: GPL-2.0
"""iolens lat against exact values: percentiles computed from every request
`iolens record` wrote during the same run, and per-process and per-flag
splits against who really did the I/O."""
import json
import os
import signal
import subprocess

import pytest

from helpers import (EXT4_SUBMITTERS, IO_START, PCTS, DirectIO, assert_pct_near, exact_pct,
                     frames_of, fsync_then_direct_reads, json_lines, lat_reports, line_of,
                     my_comm, run, wait_idle)


def fio(dev, *args):
    r = subprocess.run(["fio", "--name=t", "--filename=" + dev, "--direct=1",
                        "--output-format=json"] + list(args),
                       check=True, capture_output=True, text=True)
    return json.loads(r.stdout)


def test_lat_percentiles_match_record(iolens, loop, tracer, tmp_path):
    """Total latency, device time and size from the in-kernel histograms
    are within 1% of the exact percentiles of the same requests recorded
    one by one; the counts are equal."""
    path = str(tmp_path / "t.iol")
    rec = tracer(["record", "-o", path, "-d", loop.name])
    lat = tracer(["lat", "-j", "-Q", "-S", "--own-clock", "-d", loop.name])
    # 64 KiB at depth 16: latencies of tens to hundreds of us, so that the
    # two tracers reading the clock one after the other at each tracepoint
    # (a few hundred ns apart) stays far below 1%.
    fio(loop.dev, "--rw=randrw", "--bs=64k", "--ioengine=io_uring",
        "--iodepth=16", "--size=32M", "--io_size=96M")
    wait_idle(loop)
    (rep,) = lat_reports(lat)
    rec.stop()
    r = run(["report", "-f", "json", path])
    assert r.returncode == 0, r.stderr
    recs, summary = json_lines(r.stdout)
    # Which side missed what, if the counts below differ (issue 47: once in
    # three runs on another host, record lacked 247 completions that lat
    # counted): the record's closing totals, and its requests without one.
    unended = sum(1 for x in recs if not x["ts_complete"])
    why = (summary, unended, rep.get("lost"), rep.get("missed"))
    recs = [x for x in recs if x["ts_complete"]]
    assert len(recs) > 1000
    exact = {
        "total": [x["ts_complete"] - x["ts_start"] for x in recs if x["ts_start"]],
        "device": [x["ts_complete"] - x["ts_issue"] for x in recs if x["ts_issue"]],
        "size": [x["bytes"] for x in recs],
    }
    hists = {h["kind"]: h for h in rep["histograms"]}
    assert rep["issue_stamps_missing"] == 0
    for kind, values in exact.items():
        h = hists[kind]
        assert h["count"] == len(values), (kind, h["count"], len(values), why)
        assert sum(b["count"] for b in h["buckets"]) == h["count"]
        assert sum(b["count"] for b in h["log2"]) == h["count"]
        for name, p in PCTS.items():
            if kind == "size":  # bucket bounds: every 4 KiB multiple
                assert h[name] == exact_pct(values, p), (kind, name, h[name])
            else:
                assert_pct_near(values, p, h[name], (kind, name))
    # Queue time is a few us here, where the clock offset of the two
    # tracers is not small: the same requests, and ordered percentiles.
    q = hists["queue"]
    assert q["count"] == len(exact["total"])
    assert q["p50"] <= q["p90"] <= q["p99"] <= q["p99.9"] <= q["max"]


@pytest.mark.fast
def test_lat_splits_by_process_and_flags(iolens, loop, tracer):
    """-P names the process that submitted the I/O with its exact request
    count; -F tells reads from writes with their flags."""
    lat = tracer(["lat", "-j", "-P", "-F", "-S", "-d", loop.name])
    d0 = loop.diskstats()
    io = DirectIO(loop.dev)
    for i in range(30):
        io.read(i * 8192, 4096)
    for i in range(20):
        io.write((1 << 20) + i * 65536, 8192)
    io.close()
    out = fio(loop.dev, "--rw=randread", "--bs=16k", "--ioengine=psync",
              "--size=8M", "--io_size=4M")
    wait_idle(loop)
    d1 = loop.diskstats()
    (rep,) = lat_reports(lat)
    me, fio_pid = os.getpid(), None
    sizes = {}
    for h in rep["histograms"]:
        assert h["kind"] == "size"
        sizes.setdefault((h["pid"], h["op"]), []).append(h)
        if h["comm"] == "fio":
            fio_pid = h["pid"]
    fio_ios = out["jobs"][0]["read"]["total_ios"]
    assert fio_ios == 256 == d1["r_ios"] - d0["r_ios"] - 30
    if not IO_START:
        # Before Linux 6.5 the submitter is the task seen at issue: the
        # process, or a kworker that issued for it.  Every request is
        # still counted once.
        total = {op: sum(h["count"] for (pid, o), hs in sizes.items()
                         for h in hs if o == op) for op in ("read", "write")}
        assert total == {"read": 30 + fio_ios, "write": 20}, sizes.keys()
        assert all(h["comm"] in (my_comm(), "fio") or h["comm"].startswith("kworker")
                   for hs in sizes.values() for h in hs), sizes
        return
    mine = {op: sum(h["count"] for h in sizes.get((me, op), [])) for op in ("read", "write")}
    assert mine == {"read": 30, "write": 20}, sizes.keys()
    (w,) = sizes[(me, "write")]
    assert w["comm"] == my_comm()
    assert w["buckets"] == [{"from": 8192, "to": 8192 + 128, "count": 20}]
    assert "sync" in w["flags"].split(",")
    fio_reads = sum(h["count"] for h in sizes[(fio_pid, "read")])
    assert fio_reads == fio_ios


def test_lat_intervals_and_text(iolens, loop, tracer):
    """Text output: log2 rows whose counts add up, and the percentile line;
    INTERVAL COUNT reports COUNT times and exits."""
    io = DirectIO(loop.dev)
    r = subprocess.Popen([iolens, "lat", "-D", "--fine", "-d", loop.name, "0.5", "2"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert "Tracing block requests" in line_of(r)
        for i in range(100):
            io.read(i * 4096, 4096)
        out, err = r.communicate(timeout=10)
    finally:
        io.close()
        if r.poll() is None:
            r.kill()
    assert r.returncode == 0, err
    assert out.count("--- ") == 2
    rows = [l for l in out.splitlines() if l.rstrip().endswith("|")]
    assert sum(int(l.split(":")[1].split()[0]) for l in rows) == 100
    assert "%s: device time (issue to completion)" % loop.name in out
    assert "p50 " in out and "p99.9 " in out and "max " in out
    assert "fine bucket" in out


@pytest.mark.fast
def test_lat_usage_errors(iolens):
    for args, what in ((["-d", "nosuchdev"], "nosuchdev"),
                       (["0"], "interval"), (["-1"], "interval"),
                       (["1", "x"], "count"), (["--bogus"], "bogus")):
        r = run(["lat"] + args)
        assert r.returncode == 2, (args, r)
        lines = r.stderr.splitlines()
        assert len(lines) == 1 and what in lines[0], (args, r.stderr)


def test_lat_by_stack_tells_journal_from_direct_reads(iolens, loop, ext4, tracer):
    """lat --by stack on ext4 (data=ordered): a file written and fsync()ed,
    then read back with 16 direct reads.  The kernel stacks that submitted
    the requests tell the three apart: the fsync's own writeback
    (ext4_sync_file), the journal commit of the jbd2 thread
    (jbd2_journal_commit_transaction) and the direct reads (iomap_dio_rw),
    no stack two of them.  The direct reads' stacks hold exactly the 16
    reads diskstats counted, every request is in some stack, and the
    flushes the block layer made are the ones said not seen submitting.
    Before Linux 6.5 the stack is the one that issued the request: these
    three issue their own (each unplugs its own plug)."""
    wait_idle(loop)
    lat = tracer(["lat", "-j", "--by", "stack", "-d", loop.name])
    d0, d1, d2 = fsync_then_direct_reads(loop, ext4)
    (rep,) = lat_reports(lat)
    counts = {c: 0 for c in EXT4_SUBMITTERS}
    for h in rep["histograms"]:
        assert h["kind"] == "device"
        names = frames_of(h)
        seen = [c for c, fn in EXT4_SUBMITTERS.items() if fn in names]
        assert len(seen) <= 1, names
        for c in seen:
            counts[c] += h["count"]
    assert d2["r_ios"] - d1["r_ios"] == 16
    assert counts["direct"] == 16, rep["histograms"]
    assert counts["fsync"] >= 1 and counts["journal"] >= 1, counts
    ios = sum(d2[k] - d0[k] for k in ("r_ios", "w_ios", "f_ios"))
    assert sum(h["count"] for h in rep["histograms"]) == ios, rep["histograms"]
    # The flushes the block layer made for the journal's preflush have no
    # submitter: from Linux 6.5 they are the ones not seen submitting.
    # (Before, the stack is taken at issue, which they have.)
    unseen = sum(h["count"] for h in rep["histograms"]
                 if h["stack"] is None and h["stack_unknown"] == "not seen submitting")
    if IO_START:
        assert unseen == d2["f_ios"] - d0["f_ios"] > 0, rep["histograms"]
