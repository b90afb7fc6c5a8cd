/* xol_fork_race main|thread: one thread calls work() in a loop (a debugger
 * that steps over a breakpoint there out of line maps its scratch page
 * for it) while another thread, "main" itself or a thread created after
 * the worker ("thread"), watches /proc/self/maps and forks the moment a
 * new anonymous executable mapping appears: the child is made inside the
 * debugger's window between mapping the page and making it MADV_DONTFORK.
 * The child exits 10 if it has such a mapping (the page inherited), 0 if
 * not; the parent prints "child clean" or "child has the page", and
 * "no page seen" if none appeared within 10 s. Exits 0 when the child was
 * clean. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile int stop;
static long sum;
static int before; /* anonymous r-x mappings before the worker's first call */

__attribute__((noinline)) void work(long i)
{
	sum += i;
}

static void *worker(void *arg)
{
	(void)arg;
	for (long i = 0; !stop; i++)
		work(i);
	return NULL;
}

/* Anonymous r-x mappings (no file, not [vdso] or [vsyscall]). */
static int anon_exec_count(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512], perms[8], path[256];
	unsigned long ino;
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		path[0] = 0;
		if (sscanf(line, "%*x-%*x %7s %*x %*s %lu %255s", perms, &ino, path) < 2)
			continue;
		if (perms[2] == 'x' && ino == 0 && path[0] != '[')
			n++;
	}
	fclose(f);
	return n;
}

static int fork_at_page(void)
{
	time_t end = time(NULL) + 10;
	int status;
	pid_t pid;

	while (anon_exec_count() <= before)
		if (time(NULL) > end)
			return printf("no page seen\n"), 2;
	pid = fork();
	if (pid == 0)
		_exit(anon_exec_count() > before ? 10 : 0);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return printf("fork failed\n"), 2;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return printf("child clean\n"), 0;
	printf("child has the page (status 0x%x)\n", status);
	return 1;
}

static void *forker(void *arg)
{
	return (void *)(long)fork_at_page() + (long)arg;
}

int main(int argc, char **argv)
{
	int from_thread = argc > 1 && !strcmp(argv[1], "thread");
	pthread_t w, f;
	void *res;
	int ret;

	setvbuf(stdout, NULL, _IONBF, 0);
	before = anon_exec_count(); /* (the worker may map the page before the forker looks) */
	pthread_create(&w, NULL, worker, NULL);
	if (from_thread) {
		/* a newer tracee than the worker: the kernel hands its statuses out first */
		pthread_create(&f, NULL, forker, NULL);
		pthread_join(f, &res);
		ret = (int)(long)res;
	} else {
		ret = fork_at_page();
	}
	stop = 1;
	pthread_join(w, NULL);
	printf("done\n"); /* LINE:race-done */
	return ret;
}
