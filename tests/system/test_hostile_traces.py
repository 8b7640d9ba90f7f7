# SPDX-License-Identifier: GPL-2.0
"""Traces another machine wrote (issue 46): every chart of -f svg is one
well-formed XML document whatever the trace holds -- two disks, names
with the characters XML lacks (U+FFFE, U+FFFF)."""
import os
import xml.etree.ElementTree as ET

import pytest

from helpers import OWN, TMPFS, run
from tracegen import crowded_trace

CHARTS = ["latency-heatmap", "device-heatmap", "latency-histogram", "iops", "throughput",
          "queue-depth", "size-histogram", "offset", "submitters", "cgroups"]


@pytest.fixture(scope="module")
def two_disks():
    """200 requests on two disks, from processes and cgroups whose names
    hold U+FFFE and U+FFFF."""
    path = os.path.join(TMPFS, OWN + "two.iol")
    crowded_trace(path, 200, ndev=2, ncg=2,
                  comms=(b"a\xef\xbf\xbeb", b"c\xef\xbf\xbfd"), cg_names=(b"/x\xef\xbf\xbe",))
    try:
        yield path
    finally:
        os.unlink(path)


@pytest.mark.parametrize("chart", CHARTS)
def test_every_chart_is_one_xml_document(iolens, two_disks, tmp_path, chart):
    """--chart offset wrote one document per disk into one file; a name
    holding U+FFFE broke the submitters and cgroups charts."""
    out = str(tmp_path / "c.svg")
    p = run(["report", "-f", "svg", "--chart", chart, "-o", out, two_disks], timeout=60)
    assert p.returncode == 0, p.stderr
    root = ET.parse(out).getroot()      # raises on a second document or a bad character
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    if chart in ("submitters", "cgroups"):
        with open(out, encoding="utf-8") as f:
            text = f.read()
        assert "\\xef\\xbf\\xbe" in text and "\ufffe" not in text and "\uffff" not in text
