# SPDX-License-Identifier: GPL-2.0
"""-d names a partition in every command that takes -d: stat, lat, snoop
and record see exactly its I/O, counted as the kernel counts it for the
partition (/proc/diskstats has a line per partition)."""
import pytest

from helpers import (DirectIO, Stat, assert_counts_equal, diskstats, json_lines, lat_reports, run,
                     stat_counts, totals, wait_idle)

# The partition holds disk sectors 2048-34815 (conftest's fixture).

def workload(loop, part):
    """O_DIRECT I/O through the partition, and through the disk outside
    it: diskstats counts I/O for the block device it was submitted to."""
    io = DirectIO(part)
    for i in range(20):
        io.write(i * 8192, 4096)
    for i in range(12):
        io.read(i * 65536, 16384)
    io.close()
    io = DirectIO(loop.dev)
    for i in range(7):
        io.write((32 << 20) + i * 8192, 4096)  # after the partition
    io.read(0, 4096)				# before it
    io.close()


def test_stat_partition_and_disk(iolens, loop, partition):
    """stat -d PART shows that partition alone with its diskstats deltas;
    -d DISK -p shows the disk (its partitions' I/O included) and the
    partition, each equal to its own line of /proc/diskstats."""
    part = partition.split("/")[-1]
    only = Stat(iolens, ["-d", part])
    both = Stat(iolens, ["-d", loop.name, "-p"])
    try:
        p0, d0 = diskstats(part), loop.diskstats()
        workload(loop, partition)
        wait_idle(loop)
        p1, d1 = diskstats(part), loop.diskstats()
        _, reps_only = only.stop_when_idle(loop)
        _, reps_both = both.stop_when_idle(loop)
    finally:
        only.kill()
        both.kill()
    assert {d["disk_device"] for r in reps_only for d in r["devices"]} == {part}
    assert {d["disk_device"] for r in reps_both for d in r["devices"]} == {loop.name, part}
    for reps, name, a, b in ((reps_only, part, p0, p1), (reps_both, part, p0, p1),
                             (reps_both, loop.name, d0, d1)):
        t, missed, _, _ = totals(reps, name)
        assert missed == 0
        assert_counts_equal(name, a, b, stat_counts(t))
    assert p1["w_ios"] - p0["w_ios"] == 20 and p1["r_ios"] - p0["r_ios"] == 12
    assert d1["w_ios"] - d0["w_ios"] == 27 and d1["r_ios"] - d0["r_ios"] == 13
    # A partition shares its disk's queue: no busy time of its own; its
    # %util is its own io_ticks.
    assert all(d["busy"] is None for r in reps_both for d in r["devices"]
               if d["disk_device"] == part)


@pytest.mark.fast
def test_lat_snoop_record_of_a_partition(iolens, loop, partition, tracer, tmp_path):
    """lat, snoop and record with -d PART: the partition's requests only,
    every one of them."""
    part = partition.split("/")[-1]
    lat = tracer(["lat", "-j", "-S", "-d", part])
    snoop = tracer(["snoop", "-j", "-d", part])
    path = str(tmp_path / "p.iol")
    rec = tracer(["record", "-o", path, "-d", part])
    workload(loop, partition)
    wait_idle(loop)
    (rep,) = lat_reports(lat)
    recs, summary = json_lines(snoop.stop())
    rec.stop()
    (size,) = [h for h in rep["histograms"] if h["kind"] == "size"]
    assert size["disk"] == part and size["count"] == 32
    assert summary["requests"] == len(recs) == 32
    lo, hi = 2048, 2048 + 32768
    assert all(lo <= r["sector"] < hi for r in recs), recs
    assert sorted(r["bytes"] for r in recs) == [4096] * 20 + [16384] * 12
    r = run(["report", "-f", "json", path])
    assert r.returncode == 0, r.stderr
    assert len(json_lines(r.stdout)[0]) == 32
    r = run(["report", "-f", "json", "-d", part, path])
    assert r.returncode == 0, r.stderr
    assert len(json_lines(r.stdout)[0]) == 32
