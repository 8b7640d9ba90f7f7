#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Which system tests the sanitizer run (make san-systest) may leave out:
those whose every line of iolens's C code other tests run too.

  tools/san_selection.py [--reuse] BUILD_DIR [PYTEST_ARGS...]

Builds iolens with gcov counts in BUILD_DIR/cov, runs the system tests as
san-systest does with each test's counts in a folder of its own
(conftest.py's coverage_apart), then chooses tests greedily, each time
the one that adds the most lines not yet covered per second it takes,
until the chosen ones cover every line the whole run covered.  The others
are written to tests/system/san_skip.txt, which san-systest leaves out; a
test not named there (a new one), or one that failed in the coverage run
(its counts stop where it did), runs under the sanitizers.  Prints what
the chosen ones cost against the whole.  --reuse chooses again from the
last run's counts.
"""
import collections
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
SKIP = os.path.join(REPO, "tests/system/san_skip.txt")


def covered(test_dir, objdir):
    """The (source, line) pairs the test's iolens processes ran."""
    lines = set()
    found = collections.defaultdict(list)
    for root, _, files in os.walk(test_dir):
        for f in files:
            if f.endswith(".gcda"):
                found[root].append(f)
    for root, gcdas in found.items():
        # The counts' folder mirrors the build's; gcov wants each .gcno
        # beside its .gcda.
        rel = os.path.relpath(root, test_dir)
        build = os.path.join("/", rel)
        if not build.startswith(objdir):
            continue
        for g in gcdas:
            gcno = os.path.join(build, g[:-5] + ".gcno")
            link = os.path.join(root, g[:-5] + ".gcno")
            if os.path.exists(gcno) and not os.path.exists(link):
                os.symlink(gcno, link)
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(["gcov", "-j", "-o", root] + [os.path.join(root, g) for g in gcdas],
                           cwd=tmp, capture_output=True, check=True)
            for out in os.listdir(tmp):
                with gzip.open(os.path.join(tmp, out)) as fh:
                    doc = json.load(fh)
                for f in doc["files"]:
                    if not f["file"].startswith(("src/", "include/", "bpf/")):
                        continue
                    lines.update((f["file"], ln["line_number"]) for ln in f["lines"]
                                 if ln["count"])
    return lines


def durations(junit):
    """Each test's seconds, by the name conftest.py gives its folder; and
    the tests that failed or erred, whose counts stop where they did."""
    out, failed = {}, set()
    for case in ET.parse(junit).getroot().iter("testcase"):
        path = case.get("classname").replace(".", "/")
        nodeid = "tests/system/%s.py::%s" % (path.split("/")[-1], case.get("name"))
        out[re.sub(r"[^A-Za-z0-9_.-]", "_", nodeid)] = (nodeid, float(case.get("time")))
        if case.find("failure") is not None or case.find("error") is not None:
            failed.add(nodeid)
    return out, failed


def main():
    args = sys.argv[1:]
    reuse = "--reuse" in args
    if reuse:
        args.remove("--reuse")
    build = os.path.abspath(args[0])
    cov = os.path.join(build, "cov")
    counts = os.path.join(cov, "counts")
    junit = os.path.join(cov, "junit.xml")
    if not reuse:
        subprocess.run(["make", "-j2", "OUT=" + cov, "EXTRA_CFLAGS=--coverage",
                        "EXTRA_LDFLAGS=--coverage", cov + "/iolens", cov + "/tests/task_probe",
                        cov + "/tests/faultfs"], cwd=REPO, check=True)
        subprocess.run(["rm", "-rf", counts], check=True)
        env = dict(os.environ, IOLENS=cov + "/iolens", IOLENS_COVERAGE_DIR=counts,
                   FIO_EXAMPLES=os.path.join(build, "fio-examples"))
        r = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
                            "-m", "not matrix and not nosan", "--junitxml=" + junit,
                            "tests/system"] + args[1:], cwd=REPO, env=env)
        if r.returncode:
            print("san_selection.py: some tests failed in the coverage run (above): "
                  "they stay in the sanitizer run", flush=True)
    tests, failed = durations(junit)
    lines = {}
    for name in sorted(os.listdir(counts)):
        if name in tests:
            lines[name] = covered(os.path.join(counts, name), cov)
    everything = set().union(*lines.values())
    left, chosen = set(everything), []
    while left:
        best = max(lines, key=lambda n: len(lines[n] & left) / max(tests[n][1], 0.05))
        if not lines[best] & left:
            break
        chosen.append(best)
        left -= lines[best]
    # A test that failed ran only part of its lines: kept.
    skip = sorted(tests[n][0] for n in tests if n not in chosen and tests[n][0] not in failed)
    with open(SKIP, "w") as f:
        f.write("# Written by tools/san_selection.py: system tests whose every line of\n"
                "# iolens's C code the others run too; make san-systest leaves them out.\n")
        f.writelines(n + "\n" for n in skip)
    whole = sum(t for _, t in tests.values())
    kept = sum(tests[n][1] for n in chosen)
    print("%d lines covered by %d tests (%.0f s); %d tests (%.0f s) cover them all; "
          "%d left out" % (len(everything), len(tests), whole, len(chosen), kept, len(skip)))


if __name__ == "__main__":
    main()
