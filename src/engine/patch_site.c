/*
 * patch_site.c: may a patch's jmp go at a breakpoint address, and where a
 * thread found between its replaced instructions goes on.
 *
 * The jmp is 5 bytes. When the instruction at the address is shorter, the
 * jmp covers the next ones too, and only if nothing else can reach them:
 * no other breakpoint of ours under the jmp, and no jump of the function
 * (found by its ELF symbol, decoded whole with the original bytes) landing
 * past the address inside the replaced bytes. A thread can still be there
 * by stepping, or put back there after a stop inside their relocated
 * copies: it goes on from the copy of its instruction (patch_resume).
 */
#include "engine_int.h"
#include "../util/elf_func.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FUNC_MAX (1u << 20) /* bytes of a function decoded, at most */

/* The mapped file around addr, opened, and the file offset of addr; -1 if none. */
static int open_mapping(struct uproc *p, uint64_t addr, uint64_t *file_off)
{
	char path[64], line[4096 + 128];
	uint64_t lo, hi, off;
	int fd = -1, at;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", p->pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fd < 0 && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64 " %*s %*s %n", &lo, &hi,
			   &off, &at) < 3 ||
		    addr < lo || addr >= hi)
			continue;
		*file_off = addr - lo + off;
		snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, p->pid, lo,
			 hi);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		line[strcspn(line, "\n")] = '\0';
		if (fd < 0 && line[at] == '/')
			fd = open(line + at, O_RDONLY | O_CLOEXEC);
		break;
	}
	fclose(f);
	return fd;
}

/*
 * The function around addr, its original code read; NULL: none found, or
 * *why: one whose landing pads (C++ exceptions, cleanups) the unwinder
 * jumps to unseen by any decoding.
 */
static uint8_t *func_code(struct uproc *p, uint64_t addr, uint64_t *start, size_t *len,
			  const char **why)
{
	struct elf_func fn;
	uint64_t off;
	uint8_t *code;
	int fd = open_mapping(p, addr, &off);

	if (fd < 0)
		return NULL;
	if (elf_func_at(fd, off, &fn) < 0 || fn.size > FUNC_MAX) {
		close(fd);
		return NULL;
	}
	close(fd);
	if (fn.has_lsda) {
		*why = "landing pads in the function";
		return NULL;
	}
	*start = addr - fn.offset;
	*len = (size_t)fn.size;
	code = malloc(*len);
	if (code && mem_read_orig(p, *start, code, *len) != (ssize_t)*len) {
		free(code);
		code = NULL;
	}
	return code;
}

const char *patch_site_check(struct uproc *p, uint64_t addr, const struct arch_patch *ap)
{
	const char *why;
	uint64_t start;
	uint8_t *code;
	size_t len;

	for (struct swbp *bp = p->bps; bp; bp = bp->next)
		if (bp->addr > addr && bp->addr < addr + ap->jump_len)
			return "another breakpoint under the jmp";
	if (ap->ninsns == 1)
		return NULL; /* nothing can start inside one instruction */
	why = "no function bounds";
	code = func_code(p, addr, &start, &len, &why);
	if (!code)
		return why;
	why = arch_patch_check_func(p->arch, code, len, start, addr, ap->replaced);
	free(code);
	return why;
}

bool patch_under_jmp(struct uproc *p, uint64_t addr)
{
	for (struct swbp *bp = p->bps; bp; bp = bp->next)
		if (bp->patch && bp->patch->applied && addr > bp->addr &&
		    addr < bp->addr + bp->patch->code.jump_len)
			return true;
	return false;
}

struct swbp *patch_covering(struct uproc *p, uint64_t pc)
{
	for (struct swbp *bp = p->bps; bp; bp = bp->next)
		if (bp->patch && bp->patch->applied && pc >= bp->addr &&
		    pc < bp->addr + bp->patch->code.replaced)
			return bp;
	return NULL;
}

void patch_resume(struct uthread *th)
{
	struct uproc *p = th->p;
	uint64_t pc, to;

	/* (stepped in place: the jmp is lifted, the original bytes are there) */
	if (!p->agent_at || p->step_over == th || regs_fetch(th, false) < 0)
		return;
	pc = arch_pc(p->arch, &th->regs);
	for (struct swbp *bp = p->bps; bp; bp = bp->next) {
		if (!bp->patch || !bp->patch->applied || pc <= bp->addr ||
		    pc >= bp->addr + bp->patch->code.replaced)
			continue;
		to = arch_patch_resume_pc(&bp->patch->code, bp->patch->at, pc);
		if (!to)
			return;
		arch_set_pc(p->arch, &th->regs, to);
		regs_store(th, ARCH_RS_GP);
		return;
	}
}
