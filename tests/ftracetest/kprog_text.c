/* SPDX-License-Identifier: MIT */
/*
 * kprog_text.c - more of kprog's text, as the kernel has tens of
 * thousands of text symbols where kprog.c has a few dozen:
 * kprobe/multiple_kprobes.tc puts a probe on each of the first 256 text
 * symbols of /proc/kallsyms (utrace.kallsyms there, run.sh) that takes
 * one at +5 (after the 5-byte entry the kernel's fentry call has, as
 * these functions have with `utrace cflags`); and a second static
 * name_show, as the kernel has several (kprobe/kprobe_non_uniq_symbol.tc:
 * a probe on it must be refused, "The symbol is not unique").  Never
 * called: they only need to be there.
 */
extern volatile long sink;

#define TEXT1(n)                                                                                   \
	__attribute__((noinline, used)) void kprog_text_##n(long x)                                \
	{                                                                                          \
		sink += x * (n + 1);                                                               \
	}
#define TEXT4(n) TEXT1(n##0) TEXT1(n##1) TEXT1(n##2) TEXT1(n##3)
#define TEXT16(n) TEXT4(n##0) TEXT4(n##1) TEXT4(n##2) TEXT4(n##3)
#define TEXT64(n) TEXT16(n##0) TEXT16(n##1) TEXT16(n##2) TEXT16(n##3)
TEXT64(1)
TEXT64(2)
TEXT64(3)
TEXT64(4)
TEXT64(5)

__attribute__((noinline, used)) static long name_show(void *dev, char *buf)
{
	return buf[0] + (long)dev;
}
