/*
 * x86 debug register state (src/arch/x86/x86_dregs.c): DR7 encodings, slot
 * sharing, splitting of unaligned or long regions, all-or-nothing -ENOSPC,
 * removal and DR6 decoding.
 */
#include <errno.h>
#include <string.h>

#include "arch/arch.h"
#include "tap.h"

/* DR7 bits for slot i: local enable, RW and LEN fields. */
static uint64_t dr7_slot(int i, unsigned int rw, unsigned int len)
{
	return (1ull << (2 * i)) | ((uint64_t)rw << (16 + 4 * i)) | ((uint64_t)len << (18 + 4 * i));
}

static int used_slots(const struct arch_dregs *dr)
{
	int n = 0;

	for (int i = 0; i < 4; i++)
		n += dr->refs[i] > 0;
	return n;
}

static void test_encodings(void)
{
	struct arch_dregs dr = {0};
	struct arch_dregs saved;

	is_int(arch_dr_insert(&dr, ARCH_DR_WRITE, 0x1000, 4), 0, "write 4 @0x1000");
	is_int(dr.addr[0], 0x1000, "  slot 0 address");
	is_int(dr.len[0], 4, "  slot 0 len");
	is_int(dr.dr7, dr7_slot(0, 1, 3), "  DR7: L0, RW=01, LEN=11");
	is_int(dr.dr7, 0xd0001, "  DR7 literal 0xd0001");

	is_int(arch_dr_insert(&dr, ARCH_DR_EXEC, 0x401000, 1), 0, "exec @0x401000");
	is_int(dr.addr[1], 0x401000, "  slot 1 address");
	is_int(dr.dr7, dr7_slot(0, 1, 3) | dr7_slot(1, 0, 0), "  DR7: L1, RW=00, LEN=00");

	is_int(arch_dr_insert(&dr, ARCH_DR_ACCESS, 0x3000, 8), 0, "access 8 @0x3000");
	is_int(dr.dr7 & (0xfull << 24), (3ull << 24) | (2ull << 26), "  slot 2: RW=11, LEN=10");
	ok(dr.dr7 & (1ull << 4), "  L2 set");

	is_int(arch_dr_insert(&dr, ARCH_DR_READ, 0x4002, 2), 0, "read 2 @0x4002");
	is_int(dr.dr7 & (0xfull << 28), (3ull << 28) | (1ull << 30),
	       "  slot 3: RW=11 (read as access), LEN=01");
	is_int(dr.dr7 & 0x300, 0, "LE/GE left clear");
	is_int(dr.dr7 & 0xaa, 0, "no global enable bits");

	saved = dr;
	is_int(arch_dr_insert(&dr, ARCH_DR_WRITE, 0x5000, 1), -ENOSPC, "fifth slot: -ENOSPC");
	ok(memcmp(&dr, &saved, sizeof(dr)) == 0, "  state unchanged");

	is_int(arch_dr_hit_slot(&dr, 0x4), 2, "DR6 B2 -> slot 2");
	is_int(arch_dr_hit_slot(&dr, 0x6), 1, "DR6 B1|B2 -> lowest, slot 1");
	is_int(arch_dr_hit_slot(&dr, 0x4000), -1, "DR6 BS only -> -1");
	is_int(arch_dr_hit_slot(&dr, 0), -1, "DR6 0 -> -1");

	is_int(arch_dr_remove(&dr, ARCH_DR_EXEC, 0x401000, 1), 0, "remove exec");
	is_int(dr.refs[1], 0, "  slot 1 free");
	ok(!(dr.dr7 & (0xfull << 20)) && !(dr.dr7 & 0xc), "  slot 1 bits cleared in DR7");
	is_int(arch_dr_hit_slot(&dr, 0x2), -1, "DR6 B1 for a free slot -> -1");
	is_int(arch_dr_insert(&dr, ARCH_DR_WRITE, 0x5000, 1), 0, "freed slot is reused");
	is_int(dr.addr[1], 0x5000, "  in slot 1");
	is_int(dr.dr7 & (0xfull << 20), 1ull << 20, "  slot 1: RW=01, LEN=00");

	arch_dr_remove(&dr, ARCH_DR_WRITE, 0x1000, 4);
	arch_dr_remove(&dr, ARCH_DR_WRITE, 0x5000, 1);
	arch_dr_remove(&dr, ARCH_DR_ACCESS, 0x3000, 8);
	arch_dr_remove(&dr, ARCH_DR_READ, 0x4002, 2);
	is_int(dr.dr7, 0, "all removed: DR7 is 0");
	is_int(used_slots(&dr), 0, "  no slot in use");
}

