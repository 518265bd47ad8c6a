#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/fuzz/run.sh BUILD_DIR - the fuzz tier: builds the libFuzzer
# harnesses of tests/fuzz/fuzz_*.c (make fuzz-bins, clang with ASan and
# UBSan, into build-fuzz/), then for each harness NAME:
#   1. replays every file of tests/fuzz/regress/NAME/ once (inputs that
#      once crashed it: they must not any more);
#   2. fuzzes it for FUZZ_TIME seconds (default 10), from its corpus
#      build-fuzz/corpus/NAME/ (kept between runs, grows), the seeds made
#      here in build-fuzz/seeds/NAME/ and those checked in under
#      tests/fuzz/seeds/NAME/.
# Prints "ok - fuzz NAME (N runs)" or "not ok - ..." with the input that
# failed (kept in build-fuzz/artifacts/NAME/: replay it with
# build-fuzz/NAME FILE), and ends with "fuzz: N passed, N failed".
# Without clang's libFuzzer: "UNSUPPORTED: reason", nothing counted.
#
# The seeds come from real artefacts: tests/fuzz/target.c built with
# `BUILD_DIR/utrace cflags` (an ELF file with call sites, tracepoints and
# USDT notes), recorded with BUILD_DIR/utrace (utrace.dat files of each
# tracer, with tracepoints, samples and kernel events where the machine
# allows), and the kernel's tracepoint format files from tracefs.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
B=${1:-build}
[[ $B = /* ]] || B=$ROOT/$B
U=$B/utrace
FB=$ROOT/build-fuzz
TIME=${FUZZ_TIME:-10}
export LC_ALL=C
# leaks in system libraries are not ours to fix (tests/fuzz/lsan.supp)
export LSAN_OPTIONS=suppressions=$ROOT/tests/fuzz/lsan.supp:print_suppressions=0
passed=0 failed=0
ok() { echo "ok - $*"; passed=$((passed + 1)); }
nok() { echo "not ok - $1"; shift; for l in "$@"; do [ -n "$l" ] && printf '%s\n' "$l" | sed 's/^/#   /'; done; failed=$((failed + 1)); }
finish() { echo "fuzz: $passed passed, $failed failed"; exit $((failed > 0)); }

T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT INT TERM

# libFuzzer is clang's (libclang-rt-dev on Debian): try to link a harness.
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' >"$T/probe.c"
if ! command -v "${FUZZ_CC:-clang}" >/dev/null; then
	echo "UNSUPPORTED: ${FUZZ_CC:-clang} is not installed (scripts/install-deps.sh test)"
	finish
fi
if ! "${FUZZ_CC:-clang}" -fsanitize=fuzzer,address,undefined -o "$T/probe" "$T/probe.c" 2>/dev/null; then
	echo "UNSUPPORTED: ${FUZZ_CC:-clang} cannot link with libFuzzer (install libclang-rt-dev)"
	finish
fi
if ! make -C "$ROOT" --no-print-directory -s -j2 fuzz-bins >"$T/make.log" 2>&1; then
	nok "build the fuzz harnesses (make fuzz-bins)" "$(tail -20 "$T/make.log")"
	finish
fi

# seeds NAME: a fresh build-fuzz/seeds/NAME/
seeds() { rm -rf "$FB/seeds/$1"; mkdir -p "$FB/seeds/$1"; echo "$FB/seeds/$1"; }

# The fixture program and its recordings (nothing if BUILD_DIR has no utrace).
make_seeds() {
	local elf dat fmt up i=0 f tgt=$FB/seeds/target
	elf=$(seeds elf) dat=$(seeds dat) fmt=$(seeds event_format) up=$(seeds uprobe)
	seeds filter >/dev/null
	seeds kprobe >/dev/null
	seeds filter_prog >/dev/null
	seeds ftrace_filter >/dev/null
	# bpftrace's own scripts, where the bt tier's copy of its suite is
	cp /var/cache/utrace-bt-suite/*/tests/runtime/scripts/*.bt "$(seeds bt)/" 2>/dev/null
	# the kernel's own formats, a few of each kind of field
	for f in /sys/kernel/tracing/events/{sched/sched_switch,sched/sched_process_exec,syscalls/sys_enter_openat,irq/irq_handler_entry,kmem/kmalloc}/format; do
		[ -r "$f" ] && cp "$f" "$fmt/$(basename "$(dirname "$f")")"
	done
	[ -x "$U" ] || return 0
	if ! cc -O1 -g -I"$ROOT/include" -I"$ROOT/tests/progs" $("$U" cflags) -o "$tgt" \
		"$ROOT/tests/fuzz/target.c" 2>"$T/cc.err"; then
		echo "# fuzz: no seeds from tests/fuzz/target.c: $(head -1 "$T/cc.err")"
		return 0
	fi
	cp "$tgt" "$elf/target"
	# fuzz_btfarg parses against it: arguments by name from its DWARF
	export UTRACE_FUZZ_TARGET=$tgt
	seeds btfarg >/dev/null
	cp "$ROOT"/tests/fuzz/seeds/kprobe/* "$FB/seeds/btfarg/"
	for d in "f:e node_len p->next->name:string len=p->len t=p->tag:string p->bits depth" \
		"f node_len \$arg* \$arg1" "f node_len%return \$retval p->next->len" \
		"p node_len p->name:ustring \$arg2:x8" "t tp_value \$arg*" "f walk n nosuch" \
		"f node_len p-.len p.len p->len->x"; do
		printf '%s' "$d" >"$FB/seeds/btfarg/name$((i++))"
	done
	strip -o "$elf/target.stripped" "$tgt" 2>/dev/null
	# without the flags: the entry-patching plan's input (func_patch.h)
	cc -O2 -I"$ROOT/include" -I"$ROOT/tests/progs" -o "$elf/target.bare" \
		"$ROOT/tests/fuzz/target.c" 2>/dev/null &&
		strip -o "$elf/target.bare.stripped" "$elf/target.bare" 2>/dev/null
	# definitions on the fixture: its path is in them, so they are made here
	for d in "p $tgt:leaf i=%di:s32" "r:fuzz/ret $tgt:walk \$retval:s64 \$comm" \
		"p:g/e $tgt:walk+4 \$arg1 +0(%sp):u64[2] @sink:s32 s=\\\"x\\\":string" \
		"p $tgt:0x1000(0x40) a=+8(+0(%bp)):b3@2/8 b=\$stack2:x16" \
		"p $tgt:main%return" "p:leaf $tgt:leaf @+0x10:ustring %ax:symbol" \
		"p:d/n $tgt:walk n x=n:x32 sum" "p $tgt:target.c:36 i"; do
		printf '%s' "$d" >"$up/def$((i++))"
	done
	(
		cd "$T" || exit
		"$U" record -o "$dat/graph.dat" -e all -- "$tgt"
		"$U" record -o "$dat/args.dat" -O funcgraph-args -O funcgraph-retval -- "$tgt"
		"$U" record -o "$dat/function.dat" -p function -l 'leaf' -e tp:tp_value -f 'id > 0' -- "$tgt"
		"$U" record -o "$dat/nop.dat" -p nop -e tp -- "$tgt"
		"$U" record -o "$dat/samples.dat" -p nop -F 20000 --call-graph fp -- "$tgt"
		"$U" record -o "$dat/samples-dwarf.dat" -p nop -F 20000 --call-graph dwarf,256 -- "$tgt"
		"$U" record -o "$dat/kernel.dat" -e sched:sched_process_exit -e tp -- "$tgt"
		"$U" record -o "$dat/usdt.dat" -e usdt:fuzz:leaf -- "$tgt"
		"$U" record -o "$dat/hist.dat" -p nop -e tp:tp_value -R 'hist:keys=id,name:vals=hitcount' \
			-e tp:tp_end -R 'hist:keys=a.log2:sort=a' -- "$tgt"
		"$U" record -o "$dat/hist-track.dat" -p nop \
			-e tp:tp_value -R 'hist:keys=id:v=id:onmax($v).save(id,name):onchange($v).snapshot()' \
			-- "$tgt"
		"$U" record -o "$dat/snap.dat" --overwrite -e tp:tp_value -R 'stacktrace:3' \
			-R 'snapshot:2 if id > 1' -- "$tgt"
		"$U" record -o "$dat/stack.dat" -p nop -e tp -R 'stacktrace' -- "$tgt"
		# the kernel's own stacks (kernel_stack entries, KSYMS) and a
		# kernel event's snapshot (KPAGEs of a snapshot)
		"$U" record -o "$dat/kstack.dat" -p nop --overwrite -e tp \
			-e sched:sched_process_exit -R 'stacktrace' -R 'snapshot:1' -- "$tgt"
	) >/dev/null 2>&1
	return 0
}
make_seeds

for bin in "$FB"/fuzz_*; do
	[ -x "$bin" ] || continue
	name=${bin##*/fuzz_}
	corpus=$FB/corpus/$name art=$FB/artifacts/$name/ log=$T/$name.log
	mkdir -p "$corpus" "$art"
	# 1. the regression inputs, each run once
	reg=("$ROOT/tests/fuzz/regress/$name"/*)
	if [ -e "${reg[0]}" ]; then
		if "$bin" -runs=1 "${reg[@]}" >"$log" 2>&1; then
			ok "fuzz $name regressions (${#reg[@]} inputs)"
		else
			nok "fuzz $name regressions: $(grep -o "Running: .*" "$log" | tail -1)" \
				"$(grep -E '^(SUMMARY|==[0-9]+==ERROR)|runtime error' "$log" | head -3)"
		fi
	fi
	# 2. fuzzing, FUZZ_TIME seconds; a slow input (10 s) is a failure too
	# (libFuzzer stops at a folder that does not exist: a harness without
	# made seeds, such as trigger, gets only its checked-in ones)
	dirs=("$corpus")
	[ -d "$FB/seeds/$name" ] && dirs+=("$FB/seeds/$name")
	[ -d "$ROOT/tests/fuzz/seeds/$name" ] && dirs+=("$ROOT/tests/fuzz/seeds/$name")
	"$bin" -max_total_time="$TIME" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
		-print_final_stats=1 -artifact_prefix="$art" "${dirs[@]}" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log" | tail -1)
	if [ "$rc" -eq 0 ] && [ -n "$runs" ]; then
		ok "fuzz $name ($runs runs)"
	else
		nok "fuzz $name (status $rc): $(sed -n 's/.*Test unit written to //p' "$log" | tail -1)" \
			"$(grep -E '^(SUMMARY|==[0-9]+==ERROR)|runtime error|ERROR: libFuzzer' "$log" | head -3)"
	fi
done
finish
