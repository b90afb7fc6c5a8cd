/*
 * x86 register tables, register access and the tdesc XML
 * (src/arch/x86/x86_tables.c, x86_regs.c, x86_tdesc.c).
 *
 * Layout facts are written out as numbers here (XSAVE offsets, gdb register
 * numbers) rather than taken from the code under test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "tap.h"

#define XS_BV 512

static int regno(const struct arch_desc *d, const char *name)
{
	for (int i = 0; i < d->nregs; i++)
		if (strcmp(d->regs[i].name, name) == 0)
			return i;
	return -1;
}

static uint64_t bv_of(const struct arch_regs *r)
{
	uint64_t bv;

	memcpy(&bv, r->ext + XS_BV, sizeof(bv));
	return bv;
}

static void set_bv(struct arch_regs *r, uint64_t bv)
{
	memcpy(r->ext + XS_BV, &bv, sizeof(bv));
}

static uint32_t rd32(const struct arch_desc *d, const struct arch_regs *r, const char *name)
{
	uint8_t b[16] = {0};
	uint32_t v;

	arch_reg_read(d, r, regno(d, name), b);
	memcpy(&v, b, sizeof(v));
	return v;
}

static int wr32(const struct arch_desc *d, struct arch_regs *r, const char *name, uint32_t v)
{
	uint8_t b[16] = {0};

	memcpy(b, &v, sizeof(v));
	return arch_reg_write(d, r, regno(d, name), b);
}

/* A full AVX image, every component live, garbage everywhere else. */
static struct arch_regs *new_regs(void)
{
	struct arch_regs *r = calloc(1, sizeof(*r));

	memset(r->ext, 0xa5, sizeof(r->ext));
	r->ext_len = 832;
	set_bv(r, 7);
	return r;
}

static const char *const amd64_names[] = {
	"rax",	  "rbx",    "rcx",    "rdx",	  "rsi",     "rdi",	"rbp",	 "rsp",	   "r8",
	"r9",	  "r10",    "r11",    "r12",	  "r13",     "r14",	"r15",	 "rip",	   "eflags",
	"cs",	  "ss",	    "ds",     "es",	  "fs",	     "gs",	"st0",	 "st1",	   "st2",
	"st3",	  "st4",    "st5",    "st6",	  "st7",     "fctrl",	"fstat", "ftag",   "fiseg",
	"fioff",  "foseg",  "fooff",  "fop",	  "xmm0",    "xmm1",	"xmm2",	 "xmm3",   "xmm4",
	"xmm5",	  "xmm6",   "xmm7",   "xmm8",	  "xmm9",    "xmm10",	"xmm11", "xmm12",  "xmm13",
	"xmm14",  "xmm15",  "mxcsr",  "orig_rax", "fs_base", "gs_base", "ymm0h", "ymm1h",  "ymm2h",
	"ymm3h",  "ymm4h",  "ymm5h",  "ymm6h",	  "ymm7h",   "ymm8h",	"ymm9h", "ymm10h", "ymm11h",
	"ymm12h", "ymm13h", "ymm14h", "ymm15h",
};

static const char *const i386_names[] = {
	"eax",	  "ecx",   "edx",   "ebx",   "esp",   "ebp",	  "esi",   "edi",   "eip",
	"eflags", "cs",	   "ss",    "ds",    "es",    "fs",	  "gs",	   "st0",   "st1",
	"st2",	  "st3",   "st4",   "st5",   "st6",   "st7",	  "fctrl", "fstat", "ftag",
	"fiseg",  "fioff", "foseg", "fooff", "fop",   "xmm0",	  "xmm1",  "xmm2",  "xmm3",
	"xmm4",	  "xmm5",  "xmm6",  "xmm7",  "mxcsr", "orig_eax", "ymm0h", "ymm1h", "ymm2h",
	"ymm3h",  "ymm4h", "ymm5h", "ymm6h", "ymm7h",
};

