# SPDX-License-Identifier: MIT
#
# tests/e2e/t/probes-remove.sh - in-process probes (--probe without PATH:),
# per configuration: probes-remove: a probe removed while the program runs
# (the control page's ipp_off bit that utrace_recorder_inproc_probe_remove sets,
# here set by the runtime's test hook UTRACE_KPROBE_TEST_OFF=KEY:N at the
# probe's Nth hit): its records stop, the others' do not, the program's
# bytes come back (a site's call, a jmp under 4 threads)

e2e_cfg probes-remove probes check_probes_remove

# remove_run NAME KEY N WANT...: record threads_dlopen with a jmp probe
# (key 0) and an entry probe (key 1) in libplugin.so, KEY turned off at
# its Nth hit; WANT: "EVENT=COUNT" (exact) or "EVENT~COUNT" (N to N+3:
# threads that passed the check while the Nth hit turned it off)
remove_run() {
	local name=$1 key=$2 hits=$3 rounds=20000 w e c got bad= mid
	shift 3
	mid=$(probe_offsets plugin_helper "$BIN/libplugin.so" | awk '$1 >= 5 { print; exit }')
	THREADS_DLOPEN_ROUNDS=$rounds UTRACE_KPROBE_DEBUG=1 UTRACE_KPROBE_TEST_OFF=$key:$hits \
		probe_run "$name" threads_dlopen --probe "p:rj plugin_helper+$mid" --probe 'f:re plugin_entry' || return
	for w in "$@"; do
		e=${w%%[=~]*}
		c=${w#*[=~]}
		c=$((c * rounds))
		[ "$c" = 0 ] && c=$hits
		got=$(grep -c " $e: " "$RES/rep.txt")
		case $w in
		*=*) [ "$got" = "$c" ] || bad="$bad $e:$got (want $c)" ;;
		*) [ "$got" -ge "$c" ] && [ "$got" -le $((c + 3)) ] || bad="$bad $e:$got (want $c..$((c + 3)))" ;;
		esac
	done
	t "$([ -z "$bad" ]; echo $?)" "$CFG $name probe key $key off at its hit $hits: its records stop there" "$bad"
	got=$(grep -h 'kprobes: [0-9]* probe locations removed' "$RES/t.err" | head -1)
	t "$([[ $got == *"kprobes: 1 probe locations removed (0 not restored), their slots free"* ]]; echo $?)" \
		"$CFG $name the program's bytes are back, no thread left in the slot" "runtime: ${got:-no notice}"
}

check_probes_remove() {
	# rounds of 4 threads: re fires 4 per round, rj (plugin_helper) 8; =0 / ~0: the N hits
	remove_run probes-remove-jmp 0 3000 rj~0 re=4
	remove_run probes-remove-site 1 3000 rj=8 re~0
}
