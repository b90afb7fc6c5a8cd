/* bp_loop: calls hit() N times (argv[1], default 5000); case a (breakpoint
 * hits). Prints the counter on exit so the runner can check the count. */
#include <stdio.h>
#include <stdlib.h>

volatile int counter;

void __attribute__((noinline)) hit(int i)
{
	counter += i > 0;
	counter += i <= 0;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 5000;

	for (int i = 0; i < n; i++)
		hit(i);
	printf("hits=%d\n", counter);
	return 0;
}
