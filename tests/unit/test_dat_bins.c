/* SPDX-License-Identifier: MIT */
/*
 * test_dat_bins.c - a trace of many processes of one program reads in the
 * memory of one (lib/tracefile/dat_bins.c, issue 25): the symbol tables
 * and site lists every process image brings are kept once per content,
 * and each image still names its functions and addresses with its own
 * load bias.
 *
 * The files: NPROC images of one program, each with the program (sites
 * and symbols) and a large library table, at a bias of its own; one more
 * image of a program of the same path rebuilt (other names), which must
 * keep its own names; one whose sites come in two SITES records.
 */
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/tracefile/dat_reader.h"
#include "tests/unit/dat_fixture.h"

#define NPROC 100
#define NSITES 512   /* sites of the program, one function each */
#define NLIB 6000    /* symbols of the library */
#define NAMELEN 16   /* "fn_00000_xxxxxx" and a NUL */
#define EXE "/nonexistent/prog"
#define LIB "/nonexistent/libbig.so"

/* bias of image i: a PIE loaded where ASLR put it */
static uint64_t bias_of(uint32_t image)
{
	return 0x555500000000ull + (uint64_t)image * 0x10000000ull;
}

/* One object's SYMTAB: n symbols 0x40 apart from 0x1000, names
 * "<stem>_<k>"; site k (odd k: no symbol there, a gap) */
static void put_symtab(struct utrace_dat_writer *w, uint32_t image, uint32_t obj, uint32_t n,
		       const char *stem)
{
	struct utrace_dat_symtab sh = {image, obj, n, n * NAMELEN};
	struct utrace_dat_sym *syms = calloc(n, sizeof(*syms));
	char *strs = calloc(n, NAMELEN);
	struct utrace_error err;
	struct iovec iov[3];

	if (!syms || !strs)
		abort();
	for (uint32_t k = 0; k < n; k++) {
		syms[k] = (struct utrace_dat_sym){0x1000 + (uint64_t)k * 0x40, 0x20, k * NAMELEN};
		snprintf(strs + k * NAMELEN, NAMELEN, "%s_%05u", stem, k);
	}
	iov[0] = (struct iovec){&sh, sizeof(sh)};
	iov[1] = (struct iovec){syms, n * sizeof(*syms)};
	iov[2] = (struct iovec){strs, (size_t)n * NAMELEN};
	if (utrace_dat_write(w, UTRACE_DAT_SYMTAB, iov, 3, &err) < 0)
		fx_die(&err);
	free(syms);
	free(strs);
}

/* Image `image`: the program (sites at its symbols, the last site in
 * none) and the library; split: the sites in two records. */
static void put_image(struct utrace_dat_writer *w, uint32_t image, const char *stem, int split)
{
	struct utrace_dat_image img = {image, (int32_t)(1000 + image), 1, 0};
	struct utrace_dat_object obj = {image, 0, 1, 0, NSITES, 0, bias_of(image)};
	uint64_t sites[NSITES];
	struct utrace_dat_sites st = {image, 0, 0, NSITES};

	for (uint32_t k = 0; k < NSITES; k++)
		sites[k] = 0x1000 + (uint64_t)k * 0x40;
	sites[1] = 0;						      /* unknown */
	sites[NSITES - 1] = 0x1000 + (uint64_t)NSITES * 0x40 + 0x100; /* in no symbol */
	fx_write(w, UTRACE_DAT_IMAGE, &img, sizeof(img), EXE, sizeof(EXE));
	fx_write(w, UTRACE_DAT_OBJECT, &obj, sizeof(obj), EXE, sizeof(EXE));
	if (split) {
		st.count = 100;
		fx_write(w, UTRACE_DAT_SITES, &st, sizeof(st), sites, 100 * 8);
		st = (struct utrace_dat_sites){image, 0, 100, NSITES - 100};
		fx_write(w, UTRACE_DAT_SITES, &st, sizeof(st), sites + 100, (NSITES - 100) * 8);
	} else {
		fx_write(w, UTRACE_DAT_SITES, &st, sizeof(st), sites, sizeof(sites));
	}
	put_symtab(w, image, 0, NSITES, stem);
	obj = (struct utrace_dat_object){image, 1, 0, NSITES, 0, 0, bias_of(image) + 0x1000000};
	fx_write(w, UTRACE_DAT_OBJECT, &obj, sizeof(obj), LIB, sizeof(LIB));
	put_symtab(w, image, 1, NLIB, "lib");
}

