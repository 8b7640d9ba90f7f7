# SPDX-License-Identifier: GPL-2.0
"""Installs like a system tool: make install into a DESTDIR (the binary
runs from there, each man page renders and lists exactly the options
--help lists, bash, fish and zsh completions complete), make uninstall,
and the .deb: installed with dpkg, run, removed without a trace."""
import json
import os
import re
import subprocess

import pytest

from helpers import IOLENS, Loop

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.dirname(os.path.abspath(IOLENS))


def commands():
    """The commands of `iolens --help`: the command table's rows."""
    out = subprocess.run([IOLENS, "--help"], capture_output=True, text=True).stdout
    block = out.split("\ncommands:\n")[1].split("\n\n")[0]
    return [l.split()[0] for l in block.splitlines() if l.split()[0] != "completion"]


COMMANDS = commands()
# The packaging is tested once, with the plain build.
pytestmark = pytest.mark.nosan


def make(*args):
    # OUT as the Makefile spells its own (relative to the tree): the
    # dependency files of what this rebuilds name their objects so, and
    # make would not match an absolute path to them afterwards.
    out = os.path.relpath(BUILD, REPO) if BUILD.startswith(REPO + os.sep) else BUILD
    r = subprocess.run(["make", "-C", REPO, "--no-print-directory", "OUT=" + out] +
                       list(args), capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    return r.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    dest = tmp_path_factory.mktemp("dest")
    make("install", "DESTDIR=%s" % dest, "PREFIX=/usr")
    return dest


def help_options(cmd):
    """The options `iolens CMD --help` lists, from the first heading that an
    option follows to the blank line after them: {"-d", "--dev", ...}."""
    lines = subprocess.run([IOLENS, cmd, "--help"], capture_output=True,
                           text=True).stdout.splitlines()
    option = re.compile(r"^  (?:(-\w)(?:, (--[\w-]+))?|    (--[\w-]+)|(--[\w-]+))")
    start = next(i for i in range(len(lines) - 1)
                 if re.match(r"^\S.*:$", lines[i]) and option.match(lines[i + 1]))
    opts = set()
    for line in lines[start + 1:]:
        if not line.strip():
            break
        m = option.match(line)
        if m:
            opts |= {o for o in m.groups() if o}
    return opts


def man_text(page):
    r = subprocess.run(["man", "--warnings", "-l", page], capture_output=True, text=True,
                       env=dict(os.environ, MANWIDTH="100", LANG="C.UTF-8"))
    assert r.returncode == 0 and r.stderr == "", r.stderr
    return r.stdout


def test_install_and_run_from_there(installed):
    for path in ["usr/sbin/iolens", "usr/share/man/man8/iolens.8",
                 "usr/share/bash-completion/completions/iolens",
                 "usr/share/zsh/vendor-completions/_iolens",
                 "usr/share/fish/vendor_completions.d/iolens.fish",
                 "usr/lib/systemd/system/iolens-serve.service",
                 "usr/lib/systemd/system/iolens-record.service",
                 "usr/share/iolens/fleet/prometheus/iolens.rules.yml",
                 "usr/share/iolens/fleet/prometheus/iolens.rules.test.yml",
                 "usr/share/iolens/fleet/grafana/iolens.json"] + [
                     "usr/share/man/man8/iolens-%s.8" % c for c in COMMANDS]:
        assert os.path.isfile(installed / path), path
    exe = str(installed / "usr/sbin/iolens")
    v = subprocess.run([exe, "--version"], capture_output=True, text=True)
    assert re.fullmatch(r"iolens \d+\.\d+\.\d+ \(git [0-9a-f]{7,}(-dirty)?\)\n", v.stdout), v.stdout
    d = subprocess.run([exe, "doctor", "-j"], capture_output=True, text=True, cwd="/")
    assert d.returncode == 0 and '"commands"' in d.stdout, d.stderr
    unit = open(installed / "usr/lib/systemd/system/iolens-serve.service").read()
    assert "ExecStart=/usr/sbin/iolens serve" in unit
    assert "AmbientCapabilities=CAP_BPF CAP_PERFMON" in unit and "DynamicUser=yes" in unit
    unit = open(installed / "usr/lib/systemd/system/iolens-record.service").read()
    assert "ExecStart=/usr/sbin/iolens record --ring 60s" in unit
    # Its command line is one record takes.
    exec_start = re.search(r"^ExecStart=((?:.*\\\n)*.*)$", unit, re.M).group(1)
    args = exec_start.replace("\\\n", " ").split()[2:]
    assert "-o" in args
    args[args.index("-o") + 1] = str(installed / "spike")
    r = subprocess.run([exe, "record", "-D", "0.1"] + args, capture_output=True, text=True)
    assert r.returncode == 0 and "saved 0 files" in r.stderr, r.stderr


@pytest.mark.parametrize("cmd", COMMANDS)
def test_man_page_has_every_option(installed, cmd):
    text = man_text(str(installed / ("usr/share/man/man8/iolens-%s.8" % cmd)))
    for section in ("NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "FIELDS", "OVERHEAD",
                    "EXIT STATUS", "EXAMPLES"):
        assert re.search(r"^%s$" % section, text, re.M), section
    options = text.split("\nOPTIONS\n")[1].split("\nFIELDS\n")[0]
    in_man = set(re.findall(r"^\s{7}(-\w|--[\w-]+)", options, re.M)) | set(
        re.findall(r"^\s{7}-\w, (--[\w-]+)", options, re.M))
    assert in_man == help_options(cmd), (in_man ^ help_options(cmd))


@pytest.mark.fast
@pytest.mark.parametrize("cmd", ["iolens"] + COMMANDS)
def test_help_fits_80_columns(cmd):
    """Every --help reads in an 80-column terminal: the options' help is
    flowed to the room beside them (lib/wrap.c), top's columns too."""
    args = [IOLENS] + ([cmd] if cmd != "iolens" else []) + ["--help"]
    out = subprocess.run(args, capture_output=True, text=True).stdout
    wide = [line for line in out.splitlines() if len(line) > 80]
    assert len(out.splitlines()) > 10 and not wide, wide


def test_every_command_has_its_row():
    """The table is the commands' own rows: one per src/cli/cmd_X.c, and
    so the Makefile's list (made from the same file names)."""
    files = sorted(f[len("cmd_"):-2] for f in os.listdir(os.path.join(REPO, "src/cli"))
                   if f.startswith("cmd_") and f.endswith(".c"))
    assert sorted(COMMANDS) == files
    listed = make("-s", "--eval=print-commands: ; @echo $(COMMANDS)", "print-commands")
    assert sorted(listed.split()) == files


@pytest.mark.parametrize("cmd", COMMANDS)
def test_a_command_without_a_page_gets_one_from_its_help(cmd, tmp_path):
    """tools/man/command.8.in: the page of a command that has no
    iolens-X.8.in of its own yet renders, and lists its options."""
    page = tmp_path / ("iolens-%s.8" % cmd)
    with open(page, "w") as f:
        subprocess.run([os.path.join(REPO, "tools/mkman.py"), IOLENS,
                        os.path.join(REPO, "tools/man/command.8.in"), "0", cmd],
                       stdout=f, check=True)
    text = man_text(str(page))
    assert re.search(r"^NAME\n\s+iolens-%s - \S" % cmd, text, re.M), text[:300]
    options = text.split("\nOPTIONS\n")[1].split("\nNOTES\n")[0]
    in_man = set(re.findall(r"^\s{7}(-\w|--[\w-]+)", options, re.M)) | set(
        re.findall(r"^\s{7}-\w, (--[\w-]+)", options, re.M))
    assert in_man == help_options(cmd), (in_man ^ help_options(cmd))


def test_top_fields_are_its_columns(installed, root):
    """iolens-top(8)'s process table is top's column table: every column
    of --columns, each with the key its value has in top -j, which is
    there."""
    text = man_text(str(installed / "usr/share/man/man8/iolens-top.8"))
    table = text.split("Process table")[1].split("Device lines")[0]
    keys = re.findall(r"^\s{7}\S.*\((\w+)\)$", table, re.M)
    # man hyphenates long keys across lines: joined again first.
    joined = " ".join(re.sub("\u2010\n\\s*", "", table).split())
    json_keys = re.findall(r"\(-j: (\w+)\)", joined)
    helped = re.findall(r"\(-j: (\w+)\)", subprocess.run(
        [IOLENS, "top", "--help"], capture_output=True, text=True).stdout)
    bad = subprocess.run([IOLENS, "top", "-b", "-n", "1", "--columns", "nosuch"],
                         capture_output=True, text=True).stderr
    assert keys and ",".join(keys) in bad, (keys, bad)
    frame = json.loads(subprocess.run([IOLENS, "top", "-j", "-n", "1", "-d", "0.2"],
                                      capture_output=True, text=True).stdout)
    assert json_keys == helped and set(json_keys) <= set(frame["total"]), json_keys


def test_iolens_man_page_lists_the_commands(installed):
    text = man_text(str(installed / "usr/share/man/man8/iolens.8"))
    for cmd in COMMANDS:
        assert re.search(r"^\s{7}%s\s" % cmd, text, re.M), cmd


def bash_complete(script, words):
    """COMPREPLY of the completion for `words` (the last one being typed)."""
    r = subprocess.run(["bash", "-c", 'source "$0"; COMP_WORDS=(%s); COMP_CWORD=%d; _iolens; '
                        'printf "%%s\\n" "${COMPREPLY[@]}"' % (
                            " ".join("'%s'" % w for w in words), len(words) - 1), script],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return set(r.stdout.split())


def test_bash_completion(installed, root):
    script = str(installed / "usr/share/bash-completion/completions/iolens")
    assert {"snoop", "stat", "serve"} <= bash_complete(script, ["iolens", "s"])
    assert "top" not in bash_complete(script, ["iolens", "s"])
    assert {"--dev", "--json", "--partitions", "--skip-boot"} <= bash_complete(
        script, ["iolens", "stat", "--"])
    assert bash_complete(script, ["iolens", "report", "-f", ""]) == {
        "text", "csv", "json", "perfetto", "html", "svg"}
    assert "latency-heatmap" in bash_complete(script, ["iolens", "report", "--chart", "lat"])
    assert {"pid,io", "pid,disk_read"} <= bash_complete(
        script, ["iolens", "top", "--columns", "pid,"])
    assert str(os.getpid()) in bash_complete(script, ["iolens", "top", "-p", ""])
    assert "--rw=" in bash_complete(script, ["iolens", "load", "--r"])
    assert bash_complete(script, ["iolens", "load", "--rw", "=", "rand"]) == {
        "randread", "randwrite", "randrw", "randtrim"}
    lo = Loop()
    try:
        assert lo.name in bash_complete(script, ["iolens", "stat", "-d", lo.name[:5]])
    finally:
        lo.close()


def test_fish_and_zsh_completion(installed):
    fish = str(installed / "usr/share/fish/vendor_completions.d/iolens.fish")
    r = subprocess.run(["fish", "-c", 'source %s; complete -C "iolens report -f "' % fish],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert {l.split("\t")[0] for l in r.stdout.splitlines()} == {
        "text", "csv", "json", "perfetto", "html", "svg"}
    r = subprocess.run(["fish", "-c", 'source %s; complete -C "iolens sta"' % fish],
                       capture_output=True, text=True)
    assert [l.split("\t")[0] for l in r.stdout.splitlines()] == ["stat"]
    zsh = str(installed / "usr/share/zsh/vendor-completions/_iolens")
    r = subprocess.run(["zsh", "-n", zsh], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_uninstall_leaves_nothing(tmp_path):
    make("install", "DESTDIR=%s" % tmp_path, "PREFIX=/usr/local")
    assert os.path.isfile(tmp_path / "usr/local/sbin/iolens")
    make("uninstall", "DESTDIR=%s" % tmp_path, "PREFIX=/usr/local")
    left = [os.path.join(d, f) for d, _, fs in os.walk(tmp_path) for f in fs]
    assert left == []


def dpkg_status(pkg):
    return subprocess.run(["dpkg-query", "-W", "-f", "${Status}", pkg],
                          capture_output=True, text=True).stdout


def test_deb_installs_runs_and_goes(root):
    assert "installed" not in dpkg_status("iolens"), \
        "an iolens package is installed on this machine already: the test would replace it"
    deb = os.path.join(REPO, make("deb").strip().splitlines()[-1])
    assert re.search(r"iolens_\d+\.\d+\.\d+_\w+\.deb$", deb), deb
    info = subprocess.run(["dpkg-deb", "-f", deb, "Depends"], capture_output=True,
                          text=True).stdout
    assert "libbpf1" in info and "libc6" in info, info
    files = [l.split()[-1].lstrip(".") for l in subprocess.run(
        ["dpkg-deb", "-c", deb], capture_output=True, text=True).stdout.splitlines()
        if not l.startswith("d")]
    try:
        r = subprocess.run(["dpkg", "-i", deb], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert dpkg_status("iolens") == "install ok installed"
        d = subprocess.run(["/usr/sbin/iolens", "doctor"], capture_output=True, text=True)
        assert d.returncode == 0, d.stderr
        s = subprocess.run(["/usr/sbin/iolens", "stat", "1", "1"], capture_output=True,
                           text=True)
        assert s.returncode == 0 and "Device" in s.stdout, s.stderr
        assert os.path.isfile("/usr/share/man/man8/iolens-stat.8")
    finally:
        subprocess.run(["dpkg", "--purge", "iolens"], capture_output=True)
    assert "installed" not in dpkg_status("iolens")
    assert [f for f in files if os.path.exists(f)] == []
