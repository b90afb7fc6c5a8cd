/*
 * The agent expression interpreter and checker (src/agent/agent_expr.c):
 * every opcode, then malformed and hostile bytecode, then the bytecode gdb
 * 13.1 really sent in Z0 packets, run against the state gdb saw
 * (agent_fake.h) and compared with what gdb printed for the expression.
 *
 * Opcodes are spelled out below from the GDB manual's numbering, not taken
 * from the implementation, so a wrong number there fails here.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent_fake.h"
#include "tap.h"

enum {
	FLOAT = 0x01,
	ADD = 0x02,
	SUB = 0x03,
	MUL = 0x04,
	DIV_S = 0x05,
	DIV_U = 0x06,
	REM_S = 0x07,
	REM_U = 0x08,
	LSH = 0x09,
	RSH_S = 0x0a,
	RSH_U = 0x0b,
	TRACE = 0x0c,
	TRACE_QUICK = 0x0d,
	LOG_NOT = 0x0e,
	BIT_AND = 0x0f,
	BIT_OR = 0x10,
	BIT_XOR = 0x11,
	BIT_NOT = 0x12,
	EQUAL = 0x13,
	LESS_S = 0x14,
	LESS_U = 0x15,
	EXT = 0x16,
	REF8 = 0x17,
	REF16 = 0x18,
	REF32 = 0x19,
	REF64 = 0x1a,
	REF_FLOAT = 0x1b,
	REF_DOUBLE = 0x1c,
	REF_LDOUBLE = 0x1d,
	L_TO_D = 0x1e,
	D_TO_L = 0x1f,
	IF_GOTO = 0x20,
	GOTO = 0x21,
	CONST8 = 0x22,
	CONST16 = 0x23,
	CONST32 = 0x24,
	CONST64 = 0x25,
	REG = 0x26,
	END = 0x27,
	DUP = 0x28,
	POP = 0x29,
	ZERO_EXT = 0x2a,
	SWAP = 0x2b,
	GETV = 0x2c,
	SETV = 0x2d,
	TRACEV = 0x2e,
	TRACENZ = 0x2f,
	TRACE16 = 0x30,
	PICK = 0x32,
	ROT = 0x33,
	PRINTF = 0x34,
};

/* Bytecode literal: expands to "pointer, length". */
#define C(...) (const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__})
/* Push -1, 5 and friends: const8 then sign extension from 8 bits. */
#define NEG(v) CONST8, (uint8_t)(v), EXT, 8

static struct fake F;
static struct agent_env ENV;

