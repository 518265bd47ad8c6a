/* SPDX-License-Identifier: MIT */
/*
 * test_hist_parse.c - triggers and hist triggers as the kernel reads them
 * (lib/hist/hist_parse.c, hist_expr.c, trigger_parse.c): every attribute,
 * modifier, handler and action, and every error the kernel finds from the
 * text alone, with its code and the column of the kernel's caret (which,
 * as in the kernel, is the first occurrence of the offending text).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/hist/hist.h"
#include "tests/unit/check.h"

/* Each case checked against trace_events_hist.c by hand. */
static const struct {
	const char *text;
	int ret, code, column;
} errors[] = {
    {"hist:keys=pid.foo", -EINVAL, UTRACE_HIST_ERR_BAD_FIELD_MODIFIER, 15},
    {"hist:keys=pid:vals=bytes.foo", -EINVAL, UTRACE_HIST_ERR_BAD_FIELD_MODIFIER, 26},
    {"hist:keys=common_pid.execname,prio:vals=x.execname", -EINVAL, UTRACE_HIST_ERR_BAD_FIELD_MODIFIER, 22},
    {"hist:keys=pid.percent", -EINVAL, UTRACE_HIST_ERR_BAD_FIELD_MODIFIER, 15},
    {"hist:keys=pid:x=bytes.graph", -EINVAL, UTRACE_HIST_ERR_BAD_FIELD_MODIFIER, 23},
    {"hist:keys=pid:vals=bytes.log2", -EINVAL, UTRACE_HIST_ERR_BAD_FIELD_MODIFIER, 20},
    {"hist:keys=pid:vals=bytes.sym", -EINVAL, UTRACE_HIST_ERR_BAD_FIELD_MODIFIER, 20},
    {"hist:keys=pid.buckets=0", -EINVAL, UTRACE_HIST_ERR_BAD_FIELD_MODIFIER, 23},
    {"hist:keys=pid.buckets=abc", -EINVAL, UTRACE_HIST_ERR_BAD_FIELD_MODIFIER, 23},
    {"hist:keys=pid.bucketx=10", -EINVAL, UTRACE_HIST_ERR_BAD_FIELD_MODIFIER, 21},
    {"hist:keys=pid:x=a+b+c+d+e", -EINVAL, UTRACE_HIST_ERR_TOO_MANY_SUBEXPR, 17},
    {"hist:keys=pid:x=-(-(-(-(a))))", -EINVAL, UTRACE_HIST_ERR_TOO_MANY_SUBEXPR, 17},
    {"hist:keys=pid:x=a/0", -EDOM, UTRACE_HIST_ERR_DIVISION_BY_ZERO, 19},
    {"hist:keys=pid:x=a/(2-2)", -EINVAL, UTRACE_HIST_ERR_EXPECT_NUMBER, 22},
    {"hist:keys=pid:x=-(a)+b", -EINVAL, UTRACE_HIST_ERR_UNARY_MINUS_SUBEXPR, 19},
    {"hist:keys=pid:x=-a", -EINVAL, -1, 0},
    {"hist:keys=pid:x=-(a", -EINVAL, -1, 0},
    {"hist:keys=pid:x=a+", -EINVAL, -1, 0},
    {"hist:keys=pid:x=1x", -EINVAL, UTRACE_HIST_ERR_EXPECT_NUMBER, 17},
    {"hist:keys=pid:x=common_timestamp.usecs-common_timestamp", -EINVAL, UTRACE_HIST_ERR_TIMESTAMP_MISMATCH, 1},
    {"hist:keys=pid:vals=", -EINVAL, UTRACE_HIST_ERR_EMPTY_ASSIGNMENT, 15},
    {"hist:keys=pid:foo=", -EINVAL, UTRACE_HIST_ERR_EMPTY_ASSIGNMENT, 15},
    {"hist:keys=pid:sort=", -EINVAL, UTRACE_HIST_ERR_EMPTY_ASSIGNMENT, 15},
    {"hist:keys=pid:sort=hitcount,", -EINVAL, UTRACE_HIST_ERR_EMPTY_SORT_FIELD, 15},
    {"hist:keys=pid:vals=a,b:sort=a,b,hitcount", -EINVAL, UTRACE_HIST_ERR_TOO_MANY_SORT_FIELDS, 24},
    {"hist:keys=pid:sort=pid.up", -EINVAL, UTRACE_HIST_ERR_INVALID_SORT_MODIFIER, 24},
    {"hist:keys=pid:sort=hitcount.down", -EINVAL, UTRACE_HIST_ERR_INVALID_SORT_MODIFIER, 29},
    {"hist:keys=pid:sort=prio", -EINVAL, UTRACE_HIST_ERR_INVALID_SORT_FIELD, 20},
    {"hist:keys=pid:sort=.descending", -EINVAL, UTRACE_HIST_ERR_EMPTY_SORT_FIELD, 15},
    {"hist:keys=pid:nohitcount", -ENOENT, UTRACE_HIST_ERR_NEED_NOHC_VAL, 1},
    {"hist:keys=pid:vals=hitcount:NOHC", -ENOENT, UTRACE_HIST_ERR_NEED_NOHC_VAL, 1},
    {"hist:keys=pid:size=262144", -EINVAL, -1, 0},
    {"hist:keys=pid:size=abc", -EINVAL, -1, 0},
    {"hist:keys=pid:bogus", -EINVAL, -1, 0},
    {"hist:vals=x", -EINVAL, -1, 0},
    {"hist:keys=a,b,c,d", -EINVAL, -1, 0},
    {"hist:keys=pid:vals=a,b,c", -EINVAL, -1, 0},
    {"hist:keys=$x", -EINVAL, UTRACE_HIST_ERR_INVALID_REF_KEY, 11},
    {"hist:keys=pid:x=a:x=b", -EINVAL, UTRACE_HIST_ERR_DUPLICATE_VAR, 15},
    {"hist:keys=pid:a=1:b=1:c=1:d=1:e=1:f=1:g=1:h=1:i=1:j=1:k=1:l=1:m=1:n=1:o=1:p=1:q=1", -EINVAL, UTRACE_HIST_ERR_TOO_MANY_VARS, 79},
    {"hist:keys=pid:x", -EINVAL, -1, 0},
    {"hist:keys=pid:onmatch(sched.wakeup.foo(a,b)", -EINVAL, UTRACE_HIST_ERR_ACTION_NOT_FOUND, 1},
    {"hist:keys=pid:onmatch(sched).foo(ab)", -EINVAL, UTRACE_HIST_ERR_SUBSYS_NOT_FOUND, 23},
    {"hist:keys=pid:onmatch(sched.e", -EINVAL, UTRACE_HIST_ERR_NO_CLOSING_PAREN, 23},
    {"hist:keys=pid:onmatch(sched.e).save(ab)", -EINVAL, UTRACE_HIST_ERR_ACTION_MISMATCH, 32},
    {"hist:keys=pid:onmatch(sched.e).snapshot()", -EINVAL, UTRACE_HIST_ERR_ACTION_MISMATCH, 32},
    {"hist:keys=pid:onmatch(sched.e)", -EINVAL, UTRACE_HIST_ERR_ACTION_NOT_FOUND, 1},
    {"hist:keys=pid:onmatch(sched.e).foo", -EINVAL, UTRACE_HIST_ERR_ACTION_NOT_FOUND, 1},
    {"hist:keys=pid:onmatch(sched.e).foo(a)", -EINVAL, UTRACE_HIST_ERR_INVALID_PARAM, 18},
    {"hist:keys=pid:onmatch(sched.e).foo()", -EINVAL, UTRACE_HIST_ERR_INVALID_PARAM, 1},
    {"hist:keys=pid:t=prio:onmax(t).save(ab)", -EINVAL, UTRACE_HIST_ERR_ONX_NOT_VAR, 4},
    {"hist:keys=pid:t=prio:onmax($u).save(ab)", -EINVAL, UTRACE_HIST_ERR_ONX_VAR_NOT_FOUND, 29},
    {"hist:keys=pid:t=prio:onmax($t).snapshot(", -EINVAL, UTRACE_HIST_ERR_NO_CLOSING_PAREN, 1},
    {"hist:keys=pid:t=prio:onmax($t", -EINVAL, -1, 0},
    {"hist:keys=pid:t=prio:onmax($t).save(ab):onchange($t).save(cd)", -EEXIST, UTRACE_HIST_ERR_TOO_MANY_SAVE_ACTIONS, 1},
    {"hist:keys=pid:vals=a if", -EINVAL, -1, 0},
    {"if keys=pid", -EINVAL, -1, 0},
};

