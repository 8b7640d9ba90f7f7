# SPDX-License-Identifier: GPL-2.0
"""iolens stat against the kernel's own counters (/proc/diskstats) and
against iostat's way of computing aqu-sz and %util from them."""
import gzip
import json
import os
import re
import subprocess
import time

import pytest

from helpers import OPS, Background, DirectIO, Loop, Stat, TraceInstance, line_of, run, totals


def fio(dev, *args):
    """fio with O_DIRECT 4 KiB I/O on `dev`, output discarded."""
    subprocess.run(["fio", "--name=t", "--filename=" + dev, "--bs=4k",
                    "--direct=1", "--output-format=terse"] + list(args),
                   check=True, capture_output=True)


@pytest.mark.fast
def test_stat_counts_equal_diskstats(iolens, loop):
    """Reads, writes, merged sequential writes, a discard and a flush: the
    request, sector and merge counts equal the /proc/diskstats deltas."""
    st = Stat(iolens, ["-d", loop.name])
    try:
        d0 = loop.diskstats()
        io = DirectIO(loop.dev)
        for i in range(40):
            io.read(i * 8192, 4096)
        for i in range(25):
            io.write((1 << 20) + i * 65536, 8192)
        io.close()
        # Sequential 4 KiB writes submitted 16 at a time merge in the plug.
        fio(loop.dev, "--rw=write", "--size=4M", "--offset=8M",
            "--ioengine=io_uring", "--iodepth=16", "--iodepth_batch_submit=16")
        subprocess.run(["blkdiscard", "-o", str(16 << 20), "-l", str(1 << 20),
                        loop.dev], check=True)
        fd = os.open(loop.dev, os.O_WRONLY)
        os.fsync(fd)
        os.close(fd)
        d1, reps = st.stop_when_idle(loop)
    finally:
        st.kill()
    t, missed, _, _ = totals(reps, loop.name)
    delta = {k: d1[k] - d0[k] for k in d0}
    assert delta["w_merges"] > 0, "the workload made no merges: %s" % delta
    assert delta["d_ios"] > 0 and delta["f_ios"] > 0, delta
    short = 0
    for op, p in OPS.items():
        assert t[op]["ios"] <= delta[p + "_ios"], (op, t[op], delta)
        short += delta[p + "_ios"] - t[op]["ios"]
        if op != "flush":
            assert t[op]["merges"] == delta[p + "_merges"], (op, t[op], delta)
    # A completion the kernel did not run our hook for is reported as
    # missed, never silently dropped: what is short is exactly that.
    assert short == missed, (t, delta, missed)
    if not missed:
        for op, p in OPS.items():
            if op != "flush":
                assert t[op]["bytes"] == delta[p + "_sectors"] * 512, (op, t[op], delta)


@pytest.mark.fast
def test_stat_by_hwq_adds_up_to_the_disk(iolens, loop):
    """--by hwq: the loop device's one hardware queue holds every request
    and byte the disk's line counts (reads, writes, a flush), with a depth
    and an await; in text, a line for it under the table."""
    st = Stat(iolens, ["--by", "hwq", "-d", loop.name])
    # Its first report says it is attached (a fixed sleep was too short
    # for a loaded CI machine: the I/O fell before its interval).
    text = Background(["stat", "-y", "--by", "hwq", "-d", loop.name, "0.5"], iolens)
    try:
        text.wait_for("Device")
        io = DirectIO(loop.dev)
        for i in range(30):
            io.read(i * 8192, 4096)
        for i in range(20):
            io.write((1 << 20) + i * 65536, 8192)
        os.fsync(io.fd)
        io.close()
        d1, reps = st.stop_when_idle(loop)
        out = text.stop()
    finally:
        st.kill()
        text.kill()
    disk = {"ios": 0, "bytes": 0}
    q = dict(disk)
    for r in reps:
        assert r["hwq_unknown_events"] == 0
        for d in r["devices"]:
            if d["disk_device"] != loop.name:
                continue
            for k in disk:
                disk[k] += sum(d["ops"][op][k] for op in OPS)
            for h in d["hwq"]:
                assert h["queue"] == 0 and h["qd_avg"] >= 1 and h["await"] > 0, h
                for k in q:
                    q[k] += h[k]
    assert q == disk and disk["ios"] >= 51, (q, disk)
    assert re.search(r"^Device +hwq +r\+w/s .*\n%s +0 " % re.escape(loop.name), out, re.M), out


