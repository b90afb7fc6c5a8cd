/*
 * x86 register access by gdb register number, over the raw regsets the
 * engine fetched (user_regs_struct and the NT_X86_XSTATE XSAVE image).
 *
 * General registers are little-endian slots of user_regs_struct: a 4-byte
 * register is the low half of its slot, and a write zero-extends it, except
 * i386 eax and orig_eax, which are sign-extended so that the kernel's
 * syscall-restart logic sees -1 and -ERESTART* values as negative (gdb does
 * the same for eax when it writes a 32-bit inferior's registers natively).
 *
 * XSAVE registers follow the XSTATE_BV rules: a component whose bit is clear
 * is in its init state whatever the buffer holds, so it reads as the init
 * value (x87: fctrl 0x37f, all tags empty, the rest 0; SSE and AVX: 0;
 * mxcsr 0x1f80 when both SSE and AVX are clear, as gdb does). Writing a
 * register of such a component first writes the init values into the
 * buffer, then sets the bit, so the kernel takes the whole component.
 *
 * An image of 512..575 bytes is taken as a bare FXSAVE area (no header):
 * x87 and SSE present, no AVX. A shorter image (not fetched) reads as init
 * state. Writes need the bytes to be in the image; otherwise they fail.
 */
#include <string.h>

#include "x86.h"

static uint16_t get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static void put16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, sizeof(v));
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* Which XSTATE_BV component a register belongs to (0 for GP). */
static unsigned int src_component(enum x86_src src)
{
	switch (src) {
	case X86_GP:
	case X86_GP_SX:
		return 0;
	case X86_FX16:
	case X86_FX32:
	case X86_FOP:
	case X86_FTAG:
	case X86_ST:
		return X86_XSTATE_X87;
	case X86_XMM:
	case X86_MXCSR:
		return X86_XSTATE_SSE;
	case X86_YMMH:
		return X86_XSTATE_AVX;
	}
	return 0;
}

/* Bytes of the image a register occupies. */
static size_t src_bytes(enum x86_src src)
{
	switch (src) {
	case X86_FTAG:
		return 1;
	case X86_FX16:
	case X86_FOP:
		return 2;
	case X86_FX32:
	case X86_MXCSR:
		return 4;
	case X86_ST:
		return 10;
	default:
		return 16;
	}
}

/* The components present in the image (see the top comment). */
static uint64_t xstate_bv(const struct arch_regs *r)
{
	uint64_t bv;

	if (r->ext_len >= X86_XS_HDR_END) {
		memcpy(&bv, r->ext + X86_XS_BV, sizeof(bv));
		return bv;
	}
	if (r->ext_len >= X86_FX_SIZE)
		return X86_XSTATE_X87 | X86_XSTATE_SSE;
	return 0;
}

/* Is register info's storage valid in this image? */
static bool xs_present(const struct arch_regs *r, const struct x86_reg_info *info)
{
	uint64_t bv = xstate_bv(r);
	unsigned int comp = src_component(info->src);

	if (info->src == X86_MXCSR)
		comp = X86_XSTATE_SSE | X86_XSTATE_AVX;
	return (bv & comp) && r->ext_len >= info->off + src_bytes(info->src);
}

/*
 * Classify an 80-bit x87 value for the full tag word:
 * 0 valid, 1 zero, 2 special (NaN, infinity, denormal, unnormal).
 */
static unsigned int x87_class(const uint8_t *st)
{
	uint64_t mant;
	unsigned int exp = get16(st + 8) & 0x7fff;

	memcpy(&mant, st, sizeof(mant));
	if (exp == 0x7fff)
		return 2;
	if (exp == 0)
		return mant == 0 ? 1 : 2;
	return (mant >> 63) ? 0 : 2;
}

/* Full 16-bit tag word (two bits per physical register) from the image. */
static uint16_t x87_full_tag(const uint8_t *fx)
{
	unsigned int top = (get16(fx + X86_FX_FSW) >> 11) & 7;
	uint8_t abridged = fx[X86_FX_FTW];
	uint16_t tag = 0;

	for (unsigned int phys = 0; phys < 8; phys++) {
		unsigned int t = 3;

		if (abridged & (1u << phys)) {
			unsigned int st = (phys - top) & 7;

			t = x87_class(fx + X86_FX_ST0 + 16 * st);
		}
		tag |= t << (2 * phys);
	}
	return tag;
}

static uint8_t x87_abridged_tag(uint32_t full)
{
	uint8_t abridged = 0;

	for (unsigned int phys = 0; phys < 8; phys++)
		if (((full >> (2 * phys)) & 3) != 3)
			abridged |= 1u << phys;
	return abridged;
}