static void write_file(const char *path, uint32_t nproc)
{
	struct utrace_dat_clock clk = {0, 0, 1000000000, 1000000000, 0};
	struct utrace_dat_writer *w;
	struct utrace_error err;

	if (utrace_dat_writer_open(path, &w, &err) < 0)
		fx_die(&err);
	fx_write(w, UTRACE_DAT_CLOCK, &clk, sizeof(clk), NULL, 0);
	fx_meta(w, "tracer=function_graph\ncommand=test prog\nthresh_us=0\n");
	for (uint32_t i = 1; i <= nproc; i++)
		put_image(w, i, "fn", 0);
	if (nproc > 1) {
		put_image(w, nproc + 1, "re", 0);    /* the program rebuilt */
		put_image(w, nproc + 2, "fn", 1);    /* its sites in two records */
	}
	fx_end(w);
}

/* Bytes the heap holds now (in use). */
static size_t heap_used(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

/* Opens path, names a function of each image; the heap it took. */
static size_t open_and_name(const char *path, uint32_t nimages, struct utrace_dat **out)
{
	size_t before = heap_used();
	struct utrace_error err;

	if (utrace_dat_open(path, out, &err) < 0) {
		check(0, "open %s: %s", path, err.msg);
		return 0;
	}
	for (uint32_t i = 1; i <= nimages; i++)
		utrace_dat_func_name(*out, i, 3);
	return heap_used() - before;
}

static void test_names(struct utrace_dat *d)
{
	char want[48];
	const char *s;
	uint64_t off = 99;
	int ok = 1;

	for (uint32_t i = 1; i <= NPROC && ok; i++)
		ok = !strcmp(utrace_dat_func_name(d, i, 7), "fn_00007") &&
		     !strcmp(utrace_dat_func_name(d, i, 1), "<id 1>");
	check(ok, "every image names its functions from the one table");
	check(!strcmp(utrace_dat_func_name(d, NPROC + 1, 7), "re_00007"),
	      "a rebuilt program of the same path keeps its own names (%s)",
	      utrace_dat_func_name(d, NPROC + 1, 7));
	check(!strcmp(utrace_dat_func_name(d, NPROC + 2, 300), "fn_00300") &&
		  !strcmp(utrace_dat_func_name(d, NPROC + 2, 30), "fn_00030"),
	      "sites in two records: both parts named");
	/* a site in no symbol: its runtime address, with its image's bias */
	for (uint32_t i = 1; i <= 3; i++) {
		snprintf(want, sizeof(want), "0x%" PRIx64,
			 bias_of(i) + 0x1000 + (uint64_t)NSITES * 0x40 + 0x100);
		s = utrace_dat_func_name(d, i, NSITES - 1);
		check(!strcmp(s, want), "image %u: a site in no symbol is its address (%s)", i, s);
	}
	s = utrace_dat_addr_name(d, 2, bias_of(2) + 0x1000000 + 0x1000 + 5 * 0x40 + 4, &off);
	check(s && !strcmp(s, "lib_00005") && off == 4,
	      "an address in the library, with the image's bias (%s+%" PRIu64 ")", s ? s : "-",
	      off);
	s = utrace_dat_addr_name(d, 3, bias_of(2) + 0x1000 + 5 * 0x40, &off);
	check(s == NULL || strcmp(s, "fn_00005"), "another image's bias names nothing there");
}

int main(void)
{
	const char *one = NULL, *many = NULL;
	struct utrace_dat *d1 = NULL, *dn = NULL;
	size_t m1, mn;

	if (check_tmpdir_init("dat_bins") < 0) {
		perror("mkdtemp");
		return 2;
	}
	one = check_path("one.dat");
	write_file(one, 1);
	many = check_path("many.dat");
	write_file(many, NPROC);
	m1 = open_and_name(one, 1, &d1);
	mn = open_and_name(many, NPROC + 2, &dn);
	if (d1 && dn) {
		test_names(dn);
#if defined(__SANITIZE_ADDRESS__)
		(void)m1, (void)mn;
		check_skip("memory of many images", "AddressSanitizer's allocator");
#else
		/* the tables of one image are most of m1: the other images may
		 * add their ids and pointers, not their tables */
		check(mn <= 2 * m1, "%d images of one program read in the memory of one: %zu bytes "
				    "against %zu (at most 2x)", NPROC, mn, m1);
#endif
	}
	utrace_dat_close(d1);
	utrace_dat_close(dn);
	check_tmpdir_cleanup();
	return check_done();
}
