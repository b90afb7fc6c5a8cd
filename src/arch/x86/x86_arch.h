/*
 * x86_arch.h: what arch.h needs to know of x86 to declare its interface
 * (included by arch.h only, never directly): the personalities and the
 * raw register block of one thread, as the kernel gives it on x86-64.
 */
#ifndef UTRACED_X86_ARCH_H
#define UTRACED_X86_ARCH_H

#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <sys/user.h>

enum arch_kind {
	ARCH_AMD64,
	ARCH_I386,
};

/*
 * The breakpoint instruction (int3) as a thread reports it: SIGTRAP with
 * this si_code, its pc this many bytes past the instruction.
 */
#define ARCH_TRAP_SI_CODE SI_KERNEL
#define ARCH_TRAP_PC_ADV  1

/* DR0-DR3 with reference counts, and DR7 (x86_dregs.c). */
struct arch_dregs {
	uint64_t addr[4];
	uint8_t type[4]; /* enum arch_dr_type */
	uint8_t len[4];	 /* 1, 2, 4 or 8 */
	int refs[4];
	uint64_t dr7;
};

/* The in-process agent's register words: gdb's amd64 0..23, fs_base, gs_base. */
#define ARCH_AGENT_REGS 26

/* Largest XSAVE area we accept from NT_X86_XSTATE. */
#define ARCH_EXT_MAX 4096

/* The general registers as PTRACE_GETREGS gives them (64-bit layout even for i386). */
typedef struct user_regs_struct arch_gp_t;

/* Raw register state of one thread, as the kernel gives it. */
struct arch_regs {
	arch_gp_t gp;
	uint8_t ext[ARCH_EXT_MAX]; /* NT_X86_XSTATE, standard (non-compacted) format */
	size_t ext_len;		   /* bytes valid in ext; 0 = not fetched */
	int32_t sys;		   /* unused: the syscall number is in gp (orig_rax) */
	uint64_t tls;		   /* unused: the thread pointer is in gp (fs_base) */
};

#endif
