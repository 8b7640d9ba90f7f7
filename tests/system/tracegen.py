# SPDX-License-Identifier: GPL-2.0
"""Trace files written here from the format's description
(include/lib/tracefile.h, version 2), independent of iolens's writer:
for tests and benchmarks that need traces larger than a test can record."""
import gzip
import random
import struct
import zlib

RQ = struct.Struct("<QQQQQQQIIIIIHHBBBBI16s")
REC = struct.Struct("<HHI")
DEV = 7 << 20


def synthetic_trace(path, n, depth=16, mixed=False):
    """A trace of `n` requests on one disk: a new request every 1 us, each
    16 to 22 us at the device, so about `depth` in flight; records in
    completion order, as iolens record writes them.  `mixed`: reads and
    writes (one in three) at random offsets of 64 GiB from 8 processes,
    else sequential reads by one."""
    t0 = 10 ** 12
    rnd = random.Random(1)

    def rec(rtype, payload):
        return REC.pack(rtype, 0, len(payload)) + payload

    def block(recs):
        data = b"".join(recs)
        return struct.pack("<II", len(data), zlib.crc32(data)) + data

    with gzip.open(path, "wb", compresslevel=1) as f:
        f.write(b"IOLENSTR" + struct.pack("<I", 2))
        header = (b"synthetic".ljust(65, b"\0") + b"test".ljust(65, b"\0") +
                  b"test".ljust(32, b"\0") + struct.pack("<QQ", t0, 1700000000 * 10 ** 9))
        f.write(block([rec(1, header),
                       rec(2, struct.pack("<III", DEV, 512, 4096) + b"loop9".ljust(32, b"\0"))]))
        recs = []
        for lo in range(0, n, 4096):
            chunk = []
            for i in range(lo, min(n, lo + 4096)):
                start = t0 + i * 1000
                issue = start + 300
                done = issue + (depth - 1) * 1000 + (i % 7) * 1000
                op, sector, pid = 0, 8 * i, 100
                if mixed:
                    op = 1 if i % 3 == 0 else 0
                    sector = rnd.randrange(1 << 27) * 8
                    pid = 100 + i % 8
                chunk.append((done, RQ.pack(start, start + 100, issue, done, sector, 1, 0,
                                            DEV, 4096, pid, pid, 0, 0, 4, op, 1, 0, 0, 0,
                                            b"fio")))
            chunk.sort()
            for _, payload in chunk:
                recs.append(rec(4, payload))
                if len(recs) == 500:
                    f.write(block(recs))
                    recs = []
        recs.append(rec(6, struct.pack("<QQQQ", t0 + n * 1000 + 10 ** 6, n, 0, 0)))
        f.write(block(recs))


RQ4 = struct.Struct("<QQQQQQQIIIIIHHBBBBI16sIIQIB")


def crowded_trace(path, n, ndev=1, ncg=0, nfiles=0, comms=(b"fio",), cg_names=None):
    """A version-4 trace (recorded with --files) of `n` requests spread over
    `ndev` disks, `ncg` cgroups and `nfiles` files, each named by its
    record before its first request (as iolens record writes them), and
    submitters named by `comms` in turn; cgroup i is "/c<i>", or
    cg_names[i % len(cg_names)] + "<i>".  Request i is 4 KiB on disk
    i % ndev, of cgroup i % ncg and file i % nfiles: a request names
    each disk, cgroup and file at least once where n is their count or
    more."""
    t0 = 10 ** 12
    recs, out = [], []

    def rec(rtype, payload):
        recs.append(REC.pack(rtype, 0, len(payload)) + payload)

    with gzip.open(path, "wb", compresslevel=1) as f:
        def block():
            data = b"".join(out)
            f.write(struct.pack("<II", len(data), zlib.crc32(data)) + data)
            out.clear()

        def flush():
            # Blocks of at most 64 KiB of whole records.
            for r in recs:
                if sum(map(len, out)) + len(r) > 60000:
                    block()
                out.append(r)
            recs.clear()

        f.write(b"IOLENSTR" + struct.pack("<I", 4))
        rec(1, b"crowded".ljust(65, b"\0") + b"test".ljust(65, b"\0") +
            b"test".ljust(32, b"\0") + struct.pack("<QQI", t0, 1700000000 * 10 ** 9, 2))
        for i in range(max(n, ndev, ncg, nfiles)):
            dev = (8 << 20) | (i % ndev) if i < n or i < ndev else None
            if i < ndev:
                rec(2, struct.pack("<III", dev, 512, 4096) + (b"d%d" % i).ljust(32, b"\0"))
            if i < ncg:
                name = (cg_names[i % len(cg_names)] + b"%d" % i) if cg_names else b"/c%d" % i
                rec(3, struct.pack("<QII", 1000 + i, 0, 0) + name[:255].ljust(256, b"\0"))
            if i < nfiles:
                rec(8, struct.pack("<IIQII", 7 << 20, 0, 100 + i, 0, 0) +
                    (b"/data/f%d" % i).ljust(4096, b"\0"))
            if i < n:
                start = t0 + i * 1000
                cg = 1000 + i % ncg if ncg else 1
                ino = 100 + i % nfiles if nfiles else 0
                rec(4, RQ4.pack(start, start + 100, start + 300, start + 20000, 8 * i, cg, 0,
                                (8 << 20) | (i % ndev), 4096, 100 + i % 50, 100 + i % 50, 0, 0,
                                4, i % 2, 1, 0, 0, 0, comms[i % len(comms)][:15],
                                0, 7 << 20 if nfiles else 0, ino, 0, 1 if nfiles else 0))
            if len(recs) >= 64:
                flush()
        rec(6, struct.pack("<QQQQ", t0 + n * 1000 + 10 ** 6, n, 0, 0))
        flush()
        block()
