/* xol_forks NTHREADS ITERS fork|exec: NTHREADS threads each call work(id, i)
 * for i = 0 .. ITERS-1 while the main thread, in "fork" mode, forks 20
 * children one after the other: each child calls work() 100 times (a trap
 * of the debugger left in it would kill it) and exits 0 if its memory has
 * no anonymous executable mapping (a debugger's scratch page inherited),
 * 10 if it has one; main prints "children ok" or what went wrong. In
 * "exec" mode, once every thread is a quarter through, main execs this
 * program again as "xol_forks 1 100 after", which calls work() 100 times
 * and prints "after exec". Both end by printing "sums ok" if every
 * thread's sum of i is right, and exit 0. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAXTHREADS 64
#define CHILDREN   20

static long iters;
static long sums[MAXTHREADS + 1];
static volatile long done[MAXTHREADS];

__attribute__((noinline)) void work(int id, long i)
{
	sums[id] += i;
}

static void *run(void *arg)
{
	int id = (int)(long)arg;

	for (long i = 0; i < iters; i++) {
		work(id, i);
		done[id] = i + 1;
	}
	return NULL;
}

/* An anonymous r-x mapping (no file, not [vdso] or [vsyscall]). */
static int anon_exec_mapped(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512], perms[8], path[256];
	unsigned long ino;
	int found = 0;

	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f)) {
		path[0] = 0;
		if (sscanf(line, "%*x-%*x %7s %*x %*s %lu %255s", perms, &ino, path) < 2)
			continue;
		if (perms[2] == 'x' && ino == 0 && path[0] != '[')
			found = 1;
	}
	fclose(f);
	return found;
}

static int fork_children(void)
{
	int bad = 0;

	for (int c = 0; c < CHILDREN; c++) {
		int status;
		pid_t pid = fork();

		if (pid == 0) {
			for (long i = 0; i < 100; i++)
				work(MAXTHREADS, i);
			_exit(anon_exec_mapped() ? 10 : 0);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid)
			return printf("fork failed\n"), 1;
		if (status != 0) {
			printf("child %d: status 0x%x\n", c, status);
			bad = 1;
		}
		usleep(2000);
	}
	if (!bad)
		printf("children ok\n");
	return bad;
}

static void exec_again(int n, const char *self)
{
	for (int id = 0; id < n; id++)
		while (done[id] < iters / 4)
			usleep(100);
	execl("/proc/self/exe", self, "1", "100", "after", (char *)NULL);
	printf("exec failed\n");
	exit(1);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	const char *mode = argc > 3 ? argv[3] : "";
	pthread_t t[MAXTHREADS];
	int bad = 0;

	iters = argc > 2 ? atol(argv[2]) : 1000;
	if (n < 1 || n > MAXTHREADS)
		return 2;
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, run, (void *)(long)i);
	if (!strcmp(mode, "fork"))
		bad = fork_children();
	else if (!strcmp(mode, "exec"))
		exec_again(n, argv[0]);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < n; i++)
		if (sums[i] != iters * (iters - 1) / 2)
			return printf("sum of thread %d is %ld\n", i, sums[i]), 1;
	if (!strcmp(mode, "after"))
		printf("after exec\n");
	printf("sums ok\n"); /* LINE:sums-ok */
	return bad;
}
