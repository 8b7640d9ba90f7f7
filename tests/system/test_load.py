# SPDX-License-Identifier: GPL-2.0
"""iolens load against fio 3.33 and against the kernel's own counts: the
same job gives the same I/O as fio, the I/O it reports is the I/O the device
saw (/proc/diskstats, tracefs), fio's JSON keys are there with fio's types,
and every refusal writes nothing."""
import json
import os
import signal
import subprocess
import tempfile
import time

import pytest

from helpers import (ENGINES, IOLENS, SYNC_ENGINES, OWN, TMPFS, Loop, TraceInstance, digest, fio_json, load,
                     load_json, refused, wait_idle)


def job_args(dev, rw, engine, size="8m", bs="4k"):
    return ["--name=t", "--filename=" + dev, "--rw=" + rw, "--bs=" + bs,
            "--size=" + size, "--direct=1", "--ioengine=" + engine,
            "--iodepth=%d" % (1 if engine in SYNC_ENGINES else 16)]


@pytest.fixture
def loop4k(root):
    lo = Loop(sector_size=4096)
    try:
        yield lo
    finally:
        lo.close()


@pytest.fixture
def mountpoint():
    d = tempfile.mkdtemp(prefix=OWN)
    try:
        yield d
    finally:
        subprocess.run(["umount", d], capture_output=True)
        os.rmdir(d)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("rw", ["read", "randread", "write", "randwrite"])
def test_same_io_as_fio(iolens, loop, engine, rw):
    args = job_args(loop.dev, rw, engine)
    ours = load_json(args)["jobs"][0]
    theirs = fio_json(args)["jobs"][0]
    for d in ("read", "write", "trim"):
        assert ours[d]["total_ios"] == theirs[d]["total_ios"], d
        assert ours[d]["io_bytes"] == theirs[d]["io_bytes"], d
    assert ours[rw.replace("rand", "")]["total_ios"] == 2048


@pytest.mark.fast
@pytest.mark.parametrize("engine", ENGINES)
def test_diskstats_see_what_it_reports(iolens, loop, engine):
    for rw, d, field in (("randread", "read", "r"), ("randwrite", "write", "w")):
        wait_idle(loop)
        before = loop.diskstats()
        job = load_json(job_args(loop.dev, rw, engine))["jobs"][0][d]
        # The last request's bios end (the load's I/O completes) before
        # blk_account_io_done() counts it.
        wait_idle(loop)
        after = loop.diskstats()
        # Adjacent requests in one plug may merge: requests + merges is
        # the number of I/Os submitted.
        ios = (after[field + "_ios"] - before[field + "_ios"] +
               after[field + "_merges"] - before[field + "_merges"])
        assert ios == job["total_ios"] == 2048
        assert (after[field + "_sectors"] - before[field + "_sectors"]) * 512 == \
            job["io_bytes"]


@pytest.mark.parametrize("sizes", [[], ["--bssplit=512/10:4k/60:64k/30"],
                                   ["--bsrange=4k-64k"]])
