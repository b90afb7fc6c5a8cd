/*
 * arch: what the rest of utraced knows about the target CPU.
 *
 * Everything here is pure data and pure functions over the kernel's own
 * register structures: the engine fetches and stores the raw regsets with
 * ptrace, the gdb layer reads and writes registers by gdb register number
 * through these tables. A CPU may have several personalities (x86-64:
 * amd64, and i386 for a 32-bit program), chosen per process at attach.
 * The CPU's own names live in its folder (x86/, arm64/) only; make
 * check-layers keeps them there.
 */
#ifndef UTRACED_ARCH_H
#define UTRACED_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Per CPU: enum arch_kind (its personalities), ARCH_TRAP_SI_CODE and
 * ARCH_TRAP_PC_ADV (how its breakpoint instruction's SIGTRAP comes: si_code,
 * bytes the pc has moved past it), arch_gp_t (the general
 * registers as the kernel's regset has them), struct arch_regs (gp, then
 * ext/ext_len: the vector/FP state, sys: a syscall-number regset and
 * tls: a thread-pointer regset, where the CPU has them), ARCH_EXT_MAX.
 */
#if defined(UTRACED_ARCH_ARM64) || defined(__aarch64__) /* (the former: host unit tests) */
#include "arm64/arm64_arch.h"
#elif defined(__x86_64__)
#include "x86/x86_arch.h"
#else
#error "utraced has no src/arch/ port for this CPU"
#endif

/* Which raw regsets a register write touched (arch_reg_write's result). */
#define ARCH_RS_GP  1u
#define ARCH_RS_EXT 2u /* the vector/FP state (ext) */
#define ARCH_RS_SYS 4u /* the syscall-number regset (sys), where the CPU has one */
#define ARCH_RS_TLS 8u /* the thread pointer's own regset (tls), where the CPU has one */

struct arch_reg {
	const char *name;
	uint16_t size; /* bytes */
};

struct arch_desc {
	enum arch_kind kind;
	int nregs; /* gdb register numbers 0..nregs-1, in tdesc order */
	const struct arch_reg *regs;
	int pc_regno;
	int sp_regno;
	int fp_regno;  /* with pc and sp, expedited in stop replies (gdbserver's choice) */
	size_t g_size; /* bytes of a 'g' reply: all registers, regno order */
	const uint8_t *trap_insn; /* the breakpoint instruction */
	size_t trap_len;
	/*
	 * How ptrace moves each regset of struct arch_regs: gp with the
	 * requests gp_get/gp_set (PTRACE_GETREGSET/SETREGSET with note
	 * gp_note, or a request of its own taking the buffer when gp_note is
	 * 0); ext, sys and tls with PTRACE_GETREGSET/SETREGSET and their
	 * notes (sys_note, tls_note 0: no such regset). tls is fetched with ext.
	 */
	long gp_get, gp_set;
	unsigned long gp_note, ext_note, sys_note, tls_note;
	uint8_t ptr_size; /* bytes of a pointer, a long, a syscall argument */
	uint8_t pers;	  /* 0: the CPU's native syscall table; 1: its compat one (i386) */
	bool xol;	  /* arch_xol_prepare can relocate: the out-of-line step-over */
	bool patch;	  /* arch_patch_prepare can patch: the in-process agent */
	/* For a syscall made by a thread lent to us (xol.c maps its pages so): */
	const uint8_t *sys_insn; /* a syscall instruction, as the vDSO has one */
	size_t sys_insn_len;
	uint64_t user_top;		     /* end of the user address space */
	long nr_mmap, nr_munmap, nr_madvise; /* this personality's numbers (i386: mmap2) */
	long nr_memfd_create, nr_close;
};

const struct arch_desc *arch_get(enum arch_kind kind);
/* The personality a new process is given until its registers say (the native one). */
const struct arch_desc *arch_native(void);
/* The personality of a thread whose NT_PRSTATUS regset is len bytes long; NULL: unknown. */
const struct arch_desc *arch_of_prstatus(size_t len);
/* The personality of a program whose ELF header's EI_CLASS is elf_class; NULL: unknown. */
const struct arch_desc *arch_of_elf_class(int elf_class);
/*
 * A thread's thread pointer (the TLS base libc sets up) into *tp: 0, or
 * -EOPNOTSUPP where this personality's is not known to us.
 */
