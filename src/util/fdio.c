/*
 * fdio.c: a whole buffer written to a file descriptor. The agent's dprintf
 * lines on our stdout (gdb_cond.c) and a trace file (gdb_tp_save.c) both
 * need short writes and EINTR taken care of: here, once.
 */
#include "fdio.h"

#include <errno.h>
#include <unistd.h>

int fd_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}
