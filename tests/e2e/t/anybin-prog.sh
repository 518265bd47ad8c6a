# SPDX-License-Identifier: MIT
#
# tests/e2e/t/anybin-prog.sh - programs built WITHOUT utrace cflags, traced
# by patching their function entries (lib/probes/func_patch.c,
# runtime/func_patch.c): anybin-PROG (each *-patch configuration)
# tests/progs/PROG.c built with the configuration's compiler and -O but no
# flags: same exit status, stdout and stderr as untraced, the graph
# balanced, and the same functions, calls and nesting as the flags' build
# gives (what `utrace list -f --why` leaves out excepted)
#
# anybin-flt-* (each *-patch configuration where simple has nothing left
# out, i.e. -O0) the filters on simple built without flags: -l, -n, -g,
# --max-graph-depth, -p function select the same calls as on the flags'
# build

e2e_cfg anybin-prog anybin check_anybin_progs

ANYBIN_PROGS="simple fib longjmp exception tailcall threads signal errno"

# "NAME count C mind D maxd D" of every function in a facts file, sorted,
# without those of the file $2 (one name a line); $3 = nocount: without
# the count (a program whose loops run for a time, not a number of times)
anybin_funcs() {
	awk -v skipf="$2" -v nocount="${3:-}" '
		BEGIN { while ((getline l < skipf) > 0) skip[l] = 1 }
		$1 == "func" && !($2 in skip) { if (nocount) $4 = "-"; print $2, $3, $4, $5, $6, $7, $8 }' "$1" | sort
}

check_anybin_prog() {
	local p=$1 cc opt bare=$OUT/$CFG/bare nocount src
	cc=$(config_cc "$CFG")
	opt=$(config_opt "$CFG")
	mkdir -p "$bare"
	case $p in
	exception) cc=$(config_cxx "$CFG") src=$PROGS/$p.cc ;;
	*) src=$PROGS/$p.c ;;
	esac
	if ! $cc -g $opt -I"$ROOT/include" -I"$PROGS" -o "$bare/$p" "$src" -pthread -ldl \
		>"$bare/$p.log" 2>&1; then
		nok "$CFG anybin-$p builds without flags" "$(head -5 "$bare/$p.log")"
		return
	fi
	# the refused ones: an int3 one is traced, and compared
	"$UTRACE" list -f "$bare/$p" --why 2>/dev/null | grep -v '	int3: ' | cut -f1 |
		sed "s/(.*//" >"$bare/$p.why"
	anybin_run "anybin-$p-cflags" "$BIN/$p"
	cp "$FACTS" "$bare/$p.cflags.facts"
	# both with their library calls (the default): the same ones, nested alike
	anybin_run "anybin-$p" "$bare/$p"
	t "$(grep -q "has no call sites: [0-9]* of [0-9]* functions patched" "$RES/t.err"; echo $?)" \
		"$CFG anybin-$p the recorder says how many entries it patched" "$(head -3 "$RES/t.err")"
	expect_balanced "$CFG anybin-$p graph balanced"
	case $p in signal) nocount=1 ;; *) nocount="" ;; esac
	anybin_funcs "$bare/$p.cflags.facts" "$bare/$p.why" $nocount >"$RES/want"
	anybin_funcs "$FACTS" "$bare/$p.why" $nocount >"$RES/got"
	t "$([ -s "$RES/want" ] && cmp -s "$RES/want" "$RES/got"; echo $?)" \
		"$CFG anybin-$p same calls and nesting as the cflags build" \
		"$(diff "$RES/want" "$RES/got" | head -8)"
}

# The filters on the bare simple: the same report lines as the flags'
# build gives with the same options (durations and tids masked).
check_anybin_filters() {
	local name opts bare=$OUT/$CFG/bare
	local -a cases=("l -l b*" "n -n a" "g -g a" "depth --max-graph-depth 2" "function -p function"
		"function-l -p function -l c")
	[ -x "$bare/simple" ] || return
	if [ -s "$bare/simple.why" ]; then # -O2: b() and c() are 4 bytes
		echo "ok - $CFG anybin-flt # SKIP simple has functions left out: $(tr '\n' ' ' <"$bare/simple.why")"
		return
	fi
	for entry in "${cases[@]}"; do
		name=${entry%% *}
		opts=${entry#* }
		ANYBIN_ROPTS=$opts anybin_run "anybin-flt-$name-cflags" "$BIN/simple"
		anybin_mask "$REP" >"$bare/flt-$name.want"
		ANYBIN_ROPTS=$opts anybin_run "anybin-flt-$name" "$bare/simple"
		anybin_mask "$REP" >"$RES/got"
		t "$([ -s "$RES/got" ] && cmp -s "$bare/flt-$name.want" "$RES/got"; echo $?)" \
			"$CFG anybin-flt-$name $opts: the same calls as the flags' build" \
			"$(diff "$bare/flt-$name.want" "$RES/got" | head -8)"
	done
}

# A report's function lines without what changes from run to run.
anybin_mask() {
	grep -E '[a-z_]+\(\)|<-' "$1" | sed -E 's/^.*\|  //; s/^ *[^ ]+-[0-9]+ +\[[0-9]+\] +[^ ]+ +[0-9.]+: +//; s/[0-9]+\.[0-9]+ us//g'
}

check_anybin_progs() {
	case $CFG in *-patch) ;; *) return ;; esac
	local p
	for p in $ANYBIN_PROGS; do
		check_anybin_prog "$p"
	done
	check_anybin_filters
}
