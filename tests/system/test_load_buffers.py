# SPDX-License-Identifier: GPL-2.0
"""What iolens load's writes carry, as fio 3.33's buffer options make them:
each tool writes a 4 MiB file with the same job, and the files are read
back and compared: how many of their 4 KiB blocks are distinct (what a
deduplicating device sees), which 512-byte pieces are zeros and how well
zlib compresses them (what a compressing device sees)."""
import collections
import os
import shutil
import tempfile
import zlib

import pytest

from helpers import IOLENS, TMPFS, run_in

N = 1024  # 4 KiB blocks of the file


def written(tool, opts, jobs=("w",)):
    """The bytes `tool` wrote with `opts` and a job writing a file of its
    name for each of `jobs`; joined, in their order."""
    where = tempfile.mkdtemp(prefix="iolens-test-buf-", dir=TMPFS)
    try:
        cmd = [IOLENS, "load"] if tool == "iolens" else ["fio"]
        args = ["--rw=write", "--bs=4k", "--size=4m"] + opts
        for j in jobs:
            args += ["--name=" + j, "--filename=" + j]
        p = run_in(cmd + args, where)
        assert p.returncode == 0, (tool, p.stderr)
        data = b""
        for j in jobs:
            with open(os.path.join(where, j), "rb") as f:
                data += f.read()
        return data
    finally:
        shutil.rmtree(where, ignore_errors=True)


def blocks(data):
    return [data[i:i + 4096] for i in range(0, len(data), 4096)]


def distinct(data):
    return len(set(blocks(data)))


def repeated(data):
    """The contents found in more than one block."""
    return {b for b, n in collections.Counter(blocks(data)).items() if n > 1}


def zero_pieces(data):
    """Which 256-byte pieces are all zeros, as a string of 0 and 1."""
    z = bytes(256)
    return "".join("1" if data[i:i + 256] == z else "0" for i in range(0, len(data), 256))


def ratio(data):
    return len(zlib.compress(data, 1)) / len(data)


def both(opts):
    ours, theirs = written("iolens", opts), written("fio", opts)
    assert len(ours) == len(theirs) == N * 4096
    return ours, theirs


def test_by_default_no_two_writes_are_alike(iolens):
    """fio's scramble_buffers (on by default): one random buffer, each
    write's offset and time in each 512 bytes: every block distinct, and
    zlib finds what fio's leaves it."""
    ours, theirs = both([])
    assert distinct(ours) == distinct(theirs) == N
    assert abs(ratio(ours) - ratio(theirs)) < 0.01


@pytest.mark.parametrize("opts", [["--buffer_compress_percentage=50"],
                                  ["--buffer_compress_percentage=25",
                                   "--buffer_compress_chunk=4k"],
                                  ["--buffer_compress_percentage=70",
                                   "--buffer_compress_chunk=1k"]])
def test_compressible_as_fios(iolens, opts):
    """buffer_compress_percentage: the zeros in the very places fio puts
    them (the end of every chunk), the rest random and new each write:
    zlib's ratio as fio's, every block distinct."""
    ours, theirs = both(opts)
    assert zero_pieces(ours) == zero_pieces(theirs)
    assert "1" in zero_pieces(ours) and "0" in zero_pieces(ours)
    assert abs(ratio(ours) - ratio(theirs)) < 0.01
    assert distinct(ours) == distinct(theirs) == N


def test_dedupe_percentage_repeats_that_share(iolens):
    """dedupe_percentage=50: about half of the writes a copy of an earlier
    one, by a draw per write (binomial: five standard deviations of 16),
    as fio's."""
    ours, theirs = both(["--dedupe_percentage=50"])
    for data in (ours, theirs):
        assert abs(distinct(data) - N / 2) < 5 * 16, distinct(data)


WS = ["--dedupe_percentage=50", "--dedupe_mode=working_set", "--dedupe_working_set_percentage=10"]


def test_dedupe_working_set_as_fios(iolens):
    """dedupe_mode=working_set: the repeated writes copy only the first
    unique ones, 10% of the size: 102 pages (all but a few drawn), half
    the writes distinct, as fio's."""
    ours, theirs = both(WS)
    for data in (ours, theirs):
        assert 95 <= len(repeated(data)) <= 102, len(repeated(data))
        assert abs(distinct(data) - N / 2) < 5 * 16, distinct(data)


@pytest.mark.parametrize("glob", [False, True])
def test_dedupe_global_repeats_across_jobs(iolens, glob):
    """Two jobs, two files: with dedupe_global the working set is taken in
    turn from both jobs' first unique writes, so each file repeats blocks
    of the other (and the set is shared: 102 pages in all); without, no
    block of one is in the other.  As fio's."""
    opts = WS + (["--dedupe_global=1"] if glob else [])
    for tool in ("iolens", "fio"):
        data = written(tool, opts, jobs=("a", "b"))
        a, b = set(blocks(data[:N * 4096])), set(blocks(data[N * 4096:]))
        if glob:
            assert 95 <= len(a & b) <= 102 and len(repeated(data)) <= 102, (tool, len(a & b))
        else:
            assert not a & b and 190 <= len(repeated(data)) <= 204, (tool, len(repeated(data)))


@pytest.mark.parametrize("opts,nblocks", [
    (["--zero_buffers"], 1),
    (["--refill_buffers"], N),
    (["--buffer_pattern=0xdeadbeef", "--scramble_buffers=0"], 1),
    (["--buffer_pattern=\"iolens\"", "--scramble_buffers=0"], 1),
    (["--buffer_compress_percentage=100"], 1),
])
def test_fills_as_fios(iolens, opts, nblocks):
    """Zeros, data new for every write, a pattern over and over: the
    same bytes as fio's where fio's are fixed, as many distinct blocks."""
    ours, theirs = both(opts)
    assert distinct(ours) == distinct(theirs)
    if nblocks is not None:
        assert distinct(ours) == nblocks
    if nblocks == 1:
        assert ours == theirs
    if "--refill_buffers" in opts:
        assert ratio(ours) > 0.99


@pytest.mark.parametrize("opts,said", [
    (["--buffer_pattern=0xabc"], "want 0x and hex digits"),
    (["--buffer_pattern=deadbeef"], "want 0x and hex digits"),
    (["--dedupe_percentage=60", "--dedupe_mode=working_set",
      "--dedupe_working_set_percentage=50"], "add up to more than 100"),
])
def test_what_cannot_be_written_is_one_line(iolens, tmp_path, opts, said):
    p = run_in([IOLENS, "load", "--name=w", "--filename=f", "--rw=write", "--size=1m"] + opts,
               tmp_path)
    assert p.returncode == 2 and p.stdout == "", p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and said in lines[0], lines
    assert not os.path.exists(tmp_path / "f")
