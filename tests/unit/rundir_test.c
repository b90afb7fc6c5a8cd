/*
 * Unit tests for the rendezvous sockets' directory (src/util/rundir.c):
 * the one rule the daemon and ustrace share.
 */
#include "util/rundir.h"
#include "tap.h"

#include <errno.h>
#include <stdlib.h>

static void check(uid_t uid, int want_rc, const char *want, const char *name)
{
	char out[64] = "";
	int rc = rundir_of(uid, out, sizeof(out));

	is_int(rc, want_rc, "%s: rc", name);
	if (want)
		is_str(out, want, "%s: the directory", name);
}

int main(void)
{
	char path[108];

	unsetenv("UTRACED_RUNDIR");
	setenv("XDG_RUNTIME_DIR", "/run/user/1000", 1);
	check(0, 0, "/run/utraced", "root: /run/utraced");
	check(1000, 0, "/run/user/1000/utraced", "a user: XDG_RUNTIME_DIR/utraced");
	setenv("UTRACED_RUNDIR", "", 1);
	check(1000, 0, "/run/user/1000/utraced", "an empty UTRACED_RUNDIR is not set");
	unsetenv("XDG_RUNTIME_DIR");
	check(1000, -ENOENT, NULL, "a user without XDG_RUNTIME_DIR: none");
	check(0, 0, "/run/utraced", "root does not need XDG_RUNTIME_DIR");
	setenv("UTRACED_RUNDIR", "/tmp/t", 1);
	check(0, 0, "/tmp/t", "UTRACED_RUNDIR for root");
	check(1000, 0, "/tmp/t", "UTRACED_RUNDIR for a user");
	setenv("UTRACED_RUNDIR",
	       "/tmp/0123456789012345678901234567890123456789012345678901234567890123", 1);
	check(1000, -ENAMETOOLONG, NULL, "too long a directory");

	is_int(rundir_socket("/tmp/t", 4242, path, sizeof(path)), 0, "socket path: rc");
	is_str(path, "/tmp/t/4242.sock", "socket path: RUNDIR/<pid>.sock");
	is_int(rundir_socket("/tmp/t", 4242, path, 16), -ENAMETOOLONG,
	       "socket path one byte too long for the buffer");
	is_int(rundir_socket("/tmp/t", 4242, path, 17), 0, "socket path that just fits");
	return done_testing();
}
