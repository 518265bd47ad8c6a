/* SPDX-License-Identifier: MIT */
/*
 * test_wakeup_lat.c - the wakeup and wakeup_rt tracers' rules
 * (lib/record/wakeup_lat.h) on sched records made by hand, in the
 * kernel's layouts: only the recording's tasks are waited for (a kernel
 * thread woken by a traced task, whose switch in the instance may not
 * keep, would hold the wait for good); a later wakeup of the task waited
 * for, or a switch out of it, ends the wait; the task is named as it is
 * switched in (after an exec).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/events/event_format.h"
#include "lib/record/wakeup_lat.h"
#include "tests/unit/check.h"

#define COMMON                                                                                     \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"                     \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"                     \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"             \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static const char switch_fmt[] =
    "name: sched_switch\nID: 372\nformat:\n" COMMON
    "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
    "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
    "\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
    "\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
    "\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
    "\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
    "\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
    "print fmt: \"prev_pid=%d next_pid=%d\", REC->prev_pid, REC->next_pid\n";

static const char wakeup_fmt[] = "name: sched_wakeup\nID: 374\nformat:\n" COMMON
				 "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
				 "\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
				 "\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
				 "\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n\n"
				 "print fmt: \"pid=%d\", REC->pid\n";

enum { SWITCH_ID = 372, WAKEUP_ID = 374 };
enum { SHELL = 100, KWAKE = 200, MIGRATION = 18 }; /* the recording's: SHELL, KWAKE */

static bool own(void *arg, int pid)
{
	(void)arg;
	return pid == SHELL || pid == KWAKE;
}

static void put32(uint8_t *rec, uint32_t off, int32_t v)
{
	memcpy(rec + off, &v, 4);
}

/* cur wakes pid (prio, comm) at ts us */
static void wake(struct utrace_wakeup_lat *w, int32_t cur, int32_t pid, int32_t prio,
		 const char *comm, uint64_t us)
{
	uint8_t rec[36] = {0};

	memcpy(rec, &(uint16_t){WAKEUP_ID}, 2);
	put32(rec, 4, cur);
	strncpy((char *)rec + 8, comm, 16);
	put32(rec, 24, pid);
	put32(rec, 28, prio);
	put32(rec, 32, 1);
	utrace_wakeup_lat_record(w, WAKEUP_ID, 1, us * 1000, rec, sizeof(rec));
}

/* prev (state 1: S) switches to next at ts us */
static void sw(struct utrace_wakeup_lat *w, int32_t prev, int32_t prev_prio, int32_t next,
	       int32_t next_prio, const char *next_comm, uint64_t us)
{
	uint8_t rec[64] = {0};
	int64_t state = 1;

	memcpy(rec, &(uint16_t){SWITCH_ID}, 2);
	put32(rec, 4, prev);
	strncpy((char *)rec + 8, prev == SHELL ? "sh" : "other", 16);
	put32(rec, 24, prev);
	put32(rec, 28, prev_prio);
	memcpy(rec + 32, &state, 8);
	strncpy((char *)rec + 40, next_comm, 16);
	put32(rec, 56, next);
	put32(rec, 60, next_prio);
	utrace_wakeup_lat_record(w, SWITCH_ID, 1, us * 1000, rec, sizeof(rec));
}

static struct utrace_wakeup_lat *tracer(bool rt, bool scoped)
{
	struct utrace_event_format *sf = NULL, *wf = NULL;
	struct utrace_error err = {0};
	struct utrace_wakeup_lat *w = NULL;

	if (utrace_event_format_parse("sched", switch_fmt, &sf, &err) < 0 ||
	    utrace_event_format_parse("sched", wakeup_fmt, &wf, &err) < 0 ||
	    utrace_wakeup_lat_new(&w) < 0) {
		check(0, "the formats parse (%s)", err.msg);
		exit(1);
	}
	utrace_wakeup_lat_format(w, sf, SWITCH_ID);
	utrace_wakeup_lat_format(w, wf, WAKEUP_ID);
	utrace_event_format_free(sf);
	utrace_event_format_free(wf);
	utrace_wakeup_lat_scope(w, scoped ? own : NULL, NULL);
	utrace_wakeup_lat_start(w, true, rt);
	return w;
}

