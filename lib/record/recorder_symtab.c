/* SPDX-License-Identifier: MIT */
/*
 * recorder_symtab.c - a SYMTAB record written: the function symbols of
 * one object (recorder.c) or the names of its library calls
 * (recorder_libcall.c), as the reader's symbol tables read them.
 */
#include <stdlib.h>
#include <sys/uio.h>

#include "lib/record/recorder_internal.h"
#include "lib/record/recorder_symtab.h"
#include "lib/tracefile/dat_format.h"
#include "lib/tracefile/dat_writer.h"

int rec_symtab_write(struct utrace_recorder *r, struct utrace_dat_symtab *h,
		     struct utrace_dat_sym *ents, size_t n, char *strs, size_t strsz,
		     struct utrace_error *err)
{
	struct iovec iov[3] = {{h, sizeof(*h)}, {ents, n * sizeof(*ents)}, {strs, strsz}};
	int ret;

	h->nr_syms = (uint32_t)n;
	h->str_size = (uint32_t)strsz;
	ret = utrace_dat_write(r->w, UTRACE_DAT_SYMTAB, iov, 3, err);
	free(ents);
	free(strs);
	return ret;
}
