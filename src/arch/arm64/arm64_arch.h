/*
 * arm64_arch.h: what arch.h needs to know of arm64 (AArch64 Linux) to
 * declare its interface (included by arch.h only): the personality and
 * the raw register block of one thread, in the kernel's layouts.
 *
 * The structures are written out here rather than taken from
 * <asm/ptrace.h> so that the pure arm64 code also builds on an x86-64
 * host for its unit tests (make check-cross runs them natively and under
 * qemu-aarch64); their sizes are checked against the kernel's where the
 * kernel's header is at hand (arm64_tables.c).
 */
#ifndef UTRACED_ARM64_ARCH_H
#define UTRACED_ARM64_ARCH_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

enum arch_kind {
	ARCH_ARM64,
};

/*
 * brk #0 raises SIGTRAP with TRAP_BRKPT and leaves the pc on the brk
 * (it is not advanced, unlike x86's int3).
 */
#define ARCH_TRAP_SI_CODE TRAP_BRKPT
#define ARCH_TRAP_PC_ADV  0

/* struct user_pt_regs: NT_PRSTATUS of a 64-bit thread (272 bytes). */
typedef struct {
	uint64_t regs[31]; /* x0 ... x30 (lr) */
	uint64_t sp;
	uint64_t pc;
	uint64_t pstate;
} arch_gp_t;

/*
 * struct user_fpsimd_state: NT_FPREGSET (528 bytes): v0-v31, 16 bytes
 * each, then fpsr and fpcr (32 bits each) and 8 reserved bytes.
 */
#define ARM64_FP_V0   0
#define ARM64_FP_FPSR 512
#define ARM64_FP_FPCR 516
#define ARM64_FP_SIZE 528
#define ARCH_EXT_MAX  ARM64_FP_SIZE

/*
 * Debug registers (arm64_dregs.c): slots 0-3 hardware breakpoints, 4-7
 * watchpoints, written through NT_ARM_HW_BREAK and NT_ARM_HW_WATCH.
 */
#define ARM64_DR_BRPS 4
#define ARM64_DR_WRPS 4
struct arch_dregs {
	uint64_t addr[ARM64_DR_BRPS + ARM64_DR_WRPS]; /* the first byte watched (or the insn) */
	uint8_t type[ARM64_DR_BRPS + ARM64_DR_WRPS];  /* enum arch_dr_type */
	uint8_t bas[ARM64_DR_BRPS + ARM64_DR_WRPS];   /* watched bytes of its doubleword */
	int refs[ARM64_DR_BRPS + ARM64_DR_WRPS];
};

/* No in-process agent on arm64 (docs/arm64.md); its register words would be x0-x30, sp, pc, pstate.
 */
#define ARCH_AGENT_REGS 34

struct arch_regs {
	arch_gp_t gp;
	uint8_t ext[ARCH_EXT_MAX]; /* NT_FPREGSET */
	size_t ext_len;		   /* bytes valid in ext; 0 = not fetched */
	int32_t sys;		   /* NT_ARM_SYSTEM_CALL: the syscall number, as written back */
	uint64_t tls;		   /* NT_ARM_TLS: tpidr_el0 (fetched with ext) */
};

#endif