static void test_table(const struct arch_desc *d, const char *const *names, int n, size_t g_size,
		       const char *pc, const char *sp)
{
	size_t sum = 0;
	bool order = d->nregs == n, unique = true;

	is_int(d->nregs, n, "register count");
	for (int i = 0; i < d->nregs; i++) {
		sum += d->regs[i].size;
		if (i < n && strcmp(d->regs[i].name, names[i]) != 0) {
			diag("regno %d is %s, expected %s", i, d->regs[i].name, names[i]);
			order = false;
		}
		for (int j = 0; j < i; j++)
			if (strcmp(d->regs[i].name, d->regs[j].name) == 0)
				unique = false;
	}
	ok(order, "names in gdb's remote order");
	ok(unique, "names unique");
	is_int(sum, d->g_size, "g_size is the sum of sizes");
	is_int(d->g_size, g_size, "g_size matches gdbserver's 'g' layout");
	is_str(d->regs[d->pc_regno].name, pc, "pc_regno is %s", pc);
	is_str(d->regs[d->sp_regno].name, sp, "sp_regno is %s", sp);
	ok(d->trap_len == 1 && d->trap_insn[0] == 0xcc, "trap instruction is int3");
}

/* A pattern the register can hold exactly (x87 control fields are narrow). */
static void pattern(const struct arch_desc *d, int i, uint8_t *b)
{
	const char *n = d->regs[i].name;

	for (int k = 0; k < d->regs[i].size; k++)
		b[k] = (uint8_t)(i * 7 + k * 13 + 1);
	if (!strcmp(n, "fctrl") || !strcmp(n, "fstat") || !strcmp(n, "fiseg") ||
	    !strcmp(n, "foseg"))
		b[2] = b[3] = 0;
	if (!strcmp(n, "fop")) {
		b[1] &= 7;
		b[2] = b[3] = 0;
	}
	if (!strcmp(n, "mxcsr")) {
		b[2] = b[3] = 0;
	}
}

static void test_round_trip(const struct arch_desc *d)
{
	struct arch_regs *r = new_regs();
	uint8_t want[64], got[64];
	bool rets = true, all = true;
	int ftag = regno(d, "ftag");

	memset(&r->gp, 0x5a, sizeof(r->gp));
	for (int i = 0; i < d->nregs; i++) {
		bool gp = i < (d->kind == ARCH_AMD64 ? 24 : 16) ||
			  !strncmp(d->regs[i].name, "orig_", 5) ||
			  !strcmp(d->regs[i].name, "fs_base") ||
			  !strcmp(d->regs[i].name, "gs_base");
		int ret;

		if (i == ftag)
			continue;
		pattern(d, i, want);
		ret = arch_reg_write(d, r, i, want);
		if (ret != (gp ? (int)ARCH_RS_GP : (int)ARCH_RS_EXT)) {
			diag("write %s returned %d", d->regs[i].name, ret);
			rets = false;
		}
	}
	ok(rets, "every write reports the regset it touched");
	for (int i = 0; i < d->nregs; i++) {
		if (i == ftag)
			continue;
		pattern(d, i, want);
		memset(got, 0xee, sizeof(got));
		if (arch_reg_read(d, r, i, got) != 0 || memcmp(got, want, d->regs[i].size) != 0) {
			diag("%s does not read back", d->regs[i].name);
			all = false;
		}
	}
	ok(all, "every register reads back what was written, none clobbers another");
	is_int(bv_of(r), 7, "xstate_bv still 7");
	free(r);
}

