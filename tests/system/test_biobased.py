# SPDX-License-Identifier: GPL-2.0
"""Bio-based devices (zram here; dm, md and NVMe multipath heads alike):
their I/O never becomes a request, so no block_rq_* event sees it.  iolens
counts them as the kernel does and times their bios."""
import json
import subprocess

from conftest import TraceInstance, run, wait_idle
from test_lat import PCTS, exact_pct, lat_reports
from test_stat import Stat, totals


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
    (cycle stamps), and its sizes and counts equal it."""
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
    for op, p in (("read", "r"), ("write", "w")):
        assert t[op]["ios"] == d1[p + "_ios"] - d0[p + "_ios"] > 50, (op, t, d0, d1)
        assert t[op]["bytes"] == (d1[p + "_sectors"] - d0[p + "_sectors"]) * 512
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
            want = exact_pct(values, p)
            assert abs(h[name] - want) <= 0.01 * want, (kind, name, h[name], want)


def test_zram_in_top_and_serve(iolens, zram):
    """top's device table and serve's metrics list a bio-based device with
    the kernel's counts."""
    d0 = zram.diskstats()
    fio(zram.dev, "--rw=write", "--bs=64k", "--size=8M")
    wait_idle(zram)
    d1 = zram.diskstats()
    assert d1["w_ios"] > d0["w_ios"]
    r = run(["top", "-b", "-j", "-d", "0.2", "-n", "1"])
    assert r.returncode == 0, r.stderr
    json.loads(r.stdout.splitlines()[-1])
