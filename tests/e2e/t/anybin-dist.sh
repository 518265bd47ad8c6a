# SPDX-License-Identifier: MIT
#
# tests/e2e/t/anybin-dist.sh - programs built WITHOUT utrace cflags, traced
# by patching their function entries (lib/probes/func_patch.c,
# runtime/func_patch.c): anybin-dist (once) distribution binaries: sort,
# gzip -c, bash -c, python3 -c with a loop, gdb -batch: same output and
# status, the graph balanced (functions that call exit() stay open); -l
# '*:mod:libc.so*' leaves libc alone and says so

e2e_once anybin-dist anybin check_anybin_dist

check_anybin_dist() {
	local d=$OUT/anybin py
	mkdir -p "$d"
	CFG=anybin RUN=$d
	seq 5000 | awk '{ print ($1 * 7919) % 5003 }' >"$d/in.txt"
	py=$(command -v python3)
	[ -x /usr/bin/python3 ] && py=/usr/bin/python3
	anybin_run anybin-sort sort -n "$d/in.txt"
	expect_balanced "anybin-sort graph balanced" open-ok
	anybin_run anybin-gzip gzip -c "$d/in.txt"
	expect_balanced "anybin-gzip graph balanced" open-ok
	anybin_run anybin-bash bash -c 'echo hi; for i in 1 2 3; do echo $i; done'
	expect_balanced "anybin-bash graph balanced" open-ok
	# libc is what the runtime itself runs on: not patched, and said so
	ANYBIN_ROPTS="-l *:mod:libc.so* -l *:mod:libz.so*" anybin_run anybin-libc \
		bash -c 'ls / | wc -l'
	t "$(grep -q "libc.so.6 has no call sites, and utrace's runtime itself runs on it" "$RES/t.err"; echo $?)" \
		"anybin-libc -l *:mod:libc.so*: libc left alone, and said" "$(head -3 "$RES/t.err")"
	if [ -n "$py" ]; then
		anybin_run anybin-python "$py" -c 's = 0
for i in range(3000):
    s += i * i
print(s)'
		expect_balanced "anybin-python graph balanced" open-ok
	else
		echo "ok - anybin-python # SKIP no python3"
	fi
	# C++ with exceptions, hundreds of int3 entries
	if command -v gdb >/dev/null; then
		anybin_run anybin-gdb gdb -nx -batch -ex 'print 6*7'
		expect_balanced "anybin-gdb graph balanced" open-ok
		t "$(grep -qE "gdb has no call sites: [0-9]+ of [0-9]+ functions patched at their entry \([1-9][0-9]* with int3" \
			"$RES/t.err"; echo $?)" "anybin-gdb entries patched, some with int3" "$(head -3 "$RES/t.err")"
	else
		echo "ok - anybin-gdb # SKIP no gdb"
	fi
}
