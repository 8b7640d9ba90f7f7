# SPDX-License-Identifier: GPL-2.0
"""Paths root opens that an unprivileged user prepared (issue 46): a link
anywhere in the path, not only as its last part; pseudo-files as load
targets; FIFOs and folders as job files and logs; a job file that links to
a file of root's.  The user is a real one (helpers.PlainUser); root's
iolens must refuse with one line and exit 2, leaving root's files as they
were, and never wait."""
import json
import os
import shutil
import subprocess
import time

import pytest

from helpers import IOLENS, OWN, TMPFS, load, refused, run, run_in
from tracegen import synthetic_trace

SECRET = b"root-only: SECRET-7f3a\n"


@pytest.fixture
def roots_dir(root):
    """A folder of root's, mode 0700, holding one file of known contents."""
    path = os.path.join("/root", OWN + "dir")
    os.mkdir(path, 0o700)
    with open(os.path.join(path, "f"), "wb") as f:
        f.write(SECRET)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def linked(plain_user, roots_dir):
    """The user's ~/out, a link to root's folder."""
    link = os.path.join(plain_user.home, "out")
    plain_user.run("ln", "-s", roots_dir, link)
    return link


def untouched(folder):
    """Root's folder still holds only its file, as it was."""
    assert os.listdir(folder) == ["f"]
    with open(os.path.join(folder, "f"), "rb") as f:
        assert f.read() == SECRET


def through_link(p, folder):
    refused(p, "symbolic link owned by uid")
    untouched(folder)


@pytest.mark.parametrize("fmt", ["csv", "html", "json", "svg"])
def test_report_through_a_linked_folder(iolens, linked, roots_dir, trace_file, fmt):
    """report -o ~user/out/f overwrote root's /root/dir/f, exit 0."""
    chart = ["--chart", "iops"] if fmt == "svg" else []
    p = run(["report", "-f", fmt, "-o", linked + "/f", trace_file] + chart, timeout=60)
    through_link(p, roots_dir)


def test_compare_through_a_linked_folder(iolens, linked, roots_dir, trace_file):
    p = run(["report", "--compare", "-o", linked + "/new", trace_file, trace_file],
            timeout=60)
    through_link(p, roots_dir)


def test_record_through_a_linked_folder(iolens, linked, roots_dir):
    p = run(["record", "-o", linked + "/f", "-D", "0.3"], timeout=60)
    through_link(p, roots_dir)


@pytest.mark.parametrize("how", ["filename", "directory", "write_bw_log"])
def test_load_through_a_linked_folder(iolens, plain_user, linked, roots_dir, how):
    """A job file's filename=, directory= and write_bw_log= through the
    user's link: load wrote root's folder."""
    job = os.path.join(plain_user.home, "j.fio")
    lines = {"filename": "filename=%s/f\n" % linked,
             "directory": "directory=%s\n" % linked,
             "write_bw_log": "filename=%s/data\nwrite_bw_log=%s/f\n" % (plain_user.home, linked)}
    with open(job, "w") as f:
        f.write("[f]\nrw=write\nbs=4k\nsize=64k\n" + lines[how])
    p = run_in([IOLENS, "load", job], plain_user.home, timeout=60)
    if how == "write_bw_log":
        # The job ran (its file is the user's); its log was refused.
        assert p.returncode == 1 and "symbolic link owned by uid" in p.stderr, p.stderr
        untouched(roots_dir)
    else:
        through_link(p, roots_dir)


def test_link_of_roots_own_is_followed(iolens, root, tmp_path):
    """A folder link root made (as Debian's /var/run -> /run) is followed,
    in the middle of the path too."""
    real = tmp_path / "real"
    real.mkdir()
    os.symlink("real", tmp_path / "via")
    p = run(["record", "-o", str(tmp_path / "via" / "t.iol"), "-D", "0.2"], timeout=60)
    assert p.returncode == 0, p.stderr
    assert os.path.getsize(real / "t.iol") > 0


@pytest.fixture
def core_pattern(root):
    """/proc/sys/kernel/core_pattern, put back as it was whatever happens."""
    path = "/proc/sys/kernel/core_pattern"
    with open(path, "rb") as f:
        was = f.read()
    try:
        yield was
    finally:
        with open(path, "rb") as f:
            now = f.read()
        if now != was:
            with open(path, "wb") as f:
                f.write(was)
        assert now == was, "core_pattern was changed to %r" % now


