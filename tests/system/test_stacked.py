# SPDX-License-Identifier: GPL-2.0
"""Stacked devices: device-mapper targets on loop devices, as LVM and
dm-crypt build them, and an md RAID1 of two.  This machine's kernel has
neither device-mapper nor md: these run in the kernel matrix's guests
(Debian's 6.1 and 6.12), marked `matrix`."""
import json
import os
import subprocess

import pytest

from helpers import (DirectIO, Loop, Stat, TopJson, assert_counts_equal, diskstats, lat_reports,
                     run, stat_counts, totals, wait_idle)

pytestmark = pytest.mark.matrix


def holder(lo):
    """The kernel's name (dm-N, mdN) of the device built on `lo`."""
    (name,) = os.listdir("/sys/block/%s/holders" % lo.name)
    return name


class Dm:
    """A device-mapper device of one target over `lo`, made with dmsetup."""

    def __init__(self, los, target):
        (lo,) = los
        subprocess.run(["modprobe", "dm_mod"], check=False, capture_output=True)
        subprocess.run(["modprobe", "dm_crypt"], check=False, capture_output=True)
        sectors = lo.size // 512
        if target == "linear":
            table = "0 %d linear %s 0" % (sectors, lo.dev)
        else:  # dm-crypt with a throwaway key, as cryptsetup plain makes it
            table = "0 %d crypt aes-cbc-essiv:sha256 %s 0 %s 0" % (
                sectors, os.urandom(32).hex(), lo.dev)
        self.mapper = "iolens-test-%d" % os.getpid()
        subprocess.run(["dmsetup", "create", self.mapper, "--table", table],
                       check=True, capture_output=True)
        try:
            self.name = holder(lo)
            self.dev = "/dev/" + self.name
        except BaseException:
            self.close()
            raise

    def close(self):
        subprocess.run(["dmsetup", "remove", self.mapper], check=False,
                       capture_output=True)

    def diskstats(self):
        return diskstats(self.name)