static void test_amd64_layout(const struct arch_desc *d)
{
	struct arch_regs *r = new_regs();
	uint8_t b[16];

	r->gp.rax = 0x1122334455667788ull;
	r->gp.r15 = 15;
	r->gp.rip = 0x401000;
	r->gp.eflags = 0x246;
	r->gp.fs_base = 0x7f0000001000ull;
	r->gp.orig_rax = (uint64_t)-1;
	is_int(rd32(d, r, "eflags"), 0x246, "eflags");
	arch_reg_read(d, r, regno(d, "rax"), b);
	is_mem(b, 8, "\x88\x77\x66\x55\x44\x33\x22\x11", 8, "rax little-endian");
	arch_reg_read(d, r, regno(d, "r15"), b);
	is_int(b[0], 15, "r15");
	arch_reg_read(d, r, regno(d, "fs_base"), b);
	is_mem(b, 8, "\x00\x10\x00\x00\x00\x7f\x00\x00", 8, "fs_base");
	arch_reg_read(d, r, regno(d, "orig_rax"), b);
	is_mem(b, 8, "\xff\xff\xff\xff\xff\xff\xff\xff", 8, "orig_rax -1");
	is_int(arch_pc(d, r), 0x401000, "arch_pc");
	arch_set_pc(d, r, 0x7fffffffe000ull);
	is_int(r->gp.rip, 0x7fffffffe000ull, "arch_set_pc");
	r->gp.cs = 0xffffffff00000033ull;
	is_int(rd32(d, r, "cs"), 0x33, "cs: low 32 bits");
	wr32(d, r, "cs", 0x33);
	is_int(r->gp.cs, 0x33, "cs write zero-extends");

	memset(b, 0x11, 16);
	arch_reg_write(d, r, regno(d, "xmm0"), b);
	is_mem(r->ext + 160, 16, b, 16, "xmm0 at XSAVE offset 160");
	arch_reg_write(d, r, regno(d, "xmm15"), b);
	is_mem(r->ext + 160 + 15 * 16, 16, b, 16, "xmm15 at offset 400");
	arch_reg_write(d, r, regno(d, "ymm0h"), b);
	is_mem(r->ext + 576, 16, b, 16, "ymm0h at offset 576");
	arch_reg_write(d, r, regno(d, "ymm15h"), b);
	is_mem(r->ext + 576 + 15 * 16, 16, b, 16, "ymm15h at offset 816");
	arch_reg_write(d, r, regno(d, "st0"), b);
	is_mem(r->ext + 32, 10, b, 10, "st0 at offset 32");
	is_int(r->ext[42], 0xa5, "  the slot's padding is untouched");
	arch_reg_write(d, r, regno(d, "st7"), b);
	is_mem(r->ext + 32 + 7 * 16, 10, b, 10, "st7 at offset 144");
	wr32(d, r, "mxcsr", 0x1fa0);
	is_mem(r->ext + 24, 4, "\xa0\x1f\x00\x00", 4, "mxcsr at offset 24");
	wr32(d, r, "fctrl", 0x127f);
	is_mem(r->ext + 0, 2, "\x7f\x12", 2, "fctrl at offset 0");
	wr32(d, r, "fstat", 0x3800);
	is_mem(r->ext + 2, 2, "\x00\x38", 2, "fstat at offset 2");
	wr32(d, r, "fop", 0xffff);
	is_mem(r->ext + 6, 2, "\xff\x07", 2, "fop at offset 6, 11 bits");
	is_int(rd32(d, r, "fop"), 0x7ff, "fop reads 11 bits");
	memset(r->ext + 6, 0xff, 2);
	is_int(rd32(d, r, "fop"), 0x7ff, "fop ignores the upper 5 bits of the image");
	wr32(d, r, "fioff", 0x08049000);
	is_mem(r->ext + 8, 4, "\x00\x90\x04\x08", 4, "fioff at offset 8");
	wr32(d, r, "fiseg", 0x23);
	is_mem(r->ext + 12, 2, "\x23\x00", 2, "fiseg at offset 12");
	wr32(d, r, "fooff", 0x0804a000);
	is_mem(r->ext + 16, 4, "\x00\xa0\x04\x08", 4, "fooff at offset 16");
	wr32(d, r, "foseg", 0x2b);
	is_mem(r->ext + 20, 2, "\x2b\x00", 2, "foseg at offset 20");
	memset(r->ext + 12, 0xff, 4);
	is_int(rd32(d, r, "fiseg"), 0xffff, "fiseg reads 16 bits");
	free(r);
}