def test_load_into_core_pattern(iolens, plain_user, core_pattern):
    """A job file run by root wrote the kernel's core_pattern (what it runs
    as root on a crash)."""
    job = os.path.join(plain_user.home, "j.fio")
    with open(job, "w") as f:
        f.write("[p]\nfilename=/proc/sys/kernel/core_pattern\nrw=write\nbs=512\nsize=512\n"
                "buffer_pattern='|/tmp/x'\n")
    refused(load([job], timeout=60), "a file of procfs")


def test_load_into_a_sysfs_setting(iolens, loop):
    name = os.path.basename(loop.dev)
    path = "/sys/block/%s/queue/read_ahead_kb" % name
    with open(path) as f:
        was = f.read()
    p = load(["--name=s", "--filename=" + path, "--rw=write", "--bs=512", "--size=512"],
             timeout=60)
    with open(path) as f:
        assert f.read() == was
    refused(p, "a file of sysfs")


def test_load_into_another_process_memory(iolens, root):
    child = subprocess.Popen(["sleep", "60"])
    try:
        p = load(["--name=m", "--filename=/proc/%d/mem" % child.pid, "--rw=write",
                  "--bs=4k", "--size=4k", "--offset=4096"], timeout=60)
        refused(p, "a file of procfs")
    finally:
        child.kill()
        child.wait()


def test_load_never_makes_a_file_in_dev(iolens, root):
    """A mistyped device name made a regular file in /dev."""
    path = "/dev/" + OWN + "nvme9n9"
    try:
        p = load(["--name=d", "--filename=" + path, "--rw=write", "--size=64k"], timeout=60)
        assert not os.path.lexists(path)
        refused(p, "refusing to make a file in the /dev file system")
    finally:
        if os.path.lexists(path):
            os.unlink(path)


def test_report_into_procfs(iolens, trace_file, core_pattern):
    refused(run(["report", "-o", "/proc/sys/kernel/core_pattern", trace_file], timeout=60),
            "procfs")


def test_job_file_a_fifo(iolens, plain_user):
    """A FIFO as the job file held load in open() forever."""
    fifo = os.path.join(plain_user.home, "j.fio")
    plain_user.run("mkfifo", fifo)
    start = time.monotonic()
    p = load([fifo], timeout=30)
    assert time.monotonic() - start < 20
    refused(p, "a FIFO, not a regular file")


def test_bw_log_to_a_fifo_nobody_reads(iolens, tmp_path):
    """write_bw_log= naming a FIFO with no reader held load forever."""
    os.mkfifo(tmp_path / "b_bw.1.log")
    start = time.monotonic()
    p = run_in([IOLENS, "load", "--name=b", "--filename=data", "--rw=write", "--size=64k",
                "--write_bw_log=b"], str(tmp_path), timeout=30)
    assert time.monotonic() - start < 20
    assert p.returncode == 1 and "b_bw.1.log" in p.stderr, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1, p.stderr


def test_job_file_a_link_to_roots_secret(iolens, plain_user, roots_dir):
    """A job file that is the user's link to a root-only file: its first
    line came back in the error."""
    link = os.path.join(plain_user.home, "j.fio")
    plain_user.run("ln", "-s", os.path.join(roots_dir, "f"), link)
    p = load([link], timeout=30)
    assert b"SECRET" not in p.stderr.encode() and "SECRET" not in p.stdout
    refused(p, "symbolic link owned by uid")


def test_job_file_a_folder(iolens, tmp_path):
    """A folder as the job file said "Input/output error"."""
    refused(load([str(tmp_path)], timeout=30), "a directory, not a file")


def test_report_onto_its_trace(iolens, trace_file):
    """report -f csv -o t.iol t.iol destroyed the trace."""
    with open(trace_file, "rb") as f:
        was = f.read()
    p = run(["report", "-f", "csv", "-o", trace_file, trace_file], timeout=60)
    refused(p, "refusing to write over an input of this command")
    with open(trace_file, "rb") as f:
        assert f.read() == was


def test_compare_onto_an_input(iolens, trace_file, tmp_path):
    """report --compare -o B A B exited 0 and replaced B."""
    other = str(tmp_path / "b.iol")
    shutil.copy(trace_file, other)
    with open(other, "rb") as f:
        was = f.read()
    p = run(["report", "--compare", "-o", other, trace_file, other], timeout=60)
    refused(p, "refusing to write over an input of this command")
    with open(other, "rb") as f:
        assert f.read() == was


