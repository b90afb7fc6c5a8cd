/*
 * rundir.c: the rendezvous sockets' directory (see rundir.h).
 *
 * A system daemon (root) keeps them under /run, a user's daemon under the
 * user's runtime directory; $UTRACED_RUNDIR overrides both, so that tests
 * and odd setups can put daemon and clients somewhere of their own.
 */
#include "rundir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* snprintf's n for a buffer of len bytes: 0, or -ENAMETOOLONG if cut. */
static int fits(int n, size_t len)
{
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int rundir_of(uid_t uid, char *out, size_t len)
{
	const char *env = getenv("UTRACED_RUNDIR"), *xdg = getenv("XDG_RUNTIME_DIR");

	if (env && *env)
		return fits(snprintf(out, len, "%s", env), len);
	if (uid == 0)
		return fits(snprintf(out, len, "/run/utraced"), len);
	if (xdg && *xdg)
		return fits(snprintf(out, len, "%s/utraced", xdg), len);
	return -ENOENT;
}

int rundir_socket(const char *dir, pid_t pid, char *out, size_t len)
{
	return fits(snprintf(out, len, "%s/%d.sock", dir, (int)pid), len);
}