int arch_thread_pointer(const struct arch_desc *d, const struct arch_regs *r, uint64_t *tp);

/*
 * Target description XML for an annex of qXfer:features:read ("target.xml"
 * and whatever it includes). Returns NULL for an unknown annex.
 */
const char *arch_tdesc_xml(const struct arch_desc *d, const char *annex);

/* Where regno lives: ARCH_RS_GP, ARCH_RS_EXT or ARCH_RS_TLS (0 if regno is bad). */
unsigned arch_reg_set(const struct arch_desc *d, int regno);
/* Copy register regno into out (d->regs[regno].size bytes); -1 if regno is bad. */
int arch_reg_read(const struct arch_desc *d, const struct arch_regs *r, int regno, uint8_t *out);
/* Store register regno from in; returns ARCH_RS_* bits touched, or -1 if regno is bad. */
int arch_reg_write(const struct arch_desc *d, struct arch_regs *r, int regno, const uint8_t *in);

uint64_t arch_pc(const struct arch_desc *d, const struct arch_regs *r);
uint64_t arch_gp_pc(const struct arch_desc *d, const arch_gp_t *gp);
uint64_t arch_sp(const struct arch_desc *d, const struct arch_regs *r);
/*
 * gp made to run syscall nr with args at the syscall instruction at pc
 * (not inside a syscall: nothing to restart); the rest of gp kept.
 */
void arch_syscall_setup(const struct arch_desc *d, arch_gp_t *gp, uint64_t pc, long nr,
			const uint64_t args[6]);
/* Do the ARCH_SYSCALL_INSN_MAX bytes at insn start a syscall instruction (any of the CPU's)? */
#define ARCH_SYSCALL_INSN_MAX 4
bool arch_is_syscall_insn(const struct arch_desc *d, const uint8_t insn[ARCH_SYSCALL_INSN_MAX]);
/* What a syscall returned, at its exit stop: the personality's word, zero-extended. */
uint64_t arch_syscall_result(const struct arch_desc *d, const arch_gp_t *gp);
void arch_set_pc(const struct arch_desc *d, struct arch_regs *r, uint64_t pc);
/*
 * siginfo in the inferior's layout (gdb's $_siginfo): native is the
 * kernel's siginfo_t as PTRACE_GETSIGINFO gives it to us (64-bit layout);
 * an i386 inferior's is converted to and from the i386 layout.
 */
#define ARCH_SIGINFO_SIZE 128
void arch_siginfo_out(const struct arch_desc *d, const void *native,
		      uint8_t out[ARCH_SIGINFO_SIZE]);
void arch_siginfo_in(const struct arch_desc *d, const uint8_t in[ARCH_SIGINFO_SIZE], void *native);

/* The syscall a thread stopped in a syscall is making (orig_rax / orig_eax). */
long arch_syscall_nr(const struct arch_desc *d, const struct arch_regs *r);
/*
 * The CPU's syscall ABIs, by personality (pers 0, 1), for a seccomp
 * filter: the AUDIT_ARCH_* value seccomp_data.arch holds, and a bit that
 * marks the numbers of another ABI sharing that value (x32), or 0.
 */
struct arch_abi {
	uint32_t audit_arch;
	uint32_t foreign_bit;
};
extern const struct arch_abi arch_abis[];
extern const unsigned arch_nabis;
/*
 * At a syscall-entry stop: make the kernel skip the syscall (its number
 * made -1; the exit then reports -ENOSYS unless set). At the exit stop:
 * the value the program sees returned. Both return the ARCH_RS_* sets to
 * store.
 */
unsigned arch_syscall_skip(const struct arch_desc *d, struct arch_regs *r);
unsigned arch_set_syscall_ret(const struct arch_desc *d, struct arch_regs *r, int64_t ret);
/* Is nr the syscall that ends one thread only (exit, not exit_group)? */
bool arch_syscall_is_thread_exit(const struct arch_desc *d, long nr);

