#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench/bt_kstr.sh [BUILD_DIR]   (BUILD_DIR defaults to build)
#
# A kernel tracepoint whose action reads the string a pointer field points
# to, `utrace bt` against bpftrace in the same run: a program that opens
# /dev/null N times (an openat each), under
#
#   tracepoint:syscalls:sys_enter_openat /comm == "kstr_flood"/ { @[str(args->filename)] = count(); }
#
# The string is read at the event in the kernel by both (bpftrace's BPF
# program; utrace bt's BPF capture, lib/kernel/kernel_kcap.c), then
# counted: by bpftrace in its BPF map, by utrace bt in the tool from the
# tracefs record it replays.  Printed per tool: the program's wall time and
# its CPU (user + system: what the hits cost it, the BPF program included),
# the tool's own CPU, and the count, which must be the same for both (a
# lost hit is a wrong answer, not a slowdown).  Ratios: bpftrace's over
# utrace bt's.
#
# Knobs: KSTR_N (200000), KSTR_RUNS (3, interleaved; the median).  Needs
# root and bpftrace; a missing one is skipped with a line that says so.
# Timings are never pass/fail.
. "$(dirname "$0")/lib.sh"
N=${KSTR_N:-200000}
RUNS=${KSTR_RUNS:-3}
bench_tmp

[ "$(id -u)" = 0 ] || die "needs root (kernel tracepoints, BPF)"
cat >"$OUT/kstr_flood.c" <<'EOF'
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;

	for (int i = 0; i < n; i++)
		close(open("/dev/null", O_RDONLY));
	return 0;
}
EOF
"$CC" -O2 -o "$OUT/kstr_flood" "$OUT/kstr_flood.c" || die "cannot build the program"
# (-c splits its command at blanks, and bpftrace's runs an ELF file only)
CMD="/usr/bin/time -f %U,%S -o $OUT/prog.time $OUT/kstr_flood $N"
PROG='tracepoint:syscalls:sys_enter_openat /comm == "kstr_flood"/ { @[str(args->filename)] = count(); }'

# run TOOL: "wall prog_cpu tool_cpu count" of one run
run() {
	local t0 t1 prog_cpu tool_cpu
	t0=$(date +%s%N)
	case $1 in
	bpftrace) /usr/bin/time -f '%U %S' -o "$OUT/tool.time" bpftrace -e "$PROG" \
		-c "$CMD" >"$OUT/out" 2>&1 ;;
	bt) /usr/bin/time -f '%U %S' -o "$OUT/tool.time" "$U" bt -e "$PROG" \
		-c "$CMD" >"$OUT/out" 2>&1 ;;
	esac
	t1=$(date +%s%N)
	grep -v '^@\|^$\|^Attaching' "$OUT/out" | sed "s/^/$1: /" >&2 # what a tool said (a loss)
	prog_cpu=$(awk -F, '{ print $1 + $2 }' "$OUT/prog.time")
	tool_cpu=$(awk -v p="$prog_cpu" '{ print $1 + $2 - p }' "$OUT/tool.time")
	echo "$(((t1 - t0) / 1000000)) $prog_cpu $tool_cpu" \
		"$(sed -n 's|^@\[/dev/null\]: \([0-9]*\)$|\1|p' "$OUT/out")"
}

tools=(bt)
command -v bpftrace >/dev/null && tools+=(bpftrace) || echo "bt_kstr.sh: no bpftrace: its runs are skipped"
for r in $(seq "$RUNS"); do
	for t in "${tools[@]}"; do
		run "$t" >>"$OUT/$t.runs"
	done
done
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
printf '%-9s %10s %12s %12s %9s\n' tool "wall ms" "prog CPU s" "tool CPU s" count
for t in "${tools[@]}"; do
	for c in 1 2 3; do eval "m$c=\$(cut -d' ' -f$c $OUT/$t.runs | median)"; done
	counts=$(cut -d' ' -f4 "$OUT/$t.runs" | sort -u | tr '\n' ' ')
	printf '%-9s %10s %12s %12s %9s\n' "$t" "$m1" "$m2" "$m3" "$counts"
	eval "W_$t=$m1 P_$t=$m2 T_$t=$m3 C_$t='$counts'"
done
# (N - 1 for both: the first open reads its string constant from a page
# the program has not touched yet, which BPF cannot fault in: "")
[ ${#tools[@]} = 1 ] || [ "$C_bt" = "$C_bpftrace" ] ||
	echo "counts differ: utrace bt $C_bt, bpftrace $C_bpftrace: a wrong answer"
if [ ${#tools[@]} = 2 ]; then
	awk -v wb="$W_bpftrace" -v wu="$W_bt" -v pb="$P_bpftrace" -v pu="$P_bt" -v tb="$T_bpftrace" -v tu="$T_bt" \
		'BEGIN { printf "bpftrace / utrace bt: wall %.2fx, program CPU %.2fx, tool CPU %.2fx\n",
			wb / wu, pb / (pu ? pu : 0.001), tb / (tu ? tu : 0.001) }'
fi

# the machine this ran on, for reading the figures elsewhere
bench_floors
