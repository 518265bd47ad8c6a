# SPDX-License-Identifier: MIT
#
# tests/e2e/t/probes-sweep-mt.sh - in-process probes (--probe without
# PATH:), per configuration: probes-sweep- mt: probes every 5+ bytes of
# plugin_entry and plugin_helper, installed while threads_dlopen has five
# threads, four of them calling both at once: output unchanged, exact
# counts, and the int3s became jmps under the running threads
# (runtime/inproc_probe_opt.c); probes-sweep-mt- all: a probe on every instruction
# (int3s, each next to another: none can be a jmp)

e2e_cfg probes-sweep-mt probes check_probes_sweep_mt
e2e_cfg probes-sweep-mt-all probes check_probes_sweep_mt probes-sweep-mt-all 0

# The spaced sweep of check_probes_sweep on libplugin.so, in a process
# that has its threads when the library comes (threads_dlopen.c):
# UTRACE_KPROBE_DEBUG=1 makes the runtime say how many int3s became jmps
# while the threads ran, and how many it had to keep.
check_probes_sweep_mt() {
	local name=${1:-probes-sweep-mt} spaced=${2:-1} f o args=() n bad rounds threads want_e line jmps kept
	for f in plugin_entry plugin_helper; do
		for o in $(probe_offsets "$f" "$BIN/libplugin.so" |
			awk -v s="$spaced" 's == 0 || NR == 1 || $1 >= last + 5 { print; last = $1 }'); do
			args+=(--probe "p:mt_${f}_$o $f+$o")
		done
	done
	n=$((${#args[@]} / 2))
	UTRACE_KPROBE_DEBUG=1 probe_run "$name" threads_dlopen "${args[@]}" || return
	rounds=$(sed -n 's/^#define ROUNDS \([0-9]*\)/\1/p' "$PROGS/threads_dlopen.c")
	threads=$(grep -c '^thread [0-9]*:' "$RES/u.out")
	want_e=$((rounds * threads))
	bad=$(grep -o ' mt_[a-z_]*_[0-9]*: ' "$RES/rep.txt" | sort | uniq -c | awk -v e="$want_e" '
		{ w = $2 ~ /^mt_plugin_entry_/ ? e : 2 * e; if ($1 != w) print $2 " fired " $1 " times, not " w }')
	[ "$(grep -o ' mt_[a-z_]*_[0-9]*: ' "$RES/rep.txt" | sort -u | wc -l)" = "$n" ] ||
		bad="$bad; $(grep -o ' mt_[a-z_]*_[0-9]*: ' "$RES/rep.txt" | sort -u | wc -l) of $n probes fired"
	t "$([ -z "$bad" ] && [ "$want_e" -gt 0 ]; echo $?)" \
		"$CFG $name $n probes, $threads threads: each fires once per call" "$bad"
	[ "$spaced" = 1 ] || return
	line=$(grep 'kprobes: [0-9]* jump-optimised with threads running' "$RES/t.err" | tail -1)
	jmps=$(echo "$line" | sed -n 's/.*kprobes: \([0-9]*\) jump-optimised.*/\1/p')
	kept=$(echo "$line" | sed -n 's/.*, \([0-9]*\) kept as int3.*/\1/p')
	t "$([ "${jmps:-0}" -gt 0 ] && [ "$kept" = 0 ]; echo $?)" \
		"$CFG probes-sweep-mt int3s became jmps while the threads ran" "runtime: ${line:-no notice}"
}
