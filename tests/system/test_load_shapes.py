# SPDX-License-Identifier: GPL-2.0
"""iolens load's I/O shapes against independent ground truth: the requests
iolens record saw (mapped through FIEMAP for a file on ext4), the kernel's
/proc/diskstats, the bytes of the loop device's backing file, and fio 3.33
running the same job."""
import array
import collections
import fcntl
import json
import os
import struct
import subprocess

import pytest

from helpers import (ENGINES, IOLENS, SYNC_ENGINES, digest, fio_doc, fio_json, json_lines,
                     load, load_json, refused, run, wait_idle)

SPLIT = {4096: 10, 65536: 50, 32768: 40}
SPLIT_ARG = "--bssplit=4k/10:64k/50:32k/40"
FS_IOC_FIEMAP = 0xC020660B
FIEMAP_EXTENT_LAST = 1


def fiemap(path):
    """[(logical, physical, length)] of a file's extents, in bytes."""
    n = 64
    fd = os.open(path, os.O_RDONLY)
    try:
        buf = bytearray(struct.pack("QQIIII", 0, 2 ** 64 - 1, 0, 0, n, 0) +
                        bytes(56 * n))
        fcntl.ioctl(fd, FS_IOC_FIEMAP, buf)
    finally:
        os.close(fd)
    mapped = struct.unpack_from("QQIIII", buf)[3]
    out = []
    for i in range(mapped):
        lo, ph, ln, _, _, flags = struct.unpack_from("QQQQQI", buf, 32 + 56 * i)
        out.append((lo, ph, ln))
    return out


def nomerges(lo):
    # Each I/O one request: adjacent I/Os of one batch would merge.
    with open("/sys/block/%s/queue/nomerges" % lo.name, "w") as f:
        f.write("2")


def engine_args(engine):
    return ["--ioengine=" + engine, "--iodepth=%d" % (1 if engine in SYNC_ENGINES else 16)]


