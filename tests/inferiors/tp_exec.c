/* tp_exec [N]: calls hit(i) for i = 0 .. N-1 (default 2000), then execs
 * itself with "after", which calls done() and prints "after exec". A fast
 * tracepoint on hit() records those calls in the agent's rings just
 * before the exec: they must not be lost with the old address space. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long calls;

/* noinline: the call is what the tracepoint sits on */
__attribute__((noinline)) void hit(long i)
{
	calls++;
	__asm__ volatile("" ::"r"(i) : "memory");
}

__attribute__((noinline)) void done(void)
{
	__asm__ volatile("");
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000;

	if (argc > 1 && !strcmp(argv[1], "after")) {
		done();
		printf("after exec\n");
		return 0;
	}
	for (long i = 0; i < n; i++)
		hit(i);
	printf("calls %ld\n", calls);
	fflush(stdout);
	execl("/proc/self/exe", argv[0], "after", (char *)NULL);
	perror("exec");
	return 1;
}
