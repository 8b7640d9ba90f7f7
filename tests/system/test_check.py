# SPDX-License-Identifier: GPL-2.0
"""iolens check: misaligned writes, page-cache read-modify-write, small
direct I/O on the 512e root disk and partition alignment, each against what
the workload did (the load generator's own counts, /proc/diskstats) and
against partition tables made with sfdisk."""
import json
import os
import subprocess
import tempfile

import pytest

from helpers import (IO_START, OWN, TMPFS, Check, Loop, TraceInstance, check_refused, checked,
                     finding, load_job, offender, run, wait_idle, uncached_file)


@pytest.mark.fast
@pytest.mark.parametrize("offset,bad", [(512, True), (0, False)])
def test_check_misaligned_direct_writes(loop, offset, bad):
    """O_DIRECT 4 KiB writes at offsets that are multiples of 512 but not of
    4096 on a 512-byte-sector loop device: with --align 4096 every write
    request is misaligned, counted for the load's pid; at 4096-aligned
    offsets none is."""
    d0 = loop.diskstats()
    rep, rc, pid, job = checked(
        ["-d", loop.name, "--align", "4096"],
        ["--filename=" + loop.dev, "--rw=write", "--bs=4k", "--offset=%d" % offset,
         "--size=1m", "--direct=1"], loop)
    d1 = loop.diskstats()
    ios = job["write"]["total_ios"]
    assert ios == 256 == d1["w_ios"] - d0["w_ios"]
    disk = next(d for d in rep["disks"] if d["disk"] == loop.name)
    assert disk["writes"] == ios and disk["basis"] == 4096
    f = finding(rep, "misaligned_writes")
    if bad:
        assert f["verdict"] == "fail" and rc == 1
        assert f["count"] == ios and f["bytes"] == ios * 4096
        count, nbytes, files = offender(f, pid)
        if IO_START:
            assert (count, nbytes) == (ios, ios * 4096)
            assert files == {loop.dev}
        else:
            # The writer is the task seen at issue: the load, or a kworker
            # that issued for it.
            assert sum(o["count"] for o in f["offenders"]) == ios
            assert all(o["pid"] == pid or o["comm"].startswith("kworker")
                       for o in f["offenders"]), f["offenders"]
    else:
        assert f["count"] == 0 and f["verdict"] == "pass" and rc == 0
    # Judged against the loop device's own 512-byte block, nothing is off.
    assert finding(rep, "small_direct_512e")["count"] == 0


def test_check_says_why_direct_writes_are_refused(root):
    """512-byte O_DIRECT writes to a loop device of 4096-byte logical
    blocks (a 4Kn disk) never become requests: the kernel refuses each
    with EINVAL.  check counts them, by process and file, and names the
    disk's 4096-byte logical block as the reason."""
    lo = Loop(size_mb=16, sector_size=4096)
    try:
        rep = check_refused(lo, 12)
    finally:
        lo.close()
    assert "logical block" in finding(rep, "refused_direct_writes")["fix"]
    assert [d["writes"] for d in rep["disks"]] == [0]


@pytest.fixture
def root_scratch():
    """A 1 MiB file of written blocks on the root filesystem (the 512e vda),
    removed afterwards."""
    fd, path = tempfile.mkstemp(prefix=OWN, dir="/var/tmp")
    try:
        os.write(fd, os.urandom(1 << 20))
        os.fsync(fd)
        os.close(fd)
        yield path
    finally:
        os.unlink(path)


def root_disk():
    st = os.stat("/var/tmp")
    with open("/sys/dev/block/%d:%d/uevent" % (os.major(st.st_dev), os.minor(st.st_dev))) as f:
        name = dict(l.strip().split("=", 1) for l in f if "=" in l)["DEVNAME"]
    return name


@pytest.mark.parametrize("bs,bad", [(512, True), (4096, False)])
def test_check_small_direct_io_on_512e(root_scratch, bs, bad):
    """512-byte O_DIRECT writes to a scratch file on the 512e root disk are
    accepted by the kernel and judged against the disk's own 4096-byte
    physical block: misaligned and small direct I/O, all of the load's
    writes, in that file; 4096-byte ones are neither."""
    disk = root_disk()
    with open("/sys/block/%s/queue/physical_block_size" % disk) as f:
        pbs = int(f.read())
    with open("/sys/block/%s/queue/logical_block_size" % disk) as f:
        lbs = int(f.read())
    assert (lbs, pbs) == (512, 4096), "the root disk is not 512e here"
    rep, rc, pid, job = checked(
        ["-d", disk, "-c", "iolens"],
        ["--filename=" + root_scratch, "--rw=randwrite", "--bs=%d" % bs,
         "--size=256k", "--direct=1"])
    ios = job["write"]["total_ios"]
    assert ios == (256 << 10) // bs
    for name in ("misaligned_writes", "small_direct_512e"):
        f = finding(rep, name)
        count, nbytes, files = offender(f, pid)
        if bad:
            assert (count, nbytes) == (ios, ios * bs), name
            assert files == {root_scratch}, name
            assert f["verdict"] == "fail"
        else:
            assert count == 0, name
    if bad:
        assert rc == 1


