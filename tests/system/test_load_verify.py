# SPDX-License-Identifier: GPL-2.0
"""fio's verify beyond crc32c under iolens load: meta (the headers alone),
pattern (no header, the pattern is the data), verify_pattern as the data of
headed blocks, verify_interval (a header every so many bytes of a block),
a read job verifying what it reads, fill_device writing until the space
runs out, and verify_backlog reading back as it goes: written, a byte
flipped on the device, read back."""
import collections
import json
import os
import re

import pytest

from helpers import IOLENS, Loop, TraceInstance, flip_byte, mounted_ext4, run_in

PAT = "0xaa555aa5"


def run(tool, args, where):
    cmd = [IOLENS, "load"] if tool == "iolens" else ["fio"]
    return run_in(cmd + args + ["--output-format=json"], where)


@pytest.mark.parametrize("kind,at,caught", [
    # A byte of the data: the checksum, the pattern, or nothing (meta's
    # headers alone) finds it.
    (["--verify=crc32c"], 70000, r"crc32c at offset 65536: expected"),
    (["--verify=crc32c", "--verify_interval=512"], 70000, r"crc32c at offset 69632: expected"),
    (["--verify=meta", "--verify_pattern=" + PAT, "--verify_interval=512"], 70000,
     r"byte 70000: expected (aa|55|5a|a5) \(the pattern\), found"),
    (["--verify=pattern", "--verify_pattern=" + PAT], 70000,
     r"byte 70000: expected (aa|55|5a|a5) \(the pattern\), found"),
    (["--verify=meta"], 70000, None),
    # A byte of a header's offset: meta finds the header is not the
    # block's.
    (["--verify=meta", "--verify_interval=512"], 65536 + 512 + 8,
     r"the header at offset 66048 is of the one at"),
])
def test_a_read_job_verifies_what_it_reads(iolens, loop, tmp_path, kind, at, caught):
    """Written by one job, a byte of the device flipped, read by another
    (rw=read with the same verify, as fio's reads verify what they read):
    the flip is found where the kind can find it, in the block or piece
    that holds it, and the job fails with fio's EILSEQ; before the flip
    the read job passes, every block read once."""
    base = ["--name=v", "--filename=" + loop.dev, "--bs=64k", "--size=4m", "--direct=1"] + kind
    p = run("iolens", base + ["--rw=write", "--do_verify=0"], tmp_path)
    assert p.returncode == 0, p.stderr
    p = run("iolens", base + ["--rw=read"], tmp_path)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["jobs"][0]["read"]["total_ios"] == 64
    flip_byte(loop.dev, at)
    p = run("iolens", base + ["--rw=read"], tmp_path)
    if caught is None:
        assert p.returncode == 0, p.stderr
        return
    assert p.returncode == 1 and json.loads(p.stdout)["jobs"][0]["error"] == 84
    block = at // 65536 * 65536
    assert "verify failed in the block at offset %d " % block in p.stderr, p.stderr
    assert re.search(caught, p.stderr), p.stderr


def test_pattern_flips_found_as_fio_finds_them(iolens, loop, tmp_path):
    """verify=pattern: fio's reads of iolens's pattern blocks pass, and a
    flipped byte fails both tools' read jobs."""
    base = ["--name=v", "--filename=" + loop.dev, "--bs=64k", "--size=4m", "--direct=1",
            "--verify=pattern", "--verify_pattern=" + PAT]
    assert run("iolens", base + ["--rw=write", "--do_verify=0"], tmp_path).returncode == 0
    assert run("fio", base + ["--rw=read"], tmp_path).returncode == 0
    flip_byte(loop.dev, 1234567)
    for tool in ("iolens", "fio"):
        assert run(tool, base + ["--rw=read"], tmp_path).returncode != 0, tool


