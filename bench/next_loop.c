/* next_loop: a whole loop on one source line (LINE:loop); case e does one
 * `next` over it. gdb steps a line by single steps unless the server has
 * range stepping (vCont;r), in which case the server steps the line itself. */
#include <stdio.h>
#include <stdlib.h>

volatile long acc;

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;

	for (long i = 0; i < n; i++) acc += i; /* LINE:loop */
	printf("acc=%ld\n", acc);              /* LINE:after */
	return 0;
}
