# SPDX-License-Identifier: MIT
#
# tests/e2e/t/bt_dbgsym.sh - utrace bt's uprobes on the functions of a
# stripped library's separate debug file (by build id, libc6-dbg's for
# libc), as bcc finds them for bpftrace: -l lists libc's local functions
# (_IO_new_file_fopen) and the versioned names of that file's .symtab
# (fopen@@GLIBC_2.2.5) beside its .dynsym's, the same list as bpftrace's
# (names holding ".part." are not, as bpftrace's are not); a probe on such
# a local function fires in-process under -c, once a call of
# tests/e2e/anybin/bt_dbgsym.c's three fopen() calls; two names at one
# address (_IO_new_fopen, __new_fopen: fopen's aliases) are a probe each,
# as bpftrace attaches and counts them; against bpftrace's own output
# where it runs (/pid == cpid/: its -c does not filter uprobes by pid).
# Skipped where libc has no debug file.

e2e_once bt-dbgsym - check_bt_dbgsym

check_bt_dbgsym() {
	local d=$OUT/bt-dbgsym prog libc id dbg bt n
	rm -rf "$d"
	mkdir -p "$d"
	prog=$d/bt_dbgsym
	if ! gcc -O0 -o "$prog" "$E2E/anybin/bt_dbgsym.c" >"$d/cc.log" 2>&1; then
		nok "bt-dbgsym builds" "$(head -5 "$d/cc.log")"
		return
	fi
	libc=$(ldd "$prog" | awk '$1 ~ /^libc\.so/ { print $3 }')
	id=$(readelf -n "$libc" 2>/dev/null | awk '/Build ID:/ { print $3 }')
	dbg=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
	if [ -z "$id" ] || [ ! -r "$dbg" ] ||
		! readelf -sW "$dbg" 2>/dev/null | grep -q ' LOCAL .* _IO_new_file_fopen$'; then
		echo "ok - bt-dbgsym libc's local functions # SKIP no debug file of $libc ($dbg: install libc6-dbg)"
		return
	fi
	"$UTRACE" bt -l "uprobe:$libc:*" >"$d/list.out" 2>&1
	t "$(grep -qx "uprobe:$libc:_IO_new_file_fopen" "$d/list.out" &&
		grep -qx "uprobe:$libc:fopen@@GLIBC_2.2.5" "$d/list.out" &&
		grep -qx "uprobe:$libc:fopen" "$d/list.out" && ! grep -q '\.part\.' "$d/list.out"
		echo $?)" "bt-dbgsym -l lists libc's own and its debug file's functions" \
		"$(wc -l <"$d/list.out") lines" "$(grep -E 'fopen|part' "$d/list.out" | head -8)"
	bt="uprobe:$libc:_IO_new_file_fopen, uprobe:$libc:_IO_new_fope*, uprobe:$libc:__new_fopen /pid == cpid/ { @[probe] = count(); }"
	timeout "$TMO" "$UTRACE" bt -e "$bt" -c "$prog" >"$d/bt.out" 2>"$d/bt.err"
	n=$(grep -c ': 3$' "$d/bt.out")
	t "$([ "$n" = 3 ] && grep -qx 'Attaching 3 probes...' "$d/bt.out" &&
		grep -qx "@\[uprobe:$libc:_IO_new_file_fopen\]: 3" "$d/bt.out"; echo $?)" \
		"bt-dbgsym a local function of the debug file fires in-process; two names at one address, a probe each" \
		"$(cat "$d/bt.out" "$d/bt.err")"
	if ! command -v bpftrace >/dev/null; then
		echo "ok - bt-dbgsym same list and maps as bpftrace's # SKIP no bpftrace"
		return
	fi
	bpftrace -l "uprobe:$libc:*" >"$d/bp-list.out" 2>/dev/null
	timeout "$TMO" bpftrace -e "$bt" -c "$prog" >"$d/bp.out" 2>/dev/null
	if ! grep -q '^@' "$d/bp.out"; then
		echo "ok - bt-dbgsym same list and maps as bpftrace's # SKIP bpftrace does not run here"
		return
	fi
	t "$(diff <(sort "$d/bp-list.out") <(sort "$d/list.out") >"$d/list.diff" &&
		diff <(grep -E '^(Attaching|@)' "$d/bp.out" | sort) \
			<(grep -E '^(Attaching|@)' "$d/bt.out" | sort) >"$d/maps.diff"; echo $?)" \
		"bt-dbgsym same list and maps as bpftrace's" "$(head -10 "$d/list.diff")" \
		"$(cat "$d/maps.diff")"
}
