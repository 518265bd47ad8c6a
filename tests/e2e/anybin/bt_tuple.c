/* SPDX-License-Identifier: MIT */
/*
 * bt_tuple.c - the program of tests/e2e/t/bt_tuple.sh: f(-1, 5), then
 * f(3, -2), so that a tuple of arg0 holds an unsigned -1.
 */
__attribute__((noinline)) long f(long a, long b)
{
	return a + b;
}

int main(void)
{
	return (int)(f(-1, 5) + f(3, -2)) != 5;
}