static void test_errors(void)
{
	for (unsigned i = 0; i < sizeof(errors) / sizeof(errors[0]); i++) {
		struct utrace_hist_spec *s = (void *)1;
		struct utrace_error err = {0};
		int code = -99, ret = utrace_hist_parse(errors[i].text, &s, &code, &err);
		const char *want = errors[i].code < 0 ? "Invalid argument"
						      : utrace_hist_err_text(errors[i].code);

		check(ret == errors[i].ret && code == errors[i].code && !s &&
			      err.column == errors[i].column && !strncmp(err.msg, want, strlen(want)),
		      "%s: %d code %d column %d \"%s\"", errors[i].text, ret, code, err.column,
		      err.msg);
	}
}

static struct utrace_hist_spec *parse_ok(const char *text)
{
	struct utrace_hist_spec *s = NULL;
	struct utrace_error err = {0};
	int code = -99, ret = utrace_hist_parse(text, &s, &code, &err);

	check(!ret && s && code == UTRACE_HIST_ERR_NONE, "parses: %s (%s)", text, err.msg);
	return ret ? NULL : s;
}

static void test_attributes(void)
{
	static const char text[] =
	    "hist:name=foo:keys=common_pid.execname,bytes_req.log2,call_site.sym-offset:"
	    "values=bytes_alloc.hex,hitcount:sort=bytes_alloc.descending,common_pid:size=3000:"
	    "pause:cont:clear:NOHC:clock=mono if comm == \"bash\"";
	struct utrace_hist_spec *s = parse_ok(text);

	if (!s)
		return;
	check(s->nr_keys == 3 && !strcmp(s->keys[0]->name, "common_pid") &&
		      s->keys[0]->mods == UTRACE_HIST_MOD_EXECNAME &&
		      s->keys[1]->mods == UTRACE_HIST_MOD_LOG2 &&
		      !strcmp(s->keys[2]->name, "call_site") &&
		      s->keys[2]->mods == UTRACE_HIST_MOD_SYM_OFFSET && s->keys[2]->pos == (unsigned)(strstr(text, "call_site") - text),
	      "keys and their modifiers");
	/* "hitcount" after two values is the implied one, as the kernel */
	check(s->nr_vals == 1 && s->vals[0]->mods == UTRACE_HIST_MOD_HEX &&
		      utrace_hist_val_sum(s, 0) == 1,
	      "values");
	check(s->nr_sort == 2 && !strcmp(s->sort[0].name, "bytes_alloc") && s->sort[0].descending &&
		      !strcmp(s->sort[1].name, "common_pid") && !s->sort[1].descending,
	      "sort keys");
	check(s->map_bits == 12 && !strcmp(s->name, "foo") && !strcmp(s->clock, "mono") &&
		      s->pause && s->cont && s->clear && s->nohitcount,
	      "size, name, clock, flags");
	check(s->filter && !strcmp(s->filter, "comm == \"bash\"") && s->filter_pos == (unsigned)(strstr(text, "comm ==") - text),
	      "filter %s at %u", s->filter, s->filter_pos);
	utrace_hist_spec_free(s);

	s = parse_ok("hist:key=a.buckets=100,b.syscall,c.sym:val=d,e:size=131072");
	if (s) {
		check(s->keys[0]->mods == UTRACE_HIST_MOD_BUCKETS && s->keys[0]->buckets == 100 &&
			      s->keys[1]->mods == UTRACE_HIST_MOD_SYSCALL &&
			      s->keys[2]->mods == UTRACE_HIST_MOD_SYM && s->nr_vals == 2 &&
			      s->map_bits == 17 && !s->nr_sort && !s->filter,
		      "key=, val=, buckets, syscall, sym, largest size");
		utrace_hist_spec_free(s);
	}
	s = parse_ok("hist:keys=stacktrace:vals=x.percent,y.graph:nohitcount");
	if (s) {
		check(s->keys[0]->mods == UTRACE_HIST_MOD_STACKTRACE &&
			      s->vals[0]->mods == UTRACE_HIST_MOD_PERCENT &&
			      s->vals[1]->mods == UTRACE_HIST_MOD_GRAPH,
		      "stacktrace key, percent and graph values");
		utrace_hist_spec_free(s);
	}
}