static void test_i386_gp(const struct arch_desc *d)
{
	static const struct {
		const char *name;
		size_t off;
	} map[] = {
		{"eax", offsetof(struct user_regs_struct, rax)},
		{"ecx", offsetof(struct user_regs_struct, rcx)},
		{"edx", offsetof(struct user_regs_struct, rdx)},
		{"ebx", offsetof(struct user_regs_struct, rbx)},
		{"esp", offsetof(struct user_regs_struct, rsp)},
		{"ebp", offsetof(struct user_regs_struct, rbp)},
		{"esi", offsetof(struct user_regs_struct, rsi)},
		{"edi", offsetof(struct user_regs_struct, rdi)},
		{"eip", offsetof(struct user_regs_struct, rip)},
		{"eflags", offsetof(struct user_regs_struct, eflags)},
		{"cs", offsetof(struct user_regs_struct, cs)},
		{"ss", offsetof(struct user_regs_struct, ss)},
		{"ds", offsetof(struct user_regs_struct, ds)},
		{"es", offsetof(struct user_regs_struct, es)},
		{"fs", offsetof(struct user_regs_struct, fs)},
		{"gs", offsetof(struct user_regs_struct, gs)},
		{"orig_eax", offsetof(struct user_regs_struct, orig_rax)},
	};
	struct arch_regs *r = new_regs();
	bool reads = true;
	uint64_t v;

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		v = 0xdead000000000000ull | (0x1000u * (i + 1)) | i;
		memcpy((uint8_t *)&r->gp + map[i].off, &v, sizeof(v));
	}
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		uint32_t want = (uint32_t)((0x1000u * (i + 1)) | i);

		if (rd32(d, r, map[i].name) != want) {
			diag("%s reads %#x, expected %#x", map[i].name, rd32(d, r, map[i].name),
			     want);
			reads = false;
		}
	}
	ok(reads, "i386 registers are the low halves of the right user_regs_struct slots");

	wr32(d, r, "ebx", 0x80000000u);
	is_int(r->gp.rbx, 0x80000000ull, "ebx write zero-extends");
	wr32(d, r, "eax", 0xfffffe00u);
	is_int(r->gp.rax, 0xfffffffffffffe00ull, "eax write sign-extends (-ERESTARTSYS)");
	wr32(d, r, "eax", 5);
	is_int(r->gp.rax, 5, "eax write of a positive value");
	wr32(d, r, "orig_eax", 0xffffffffu);
	is_int(r->gp.orig_rax, 0xffffffffffffffffull, "orig_eax -1 sign-extends");
	wr32(d, r, "eip", 0x08048000u);
	is_int(r->gp.rip, 0x08048000u, "eip write");
	r->gp.rip = 0xffffffff08049000ull;
	is_int(arch_pc(d, r), 0x08049000u, "arch_pc truncates to 32 bits");
	arch_set_pc(d, r, 0x1234567808040000ull);
	is_int(r->gp.rip, 0x08040000u, "arch_set_pc truncates to 32 bits");
	free(r);
}

static const uint8_t x87_one[10] = {0, 0, 0, 0, 0, 0, 0, 0x80, 0xff, 0x3f};
static const uint8_t x87_pi[10] = {0x35, 0xc2, 0x68, 0x21, 0xa2, 0xda, 0x0f, 0xc9, 0x00, 0x40};
static const uint8_t x87_zero[10] = {0};
static const uint8_t x87_inf[10] = {0, 0, 0, 0, 0, 0, 0, 0x80, 0xff, 0x7f};
static const uint8_t x87_denorm[10] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
static const uint8_t x87_unnorm[10] = {0, 0, 0, 0, 0, 0, 0, 0x40, 0xff, 0x3f};