static __attribute__((format(printf, 4, 5))) void eval_is(const uint8_t *code, size_t len,
							  int64_t want, const char *fmt, ...)
{
	int64_t got = 0;
	int rc = agent_eval(code, len, &ENV, &got);
	char name[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	if (rc < 0) {
		ok(0, "%s", name);
		diag("    failed with %d", rc);
		return;
	}
	is_int(got, want, "%s", name);
}

static __attribute__((format(printf, 4, 5))) void eval_err(const uint8_t *code, size_t len,
							   int want, const char *fmt, ...)
{
	int64_t got = 0;
	char name[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	is_int(agent_eval(code, len, &ENV, &got), want, "%s", name);
}

static void test_arithmetic(void)
{
	eval_is(C(CONST8, 2, CONST8, 3, ADD, END), 5, "add");
	eval_is(C(CONST8, 2, CONST8, 3, SUB, END), -1, "sub: next-to-top minus top");
	eval_is(C(CONST8, 6, CONST8, 7, MUL, END), 42, "mul");
	eval_is(C(CONST64, 0x80, 0, 0, 0, 0, 0, 0, 0, CONST8, 2, MUL, END), 0, "mul wraps");
	eval_is(C(CONST64, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, CONST8, 1, ADD, END), 0,
		"add wraps");
	eval_is(C(NEG(-7), CONST8, 2, DIV_S, END), -3, "div_signed truncates toward zero");
	eval_is(C(NEG(-1), CONST8, 2, DIV_U, END), INT64_MAX, "div_unsigned");
	eval_is(C(NEG(-7), CONST8, 2, REM_S, END), -1, "rem_signed takes the dividend's sign");
	eval_is(C(CONST8, 7, CONST8, 3, REM_U, END), 1, "rem_unsigned");
	eval_is(C(NEG(-1), CONST8, 10, REM_U, END), 5, "rem_unsigned of 2^64-1");
	eval_err(C(CONST8, 1, CONST8, 0, DIV_S, END), -EDOM, "div_signed by zero");
	eval_err(C(CONST8, 1, CONST8, 0, DIV_U, END), -EDOM, "div_unsigned by zero");
	eval_err(C(CONST8, 1, CONST8, 0, REM_S, END), -EDOM, "rem_signed by zero");
	eval_err(C(CONST8, 1, CONST8, 0, REM_U, END), -EDOM, "rem_unsigned by zero");
	eval_is(C(CONST64, 0x80, 0, 0, 0, 0, 0, 0, 0, NEG(-1), DIV_S, END), INT64_MIN,
		"INT64_MIN / -1 wraps instead of trapping");
	eval_is(C(CONST64, 0x80, 0, 0, 0, 0, 0, 0, 0, NEG(-1), REM_S, END), 0,
		"INT64_MIN %% -1 is 0");
}

static void test_shifts(void)
{
	eval_is(C(CONST8, 1, CONST8, 4, LSH, END), 16, "lsh");
	eval_is(C(CONST8, 1, CONST8, 63, LSH, END), INT64_MIN, "lsh 63");
	eval_is(C(CONST8, 1, CONST8, 64, LSH, END), 0, "lsh 64 shifts everything out");
	eval_is(C(CONST8, 1, CONST16, 0x10, 0, LSH, END), 0, "lsh 4096");
	eval_is(C(NEG(-16), CONST8, 2, RSH_S, END), -4, "rsh_signed keeps the sign");
	eval_is(C(NEG(-16), CONST8, 200, RSH_S, END), -1, "rsh_signed 200 of a negative");
	eval_is(C(CONST8, 16, CONST8, 64, RSH_S, END), 0, "rsh_signed 64 of a positive");
	eval_is(C(NEG(-16), CONST8, 60, RSH_U, END), 15, "rsh_unsigned inserts zeros");
	eval_is(C(NEG(-1), CONST8, 64, RSH_U, END), 0, "rsh_unsigned 64");
	eval_is(C(NEG(-1), NEG(-1), RSH_U, END), 0, "rsh_unsigned by 2^64-1");
}

static void test_logic(void)
{
	eval_is(C(CONST8, 0, LOG_NOT, END), 1, "log_not 0");
	eval_is(C(CONST8, 5, LOG_NOT, END), 0, "log_not 5");
	eval_is(C(CONST8, 0x0c, CONST8, 0x0a, BIT_AND, END), 0x08, "bit_and");
	eval_is(C(CONST8, 0x0c, CONST8, 0x0a, BIT_OR, END), 0x0e, "bit_or");
	eval_is(C(CONST8, 0x0c, CONST8, 0x0a, BIT_XOR, END), 0x06, "bit_xor");
	eval_is(C(CONST8, 0, BIT_NOT, END), -1, "bit_not");
	eval_is(C(CONST8, 3, CONST8, 3, EQUAL, END), 1, "equal");
	eval_is(C(CONST8, 3, CONST8, 4, EQUAL, END), 0, "equal, not");
	eval_is(C(NEG(-1), CONST8, 1, LESS_S, END), 1, "less_signed -1 < 1");
	eval_is(C(CONST8, 1, NEG(-1), LESS_S, END), 0, "less_signed 1 < -1");
	eval_is(C(NEG(-1), CONST8, 1, LESS_U, END), 0, "less_unsigned 2^64-1 < 1");
	eval_is(C(CONST8, 1, NEG(-1), LESS_U, END), 1, "less_unsigned 1 < 2^64-1");
	eval_is(C(CONST8, 1, CONST8, 1, LESS_S, END), 0, "less_signed equal");
}

static void test_extend(void)
{
	eval_is(C(CONST8, 0xff, EXT, 8, END), -1, "ext 8 of 0xff");
	eval_is(C(CONST8, 0x7f, EXT, 8, END), 127, "ext 8 of 0x7f");
	eval_is(C(CONST16, 0x12, 0x80, EXT, 8, END), -128, "ext 8 drops the upper bits");
	eval_is(C(CONST32, 0x80, 0, 0, 0, EXT, 32, END), INT32_MIN, "ext 32");
	eval_is(C(CONST8, 1, EXT, 1, END), -1, "ext 1 of 1");
	eval_is(C(CONST8, 0xff, EXT, 64, END), 255, "ext 64 has no effect");
	eval_is(C(CONST8, 0xff, EXT, 200, END), 255, "ext 200 has no effect");
	eval_is(C(CONST8, 0xff, EXT, 0, END), 0, "ext 0 keeps no bit");
	eval_is(C(NEG(-1), ZERO_EXT, 32, END), 0xffffffff, "zero_ext 32");
	eval_is(C(NEG(-1), ZERO_EXT, 1, END), 1, "zero_ext 1");
	eval_is(C(NEG(-1), ZERO_EXT, 64, END), -1, "zero_ext 64 has no effect");
	eval_is(C(NEG(-1), ZERO_EXT, 0, END), 0, "zero_ext 0");
}

static void test_const_reg_ref(void)
{
	eval_is(C(CONST8, 0xff, END), 255, "const8 is not sign-extended");
	eval_is(C(CONST16, 0x12, 0x34, END), 0x1234, "const16 is big-endian");
	eval_is(C(CONST32, 0x89, 0xab, 0xcd, 0xef, END), 0x89abcdef, "const32");
	eval_is(C(CONST64, 1, 2, 3, 4, 5, 6, 7, 8, END), 0x0102030405060708, "const64");
	eval_is(C(REG, 0, 6, END), (int64_t)FAKE_RBP, "reg 6 (rbp)");
	eval_is(C(REG, 0, 16, END), 0x55555555513c, "reg 16 (rip)");
	eval_err(C(REG, 0x01, 0x00, END), -EINVAL, "reg 256: the callback's error");
	eval_is(C(CONST64, 0, 0, 0x55, 0x55, 0x55, 0x55, 0x80, 0x10, REF8, END), 0xfb, "ref8");
	eval_is(C(CONST64, 0, 0, 0x55, 0x55, 0x55, 0x55, 0x80, 0x10, REF16, END), 0xfffb,
		"ref16 is little-endian, zero-extended");
	eval_is(C(CONST64, 0, 0, 0x55, 0x55, 0x55, 0x55, 0x80, 0x10, REF32, END), 0xfffffffb,
		"ref32");
	eval_is(C(CONST64, 0, 0, 0x55, 0x55, 0x55, 0x55, 0x80, 0x18, REF64, END), 1ll << 40,
		"ref64");
	eval_is(C(CONST64, 0, 0, 0x55, 0x55, 0x55, 0x55, 0x80, 0x13, REF32, END), 0xc80007ff,
		"ref32 at an unaligned address");
	is_int(F.max_read, 8, "refN reads at most 8 bytes");
	eval_err(C(CONST8, 0x10, REF32, END), -EFAULT, "ref32 of unmapped memory");
	eval_err(C(CONST64, 0, 0, 0x55, 0x55, 0x55, 0x55, 0x80, 0x3e, REF32, END), -EFAULT,
		 "ref32 across the end of a mapping");
	F.mem_rc = 1;
	eval_err(C(CONST8, 0x10, REF8, END), -EIO, "a positive callback return becomes -EIO");
	F.mem_rc = 0;
	ENV.read_mem = NULL;
	eval_err(C(CONST8, 0x10, REF8, END), -EOPNOTSUPP, "ref8 without read_mem");
	ENV.read_mem = fake_read_mem;
	ENV.read_reg = NULL;
	eval_err(C(REG, 0, 6, END), -EOPNOTSUPP, "reg without read_reg");
	ENV.read_reg = fake_read_reg;
	is_int(agent_eval(C(CONST8, 0x10, REF8, END), NULL, NULL), -EOPNOTSUPP,
	       "ref8 with no env at all");
}

static void test_jumps(void)
{
	/* 0: const8 1; 2: if_goto 8; 5: const8 10; 7: end; 8: const8 20; 10: end */
	eval_is(C(CONST8, 1, IF_GOTO, 0, 8, CONST8, 10, END, CONST8, 20, END), 20,
		"if_goto taken on non-zero");
	eval_is(C(CONST8, 0, IF_GOTO, 0, 8, CONST8, 10, END, CONST8, 20, END), 10,
		"if_goto falls through on zero");
	eval_is(C(CONST8, 5, CONST8, 1, IF_GOTO, 0, 8, END, END), 5, "if_goto pops its operand");
	eval_is(C(GOTO, 0, 5, CONST8, 1, CONST8, 2, END), 2, "goto");
	eval_is(C(CONST8, 3, GOTO, 0, 6, END, GOTO, 0, 5), 3, "goto backwards to end");
	eval_err(C(GOTO, 0, 4, END), -EINVAL, "goto to len");
	eval_err(C(GOTO, 0xff, 0xff, END), -EINVAL, "goto far past the end");
	eval_err(C(CONST8, 1, IF_GOTO, 0, 6, END), -EINVAL, "if_goto past the end");
	eval_err(C(CONST8, 0, IF_GOTO, 0xff, 0xff, CONST8, 4, END), -EINVAL,
		 "an if_goto to nowhere is an error even when not taken");
	eval_err(C(GOTO, 0, 0), -ELOOP, "goto itself: step limit");
	eval_err(C(CONST8, 1, DUP, POP, GOTO, 0, 2), -ELOOP, "a loop that keeps its stack");
	eval_err(C(CONST8, 1, DUP, GOTO, 0, 2), -EOVERFLOW, "a loop that grows the stack");
	/* Into the operand of const8 (0x27 = end): agent_eval survives it. */
	eval_err(C(GOTO, 0, 4, CONST8, END), -EINVAL, "jump into an operand, empty stack");
	is_int(agent_check(C(GOTO, 0, 4, CONST8, END, END)), -EINVAL,
	       "agent_check refuses a jump into an operand");
}

static void test_stack_ops(void)
{
	eval_is(C(CONST8, 7, DUP, ADD, END), 14, "dup");
	eval_is(C(CONST8, 7, CONST8, 8, POP, END), 7, "pop");
	eval_is(C(CONST8, 7, CONST8, 8, SWAP, END), 7, "swap: top");
	eval_is(C(CONST8, 7, CONST8, 8, SWAP, POP, END), 8, "swap: below");
	eval_is(C(CONST8, 1, CONST8, 2, CONST8, 3, PICK, 0, END), 3, "pick 0 is dup");
	eval_is(C(CONST8, 1, CONST8, 2, CONST8, 3, PICK, 2, END), 1, "pick 2");
	eval_is(C(CONST8, 1, CONST8, 2, CONST8, 3, PICK, 2, POP, END), 3, "pick copies");
	eval_err(C(CONST8, 1, CONST8, 2, PICK, 2, END), -EINVAL, "pick beyond the stack");
	eval_err(C(CONST8, 1, PICK, 255, END), -EINVAL, "pick 255");
	/* a b c => c a b */
	eval_is(C(CONST8, 1, CONST8, 2, CONST8, 3, ROT, END), 2, "rot: b on top");
	eval_is(C(CONST8, 1, CONST8, 2, CONST8, 3, ROT, POP, END), 1, "rot: a next");
	eval_is(C(CONST8, 1, CONST8, 2, CONST8, 3, ROT, POP, POP, END), 3, "rot: c third");
	eval_is(C(CONST8, 9, CONST8, 1, CONST8, 2, CONST8, 3, ROT, POP, POP, POP, END), 9,
		"rot leaves the rest alone");
	eval_is(C(CONST8, 1, CONST8, 2, END), 2, "end returns the top of a deeper stack");
}

static void test_unsupported(void)
{
	static const struct {
		uint8_t code[8];
		size_t len;
		const char *name;
	} ops[] = {
		{{FLOAT, END}, 2, "float"},
		{{CONST8, 1, CONST8, 1, TRACE, END}, 6, "trace"},
		{{CONST8, 1, TRACE_QUICK, 4, END}, 5, "trace_quick"},
		{{CONST8, 1, REF_FLOAT, END}, 4, "ref_float"},
		{{CONST8, 1, REF_DOUBLE, END}, 4, "ref_double"},
		{{CONST8, 1, REF_LDOUBLE, END}, 4, "ref_long_double"},
		{{CONST8, 1, L_TO_D, END}, 4, "l_to_d"},
		{{CONST8, 1, D_TO_L, END}, 4, "d_to_l"},
		{{GETV, 0, 1, END}, 4, "getv"},
		{{CONST8, 1, SETV, 0, 1, END}, 6, "setv"},
		{{TRACEV, 0, 1, END}, 4, "tracev"},
		{{CONST8, 1, CONST8, 1, TRACENZ, END}, 6, "tracenz"},
		{{CONST8, 1, TRACE16, 0, 4, END}, 6, "trace16"},
	};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		eval_err(ops[i].code, ops[i].len, -EOPNOTSUPP, "%s", ops[i].name);
		is_int(agent_check(ops[i].code, ops[i].len), 0, "%s passes agent_check",
		       ops[i].name);
	}
	eval_err(C(0x00, END), -EINVAL, "opcode 0x00");
	eval_err(C(0x31, END), -EINVAL, "opcode 0x31 (invalid2)");
	eval_err(C(0x35, END), -EINVAL, "opcode 0x35");
	eval_err(C(0xff, END), -EINVAL, "opcode 0xff");
}

/* What the trace callbacks heard (test_trace). */
static struct {
	uint64_t addr[8], len[8];
	bool nz[8];
	int n;
	int64_t tsv[4];
	unsigned collected[8];
	int ncollected;
} T;

static int t_collect(void *ctx, uint64_t addr, uint64_t len, bool nz)
{
	(void)ctx;
	if (T.n >= 8)
		return -ENOSPC;
	T.addr[T.n] = addr;
	T.len[T.n] = len;
	T.nz[T.n++] = nz;
	return 0;
}

static int t_get(void *ctx, unsigned num, int64_t *v)
{
	(void)ctx;
	if (num >= 4)
		return -ENOENT;
	*v = T.tsv[num];
	return 0;
}

static int t_set(void *ctx, unsigned num, int64_t v)
{
	(void)ctx;
	if (num >= 4)
		return -ENOENT;
	T.tsv[num] = v;
	return 0;
}

static int t_tsv_collect(void *ctx, unsigned num)
{
	(void)ctx;
	if (T.ncollected >= 8)
		return -ENOSPC;
	T.collected[T.ncollected++] = num;
	return 0;
}

static void test_trace(void)
{
	struct agent_env env = ENV;
	int64_t r = 0;

	env.collect = t_collect;
	env.tsv_get = t_get;
	env.tsv_set = t_set;
	env.tsv_collect = t_tsv_collect;
	memset(&T, 0, sizeof(T));
	/* gdb's `collect gs`: const32 addr, const8 size, trace, then end with 1 */
	is_int(agent_eval(C(CONST32, 0x55, 0x55, 0x80, 0x10, CONST8, 16, TRACE, CONST8, 1, END),
			  &env, &r),
	       0, "trace runs");
	ok(T.n == 1 && T.addr[0] == 0x55558010 && T.len[0] == 16 && !T.nz[0],
	   "trace: addr and size popped, collected");
	is_int(r, 1, "trace leaves nothing of its own on the stack");
	is_int(agent_eval(C(CONST8, 0x40, TRACE_QUICK, 8, END), &env, &r), 0, "trace_quick runs");
	ok(T.n == 2 && T.addr[1] == 0x40 && T.len[1] == 8,
	   "trace_quick collects its operand's bytes");
	is_int(r, 0x40, "trace_quick keeps the address");
	is_int(agent_eval(C(CONST8, 0x50, TRACE16, 0x01, 0x02, END), &env, &r), 0, "trace16 runs");
	ok(T.n == 3 && T.addr[2] == 0x50 && T.len[2] == 0x102 && r == 0x50,
	   "trace16: 16-bit big-endian size, address kept");
	is_int(agent_eval(C(CONST8, 0x60, CONST8, 200, TRACENZ, CONST8, 0, END), &env, &r), 0,
	       "tracenz runs");
	ok(T.n == 4 && T.addr[3] == 0x60 && T.len[3] == 200 && T.nz[3], "tracenz asks up to a NUL");
	T.tsv[1] = 41;
	is_int(agent_eval(C(GETV, 0, 1, CONST8, 1, ADD, SETV, 0, 1, END), &env, &r), 0,
	       "getv/setv run");
	ok(r == 42 && T.tsv[1] == 42, "setv stores the top and leaves it there");
	is_int(agent_eval(C(TRACEV, 0, 2, CONST8, 7, END), &env, &r), 0, "tracev runs");
	ok(T.ncollected == 1 && T.collected[0] == 2 && r == 7, "tracev collects the variable only");
	eval_err(C(CONST8, 1, TRACE, END), -EINVAL, "trace with one value: underflow");
	is_int(agent_eval(C(TRACE_QUICK, 4, END), &env, &r), -EINVAL,
	       "trace_quick on an empty stack");
	is_int(agent_eval(C(SETV, 0, 1, END), &env, &r), -EINVAL, "setv on an empty stack");
	is_int(agent_eval(C(GETV, 0, 9, END), &env, &r), -ENOENT, "getv of an unknown variable");
	T.n = 8;
	is_int(agent_eval(C(CONST8, 1, CONST8, 1, TRACE, CONST8, 1, END), &env, &r), -ENOSPC,
	       "a collect that fails ends the evaluation with its error");
}

static void test_malformed(void)
{
	static const struct {
		uint8_t code[4];
		size_t len;
	} truncated[] = {
		{{CONST8}, 1},	     {{CONST16, 1}, 2},	 {{CONST32, 1, 2, 3}, 4},
		{{REG, 0}, 2},	     {{IF_GOTO, 0}, 2},	 {{GOTO}, 1},
		{{EXT}, 1},	     {{ZERO_EXT}, 1},	 {{PICK}, 1},
		{{PRINTF, 0, 0}, 3}, {{TRACE_QUICK}, 1}, {{GETV, 1}, 2},
	};
	uint8_t c64[8] = {CONST64, 1, 2, 3, 4, 5, 6, 7};
	uint8_t *big;

	for (size_t i = 0; i < sizeof(truncated) / sizeof(truncated[0]); i++) {
		const uint8_t *code = truncated[i].code;

		eval_err(code, truncated[i].len, -EINVAL, "truncated operand of opcode 0x%02x",
			 code[0]);
		is_int(agent_check(code, truncated[i].len), -EINVAL,
		       "agent_check: truncated operand of 0x%02x", code[0]);
	}
	eval_err(c64, sizeof(c64), -EINVAL, "const64 with 7 operand bytes");
	eval_err(C(CONST8, 1), -EINVAL, "no end: runs off the code");
	eval_err(C(END), -EINVAL, "end with an empty stack");
	is_int(agent_eval(C(END), &ENV, NULL), 0, "end with an empty stack, no result wanted");
	eval_err(NULL, 0, -EINVAL, "no code");
	eval_err((const uint8_t *)"", 0, -EINVAL, "empty code");
	eval_err(C(CONST8, 1, ADD, END), -EINVAL, "add with one value");
	eval_err(C(SUB, END), -EINVAL, "sub with none");
	eval_err(C(LOG_NOT, END), -EINVAL, "log_not with none");
	eval_err(C(BIT_NOT, END), -EINVAL, "bit_not with none");
	eval_err(C(EXT, 8, END), -EINVAL, "ext with none");
	eval_err(C(REF32, END), -EINVAL, "ref32 with none");
	eval_err(C(IF_GOTO, 0, 0, END), -EINVAL, "if_goto with none");
	eval_err(C(DUP, END), -EINVAL, "dup with none");
	eval_err(C(POP, CONST8, 1, END), -EINVAL, "pop with none");
	eval_err(C(CONST8, 1, SWAP, END), -EINVAL, "swap with one");
	eval_err(C(CONST8, 1, CONST8, 2, ROT, END), -EINVAL, "rot with two");

	/* AGENT_STACK_MAX values fit, one more does not. */
	big = calloc(1, AGENT_CODE_MAX + 1);
	big[0] = CONST8;
	big[1] = 5;
	memset(big + 2, DUP, AGENT_STACK_MAX - 1);
	big[AGENT_STACK_MAX + 1] = END;
	eval_is(big, AGENT_STACK_MAX + 2, 5, "AGENT_STACK_MAX values on the stack");
	big[AGENT_STACK_MAX + 1] = DUP;
	big[AGENT_STACK_MAX + 2] = END;
	eval_err(big, AGENT_STACK_MAX + 3, -EOVERFLOW, "one value more overflows");

	/* The longest straight code runs to its end within the step limit. */
	big[0] = CONST8;
	big[1] = 9;
	for (size_t i = 2; i + 2 < AGENT_CODE_MAX; i += 2) {
		big[i] = DUP;
		big[i + 1] = POP;
	}
	big[AGENT_CODE_MAX - 2] = DUP;
	big[AGENT_CODE_MAX - 1] = END;
	eval_is(big, AGENT_CODE_MAX, 9, "AGENT_CODE_MAX bytes of straight code");
	is_int(agent_check(big, AGENT_CODE_MAX), 0, "...pass agent_check");
	eval_err(big, AGENT_CODE_MAX + 1, -E2BIG, "AGENT_CODE_MAX + 1 bytes");
	is_int(agent_check(big, AGENT_CODE_MAX + 1), -E2BIG, "agent_check: too long");
	eval_err(big, SIZE_MAX, -E2BIG, "a length of SIZE_MAX");
	free(big);
}

static void test_check(void)
{
	is_int(agent_check(C(CONST8, 1, END)), 0, "check: minimal");
	is_int(agent_check(C(CONST8, 1, IF_GOTO, 0, 6, END, CONST8, 2, END)), 0,
	       "check: jump to an instruction");
	is_int(agent_check(C(CONST8, 1, IF_GOTO, 0, 1, END)), -EINVAL,
	       "check: jump into an operand");
	is_int(agent_check(C(CONST8, 1, IF_GOTO, 0, 6, END)), -EINVAL, "check: jump to len");
	is_int(agent_check(C(CONST8, 1, GOTO, 0, 0)), 0,
	       "check: ends with goto (loops are eval's)");
	is_int(agent_check(C(CONST8, 1)), -EINVAL, "check: last is not end");
	is_int(agent_check(C(CONST8, 1, END, CONST8)), -EINVAL, "check: truncated after end");
	is_int(agent_check(C(0x31, END)), -EINVAL, "check: invalid2");
	is_int(agent_check(NULL, 0), -EINVAL, "check: empty");
	is_int(agent_check(C(CONST8, 0, CONST8, 0, PRINTF, 0, 0, 3, 'a', 'b', 0, END)), 0,
	       "check: printf");
	is_int(agent_check(C(CONST8, 0, CONST8, 0, PRINTF, 0, 0, 3, 'a', 'b', 'c', END)), -EINVAL,
	       "check: printf format not NUL-terminated");
	is_int(agent_check(C(CONST8, 0, CONST8, 0, PRINTF, 0, 0, 0, END)), -EINVAL,
	       "check: printf with an empty format");
	is_int(agent_check(C(CONST8, 0, CONST8, 0, PRINTF, 0, 0, 9, 'a', 0, END)), -EINVAL,
	       "check: printf format past the end");
}

/* What gdb 13.1 sent for `condition 1 EXPR` at f's first line, and what it printed. */
static const struct {
	const char *expr, *hex;
	int64_t value;
} gdb_vectors[] = {
	{"x == 3", "26000622100222ec16080219162022031327", 1},
	{"x > 2 && u < 10",
	 "26000622100222ec16080219162022022b1420001821003426000622100222e816080219220a2a2015"
	 "20002f2100342201210036220027",
	 1},
	{"l < 0", "26000622100222e01608021a164022001427", 1},
	{"gs.a == -5", "25000055555555801019162022fb16081327", 1},
	{"gs.b == 7 || x == 100",
	 "25000055555555801022040218161022071320002e26000622100222ec16080219162022641320002e"
	 "2200210030220127",
	 1},
	{"gs.c > 100", "2500005555555580102206021722642b1427", 1},
	{"garr[2] == 30", "2500005555555580202202220404022a40191620221e1327", 1},
	{"gs.d == 1LL << 40", "2500005555555580102208021a16402500000100000000001327", 1},
	{"x % 2 == 1", "26000622100222ec160802191620220207162022011327", 1},
	{"x / 2 == 1", "26000622100222ec160802191620220205162022011327", 1},
	{"!(x != 3)", "26000622100222ec1608021916202203130e0e27", 1},
	{"(x << 2) == 12", "26000622100222ec1608021916202202091620220c1327", 1},
	{"~x == -4", "26000622100222ec16080219162012162022fc16081327", 1},
	{"-x < 0", "220026000622100222ec16080219162003162022001427", 1},
	{"(u >> 1) == 3", "26000622100222e81608021922012a200b2a2022032a201327", 1},
	{"(x ? 7 : 9) == 7", "26000622100222ec1608021916200e2000172207210019220922071327", 1},
	{"x >= 3 && x <= 3",
	 "26000622100222ec1608021916202203140e20001821003626000622100222ec16080219162022032b14"
	 "0e2000312100362201210038220027",
	 1},
	{"(x & 1) | (u ^ 4)",
	 "26000622100222ec16080219162022010f26000622100222e81608021922042a20112b2a202b1027", 3},
	{"$rip != 0", "2600102a402200130e27", 1},
	{"sink > 0", "25000055555555803c19162022002b1427", 1},
	{"u * 1000000007u", "26000622100222e816080219243b9aca07042a2027", 1705032746},
	{"(long)u - 7 < 0", "26000622100222e816080219220703164022001427", 1},
	{"(unsigned)u - 7 < 0", "26000622100222e81608021922072a20032a2022002a201527", 0},
	{"(char)300", "222c27", 44},
	{"(unsigned char)ch + 1000", "26000622100222dc1608021716082a082303e802162027", 1100},
};

static void test_gdb_vectors(void)
{
	uint8_t code[128];

	for (size_t i = 0; i < sizeof(gdb_vectors) / sizeof(gdb_vectors[0]); i++) {
		size_t len = unhex(gdb_vectors[i].hex, code, sizeof(code));

		is_int(agent_check(code, len), 0, "gdb: `%s` passes agent_check",
		       gdb_vectors[i].expr);
		eval_is(code, len, gdb_vectors[i].value, "gdb: %s", gdb_vectors[i].expr);
	}
	/* The same bytecode at the next hit: x=4, u=8. */
	fake_poke32(&F, FAKE_X, 4);
	fake_poke32(&F, FAKE_U, 8);
	eval_is(code, unhex(gdb_vectors[0].hex, code, sizeof(code)), 0, "x == 3 with x=4");
	eval_is(code, unhex(gdb_vectors[16].hex, code, sizeof(code)), 0,
		"x >= 3 && x <= 3 with x=4 (the goto path)");
	eval_is(code, unhex(gdb_vectors[1].hex, code, sizeof(code)), 1, "x > 2 && u < 10, x=4");
	fake_poke32(&F, FAKE_U, 10);
	eval_is(code, unhex(gdb_vectors[1].hex, code, sizeof(code)), 0, "x > 2 && u < 10, u=10");
	fake_poke32(&F, FAKE_X, 0);
	eval_is(code, unhex(gdb_vectors[15].hex, code, sizeof(code)), 0, "(x ? 7 : 9) == 7, x=0");
}

/* Random bytes must never crash, hang or return an undocumented error. */
static void test_random(void)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	uint8_t code[64];
	int bad = 0, checked = 0, ran = 0;

	F.mem_rc = 0;
	for (int iter = 0; iter < 200000; iter++) {
		size_t len = 1 + iter % sizeof(code);
		int64_t v;
		int rc;

		for (size_t i = 0; i < len; i++) {
			seed ^= seed << 13;
			seed ^= seed >> 7;
			seed ^= seed << 17;
			/* Mostly real opcodes, so that programs get somewhere. */
			code[i] = (uint8_t)(seed % 4 ? seed % 0x36 : seed >> 8);
		}
		rc = agent_eval(code, len, &ENV, &v);
		if (rc == 0)
			ran++;
		else if (rc != -EINVAL && rc != -EOVERFLOW && rc != -ELOOP && rc != -EDOM &&
			 rc != -EOPNOTSUPP && rc != -EFAULT && rc != -ENOSPC)
			bad++;
		rc = agent_check(code, len);
		if (rc == 0)
			checked++;
		else if (rc != -EINVAL)
			bad++;
	}
	is_int(bad, 0, "random bytecode: only documented errors");
	ok(ran > 0 && checked > 0, "random bytecode: some ran (%d) and some passed check (%d)", ran,
	   checked);
}

int main(void)
{
	fake_init(&F, &ENV);
	test_arithmetic();
	test_shifts();
	test_logic();
	test_extend();
	test_const_reg_ref();
	test_jumps();
	test_stack_ops();
	test_unsupported();
	test_trace();
	test_malformed();
	test_check();
	test_gdb_vectors();
	test_random();
	return done_testing();
}
