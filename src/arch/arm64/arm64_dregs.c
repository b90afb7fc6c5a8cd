/*
 * arm64_dregs.c: hardware breakpoints and watchpoints as pure state, and
 * the regset writes that install them.
 *
 * A breakpoint takes one of the breakpoint slots (0-3) at a 4-byte
 * aligned instruction. A watchpoint region is cut at doubleword
 * boundaries: each piece takes a watchpoint slot (4-7) holding the
 * doubleword's address and a byte-address-select mask of the bytes
 * watched; an identical piece is shared by reference count. arm64 has
 * read watchpoints of its own (load/store control 1 load, 2 store, 3
 * both).
 *
 * The kernel takes them as struct user_hwdebug_state through
 * PTRACE_SETREGSET NT_ARM_HW_BREAK and NT_ARM_HW_WATCH: a dbg_info word
 * (ignored on a write), then per slot its address and control word
 * (enable, privilege EL0, load/store, byte mask). The CPU has at least 2
 * of each and usually more; 4 of each are assumed here (dbg_info is not
 * read yet: a CPU with fewer refuses the write of the slots it lacks).
 * A hit is a SIGTRAP with TRAP_HWBKPT and the address in si_addr: the
 * instruction for a breakpoint, for a watchpoint the address the access
 * made (which may lie before the watched byte, within its doubleword).
 */
#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "arm64.h"

#define BRPS	 ARM64_DR_BRPS
#define NSLOTS	 (ARM64_DR_BRPS + ARM64_DR_WRPS)
#define HDR	 8  /* dbg_info, pad */
#define SLOT_LEN 16 /* addr, ctrl, pad */

/* control word: enable, privilege (2: EL0), load/store control, byte address select */
#define CTRL_ENABLE 1u
#define CTRL_EL0    (2u << 1)
#define CTRL_LSC(x) ((uint32_t)(x) << 3)
#define CTRL_BAS(x) ((uint32_t)(x) << 5)

struct piece {
	uint64_t addr;
	uint8_t bas;
};

/* The pieces of a region, as many as max; returns how many it takes (may exceed max). */
static int split(enum arch_dr_type type, uint64_t addr, int len, struct piece *out, int max)
{
	int n = 0;

	if (type == ARCH_DR_EXEC) {
		out[0] = (struct piece){addr, 0xf};
		return 1;
	}
	while (len > 0) {
		int off = (int)(addr & 7), size = 8 - off < len ? 8 - off : len;

		if (n < max)
			out[n] = (struct piece){addr, (uint8_t)(((1u << size) - 1) << off)};
		n++;
		addr += (uint64_t)size;
		len -= size;
	}
	return n;
}

static int find(const struct arch_dregs *dr, enum arch_dr_type type, const struct piece *p)
{
	for (int i = 0; i < NSLOTS; i++)
		if (dr->refs[i] > 0 && dr->type[i] == type && dr->addr[i] == p->addr &&
		    dr->bas[i] == p->bas)
			return i;
	return -1;
}

static int free_slot(const struct arch_dregs *dr, enum arch_dr_type type, const bool *taken)
{
	int lo = type == ARCH_DR_EXEC ? 0 : BRPS, hi = type == ARCH_DR_EXEC ? BRPS : NSLOTS;

	for (int i = lo; i < hi; i++)
		if (dr->refs[i] <= 0 && !taken[i])
			return i;
	return -1;
}

int arch_dr_insert(struct arch_dregs *dr, enum arch_dr_type type, uint64_t addr, int len)
{
	struct piece p[ARM64_DR_WRPS];
	int slot[ARM64_DR_WRPS], n;
	bool taken[NSLOTS] = {false};

	if (len <= 0 || (type == ARCH_DR_EXEC && (addr & 3)))
		return -EINVAL;
	n = split(type, addr, len, p, ARM64_DR_WRPS);
	if (n > ARM64_DR_WRPS)
		return -ENOSPC;
	for (int i = 0; i < n; i++) {
		slot[i] = find(dr, type, &p[i]);
		if (slot[i] < 0 && (slot[i] = free_slot(dr, type, taken)) < 0)
			return -ENOSPC; /* nothing changed yet */
		taken[slot[i]] = true;
	}
	for (int i = 0; i < n; i++) {
		if (dr->refs[slot[i]]++ > 0)
			continue;
		dr->addr[slot[i]] = p[i].addr;
		dr->type[slot[i]] = (uint8_t)type;
		dr->bas[slot[i]] = p[i].bas;
	}
	return 0;
}

