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
 * One breakpoint's program: its address (the pc the conditions see) and
 * its conditions, each a u32 length and that many bytes of bytecode,
 * padded to 4 bytes. size counts the whole, header included.
 */
struct agent_inproc_prog {
	uint64_t pc;
	uint32_t nconds;
	uint32_t size;
};

/* The entry's answer. */
#define AGENT_INPROC_GO	  0 /* every condition false: go on, no stop */
#define AGENT_INPROC_TRAP 1 /* one holds, or failed: trap, utraced decides */

typedef uint64_t (*agent_inproc_entry_fn)(const struct agent_inproc_frame *f,
					  const struct agent_inproc_prog *prog);

/* The blob (generated from agent_inproc.c): copied as is, entry at offset 0. */
extern const unsigned char agent_inproc_blob[];
extern const unsigned long agent_inproc_blob_len;

#endif
