# SPDX-License-Identifier: GPL-2.0
"""Names any local user picks -- a comm set with prctl(PR_SET_NAME), the
name of an executed file, a cgroup directory -- as iolens prints them as
root (issue 27): each output has no byte below 0x20 but its own newline
and tab, is valid UTF-8, parses as its format (JSON lines, CSV, promtool),
and every hostile process's rows are still there, naming it as
lib/sanitize shows it."""
import csv
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

import pytest

from helpers import IOLENS, OWN, TMPFS, free_port, line_of, need

# prctl-renamed comms, from the issue.
COMMS = [b"\x1b[2J\x1b[31mX", b"\x1b]0;pw\x07", b'a\nb,c"d\\e', b'q"}{\r',
         b"\xff\xfe\xc3(", b"=1+1", b"=cmd|'/C calc'", b"@SUM(1+1)",
         # Issue 46: one exported the other's labels; and the CSV guard.
         b"c\x01d", b"c\\x01d", b"'=1"]
# An executable file's name becomes its comm at exec.
EXEC_NAME = b"\x1b[41mNAME"
# A cgroup of the blkio (io) hierarchy made by the test, with ESC and CR
# in its name (its worker's comm is plain).
CG_NAME = "\x1b[2Kx\rhide"
CGROUP = (OWN + CG_NAME).encode()
CG_COMM = b"cgworker"

WORKER = r"""
import ctypes, mmap, os, select, sys
name = bytes.fromhex(sys.argv[2])
if name:
    ctypes.CDLL(None).prctl(15, ctypes.c_char_p(name), 0, 0, 0)
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECT)
buf = mmap.mmap(-1, 4096)
print("ready", flush=True)
i = 0
while not select.select([sys.stdin], [], [], 0.002)[0]:
    os.preadv(fd, [buf], (i % 256) * 4096)
    i += 1
"""


def esc(c):
    return "\\x%02x" % c


def san_text(b):
    """lib/sanitize's terminal text of the ASCII-or-invalid names here."""
    return "".join("\\\\" if c == 0x5c else chr(c) if 0x20 <= c < 0x7f else esc(c)
                   for c in b)


def san_json(b):
    """What json.loads reads back: the name, an invalid byte as \\xNN and
    a backslash as two (so the two never meet)."""
    return "".join("\\\\" if c == 0x5c else chr(c) if c < 0x80 else esc(c) for c in b)


def san_csv(b):
    """What the csv module reads back from lib/sanitize's field."""
    t = san_text(b)
    return "'" + t if b[:1] in (b"=", b"+", b"-", b"@", b"\t", b"\r", b"'") else t


def san_label(b):
    """The label value as it stands, escaped, in the exposition: the text
    above with the format's escapes."""
    return "".join({0x5c: "\\\\\\\\", 0x22: '\\"', 0x0a: "\\n"}.get(c) or
                   (chr(c) if 0x20 <= c < 0x7f else "\\" + esc(c)) for c in b)


class Worker:
    """A process named `name` doing O_DIRECT reads of `dev` until close()."""

    def __init__(self, dev, name=b"", argv0=None, cgroup=None):
        argv = [argv0 or sys.executable, "-c", WORKER, dev, name.hex()]
        if argv0:
            argv = [argv0, dev, name.hex()]
        # The kernel names an exec'd script after its file (15 bytes).
        self.name = name or os.path.basename(argv0)[:15]
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        if cgroup:
            with open(os.path.join(cgroup, b"cgroup.procs"), "w") as f:
                f.write(str(self.proc.pid))
        assert self.proc.stdout.readline() == b"ready\n"
        self.pid = self.proc.pid

    def close(self):
        # Killed and reaped: its cgroup can go only once it is gone.
        self.proc.kill()
        self.proc.wait()
        self.proc.stdin.close()
        self.proc.stdout.close()


@pytest.fixture
def hostile(loop, blkio_cgroups):
    """Workers of every hostile name on `loop`: (comm bytes, pid, cgroup)."""
    made, tmp = [], tempfile.mkdtemp(prefix=OWN, dir=TMPFS)
    try:
        for n in COMMS:
            made.append(Worker(loop.dev, n))
        exe = os.path.join(tmp.encode(), EXEC_NAME)
        with open(exe, "w") as f:
            f.write("#!%s\n%s" % (sys.executable, WORKER))
        os.chmod(exe, 0o755)
        made.append(Worker(loop.dev, argv0=exe))
        made[-1].name = EXEC_NAME
        _, cg = blkio_cgroups(CG_NAME)
        made.append(Worker(loop.dev, CG_COMM, cgroup=cg.encode()))
        time.sleep(0.3)
        yield made
    finally:
        for w in made:
            w.close()
        shutil.rmtree(tmp, ignore_errors=True)


def clean_bytes(out, allowed=b"\n\t"):
    """No control byte but the format's own; valid UTF-8.  The text."""
    bad = sorted({c for c in out if (c < 0x20 and c not in allowed) or c == 0x7f})
    assert not bad, "control bytes %r in output" % bad
    return out.decode("utf-8")     # raises on invalid UTF-8


def traced(args, secs=1.5):
    """Runs iolens ARGS for `secs` after it says it traces; stdout bytes."""
    with tempfile.TemporaryFile() as out:
        p = subprocess.Popen([IOLENS] + args, stdout=out, stderr=subprocess.PIPE, text=True)
        try:
            line = line_of(p)
            assert re.match(r"(Tracing|Recording|Counting|Measuring|Summing)", line) or \
                p.poll() is None, line
            time.sleep(secs)
            p.send_signal(signal.SIGINT)
            err = p.communicate(timeout=30)[1]
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        assert p.returncode == 0, err
        out.seek(0)
        return out.read()