static void test_sharing(void)
{
	struct arch_dregs dr = {0};
	uint64_t dr7;

	arch_dr_insert(&dr, ARCH_DR_WRITE, 0x1000, 4);
	dr7 = dr.dr7;
	is_int(arch_dr_insert(&dr, ARCH_DR_WRITE, 0x1000, 4), 0, "same watch again");
	is_int(used_slots(&dr), 1, "  shares the slot");
	is_int(dr.refs[0], 2, "  refcount 2");
	is_int(dr.dr7, dr7, "  DR7 unchanged");
	is_int(arch_dr_insert(&dr, ARCH_DR_ACCESS, 0x1000, 4), 0, "access watch, same range");
	is_int(used_slots(&dr), 2, "  different type: own slot");
	is_int(arch_dr_insert(&dr, ARCH_DR_READ, 0x1000, 4), 0, "read watch, same range");
	is_int(used_slots(&dr), 3, "  read and access are not shared");

	is_int(arch_dr_remove(&dr, ARCH_DR_WRITE, 0x1000, 4), 0, "remove one of two");
	is_int(dr.refs[0], 1, "  refcount 1");
	ok(dr.dr7 & 1, "  still enabled");
	is_int(arch_dr_remove(&dr, ARCH_DR_WRITE, 0x1000, 4), 0, "remove the other");
	is_int(dr.refs[0], 0, "  slot free");
	ok(!(dr.dr7 & 3), "  L0 clear");
	is_int(arch_dr_remove(&dr, ARCH_DR_WRITE, 0x1000, 4), -ENOENT, "third remove: -ENOENT");
	is_int(arch_dr_remove(&dr, ARCH_DR_WRITE, 0x2000, 4), -ENOENT, "never inserted: -ENOENT");
	is_int(arch_dr_remove(&dr, ARCH_DR_EXEC, 0x1000, 1), -ENOENT, "wrong type: -ENOENT");

	/* A region partly covered by an existing piece reuses it. */
	memset(&dr, 0, sizeof(dr));
	arch_dr_insert(&dr, ARCH_DR_WRITE, 0x2000, 8);
	is_int(arch_dr_insert(&dr, ARCH_DR_WRITE, 0x2000, 16), 0, "16 bytes over an 8-byte watch");
	is_int(used_slots(&dr), 2, "  two slots");
	is_int(dr.refs[0], 2, "  first piece shared");
	is_int(arch_dr_remove(&dr, ARCH_DR_WRITE, 0x2000, 16), 0, "remove the 16-byte region");
	is_int(used_slots(&dr), 1, "  the 8-byte watch remains");
	is_int(dr.refs[0], 1, "  with refcount 1");
}

static void test_splitting(void)
{
	struct arch_dregs dr = {0};
	struct arch_dregs saved;

	is_int(arch_dr_insert(&dr, ARCH_DR_WRITE, 0x1001, 7), 0, "7 bytes @0x1001");
	is_int(used_slots(&dr), 3, "  three pieces");
	ok(dr.addr[0] == 0x1001 && dr.len[0] == 1, "  0x1001/1");
	ok(dr.addr[1] == 0x1002 && dr.len[1] == 2, "  0x1002/2");
	ok(dr.addr[2] == 0x1004 && dr.len[2] == 4, "  0x1004/4");
	is_int(dr.dr7, dr7_slot(0, 1, 0) | dr7_slot(1, 1, 1) | dr7_slot(2, 1, 3), "  DR7");

	saved = dr;
	is_int(arch_dr_insert(&dr, ARCH_DR_WRITE, 0x2000, 16), -ENOSPC,
	       "16 bytes need 2 slots, 1 free: -ENOSPC");
	ok(memcmp(&dr, &saved, sizeof(dr)) == 0, "  all or nothing: state unchanged");
	is_int(arch_dr_remove(&dr, ARCH_DR_WRITE, 0x1001, 8), -ENOENT,
	       "removing a larger region than inserted: -ENOENT");
	ok(memcmp(&dr, &saved, sizeof(dr)) == 0, "  state unchanged");
	is_int(arch_dr_remove(&dr, ARCH_DR_WRITE, 0x1001, 7), 0, "remove the 7 bytes");
	is_int(dr.dr7, 0, "  DR7 0");

	is_int(arch_dr_insert(&dr, ARCH_DR_ACCESS, 0x3000, 32), 0, "32 aligned bytes: 4 x 8");
	is_int(used_slots(&dr), 4, "  four slots");
	ok(dr.addr[3] == 0x3018 && dr.len[3] == 8, "  last piece 0x3018/8");
	arch_dr_remove(&dr, ARCH_DR_ACCESS, 0x3000, 32);
	is_int(arch_dr_insert(&dr, ARCH_DR_ACCESS, 0x3000, 33), -ENOSPC,
	       "33 bytes: 5 pieces, -ENOSPC");
	is_int(used_slots(&dr), 0, "  nothing taken");
	is_int(arch_dr_insert(&dr, ARCH_DR_WRITE, 0x3003, 2), 0, "2 bytes @0x3003");
	ok(dr.len[0] == 1 && dr.len[1] == 1 && dr.addr[1] == 0x3004, "  two 1-byte pieces");
	is_int(arch_dr_insert(&dr, ARCH_DR_WRITE, 0x7ffc, 8), 0, "8 bytes @0x7ffc");
	ok(dr.addr[2] == 0x7ffc && dr.len[2] == 4 && dr.addr[3] == 0x8000 && dr.len[3] == 4,
	   "  two 4-byte pieces");
	is_int(arch_dr_insert(&dr, ARCH_DR_WRITE, 0xffffffffffffffffull, 1), -ENOSPC,
	       "full again: -ENOSPC");
}

static void test_invalid(void)
{
	struct arch_dregs dr = {0};

	is_int(arch_dr_insert(&dr, ARCH_DR_WRITE, 0x1000, 0), -EINVAL, "len 0: -EINVAL");
	is_int(arch_dr_insert(&dr, ARCH_DR_WRITE, 0x1000, -4), -EINVAL, "negative len: -EINVAL");
	is_int(arch_dr_insert(&dr, ARCH_DR_EXEC, 0x1000, 4), -EINVAL, "exec len 4: -EINVAL");
	is_int(arch_dr_insert(&dr, ARCH_DR_EXEC, 0x1001, 1), 0, "exec at an odd address is fine");
	is_int(dr.dr7, dr7_slot(0, 0, 0), "  DR7 L0 only");
	is_int(arch_dr_remove(&dr, ARCH_DR_EXEC, 0x1001, 0), -ENOENT, "remove len 0: -ENOENT");
}

int main(void)
{
	test_encodings();
	test_sharing();
	test_splitting();
	test_invalid();
	return done_testing();
}
