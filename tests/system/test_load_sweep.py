# SPDX-License-Identifier: GPL-2.0
"""iolens load --sweep=iodepth|zones on a loop device: the steps are what
the help says (powers of two, evenly spaced zones), their I/O adds up to
what the device saw (/proc/diskstats, tracefs), the stop rule and the best
depth are what the JSON's own figures give, and writes are checked as in
any run."""
import json
import subprocess

from helpers import TraceInstance, digest, run, wait_idle


def sweep(args):
    p = run(["load"] + args + ["--output-format=json"])
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def delta(loop, before, d="r"):
    # The last request's bios end before blk_account_io_done() counts it.
    wait_idle(loop)
    after = loop.diskstats()
    # Adjacent requests may merge: requests + merges are the I/Os sent.
    ios = (after[d + "_ios"] - before[d + "_ios"] +
           after[d + "_merges"] - before[d + "_merges"])
    return ios, (after[d + "_sectors"] - before[d + "_sectors"]) * 512


def check_depths(doc, cap):
    steps = doc["steps"]
    depths = [s["iodepth"] for s in steps]
    assert depths == [1 << i for i in range(len(depths))]
    assert depths[-1] <= cap
    for s in steps:
        assert s["ios"] > 0 and s["io_bytes"] == s["ios"] * doc["bs"]
        assert abs(s["iops"] - s["ios"] * 1e9 / s["runtime_ns"]) < 0.01
        assert 0 < s["clat_p90_ns"] <= s["clat_p99_ns"]
    # The stop rule, replayed on the reported IOPS.
    best, no_gain, stop = 0.0, 0, None
    for i, s in enumerate(steps):
        no_gain = no_gain + 1 if s["iops"] < 1.05 * best else 0
        best = max(best, s["iops"])
        if no_gain == 2 or s["iodepth"] * 2 > cap:
            stop = i
            break
    assert stop == len(steps) - 1
    # drvperf's rank, recomputed: T and L over their maxima in the sweep.
    max_iops = max(s["iops"] for s in steps)
    max_inv = max(1.0 / s["clat_p90_ns"] for s in steps)
    ranks = []
    for s in steps:
        t = s["iops"] / max_iops
        lat = (1.0 / s["clat_p90_ns"]) / max_inv
        ranks.append(t * lat / (0.2 * t + 0.8 * lat))
        assert abs(ranks[-1] - s["rank"]) < 1e-5
    assert doc["best_iodepth"] == depths[ranks.index(max(ranks))]


def test_iodepth_sweep_counts_and_rank(iolens, loop):
    wait_idle(loop)
    before = loop.diskstats()
    doc = sweep(["--filename=" + loop.dev, "--sweep=iodepth", "--runtime=200ms"])
    ios, nbytes = delta(loop, before)
    assert doc["sweep"] == "iodepth" and doc["rw"] == "randread"
    assert doc["ioengine"] == "io_uring" and doc["direct"] == 1
    assert doc["step_runtime_ns"] == 200000000
    check_depths(doc, 256)
    assert ios == sum(s["ios"] for s in doc["steps"])
    assert nbytes == sum(s["io_bytes"] for s in doc["steps"])
    assert delta(loop, before, "w") == (0, 0)


def test_iodepth_sweep_capped_by_iodepth_libaio(iolens, loop):
    wait_idle(loop)
    before = loop.diskstats()
    doc = sweep(["--filename=" + loop.dev, "--sweep=iodepth", "--runtime=100ms",
                 "--iodepth=4", "--ioengine=libaio", "--bs=8k"])
    check_depths(doc, 4)
    assert doc["ioengine"] == "libaio" and doc["bs"] == 8192
    assert delta(loop, before) == (sum(s["ios"] for s in doc["steps"]),
                                   sum(s["io_bytes"] for s in doc["steps"]))


def test_iodepth_sweep_text(iolens, loop):
    p = run(["load", "--filename=" + loop.dev, "--sweep=iodepth",
             "--runtime=50ms", "--iodepth=2"])
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].startswith("iodepth sweep of " + loop.dev + ": randread")
    assert lines[1].split() == ["depth", "IOPS", "MB/s", "clat", "p90",
                                "clat", "p99", "rank"]
    assert [l.split()[0] for l in lines[2:4]] == ["1", "2"]
    assert "<- best" in p.stdout and "best depth: " in p.stdout
    assert lines[-1] == "stopped at: the largest depth"


