#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Every command once on this kernel, on a loop device made here: whether it
ran, what it said on stderr, and what doctor predicted for it.  Writes
{release, commands: {name: {exit, ok, said, doctor, agrees}}, doctor: {...}}
as JSON to the file given and prints one line per command; exit 1 if a
command failed or doctor's verdict for it said otherwise.

Run by run_matrix.py inside each guest, and usable on any machine as root.
"""
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

IOLENS = os.environ.get("IOLENS", "build/iolens")


def sh(*args, **kw):
    return subprocess.run(list(args), capture_output=True, text=True, **kw)


def run(name, args, workload=None, timeout=120):
    """Runs iolens ARGS, with `workload` (a function) started after 1 s."""
    p = subprocess.Popen([IOLENS] + args, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    if workload:
        time.sleep(1)
        workload()
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    said = [l for l in err.splitlines() if l.startswith("iolens")]
    return {"exit": p.returncode, "said": said[:3], "stdout": out}


def table():
    """The commands of `iolens --help` (the command table), doctor apart:
    each must have its case below."""
    out = sh(IOLENS, "--help").stdout
    block = out.split("\ncommands:\n")[1].split("\n\n")[0]
    return {l.split()[0] for l in block.splitlines()} - {"completion", "doctor"}


def main():
    out = sys.argv[1]
    res = {"release": os.uname().release, "commands": {}}
    fd, img = tempfile.mkstemp(prefix="iolens-matrix-", dir="/dev/shm")
    os.ftruncate(fd, 64 << 20)
    os.close(fd)
    sh("modprobe", "loop")
    dev = (sh("losetup", "-f", "--show", "--direct-io=on", img).stdout.strip() or
           sh("losetup", "-f", "--show", img).stdout.strip())
    name = os.path.basename(dev)
    trace = tempfile.mktemp(prefix="iolens-matrix-", dir="/dev/shm")

    def reads():
        sh("dd", "if=" + dev, "of=/dev/null", "bs=4k", "count=256",
           "iflag=direct")

    try:
        d = run("doctor", ["doctor", "-j"])
        res["doctor"] = json.loads(d["stdout"]) if d["exit"] in (0, 1) else None
        c = res["commands"]
        c["snoop"] = run("snoop", ["snoop", "-j", "-d", name, "-D", "3"], reads)
        c["record"] = run("record", ["record", "-o", trace, "-d", name, "-D", "3"], reads)
        c["report"] = run("report", ["report", trace])
        c["stat"] = run("stat", ["stat", "-y", "-j", "-d", name, "2", "1"], reads)
        c["lat"] = run("lat", ["lat", "-j", "-d", name, "2", "1"], reads)
        c["top"] = run("top", ["top", "-j", "-n", "2", "-d", "1"], reads)
        c["top -b"] = run("top -b", ["top", "-b", "-n", "2", "-d", "1"], reads)
        c["check"] = run("check", ["check", "-j", "-d", name, "-D", "3"], reads)
        c["attach"] = run("attach", ["attach", "-c", "dd", "-D", "3"], reads)
        c["bench"] = run("bench", ["bench", "--name=r", "--filename=" + dev,
                                   "--rw=randread", "--bs=4k", "--direct=1",
                                   "--size=1m"])
        c["load"] = run("load", ["load", "--name=r", "--filename=" + dev,
                                 "--rw=read", "--bs=64k", "--direct=1",
                                 "--size=1m", "--ioengine=io_uring"])
        serve = subprocess.Popen([IOLENS, "serve", "--listen", "127.0.0.1:19633"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True)
        body, code = "", None
        for _ in range(40):
            time.sleep(0.5)
            try:
                with urllib.request.urlopen("http://127.0.0.1:19633/metrics",
                                            timeout=5) as r:
                    code, body = r.status, r.read().decode()
                break
            except OSError:
                if serve.poll() is not None:
                    break
        serve.terminate()
        _, err = serve.communicate(timeout=30)
        c["serve"] = {"exit": 0 if code == 200 and "iolens_requests_total" in body else 1,
                      "said": [l for l in err.splitlines() if l.startswith("iolens")][:3]}
    finally:
        sh("losetup", "-d", dev)
        os.unlink(img)
        if os.path.exists(trace):
            os.unlink(trace)
    verdicts = (res["doctor"] or {}).get("commands", {})
    bad = 0
    for k in sorted(table() - {k.split()[0] for k in res["commands"]}):
        print("%-7s FAIL no case in tests/kernels/commands.py" % k)
        bad += 1
    for k, v in res["commands"].items():
        v["ok"] = v["exit"] == 0 or (k == "check" and v["exit"] == 1)
        v.pop("stdout", None)
        # load and report load no BPF: doctor has no verdict for them.
        v["doctor"] = verdicts.get(k.split()[0], {}).get("verdict", "ok")
        v["agrees"] = v["ok"] == (v["doctor"] != "cannot run")
        bad += not v["ok"] or not v["agrees"]
        print("%-7s %-4s doctor: %-10s %s" % (k, "ok" if v["ok"] else "FAIL",
                                           v["doctor"], "; ".join(v["said"])))
    with open(out, "w") as f:
        json.dump(res, f, indent=1)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
