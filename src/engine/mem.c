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

/*
 * One regset of a thread in or out, as the CPU's descriptor says: through
 * PTRACE_GETREGSET/SETREGSET when it names a note, else with a request
 * that takes the buffer itself. *len: the buffer's size in, the regset's out.
 */
static int regset_io(pid_t tid, long req, unsigned long note, void *buf, size_t *len)
{
	struct iovec iov = {.iov_base = buf, .iov_len = *len};

	if (!note)
		return ptrace((enum __ptrace_request)req, tid, 0L, buf) < 0 ? -errno : 0;
	if (ptrace((enum __ptrace_request)req, tid, (void *)note, &iov) < 0)
		return -errno;
	*len = iov.iov_len;
	return 0;
}

int regs_gp_get(const struct arch_desc *d, pid_t tid, arch_gp_t *gp)
{
	size_t len = sizeof(*gp);

	return regset_io(tid, d->gp_get, d->gp_note, gp, &len);
}

int regs_gp_set(const struct arch_desc *d, pid_t tid, const arch_gp_t *gp)
{
	size_t len = sizeof(*gp);

	return regset_io(tid, d->gp_set, d->gp_note, (void *)gp, &len);
}

int regs_fetch(struct uthread *th, bool ext)
{
	const struct arch_desc *d = th->p->arch;
	size_t len;
	int err;

	if (!th->stopped)
		return -EBUSY;
	if (!th->regs_valid) {
		err = regs_gp_get(d, th->tid, &th->regs.gp);
		if (err)
			return err;
		th->regs_valid = true;
	}
	if (ext && !th->ext_valid) {
		len = sizeof(th->regs.ext);
		err = regset_io(th->tid, PTRACE_GETREGSET, d->ext_note, th->regs.ext, &len);
		if (err)
			return err;
		th->regs.ext_len = len;
		len = sizeof(th->regs.tls);
		th->regs.tls = 0; /* a kernel without the regset: 0, as before libc sets it */
		if (d->tls_note)
			regset_io(th->tid, PTRACE_GETREGSET, d->tls_note, &th->regs.tls, &len);
		th->ext_valid = true;
	}
	return 0;
}

int regs_store(struct uthread *th, unsigned which)
{
	const struct arch_desc *d = th->p->arch;
	size_t len;
	int err;

	if (which & ARCH_RS_GP) {
		err = regs_gp_set(d, th->tid, &th->regs.gp);
		if (err)
			return err;
		th->regs_dirty = false;
	}
	if (which & ARCH_RS_EXT) {
		len = th->regs.ext_len;
		err = regset_io(th->tid, PTRACE_SETREGSET, d->ext_note, th->regs.ext, &len);
		if (err)
			return err;
	}
	if ((which & ARCH_RS_TLS) && d->tls_note) {
		len = sizeof(th->regs.tls);
		err = regset_io(th->tid, PTRACE_SETREGSET, d->tls_note, &th->regs.tls, &len);
		if (err)
			return err;
	}
	if ((which & ARCH_RS_SYS) && d->sys_note) {
		len = sizeof(th->regs.sys);
		err = regset_io(th->tid, PTRACE_SETREGSET, d->sys_note, &th->regs.sys, &len);
		if (err)
			return err;
	}
	return 0;
}

void regs_sync(struct uthread *th)
{
	if (th->regs_dirty && th->stopped && th->regs_valid)
		regs_store(th, ARCH_RS_GP);
	th->regs_dirty = false;
}

/* The personality of a thread: its NT_PRSTATUS regset's length tells (arch_of_prstatus). */
void detect_arch(struct uproc *p, pid_t tid)
{
	uint8_t regs[1024];
	struct iovec iov = {.iov_base = regs, .iov_len = sizeof(regs)};

	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_PRSTATUS, &iov) == 0 &&
	    arch_of_prstatus(iov.iov_len))
		p->arch = arch_of_prstatus(iov.iov_len);
}

void regs_invalidate(struct uthread *th)
{
	th->regs_dirty = false; /* (the cache goes: nothing left to store) */
	th->regs_valid = false;
	th->ext_valid = false;
}
