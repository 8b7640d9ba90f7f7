#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages iolens needs for a purpose, only if missing.
# Idempotent: when everything is present it changes nothing and prints nothing.
#   tools/install-deps.sh build   compile iolens
#   tools/install-deps.sh test    build + run the unit and system tests
#   tools/install-deps.sh bench   test + the peers the benchmarks compare with
#   tools/install-deps.sh deb     build + what makes a Debian package
set -eu

build="clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev libncurses-dev liburing-dev libaio-dev libblkid-dev libmicrohttpd-dev libmd-dev libxxhash-dev pkg-config make gcc"
# The kernel matrix boots Debian's own kernels under qemu (virtme-ng, from
# PyPI into build/venv by the Makefile); report's page is looked at by a
# real browser (headless chromium).
deb="$build dpkg-dev"
test="$deb man-db zsh fish libclang-rt-dev libcmocka-dev python3 python3-pytest python3-venv util-linux fio sysstat time tmux e2fsprogs fdisk fuse3 libfuse3-dev prometheus qemu-system-x86 kmod busybox-static chromium"
bench="$test libbpf-tools iotop iotop-c"

case "${1:-build}" in
build) want=$build ;;
test) want=$test ;;
bench) want=$bench ;;
deb) want=$deb ;;
*) echo "usage: $0 build|test|bench|deb" >&2; exit 2 ;;
esac

missing=
for p in $want; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "iolens: missing packages:$missing; run as root or: apt-get install$missing" >&2
	exit 1
fi
echo "iolens: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
