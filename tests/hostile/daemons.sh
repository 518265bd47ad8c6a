#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/hostile/daemons.sh - a command that starts a daemon (issue 21, item
# 11): `utrace record` ends when the command has ended and what is left
# has left its session, says which processes run on, and the daemon is
# not harmed (it runs on, starts a thread, makes 300,000 more calls and
# finishes with the result it has untraced).  --follow-daemons records the
# daemon until it exits, every call of it.  Then the same with gpg, whose
# `gpg -c` starts gpg-agent, if it is installed.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_built "$U" "$B/libutrace.so"

build daemons_fork daemons_fork.c || exit 1
LONG=600 # until_ok rounds of 0.1 s: a bound for a hang, not a timing

# record_bg OUT DIR OPTS...: utrace record -- daemons_fork DIR in the
# background; OUT.rc appears when it has ended
record_bg() {
	local o=$1 d=$2
	shift 2
	mkdir -p "$d"
	rm -f "$o.rc"
	{
		"$U" record -o "$o.dat" "$@" -- "$W/daemons_fork" "$d" >"$o.out" 2>"$o.err"
		echo $? >"$o.rc.tmp"
		mv "$o.rc.tmp" "$o.rc"
	} &
}

# the daemon let go, its result awaited; a recording still running then
# ends with it
release() { # release DIR OUT
	touch "$1/release"
	until_ok $LONG test -s "$1/done"
	until_ok $LONG test -s "$2.rc"
}

mkdir -p "$W/u"
run_plain "$W/a" "$W/daemons_fork" "$W/u"
until_ok $LONG test -s "$W/u/pid" || { notok "the untraced daemon starts"; exit 1; }
touch "$W/u/release"
until_ok $LONG test -s "$W/u/done" || { notok "the untraced daemon finishes"; exit 1; }
want=$(grep result "$W/u/done")

n=0
while read -r mode; do
	n=$((n + 1))
	d=$W/d$n
	# shellcheck disable=SC2086 # a mode is a list of options
	record_bg "$W/b" "$d" -b 64 $mode
	if until_ok $LONG test -s "$W/b.rc"; then
		ok "record ends with the command while its daemon runs ($mode)"
	else
		notok "record ends with the command while its daemon runs ($mode)"
	fi
	until_ok $LONG test -s "$d/pid"
	dpid=$(cat "$d/pid")
	check "the daemon runs on after the recording ($mode)" kill -0 "$dpid"
	grep -E '^utrace( [a-z]+)?:' "$W/b.err" >"$W/b.rec"
	check "the summary names the daemon, pid and name ($mode)" \
		grep -q "left its session.* pid $dpid (daemons_fork)" "$W/b.rec"
	release "$d" "$W/b"
	check "the daemon finishes its work with its untraced result ($mode)" \
		grep -qx "$want" "$d/done"
	same_run "the command's output and status ($mode)" "$W/a" "$W/b"
	check "the command's calls are recorded ($mode)" \
		eval "\"$U\" report -i \"$W/b.dat\" --profile 2>/dev/null | awk '\$NF == \"work\" && \$(NF - 1) >= 1000 { f = 1 } END { exit !f }'"
done < <(each_mode)

# --follow-daemons: every call of the daemon too
d=$W/follow
record_bg "$W/f" "$d" --follow-daemons -p function
until_ok $LONG test -s "$d/pid"
check "--follow-daemons: the recording goes on while the daemon runs" test ! -e "$W/f.rc"
release "$d" "$W/f"
check "--follow-daemons: the recording ends when the daemon exits" test -s "$W/f.rc"
calls=$(awk '$1 == "calls" { print $2 + 1000 }' "$d/done")
got=$("$U" report -i "$W/f.dat" --profile 2>/dev/null | awk '$NF == "work" { print $(NF - 1) }')
if [ -n "$calls" ] && [ "$got" = "$calls" ]; then
	ok "--follow-daemons: every call of the command and its daemon recorded ($got)"
else
	notok "--follow-daemons: every call of the command and its daemon recorded"
	echo "#   $got recorded, $calls made"
	grep -E '^utrace' "$W/f.err" | sed 's/^/#   /' | tail -5
fi

# a real daemon: gpg -c starts gpg-agent
if ! command -v gpg >/dev/null || ! command -v gpg-agent >/dev/null ||
	! command -v gpgconf >/dev/null || ! command -v gpg-connect-agent >/dev/null; then
	unsupported "no gpg, gpg-agent or gpgconf (scripts/install-deps.sh test)"
	exit 0
fi
export GNUPGHOME=$W/gnupg
mkdir -m 700 "$GNUPGHOME"
echo "a secret" >"$W/plain.txt"
gpg_c() { gpg --batch --yes --passphrase x --pinentry-mode loopback -o "$1" -c "$W/plain.txt"; }
gpg_c "$W/u.gpg" >/dev/null 2>&1
gpgconf --kill gpg-agent
while read -r mode; do
	rm -f "$W/g.rc"
	{
		# shellcheck disable=SC2086
		"$U" record -o "$W/g.dat" $mode -- gpg --batch --yes --passphrase x \
			--pinentry-mode loopback -o "$W/t.gpg" -c "$W/plain.txt" >"$W/g.out" 2>"$W/g.err"
		echo $? >"$W/g.rc.tmp"
		mv "$W/g.rc.tmp" "$W/g.rc"
	} &
	if until_ok $LONG test -s "$W/g.rc"; then
		ok "gpg -c: record ends with gpg while gpg-agent runs ($mode)"
	else
		notok "gpg -c: record ends with gpg while gpg-agent runs ($mode)"
	fi
	check "gpg -c: gpg's status is 0 ($mode)" grep -qx 0 "$W/g.rc"
	check "gpg -c: the summary names gpg-agent ($mode)" \
		grep -q "^utrace record: gpg ended; .* pid [0-9]* (gpg-agent)" "$W/g.err"
	check "gpg -c: gpg-agent runs on and answers ($mode)" \
		eval "gpg-connect-agent --no-autostart /bye >/dev/null 2>&1"
	check "gpg -c: what traced gpg wrote decrypts ($mode)" \
		eval "gpg --batch --passphrase x --pinentry-mode loopback -d \"$W/t.gpg\" 2>/dev/null | grep -qx 'a secret'"
	gpgconf --kill gpg-agent
	until_ok $LONG test -s "$W/g.rc"
done < <(each_mode)
