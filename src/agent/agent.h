/*
 * agent: GDB agent expressions, the bytecode gdb sends with target-side
 * breakpoint conditions and agent-style dprintf commands.
 *
 * With ConditionalBreakpoints+ and BreakpointCommands+ advertised, gdb
 * appends them to the Z packets it sends:
 *
 *     Z0,addr,kind;X<len>,<hex>[X<len>,<hex>...][;cmds:<persist>,X<len>,<hex>[X...]]
 *
 * one condition per breakpoint location at that address (the stop is
 * reported when any of them is non-zero) and one printf command per
 * dprintf. The bytecode language is the "Agent Expressions" appendix of
 * the GDB manual: a stack machine of 64-bit integers.
 *
 * Pure code: the evaluator reaches the inferior only through the caller's
 * callbacks, so the engine decides how registers and memory are read and
 * unit tests use a fake of both. The bytecode comes from a client and is
 * treated as hostile: every operand, jump, stack access and step is
 * bounded, and anything out of bounds is an error, never undefined
 * behaviour.
 */
#ifndef UTRACED_AGENT_H
#define UTRACED_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Deepest evaluation stack; gdb's conditions need a handful of slots. */
#define AGENT_STACK_MAX 128
/*
 * Most instructions one evaluation executes. gdb never jumps backwards,
 * so a real expression runs at most once through its bytes; a loop is a
 * hostile or broken client.
 */
#define AGENT_STEP_MAX 65536
/* Longest expression: jump targets are 16-bit offsets. */
#define AGENT_CODE_MAX 65536
/* Longest text one printf produces; the rest is cut off. */
#define AGENT_PRINTF_MAX 4096

/*
 * How an expression reaches the stopped thread. Every callback returns 0
 * or a negative errno, which agent_eval() passes on (a positive return
 * becomes -EIO). A NULL callback makes the opcodes needing it fail with
 * -EOPNOTSUPP.
 */
struct agent_env {
	void *ctx; /* first argument of every callback */
	/* Read exactly len bytes at addr (len is 1..8 for refN, up to 64 for %s). */
	int (*read_mem)(void *ctx, uint64_t addr, void *buf, size_t len);
	/*
	 * Register regnum, numbered as in the target description gdb uses
	 * (amd64: rax=0 ... rip=16), zero-extended to 64 bits.
	 */
	int (*read_reg)(void *ctx, int regnum, uint64_t *val);
	/* Output of the printf opcode (dprintf): len bytes, not NUL-terminated. */
	int (*print)(void *ctx, const char *text, size_t len);
	/*
	 * If set, the printf opcode calls this instead of formatting: the
	 * offset of its instruction in the code, its format (fmt[0..fmtlen),
	 * NUL excluded) and its arguments. The in-process agent records them
	 * for utraced to format.
	 */
	int (*print_raw)(void *ctx, size_t insn_pc, const char *fmt, size_t fmtlen,
			 const uint64_t *args, size_t nargs);
	/*
	 * Tracepoint actions only. collect: record len bytes at addr in the
	 * trace frame being built (trace, trace_quick, trace16); with nz, up
	 * to and with the first NUL byte (tracenz). The trace state
	 * variables: getv, setv and tracev (record its value in the frame).
	 */
	int (*collect)(void *ctx, uint64_t addr, uint64_t len, bool nz);
	int (*tsv_get)(void *ctx, unsigned num, int64_t *val);
	int (*tsv_set)(void *ctx, unsigned num, int64_t val);
	int (*tsv_collect)(void *ctx, unsigned num);
};

/*
 * Run code[0..len) until its `end` opcode and store the top of the stack
 * in *result. With result NULL (breakpoint commands), the stack may be
 * empty at `end`. Memory values are read little-endian (x86).
 *
 * Returns 0, or:
 *   -EINVAL     malformed: empty code, unknown opcode, truncated operand,
 *               jump past the end, running off the end, stack underflow,
 *               `end` with an empty stack, bad printf format or argument
 *               count
 *   -EOVERFLOW  more than AGENT_STACK_MAX values on the stack
 *   -ELOOP      more than AGENT_STEP_MAX instructions executed
 *   -EDOM       division or remainder by zero
 *   -E2BIG      len above AGENT_CODE_MAX
 *   -EOPNOTSUPP a valid opcode we do not run: floating point, or one
 *               whose callback is NULL (trace*, tracenz, getv, setv,
 *               tracev without a tracepoint's callbacks)
 *   any error returned by a callback
 *
 * gdbserver's rule for conditions, which the caller should follow: an
 * evaluation error counts as "true", so that the stop is reported and gdb
 * evaluates the condition itself (agent_conds_hold() does this).
 */
int agent_eval(const uint8_t *code, size_t len, const struct agent_env *env, int64_t *result);

/*
 * Print what the printf instruction at code[insn_pc] prints with args
 * (recorded elsewhere: the in-process agent's print_raw), through
 * env->print, %s strings read through env->read_mem. Returns 0, -EINVAL
 * (no printf there, or another argument count) or the formatter's error.
 */
