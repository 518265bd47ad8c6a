# SPDX-License-Identifier: MIT
#
# tests/e2e/t/graph-fdclose-raw.sh - fdclose.c raw: syscall(SYS_close_range,
# 3, ~0U, 0), which no interposer sees, then traced calls and a new thread
# Must hold: the recorder's line, the summary's count, the report's notice,
# nothing of utrace's on the program's stderr; the main thread's 200 calls
# after the close kept.

e2e_test "fdclose-raw -- fdclose raw"

# A close that libc never sees: the recorder says so (the runtime, whose
# messages go to the recorder, cannot) and keeps what the process goes on
# writing into its buffer; nothing reaches the program's stderr (the
# stderr comparison).
check_fdclose_raw() {
	t "$(grep -q "^utrace record: pid [0-9]*: closed utrace's connection; threads and libraries it starts from now on are not traced$" \
		"$RES/t.err"; echo $?)" "$CFG $TEST the recorder says the connection was closed" "$(cat "$RES/t.err")"
	t "$(grep -q "^utrace record: 1 process closed utrace's connection" "$RES/t.err"; echo $?)" \
		"$CFG $TEST the summary counts it" "$(cat "$RES/t.err")"
	t "$(grep -q "^utrace report: notice: [0-9]* [0-9]* closed utrace's connection" "$RES/rep.err"; echo $?)" \
		"$CFG $TEST the report says it" "$(cat "$RES/rep.err")"
	expect_func "$CFG $TEST the main thread's calls after the close are kept" work count 200
	expect_func "$CFG $TEST phase twice, in main" phase count 2 depth 2
	expect_balanced "$CFG $TEST braces balance"
}