static void test_expressions(void)
{
	static const char text[] =
	    "hist:keys=next_pid:lat=common_timestamp.usecs-$ts0,x=a-b-c,y=8/2*3,"
	    "z=-(q),w=sched.sched_waking.$ts0:v=$lat:onmatch(sched.sched_waking)."
	    "wakeup_latency($lat,next_pid)";
	struct utrace_hist_spec *s = parse_ok(text);
	const struct utrace_hist_expr *e;

	if (!s)
		return;
	check(s->nr_vars == 6 && !strcmp(s->vars[0].name, "lat") && s->vars[0].pos == 19,
	      "variables");
	e = s->vars[0].expr;
	check(e->op == UTRACE_HE_MINUS && e->l->op == UTRACE_HE_FIELD &&
		      e->l->mods == UTRACE_HIST_MOD_USECS && e->r->op == UTRACE_HE_VAR_REF &&
		      !strcmp(e->r->name, "ts0") && e->r->pos == (unsigned)(strstr(text, "$ts0") - text),
	      "timestamp minus a variable");
	e = s->vars[1].expr; /* left to right: (a-b)-c */
	check(e->op == UTRACE_HE_MINUS && e->l->op == UTRACE_HE_MINUS && !strcmp(e->r->name, "c"),
	      "a-b-c is (a-b)-c");
	e = s->vars[2].expr; /* (8/2)*3 */
	check(e->op == UTRACE_HE_MULT && e->l->op == UTRACE_HE_DIV && e->r->constant == 3,
	      "8/2*3 is (8/2)*3");
	check(s->vars[3].expr->op == UTRACE_HE_UMINUS && !strcmp(s->vars[3].expr->l->name, "q"),
	      "unary minus");
	check(s->vars[4].expr->op == UTRACE_HE_VAR_REF &&
		      !strcmp(s->vars[4].expr->name, "sched.sched_waking.ts0"),
	      "qualified variable");
	check(s->nr_actions == 1 && s->actions[0].handler == UTRACE_HIST_ONMATCH &&
		      !strcmp(s->actions[0].match_system, "sched") &&
		      !strcmp(s->actions[0].match_event, "sched_waking") &&
		      s->actions[0].kind == UTRACE_HIST_ACT_TRACE &&
		      !strcmp(s->actions[0].synth, "wakeup_latency") &&
		      s->actions[0].nr_params == 2 && !strcmp(s->actions[0].params[0], "$lat") &&
		      !s->actions[0].trace_keyword,
	      "onmatch().synth(params)");
	utrace_hist_spec_free(s);

	/* "$p" for a variable that is a plain field reads the field (the kernel's
	 * local_field_var_ref()), so it may be a key */
	s = parse_ok("hist:keys=$p:p=next_pid");
	if (s) {
		check(s->keys[0]->op == UTRACE_HE_FIELD && !strcmp(s->keys[0]->name, "next_pid"),
		      "$var of a plain field");
		utrace_hist_spec_free(s);
	}
}

