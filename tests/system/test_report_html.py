# SPDX-License-Identifier: GPL-2.0
"""iolens report -f html and -f svg: every chart's numbers, read from the
page itself, against the requests `report -f json` gives for the same
trace; the page in a real browser; bad input."""
import collections
import math
import os
import re
import subprocess
import xml.etree.ElementTree as ET

import pytest

from helpers import (IOLENS, Loop, chromium_screenshot, json_lines, mounted_ext4, page_data,
                     run, wait_idle)

CHARTS = ["latency-heatmap", "device-heatmap", "latency-histogram", "iops", "throughput",
          "queue-depth", "size-histogram", "offset", "submitters", "cgroups"]
OPS = {"read": 0, "write": 1}


def lrow(ns):
    """report/page.h's latency row: two a power of two from 1024 ns."""
    if ns < 1024:
        return 0
    e = ns.bit_length() - 1
    return min(2 * (e - 10) + ((ns >> (e - 1)) & 1), 53)


@pytest.fixture(scope="module")
def recorded(root, tmp_path_factory):
    """A recorded run on a loop device of its own: fio random reads and
    writes by two jobs at iodepth 4 for 2 s, a sequential direct write,
    then buffered writes that the flusher writes back."""
    d = tmp_path_factory.mktemp("html")
    lo = Loop()
    try:
        path = str(d / "t.iol")
        rec = subprocess.Popen([IOLENS, "record", "-o", path, "-d", lo.name],
                               stderr=subprocess.PIPE, text=True)
        assert rec.stderr.readline().startswith("Recording")
        for args in (["--rw=randrw", "--numjobs=2", "--iodepth=4", "--ioengine=libaio",
                      "--bs=4k", "--size=32M", "--time_based", "--runtime=2"],
                     ["--rw=write", "--bs=64k", "--size=16M"]):
            subprocess.run(["fio", "--name=h", "--filename=" + lo.dev, "--direct=1",
                            "--output-format=terse"] + args, check=True,
                           stdout=subprocess.DEVNULL)
        # Written back by the flusher: a kernel worker submits them.
        with mounted_ext4(lo.dev, d) as mnt:
            subprocess.run(["dd", "if=/dev/zero", "of=%s/f" % mnt, "bs=1M", "count=16",
                            "status=none"], check=True)
            subprocess.run(["sync"], check=True)
        wait_idle(lo)
        rec.send_signal(2)
        rec.communicate(timeout=30)
        assert rec.returncode == 0
        yield path, d
    finally:
        lo.close()