static void test_ftag(const struct arch_desc *d)
{
	struct arch_regs *r = new_regs();

	/* What finit; fld1; fldz; fldpi leaves (checked on a real CPU). */
	memset(r->ext + 32, 0, 128);
	memcpy(r->ext + 32, x87_pi, 10);
	memcpy(r->ext + 48, x87_zero, 10);
	memcpy(r->ext + 64, x87_one, 10);
	r->ext[2] = 0x00;
	r->ext[3] = 0x28; /* TOP = 5 */
	r->ext[4] = 0xe0; /* physical 5, 6, 7 in use */
	is_int(rd32(d, r, "ftag"), 0x13ff, "ftag: valid, zero, valid, rest empty");

	memcpy(r->ext + 48, x87_inf, 10);
	is_int(rd32(d, r, "ftag"), 0x23ff, "infinity is special");
	memcpy(r->ext + 48, x87_denorm, 10);
	is_int(rd32(d, r, "ftag"), 0x23ff, "denormal is special");
	memcpy(r->ext + 48, x87_unnorm, 10);
	is_int(rd32(d, r, "ftag"), 0x23ff, "unnormal is special");

	/* TOP = 0: ST(i) is physical register i. */
	r->ext[3] = 0;
	r->ext[4] = 0x01;
	is_int(rd32(d, r, "ftag"), 0xfffc, "TOP 0, one valid register");
	r->ext[3] = 7 << 3; /* TOP = 7: ST(0) is physical 7, ST(1) physical 0 */
	r->ext[4] = 0x81;
	memcpy(r->ext + 32, x87_zero, 10);
	memcpy(r->ext + 48, x87_one, 10);
	is_int(rd32(d, r, "ftag"), 0x7ffc, "TOP 7 wraps: phys 7 zero, phys 0 valid");

	is_int(wr32(d, r, "ftag", 0x13ff), ARCH_RS_EXT, "write ftag");
	is_int(r->ext[4], 0xe0, "  abridged 0xe0");
	wr32(d, r, "ftag", 0xffff);
	is_int(r->ext[4], 0x00, "all empty -> abridged 0");
	wr32(d, r, "ftag", 0x0000);
	is_int(r->ext[4], 0xff, "all valid -> abridged 0xff");
	wr32(d, r, "ftag", 0xbfff);
	is_int(r->ext[4], 0x80, "special counts as in use");
	free(r);
}