static void test_handlers(void)
{
	static const char text[] =
	    "hist:keys=pid:m=prio,c=cpu:onmax($m).save(comm,prio):onchange($c).snapshot():"
	    "onmatch(a.b).trace(synth, x1 ,$m)";
	struct utrace_hist_spec *s = parse_ok(text);

	if (!s)
		return;
	check(s->nr_actions == 3 && s->actions[0].handler == UTRACE_HIST_ONMAX &&
		      !strcmp(s->actions[0].var, "m") && s->actions[0].kind == UTRACE_HIST_ACT_SAVE &&
		      s->actions[0].nr_params == 2 && !strcmp(s->actions[0].params[1], "prio") &&
		      s->actions[0].pos == (unsigned)(strstr(text, "onmax") - text),
	      "onmax().save()");
	check(s->actions[1].handler == UTRACE_HIST_ONCHANGE && !strcmp(s->actions[1].var, "c") &&
		      s->actions[1].kind == UTRACE_HIST_ACT_SNAPSHOT && !s->actions[1].nr_params,
	      "onchange().snapshot()");
	check(s->actions[2].kind == UTRACE_HIST_ACT_TRACE && s->actions[2].trace_keyword &&
		      !strcmp(s->actions[2].synth, "synth") && s->actions[2].nr_params == 2 &&
		      !strcmp(s->actions[2].params[0], "x1"),
	      "trace(synth, params), blanks stripped");
	utrace_hist_spec_free(s);
}

