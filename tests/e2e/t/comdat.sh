# SPDX-License-Identifier: MIT
#
# tests/e2e/t/comdat.sh - COMDAT functions, once (test name "comdat"):
# tests/e2e/comdat/ built with g++ and clang++ at -O0 and -O2, with the bare
# -fpatchable-function- entry and with --mcount

e2e_once comdat - comdat_checks

# A program of two C++ files that both instantiate the same inline
# functions (the linker keeps one COMDAT copy): every function of both
# files is a call site and traced, with utrace cflags (gcc gets its
# records fixed by gcc-as/as) and, for g++, with the bare flag too (the
# records of b.cc are lost; the sites come from the symbols, with a
# warning).  --mcount links and traces as well.
comdat_run() { # comdat_run NAME CXX FLAGS [LDFLAGS]
	local name=$1 cxx=$2 flags=$3 ldflags=${4:-} d=$OUT/comdat/$1 st
	mkdir -p "$d"
	# shellcheck disable=SC2086
	if ! (cd "$d" && $cxx $flags -c "$E2E/comdat/a.cc" "$E2E/comdat/b.cc" &&
		$cxx $ldflags -o ab a.o b.o) >"$d/cc.log" 2>&1; then
		nok "comdat $name: builds and links" "$(head -5 "$d/cc.log")"
		return 1
	fi
	ok "comdat $name: builds and links"
	"$UTRACE" list -f "$d/ab" >"$d/list" 2>"$d/list.err"
	t "$(for f in main first_b first_a use_a 'D::f()'; do grep -q "^$f" "$d/list" || echo "$f"; done |
		grep -q .; [ $? = 1 ]; echo $?)" "comdat $name: list -f has every function of both files" \
		"$(tr '\n' ' ' <"$d/list")"
	(cd "$d" && "$UTRACE" record -o t.dat -- ./ab >out 2>rec.err)
	st=$?
	t "$([ "$st" = 0 ] && "$UTRACE" report -i "$d/t.dat" 2>/dev/null | grep -q 'main() {'; echo $?)" \
		"comdat $name: main is traced" "status $st: $(cat "$d/rec.err")"
	# a demangled name keeps its own parameter list, without a second "()"
	"$UTRACE" report -i "$d/t.dat" >"$d/rep" 2>/dev/null
	t "$(grep -qE '\| +use_a\(int\)(;| \{)$' "$d/rep" && ! grep -qF ')()' "$d/rep"; echo $?)" \
		"comdat $name: C++ names print once with their parameters (use_a(int);)" \
		"$(grep -F ')' "$d/rep" | head -4)"
}

comdat_checks() {
	local cxx o cf
	for cxx in g++ clang++; do
		command -v "$cxx" >/dev/null || continue
		cf=$("$UTRACE" cflags --cc "$cxx")
		for o in -O0 -O2; do
			comdat_run "$cxx$o" "$cxx" "$o $cf"
		done
	done
	if command -v g++ >/dev/null; then
		comdat_run "g++-O2-bare" g++ "-O2 -fpatchable-function-entry=5" &&
			t "$(grep -q 'found from its symbols' "$OUT/comdat/g++-O2-bare/list.err" ||
				! grep -q 'some functions start with' "$OUT/comdat/g++-O2-bare/rec.err"
				echo $?)" "comdat g++-O2-bare: the lost records are said" \
			"$(cat "$OUT/comdat/g++-O2-bare/list.err")"
		comdat_run "g++-O2-mcount" g++ "-O2 $("$UTRACE" cflags --cc g++ --mcount)" \
			"$("$UTRACE" cflags --cc g++ --mcount --ldflags)"
	fi
}