static void read_xsave(const struct arch_regs *r, const struct x86_reg_info *info, size_t size,
		       uint8_t *out)
{
	const uint8_t *p = r->ext + info->off;

	memset(out, 0, size);
	if (!xs_present(r, info)) {
		if (info->off == X86_FX_FCW && info->src == X86_FX16)
			put32(out, X86_FCW_INIT);
		else if (info->src == X86_FTAG)
			put32(out, 0xffff);
		else if (info->src == X86_MXCSR)
			put32(out, X86_MXCSR_INIT);
		return;
	}
	switch (info->src) {
	case X86_FX16:
		put32(out, get16(p));
		break;
	case X86_FOP:
		put32(out, get16(p) & 0x7ff);
		break;
	case X86_FTAG:
		put32(out, x87_full_tag(r->ext));
		break;
	case X86_FX32:
	case X86_MXCSR:
		put32(out, get32(p));
		break;
	default: /* X86_ST, X86_XMM, X86_YMMH */
		memcpy(out, p, size);
		break;
	}
}

/*
 * Make component comp of the image live: if its XSTATE_BV bit is clear,
 * write its init values and set the bit. MXCSR is loaded along with any of
 * the x87, SSE and AVX components, so while SSE and AVX are both clear (it
 * reads as the init value) it is set to that value before one goes live.
 */
static void xs_materialise(struct arch_regs *r, unsigned int comp)
{
	uint8_t *xs = r->ext;
	uint64_t bv;

	if (r->ext_len < X86_XS_HDR_END)
		return; /* bare FXSAVE image: everything is live */
	bv = xstate_bv(r);
	if (!(bv & (X86_XSTATE_SSE | X86_XSTATE_AVX)))
		put32(xs + X86_FX_MXCSR, X86_MXCSR_INIT);
	if (bv & comp)
		return;
	switch (comp) {
	case X86_XSTATE_X87:
		put16(xs + X86_FX_FCW, X86_FCW_INIT);
		memset(xs + X86_FX_FSW, 0, X86_FX_MXCSR - X86_FX_FSW);
		memset(xs + X86_FX_ST0, 0, X86_FX_XMM0 - X86_FX_ST0);
		break;
	case X86_XSTATE_SSE:
		memset(xs + X86_FX_XMM0, 0, 16 * 16);
		break;
	case X86_XSTATE_AVX:
		memset(xs + X86_XS_YMMH0, 0, X86_XS_AVX_END - X86_XS_YMMH0);
		break;
	}
	bv |= comp;
	memcpy(xs + X86_XS_BV, &bv, sizeof(bv));
}

static int write_xsave(struct arch_regs *r, const struct x86_reg_info *info, size_t size,
		       const uint8_t *in)
{
	unsigned int comp = src_component(info->src);
	uint8_t *p = r->ext + info->off;
	uint32_t v = 0;

	if (r->ext_len < info->off + src_bytes(info->src))
		return -1;
	xs_materialise(r, comp);
	if (size == 4)
		v = get32(in);
	switch (info->src) {
	case X86_FX16:
		put16(p, v);
		break;
	case X86_FOP:
		put16(p, v & 0x7ff);
		break;
	case X86_FTAG:
		*p = x87_abridged_tag(v);
		break;
	case X86_FX32:
	case X86_MXCSR:
		put32(p, v);
		break;
	default: /* X86_ST, X86_XMM, X86_YMMH */
		memcpy(p, in, size);
		break;
	}
	return ARCH_RS_EXT;
}

unsigned arch_reg_set(const struct arch_desc *d, int regno)
{
	const struct x86_reg_info *info;

	if (regno < 0 || regno >= d->nregs)
		return 0;
	info = &x86_desc_of(d)->info[regno];
	return info->src == X86_GP || info->src == X86_GP_SX ? ARCH_RS_GP : ARCH_RS_EXT;
}

int arch_reg_read(const struct arch_desc *d, const struct arch_regs *r, int regno, uint8_t *out)
{
	const struct x86_reg_info *info;
	size_t size;

	if (regno < 0 || regno >= d->nregs)
		return -1;
	info = &x86_desc_of(d)->info[regno];
	size = d->regs[regno].size;
	if (info->src == X86_GP || info->src == X86_GP_SX) {
		memcpy(out, (const uint8_t *)&r->gp + info->off, size);
		return 0;
	}
	read_xsave(r, info, size, out);
	return 0;
}