/*
 * Debug registers (hardware breakpoints and watchpoints) as pure state:
 * struct arch_dregs (the CPU's *_arch.h: slots with addr[], type[],
 * refs[]). The engine owns one per process and writes it to every thread
 * with ptrace when it changes (arch_dr_plan).
 */
enum arch_dr_type {
	ARCH_DR_EXEC,	/* hardware breakpoint */
	ARCH_DR_WRITE,	/* write watchpoint */
	ARCH_DR_READ,	/* read watchpoint: x86 has none, emulated as access */
	ARCH_DR_ACCESS, /* read/write watchpoint */
};

/*
 * Cover [addr, addr+len) with slots of this type, splitting an unaligned or
 * long region into aligned 1/2/4/8-byte pieces and sharing identical slots
 * by reference count. All or nothing: returns 0, -EINVAL (len 0, or an EXEC
 * region with len other than 1), or -ENOSPC (not enough free slots; nothing
 * changed).
 */
int arch_dr_insert(struct arch_dregs *dr, enum arch_dr_type type, uint64_t addr, int len);
/* Undo one arch_dr_insert of the same region; returns 0, or -ENOENT. */
int arch_dr_remove(struct arch_dregs *dr, enum arch_dr_type type, uint64_t addr, int len);
/*
 * The ptrace writes that put dr into a thread (dr NULL: every slot off),
 * in order: PTRACE_POKEUSER of val at the user-area offset off (note 0),
 * or PTRACE_SETREGSET of len bytes at buf with note (buf points into the
 * plan).
 */
struct arch_dr_write {
	unsigned long note, off;
	uint64_t val;
	const void *buf;
	size_t len;
};
#define ARCH_DR_WRITES 8
#define ARCH_DR_BUF    264
struct arch_dr_plan {
	unsigned n;
	struct arch_dr_write w[ARCH_DR_WRITES];
	uint8_t buf[2][ARCH_DR_BUF];
};
void arch_dr_plan(const struct arch_dregs *dr, struct arch_dr_plan *plan);
/*
 * A SIGTRAP (its si_code, si_addr: code, addr) of a thread whose debug registers are in
 * use: the slot that fired, or -1; *stepped: a single-step finished with
 * it too. status: the status register (read at arch_dr_status_off, 0
 * where the CPU has none: arm64's siginfo says it all).
 */
int arch_dr_hit(const struct arch_dregs *dr, uint64_t status, int code, uint64_t addr,
		bool *stepped);
/* Where PTRACE_PEEKUSER reads the status register; -1: none. */
long arch_dr_status_off(void);
/* Does the status say a slot fired (then it is cleared)? */
bool arch_dr_fired(uint64_t status);
/* x86: the slot that DR6 says triggered (lowest one), or -1. */
int arch_dr_hit_slot(const struct arch_dregs *dr, uint64_t dr6);

/*
 * Out-of-line execution of one instruction (x86_xol.c), as the kernel's
 * uprobes do it. To step a thread over one of its int3 breakpoints at A
 * without taking the trap out, the engine runs a relocated copy of the
 * original instruction in a per-thread slot of a scratch page mapped into
 * the process (within +-2 GiB of A for a 64-bit one: rip-relative operands
 * and rel32 jumps must reach), followed by a jump to where the original
 * would have gone. Pure: the engine reads the bytes, writes code[] into the
 * slot, points the thread's pc at the slot and resumes it.
 */
#define ARCH_XOL_SLOT	64 /* bytes per slot; code[] never needs more */
#define ARCH_XOL_POINTS 4  /* instruction boundaries of a slot that map to a user pc */

enum arch_xol_kind {
	ARCH_XOL_RUN,	  /* code[] runs in the slot */
	ARCH_XOL_INPLACE, /* cannot run elsewhere: step it in place; why says why */
};

/* Where the program is when a thread stops at offset off of its slot. */
struct arch_xol_point {
	uint8_t off;  /* an instruction boundary in code[] */
	uint8_t undo; /* bytes the slot pushed for an instruction not yet done: popped back */
	uint64_t pc;  /* the pc the user sees */
};

