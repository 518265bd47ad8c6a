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
	local d=$OUT/install root st flags
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
	cc $("$root/usr/bin/utrace" cflags) -I"$ROOT/examples" -o "$d/wf" "$ROOT/examples/wordfreq.c" \
		$flags >"$d/cc.log" 2>&1
	t "$?" "install: a program with tracepoints built against the installed tree" \
		"$(head -5 "$d/cc.log")"
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
}
