# SPDX-License-Identifier: GPL-2.0
"""fio's own examples/ folder, the job files of fio 3.33's source package
(tools/fetch-fio-examples.sh puts them in build/fio-examples): each one
that uses a local engine and that fio runs here is run by fio and by
iolens load, scaled down the same way for both, in a folder of a fresh
ext4 with a fresh loop device for the files that name a device.  It must
give the same jobs, by name, with I/O in the same directions; a job bound
by its size must do exactly fio's I/Os.

Those iolens cannot run yet are listed below with the option it refuses:
each must still be refused with one line naming that option (exit 2), so
that the list says what is left of issue 28 and no more."""
import os
import pathlib
import re
import subprocess
import tempfile

import pytest

from helpers import IOLENS, Loop, fio_doc, mounted_ext4, run_in

EXAMPLES = pathlib.Path(os.environ.get(
    "FIO_EXAMPLES", os.path.join(os.path.dirname(__file__), "../../build/fio-examples")))

# Engines that need a service, a library or hardware this machine has not
# (fio's own builds of them included): not a local engine.
REMOTE = {"http", "rdma", "rbd", "rados", "nfs", "libhdfs", "gfapi", "dfs", "nbd",
          "libiscsi", "librpma_apm_client", "librpma_apm_server", "librpma_gpspm_client",
          "librpma_gpspm_server", "xnvme", "libpmem", "pmemblk", "dev-dax", "mtd",
          "libcufile", "ime_psync", "ime_psyncv", "ime_aio", "net", "libzbc",
          "io_uring_cmd", "sg", "e4defrag", "exec", "cpuio", "cpp_null",
          "filecreate", "filestat", "filedelete", "falloc", "ftruncate"}

# Local engines that fio 3.33 cannot run here, with what it says.
FIO_CANNOT = {
    "butterfly": "fio: total_file_size: Invalid argument (offset past its size)",
    "cross-stripe-verify": "fio: you need to specify valid offset=",
    "enospc-pressure": "fio exits 1: it fills the file system on purpose",
    "numa": "fio: job job2 dropped (one NUMA node here)",
    "zbd-rand-write": "fio: zbd_create_zone_info() failed: no zoned device here",
    "zbd-seq-read": "fio: zbd_create_zone_info() failed: no zoned device here",
    "1mbs_clients": "rate=1250 is bytes a second: hours at any size",
    "poisson-rate-submission": "rate_iops=50 with io_submit_mode=offload: fio runs past a minute",
    "fsx": "fio runs past a minute, scaled or not",
    "xnvme-zoned": "zonemode=zbd: fio finds no zoned device here",
    "xnvme-compare": "fio: file creation disallowed by allow_file_create=0 (no file named)",
}

# What iolens does not take yet: the option of its one-line refusal (none
# now; a new example of fio's may bring one).
NOT_YET = {}

# What fio 3.33 cannot finish here but iolens runs: why, and the I/Os the
# job does by its own numbers (4 MiB read in 4 KiB blocks).
FIO_HANGS = {
    "fixed-rate-submission": ("io_submit_mode=offload: fio's submit threads hang at exit "
                              "(all in futex waits) in 2 runs of 6 here",
                              {"read": 1024}),
}

# Run under both, with bytes that differ by the last I/Os of a job whose
# sizes are drawn at random with norandommap: each tool stops issuing once
# size= is reached, past it by what its last I/Os drew (jesd219: iolens
# 268,453,376 bytes, fio 268,462,592, in one run each).
# And cmdprio-bssplit: a randrw job whose reads are 64k and 1 MiB and its
# writes 1 MiB alone; fio 3.33's random map ends it after 19,726,336 bytes
# of the 64 MiB device (with or without cmdprio; with one split for both
# directions it does all 64 MiB), iolens does size=: 67,698,688.
# And latency-profile: the device's end comes in the middle of its search
# for a depth (a window of 200 ms each), at a point each tool's speed sets.
# And surface-scan: fill_device writes until the file system is full,
# which each tool's file layout leaves a little differently.
COUNTS_DIFFER = {"jesd219", "cmdprio-bssplit", "latency-profile",
                 "surface-scan"}

SIZE_KEYS = {"size", "filesize", "io_size", "io_limit"}
TIME_KEYS = {"runtime", "timeout", "startdelay", "ss_dur", "ss_ramp"}


def engines_of(text):
    return set(re.findall(r"^\s*ioengine\s*=\s*([A-Za-z0-9_-]+)", text, re.M))


