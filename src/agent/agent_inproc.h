/*
 * agent_inproc.h: what utraced and its in-process agent agree on.
 *
 * The in-process agent is src/agent's evaluator built a second time as
 * freestanding position-independent code (agent_inproc.c, Makefile
 * target agent-blob) that utraced copies into a traced process. A
 * breakpoint's trampoline (src/arch/x86/x86_patch.c) saves the thread's
 * registers as a struct agent_inproc_frame on the thread's own stack and
 * calls the blob's entry, at offset 0, with the frame and the
 * breakpoint's program; the entry says whether the thread must trap (a
 * condition holds, or could not be evaluated here: utraced then decides,
 * as for any breakpoint) or go on.
 *
 * Memory is read directly. A bad address faults inside the agent; utraced,
 * the thread's tracer, sees that signal before the program does, takes
 * the thread back to the breakpoint and reports the hit there (an
 * evaluation error counts as true, as in gdbserver). So the agent makes
 * no system call: one costs more than a whole evaluation.
 */
#ifndef UTRACED_AGENT_INPROC_H
#define UTRACED_AGENT_INPROC_H

#include <stddef.h>
#include <stdint.h>

/*
 * The registers as the trampoline pushed them: slot i is amd64 register i
 * of gdb's numbering (rax, rbx, rcx, rdx, rsi, rdi, rbp, rsp, r8-r15),
 * except slot 7, which holds the stack pointer after the first pushes
 * (the thread's own is the frame's end plus the red zone); then eflags.
 */
struct agent_inproc_frame {
	uint64_t gpr[16];
	uint64_t eflags;
};

#define AGENT_INPROC_RSP_SLOT 7
#define AGENT_INPROC_RED_ZONE 128 /* bytes below rsp the trampoline leaves alone */

/*
 * The i386 agent's frame (no red zone there): the trampoline does
 * pushfl, pushal, then pushes a zero mark (below: it must not be a
 * previous hit's, left on the stack), and calls the entry with the frame
 * in eax and the program in edx (regparm(2)).
 * pushal[7 - i] is i386 register i of gdb's numbering (eax, ecx, edx,
 * ebx, esp, ebp, esi, edi); the esp slot holds the stack pointer after
 * the pushfl: the thread's own is 4 more.
 */
struct agent_inproc_frame32 {
	uint64_t mark;
	uint32_t pushal[8];
	uint32_t eflags;
};

/*
 * Its bytes on the i386 stack: 44. (Not its sizeof in utraced, where a
 * uint64_t aligns the struct to 8 and pads it to 48.)
 */
#define AGENT_INPROC_FRAME32_SIZE (offsetof(struct agent_inproc_frame32, eflags) + 4)

/*
 * One breakpoint's program: its address (the pc the conditions see), its
 * conditions, then its commands (agent-style dprintf), each a u32 length
 * and that many bytes of bytecode, padded to 4 bytes. size counts the
 * whole, header included. out: the process's output region (below), 0
 * when there are no commands.
 */
struct agent_inproc_prog {
	uint64_t pc;
	uint32_t nconds;
	uint32_t size;
	uint32_t ncmds;
	uint32_t flags; /* AGENT_PROG_* */
	uint64_t out;
	/* A fast tracepoint's (AGENT_PROG_TRACE) only, else 0: */
	uint64_t hits_left; /* its struct agent_trace_ctl (pass count), 0: none */
	uint64_t budget;    /* its experiment's struct agent_trace_ctl (buffer space) */
	uint32_t tpnum;	    /* gdb's tracepoint number */
	uint32_t regs_len;  /* the size of an 'R' block in utraced's buffer (a 'g' reply) */
	/* AGENT_PROG_FPSTATE: xsave with this mask (0: fxsave), an area of fp_len bytes */
	uint32_t fp_mask;
	uint32_t fp_len;
};

/*
 * A fast tracepoint (gdb's ftrace): at most one condition; it is false, no
 * frame; true, the commands are its actions, each an agent expression run
 * with a collect callback (memory actions compiled into `trace` opcodes by
 * utraced), and with AGENT_PROG_REGS the registers first. The frame is one
 * record (struct agent_trace_rec) in the thread's ring, published as a
 * printf record is. Anything the agent cannot do (a trace state variable,
 * a fault, a full ring, the pass count or the buffer's space used up, a
 * condition that fails) traps before anything is published: utraced
 * collects that hit itself, as a normal tracepoint's.
 */
#define AGENT_PROG_TRACE 1u
#define AGENT_PROG_REGS	 2u
/*
 * With the registers, the x87 and vector state too: the trampoline and
 * the agent (general registers only) never touch it, so an xsave (fxsave)
 * in the agent has it as at the tracepoint. Into the record after the
 * 'R' block: 'x', the pad's length (u16), the area's length (u16), the pad
 * (up to the next 64-byte boundary in memory: xsave's alignment; past the
 * ring's end when the area would wrap round it, xsave writes in one
 * piece), the area, in the standard (not compacted) format.
 */
#define AGENT_PROG_FPSTATE 4u
#define AGENT_FP_MAX	   1024 /* x87, SSE, AVX: 832 bytes */

/*
 * Agent-style dprintf output: a region of the process (read-write,
 * mapped by utraced) with one ring per thread. A thread claims the free
 * slot (owner 0) with its thread pointer (%fs:0) and is its ring's only
 * writer; utraced is its only reader. A hit's records are written past
 * head, then head moves past them all at once: that store publishes them.
 * utraced formats them (the format is in the command it knows), prints
 * them and moves tail. A hit whose records do not fit, or that the agent
 * cannot record, traps: utraced empties the rings, then runs the commands
 * itself, so the order of each thread's lines holds and nothing is lost.
 */
