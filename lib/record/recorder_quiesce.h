/* SPDX-License-Identifier: MIT */
/*
 * recorder_quiesce.h - the recorder's an attached process's threads stopped
 * and let go around its patching (recorder_quiesce.c).
 * Private to lib/record.
 */
#ifndef UTRACE_LIB_RECORDER_QUIESCE_H
#define UTRACE_LIB_RECORDER_QUIESCE_H

#include <stddef.h>

struct rec_conn;

/* recorder_quiesce.c: an attached process's QUIESCE and RESUME; its
 * threads let go when its connection ends */
int rec_quiesce(struct rec_conn *c, const void *buf, size_t n);
int rec_resume(struct rec_conn *c);
void rec_quiesce_end(struct rec_conn *c);

#endif
