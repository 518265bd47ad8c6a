/* SPDX-License-Identifier: MIT */
/* messages.bt's output for test_bt_print.c: its printf(), time(), cat()
 * and system() output as bpftrace formatted it, in the order it printed */

static void test_messages(void)
{
	static const struct utrace_bt_scalar k1[] = {I(1)};
	static const struct utrace_bt_entry m[] = {{.key = k1, .value = I(2)}};
	static const struct utrace_bt_map maps[] = {
		{"@m", 1, UTRACE_BT_AGG_SCALAR, .entries = m, .nentries = 1},
	};
#define MSG(t, s) {.text = (s), .type = UTRACE_BT_MSG_##t}
	static const struct step steps[] = {
		MSG(PRINTF, "a \"q\" \t tab\n"), MSG(PRINTF, "no newline"), MSG(PRINTF, "\n"),
		MSG(PRINTF, "\xc3\xa9 -3 x\n"), MSG(TIME, "T:%\n"),
		MSG(CAT, "a \"cat\" file\twith a tab\n\xc3\xa9\n"), MSG(SYSCALL, "sys\n"),
		MSG(PRINTF, "end\n"),
	};
#undef MSG

	run_case("messages", 2, steps, N(steps), maps, N(maps));
}

/* output.cpp: out_ << "Lost " << lost << " events" << std::endl, and
 * message(MessageType::lost_events, "events", lost) in json */
static void test_lost(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	utrace_bt_lost_print(out, 12, UTRACE_BT_TEXT);
	utrace_bt_lost_print(out, 0, UTRACE_BT_JSON);
	fclose(out);
	check(!strcmp(buf, "Lost 12 events\n{\"type\": \"lost_events\", \"data\": {\"events\": 0}}\n"),
	      "lost events as bpftrace prints them");
	free(buf);
}
