# SPDX-License-Identifier: GPL-2.0
"""Real drivers, where users run iolens: an emulated NVMe controller
(interrupt-driven and polled queues), virtio-scsi and virtio-blk disks, and
the null_blk and scsi_debug modules.  Only the kernel matrix's guests have
them (tests/kernels/run_matrix.py gives the qemu devices), so these are
marked `matrix`.  Ground truth as everywhere: tracefs's block events,
/proc/diskstats, and what the test did."""
import errno
import json
import os
import re
import subprocess
import time

import pytest

from helpers import (IO_START, NullBlk, ScsiDebug, TraceInstance, assert_counts_equal,
                     check_refused, checked, failing_reads, finding, fio_json, guest_disk,
                     json_lines, lat_reports, line_of, need, offender, run, samples,
                     snoop_exact, stat_counts, totals, value, wait_idle, wait_or_kill)

pytestmark = pytest.mark.matrix

DRIVERS = {
    "nvme": lambda: guest_disk("iolensnvme"),
    "virtio-scsi": lambda: guest_disk("iolensscsi"),
    "virtio-blk": lambda: guest_disk("iolensvblk"),
    # 255 sectors a request unless told: the 128 KiB write would be two.
    "null_blk": lambda: NullBlk(submit_queues=2, max_sectors=1024),
    "scsi_debug": lambda: ScsiDebug(),
}


@pytest.fixture(params=sorted(DRIVERS))
def disk(request, root):
    d = DRIVERS[request.param]()
    try:
        yield d
    finally:
        d.close()


def test_snoop_and_stat_exact_on_each_driver(iolens, disk, tracer, stat):
    """snoop's records are the requests tracefs saw issued, with what the
    test did and as diskstats counts them; stat's counts over the same
    time are the diskstats deltas."""
    tracefs = TraceInstance(disk)
    try:
        st = stat(["-d", disk.name])
        before = disk.diskstats()
        snoop_exact(tracer, disk, tracefs)
        d1, reps = st.stop_when_idle(disk)
    finally:
        tracefs.close()
    tot, missed, _, _ = totals(reps, disk.name)
    assert missed == 0
    assert_counts_equal(disk.name, before, d1, stat_counts(tot))


