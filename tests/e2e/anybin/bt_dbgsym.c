/* SPDX-License-Identifier: MIT */
/*
 * bt_dbgsym.c - opens a file three times through fopen(): libc's local
 * _IO_new_file_fopen runs once each (tests/e2e/t/bt_dbgsym.sh).
 */
#include <stdio.h>

int main(void)
{
	for (int i = 0; i < 3; i++) {
		FILE *f = fopen("/proc/self/stat", "r");

		if (!f)
			return 1;
		fclose(f);
	}
	return 0;
}
