# SPDX-License-Identifier: GPL-2.0
"""Commands on a machine as it boots: tracefs not mounted (conftest's
booted_state unmounts it before every test).  The syscall tracepoints of
top, check and bench need it for their event ids: iolens mounts it, as perf
does, and says so in doctor."""
import json
import os

import subprocess

import pytest

from helpers import TRACEFS, run

DEBUGFS = "/sys/kernel/debug"


def tracefs_mounted():
    return os.path.ismount(TRACEFS)


@pytest.fixture(autouse=True)
def no_debugfs():
    """Neither mounted, as these machines boot (a guest of the kernel matrix
    has debugfs, where libbpf finds tracefs too): put back afterwards."""
    was = os.path.ismount(DEBUGFS)
    if was:
        subprocess.run(["umount", "-l", DEBUGFS], check=True)
    try:
        yield
    finally:
        if was and not os.path.ismount(DEBUGFS):
            subprocess.run(["mount", "-t", "debugfs", "none", DEBUGFS], check=False)


def test_top_mounts_tracefs_for_its_syscall_level(iolens):
    """top's syscall level (FILE READ, HIT%, FSYNC, syscall latency) on a
    booted machine: counted, not '-'."""
    assert not tracefs_mounted()
    r = run(["top", "-j", "-n", "2", "-d", "0.3", "-p", str(os.getpid())],
            timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stderr == "", r.stderr
    frames = [json.loads(l) for l in r.stdout.splitlines()]
    assert len(frames) == 2
    assert set(frames[-1]["syscall_latency"]) == {
        "file_read", "file_write", "other_read", "other_write", "sync"}
    me = [p for p in frames[-1]["processes"] if p["pid"] == os.getpid()]
    assert me and "file_read_calls" in me[0], frames[-1]
    assert tracefs_mounted()


@pytest.mark.fast
def test_check_and_doctor_mount_tracefs(iolens):
    """check loads its syscall programs on a booted machine; doctor mounts
    tracefs as the commands would and says it did."""
    assert not tracefs_mounted()
    r = run(["check", "-j", "-D", "0.3"], timeout=60)
    assert r.returncode in (0, 1), r.stderr
    assert "cannot" not in r.stderr, r.stderr
    json.loads(r.stdout)
    assert tracefs_mounted()

    os.system("umount -l " + TRACEFS)
    r = run(["doctor", "-j"], timeout=60)
    row = next(c for c in json.loads(r.stdout)["checks"] if c["check"] == "tracefs")
    assert row["status"] == "ok", row
    assert "iolens mounted it" in row["detail"], row
    r = run(["doctor", "-j"], timeout=60)
    row = next(c for c in json.loads(r.stdout)["checks"] if c["check"] == "tracefs")
    assert row["status"] == "ok" and "mounted it" not in row["detail"], row


def test_tracefs_through_debugfs(iolens):
    """A machine that mounts debugfs but not /sys/kernel/tracing (libbpf
    then reads event ids through /sys/kernel/debug/tracing): doctor finds
    tracefs there, and top's syscall level is whole."""
    assert not tracefs_mounted()
    subprocess.run(["mount", "-t", "debugfs", "none", DEBUGFS], check=True)
    try:
        r = run(["doctor", "-j"], timeout=60)
        doc = json.loads(r.stdout)
        row = next(c for c in doc["checks"] if c["check"] == "tracefs")
        assert row["status"] == "ok" and DEBUGFS + "/tracing" in row["detail"], row
        # Whatever else a kernel lacks (6.1: block_io_start), not the
        # syscall level.
        top = doc["commands"]["top"]
        assert top["verdict"] in ("ok", "degraded") and "syscall" not in top["lost"], top
        assert not tracefs_mounted()
    finally:
        subprocess.run(["umount", "-l", DEBUGFS], check=False)
