# SPDX-License-Identifier: MIT
#
# tests/e2e/t/probes-sweep.sh - in-process probes (--probe without PATH:),
# per configuration: probes-sweep: a probe on every instruction of
# straight(), callee() and add(): output unchanged, each fires once per
# call; probes-sweep-jmp: one every 5+ bytes (each can be a jmp)

e2e_cfg probes-sweep probes check_probes_sweep
e2e_cfg probes-sweep-jmp probes check_probes_sweep probes-sweep-jmp 1

# sweep NAME SPACED: a probe on every instruction (SPACED=0: each is an
# int3, the next instruction being probed too) or on every instruction at
# least 5 bytes after the last probed one (SPACED=1: each can be a jmp to
# a detour, where the function allows it)
check_probes_sweep() {
	local name=${1:-probes-sweep} spaced=${2:-0} args=() f o n bad calls
	for f in straight callee add; do
		for o in $(probe_offsets "$f" "$BIN/probes" |
			awk -v s="$spaced" 's == 0 || NR == 1 || $1 >= last + 5 { print; last = $1 }'); do
			args+=(--probe "p:sw_${f}_$o $f+$o")
		done
	done
	n=${#args[@]}
	probe_run "$name" probes "${args[@]}" || return
	bad=$(grep -o ' sw_[a-z]*_[0-9]*: ' "$RES/rep.txt" | sort | uniq -c |
		awk '$1 != 3 { print $2 " fired " $1 " times" }')
	calls=$(grep -o ' sw_[a-z]*_[0-9]*: ' "$RES/rep.txt" | sort -u | wc -l)
	t "$([ -z "$bad" ] && [ "$calls" = $((n / 2)) ]; echo $?)" \
		"$CFG $name a probe on each of $((n / 2)) instructions fires once per call" \
		"$bad" "$calls of $((n / 2)) probes fired" "$(grep -v 'records' "$RES/t.err" | head -3)"
}
