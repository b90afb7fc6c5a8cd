/*
 * arm64 hardware breakpoints and watchpoints, pure (src/arch/arm64/
 * arm64_dregs.c): slots, doubleword pieces with their byte masks, sharing
 * by reference count, all or nothing; the NT_ARM_HW_BREAK/NT_ARM_HW_WATCH
 * regsets written (struct user_hwdebug_state: address and control word
 * per slot); which slot a TRAP_HWBKPT's address names.
 */
#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "arch/arch.h"
#include "tap.h"

static struct arch_dr_plan pl;

/* Slot i of regset w of the plan: its address and control word. */
static uint64_t slot_addr(unsigned w, int i)
{
	uint64_t a;

	memcpy(&a, (const uint8_t *)pl.w[w].buf + 8 + 16 * i, 8);
	return a;
}

static uint32_t slot_ctrl(unsigned w, int i)
{
	uint32_t c;

	memcpy(&c, (const uint8_t *)pl.w[w].buf + 8 + 16 * i + 8, 4);
	return c;
}

static void test_breakpoints(void)
{
	struct arch_dregs dr = {0};
	bool stepped = true;

	is_int(arch_dr_insert(&dr, ARCH_DR_EXEC, 0x400102, 4), -EINVAL, "breakpoint off 4: EINVAL");
	is_int(arch_dr_insert(&dr, ARCH_DR_EXEC, 0x400100, 4), 0, "breakpoint at 0x400100");
	is_int(arch_dr_insert(&dr, ARCH_DR_EXEC, 0x400100, 4), 0, "  again: shared");
	is_int(dr.refs[0], 2, "  slot 0, two references");
	arch_dr_plan(&dr, &pl);
	is_int(pl.n, 2, "two regsets written");
	ok(pl.w[0].note == NT_ARM_HW_BREAK && pl.w[0].len == 8 + 4 * 16,
	   "  NT_ARM_HW_BREAK, four slots");
	ok(pl.w[1].note == NT_ARM_HW_WATCH && pl.w[1].len == 8 + 4 * 16,
	   "  NT_ARM_HW_WATCH, four slots");
	is_int(slot_addr(0, 0), 0x400100, "  slot 0: the instruction");
	is_int(slot_ctrl(0, 0), 0x1e5, "  enabled, EL0, all four bytes (0x1e5)");
	ok(!slot_ctrl(0, 1) && !slot_ctrl(1, 0), "  the others off");
	is_int(arch_dr_hit(&dr, 0, TRAP_HWBKPT, 0x400100, &stepped), 0, "a hit at the pc: slot 0");
	ok(!stepped, "  no step with it");
	is_int(arch_dr_hit(&dr, 0, TRAP_BRKPT, 0x400100, &stepped), -1, "a brk's trap: no slot");
	is_int(arch_dr_remove(&dr, ARCH_DR_EXEC, 0x400100, 4), 0, "removed once");
	arch_dr_plan(&dr, &pl);
	is_int(slot_ctrl(0, 0), 0x1e5, "  still on");
	is_int(arch_dr_remove(&dr, ARCH_DR_EXEC, 0x400100, 4), 0, "removed twice");
	arch_dr_plan(&dr, &pl);
	is_int(slot_ctrl(0, 0), 0, "  off");
	is_int(arch_dr_remove(&dr, ARCH_DR_EXEC, 0x400100, 4), -ENOENT, "a third time: ENOENT");
}

static void test_watchpoints(void)
{
	struct arch_dregs dr = {0}, before;
	bool stepped;

	is_int(arch_dr_insert(&dr, ARCH_DR_WRITE, 0x601004, 4), 0, "write watch 0x601004/4");
	arch_dr_plan(&dr, &pl);
	is_int(slot_addr(1, 0), 0x601000, "  its doubleword");
	is_int(slot_ctrl(1, 0), 1 | 4 | (2 << 3) | (0xf0 << 5), "  store, bytes 4-7");
	is_int(arch_dr_insert(&dr, ARCH_DR_READ, 0x601010, 1), 0, "read watch 0x601010/1");
	arch_dr_plan(&dr, &pl);
	is_int(slot_ctrl(1, 1), 1 | 4 | (1 << 3) | (0x01 << 5),
	       "  load, byte 0: arm64 reads its own");
	is_int(arch_dr_insert(&dr, ARCH_DR_ACCESS, 0x601026, 4), 0,
	       "access watch 0x601026/4 across a doubleword");
	arch_dr_plan(&dr, &pl);
	ok(slot_addr(1, 2) == 0x601020 && slot_ctrl(1, 2) == (1 | 4 | (3 << 3) | (0xc0 << 5)),
	   "  0x601020: bytes 6-7, load and store");
	ok(slot_addr(1, 3) == 0x601028 && slot_ctrl(1, 3) == (1 | 4 | (3 << 3) | (0x03 << 5)),
	   "  0x601028: bytes 0-1");
	before = dr;
	is_int(arch_dr_insert(&dr, ARCH_DR_WRITE, 0x602000, 8), -ENOSPC, "a fifth piece: ENOSPC");
	ok(!memcmp(&dr, &before, sizeof(dr)), "  nothing changed");
	is_int(arch_dr_insert(&dr, ARCH_DR_WRITE, 0x601004, 4), 0, "the first again: shared");
	is_int(arch_dr_hit(&dr, 0, TRAP_HWBKPT, 0x601006, &stepped), 4,
	       "a store at 0x601006: slot 4");
	is_int(arch_dr_hit(&dr, 0, TRAP_HWBKPT, 0x601028, &stepped), 7, "at 0x601028: slot 7");
	is_int(arch_dr_hit(&dr, 0, TRAP_HWBKPT, 0x605000, &stepped), -1, "elsewhere: none");
	is_int(dr.addr[6], 0x601026, "the reported address is the first byte watched");
	is_int(arch_dr_remove(&dr, ARCH_DR_ACCESS, 0x601026, 4), 0, "the access watch removed");
	is_int(arch_dr_remove(&dr, ARCH_DR_READ, 0x601010, 1), 0, "the read watch removed");
	is_int(arch_dr_hit(&dr, 0, TRAP_HWBKPT, 0x600ff8, &stepped), 4,
	       "one watchpoint left: a wide access reported below it is its");
	is_int(arch_dr_insert(&dr, ARCH_DR_WRITE, 0x601000, 0), -EINVAL, "length 0: EINVAL");
	arch_dr_plan(NULL, &pl);
	ok(pl.n == 2 && !slot_ctrl(0, 0) && !slot_ctrl(1, 0) && !slot_ctrl(1, 3),
	   "the clearing plan: every slot off");
	is_int(arch_dr_status_off(), -1, "no status register to read");
}

int main(void)
{
	test_breakpoints();
	test_watchpoints();
	return done_testing();
}