/* the trace file's text, malloc'd */
static char *trace_of(struct utrace_wakeup_lat *w)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		exit(1);
	utrace_wakeup_lat_print(w, f);
	fclose(f);
	return buf;
}

/* The shell wakes migration/1 (prio 0), whose switch in the instance did
 * not keep; then kwake (prio 94) is woken and switched in 50 us later. */
static void test_own_only(void)
{
	struct utrace_wakeup_lat *w = tracer(true, true);
	char *t;

	sw(w, 0, 120, SHELL, 120, "sh", 1);
	wake(w, SHELL, MIGRATION, 0, "migration/1", 10);
	wake(w, 0, KWAKE, 94, "kwake", 100);
	sw(w, SHELL, 120, KWAKE, 94, "kwake", 150);
	check(utrace_wakeup_lat_max(w) == 50000,
	      "a task not the recording's is not waited for: kwake measured (%llu ns)",
	      (unsigned long long)utrace_wakeup_lat_max(w));
	t = trace_of(w);
	check(strstr(t, "#    | task: kwake-200 (") != NULL, "the trace is kwake's");
	free(t);
	utrace_wakeup_lat_free(w);
}

/* Every task (no scope): a task woken again before its switch in was
 * seen is waited for from the later wakeup. */
static void test_rewake(void)
{
	struct utrace_wakeup_lat *w = tracer(true, false);

	wake(w, SHELL, MIGRATION, 0, "migration/1", 10);
	wake(w, SHELL, MIGRATION, 0, "migration/1", 500);
	sw(w, SHELL, 120, MIGRATION, 0, "migration/1", 530);
	check(utrace_wakeup_lat_max(w) == 30000,
	      "a later wakeup of the task waited for ends the wait: 30 us from it (%llu ns)",
	      (unsigned long long)utrace_wakeup_lat_max(w));
	utrace_wakeup_lat_free(w);
}

/* Every task: the task waited for is seen switched out (it ran): the
 * wait ends, and kwake's wakeup is waited for. */
static void test_switch_out(void)
{
	struct utrace_wakeup_lat *w = tracer(true, false);

	wake(w, SHELL, MIGRATION, 0, "migration/1", 10);
	sw(w, MIGRATION, 0, SHELL, 120, "sh", 20);
	wake(w, SHELL, KWAKE, 94, "kwake", 100);
	sw(w, SHELL, 120, KWAKE, 94, "kwake", 140);
	check(utrace_wakeup_lat_max(w) == 40000,
	      "a switch out of the task waited for ends the wait: kwake measured (%llu ns)",
	      (unsigned long long)utrace_wakeup_lat_max(w));
	utrace_wakeup_lat_free(w);
}

/* The task woken as chrt execs kwake before its switch in. */
static void test_comm_at_switch(void)
{
	struct utrace_wakeup_lat *w = tracer(true, true);
	bool ok;
	char *t;

	wake(w, 0, KWAKE, 94, "chrt", 100);
	sw(w, SHELL, 120, KWAKE, 94, "kwake", 120);
	t = trace_of(w);
	ok = strstr(t, "#    | task: kwake-200 (") && strstr(t, ": 94:R kwake\n") && !strstr(t, "chrt");
	check(ok, "the task is named as it is switched in%s%s", ok ? "" : ":\n", ok ? "" : t);
	free(t);
	utrace_wakeup_lat_free(w);
}

int main(void)
{
	test_own_only();
	test_rewake();
	test_switch_out();
	test_comm_at_switch();
	return check_done();
}
