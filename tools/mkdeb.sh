#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The .deb of iolens from an install staged in DIR/root (make deb does it):
# DEBIAN/control with Depends from dpkg-shlibdeps, md5sums, the package in
# OUT.  Usage: tools/mkdeb.sh DIR VERSION OUT
set -eu
dir=$1 version=$2 out=$3
arch=$(dpkg --print-architecture)
root=$dir/root

# dpkg-shlibdeps reads debian/control of a source package: a minimal one.
mkdir -p "$dir/debian" "$root/DEBIAN"
printf 'Source: iolens\n\nPackage: iolens\nArchitecture: any\n' > "$dir/debian/control"
depends=$(cd "$dir" && dpkg-shlibdeps -O "root/usr/sbin/iolens" | sed -n 's/^shlibs:Depends=//p')

size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat > "$root/DEBIAN/control" <<CONTROL
Package: iolens
Version: $version
Architecture: $arch
Maintainer: iolens maintainers <iolens@localhost>
Installed-Size: $size
Depends: $depends
Section: admin
Priority: optional
Homepage: https://github.com/iolens/iolens
Description: block I/O observability on eBPF tracepoints
 One tool for what iosnoop, iostat and iotop show, more exactly and more
 cheaply: per-request latency split into queue and device time, merges,
 sizes, queue depth, page-cache hit ratios per process, read-modify-write
 and misalignment; a fio-style load generator; a Prometheus exporter
 (iolens-serve.service) and a flight recorder (iolens-record.service),
 installed disabled.
CONTROL
(cd "$root" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | xargs -0 md5sum) \
	> "$root/DEBIAN/md5sums"
# The units are shipped, not enabled: systemd is told of it, nothing more.
cat > "$root/DEBIAN/postinst" <<'POSTINST'
#!/bin/sh
set -e
if [ -d /run/systemd/system ]; then systemctl daemon-reload || true; fi
POSTINST
cat > "$root/DEBIAN/postrm" <<'POSTRM'
#!/bin/sh
set -e
if [ -d /run/systemd/system ]; then systemctl daemon-reload || true; fi
POSTRM
chmod 0755 "$root/DEBIAN/postinst" "$root/DEBIAN/postrm"
deb="$out/iolens_${version}_$arch.deb"
dpkg-deb --root-owner-group --build "$root" "$deb" >/dev/null
echo "$deb"
