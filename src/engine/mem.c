/*
 * mem.c: the tracee's memory and registers, raw.
 *
 * Reads use process_vm_readv (one syscall, no page-table walk through
 * /proc) and fall back to /proc/PID/mem for what it refuses (pages without
 * read permission); writes always go through /proc/PID/mem, which may
 * write read-only text (the kernel does it copy-on-write, as for ptrace
 * POKETEXT). Registers are cached per thread until it resumes.
 */
#include "engine_int.h"

#include <elf.h>
#include <errno.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <unistd.h>

ssize_t mem_read_raw(struct uproc *p, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = {.iov_base = buf, .iov_len = len};
	struct iovec remote = {.iov_base = (void *)(uintptr_t)addr, .iov_len = len};
	ssize_t n, m;

	if (!len)
		return 0;
	n = process_vm_readv(p->pid, &local, 1, &remote, 1, 0);
	if (n == (ssize_t)len)
		return n;
	if (n < 0)
		n = 0;
	m = pread(p->memfd, (char *)buf + n, len - (size_t)n, (off_t)(addr + (uint64_t)n));
	if (m > 0)
		return n + m;
	return n ? n : -EIO;
}

ssize_t mem_write_raw(struct uproc *p, uint64_t addr, const void *buf, size_t len)
{
	ssize_t n;

	if (!len)
		return 0;
	n = pwrite(p->memfd, buf, len, (off_t)addr);
	if (n < 0)
		return -errno;
	return n ? n : -EIO;
}

/* Memory as the program's own: our traps and jmps show the bytes they replaced. */
ssize_t mem_read_orig(struct uproc *p, uint64_t addr, void *buf, size_t len)
{
	ssize_t n;

	n = mem_read_raw(p, addr, buf, len);
	if (n <= 0)
		return n;
	for (struct swbp *bp = p->bps; bp; bp = bp->next) {
		size_t n_ours;
		const uint8_t *ours = patch_bytes(p, bp, &n_ours);

		if (!bp->inserted || (p->step_over && p->step_over_addr == bp->addr))
			continue; /* (lifted for a step over: memory has the original) */
		for (size_t i = 0; i < n_ours; i++) {
			uint64_t a = bp->addr + i;
			uint8_t *b;

			/* no pointer made before the check: one before buf is undefined already */
			if (a < addr || a >= addr + (uint64_t)n)
				continue;
			b = (uint8_t *)buf + (a - addr);
			if (*b != ours[i]) {
				bp->inserted = false; /* new code was mapped over it */
				break;
			}
			*b = bp->orig[i];
		}
	}
	return n;
}

int regs_fetch(struct uthread *th, bool xsave)
{
	struct iovec iov;

	if (!th->stopped)
		return -EBUSY;
	if (!th->regs_valid) {
		if (ptrace(PTRACE_GETREGS, th->tid, 0L, &th->regs.gp) < 0)
			return -errno;
		th->regs_valid = true;
	}
	if (xsave && !th->xsave_valid) {
		iov.iov_base = th->regs.xsave;
		iov.iov_len = sizeof(th->regs.xsave);
		if (ptrace(PTRACE_GETREGSET, th->tid, (void *)NT_X86_XSTATE, &iov) < 0)
			return -errno;
		th->regs.xsave_len = iov.iov_len;
		th->xsave_valid = true;
	}
	return 0;
}

int regs_store(struct uthread *th, unsigned which)
{
	struct iovec iov;

	if (which & ARCH_RS_GP) {
		if (ptrace(PTRACE_SETREGS, th->tid, 0L, &th->regs.gp) < 0)
			return -errno;
		th->regs_dirty = false;
	}
	if (which & ARCH_RS_XSAVE) {
		iov.iov_base = th->regs.xsave;
		iov.iov_len = th->regs.xsave_len;
		if (ptrace(PTRACE_SETREGSET, th->tid, (void *)NT_X86_XSTATE, &iov) < 0)
			return -errno;
	}
	return 0;
}

void regs_sync(struct uthread *th)
{
	if (th->regs_dirty && th->stopped && th->regs_valid)
		regs_store(th, ARCH_RS_GP);
	th->regs_dirty = false;
}

void regs_invalidate(struct uthread *th)
{
	th->regs_dirty = false; /* (the cache goes: nothing left to store) */
	th->regs_valid = false;
	th->xsave_valid = false;
}
