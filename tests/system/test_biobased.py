# SPDX-License-Identifier: GPL-2.0
"""Bio-based devices (zram here; dm, md and NVMe multipath heads alike):
their I/O never becomes a request, so no block_rq_* event sees it.  iolens
counts them as the kernel does and times their bios."""
import json
import signal
import subprocess
import time

import pytest

from helpers import (PCTS, Stat, TraceInstance, assert_counts_equal, assert_pct_near,
                     lat_reports, line_of, stat_counts, totals, value, wait_idle)


def fio(dev, *args):
    subprocess.run(["fio", "--name=t", "--filename=" + dev, "--direct=1",
                    "--ioengine=psync", "--output-format=terse"] + list(args),
                   check=True, capture_output=True)


def bio_latencies(events, ns_per_cycle):
    """Exact latencies (ns) and sizes (bytes) of the bios in `events`
    (block_bio_queue / block_bio_complete with clock x86-tsc), paired by
    direction and sector: fio's psync keeps one bio in flight."""
    queued, lat, size = {}, [], []
    for ts, ev, rwbs, sector, n in events:
        key = (rwbs[0], sector)
        if ev == "block_bio_queue":
            queued[key] = (ts, n)
        elif ev == "block_bio_complete" and key in queued:
            t0, n0 = queued.pop(key)
            lat.append((ts - t0) * ns_per_cycle)
            size.append(n0 * 512)
    return lat, size


def test_zram_counts_equal_diskstats_and_bios_are_timed(iolens, zram, tracer):
    """fio reads and writes on zram: stat's requests and bytes equal the
    diskstats deltas exactly, said to come from bios; lat's latency
    percentiles are within 1% of the exact ones of a tracefs bio trace
    (cycle stamps; a rank either side), and its sizes and counts equal it."""
    trace = TraceInstance(zram, events=("block_bio_queue", "block_bio_complete"),
                          clock="x86-tsc")
    try:
        first = trace.marker()
        st = Stat(iolens, ["-d", zram.name])
        lat = tracer(["lat", "-j", "-S", "-Q", "-d", zram.name])
        try:
            d0 = zram.diskstats()
            # 1 MiB of half-compressible data: tens to hundreds of us a bio
            # (compression on write, decompression on read).
            fio(zram.dev, "--rw=randrw", "--bs=1M", "--size=128M", "--io_size=192M",
                "--buffer_compress_percentage=50", "--refill_buffers")
            d1, reps = st.stop_when_idle(zram)
        finally:
            st.kill()
        (rep,) = lat_reports(lat)
        last = trace.marker()
        assert trace.overruns() == 0
        events = trace.read_timed()
        ns_per_cycle = trace.ns_per_cycle(first, last)
    finally:
        trace.close()
    t, missed, _, _ = totals(reps, zram.name)
    assert missed == 0
    assert_counts_equal(zram.name, d0, d1, stat_counts(t))
    assert d1["r_ios"] - d0["r_ios"] > 50 and d1["w_ios"] - d0["w_ios"] > 50, (d0, d1)
    devs = [d for r in reps for d in r["devices"] if d["disk_device"] == zram.name]
    assert devs and all(d["source"] == "bios" for d in devs), devs
    lats, sizes = bio_latencies(events, ns_per_cycle)
    assert len(lats) == t["read"]["ios"] + t["write"]["ios"]
    hists = {h["kind"]: h for h in rep["histograms"]}
    # No request queue: a bio's whole time is its device's.
    for kind, values in (("total", lats), ("device", lats), ("size", sizes)):
        h = hists[kind]
        assert h["count"] == len(values), (kind, h["count"], len(values))
        for name, p in PCTS.items():
            assert_pct_near(values, p, h[name], (kind, name))


def test_zram_in_top_and_serve(iolens, zram, serve):
    """top's device table and serve's metrics list a bio-based device with
    the kernel's counts: writes and bytes equal the diskstats deltas, and
    io_time its io_ticks."""
    wait_idle(zram)
    d0 = zram.diskstats()
    s = serve(["-d", zram.name])
    top = subprocess.Popen([iolens, "top", "-j", "-d", "1"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    try:
        frames = [json.loads(line_of(top, top.stdout))]
        fio(zram.dev, "--rw=write", "--bs=64k", "--size=32M")
        wait_idle(zram)
        d1 = zram.diskstats()
        # Frames until one after the writes shows the device idle.
        busy = False
        while True:
            frames.append(json.loads(line_of(top, top.stdout)))
            w = [d["w/s"] for d in frames[-1]["devices"] if d["disk_device"] == zram.name]
            if busy and w == [0]:
                break
            busy = busy or bool(w and w[0])
    finally:
        top.kill()
        top.wait()
    _, _, body = s.get()
    assert value(body, "iolens_requests_total", device=zram.name, op="write") == \
        d1["w_ios"] - d0["w_ios"] == 512
    assert value(body, "iolens_bytes_total", device=zram.name, op="write") == 32 << 20
    assert abs(value(body, "iolens_io_time_seconds_total", device=zram.name) -
               (d1["io_ticks"] - d0["io_ticks"]) / 1000) < 0.0005
    devs = [d for f in frames for d in f["devices"] if d["disk_device"] == zram.name]
    assert devs and all(d["source"] == "bios" and d["busy"] is None for d in devs), devs
    assert abs(sum(d["w/s"] * f["seconds"] for f in frames for d in f["devices"]
                   if d["disk_device"] == zram.name) - 512) < 0.5


@pytest.mark.fast
def test_snoop_says_a_bio_based_device_has_no_requests(iolens, zram):
    """snoop traces requests: asked for a bio-based device it says that
    none of its I/O will show, and where to look, then runs."""
    p = subprocess.Popen([iolens, "snoop", "-d", zram.name], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        first = line_of(p)
        assert "%s is bio-based" % zram.name in first and \
            "'iolens stat -d %s'" % zram.name in first, first
        assert line_of(p).startswith("Tracing block requests")
        p.send_signal(signal.SIGINT)
        p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 0
