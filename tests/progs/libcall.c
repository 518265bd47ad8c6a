/* SPDX-License-Identifier: MIT */
/*
 * libcall.c - library calls for --libcall (tests/e2e: built WITHOUT the
 * utrace flags, so the library calls are all there is to trace): printf,
 * strlen, malloc/free, qsort calling back into the program (program ->
 * libc -> program -> libc), libm on doubles (vector registers across the
 * hook; also as the first library call of a new thread, whose buffer is
 * created inside the hook), setjmp/longjmp through a library call, and
 * exit.
 */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static jmp_buf env;
static volatile int cmp_calls;

static int cmp_len(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;

	cmp_calls++;
	return (int)strlen(x) - (int)strlen(y); /* a library call inside the callback */
}

static void *thread_pow(void *arg)
{
	static double r;

	r = pow(*(volatile double *)arg, 1.5);
	return &r;
}

static void jump_back(int v)
{
	longjmp(env, v);
}

int main(int argc, char **argv)
{
	const char *words[] = {"ccc", "a", "bb"};
	volatile double x = argc + 0.5;
	char *buf = malloc(64);

	(void)argv;

	printf("len %zu\n", strlen("hello"));
	qsort(words, 3, sizeof(words[0]), cmp_len);
	printf("sorted %s %s %s\n", words[0], words[1], words[2]);
	/* doubles in and out through xmm0/xmm1 */
	printf("pow %.6f sqrt %.6f\n", pow(x, 2.5), sqrt(x * 8.0));
	{
		pthread_t t;
		double in = x + 1.0;
		void *res;

		if (pthread_create(&t, NULL, thread_pow, &in) || pthread_join(t, &res))
			return 1;
		snprintf(buf, 64, "%.6f", *(double *)res);
		puts(buf);
	}
	snprintf(buf, 64, "%d-%s", 42, "x");
	puts(buf);
	free(buf);
	if (!setjmp(env))
		jump_back(7);
	else
		puts("longjmp back");
	fflush(stdout);
	exit(3);
}
