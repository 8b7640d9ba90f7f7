#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The job files of fio's own examples/ folder, from the source package of
# the fio that tools/install-deps.sh installs (Debian's), into DIR:
#   tools/fetch-fio-examples.sh DIR
# test_load_fio_examples.py runs each of them under fio and iolens load.
# The source is fetched with apt's own sources turned into deb-src ones in
# a private state folder: the machine's apt configuration is left alone.
set -eu

dir=${1:?usage: $0 DIR}
version=$(dpkg-query -W -f='${Version}' fio)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/parts" "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/src"
for f in /etc/apt/sources.list.d/*.sources; do
	[ -e "$f" ] || continue
	sed 's/^Types:.*\bdeb\b.*/Types: deb-src/' "$f" > "$tmp/parts/$(basename "$f")"
done
if [ -f /etc/apt/sources.list ]; then
	sed -n 's/^deb /deb-src /p' /etc/apt/sources.list > "$tmp/parts/list.list"
fi
apt="apt-get -qq -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=$tmp/parts
     -o Dir::State::Lists=$tmp/lists -o Dir::Cache=$tmp/cache
     -o APT::Sandbox::User=root"
$apt update
(cd "$tmp/src" && $apt source --download-only "fio=$version")
mkdir -p "$dir"
tar -xzf "$tmp"/src/fio_*.orig.tar.gz -C "$tmp/src" --wildcards '*/examples/*.fio'
cp "$tmp"/src/fio-*/examples/*.fio "$dir"/
echo "$version" > "$dir/VERSION"
