# SPDX-License-Identifier: MIT
# tests/bt/suite.sh - sourced by tests/bt/run.sh: fetching and building
# bpftrace 0.17's runtime suite, reading its cases as its engine's parser
# (tests/runtime/engine/parser.py) does, running one as its runner.py does.

# the source package, once (apt-get source needs a deb-src entry and dpkg-dev)
fetch_suite() {
	[ -d "$SRC/tests/runtime/engine" ] && return 0
	local tmp
	mkdir -p "$CACHE" && tmp=$(mktemp -d "$CACHE/.x.XXXXXX") || return 1
	(cd "$tmp" && apt-get source -q bpftrace=0.17.0-1 >"$tmp/apt.log" 2>&1) || {
		sed 's/^/# /' "$tmp/apt.log" | tail -5
		rm -rf "$tmp"
		return 1
	}
	rm -rf "$SRC" && mv "$tmp/bpftrace-0.17.0" "$SRC" && rm -rf "$tmp"
}

# tests/CMakeLists.txt: testprogs -g -O0 -no-pie, testlibs shared and not
# executable, both with HAVE_SYSTEMTAP_SYS_SDT_H; usdt_lib links usdt_tp
build_testprogs() {
	local t=$SRC/tests c f n flags="-g -O0 -DHAVE_SYSTEMTAP_SYS_SDT_H"
	mkdir -p "$W/testprogs" "$W/testlibs" || return 1
	ln -sfn "$t/runtime" "$W/runtime" || return 1
	for c in "$t"/testlibs/*.c; do
		n=$(basename "$c" .c) f=$W/testlibs/lib$n.so
		[ "$f" -nt "$c" ] && continue
		cc $flags -fPIC -shared -o "$f" "$c" && chmod -x "$f" || return 1
	done
	for c in "$t"/testprogs/*.c; do
		n=$(basename "$c" .c) f=$W/testprogs/$n
		[ "$f" -nt "$c" ] && continue
		if [ "$n" = usdt_lib ]; then
			cc $flags -fPIC -no-pie -I"$t/testlibs" -o "$f" "$c" -L"$W/testlibs" -lusdt_tp \
				-Wl,-rpath,"$W/testlibs" || return 1
		else
			cc $flags -no-pie -o "$f" "$c" -lpthread || return 1
		fi
	done 2>"$W/build.log"
}

# every case, one line each: suite name run prog expect timeout before after
# kmin kmax requires(\x1e-separated) env arch features will_fail, \x1f between
suite_cases() {
	local f
	for f in "$SRC"/tests/runtime/*; do
		[ -f "$f" ] || continue
		awk -v suite="$(basename "$f")" '
		function flush(   k) {
			if (n == 0) return
			printf "%s", suite
			split("NAME RUN PROG EXPECT TIMEOUT BEFORE AFTER MIN_KERNEL MAX_KERNEL REQUIRES ENV ARCH REQUIRES_FEATURE WILL_FAIL", ks, " ")
			for (k = 1; k <= 14; k++)
				printf "\x1f%s", v[ks[k]]
			printf "\n"
			delete v
			n = 0
		}
		/^#/ { next }
		/^$/ { flush(); next }
		{
			if (NF == 0) next
			key = $1; $1 = ""; sub(/^ /, "")
			if (key == "REQUIRES")
				v[key] = (key in v) ? v[key] "\x1e" $0 : $0
			else if (key == "ENV" || key == "REQUIRES_FEATURE")
				v[key] = (key in v) ? v[key] " " $0 : $0
			else if (key == "WILL_FAIL")
				v[key] = 1
			else
				v[key] = $0
			n++
		}
		END { flush() }' "$f"
	done
}

machine_in() { # ARCH field: a|b|c
	local m a
	m=$(uname -m | tr A-Z a-z)
	IFS='|' read -ra as <<<"$1"
	for a in "${as[@]}"; do
		a=${a// /}
		[ "$a" = "$m" ] && return 0
	done
	return 1
}

version_lt() { # A < B as LooseVersion compares kernel versions
	[ "$1" != "$2" ] && [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -1)" = "$1" ]
}

# the engine asks `bpftrace --info`; utrace bt has what runs in the process
features() {
	if [ $mode = bpftrace ]; then
		local i
		i=$(bpftrace --info 2>&1)
		local -A f=([loop]="Loop support: yes" [probe_read_kernel]="probe_read_kernel: yes"
			[btf]="btf: yes" [kfunc]="kfunc: yes" [dpath]="dpath: yes"
			[uprobe_refcount]="uprobe refcount (depends on Build:bcc bpf_attach_uprobe refcount): yes"
			[signal]="send_signal: yes" [iter:task]="iter:task: yes"
			[iter:task_file]="iter:task_file: yes"
			[libpath_resolv]="bcc library path resolution: yes"
			[dwarf]="libdw (DWARF support): yes" [kprobe_multi]="kprobe_multi: yes"
			[skboutput]="skboutput: yes")
		for k in "${!f[@]}"; do
			[[ $i == *"${f[$k]}"* ]] && echo "$k"
		done
	else
		echo "${BT_FEATURES:-loop dwarf uprobe_refcount libpath_resolv signal}" | tr ' ' '\n'
	fi
}

FEATURES=
skip_reason() {
	local r f have
	if [ -n "$arch" ] && ! machine_in "$arch"; then
		echo arch # the engine's parser leaves the case out
		return
	fi
	r=$(awk -F'\t' -v id="$suite.$name" '$1 == id { print $2; exit }' "$NA")
	[ -n "$r" ] && { echo "not applicable: $r"; return; }
	[ -n "$kmin" ] && version_lt "$(uname -r)" "$kmin" && { echo "min Kernel: $kmin"; return; }
	[ -n "$kmax" ] && version_lt "$kmax" "$(uname -r)" && { echo "max Kernel: $kmax"; return; }
	[[ ,${RUNTIME_TEST_DISABLE:-}, == *,"$suite.$name",* ]] && { echo "disabled by environment variable"; return; }
	if [ -n "$reqs" ]; then
		IFS=$'\x1e' read -ra rs <<<"$reqs"
		for r in "${rs[@]}"; do
			(cd "$W" && env -i PATH="$PATH" sh -c "$r") >/dev/null 2>&1 ||
				{ echo "unmet condition: '$r'"; return; }
		done
	fi
	[ -z "$feats" ] && return
	[ -n "$FEATURES" ] || FEATURES=" $(features | tr '\n' ' ') "
	for f in $feats; do
		have=0
		[[ $FEATURES == *" ${f#!} "* ]] && have=1
		if [[ $f == !* && $have = 1 || $f != !* && $have = 0 ]]; then
			echo "missed feature: '$feats'"
			return
		fi
	done
}

# the command line the engine builds (prepare_bpf_call), with utrace bt
bt_call() {
	if [ -n "$run" ]; then
		echo "${run//\{\{BPFTRACE\}\}/$BT}"
	else
		echo "$BT -e '$prog'"
	fi
}

now_ms() { # the time in milliseconds: a TIMEOUT of 1 s is 1 s, not 0 to 1
	local t=${EPOCHREALTIME/./}
	echo $((t / 1000))
}

# kill_group PGID: the case's process group, as the engine's os.killpg
kill_group() {
	[ -n "$1" ] && kill -"${2:-KILL}" -- -"$1" 2>/dev/null
}

# prints "PASS|FAIL|TIMEOUT|SKIP reason" for the case in the loop's variables
run_case() {
	local why call out=$W/case.out bpid= apid= pid catpid child t0 limit marker=0 timedout=0 rc
	why=$(skip_reason)
	[ "$why" = arch ] && { echo "ARCH"; return; }
	[ -n "$why" ] && { echo "SKIP $why"; return; }
	cd "$W" || { echo "FAIL cannot enter $W"; return; }
	if [ -n "$before" ]; then
		setsid sh -c "$before" </dev/null >/dev/null 2>&1 &
		bpid=$!
		child=$(basename "${before##* }")
		t0=$SECONDS
		until pidof "$child" >/dev/null; do
			sleep 0.1
			[ $((SECONDS - t0)) -gt "${timeout:-5}" ] && {
				kill_group $bpid; echo "FAIL timed out waiting for BEFORE $before"; return; }
		done
	fi
	call=$(bt_call)
	[ -n "$bpid" ] && call=${call//\{\{BEFORE_PID\}\}/$(pidof "$child" | awk '{print $1}')}
	# the output through a pipe, as the engine reads it: the case is over
	# when every writer closed it (a command it started in the background
	# too), not when its shell exits
	rm -f "$W/case.fifo" && mkfifo "$W/case.fifo" || { echo "FAIL mkfifo in $W"; return; }
	# emptied here, not by the background cat's own redirection: that one
	# may run late on a loaded machine, and the loop below would find the
	# last case's notify line and start AFTER before the probes attach
	: >"$out" || { echo "FAIL cannot write $out"; return; }
	cat "$W/case.fifo" >>"$out" &
	catpid=$!
	# shellcheck disable=SC2086
	setsid env -i test="$name" __BPFTRACE_NOTIFY_PROBES_ATTACHED=1 \
		__BPFTRACE_NOTIFY_AOT_PORTABILITY_DISABLED=1 BPFTRACE_VERIFY_LLVM_IR=1 $envs \
		sh -c "$call" </dev/null >"$W/case.fifo" 2>&1 &
	pid=$!
	t0=$(now_ms) limit=$ATTACH_TIMEOUT
	while kill -0 $catpid 2>/dev/null; do
		if [ $marker = 0 ] && grep -qx "__BPFTRACE_NOTIFY_PROBES_ATTACHED" "$out"; then
			marker=1 t0=$(now_ms) limit=${timeout:-$DEFAULT_TIMEOUT}
			[ "$limit" = 0 ] && limit=$DEFAULT_TIMEOUT
			if [ -n "$after" ]; then
				setsid sh -c "$after" </dev/null >/dev/null 2>&1 &
				apid=$!
			fi
		fi
		if [ $(($(now_ms) - t0)) -ge $((limit * 1000)) ]; then
			timedout=1
			kill_group $pid TERM
			for _ in $(seq 50); do kill -0 $catpid 2>/dev/null || break; sleep 0.1; done
			break
		fi
		sleep 0.05
	done
	kill_group $pid
	wait $pid 2>/dev/null
	rc=$?
	kill $catpid 2>/dev/null
	kill_group "$bpid"
	kill_group "$apid"
	wait 2>/dev/null
	cd - >/dev/null || true
	case_verdict
}

case_verdict() {
	local flags=m
	[ $timedout = 1 ] && flags=
	if EXPECT=$expect perl -0777 -ne "exit(!(\$_ =~ /\$ENV{EXPECT}/$flags))" "$out"; then
		if [ $timedout = 0 ] && [ $rc -ne 0 ] && [ -z "$willfail" ]; then
			echo "FAIL unclean exit code $rc: $(tail -c 300 "$out" | tr '\n' '|')"
		else
			echo "PASS"
		fi
	elif [ $timedout = 1 ]; then
		echo "TIMEOUT no '$expect' after ${limit}s: $(tail -c 300 "$out" | tr '\n' '|')"
	else
		echo "FAIL expected '$expect', found: $(tail -c 300 "$out" | tr '\n' '|')"
	fi
}

# --classify: what the case's program (its PROG, its RUN and the script RUN
# names) needs that only the kernel has; tests/bt/not-applicable is this
# output, read and kept
classify_all() {
	local text s r m
	while IFS=$'\x1f' read -r suite name run prog expect timeout before after kmin kmax reqs envs arch feats willfail; do
		[ -n "$arch" ] && ! machine_in "$arch" && continue
		text="$run $prog"
		for s in $(grep -o 'runtime/scripts/[A-Za-z0-9_.-]*' <<<"$run"); do
			text+=" $(cat "$W/$s" 2>/dev/null)"
		done
		r=$(classify_text "$text" "$feats")
		# a listing of the kernel's probe types (bpftrace -l | grep kprobe)
		if [ -z "$r" ] && [[ " $run " == *" -l"* ]]; then
			m=$(grep -oE '\b(kprobe|kretprobe|kfunc|kretfunc|hardware|software)\b' <<<"$expect" | head -1)
			[ -n "$m" ] && r="lists the kernel's probes ($m)"
		fi
		[ -n "$r" ] && printf '%s\t%s\n' "$suite.$name" "$r"
	done < <(suite_cases)
}

classify_text() { # TEXT FEATURES: the first reason it needs the kernel, if any
	local t=$1 f m
	for f in $2; do
		case $f in
		btf | kfunc | dpath | iter:* | kprobe_multi | skboutput | probe_read_kernel)
			echo "needs the kernel's $f (REQUIRES_FEATURE)"
			return ;;
		esac
	done
	m=$(grep -oE "(^|[[:space:]'\"{},])(kprobe|kretprobe|kfunc|kretfunc|fentry|fexit|watchpoint|asyncwatchpoint|hardware|software|iter|rawtracepoint|k|kr|f|fr|w|aw|h|s|rt):([A-Za-z_*]|0x)" <<<"$t" |
		head -1 | tr -d "[:space:]'\"{}," | sed 's/:.*/:/')
	if [ -n "$m" ]; then
		echo "${m%:}: a probe of the kernel, not of a user program"
		return
	fi
	m=$(grep -oE '\b(kstack|curtask|cgroup|cgroupid|cgroup_path|kaddr|kptr|ksym|skboutput|task_struct)\b|#include *<linux' <<<"$t" | head -1)
	[ -n "$m" ] && { echo "$m: the kernel's (its stack, symbols, tasks or types)"; return; }
	grep -qE '\bdebugf\(' <<<"$t" && echo "debugf: bpf_trace_printk, into the kernel's trace_pipe"
}
