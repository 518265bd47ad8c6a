# SPDX-License-Identifier: MIT
#
# tests/kernel/lib.sh - the start every tests/kernel/*.sh shares (run.sh
# does not run it).  A script sources it first, its arguments unchanged:
#
#   . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
#
# and gets ROOT (the source tree), B (BUILD_DIR, $1, default build, made
# absolute), U ($B/utrace), LC_ALL=C, and:
#   ok WHAT, notok WHAT     print "ok - WHAT" / "not ok - WHAT"
#   check WHAT COMMAND...   ok or notok as COMMAND succeeds
#   unsupported WHY         print "UNSUPPORTED: WHY" and exit 0 (a skip)
#   need_built FILE...      notok and exit 1 unless every FILE exists
#   need_root WHY           unsupported WHY unless run as root
#   find_tracefs            TR = where tracefs is mounted, mounting it on
#                           /sys/kernel/tracing if it is not; "" if neither
#   near WANT GOT [P]       GOT (a %) is within P points of WANT (default 3);
#                           not for a share of samples (near_share)
#   near_share WANT GOT N [K]
#                           GOT (a %) is a share of N samples whose true
#                           value is WANT: within K (default 4.5) binomial
#                           standard deviations, 100 * sqrt(p(1-p)/N), plus
#                           the report's rounding.  A statistic, so its
#                           margin comes from the sample count, never a
#                           fixed window that a busy machine may exceed
#   share_margin WANT N [K] that margin in points, for a check's name
#   samples_of FILE         N of report --samples' "# Samples: N" line
#   samples_n FILE [HZ]     the exact sample count of report --samples' first
#                           event ("# Samples: 1K" is rounded: then its
#                           event count over cpu-clock's period at HZ,
#                           default 999)
#   need_fuse               unsupported unless a FUSE tracefs can be mounted
#   live_tmp                T = a fresh folder with T/mnt, RP = "" (the
#                           recorder's pid, to set); on exit the recorder
#                           is killed, the mount detached, T removed
#   until_ok N COMMAND...   COMMAND succeeds within N tenths of a second
#                           (COMMAND is run again, but its words were
#                           expanded once, by the caller: a "$(cat F)"
#                           in them is read once; a value to read again
#                           goes in a function, as reads_as)
#   reads_as FILE TEXT      FILE reads TEXT now (until_ok 100 reads_as ...)
#   trace_shows FILE PAT [N]  in a live tracefs (the current folder), trace
#                           shows PAT within N reads 0.1 s apart (50: 5 s
#                           and the reads' time); FILE keeps the last read
#   errlog_is LOC TEXT CMD POS  error_log's last entry is the kernel's
#                           "LOC: error: TEXT", "  Command: CMD" and a
#                           caret under column POS of CMD
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
B=${1:-build}
[[ $B = /* ]] || B=$ROOT/$B
U=$B/utrace
export LC_ALL=C

ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; }
check() { # check DESCRIPTION COMMAND...
	local d=$1
	shift
	if "$@"; then ok "$d"; else notok "$d"; return 1; fi
}
near() { # near WANT GOT [POINTS]
	awk -v w="$1" -v g="$2" -v t="${3:-3}" 'BEGIN { exit !(g != "" && g - w <= t && w - g <= t) }'
}
share_margin() { # share_margin WANT N [K]
	awk -v w="$1" -v n="$2" -v k="${3:-4.5}" \
		'BEGIN { p = w / 100; printf "%.2f", (n > 0 ? 100 * k * sqrt(p * (1 - p) / n) + 0.01 : 100) }'
}
near_share() { # near_share WANT GOT N [K]
	local m
	m=$(share_margin "$1" "$3" "${4:-4.5}")
	awk -v w="$1" -v g="$2" -v m="$m" 'BEGIN { exit !(g != "" && g - w <= m && w - g <= m) }'
}
samples_n() { # samples_n FILE [HZ]
	awk -v hz="${2:-999}" '/^# Samples: [0-9]+ / && !n { n = $3; next }
		/^# Samples: / && !n { r = 1; next }
		/^# Event count/ && r && !n { n = int($NF * hz / 1e9 + 0.5) }
		END { print n + 0 }' "$1"
}
samples_of() { # samples_of FILE: the N of report --samples' "# Samples: N"
	awk '/^# Samples: [0-9]/ { print $3; exit }' "$1"
}
need_fuse() {
	[ -c /dev/fuse ] || unsupported "no /dev/fuse"
	command -v fusermount3 >/dev/null || [ "$(id -u)" -eq 0 ] || unsupported "no fusermount3"
}
live_cleanup() {
	touch "$T/stop"
	[ -n "$RP" ] && kill -9 "$RP" 2>/dev/null
	grep -q " $T/mnt fuse.utrace " /proc/mounts && umount -l "$T/mnt" 2>/dev/null
	rm -rf "$T"
}
live_tmp() {
	T=$(mktemp -d) || exit 1
	RP=
	trap live_cleanup EXIT
	mkdir "$T/mnt"
}
until_ok() {
	local n=$1
	shift
	for _ in $(seq "$n"); do "$@" && return 0; sleep 0.1; done
	return 1
}
reads_as() { test "$(cat "$1")" = "$2"; }
trace_shows() {
	for _ in $(seq "${3:-50}"); do
		timeout 10 cat trace >"$1" # each read bounded too
		grep -q "$2" "$1" && return 0
		sleep 0.1
	done
	return 1
}
errlog_is() {
	local want
	want=$(printf '%s: error: %s\n  Command: %s\n%*s^' "$1" "$2" "$3" $((11 + $4)) '')
	test "$(tail -n 3 error_log | sed 's/^\[ *[0-9.]*\] //')" = "$want"
}
unsupported() {
	echo "UNSUPPORTED: $*"
	exit 0
}
need_built() {
	local f
	for f; do
		if [ ! -f "$f" ]; then
			notok "$f is not built"
			exit 1
		fi
	done
}
need_root() {
	[ "$(id -u)" -eq 0 ] || unsupported "$@"
}
find_tracefs() {
	TR=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
	if [ -z "$TR" ] && mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; then
		TR=/sys/kernel/tracing
	fi
}

# need_uprobe_events: root and a writable tracefs uprobe_events (sets TR)
need_uprobe_events() {
	need_root "uprobe_events needs root"
	find_tracefs
	if [ -z "$TR" ] || [ ! -w "$TR/uprobe_events" ]; then
		unsupported "no tracefs uprobe_events (kernel without CONFIG_UPROBE_EVENTS?)"
	fi
}
