#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks that the source tree keeps its layers (make check-layers).

    cli  ->  bench  ->  commands (a folder each: top, stat, lat, snoop, record,
                        report, load, attach, check, serve, doctor)  ->  trace  ->  ABI
                              lib: usable from all of them, uses only ABI

  bench composes a load and the tracers, so it sits above the commands.

- An include runs down the layers or stays in its folder: a file in src/X/
  or include/X/ includes "Y/name.h" only if Y is X, or below X; every layer
  may include the BPF objects' ABI headers ("bpf/NAME.h") but not the
  BPF-side helpers (bpf/*.bpf.h).  One feature does not include another.
- A skeleton (NAME.skel.h) is included only by its loader, src/trace/.
- The same rules hold for calls: from `nm` of the built objects, no object
  calls into a layer above it, and no two objects call each other, even
  through others (a file cycle).
- cli only parses and dispatches: each command has its folder, and
  src/cli/cmd_X.c reaches into src/X/ alone, there only to its entry
  points (functions named X_run..., or X_opts_each for a command with a
  parser of its own) and its tables (data); the other cli files reach into
  no command's folder.
- No source file is over 800 lines.
- No print path formats a name of others directly (check_names()): every
  output call that mentions a comm, command line, cgroup path, file path
  or trace-file header string passes it through lib/sanitize (san_*).
- No test module imports another (tests/system/helpers.py holds what they
  share).

Usage: check_layers.py BUILD_DIR   (the objects are BUILD_DIR/src/**/*.o)
Prints one line per violation and exits 1 if there is any.
"""
import os
import re
import subprocess
import sys

# Every other folder of src/ is a command's: rank 3.
RANK = {'bpf': 0, 'lib': 1, 'trace': 2, 'bench': 4, 'cli': 5}
RANK.update({d: 3 for d in os.listdir(os.path.join(os.path.dirname(
    os.path.abspath(__file__)), '..', 'src')) if d not in RANK})
FEATURES = {k for k, v in RANK.items() if v == 3}
MAX_LINES = 800
SKEL_OWNER = {'block': 'block_trace', 'agg': 'agg_trace',
              'check': 'check_trace', 'tasks': 'task_trace'}


def layer_of(path):
    """The layer of a source path: 'bpf', or the folder under src/ or include/."""
    parts = path.split(os.sep)
    if parts[0] == 'bpf':
        return 'bpf'
    if parts[0] in ('src', 'include') and len(parts) > 2:
        return parts[1]
    return None


def allowed(src, dst):
    """Whether layer `src` may depend on layer `dst`."""
    if src == dst:
        return True
    if src in FEATURES and dst in FEATURES:
        return False
    if src == 'lib':
        return dst == 'bpf'
    return RANK[dst] < RANK[src]


def sources():
    for root in ('src', 'include', 'bpf'):
        for dp, _, fns in os.walk(root):
            for fn in sorted(fns):
                if fn.endswith(('.c', '.h')):
                    yield os.path.join(dp, fn)


def check_includes(errors):
    inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
    for path in sources():
        text = open(path).read()
        nlines = text.count('\n')
        if nlines > MAX_LINES:
            errors.append(f'{path}: {nlines} lines, over {MAX_LINES}: split it')
        src = layer_of(path)
        if src is None:
            errors.append(f'{path}: not in a layer folder ({", ".join(RANK)})')
            continue
        for name in inc.findall(text):
            if src == 'bpf':
                if '/' in name:
                    errors.append(f'{path}: BPF code includes "{name}" from outside bpf/')
                continue
            if name.endswith('.skel.h'):
                owner = SKEL_OWNER.get(name[:-len('.skel.h')])
                base = os.path.splitext(os.path.basename(path))[0]
                if src != 'trace' or base != owner:
                    errors.append(f'{path}: includes "{name}", which only '
                                  f'src/trace/{owner}.c may')
                continue
            if '/' not in name:
                errors.append(f'{path}: includes "{name}" without its layer folder')
                continue
            dst = name.split('/')[0]
            if dst not in RANK:
                errors.append(f'{path}: includes "{name}" from no layer')
            elif dst == 'bpf' and name.endswith('.bpf.h'):
                errors.append(f'{path}: includes the BPF-side helper "{name}"')
            elif not allowed(src, dst):
                errors.append(f'{path}: layer {src} includes "{name}" of layer {dst}')


def symbols(obj):
    """The symbols `obj` defines (name: nm's type letter) and uses."""
    out = subprocess.run(['nm', '--defined-only', obj], capture_output=True,
                         text=True, check=True).stdout
    defined = {l.split()[2]: l.split()[1] for l in out.splitlines()
               if len(l.split()) == 3 and l.split()[1] in 'TDBRCGSV'}
    out = subprocess.run(['nm', '--undefined-only', obj], capture_output=True,
                         text=True, check=True).stdout
    used = {l.split()[-1] for l in out.splitlines() if l.strip()}
    return defined, used


def check_calls(build, errors):
    objs = []
    for dp, _, fns in os.walk(os.path.join(build, 'src')):
        objs += [os.path.join(dp, f) for f in fns if f.endswith('.o')]
    if not objs:
        errors.append(f'{build}/src: no objects; build first')
        return
    owner, kind, uses = {}, {}, {}
    for o in sorted(objs):
        src = os.path.relpath(o, build)[:-2] + '.c'
        if not os.path.exists(src):
            continue  # left in the build by a file since moved
        d, u = symbols(o)
        for s, t in d.items():
            owner[s] = src
            kind[s] = t
        uses[src] = u
    graph = {}
    for src, used in uses.items():
        graph[src] = sorted({owner[s] for s in used if s in owner} - {src})
        for dst in graph[src]:
            if not allowed(layer_of(src), layer_of(dst)):
                errors.append(f'{src}: layer {layer_of(src)} calls into '
                              f'{dst} of layer {layer_of(dst)}')
    for comp in strongly_connected(graph):
        if len(comp) > 1:
            errors.append('file cycle: ' + ' <-> '.join(sorted(comp)))
    check_cli(uses, owner, kind, errors)


def check_cli(uses, owner, kind, errors):
    """cli/cmd_X.c reaches only into src/X/, to its entry points and
    tables; other cli files into no command folder."""
    commands = set(RANK) - {'bpf', 'lib', 'trace', 'cli'}
    for src, used in sorted(uses.items()):
        if layer_of(src) != 'cli':
            continue
        m = re.match(r'src/cli/cmd_(\w+)\.c$', src)
        cmd = m.group(1) if m else None
        if cmd and cmd not in commands:
            errors.append(f'{src}: command {cmd} has no folder src/{cmd}/ '
                          f'for its logic')
        reached = False
        for sym in sorted(used):
            dst = owner.get(sym)
            folder = layer_of(dst) if dst else None
            if folder not in commands:
                continue
            entry = (re.match(rf'{folder}_run\w*$|{folder}_opts_each$', sym)
                     or kind[sym] in 'DRBGSV')
            if folder != cmd:
                errors.append(f'{src}: reaches into {dst} ({sym}); only '
                              f'cli/cmd_{folder}.c may')
            elif not entry:
                errors.append(f'{src}: calls {sym} of {dst}; cli calls only '
                              f'{folder}_run... (parse here, run there)')
            else:
                reached = True
        if cmd and not reached:
            errors.append(f'{src}: calls no {cmd}_run... of src/{cmd}/')


def check_tests(errors):
    imp = re.compile(r'^\s*(?:from\s+(test_\w+)\s+import|import\s+(test_\w+))', re.M)
    for d in ('tests/system', 'tests/kernels'):
        for fn in sorted(os.listdir(d)):
            if fn.endswith('.py'):
                for m in imp.finditer(open(os.path.join(d, fn)).read()):
                    errors.append(f'{d}/{fn}: imports the test module '
                                  f'{m.group(1) or m.group(2)}; shared helpers '
                                  f'go in tests/system/helpers.py')

# Calls that write text somewhere a person or a parser reads it, and
# snprintf(), whose buffer is printed later.
NAME_PRINT = re.compile(
    r'\b(printf|fprintf|dprintf|vfprintf|snprintf|fputs|puts|fwrite|'
    r'fwrite_unlocked|put_fmt|printw|mvprintw|wprintw|mvwprintw|addstr|'
    r'mvaddstr|addnstr|mvaddnstr|tui_message)\s*\(')
# What holds a name of others: a field named comm, cmdline, path, host,
# kernel, tool or user, or what cgroup_path() and proc_cmdline() return.
NAME_FIELD = re.compile(
    r'(->|\.)(comm|cmdline|path|host|kernel|tool|user)\b(?!\s*\()|'
    r'\bcgroup_path\s*\(|\bproc_cmdline\s*\(')
# Sites that are not output, or whose name is the invoker's own; each is
# (file, a regular expression the call's text, spaces squeezed, matches).
NAME_ALLOWED = [
    # Copies into a struct's own field, not output.
    ('src/trace/task_trace.c', r'snprintf\(e->path, sizeof\(e->path\), "%s", p\)'),
    ('src/record/writer.c', r'snprintf\(cg\.path, sizeof\(cg\.path\), "%s", path\)'),
    ('src/record/writer.c', r'snprintf\(tf->path, sizeof\(tf->path\), "%s", path \? path : ""\)'),
    ('src/record/record.c', r'snprintf\(h->(kernel|host|tool), sizeof\(h->\1\),'),
    ('src/check/partalign.c', r'snprintf\(pa->path, sizeof\(pa->path\), "%s", path\)'),
    # A file name made from the invoker's own -o PREFIX, to open.
    ('src/record/flight.c', r'snprintf\(fl->path, sizeof\(fl->path\), "%s-%s\.%03u(-%d)?\.iol", fl->o->path,'),
    ('src/check/check.c', r'snprintf\(of->path, sizeof\(of->path\), "%s", cand\)'),
    # A file name built to be sanitized where it is printed (text_offenders).
    ('src/check/report.c', r'snprintf\(buf, len, "%s", of->path\)'),
    # A chart's label, which svg_esc() (lib/sanitize) writes.
    ('src/report/charts.c', r'snprintf\(b, n, "%s %u", w->comm\[0\] \? w->comm : "\?", w->pid\)'),
    # The trace file report was told to read: the invoker's own argument.
    ('src/report/report.c', r'fprintf\(stderr, "iolens %s: %s: %s\\n", CMD, r\.path, err\)'),
]


def inside_san(call, pos):
    """Whether pos in call is inside the parentheses of a san_* call."""
    for m in re.finditer(r'\bsan_\w+\s*\(', call[:pos]):
        depth = 1
        for c in call[m.end():pos]:
            depth += {'(': 1, ')': -1}.get(c, 0)
            if not depth:
                break
        if depth:
            return True
    return False


def check_names(errors):
    """No print path formats a name that someone else chose.

    Any local user picks a process's comm (prctl), its command line, the
    name of a cgroup directory or of a file, and what a trace file holds;
    iolens prints them as root to terminals, JSON, CSV and scrapes.  Each
    must pass through lib/sanitize (san_text, san_json, san_csv, san_label,
    san_text_buf, san_fputs_*; json_write_string() and svg_esc() call them
    for every string, so json_str() and the HTML are safe by construction).

    The rule, on the text of src/**/*.c: a call of an output function
    (NAME_PRINT, with snprintf: its buffer is printed later) whose
    arguments mention a name (NAME_FIELD) must have each such mention inside
    the parentheses of a san_* call, unless the site is one of NAME_ALLOWED (copies into a
    struct, not output).  A new unsanitized site fails here; names held in
    variables of other names are the reviewer's to see.  An entry of
    NAME_ALLOWED that no call matches any more fails too, so that one
    cannot outlive its site and later let another through unseen.
    """
    used = set()
    for path in sources():
        if not path.startswith('src/') or not path.endswith('.c') or \
                path == 'src/lib/sanitize.c':
            continue
        text = open(path).read()
        for m in NAME_PRINT.finditer(text):
            i, depth = m.end(), 1
            while depth and i < len(text):
                if text[i] in '"\'':
                    # A literal's parentheses are text: "... (".
                    q, i = text[i], i + 1
                    while i < len(text) and text[i] != q:
                        i += 2 if text[i] == '\\' else 1
                else:
                    depth += {'(': 1, ')': -1}.get(text[i], 0)
                i += 1
            call = ' '.join(text[m.start():i].split())
            if all(inside_san(call, n.start()) for n in NAME_FIELD.finditer(call)):
                continue
            allowed = [a for a in NAME_ALLOWED
                       if a[0] == path and re.search(a[1], call)]
            if allowed:
                used.update(allowed)
                continue
            line = text.count('\n', 0, m.start()) + 1
            errors.append(f'{path}:{line}: prints a name of others without '
                          f'lib/sanitize (san_*): {call[:100]}')
    for f, rx in NAME_ALLOWED:
        if (f, rx) not in used:
            errors.append(f'tools/check_layers.py: NAME_ALLOWED entry for {f} '
                          f'matches no call any more: {rx}')


def strongly_connected(graph):
    """Tarjan's algorithm, iterative."""
    index, low, on, stack, comps, n = {}, {}, set(), [], [], [0]

    def visit(v):
        work = [(v, 0)]
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            v, i = work.pop()
            succ = graph.get(v, [])
            if i < len(succ):
                work.append((v, i + 1))
                w = succ[i]
                if w not in index:
                    index[w] = low[w] = n[0]
                    n[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, 0))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                comps.append(comp)
            if work:
                u = work[-1][0]
                low[u] = min(low[u], low[v])

    for v in graph:
        if v not in index:
            visit(v)
    return comps


def main():
    if len(sys.argv) != 2:
        print('usage: check_layers.py BUILD_DIR', file=sys.stderr)
        return 2
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
    errors = []
    check_includes(errors)
    check_calls(sys.argv[1], errors)
    check_tests(errors)
    check_names(errors)
    for e in errors:
        print('check-layers: ' + e)
    if errors:
        return 1
    print('check-layers: ok')
    return 0


if __name__ == '__main__':
    sys.exit(main())