def scaled(text, dev):
    """The job file made small: every size 4 MiB (percentages kept), every
    time at most a second (a ramp and latency_window 200 ms), at most 4
    threads a job, the folder this one, a device ours and a file's path
    its name here."""
    out = []
    for line in text.splitlines():
        m = re.match(r"\s*([A-Za-z_]+)\s*=\s*([^;#]*)", line)
        if not m:
            out.append(line)
            continue
        k, v = m.group(1), m.group(2).strip()
        if k in SIZE_KEYS and not v.endswith("%"):
            v = "4m"
        elif k in TIME_KEYS:
            v = "1s"
        elif k in ("ramp_time", "latency_window"):
            v = "200ms"
        elif k == "directory":
            v = "."
        elif k == "filename":
            v = ":".join(dev if p.startswith("/dev/") else os.path.basename(p)
                         for p in v.split(":"))
        elif k == "numjobs":
            v = str(min(int(v), 4))
        out.append("%s=%s" % (k, v))
    return "\n".join(out) + "\n"


def local_examples():
    if not EXAMPLES.is_dir():
        return []
    return sorted(p.stem for p in EXAMPLES.glob("*.fio")
                  if not engines_of(p.read_text()) & REMOTE)


@pytest.fixture
def place(root, tmp_path):
    """A fresh loop device for the files that name a device, and a folder
    of a fresh ext4 on another for those that name a file or none."""
    dev, fsdev = Loop(size_mb=64), Loop(size_mb=200)
    try:
        with mounted_ext4(fsdev.dev, tmp_path) as mnt:
            yield dev, mnt
    finally:
        dev.close()
        fsdev.close()


def run_job(cmd, text, where):
    where.mkdir()
    (where / "job.fio").write_text(text)
    return run_in(cmd + ["--output-format=json", "job.fio"], where, timeout=120)


def test_examples_are_there():
    """The folder is fetched (make systest does), and every example the
    lists name is in it: the lists speak of fio's files, not of memory."""
    assert EXAMPLES.is_dir(), "no %s: run tools/fetch-fio-examples.sh" % EXAMPLES
    local = set(local_examples())
    assert len(local) >= 35
    for name in list(FIO_CANNOT) + list(NOT_YET) + list(COUNTS_DIFFER) + list(FIO_HANGS):
        assert name in local, name


@pytest.mark.parametrize("name", sorted(FIO_HANGS))
def test_example_fio_cannot_finish_runs(iolens, place, name):
    """An example fio 3.33 does not finish here: iolens runs it, its I/Os
    those the job file asks for."""
    dev, mnt = place
    text = scaled((EXAMPLES / (name + ".fio")).read_text(), dev.dev)
    ours = run_job([IOLENS, "load"], text, mnt / "iolens")
    assert ours.returncode == 0, ours.stderr
    job, = fio_doc(ours.stdout)["jobs"]
    assert {d: job[d]["total_ios"] for d in ("read", "write", "trim")
            if job[d]["total_ios"]} == FIO_HANGS[name][1]


@pytest.mark.parametrize("name", [n for n in local_examples()
                                  if n not in FIO_CANNOT and n not in FIO_HANGS])
def test_example_runs_as_fio_runs_it(iolens, place, name):
    dev, mnt = place
    text = scaled((EXAMPLES / (name + ".fio")).read_text(), dev.dev)
    ours = run_job([IOLENS, "load"], text, mnt / "iolens")
    if name in NOT_YET:
        assert ours.returncode == 2 and ours.stdout == "", ours.stderr
        lines = ours.stderr.strip().splitlines()
        assert len(lines) == 1 and NOT_YET[name] in lines[0], lines
        return
    assert ours.returncode == 0, ours.stderr
    theirs = run_job(["fio"], text, mnt / "fio")
    assert theirs.returncode == 0, theirs.stderr
    a, b = fio_doc(ours.stdout)["jobs"], fio_doc(theirs.stdout)["jobs"]
    assert [j["jobname"] for j in a] == [j["jobname"] for j in b]
    bounded = not re.search(r"^\s*(time_based|runtime|timeout)\b", text, re.M)
    for x, y in zip(a, b):
        dirs = [d for d in ("read", "write", "trim") if y[d]["total_ios"]]
        assert [d for d in ("read", "write", "trim") if x[d]["total_ios"]] == dirs, x["jobname"]
        # Steady state: the criterion, its seconds and whether it came.
        assert ({k: x["steadystate"][k] for k in ("ss", "duration", "attained")}
                if "steadystate" in x else None) == \
            ({k: y["steadystate"][k] for k in ("ss", "duration", "attained")}
             if "steadystate" in y else None), x["jobname"]
        if not bounded or name in COUNTS_DIFFER:
            continue
        if len(dirs) > 1:
            # A mix is drawn at random I/O by I/O: its split is not fio's,
            # the bytes of the job are.
            assert sum(x[d]["io_bytes"] for d in dirs) == sum(y[d]["io_bytes"] for d in dirs)
            continue
        for d in dirs:
            assert x[d]["total_ios"] == y[d]["total_ios"], (x["jobname"], d)
            assert x[d]["io_bytes"] == y[d]["io_bytes"], (x["jobname"], d)
