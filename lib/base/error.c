/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>

#include "lib/base/error.h"

int utrace_error_set(struct utrace_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	err->code = code;
	err->column = 0;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}
