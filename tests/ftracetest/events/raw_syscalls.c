/* SPDX-License-Identifier: MIT */
#include <string.h>
#define CREATE_TRACE_POINTS
#include "ev_raw_syscalls.h"
