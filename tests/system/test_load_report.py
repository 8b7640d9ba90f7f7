# SPDX-License-Identifier: GPL-2.0
"""The report parts of iolens load that a fio user reads: per-interval bw
and IOPS samples, disk_util, CPU and the live progress line.  fio 3.33 runs
the same job, and one consumer written as a user's script against fio's
JSON reads both: every key it reads exists in both with the same JSON type,
and what must agree does."""
import json
import os
import pty
import re
import select
import subprocess
import time

import pytest

from helpers import IOLENS, OWN, TMPFS, run, wait_idle, load_json, fio_json

SAMPLE_MS = 500


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
    for doc in (load_json(args), fio_json(args)):
        (job,) = doc["jobs"]
        assert 2 * 1000 - 100 <= job["job_runtime"] <= 2 * 1100
        assert 0 < job["usr_cpu"] + job["sys_cpu"] <= 100.5
        assert job["ctx"] > 0


# ---- disk_util ----

def test_disk_util_is_the_kernels_count(iolens, loop):
    args = shape(loop.dev, "randread", "io_uring", 8, ["--size=8m"])
    wait_idle(loop)
    before = loop.diskstats()
    doc = load_json(args)
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
    assert "disk_util" not in load_json(args)
    assert "disk_util" not in fio_json(args)
    p = run(["load"] + args)
    assert p.returncode == 0 and "Disk stats" not in p.stdout


def test_disk_util_of_a_file_is_its_filesystems_device(iolens, loop, ext4):
    path = str(ext4 / "f")
    args = ["--name=t", "--filename=" + path, "--size=8m", "--rw=write",
            "--bs=64k", "--direct=1"]
    doc = load_json(args)
    (disk,) = doc["disk_util"]
    assert disk["name"] == loop.name
    # Every 64 KiB O_DIRECT write reached the disk (the journal may add).
    assert disk["write_ios"] + disk["write_merges"] >= 128
    assert [d["name"] for d in fio_json(args)["disk_util"]] == [loop.name]


def test_disk_util_of_a_partition_is_its_disk(iolens, loop, partition):
    args = ["--name=t", "--filename=" + partition, "--size=4m", "--rw=read",
            "--bs=64k", "--direct=1"]
    before = loop.diskstats()
    (disk,) = load_json(args)["disk_util"]
    after = loop.diskstats()
    assert disk["name"] == loop.name
    assert disk["read_ios"] == after["r_ios"] - before["r_ios"]
    assert disk["read_ios"] + disk["read_merges"] == 64
    assert [d["name"] for d in fio_json(args)["disk_util"]] == [loop.name]


# ---- bw and IOPS samples, and one consumer of fio's JSON ----

def fio_summary(doc):
    """What a user's script takes from fio's JSON: per job and direction
    the rates, sizes, latencies and samples, CPU, depths, and disk_util."""
    rows = []
    for job in doc["jobs"]:
        row = {
            "name": job["jobname"],
            "runtime_ms": job["job_runtime"],
            "usr": job["usr_cpu"], "sys": job["sys_cpu"], "ctx": job["ctx"],
            "majf": job["majf"], "minf": job["minf"],
            "qd": {k: job["iodepth_level"][k]
                   for k in ("1", "2", "4", "8", "16", "32", ">=64")},
        }
        for d in ("read", "write"):
            s = job[d]
            r = {k: s[k] for k in (
                "iops", "bw", "bw_bytes", "io_bytes", "io_kbytes", "runtime",
                "total_ios", "bw_min", "bw_max", "bw_agg", "bw_mean", "bw_dev",
                "bw_samples", "iops_min", "iops_max", "iops_mean",
                "iops_stddev", "iops_samples")}
            r["lat_mean"] = s["lat_ns"]["mean"]
            r["clat_mean"] = s["clat_ns"]["mean"]
            r["clat_n"] = s["clat_ns"]["N"]
            if s["total_ios"]:
                p = s["clat_ns"]["percentile"]
                r["p50"] = p["50.000000"]
                r["p99"] = p["99.000000"]
                r["p99.9"] = p["99.900000"]
            row[d] = r
        rows.append(row)
    disks = [{"name": du["name"], "util": du["util"],
              "ios": (du["read_ios"], du["write_ios"]),
              "merges": (du["read_merges"], du["write_merges"]),
              "ticks": (du["read_ticks"], du["write_ticks"]),
              "in_queue": du["in_queue"]}
             for du in doc["disk_util"]]
    return rows, disks


