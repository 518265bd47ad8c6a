#!/bin/bash
# tests/kernel/tracefs_btfarg.sh BUILD_DIR - the kernel's BTF arguments
# (fetch-args by parameter name, typed from the program's DWARF) in the
# live tracefs's dynamic_events, on a running program built with -g
# (tests/kernel/bta.c): README lists the syntax; f:, f:%return, t: and p:
# probes by names, $arg* and fields are listed as the kernel lists them
# (NAME=TEXT); once enabled they record the values the program passed
# (each line's fields agree with the job's id as bta.c builds them:
# weight 10 id, tag "tID", the next job's name and id id + 1000, prio id
# % 7, the tracepoint's round = id); a name that is no parameter fails
# with the kernel's error_log entry under it.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_fuse
need_built "$U"

live_tmp
cc -O2 -g $("$U" cflags) -I"$ROOT/include" -I"$ROOT/tests/kernel" -o "$T/bta" \
	"$ROOT/tests/kernel/bta.c" || { notok "build the program"; exit 1; }
"$U" record -p nop --tracefs "$T/mnt" -o "$T/bta.dat" -- "$T/bta" "$T/stop" >"$T/bta.out" 2>&1 &
RP=$!
for _ in $(seq 100); do [ -s "$T/mnt/available_events" ] && break; sleep 0.05; done
cd "$T/mnt" || exit 1

check "README lists the argument names and fields" \
	grep -qF '<argname>[->field[->field|.field...]]' README
echo 'f:fa bta_submit $arg*' >>dynamic_events &&
	echo 'f:fb bta_submit id=j->id w=j->meta.weight nn=j->next->name:string prio' >>dynamic_events &&
	echo 'f:fr bta_submit%return rid=$retval->id rn=$retval->name:string' >>dynamic_events &&
	echo 't:tb bta_run j->meta.tag:string round id=j->id' >>dynamic_events &&
	echo 'p:pb bta_submit $arg1 n=j->name:string' >>dynamic_events
check "f:, f:%return, t: and p: probes by names are added" test $? -eq 0
check "dynamic_events lists each argument as the kernel does, NAME=TEXT" \
	test "$(cat dynamic_events)" = 'f:fprobes/fa bta_submit j=j prio=prio
f:fprobes/fb bta_submit id=j->id w=j->meta.weight nn=j->next->name:string prio=prio
f:fprobes/fr bta_submit%return rid=$retval->id rn=$retval->name:string
t:tracepoints/tb bta_run arg1=j->meta.tag:string round=round id=j->id
p:kprobes/pb bta_submit j=j n=j->name:string'
check "the types come from DWARF (int s32, long s64, a pointer x64)" \
	grep -q 'field:s32 id;.*field:s64 w;' <(tr '\n' ' ' <events/fprobes/fb/format)
check "... a pointer prints as x64" grep -q 'j=0x%Lx' events/fprobes/fa/format

echo 1 >events/enable
trace_shows "$T/t1" ' tb: ' 100
echo 0 >events/enable
grep ' fb: ' "$T/t1" | sed 's/.* id=\(-*[0-9]*\) w=\(-*[0-9]*\) nn="\([a-z]*\)" prio=\(-*[0-9]*\)$/\1 \2 \3 \4/' >"$T/fb"
check "f: fields through -> and . are the job's (weight 10 id, next's name, prio id % 7)" \
	test -s "$T/fb" -a -z "$(awk '$2 != 10 * $1 || $3 != "beta" || $4 != $1 % 7 || NF != 4' "$T/fb")"
grep ' fr: ' "$T/t1" | sed 's/.* rid=\(-*[0-9]*\) rn="\([a-z]*\)"$/\1 \2/' >"$T/fr"
check "f:%return: \$retval's fields are the next job's (id >= 1000, beta)" \
	test -s "$T/fr" -a -z "$(awk '$1 < 1000 || $2 != "beta" || NF != 2' "$T/fr")"
grep ' tb: ' "$T/t1" | sed 's/.* arg1="t\([0-9]*\)" round=\(-*[0-9]*\) id=\(-*[0-9]*\)$/\1 \2 \3/' >"$T/tb"
check "t: the tracepoint's arguments by name (tag tID, round = id)" \
	test -s "$T/tb" -a -z "$(awk '$1 != $3 || $2 != $3 || NF != 3' "$T/tb")"
grep ' fa: ' "$T/t1" | sed 's/.* j=\(0x[0-9a-f]*\) prio=\([0-6]\)$/\1 \2/' >"$T/fa"
check "\$arg*: every parameter, a pointer in hex, an int in decimal" \
	test -s "$T/fa" -a -z "$(awk 'NF != 2' "$T/fa")"
check "p: at the entry reads the same names" grep -q ' pb: (bta_submit+0x0/0x[0-9a-f]*) j=0x[0-9a-f]* n="alpha"$' "$T/t1"

echo 'f bta_submit nosuch' >>dynamic_events 2>/dev/null
check "a name that is no parameter is refused" test $? -ne 0
check "... as NO_BTFARG, the caret under it" \
	errlog_is trace_fprobe "This variable is not found at this probe point" "f bta_submit nosuch" 13
echo 'f bta_submit j->meta->weight' >>dynamic_events 2>/dev/null
check "-> on a struct member that is no pointer is NO_PTR_STRCT at the field" \
	errlog_is trace_fprobe "This is not a pointer to union/structure." "f bta_submit j->meta->weight" 22

touch "$T/stop"
cd / && wait "$RP"
check "the program ends well" test $? -eq 0
RP=
exit 0