static void test_init_state(const struct arch_desc *d)
{
	struct arch_regs *r = new_regs();
	uint8_t b[16], zero[16] = {0}, garbage[16];

	memset(garbage, 0xa5, sizeof(garbage));
	set_bv(r, 0);
	is_int(rd32(d, r, "fctrl"), 0x37f, "bv 0: fctrl init 0x37f");
	is_int(rd32(d, r, "fstat"), 0, "bv 0: fstat 0");
	is_int(rd32(d, r, "ftag"), 0xffff, "bv 0: all tags empty");
	is_int(rd32(d, r, "fop"), 0, "bv 0: fop 0");
	is_int(rd32(d, r, "fioff"), 0, "bv 0: fioff 0");
	arch_reg_read(d, r, regno(d, "st3"), b);
	is_mem(b, 10, zero, 10, "bv 0: st3 zero");
	arch_reg_read(d, r, regno(d, "xmm1"), b);
	is_mem(b, 16, zero, 16, "bv 0: xmm1 zero");
	arch_reg_read(d, r, regno(d, "ymm1h"), b);
	is_mem(b, 16, zero, 16, "bv 0: ymm1h zero");
	is_int(rd32(d, r, "mxcsr"), 0x1f80, "bv 0: mxcsr init 0x1f80");

	set_bv(r, 2);
	arch_reg_read(d, r, regno(d, "xmm1"), b);
	is_mem(b, 16, garbage, 16, "bv SSE: xmm1 from the image");
	is_int(rd32(d, r, "mxcsr"), 0xa5a5a5a5, "bv SSE: mxcsr from the image");
	arch_reg_read(d, r, regno(d, "ymm1h"), b);
	is_mem(b, 16, zero, 16, "bv SSE: ymm1h zero");
	set_bv(r, 4);
	is_int(rd32(d, r, "mxcsr"), 0xa5a5a5a5, "bv AVX: mxcsr from the image");
	arch_reg_read(d, r, regno(d, "xmm1"), b);
	is_mem(b, 16, zero, 16, "bv AVX: xmm1 zero");

	/* Writes materialise the component's init state and set its bit. */
	set_bv(r, 0);
	memset(b, 0x42, 16);
	is_int(arch_reg_write(d, r, regno(d, "xmm0"), b), ARCH_RS_EXT, "bv 0: write xmm0");
	is_int(bv_of(r), 2, "  sets the SSE bit");
	arch_reg_read(d, r, regno(d, "xmm1"), b);
	is_mem(b, 16, zero, 16, "  xmm1 is now 0 in the image");
	is_mem(r->ext + 160 + 16, 16, zero, 16, "  (bytes)");
	is_int(rd32(d, r, "mxcsr"), 0x1f80, "  mxcsr now 0x1f80 in the image");
	is_int(rd32(d, r, "fctrl"), 0x37f, "  x87 still init");
	is_int(r->ext[0], 0xa5, "  x87 bytes untouched");

	set_bv(r, 0);
	memset(r->ext + 24, 0xa5, 4);
	memcpy(b, x87_one, 10);
	is_int(arch_reg_write(d, r, regno(d, "st0"), b), ARCH_RS_EXT, "bv 0: write st0");
	is_int(bv_of(r), 1, "  sets the x87 bit");
	is_int(rd32(d, r, "fctrl"), 0x37f, "  fctrl materialised as 0x37f");
	is_mem(r->ext, 2, "\x7f\x03", 2, "  (bytes)");
	is_int(rd32(d, r, "fstat"), 0, "  fstat 0");
	is_int(r->ext[4], 0, "  abridged tag 0");
	is_int(rd32(d, r, "ftag"), 0xffff, "  tags empty");
	arch_reg_read(d, r, regno(d, "st1"), b);
	is_mem(b, 10, zero, 10, "  st1 zero");
	is_int(rd32(d, r, "mxcsr"), 0x1f80, "  mxcsr still reads init");
	is_mem(r->ext + 24, 4, "\x80\x1f\x00\x00", 4,
	       "  and the image holds it (x87 block carries it)");

	memset(b, 0x33, 16);
	is_int(arch_reg_write(d, r, regno(d, "ymm2h"), b), ARCH_RS_EXT, "bv x87: write ymm2h");
	is_int(bv_of(r), 5, "  sets the AVX bit");
	arch_reg_read(d, r, regno(d, "ymm0h"), b);
	is_mem(b, 16, zero, 16, "  ymm0h zero");
	is_int(rd32(d, r, "mxcsr"), 0x1f80, "  mxcsr 0x1f80");

	set_bv(r, 0);
	is_int(wr32(d, r, "mxcsr", 0x1fa0), ARCH_RS_EXT, "bv 0: write mxcsr");
	is_int(bv_of(r), 2, "  sets the SSE bit");
	is_int(rd32(d, r, "mxcsr"), 0x1fa0, "  reads back");

	set_bv(r, 0);
	is_int(wr32(d, r, "fop", 0x123), ARCH_RS_EXT, "bv 0: write fop");
	is_int(bv_of(r), 1, "  sets the x87 bit");
	is_int(rd32(d, r, "fctrl"), 0x37f, "  fctrl init");
	is_int(rd32(d, r, "fop"), 0x123, "  fop reads back");

	set_bv(r, 0x2e7);
	wr32(d, r, "fstat", 0x100);
	is_int(bv_of(r), 0x2e7, "other xstate_bv bits are preserved");
	free(r);
}

