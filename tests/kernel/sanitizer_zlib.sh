#!/bin/bash
# tests/kernel/sanitizer_zlib.sh BUILD_DIR - a real program's own test
# suite built with AddressSanitizer, run under utrace as without (issue
# 28): the distribution's zlib (`apt-get source zlib`, fetched once into
# $ZLIB_CACHE, default /var/cache/utrace-zlib-src; never copied into this
# repository), built with -fsanitize=address and `utrace cflags`:
#   - `make test` (its example and minigzip programs, run by make and the
#     shell: a tree of traced processes) prints the same and exits 0, as
#     untraced;
#   - its coverage test infcover, which ASan stops with a real report
#     (a global-buffer-overflow in inflateInit2_, zlib's version check
#     reading past a string), exits as untraced with the same report on
#     stderr, and records one sanitizer:asan_report whose kind, file, line
#     and function are the report's SUMMARY and whose stacktrace names the
#     report's first frames.
# UNSUPPORTED where the source package cannot be fetched.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_built "$U"
live_tmp
CACHE=${ZLIB_CACHE:-/var/cache/utrace-zlib-src}
command -v dpkg-source >/dev/null || unsupported "dpkg-dev is not installed (apt-get source)"
if ! ls -d "$CACHE"/zlib-*/ >/dev/null 2>&1; then
	mkdir -p "$CACHE" && (cd "$CACHE" && apt-get source -q zlib >"$T/apt.log" 2>&1) ||
		unsupported "apt-get source zlib: $(tail -1 "$T/apt.log")"
fi
src=$(ls -d "$CACHE"/zlib-*/ | head -1)
cp -r "$src" "$T/z" && cd "$T/z" || exit 1
if ! CFLAGS="-O1 -g -fsanitize=address $("$U" cflags)" LDFLAGS=-fsanitize=address \
	./configure --static >"$T/cfg.log" 2>&1 || ! make -j2 all infcover >"$T/make.log" 2>&1; then
	notok "build zlib with -fsanitize=address and utrace cflags"
	tail -5 "$T/make.log" 2>/dev/null | sed 's/^/#   /'
	exit 1
fi
ok "build zlib $(basename "$src") with -fsanitize=address and utrace cflags"

# its own test suite: the names of its temporary files carry make's pid
norm_tmp() { sed -E 's/tmp(st|64)?_[0-9]+/tmp/g' "$1"; }
make test >"$T/t.plain" 2>&1
st0=$?
"$U" record -o "$T/t.dat" -- make test >"$T/t.traced" 2>"$T/t.rec"
st=$?
check "make test: exit status $st as untraced ($st0)" test "$st" -eq "$st0" -a "$st" -eq 0
check "make test: the same output as untraced" cmp -s <(norm_tmp "$T/t.plain") <(norm_tmp "$T/t.traced")
check "make test: its programs traced ($(tail -1 "$T/t.rec"))" \
	grep -qE 'utrace record: [1-9][0-9]* records \(0 lost\)' "$T/t.rec"

# infcover: ASan's real report
norm() { sed -E 's/==[0-9]+==/==N==/g; s/0x[0-9a-f]+/0x/g' "$1" | grep -v '^utrace record'; }
./infcover >"$T/i.out" 2>"$T/i.err0"
st0=$?
"$U" record -o "$T/i.dat" -p nop -e sanitizer:asan_report -R stacktrace -- ./infcover \
	>"$T/i.out1" 2>"$T/i.err"
st=$?
check "infcover: ASan stops it (exit $st0) and under utrace too (exit $st)" \
	test "$st0" -ne 0 -a "$st" -eq "$st0"
check "infcover: the same ASan report on stderr as untraced" \
	cmp -s <(norm "$T/i.err0") <(norm "$T/i.err")
summary=$(sed -n 's/^SUMMARY: AddressSanitizer: //p' "$T/i.err0")
read -r kind where func <<<"$(echo "$summary" | sed -E 's/ in / /')"
"$U" report -i "$T/i.dat" >"$T/i.rep" 2>&1
ev=$(grep -c 'asan_report: ' "$T/i.rep")
check "infcover: one sanitizer:asan_report ($ev)" test "$ev" -eq 1
check "infcover: its kind is the SUMMARY's ($summary)" \
	eval '[ -n "$kind" ] && grep -qF "asan_report: kind=$kind " "$T/i.rep"'
check "infcover: its file, line and function too: file=${where%:*} line=${where##*:} func=$func" \
	eval '[ -n "$func" ] && grep -qF "file=${where%:*} line=${where##*:} func=$func" "$T/i.rep"'
first=$(awk '/^    #[0-9]+ 0x/ { print $4; if (++n == 2) exit }' "$T/i.err0" | tr '\n' ' ')
got=$(sed -n 's/^ => //p' "$T/i.rep" | head -2 | tr '\n' ' ')
check "infcover: its stacktrace starts with the report's first frames ($first)" \
	test -n "$first" -a "$got" = "$first"
exit 0
