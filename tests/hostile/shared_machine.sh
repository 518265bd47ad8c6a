#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/hostile/shared_machine.sh - utrace as root beside a hostile local
# user (issue 21, items 12 and 13).
#
# 12: without XDG_RUNTIME_DIR the session of utrace start lives in
# /tmp/utrace-UID, which another user can make first.  Planted there: a
# `session` file that names an unrelated root process and a fake "tracefs"
# whose tracing_on is a link to a root file, and a `session` link to
# another root file.  Root's stop, reset, start, show and extract must
# refuse the folder in one line and harm nothing: no file written through
# a link, no process signalled, nothing left in the folder.  A folder that
# is a link is refused too.  And in root's own folder, a session file
# whose pid is not a utrace recorder (a pid reused) gets no signal.
#
# 13: every file of trace data is made 0600 (utrace.dat, extract -o,
# convert -o, dump -o), the umask only narrowing it, an old 0644 file too.
#
# The test runs in a mount namespace of its own with a fresh /tmp, so the
# planted folder is never the machine's /tmp/utrace-0 that other
# recordings use.  A source tree or build folder under /tmp (a CI clone)
# is bound back at its own path, from a descriptor opened before.
fresh_tmp() { # fresh_tmp DIR...: a new /tmp, each DIR under /tmp kept
	local d fd=9 held=()
	for d; do
		case $d in /tmp/*) ;; *) continue ;; esac
		eval "exec $fd<\"\$d\"" && held+=("$fd:$d")
		fd=$((fd + 1))
	done
	mount -t tmpfs -o mode=1777 tmpfs /tmp || return 1
	for d in "${held[@]}"; do
		mkdir -p "${d#*:}" && mount --no-canonicalize --bind "/proc/self/fd/${d%%:*}" "${d#*:}" || return 1
	done
}
if [ -z "${SHARED_MACHINE_NS:-}" ] && [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null; then
	export SHARED_MACHINE_NS=1
	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	b=${1:-build}
	[[ $b = /* ]] || b=$top/$b
	exec unshare -m --propagation private bash -c \
		"$(declare -f fresh_tmp)"'; fresh_tmp "$1" "$2" && shift 2 && exec bash "$0" "$@"' \
		"$0" "$top" "$b" "$b" "${@:2}"
fi
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_root "a planted folder of another user needs root (chown)"
[ -n "${SHARED_MACHINE_NS:-}" ] || unsupported "no unshare -m for a private /tmp"
need_fuse
need_built "$U" "$B/libutrace.so"
unset XDG_RUNTIME_DIR
D=/tmp/utrace-0
OTHER=65534 # nobody: the other user
umask 022

# The victims: root's files and an unrelated root process.
V=$W/victim
mkdir -p "$V" && chmod 700 "$V"
echo precious >"$V/file1"
echo precious >"$V/file2"
sleep 1000 &
VICTIM=$!
trap 'kill $VICTIM 2>/dev/null; rm -rf "$W"' EXIT

plant() { # the other user's folder: session, fake tracefs, links
	rm -rf "$D"
	mkdir -m 755 "$D" "$D/fake"
	: >"$D/fake/current_tracer"
	ln -s "$V/file1" "$D/fake/tracing_on"
	ln -s "$V/file1" "$D/last.dat"
	printf '%d\n%s\n' "$VICTIM" "$D/fake" >"$D/session"
	chown -R -h "$OTHER:$OTHER" "$D"
}
unharmed() { # unharmed WHAT: the victims as they were, the folder too
	local what=$1
	check "$what: root's files unchanged" \
		test "$(cat "$V/file1" "$V/file2")" = "$(printf 'precious\nprecious')"
	check "$what: the unrelated root process not signalled" kill -0 "$VICTIM"
	check "$what: nothing made in the other user's folder" \
		test "$(find "$D" -newer "$W/planted" | wc -l)" -eq 0
}
refused() { # refused WHAT OUT RC: exit 1 and one line that names the folder
	local lines
	lines=$(wc -l <"$2")
	check "$1 refuses the folder in one line" \
		test "$3" -ne 0 -a "$lines" -eq 1 -a -n "$(grep -F "$D: not a private directory" "$2")"
	[ "$lines" -eq 1 ] || sed 's/^/#   /' "$2" | head -5
}

plant
touch -d '1 minute ago' "$W/planted"
find "$D" -exec touch -h -d '2 minutes ago' {} +
for verb in stop restart show extract; do
	(cd "$W" && "$U" $verb >"$W/$verb.out" 2>&1)
	refused "utrace $verb" "$W/$verb.out" $?
	unharmed "utrace $verb"
done
"$U" reset >"$W/reset.out" 2>&1
rc=$?
check "utrace reset refuses the folder (exit 1)" test $rc -eq 1
check "utrace reset says why, naming the folder" grep -qF "$D: not a private directory" "$W/reset.out"
unharmed "utrace reset"
"$U" start -p function -- sleep 30 >"$W/start.out" 2>&1
refused "utrace start" "$W/start.out" $?
unharmed "utrace start"
check "utrace start started no recorder" test -z "$(pgrep -f "^$U start" || true)"

# The session file itself a link to a root file: start would write it.
rm -f "$D/session"
ln -s "$V/file2" "$D/session"
chown -h "$OTHER:$OTHER" "$D/session"
touch -h -d '2 minutes ago' "$D/session" "$D"
"$U" start -p function -- sleep 30 >"$W/start2.out" 2>&1
refused "utrace start (session is a link)" "$W/start2.out" $?
unharmed "utrace start (session is a link)"

# Root's own folder, but with the wrong mode: others may plant in it.
rm -rf "$D"
mkdir -m 777 "$D"
"$U" stop >"$W/mode.out" 2>&1
refused "utrace stop (root's folder mode 0777)" "$W/mode.out" $?

# The folder is a link to a root folder.
rm -rf "$D"
mkdir -m 700 "$W/rootdir"
ln -s "$W/rootdir" "$D"
"$U" start -p function -- sleep 30 >"$W/link.out" 2>&1
refused "utrace start (the folder is a link)" "$W/link.out" $?
check "utrace start wrote nothing where the link points" test -z "$(ls -A "$W/rootdir")"
rm -f "$D"

# Root's own folder, made by utrace, whose session file names a pid that
# is not a utrace recorder (a recorder gone, its pid reused) and a tracefs
# that answers (a record --tracefs of ours): reset must not signal it.
cat >"$W/spin.c" <<'C'
#include <unistd.h>
__attribute__((noinline)) int tick(int x) { return x + 1; }
int main(int argc, char **argv)
{
	int v = 0;
	while (access(argv[1], F_OK) != 0) {
		v = tick(v);
		usleep(1000);
	}
	return v < 0;
}
C
build spin "$W/spin.c" || exit 1
mkdir "$W/mnt"
"$U" record -p function -o "$W/rec.dat" --tracefs "$W/mnt" -- "$W/spin" "$W/stop" \
	>"$W/rec.out" 2>&1 &
RP=$!
until_ok 100 test -f "$W/mnt/current_tracer"
"$U" show --tracing_on >/dev/null 2>&1 # makes root's folder, as utrace does
check "utrace makes root's folder 0700 and root's" \
	test "$(stat -c '%a %u %F' "$D")" = "700 0 directory"
printf '%d\n%s\n' "$VICTIM" "$W/mnt" >"$D/session"
"$U" reset >"$W/reset2.out" 2>&1
check "reset: a session pid that is no utrace recorder is not signalled" kill -0 "$VICTIM"
check "reset: the recorder of the mount still records" kill -0 "$RP"
touch "$W/stop"
wait "$RP"
check "the recording beside it ended well" test $? -eq 0

# 13: trace files are 0600 whatever the umask grants; a narrower umask
# narrows them; an old world-readable file loses its group/other bits.
mode() { stat -c %a "$1"; }
(umask 000 && "$U" record -p function -o "$W/u0.dat" -- "$W/spin" "$W/stop" >/dev/null 2>&1)
check "utrace.dat is 0600 under umask 000" test "$(mode "$W/u0.dat")" = 600
(umask 0277 && "$U" record -p function -o "$W/u277.dat" -- "$W/spin" "$W/stop" >/dev/null 2>&1)
check "the umask narrows it (0277: 0400)" test "$(mode "$W/u277.dat")" = 400
echo old >"$W/old.dat" && chmod 644 "$W/old.dat"
"$U" record -p function -o "$W/old.dat" -- "$W/spin" "$W/stop" >/dev/null 2>&1
check "an old 0644 file recorded over becomes 0600" test "$(mode "$W/old.dat")" = 600
(umask 000 && "$U" convert -i "$W/u0.dat" -o "$W/u0.trace.dat" >/dev/null 2>&1)
check "convert -o is 0600 under umask 000" test "$(mode "$W/u0.trace.dat")" = 600
(umask 000 && "$U" dump -i "$W/u0.dat" --chrome -o "$W/u0.json" >/dev/null 2>&1)
check "dump -o is 0600 under umask 000" test "$(mode "$W/u0.json")" = 600
rm -f "$W/stop"
(umask 000 && "$U" start -p function -- "$W/spin" "$W/stop" >"$W/st.out" 2>&1)
(umask 000 && until_ok 50 "$U" extract -o "$W/ex.dat" >"$W/ex.out" 2>&1)
check "extract -o is 0600 under umask 000" test "$(mode "$W/ex.dat")" = 600
check "the session's files are 0600" \
	test -z "$(find "$D" -maxdepth 1 -type f ! -perm 600)"
"$U" reset >/dev/null 2>&1
touch "$W/stop" # the program, untraced now, ends; wait for it (W goes at exit)
until_ok 100 eval '! pgrep -f "^$W/spin" >/dev/null'
