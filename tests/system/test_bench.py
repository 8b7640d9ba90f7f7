# SPDX-License-Identifier: GPL-2.0
"""iolens bench: the load's own counts beside the requests it caused,
against /proc/diskstats and tracefs; the record-padding experiment scaled
down; write amplification and page-cache hits of buffered I/O."""
import json

import pytest

from helpers import TraceInstance, run, uncached_file, wait_idle


def bench(args):
    p = run(["bench", "-j"] + args)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_bench_direct_reads(loop):
    """Direct random reads: the device requests bench counts for the load
    are the diskstats read delta (nothing else reads the device), and the
    load's I/Os are those requests plus the ones merged into them."""
    d0 = loop.diskstats()
    rep = bench(["--name=r", "--filename=" + loop.dev, "--rw=randread", "--bs=4k",
                 "--direct=1", "--ioengine=io_uring", "--iodepth=16", "--size=16m"])
    # The block layer ends a request's bios (and so the load's I/O) before
    # it counts the request in diskstats (blk_mq_end_request(): bio_endio
    # in blk_update_request(), then blk_account_io_done()): read them once
    # the device is idle, or the last request may not be counted yet.
    wait_idle(loop)
    d1 = loop.diskstats()
    app, dev = rep["read"]["app"], rep["read"]["device"]
    assert rep["lost"] == 0
    assert app["ios"] == 4096 and app["bytes"] == 16 << 20
    # The whole report as text: pytest cuts a dict short in the message.
    assert dev["requests"] == d1["r_ios"] - d0["r_ios"], json.dumps([rep, d0, d1])
    assert dev["requests"] + d1["r_merges"] - d0["r_merges"] == app["ios"]
    assert dev["disk_merges"] == d1["r_merges"] - d0["r_merges"]
    assert dev["bytes"] == app["bytes"] == (d1["r_sectors"] - d0["r_sectors"]) * 512
    assert rep["page_cache_hit_ratio"] is None and rep["write_amplification"] is None
    assert dev["qd_max"] <= 16 and dev["total_ns"]["p50"] >= dev["device_ns"]["p50"]


@pytest.mark.parametrize("record", [4000, 4096])
def test_bench_record_padding(loop, ext4, record):
    """Buffered random writes of records to a file out of the page cache:
    4000-byte records make the page cache read what they cover partly
    (every data read tracefs saw during the run, about one per write),
    4096-byte ones make none."""
    path = str(ext4 / "records")
    size = 2000000 if record == 4000 else 2048000
    uncached_file(path, size)
    trace = TraceInstance(loop)
    try:
        rep = bench(["--name=w", "--filename=" + path, "--rw=randwrite",
                     "--bs=%d" % record, "--size=%d" % size, "--direct=0"])
        events = trace.read()
    finally:
        trace.close()
    writes = rep["write"]["app"]["ios"]
    assert writes == size // record
    reads = [e for e in events if e[0] == "block_rq_issue" and e[1] == "R"]
    if record == 4000:
        assert rep["rmw"]["reads"] == len(reads)
        assert 0.9 * writes <= rep["rmw"]["reads"] <= 1.1 * writes
    else:
        assert rep["rmw"]["reads"] == 0 == len(reads)


def test_bench_write_amplification_and_hits(loop, ext4):
    """Whole-page buffered writes then end_fsync: the pages go to the disk
    from the fsync, in the load's own thread: as many bytes as written.
    Reading the file back while it is cached reads nothing from the disk
    (--invalidate=0: by default the load drops the file's pages first, as
    fio does)."""
    path = str(ext4 / "data")
    size = 2 << 20
    uncached_file(path, size)
    rep = bench(["--name=w", "--filename=" + path, "--rw=randwrite", "--bs=4k",
                 "--size=%d" % size, "--direct=0", "--end_fsync=1"])
    assert rep["rmw"]["reads"] == 0
    assert rep["write"]["app"]["bytes"] == size
    assert rep["write"]["device"]["bytes"] + rep["writeback"]["bytes"] >= size
    assert 1.0 <= rep["write_amplification"] <= 1.01
    trace = TraceInstance(loop)
    try:
        rep = bench(["--name=r", "--filename=" + path, "--rw=read", "--bs=64k",
                     "--size=%d" % size, "--direct=0", "--invalidate=0"])
        events = trace.read()
    finally:
        trace.close()
    assert rep["read"]["app"]["bytes"] == size
    # The kernel may have reclaimed a few of the pages meanwhile: the
    # ratio is what the device read (tracefs), whatever that was.
    reads = [e for e in events if e[0] == "block_rq_issue" and e[1].startswith("R")]
    assert rep["read"]["device"]["requests"] == len(reads)
    read = sum(e[3] * 512 for e in reads)
    assert rep["page_cache_hit_ratio"] == pytest.approx(1 - read / size, abs=1e-4)
    assert rep["page_cache_hit_ratio"] >= 0.9


def test_bench_usage(root):
    for args, what in ((["--sweep=iodepth", "--filename=/dev/null"], "--sweep"),
                       (["--output-format=json", "--filename=/dev/null"], "--output-format"),
                       (["--bogus=1"], "bogus")):
        p = run(["bench"] + args)
        assert p.returncode == 2, (args, p.stderr)
        assert len(p.stderr.strip().splitlines()) == 1 and what in p.stderr, p.stderr
