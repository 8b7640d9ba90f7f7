# SPDX-License-Identifier: GPL-2.0
"""Failures that name their cause: a too-low open-file limit (once the
verifier's "Invalid argument"), and tracefs that a user with CAP_BPF and
CAP_PERFMON alone cannot read (once "absent in tracefs")."""

import json
import os
import re
import shutil
import subprocess

import pytest

from helpers import IOLENS, OWN, TMPFS, TRACEFS, free_port

LIMIT_LINE = r"iolens %s: needs (\d+) open files, the limit is 16 \(ulimit -n\): raise it"


def limited(args, soft_only=False, timeout=30):
    """iolens `args` under `ulimit -n 16` (both limits), or the soft limit
    alone."""
    return subprocess.run(["bash", "-c", 'ulimit %s 16 && exec "$@"' % ("-Sn" if soft_only else "-n"),
                           "-", IOLENS] + args, capture_output=True, text=True, timeout=timeout)


def command_args(cmd):
    if cmd == "serve":
        return ["serve", "--listen", "127.0.0.1:%d" % free_port()]
    return {"stat": ["stat", "-y", "1", "1"], "lat": ["lat", "1", "1"],
            "snoop": ["snoop", "-D", "0.2"]}[cmd]


@pytest.mark.fast
@pytest.mark.parametrize("cmd", ["stat", "lat", "serve", "snoop"])
def test_fd_limit_named(iolens, root, cmd):
    """With both limits at 16 nothing loads: one line says how many open
    files are needed and what the limit is, not the verifier's EINVAL."""
    p = limited(command_args(cmd))
    assert p.returncode == 1, (p.returncode, p.stderr)
    lines = p.stderr.splitlines()
    assert len(lines) == 1, p.stderr
    m = re.fullmatch(LIMIT_LINE % cmd, lines[0])
    assert m, lines[0]
    assert int(m.group(1)) > 16
    assert p.stdout == ""


@pytest.mark.parametrize("cmd", ["stat", "lat", "snoop"])
def test_fd_soft_limit_raised(iolens, root, cmd):
    """A soft limit of 16 under a higher hard one is raised, as systemd and
    most daemons do: the command runs."""
    p = limited(command_args(cmd), soft_only=True)
    assert p.returncode == 0, p.stderr
    assert "Invalid argument" not in p.stderr and "open files" not in p.stderr


def test_doctor_says_fd_limit(iolens, root):
    """doctor's memory rows give the limit as the reason their maps cannot
    be made, not "cannot be made here"."""
    p = limited(["doctor", "-j"], timeout=60)
    assert p.returncode == 0, p.stderr
    rows = [c for c in json.loads(p.stdout)["checks"] if c["check"].startswith("memory ")]
    assert rows
    for c in rows:
        assert c["status"] == "missing", c
        assert "ulimit -n" in c["consequence"], c
        assert re.search(r"its maps need (\d+) open files, the limit is 16$", c["detail"]), c
        assert "cannot be made here" not in c["consequence"]


@pytest.mark.parametrize("mounted", [True, False], ids=["mounted", "unmounted"])
def test_doctor_tracefs_unreadable_least_privileges(iolens, root, plain_user, mounted):
    """A real user with CAP_BPF and CAP_PERFMON alone cannot read tracefs
    (mode 0700, root's), nor mount it: the syscall tracepoints are not
    "absent", doctor says tracefs could not be read and what to do."""
    u = plain_user
    binary = os.path.join(TMPFS, OWN + "iolens-doctor")
    shutil.copy(IOLENS, binary)
    os.chmod(binary, 0o755)
    caps = "-all,+bpf,+perfmon"
    try:
        if mounted:
            subprocess.run(["mount", "-t", "tracefs", "nodev", TRACEFS], check=True)
            assert not os.stat(TRACEFS).st_mode & 0o077
        p = subprocess.run(["setpriv", "--reuid=%d" % u.uid, "--regid=%d" % u.gid,
                            "--clear-groups", "--inh-caps=" + caps, "--ambient-caps=" + caps,
                            "--bounding-set=" + caps, binary, "doctor", "-j"],
                           capture_output=True, text=True, timeout=60, cwd="/")
    finally:
        os.unlink(binary)
        if mounted:
            subprocess.run(["umount", "-l", TRACEFS], check=False)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    checks = {c["check"]: c for c in doc["checks"]}
    why = "could not be read (Permission denied)" if mounted else \
        "could not be mounted (Operation not permitted)"
    for name in ("check:syscalls", "tasks:syscalls"):
        c = checks[name]
        assert c["status"] == "no-privilege", c
        assert "absent" not in c["detail"], c
        assert c["detail"].endswith(" unknown: tracefs " + why), c
        assert "run as root, or let it read " + TRACEFS in c["consequence"], c
    assert checks["tracefs"]["status"] == "no-privilege"
    assert "absent" not in doc["commands"]["check"]["lost"]
    assert "tracefs could not be read" in doc["commands"]["check"]["lost"]