@pytest.mark.parametrize("record", [4000, 4096])
def test_check_page_cache_rmw_record_padding(loop, ext4, record):
    """The record-padding experiment, scaled down: buffered pwrite of
    fixed-size records at random record indexes of a file not in the page
    cache.  4000-byte records never cover a whole page: every data read the
    device saw during the run (tracefs) is one of them, about one per
    write, with the writes that caused them; 4096-byte records cause none."""
    path = str(ext4 / "records")
    size = 2000000 if record == 4000 else 2048000
    uncached_file(path, size)
    trace = TraceInstance(loop)
    try:
        ck = Check(["-d", loop.name])
        try:
            pid, job = load_job(["--filename=" + path, "--rw=randwrite",
                             "--bs=%d" % record, "--size=%d" % size, "--direct=0"])
            wait_idle(loop)
            # Before check ends: it then reads the disk's partition table.
            assert trace.overruns() == 0
            events = trace.read()
            rep, rc = ck.stop()
        finally:
            ck.kill()
    finally:
        trace.close()
    writes = job["write"]["total_ios"]
    assert writes == size // record
    # Data reads only: "RM" and "RA" (metadata, readahead) are not the
    # page a write covers.
    reads = [e for e in events if e[0] == "block_rq_issue" and e[1] == "R"]
    f = finding(rep, "page_cache_rmw")
    count, nbytes, files = offender(f, pid)
    assert count == f["count"] == len(reads), (count, f["count"], len(reads))
    assert nbytes == sum(e[3] * 512 for e in reads)
    if record == 4000:
        assert files == {path}
        # A block is read at the first write covering part of it: with the
        # writes of neighbouring records it is about one read per write.
        assert 0.9 * writes <= count <= 1.1 * writes, (count, writes)
        assert f["verdict"] == "fail" and rc == 1
        sizes = {w["size"] for o in f["offenders"] if o["pid"] == pid for w in o["writes"]}
        offsets = [w["offset"] for o in f["offenders"] if o["pid"] == pid for w in o["writes"]]
        assert sizes == {4000} and offsets and all(x % 4000 == 0 for x in offsets)
    else:
        assert count == 0 and f["verdict"] == "pass"


def sfdisk_image(start, size_mb=16):
    """A disk image on tmpfs with one DOS partition at `start` (sectors)."""
    fd, path = tempfile.mkstemp(prefix=OWN, dir=TMPFS)
    os.ftruncate(fd, size_mb << 20)
    os.close(fd)
    try:
        subprocess.run(["sfdisk", "-q", path], input="label: dos\nstart=%d, size=8192\n" % start,
                       text=True, check=True, capture_output=True)
    except BaseException:
        os.unlink(path)
        raise
    return path


@pytest.mark.parametrize("start,aligned", [(2049, False), (2048, True)])
def test_check_partition_alignment(root, start, aligned):
    """A partition table made with sfdisk, read by libblkid from the image
    and from a loop device on it (this kernel parses no tables): a start at
    sector 2049 is misaligned for 4096-byte physical blocks, 2048 is not."""
    img = sfdisk_image(start)
    dev = None
    try:
        dev = subprocess.run(["losetup", "-f", "--show", img], check=True,
                             capture_output=True, text=True).stdout.strip()
        for args in ([img], ["--align", "4096", dev]):
            p = run(["check", "-j"] + args)
            assert p.returncode == (0 if aligned else 1), p.stderr
            f = finding(json.loads(p.stdout), "partitions")
            [disk] = f["disks"]
            assert disk["source"] == "libblkid" and disk["table"] == "dos"
            assert disk["basis"] == 4096
            assert disk["basis_from"] == ("assumed" if args == [img] else "--align")
            [part] = disk["partitions"]
            assert (part["start_sector"], part["size"]) == (start, 8192 * 512)
            assert part["aligned"] == aligned
            assert f["count"] == (0 if aligned else 1)
            text = run(["check"] + args).stdout
            assert ("MISALIGNED" in text) != aligned, text
    finally:
        if dev:
            subprocess.run(["losetup", "-d", dev], check=False)
        os.unlink(img)


@pytest.mark.fast
def test_check_usage_errors(root):
    for args, what in ((["--align", "1000"], "--align"), (["-t", "200"], "--threshold"),
                       (["-p", "x"], "--pid"), (["-p", "999999999"], "no process"),
                       (["-D", "-1"], "--duration"),
                       (["-d", "loop0", "/dev/shm/x"], "partitions only"),
                       (["--bogus"], "bogus")):
        p = run(["check"] + args)
        assert p.returncode == 2, (args, p.stderr)
        assert len(p.stderr.strip().splitlines()) == 1 and what in p.stderr, p.stderr
    p = run(["check", "/nonexistent-disk.img"])
    assert p.returncode == 2 and "no such file" in p.stderr
