# SPDX-License-Identifier: GPL-2.0
"""Files root writes, where another user can plant something (issue 27):
a symbolic link planted by a real unprivileged user in /tmp (sticky) or in
a folder it owns (not sticky) never redirects record, report or load to a
file of root's; toprc is never a FIFO to wait on; load does not write a
file a mounted filesystem lives in; record says when its output is gone."""
import os
import subprocess
import time

import pytest

from helpers import IOLENS, OWN, TMPFS, digest, load, losetup, mounted_ext4, run

CANARY = b"root's own file: must not change\n"


@pytest.fixture
def canary(root):
    """A file of root's in /etc, with known contents."""
    path = "/etc/" + OWN + "canary"
    with open(path, "wb") as f:
        f.write(CANARY)
    os.chmod(path, 0o644)
    try:
        yield path
    finally:
        os.unlink(path)


@pytest.fixture(params=["tmp", "home"])
def planted(request, plain_user, canary):
    """A symbolic link to the canary that the user made: in /tmp, sticky,
    or in its own folder, which is not."""
    folder = "/tmp" if request.param == "tmp" else plain_user.home
    link = os.path.join(folder, OWN + "t.iol")
    plain_user.run("ln", "-s", canary, link)
    try:
        yield link
    finally:
        if os.path.lexists(link):
            os.unlink(link)


def refused_untouched(p, canary, what):
    """A non-zero exit with one line on stderr saying `what`; the canary is
    as it was."""
    with open(canary, "rb") as f:
        assert f.read() == CANARY
    assert p.returncode != 0, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and what in lines[0], p.stderr


@pytest.fixture
def data_file(root):
    path = os.path.join(TMPFS, OWN + "data")
    with open(path, "wb") as f:
        f.write(b"\0" * 65536)
    try:
        yield path
    finally:
        os.unlink(path)


def test_record_to_a_planted_link(iolens, planted, canary):
    """`record -o` overwrote the file the link named with the trace."""
    p = run(["record", "-o", planted, "-D", "0.3"], timeout=60)
    refused_untouched(p, canary, "symbolic link owned by uid")


def test_report_to_a_planted_link(iolens, planted, canary, trace_file):
    p = run(["report", trace_file, "-o", planted], timeout=60)
    refused_untouched(p, canary, "symbolic link owned by uid")


def test_load_output_to_a_planted_link(iolens, planted, canary, data_file):
    p = load(["--name=a", "--filename=" + data_file, "--rw=read", "--size=64k",
              "--output=" + planted], timeout=60)
    refused_untouched(p, canary, "symbolic link owned by uid")


def test_load_filename_a_planted_link(iolens, planted, canary):
    """`load --filename=LINK --rw=write` wrote into the file the link named."""
    p = load(["--name=a", "--filename=" + planted, "--rw=write", "--size=64k"],
             timeout=60)
    refused_untouched(p, canary, "symbolic link owned by uid")
    assert p.returncode == 2


def test_output_file_of_another_user(iolens, plain_user):
    """A file the user made where root is told to write is not root's to
    empty."""
    path = os.path.join(plain_user.home, OWN + "theirs")
    plain_user.run("sh", "-c", "echo mine > " + path)
    p = run(["record", "-o", path, "-D", "0.3"], timeout=60)
    assert p.returncode != 0 and "owned by uid %d" % plain_user.uid in p.stderr, p.stderr
    with open(path) as f:
        assert f.read() == "mine\n"


def test_own_link_is_followed(iolens, root, tmp_path):
    """A link root made itself (as udev's /dev/disk/by-id are) is followed."""
    target = tmp_path / "out.iol"
    link = tmp_path / "link.iol"
    os.symlink("out.iol", link)
    p = run(["record", "-o", str(link), "-D", "0.2"], timeout=60)
    assert p.returncode == 0, p.stderr
    assert os.path.getsize(target) > 0 and os.path.islink(link)


def test_toprc_a_fifo(iolens, plain_user):
    """A FIFO as toprc held `top -b` in open() for as long as nobody
    wrote to it."""
    conf = os.path.join(plain_user.home, ".config", "iolens")
    plain_user.run("mkdir", "-p", conf)
    plain_user.run("mkfifo", os.path.join(conf, "toprc"))
    env = dict(os.environ, HOME=plain_user.home)
    env.pop("XDG_CONFIG_HOME", None)
    start = time.monotonic()
    p = subprocess.run([IOLENS, "top", "-b", "-n", "1", "-d", "0.2"], capture_output=True,
                       text=True, env=env, timeout=15)
    assert time.monotonic() - start < 10
    assert p.returncode == 0, p.stderr
    assert "not a regular file" in p.stderr


def test_load_file_backing_a_mounted_loop(iolens, root, tmp_path):
    """The image of a mounted filesystem (through a loop device) was
    written like any file: refused as the mounted device is."""
    image = os.path.join(TMPFS, OWN + "fs.img")
    with open(image, "wb") as f:
        f.truncate(32 << 20)
    dev = None
    try:
        dev = losetup(image)
        with mounted_ext4(dev, tmp_path) as mnt:
            before = digest(image)
            p = load(["--name=a", "--filename=" + image, "--rw=write", "--size=64k"],
                     timeout=60)
            assert p.returncode == 2, p.stderr
            lines = p.stderr.strip().splitlines()
            assert len(lines) == 1 and "it backs %s, mounted on %s" % (dev, mnt) in lines[0], \
                p.stderr
            assert digest(image) == before
            # Reading it is harmless.
            p = load(["--name=a", "--filename=" + image, "--rw=read", "--size=64k"],
                     timeout=60)
            assert p.returncode == 0, p.stderr
    finally:
        if dev:
            subprocess.run(["losetup", "-d", dev], check=False)
        os.unlink(image)


def test_record_output_removed(iolens, root):
    """`rm` of record's output while it recorded ended in exit 0 and "N
    requests ... to X": the trace was gone."""
    path = os.path.join(TMPFS, OWN + "gone.iol")
    p = subprocess.Popen([IOLENS, "record", "-o", path, "-D", "3"], stderr=subprocess.PIPE,
                         text=True)
    try:
        assert "Recording" in p.stderr.readline()
        os.unlink(path)
        err = p.stderr.read()
        assert p.wait(timeout=30) == 1, err
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "was removed or renamed while being written" in lines[0], err
