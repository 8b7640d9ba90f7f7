# SPDX-License-Identifier: GPL-2.0
"""The report parts of iolens load that a fio user reads, each against
fio 3.33 on the same job: CPU and disk_util."""
import json
import os
import re
import subprocess
import struct
import time

import pytest

from conftest import OWN, TMPFS, run, wait_idle

SAMPLE_MS = 500


def iolens_json(args):
    p = run(["load"] + args + ["--output-format=json"])
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def fio_json(args):
    p = subprocess.run(["fio"] + args + ["--output-format=json"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def shape(dev, rw, engine, depth, extra=()):
    return ["--name=t", "--filename=" + dev, "--rw=" + rw, "--bs=4k",
            "--direct=1", "--ioengine=" + engine, "--iodepth=%d" % depth] + \
        list(extra)



# ---- CPU ----

def test_cpu_share_of_a_group(iolens, loop):
    """fio's usr_cpu and sys_cpu are shares of the threads' summed run
    time, which is job_runtime: two threads in a group report a share of
    both, not the sum of two shares."""
    args = shape(loop.dev, "randread", "io_uring", 4,
                 ["--size=16m", "--time_based", "--runtime=1", "--numjobs=2",
                  "--group_reporting"])
    for doc in (iolens_json(args), fio_json(args)):
        (job,) = doc["jobs"]
        assert 2 * 1000 - 100 <= job["job_runtime"] <= 2 * 1100
        assert 0 < job["usr_cpu"] + job["sys_cpu"] <= 100.5
        assert job["ctx"] > 0


# ---- disk_util ----

def test_disk_util_is_the_kernels_count(iolens, loop):
    args = shape(loop.dev, "randread", "io_uring", 8, ["--size=8m"])
    wait_idle(loop)
    before = loop.diskstats()
    doc = iolens_json(args)
    after = loop.diskstats()
    (disk,) = doc["disk_util"]
    assert disk["name"] == loop.name
    assert disk["read_ios"] == after["r_ios"] - before["r_ios"]
    assert disk["read_merges"] == after["r_merges"] - before["r_merges"]
    assert disk["read_ios"] + disk["read_merges"] == 2048
    assert disk["write_ios"] == disk["write_merges"] == 0
    assert 0 <= disk["util"] <= 100
    assert set(disk) == set(fio_json(args)["disk_util"][0])
    p = run(["load"] + args)
    assert p.returncode == 0, p.stderr
    assert re.search(r"\n\nDisk stats \(read/write\):\n  %s: ios=\d+/0, "
                     r"merge=\d+/0, ticks=\d+/0, in_queue=\d+, "
                     r"util=\d+\.\d\d%%\n$" % loop.name, p.stdout), p.stdout


@pytest.fixture
def tmpfs_file():
    path = os.path.join(TMPFS, OWN + "file")
    try:
        yield path
    finally:
        if os.path.exists(path):
            os.unlink(path)


def test_no_disk_util_without_a_block_device(iolens, tmpfs_file):
    args = ["--name=t", "--filename=" + tmpfs_file, "--size=2m", "--rw=read",
            "--bs=64k"]
    assert "disk_util" not in iolens_json(args)
    assert "disk_util" not in fio_json(args)
    p = run(["load"] + args)
    assert p.returncode == 0 and "Disk stats" not in p.stdout


def test_disk_util_of_a_file_is_its_filesystems_device(iolens, loop, ext4):
    path = str(ext4 / "f")
    args = ["--name=t", "--filename=" + path, "--size=8m", "--rw=write",
            "--bs=64k", "--direct=1"]
    doc = iolens_json(args)
    (disk,) = doc["disk_util"]
    assert disk["name"] == loop.name
    # Every 64 KiB O_DIRECT write reached the disk (the journal may add).
    assert disk["write_ios"] + disk["write_merges"] >= 128
    assert [d["name"] for d in fio_json(args)["disk_util"]] == [loop.name]


@pytest.fixture
def partition(loop):
    """One partition on the loop device, added with partx (BLKPG)."""
    mbr = bytearray(512)
    mbr[446:462] = struct.pack("<B3sB3sII", 0, b"\0" * 3, 0x83, b"\0" * 3,
                               2048, 32768)
    mbr[510:512] = b"\x55\xaa"
    with open(loop.dev, "r+b") as f:
        f.write(mbr)
    part = loop.dev + "p1"
    try:
        subprocess.run(["partx", "-a", loop.dev], check=True,
                       capture_output=True)
        for _ in range(100):
            if os.path.exists(part) and \
                    os.path.exists("/sys/class/block/%sp1" % loop.name):
                break
            time.sleep(0.05)
        assert os.path.exists(part)
        wait_idle(loop)
        yield part
    finally:
        subprocess.run(["partx", "-d", loop.dev], check=False,
                       capture_output=True)


def test_disk_util_of_a_partition_is_its_disk(iolens, loop, partition):
    args = ["--name=t", "--filename=" + partition, "--size=4m", "--rw=read",
            "--bs=64k", "--direct=1"]
    before = loop.diskstats()
    (disk,) = iolens_json(args)["disk_util"]
    after = loop.diskstats()
    assert disk["name"] == loop.name
    assert disk["read_ios"] == after["r_ios"] - before["r_ios"]
    assert disk["read_ios"] + disk["read_merges"] == 64
    assert [d["name"] for d in fio_json(args)["disk_util"]] == [loop.name]
