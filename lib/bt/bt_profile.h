/* SPDX-License-Identifier: MIT */
/* bt_profile.h - profile probes of utrace bt (bt_profile.c). */
#ifndef UTRACE_LIB_BT_PROFILE_H
#define UTRACE_LIB_BT_PROFILE_H

struct bt_run;

/* A sampler for each profile site: on process pid, or every CPU's tasks
 * if pid <= 0; 0 or <0 with r->err. */
int bt_profile_open(struct bt_run *r, int pid);
/* Every sample taken since the last drain runs its site's action. */
void bt_profile_drain(struct bt_run *r);
void bt_profile_close(struct bt_run *r);

#endif
