# SPDX-License-Identifier: GPL-2.0
"""iolens doctor as root and as an unprivileged user, and the privilege
message of a tracing command.  Runs as root (the system suite does)."""

import json
import os
import subprocess

import pytest

from helpers import IOLENS

# nobody/nogroup; --clear-groups drops root's supplementary groups too.
AS_NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
KEYS = {"check", "status", "detail", "consequence"}
STATUSES = {"ok", "missing", "fallback", "no-privilege"}


def run(args, nobody=False, timeout=60):
    cmd = (AS_NOBODY if nobody else []) + [IOLENS] + args
    return subprocess.run(cmd, capture_output=True, text=True, cwd="/",
                          timeout=timeout)


def doctor_json(nobody=False):
    p = run(["doctor", "-j"], nobody=nobody)
    doc = json.loads(p.stdout)
    return p, doc, {c["check"]: c for c in doc["checks"]}


@pytest.mark.fast
def test_doctor_json_as_root(iolens, root):
    p, doc, checks = doctor_json()
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    assert doc["kernel"] == os.uname().release
    for c in doc["checks"]:
        assert set(c) == KEYS, c
        assert c["status"] in STATUSES, c
    # Facts of these machines (DESIGN.md section 4; Debian's kernels in the
    # kernel matrix have kprobes and fentry).
    release = tuple(int(x) for x in os.uname().release.split(".")[:2])
    assert checks["block:block_rq_complete"]["status"] == "ok"
    assert checks["tp_btf"]["status"] == "ok"
    debian = release in ((6, 1), (6, 12))
    assert (checks["kprobe"]["status"] == "ok") == debian
    assert (checks["fentry"]["status"] == "ok") == debian
    assert doc["summary"]["snoop_record"] == "ready"
    assert doc["summary"]["attach"] == "tp_btf"
    # root reads /proc/kallsyms' addresses: --files tells direct I/O.
    assert checks["direct I/O's files"]["status"] == "ok"
    # Every kernel of these machines and the matrix has openat2 (5.6+),
    # unless a seccomp filter refuses it, which this test would see.
    seccomp = [l for l in open("/proc/self/status") if l.startswith("Seccomp:")]
    assert checks["paths"]["status"] == ("fallback" if seccomp and seccomp[0].split()[1] != "0"
                                         else "ok"), checks["paths"]


def test_doctor_hooks_and_commands(iolens, root):
    """One row per hook the BPF objects have, each described; a verdict per
    command: all can run, and before Linux 6.5 (no block_io_start and
    block_io_done) those that use them say what takes their place."""
    p, doc, checks = doctor_json()
    hooks = {k: c for k, c in checks.items()
             if k.split(":")[0] in ("block", "agg", "tasks", "check")}
    # Every object's programs, as built: the tracepoints each one uses.
    for name in ("block:block_rq_issue", "agg:block_io_done", "tasks:task",
                 "tasks:syscalls", "check:syscalls", "check:block_rq_issue"):
        assert name in hooks, sorted(hooks)
    for c in hooks.values():
        assert "no note" not in c["consequence"], c
    cmds = doc["commands"]
    assert set(cmds) == {"snoop", "record", "attach", "bench", "stat", "lat",
                         "serve", "top", "check"}
    release = tuple(int(x) for x in os.uname().release.split(".")[:2])
    io_start = release >= (6, 5)
    assert (hooks["agg:block_io_done"]["status"] == "ok") == io_start
    for name, v in cmds.items():
        assert v["verdict"] in ("ok", "degraded"), (name, v)
        if io_start:
            assert v["verdict"] == "ok" and v["lost"] == "", (name, v)
    if not io_start:
        assert cmds["stat"]["verdict"] == "degraded"
        assert "block_rq_complete" in cmds["stat"]["lost"]


def test_doctor_text_as_root(iolens, root):
    p = run(["doctor"])
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[0].split() == [
        "CHECK", "STATUS", "DETAIL", "CONSEQUENCE"]
    assert p.stdout.rstrip().splitlines()[-1] == "snoop/record: ready (tp_btf)"


@pytest.mark.fast
def test_doctor_as_nobody(iolens, root):
    p, doc, checks = doctor_json(nobody=True)
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    for c in doc["checks"]:
        assert set(c) == KEYS, c
    for name in ("root", "CAP_BPF", "CAP_PERFMON", "CAP_SYS_ADMIN"):
        assert checks[name]["status"] == "no-privilege", checks[name]
    # The loads are refused for lack of privilege, not reported missing.
    assert checks["tp_btf"]["status"] == "no-privilege"
    assert "EPERM" in checks["tp_btf"]["detail"]
    # BTF is world-readable, so the tracepoints are still answered.
    assert checks["block:block_rq_complete"]["status"] == "ok"
    assert doc["summary"]["privileged"] is False

    text = run(["doctor"], nobody=True)
    assert text.returncode == 0
    assert "rerun as root" in text.stdout.rstrip().splitlines()[-1]


@pytest.mark.fast
@pytest.mark.parametrize("cmd", [["snoop"], ["record", "-o", "/tmp/iolens-never.iol"],
                                 ["top"], ["top", "-b", "-n", "1"]])
def test_tracing_as_nobody_says_what_is_missing(iolens, root, cmd):
    p = run(cmd, nobody=True, timeout=20)
    assert p.returncode == 1
    lines = p.stderr.splitlines()
    assert len(lines) == 1, p.stderr
    assert "CAP_BPF" in lines[0]
    assert p.stdout == ""
    assert not os.path.exists("/tmp/iolens-never.iol")


def bpftool_maps():
    out = subprocess.run(["bpftool", "map", "show", "-j"], capture_output=True,
                         text=True, check=True).stdout
    return {m["id"]: m for m in json.loads(out or "[]")}


@pytest.mark.parametrize("row,args", [("memory stat", ["stat", "-y", "1"]),
                                      ("memory serve", ["serve", "--listen", "127.0.0.1:9799"]),
                                      ("memory snoop", ["snoop"]),
                                      ("memory record", ["record", "-o", "{tmp}/t.iol"])])
def test_doctor_memory_is_what_the_command_takes(iolens, root, row, args, tmp_path):
    """doctor's kernel memory of a command, made without running it, is
    the bytes_memlock bpftool shows for the maps the running command made
    (and what -v says at its start)."""
    _, _, checks = doctor_json()
    said = float(checks[row]["detail"].split(" MiB")[0])
    before = bpftool_maps()
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    p = subprocess.Popen([IOLENS, "-v"] + args, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    try:
        line = ""
        while "kernel memory of" not in line:
            line = p.stderr.readline()
            assert line, "no memory line"
        at_start = float(line.split(": ")[2].split(" MiB")[0])
        mine = {k: m for k, m in bpftool_maps().items() if k not in before}
    finally:
        p.kill()
        p.wait()
    assert mine
    memlock = sum(m.get("bytes_memlock", 0) for m in mine.values()) / 2 ** 20
    assert abs(memlock - said) < 0.1, (memlock, said)
    assert abs(memlock - at_start) < 0.1, (memlock, at_start)
