# SPDX-License-Identifier: GPL-2.0
"""Messages (issue 46): a value typed on the command line comes back in
one line of text, escaped and cut, however long or hostile; a refusal
comes before any output; a failure for want of memory says so."""
import os
import subprocess

import pytest

from helpers import IOLENS, run

# 10 KB with terminal controls in it.
HOSTILE = "A\x1b[2J\x1b]0;pw\x07" + "x" * 10000

CASES = [
    ["record", "--ring", "1s", "-o", "/tmp/x", "--trigger", HOSTILE],
    ["serve", "--listen", HOSTILE],
    ["serve", "--labels", HOSTILE],
    ["top", "-b", "-n", "1", "-u", HOSTILE],
    ["top", "-b", "-n", "1", "--cgroup", HOSTILE],
    ["stat", "--cgroup", HOSTILE, "1", "1"],
    ["snoop", "-c", HOSTILE, "--pid", HOSTILE],
]


@pytest.mark.parametrize("args", CASES, ids=lambda a: "-".join(a[:2]))
def test_values_echoed_as_one_short_line(iolens, args):
    p = subprocess.run([IOLENS] + args, capture_output=True, timeout=30)
    assert p.returncode == 2, p.stderr[:300]
    err = p.stderr
    assert err.count(b"\n") == 1 and len(err) < 2500, len(err)
    assert not [c for c in err[:-1] if c < 0x20 or c == 0x7f], err[:200]
    assert b"\\x1b[2J" in err and b" ... " in err, err[:200]
    # The hint at its end is kept, once.
    assert err.rstrip().endswith(b"--help')") and err.count(b"--help") == 1, err[-200:]


def test_unprivileged_stat_refused_before_any_report(iolens, plain_user):
    """`stat 1 2` as a user printed the whole report since boot, then
    refused."""
    p = subprocess.run(["setpriv", "--reuid=%d" % plain_user.uid, "--regid=%d" % plain_user.gid,
                        "--clear-groups", "--", IOLENS, "stat", "1", "2"],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 1 and p.stdout == "", p.stdout[:300]
    assert "needs root" in p.stderr and len(p.stderr.splitlines()) == 1, p.stderr


@pytest.mark.nosan
def test_out_of_memory_named(iolens, root):
    """Under a small RLIMIT_AS snoop said "Resource temporarily
    unavailable" without naming memory.  Where the limit stops it depends
    on the machine: at each of these limits, either it ran or it named
    memory, and at least one stopped it."""
    stopped = 0
    for mb in range(30, 130, 10):
        p = subprocess.run(["prlimit", "--as=%d" % (mb << 20), IOLENS, "snoop", "-D", "0.2"],
                           capture_output=True, text=True, timeout=60)
        if p.returncode == 0:
            continue
        stopped += 1
        assert "memory" in p.stderr, (mb, p.stderr)
    assert stopped, "no limit stopped it"


def test_another_users_toprc_shown_as_text(iolens, plain_user):
    """Root running top with a user's HOME (sudo -E) printed the user's
    toprc lines raw in its warning."""
    conf = os.path.join(plain_user.home, ".config", "iolens")
    plain_user.run("mkdir", "-p", conf)
    plain_user.run("sh", "-c", "printf 'columns=pid,\\033[2J\\033]0;pw\\007x\\n' > %s/toprc" % conf)
    env = dict(os.environ, HOME=plain_user.home)
    env.pop("XDG_CONFIG_HOME", None)
    p = subprocess.run([IOLENS, "top", "-b", "-n", "1", "-d", "0.2"], capture_output=True,
                       env=env, timeout=30)
    assert p.returncode == 0, p.stderr
    assert b"unknown or repeated column" in p.stderr, p.stderr
    assert b"\x1b" not in p.stderr and b"\x07" not in p.stderr, p.stderr
    assert b"\\x1b[2J" in p.stderr
