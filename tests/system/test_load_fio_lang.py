# SPDX-License-Identifier: GPL-2.0
"""fio's language as people use it: the command lines of the common fio
tutorials run under iolens load as fio 3.33 runs them, in a folder of a
real file system, with no --filename (the files are made as fio makes
them).  Each is run by fio and by iolens on the same file system, one
after the other; a count-bounded job must do exactly fio's I/Os, and the
device must see the same bytes for both."""
import math
import os
import re
import subprocess
import time

import pytest

from helpers import (IOLENS, OWN, Loop, TraceInstance, fio_doc, fio_json, flip_byte, load_json,
                     mounted_ext4, run_in, tracefs_instances)

# (name, fio's arguments scaled down from the tutorial's, count-bounded):
# sizes and runtimes are the tutorials' divided down the same way for both.
TUTORIALS = [
    # The posixaio random writes of the most-read fio tutorial, its three
    # lines: 4k by one job, 64k by 16 jobs at iodepth 16, 1 MiB blocks.
    ("posixaio-4k", ["--name=random-write", "--ioengine=posixaio", "--rw=randwrite",
                     "--bs=4k", "--size=16m", "--numjobs=1", "--iodepth=1",
                     "--runtime=1", "--time_based", "--end_fsync=1"], False),
    ("posixaio-16jobs", ["--name=random-write", "--ioengine=posixaio", "--rw=randwrite",
                         "--bs=64k", "--size=4m", "--numjobs=16", "--iodepth=16",
                         "--runtime=1", "--time_based", "--end_fsync=1"], False),
    ("posixaio-1m", ["--name=random-write", "--ioengine=posixaio", "--rw=randwrite",
                     "--bs=1m", "--size=32m", "--numjobs=1", "--iodepth=1",
                     "--runtime=1", "--time_based", "--end_fsync=1"], False),
    # The same 16 jobs bounded by their size: every block once.
    ("posixaio-16jobs-once", ["--name=random-write", "--ioengine=posixaio",
                              "--rw=randwrite", "--bs=64k", "--size=4m", "--numjobs=16",
                              "--iodepth=16", "--end_fsync=1"], True),
    # The first job of fio's own documentation: no filename, no engine.
    ("randomread", ["--name=randomread", "--rw=randread", "--size=16m"], True),
    # The null engine: the generator's ceiling, sized by filesize.
    ("null", ["--name=null", "--ioengine=null", "--filesize=1g", "--runtime=3s"], True),
    # Two jobs, the second a second later.
    ("startdelay", ["--name=first", "--rw=write", "--size=8m", "--end_fsync=1",
                    "--name=second", "--startdelay=1", "--rw=read", "--size=8m"], True),
]

# Jobs of several files (nrfiles): fio's names and sizes, size= shared
# among them (a tail short of a block unread), filesize= capping it,
# loops over all the files, on the engines that hold a file each.
NRFILES = [
    ("nrfiles-read", ["--name=files", "--rw=read", "--bs=4k", "--size=1m", "--nrfiles=4",
                      "--direct=1"], True),
    ("nrfiles-randread-loops", ["--name=files", "--rw=randread", "--bs=4k", "--size=200k",
                                "--nrfiles=4", "--loops=2", "--direct=1"], True),
    ("nrfiles-filesize", ["--name=files", "--rw=write", "--bs=4k", "--size=128k",
                          "--filesize=64k", "--nrfiles=4"], True),
    ("nrfiles-libaio", ["--name=files", "--rw=randwrite", "--bs=4k", "--size=1m", "--nrfiles=3",
                        "--ioengine=libaio", "--iodepth=8", "--direct=1"], True),
    ("nrfiles-io_uring", ["--name=files", "--rw=randread", "--bs=4k", "--size=1m", "--nrfiles=3",
                          "--ioengine=io_uring", "--registerfiles=1", "--iodepth=8",
                          "--direct=1", "--file_service_type=random"], True),
    ("nrfiles-mmap", ["--name=files", "--rw=read", "--bs=4k", "--size=512k", "--nrfiles=2",
                      "--ioengine=mmap"], True),
]


@pytest.fixture
def fs(root, tmp_path):
    """A fresh ext4 on a loop device of its own, mounted: the folder a user
    runs fio's tutorials in."""
    lo = Loop(size_mb=320)
    try:
        with mounted_ext4(lo.dev, tmp_path) as mnt:
            yield lo, mnt
    finally:
        lo.close()


def device_bytes(lo, before, trace):
    """Bytes read and written on the device since `before`, once every
    dirty page has gone to it; less the file system's metadata reads
    (block_rq_issue's "M"), which come to whichever tool first touches a
    block group's bitmaps."""
    subprocess.run(["sync"], check=True)
    after = lo.diskstats()
    meta = sum(nr * 512 for ev, rwbs, _, nr in trace.read()
               if ev == "block_rq_issue" and "R" in rwbs and "M" in rwbs)
    assert trace.overruns() == 0
    return ((after["r_sectors"] - before["r_sectors"]) * 512 - meta,
            (after["w_sectors"] - before["w_sectors"]) * 512)


def folder(where):
    """A new folder whose block group's metadata is already read: the
    first file made in a group reads its bitmaps, which is the file
    system's doing, not the tool's."""
    os.mkdir(where)
    with open(where / "warm", "w") as f:
        f.write("x")
        os.fsync(f.fileno())
    os.unlink(where / "warm")