class Tracked:
    """A JSON value that records the path and JSON type of every key read
    through it, so that the consumer's reads can be compared."""

    def __init__(self, v, path, seen):
        self.v, self.path, self.seen = v, path, seen

    def _wrap(self, v, path):
        self.seen[path] = json_type(v)
        return Tracked(v, path, self.seen) if isinstance(v, (dict, list)) else v

    def __getitem__(self, k):
        return self._wrap(self.v[k], "%s.%s" % (self.path, k))

    def __iter__(self):
        for x in self.v:
            yield self._wrap(x, self.path + "[]")


def json_type(v):
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    for t, name in ((float, "float"), (str, "str"), (dict, "object"),
                    (list, "array")):
        if isinstance(v, t):
            return name
    return "null"


def consume(doc):
    seen = {}
    rows, disks = fio_summary(Tracked(doc, "", seen))
    return rows, disks, seen


SHAPES = {
    "randread-psync": ("randread", "psync", 1, ["--size=16m"]),
    "randrw-io_uring": ("randrw", "io_uring", 8, ["--size=16m"]),
    "read-libaio-timed": ("read", "libaio", 4,
                          ["--size=16m", "--time_based", "--runtime=2"]),
    "randread-2jobs-grouped": ("randread", "io_uring", 4,
                               ["--size=16m", "--time_based", "--runtime=2",
                                "--numjobs=2", "--group_reporting"]),
}


