/* step_loop: a long straight-line-ish loop for case b (stepi). start() is
 * where stepping begins; the loop is far longer than 5000 instructions.
 * With the argument "wait" it first waits until a debugger that attached
 * sets go (the fuse-* cases). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

volatile long acc;
volatile int go = 1;

void __attribute__((noinline)) start(void)
{
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "wait")) {
		go = 0;
		printf("waiting\n");
		fflush(stdout);
		while (!go)
			usleep(1000);
	}
	start();
	for (long i = 0; i < 1000000; i++)
		acc += i ^ (acc >> 3);
	printf("acc=%ld\n", acc);
	return 0;
}
