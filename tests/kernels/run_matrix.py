#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The kernel matrix: iolens on the kernels its users run.

Boots each of Debian's own kernel packages under qemu (virtme-ng; TCG, as
these machines have no usable nested KVM) over this machine's own files,
and inside the guest runs
  - commands.py: every command once, its exit code, doctor's verdict, and
    whether its counts equal /proc/diskstats there: the kernel x command
    table of the README;
  - the system tests that exercise each BPF object and each fallback.
A kernel package is downloaded once into CACHE, unpacked under /tmp: the
guest finds the kernel's modules (loop) only there.

Usage: run_matrix.py BUILD_DIR [KERNEL...]   (exit 1 if any test failed)
IOLENS_MATRIX_TESTS="tests/..." runs those tests instead of TESTS.
"""
import collections
import io
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "../.."))
CACHE = "/tmp/iolens-kernels"

# (release, Debian package): Debian 12's default kernel, 6.12 LTS, and
# Debian 12's PREEMPT_RT kernel, which real-time and telecom users run
# (its trace events' header is 4 bytes longer: bpf/sys_hook.bpf.h).
KERNELS = [
    ("6.1.0-47-amd64", "linux-image-6.1.0-47-amd64-unsigned"),
    ("6.12.117+deb12-amd64", "linux-image-6.12.117+deb12-amd64-unsigned"),
    ("6.1.0-47-rt-amd64", "linux-image-6.1.0-47-rt-amd64-unsigned"),
]

# One or more tests per BPF object and per fallback; under TCG a guest runs
# about 20 times slower than this machine, so not all 200.
TESTS = [
    "tests/system/test_booted.py",
    "tests/system/test_snoop.py::test_snoop_exact_against_tracefs_and_diskstats",
    "tests/system/test_snoop.py::test_snoop_writeback_attributed_to_flusher",
    "tests/system/test_record.py::test_record_report_exact",
    "tests/system/test_stat.py::test_stat_counts_equal_diskstats",
    # Not the latency test: it compares two tracers' clocks (see below).
    "tests/system/test_biobased.py::test_zram_in_top_and_serve",
    # Partitions the kernel finds in a DOS table; dm-linear and dm-crypt.
    "tests/system/test_partitions.py",
    "tests/system/test_stacked.py",
    # Not test_lat_percentiles_match_record: it compares two tracers' clock
    # reads at one completion within 1%, and under TCG the second program
    # runs hundreds of microseconds after the first.
    "tests/system/test_lat.py::test_lat_splits_by_process_and_flags",
    "tests/system/test_lat.py::test_lat_by_stack_tells_journal_from_direct_reads",
    "tests/system/test_snoop.py::test_snoop_and_record_stacks_tell_journal_from_direct_reads",
    # Files: CO-RE reads of pages, folios, split bios and iomap's dio,
    # kernel by kernel (not the terminal's key F: the same frames).
    "tests/system/test_files.py::test_snoop_files_name_each_requests_file",
    "tests/system/test_files.py::test_top_files_view_sums_files_and_their_reader",
    "tests/system/test_files.py::test_snoop_files_raw_device_direct_io",
    "tests/system/test_tasks.py",
    # The flight recorder's errors trigger on a driver's own failures.
    "tests/system/test_flight.py::test_ring_errors_trigger_on_null_blk_bad_blocks",
    "tests/system/test_top.py::test_top_json_equals_proc_io",
    # Writeback charged to the cgroup that dirtied it (cgroup2's io and
    # memory controllers), in top's, stat's, lat's and serve's cgroup views.
    # Not the identities' test: its process groups are the host's cgroup2
    # ids too, and the names are userspace's (on 6.1, 6.12 and 6.1-rt it
    # passed the same, 25 s a guest).
    "tests/system/test_groups.py::test_writeback_charged_to_the_cgroup_that_dirtied_it",
    "tests/system/test_top.py::test_top_rmw_reads_of_partial_page_writes",
    # task->delays read by the iterator, and /proc's ticks; io.max there.
    "tests/system/test_top_screen.py::test_top_io_wait_against_the_kernel",
    "tests/system/test_check.py::test_check_misaligned_direct_writes",
    "tests/system/test_check.py::test_check_page_cache_rmw_record_padding",
    "tests/system/test_attach.py::test_attach_fio_by_pid",
    "tests/system/test_bench.py::test_bench_direct_reads",
    "tests/system/test_serve.py::test_serve_promtool_and_exposition",
    "tests/system/test_serve.py::test_serve_rmw_reads",
    "tests/system/test_doctor.py::test_doctor_json_as_root",
    # Failed and stuck requests (faultfs under a loop device): the marks
    # block_io_done reads on 6.5+, times at completion on 6.1, top's
    # submitters, the ages and snoop's table read in place.  Not the ones
    # that only format what these read (serve, report -E).
    "tests/system/test_failures.py::test_stat_counts_failed_requests_by_status",
    "tests/system/test_failures.py::test_lat_keeps_failures_out_of_the_histogram",
    "tests/system/test_failures.py::test_lat_by_status_and_hwq_times_failures_apart",
    "tests/system/test_failures.py::test_top_counts_a_process_failed_requests",
    "tests/system/test_failures.py::test_stat_warns_of_a_request_stuck_in_the_device",
    "tests/system/test_failures.py::test_snoop_warns_once_of_a_request_stuck_in_flight",
    # The drivers users run: NVMe (interrupt and polled), virtio-scsi,
    # virtio-blk (the qemu devices below), null_blk, scsi_debug.
    "tests/system/test_drivers.py",
]

# The guest's disks of real drivers, each over an image of its own under
# DISKS, found in the guest by its serial (tests/system/helpers.py
# guest_disk()), never by name.  nvme.poll_queues=1 gives the NVMe disk a
# polled queue beside its interrupt-driven one.
DISKS = "/tmp/iolens-matrix-disks"
DISK_MB = 64
QEMU_DISKS = [
    ("nvme", "-device nvme,serial=iolensnvme,drive=%s"),
    ("scsi", "-device scsi-hd,bus=iolscsi.0,drive=%s,serial=iolensscsi"),
    ("vblk", "-device virtio-blk-pci,drive=%s,serial=iolensvblk"),
]
KERNEL_ARGS = "nvme.poll_queues=1"


def disks_qemu_opts(where):
    """qemu's options for the disks, over fresh zeroed images in `where`."""
    os.makedirs(where, exist_ok=True)
    opts = ["-device virtio-scsi-pci,id=iolscsi"]
    for name, device in QEMU_DISKS:
        image = os.path.join(where, name + ".img")
        with open(image, "wb") as f:
            f.truncate(DISK_MB << 20)
        drive = "iol" + name
        opts.append("-drive file=%s,if=none,id=%s,format=raw" % (image, drive))
        opts.append(device % drive)
    return " ".join(opts)