struct arch_xol {
	enum arch_xol_kind kind;
	const char *why; /* INPLACE: a short reason, for statistics ("syscall", "trap", ...) */
	uint8_t code[ARCH_XOL_SLOT];
	size_t code_len;
	size_t insn_len; /* length of the original instruction (0: undecodable) */
	bool pushes;	 /* a call made of a push and a jmp: not under a shadow stack */
	unsigned int npoints;
	struct arch_xol_point points[ARCH_XOL_POINTS];
};

/*
 * Relocate the instruction at addr for the slot at slot: insn holds the
 * original bytes there (not our int3), avail of them readable (16 is
 * plenty). Fills *out, RUN or INPLACE; returns 0, or -EINVAL for a bad
 * argument. A RUN copy is only valid at that slot, for that addr.
 */
int arch_xol_prepare(const struct arch_desc *d, const uint8_t *insn, size_t avail, uint64_t addr,
		     uint64_t slot, struct arch_xol *out);
/*
 * Does a thread's /proc/PID/task/TID/status text say its shadow stack is
 * on (x86 CET)? A relocated call pushes its return address with a plain
 * push, which the shadow stack does not see: its ret would then fault.
 */
bool arch_shadow_stack_on(const struct arch_desc *d, const char *status);
/* The same, falling through to fall (64-bit: within rel32 of the slot) instead of A+len. */
int arch_xol_prepare_fall(const struct arch_desc *d, const uint8_t *insn, size_t avail,
			  uint64_t addr, uint64_t slot, uint64_t fall, struct arch_xol *out);

/*
 * A thread stopped (signal, ^C, fault) with its pc in the slot where x
 * runs: put r where the program is. At A (and any push of the slot undone)
 * if the original instruction has not taken effect, where it leads if it
 * has. False, r untouched, if the pc is not one of x's instruction
 * boundaries (or not in the slot at all).
 */
bool arch_xol_fixup(const struct arch_xol *x, uint64_t slot, const struct arch_desc *d,
		    struct arch_regs *r);

/*
 * A breakpoint patched into the code (x86_patch.c: amd64 and i386): a jmp
 * at addr to a trampoline that has the in-process agent
 * (src/agent/agent_inproc.h, the personality's blob) evaluate its
 * conditions, then either runs the relocated instruction and jumps back
 * (false) or traps with every register as at addr (true).
 * Pure, like the out-of-line step: the engine writes code[] at tramp and
 * jump[] at addr.
 */
#define ARCH_PATCH_TRAMP  384 /* bytes of one trampoline */
#define ARCH_PATCH_POINTS 80
#define ARCH_PATCH_INSNS  5 /* instructions the jmp may replace */

/* How the registers the program had at addr are found at a trampoline boundary. */
enum arch_patch_how {
	ARCH_PATCH_RSP_UP,	    /* all as they were, but rsp is n bytes lower */
	ARCH_PATCH_FRAME_BELOW_RSP, /* in the frame at rsp - n */
	ARCH_PATCH_FRAME_IN_REG,    /* in the frame its register points to (r15; i386: esi) */
	ARCH_PATCH_AT_A,	    /* all as they were */
};

struct arch_patch_point {
	uint16_t off;
	uint8_t how; /* enum arch_patch_how */
	uint16_t n;
};

struct arch_patch {
	const char *why; /* NULL: patchable; else why not ("short instruction", ...) */
	uint64_t addr;
	uint8_t jump[8]; /* written at addr: the bytes replaced */
	size_t jump_len;
	size_t replaced; /* bytes of the instructions replaced (the jmp's and what follows) */
	uint8_t code[ARCH_PATCH_TRAMP];
	size_t code_len;
	size_t go_off;	 /* the relocated instructions: a thread at addr goes on from here */
	size_t hit_off;	 /* just past the int3: a SIGTRAP here is a true hit */
	size_t mark_off; /* the agent's mark (AGENT_OUT_MARK): this far into the frame */
	unsigned ninsns;
	uint64_t insn_addr[ARCH_PATCH_INSNS]; /* each replaced instruction ... */
	size_t reloc_off[ARCH_PATCH_INSNS];   /* ... its relocated copy in code[] */
	struct arch_xol reloc[ARCH_PATCH_INSNS];
	unsigned npoints;
	struct arch_patch_point points[ARCH_PATCH_POINTS];
};