int arch_reg_write(const struct arch_desc *d, struct arch_regs *r, int regno, const uint8_t *in)
{
	const struct x86_reg_info *info;
	size_t size;
	uint64_t v = 0;

	if (regno < 0 || regno >= d->nregs)
		return -1;
	info = &x86_desc_of(d)->info[regno];
	size = d->regs[regno].size;
	if (info->src != X86_GP && info->src != X86_GP_SX)
		return write_xsave(r, info, size, in);
	memcpy(&v, in, size);
	if (info->src == X86_GP_SX && size == 4)
		v = (uint64_t)(int64_t)(int32_t)(uint32_t)v;
	memcpy((uint8_t *)&r->gp + info->off, &v, sizeof(v));
	return ARCH_RS_GP;
}

uint64_t arch_pc(const struct arch_desc *d, const struct arch_regs *r)
{
	if (d->kind == ARCH_I386)
		return (uint32_t)r->gp.rip;
	return r->gp.rip;
}

uint64_t arch_gp_pc(const struct arch_desc *d, const arch_gp_t *gp)
{
	return d->kind == ARCH_I386 ? (uint32_t)gp->rip : gp->rip;
}

void arch_syscall_setup(const struct arch_desc *d, arch_gp_t *gp, uint64_t pc, long nr,
			const uint64_t a[6])
{
	gp->rip = pc;
	gp->rax = (uint64_t)nr;
	gp->orig_rax = (uint64_t)-1;
	if (d->kind == ARCH_AMD64) {
		gp->rdi = a[0], gp->rsi = a[1], gp->rdx = a[2];
		gp->r10 = a[3], gp->r8 = a[4], gp->r9 = a[5];
	} else {
		gp->rbx = a[0], gp->rcx = a[1], gp->rdx = a[2];
		gp->rsi = a[3], gp->rdi = a[4], gp->rbp = a[5];
	}
}

/* syscall, sysenter, int $0x80: whatever the personality, a program may use any */
bool arch_is_syscall_insn(const struct arch_desc *d, const uint8_t insn[ARCH_SYSCALL_INSN_MAX])
{
	(void)d;
	return (insn[0] == 0x0f && (insn[1] == 0x05 || insn[1] == 0x34)) ||
	       (insn[0] == 0xcd && insn[1] == 0x80);
}

uint64_t arch_syscall_result(const struct arch_desc *d, const arch_gp_t *gp)
{
	return d->kind == ARCH_I386 ? (uint32_t)gp->rax : gp->rax;
}

uint64_t arch_sp(const struct arch_desc *d, const struct arch_regs *r)
{
	return d->kind == ARCH_I386 ? (uint32_t)r->gp.rsp : r->gp.rsp;
}

unsigned arch_syscall_skip(const struct arch_desc *d, struct arch_regs *r)
{
	(void)d;
	r->gp.orig_rax = (unsigned long long)-1;
	return ARCH_RS_GP;
}

unsigned arch_set_syscall_ret(const struct arch_desc *d, struct arch_regs *r, int64_t ret)
{
	(void)d;
	r->gp.rax = (unsigned long long)ret;
	return ARCH_RS_GP;
}

void arch_gp_of_agent(arch_gp_t *g, const uint64_t *v)
{
	*g = (arch_gp_t){.rax = v[0],
			 .rbx = v[1],
			 .rcx = v[2],
			 .rdx = v[3],
			 .rsi = v[4],
			 .rdi = v[5],
			 .rbp = v[6],
			 .rsp = v[7],
			 .r8 = v[8],
			 .r9 = v[9],
			 .r10 = v[10],
			 .r11 = v[11],
			 .r12 = v[12],
			 .r13 = v[13],
			 .r14 = v[14],
			 .r15 = v[15],
			 .rip = v[16],
			 .eflags = v[17],
			 .cs = v[18],
			 .ss = v[19],
			 .ds = v[20],
			 .es = v[21],
			 .fs = v[22],
			 .gs = v[23],
			 .fs_base = v[24],
			 .gs_base = v[25]};
}

void arch_set_pc(const struct arch_desc *d, struct arch_regs *r, uint64_t pc)
{
	if (d->kind == ARCH_I386)
		pc = (uint32_t)pc;
	r->gp.rip = pc;
}

long arch_syscall_nr(const struct arch_desc *d, const struct arch_regs *r)
{
	if (d->kind == ARCH_I386)
		return (int32_t)r->gp.orig_rax;
	return (long)r->gp.orig_rax;
}

bool arch_syscall_is_thread_exit(const struct arch_desc *d, long nr)
{
	return nr == (d->kind == ARCH_I386 ? 1 : 60); /* __NR_exit of each ABI */
}
