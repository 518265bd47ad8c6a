/* SPDX-License-Identifier: MIT */
/*
 * test_inproc_probe_ctl.c - removing in-process probes while the programs run
 * (utrace_recorder_inproc_probe_remove, lib/record/recorder_inproc_probe.c): the bit
 * of the control page that every traced process's runtime acts on
 * (common/proto.h ipp_off, runtime/inproc_probes.c), by group and event name,
 * the futex word that wakes the runtimes' helpers, and the errors.  The
 * runtime's side is tests/e2e/probes.sh's probes-remove.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/probes/inproc_probe.h"
#include "lib/record/recorder.h"
#include "lib/record/recorder_internal.h"
#include "tests/unit/check.h"

int main(void)
{
	static const char *const defs[] = {"p:grp/x foo", "p:y bar+4", "r:grp/y foo"};
	struct utrace_inproc_probe *kp[3] = {0};
	struct utrace_recorder_opts o = {0};
	struct utrace_recorder *r = NULL;
	struct utrace_error err = {0};
	char out[512];
	uint32_t gen;
	int code;

	if (check_tmpdir_init("kprobe_ctl") < 0)
		return 1;
	for (int i = 0; i < 3; i++)
		if (utrace_inproc_probe_parse(defs[i], NULL, &kp[i], &code, &err) < 0) {
			check(0, "parse %s: %s", defs[i], err.msg);
			return check_done();
		}
	snprintf(out, sizeof(out), "%s/t.dat", check_tmpdir());
	o.output = out;
	o.buffer_kb = 64;
	o.inproc_probes = kp;
	o.nr_inproc_probes = 3;
	if (utrace_recorder_new(&o, &r, &err) < 0) {
		check(0, "recorder: %s", err.msg);
		return check_done();
	}
	gen = r->ctl->ipp_gen;
	check(!utrace_ctl_inproc_probe_off(r->ctl, 0) && !utrace_ctl_inproc_probe_off(r->ctl, 1) &&
		  !utrace_ctl_inproc_probe_off(r->ctl, 2),
	      "every probe is on at the start");
	check(utrace_recorder_inproc_probe_remove(r, "grp", "y", &err) == 0 &&
		  utrace_ctl_inproc_probe_off(r->ctl, 2) && !utrace_ctl_inproc_probe_off(r->ctl, 0) &&
		  !utrace_ctl_inproc_probe_off(r->ctl, 1),
	      "grp/y turns key 2 off, not probes/y (key 1)");
	check(r->ctl->ipp_gen != gen, "ipp_gen moves: the runtimes' helpers wake");
	check(utrace_recorder_inproc_probe_remove(r, NULL, "y", &err) == 0 &&
		  utrace_ctl_inproc_probe_off(r->ctl, 1),
	      "no group: the first probe of that name that is on (probes/y, key 1)");
	err = (struct utrace_error){0};
	check(utrace_recorder_inproc_probe_remove(r, NULL, "y", &err) == -ENOENT &&
		  strcmp(err.msg, "no in-process probe y in this recording") == 0,
	      "both y off: -ENOENT, \"%s\"", err.msg);
	err = (struct utrace_error){0};
	check(utrace_recorder_inproc_probe_remove(r, "probes", "x", &err) == -ENOENT &&
		  strcmp(err.msg, "no in-process probe probes/x in this recording") == 0 &&
		  !utrace_ctl_inproc_probe_off(r->ctl, 0),
	      "x is grp/x: probes/x is no probe, \"%s\"", err.msg);
	check(utrace_recorder_inproc_probe_remove(r, "grp", "x", &err) == 0 &&
		  utrace_ctl_inproc_probe_off(r->ctl, 0),
	      "grp/x off");
	utrace_recorder_free(r);
	for (int i = 0; i < 3; i++)
		utrace_inproc_probe_free(kp[i]);
	check_tmpdir_cleanup();
	return check_done();
}
