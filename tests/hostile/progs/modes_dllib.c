/* SPDX-License-Identifier: MIT */
/* modes_dllib.c - the library modes_dl.c loads and unloads in a loop. */
__attribute__((noinline)) long dl_leaf(long v)
{
	return (v * 2654435761u) % 9973;
}

long dl_work(long v)
{
	return dl_leaf(v) + dl_leaf(v + 1);
}
