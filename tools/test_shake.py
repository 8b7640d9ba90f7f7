#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The system tests under adverse timing (make test-shake): a test that is
exact by construction passes in every mode; one that waits by timing fails
in some.

  tools/test_shake.py BUILD_DIR [MODE...] [-- PYTEST_ARGS...]

Modes (all by default), each a whole run of make systest's tests:
  hog      a busy loop on every CPU, at the tests' own priority
  pin      the tests and everything they start on one CPU (taskset)
  random   the modules, and the tests of each, in a random order
           (conftest.py's IOLENS_TEST_SHUFFLE; the seed is printed)
  slow     every loop device the tests make over a faultfs file whose
           reads and writes take 300 us more (IOLENS_TEST_SLOW_DISK): no
           dm-delay here
Prints each mode's verdict and time; exit 1 if any failed.
"""
import os
import signal
import subprocess
import sys
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
MODES = ("hog", "pin", "random", "slow")
SLOW_US = "300"
HOG = "while True:\n    pass\n"


def run(build, mode, extra):
    env = dict(os.environ, IOLENS=os.path.join(build, "iolens"),
               FIO_EXAMPLES=os.path.join(build, "fio-examples"))
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-m", "not matrix",
           "tests/system"] + extra
    if mode == "random":
        env["IOLENS_TEST_SHUFFLE"] = str(int.from_bytes(os.urandom(4), "little"))
        print("test-shake: random order, IOLENS_TEST_SHUFFLE=%s" % env["IOLENS_TEST_SHUFFLE"],
              flush=True)
    if mode == "slow":
        env["IOLENS_TEST_SLOW_DISK"] = SLOW_US
    if mode == "pin":
        cmd = ["taskset", "-c", "0"] + cmd
    hogs = []
    if mode == "hog":
        hogs = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(os.cpu_count())]
    t0 = time.monotonic()
    try:
        rc = subprocess.run(cmd, cwd=REPO, env=env).returncode
    finally:
        for h in hogs:
            h.kill()
            h.wait()
    return rc, time.monotonic() - t0


def main():
    # Killed, it still kills its hogs (the finally in run()).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    args = sys.argv[1:]
    extra = []
    if "--" in args:
        extra = args[args.index("--") + 1:]
        args = args[:args.index("--")]
    if not args:
        sys.exit(__doc__)
    build, modes = os.path.abspath(args[0]), args[1:] or list(MODES)
    bad = [m for m in modes if m not in MODES]
    if bad:
        sys.exit("test_shake.py: no mode %s; modes: %s" % (bad[0], " ".join(MODES)))
    failed = []
    for m in modes:
        rc, secs = run(build, m, extra)
        print("test-shake: %s %s in %.0f s" % (m, "passed" if rc == 0 else "FAILED", secs),
              flush=True)
        if rc:
            failed.append(m)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
