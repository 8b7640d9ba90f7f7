# SPDX-License-Identifier: GPL-2.0
"""fio's I/O priorities under iolens load: prio and prioclass set the job's,
cmdprio_percentage and cmdprio_bssplit issue a share of its I/Os at
another, and the clat of each priority is reported apart, as fio 3.33
reports it.  The ground truth is the block layer's: block_rq_issue carries
each request's ioprio on the kernel these tests run on (6.18), so the bytes
the device saw at each priority must be exactly the I/Os iolens counted at
it times their size."""
import collections
import json
import os
import re

import pytest

from helpers import IOLENS, TraceInstance, run_in

CLASSES = {"rt": 1, "be": 2, "idle": 3}

# "7,0 R 131072 () 2048 + 256 rt,0,0 [iolens]": class name, hint, level.
ISSUE = re.compile(r" block_rq_issue: \d+,\d+ (\S+) (\d+) \(.*?\) \d+ \+ \d+ (\w+),\d+,(\d+) \[")


def issued_by_prio(lo, cmd, where):
    """Runs cmd in `where`; its stdout, and the bytes of the requests the
    block layer issued to `lo` meanwhile by (class, level)."""
    trace = TraceInstance(lo)
    try:
        p = run_in(cmd, where)
        assert p.returncode == 0, p.stderr
        with open(os.path.join(trace.path, "trace")) as f:
            text = f.read()
        assert trace.overruns() == 0
    finally:
        trace.close()
    got = collections.Counter()
    n = 0
    for m in ISSUE.finditer(text):
        got[(CLASSES.get(m.group(3), 0), int(m.group(4)))] += int(m.group(2))
        n += 1
    assert n == text.count(" block_rq_issue: "), "an event this test cannot read"
    return p.stdout, got


def prios(doc, d):
    """[(prioclass, prio, N)] of direction d of the first job."""
    return [(p["prioclass"], p["prio"], p["clat_ns"]["N"])
            for p in doc["jobs"][0][d].get("prios", [])]


def job(where, name, text):
    (where / name).write_text(text)
    return name


def test_cmdprio_percentage_as_fio_and_the_kernel_have_it(iolens, loop, tmp_path):
    """fio's examples/cmdprio-percentage.fio: the job idle (prioclass=3),
    20% of its reads real-time.  JSON has both priorities in fio's order,
    the device saw each I/O at the priority counted for it, the share is
    20% within five standard deviations, and the latency log's priority
    column (log_prio) names the same I/Os."""
    text = ("[global]\nfilename=%s\ndirect=1\nwrite_lat_log=prio-run.log\nlog_prio=1\n"
            "size=64m\n[randread]\nrw=randread\nbs=128k\nioengine=libaio\niodepth=8\n"
            "prioclass=3\ncmdprio_percentage=20\ncmdprio_class=1\n" % loop.dev)
    for tool in ("iolens", "fio"):
        (tmp_path / tool).mkdir()
    name = job(tmp_path / "iolens", "p.fio", text)
    out, seen = issued_by_prio(loop, [IOLENS, "load", "--output-format=json", name],
                               tmp_path / "iolens")
    ours = json.loads(out)
    job(tmp_path / "fio", "p.fio", text)
    theirs = json.loads(run_in(["fio", "--output-format=json", "p.fio"], tmp_path / "fio").stdout)

    got = prios(ours, "read")
    assert [(c, l) for c, l, _ in got] == [(c, l) for c, l, _ in prios(theirs, "read")] \
        == [(3, 0), (1, 0)]
    assert sum(n for _, _, n in got) == ours["jobs"][0]["read"]["total_ios"] == 512
    assert seen == {(c, l): n * 131072 for c, l, n in got}
    # Binomial: 512 draws at 0.2, a standard deviation of 9.05.
    assert abs(got[1][2] - 102.4) < 5 * 9.05, got
    with open(tmp_path / "iolens" / "prio-run.log_clat.1.log") as f:
        column = collections.Counter(line.rsplit(",", 1)[1].strip() for line in f)
    assert column == {"0x6000": got[0][2], "0x2000": got[1][2]}