def test_zones_sweep_offsets_and_counts(iolens, loop):
    bs = 64 << 10
    trace = TraceInstance(loop)
    try:
        wait_idle(loop)
        before = loop.diskstats()
        doc = sweep(["--filename=" + loop.dev, "--sweep=zones", "--bs=64k"])
        ios, nbytes = delta(loop, before)
        issues = [e for e in trace.read() if e[0] == "block_rq_issue"]
        assert trace.overruns() == 0
    finally:
        trace.close()
    zones = doc["zones"]
    assert doc["zone_count"] == 16 == len(zones)
    step = loop.size // 16
    for i, z in enumerate(zones):
        assert z["zone"] == i and z["offset"] == i * step
        assert z["length"] == min(8 << 20, step)
        assert z["offset"] + z["length"] <= loop.size
        assert z["ios"] == z["length"] // bs and z["io_bytes"] == z["length"]
        # What the block layer issued inside this zone's probe.
        inside = [e for e in issues
                  if z["offset"] <= e[2] * 512 < z["offset"] + z["length"]]
        assert sum(e[3] for e in inside) * 512 == z["io_bytes"]
        assert all("R" in e[1] for e in inside)
    assert ios == sum(z["ios"] for z in zones)
    assert nbytes == sum(z["io_bytes"] for z in zones)
    assert delta(loop, before, "w") == (0, 0)
    rates = [z["mb_per_s"] for z in zones]
    lo, hi = rates.index(min(rates)), rates.index(max(rates))
    assert doc["min_offset"] == zones[lo]["offset"]
    assert doc["max_offset"] == zones[hi]["offset"]
    assert abs(doc["min_mb_per_s"] - rates[lo]) < 0.01
    assert abs(doc["max_mb_per_s"] - rates[hi]) < 0.01
    assert abs(doc["avg_mb_per_s"] - sum(rates) / len(rates)) < 0.01
    for z in zones:
        assert abs(z["mb_per_s"] - z["io_bytes"] * 1e3 / z["runtime_ns"]) < 0.01


def test_zones_count_and_range(iolens, loop):
    # 5 zones over [1 MiB, 61 MiB): 12 MiB apart, probes of 8 MiB
    wait_idle(loop)
    before = loop.diskstats()
    doc = sweep(["--filename=" + loop.dev, "--sweep=zones:5", "--bs=128k",
                 "--offset=1m", "--size=60m"])
    assert [z["offset"] for z in doc["zones"]] == \
        [(1 << 20) + i * (12 << 20) for i in range(5)]
    assert {z["length"] for z in doc["zones"]} == {8 << 20}
    assert delta(loop, before)[1] == 5 * (8 << 20)
    p = run(["load", "--filename=" + loop.dev, "--sweep=zones"])
    assert p.returncode == 0 and "min " in p.stdout and " at offset " in p.stdout


def test_sweep_writes_only_when_asked_and_checked(iolens, loop):
    subprocess.run(["mkfs.ext4", "-q", "-F", loop.dev], check=True,
                   capture_output=True)
    wait_idle(loop)
    before = digest(loop.backing)
    for what in ("zones", "iodepth"):
        p = run(["load", "--filename=" + loop.dev, "--sweep=" + what,
                 "--rw=write", "--runtime=50ms"])
        assert p.returncode == 2 and p.stdout == ""
        assert "filesystem ext4" in p.stderr
        # reading is allowed and reads only
        p = run(["load", "--filename=" + loop.dev, "--sweep=" + what,
                 "--runtime=50ms", "--iodepth=2"])
        assert p.returncode == 0, p.stderr
    assert digest(loop.backing) == before
    wait_idle(loop)
    stats = loop.diskstats()
    doc = sweep(["--filename=" + loop.dev, "--sweep=zones:4", "--rw=write",
                 "--bs=64k", "--allow-destroy"])
    assert doc["rw"] == "write"
    assert delta(loop, stats, "w")[1] == sum(z["io_bytes"] for z in doc["zones"])
    assert digest(loop.backing) != before


def test_sweep_refusals(iolens, loop, tmp_path):
    cases = [
        (["--sweep=iodepth", "--ioengine=psync"], "psync"),
        (["--sweep=depth"], "say iodepth or zones"),
        (["--sweep=zones:1"], "N must be"),
        (["--sweep=zones", "--rw=randread"], "randread"),
        (["--sweep=zones", "--numjobs=2"], "one job"),
        (["--sweep=zones", "--size=1m"], "too few"),
    ]
    for args, what in cases:
        p = run(["load", "--filename=" + loop.dev] + args)
        assert p.returncode == 2, (args, p.stderr)
        assert p.stdout == "" and p.stderr.count("\n") == 1, p.stderr
        assert what in p.stderr, (args, p.stderr)
    job = tmp_path / "j.fio"
    job.write_text("[a]\nsweep=iodepth\n")
    p = run(["load", str(job)])
    assert p.returncode == 2 and "only on the command line" in p.stderr
