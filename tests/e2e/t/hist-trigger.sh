# SPDX-License-Identifier: MIT
#
# tests/e2e/t/hist-trigger.sh - the trigger commands of the kernel's
# events.rst, once (test name "trigger"): traceoff, enable_event,
# disable_event, enable_hist/disable_hist, hist:pause, name=, a bad filter

e2e_once trigger tool trigger_checks

trigger_checks() {
	local d=$OUT/trigger hprog=$OUT/${CONFIGS%% *}/bin/hist
	rm -rf "$d"
	mkdir -p "$d"
	[ -x "$hprog" ] && trigger_commands "$d" "$hprog" "$(dirname "$hprog")/tracepoints"
}

# The trigger commands of events.rst on hist.c (id k fires 10 * (k + 1)
# times, ids in order) and tracepoints.c (tp_value id 0..4, then tp_end):
# what each leaves in the recording follows from those counts.
trigger_commands() { # DIR HIST_PROG TRACEPOINTS_PROG
	local d=$1 hp=$2 tp=$3 n
	trig_run() { # NAME PROG ARGS...: record, then the report's and hist's text
		local name=$1 prog=$2
		shift 2
		"$UTRACE" record -o "$d/$name.dat" "$@" -- "$prog" >/dev/null 2>"$d/$name.err" </dev/null
		"$UTRACE" report -i "$d/$name.dat" >"$d/$name.rep" 2>/dev/null
		"$UTRACE" report --hist -i "$d/$name.dat" >"$d/$name.hist" 2>/dev/null
	}
	trig_run off "$hp" -e hist:hist_req -R 'traceoff:1 if id == 3'
	n=$(grep -c 'hist_req:' "$d/off.rep")
	t "$([ "$n" = 60 ]; echo $?)" "trigger traceoff if id == 3: ids 0-2 recorded, 60 events, none after" \
		"$n events: $(cat "$d/off.err")"
	trig_run en "$tp" -e tp:tp_value -R 'enable_event:tp:tp_end if id == 4'
	t "$(grep -c 'tp_end: a=5 b=20' "$d/en.rep" | grep -qx 1 && ! grep -q tp_begin "$d/en.rep"; echo $?)" \
		"trigger enable_event: the target (named by no -e) recorded once enabled, tp_begin never" \
		"$(grep 'tp_' "$d/en.rep" | head -8)"
	trig_run dis "$hp" -e hist:hist_req -R 'disable_event:hist:hist_req:1 if id == 1' \
		-R 'enable_event:hist:hist_req:1 if id == 4'
	n=$(grep -c 'hist_req:' "$d/dis.rep")
	t "$([ "$n" = 270 ]; echo $?)" "trigger disable_event:1 at id 1, enable_event:1 at id 4: 10 + 260 events" \
		"$n events: $(cat "$d/dis.err")"
	trig_run hoff "$hp" -v -e hist:hist_req -R 'hist:keys=id' -R 'disable_hist:hist:hist_req if id == 3'
	t "$(grep -q '^{ id:          2 } hitcount:         30$' "$d/hoff.hist" &&
		! grep -q '^{ id:          3 }' "$d/hoff.hist" && grep -q 'size=2048 \[paused\]$' "$d/hoff.hist"
		echo $?)" "trigger disable_hist at id 3: ids 0-2 counted, the hist [paused]" "$(cat "$d/hoff.hist")"
	trig_run hon "$hp" -v -e hist:hist_req -R 'hist:keys=id:pause' -R 'enable_hist:hist:hist_req if id == 6'
	t "$(grep -q '^    Hits: 150$' "$d/hon.hist" && grep -q '^{ id:          6 } hitcount:         70$' "$d/hon.hist"
		echo $?)" "trigger hist:pause then enable_hist at id 6: ids 6 and 7 counted" "$(cat "$d/hon.hist")"
	# name=: tp_begin and tp_end (a = 5 each) add to one table, which both show
	trig_run named "$tp" -p nop -e tp:tp_begin -R 'hist:name=pairs:keys=a' \
		-e tp:tp_end -R 'hist:name=pairs:keys=a'
	t "$([ "$(grep -c '^{ a:          5 } hitcount:          2$' "$d/named.hist")" = 2 ] &&
		[ "$(grep -c 'trigger info: hist:name=pairs:keys=a:' "$d/named.hist")" = 2 ]; echo $?)" \
		"trigger name=: two events share one table, each shows it" "$(cat "$d/named.hist")"
	"$UTRACE" record -o "$d/bad.dat" -e hist:hist_req -R 'traceoff if nosuch == 1' -- "$hp" \
		>"$d/bad.out" 2>"$d/bad.err" </dev/null
	t "$([ $? = 2 ] && [ ! -s "$d/bad.out" ] && grep -q 'Field not found' "$d/bad.err" &&
		grep -qx '              ^' "$d/bad.err"; echo $?)" \
		"trigger with a bad filter: the filter's error and caret, nothing ran" "$(cat "$d/bad.err")"
}
