/* sys_loop: N system calls (argv[1], default 55000), one in ten a write;
 * cases g (catch syscall write) and h (a gdb breakpoint loop beside a
 * syscall catcher).  Each group of ten is hit(i), then 9 getppid and one
 * 1-byte write to /dev/null.  At the end it prints (one more write)
 * "syscalls=N writes=W hits=H", W counting the loop's writes only. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

volatile int counter;

void __attribute__((noinline)) hit(int i)
{
	counter += i >= 0;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 55000;
	int fd = open("/dev/null", O_WRONLY);
	long calls = 0, writes = 0;

	if (fd < 0)
		return 1;
	for (int i = 0; i < n / 10; i++) {
		hit(i);
		for (int k = 0; k < 9; k++, calls++)
			syscall(SYS_getppid);
		if (write(fd, "x", 1) == 1)
			writes++;
		calls++;
	}
	printf("syscalls=%ld writes=%ld hits=%d\n", calls, writes, counter);
	return 0;
}