def test_fill_device_writes_until_the_space_runs_out(iolens, root, tmp_path):
    """fill_device on a 32 MiB ext4: the write job ends at ENOSPC without
    an error, its bytes are the file's, the file system is full, and the
    blocks written whole read back verified, by another run and (fio's
    surface-scan) by a job after it in the same run, which sizes the file
    when it starts."""
    lo = Loop(size_mb=32)
    try:
        with mounted_ext4(lo.dev, tmp_path) as mnt:
            base = ["--name=s", "--filename=data", "--bs=64k", "--ioengine=sync", "--direct=1",
                    "--verify=meta", "--verify_pattern=" + PAT, "--verify_interval=512"]
            p = run("iolens", base + ["--rw=write", "--fill_device=1", "--do_verify=0"], mnt)
            assert p.returncode == 0, p.stderr
            written = json.loads(p.stdout)["jobs"][0]["write"]["io_bytes"]
            size = os.path.getsize(mnt / "data")
            st = os.statvfs(mnt)
            assert written == size and size > 20 << 20
            assert st.f_bavail * st.f_frsize < 65536
            p = run("iolens", base + ["--rw=read"], mnt)
            assert p.returncode == 0, p.stderr
            assert json.loads(p.stdout)["jobs"][0]["read"]["io_bytes"] == size // 65536 * 65536
            os.unlink(mnt / "data")
            p = run("iolens", base[1:] + ["--name=s", "--rw=write", "--fill_device=1",
                                          "--do_verify=0", "--name=r", "--stonewall",
                                          "--rw=read"], mnt)
            assert p.returncode == 0, p.stderr
            w, r = json.loads(p.stdout)["jobs"]
            size = os.path.getsize(mnt / "data")
            assert w["write"]["io_bytes"] == size and size > 20 << 20
            assert r["read"]["io_bytes"] == size // 65536 * 65536 and r["error"] == 0
    finally:
        lo.close()


@pytest.mark.parametrize("args,said", [
    (["--verify=pattern"], "--verify=pattern needs --verify_pattern"),
    (["--verify=crc32c", "--verify_interval=100"], "--verify_interval must divide"),
    (["--verify=crc32c", "--verify_interval=32"], "--verify_interval must divide"),
    (["--verify=meta", "--verify_pattern=0x1"], "want 0x and hex digits"),
])
def test_what_cannot_be_verified_is_one_line(iolens, loop, tmp_path, args, said):
    p = run_in([IOLENS, "load", "--name=v", "--filename=" + loop.dev, "--rw=write",
                "--bs=4k", "--size=1m"] + args, tmp_path)
    assert p.returncode == 2 and p.stdout == "", p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and said in lines[0], lines


def requests(tool, loop, args, tmp_path):
    """(direction, sector) of each request `tool` issued to the loop
    device, from the block layer's own events."""
    trace = TraceInstance(loop)
    try:
        p = run(tool, args, tmp_path)
        assert p.returncode == 0, p.stderr
        got = [("R" if "R" in rwbs else "W", sector)
               for _, event, rwbs, sector, _ in trace.read_timed() if event == "block_rq_issue"]
        assert trace.overruns() == 0
    finally:
        trace.close()
    return got


def runs(reqs):
    """The directions as runs: [("W", 16), ("R", 16), ...]."""
    out = []
    for d, _ in reqs:
        if out and out[-1][0] == d:
            out[-1] = (d, out[-1][1] + 1)
        else:
            out.append((d, 1))
    return out


@pytest.mark.parametrize("batch,want", [
    (None, [("W", 16), ("R", 16)] * 4),
    # A batch of 8 after every 16 writes not yet read back: 16 first, then
    # 8 at a time; what is left, read back after the writes.
    ("8", [("W", 16), ("R", 8)] + [("W", 8), ("R", 8)] * 6 + [("R", 8)]),
])
def test_verify_backlog_as_fios(iolens, loop, tmp_path, batch, want):
    """verify_backlog=16 (and verify_backlog_batch): the block layer sees
    fio's order of writes and reads, run for run, and each read is of the
    oldest block written and not yet read back, for iolens as for fio;
    every block written is read back once."""
    args = ["--name=b", "--filename=" + loop.dev, "--rw=randwrite", "--bs=4k",
            "--size=256k", "--direct=1", "--verify=crc32c", "--verify_backlog=16"]
    if batch:
        args.append("--verify_backlog_batch=" + batch)
    for tool in ("fio", "iolens"):
        reqs = requests(tool, loop, args, tmp_path)
        # Before a job writes a device, iolens reads it for a signature
        # (libblkid): reads before the first write are that, not the job.
        first = next(k for k, (d, _) in enumerate(reqs) if d == "W")
        assert tool == "iolens" or first == 0
        reqs = reqs[first:]
        r = runs(reqs)
        # Runs of the same direction next to each other merge.
        merged = []
        for d, n in want:
            if merged and merged[-1][0] == d:
                merged[-1] = (d, merged[-1][1] + n)
            else:
                merged.append((d, n))
        assert r == merged, (tool, r)
        pending = collections.deque()
        for d, sector in reqs:
            if d == "W":
                pending.append(sector)
            else:
                assert sector == pending.popleft(), tool
        assert not pending
