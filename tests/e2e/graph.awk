# SPDX-License-Identifier: MIT
#
# graph.awk - turns `utrace report` text into facts, one per line, that
# tests/e2e/run.sh checks with grep:
#
#   tracer NAME                      from "# tracer: NAME"
#   lines N                          function_graph lines (entries, leaves, exits)
#   flines N                         function tracer lines
#   lost N                           lines mentioning lost events
#   badlines N                       lines this script could not parse
#   task T entries E leaves L exits X open O unmatched U badnest B badindent I
#   func NAME count C mind D maxd D tasks T1,T2,...   (graph: entries + leaves)
#   fcall NAME PARENT tid T count C  (function tracer: "NAME <-PARENT")
#   ftid NAME T1,T2,...              (function tracer: tids that ran NAME)
#
# NAME is the base name: a demangled parameter list is dropped, so
# "level1(int)() {" gives level1 and "Guard::~Guard() {" gives Guard::~Guard.
# Depths (mind/maxd) are the report's own indentation: (spaces after the
# duration column's "|" - 2) / 2, the kernel's two spaces per level.
# "open" counts entries never closed in that task, "unmatched" closing
# braces with no open entry in that task, "badnest" closing braces whose
# "/* name */" comment names another function than the open entry,
# "badindent" lines whose indentation disagrees with the depth the braces
# give (only counted while the task never had an unmatched brace); utrace
# report indents at most MAXIND (100) levels, deeper lines stay there.
#
# Tasks: the kernel's function_graph output names tasks only at context
# switches (" N) comm-1 => comm-2" between dashed lines, per CPU); a line
# belongs to the task last switched to on its CPU.  Lines seen on a CPU
# before its first switch line belong to that switch's "from" task; if there
# are no switch lines at all, everything is one task "main".  A per-line
# task column (funcgraph-proc: " N) comm-pid | dur | func") or a trace-cmd
# style prefix ("comm-pid [NNN]") is used when present.

function basename_of(s,    n) {
	sub(/^[ \t]+/, "", s)
	sub(/[ \t]+$/, "", s)
	# a leaf's funcgraph-retval comment: "foo(); /* = 0x1 */"
	sub(/; \/\* = [^*]*\*\/$/, ";", s)
	# strip the "() {" / "();" the graph adds
	if (s ~ /\(\) \{$/) s = substr(s, 1, length(s) - 4)
	else if (s ~ /\(\);$/) s = substr(s, 1, length(s) - 3)
	else if (s ~ / \{$/) s = substr(s, 1, length(s) - 2)
	else if (s ~ /;$/) s = substr(s, 1, length(s) - 1)
	# a demangled parameter list: "level1(int)" -> "level1"
	if (s ~ /\)$/ && s !~ /^operator/) {
		n = index(s, "(")
		if (n > 1) s = substr(s, 1, n - 1)
	}
	gsub(/[ \t]/, "_", s) # one field in the facts ("<id 4>" -> "<id_4>")
	return s
}

function pid_of(tok,    m) {
	# "comm-1234" -> "1234"
	if (match(tok, /-[0-9]+$/))
		return substr(tok, RSTART + 1)
	return tok
}

function resolve(t) {
	while (t in alias) t = alias[t]
	return t
}

BEGIN {
	nlines = 0; nflines = 0; nlost = 0; nbad = 0; nswitch = 0; nrec = 0
}

/^# tracer: / { tracer = $3; next }
/^#/ { next }
/^[ \t]*$/ { next }
/^ *-+ *$/ { next }
/\[LOST|LOST [0-9]+ EVENTS|[Ee]vents lost/ { nlost++; next }

# context switch: " 1)  prog-123  =>  prog-456"
/^ *[0-9]+\) .*=>/ {
	cpu = $1; sub(/\)$/, "", cpu)
	n = split($0, parts, "=>")
	from = parts[1]; sub(/^ *[0-9]+\)/, "", from); gsub(/[ \t]/, "", from)
	to = parts[2]; gsub(/[ \t]/, "", to)
	from = pid_of(from); to = pid_of(to)
	if (!(cpu in cur)) {
		# lines already seen on this CPU belong to "from"
		alias["?" cpu] = from
	}
	cur[cpu] = to
	seen_task[from] = 1; seen_task[to] = 1
	nswitch++
	next
}

