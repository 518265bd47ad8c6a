#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/hostile/jvm.sh - a JVM with libjvm traced (issue 21, item 11):
# HotSpot walks its own stack (frame::sender) and reads the return
# addresses there, so function_graph must leave libjvm's returns alone
# (its functions' entries are traced, FUNC records) where it aborted the
# JVM at once; -p function detours every entry.  `java -version` as the
# issue spells it, then a small class, in both tracers.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_built "$U" "$B/libutrace.so"
command -v java >/dev/null || unsupported "no java (default-jre-headless)"

cd "$W" || exit 1 # a JVM that dies leaves hs_err_pid*.log in its folder
# javac of the JRE's own jdk.compiler module: no JDK needed
if ! java -m jdk.compiler/com.sun.tools.javac.Main -d "$W" "$HP/JvmHostile.java" \
	>"$W/javac.out" 2>&1; then
	unsupported "this JRE cannot compile a class: $(head -1 "$W/javac.out")"
fi
LIBJVM=(-l '*:mod:libjvm*')

run_plain "$W/a" java -version
while read -r mode; do
	# shellcheck disable=SC2086 # a mode is a list of options
	run_traced "$W/b" $mode "${LIBJVM[@]}" -- java -version
	same_run "java -version, libjvm traced, $mode" "$W/a" "$W/b"
	check "java -version, $mode: its stderr is the same" cmp -s "$W/a.err" \
		<(grep -v '^utrace' "$W/b.err")
done < <(each_mode)

run_plain "$W/a" java -cp "$W" JvmHostile
while read -r mode; do
	# shellcheck disable=SC2086 # a mode is a list of options
	run_traced "$W/b" $mode "${LIBJVM[@]}" -- java -cp "$W" JvmHostile
	same_run "a class with threads and exceptions, libjvm traced, $mode" "$W/a" "$W/b" ||
		grep -E '^# (Problematic| +SIG|[A-Z] +\[)' "$W/b.out" | head -3 | sed 's/^/#   /'
	"$U" report -i "$W/b.dat" --profile -f call >"$W/prof" 2>/dev/null
	check "a class, $mode: JNI_CreateJavaVM called once" \
		test "$(awk '$2 == "JNI_CreateJavaVM" { print $1 }' "$W/prof")" = 1
done < <(each_mode)
check "function_graph says once that HotSpot's functions are traced at their entry" \
	test "$(grep -c 'HotSpot (the JVM) reads the return addresses' "$W/b.rec")" = 1
