# SPDX-License-Identifier: GPL-2.0
"""iolens record / report: the file holds every request exactly, reads back
in every format, and damage gives a clear error, never a crash."""
import csv
import gzip
import io
import json
import os
import random
import signal
import struct
import subprocess
import time
import zlib

import pytest

from helpers import (IOLENS, OWN, TMPFS, check_exact, do_workload, issued_events, json_lines,
                     run, wait_idle)
from tracegen import REC, synthetic_trace


def record(tracer, loop, path, sig=signal.SIGINT):
    t = tracer(["record", "-o", path, "-d", loop.name])
    before = loop.diskstats()
    done = do_workload(loop)
    wait_idle(loop)
    after = loop.diskstats()
    t.stop(sig)
    assert "%d requests" % len(done) in t.stderr and "0 lost" in t.stderr
    return done, before, after


@pytest.mark.fast
def test_record_report_exact(iolens, loop, tracefs, tracer, tmp_path):
    path = str(tmp_path / "t.iol")
    done, before, after = record(tracer, loop, path, signal.SIGTERM)
    r = run(["report", "-f", "json", path])
    assert r.returncode == 0, r.stderr
    recs, summary = json_lines(r.stdout)
    check_exact(recs, done, loop, before, after, issued_events(tracefs))
    assert summary["lost"] == 0
    # Cgroup names come from the file's CGROUP records.
    with open("/proc/self/cgroup") as f:
        mine = [line.split(":", 2)[2].strip() for line in f if line.startswith("0::")][0]
    assert all(x["cgroup"] == mine and x["io_cgroup"] for x in recs)

    # Text: a header naming the disk with its block sizes, a row per
    # request, and the closing summary.
    r = run(["report", path])
    assert r.returncode == 0, r.stderr
    assert loop.name in r.stdout.splitlines()[0] and "512" in r.stdout.splitlines()[0]
    rows = [line for line in r.stdout.splitlines() if line.split()[:1] and
            line.split()[0][0].isdigit()]
    assert len(rows) == len(done)
    assert "no records lost" in r.stdout

    # CSV: a header and one row per request, same sectors.
    r = run(["report", "-f", "csv", path])
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert [int(x["sector"]) for x in rows] == [off // 512 for _, off, _ in done]
    assert all(x["flags"].startswith("sync") for x in rows)

    # Filters work on the file as they do live.
    r = run(["report", "-f", "json", "-O", "write", path])
    assert [x["sector"] * 512 for x in json_lines(r.stdout)[0]] == \
        [off for op, off, _ in done if op == "write"]


def test_report_perfetto(iolens, loop, tracer, tmp_path):
    path = str(tmp_path / "t.iol")
    done, _, _ = record(tracer, loop, path)
    r = run(["report", "-f", "perfetto", path])
    assert r.returncode == 0, r.stderr
    trace = json.loads(r.stdout)
    evs = trace["traceEvents"]
    names = [e["args"]["name"] for e in evs
             if e.get("ph") == "M" and e["name"] == "process_name"]
    assert loop.name in names
    slices = [e for e in evs if e.get("ph") == "X" and e["name"] != "queued"]
    assert len(slices) == len(done)
    assert sorted(e["args"]["sector"] for e in slices) == \
        sorted(off // 512 for _, off, _ in done)
    assert all(e["dur"] > 0 for e in slices)
    counters = [e for e in evs if e.get("ph") == "C"]
    assert {e["name"] for e in counters} == {"in flight"}
    assert max(e["args"]["requests"] for e in counters) == 1


def test_record_duration_and_damage(iolens, loop, tracer, tmp_path):
    path = str(tmp_path / "t.iol")
    r = run(["record", "-o", path, "-d", loop.name, "-D", "0.5"])
    assert r.returncode == 0, r.stderr
    assert run(["report", path]).returncode == 0

    done, _, _ = record(tracer, loop, path)
    data = open(path, "rb").read()

    cut = str(tmp_path / "cut.iol")
    with open(cut, "wb") as f:
        f.write(data[:len(data) // 2])
    r = run(["report", cut])
    assert r.returncode == 1
    assert r.stderr.count("\n") == 1 and "truncated" in r.stderr

    bad = bytearray(data)
    for i in range(40, len(bad), 17):
        bad[i] ^= 0x5a
    corrupt = str(tmp_path / "corrupt.iol")
    with open(corrupt, "wb") as f:
        f.write(bad)
    r = run(["report", corrupt])
    assert r.returncode == 1 and "corrupt" in r.stderr

    junk = str(tmp_path / "junk.iol")
    with open(junk, "w") as f:
        f.write("hello\n")
    r = run(["report", junk])
    assert r.returncode == 1 and "not an iolens trace" in r.stderr

    r = run(["report", str(tmp_path / "missing.iol")])
    assert r.returncode == 1 and r.stderr.count("\n") == 1


def test_record_refuses_devices_and_usage(iolens, loop):
    # Never replaces anything that is not a regular file.
    r = run(["record", "-o", loop.dev, "-D", "0.1"])
    assert r.returncode == 2 and "not a regular file" in r.stderr
    assert run(["record"]).returncode == 2
    assert run(["report"]).returncode == 2
    assert run(["report", "-f", "xml", "x"]).returncode == 2


def test_report_prints_only_verified_records(iolens, loop, tmp_path):
    """A damaged trace: what report prints before its one error line is a
    prefix of what it prints of the undamaged trace, never a record made
    of damage.  200 byte flips in the gzip stream, damage compressed again
    into a valid gzip stream, and garbage after the stream (which exited
    0) all end in exit 1, unless the flipped bit is one deflate never
    reads."""
    path = str(tmp_path / "t.iol")
    fio = subprocess.Popen(["fio", "--name=t", "--filename=" + loop.dev, "--direct=1",
                            "--rw=randrw", "--bs=4k", "--ioengine=psync",
                            "--size=16M", "--io_size=12M", "--output-format=terse"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    r = run(["record", "-o", path, "-d", loop.name, "-D", "3"])
    fio.wait()
    assert r.returncode == 0, r.stderr
    good = run(["report", "-f", "csv", path])
    assert good.returncode == 0, good.stderr
    lines = good.stdout.splitlines()
    assert len(lines) > 2000
    data = open(path, "rb").read()
    plain = gzip.decompress(data)
    rnd = random.Random(5)
    damaged = []
    for _ in range(200):
        bad = bytearray(data)
        bad[rnd.randrange(10, len(bad) - 8)] ^= 1 << rnd.randrange(8)
        damaged.append(bytes(bad))
    for _ in range(20):
        bad = bytearray(plain)
        bad[rnd.randrange(12, len(bad))] ^= 1 << rnd.randrange(8)
        damaged.append(gzip.compress(bytes(bad)))
    damaged.append(data + b"\x00garbage")
    bad_path = str(tmp_path / "bad.iol")
    for i, bad in enumerate(damaged):
        with open(bad_path, "wb") as f:
            f.write(bad)
        r = run(["report", "-f", "csv", bad_path])
        out = r.stdout.splitlines()
        # A flipped bit that deflate never reads (the last byte's padding)
        # changes nothing: all of it, and exit 0.
        if r.returncode == 0 and out == lines:
            continue
        assert r.returncode == 1, (i, r.stderr)
        assert r.stderr.count("\n") == 1, (i, r.stderr)
        assert out == lines[:len(out)], (i, r.stderr)




def verified_requests(path):
    """RQ records in the blocks of a version-5 trace whose length and
    CRC-32 check, read here from the format's description: what is
    readable of a file cut anywhere."""
    with open(path, "rb") as f:
        plain = zlib.decompressobj(31).decompress(f.read())
    assert plain[:12] == b"IOLENSTR" + struct.pack("<I", 5)
    pos, n = 12, 0
    while pos + 8 <= len(plain):
        size, crc = struct.unpack_from("<II", plain, pos)
        blk = plain[pos + 8:pos + 8 + size]
        if len(blk) < size or zlib.crc32(blk) != crc:
            break
        off = 0
        while off < size:
            rtype, _, rlen = REC.unpack_from(blk, off)
            n += rtype == 4
            off += REC.size + rlen
        pos += 8 + size
    return n


def test_record_killed_keeps_what_it_wrote(iolens, loop, tracer, tmp_path):
    """SIGKILL, no chance to finish: every request recorded more than a
    second before is in a complete block on disk, so report prints all
    of them (exactly the device's requests by diskstats), then says the
    file is truncated."""
    path = str(tmp_path / "k.iol")
    t = tracer(["record", "-o", path, "-d", loop.name])
    before = loop.diskstats()
    subprocess.run(["fio", "--name=k", "--filename=" + loop.dev, "--direct=1",
                    "--rw=randrw", "--bs=4k", "--ioengine=psync", "--size=16M",
                    "--io_size=6M", "--output-format=terse"],
                   check=True, stdout=subprocess.DEVNULL)
    wait_idle(loop)
    after = loop.diskstats()
    # The writer pushes its blocks out once a second.
    time.sleep(2.5)
    t.proc.kill()
    t.proc.wait()
    ios = after["r_ios"] - before["r_ios"] + after["w_ios"] - before["w_ios"]
    assert ios >= 1536
    assert verified_requests(path) == ios
    r = run(["report", "-f", "csv", path])
    assert r.returncode == 1
    assert r.stderr.count("\n") == 1 and "truncated" in r.stderr, r.stderr
    assert len(r.stdout.splitlines()) == ios + 1  # the CSV header


def test_record_disk_full(iolens, loop, tracer, tmp_path):
    """The file system fills up while recording: record ends by itself
    with one line naming the file and the reason, and exits 1; what it
    wrote before still reads."""
    mnt = tmp_path / "small"
    mnt.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=128k", "tmpfs", str(mnt)],
                   check=True)
    try:
        path = str(mnt / "full.iol")
        p = subprocess.Popen([IOLENS, "record", "-o", path, "-d", loop.name],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True)
        try:
            assert "Recording" in p.stderr.readline()
            # 4 KiB reads of 64 MiB in random order: 16,384 requests,
            # some 500 KB of trace, which 128 KiB cannot hold.
            subprocess.run(["fio", "--name=full", "--filename=" + loop.dev,
                            "--direct=1", "--rw=randread", "--bs=4k",
                            "--ioengine=io_uring", "--iodepth=8", "--size=64M",
                            "--output-format=terse"],
                           check=True, stdout=subprocess.DEVNULL)
            err = p.communicate(timeout=30)[1]
        finally:
            p.kill()
        assert p.returncode == 1, err
        assert err.splitlines() == [
            "iolens record: writing %s failed: write: No space left on device" % path]
        assert 0 < verified_requests(path) < 16384
    finally:
        subprocess.run(["umount", str(mnt)], check=True)


def test_report_perfetto_lanes_and_counter(iolens, tmp_path):
    """Of 20,000 requests: each drawn once; slices of one lane never
    overlap; as many lanes as the most requests in flight, which is the
    in-flight counter's maximum."""
    path = str(tmp_path / "s.iol")
    synthetic_trace(path, 20000)
    r = run(["report", "-f", "perfetto", path])
    assert r.returncode == 0, r.stderr
    evs = json.loads(r.stdout)["traceEvents"]
    dev = sorted((e for e in evs if e.get("ph") == "X" and e["name"] != "queued"),
                 key=lambda e: e["ts"])
    assert len(dev) == 20000
    assert sorted(e["args"]["sector"] for e in dev) == [8 * i for i in range(20000)]
    lanes = {}
    for e in sorted((e for e in evs if e.get("ph") == "X"), key=lambda e: e["ts"]):
        end = lanes.get(e["tid"], 0)
        assert e["ts"] >= end - 1e-3, (e, end)
        lanes[e["tid"]] = e["ts"] + e["dur"]

    def peak(spans):
        edges = sorted([(a, 1) for a, _ in spans] + [(b, -1) for _, b in spans],
                       key=lambda x: (x[0], x[1]))
        top = cur = 0
        for _, d in edges:
            cur += d
            top = max(top, cur)
        return top
    # A lane holds a request from its start (the queued slice) to its
    # end; the counter counts it from issue.
    queued = {(e["tid"], round(e["ts"] + e["dur"], 3)): e["ts"]
              for e in evs if e.get("ph") == "X" and e["name"] == "queued"}
    held = [(queued.get((e["tid"], round(e["ts"], 3)), e["ts"]), e["ts"] + e["dur"]) for e in dev]
    assert len(lanes) == peak(held), (len(lanes), peak(held))
    counters = [e["args"]["requests"] for e in evs if e.get("ph") == "C"]
    assert max(counters) == peak([(e["ts"], e["ts"] + e["dur"]) for e in dev])


@pytest.mark.nosan
def test_report_perfetto_memory_is_bounded(iolens, tmp_path):
    """2 million requests to Perfetto with a peak RSS under 64 MiB: the
    output is written as the trace is read, not held (it took 2.7 GB for
    an 18 MB trace, and wrote nothing).  Measured by GNU time, whose own
    fork is small: a child forked from this Python process counts the
    parent's pages until it execs."""
    path = os.path.join(TMPFS, OWN + "big.iol")
    try:
        synthetic_trace(path, 2000000)
        p = subprocess.run(["/usr/bin/time", "-f", "%M", iolens, "report", "-f", "perfetto",
                            "-o", "/dev/null", path], capture_output=True, text=True)
    finally:
        os.unlink(path)
    assert p.returncode == 0, p.stderr
    kib = int(p.stderr.splitlines()[-1])
    print("report -f perfetto of 2M requests: peak RSS %d KiB" % kib)
    assert kib < 64 * 1024, kib
