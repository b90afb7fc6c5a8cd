/*
 * arm64 internals shared by the files of src/arch/arm64: gdb's register
 * numbers that the code names.
 */
#ifndef UTRACED_ARM64_H
#define UTRACED_ARM64_H

#include "../arch.h"

enum {
	ARM64_R_FP = 29, /* x29 */
	ARM64_R_LR = 30, /* x30 */
	ARM64_R_SP = 31,
	ARM64_R_PC = 32,
	ARM64_R_CPSR = 33,
	ARM64_R_V0 = 34,
	ARM64_R_FPSR = 66,
	ARM64_R_FPCR = 67,
	ARM64_R_TPIDR = 68, /* gdb's org.gnu.gdb.aarch64.tls */
	ARM64_NREGS = 69,
};

#endif
