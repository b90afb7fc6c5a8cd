/*
 * x86 debug registers as pure state: which of the four address slots hold
 * what, how many gdb breakpoints/watchpoints share each, and the DR7 value
 * that enables them. The engine copies addr[] and dr7 to every thread.
 *
 * A region is covered by naturally aligned pieces of 8, 4, 2 or 1 bytes,
 * each taking one slot; an identical piece (same address, length and type)
 * already in a slot is shared by reference count. 8-byte pieces are used
 * for i386 tasks too: the 8-byte LEN encoding works in long mode, which
 * includes compatibility mode, and the kernel accepts it for any task.
 *
 * DR7 gets only the local enable bits (L0-L3) with the RW/LEN fields; the
 * LE/GE "exact" bits are left clear: CPUs since the P6 ignore them, the
 * kernel builds the hardware DR7 itself from what ptrace gives it, and it
 * keeps DR7 zero exactly when no slot is in use.
 */
#include <errno.h>
#include <stddef.h>
#include <sys/user.h>

#include "x86.h"

#define DR_SLOTS 4

struct dr_piece {
	uint64_t addr;
	int len;
};

/* Split [addr, addr+len) into aligned pieces; returns how many (may exceed max). */
static int dr_split(uint64_t addr, int len, struct dr_piece *out, int max)
{
	int n = 0;

	while (len > 0) {
		int size = 8;

		while (size > 1 && ((addr & (uint64_t)(size - 1)) || size > len))
			size /= 2;
		if (n < max) {
			out[n].addr = addr;
			out[n].len = size;
		}
		n++;
		addr += (uint64_t)size;
		len -= size;
	}
	return n;
}

static int dr_find(const struct arch_dregs *dr, enum arch_dr_type type, const struct dr_piece *p)
{
	for (int i = 0; i < DR_SLOTS; i++)
		if (dr->refs[i] > 0 && dr->type[i] == type && dr->addr[i] == p->addr &&
		    dr->len[i] == p->len)
			return i;
	return -1;
}

static uint64_t dr7_rw(enum arch_dr_type type)
{
	switch (type) {
	case ARCH_DR_EXEC:
		return 0;
	case ARCH_DR_WRITE:
		return 1;
	case ARCH_DR_READ:
	case ARCH_DR_ACCESS:
		return 3;
	}
	return 0;
}

static uint64_t dr7_len(int len)
{
	switch (len) {
	case 2:
		return 1;
	case 4:
		return 3;
	case 8:
		return 2;
	default:
		return 0;
	}
}

static void dr7_update(struct arch_dregs *dr)
{
	uint64_t dr7 = 0;

	for (int i = 0; i < DR_SLOTS; i++) {
		if (dr->refs[i] <= 0)
			continue;
		dr7 |= 1ull << (2 * i);
		dr7 |= dr7_rw(dr->type[i]) << (16 + 4 * i);
		if (dr->type[i] != ARCH_DR_EXEC)
			dr7 |= dr7_len(dr->len[i]) << (18 + 4 * i);
	}
	dr->dr7 = dr7;
}

static int dr_check(enum arch_dr_type type, int len)
{
	if (len <= 0)
		return -EINVAL;
	if (type == ARCH_DR_EXEC && len != 1)
		return -EINVAL;
	if (type != ARCH_DR_EXEC && type != ARCH_DR_WRITE && type != ARCH_DR_READ &&
	    type != ARCH_DR_ACCESS)
		return -EINVAL;
	return 0;
}

int arch_dr_insert(struct arch_dregs *dr, enum arch_dr_type type, uint64_t addr, int len)
{
	struct dr_piece pieces[DR_SLOTS];
	int slot[DR_SLOTS];
	int n, i, err, nfree = 0, need = 0;

	err = dr_check(type, len);
	if (err)
		return err;
	n = dr_split(addr, len, pieces, DR_SLOTS);
	if (n > DR_SLOTS)
		return -ENOSPC;
	for (i = 0; i < DR_SLOTS; i++)
		nfree += dr->refs[i] <= 0;
	for (i = 0; i < n; i++) {
		slot[i] = dr_find(dr, type, &pieces[i]);
		need += slot[i] < 0;
	}
	if (need > nfree)
		return -ENOSPC;
	for (i = 0; i < n; i++) {
		int s = slot[i];

		if (s < 0) {
			for (s = 0; dr->refs[s] > 0; s++)
				;
			dr->addr[s] = pieces[i].addr;
			dr->type[s] = (uint8_t)type;
			dr->len[s] = (uint8_t)pieces[i].len;
			dr->refs[s] = 0;
		}
		dr->refs[s]++;
	}
	dr7_update(dr);
	return 0;
}

int arch_dr_remove(struct arch_dregs *dr, enum arch_dr_type type, uint64_t addr, int len)
{
	struct dr_piece pieces[DR_SLOTS];
	int slot[DR_SLOTS];
	int n, i;

	if (dr_check(type, len))
		return -ENOENT;
	n = dr_split(addr, len, pieces, DR_SLOTS);
	if (n > DR_SLOTS)
		return -ENOENT;
	for (i = 0; i < n; i++) {
		slot[i] = dr_find(dr, type, &pieces[i]);
		if (slot[i] < 0)
			return -ENOENT;
	}
	for (i = 0; i < n; i++) {
		int s = slot[i];

		if (--dr->refs[s] == 0) {
			dr->addr[s] = 0;
			dr->type[s] = 0;
			dr->len[s] = 0;
		}
	}
	dr7_update(dr);
	return 0;
}

int arch_dr_hit_slot(const struct arch_dregs *dr, uint64_t dr6)
{
	for (int i = 0; i < DR_SLOTS; i++)
		if ((dr6 & (1ull << i)) && dr->refs[i] > 0)
			return i;
	return -1;
}

static unsigned long dr_off(int n)
{
	return offsetof(struct user, u_debugreg) + (unsigned long)n * sizeof(long);
}

static void poke(struct arch_dr_plan *plan, int n, uint64_t val)
{
	plan->w[plan->n++] = (struct arch_dr_write){.off = dr_off(n), .val = val};
}

/* DR7 off first: the kernel checks each address against the enabled slots */
void arch_dr_plan(const struct arch_dregs *dr, struct arch_dr_plan *plan)
{
	plan->n = 0;
	poke(plan, 7, 0);
	for (int i = 0; i < DR_SLOTS; i++)
		if (!dr || dr->refs[i])
			poke(plan, i, dr ? dr->addr[i] : 0);
	if (dr && dr->dr7)
		poke(plan, 7, dr->dr7);
	if (!dr)
		poke(plan, 6, 0);
}

int arch_dr_hit(const struct arch_dregs *dr, uint64_t status, int code, uint64_t addr,
		bool *stepped)
{
	(void)code, (void)addr;
	*stepped = status & (1u << 14); /* BS */
	return arch_dr_hit_slot(dr, status);
}

long arch_dr_status_off(void)
{
	return (long)dr_off(6);
}

bool arch_dr_fired(uint64_t dr6)
{
	return dr6 & ((1u << DR_SLOTS) - 1);
}