# function tracer: "  prog-1234  [000] .....  1234.567890: func <-parent"
/^ *.+-[0-9]+ +\[[0-9]+\] .*[0-9]+\.[0-9]+: / {
	line = $0
	match(line, /-[0-9]+ +\[/)
	pre = substr(line, 1, RSTART + RLENGTH - 2)
	sub(/ +$/, "", pre)
	tid = pid_of(pre)
	rest = line
	sub(/^.*[0-9]+\.[0-9]+: /, "", rest)
	fn = rest; par = ""
	k = index(rest, " <-")
	if (k) { fn = substr(rest, 1, k - 1); par = substr(rest, k + 3) }
	sub(/[ \t]+$/, "", fn); sub(/[ \t]+$/, "", par)
	fn = basename_of(fn); par = basename_of(par)
	key = fn SUBSEP par SUBSEP tid
	fcount[key]++
	if (!((fn, tid) in ftids)) { ftids[fn, tid] = 1; flist[fn] = flist[fn] (flist[fn] == "" ? "" : ",") tid }
	nflines++
	next
}

# function_graph: " 0)   0.123 us    |      fib();"
/^ *[0-9]+\) / && index($0, "|") {
	cpu = $1; sub(/\)$/, "", cpu)
	n = split($0, f, "|")
	task = ""
	if (n >= 3 && f[1] ~ /-[0-9]+ *$/) {
		# funcgraph-proc column
		t = f[1]; sub(/^ *[0-9]+\) */, "", t); sub(/ +$/, "", t)
		task = pid_of(t)
		text = substr($0, length(f[1]) + length(f[2]) + 3)
	} else {
		text = substr($0, length(f[1]) + 2)
		if (f[1] ~ /-[0-9]+ +\[[0-9]+\]/) {
			t = f[1]; match(t, /[^ ]+-[0-9]+ +\[/)
			t = substr(t, RSTART, RLENGTH); sub(/ +\[$/, "", t)
			task = pid_of(t)
		}
	}
	if (task == "") {
		if (cpu in cur) task = cur[cpu]
		else task = "?" cpu
	}
	match(text, /^ */)
	sp = RLENGTH
	body = substr(text, sp + 1)
	depth = int((sp - 2) / 2)
	nrec++
	rtask[nrec] = task; rdepth[nrec] = depth; rbody[nrec] = body
	nlines++
	next
}

{ nbad++; if (nbad <= 5) printf "badline %s\n", $0 }

END {
	printf "tracer %s\n", tracer
	printf "lines %d\n", nlines
	printf "flines %d\n", nflines
	printf "lost %d\n", nlost
	printf "badlines %d\n", nbad
	printf "switches %d\n", nswitch
	for (i = 1; i <= nrec; i++) {
		t = rtask[i]
		if (t ~ /^\?/) {
			if (t in alias) t = resolve(t)
			else if (nswitch == 0) t = "main"
		}
		body = rbody[i]; d = rdepth[i]
		if (!(t in sp_)) { sp_[t] = 0; tasks[++ntasks] = t; bad_unmatched[t] = 0 }
		if (body ~ /^\}/) {
			exits[t]++
			if (sp_[t] > 0) {
				name = stk[t, sp_[t]]
				cmt = body
				if (cmt ~ /\/\* .* \*\//) {
					sub(/^\} *\/\* */, "", cmt); sub(/ *\*\/.*$/, "", cmt)
					sub(/ = .*$/, "", cmt) # funcgraph-retval
					if (basename_of(cmt) != name) badnest[t]++
				}
				sp_[t]--
			} else {
				unmatched[t]++
				bad_unmatched[t] = 1
				# "} /* name */" with no entry (tracing_thresh, lost
				# entries): the function was still called
				if (body ~ /\/\* .* \*\//) {
					name = body
					sub(/^\} *\/\* */, "", name); sub(/ *\*\/.*$/, "", name)
					sub(/ = .*$/, "", name) # funcgraph-retval
					name = basename_of(name)
					if (!(name in cnt)) { names[++nnames] = name; mind[name] = d; maxd[name] = d }
					cnt[name]++
					if (d < mind[name]) mind[name] = d
					if (d > maxd[name]) maxd[name] = d
					if (!((name, t) in ntask)) { ntask[name, t] = 1; tlist[name] = tlist[name] (tlist[name] == "" ? "" : ",") t }
				}
			}
			if (!bad_unmatched[t] && d != capd(base[t] + sp_[t])) badindent[t]++
			continue
		}
		name = basename_of(body)
		if (!(t in base)) base[t] = d
		if (!bad_unmatched[t] && d != capd(base[t] + sp_[t])) badindent[t]++
		if (body ~ /\{$/) {
			entries[t]++
			stk[t, ++sp_[t]] = name
		} else {
			leaves[t]++
		}
		if (!(name in cnt)) { names[++nnames] = name; mind[name] = d; maxd[name] = d }
		cnt[name]++
		if (d < mind[name]) mind[name] = d
		if (d > maxd[name]) maxd[name] = d
		if (!((name, t) in ntask)) { ntask[name, t] = 1; tlist[name] = tlist[name] (tlist[name] == "" ? "" : ",") t }
	}
	printf "tasks %d\n", ntasks
	for (i = 1; i <= ntasks; i++) {
		t = tasks[i]
		printf "task %s entries %d leaves %d exits %d open %d unmatched %d badnest %d badindent %d\n",
			t, entries[t], leaves[t], exits[t], sp_[t], unmatched[t], badnest[t], badindent[t]
	}
	for (i = 1; i <= nnames; i++) {
		nm = names[i]
		printf "func %s count %d mind %d maxd %d tasks %s\n", nm, cnt[nm], mind[nm], maxd[nm], tlist[nm]
	}
	for (key in fcount) {
		split(key, kk, SUBSEP)
		printf "fcall %s %s tid %s count %d\n", kk[1], (kk[2] == "" ? "-" : kk[2]), kk[3], fcount[key]
	}
	for (fn in flist)
		printf "ftid %s %s\n", fn, flist[fn]
}

# the depth a line is indented at: the report stops indenting at MAXIND
function capd(depth) { return depth < MAXIND ? depth : MAXIND }
BEGIN { MAXIND = 100 }