class Md:
    """An md RAID1 of the loop devices `los`, made through sysfs as mdadm
    would (Documentation/admin-guide/md.rst), with no superblock: mdadm is
    not among the packages these machines have."""

    def __init__(self, los, level="raid1"):
        subprocess.run(["modprobe", "md_mod"], check=False, capture_output=True)
        subprocess.run(["modprobe", level], check=False, capture_output=True)
        self.name = "md%d" % (100 + os.getpid() % 100)
        self.dev = "/dev/" + self.name
        with open("/sys/module/md_mod/parameters/new_array", "w") as f:
            f.write(self.name)
        md = "/sys/block/%s/md/" % self.name
        try:
            for attr, v in (("metadata_version", "none"), ("level", level),
                            ("raid_disks", str(len(los)))):
                self.write(md + attr, v)
            for i, lo in enumerate(los):
                self.write(md + "new_dev", "%d:%d" % (lo.major, lo.minor))
                self.write(md + "dev-%s/slot" % lo.name, str(i))
            self.write(md + "component_size", str(min(lo.size for lo in los) // 1024))
            # In sync from the start: nothing to copy between the halves
            # of a mirror of zeros, and no resync I/O under the test's.
            self.write(md + "resync_start", "none")
            self.write(md + "array_state", "active")
        except BaseException:
            self.close()
            raise

    @staticmethod
    def write(path, v):
        with open(path, "w") as f:
            f.write(v)

    def close(self):
        try:
            self.write("/sys/block/%s/md/array_state" % self.name, "clear")
        except OSError:
            pass

    def diskstats(self):
        return diskstats(self.name)


@pytest.fixture(params=["linear", "crypt", "raid1"])
def stack(request, loop):
    """(the stacked device, the loop devices under it)."""
    los = [loop]
    if request.param == "raid1":
        los.append(Loop())
    try:
        dev = Md(los) if request.param == "raid1" else Dm(los, request.param)
        try:
            # What a new device draws (the kernel's partition scan) is over.
            wait_idle(dev)
            yield dev, los
        finally:
            dev.close()
    finally:
        for lo in los[1:]:
            lo.close()


def test_stack_shown_as_a_stack(iolens, stack, tracer):
    """stat -S -d dm-N or mdN: the stacked device and the loop devices under
    it, each with counts equal to its own diskstats deltas, the stacked
    device's from its bios; the loop devices listed as its members and
    indented under it in text; the latency the application sees at least
    the disk's; -N names a dm device by its /dev/mapper name, as iostat -N."""
    top, los = stack
    st = Stat(iolens, ["-S", "-d", top.name])
    lat = tracer(["lat", "-j", "-D", "--own-clock", "-d", top.name] +
                 [a for lo in los for a in ("-d", lo.name)])
    try:
        before = [diskstats(top.name)] + [lo.diskstats() for lo in los]
        io = DirectIO(top.dev)
        for i in range(30):
            io.write(i * 65536, 4096)
        for i in range(20):
            io.read((8 << 20) + i * 65536, 16384)
        io.close()
        for lo in los:
            wait_idle(lo)
        after = [diskstats(top.name)] + [lo.diskstats() for lo in los]
        _, reps = st.stop_when_idle(los[0])
    finally:
        st.kill()
    text = run(["stat", "-S", "-d", top.name])
    named = run(["stat", "-N", "-j", "-d", top.name])
    m0, m1 = before[0], after[0]
    # Each driver counts bios as it sees them: md RAID1 counts each part of
    # a read it splits (read balancing), so at least what was asked.
    assert m1["w_ios"] - m0["w_ios"] >= 30 and m1["r_ios"] - m0["r_ios"] >= 20, (m0, m1)
    names = [top.name] + [lo.name for lo in los]
    for name, a, b in zip(names, before, after):
        t, missed, _, _ = totals(reps, name)
        assert missed == 0
        assert_counts_equal(name, a, b, stat_counts(t))
    rows = [d for r in reps for d in r["devices"]]
    mine = [d for d in rows if d["disk_device"] == top.name]
    assert mine and all(d["members"] == sorted(names[1:]) and d["source"] == "bios"
                        for d in mine), mine
    assert all(d["source"] == "requests" for d in rows if d["disk_device"] in names[1:])
    # Each of the stacked device's bios spans the device time of the
    # request under it (its issue to its completion): compared by lat's
    # device-time histograms, issues stamped by iolens's own clock.  Not
    # by stat's totals: a request's start is since 6.9 the plug's cached
    # clock (blk_time_get_ns()), which may be read before the bio above it
    # is stamped (6.12's guest had dm-0's read p50 at 43264 ns, loop0's at
    # 49920).  p50s are histogram buckets' midpoints, 1/64 of a power of
    # two apart: within one bucket is as close as they tell.
    dev = {h["disk"]: h for h in lat_reports(lat)[0]["histograms"] if h["kind"] == "device"}
    under = [dev[n]["p50"] for n in names[1:] if n in dev and dev[n]["count"]]
    assert under and dev[top.name]["count"], dev
    assert dev[top.name]["p50"] >= (1 - 1 / 64) * min(under), dev
    # Since boot, text: the members on the next lines, indented.
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    at = next(i for i, l in enumerate(lines) if l.startswith(top.name + " "))
    for k, name in enumerate(sorted(names[1:])):
        assert lines[at + 1 + k].startswith("  " + name + " "), lines
    assert named.returncode == 0, named.stderr
    want = top.mapper if isinstance(top, Dm) else top.name
    assert [d["disk_device"] for d in json.loads(named.stdout)["devices"]] == [want]


def test_top_shows_the_stack(iolens, stack):
    """top -N: the stacked device by its stable name, the loop devices
    under it right after it, listed as its members."""
    top_dev, los = stack
    want = top_dev.mapper if isinstance(top_dev, Dm) else top_dev.name
    members = sorted(lo.name for lo in los)
    top = TopJson(["-N", "-d", "0.5"])
    try:
        io = DirectIO(top_dev.dev)
        for i in range(20):
            io.write(i * 65536, 4096)
        io.close()
        devs = top.until_shown([want] + members)
    finally:
        top.kill()
    names = [d["disk_device"] for d in devs]
    at = names.index(want)
    assert names[at + 1:at + 1 + len(members)] == members, names
    assert devs[at]["members"] == members, devs[at]
