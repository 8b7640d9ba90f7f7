#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Writes a man page from its source tools/man/NAME.8.in: @OPTIONS@ becomes
the options of `iolens CMD --help` as roff (.TP entries), @COMMANDS@ the
command list of `iolens --help`, @VERSION@ the version.  The text around
them is written by hand; the options come from the option tables, so the
page says what the binary takes.

A command without a page of its own gets tools/man/command.8.in, whose
@NAME@, @UNAME@, @SUMMARY@, @SYNOPSIS@, @DESCRIPTION@ and @MORE@ are the
parts of its --help and its line of `iolens --help`.

usage: tools/mkman.py IOLENS SOURCE VERSION [COMMAND] > PAGE
"""
import os
import re
import subprocess
import sys


def esc(s):
    """Text as roff: backslashes and leading dots or quotes defused."""
    s = s.replace("\\", "\\e").replace("-", "\\-")
    return re.sub(r"^([.'])", r"\\&\1", s)


def help_of(iolens, args):
    return subprocess.run([iolens] + args + ["--help"], capture_output=True, text=True,
                          check=True).stdout


OPTION = re.compile(r"^  (?:(-\w)(?:, (--[\w-]+))?|    (--[\w-]+)|(--[\w-]+))"
                    r"(?:([ =])(\S+))?(?:\s{2,}(.*))?$")


def options(iolens, cmd):
    """The options of `iolens CMD --help` as .TP entries (.SS for the
    headings between them): from the first heading followed by an option to
    the blank line after them."""
    lines = help_of(iolens, [cmd]).splitlines()
    start = next(i for i in range(len(lines) - 1)
                 if re.match(r"^\S.*:$", lines[i]) and OPTION.match(lines[i + 1]))
    roff, text = [], None
    for line in lines[start + 1:]:
        if not line.strip():
            break
        m = OPTION.match(line)
        if m:
            short, long_ = m.group(1), m.group(2) or m.group(3) or m.group(4)
            head = ", ".join(r"\fB%s\fR" % esc(f) for f in (short, long_) if f)
            if m.group(6):
                head += (r"=\fI%s\fR" if m.group(5) == "=" else r" \fI%s\fR") % esc(m.group(6))
            text = [m.group(7) or ""]
            roff += [".TP", head, text]
        elif re.match(r"^\S.*:$", line):
            roff.append(".SS %s" % esc(line[:-1]))
        elif text is not None:
            text.append(line.strip())
    return "\n".join(x if isinstance(x, str) else esc(" ".join(t for t in x if t))
                     for x in roff)


def summary(iolens, cmd):
    """The command's line of `iolens --help`."""
    for line in help_of(iolens, []).splitlines():
        words = line.split(None, 1)
        if line.startswith("  ") and words and words[0] == cmd:
            return words[1]
    sys.exit("mkman: %s is not in iolens --help" % cmd)


def parts(iolens, cmd):
    """--help as usage lines, the text before the options, and after."""
    lines = help_of(iolens, [cmd]).splitlines()
    first = next(i for i, l in enumerate(lines) if not l.strip())
    opts = next(i for i in range(first, len(lines) - 1)
                if re.match(r"^\S.*:$", lines[i]) and OPTION.match(lines[i + 1]))
    end = next((i for i in range(opts + 1, len(lines)) if not lines[i].strip()), len(lines))
    usage = [re.sub(r"^(usage: )?\s*", "", l) for l in lines[:first]]
    return usage, lines[first + 1:opts], lines[end + 1:]


def text_of(lines):
    """Lines as roff: paragraphs apart, indented lines kept as they are."""
    out = []
    for line in lines:
        if not line.strip():
            out.append(".PP")
        elif line.startswith(" "):
            out += [".nf", esc(line.strip()), ".fi"]
        else:
            out.append(esc(line))
    return "\n".join(out)


def fields(iolens, cmd):
    """The table `iolens CMD --help` writes from its rows after the options
    (top's columns, "  KEY  TITLE  what it is (-j: JSON KEY)"; report's
    formats, "  NAME  what it is") as .TP entries."""
    lines = help_of(iolens, [cmd]).splitlines()
    start = next(i for i, l in enumerate(lines) if re.match(r"^(columns \(|formats:)", l))
    titled = lines[start].startswith("columns")
    roff, text = [], None
    for line in lines[start + 1:]:
        if not line.strip():
            break
        if line.startswith("   "):
            text.append(line.strip())
            continue
        if titled:
            key, title, what = re.match(r"^  (\w+)\s+(\S+(?: \S+)?)\s+(.*)$", line).groups()
            head = r"\fB%s\fR (\fI%s\fR)" % (esc(title), esc(key))
        else:
            key, what = line.split(None, 1)
            head = r"\fB%s\fR" % esc(key)
        text = [what]
        roff += [".TP", head, text]
    return "\n".join(x if isinstance(x, str) else esc(" ".join(x)) for x in roff)


def commands(iolens):
    roff, on = [], False
    for line in subprocess.run([iolens, "--help"], capture_output=True, text=True,
                               check=True).stdout.splitlines():
        if line == "commands:":
            on = True
            continue
        if on and not line.strip():
            break
        if on:
            name, what = line.split(None, 1)
            roff += [".TP", r"\fB%s\fR" % name, esc(what) + (
                r"; see \fBiolens\-%s\fR(8)" % name if name != "completion" else "")]
    return "\n".join(roff)


def main():
    iolens, src, version = sys.argv[1:4]
    name = os.path.basename(src)[:-len(".8.in")]
    text = open(src).read()
    if len(sys.argv) > 4:
        cmd = sys.argv[4]
        name = "iolens-" + cmd
        usage, about, more = parts(iolens, cmd)
        for key, value in (("@UNAME@", esc(cmd.upper())), ("@NAME@", esc(cmd)),
                           ("@SUMMARY@", esc(summary(iolens, cmd))),
                           ("@SYNOPSIS@", "\n.br\n".join(esc(u) for u in usage)),
                           ("@DESCRIPTION@", text_of(about)), ("@MORE@", text_of(more))):
            text = text.replace(key, value)
    if "@OPTIONS@" in text:
        text = text.replace("@OPTIONS@", options(iolens, name.split("-", 1)[1]))
    if "@FIELDS@" in text:
        text = text.replace("@FIELDS@", fields(iolens, name.split("-", 1)[1]))
    if "@COMMANDS@" in text:
        text = text.replace("@COMMANDS@", commands(iolens))
    sys.stdout.write(text.replace("@VERSION@", version))


if __name__ == "__main__":
    main()