# Seconds a guest may take in all, and without a line of the tests'
# output.  All is well in 4 to 25 minutes, by how fast the host's TCG is:
# three guests side by side took 457 s on the hosts of 2026-11, and one
# guest alone 893 s on that of 2026-12-01 (three: the 6.1-rt one
# 1,263 s).  A hung guest falls silent: its slowest test takes under a
# minute there.
GUEST_TIMEOUT = 2400
GUEST_QUIET = 300


def fetch(release, package):
    """The unpacked kernel of `release`: its vmlinuz path."""
    root = os.path.join(CACHE, release)
    vmlinuz = os.path.join(root, "boot", "vmlinuz-" + release)
    if os.path.exists(vmlinuz):
        return vmlinuz
    os.makedirs(CACHE, exist_ok=True)
    # A machine whose package lists were never read knows no package yet.
    if subprocess.run(["apt-get", "download", package], cwd=CACHE,
                      stdout=subprocess.DEVNULL).returncode:
        subprocess.run(["apt-get", "update", "-qq"], check=True)
        subprocess.run(["apt-get", "download", package], cwd=CACHE, check=True,
                       stdout=subprocess.DEVNULL)
    deb = next(f for f in os.listdir(CACHE)
               if f.startswith(package + "_") and f.endswith(".deb"))
    subprocess.run(["dpkg-deb", "-x", os.path.join(CACHE, deb), root + ".part"],
                   check=True)
    os.rename(root + ".part", root)
    os.unlink(os.path.join(CACHE, deb))
    return vmlinuz


def boot(vng, vmlinuz, script, timeout, qemu_cpus="1", memory="2G", lines=None,
         qemu_opts=None, append=None, out=sys.stdout, quiet=None):
    """Runs `script` (shell) in a guest of that kernel, its output going to
    `out` as it comes (and to `lines`, a list, when given): its exit code.
    The guest is killed after `timeout` s, or `quiet` s without a line of
    the script's (the kernel's own do not count: a hung driver may go on
    logging).
    -v: Debian's qemu gives the guest no script I/O port, so the script's
    output and exit code come on the console, among the kernel's messages
    (left out here).  The script goes in a file under /tmp, which the guest
    shares: virtme-ng passes --exec on the kernel's command line, and a long
    one kills 6.1 early in its boot ("PANIC: early exception 0x06")."""
    with tempfile.NamedTemporaryFile("w", dir="/tmp", prefix="iolens-matrix-",
                                     suffix=".sh", delete=False) as f:
        f.write(script + "\n")
    # One CPU: with two, TCG now and then runs a tracepoint call site the
    # kernel is patching (text_poke_bp(), as a BPF program attaches or
    # detaches) from a stale translation, and the guest dies of "Oops:
    # int3" in bpf_trace_run1 (seen on 6.12) or hangs (6.1).
    cmd = [vng, "-v", "--run", vmlinuz, "--disable-kvm", "--force-9p",
           "--rwdir", "/tmp", "--memory", memory, "--cpus", qemu_cpus]
    if qemu_opts:
        cmd += ["--qemu-opts=" + qemu_opts]
    if append:
        cmd += ["--append", append]
    cmd += ["--exec", "sh " + f.name]
    rc = 255
    kernel = collections.deque(maxlen=300)
    # vng runs virtme-run by name: the venv's bin must be on PATH, which
    # it is not on a machine where virtme-ng was never installed globally.
    env = dict(os.environ, PATH=os.path.dirname(vng) + os.pathsep + os.environ["PATH"])
    # Its own session: qemu, vng's child, holds the pipe open too.
    p = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True,
                         start_new_session=True, env=env)

    def kill():
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    # A hung guest prints nothing: the clock must not wait for its next line.
    t0 = time.monotonic()
    heard = [t0]
    why = []
    ended = threading.Event()

    def watch():
        while not ended.wait(1):
            now = time.monotonic()
            if now - t0 >= timeout:
                why.append("timed out after %d s" % timeout)
            elif quiet and now - heard[0] >= quiet:
                why.append("nothing from the script for %d s, at %d s" % (quiet, now - t0))
            if why:
                kill()
                return
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        for line in p.stdout:
            m = re.search(r"iolens-matrix-exit=(\d+)", line)
            if m:
                rc = int(m.group(1))
            elif re.match(r"\[\s*\d+\.\d+\]", line):
                kernel.append(line)
            else:
                heard[0] = time.monotonic()
                out.write(line)
                out.flush()
                if lines is not None:
                    lines.append(line)
            if line.startswith("PANIC") or "Kernel panic" in line:
                break
    finally:
        ended.set()
        watcher.join()
        kill()
        p.wait()
        os.unlink(f.name)
    if rc == 255 and why:
        print("==== %s" % why[0], file=out)
    if rc == 255:
        print("==== no exit code from the guest; its kernel's last words:", file=out)
        out.writelines(kernel)
    return rc