@pytest.fixture
def small_fs(root):
    """A tmpfs of 64 KiB with 8 KiB left (a file "fill" takes the rest),
    unmounted after the test."""
    where = os.path.join(TMPFS, OWN + "small")
    os.mkdir(where)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", where], check=True)
    try:
        with open(os.path.join(where, "fill"), "wb") as f:
            f.write(b"x" * (56 << 10))
        yield where
    finally:
        subprocess.run(["umount", where], check=False)
        os.rmdir(where)


@pytest.mark.parametrize("fmt", ["csv", "html"])
def test_report_on_a_full_disk(iolens, small_fs, tmp_path, fmt):
    """A report that fills the disk leaves the name as it was (here: an
    older report) and nothing else, and exits 1."""
    big = str(tmp_path / "big.iol")
    synthetic_trace(big, 20000)
    out = os.path.join(small_fs, "out." + fmt)
    with open(out, "w") as f:
        f.write("older\n")
    p = run(["report", "-f", fmt, "-o", out, big], timeout=120)
    assert p.returncode == 1, p.stderr
    assert "No space left on device" in p.stderr, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert sorted(os.listdir(small_fs)) == ["fill", "out." + fmt]
    with open(out) as f:
        assert f.read() == "older\n"


def test_load_output_on_a_full_disk(iolens, small_fs, tmp_path):
    """load --output that cannot be written whole leaves nothing under
    the name."""
    out = os.path.join(small_fs, "report.json")
    with open(os.path.join(small_fs, "fill"), "ab") as f:
        try:
            f.write(b"x" * (8 << 10))
        except OSError:
            pass
    p = run_in([IOLENS, "load", "--name=o", "--filename=data", "--rw=read", "--size=64k",
                "--output-format=json", "--output=" + out], str(tmp_path), timeout=60)
    assert p.returncode == 1, p.stderr
    assert not os.path.exists(out)
    assert sorted(os.listdir(small_fs)) == ["fill"]


def test_job_names_shown_as_text(iolens, tmp_path):
    """A job file's section name was printed raw in load's text and terse
    output ([\\e[2J...])."""
    job = tmp_path / "j.fio"
    job.write_bytes(b"[\x1b[2Jev\x07il]\nfilename=%s\nsize=64k\nrw=read\n"
                    % str(tmp_path / "data").encode())
    for fmt in ("normal", "terse", "json"):
        p = subprocess.run([IOLENS, "load", str(job), "--output-format=" + fmt],
                           capture_output=True, timeout=60)
        assert p.returncode == 0, p.stderr
        assert b"\x1b" not in p.stdout + p.stderr and b"\x07" not in p.stdout
        if fmt == "json":
            assert json.loads(p.stdout)["jobs"][0]["jobname"] == "\x1b[2Jev\x07il"
        else:
            assert b"\\x1b[2Jev\\x07il" in p.stdout, p.stdout[:300]


def test_file_names_in_messages(iolens, tmp_path):
    """A file name of control bytes came back raw, and one of 1 MB as a
    1 MB line (here 900 KB: a job file is at most 1 MiB)."""
    for name, cut in ((b"\x1b]0;x\x07/nope", False), (b"/nope/" + b"a" * 900000, True)):
        job = tmp_path / "j.fio"
        job.write_bytes(b"[j]\nfilename=%s\nsize=64k\nrw=read\nallow_file_create=0\n" % name)
        p = subprocess.run([IOLENS, "load", str(job)], capture_output=True, timeout=60)
        assert p.returncode == 2, p.stderr
        assert len(p.stderr.splitlines()) == 1 and len(p.stderr) < 1500, len(p.stderr)
        assert b"\x1b" not in p.stderr and b"\x07" not in p.stderr
        assert (b"..." in p.stderr) == cut, p.stderr[:200]


def test_environment_not_echoed(iolens, tmp_path):
    """bs=${VAR} echoed the value of root's environment in the error."""
    job = tmp_path / "j.fio"
    job.write_text("[j]\nfilename=%s\nsize=64k\nbs=${IOLENS_SECRET}\n" % (tmp_path / "d"))
    env = dict(os.environ, IOLENS_SECRET="hunter2-secret")
    p = subprocess.run([IOLENS, "load", str(job)], capture_output=True, text=True, env=env,
                       timeout=60)
    assert p.returncode == 2 and "hunter2" not in p.stderr, p.stderr
    assert "${IOLENS_SECRET}" in p.stderr