def done(args, timeout=60):
    """iolens ARGS that ends by itself: stdout bytes."""
    p = subprocess.run([IOLENS] + args, capture_output=True, timeout=timeout)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_snoop_text_json_csv(iolens, loop, hostile):
    text = clean_bytes(traced(["snoop", "-d", loop.name]))
    for w in hostile:
        assert re.search(r"^\S+ +%s +%d " % (re.escape(san_text(w.name)), w.pid),
                         text, re.M), (w.name, text[:2000])

    recs = [json.loads(x) for x in clean_bytes(traced(["snoop", "-j", "-d", loop.name]))
            .splitlines()]
    for w in hostile:
        assert any(r.get("pid") == w.pid and r.get("comm") == san_json(w.name)
                   for r in recs), w.name
    # The I/O is charged to the cgroup: its name, escaped and read back.
    assert any((r.get("io_cgroup") or "").endswith(CGROUP.decode()) for r in recs), \
        [{k: v for k, v in r.items() if "cgroup" in k} for r in recs
         if r.get("comm") == "cgworker"][:1]

    rows = list(csv.DictReader(io.StringIO(
        clean_bytes(traced(["snoop", "--csv", "-d", loop.name]), b"\n\r"), newline="")))
    for w in hostile:
        assert any(r["pid"] == str(w.pid) and r["comm"] == san_csv(w.name)
                   for r in rows), w.name


def test_top_batch_and_json(iolens, loop, hostile):
    text = clean_bytes(done(["top", "-b", "-o", "-n", "3", "-d", "0.5"]))
    for w in hostile:
        assert re.search(r"^ *%d .*%s$" % (w.pid, re.escape(san_text(w.name))),
                         text, re.M), (w.name, text[-3000:])
    frames = [json.loads(x) for x in
              clean_bytes(done(["top", "-j", "-o", "-n", "3", "-d", "0.5"])).splitlines()]
    rows = [r for f in frames for r in f.get("processes", f.get("rows", []))]
    for w in hostile:
        assert any(r.get("pid") == w.pid and r.get("comm") == san_json(w.name)
                   for r in rows), w.name


def test_stat_and_top_by_cgroup(iolens, loop, hostile):
    """stat --by cgroup names the cgroup the kernel charged, escaped in
    text and read back from JSON; top's group views stay clean."""
    text = clean_bytes(done(["stat", "--by", "cgroup", "-y", "-d", loop.name, "0.5", "2"]))
    assert re.search(r"^%s .*%s$" % (re.escape(loop.name), re.escape(san_text(CGROUP))),
                     text, re.M), text[-2000:]
    reps = [json.loads(x) for x in clean_bytes(done(
        ["stat", "--by", "cgroup", "-j", "-y", "-d", loop.name, "0.5", "2"])).splitlines()]
    assert any(c["cgroup"].endswith(san_json(CGROUP)) and c["read_requests"] > 0
               for r in reps for d in r["devices"] for c in d["cgroups"]), reps
    for g in ("cgroup", "container"):
        clean_bytes(done(["top", "-b", "-n", "2", "-d", "0.5", "--group", g]))
        for line in clean_bytes(done(["top", "-j", "-n", "2", "-d", "0.5", "--group", g])
                                ).splitlines():
            assert json.loads(line)["grouped_by"] == g


def test_lat_per_pid(iolens, loop, hostile):
    text = clean_bytes(traced(["lat", "-P", "-d", loop.name]))
    for w in hostile:
        assert "pid %d %s" % (w.pid, san_text(w.name)) in text, w.name
    out = clean_bytes(traced(["lat", "-P", "-j", "-d", loop.name]))
    groups = json.dumps([json.loads(x) for x in out.splitlines()])
    for w in hostile:
        assert json.dumps(san_json(w.name)) in groups, w.name


def test_report_of_record(iolens, loop, hostile, tmp_path):
    path = str(tmp_path / "t.iol")
    done(["record", "-o", path, "-D", "1.5", "-d", loop.name])
    text = clean_bytes(done(["report", "-f", "text", path]))
    for w in hostile:
        assert re.search(r"^\S+ +%s +%d " % (re.escape(san_text(w.name)), w.pid),
                         text, re.M), w.name
    recs = [json.loads(x) for x in clean_bytes(done(["report", "-f", "json", path]))
            .splitlines()]
    for w in hostile:
        assert any(r.get("pid") == w.pid and r.get("comm") == san_json(w.name)
                   for r in recs), w.name
    rows = list(csv.DictReader(io.StringIO(
        clean_bytes(done(["report", "-f", "csv", path]), b"\n\r"), newline="")))
    for w in hostile:
        assert any(r["pid"] == str(w.pid) and r["comm"] == san_csv(w.name)
                   for r in rows), w.name


def test_serve_labels_promtool(iolens, loop, hostile):
    promtool = need("promtool")
    port = free_port()
    p = subprocess.Popen([IOLENS, "serve", "--listen", "127.0.0.1:%d" % port,
                          "-d", loop.name, "--labels", "comm,cgroup"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert "serving http://" in line_of(p)
        time.sleep(1.5)
        body = urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port,
                                      timeout=10).read()
    finally:
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=15)
    text = clean_bytes(body)
    chk = subprocess.run([promtool, "check", "metrics"], input=body, capture_output=True)
    assert b"invalid" not in chk.stdout + chk.stderr, chk.stdout + chk.stderr
    for w in hostile:
        assert 'comm="%s"' % san_label(w.name) in text, w.name
    assert san_label(CGROUP) in text
    # No two series with the same name and labels (c\x01d and c\\x01d were).
    series = [line.rsplit(" ", 1)[0] for line in text.splitlines()
              if line and not line.startswith("#")]
    assert len(series) == len(set(series)), [x for x in series if series.count(x) > 1][:4]
