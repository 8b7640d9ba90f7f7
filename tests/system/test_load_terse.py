# SPDX-License-Identifier: GPL-2.0
"""fio's terse format (--output-format=terse, --minimal, --terse-version)
under iolens load: the same fields as fio 3.33's, in the same order and
form, for each version; their values those of the run: the bytes of a
bounded job, bandwidth and IOPS from its bytes and runtime, the disk's
counters the /proc/diskstats delta of the run."""
import json
import os
import re

import pytest

from helpers import IOLENS, diskstats, run_in

# What a field looks like: the same kind in fio's line and iolens's.
KINDS = [("int", r"\d+"), ("float", r"\d+\.\d{6}"), ("pct6", r"\d+\.\d{6}%"),
         ("pct1", r"\d+\.\d%"), ("pct2", r"\d+\.\d\d%"), ("pctl", r"\d+(?:\.\d{6})?%=\d+")]


def kind(field):
    for name, rx in KINDS:
        if re.fullmatch(rx, field):
            return name
    return "text"


def job(loop, *extra):
    return ["--name=t", "--filename=" + loop.dev, "--direct=1", "--rw=randread", "--bs=4k",
            "--size=4m", "--ioengine=libaio", "--iodepth=4", "--description=a b"] + list(extra)


@pytest.mark.parametrize("version", [2, 3, 4, 5])
def test_fields_as_fios(iolens, loop, tmp_path, version):
    """Each version: as many fields as fio's, each of the same kind (a
    whole number, six decimals, a percentage, 'P%=V', text) in order."""
    lines = {}
    for tool in ([IOLENS, "load"], ["fio"]):
        p = run_in(tool + job(loop, "--output-format=terse", "--terse-version=%d" % version),
                   tmp_path)
        assert p.returncode == 0, p.stderr
        lines[tool[0]] = p.stdout
    ours, theirs = lines[IOLENS], lines["fio"]
    # Version 2 puts the description on a line of its own, as fio's.
    assert ours.count("\n") == theirs.count("\n") == (2 if version == 2 else 1)
    a, b = ours.replace("\n", ";").split(";"), theirs.replace("\n", ";").split(";")
    assert len(a) == len(b), (len(a), len(b))
    assert [kind(x) for x in a] == [kind(y) for y in b], list(zip(a, b))
    assert a[0] == str(version)


def test_values_are_the_runs(iolens, loop, tmp_path):
    """Version 3 of a bounded job (--minimal): 4096 KiB read, bandwidth and
    IOPS as fio computes them from the bytes and the runtime, nothing
    written, and the disk's fields the kernel's counts over the run."""
    name = os.path.basename(loop.dev)
    before = diskstats(name)
    p = run_in([IOLENS, "load"] + job(loop, "--minimal"), tmp_path)
    after = diskstats(name)
    assert p.returncode == 0, p.stderr
    f = p.stdout.rstrip("\n").split(";")
    assert f[:5] == ["3", "iolens-" + f[1][len("iolens-"):], "t", "0", "0"]
    kib, bw, iops, ms = (int(x) for x in f[5:9])
    assert kib == 4096 and ms > 0
    assert bw == 1000 * 4096 * 1024 // ms // 1024 and iops == 1000 * 1024 // ms
    write = f[5 + 41:5 + 41 + 4]
    assert write == ["0", "0", "0", "0"]
    lat_u, lat_m = f[5 + 82 + 5 + 7:5 + 82 + 5 + 7 + 10], f[5 + 82 + 5 + 7 + 10:5 + 82 + 5 + 7 + 22]
    assert abs(sum(float(x[:-1]) for x in lat_u + lat_m) - 100) < 0.5
    disk = f[5 + 82 + 5 + 7 + 22:-1]
    assert disk[0] == name
    assert [int(x) for x in disk[1:3]] == [after["r_ios"] - before["r_ios"],
                                            after["w_ios"] - before["w_ios"]]
    assert [int(x) for x in disk[3:5]] == [after["r_merges"] - before["r_merges"],
                                            after["w_merges"] - before["w_merges"]]
    assert f[-1] == "a b"


def sections(out):
    """The kinds of output in `out`, in order: fio's header, a terse line,
    a JSON object (parsed), the normal report."""
    kinds, doc, lines = [], None, out.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("{"):
            # fio's JSON takes many lines, iolens's one.
            rest = "\n".join(lines[i:])
            doc, end = json.JSONDecoder().raw_decode(rest)
            kinds.append("json")
            i += rest[:end].count("\n")
        elif re.match(r"\d;", line):
            kinds.append("terse")
        elif line.startswith("t: (g=0)"):
            kinds.append("header")
        elif line.startswith("t: (groupid=0"):
            kinds.append("normal")
        i += 1
    return kinds, doc


@pytest.mark.parametrize("formats,want", [
    ("normal,json,terse", ["header", "terse", "json", "normal"]),
    ("json,normal", ["header", "json", "normal"]),
    ("terse,json", ["terse", "json"]),
])
def test_several_formats_in_fios_order(iolens, loop, tmp_path, formats, want):
    """--output-format with several formats: each report once, in fio's
    order (terse, JSON, normal, after the header normal output starts
    with), the same for fio 3.33 and iolens; the JSON one of the run."""
    for tool in ([IOLENS, "load"], ["fio"]):
        p = run_in(tool + job(loop, "--output-format=" + formats), tmp_path)
        assert p.returncode == 0, p.stderr
        kinds, doc = sections(p.stdout)
        assert kinds == want, (tool, p.stdout)
        assert doc["jobs"][0]["read"]["total_ios"] == 1024
