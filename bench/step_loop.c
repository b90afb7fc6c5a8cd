/* step_loop: a long straight-line-ish loop for case b (stepi). start() is
 * where stepping begins; the loop is far longer than 5000 instructions. */
#include <stdio.h>

volatile long acc;

void __attribute__((noinline)) start(void)
{
}

int main(void)
{
	start();
	for (long i = 0; i < 1000000; i++)
		acc += i ^ (acc >> 3);
	printf("acc=%ld\n", acc);
	return 0;
}
