/*
 * x86 internals shared by the files of src/arch/x86: where every gdb
 * register lives in the raw regsets, and the XSAVE layout facts.
 *
 * The public struct arch_desc is embedded first in struct x86_desc, so the
 * register read/write code and the tdesc generator can reach the location
 * table that runs parallel to arch_desc.regs.
 */
#ifndef UTRACED_X86_H
#define UTRACED_X86_H

#include <stdint.h>

#include "../arch.h"

/* Where a register's bytes come from. */
enum x86_src {
	X86_GP,	   /* user_regs_struct slot: low bytes; zero-extended on write */
	X86_GP_SX, /* same, but sign-extended on write (i386 eax, orig_eax) */
	X86_FX16,  /* 16-bit x87 field of the legacy area, shown as 32 bits */
	X86_FX32,  /* 32-bit x87 field of the legacy area (fioff, fooff) */
	X86_FOP,   /* x87 last opcode: 11 bits at offset 6 */
	X86_FTAG,  /* x87 tag word: full 16-bit form from the abridged byte */
	X86_ST,	   /* 80-bit x87 register, 16-byte slot */
	X86_XMM,   /* 128-bit SSE register */
	X86_MXCSR, /* SSE control/status */
	X86_YMMH,  /* upper 128 bits of a YMM register (AVX component) */
};

/* The tdesc features, in the order gdbserver 13 sends them. */
enum x86_feature {
	X86_F_CORE,
	X86_F_SSE,
	X86_F_LINUX,
	X86_F_SEGMENTS,
	X86_F_AVX,
	X86_F_COUNT,
};

struct x86_reg_info {
	uint8_t src;	   /* enum x86_src */
	uint8_t feature;   /* enum x86_feature */
	uint16_t off;	   /* byte offset in user_regs_struct or the XSAVE area */
	const char *type;  /* tdesc type */
	const char *group; /* tdesc group, or NULL */
};

struct x86_desc {
	struct arch_desc pub; /* first: arch_get hands out &pub */
	const struct x86_reg_info *info;
	const char *bfd_arch; /* tdesc <architecture> */
};

static inline const struct x86_desc *x86_desc_of(const struct arch_desc *d)
{
	return (const struct x86_desc *)d;
}

/* XSAVE standard-format layout. */
#define X86_FX_FCW     0   /* u16 */
#define X86_FX_FSW     2   /* u16; TOP in bits 11-13 */
#define X86_FX_FTW     4   /* u8, abridged tag: bit per physical register, 1 = not empty */
#define X86_FX_FOP     6   /* u16, 11 bits used */
#define X86_FX_FIP     8   /* u32 (u64 in the 64-bit format) */
#define X86_FX_FCS     12  /* u16 (upper FIP in the 64-bit format) */
#define X86_FX_FDP     16  /* u32 (u64 in the 64-bit format) */
#define X86_FX_FDS     20  /* u16 (upper FDP in the 64-bit format) */
#define X86_FX_MXCSR   24  /* u32 */
#define X86_FX_ST0     32  /* 8 x 16 bytes, in stack order (ST(0) first) */
#define X86_FX_XMM0    160 /* 16 x 16 bytes */
#define X86_FX_SIZE    512 /* legacy (FXSAVE) region */
#define X86_XS_BV      512 /* u64 XSTATE_BV in the XSAVE header */
#define X86_XS_HDR_END 576
#define X86_XS_YMMH0   576 /* AVX component: 16 x 16 bytes */
#define X86_XS_AVX_END 832

#define X86_XSTATE_X87 (1u << 0)
#define X86_XSTATE_SSE (1u << 1)
#define X86_XSTATE_AVX (1u << 2)

#define X86_FCW_INIT   0x037f
#define X86_MXCSR_INIT 0x1f80

#endif
