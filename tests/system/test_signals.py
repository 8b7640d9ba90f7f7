# SPDX-License-Identifier: GPL-2.0
"""Signals (issue 46): every signal that would end the process without a
core ends record, snoop and load as Ctrl-C does -- the trace closed, the
report printed, exit 0 -- and SIGUSR1, the flight recorder's "save now",
is no death for a plain record."""
import json
import os
import signal
import subprocess
import time

import pytest

from helpers import IOLENS, do_workload, json_lines, run, wait_idle

# A closed terminal's, a batch system's, a CPU limit's.
ENDING = [signal.SIGHUP, signal.SIGUSR2, signal.SIGXCPU]


def recorded(path, done):
    """The trace at `path` is whole (its closing record read) and has the
    requests of `done`."""
    r = run(["report", "-f", "json", path])
    assert r.returncode == 0, r.stderr
    recs, _ = json_lines(r.stdout)
    assert len(recs) == len(done)


@pytest.mark.parametrize("sig", ENDING, ids=lambda s: s.name)
def test_record_closes_its_trace(iolens, loop, tracer, tmp_path, sig):
    """SIGHUP killed record -o: the trace was "truncated"."""
    path = str(tmp_path / "t.iol")
    t = tracer(["record", "-o", path, "-d", loop.name])
    done = do_workload(loop)
    wait_idle(loop)
    t.stop(sig)
    assert "%d requests" % len(done) in t.stderr
    recorded(path, done)


def test_record_lives_through_usr1(iolens, loop, tracer, tmp_path):
    """SIGUSR1 without --ring killed record -o.  The workload comes after
    it: a recorder it had killed would miss it, and exit by the signal."""
    path = str(tmp_path / "t.iol")
    t = tracer(["record", "-o", path, "-d", loop.name])
    t.proc.send_signal(signal.SIGUSR1)
    done = do_workload(loop)
    wait_idle(loop)
    t.stop(signal.SIGINT)
    recorded(path, done)


@pytest.mark.parametrize("sig", ENDING, ids=lambda s: s.name)
def test_snoop_ends_with_its_lines(iolens, loop, tracer, sig):
    t = tracer(["snoop", "-d", loop.name, "-j"])
    done = do_workload(loop)
    wait_idle(loop)
    out = t.stop(sig)
    assert len([x for x in out.splitlines() if x.startswith("{")]) >= len(done)


@pytest.mark.parametrize("sig", ENDING + [signal.SIGUSR1], ids=lambda s: s.name)
def test_load_prints_its_report(iolens, loop, sig):
    """load killed by SIGHUP printed no report.  The signal is sent once
    the device has done 1,000 of its reads; SIGUSR1 is ignored, and the
    SIGINT after it ends the run."""
    before = loop.diskstats()["r_ios"]
    p = subprocess.Popen([IOLENS, "load", "--name=t", "--filename=" + loop.dev, "--rw=randread",
                          "--bs=4k", "--direct=1", "--time_based", "--runtime=60",
                          "--output-format=json"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while loop.diskstats()["r_ios"] - before < 1000 and time.monotonic() < deadline:
            time.sleep(0.01)
        p.send_signal(sig)
        if sig == signal.SIGUSR1:
            p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 0, err
    assert json.loads(out)["jobs"][0]["read"]["total_ios"] >= 1000


def test_background_record_ends_on_sigint(iolens, loop, tmp_path):
    """A shell starts a script's background commands with SIGINT ignored
    (`iolens record ... &`); `kill -INT` must end record all the same, its
    trace whole."""
    path = str(tmp_path / "t.iol")
    sh = subprocess.Popen(["sh", "-c", '"$0" record -o "$1" -d "$2" & echo $! >&2; wait',
                           IOLENS, path, loop.name], stderr=subprocess.PIPE, text=True)
    try:
        pid = int(sh.stderr.readline())
        assert sh.stderr.readline().startswith("Recording block requests"), pid
        done = do_workload(loop)
        wait_idle(loop)
        os.kill(pid, signal.SIGINT)
        assert sh.wait(timeout=30) == 0
    finally:
        if sh.poll() is None:
            sh.kill()
            subprocess.run(["kill", "-KILL", str(pid)], capture_output=True)
            sh.wait()
    recorded(path, done)
