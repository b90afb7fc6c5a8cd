/*
 * engine_trc.c: the tracer core's reader (struct trc_reader) over a
 * stopped thread of an engine. One adapter for both decoders' hosts.
 */
#include "engine_trc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

static ssize_t rd_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct engine_trc_thread *t = ctx;

	return engine_mem_read(t->e, addr, buf, len);
}

static int rd_fd_path(void *ctx, int fd, char *out, size_t outlen)
{
	struct engine_trc_thread *t = ctx;
	char link[64];
	ssize_t n;

	if (fd == AT_FDCWD)
		snprintf(link, sizeof(link), "/proc/%d/cwd", (int)t->tid);
	else
		snprintf(link, sizeof(link), "/proc/%d/fd/%d", (int)t->tid, fd);
	n = readlink(link, out, outlen - 1);
	if (n < 0)
		return -errno;
	out[n] = 0;
	return 0;
}

static uint64_t rd_sp(void *ctx)
{
	struct engine_trc_thread *t = ctx;
	struct arch_regs *regs;

	if (engine_regs(t->e, t->tid, &regs) < 0)
		return 0;
	return regs->gp.rsp;
}

struct trc_reader engine_trc_reader(struct engine_trc_thread *t)
{
	return (struct trc_reader){t, rd_read, rd_fd_path, rd_sp};
}
