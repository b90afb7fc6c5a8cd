/* syscall_fork: a fork while syscalls are caught.
 *
 * The parent writes "parent before", forks, waits for the child, then
 * writes "parent: child ok" (or "... bad") and exits with 5.  The child
 * writes "child 1" and "child 2" and exits with 3.  Every line is one
 * write(2) to stdout; the only clone in the program is the fork.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void say(const char *s)
{
	if (write(1, s, strlen(s)) < 0)
		exit(2);
}

int main(void)
{
	int status = 0;
	pid_t child;

	say("parent before\n");
	child = fork(); /* LINE:fork */
	if (child == 0) {
		say("child 1\n");
		say("child 2\n");
		_exit(3);
	}
	if (child < 0 || waitpid(child, &status, 0) != child)
		return 1;
	say(WIFEXITED(status) && WEXITSTATUS(status) == 3 ? "parent: child ok\n"
							  : "parent: child bad\n");
	return 5;
}