static void test_triggers(void)
{
	static const struct {
		const char *text;
		enum utrace_trigger_cmd cmd;
		bool remove;
		long count;
		const char *sys, *event, *filter;
	} ok[] = {
	    {"traceon", UTRACE_TRIG_TRACEON, false, -1, NULL, NULL, NULL},
	    {"traceoff:5", UTRACE_TRIG_TRACEOFF, false, 5, NULL, NULL, NULL},
	    {"snapshot if pid == 1", UTRACE_TRIG_SNAPSHOT, false, -1, NULL, NULL, "pid == 1"},
	    {"stacktrace:0x10 if a>1\t", UTRACE_TRIG_STACKTRACE, false, 16, NULL, NULL, "a>1"},
	    {"enable_event:sched:sched_switch:2", UTRACE_TRIG_ENABLE_EVENT, false, 2, "sched",
	     "sched_switch", NULL},
	    {"!disable_event:a:b", UTRACE_TRIG_DISABLE_EVENT, true, -1, "a", "b", NULL},
	    {"enable_hist:a:b if x", UTRACE_TRIG_ENABLE_HIST, false, -1, "a", "b", "x"},
	    {"disable_hist:a:b:3", UTRACE_TRIG_DISABLE_HIST, false, 3, "a", "b", NULL},
	    {"  hist:keys=pid if prio > 5", UTRACE_TRIG_HIST, false, -1, NULL, NULL, "prio > 5"},
	};
	static const struct {
		const char *text;
		int column;
	} bad[] = {
	    {"bogus", 1},	 {"traceon:x", 9},	   {"traceon foo", 9},
	    {"enable_event", 0}, {"enable_event:sched", 14}, {"!traceon:-1", 0},
	};

	for (unsigned i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct utrace_trigger *t = NULL;
		struct utrace_error err = {0};
		int code = -99, ret = utrace_trigger_parse(ok[i].text, &t, &code, &err);

		check(!ret && t && t->cmd == ok[i].cmd && t->remove == ok[i].remove &&
			      t->count == ok[i].count &&
			      (ok[i].sys ? t->target_system && !strcmp(t->target_system, ok[i].sys)
					 : !t->target_system) &&
			      (ok[i].event ? !strcmp(t->target_event, ok[i].event) : !t->target_event) &&
			      (ok[i].filter ? t->filter && !strcmp(t->filter, ok[i].filter)
					    : !t->filter) &&
			      (t->cmd == UTRACE_TRIG_HIST) == !!t->hist,
		      "trigger %s (%s)", ok[i].text, err.msg);
		utrace_trigger_free(t);
	}
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct utrace_trigger *t = (void *)1;
		struct utrace_error err = {0};
		int code = 0, ret = utrace_trigger_parse(bad[i].text, &t, &code, &err);

		/* "!traceon:-1" is fine: a removal does not read its count */
		if (i == 5) {
			check(!ret && t && t->remove, "removal ignores the count");
			utrace_trigger_free(ret ? NULL : t);
			continue;
		}
		check(ret == -EINVAL && code == -1 && !t && err.column == bad[i].column,
		      "bad trigger %s: %d column %d", bad[i].text, ret, err.column);
	}
	check(!strcmp(utrace_trigger_cmd_name(UTRACE_TRIG_ENABLE_EVENT), "enable_event") &&
		      !strcmp(utrace_trigger_cmd_name(UTRACE_TRIG_HIST), "hist"),
	      "command names");
	check(!strcmp(utrace_hist_err_text(UTRACE_HIST_ERR_NEED_NOHC_VAL),
		      "Non-hitcount value is required for 'nohitcount'"),
	      "error texts");
}

/* hist_trigger_match: which hist triggers are one for :pause, :cont,
 * :clear, `!` and EEXIST */
static void test_same(void)
{
	static const struct {
		const char *a, *b;
		bool same;
	} cases[] = {
	    {"hist:keys=id", "hist:key=id:clear", true},
	    {"hist:keys=id", "hist:keys=id:pause", true},
	    {"hist:keys=id:vals=hitcount", "hist:keys=id:cont", true},
	    {"hist:keys=id:size=256", "hist:keys=id:size=4096:continue", true},
	    {"hist:keys=id:ts0=common_timestamp.usecs",
	     "hist:keys=id:ts0=common_timestamp.usecs:clock=mono:clear", true},
	    {"hist:keys=id", "hist:keys=id:vals=len", false},
	    {"hist:keys=id", "hist:keys=id:sort=id", false},
	    {"hist:keys=id", "hist:keys=id.hex", false},
	    {"hist:keys=id", "hist:keys=id:clear if id > 1", false},
	    {"hist:keys=id if id > 1", "hist:keys=id:pause if id > 2", false},
	    {"hist:keys=id", "hist:name=t:keys=id", false},
	    {"hist:keys=id:a=len", "hist:keys=id:b=len", false},
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct utrace_hist_spec *a = parse_ok(cases[i].a), *b = parse_ok(cases[i].b);

		check(a && b && utrace_hist_spec_same(a, b) == cases[i].same &&
			      utrace_hist_spec_same(b, a) == cases[i].same,
		      "'%s' and '%s' are %s", cases[i].a, cases[i].b,
		      cases[i].same ? "one trigger" : "two");
		utrace_hist_spec_free(a);
		utrace_hist_spec_free(b);
	}
}

int main(void)
{
	test_errors();
	test_attributes();
	test_expressions();
	test_handlers();
	test_triggers();
	test_same();
	return check_done();
}
