#!/bin/bash
# Installs what building, testing and benchmarking utrace need, on Debian 12,
# only if something is missing (so it is cheap to run before every build).
# Usage: scripts/install-deps.sh [build|test|bench]   (default: test)
set -euo pipefail

need=(make gcc g++ clang binutils libc6-dev libtraceevent-dev libbpf-dev libdw-dev libzydis-dev zlib1g-dev libfuse3-dev fuse3 go-md2man)
case "${1:-test}" in
build) ;;
test) need+=(gawk trace-cmd libc6-dbg systemtap-sdt-dev libclang-rt-dev protobuf-compiler golang-go chromium imagemagick libxml2-utils pkg-config man-db libc++-dev libc++abi-dev default-jre-headless nodejs rustc gpg gpg-agent gpgconf linux-source-6.12 iputils-ping linux-perf libkshark-dev libjson-c-dev libtracecmd-dev libtracefs-dev dpkg-dev python-is-python3 libasan8 strace) ;;
bench) need+=(gawk trace-cmd uftrace hyperfine lttng-tools liblttng-ust-dev bpftrace) ;;
*) echo "install-deps.sh: unknown set '$1' (build, test or bench)" >&2; exit 2 ;;
esac

# speedscope (tests/ui/speedscope.sh reads the folded and Chrome outputs
# with it) is on npm only; installed where npm is, else that check skips
npm_deps() {
	[ "${1:-test}" = test ] && command -v npm >/dev/null || return 0
	[ -f "$(npm root -g 2>/dev/null)/speedscope/dist/release/index.html" ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "install-deps.sh: speedscope is missing; run as root or npm install -g speedscope" >&2
		return 0
	fi
	echo "install-deps.sh: installing speedscope (npm)" >&2
	npm install -g -q speedscope >/dev/null 2>&1 ||
		echo "install-deps.sh: npm install -g speedscope failed; its ui check will skip" >&2
}

# bpftrace 0.17's runtime suite (tests/bt/run.sh) comes from its Debian
# source package, `apt-get source bpftrace`: that needs a deb-src entry,
# added here (the one of the archive the binaries come from) if none is
src_deps() {
	[ "${1:-test}" = test ] || return 0
	grep -rqs '^Types:.*deb-src\|^deb-src ' /etc/apt/sources.list /etc/apt/sources.list.d/ && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "install-deps.sh: no deb-src entry for apt-get source bpftrace; run as root" >&2
		return 0
	fi
	echo "install-deps.sh: adding deb-src for bookworm (tests/bt/run.sh: apt-get source bpftrace)" >&2
	printf '%s\n' 'Types: deb-src' 'URIs: http://deb.debian.org/debian' 'Suites: bookworm' \
		'Components: main' 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' \
		>/etc/apt/sources.list.d/utrace-deb-src.sources
	apt-get update -q >/dev/null
}

missing=()
for p in "${need[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	npm_deps "${1:-test}"
	src_deps "${1:-test}"
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps.sh: missing packages: ${missing[*]}; run as root or install them" >&2
	exit 1
fi
echo "install-deps.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
npm_deps "${1:-test}"
src_deps "${1:-test}"
