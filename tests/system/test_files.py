# SPDX-License-Identifier: GPL-2.0
"""Which file a block request's data belongs to (snoop -F), against what
the test itself did to files on ext4 and /proc/diskstats."""
import json
import os
import signal
import subprocess
import time

import pytest

from helpers import (IOLENS, DirectIO, Tmux, html_report, json_lines, made_by, run,
                     wait_idle, whole_lines)

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
    keeps them: report -F shows the same files once they are gone, and
    the HTML page sums bytes read and written by file.  Both
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

    # The page sums by file: bytes read and written per file as done,
    # every request's bytes in one row; its table, most bytes first, shows
    # the hostile name escaped.
    html, data = html_report(trace, str(tmp_path / "f.html"))
    rows = {r["file"]: r for r in data["files"] if r["file"]}
    for path, (kind, ops) in done.items():
        assert rows[path]["file_kind"] == kind, rows[path]
        assert (rows[path]["read_bytes"], rows[path]["write_bytes"]) == \
            (ops["read"], ops["write"]), rows[path]
    assert {r["file_kind"] for r in data["files"] if not r["file"]} <= \
        {"metadata", "none"}, data["files"]
    assert sum(r["bytes"] for r in data["files"]) == data["bytes"] and \
        data["files_others"] == 0
    table = html[html.index("<h2>Files</h2>"):]
    a = next(p for p in done if p.endswith("/a"))
    assert "\x1b" not in html
    assert table.index(">%s<" % a) < table.index(escaped + "<")


def test_snoop_files_keeps_no_filesystem_busy(iolens, loop, ext4, tracer):
    """snoop -F opens a file by handle on its filesystem's mount to name
    it, and lets the mount go: the filesystem unmounts while snoop runs,
    its file named before."""
    t = tracer(["snoop", "-j", "-F", "-d", loop.name])
    path = os.path.join(str(ext4), "x")
    with open(path, "wb") as f:
        f.write(os.urandom(1 << 16))
        os.fsync(f.fileno())
    wait_idle(loop)
    # Drained every 20 ms, named when its line is made.
    time.sleep(0.5)
    p = subprocess.run(["umount", str(ext4)], capture_output=True, text=True)
    if p.returncode == 0:
        subprocess.run(["mount", "-o", "noatime", loop.dev, str(ext4)], check=True)
    recs, _ = json_lines(t.stop())
    assert p.returncode == 0, p.stderr
    assert any(r["file"] == path for r in recs)


def test_snoop_files_raw_device_direct_io(iolens, loop, tracer):
    """Direct reads of the raw device: asynchronous ones (fio's libaio),
    told by the block device's bio end function, are the device's;
    synchronous ones into shared anonymous memory (Python's mmap, many
    databases' buffer pools) take a path nothing tells, and are unknown,
    never taken for a file of the buffer's pages."""
    wait_idle(loop)
    t = tracer(["snoop", "-j", "-F", "-d", loop.name])
    io = DirectIO(loop.dev, MIB)
    for i in range(8):
        io.read(i * 4096, 4096)
    io.close()
    subprocess.run(["fio", "--name=raw", "--filename=" + loop.dev, "--rw=read",
                    "--bs=256k", "--offset=1m", "--size=1m", "--direct=1",
                    "--ioengine=libaio", "--iodepth=4", "--output-format=terse"],
                   check=True, capture_output=True)
    wait_idle(loop)
    recs, _ = json_lines(t.stop())
    small = [r for r in recs if r["op"] == "read" and r["sector"] < 2048]
    large = [r for r in recs if r["op"] == "read" and r["sector"] >= 2048]
    assert len(small) == 8 and sum(r["bytes"] for r in large) == MIB, recs
    assert all((r["file_kind"], r["file"], r["file_ino"]) == ("unknown", None, None)
               for r in small), small
    assert all((r["file_kind"], r["file"], r["file_dev"]) ==
               ("device", None, "%d:%d" % (loop.major, loop.minor)) for r in large), large


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


def direct_reads(mnt, sizes):
    """Files of `sizes` ({name: bytes}) written and fsync()ed on `mnt`:
    {path: size}; read() reads each whole with O_DIRECT, a MiB at a time."""
    paths = {}
    for name, size in sizes.items():
        path = os.path.join(str(mnt), name)
        with open(path, "wb") as f:
            f.write(os.urandom(size))
            os.fsync(f.fileno())
        paths[path] = size
    return paths


def read_direct(paths):
    for path, size in paths.items():
        io = DirectIO(path, MIB)
        for off in range(0, size, MIB):
            io.read(off, MIB)
        io.close()


def test_top_files_view_sums_files_and_their_reader(iolens, loop, ext4, background):
    """top -j -F: each frame lists its files, most bytes first; over the
    frames (a request is in one frame) the bytes each file read with
    O_DIRECT are what this process read, all by it (split bios too: a MiB
    is more than a loop device takes in one request), and nothing is
    written to them.  The first frame, in which the tracer attached, has
    none (null)."""
    paths = direct_reads(ext4, {"big": 4 * MIB, "small": MIB})
    wait_idle(loop)
    top = background(["top", "-j", "-F", "-d", "0.5"])
    top.wait_for("\n")
    read_direct(paths)
    wait_idle(loop)
    n = len(whole_lines(top.output()))
    end = time.time() + 10
    while len(whole_lines(top.output())) < n + 2 and time.time() < end:
        time.sleep(0.1)
    frames = [json.loads(l) for l in whole_lines(top.stop())]
    # The first frame began before the block tracer attached: none of
    # its files would be whole.
    assert frames[0]["files"] is None and len(frames) >= 3
    seen = {p: 0 for p in paths}
    for fr in frames[1:]:
        sizes = [f["read_bytes"] + f["write_bytes"] for f in fr["files"]]
        assert sizes == sorted(sizes, reverse=True), fr["files"]
        for f in fr["files"]:
            if f["file"] not in paths:
                continue
            assert f["file_kind"] == "direct" and f["write_bytes"] == 0, f
            assert [(p["pid"], p["bytes"]) for p in f["processes"]] == \
                [(os.getpid(), f["read_bytes"])] and f["others_bytes"] == 0, f
            seen[f["file"]] += f["read_bytes"]
    assert seen == paths


