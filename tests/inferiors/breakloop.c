/* breakloop: calls bump() N times (argv[1], default 5) and exits with
 * code 7.  Used for breakpoints, finish, next/step/stepi, watchpoints.
 *
 * Tests find line numbers by the LINE: markers, never by number.
 * Known values: bump(k) adds k to counter and returns counter * 10, so
 * the first call returns 10, the second 30.  `watched` is written once
 * per iteration, with 3 * i (0, 3, 6, ...). */
#include <stdio.h>
#include <stdlib.h>

int counter;  /* sum of the steps so far */
int watched;  /* written once per iteration of the loop in main */

int bump(int step)
{
	int before = counter; /* LINE:bump-body */

	counter = before + step;
	return counter * 10;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 5;
	int total = 0;
	int i;

	for (i = 0; i < n; i++) { /* LINE:for */
		total += bump(i + 1); /* LINE:call */
		watched = 3 * i;      /* LINE:watch */
	}
	printf("counter=%d total=%d\n", counter, total); /* LINE:print */
	fflush(stdout);
	return 7;
}