/*
 * The trampoline at tramp for the instructions at addr that the jmp
 * replaces (insn: the original bytes, avail of them: 32 is plenty),
 * calling the agent's entry with prog. Returns 0 with *out filled, why
 * NULL if it can be patched; -EINVAL for a bad argument. When it replaces
 * more than one instruction, the caller must check the function around
 * it (arch_patch_check_func) before writing the jmp.
 */
int arch_patch_prepare(const struct arch_desc *d, const uint8_t *insn, size_t avail, uint64_t addr,
		       uint64_t tramp, uint64_t entry, uint64_t prog, struct arch_patch *out);

/*
 * Can the jmp replace [addr, addr + replaced) in the function whose code
 * (original bytes) is code[0..len) at func? NULL if so; else why not: an
 * instruction of the function jumps into the replaced bytes (not to addr
 * itself), addr is not where an instruction starts, or the function
 * cannot be followed (undecodable, an indirect jump: a jump table's
 * targets are unknown).
 */
const char *arch_patch_check_func(const struct arch_desc *d, const uint8_t *code, size_t len,
				  uint64_t func, uint64_t addr, size_t replaced);

/*
 * The general registers from the in-process agent's register words
 * (ARCH_AGENT_REGS of them, in its order: agent.h's agent_trace_record).
 */
void arch_gp_of_agent(arch_gp_t *gp, const uint64_t *v);

/*
 * What the in-process agent saves of the x87/vector state into a fast
 * tracepoint's frame of a process of d (AGENT_PROG_FPSTATE): 0 with
 * *mask (xsave's requested features; 0: fxsave) and *len (the area's
 * bytes, laid out as ext is), or -EOPNOTSUPP (the agent saves none).
 */
int arch_agent_fpstate(const struct arch_desc *d, uint32_t *mask, uint32_t *len);

/* A thread resumed at pc inside the replaced bytes (not addr): where to go instead, or 0. */
uint64_t arch_patch_resume_pc(const struct arch_patch *pt, uint64_t tramp, uint64_t pc);

/* Reads the thread's memory (a frame on its stack): 0, or a negative errno. */
typedef int (*arch_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

enum arch_patch_where {
	ARCH_PATCH_OUT,	  /* not in this trampoline: r untouched */
	ARCH_PATCH_BACK,  /* put back at addr, as before it arrived: it evaluates again */
	ARCH_PATCH_HIT,	  /* after the trap: a true hit, r as at addr, pc addr */
	ARCH_PATCH_RELOC, /* in the relocated instruction: where the program is (xol fixup) */
	ARCH_PATCH_LOST,  /* not a boundary, or its frame unreadable: r untouched */
};

/*
 * A thread stopped with its pc in the trampoline at tramp, or (in_agent)
 * in the agent called from it: r made what the program would have.
 */
enum arch_patch_where arch_patch_rollback(const struct arch_patch *pt, uint64_t tramp,
					  bool in_agent, const struct arch_desc *d,
					  struct arch_regs *r, arch_read_fn read, void *ctx);
/*
 * The address of the frame (struct agent_inproc_frame, i386's
 * agent_inproc_frame32) of a thread
 * stopped there (before arch_patch_rollback), or 0 where there is none
 * yet, or none any more: where the agent's mark can be read.
 */
uint64_t arch_patch_frame(const struct arch_patch *pt, uint64_t tramp, bool in_agent,
			  const struct arch_desc *d, const struct arch_regs *r);
/*
 * Where a thread in the agent has the return address of the trampoline's
 * call to it (d->ptr_size bytes).
 */
uint64_t arch_patch_agent_ret_slot(const struct arch_desc *d, const struct arch_regs *r);

#endif
