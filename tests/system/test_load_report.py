# SPDX-License-Identifier: GPL-2.0
"""The report parts of iolens load that a fio user reads, each against
fio 3.33 on the same job: CPU."""
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