def readers(paths, user):
    """A shell of this user reading the first file over and over with
    O_DIRECT (dd, a child of it), and one of `user` reading the second
    through the descriptor it is given (its path is not the user's to
    walk): the two shells, each the leader of a session of its own."""
    mine, theirs = paths
    loop = "while :; do dd if=%s of=/dev/null iflag=direct bs=64k status=none; done"
    a = subprocess.Popen(["sh", "-c", loop % mine], start_new_session=True)
    fd = os.open(theirs, os.O_RDONLY)
    try:
        b = subprocess.Popen(["setpriv", "--reuid=%d" % user.uid, "--regid=%d" % user.gid,
                              "--clear-groups", "--", "sh", "-c", loop % "/dev/fd/%d" % fd],
                             pass_fds=(fd,), start_new_session=True)
    except BaseException:
        stop_readers([a])
        raise
    finally:
        os.close(fd)
    return a, b


def stop_readers(procs):
    for p in procs:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()


def files_bytes(background, args):
    """{path: bytes read} of top -j -F ARGS over three whole frames."""
    top = background(["top", "-j", "-F", "-d", "0.5"] + args)
    end = time.time() + 20
    while len(whole_lines(top.output())) < 4 and time.time() < end:
        time.sleep(0.1)
    frames = [json.loads(l) for l in whole_lines(top.stop())]
    seen = {}
    for fr in frames[1:4]:
        for f in fr["files"]:
            seen[f["file"]] = seen.get(f["file"], 0) + f["read_bytes"]
    return seen, frames[1:4]


def test_top_files_view_keeps_to_the_chosen_processes(iolens, loop, ext4, background,
                                                      plain_user):
    """top -F with -p, -u, -c: the files are those of the requests the
    chosen processes submitted, as their rows count them: -p a shell
    gives the file its dd children read, not the other user's; -u that
    user gives theirs only; -c of no command, none."""
    paths = direct_reads(ext4, {"mine": 4 * MIB, "theirs": 4 * MIB})
    mine, theirs = paths
    os.chmod(theirs, 0o644)
    a, b = readers(paths, plain_user)
    try:
        everyone, _ = files_bytes(background, [])
        assert everyone.get(mine, 0) > 0 and everyone.get(theirs, 0) > 0, everyone
        by_pid, frames = files_bytes(background, ["-p", str(a.pid)])
        assert by_pid.get(mine, 0) > 0 and theirs not in by_pid, by_pid
        for fr in frames:
            assert "files_unjudged_requests" in fr
            for f in fr["files"]:
                assert all(p["comm"] == "dd" for p in f["processes"]), f
        by_user, _ = files_bytes(background, ["-u", plain_user.name])
        assert by_user.get(theirs, 0) > 0 and mine not in by_user, by_user
        by_comm, _ = files_bytes(background, ["-c", "no-such-command"])
        assert mine not in by_comm and theirs not in by_comm, by_comm
    finally:
        stop_readers([a, b])


@pytest.fixture
def screen():
    yield from made_by(Tmux, Tmux.close)


def screen_while_reading(t, paths, pred):
    """The screen once pred holds of it, the files read over and over
    until then (20 s at the most)."""
    end = time.time() + 20
    s = t.screen()
    while not pred(s) and time.time() < end:
        read_direct(paths)
        s = t.screen()
    return s


def test_top_key_f_shows_the_files(iolens, loop, ext4, screen):
    """In the terminal, F turns the files view on: a file read over and
    over shows in it, named, with its reader; the filter key keeps the
    files of a path or a reader's pid; F again brings the processes
    back."""
    paths = direct_reads(ext4, {"hot": MIB})
    t = screen(220, 30)
    t.keys("%s top -d 0.5" % IOLENS, "Enter")
    t.wait_for(lambda s: "COMMAND" in s)
    t.keys("F")
    path = next(iter(paths))
    s = screen_while_reading(t, paths, lambda s: path in s)
    assert "PROCESSES" in s and path in s, s
    line = next(l for l in s.splitlines() if l.endswith(path))
    assert "[%d]" % os.getpid() in line, line
    t.keys("f", "no-such-file", "Enter")
    s = screen_while_reading(t, paths, lambda s: "matches the filter" in s)
    assert "No file of this frame matches the filter." in s and path not in s, s
    t.keys("f", *["BSpace"] * len("no-such-file"), str(os.getpid()), "Enter")
    s = screen_while_reading(t, paths, lambda s: path in s)
    assert path in s and "matches the filter" not in s, s
    t.keys("F")
    t.wait_for(lambda s: "COMMAND" in s and "PROCESSES" not in s)