def jiffy():
    """Seconds per jiffy: 1/CONFIG_HZ, or the longest (HZ=100) unknown."""
    try:
        with gzip.open("/proc/config.gz", "rt") as f:
            for line in f:
                if line.startswith("CONFIG_HZ="):
                    return 1 / int(line.split("=")[1])
    except OSError:
        pass
    return 0.01


def trace_busy(events):
    """Seconds with at least one request at the device, and the number of
    busy periods, from tracefs issue and complete events."""
    inflight = periods = 0
    busy = since = 0.0
    for ts, ev, _, _, _ in sorted(events):
        if ev == "block_rq_issue":
            inflight += 1
            if inflight == 1:
                since = ts
                periods += 1
        elif ev in ("block_rq_complete", "block_rq_requeue") and inflight:
            inflight -= 1
            if inflight == 0:
                busy += ts - since
    return busy, periods


def run_traced(iolens, loop):
    """stat and tracefs over one fio run: (diskstats before, after, stat's
    reports, tracefs events)."""
    trace = TraceInstance(loop, ("block_rq_issue", "block_rq_complete",
                                 "block_rq_requeue"), buffer_kb=16384)
    try:
        st = Stat(iolens, ["-d", loop.name])
        try:
            d0 = loop.diskstats()
            # 1 MiB requests keep the event count within tracefs' buffer.
            fio(loop.dev, "--rw=randread", "--bs=1m", "--ioengine=io_uring",
                "--iodepth=8", "--runtime=2", "--time_based")
            d1, reps = st.stop_when_idle(loop)
        finally:
            st.kill()
        assert trace.overruns() == 0
        return d0, d1, reps, trace.read_timed()
    finally:
        trace.close()


def test_stat_aqu_sz_and_busy(iolens, loop):
    """aqu-sz equals, within 2%, what iostat computes from the
    /proc/diskstats deltas of a fio run.  busy% is the time with a request
    at the device, equal within 1% to what tracefs issue and complete events
    show; %util is the kernel's io_ticks (which also counts queue time and
    rounds every busy period to whole jiffies), an upper bound to it."""
    # A completion whose hook the kernel did not run (see the README) makes
    # busy% unknown in the interval that finds it (and in those before,
    # where the request seemed in flight): checked, then run again for an
    # exact one.
    for attempt in range(3):
        d0, d1, reps, events = run_traced(iolens, loop)
        _, missed, busy, weighted = totals(reps, loop.name)
        devs = [d for r in reps for d in r["devices"] if d["disk_device"] == loop.name]
        for d in devs:
            if d["completions_missed"]:
                assert d["busy"] is None, d
        if not missed:
            break
    assert missed == 0, "a completion was missed in every run"
    assert all(d["busy"] is not None for d in devs), devs
    # iostat: aqu-sz = delta weighted ms / interval ms, %util = delta io_ticks
    # ms / interval ms; over one window both are these times in seconds.
    io_weighted = (d1["weighted_ms"] - d0["weighted_ms"]) / 1000
    io_busy = (d1["io_ticks"] - d0["io_ticks"]) / 1000
    assert io_busy > 0.5, (d0, d1)
    assert abs(weighted - io_weighted) <= 0.02 * io_weighted, (weighted, io_weighted)
    util = sum(d["util"] / 100 * r["seconds"] for r in reps for d in r["devices"]
               if d["disk_device"] == loop.name)
    # %util is io_ticks: read at each report, while diskstats was read once
    # the device was idle: the same ticks.
    assert abs(util - io_busy) <= 0.001, (util, io_busy)
    t_busy, periods = trace_busy(events)
    # tracefs stamps in whole microseconds: up to 1 us off per period.
    assert abs(busy - t_busy) <= 0.01 * t_busy + periods * 1e-6, (busy, t_busy, periods)
    # io_ticks rounds each busy period to whole jiffies, down as well as up.
    assert busy <= io_busy + (periods + 2) * jiffy(), (busy, io_busy, periods)