int arch_dr_remove(struct arch_dregs *dr, enum arch_dr_type type, uint64_t addr, int len)
{
	struct piece p[ARM64_DR_WRPS];
	int slot[ARM64_DR_WRPS], n;

	if (len <= 0)
		return -ENOENT;
	n = split(type, addr, len, p, ARM64_DR_WRPS);
	if (n > ARM64_DR_WRPS)
		return -ENOENT;
	for (int i = 0; i < n; i++)
		if ((slot[i] = find(dr, type, &p[i])) < 0)
			return -ENOENT;
	for (int i = 0; i < n; i++)
		dr->refs[slot[i]]--;
	return 0;
}

static uint32_t ctrl_of(const struct arch_dregs *dr, int i)
{
	static const uint8_t lsc[] = {
		[ARCH_DR_EXEC] = 0, [ARCH_DR_WRITE] = 2, [ARCH_DR_READ] = 1, [ARCH_DR_ACCESS] = 3};

	if (!dr || dr->refs[i] <= 0)
		return 0;
	return CTRL_ENABLE | CTRL_EL0 | CTRL_LSC(lsc[dr->type[i] & 3]) | CTRL_BAS(dr->bas[i]);
}

/* One regset: its slots lo..hi-1 as struct user_hwdebug_state. */
static void regset(struct arch_dr_plan *plan, const struct arch_dregs *dr, unsigned long note,
		   int lo, int hi)
{
	uint8_t *b = plan->buf[plan->n];
	size_t len = HDR + (size_t)(hi - lo) * SLOT_LEN;

	memset(b, 0, len);
	for (int i = lo; i < hi; i++) {
		uint64_t a = dr && dr->refs[i] > 0 ? dr->addr[i] & ~7ULL : 0;
		uint32_t c = ctrl_of(dr, i);

		if (dr && dr->refs[i] > 0 && dr->type[i] == ARCH_DR_EXEC)
			a = dr->addr[i];
		memcpy(b + HDR + (size_t)(i - lo) * SLOT_LEN, &a, 8);
		memcpy(b + HDR + (size_t)(i - lo) * SLOT_LEN + 8, &c, 4);
	}
	plan->w[plan->n] = (struct arch_dr_write){.note = note, .buf = b, .len = len};
	plan->n++;
}

void arch_dr_plan(const struct arch_dregs *dr, struct arch_dr_plan *plan)
{
	_Static_assert(HDR + ARM64_DR_WRPS * SLOT_LEN <= ARCH_DR_BUF, "a regset fits its buffer");
	plan->n = 0;
	regset(plan, dr, NT_ARM_HW_BREAK, 0, BRPS);
	regset(plan, dr, NT_ARM_HW_WATCH, BRPS, NSLOTS);
}

int arch_dr_hit(const struct arch_dregs *dr, uint64_t status, int code, uint64_t addr,
		bool *stepped)
{
	int only = -1, used = 0;

	(void)status;
	*stepped = false;
	if (code != TRAP_HWBKPT)
		return -1;
	for (int i = 0; i < BRPS; i++)
		if (dr->refs[i] > 0 && dr->addr[i] == addr)
			return i;
	for (int i = BRPS; i < NSLOTS; i++) {
		if (dr->refs[i] <= 0)
			continue;
		if ((dr->addr[i] & ~7ULL) == (addr & ~7ULL))
			return i;
		only = i;
		used++;
	}
	/* an access reported below its doubleword (a wide one): the one watchpoint there is */
	return used == 1 ? only : -1;
}

long arch_dr_status_off(void)
{
	return -1; /* no status register: si_code and si_addr say what fired */
}

bool arch_dr_fired(uint64_t status)
{
	(void)status;
	return false;
}

int arch_dr_hit_slot(const struct arch_dregs *dr, uint64_t status)
{
	(void)dr, (void)status;
	return -1;
}