def run_tool(cmd, lo, where, device=False):
    """The tool's run in `where`: its JSON, the device's bytes read and
    written with `device` (else None: a time-based run at full speed issues
    more requests than tracefs's buffer holds), its time, the files."""
    # What the tool before left dirty is written back first, not while
    # this one runs (an end_fsync would wait for it).
    os.sync()
    trace = TraceInstance(lo) if device else None
    try:
        before = lo.diskstats()
        t0 = time.monotonic()
        p = run_in(cmd + ["--output-format=json"], where)
        took = time.monotonic() - t0
        dev = device_bytes(lo, before, trace) if device else None
    finally:
        if trace:
            trace.close()
    assert p.returncode == 0, (cmd[0], p.stderr)
    doc = fio_doc(p.stdout)
    return doc, dev, took, sorted(os.listdir(where))


def run_both(fs, args, device=False):
    """fio's run of `args`, then iolens's, each in a folder of its own on
    the file system `fs`: {tool: what run_tool() gives}."""
    lo, mnt = fs
    out = {}
    for tool, cmd in (("fio", ["fio"]), ("iolens", [IOLENS, "load"])):
        folder(mnt / tool)
        out[tool] = run_tool(cmd + args, lo, mnt / tool, device)
    return out


@pytest.mark.parametrize("name,args,bounded", TUTORIALS + NRFILES,
                         ids=[t[0] for t in TUTORIALS + NRFILES])
def test_tutorial_runs_as_fio_runs_it(iolens, fs, name, args, bounded):
    runs = run_both(fs, args, device=bounded)
    theirs, fio_dev, fio_took, fio_files = runs["fio"]
    ours, our_dev, our_took, our_files = runs["iolens"]
    # The same jobs, by name, and the same files made, by name.
    assert [j["jobname"] for j in ours["jobs"]] == [j["jobname"] for j in theirs["jobs"]]
    assert our_files == fio_files
    for a, b in zip(ours["jobs"], theirs["jobs"]):
        assert a["error"] == b["error"] == 0
        done = [d for d in ("read", "write") if b[d]["total_ios"]]
        assert done and [d for d in ("read", "write") if a[d]["total_ios"]] == done
        for d in done:
            if bounded:
                assert a[d]["total_ios"] == b[d]["total_ios"], (a["jobname"], d)
                assert a[d]["io_bytes"] == b[d]["io_bytes"], (a["jobname"], d)
            else:
                # Time-based: the runtime asked for, as fio's; with
                # end_fsync, plus the file system's fsync, which takes
                # 0-300 ms here whoever asks.
                slack = 500 if "--end_fsync=1" in args else 200
                assert abs(a[d]["runtime"] - b[d]["runtime"]) <= slack, d
    if not bounded:
        return
    # The device: the reads exactly; the writes up to the file system's
    # own (journal, inode and bitmap blocks), which differ run to run.
    assert our_dev[0] == fio_dev[0], (our_dev, fio_dev)
    assert abs(our_dev[1] - fio_dev[1]) <= 512 << 10, (our_dev, fio_dev)
    if name == "startdelay":
        assert our_took >= 1 and fio_took >= 1
        for job in ours["jobs"]:
            d = "write" if job["jobname"] == "first" else "read"
            assert job[d]["runtime"] < 1000, "startdelay is not in the runtime"


@pytest.mark.parametrize("engine", ["mmap", "null"])
@pytest.mark.parametrize("rw", ["read", "randread", "write", "randwrite"])
def test_no_file_io_engines_same_io_as_fio(iolens, loop, engine, rw):
    """mmap (each I/O a memcpy to the mapping) and null (no I/O): the same
    count of I/Os as fio's engines of the same names."""
    args = ["--name=t", "--filename=" + loop.dev, "--rw=" + rw, "--bs=4k",
            "--size=8m", "--ioengine=" + engine, "--iodepth=8"]
    ours = load_json(args)["jobs"][0]
    theirs = fio_json(args)["jobs"][0]
    for d in ("read", "write"):
        assert ours[d]["total_ios"] == theirs[d]["total_ios"], d
    assert ours[rw.replace("rand", "")]["total_ios"] == 2048


@pytest.mark.parametrize("rw", ["randread", "randwrite"])
def test_mmap_direct_syncs_each_io_as_fio(iolens, loop, tmp_path, rw):
    """mmap with --direct, by strace: fio msyncs each I/O's page, reads
    too, and drops none (its posix_madvise(POSIX_MADV_DONTNEED) is a no-op
    in glibc); iolens makes the same calls: an msync of 4096 bytes per I/O
    and no madvise of an I/O's page."""
    args = ["--name=m", "--filename=" + loop.dev, "--rw=" + rw, "--bs=4k", "--size=1m",
            "--direct=1", "--ioengine=mmap"]
    for tool in ([IOLENS, "load"], ["fio"]):
        lines, p = straced(tool, args, tmp_path / (os.path.basename(tool[0]) + ".strace"),
                           "msync,madvise")
        assert p.returncode == 0, p.stderr
        syncs = [l for l in lines if re.match(r"\d+\s+msync\(0x[0-9a-f]+, 4096, MS_SYNC\) = 0$", l)]
        drops = [l for l in lines if re.match(r"\d+\s+madvise\(0x[0-9a-f]+, 4096, ", l)]
        assert len(syncs) == 256 and not drops, (tool[0], len(syncs), drops[:3])


