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
	return arch_sp(engine_arch(t->e), regs);
}

struct trc_reader engine_trc_reader(struct engine_trc_thread *t)
{
	return (struct trc_reader){t, rd_read, rd_fd_path, rd_sp};
}

enum trc_pers engine_trc_pers(const struct arch_desc *arch)
{
	return arch && arch->pers ? TRC_PERS_32 : TRC_PERS_64;
}

/* -c without -w sums system CPU time: the engine must fetch it at each stop. */
static unsigned observe_mask(const struct trc_opts *o, bool follow)
{
	unsigned mask = ENGINE_OBSERVE_SYSCALLS | ENGINE_OBSERVE_SIGNALS;

	if (follow)
		mask |= ENGINE_OBSERVE_FORKS;
	if (o->count != TRC_COUNT_OFF && !o->count_wall)
		mask |= ENGINE_OBSERVE_STIME;
	return mask;
}

int engine_trc_observe(struct engine *e, const struct trc_opts *o, bool follow)
{
	static long nrs[TRC_SET_MAX];
	enum trc_pers p = engine_trc_pers(engine_arch(e));
	struct engine_resume run = {-1, ENGINE_RUN, 0};
	bool all = trc_traces_all(o, p);
	size_t n = all ? 0 : trc_traced_nrs(o, p, nrs, TRC_SET_MAX);
	int rc = engine_observe(e, observe_mask(o, follow), all ? NULL : nrs, n);

	return rc ? rc : engine_resume(e, &run, 1);
}
