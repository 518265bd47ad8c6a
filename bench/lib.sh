# SPDX-License-Identifier: MIT
#
# bench/lib.sh - the start the benchmark scripts share.  A script sources
# it first, its arguments unchanged:
#
#   . "$(dirname "$0")/lib.sh"
#
# and gets set -u, ROOT (the source tree), BUILD ($1, default build, made
# absolute), U ($BUILD/utrace, checked to exist), CC (default gcc), and:
#   die WHAT            print "NAME.sh: WHAT" on stderr and exit 1
#   bench_tmp           OUT = a fresh folder under /tmp, removed on exit
#   bench_floors        print the machine's floors, measured now (bench/floors.sh:
#                       rdtsc, record writes, atomics), beside the results
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${1:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
U=$BUILD/utrace
CC=${CC:-gcc}
die() {
	echo "$(basename "$0"): $*" >&2
	exit 1
}
bench_tmp() {
	OUT=$(mktemp -d "/tmp/utrace-$(basename "$0" .sh)-bench.XXXXXX") || exit 1
	trap 'rm -rf "$OUT"' EXIT
}
bench_floors() {
	bash "$ROOT/bench/floors.sh" || echo "floors: not measured"
}
[ -x "$U" ] || die "$U not found: run make first"
