# SPDX-License-Identifier: GPL-2.0
"""Careless or hostile input: one clear line and the usage exit code, the
same limits and messages in every command, echoed input cut and escaped,
no input read without bound."""
import os
import subprocess
import tempfile

import pytest

from helpers import IOLENS, OWN, TMPFS

# Every test here is quick (no device I/O to wait for): all are in the fast set.
pytestmark = pytest.mark.fast


def run(args, timeout=20):
    return subprocess.run([IOLENS] + args, capture_output=True, timeout=timeout)


def one_line(p, what):
    """Exit 2, nothing on stdout, one line on stderr holding `what`."""
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert p.stdout == b""
    err = p.stderr.decode()
    assert len(err.splitlines()) == 1 and what in err, err
    return err


def free_pid():
    with open("/proc/sys/kernel/pid_max") as f:
        pid = int(f.read()) - 1
    while os.path.exists("/proc/%d" % pid):
        pid -= 1
    return pid


@pytest.fixture
def job_file():
    paths = []

    def make(data):
        fd, path = tempfile.mkstemp(prefix=OWN, dir=TMPFS, suffix=".fio")
        os.write(fd, data)
        os.close(fd)
        paths.append(path)
        return path
    try:
        yield make
    finally:
        for p in paths:
            os.unlink(p)


def test_job_file_with_a_nul_byte(iolens, job_file, tmp_path):
    """A NUL byte ended the text and dropped job b: now the file is
    refused, with its line."""
    data = tmp_path / "t"
    path = job_file(b"[a]\nfilename=%s\nsize=64k\nrw=read\n\x00\n"
                    b"[b]\nfilename=%s\nsize=64k\nrw=read\n" % (
                        str(data).encode(), str(data).encode()))
    one_line(run(["load", path]), "%s:5: a NUL byte" % path)


def test_load_of_a_device_as_a_job_file(iolens):
    """`iolens load /dev/zero` read the device as a job file without end
    (3 GB in 6 s): a job file is a regular file, and one is read only up to
    1 MiB."""
    one_line(run(["load", "/dev/zero"], timeout=10),
             "/dev/zero: cannot read the job file: a character device, not a regular file")


def test_load_of_a_huge_job_file(iolens, tmp_path):
    """A job file is a few kilobytes: one of 2 MiB is refused unread."""
    big = tmp_path / "big.fio"
    big.write_bytes(b"#" * (2 << 20))
    one_line(run(["load", str(big)], timeout=10), "big.fio: over 1 MiB: not a job file")


def test_echoed_input_cut_and_escaped(iolens, job_file):
    """A bad value of 500 KB of control bytes comes back as one short line
    with its bytes escaped."""
    path = job_file(b"[a]\nbs=" + b"\x1b[2J" * 125000 + b"\n")
    err = one_line(run(["load", path]), "%s:2: bs=" % path)
    assert len(err) < 300 and "\x1b" not in err and "\\x1b" in err, err


def test_live_commands_refuse_a_pid_that_is_not(iolens):
    """-p of a process that does not exist: an error in every command that
    follows live processes (snoop, record and top said nothing and showed
    nothing)."""
    pid = str(free_pid())
    out = os.path.join(TMPFS, OWN + "never.iol")
    for args in (["snoop", "-p", pid], ["record", "-o", out, "-p", pid],
                 ["top", "-b", "-n", "1", "-p", pid], ["stat", "--pid", pid, "1"],
                 ["attach", "-p", pid], ["check", "-p", pid]):
        one_line(run(args), "no process %s" % pid)
    assert not os.path.exists(out)


@pytest.mark.parametrize("args", [["stat", "0.0001", "1"], ["stat", "99999999999"],
                                  ["lat", "0.001"], ["top", "-b", "-d", "0.001"]])
def test_intervals_share_one_range(iolens, args):
    """stat took 0.1 ms (58k lines in 3 s) where top needed 10 ms, and a
    large one was "not a positive number": one range, said."""
    one_line(run(args), "from 10ms to 1 week")


def test_record_to_an_empty_name(iolens):
    one_line(run(["record", "-o", ""]), "no output file")
