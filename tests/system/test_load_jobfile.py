# SPDX-License-Identifier: GPL-2.0
"""iolens load with fio job files: the same file gives the same jobs, I/O
and groups as fio 3.33 run on it; stonewalls order the jobs as the block
layer sees them (tracefs); a bad file names file:line:option and writes
nothing."""
import json
import os
import subprocess

import pytest

from helpers import Loop, TraceInstance, digest, fio_doc, run, wait_idle, load_json, fio_json


@pytest.fixture
def jobfile(tmp_path):
    """Writes a job file; returns its path."""
    n = [0]

    def make(text):
        n[0] += 1
        path = tmp_path / ("job%d.fio" % n[0])
        path.write_text(text)
        return str(path)
    return make


def summary(doc):
    return [(j["jobname"], j["groupid"], j["read"]["total_ios"],
             j["read"]["io_bytes"], j["write"]["total_ios"],
             j["write"]["io_bytes"]) for j in doc["jobs"]]


def direct_4k_jobfile(jobfile, loop, rest):
    """A job file whose [global] does direct I/O of 4 KiB on the loop
    device, 4 MiB a job; `rest` goes on from there."""
    return jobfile("[global]\nfilename=%s\ndirect=1\nbs=4k\nsize=4m\n"
                   % loop.dev + rest)


def same_as_fio(args):
    a, b = summary(load_json(args)), summary(fio_json(args))
    assert a == b
    return a


def test_global_two_jobs_stonewall_as_fio(iolens, loop, jobfile):
    path = direct_4k_jobfile(jobfile, loop, """\
ioengine=io_uring
iodepth=8

[seq]
rw=read

[rand]
stonewall
rw=randwrite
offset=8m
bs=16k

[third]
rw=read
offset=16m
ioengine=libaio
""")
    got = same_as_fio([path])
    assert [g[:2] for g in got] == [("seq", 0), ("rand", 1), ("third", 1)]
    assert got[0][2] == 1024 and got[1][4] == 256 and got[2][2] == 1024


def test_comments_as_fio(iolens, loop, jobfile):
    path = jobfile(
        "; a comment\n"
        "# another\n"
        "   ; indented\n"
        "\n"
        "[global]   # after a header\n"
        "filename=%s ; after a value\n"
        "  direct = 1\t\n"
        "bs=8k#no blank before it\n"
        "size=2m\r\n"
        "[one]\n"
        "rw=randread ;; bs=64k is in the comment\n"
        "\n"
        "[two]\n"
        "wait_for_previous   # a flag, with a comment\n"
        "new_group\n"
        "bs=64k\n" % loop.dev)
    got = same_as_fio([path])
    assert got == [("one", 0, 256, 2 << 20, 0, 0), ("two", 1, 32, 2 << 20, 0, 0)]


def test_new_group_and_global_stonewall_as_fio(iolens, loop, jobfile):
    path = jobfile("""\
[global]
filename=%s
size=1m
stonewall
[a]
[b]
[c]
new_group
stonewall=0
[d]
""" % loop.dev)
    got = same_as_fio([path])
    assert [g[1] for g in got] == [0, 1, 2, 3]


