# SPDX-License-Identifier: MIT
#
# tests/e2e/t/hist-synth.sh - synthetic events, once (test name "synth"):
# list -e --synthetic, the kernel's latency recipe (onmatch() into a
# synthetic event, kept in a hist or recorded by trace()), the kernel's
# errors

e2e_once synth tool synth_checks

synth_checks() {
	local d=$OUT/synth sp=$OUT/${CONFIGS%% *}/bin/synth
	rm -rf "$d"
	mkdir -p "$d"
	[ -x "$sp" ] && synth_commands "$d" "$sp"
}

# The kernel's latency recipe on synth.c: requests 1..3 begin, take id * 2
# ms and end; request 9 ends without a begin, 4 begins without an end.  The
# synthetic req_lat gets one entry per id 1..3 with lat >= id * 2000 us,
# none for 9 or 4, and the records it writes, when recorded, say the same.
synth_commands() { # DIR SYNTH_PROG
	local d=$1 sp=$2 st bad
	# utrace list -e lists a definition's event with the program's, and
	# -F its format, the kernel's for a synthetic event
	"$UTRACE" list -e "$sp" -F --synthetic 'req_lat u64 lat; int id' 'synthetic:*' \
		>"$d/list.txt" 2>&1
	t "$(grep -qx 'name: req_lat' "$d/list.txt" &&
		grep -qxF '	field:u64 lat;	offset:8;	size:8;	signed:0;' "$d/list.txt" &&
		grep -qxF 'print fmt: "lat=%llu id=%d", REC->lat, REC->id' "$d/list.txt" &&
		"$UTRACE" list -e "$sp" --synthetic 'req_lat u64 lat; int id' | grep -qx 'synthetic:req_lat'
		echo $?)" "list -e --synthetic: synthetic:req_lat and its format" "$(cat "$d/list.txt")"
	local begin='hist:keys=id:ts0=common_timestamp.usecs'
	local end='hist:keys=id:lat=common_timestamp.usecs-$ts0:onmatch(app.req_begin)'
	"$UTRACE" record -o "$d/syn.dat" --synthetic 'req_lat u64 lat; int id' \
		-v -e app:req_begin -R "$begin" -v -e app:req_end -R "$end.req_lat(\$lat,id)" \
		-v -e synthetic:req_lat -R 'hist:keys=id,lat:sort=id,lat' -- "$sp" \
		>/dev/null 2>"$d/syn.err" </dev/null
	"$UTRACE" report --hist -i "$d/syn.dat" >"$d/syn.hist" 2>&1
	bad=$(awk '/^# event histogram$/ { h++ } h == 1 && /^\{ id: / {
			gsub(/[{},:]/, " "); n++
			if ($2 != n || $4 < 2000 * n || $4 > 2000 * n + 50000 || $6 != 1) print "entry " $0
		} h == 1 && /Hits:/ && $2 != 3 { print "hits " $2 }
		END { if (n != 3) print n " entries" }' "$d/syn.hist")
	t "$([ -z "$bad" ] && grep -q 'trigger info: hist:keys=id,lat:vals=hitcount:sort=id,lat:' \
		"$d/syn.hist"; echo $?)" \
		"synthetic req_lat from onmatch(): lat per id 1..3 >= id * 2 ms, the unmatched ones never" \
		"$bad" "$(head -20 "$d/syn.hist")" "$(cat "$d/syn.err")"
	"$UTRACE" record -o "$d/synr.dat" -p nop --synthetic 'req_lat u64 lat; int id' \
		-e synthetic:req_lat -v -e app:req_begin -R "$begin" \
		-v -e app:req_end -R "$end.trace(req_lat,\$lat,id)" -- "$sp" >/dev/null 2>"$d/synr.err" </dev/null
	"$UTRACE" report -i "$d/synr.dat" >"$d/synr.rep" 2>&1
	t "$([ "$(grep -c ' req_lat: lat=[0-9]* id=[123]$' "$d/synr.rep")" = 3 ] &&
		[ "$(grep -c 'req_lat:' "$d/synr.rep")" = 3 ]; echo $?)" \
		"synthetic req_lat recorded by trace(): 3 records, printed with its print fmt" \
		"$(grep -v '^#' "$d/synr.rep" | head -8)" "$(cat "$d/synr.err")"
	"$UTRACE" record -o "$d/synb.dat" --synthetic 'req_lat u64 lat; int id' -v -e app:req_begin \
		-R "$begin" -v -e app:req_end -R "$end.req_lat(\$lat)" -- "$sp" >"$d/synb.out" 2>"$d/synb.err" </dev/null
	st=$?
	t "$([ "$st" = 2 ] && [ ! -s "$d/synb.out" ] &&
		grep -q "Param count doesn't match synthetic event field count" "$d/synb.err"; echo $?)" \
		"synthetic: a bad param count is the kernel's error, nothing ran" "status $st: $(cat "$d/synb.err")"
	"$UTRACE" record -o "$d/synb.dat" --synthetic 'req_lat u64 lat; int id' -v -e app:req_end \
		-R "$end.req_lat(\$lat,id)" -- "$sp" >"$d/synb.out" 2>"$d/synb.err" </dev/null
	st=$?
	t "$([ "$st" = 2 ] && [ ! -s "$d/synb.out" ] && grep -q "Couldn't find variable: ts0" "$d/synb.err" &&
		grep -qx "$(printf '%43s' '')^" "$d/synb.err"; echo $?)" \
		"synthetic: an unknown variable is the kernel's error and caret, nothing ran" \
		"status $st: $(cat "$d/synb.err")"
	"$UTRACE" record -o "$d/synb.dat" --synthetic 'req_lat u64 lat; in id' -e app:req_end -- "$sp" \
		>"$d/synb.out" 2>"$d/synb.err" </dev/null
	st=$?
	t "$([ "$st" = 2 ] && grep -q -- "--synthetic: Invalid type" "$d/synb.err"; echo $?)" \
		"synthetic: a bad definition is the kernel's error, nothing ran" "status $st: $(cat "$d/synb.err")"
}