# fio's options as iolens takes them, each against fio on the same file
# system: (id, arguments, what is compared beyond the jobs and the files
# left: "counts" exact I/Os and bytes, "runtime" the time of a paced job).
OPTIONS = [
    ("loops", ["--name=l", "--rw=read", "--size=1m", "--loops=3"], "counts"),
    ("unlink", ["--name=u", "--rw=write", "--size=1m", "--unlink=1"], "counts"),
    ("filename_format", ["--name=f", "--rw=write", "--size=1m", "--numjobs=2",
                         "--filename_format=data.$jobnum"], "counts"),
    ("blocksize", ["--name=b", "--rw=read", "--size=1m", "--blocksize=8k"], "counts"),
    ("buffered=0", ["--name=d", "--rw=randread", "--size=2m", "--buffered=0"], "counts"),
    ("fallocate=posix", ["--name=p", "--rw=write", "--size=1m", "--fallocate=posix"], "counts"),
    ("fallocate=none", ["--name=n", "--rw=randread", "--size=1m", "--fallocate=none"], "counts"),
    ("invalidate=0", ["--name=i", "--rw=read", "--size=1m", "--invalidate=0",
                      "--fadvise_hint=0"], "counts"),
    ("randrepeat=0", ["--name=r", "--rw=randread", "--size=1m", "--randrepeat=0",
                      "--random_generator=lfsr"], "counts"),
    ("thread", ["--name=t", "--rw=read", "--size=1m", "--thread", "--gtod_reduce=1",
                "--description=a job"], "counts"),
    ("sqthread_poll", ["--name=s", "--rw=randread", "--size=2m", "--direct=1",
                       "--ioengine=io_uring", "--iodepth=8", "--sqthread_poll=1"], "counts"),
    ("nonvectored=0", ["--name=v", "--rw=randread", "--size=2m", "--direct=1",
                       "--ioengine=io_uring", "--iodepth=8", "--nonvectored=0",
                       "--fixedbufs=0", "--registerfiles=0"], "counts"),
    ("io_size", ["--name=z", "--rw=read", "--size=1m", "--io_size=3m"], "counts"),
    ("number_ios", ["--name=n", "--rw=randread", "--size=1m", "--direct=1",
                    "--ioengine=libaio", "--iodepth=8", "--number_ios=100"], "counts"),
    ("rw=read:8k", ["--name=h", "--rw=read:8k", "--size=1m"], "counts"),
    ("rw=read:-8k", ["--name=g", "--rw=read:-8k", "--size=1m", "--io_limit=512k"], "counts"),
    # 16 pauses of 20 ms: 320 ms that a job ignoring them would not take.
    ("thinktime", ["--name=k", "--rw=randread", "--size=1m", "--direct=1",
                   "--thinktime=20ms", "--thinktime_blocks=16"], "runtime"),
    ("thinktime_blocks_type", ["--name=y", "--rw=randread", "--size=1m", "--direct=1",
                               "--ioengine=libaio", "--iodepth=4", "--thinktime=20000",
                               "--thinktime_spin=5ms", "--thinktime_blocks=16",
                               "--thinktime_blocks_type=issue"], "runtime"),
    ("rate", ["--name=q", "--rw=read", "--size=1m", "--rate=1m"], "runtime"),
    ("timeout", ["--name=o", "--rw=randread", "--size=1m", "--time_based",
                 "--timeout=1"], "runtime"),
]


@pytest.mark.parametrize("name,args,what", OPTIONS, ids=[o[0] for o in OPTIONS])
def test_option_as_fio_has_it(iolens, fs, name, args, what):
    runs = run_both(fs, args)
    theirs, _, _, fio_files = runs["fio"]
    ours, _, _, our_files = runs["iolens"]
    assert our_files == fio_files
    assert [j["jobname"] for j in ours["jobs"]] == [j["jobname"] for j in theirs["jobs"]]
    for a, b in zip(ours["jobs"], theirs["jobs"]):
        assert a["error"] == b["error"] == 0
        assert a.get("desc") == b.get("desc")
        for d in ("read", "write"):
            if what == "counts":
                assert a[d]["total_ios"] == b[d]["total_ios"], d
                assert a[d]["io_bytes"] == b[d]["io_bytes"], d
            elif b[d]["total_ios"]:
                assert abs(a[d]["runtime"] - b[d]["runtime"]) <= 150, d


def test_allow_file_create_0_makes_nothing(iolens, fs):
    lo, mnt = fs
    p = run_in([IOLENS, "load", "--name=a", "--rw=read", "--size=1m",
                "--allow_file_create=0"], mnt)
    assert p.returncode == 2 and p.stdout == ""
    assert "a.0.0" in p.stderr and "allow_file_create=0" in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1
    assert not (mnt / "a.0.0").exists()


def ranks(sectors):
    """For each I/O, the rank of its block among the run's blocks by how
    often they were hit (0 the most): the shape of the distribution, apart
    from where each tool puts its hottest blocks."""
    hits = {}
    for s in sectors:
        hits[s] = hits.get(s, 0) + 1
    order = {s: r for r, s in enumerate(sorted(hits, key=lambda s: (-hits[s], s)))}
    return sorted(order[s] for s in sectors)


def ks(a, b):
    """The two-sample Kolmogorov-Smirnov statistic of sorted samples."""
    i = j = 0
    d = 0.0
    while i < len(a) and j < len(b):
        v = min(a[i], b[j])
        while i < len(a) and a[i] == v:
            i += 1
        while j < len(b) and b[j] == v:
            j += 1
        d = max(d, abs(i / len(a) - j / len(b)))
    return d


