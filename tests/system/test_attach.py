# SPDX-License-Identifier: GPL-2.0
"""iolens attach on a running fio 3.33: what it reports for fio's job
processes equals the I/Os fio reports itself (direct I/O: one request
each), and it ends by itself when fio exits."""
import json
import subprocess

import pytest

from helpers import IOLENS, run


def test_attach_fio_by_pid(loop):
    """fio forks one process per job; attach -p on fio's own pid finds them
    as its children: per job, requests and bytes per direction equal fio's
    total_ios and io_bytes.  fio's main process only probes the device
    (a few reads), and attach exits once fio has."""
    fio = subprocess.Popen(
        ["fio", "--name=t", "--filename=" + loop.dev, "--rw=randrw", "--bs=4k",
         "--direct=1", "--size=8m", "--numjobs=2", "--ioengine=libaio",
         "--iodepth=4", "--startdelay=1", "--output-format=json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        p = subprocess.run([IOLENS, "attach", "-j", "-d", loop.name, "-p", str(fio.pid)],
                           capture_output=True, text=True, timeout=120)
        out, err = fio.communicate(timeout=60)
    finally:
        if fio.poll() is None:
            fio.kill()
            fio.wait()
    assert fio.returncode == 0, err
    assert p.returncode == 0, p.stderr
    rep = json.loads(p.stdout)
    jobs = json.loads(out)["jobs"]
    assert rep["lost"] == 0
    children = [q for q in rep["processes"] if q["pid"] != fio.pid]
    got = sorted((q.get("read_requests", 0), q.get("write_requests", 0),
                  q.get("read_bytes", 0), q.get("write_bytes", 0)) for q in children)
    want = sorted((j["read"]["total_ios"], j["write"]["total_ios"],
                   j["read"]["io_bytes"], j["write"]["io_bytes"]) for j in jobs)
    # A request whose completion never reached iolens (the rare loss of
    # test_procfilter's counted_as_fio) is still counted, for the process
    # seen starting it; only its latency is unknown, and "unseen" says how
    # many such requests there were.
    assert got == want
    total = sum(j["read"]["total_ios"] + j["write"]["total_ios"] for j in jobs)
    main = [q for q in rep["processes"] if q["pid"] == fio.pid]
    extra = sum(q.get("read_requests", 0) for q in main)
    assert all(set(q) <= {"pid", "comm", "read_requests", "read_bytes"} for q in main)
    ops = rep["ops"]
    assert ops["read"]["requests"] + ops["write"]["requests"] == total + extra
    assert ops["write"]["misaligned"] == 0
    timed = sum(ops[op]["total_ns"]["count"] for op in ("read", "write"))
    assert timed == total + extra - rep["unseen"]
    for op in ("read", "write"):
        lat = ops[op]
        assert lat["queue_ns"]["p50"] <= lat["total_ns"]["p50"]
        assert lat["qd_max"] <= 4 * 2


@pytest.mark.fast
def test_attach_usage(root):
    for args, what in (([], "-p PID"), (["-p", "999999999"], "no process"),
                       (["-p", "1", "-D", "x"], "--duration"), (["-p", "1", "extra"], "extra")):
        p = run(["attach"] + args)
        assert p.returncode == 2, (args, p.stderr)
        assert len(p.stderr.strip().splitlines()) == 1 and what in p.stderr, p.stderr
