/* SPDX-License-Identifier: MIT */
/*
 * lib/bt - bpftrace's language on utrace's probes (`utrace bt`): the
 * program's parser and checker, its compiler into the runtime's bytecode,
 * the run (probes in the traced processes, kernel events in the recorder,
 * per-thread maps merged when printed) and bpftrace's output formats
 * (bt_print.h).  May use: every layer below.
 */
#ifndef UTRACE_LIB_BT_H
#define UTRACE_LIB_BT_H

#include "lib/bt/bt_print.h"

#endif
