/* SPDX-License-Identifier: MIT */
/*
 * kernel_saved.h - the kernel's tables of the tasks it has seen
 * (kernel_saved.c): saved_cmdlines ("PID COMM" lines, a task's name as
 * it was at its last switch) and saved_tgids ("PID TGID"), read whole
 * and looked up by pid.
 */
#ifndef UTRACE_LIB_KERNEL_SAVED_H
#define UTRACE_LIB_KERNEL_SAVED_H

#include <stddef.h>
#include <stdint.h>

struct utrace_ksaved_entry {
	int pid;
	char text[16]; /* a comm's 15 bytes at most, NUL-terminated */
};

struct utrace_ksaved {
	struct utrace_ksaved_entry *v; /* in the file's order */
	size_t n;
	uint32_t *slot; /* open addressing by pid: index + 1, 0 empty */
	size_t nslots;	/* a power of two, at least 2 n */
};

/* The "PID TEXT" lines of text made t's table (what it held before
 * dropped; a line that is not one left out, the first of a pid kept);
 * 0 or -ENOMEM. */
int utrace_ksaved_parse(struct utrace_ksaved *t, const char *text);
/* The same from the tracefs root's file name ("saved_cmdlines",
 * "saved_tgids"); 0, or -errno (-ENOENT without a tracefs). */
int utrace_ksaved_read(struct utrace_ksaved *t, const char *name);
/* pid's text in t, NULL if none. */
const char *utrace_ksaved_find(const struct utrace_ksaved *t, int pid);
/* Its memory freed; t empty. */
void utrace_ksaved_free(struct utrace_ksaved *t);

#endif