def recorded_job(tracer, lo, tmp_path, args):
    """Runs iolens load under iolens record of the loop device: the job's
    JSON, its pid, the records and the diskstats before and after."""
    path = str(tmp_path / "t.iol")
    wait_idle(lo)
    t = tracer(["record", "-o", path, "-d", lo.name])
    before = lo.diskstats()
    p = subprocess.Popen([IOLENS, "load"] + args + ["--output-format=json"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    wait_idle(lo)
    after = lo.diskstats()
    t.stop()
    r = run(["report", "-f", "json", path])
    assert r.returncode == 0, r.stderr
    recs, summary = json_lines(r.stdout)
    assert summary["lost"] == 0
    return json.loads(out)["jobs"][0], p.pid, recs, before, after


def check_split_counts(sizes):
    """Each 100 I/Os carry the split exactly: past the whole hundreds a
    size has at most its share more."""
    count = collections.Counter(sizes)
    full = len(sizes) // 100
    assert set(count) <= set(SPLIT), count
    for bs, pct in SPLIT.items():
        assert full * pct <= count[bs] <= full * pct + pct, (bs, count, len(sizes))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("shape", ["bssplit", "blockalign"])
def test_device_io_is_what_it_reports(iolens, loop, tracer, tmp_path, engine, shape):
    nomerges(loop)
    lo_off, size = 1 << 20, 16 << 20
    # norandommap: each I/O the size its split drew (the random map cuts
    # one short where it would reach a block done before: see the file's
    # test below).
    shape_args = [SPLIT_ARG, "--norandommap"] if shape == "bssplit" else \
        ["--bs=4k", "--blockalign=512"]
    job, pid, recs, before, after = recorded_job(tracer, loop, tmp_path, [
        "--name=t", "--filename=" + loop.dev, "--rw=randwrite", "--direct=1",
        "--offset=%d" % lo_off, "--size=%d" % size] + shape_args + engine_args(engine))
    w = job["write"]
    # The reads are the signature probe before the start (libblkid).
    assert {r["op"] for r in recs} == {"read", "write"}
    recs = [r for r in recs if r["op"] == "write"]
    assert len(recs) == w["total_ios"] == after["w_ios"] - before["w_ios"]
    assert after["w_merges"] == before["w_merges"]
    assert sum(r["bytes"] for r in recs) == w["io_bytes"] == \
        (after["w_sectors"] - before["w_sectors"]) * 512
    assert w["io_bytes"] >= size
    for r in recs:
        off = r["sector"] * 512
        assert r["op"] == "write" and r["pid"] == pid, r
        assert lo_off <= off and off + r["bytes"] <= lo_off + size, r
    offs = [r["sector"] * 512 - lo_off for r in recs]
    sizes = [r["bytes"] for r in recs]
    if shape == "bssplit":
        # blockalign's default: the smallest size
        assert all(o % 4096 == 0 for o in offs)
        assert any(o % 32768 for o, s in zip(offs, sizes) if s >= 32768)
        check_split_counts(sizes)
    else:
        assert set(sizes) == {4096} and len(sizes) == size // 4096
        assert all(o % 512 == 0 for o in offs)
        # on purpose off the 4 KiB grid: 7 in 8 of them
        assert sum(1 for o in offs if o % 4096) > len(offs) // 2


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("shape", ["bssplit", "blockalign"])
def test_file_io_is_what_it_reports(iolens, loop, ext4, tracer, tmp_path, engine, shape):
    path = str(ext4 / "f")
    with open(path, "wb") as f:
        for _ in range(24):
            f.write(os.urandom(1 << 20))
        os.fsync(f.fileno())
    nomerges(loop)
    # The range inside the file's longest extent: there a file offset is
    # one device offset, and an I/O one request (one that crossed into
    # another extent would be two).
    ext = max(fiemap(path), key=lambda e: e[2])
    lo_off = (ext[0] + (1 << 20) - 1) & ~((1 << 20) - 1)
    size = min(8 << 20, (ext[0] + ext[2] - lo_off) & ~((1 << 20) - 1))
    assert size >= 4 << 20, fiemap(path)
    shape_args = [SPLIT_ARG] if shape == "bssplit" else ["--bs=4k", "--blockalign=512"]
    job, pid, recs, before, after = recorded_job(tracer, loop, tmp_path, [
        "--name=t", "--filename=" + path, "--rw=randread", "--direct=1",
        "--offset=%d" % lo_off, "--size=%d" % size] + shape_args + engine_args(engine))
    r = job["read"]
    mine = [x for x in recs if x["pid"] == pid]
    assert all(x["op"] == "read" for x in mine)
    assert len(mine) == r["total_ios"] == after["r_ios"] - before["r_ios"]
    assert sum(x["bytes"] for x in mine) == r["io_bytes"] == \
        (after["r_sectors"] - before["r_sectors"]) * 512
    offs = []
    for x in mine:
        phys = x["sector"] * 512
        assert ext[1] <= phys and phys + x["bytes"] <= ext[1] + ext[2], x
        off = ext[0] + phys - ext[1]
        assert lo_off <= off and off + x["bytes"] <= lo_off + size, (off, x)
        offs.append(off - lo_off)
    sizes = [x["bytes"] for x in mine]
    if shape == "bssplit":
        # The random map, as fio's axmap: every 4 KiB block of the range
        # read once, an I/O cut short where it would reach one read
        # before, and so size= bytes exactly.
        assert all(o % 4096 == 0 and z % 4096 == 0 and z <= 65536
                   for o, z in zip(offs, sizes))
        seen = collections.Counter(o + k for o, z in zip(offs, sizes)
                                   for k in range(0, z, 4096))
        assert set(seen) == set(range(0, size, 4096)) and set(seen.values()) == {1}
        assert r["io_bytes"] == size
        # Cut short: only where the map filled up around the block.
        assert sum(1 for z in sizes if z in SPLIT) > len(sizes) // 2, sizes
    else:
        assert set(sizes) == {4096} and len(sizes) == size // 4096
        assert all(o % 512 == 0 for o in offs)
        assert sum(1 for o in offs if o % 4096) > len(offs) // 2


def test_sequential_split_walks_the_range(iolens, loop, tracer, tmp_path):
    nomerges(loop)
    job, pid, recs, before, after = recorded_job(tracer, loop, tmp_path, [
        "--name=t", "--filename=" + loop.dev, "--rw=write", "--direct=1",
        "--offset=3m", "--size=8m", SPLIT_ARG])
    # psync: one after another, each where the last ended, to the end
    recs = [x for x in recs if x["op"] == "write"]
    recs.sort(key=lambda x: x["ts_issue"])
    pos = 3 << 20
    for x in recs:
        assert x["sector"] * 512 == pos, x
        pos += x["bytes"]
    assert pos == 11 << 20 == (3 << 20) + job["write"]["io_bytes"]
    assert len(recs) == job["write"]["total_ios"]


def test_bsrange_sizes_and_fio(iolens, loop, tracer, tmp_path):
    nomerges(loop)
    args = ["--name=t", "--filename=" + loop.dev, "--rw=randread", "--direct=1",
            "--size=16m", "--bsrange=4k-16k", "--norandommap"]
    job, pid, recs, before, after = recorded_job(tracer, loop, tmp_path, args)
    count = collections.Counter(x["bytes"] for x in recs)
    # fio's draw: 4k + 16k * U down to 4k steps: each a quarter
    assert set(count) == {4096, 8192, 12288, 16384}
    assert all(n > len(recs) // 8 for n in count.values()), count
    assert len(recs) == job["read"]["total_ios"]
    theirs = fio_json(args)["jobs"][0]["read"]
    # same bytes: both stop at the first I/O that reaches --size
    assert 16 << 20 <= theirs["io_bytes"] < (16 << 20) + 16384
    assert 16 << 20 <= job["read"]["io_bytes"] < (16 << 20) + 16384


def test_offset_percent_aligned(iolens, loop, tracer, tmp_path):
    job, pid, recs, before, after = recorded_job(tracer, loop, tmp_path, [
        "--name=t", "--filename=" + loop.dev, "--rw=read", "--direct=1",
        "--offset=10%", "--offset_align=1m", "--bs=64k", "--size=1m"])
    # 10% of 64 MiB is 6.4 MiB: up to 7 MiB
    assert min(x["sector"] for x in recs) * 512 == 7 << 20
    # by default up to a multiple of the block size, as fio's
    args = ["--name=t", "--filename=" + loop.dev, "--rw=read", "--offset=10%",
            "--bs=64k"]
    ours = load_json(args)["jobs"][0]["read"]
    theirs = fio_json(args)["jobs"][0]["read"]
    start = ((64 << 20) // 10 + 65535) // 65536 * 65536
    assert ours["io_bytes"] == theirs["io_bytes"] == (64 << 20) - start


def fill(lo):
    with open(lo.dev, "wb") as f:
        f.write(os.urandom(lo.size))
        os.fsync(f.fileno())
    wait_idle(lo)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("rw", ["trim", "randtrim"])
def test_trim_discards_what_it_reports(iolens, loop, engine, rw):
    fill(loop)
    with open(loop.backing, "rb") as f:
        data = f.read()
    before = loop.diskstats()
    job = load_json(["--name=t", "--filename=" + loop.dev, "--rw=" + rw,
                     "--bs=64k", "--offset=1m", "--size=4m"] +
                    engine_args(engine))["jobs"][0]
    wait_idle(loop)
    after = loop.diskstats()
    t = job["trim"]
    assert t["total_ios"] == 64 == after["d_ios"] - before["d_ios"]
    assert t["io_bytes"] == 4 << 20 == (after["d_sectors"] - before["d_sectors"]) * 512
    assert job["read"]["total_ios"] == job["write"]["total_ios"] == 0
    assert after["w_ios"] == before["w_ios"]
    # The loop device punched the range out of its backing file: zeros
    # there, every other byte as it was.
    with open(loop.backing, "rb") as f:
        now = f.read()
    assert now[1 << 20:5 << 20] == bytes(4 << 20)
    assert now[:1 << 20] == data[:1 << 20] and now[5 << 20:] == data[5 << 20:]
    assert t["clat_ns"]["N"] == 64 and t["slat_ns"]["N"] == 0


def test_trim_report_as_fios(iolens, loop):
    args = ["--name=t", "--filename=" + loop.dev, "--rw=trim", "--bs=64k",
            "--size=4m", "--ioengine=libaio", "--iodepth=8"]
    ours, theirs = load_json(args)["jobs"][0], fio_json(args)["jobs"][0]
    assert set(ours["trim"]) >= set(theirs["trim"]) - {"bw_min", "bw_max",
                                                       "bw_agg", "bw_mean", "bw_dev",
                                                       "bw_samples", "iops_min",
                                                       "iops_max", "iops_mean",
                                                       "iops_stddev", "iops_samples"}
    for k in ("total_ios", "io_bytes", "short_ios"):
        assert ours["trim"][k] == theirs["trim"][k]
    assert ours["iodepth_level"]["1"] == 100.0 == theirs["iodepth_level"]["1"]
    p = load(args)
    assert p.returncode == 0, p.stderr
    assert "rw=trim" in p.stdout.splitlines()[0]
    assert "\n  trim: IOPS=" in p.stdout and "\n   TRIM: bw=" in p.stdout
    assert "issued rwts: total=0,0,64,0" in p.stdout


def test_trim_refusals(iolens, loop, tmp_path):
    subprocess.run(["mkfs.ext4", "-q", "-F", loop.dev], check=True,
                   capture_output=True)
    wait_idle(loop)
    before, st = digest(loop.backing), loop.diskstats()
    for rw in ("trim", "randtrim"):
        p = load(["--name=t", "--filename=" + loop.dev, "--rw=" + rw, "--size=1m"])
        refused(p, "filesystem ext4")
    # trims of part of a logical block cannot be
    p = load(["--name=t", "--filename=" + loop.dev, "--rw=trim", "--bs=4k",
              "--offset=256", "--size=1m", "--allow-destroy"])
    refused(p, "logical block size")
    assert digest(loop.backing) == before
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    subprocess.run(["mount", "-o", "noatime", loop.dev, str(mnt)], check=True)
    try:
        wait_idle(loop)
        p = load(["--name=t", "--filename=" + loop.dev, "--rw=trim", "--size=1m"])
        refused(p, "mounted on " + str(mnt))
        # a regular file: BLKDISCARD is for block devices (fio: ENOTTY)
        path = str(mnt / "f")
        with open(path, "wb") as f:
            f.write(b"x" * 8192)
        p = load(["--name=t", "--filename=" + path, "--rw=trim", "--size=8k"])
        refused(p, "need a block device")
        with open(path, "rb") as f:
            assert f.read() == b"x" * 8192
    finally:
        subprocess.run(["umount", str(mnt)], check=False)
    wait_idle(loop)
    assert loop.diskstats()["d_ios"] == st["d_ios"]


@pytest.mark.parametrize("opt", ["fdatasync", "fsync"])
@pytest.mark.parametrize("engine", ENGINES)
def test_sync_every_n_writes(iolens, loop, engine, opt):
    args = ["--name=t", "--filename=" + loop.dev, "--rw=write", "--bs=4k",
            "--size=4m", "--direct=1", "--%s=64" % opt] + engine_args(engine)
    flushes = []
    # fio's io_uring and posixaio engines are no reference here: with
    # iodepth 16 they issue a sync again while the last is still queued
    # (114 and 242 flushes for fdatasync=64 over 1024 writes, fio 3.33).
    tools = [[IOLENS, "load"]] + ([["fio"]] if engine not in ("io_uring", "posixaio") else [])
    for tool in tools:
        wait_idle(loop)
        before = loop.diskstats()
        p = subprocess.run(tool + args + ["--output-format=json"],
                           capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        assert fio_doc(p.stdout)["jobs"][0]["write"]["total_ios"] == 1024
        wait_idle(loop)
        flushes.append(loop.diskstats()["f_ios"] - before["f_ios"])
    # one before the 65th, 129th, ... write: none after the last
    assert flushes == [1023 // 64] * len(tools)


@pytest.mark.parametrize("engine", ["psync", "libaio"])
def test_rate_iops(iolens, loop, engine):
    args = ["--name=t", "--filename=" + loop.dev, "--rw=randread", "--bs=4k",
            "--size=4m", "--direct=1", "--rate_iops=200", "--runtime=2",
            "--time_based"] + engine_args(engine)
    ours = load_json(args)["jobs"][0]
    theirs = fio_json(args)["jobs"][0]
    n = ours["read"]["total_ios"]
    assert abs(n - 400) <= 2
    assert abs(n - theirs["read"]["total_ios"]) <= 2
    # paced by sleeping: a job that spun would show a whole CPU
    assert ours["usr_cpu"] + ours["sys_cpu"] < 30


def test_rate_iops_per_direction(iolens, loop):
    args = ["--name=t", "--filename=" + loop.dev, "--rw=randrw", "--bs=4k",
            "--size=4m", "--direct=1", "--rate_iops=100,50", "--runtime=2",
            "--time_based"]
    ours = load_json(args)["jobs"][0]
    theirs = fio_json(args)["jobs"][0]
    for d, n in (("read", 200), ("write", 100)):
        assert abs(ours[d]["total_ios"] - n) <= 2, d
        assert abs(ours[d]["total_ios"] - theirs[d]["total_ios"]) <= 2, d


@pytest.mark.parametrize("arg,name", [
    ("--bsrange=4k", "--bsrange"),
    ("--bsrange=16k-4k", "--bsrange"),
    ("--bsrange=0-4k", "--bsrange"),
    ("--bssplit=4k/50:8k/40", "--bssplit"),
    ("--bssplit=4k/60:8k/60", "--bssplit"),
    ("--bssplit=4k/x", "--bssplit"),
    ("--bssplit=4k/50,8k/50,1k/100,2k", "--bssplit"),
    ("--blockalign=0", "--blockalign"),
    ("--blockalign=4q", "--blockalign"),
    ("--offset=150%", "--offset"),
    ("--rate_iops=-5", "--rate_iops"),
])
def test_shape_parse_errors(iolens, loop, arg, name):
    before = digest(loop.backing)
    p = load(["--name=t", "--filename=" + loop.dev, "--rw=write", arg])
    refused(p, name)
    assert digest(loop.backing) == before


def test_direct_io_refuses_misaligned_shapes(iolens, loop):
    before = digest(loop.backing)
    base = ["--name=t", "--filename=" + loop.dev, "--direct=1", "--size=1m"]
    refused(load(base + ["--rw=randwrite", "--bssplit=4k/50:1000/50"]),
            "block size 1000")
    refused(load(base + ["--rw=randwrite", "--blockalign=256"]),
            "--blockalign 256")
    assert digest(loop.backing) == before