def test_cmdprio_bssplit_by_size_on_io_uring(iolens, loop, tmp_path):
    """fio's cmdprio-bssplit example's advanced form on io_uring: the 64k
    reads a quarter at real-time level 1 and three quarters idle level 2,
    the 1 MiB ones at the job's best-effort 7.  Each priority's requests
    are of its size alone, the job's own first in the JSON, and its text
    report has a clat line and percentiles per priority."""
    # norandommap: each I/O of a size of the split (the random map cuts
    # one short where it reaches a block read before, as fio's).
    args = ["--name=adv", "--filename=" + loop.dev, "--direct=1", "--rw=randread",
            "--ioengine=io_uring", "--iodepth=16", "--size=48m", "--norandommap",
            "--bssplit=64k/40:1024k/60", "--cmdprio_bssplit=64k/25/1/1:64k/75/3/2:1024k/0",
            "--prioclass=2", "--prio=7"]
    out, seen = issued_by_prio(loop, [IOLENS, "load", "--output-format=json"] + args, tmp_path)
    got = prios(json.loads(out), "read")
    assert [(c, l) for c, l, _ in got] == [(2, 7), (1, 1), (3, 2)]
    size = {(2, 7): 1 << 20, (1, 1): 65536, (3, 2): 65536}
    assert seen == {(c, l): n * size[(c, l)] for c, l, n in got}
    p = run_in([IOLENS, "load"] + args, tmp_path)
    assert p.returncode == 0, p.stderr
    for c, l in size:
        assert re.search(r"^ +clat prio %d/%d \((?:n|u|m)sec\): min=" % (c, l), p.stdout, re.M), p.stdout
        assert re.search(r"^ +clat prio %d/%d \(\d+\.\d\d%% of IOs\) percentiles" % (c, l),
                         p.stdout, re.M), p.stdout


@pytest.mark.parametrize("opts,want", [
    (["--prioclass=2", "--prio=4"], (2, 4)),
    (["--prioclass=3"], (3, 0)),
    # fio's class 0 with a level is best-effort.
    (["--prio=6"], (2, 6)),
])
def test_prio_is_the_threads_for_every_engine(iolens, loop, tmp_path, opts, want):
    """prio and prioclass set the job thread's own priority: a psync job's
    every request carries it, and one priority has no per-priority
    report (fio prints those from two)."""
    out, seen = issued_by_prio(loop, [IOLENS, "load", "--output-format=json", "--name=p",
                                     "--filename=" + loop.dev, "--direct=1", "--rw=randread",
                                     "--ioengine=psync", "--size=8m"] + opts, tmp_path)
    doc = json.loads(out)
    assert seen == {want: 8 << 20}
    assert "prios" not in doc["jobs"][0]["read"]


@pytest.mark.parametrize("args,said", [
    (["--ioengine=psync", "--cmdprio_percentage=10"], "need the libaio or io_uring engine"),
    (["--ioengine=libaio", "--cmdprio_percentage=10", "--cmdprio_bssplit=4k/10"],
     "do not go together"),
    (["--ioengine=libaio", "--cmdprio_bssplit=4k/60:4k/50"], "more than 100"),
    (["--ioengine=libaio", "--cmdprio_bssplit=4k/10/9/0"], "CLASS 0-3"),
    (["--prioclass=4"], "from 0 to 3"),
    (["--ioengine=libaio", "--cmdprio_class=0"], "in range"),
])
def test_what_cannot_be_a_priority_is_one_line(iolens, loop, tmp_path, args, said):
    p = run_in([IOLENS, "load", "--name=j", "--filename=" + loop.dev, "--size=1m"] + args,
               tmp_path)
    assert p.returncode == 2 and p.stdout == "", p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and said in lines[0], lines
