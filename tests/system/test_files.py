# SPDX-License-Identifier: GPL-2.0
"""Which file a block request's data belongs to (snoop -F), against what
the test itself did to files on ext4 and /proc/diskstats."""
import os
import time

import pytest

from helpers import DirectIO, json_lines, run, wait_idle

MIB = 1 << 20
# A name someone else chose: a space, an escape sequence, a newline.
HOSTILE = "b c\x1b[31m\n"


def file_workload(mnt):
    """Files on ext4 at `mnt`: "a" written through the cache and fsync()ed,
    dropped from the cache and read back through it; "d/HOSTILE" written
    and read with O_DIRECT.  What was done: {path: (kind, {op: bytes})}."""
    a = os.path.join(str(mnt), "a")
    fd = os.open(a, os.O_WRONLY | os.O_CREAT, 0o600)
    os.write(fd, os.urandom(MIB))
    os.fsync(fd)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)
    with open(a, "rb", buffering=0) as f:
        while f.read(1 << 16):
            pass
    os.mkdir(os.path.join(str(mnt), "d"))
    b = os.path.join(str(mnt), "d", HOSTILE)
    # Sized first: a direct write inside the file, not one extending it.
    with open(b, "wb") as f:
        f.truncate(MIB // 4)
    io = DirectIO(b, MIB // 4)
    io.write(0, MIB // 4)
    io.read(0, MIB // 4)
    io.close()
    return {a: ("cache", {"write": MIB, "read": MIB}),
            b: ("direct", {"write": MIB // 4, "read": MIB // 4})}


@pytest.mark.parametrize("attach", ["tp_btf", "raw_tp"])
def test_snoop_files_name_each_requests_file(iolens, loop, ext4, tracer, attach, tmp_path):
    """snoop -F on ext4 (data=ordered, 1 KiB blocks): every request of the
    test's files names its file by device, inode and path, as "cache" or
    "direct", and their bytes per file and op are what the test did; all
    other requests are the filesystem's metadata (journal, inode tables,
    bitmaps, directories) or carry no data (flushes), and with the files
    they make up every byte /proc/diskstats counted.  The text output
    shows each path on one line, the hostile name escaped.  record -F
    keeps them: report -F shows the same files once they are gone.  Both
    attach flavours (their hooks read the request differently)."""
    trace = str(tmp_path / "f.iol")
    rec = tracer(["record", "-F", "-o", trace, "-d", loop.name], attach)
    js = tracer(["snoop", "-j", "-F", "-d", loop.name], attach)
    text = tracer(["snoop", "-F", "-d", loop.name], attach)
    # ext4's lazy init thread reads bitmaps now and then after the mount:
    # diskstats' window is the requests completed between t0 and t1.
    wait_idle(loop)
    t0, before = time.monotonic_ns(), loop.diskstats()
    done = file_workload(ext4)
    wait_idle(loop)
    t1, after = time.monotonic_ns(), loop.diskstats()
    recs, summary = json_lines(js.stop())
    out = text.stop()
    rec.stop()
    assert summary["lost"] == 0 and summary["untracked"] == 0, summary

    seen = {p: {"read": 0, "write": 0} for p in done}
    other = 0
    for r in recs:
        if r["file"] in done:
            path = r["file"]
            st = os.stat(path)
            assert r["file_kind"] == done[path][0], r
            assert r["file_ino"] == st.st_ino, r
            assert r["file_dev"] == "%d:%d" % (os.major(st.st_dev), os.minor(st.st_dev)), r
            seen[path][r["op"]] += r["bytes"]
        elif r["bytes"]:
            assert r["file_kind"] == "metadata" and r["file"] is None, r
            assert r["file_dev"] == "%d:%d" % (loop.major, loop.minor), r
            other += r["bytes"] if t0 <= r["ts_complete"] <= t1 else 0
        else:
            assert r["file_kind"] == "none", r
    assert seen == {p: d[1] for p, d in done.items()}
    sectors = sum(after[k] - before[k] for k in ("r_sectors", "w_sectors"))
    assert sum(sum(s.values()) for s in seen.values()) + other == sectors * 512

    # The text: the file last on each request's line, whatever the names
    # hold (ext4's lazy init thread may read a bitmap between the two
    # tracers' starts, so the lines are matched to the JSON's requests).
    lines = out.splitlines()
    assert lines[0].split()[-1] == "FILE" and "\x1b" not in out
    escaped = "/d/b c\\x1b[31m\\x0a"
    names = {p: p.replace("\x1b", "\\x1b").replace("\n", "\\x0a") for p in done}
    assert names[next(p for p in done if "/d/" in p)].endswith(escaped)
    by_sector = {(r["op"], r["sector"], r["bytes"]): r for r in recs}
    shown = {p: 0 for p in done}
    for line in lines[1:]:
        f = line.split()
        float(f[0])
        r = by_sector.get((f[6], int(f[8]), int(f[9])))
        file = next((p for p in done if line.endswith(" " + names[p])), None)
        if file:
            shown[file] += 1
        if r and r["file"] in done:
            assert file == r["file"], (line, r)
        elif r:
            assert line.endswith(" (%s)" % r["file_kind"]), (line, r)
    assert shown == {p: sum(r["file"] == p for r in recs) for p in done}

    # The trace holds the same files, named where it was recorded: report
    # shows them for the same requests, with the files deleted since.
    for p in done:
        os.unlink(p)
    p = run(["report", "-f", "json", "-F", trace])
    assert p.returncode == 0, p.stderr
    recorded, _ = json_lines(p.stdout)
    keys = ("file_kind", "file_dev", "file_ino", "file")
    by_key = {(r["ts_start"], r["sector"], r["op"]): r for r in recorded}
    for r in recs:
        assert tuple(by_key[(r["ts_start"], r["sector"], r["op"])][k] for k in keys) == \
            tuple(r[k] for k in keys), r


def test_files_usage(iolens, tmp_path):
    """report -F of a trace recorded without -F, or in a format without
    lines: one line saying so, exit 2."""
    trace = str(tmp_path / "n.iol")
    p = run(["record", "-o", trace, "-D", "0.2"])
    assert p.returncode == 0, p.stderr
    for args, what in ((["report", "-F", trace], "recorded without --files"),
                       (["report", "-F", "-f", "html", trace], "--files is for -f text")):
        p = run(args)
        assert p.returncode == 2 and what in p.stderr, p.stderr
        assert len(p.stderr.strip().splitlines()) == 1, p.stderr
