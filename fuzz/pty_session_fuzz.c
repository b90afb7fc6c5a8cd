/*
 * pty_session_fuzz.c: libFuzzer harness for the first bytes of a session
 * of `utraced --mount DIR`: the name a client looks up under DIR, and
 * what it then writes on the pty DIR/<pid>/gdb leads it to.
 *
 * Nothing parses those bytes before the session does: the first byte
 * written on the pty only wakes the daemon (ep_pty.c), which then joins
 * the process for that client (server.c) and hands every byte, as read,
 * to a gdb session; and the client may be anything that opens the file
 * (a gdb, a cat, an echo), so the bytes are raw, not framed packets. Two
 * pure pieces were factored out of the endpoint for this harness:
 * ep_fuse_name_pid(), the lookup of a name in DIR, and
 * gdb_session_init_joined(), the session a joining client gets (joined,
 * its credentials known, here another user's).
 *
 * The input: the looked-up name up to the first newline, then the bytes
 * written on the pty, read back in pieces of changing sizes. The session
 * runs on the fake kernel of the engine unit tests (fuzz_world.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "endpoint/ep_fuse.h"
#include "fuzz_world.h"

/* Another user, as a FUSE client of a daemon run by root is. */
static const struct proc_caller client = {.tgid = 1, .uid = 65534, .gid = 65534};

static void lookup(const char *name, size_t len)
{
	char copy[256];
	pid_t pid;

	/* FUSE hands over one path component, NUL-terminated, without '/' */
	if (len >= sizeof(copy) || memchr(name, '/', len) || memchr(name, '\0', len))
		return;
	memcpy(copy, name, len);
	copy[len] = '\0';
	pid = ep_fuse_name_pid(copy);
	if (pid < 0 || (pid > 0 && (copy[0] == '0' || strspn(copy, "0123456789") != len)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t reads[] = {1, 64, 5, 4096, 17};
	const uint8_t *nl = memchr(data, '\n', size);
	struct gdb_session *s;
	size_t i = 0;

	if (nl) {
		lookup((const char *)data, (size_t)(nl - data));
		size -= (size_t)(nl - data) + 1;
		data = nl + 1;
	}
	s = fw_start(&client);
	while (size && !s->closing) {
		size_t n = reads[i++ % (sizeof(reads) / sizeof(reads[0]))];

		if (n > size)
			n = size;
		fw_input(s, data, n);
		data += n;
		size -= n;
	}
	fw_stop(s);
	return 0;
}