def run_kernel(vng, iolens, release, package, out):
    """The tests in a guest of `release`, their output to `out`: its exit
    code."""
    vmlinuz = fetch(release, package)
    script = (
        # A guest that hangs says where: its blocked tasks' stacks on
        # the console a minute before the host gives up on it.  One that
        # falls silent is killed sooner; the kernel's own hung-task
        # warnings (after 120 s in Debian's) are among its last words.
        "(sleep %d; echo w > /proc/sysrq-trigger) & W=$! && "
        "cd %s && export IOLENS=%s CI=true PYTHONDONTWRITEBYTECODE=1 "
        # /tmp is the host's, over 9p, which keeps no unlinked file open:
        # pytest's capture files go to the guest's tmpfs.
        "TMPDIR=/dev/shm && "
        # What systemd mounts on every Debian boot and virtme-ng's init
        # does not: the cgroup2 hierarchy (tests compare cgroup paths).
        "{ mountpoint -q /sys/fs/cgroup || "
        "mount -t cgroup2 none /sys/fs/cgroup; } && "
        # Nor does it load the drivers of the disks (no udev).
        "modprobe -a nvme virtio_blk virtio_scsi sd_mod && "
        "/usr/bin/python3 tests/kernels/commands.py %s && "
        "/usr/bin/python3 -m pytest -p no:cacheprovider -v --durations=0 %s; "
        "rc=$?; kill $W; echo iolens-matrix-exit=$rc"
        % (GUEST_TIMEOUT - 60, REPO, iolens, "/tmp/iolens-matrix-%s.json" % release,
           os.environ.get("IOLENS_MATRIX_TESTS") or " ".join(TESTS)))
    disks = os.path.join(DISKS, release)
    t0 = time.monotonic()
    print("==== %s" % release, file=out, flush=True)
    try:
        rc = boot(vng, vmlinuz, script, timeout=GUEST_TIMEOUT, quiet=GUEST_QUIET, out=out,
                  qemu_opts=disks_qemu_opts(disks), append=KERNEL_ARGS)
    finally:
        shutil.rmtree(disks, ignore_errors=True)
    print("==== %s: %.0f s" % (release, time.monotonic() - t0), file=out)
    if rc:
        print("==== %s: FAILED (exit %d)" % (release, rc), file=out)
    return rc


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    build = os.path.abspath(sys.argv[1])
    want = sys.argv[2:]
    vng = os.path.join(build, "venv", "bin", "vng")
    iolens = os.path.join(build, "iolens")
    kernels = [(r, p) for r, p in KERNELS if not want or r in want]
    # Fetched one at a time (apt), then booted side by side: a guest runs
    # on one CPU (see boot()), three on the machine's two take 457 s where
    # two took 345 (one after the other: 345 + 320), and each writes its
    # output to a buffer of its own, shown whole when it ends.
    for release, package in kernels:
        fetch(release, package)
    if len(kernels) == 1:
        return 1 if run_kernel(vng, iolens, *kernels[0], sys.stdout) else 0
    outs = [io.StringIO() for _ in kernels]
    rcs = [255] * len(kernels)

    def run(k):
        rcs[k] = run_kernel(vng, iolens, *kernels[k], outs[k])
    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(kernels))]
    for t in threads:
        t.start()
    for k, t in enumerate(threads):
        t.join()
        sys.stdout.write(outs[k].getvalue())
        sys.stdout.flush()
    return 1 if any(rcs) else 0


if __name__ == "__main__":
    sys.exit(main())
