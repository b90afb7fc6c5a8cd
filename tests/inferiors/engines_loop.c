/* engines_loop: for the tests of many clients on one process.
 *
 * main calls f1() then f2() ITERS times, sleeping a little each time; f1
 * bumps g1, f2 bumps g2, so at a stop at the start of f1, g1 == g2 (both
 * the number of iterations done), and at the start of f2, g1 == g2 + 1.
 * Every 100 iterations it prints "iter N g1=A g2=B"; at the end it prints
 * "engines_loop done g1=A g2=B exit=42" and exits with status 42.
 *
 * An argument, if any, is the number of iterations (default 300).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define EXIT_CODE 42

volatile int g1, g2;

int f1(int i)
{
	g1 = g1 + 1; /* LINE:f1-bump */
	return i + g1; /* LINE:f1-ret */
}

int f2(int i)
{
	g2 = g2 + 1; /* LINE:f2-bump */
	return i + g2; /* LINE:f2-ret */
}

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 300;
	long sum = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < iters; i++) {
		sum += f1(i);
		sum += f2(i);
		if ((i + 1) % 100 == 0)
			printf("iter %d g1=%d g2=%d\n", i + 1, g1, g2);
		usleep(10000);
	}
	printf("engines_loop done g1=%d g2=%d exit=%d\n", g1, g2, EXIT_CODE);
	return sum < 0 ? 1 : EXIT_CODE;
}