def check_samples(r, threads, dirs_ran, late=0):
    """Samples as fio takes them: every 500 ms per thread, the last
    partial interval dropped.  bw (KiB/s) is 4 x IOPS for 4 KiB I/O, up to
    integer division and the I/O done between reading the two counters."""
    if not dirs_ran:
        assert r["bw_samples"] == r["iops_samples"] == 0
        assert r["bw_min"] == r["bw_max"] == r["iops_min"] == 0
        return
    want = threads * (r["runtime"] // SAMPLE_MS)
    assert want - threads * (1 + late) <= r["bw_samples"] <= want + threads, \
        (r["bw_samples"], want)
    assert r["iops_samples"] == r["bw_samples"]
    assert r["bw_min"] <= r["bw_mean"] <= r["bw_max"]
    assert r["iops_min"] <= r["iops_mean"] <= r["iops_max"]
    # group_reporting adds up each thread's min, max and mean, as fio
    for b, i in (("bw_min", "iops_min"), ("bw_max", "iops_max"),
                 ("bw_mean", "iops_mean")):
        assert abs(r[b] - 4 * r[i]) <= 0.01 * r[b] + 3 * threads, (b, r[b], r[i])


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_one_consumer_reads_fio_and_iolens(iolens, loop, name):
    rw, engine, depth, extra = SHAPES[name]
    args = shape(loop.dev, rw, engine, depth, extra)
    wait_idle(loop)
    before = loop.diskstats()
    ours = load_json(args)
    after = loop.diskstats()
    theirs = fio_json(args)

    o_rows, o_disks, o_seen = consume(ours)
    f_rows, f_disks, f_seen = consume(theirs)
    assert set(o_seen) == set(f_seen), set(o_seen) ^ set(f_seen)
    for path in f_seen:
        assert o_seen[path] == f_seen[path], (path, o_seen[path], f_seen[path])

    grouped = "--group_reporting" in extra
    threads = 2 if "--numjobs=2" in extra else 1
    assert len(o_rows) == len(f_rows) == (1 if grouped else threads)
    for o, f in zip(o_rows, f_rows):
        timed = "--time_based" in extra
        if not timed:
            # Size-based: the same I/O, exactly.
            if rw == "randrw":
                assert o["read"]["total_ios"] + o["write"]["total_ios"] == \
                    f["read"]["total_ios"] + f["write"]["total_ios"] == 4096
            else:
                for d in ("read", "write"):
                    assert o[d]["total_ios"] == f[d]["total_ios"], d
                    assert o[d]["io_bytes"] == f[d]["io_bytes"], d
        # fio's helper thread wakes late by its timer slack: the sample at
        # the job's end is mostly missed, and now and then one more.
        for row, late in ((o, 0), (f, 1)):
            for d in ("read", "write"):
                r = row[d]
                assert r["clat_n"] == r["total_ios"]
                if timed:
                    check_samples(r, threads, r["total_ios"] > 0, late)
            # fio's CPU share is of the summed thread run time: it stays a
            # share however many threads are in the group.
            assert 0 <= row["usr"] + row["sys"] <= 100.5
            if timed:
                ran = max(row["read"]["runtime"], row["write"]["runtime"])
                assert row["runtime_ms"] >= threads * ran - 50 * threads
        if timed:
            for d in ("read", "write"):
                assert abs(o[d]["bw_samples"] - f[d]["bw_samples"]) <= \
                    2 * threads

    # disk_util: the loop device, and ours is the kernel's delta exactly
    # (reads only: nothing else touches the device).
    assert [d["name"] for d in o_disks] == [d["name"] for d in f_disks] == \
        [loop.name]
    disk = o_disks[0]
    if rw in ("read", "randread"):
        assert disk["ios"][0] == after["r_ios"] - before["r_ios"]
        assert disk["merges"][0] == after["r_merges"] - before["r_merges"]
        assert disk["ios"][1] == 0
    assert 0 <= disk["util"] <= 100


# fio's bandwidth line, its unit and mean caught.
BW_LINE = (r"\n   bw \(  ([KM]iB)/s\): min=\s*\d+, max=\s*\d+, per=\d+\.\d\d%, "
           r"avg=\s*(\d+\.\d\d), stdev=\s*\d+\.\d\d, samples=\d+\n")


def test_text_has_fios_lines(iolens, loop):
    args = shape(loop.dev, "randread", "io_uring", 8,
                 ["--size=16m", "--time_based", "--runtime=2"])
    ours = run(["load"] + args)
    assert ours.returncode == 0, ours.stderr
    theirs = subprocess.run(["fio"] + args, capture_output=True, text=True)
    assert theirs.returncode == 0, theirs.stderr
    patterns = [
        BW_LINE,
        r"\n   iops        : min=\s*\d+, max=\s*\d+, avg=\s*\d+\.\d\d, "
        r"stdev=\s*\d+\.\d\d, samples=\d+\n",
        r"\n  cpu          : usr=\d+\.\d\d%, sys=\d+\.\d\d%, ctx=\d+, "
        r"majf=\d+, minf=\d+\n",
        r"\nRun status group 0 \(all jobs\):\n   READ: bw=\S+ \(\S+\), "
        r"\S+-\S+ \(\S+-\S+\), io=\S+ \(\S+\), run=\d+-\d+msec\n",
        r"\n\nDisk stats \(read/write\):\n  %s: ios=\d+/\d+, merge=\d+/\d+, "
        r"ticks=\d+/\d+, in_queue=\d+, util=\d+\.\d\d%%\n" % loop.name,
    ]
    for pat in patterns:
        assert re.search(pat, theirs.stdout), ("fio", pat, theirs.stdout)
        assert re.search(pat, ours.stdout), (pat, ours.stdout)
    # fio's unit is MiB/s where the mean passes 1 GiB/s, which a loop
    # device passes at 262,144 IOPS of 4 KiB.
    for out in theirs.stdout, ours.stdout:
        unit, avg = re.search(BW_LINE, out).groups()
        kib = float(avg) * (1024 if unit == "MiB" else 1)
        assert (unit == "MiB") == (kib > 1024 * 1024), out
    # The text's samples are the JSON's.
    m = re.search(r"samples=(\d+)", ours.stdout)
    assert abs(int(m.group(1)) - 2000 // SAMPLE_MS) <= 1


def test_bwavgtime_and_iopsavgtime(iolens, loop):
    args = shape(loop.dev, "randread", "io_uring", 4,
                 ["--size=16m", "--time_based", "--runtime=2",
                  "--bwavgtime=250", "--iopsavgtime=1000"])
    r = load_json(args)["jobs"][0]["read"]
    assert abs(r["bw_samples"] - r["runtime"] // 250) <= 1
    assert abs(r["iops_samples"] - r["runtime"] // 1000) <= 1
    p = run(["load"] + shape(loop.dev, "randread", "psync", 1,
                             ["--size=1m", "--bwavgtime=0"]))
    assert p.returncode == 2 and "--bwavgtime=0" in p.stderr


def test_ramp_time_not_sampled(iolens, loop):
    r = load_json(shape(loop.dev, "randread", "io_uring", 4,
                          ["--size=16m", "--time_based", "--runtime=1",
                           "--ramp_time=1"]))["jobs"][0]["read"]
    # The intervals start with the statistics, after the ramp.
    assert abs(r["bw_samples"] - r["runtime"] // SAMPLE_MS) <= 1


def stonewall_file(tmp_path, dev):
    path = tmp_path / "sw.fio"
    path.write_text("[global]\nfilename=%s\nrw=randread\nbs=4k\ndirect=1\n"
                    "ioengine=io_uring\niodepth=4\nsize=16m\ntime_based\n"
                    "runtime=2\n[a]\n[b]\nstonewall\n" % dev)
    return str(path)


def test_stonewall_groups_have_their_own_samples_and_aggregate(iolens, loop,
                                                               tmp_path):
    """Each group's per= is of its own aggregate (fio's rs->agg), and a job
    behind a stonewall is sampled from its own start."""
    job = stonewall_file(tmp_path, loop.dev)
    ours = run(["load", job, "--output-format=json"])
    assert ours.returncode == 0, ours.stderr
    theirs = subprocess.run(["fio", job, "--output-format=json"],
                            capture_output=True, text=True)
    assert theirs.returncode == 0, theirs.stderr
    for doc, late in ((json.loads(ours.stdout), 0),
                      (json.loads(theirs.stdout), 1)):
        assert [j["groupid"] for j in doc["jobs"]] == [0, 1]
        for j in doc["jobs"]:
            r = j["read"]
            check_samples(r, 1, True, late)
            # Alone in its group: about all of it, not half of both groups.
            assert r["bw_agg"] > 75, (doc["fio version"], r["bw_agg"])


# ---- the progress line ----

def in_pty(argv, timeout=30):
    """Runs argv with stdout and stderr on a pseudo-terminal; all it wrote."""
    pid, fd = pty.fork()
    if pid == 0:
        try:
            os.execv(argv[0], argv)
        finally:
            os._exit(127)
    out = b""
    end = time.time() + timeout
    try:
        while time.time() < end:
            r, _, _ = select.select([fd], [], [], 1)
            if not r:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            out += chunk
    finally:
        os.close(fd)
        _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, (status, out)
    return out.decode()


LINE = re.compile(r"Jobs: 1 \(f=1\): \[r\(1\)\]\[(?:\d+\.\d%|-\.-%)\]"
                  r"\[r=[\d.]+[KMG]?i?B/s\]\[r=[\d.]+[kM]? IOPS\]"
                  r"\[eta \d\dm:\d\ds\]")


def timed_args(dev, runtime="3"):
    return [IOLENS, "load"] + shape(dev, "randread", "psync", 1,
                                    ["--size=16m", "--time_based",
                                     "--runtime=" + runtime])


def test_progress_line_on_a_terminal(iolens, loop):
    out = in_pty(timed_args(loop.dev))
    lines = LINE.findall(out)
    assert len(lines) >= 2, out[:2000]
    # Each line ends with a carriage return, and the last is blanked out
    # before the report, which then starts at the beginning of the line.
    head, report = out.split("t: (groupid=0", 1)
    last = head.rindex("Jobs: ")
    tail = head[last:]
    width = tail.index("\r")
    assert tail[width:] == "\r" + " " * width + "\r", repr(tail)
    assert "Jobs:" not in report


def test_no_progress_line_on_a_pipe(iolens, loop):
    p = subprocess.run(timed_args(loop.dev, "2"), capture_output=True,
                       text=True)
    assert p.returncode == 0, p.stderr
    assert "Jobs:" not in p.stdout and "Jobs:" not in p.stderr
    assert "\r" not in p.stdout


def test_eta_never_and_always(iolens, loop):
    out = in_pty(timed_args(loop.dev, "2") + ["--eta=never"])
    assert "Jobs:" not in out
    p = subprocess.run(timed_args(loop.dev, "2") + ["--eta=always"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert LINE.search(p.stdout), p.stdout[:500]
    assert "t: (groupid=0" in p.stdout


def test_no_progress_line_in_json_on_a_terminal(iolens, loop, tmp_path):
    out = in_pty(timed_args(loop.dev, "2") + ["--output-format=json"])
    assert "Jobs:" not in out
    assert json.loads(out.replace("\r\n", "\n"))["jobs"][0]["read"]["total_ios"]
    # With the report going to a file, the terminal gets the line (fio's).
    path = tmp_path / "out.json"
    out = in_pty(timed_args(loop.dev, "2") +
                 ["--output-format=json", "--output=" + str(path)])
    assert LINE.search(out), out
    assert json.loads(path.read_text())["jobs"][0]["read"]["total_ios"]


def test_progress_line_behind_a_stonewall(iolens, loop, tmp_path):
    out = in_pty([IOLENS, "load", stonewall_file(tmp_path, loop.dev)],
                 timeout=30)
    # fio's letters: P waits behind the stonewall, _ has ended.
    assert "Jobs: 1 (f=1): [r(1),P(1)]" in out, out[:2000]
    assert "Jobs: 1 (f=1): [_(1),r(1)]" in out, out[:2000]