#define AGENT_OUT_SLOTS 64
#define AGENT_OUT_RING	(1u << 20) /* bytes per thread, a power of two (touched pages only) */

struct agent_out_slot {
	uint64_t owner; /* thread pointer of the thread writing here; 0: free */
	uint64_t head;	/* bytes published, ever */
	uint64_t tail;	/* bytes utraced has taken, ever */
	uint64_t spare;
};

/*
 * Counters the agent and utraced share, in the output region: a fast
 * tracepoint's hits left before its pass count (`left`, taken one by one
 * with an atomic decrement; at 0 or below the hit traps, and utraced
 * counts it), and an experiment's buffer space (`used`, bytes the agent
 * reserved with an atomic add, against `limit`, which utraced alone
 * writes: the bytes it took from the rings plus the space its buffer has
 * left). A reservation of a hit that then traps is never given back: the
 * agent only traps sooner than it must. `seq` numbers an experiment's
 * frames across its threads' rings: taken (atomic add) by a hit that will
 * publish, just before it does, so utraced can put them in the order of
 * the hits.
 */
struct agent_trace_ctl {
	int64_t left;
	int64_t used;
	int64_t limit;
	uint64_t seq; /* an experiment's: the next frame's number in the order of the hits */
};

#define AGENT_CTL_ENGINES 64  /* ctl[0..64): an engine's (experiment's) buffer, by its slot */
#define AGENT_CTL_SLOTS	  512 /* ctl[64..512): a tracepoint's pass count */

struct agent_out_region {
	struct agent_out_slot slot[AGENT_OUT_SLOTS];
	struct agent_trace_ctl ctl[AGENT_CTL_SLOTS];
	uint8_t ring[AGENT_OUT_SLOTS][AGENT_OUT_RING];
};

/*
 * One printf's record, 8-byte aligned in its ring (it may wrap): this
 * header, nargs u64 arguments, then for each argument that a %s prints
 * (nstr of them, in order) a u16 length, the u8 index of the argument, a
 * pad byte and the string's bytes, no NUL.
 */
struct agent_out_rec {
	uint32_t len;	 /* the whole record, padding included */
	uint16_t cmd;	 /* index of the command among the breakpoint's */
	uint16_t fmt_pc; /* offset of the printf instruction in that command */
	uint64_t bp;	 /* the breakpoint's address */
	uint8_t nargs;
	uint8_t nstr;
	uint8_t pad[6];
};

/*
 * A fast tracepoint's frame, 8-byte aligned in its ring as a printf
 * record (kind tells them apart: a printf's cmd is below 0xffff). After
 * the header, the frame's blocks in gdbserver's layout, but the registers
 * compact: 'R' then struct agent_trace_regs, then maybe the 'x' block of
 * the x87/vector state (AGENT_PROG_FPSTATE); 'M' u64 address, u16
 * length, the bytes. reserved: the bytes this frame took from the
 * experiment's budget (what it costs in utraced's buffer).
 */
#define AGENT_REC_TRACE 0xffff

struct agent_trace_rec {
	uint32_t len;  /* the whole record, padding included */
	uint16_t kind; /* AGENT_REC_TRACE */
	uint16_t pad;
	uint64_t bp; /* the tracepoint's address */
	uint32_t tpnum;
	uint32_t reserved;
	uint64_t seq; /* its experiment's agent_trace_ctl.seq at the hit */
};

/* The registers an 'R' block of the agent has: gdb's amd64 numbers 0..23, then the bases. */
struct agent_trace_regs {
	uint64_t gpr[16]; /* rax, rbx, rcx, rdx, rsi, rdi, rbp, rsp, r8-r15 */
	uint64_t rip, eflags;
	uint64_t seg[6]; /* cs, ss, ds, es, fs, gs */
	uint64_t fs_base, gs_base;
};

/* What a frame costs in utraced's buffer beyond its blocks (u16 number, u32 size). */
#define AGENT_TRACE_FRAME_HDR 6

/* Longest frame the agent records (more: the hit traps, utraced collects it). */
#define AGENT_TRACE_REC_MAX 16384

/* Longest %s string copied into a record; a longer one traps. */
#define AGENT_OUT_STR_MAX 256

/*
 * Set in the frame's rsp slot (gpr[7], which the trampoline never pops)
 * just before head is stored: a thread stopped after that store has
 * printed, and must be taken on past its breakpoint, not back to it (it
 * would print twice). Below the bit: the slot and the head before.
 */
#define AGENT_OUT_MARK	       (1ULL << 63)
#define AGENT_OUT_MARK_SLOT(m) ((unsigned)((m) >> 48) & 0x7fffu)
#define AGENT_OUT_MARK_HEAD(m) ((m)&0xffffffffffffULL)

/* The entry's answer. */
#define AGENT_INPROC_GO	  0 /* every condition false: go on, no stop */
#define AGENT_INPROC_TRAP 1 /* one holds, or failed: trap, utraced decides */

typedef uint64_t (*agent_inproc_entry_fn)(struct agent_inproc_frame *f,
					  const struct agent_inproc_prog *prog);
#if defined(__i386__) || defined(__x86_64__)
/* The i386 blob's entry (agent_inproc.c built with -m32). */
typedef uint32_t __attribute__((regparm(2))) (*agent_inproc_entry32_fn)(
	struct agent_inproc_frame32 *f, const struct agent_inproc_prog *prog);
#endif

/*
 * The blobs (generated from agent_inproc.c): copied as they are, entry at
 * offset 0; the i386 one (agent_inproc32_blob) for a 32-bit process.
 */
extern const unsigned char agent_inproc_blob[];
extern const unsigned long agent_inproc_blob_len;
extern const unsigned char agent_inproc32_blob[];
extern const unsigned long agent_inproc32_blob_len;

#endif
