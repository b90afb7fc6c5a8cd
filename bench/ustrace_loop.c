/* ustrace_loop: the program of bench/ustrace.sh.  Waits for one line on
 * stdin (so that the tracer is in place before the clock starts), then
 * makes N system calls (argv[1], default 220000) in groups of ten: hit(i),
 * a breakpoint target, then nine getppid and one 1-byte write to
 * /dev/null.  Ends with "calls=N cpu=SECONDS" on stdout (one more write):
 * its own user+system time, which a tracer's stops add to. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

volatile int counter;

void __attribute__((noinline)) hit(int i)
{
	counter += i >= 0;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 220000;
	int fd = open("/dev/null", O_WRONLY);
	char line[64];
	long calls = 0;
	struct rusage ru;

	if (fd < 0 || read(0, line, sizeof(line)) < 0)
		return 1;
	for (int i = 0; i < n / 10; i++) {
		hit(i);
		for (int k = 0; k < 9; k++, calls++)
			syscall(SYS_getppid);
		if (write(fd, "x", 1) == 1)
			calls++;
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("calls=%ld cpu=%.3f\n", calls,
	       ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
		       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	return 0;
}