def test_randread_touches_every_block_once(iolens, loop, sizes):
    """The random map, as fio's: each block once a pass, also with several
    sizes, where an I/O that would reach a block read before is cut short
    there (fio's axmap), and the job's bytes are size= exactly."""
    size = 16 << 20
    args = job_args(loop.dev, "randread", "io_uring", size="16m") + sizes
    trace = TraceInstance(loop)
    try:
        job = load_json(args)["jobs"][0]["read"]
        issues = [e for e in trace.read() if e[0] == "block_rq_issue" and "R" in e[1]]
        assert trace.overruns() == 0
    finally:
        trace.close()
    assert job["io_bytes"] == fio_json(args)["jobs"][0]["read"]["io_bytes"] == size
    if not sizes:
        assert job["total_ios"] == size // 4096
    seen = bytearray(size // 512)
    for _, _, sector, nr in issues:
        for s in range(sector, sector + nr):
            seen[s] += 1
    assert set(seen) == {1}, "some sector read twice or never"
    # And not in order: a sequential read would follow on almost always.
    follow = sum(1 for a, b in zip(issues, issues[1:]) if b[2] == a[2] + a[3])
    assert follow < len(issues) // 10


def test_norandommap_may_repeat(iolens, loop):
    trace = TraceInstance(loop)
    try:
        load_json(job_args(loop.dev, "randread", "psync", size="4m") +
                  ["--norandommap"])
        sectors = [e[2] for e in trace.read() if e[0] == "block_rq_issue"]
    finally:
        trace.close()
    assert len(sectors) == 1024
    assert len(set(sectors)) < len(sectors)
    assert all(s % 8 == 0 and s < (4 << 20) // 512 for s in sectors)


FIO_KEYS = {
    "read": dict, "write": dict, "trim": dict, "jobname": str, "error": int,
    "job options": dict, "usr_cpu": float, "sys_cpu": float, "ctx": int,
    "iodepth_level": dict,
}
DIR_KEYS = {
    "io_bytes": int, "io_kbytes": int, "bw_bytes": int, "bw": int,
    "iops": float, "runtime": int, "total_ios": int, "short_ios": int,
    "drop_ios": int, "slat_ns": dict, "clat_ns": dict, "lat_ns": dict,
}
LAT_KEYS = {"min": int, "max": int, "mean": float, "stddev": float, "N": int}


def test_json_has_fios_keys_types_and_units(iolens, loop):
    args = job_args(loop.dev, "randread", "io_uring")
    ours, theirs = load_json(args), fio_json(args)
    assert ours["fio version"].startswith("iolens-")
    for doc in (theirs, ours):
        job = doc["jobs"][0]
        for k, t in FIO_KEYS.items():
            assert isinstance(job[k], t), (k, doc["fio version"])
        for k, t in DIR_KEYS.items():
            assert isinstance(job["read"][k], t), (k, doc["fio version"])
        for lat in ("slat_ns", "clat_ns", "lat_ns"):
            for k, t in LAT_KEYS.items():
                assert isinstance(job["read"][lat][k], t), (lat, k)
        assert set(job["read"]["clat_ns"]["percentile"]) == \
            set(theirs["jobs"][0]["read"]["clat_ns"]["percentile"])
        assert set(job["iodepth_level"]) == set(theirs["jobs"][0]["iodepth_level"])
    r = ours["jobs"][0]["read"]
    assert r["io_kbytes"] == r["io_bytes"] // 1024
    assert r["bw"] == r["bw_bytes"] // 1024
    # iops over the runtime in ms, within the rounding of the runtime
    assert r["runtime"] > 0
    assert abs(r["iops"] * r["runtime"] / 1000 - r["total_ios"]) <= \
        r["iops"] / 1000 + 1
    clat = r["clat_ns"]
    assert clat["min"] <= clat["percentile"]["50.000000"] <= clat["max"] * 1.01
    assert clat["N"] == r["total_ios"]
    assert r["lat_ns"]["mean"] >= clat["mean"]
    w = ours["jobs"][0]["write"]
    assert w["total_ios"] == 0 and "percentile" not in w["clat_ns"]


def test_text_report(iolens, loop):
    p = load(job_args(loop.dev, "randread", "libaio"))
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert "t: (groupid=0, jobs=1): err= 0" in out
    assert "  read: IOPS=" in out and "BW=" in out
    assert "clat percentiles" in out and "99.99th=[" in out
    assert "Run status group 0 (all jobs):" in out
    assert "   READ: bw=" in out


def test_numjobs_and_group_reporting(iolens, loop):
    args = job_args(loop.dev, "randread", "io_uring", size="4m") + ["--numjobs=3"]
    sep = load_json(args)["jobs"]
    assert [j["read"]["total_ios"] for j in sep] == [1024] * 3
    grp = load_json(args + ["--group_reporting"])["jobs"]
    assert len(grp) == 1 and grp[0]["read"]["total_ios"] == 3072


@pytest.mark.fast
def test_refuses_mounted_device(iolens, loop, mountpoint):
    # No lazy init: an idle ext4 then writes nothing by itself, and the
    # content compared is what is on the device while it is mounted.
    subprocess.run(["mkfs.ext4", "-q", "-F", "-E",
                    "lazy_itable_init=0,lazy_journal_init=0", loop.dev],
                   check=True, capture_output=True)
    subprocess.run(["mount", "-o", "noatime", loop.dev, mountpoint], check=True)
    wait_idle(loop)
    before = digest(loop.backing)
    p = load(job_args(loop.dev, "randwrite", "psync", size="1m"))
    refused(p, "mounted on " + mountpoint)
    # Not --allow-destroy: the kernel refuses a mounted device all the same.
    assert "unmount it first" in p.stderr and "allow-destroy" not in p.stderr
    p = load(job_args(loop.dev, "write", "io_uring", size="1m"))
    refused(p, "mounted on " + mountpoint)
    assert digest(loop.backing) == before


def test_refuses_filesystem_signature(iolens, loop):
    subprocess.run(["mkfs.ext4", "-q", "-F", loop.dev], check=True,
                   capture_output=True)
    wait_idle(loop)
    before = digest(loop.backing)
    for engine in ENGINES:
        p = load(job_args(loop.dev, "write", engine, size="1m"))
        refused(p, "filesystem ext4")
    assert digest(loop.backing) == before
    # Reading is harmless, and --allow-destroy is the way to write.
    assert load(job_args(loop.dev, "read", "psync", size="1m")).returncode == 0
    assert digest(loop.backing) == before
    p = load(job_args(loop.dev, "write", "psync", size="1m") + ["--allow-destroy"])
    assert p.returncode == 0, p.stderr
    assert digest(loop.backing) != before


def test_refuses_device_held_exclusively(iolens, loop):
    """A device another process holds with O_EXCL (as mkfs or a mount
    would): the kernel refuses our claim, and so do the load and the sweep,
    with nothing written."""
    before = digest(loop.backing)
    held = os.open(loop.dev, os.O_RDONLY | os.O_EXCL)
    try:
        for engine, extra in (("psync", []), ("io_uring", ["--sweep=iodepth"])):
            p = load(job_args(loop.dev, "write", engine, size="1m") + extra)
            refused(p, "in use (O_EXCL)")
    finally:
        os.close(held)
    assert digest(loop.backing) == before


def test_refuses_misaligned_direct_io(iolens, loop4k):
    before = digest(loop4k.backing)
    p = load(job_args(loop4k.dev, "write", "io_uring", size="1m", bs="2k"))
    refused(p, "4096")
    p = load(job_args(loop4k.dev, "write", "psync", size="1m") + ["--offset=512"])
    refused(p, "logical block size")
    assert digest(loop4k.backing) == before


@pytest.mark.fast
def test_unknown_option(iolens, loop):
    before = digest(loop.backing)
    p = load(job_args(loop.dev, "write", "psync") + ["--bogus_opt=3"])
    refused(p, "--bogus_opt")
    p = load(job_args(loop.dev, "write", "psync") + ["--rw=sideways"])
    refused(p, "sideways")
    assert digest(loop.backing) == before


@pytest.fixture
def tmpfile():
    fd, path = tempfile.mkstemp(prefix=OWN, dir=TMPFS)
    os.close(fd)
    try:
        yield path
    finally:
        os.unlink(path)


def test_existing_file_not_truncated(iolens, tmpfile):
    data = os.urandom(8 << 20)
    with open(tmpfile, "wb") as f:
        f.write(data)
    job = load_json(["--name=f", "--filename=" + tmpfile, "--rw=write",
                     "--bs=64k", "--size=1m", "--offset=1m"])["jobs"][0]
    assert job["write"]["io_bytes"] == 1 << 20
    with open(tmpfile, "rb") as f:
        after = f.read()
    assert len(after) == len(data)
    assert after[:1 << 20] == data[:1 << 20]
    assert after[2 << 20:] == data[2 << 20:]
    assert after[1 << 20:2 << 20] != data[1 << 20:2 << 20]


def test_short_file_extended_and_read(iolens, tmpfile):
    job = load_json(["--name=f", "--filename=" + tmpfile, "--rw=randread",
                     "--bs=4k", "--size=2m", "--ioengine=io_uring",
                     "--iodepth=8"])["jobs"][0]
    assert os.path.getsize(tmpfile) == 2 << 20
    assert job["read"]["total_ios"] == 512


def thread_cpus(extra, numjobs, preexec_fn=None):
    """The CPU sets of a running load's main thread and of its job threads
    (sorted), once every job thread has placed itself."""
    with tempfile.NamedTemporaryFile(prefix=OWN, dir=TMPFS) as f:
        p = subprocess.Popen([IOLENS, "load", "--name=t", "--filename=" + f.name,
                              "--size=1m", "--time_based", "--runtime=30",
                              "--numjobs=%d" % numjobs, "--eta=never"] + extra,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             preexec_fn=preexec_fn)
        try:
            deadline = time.time() + 5
            while True:
                tids = [int(t) for t in os.listdir("/proc/%d/task" % p.pid)]
                jobs = sorted(sorted(os.sched_getaffinity(t))
                              for t in tids if t != p.pid)
                # A new thread has the main thread's set until it places
                # itself; with the policy shared it may keep it.
                settled = len(jobs) == numjobs and time.time() > deadline - 4
                if settled or time.time() > deadline:
                    # The main thread's set as it is with the jobs running.
                    return sorted(os.sched_getaffinity(p.pid)), jobs
                time.sleep(0.05)
        finally:
            p.kill()
            p.wait()


def test_job_threads_placed(iolens):
    """By default several job threads are split: the nth runs on the
    (n mod count)th CPU the process may use; a single one keeps the whole
    set, as shared does and fio's default; --cpus_allowed narrows the set;
    the main thread is never placed."""
    allowed = sorted(os.sched_getaffinity(0))
    n = len(allowed)
    main, jobs = thread_cpus([], n + 1)
    assert main == allowed
    assert jobs == sorted([[allowed[k % n]] for k in range(n + 1)])
    main, jobs = thread_cpus([], 1)
    assert main == allowed and jobs == [allowed]
    _, jobs = thread_cpus(["--cpus_allowed_policy=split"], 1)
    assert jobs == [[allowed[0]]]
    main, jobs = thread_cpus(["--cpus_allowed_policy=shared"], 2)
    assert main == allowed and jobs == [allowed, allowed]
    last = str(allowed[-1])
    _, jobs = thread_cpus(["--cpus_allowed=" + last, "--cpus_allowed_policy=shared"], 2)
    assert jobs == [[allowed[-1]]] * 2
    # Under taskset the split is over what taskset left.
    main, jobs = thread_cpus([], 2, lambda: os.sched_setaffinity(0, {allowed[-1]}))
    assert main == [allowed[-1]] and jobs == [[allowed[-1]]] * 2


def test_lone_thread_of_a_wave_not_placed(iolens):
    """Two threads, then behind a stonewall one alone: the two are split,
    the one after them keeps the whole set."""
    allowed = sorted(os.sched_getaffinity(0))
    with tempfile.NamedTemporaryFile(prefix=OWN, dir=TMPFS) as f:
        p = subprocess.Popen([IOLENS, "load", "--filename=" + f.name, "--size=1m",
                              "--time_based", "--eta=never",
                              "--name=two", "--numjobs=2", "--runtime=1",
                              "--name=one", "--stonewall", "--runtime=30"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            # Every job thread is made at the start, the third waiting for
            # the first two to end.
            split = sorted([[allowed[k % len(allowed)]] for k in range(2)])
            seen = {}
            end = time.time() + 10
            while time.time() < end and not (3 in seen and 1 in seen):
                tids = [int(t) for t in os.listdir("/proc/%d/task" % p.pid) if int(t) != p.pid]
                try:
                    cpus = sorted(sorted(os.sched_getaffinity(t)) for t in tids)
                except ProcessLookupError:
                    continue
                if len(cpus) == 3 and sorted(split + [allowed]) == cpus or \
                        (len(cpus) == 1 and 3 in seen):
                    seen.setdefault(len(cpus), cpus)
                time.sleep(0.05)
        finally:
            p.kill()
            p.wait()
    assert seen.get(3) == sorted(split + [allowed]), seen
    assert seen.get(1) == [allowed], seen


def test_cpus_allowed_refused(iolens, tmpfile):
    p = load(["--name=t", "--filename=" + tmpfile, "--size=1m", "--cpus_allowed=0-"])
    refused(p, "--cpus_allowed=0-: want a CPU list")
    out = max(os.sched_getaffinity(0)) + 1
    p = load(["--name=t", "--filename=" + tmpfile, "--size=1m", "--cpus_allowed=%d" % out])
    refused(p, "names a CPU this process may not run on")
    p = load(["--name=t", "--filename=" + tmpfile, "--size=1m", "--cpus_allowed_policy=even"])
    refused(p, "want one of: split shared")
    assert os.path.getsize(tmpfile) == 0


@pytest.mark.parametrize("engine", ENGINES)
def test_sigint_prints_results_so_far(iolens, loop, engine):
    p = subprocess.Popen([IOLENS, "load"] + job_args(loop.dev, "randread", engine) +
                         ["--time_based", "--runtime=60", "--output-format=json"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(1.5)
        t0 = time.time()
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=10)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert time.time() - t0 < 2
    assert p.returncode == 0, err
    r = json.loads(out)["jobs"][0]["read"]
    assert r["total_ios"] > 1000
    assert 1000 <= r["runtime"] <= 3000


@pytest.mark.parametrize("engine", ENGINES)
def test_time_based_runs_for_runtime(iolens, loop, engine):
    t0 = time.time()
    job = load_json(job_args(loop.dev, "randread", engine, size="1m") +
                    ["--time_based", "--runtime=1", "--ramp_time=300ms"])["jobs"][0]
    took = time.time() - t0
    assert 1.2 <= took < 3
    assert 990 <= job["read"]["runtime"] <= 1100
    assert job["read"]["total_ios"] > 256  # went over the 1 MiB again


def test_enospc_reported_with_offset(iolens, mountpoint):
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mountpoint],
                   check=True)
    path = os.path.join(mountpoint, "f")
    p = load(["--name=f", "--filename=" + path, "--rw=write", "--bs=64k",
              "--size=4m", "--output-format=json"])
    assert p.returncode == 1
    assert "errno 28" in p.stderr and "offset" in p.stderr, p.stderr
    job = json.loads(p.stdout)["jobs"][0]
    assert job["error"] == 28
    assert job["write"]["io_bytes"] <= 1 << 20
