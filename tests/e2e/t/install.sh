# SPDX-License-Identifier: MIT
#
# tests/e2e/t/install.sh - the installed tree, once (test name "install"):
# make install DESTDIR=... PREFIX=/usr, then --version, pkg-config, a
# program built against it and traced, the man page, the bash completion

e2e_once install - install_checks

# make install DESTDIR=... PREFIX=/usr, then use only the installed tree:
# --version, a program built with pkg-config's flags and `utrace cflags`,
# traced (the runtime found in ../lib), the man page, the completion.
install_checks() {
	local d=$OUT/install root st flags ex u
	rm -rf "$d"
	mkdir -p "$d"
	root=$d/root
	if ! make -s -C "$ROOT" install DESTDIR="$root" PREFIX=/usr >"$d/make.log" 2>&1; then
		nok "install: make install DESTDIR PREFIX=/usr" "$(tail -5 "$d/make.log")"
		return
	fi
	ok "install: make install DESTDIR PREFIX=/usr"
	t "$("$root/usr/bin/utrace" --version | grep -qx "utrace $(cat "$ROOT/VERSION")"; echo $?)" \
		"install: utrace --version" "$("$root/usr/bin/utrace" --version 2>&1)"
	flags=$(PKG_CONFIG_PATH=$root/usr/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$root \
		pkg-config --cflags --libs utrace 2>"$d/pc.err")
	t "$(echo "$flags" | grep -q -- "-I$root/usr/include.*-lutrace"; echo $?)" \
		"install: pkg-config --cflags --libs utrace" "$flags $(cat "$d/pc.err")"
	# shellcheck disable=SC2046,SC2086 # the flags are word lists
	ex=$root/usr/share/utrace/examples
	cc $("$root/usr/bin/utrace" cflags) -I"$ex" -o "$d/wf" "$ex/wordfreq.c" \
		$flags >"$d/cc.log" 2>&1
	t "$?" "install: the installed example with tracepoints built against the installed tree" \
		"$(head -5 "$d/cc.log")"
	# utrace cflags alone gives what <utrace/...> needs, from the build
	# tree (before any install) and from the installed tree
	for u in "build tree:$B/utrace" "installed tree:$root/usr/bin/utrace"; do
		cc $("${u#*:}" cflags) -I"$ROOT/examples" -c -o "$d/wf.o" "$ROOT/examples/wordfreq.c" \
			>"$d/cc2.log" 2>&1
		t "$?" "install: utrace cflags gives utrace's headers (${u%%:*})" "$(head -3 "$d/cc2.log")"
	done
	(cd "$d" && LD_LIBRARY_PATH=$root/usr/lib "$root/usr/bin/utrace" record -e demo:demo_word \
		-o i.dat -- ./wf >/dev/null 2>rec.err)
	st=$?
	t "$([ "$st" = 0 ] && "$root/usr/bin/utrace" report -i "$d/i.dat" 2>/dev/null |
		grep -q 'demo_word: word=the'; echo $?)" \
		"install: the installed utrace traces it (calls and tracepoints)" "status $st: $(cat "$d/rec.err")"
	if command -v man >/dev/null; then
		MANPATH=$root/usr/share/man man utrace-record 2>/dev/null | head -5 >"$d/man.txt"
		t "$(grep -q 'utrace record - run a command' "$d/man.txt"; echo $?)" \
			"install: man utrace-record" "$(cat "$d/man.txt")"
	fi
	t "$(bash -c ". '$root/usr/share/bash-completion/completions/utrace'
		PATH='$root/usr/bin':\$PATH; COMP_WORDS=(utrace record --ove); COMP_CWORD=2; _utrace
		[ \"\${COMPREPLY[*]}\" = --overwrite ]"; echo $?)" "install: bash completion of an option"
	# from the tables the commands parse: nothing from help prose, and
	# values where they are a known set
	t "$(install_complete "$root" "utrace record --hi" 2 "")" \
		"install: bash completion offers no option record does not parse"
	t "$(install_complete "$root" "utrace record -p ''" 3 "nop function function_graph")" \
		"install: bash completion of record -p: the tracers"
	t "$(install_complete "$root" "utrace record --call-graph ''" 3 "fp dwarf")" \
		"install: bash completion of --call-graph: fp dwarf"
	install_pages "$root"
	install_again "$d"
}

# install_complete ROOT WORDS CWORD WANT: 0 when the installed completion
# offers exactly WANT for the words
install_complete() {
	bash -c ". '$1/usr/share/bash-completion/completions/utrace'
		PATH='$1/usr/bin':\$PATH; COMP_WORDS=($2); COMP_CWORD=$3; _utrace
		[ \"\${COMPREPLY[*]}\" = '$4' ]"
	echo $?
}

# every installed page renders at 80 columns without a warning from
# man, tbl or troff (a dropped ".word" line, a table wider than the page)
install_pages() {
	local root=$1 m w bad=
	command -v man >/dev/null || return 0
	for m in "$root"/usr/share/man/man*/*; do
		w=$(MANWIDTH=80 man -l "$m" 2>&1 >/dev/null)
		[ -z "$w" ] || bad="$bad $(basename "$m"): $(echo "$w" | head -1)"
	done
	t "$([ -z "$bad" ]; echo $?)" "install: every man page renders clean at 80 columns" "$bad"
}

# a second install with another PREFIX writes that PREFIX into utrace.pc
# (it once kept the first build's); uninstall leaves no file behind
install_again() {
	local d=$1 root=$1/root2
	make -s -C "$ROOT" install DESTDIR="$root" PREFIX=/opt/utrace >"$d/make2.log" 2>&1
	t "$(grep -qx 'prefix=/opt/utrace' "$root/opt/utrace/lib/pkgconfig/utrace.pc"; echo $?)" \
		"install: utrace.pc follows PREFIX" "$(head -2 "$root/opt/utrace/lib/pkgconfig/utrace.pc" 2>&1)"
	make -s -C "$ROOT" uninstall DESTDIR="$root" PREFIX=/opt/utrace >"$d/un.log" 2>&1
	t "$([ -z "$(find "$root" -type f)" ]; echo $?)" "install: make uninstall removes every file" \
		"$(find "$root" -type f | head -3) $(tail -2 "$d/un.log")"
}