int agent_printf_replay(const uint8_t *code, size_t len, size_t insn_pc, const uint64_t *args,
			size_t nargs, const struct agent_env *env);

/* Most %s strings one record carries (more: the hit traps, utraced prints). */
#define AGENT_RECORD_STRS 8

/* A printf record of the in-process agent, read back (agent_record.c). */
struct agent_record {
	uint64_t bp;   /* the breakpoint's address */
	unsigned cmd;  /* its command's index */
	size_t fmt_pc; /* the printf instruction's offset in that command */
	uint64_t args[255];
	size_t nargs;
	struct agent_record_str {
		uint64_t addr; /* the argument that pointed at it */
		const char *s; /* its bytes, in the record: no NUL */
		size_t len;
	} strs[AGENT_RECORD_STRS];
	size_t nstrs;
};

/*
 * Read the record rec[0..len) (len: its length field, checked against
 * it). 0, or -EINVAL when anything in it does not fit; out's strings
 * point into rec.
 */
int agent_record_parse(const uint8_t *rec, size_t len, struct agent_record *out);

/* A fast tracepoint's frame recorded by the in-process agent, read back (agent_record.c). */
struct agent_trace_record {
	uint64_t bp; /* the tracepoint's address */
	unsigned tpnum;
	uint32_t reserved; /* what it took from the experiment's buffer space */
	uint64_t seq;	   /* its number in the order of the experiment's hits */
	bool has_regs;
	/* gdb's amd64 registers 0..23 (rax ... gs), then fs_base, gs_base */
	uint64_t regs[26];
	const uint8_t *mem; /* its 'M' blocks, gdbserver's layout, each checked */
	size_t mem_len;
	const uint8_t *fp; /* the x87/vector state as xsave (fxsave) wrote it, or NULL */
	size_t fp_len;
};

/*
 * Read the trace frame record rec[0..len) (struct agent_trace_rec). 0, or
 * -EINVAL when anything in it does not fit; out->mem points into rec.
 */
int agent_trace_parse(const uint8_t *rec, size_t len, struct agent_trace_record *out);

/*
 * Print record r with the command code[0..len) it came from, through
 * env->print (env->ctx): each %s from the bytes the record carries, then
 * a NUL, as the agent copied them. Returns agent_printf_replay()'s result.
 */
int agent_record_replay(const uint8_t *code, size_t len, const struct agent_record *r,
			const struct agent_env *env);

/*
 * Static check of an expression, as done when it arrives: every opcode
 * is known, every operand is inside the code, every jump lands on the
 * start of an instruction, printf formats are NUL-terminated, and the
 * last instruction is `end` or `goto`. Returns 0, -EINVAL or -E2BIG.
 * Opcodes agent_eval() refuses with -EOPNOTSUPP pass: they are well-formed.
 */
int agent_check(const uint8_t *code, size_t len);

/* One expression: code[0..len) points into its agent_cond_list. */
struct agent_expr {
	const uint8_t *code;
	size_t len;
};

/* What a Z packet carried after "Z0,addr,kind". */
struct agent_cond_list {
	struct agent_expr *conds; /* conditions: stop when any is non-zero */
	size_t nconds;
	struct agent_expr *cmds; /* commands, run in order at each hit */
	size_t ncmds;
	bool cmds_persist; /* cmds:1, keep running them once gdb has gone */
	void *mem;	   /* the one allocation behind conds, cmds and code */
};

/* Most expressions one Z packet may carry (conditions plus commands). */
#define AGENT_EXPRS_MAX 1024

/*
 * Parse tail[0..len), the part of a Z packet after "Z<type>,addr,kind":
 * empty, or ';'-separated items, each a run of X<hexlen>,<hex> conditions
 * or one "cmds:<0|1>," followed by a run of X<hexlen>,<hex> commands (the
 * last item). Every expression is decoded and passes agent_check().
 * tail need not be NUL-terminated and is never read beyond len.
 *
 * Returns 0 with *out filled (all zero for an empty tail; free it with
 * agent_cond_list_free()), or -EINVAL (malformed), -E2BIG (more than
 * AGENT_EXPRS_MAX expressions) or -ENOMEM, with *out zeroed.
 */
int agent_parse_conditions(const char *tail, size_t len, struct agent_cond_list *out);

/* Free what agent_parse_conditions() allocated and zero *l; NULL-safe. */
void agent_cond_list_free(struct agent_cond_list *l);

/*
 * Whether a hit of a breakpoint with these conditions must be reported:
 * true when there are no conditions, when one evaluates non-zero, or when
 * one fails to evaluate (gdb then decides itself). Stops at the first
 * true condition, like gdbserver.
 */
bool agent_conds_hold(const struct agent_cond_list *l, const struct agent_env *env);

/*
 * Run every command in order (their results are ignored). Returns 0, or
 * the first error, after which the remaining commands are not run.
 */
int agent_run_cmds(const struct agent_cond_list *l, const struct agent_env *env);

#endif