def test_page_numbers_equal_the_requests(iolens, recorded):
    """Per time bin and op the requests and bytes, the queue depth, both
    heat maps' columns and rows, the offsets; per submitter the requests,
    bytes and time; the percentiles within the histogram's 1/128."""
    path, d = recorded
    page = str(d / "p.html")
    r = run(["report", "-f", "html", "-o", page, path])
    assert r.returncode == 0 and r.stderr == "", r.stderr
    html = open(page).read()
    data = page_data(html)
    j = run(["report", "-f", "json", path])
    rqs, summary = json_lines(j.stdout)
    assert data["requests"] == summary["requests_shown"] == len(rqs) > 2000
    t0, w, nb = data["t0_ns"], data["bin_ns"], data["bins"]
    n = [[0] * nb for _ in range(3)]
    b = [[0] * nb for _ in range(3)]
    qd = {"sum": [0] * nb, "n": [0] * nb, "max": [0] * nb}
    heat = [collections.Counter(), collections.Counter()]
    offs = collections.Counter()
    who = collections.defaultdict(lambda: [0, 0, 0])
    spr = data["offset"][0]["sectors_per_row"]
    failed = 0
    for q in rqs:
        # A request in flight at the start has no submitter: pid 0.  A
        # failed one's time is in no latency (mkfs.ext4's write-zeroes,
        # which the loop device's file on tmpfs refuses: NOTSUPP).
        ok = q["status"] in ("ok", "unseen")
        failed += not ok
        k = (q["pid"] or 0, q["comm"] or "")
        who[k][0] += 1
        who[k][1] += q["bytes"]
        who[k][2] += q["total_ns"] or 0 if ok else 0
        if not q["ts_complete"]:
            continue
        i = (q["ts_complete"] - t0) // w
        op = OPS.get(q["op"], 2)
        n[op][i] += 1
        b[op][i] += q["bytes"]
        if q["qd"]:
            qd["sum"][i] += q["qd"]
            qd["n"][i] += 1
            qd["max"][i] = max(qd["max"][i], q["qd"])
        if q["total_ns"] is not None and ok:
            heat[0][(i, lrow(q["total_ns"]))] += 1
        if q["device_ns"] is not None and ok:
            heat[1][(i, lrow(q["device_ns"]))] += 1
        if q["bytes"]:      # a flush has no offset
            offs[(i, q["sector"] // spr, op)] += 1
    assert data["failed"] == failed == len(data["failures"])
    assert data["requests_per_bin"] == n
    assert data["bytes_per_bin"] == b
    assert data["qd"] == qd
    for k, key in enumerate(("latency_heatmap", "device_heatmap")):
        assert {(i, r): c for i, r, c in data[key]} == dict(heat[k])
    assert {(i, r, o): c for i, r, o, c in data["offset"][0]["cells"]} == dict(offs)
    got = {(s["pid"], s["comm"]): [s["requests"], s["bytes"], s["time_ns"]]
           for s in data["submitters"]}
    assert got == dict(who) and data["submitters_others"] == 0
    assert len(got) >= 3     # fio's two jobs, at least, and the flusher
    assert any(s["writeback"] for s in data["submitters"])
    for key, field in (("latency_ns", "total_ns"), ("device_ns", "device_ns")):
        vals = sorted(q[field] for q in rqs if q[field] is not None)
        for p, name in ((50, "p50"), (99, "p99"), (99.9, "p99.9")):
            exact = vals[max(0, math.ceil(len(vals) * p / 100) - 1)]  # nearest rank
            assert abs(data[key][name] - exact) <= exact / 128 + 1, (key, name)
    # The page shows what the JSON holds: every chart, the summary.
    assert html.count("<svg") >= len(CHARTS)
    assert "%d of %d" % (len(rqs), len(rqs)) in html
    for title in ("Total latency over time", "Device latency over time", "Offset over time",
                  "Queue depth over time", "IOPS over time", "Throughput over time",
                  "Request sizes", "Latency", "Submitters", "Cgroups"):
        assert "<title>%s" % title in html, title
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "<script src" not in html and "<link" not in html
    assert os.path.getsize(page) < 5 << 20


def test_filters_apply_to_the_page(iolens, recorded):
    path, d = recorded
    page = str(d / "w.html")
    r = run(["report", "-f", "html", "-O", "write", "-o", page, path])
    assert r.returncode == 0, r.stderr
    data = page_data(open(page).read())
    writes = json_lines(run(["report", "-f", "json", "-O", "write", path]).stdout)[0]
    assert data["requests"] == len(writes)
    assert sum(data["requests_per_bin"][0]) == 0
    # Over time only what completed: a completion can be missed here.
    done = [w for w in writes if w["ts_complete"]]
    assert sum(data["requests_per_bin"][1]) == len(done)
    assert data["unseen"] == len(writes) - len(done)
    assert "Filters: <code>-O write</code>" in open(page).read()


def test_page_renders_in_chromium(iolens, recorded):
    """Headless Chromium takes a screenshot that is not blank and logs no
    console message (the page runs no script and fetches nothing)."""
    path, d = recorded
    page = str(d / "c.html")
    assert run(["report", "-f", "html", "-o", page, path]).returncode == 0
    chromium_screenshot(page, str(d / "report-page.png"), 3700)


@pytest.mark.parametrize("chart", CHARTS)
def test_each_chart_alone(iolens, recorded, chart):
    path, d = recorded
    out = str(d / (chart + ".svg"))
    r = run(["report", "-f", "svg", "--chart", chart, "-o", out, path])
    assert r.returncode == 0, r.stderr
    root = ET.parse(out).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert root.find("{http://www.w3.org/2000/svg}title").text


def test_bad_input(iolens, recorded):
    path, d = recorded
    for args, what in ((["-f", "svg", path], "--chart"),
                       (["-f", "svg", "--chart", "pie", path], "pie"),
                       (["-f", "html", "--chart", "iops", path], "-f svg"),
                       (["-f", "gif", path], "gif")):
        r = run(["report"] + args)
        assert r.returncode == 2, (args, r.stderr)
        assert r.stderr.count("\n") == 1 and what in r.stderr, (args, r.stderr)
    # A damaged trace: the page of what came before, which says so; one
    # line, exit 1.
    data = open(path, "rb").read()
    cut = str(d / "cut.iol")
    with open(cut, "wb") as f:
        f.write(data[:len(data) // 2])
    page = str(d / "cut.html")
    r = run(["report", "-f", "html", "-o", page, cut])
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and "truncated" in r.stderr
    html = open(page).read()
    assert "The trace ends early" in html
    shown = page_data(html)["requests"]
    assert 0 < shown == len(json_lines(run(["report", "-f", "json", cut]).stdout)[0])
