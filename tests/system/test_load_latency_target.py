# SPDX-License-Identifier: GPL-2.0
"""fio's latency_target under iolens load: the job searches for the deepest
queue whose I/Os meet the target, window by window, and ends after a final
window at the depth found, reporting it as fio does (latency_depth).  The
depths are checked against fio's on a job whose I/Os always meet the
target, and against the block layer's own count of requests in flight on
a loop device, window by window."""
import json
import os

import pytest

from helpers import IOLENS, Loop, TraceInstance, run_in

NULL = ["--ioengine=null", "--size=1g", "--time_based", "--runtime=20"]


def run(tool, args, where):
    p = run_in([tool] + (["load"] if tool == IOLENS else []) + ["--output-format=json"] + args,
               where, timeout=60)
    return p, (json.loads(p.stdout)["jobs"] if p.returncode == 0 else None)


def test_a_target_always_met_finds_the_full_depth(iolens, tmp_path):
    """Every I/O of the null engine takes microseconds: the depth doubles
    1, 2, .. 32 a window (100 ms) each, the last window at 32 changes
    nothing, the final one is the report's: 100 ms at depth 32, as fio's."""
    args = ["--name=n", "--iodepth=32", "--latency_target=1s", "--latency_window=100ms"] + NULL
    (p, ours), (q, theirs) = run(IOLENS, args, tmp_path), run("fio", args, tmp_path)
    assert p.returncode == q.returncode == 0, (p.stderr, q.stderr)
    for j in (ours[0], theirs[0]):
        assert j["latency_depth"] == 32
        assert j["latency_target"] == 1000000000 and j["latency_window"] == 100000
        assert j["latency_percentile"] == 100.0
        assert 100 <= j["job_runtime"] <= 150, j["job_runtime"]
    text = run_in([IOLENS, "load"] + args, tmp_path).stdout
    assert "     latency   : target=1000000000, window=100000, percentile=100.00%, depth=32\n" in text


def test_no_depth_meets_it(iolens, tmp_path):
    """A target no I/O meets: at depth 1 the first I/O over it ends the job
    in error, as fio's (exit 1, one line); with a percentile below 100 the
    job stays at depth 1 for its time instead."""
    args = ["--name=n", "--iodepth=8", "--latency_target=1ns"] + NULL
    (p, _), (q, _) = run(IOLENS, args, tmp_path), run("fio", args, tmp_path)
    assert p.returncode == q.returncode == 1
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "over latency_target (1 ns): no depth meets it" in lines[0], lines
    p, ours = run(IOLENS, ["--name=n", "--iodepth=8", "--latency_target=1ns",
                           "--latency_percentile=50", "--latency_window=100ms",
                           "--ioengine=null", "--size=1g", "--time_based", "--runtime=1"], tmp_path)
    assert p.returncode == 0, p.stderr
    assert ours[0]["latency_depth"] == 1 and 950 <= ours[0]["job_runtime"] <= 1100


def in_flight_most(events, start, end):
    """The most requests the block layer had in flight in [start, end)."""
    n = most = 0
    for stamp, ev, _, _, _ in events:
        n += 1 if ev == "block_rq_issue" else -1
        if start <= stamp < end:
            most = max(most, n)
    return most


def test_each_window_keeps_to_its_depth(iolens, root, tmp_path):
    """On a loop device, a target always met (1 s): the depth doubles 1, 2,
    4, 8, 16 a window (100 ms) each, as the block layer's own count of
    requests in flight shows window by window (more than half the depth
    and never more), then a final window at 16, the report's."""
    lo = Loop(size_mb=64)
    trace = TraceInstance(lo, events=("block_rq_issue", "block_rq_complete"), buffer_kb=32768)
    try:
        p, ours = run(IOLENS, ["--name=l", "--filename=" + lo.dev, "--direct=1",
                               "--rw=randread", "--ioengine=libaio", "--iodepth=16",
                               "--latency_target=1s", "--latency_window=100ms",
                               "--time_based", "--runtime=20"], tmp_path)
        events = trace.read_timed()
        assert trace.overruns() == 0
    finally:
        trace.close()
        lo.close()
    assert p.returncode == 0, p.stderr
    j = ours[0]
    assert j["latency_depth"] == 16 and 100 <= j["job_runtime"] < 150, j["job_runtime"]
    t0 = events[0][0]
    for k, depth in enumerate([1, 2, 4, 8, 16, 16]):
        most = in_flight_most(events, t0 + k * 0.1 + 0.01, t0 + (k + 1) * 0.1 - 0.01)
        assert depth // 2 < most <= depth, (k, most, depth)