def test_polled_nvme_reads_counted(iolens, tracer, stat):
    """fio --hipri on the NVMe disk's poll queue (nvme.poll_queues=1): every
    read is a request snoop shows flagged polled, as many as diskstats
    counts, and stat counts the same."""
    disk = guest_disk("iolensnvme")
    with open("/sys/block/%s/queue/io_poll" % disk.name) as f:
        assert f.read().strip() == "1"
    st = stat(["-d", disk.name])
    t = tracer(["snoop", "-j", "-d", disk.name])
    before = disk.diskstats()
    p = subprocess.run([need("fio"), "--name=poll", "--filename=" + disk.dev, "--rw=randread",
                        "--bs=4k", "--size=2m", "--direct=1", "--ioengine=io_uring",
                        "--hipri", "--iodepth=4", "--output-format=json"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    ios = json.loads(p.stdout)["jobs"][0]["read"]["total_ios"]
    wait_idle(disk)
    after = disk.diskstats()
    recs, _ = json_lines(t.stop())
    reads = [r for r in recs if r["op"] == "read"]
    assert len(reads) == ios == after["r_ios"] - before["r_ios"] == 512
    assert all("polled" in r["flags"].split(",") for r in reads), reads[:3]
    d1, reps = st.stop_when_idle(disk)
    tot, _, _, _ = totals(reps, disk.name)
    assert_counts_equal(disk.name, before, d1, stat_counts(tot, ("read",)))


def test_completions_inside_a_completion_rescued(iolens, stat, tracer):
    """Completions that come in an interrupt while a completion hook runs
    for another request on the same CPU: the kernel runs no BPF program
    inside itself there (__bpf_trace_run()'s recursion guard) and a second
    program on each completion tracepoint takes what the first was skipped
    for.  One null_blk ends its requests in the submitting thread (irqmode
    0), another from a timer interrupt (irqmode 2), both at once on the
    guest's one CPU: stat's, lat's and snoop's counts of each disk are its
    diskstats delta, none missed, and stat and snoop say they rescued some
    (the build before missed 119 of the timer disk's in stat, on 6.12).
    Debian's kernels list their variables in /proc/kallsyms: doctor says
    the exact way is taken."""
    (row,) = [c for c in json.loads(run(["doctor", "-j"]).stdout)["checks"]
              if c["check"] == "nested completions"]
    assert row["status"] == "ok", row
    a = NullBlk(tag="a", irqmode=0)
    try:
        b = NullBlk(tag="b", irqmode=2, completion_nsec=20000)
        try:
            disks = (a, b)
            devs = [x for d in disks for x in ("-d", d.name)]
            st = stat(devs)
            lat = tracer(["lat", "-j", "-D"] + devs)
            sn = tracer(["snoop", "-j"] + devs)
            before = [d.diskstats() for d in disks]
            # Threads: a timeout kills them with fio.
            fio = subprocess.Popen(
                [need("fio"), "--thread", "--direct=1", "--rw=randread", "--bs=4k",
                 "--runtime=3", "--time_based", "--output=/dev/null",
                 "--name=inline", "--filename=" + a.dev, "--ioengine=psync",
                 "--name=timer", "--filename=" + b.dev, "--ioengine=io_uring",
                 "--iodepth=16", "--rate_iops=4000"])
            wait_or_kill(fio, 300)
            assert fio.returncode == 0
            for d in disks:
                wait_idle(d)
            after = [d.diskstats() for d in disks]
            st.settled()
            reps = st.stop()
            recs, summary = json_lines(sn.stop())
            hists = lat_reports(lat)
        finally:
            b.close()
    finally:
        a.close()
    for d, d0, d1 in zip(disks, before, after):
        tot, missed, _, _ = totals(reps, d.name)
        assert missed == 0, d.name
        assert_counts_equal(d.name, d0, d1, stat_counts(tot))
        ios = d1["r_ios"] - d0["r_ios"]
        assert ios > 1000, (d.name, ios)
        assert sum(1 for r in recs if r["dev"] == d.name) == ios, d.name
        assert sum(h["count"] for r in hists for h in r["histograms"]
                   if h["disk"] == d.name) == ios, d.name
    assert summary["lost"] == summary["missed"] == summary["unseen"] == 0, summary
    # PREEMPT_RT runs the timer's completions in a thread: none nested.
    nested = not os.path.exists("/sys/kernel/realtime")
    assert (summary["rescued"] > 0) == nested, summary
    assert (reps[-1]["completions_rescued"] > 0) == nested, reps[-1]


def bad_null_blk():
    """null_blk with a bad-block range: reads there end in IOERR."""
    nb = NullBlk()
    try:
        nb.set("badblocks", "+2048-2207")  # sectors: 20 reads of 4 KiB from 1 MiB
    except BaseException:
        nb.close()
        raise
    return nb, "IOERR", errno.EIO


def bad_scsi_debug():
    """scsi_debug answering reads of the same range with a medium error
    (opts 2: sense key MEDIUM ERROR, "unrecovered read error"), which the
    SCSI midlayer does not retry; a read sees ENODATA."""
    return (ScsiDebug(opts=2, medium_error_start=2048, medium_error_count=160), "MEDIUM",
            errno.ENODATA)


@pytest.mark.parametrize("make", [bad_null_blk, bad_scsi_debug], ids=["null_blk", "scsi_debug"])
def test_failed_reads_in_every_view(iolens, tracer, serve, stat, make):
    """A disk failing 20 direct reads (null_blk's bad blocks; scsi_debug's
    medium errors), 20 more elsewhere succeeding: snoop shows the 20 at
    their sectors with the disk's status; stat counts 20 failed of 40 reads
    by that status; top -j counts them in this process's row (before 6.5,
    where the task that issues a request stands for its submitter, some in
    kblockd's kworkers'); lat keeps
    them out of the success histogram and lists them apart; /metrics'
    iolens_requests_failed_total says 20 (promtool accepts it) and its
    duration histogram counts the 20 successes."""
    promtool = need("promtool")
    disk, status, err = make()
    top = None
    try:
        s = serve(["-d", disk.name])
        st = stat(["-d", disk.name])
        t = tracer(["snoop", "-j", "-d", disk.name])
        lat = tracer(["lat", "-j", "-d", disk.name])
        top = subprocess.Popen([iolens, "top", "-j", "-a", "-d", "0.5"],
                               stdout=subprocess.PIPE, text=True)
        line_of(top, top.stdout)
        failing_reads(disk, 20, 1 << 20, err)
        recs, _ = json_lines(t.stop())
        (rep,) = lat_reports(lat)
        _, reps = st.stop_when_idle(disk)
        for _ in range(20):
            rows = [r for r in json.loads(line_of(top, top.stdout))["processes"]
                    if r["block_failed"]]
            if sum(r["block_failed"] for r in rows) >= 20:
                break
        time.sleep(1.2)
        body = s.metrics()
    finally:
        if top:
            top.kill()
            top.wait()
        disk.close()
    bad = sorted(r["sector"] for r in recs if r["status"] != "ok")
    assert bad == [2048 + 8 * i for i in range(20)], recs
    assert {r["status"] for r in recs if r["sector"] in bad} == {status}
    failed = sum(d["ops"]["read"]["failed"] for r in reps for d in r["devices"]
                 if d["disk_device"] == disk.name)
    by = [d["ops"]["read"]["failed_by_status"] for r in reps for d in r["devices"]
          if d["disk_device"] == disk.name and d["ops"]["read"]["failed"]]
    assert failed == 20 and all(set(b) == {status} for b in by), by
    mine = [(r["block_failed"], r["block_requests"]) for r in rows if r["pid"] == os.getpid()]
    if IO_START:
        assert [r["pid"] for r in rows] == [os.getpid()] and mine == [(20, 40)], rows
    else:
        assert sum(r["block_failed"] for r in rows) == 20, rows
        assert all(r["pid"] == os.getpid() or r["comm"].startswith("kworker/")
                   for r in rows), rows
    assert sum(h["count"] for h in rep["histograms"]) == 20, rep["histograms"]
    assert [(f["disk"], f["op"], f["status"], f["count"]) for f in rep["failed"]] == \
        [(disk.name, "read", status, 20)], rep["failed"]
    chk = subprocess.run([promtool, "check", "metrics"], input=body,
                         capture_output=True, text=True, timeout=30)
    assert chk.returncode == 0, chk.stdout + chk.stderr
    assert samples(body, "iolens_requests_failed_total") == {
        frozenset({("device", disk.name), ("op", "read"), ("status", status)}): 20}
    assert value(body, "iolens_requests_total", device=disk.name, op="read") == 40
    assert value(body, "iolens_request_duration_seconds_count", device=disk.name,
                 op="read") == 20


def test_scsi_debug_delay_is_seen_stuck(iolens, background):
    """scsi_debug answering a read only after its delay (several seconds,
    set in jiffies while it runs): stat --stuck 1s names the device and
    the read while dd waits for it, and the task that issued it, as
    tracefs's block_rq_issue saw it (dd, or on 6.1 kblockd's worker);
    stat -j's and top -j's oldest age in flight pass 1 s while it is held,
    and are 0 once it is done."""
    sd = ScsiDebug()
    tracefs = TraceInstance(sd)
    try:
        text = background(["stat", "-y", "--stuck", "1s", "-d", sd.name, "1"])
        js = background(["stat", "-j", "-y", "-d", sd.name, "0.5"])
        top = background(["top", "-j", "-d", "0.5"])
        text.wait_for("Device ")
        js.wait_for("{")
        top.wait_for("{")
        with open("/sys/bus/pseudo/drivers/scsi_debug/delay", "w") as f:
            f.write("1500")  # jiffies: 1.5 s at HZ=1000, 6 s at Debian's 250
        reader = subprocess.Popen(["dd", "if=" + sd.dev, "of=/dev/null", "bs=4k", "count=1",
                                   "skip=512", "iflag=direct", "status=none"])
        wait_or_kill(reader, 60)
        # scsi_debug takes a new delay only with nothing queued.
        with open("/sys/bus/pseudo/drivers/scsi_debug/delay", "w") as f:
            f.write("0")
        time.sleep(1.2)
        out = text.stop()
        ages = {"stat": [d["inflight_oldest_s"] for r in json_lines(js.stop())[0]
                         for d in r["devices"] if d["disk_device"] == sd.name],
                "top": [d["inflight_oldest_s"] for r in json_lines(top.stop())[0]
                        for d in r["devices"] if d["disk_device"] == sd.name]}
        (issuer,) = tracefs.issuers(4096)
    finally:
        tracefs.close()
        sd.close()
    lines = [l for l in out.splitlines() if l.startswith("STUCK: %s " % sd.name)]
    assert lines, out
    assert ": read of 4096 bytes at sector 4096, issued by pid %d (%s), " % issuer in lines[-1], \
        (lines, issuer)
    for view, seen in ages.items():
        assert max(seen) >= 1.0 and seen[-1] == 0, (view, seen)


def test_zoned_null_blk_zone_resets_named_and_counted(iolens, tracer, stat):
    """fio --zonemode=zbd writing two full zones of a zoned null_blk again:
    it resets each before writing it.  snoop names the 2 resets
    "zone-reset" at the zones' starts, as tracefs saw them issued; lat -F
    has them apart from the 128 writes; stat -j counts 130 writes (as
    diskstats does) of which other_ops says 2 were zone resets, and says
    the disk is zoned with 4 MiB zones, as doctor does."""
    nb = NullBlk(zoned=1, zone_size=4)
    tracefs = None
    job = ["--name=zbd", "--filename=" + nb.dev, "--zonemode=zbd", "--direct=1",
           "--ioengine=psync", "--rw=write", "--bs=64k", "--size=8m"]
    try:
        assert fio_json(job)["jobs"][0]["write"]["total_ios"] == 128
        wait_idle(nb)
        tracefs = TraceInstance(nb)
        st = stat(["-d", nb.name])
        t = tracer(["snoop", "-j", "-d", nb.name])
        lat = tracer(["lat", "-j", "-F", "-d", nb.name])
        before = nb.diskstats()
        assert fio_json(job)["jobs"][0]["write"]["total_ios"] == 128
        wait_idle(nb)
        after = nb.diskstats()
        recs, _ = json_lines(t.stop())
        (rep,) = lat_reports(lat)
        _, reps = st.stop_when_idle(nb)
        issued = [(rwbs, sector) for ev, rwbs, sector, _ in tracefs.read()
                  if ev == "block_rq_issue"]
        doctor = subprocess.run([iolens, "doctor"], capture_output=True, text=True, timeout=60)
    finally:
        if tracefs:
            tracefs.close()
        nb.close()
    assert after["w_ios"] - before["w_ios"] == 130
    resets = [r["sector"] for r in recs if r["op"] == "zone-reset"]
    assert resets == [0, 8192], recs[:4]
    assert [s for rwbs, s in issued if rwbs.startswith("N")] == resets, issued[:4]
    assert sum(r["op"] == "write" for r in recs) == 128
    by_op = {}
    for h in rep["histograms"]:
        by_op[h["op"]] = by_op.get(h["op"], 0) + h["count"]
    assert by_op == {"zone-reset": 2, "write": 128}, by_op
    devs = [d for r in reps for d in r["devices"] if d["disk_device"] == nb.name]
    assert sum(d["ops"]["write"]["ios"] for d in devs) == 130
    assert sum(d["other_ops"].get("zone-reset", {}).get("ios", 0) for d in devs) == 2
    assert all(set(d["other_ops"]) <= {"zone-reset"} for d in devs), devs
    assert {(d["zoned"], d["zone_size_bytes"]) for d in devs} == {("host-managed", 4 << 20)}
    # A reset has no data: its completion still ends its issue.
    assert sum(d["completions_missed"] for d in devs) == 0
    assert re.search(r"zoned %s .*host-managed, zones of 4\.0M " % nb.name, doctor.stdout), \
        doctor.stdout


def test_check_small_direct_writes_on_scsi_debug_512e(iolens):
    """scsi_debug as a 512e disk (512-byte logical, physblk_exp=3: 4096
    physical): 512-byte direct writes are accepted by the kernel and each
    is a read-modify-write inside the disk, which check reports as
    misaligned and small direct I/O, all of the load's writes."""
    sd = ScsiDebug(sector_size=512, physblk_exp=3)
    try:
        with open("/sys/block/%s/queue/physical_block_size" % sd.name) as f:
            assert int(f.read()) == 4096
        rep, rc, pid, job = checked(
            ["-d", sd.name],
            ["--filename=" + sd.dev, "--rw=randwrite", "--bs=512", "--size=256k",
             "--direct=1"], sd)
    finally:
        sd.close()
    ios = job["write"]["total_ios"]
    assert ios == 512 and rc == 1
    for name in ("misaligned_writes", "small_direct_512e"):
        f = finding(rep, name)
        count, nbytes, files = offender(f, pid)
        if IO_START:
            assert f["verdict"] == "fail" and f["count"] == ios, name
            assert (count, nbytes, files) == (ios, ios * 512, {sd.dev}), name
        elif name == "misaligned_writes":
            # The writer is the task seen at issue: the load, or a kworker
            # that issued for it.
            assert f["count"] == ios
            assert sum(o["count"] for o in f["offenders"]) == ios
        else:
            # O_DIRECT is known only of a write issued inside its system
            # call: before Linux 6.5, not of one kblockd's worker issued.
            assert f["count"] == count <= ios and files <= {sd.dev}, f


@pytest.fixture(params=["nvme", "null_blk"])
def polled_disk(request, root):
    """A disk with a default and a poll hardware queue: the NVMe disk
    (nvme.poll_queues=1), or null_blk with one of each."""
    if request.param == "nvme":
        yield guest_disk("iolensnvme")
        return
    d = NullBlk(submit_queues=1, poll_queues=1)
    try:
        yield d
    finally:
        d.close()


def test_stat_and_lat_by_hwq_split_disk_by_queue(iolens, stat, tracer, polled_disk):
    """stat --by hwq on a disk with a poll queue (NVMe, null_blk): 512
    interrupt-driven reads go to its default queue and 512 polled ones (fio
    --hipri) to its poll queue; the queues' requests add up to the disk's,
    which are diskstats', and each queue has its 512 with a depth and an
    await.  lat --by hwq: a histogram of each queue's 512."""
    disk = polled_disk
    st = stat(["--by", "hwq", "-d", disk.name])
    lat = tracer(["lat", "-j", "--by", "hwq", "-d", disk.name])
    before = disk.diskstats()
    for extra in ([], ["--hipri"]):
        fio_json(["--name=q", "--filename=" + disk.dev, "--rw=randread", "--bs=4k",
                  "--size=2m", "--direct=1", "--ioengine=io_uring", "--iodepth=4"] + extra)
    d1, reps = st.stop_when_idle(disk)
    tot, _, _, _ = totals(reps, disk.name)
    assert_counts_equal(disk.name, before, d1, stat_counts(tot, ("read",)))
    assert d1["r_ios"] - before["r_ios"] == 1024
    by_q = {}
    for r in reps:
        assert r["hwq_unknown_events"] == 0
        for d in r["devices"]:
            if d["disk_device"] == disk.name:
                for q in d["hwq"]:
                    by_q[q["queue"]] = by_q.get(q["queue"], 0) + q["ios"]
                    assert q["await"] is None or q["await"] > 0
    assert sorted(by_q.values()) == [512, 512], by_q
    (rep,) = lat_reports(lat)
    lat_q = {}
    for h in rep["histograms"]:
        lat_q[h["hwq"]] = lat_q.get(h["hwq"], 0) + h["count"]
    assert lat_q == by_q, (lat_q, by_q)


def test_zone_open_close_finish_and_reset_all_named(iolens, tracer, stat):
    """blkzone opening, closing, finishing and resetting zone 1 of a zoned
    null_blk, then resetting the whole disk (one zone-reset-all, as null_blk
    offers it): snoop names the five in that order at the sectors tracefs
    saw them issued, stat's other_ops counts each once, and the disk's
    requests are the five diskstats counts, none left in flight."""
    nb = NullBlk(zoned=1, zone_size=4)
    tracefs = None
    try:
        tracefs = TraceInstance(nb)
        st = stat(["-d", nb.name])
        t = tracer(["snoop", "-j", "-d", nb.name])
        before = nb.diskstats()
        for verb in ("open", "close", "finish", "reset"):
            subprocess.run(["blkzone", verb, "-o", "8192", "-c", "1", nb.dev],
                           check=True, timeout=60)
        subprocess.run(["blkzone", "reset", nb.dev], check=True, timeout=60)
        wait_idle(nb)
        after = nb.diskstats()
        recs, _ = json_lines(t.stop())
        _, reps = st.stop_when_idle(nb)
        issued = [sector for ev, rwbs, sector, _ in tracefs.read()
                  if ev == "block_rq_issue" and rwbs.startswith("N")]
    finally:
        if tracefs:
            tracefs.close()
        nb.close()
    ops = ["zone-open", "zone-close", "zone-finish", "zone-reset", "zone-reset-all"]
    assert [(r["op"], r["sector"]) for r in recs] == list(zip(ops, [8192] * 4 + [0])), recs
    assert issued == [8192] * 4 + [0], issued
    assert sum(after[k] - before[k] for k in ("r_ios", "w_ios")) == 5
    devs = [d for r in reps for d in r["devices"] if d["disk_device"] == nb.name]
    counted = {}
    for d in devs:
        for name, c in d["other_ops"].items():
            counted[name] = counted.get(name, 0) + c["ios"]
    assert counted == {op: 1 for op in ops}, counted
    assert sum(d["ops"][g]["ios"] for d in devs for g in ("read", "write")) == 5
    assert sum(d["completions_missed"] for d in devs) == 0


def test_check_says_why_scsi_debug_4kn_refuses_small_direct_writes(iolens):
    """scsi_debug as a 4Kn disk (4096-byte logical sectors): the kernel
    refuses 512-byte O_DIRECT writes (EINVAL) before any request, and
    check counts them on that disk and names its logical block."""
    sd = ScsiDebug(sector_size=4096)
    try:
        check_refused(sd, 12)
    finally:
        sd.close()


def test_requeues_counted_on_scsi_debug_host_busy(iolens, stat, tracer):
    """scsi_debug answering every 4th command "host busy" (opts 0x8000):
    the block layer sends those requests back to the queue and, while the
    host stays blocked, requeues others before they are even started.
    stat counts as many requeues as tracefs's block_rq_requeue events, and
    the 64 reads once each, as diskstats; snoop's records carry the same
    requeues; a requeue of a request never started takes back no issue:
    the queue depth at issue stays 1 (dd has one read in flight); lat -S
    counts 64 sizes, one per read however often it was issued."""
    sd = ScsiDebug(every_nth=4, opts=0x8000)
    tracefs = TraceInstance(sd, events=("block_rq_issue", "block_rq_requeue"))
    try:
        st = stat(["-d", sd.name])
        t = tracer(["snoop", "-j", "-d", sd.name])
        lat = tracer(["lat", "-j", "-S", "-d", sd.name])
        before = sd.diskstats()
        subprocess.run(["dd", "if=" + sd.dev, "of=/dev/null", "bs=4k", "count=64",
                        "iflag=direct", "status=none"], check=True, timeout=120)
        d1, reps = st.stop_when_idle(sd)
        recs, _ = json_lines(t.stop())
        (rep,) = lat_reports(lat)
        requeued = sum(ev == "block_rq_requeue" for ev, _, _, _ in tracefs.read())
        assert tracefs.overruns() == 0
    finally:
        tracefs.close()
        sd.close()
    assert d1["r_ios"] - before["r_ios"] == 64
    tot, missed, _, _ = totals(reps, sd.name)
    assert missed == 0 and tot["read"]["ios"] == 64
    counted = sum(d["ops"][op]["requeues"] for r in reps for d in r["devices"]
                  if d["disk_device"] == sd.name for op in d["ops"])
    assert requeued > 0 and counted == requeued, (counted, requeued)
    depths = [(d["ops"]["read"]["qd_avg"], d["ops"]["read"]["qd_max"]) for r in reps
              for d in r["devices"] if d["disk_device"] == sd.name and d["ops"]["read"]["issues"]]
    assert depths and all(q == (1.0, 1) for q in depths), depths
    assert sum(r["requeues"] for r in recs if r["op"] == "read") == requeued, recs[:3]
    sizes = [(h["count"], h["p50"], h["max"]) for h in rep["histograms"]
             if h["kind"] == "size"]
    assert sizes == [(64, 4096, 4096)], sizes


def test_timeouts_counted_on_scsi_debug_ignoring_commands(iolens, serve, stat):
    """scsi_debug ignoring every 8th command (opts 4: a disk that drops
    them) under a 1 s timeout: the SCSI midlayer aborts each and requeues
    it for a retry that succeeds.  stat counts each as one timeout, as
    many as the kernel's own count of timed-out commands (the device's
    iotmo_cnt) and as tracefs's block_rq_requeue events, and so does
    serve's iolens_timeouts_total; and the 32 reads once each, none failed,
    as diskstats."""
    sd = ScsiDebug()
    device = "/sys/block/%s/device/" % sd.name
    driver = "/sys/bus/pseudo/drivers/scsi_debug/"

    def timed_out():
        with open(device + "iotmo_cnt") as f:
            return int(f.read(), 0)
    try:
        with open(device + "timeout", "w") as f:
            f.write("1")
        tracefs = TraceInstance(sd, events=("block_rq_requeue",))
        try:
            s = serve(["-d", sd.name])
            st = stat(["-d", sd.name])
            before, tmo0 = sd.diskstats(), timed_out()
            for param, setting in (("every_nth", "8"), ("opts", "4")):
                with open(driver + param, "w") as f:
                    f.write(setting)
            subprocess.run(["dd", "if=" + sd.dev, "of=/dev/null", "bs=4k", "count=32",
                            "iflag=direct", "status=none"], check=True, timeout=120)
            with open(driver + "opts", "w") as f:
                f.write("0")
            d1, reps = st.stop_when_idle(sd)
            time.sleep(1.2)
            body = s.metrics()
            tmo = timed_out() - tmo0
            requeued = len(tracefs.read())
            assert tracefs.overruns() == 0
        finally:
            tracefs.close()
    finally:
        sd.close()
    assert d1["r_ios"] - before["r_ios"] == 32
    tot, missed, _, _ = totals(reps, sd.name)
    assert missed == 0 and tot["read"]["ios"] == 32

    def ops_sum(field):
        return sum(d["ops"]["read"][field] for r in reps for d in r["devices"]
                   if d["disk_device"] == sd.name)
    assert tmo > 0 and ops_sum("timeouts") == tmo == requeued, (ops_sum("timeouts"), tmo, requeued)
    assert ops_sum("requeues") == requeued and ops_sum("failed") == 0
    assert value(body, "iolens_timeouts_total", device=sd.name, op="read") == tmo
