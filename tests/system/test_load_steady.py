# SPDX-License-Identifier: GPL-2.0
"""fio's steady state under iolens load (ss, ss_dur, ss_ramp): a job whose
last ss_dur seconds of IOPS or bandwidth lie within the limit ends there,
as fio's does; one that never gets there runs its time.  Both tools run
the same paced job (rate_iops: its IOPS are known), and iolens's samples
must be the rate the job was given."""
import json

import pytest

from helpers import IOLENS, run_in

RATE = 2000
PACED = ["--ioengine=null", "--size=1g", "--rate_iops=%d" % RATE, "--time_based"]


def run(tool, args, where):
    p = run_in([tool] + (["load"] if tool == IOLENS else []) + ["--output-format=json"] + args,
               where, timeout=60)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)["jobs"]


@pytest.mark.parametrize("ss", ["iops:5%", "iops_slope:1%", "bw:5%", "bw_slope:1%", "iops:100"])
def test_a_steady_job_ends_as_fios(iolens, tmp_path, ss):
    """2000 I/Os a second, 20 s asked, ss_dur=3: steady after three
    samples, so both end after about 3 s of the 20; each of iolens's
    samples is the rate, its bandwidth the rate's bytes."""
    args = ["--name=s", "--runtime=20", "--ss=" + ss, "--ss_dur=3"] + PACED
    ours, = run(IOLENS, args, tmp_path)
    theirs, = run("fio", args, tmp_path)
    for j in (ours, theirs):
        s = j["steadystate"]
        assert s["attained"] == 1 and s["duration"] == 3, s
        assert j["job_runtime"] < 6000, j["job_runtime"]
    assert ours["steadystate"]["ss"] == theirs["steadystate"]["ss"]
    data = ours["steadystate"]["data"]
    assert len(data["iops"]) == len(data["bw"]) == 3
    assert all(abs(v - RATE) <= RATE * 0.01 for v in data["iops"]), data
    assert all(abs(v - RATE * 4096) <= RATE * 4096 * 0.01 for v in data["bw"]), data
    assert data["iops_mean"] == sum(data["iops"]) // 3
    # The I/Os done are the rate over the time run.
    assert abs(ours["read"]["total_ios"] - RATE * ours["job_runtime"] / 1000) <= RATE * 0.01


def test_an_unsteady_job_runs_its_time(iolens, tmp_path):
    """A limit no deviation is below (0%): never attained, the job runs its
    3 s, and the ring holds its last two seconds."""
    ours, = run(IOLENS, ["--name=u", "--runtime=3", "--ss=iops:0%", "--ss_dur=2"] + PACED,
                tmp_path)
    s = ours["steadystate"]
    assert s["attained"] == 0 and s["ss"] == "iops:0.000000%", s
    assert 2900 <= ours["job_runtime"] <= 3100
    assert len(s["data"]["iops"]) == 2
    assert all(abs(v - RATE) <= RATE * 0.01 for v in s["data"]["iops"]), s


def test_a_group_is_steady_together(iolens, tmp_path):
    """group_reporting: two threads at 1000 I/Os a second are one sample of
    2000, the group has one steadystate, and both threads end with it."""
    args = ["--name=g", "--runtime=20", "--ss=iops:5%", "--ss_dur=3", "--numjobs=2",
            "--group_reporting", "--ioengine=null", "--size=1g", "--rate_iops=1000",
            "--time_based"]
    ours, = run(IOLENS, args, tmp_path)
    s = ours["steadystate"]
    assert s["attained"] == 1, s
    assert all(abs(v - 2000) <= 20 for v in s["data"]["iops"]), s
    # Summed over the group's two threads, each of which ended early.
    assert ours["job_runtime"] < 2 * 6000


@pytest.mark.parametrize("args,said", [
    (["--ss_dur=500ms"], "at least 1s"),
    (["--ss=iops"], "want iops, iops_slope, bw or bw_slope"),
    (["--ss=mean:5%"], "want iops, iops_slope, bw or bw_slope"),
    (["--ss_dur=3", "--name=b", "--ss_dur=4", "--ioengine=null", "--size=1m"],
     "must be the same"),
])
def test_what_cannot_be_steady_is_one_line(iolens, tmp_path, args, said):
    p = run_in([IOLENS, "load", "--name=a", "--ioengine=null", "--size=1m"] + args, tmp_path)
    assert p.returncode == 2 and p.stdout == "", p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and said in lines[0], lines