static void test_short_images(const struct arch_desc *d)
{
	struct arch_regs *r = new_regs();
	uint8_t b[16], zero[16] = {0}, garbage[16];

	memset(garbage, 0xa5, sizeof(garbage));
	r->ext_len = 512; /* bare FXSAVE area */
	arch_reg_read(d, r, regno(d, "xmm1"), b);
	is_mem(b, 16, garbage, 16, "FXSAVE image: xmm1 from the image");
	is_int(rd32(d, r, "fctrl"), 0xa5a5, "FXSAVE image: fctrl from the image");
	arch_reg_read(d, r, regno(d, "ymm1h"), b);
	is_mem(b, 16, zero, 16, "FXSAVE image: ymm1h reads 0");
	is_int(arch_reg_write(d, r, regno(d, "ymm1h"), b), -1, "FXSAVE image: ymm1h write fails");
	is_int(arch_reg_write(d, r, regno(d, "xmm1"), zero), ARCH_RS_EXT,
	       "FXSAVE image: xmm1 write works");
	is_int(bv_of(r), 7, "  the header (beyond the image) is not touched");

	r->ext_len = 0;
	is_int(rd32(d, r, "fctrl"), 0x37f, "no image: fctrl init");
	is_int(rd32(d, r, "mxcsr"), 0x1f80, "no image: mxcsr init");
	is_int(wr32(d, r, "fctrl", 0x37f), -1, "no image: x87 write fails");
	is_int(wr32(d, r, "mxcsr", 0x1f80), -1, "no image: mxcsr write fails");
	is_int(wr32(d, r, d->kind == ARCH_I386 ? "eax" : "rax", 1), ARCH_RS_GP,
	       "no image: GP write works");

	is_int(arch_reg_read(d, r, -1, b), -1, "read regno -1 fails");
	is_int(arch_reg_read(d, r, d->nregs, b), -1, "read regno nregs fails");
	is_int(arch_reg_write(d, r, d->nregs, b), -1, "write regno nregs fails");
	free(r);
}

/* Minimal XML checks: tags balance, and one <reg> per register, right size and number. */
static bool xml_balanced(const char *x)
{
	char stack[16][64];
	int depth = 0;

	while ((x = strchr(x, '<')) != NULL) {
		const char *end = strchr(x, '>');
		char name[64];
		bool closing = x[1] == '/';
		size_t n;

		if (!end)
			return false;
		if (x[1] == '?' || x[1] == '!') {
			x = end + 1;
			continue;
		}
		n = strcspn(x + 1 + closing, " />");
		if (n == 0 || n >= sizeof(name))
			return false;
		memcpy(name, x + 1 + closing, n);
		name[n] = '\0';
		if (closing) {
			if (depth == 0 || strcmp(stack[--depth], name) != 0)
				return false;
		} else if (end[-1] != '/') {
			if (depth == 16)
				return false;
			strcpy(stack[depth++], name);
		}
		x = end + 1;
	}
	return depth == 0;
}

static bool attr(const char *tag, const char *end, const char *name, char *out, size_t outlen)
{
	char key[32];
	const char *p;
	size_t n;

	snprintf(key, sizeof(key), " %s=\"", name);
	p = strstr(tag, key);
	if (!p || p > end)
		return false;
	p += strlen(key);
	n = strcspn(p, "\"");
	if (n >= outlen)
		return false;
	memcpy(out, p, n);
	out[n] = '\0';
	return true;
}

