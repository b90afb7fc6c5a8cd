/*
 * gdb_launch.h: building the argv of a launched program (gdb_launch.c).
 */
#ifndef UTRACED_GDB_LAUNCH_H
#define UTRACED_GDB_LAUNCH_H

#include <stdbool.h>

#include "../util/buf.h"

/* Append arg to b so that a POSIX shell turns it back into exactly arg. */
void gdb_shell_quote(struct buf *b, const char *arg);

/*
 * The argv to exec for program prog[] (NULL-terminated), run by wrapper[]
 * (may be NULL) and through shell (NULL: exec directly). *execs gets the
 * number of execs before the program itself runs. Returns a malloc'ed,
 * NULL-terminated argv for gdb_launch_argv_free(), or NULL.
 */
char **gdb_launch_argv(char *const prog[], char *const wrapper[], const char *shell, int *execs);
void gdb_launch_argv_free(char **argv);

#endif
