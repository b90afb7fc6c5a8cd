/*
 * gdb_launch.c: the command line a launched program really runs with.
 *
 * Like gdbserver, utraced starts programs through the user's shell by
 * default ("startup-with-shell"), so $PATH, redirections in the arguments
 * and the environment behave as in gdb's own `run`; each argument is
 * escaped so that it reaches the program unchanged. An exec wrapper
 * (--wrapper) runs first and execs the program itself. Pure code: the
 * engine does the exec and waits for the given number of execs.
 */
#include "gdb_launch.h"

#include <stdlib.h>
#include <string.h>

#include "../util/buf.h"

/* Characters that pass through a POSIX shell unchanged. */
static bool shell_safe(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       strchr("_-./,:=+@%", c);
}

void gdb_shell_quote(struct buf *b, const char *arg)
{
	if (!*arg) {
		buf_puts(b, "''");
		return;
	}
	for (; *arg; arg++) {
		if (*arg == '\n') {
			buf_puts(b, "'\n'");
			continue;
		}
		if (!shell_safe(*arg))
			buf_putc(b, '\\');
		buf_putc(b, *arg);
	}
}

static size_t count(char *const v[])
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

char **gdb_launch_argv(char *const prog[], char *const wrapper[], const char *shell, int *execs)
{
	size_t np = count(prog), nw = count(wrapper), k = 0;
	char **argv = calloc(np + nw + 4, sizeof(*argv));
	struct buf cmd;

	if (!argv)
		return NULL;
	*execs = 1 + (nw ? 1 : 0);
	if (!shell) {
		for (size_t i = 0; i < nw; i++)
			argv[k++] = strdup(wrapper[i]);
		for (size_t i = 0; i < np; i++)
			argv[k++] = strdup(prog[i]);
		return argv;
	}
	buf_init(&cmd);
	buf_puts(&cmd, "exec");
	for (size_t i = 0; i < nw; i++) {
		buf_putc(&cmd, ' ');
		buf_puts(&cmd, wrapper[i]); /* the wrapper is a shell command, as in gdb */
	}
	for (size_t i = 0; i < np; i++) {
		buf_putc(&cmd, ' ');
		gdb_shell_quote(&cmd, prog[i]);
	}
	argv[k++] = strdup(shell);
	argv[k++] = strdup("-c");
	argv[k++] = cmd.data;
	(*execs)++;
	return argv;
}

void gdb_launch_argv_free(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}
