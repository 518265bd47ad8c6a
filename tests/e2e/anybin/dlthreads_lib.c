/* SPDX-License-Identifier: MIT */
/*
 * dlthreads_lib.c - the library dlthreads.c dlopen()s while its threads
 * run, built without utrace cflags: a 4-byte function (int3 entry) and
 * longer ones (jmp entries, written once no thread is in their way).
 */
__attribute__((noinline)) int dl_add(int a, int b)
{
	return a + b;
}

__attribute__((noinline)) int dl_mix(int a)
{
	int s = a;

	for (int i = 0; i < (a & 7); i++)
		s = s * 31 + i;
	return s & 0xffff;
}

__attribute__((noinline)) int dl_work(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += dl_add(i, dl_mix(i));
	return s;
}
