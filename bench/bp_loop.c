/* bp_loop: calls hit() N times (argv[1], default 5000); case a (breakpoint
 * hits). Prints the counter on exit so the runner can check the count.
 * With a second argument "wait" it first waits until a debugger that
 * attached sets go (the fuse-* cases, where the runner starts the program
 * and gdb attaches to it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

volatile int counter;
volatile int go = 1;

void __attribute__((noinline)) hit(int i)
{
	counter += i > 0;
	counter += i <= 0;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 5000;

	if (argc > 2 && !strcmp(argv[2], "wait")) {
		go = 0;
		printf("waiting\n");
		fflush(stdout);
		while (!go)
			usleep(1000);
	}
	for (int i = 0; i < n; i++)
		hit(i);
	printf("hits=%d\n", counter);
	return 0;
}