def test_stat_util_is_iostats(iolens, loop):
    """iostat -x and iolens stat side by side on the same steady load, three
    2-second intervals each, iostat's started at the end of one of ours:
    %util within 0.5 points of iostat's."""
    load = subprocess.Popen(["fio", "--name=t", "--filename=" + loop.dev, "--bs=4k",
                             "--direct=1", "--rw=randread", "--ioengine=psync",
                             "--runtime=12", "--time_based", "--output-format=terse"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ours = io = None
    try:
        ours = subprocess.Popen([iolens, "stat", "-y", "-j", "-d", loop.name, "2", "4"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        first = line_of(ours, ours.stdout)
        io = subprocess.Popen(["iostat", "-y", "-x", "-o", "JSON", "-d", loop.name, "2", "3"],
                              stdout=subprocess.PIPE, text=True)
        rest, err = ours.communicate(timeout=30)
        out, _ = io.communicate(timeout=30)
    finally:
        for p in (load, ours, io):
            if p and p.poll() is None:
                p.kill()
                p.wait()
    assert ours.returncode == 0, err
    theirs = [d["util"] for r in json.loads(out)["sysstat"]["hosts"][0]["statistics"]
              for d in r["disk"]]
    mine = [d["util"] for r in map(json.loads, rest.splitlines())
            for d in r["devices"] if d["disk_device"] == loop.name]
    assert json.loads(first)["devices"] and len(theirs) == len(mine) == 3, (theirs, mine)
    # Busy, not saturated (a slow disk of make test-shake is 96% busy).
    assert 10 < sum(theirs) / 3 < 99, theirs
    assert abs(sum(mine) / 3 - sum(theirs) / 3) <= 0.5, (mine, theirs)


def test_stat_percentiles_and_depth(iolens, loop):
    """Percentiles are ordered and the queue depth at issue never exceeds
    fio's iodepth, with its maximum reached."""
    st = Stat(iolens, ["-d", loop.name])
    try:
        fio(loop.dev, "--rw=randread", "--ioengine=libaio", "--iodepth=4",
            "--runtime=1", "--time_based")
        _, reps = st.stop_when_idle(loop)
    finally:
        st.kill()
    busiest = max((d["ops"]["read"] for r in reps for d in r["devices"]),
                  key=lambda o: o["ios"])
    _, missed, _, _ = totals(reps, loop.name)
    assert busiest["ios"] > 1000
    assert 0 < busiest["p50_ns"] <= busiest["p90_ns"] <= busiest["p99_ns"] <= busiest["max_ns"]
    # A completion the kernel never ran our hook for keeps its request
    # counted in flight until the disk is seen idle (completions_missed).
    assert busiest["qd_max"] <= 4 + missed and busiest["qd_avg"] <= 4 + missed
    assert busiest["queue_avg_ns"] is not None and busiest["device_avg_ns"] > 0


def test_stat_picks_up_a_device_attached_later(iolens, root):
    """A loop device set up while stat runs appears with its I/O."""
    st = Stat(iolens, [], interval="0.3")
    lo = None
    try:
        lo = Loop()
        io = DirectIO(lo.dev)
        for i in range(10):
            io.read(i * 4096, 4096)
        io.close()
        time.sleep(0.8)
        reps = st.stop()
    finally:
        st.kill()
        if lo:
            lo.close()
    t, missed, _, _ = totals(reps, lo.name)
    assert t["read"]["ios"] + missed >= 10


@pytest.mark.fast
def test_stat_since_boot_is_diskstats(iolens, loop):
    """Without an interval: one report since boot, iostat's way."""
    r = run(["stat", "-j", "-d", loop.name])
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["period"] == "boot"
    (dev,) = rep["devices"]
    ds = loop.diskstats()
    assert abs(dev["r/s"] * rep["seconds"] - ds["r_ios"]) <= 0.01 * rep["seconds"] + 1
    assert "ops" not in dev  # iolens's own figures need an interval


@pytest.mark.fast
def test_stat_usage_errors(iolens):
    for args, what in ((["-d", "nosuchdev", "1"], "nosuchdev"),
                       (["0"], "interval"), (["-1"], "interval"),
                       (["1", "x"], "count"), (["1", "0"], "count"),
                       (["--bogus"], "bogus")):
        r = run(["stat"] + args)
        assert r.returncode == 2, (args, r)
        assert r.stdout == ""
        lines = r.stderr.splitlines()
        assert len(lines) == 1 and what in lines[0], (args, r.stderr)