static void test_tdesc(const struct arch_desc *d, const char *archname, const char *const *features)
{
	const char *x = arch_tdesc_xml(d, "target.xml");
	int *seen = calloc((size_t)d->nregs, sizeof(int));
	bool regs_ok = true, types_ok = true;
	char want[128];
	const char *p, *prev;
	int nreg = 0;

	ok(x != NULL, "target.xml exists");
	if (!x) {
		free(seen);
		return;
	}
	ok(arch_tdesc_xml(d, "other.xml") == NULL, "unknown annex: NULL");
	ok(strncmp(x, "<?xml", 5) == 0, "starts with an XML declaration");
	ok(strstr(x, "<!DOCTYPE target SYSTEM \"gdb-target.dtd\">") != NULL, "has the DOCTYPE");
	snprintf(want, sizeof(want), "<architecture>%s</architecture>", archname);
	ok(strstr(x, want) != NULL, "architecture %s", archname);
	ok(strstr(x, "<osabi>GNU/Linux</osabi>") != NULL, "osabi GNU/Linux");
	ok(xml_balanced(x), "tags balance");

	prev = x;
	for (int f = 0; features[f]; f++) {
		snprintf(want, sizeof(want), "<feature name=\"%s\">", features[f]);
		p = strstr(x, want);
		ok(p && p > prev, "feature %s, in order", features[f]);
		if (p)
			prev = p;
	}
	if (d->kind == ARCH_I386)
		ok(!strstr(x, "i386.segments"), "i386 has no segments feature");

	for (p = strstr(x, "<reg "); p; p = strstr(p + 1, "<reg ")) {
		const char *end = strchr(p, '>');
		char name[32], bits[16], num[16], type[32];
		int i;

		nreg++;
		if (!attr(p, end, "name", name, sizeof(name)) ||
		    !attr(p, end, "bitsize", bits, sizeof(bits)) ||
		    !attr(p, end, "regnum", num, sizeof(num)) ||
		    !attr(p, end, "type", type, sizeof(type))) {
			regs_ok = false;
			continue;
		}
		i = regno(d, name);
		if (i < 0 || atoi(num) != i || atoi(bits) != d->regs[i].size * 8) {
			diag("bad <reg> for %s: regnum %s bitsize %s", name, num, bits);
			regs_ok = false;
			continue;
		}
		seen[i]++;
		/* Non-builtin types must be defined in the document. */
		if (!strcmp(type, "vec128") || !strncmp(type, "i386_", 5)) {
			snprintf(want, sizeof(want), " id=\"%s\"", type);
			types_ok &= strstr(x, want) != NULL;
		}
	}
	for (int i = 0; i < d->nregs; i++)
		if (seen[i] != 1) {
			diag("%s appears %d times", d->regs[i].name, seen[i]);
			regs_ok = false;
		}
	is_int(nreg, d->nregs, "one <reg> per register");
	ok(regs_ok, "every register once, right regnum and bitsize");
	ok(types_ok, "custom types are defined");
	free(seen);
}

int main(void)
{
	const struct arch_desc *a = arch_get(ARCH_AMD64);
	const struct arch_desc *i = arch_get(ARCH_I386);
	static const char *const amd64_features[] = {
		"org.gnu.gdb.i386.core",     "org.gnu.gdb.i386.sse", "org.gnu.gdb.i386.linux",
		"org.gnu.gdb.i386.segments", "org.gnu.gdb.i386.avx", NULL,
	};
	static const char *const i386_features[] = {
		"org.gnu.gdb.i386.core",
		"org.gnu.gdb.i386.sse",
		"org.gnu.gdb.i386.linux",
		"org.gnu.gdb.i386.avx",
		NULL,
	};

	ok(a && a->kind == ARCH_AMD64, "amd64 desc");
	ok(i && i->kind == ARCH_I386, "i386 desc");

	diag("amd64");
	test_table(a, amd64_names, 76, 816, "rip", "rsp");
	test_round_trip(a);
	test_amd64_layout(a);
	test_ftag(a);
	test_init_state(a);
	test_short_images(a);
	test_tdesc(a, "i386:x86-64", amd64_features);

	diag("i386");
	test_table(i, i386_names, 50, 440, "eip", "esp");
	test_round_trip(i);
	test_i386_gp(i);
	test_ftag(i);
	test_init_state(i);
	test_short_images(i);
	test_tdesc(i, "i386", i386_features);
	return done_testing();
}