def issues_of(tool, lo, args):
    """(stamp, rwbs, sector) of each request issued to `lo` while `tool`
    ran with `args`, from the block layer's own events."""
    trace = TraceInstance(lo)
    try:
        p = subprocess.run(tool + args, capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        got = [(e[0], e[2], e[3]) for e in trace.read_timed() if e[1] == "block_rq_issue"]
        assert trace.overruns() == 0
    finally:
        trace.close()
    return got


def issued_sectors(tool, lo, args):
    """The sectors of the reads `tool` issued to `lo`, in order."""
    return [sector for _, rwbs, sector in issues_of(tool, lo, args) if "R" in rwbs]


@pytest.mark.parametrize("dist", ["zipf:1.2", "zipf", "pareto:0.2", "normal", "normal:30:0.25",
                                  "zoned:50/5:30/15:20/"])
def test_random_distribution_as_fios(iolens, root, dist):
    """The hits over the blocks of a random_distribution job, read from the
    block layer's own events, are fio's: a two-sample Kolmogorov-Smirnov
    test on each I/O's block rank, which the uniform distribution fails.
    The ranks are taken within each sample (ties among blocks hit alike
    broken by sector), which spreads the statistic wider than the KS table
    assumes: the level is the table's 0.01% (c = 2.23)."""
    lo = Loop(size_mb=64)
    try:
        args = ["--name=z", "--filename=" + lo.dev, "--rw=randread", "--bs=4k",
                "--size=16m", "--direct=1", "--norandommap", "--randrepeat=0"]
        ours = ranks(issued_sectors([IOLENS, "load"], lo, args + ["--random_distribution=" + dist]))
        theirs = ranks(issued_sectors(["fio"], lo, args + ["--random_distribution=" + dist]))
        flat = ranks(issued_sectors(["fio"], lo, args))
    finally:
        lo.close()
    assert len(ours) == len(theirs) == 4096
    crit = 2.23 * (2 / 4096) ** 0.5
    assert ks(ours, theirs) < crit, (ks(ours, theirs), crit)
    assert ks(ours, flat) > crit


@pytest.mark.parametrize("dist,center", [("normal", 0), ("normal:30:0.25", 0.75)])
def test_normal_puts_blocks_where_fio_does(iolens, root, dist, center):
    """fio's normal distribution scatters its ranks over the blocks by a
    multiply with the 64-bit golden ratio and no random offset (the center
    moves them, by a fraction of the range): on 4096 blocks that is a
    permutation, undone here.  The ranks of iolens's reads are fio's (a
    two-sample KS test at 0.01%), bunched around the middle as a uniform
    sample is not."""
    n = 4096
    inv = pow(0x61C8864680B583EB, -1, n)
    lo = Loop(size_mb=16)
    try:
        args = ["--name=z", "--filename=" + lo.dev, "--rw=randread", "--bs=4k",
                "--size=16m", "--direct=1", "--norandommap", "--randrepeat=0",
                "--random_distribution=" + dist]

        def unhashed(tool):
            blocks = [s * 512 // 4096 for s in issued_sectors(tool, lo, args)]
            return sorted((b - int(n * center)) * inv % n for b in blocks)
        ours = unhashed([IOLENS, "load"])
        theirs = unhashed(["fio"])
    finally:
        lo.close()
    assert len(ours) == len(theirs) == n
    crit = 1.95 * (2 / n) ** 0.5
    assert ks(ours, theirs) < crit, (ks(ours, theirs), crit)
    assert ks(ours, list(range(n))) > crit
    assert n * 0.4 < ours[n // 2] < n * 0.6


@pytest.mark.parametrize("seq", ["sequential", "identical"])
def test_rw_sequencer_as_fios(iolens, root, seq):
    """rw=randread:8: one I/O in 8 at a random offset, the first among
    them, the 7 between after the one before (rw_sequencer=sequential) or
    at it again (identical): the requests the block layer saw follow that
    rule for iolens as for fio, 1024 of them for 4 MiB, and the random ones
    are spread over the range, not each after the one before.  A step that
    would pass the end is a random one, as fio's."""
    lo = Loop(size_mb=4)
    try:
        args = ["--name=s", "--filename=" + lo.dev, "--rw=randread:8", "--bs=4k",
                "--size=4m", "--direct=1", "--rw_sequencer=" + seq]
        runs = {t: issued_sectors(c, lo, args)
                for t, c in (("iolens", [IOLENS, "load"]), ("fio", ["fio"]))}
    finally:
        lo.close()
    step = 8 if seq == "sequential" else 0
    for tool, sectors in runs.items():
        assert len(sectors) == 1024, tool
        between = [k for k in range(1, 1024) if k % 8]
        odd = [k for k in between if sectors[k] != sectors[k - 1] + step]
        assert all(sectors[k - 1] + 8 >= 8192 for k in odd), (tool, odd)
        jumps = [k for k in range(8, 1024, 8) if sectors[k] != sectors[k - 1] + step]
        assert len(jumps) > 100, (tool, len(jumps))


@pytest.mark.parametrize("rw", ["read", "randread"])
def test_strided_zones_as_fios(iolens, root, rw):
    """zonemode=strided: 256 KiB done in each zone of 128 KiB (twice over),
    then 1 MiB on, back at the start past the device's end.  Sequential:
    the very same requests as fio's, in the same order; random: the same
    zones in the same order, each block of a zone once per pass over it."""
    lo = Loop(size_mb=8)
    try:
        args = ["--name=z", "--filename=" + lo.dev, "--rw=" + rw, "--bs=64k",
                "--size=2m", "--direct=1", "--zonemode=strided", "--zonesize=256k",
                "--zonerange=128k", "--zoneskip=1m"]
        ours = issued_sectors([IOLENS, "load"], lo, args)
        theirs = issued_sectors(["fio"], lo, args)
    finally:
        lo.close()
    assert len(ours) == len(theirs) == 32
    if rw == "read":
        assert ours == theirs
    else:
        zone = 128 << 10 >> 9
        assert [s // zone for s in ours] == [s // zone for s in theirs]
        for k in range(0, 32, 4):
            assert sorted(ours[k:k + 4]) == sorted(theirs[k:k + 4])


def straced(tool, args, log, calls, cwd=None):
    """The lines strace wrote to `log` of the system calls `calls` that
    `tool` made, following every thread and process; and its run."""
    # LeakSanitizer stops the world with ptrace, which strace holds: in the
    # sanitizer build it dies at exit.  ASan itself stays on.
    env = dict(os.environ, ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0")
    p = subprocess.run(["strace", "-f", "-qq", "-e", "trace=" + calls,
                        "-e", "signal=none", "-o", str(log)] + tool + args,
                       capture_output=True, text=True, timeout=120, env=env, cwd=cwd)
    return joined(log.read_text().splitlines()), p


def joined(lines):
    """strace's lines with each call that another thread's call cut in two
    ("<unfinished ...>", then "<... name resumed>") written whole again, in
    the place where it ended."""
    cut, whole = {}, []
    for line in lines:
        pid, _, rest = line.partition(" ")
        if line.endswith(" <unfinished ...>"):
            cut[pid] = rest[:-len(" <unfinished ...>")]
            continue
        m = re.match(r"\s*<\.\.\. \w+ resumed>\s?(.*)", rest)
        if m and pid in cut:
            line = pid + " " + cut.pop(pid) + m.group(1)
        whole.append(line)
    return whole


def aio_calls(tool, args, tmp_path):
    """The io_submit and io_getevents calls `tool` made, in order, each
    with what it returned (I/Os submitted or reaped), by strace."""
    lines, p = straced(tool, args, tmp_path / (os.path.basename(tool[0]) + ".strace"),
                       "io_submit,io_getevents")
    assert p.returncode == 0, p.stderr
    calls = []
    for line in lines:
        m = re.match(r"\d+\s+(io_submit|io_getevents)\(.*\)\s+=\s+(-?\d+)", line)
        if m:
            calls.append((m.group(1), int(m.group(2))))
    return calls


def aio_args(loop, batching):
    return ["--name=b", "--filename=" + loop.dev, "--rw=randread", "--bs=4k", "--size=1m",
            "--direct=1", "--ioengine=libaio", "--iodepth=16"] + batching


@pytest.mark.parametrize("tool", ["iolens", "fio"])
def test_iodepth_batch_submit_and_complete_min(iolens, loop, tmp_path, tool):
    """iodepth_batch_submit=16 with iodepth_batch_complete_min=16: a batch
    of 16 out, all 16 back, again; 256 I/Os in 16 calls of each, by
    strace, for fio as for iolens."""
    calls = aio_calls([IOLENS, "load"] if tool == "iolens" else ["fio"],
                      aio_args(loop, ["--iodepth_batch_submit=16",
                                      "--iodepth_batch_complete_min=16"]), tmp_path)
    assert calls == [("io_submit", 16), ("io_getevents", 16)] * 16


@pytest.mark.parametrize("tool", ["iolens", "fio"])
@pytest.mark.parametrize("low", [4, None])
def test_iodepth_low(iolens, loop, tmp_path, tool, low):
    """iodepth_low=4 (fio's other names for the batch options, and one
    completion a call): once the 16 slots are full, the queue is refilled
    only when 4 or fewer are in flight, by the I/Os submitted and reaped
    that strace counts; without it, at 15."""
    batching = ["--iodepth_batch=12", "--iodepth_batch_complete_max=1"]
    if low:
        batching.append("--iodepth_low=%d" % low)
    calls = aio_calls([IOLENS, "load"] if tool == "iolens" else ["fio"],
                      aio_args(loop, batching), tmp_path)
    inflight, peak, refills = 0, 0, []
    for k, (call, n) in enumerate(calls):
        if call == "io_submit" and k and calls[k - 1][0] == "io_getevents":
            refills.append(inflight)
        inflight += n if call == "io_submit" else -n
        peak = max(peak, inflight)
    assert inflight == 0 and peak == 16
    assert sum(n for call, n in calls if call == "io_getevents") == 256
    # One completion a call, but for fio's reap of all that are left as
    # the job ends.
    reaped = [n for call, n in calls if call == "io_getevents"]
    assert all(n == 1 for n in reaped[:-1])
    assert refills and max(refills) == (low or 15), refills


def submit_gaps_ms(tool, args, cgroup):
    """The gaps, in ms, between the submits of the first 8 I/Os of `tool`
    run in `cgroup`, by the kernel's events of its io_submit calls (each
    call counted as many times as it has I/Os)."""
    path = os.path.join(tracefs_instances(), OWN + "submit")
    event = os.path.join(path, "events/syscalls/sys_enter_io_submit/enable")
    os.mkdir(path)
    try:
        for rel, value in (("trace_clock", "mono"), (event, "1")):
            with open(os.path.join(path, rel), "w") as f:
                f.write(value)
        p = subprocess.run(["sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', cgroup]
                           + tool + args, capture_output=True, text=True, timeout=120)
        with open(os.path.join(path, "trace")) as f:
            text = f.read()
    finally:
        with open(event, "w") as f:
            f.write("0")
        os.rmdir(path)
    assert p.returncode == 0, p.stderr
    stamps = []
    for m in re.finditer(r" (\d+\.\d+): sys_io_submit\(ctx_id: \w+, nr: (\w+)", text):
        stamps += [float(m.group(1))] * int(m.group(2), 16)
    assert len(stamps) == 8, text
    return [(b - a) * 1000 for a, b in zip(stamps, stamps[1:])]


@pytest.mark.parametrize("mode", ["offload", "inline"])
def test_io_submit_mode_offload_keeps_the_rate(iolens, loop, blkio_cgroups, mode):
    """io_submit_mode=offload with rate_iops=50 on a device far slower
    than that (the cgroup's throttle lets 256 KiB/s through: a 64 KiB read
    takes 250 ms): the 8 reads are submitted every 20 ms all the same, by
    the kernel's clock; inline, a submit waits for a completion (the
    first's) and the others go late, at once.  fio 3.33 is not run: its
    offload threads hang at exit in about one run in three on this
    throttled device (all in futex waits); in the runs that ended, its
    eighth read went 127 ms after the first."""
    _, cg = blkio_cgroups("offload")
    st = os.stat(loop.dev).st_rdev
    dev = "%d:%d" % (os.major(st), os.minor(st))
    if os.path.exists(os.path.join(cg, "blkio.throttle.read_bps_device")):
        limit = ("blkio.throttle.read_bps_device", "%s %d" % (dev, 256 << 10))
    else:
        limit = ("io.max", "%s rbps=%d" % (dev, 256 << 10))
    with open(os.path.join(cg, limit[0]), "w") as f:
        f.write(limit[1])
    args = ["--name=o", "--filename=" + loop.dev, "--rw=randread", "--bs=64k", "--direct=1",
            "--ioengine=libaio", "--iodepth=8", "--rate_iops=50", "--number_ios=8",
            "--io_submit_mode=" + mode]
    gaps = submit_gaps_ms([IOLENS, "load"], args, cg)
    if mode == "offload":
        assert all(10 <= g <= 30 for g in gaps), gaps
    else:
        assert max(gaps) > 150, gaps


def issue_gaps(lo, args):
    """The gaps, in seconds, between the requests iolens load issues to
    `lo`, from the block layer's own time stamps."""
    stamps = [stamp for stamp, _, _ in issues_of([IOLENS, "load"], lo, args)]
    return [b - a for a, b in zip(stamps, stamps[1:])]


def test_rate_process_poisson(iolens, loop):
    """rate_process=poisson: the gaps between issues are exponential with
    the rate's mean, by Kolmogorov-Smirnov at 0.1% against the exponential
    of the mean asked; linear's evenly spaced gaps fail the same test.  A
    mean gap of 10 ms: a job wakes some tens of microseconds late and
    waits for each I/O (fio's sync engines too), which a mean of a few
    hundred microseconds would show."""
    args = ["--name=p", "--filename=" + loop.dev, "--rw=randread", "--bs=4k",
            "--size=16m", "--direct=1", "--rate_iops=100", "--runtime=4",
            "--time_based"]
    mean = 1 / 100

    def ks_exp(gaps):
        gaps = sorted(gaps)
        n = len(gaps)
        return max(max(abs((i + 1) / n - (1 - math.exp(-g / mean))),
                       abs(i / n - (1 - math.exp(-g / mean))))
                   for i, g in enumerate(gaps))

    poisson = issue_gaps(loop, args + ["--rate_process=poisson"])
    linear = issue_gaps(loop, args)
    assert abs(sum(poisson) / len(poisson) - mean) < 0.15 * mean
    crit = 1.95 / len(poisson) ** 0.5
    assert ks_exp(poisson) < crit, (ks_exp(poisson), crit)
    assert ks_exp(linear) > crit


def test_verify_reads_back_what_it_wrote(iolens, loop):
    """verify=crc32c: the job's writes, then as many reads of them, as
    fio's counts."""
    args = ["--name=v", "--filename=" + loop.dev, "--rw=randwrite", "--bs=4k",
            "--size=4m", "--direct=1", "--verify=crc32c"]
    ours, theirs = load_json(args)["jobs"][0], fio_json(args)["jobs"][0]
    for d in ("read", "write"):
        assert ours[d]["total_ios"] == theirs[d]["total_ios"] == 1024, d
    assert ours["error"] == theirs["error"] == 0


@pytest.mark.parametrize("kind,digest", [
    ("crc32c", 4), ("crc32c-intel", 4), ("crc32", 4), ("xxhash", 4), ("md5", 16),
    ("sha1", 20), ("sha256", 32), ("sha384", 48), ("sha512", 64)])
def test_verify_finds_the_flipped_byte(iolens, loop, tmp_path, kind, digest):
    """A byte of the device flipped between the write and the verify pass
    (verify_only): iolens names the block that holds it, as fio does, and
    fails with fio's EILSEQ, for each checksum fio has that iolens takes;
    the line gives the digest expected and the one found.  Run in a folder
    of their own: fio leaves its verify state file where it runs."""
    flip = 1234567
    block = flip // 4096 * 4096
    args = ["--name=v", "--filename=" + loop.dev, "--rw=randwrite", "--bs=4k",
            "--size=4m", "--direct=1", "--verify=" + kind]
    found = {}
    tools = (("fio", r"verify failed at file \S+ offset (\d+)"),
             ("iolens", r"verify failed in the block at offset (\d+)"))
    # fio 3.33's sha384 and sha512 keep the hash's input buffer where the
    # digest belongs (crc/sha512.c: the context's buf; the hash is never
    # finished), so a byte flipped before a block's last 128 goes unseen.
    if kind in ("sha384", "sha512"):
        tools = tools[1:]
    for tool, said in tools:
        cmd = ["fio"] if tool == "fio" else [IOLENS, "load"]
        p = subprocess.run(cmd + args + ["--do_verify=0"], capture_output=True, text=True,
                           cwd=tmp_path)
        assert p.returncode == 0, p.stderr
        flip_byte(loop.dev, flip)
        p = subprocess.run(cmd + args + ["--verify_only", "--output-format=json"],
                           capture_output=True, text=True, cwd=tmp_path)
        assert p.returncode != 0
        assert fio_doc(p.stdout)["jobs"][0]["error"] == 84  # EILSEQ
        m = re.search(said, p.stderr)
        assert m, p.stderr
        found[tool] = int(m.group(1))
    assert set(found.values()) == {block} and "iolens" in found
    name = "crc32c" if kind == "crc32c-intel" else kind
    m = re.search(r"%s at offset (\d+): expected ([0-9a-f]+), found ([0-9a-f]+)" % name, p.stderr)
    assert m and block <= int(m.group(1)) < block + 4096, p.stderr
    assert len(m.group(2)) == len(m.group(3)) == 2 * digest and m.group(2) != m.group(3)


@pytest.mark.parametrize("what", ["wait_for", "exitall"])
def test_jobs_start_and_end_as_fios(iolens, fs, what):
    """wait_for: b starts once a has ended (two half-second jobs take a
    second, not half); exitall: a short job ending (a quarter second) stops
    a long one of its group (four seconds' worth at its rate) at once."""
    if what == "wait_for":
        args = ["--name=a", "--rw=read", "--size=1m", "--rate=2m",
                "--name=b", "--rw=read", "--size=1m", "--rate=2m", "--wait_for=a"]
    else:
        args = ["--name=a", "--rw=read", "--size=1m", "--rate=256k",
                "--name=b", "--rw=read", "--size=256k", "--rate=1m", "--exitall"]
    took = {}
    for tool, (doc, _, took[tool], _) in run_both(fs, args).items():
        a, b = doc["jobs"]
        assert b["read"]["total_ios"] == (64 if what == "exitall" else 256), tool
        if what == "exitall":
            assert 0 < a["read"]["total_ios"] < 128, tool
    if what == "wait_for":
        assert min(took.values()) >= 0.95, took
    else:
        assert max(took.values()) < 2.0, took


@pytest.mark.parametrize("sleep", ["0", "500"])
def test_flow_shares_ios_by_weight(iolens, fs, sleep):
    """flow: two jobs of one flow_id with weights 1 and 3 do their I/Os
    1:3, as fio's, whether the one ahead sleeps (flow_sleep) or retries."""
    args = ["--filename=f", "--size=4m", "--time_based", "--runtime=1", "--direct=1",
            "--ioengine=libaio", "--iodepth=16", "--flow_sleep=" + sleep,
            "--name=a", "--rw=randread", "--flow=1",
            "--name=b", "--rw=randread", "--flow=3"]
    for tool, (doc, _, _, _) in run_both(fs, args).items():
        a, b = (j["read"]["total_ios"] for j in doc["jobs"])
        assert a > 100 and 2.4 < b / a < 3.6, (tool, a, b)


@pytest.mark.parametrize("tool", ["fio", "iolens"])
def test_create_on_open_makes_the_file_as_the_job_starts(iolens, fs, tmp_path, tool):
    """create_on_open: a job's missing file is made as the job starts, not
    before the run: b's, behind a stonewall, by an open with O_CREAT after
    every read of job a (strace's order); without it, iolens makes it
    before a reads.  No layout: b's file is what b wrote.  A read job's
    file is made empty, and its first read finds the end: error 5."""
    lo, mnt = fs
    where = mnt / tool
    folder(where)
    cmd = ["fio"] if tool == "fio" else [IOLENS, "load"]
    a = ["--name=a", "--rw=read", "--bs=64k", "--size=1m", "--ioengine=psync",
         "--filename=a"]
    for coo in ("1", "0") if tool == "iolens" else ("1",):
        if (where / "b").exists():
            os.unlink(where / "b")
        b = ["--name=b", "--stonewall", "--rw=write", "--bs=64k", "--size=1m",
             "--filename=b", "--create_on_open=" + coo]
        lines, p = straced(cmd, a + b + ["--output-format=json"],
                           tmp_path / ("%s-%s.strace" % (tool, coo)), "openat,pread64", where)
        assert p.returncode == 0, p.stderr
        # a's reads (not the dynamic loader's of the libraries)
        reads = [i for i, x in enumerate(lines) if re.search(r"pread64\(.*, 65536, \d+\) = 65536", x)]
        made = [i for i, x in enumerate(lines) if '"b", ' in x and "O_CREAT" in x]
        assert len(reads) >= 16 and made, lines
        if coo == "1":
            assert made[0] > reads[-1], (tool, lines)
        else:
            assert made[0] < reads[0], lines
        assert [j["write"]["io_bytes"] for j in fio_doc(p.stdout)["jobs"]] == [0, 1 << 20]
        assert os.path.getsize(where / "b") == 1 << 20
    p = run_in(cmd + ["--name=r", "--rw=read", "--size=1m", "--filename=r",
                      "--create_on_open=1", "--output-format=json"], where)
    assert p.returncode != 0
    assert fio_doc(p.stdout)["jobs"][0]["error"] == 5
    assert os.path.getsize(where / "r") == 0
    if tool == "iolens":
        assert "read (no byte: the file's end) at offset 0" in p.stderr, p.stderr


def file_order(lines):
    """(file, 4 KiB block) of each 4 KiB pread64 in strace's lines, the
    file by the number in its name (j.0.N) that its open gave the fd
    (iolens opens it in the folder openat2 resolved: an fd, not
    AT_FDCWD)."""
    fds, order = {}, []
    for line in lines:
        m = re.search(r'openat\((?:AT_FDCWD|\d+), "j\.0\.(\d+)".*\) = (\d+)$', line)
        if m:
            fds[m.group(2)] = int(m.group(1))
        m = re.search(r"pread64\((\d+), .*, 4096, (\d+)\) = 4096$", line)
        if m and m.group(1) in fds:
            order.append((fds[m.group(1)], int(m.group(2)) // 4096))
    return order


@pytest.mark.parametrize("fst", ["roundrobin", "roundrobin:2", "sequential", "random"])
def test_file_service_type_as_fios(iolens, fs, tmp_path, fst):
    """nrfiles=3, 8 blocks each: the reads go to the files in fio's order
    for file_service_type (strace's preads, each fd known by its open):
    in turn, two at a time, one file to its end then the next; random:
    each block of each file once, in no fixed order of files."""
    lo, mnt = fs
    orders = {}
    for tool, cmd in (("fio", ["fio"]), ("iolens", [IOLENS, "load"])):
        where = mnt / (tool + "-" + fst.replace(":", "-"))
        folder(where)
        args = ["--name=j", "--rw=read", "--bs=4k", "--size=96k", "--nrfiles=3",
                "--ioengine=psync", "--file_service_type=" + fst]
        lines, p = straced(cmd, args, tmp_path / (tool + ".strace"), "openat,pread64", where)
        assert p.returncode == 0, p.stderr
        orders[tool] = file_order(lines)
        assert sorted(orders[tool]) == [(f, b) for f in range(3) for b in range(8)], tool
    if fst == "random":
        turns = [f for f, _ in orders["iolens"]]
        assert turns != sorted(turns) and turns != [0, 1, 2] * 8, turns
        for f in range(3):
            assert [b for g, b in orders["iolens"] if g == f] == list(range(8))
    else:
        assert orders["iolens"] == orders["fio"]


def test_directory_holds_a_named_file_too(iolens, fs):
    """fio puts --directory before a relative --filename as well."""
    lo, mnt = fs
    for tool in ("fio", "iolens"):
        folder(mnt / tool)
        (mnt / tool / "sub").mkdir()
    args = ["--name=d", "--rw=write", "--size=1m", "--directory=sub", "--filename=f"]
    run_tool(["fio"] + args, lo, mnt / "fio")
    run_tool([IOLENS, "load"] + args, lo, mnt / "iolens")
    assert os.listdir(mnt / "iolens" / "sub") == os.listdir(mnt / "fio" / "sub") == ["f"]


@pytest.mark.parametrize("args,said", [
    (["--ioengine=null", "--size=1k"], "smaller than the block size"),
    (["--ioengine=null", "--rw=write", "--size=1m", "--verify=crc32c"], "no file"),
    (["--rw=write", "--size=1m", "--verify=crc32c", "--bsrange=4k-8k"], "one block size"),
    (["--rw=randread", "--size=1m", "--random_distribution=zoned:150/5:50/"], "zoned:"),
    (["--rw=randread", "--size=1m", "--random_distribution=zipf:nan"], "theta"),
    (["--rw=randread", "--size=1m", "--random_distribution=normal:100"], "normal's deviation"),
    (["--rw=randread", "--size=1m", "--random_distribution=pareto:0.2:2"], "center"),
    (["--rw=randread:0", "--size=1m"], "randread:8"),
    (["--rw=randread:8", "--rw_sequencer=backwards", "--size=1m"], "identical"),
    (["--rw=read", "--size=1m", "--zonesize=128k"], "zonemode=none and zonesize"),
    (["--rw=read", "--size=1m", "--zonemode=strided"], "needs zonesize"),
    (["--rw=write", "--size=1m", "--zonemode=strided", "--zonesize=128k",
      "--verify=crc32c"], "zonemode=strided with --verify"),
    (["--rw=read", "--size=1m", "--wait_for=j2", "--name=j2", "--rw=read", "--size=1m"],
     "wait_for=j2: no job of that name before it"),
])
def test_what_cannot_work_is_one_line(iolens, fs, args, said):
    """A job that cannot do what it asks is refused before anything is
    made: one line saying why, exit 2."""
    lo, mnt = fs
    p = run_in([IOLENS, "load", "--name=j"] + args, mnt)
    assert p.returncode == 2 and p.stdout == "", p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and said in lines[0], lines
    assert not [f for f in os.listdir(mnt) if f.startswith("j")]