def test_command_line_as_fio(iolens, loop, jobfile):
    """As fio: options on the command line (before or after the file) are
    the defaults the file's sections override; a second file starts from
    the defaults again and after the jobs of the first."""
    first = jobfile("[global]\nfilename=%s\nbs=4k\n[a]\n[b]\nbs=16k\n" % loop.dev)
    second = jobfile("[c]\nfilename=%s\nbs=64k\n" % loop.dev)
    got = same_as_fio(["--size=1m", "--bs=8k", first])
    assert got == [("a", 0, 256, 1 << 20, 0, 0), ("b", 0, 64, 1 << 20, 0, 0)]
    got = same_as_fio([first, "--size=1m", second])
    # c: not --size=1m but the whole device, in a group of its own
    assert got[2] == ("c", 1, loop.size // 65536, loop.size, 0, 0)
    # Jobs of the command line come first, then those of the files.
    got = same_as_fio(["--size=1m", first, "--name=cli",
                       "--filename=" + loop.dev, "--bs=32k"])
    assert [g[0] for g in got] == ["cli", "a", "b"]
    assert got[0][2] == 32


def test_stonewall_orders_jobs(iolens, loop, jobfile):
    """The block layer's own record: every request of the first job is
    issued before any of the second group's, whose two jobs overlap."""
    mib = 1 << 20
    path = direct_4k_jobfile(jobfile, loop, """\
[first]
rw=randread
[second]
stonewall
offset=16m
rw=randread
time_based
runtime=300ms
[third]
offset=32m
rw=read
time_based
runtime=300ms
""")
    trace = TraceInstance(loop)
    try:
        jobs = load_json([path])["jobs"]
        issues = [e for e in trace.read_timed() if e[1] == "block_rq_issue"]
        assert trace.overruns() == 0
    finally:
        trace.close()
    zones = {"first": (0, 4), "second": (16, 20), "third": (32, 36)}
    times = {}
    for name, (lo, hi) in zones.items():
        times[name] = [t for t, _, _, sector, _ in issues
                       if lo * mib <= sector * 512 < hi * mib]
    assert len(times["first"]) == 1024
    assert sum(len(v) for v in times.values()) == len(issues)
    assert max(times["first"]) < min(times["second"] + times["third"])
    # between stonewalls the jobs run at the same time
    assert min(times["third"]) < max(times["second"])
    assert min(times["second"]) < max(times["third"])
    assert [j["groupid"] for j in jobs] == [0, 1, 1]


BAD = [
    ("bogus_opt=3\n", 8, "unknown option 'bogus_opt'"),
    ("bs=4q\n", 8, "bs=4q: bad value"),
    ("iodepth=0\n", 8, "iodepth=0"),
    ("rw\n", 8, "rw: needs a value"),
    ("size=${IOLENS_TEST_UNSET}\n", 8,
     "size=${IOLENS_TEST_UNSET}: bad value (after ${...} from the environment, not shown)"),
    ("size=$mb_memory\n", 8, "$mb_memory"),
    ("include other.fio\n", 8, "include is not supported"),
    ("output-format=json\n", 8, "only on the command line"),
    ("allow-destroy\n", 8, "only on the command line"),
    ("[broken\n", 8, "not a section header"),
]


@pytest.mark.parametrize("line,lineno,what", BAD, ids=[b[0].strip() for b in BAD])
def test_bad_file_names_file_line_option(iolens, loop, jobfile, line, lineno, what):
    # The bad line is in the second job: the first, a writer, must not run.
    path = jobfile("""\
[global]
filename=%s
size=1m
; the bad line is line 8
[w]
rw=write
[w2]
%s""" % (loop.dev, line))
    wait_idle(loop)
    before, stats = digest(loop.backing), loop.diskstats()
    p = run(["load", path])
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert p.stdout == ""
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    assert "%s:%d: " % (path, lineno) in lines[0], lines[0]
    assert what in lines[0], lines[0]
    assert digest(loop.backing) == before
    assert loop.diskstats()["w_ios"] == stats["w_ios"]


def test_environment_variables_as_fios(iolens, loop, jobfile):
    """${NAME} in a value is the environment variable's, as fio reads it."""
    path = jobfile("[j]\nfilename=%s\nrw=${IOLENS_T_RW}\nbs=${IOLENS_T_BS}k\nsize=1m\n"
                   "direct=1\n" % loop.dev)
    env = dict(os.environ, IOLENS_T_RW="randread", IOLENS_T_BS="8")
    ours = run(["load", "--output-format=json", path], env=env)
    theirs = subprocess.run(["fio", "--output-format=json", path], env=env,
                            capture_output=True, text=True)
    assert ours.returncode == theirs.returncode == 0, (ours.stderr, theirs.stderr)
    for p in (ours, theirs):
        job = fio_doc(p.stdout)["jobs"][0]
        assert job["read"]["total_ios"] == 128 and job["write"]["total_ios"] == 0


def test_option_outside_a_section(iolens, jobfile):
    path = jobfile("# nothing yet\nsize=1m\n[a]\n")
    p = run(["load", path])
    assert p.returncode == 2
    assert p.stderr.count("\n") == 1
    assert "%s:2: 'size=1m' is outside of any [section]" % path in p.stderr


def test_include_before_any_section(iolens, jobfile):
    """fio's "include FILE" is read anywhere, before any section too: it is
    refused by name, with the file it names, not as an option outside of
    any section."""
    path = jobfile("; shared options\ninclude common.fio\n[a]\nsize=1m\n")
    p = run(["load", path])
    assert p.returncode == 2
    assert p.stdout == ""
    assert p.stderr.count("\n") == 1, p.stderr
    assert "%s:2: include is not supported: copy what 'common.fio' holds into this file" \
        % path in p.stderr, p.stderr


def test_missing_file_and_no_jobs(iolens, jobfile):
    p = run(["load", "/nonexistent/job.fio"])
    assert p.returncode == 2 and "/nonexistent/job.fio" in p.stderr
    path = jobfile("[global]\nsize=1m\n")
    p = run(["load", path])
    assert p.returncode == 2 and "no job in it" in p.stderr


def test_help_describes_job_files(iolens):
    p = run(["load", "--help"])
    assert p.returncode == 0
    assert "JOBFILE" in p.stdout and "stonewall" in p.stdout
    assert "include" in p.stdout and "${NAME}" in p.stdout
