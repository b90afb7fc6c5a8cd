/*
 * agent_expr: the agent expression interpreter and its static checker
 * (see agent.h).
 *
 * One table says, for each of the 256 byte values, whether it is an opcode,
 * how many operand bytes follow it and which group of instructions runs it;
 * agent_check() and agent_eval() both read it, so the two cannot disagree
 * on where an instruction ends. The stack holds unsigned 64-bit values and
 * all arithmetic wraps; signed operations convert explicitly, and the cases
 * C leaves undefined (shifts by 64 or more, INT64_MIN / -1) get a defined
 * result instead of the host's.
 */
#include "agent_int.h"

#include <errno.h>
#include <string.h>

/* How agent_eval() runs an opcode. 0 means "not an opcode". */
enum agent_class {
	AGENT_C_INVALID,
	AGENT_C_BINARY,	     /* a b => a op b */
	AGENT_C_UNARY,	     /* a => op a */
	AGENT_C_EXT,	     /* ext, zero_ext: 1-byte bit count */
	AGENT_C_REF,	     /* addr => value read from memory */
	AGENT_C_CONST,	     /* => big-endian operand */
	AGENT_C_REG,	     /* => register */
	AGENT_C_JUMP,	     /* goto, if_goto: 16-bit target */
	AGENT_C_STACK,	     /* dup, pop, swap, pick, rot */
	AGENT_C_END,	     /* end */
	AGENT_C_PRINTF,	     /* printf: variable operands */
	AGENT_C_TRACE,	     /* trace, trace_quick, trace16, tracenz: collect memory */
	AGENT_C_TSV,	     /* getv, setv, tracev: trace state variables */
	AGENT_C_UNSUPPORTED, /* valid, but never run here */
};

struct agent_op_info {
	uint8_t operands; /* operand bytes after the opcode (printf: its fixed header) */
	uint8_t cls;	  /* enum agent_class */
};

#define OP(code, n, c) [AGENT_OP_##code] = {n, AGENT_C_##c}
static const struct agent_op_info agent_ops[256] = {
	OP(FLOAT, 0, UNSUPPORTED),
	OP(ADD, 0, BINARY),
	OP(SUB, 0, BINARY),
	OP(MUL, 0, BINARY),
	OP(DIV_SIGNED, 0, BINARY),
	OP(DIV_UNSIGNED, 0, BINARY),
	OP(REM_SIGNED, 0, BINARY),
	OP(REM_UNSIGNED, 0, BINARY),
	OP(LSH, 0, BINARY),
	OP(RSH_SIGNED, 0, BINARY),
	OP(RSH_UNSIGNED, 0, BINARY),
	OP(TRACE, 0, TRACE),
	OP(TRACE_QUICK, 1, TRACE),
	OP(LOG_NOT, 0, UNARY),
	OP(BIT_AND, 0, BINARY),
	OP(BIT_OR, 0, BINARY),
	OP(BIT_XOR, 0, BINARY),
	OP(BIT_NOT, 0, UNARY),
	OP(EQUAL, 0, BINARY),
	OP(LESS_SIGNED, 0, BINARY),
	OP(LESS_UNSIGNED, 0, BINARY),
	OP(EXT, 1, EXT),
	OP(REF8, 0, REF),
	OP(REF16, 0, REF),
	OP(REF32, 0, REF),
	OP(REF64, 0, REF),
	OP(REF_FLOAT, 0, UNSUPPORTED),
	OP(REF_DOUBLE, 0, UNSUPPORTED),
	OP(REF_LONG_DOUBLE, 0, UNSUPPORTED),
	OP(L_TO_D, 0, UNSUPPORTED),
	OP(D_TO_L, 0, UNSUPPORTED),
	OP(IF_GOTO, 2, JUMP),
	OP(GOTO, 2, JUMP),
	OP(CONST8, 1, CONST),
	OP(CONST16, 2, CONST),
	OP(CONST32, 4, CONST),
	OP(CONST64, 8, CONST),
	OP(REG, 2, REG),
	OP(END, 0, END),
	OP(DUP, 0, STACK),
	OP(POP, 0, STACK),
	OP(ZERO_EXT, 1, EXT),
	OP(SWAP, 0, STACK),
	OP(GETV, 2, TSV),
	OP(SETV, 2, TSV),
	OP(TRACEV, 2, TSV),
	OP(TRACENZ, 0, TRACE),
	OP(TRACE16, 2, TRACE),
	OP(PICK, 1, STACK),
	OP(ROT, 0, STACK),
	OP(PRINTF, 3, PRINTF),
};
#undef OP

/* One evaluation: the code, where we are in it, and the stack. */
struct agent_vm {
	const uint8_t *code;
	size_t len;
	size_t pc; /* next byte to read; always <= len */
	const struct agent_env *env;
	size_t sp; /* number of values on the stack */
	uint64_t stack[AGENT_STACK_MAX];
};

/* A callback's failure as a negative errno (a positive return is not one). */
static int agent_cb_err(int rc)
{
	return rc < 0 ? rc : -EIO;
}

/* Read an n-byte big-endian operand (n <= 8) and step over it. */
static int agent_operand(struct agent_vm *vm, size_t n, uint64_t *out)
{
	uint64_t v = 0;

	if (vm->len - vm->pc < n)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		v = v << 8 | vm->code[vm->pc + i];
	vm->pc += n;
	*out = v;
	return 0;
}

static int agent_push(struct agent_vm *vm, uint64_t v)
{
	if (vm->sp >= AGENT_STACK_MAX)
		return -EOVERFLOW;
	vm->stack[vm->sp++] = v;
	return 0;
}

static int agent_pop(struct agent_vm *vm, uint64_t *v)
{
	if (vm->sp == 0)
		return -EINVAL;
	*v = vm->stack[--vm->sp];
	return 0;
}

/* a op b for the two-operand opcodes; b was on top of the stack. */
static int agent_binary(uint8_t op, uint64_t a, uint64_t b, uint64_t *r)
{
	int64_t sa = (int64_t)a, sb = (int64_t)b;

	switch (op) {
	case AGENT_OP_ADD:
		*r = a + b;
		return 0;
	case AGENT_OP_SUB:
		*r = a - b;
		return 0;
	case AGENT_OP_MUL:
		*r = a * b;
		return 0;
	case AGENT_OP_BIT_AND:
		*r = a & b;
		return 0;
	case AGENT_OP_BIT_OR:
		*r = a | b;
		return 0;
	case AGENT_OP_BIT_XOR:
		*r = a ^ b;
		return 0;
	case AGENT_OP_EQUAL:
		*r = a == b;
		return 0;
	case AGENT_OP_LESS_SIGNED:
		*r = sa < sb;
		return 0;
	case AGENT_OP_LESS_UNSIGNED:
		*r = a < b;
		return 0;
	/* Shifting out every bit is what a wider machine would do. */
	case AGENT_OP_LSH:
		*r = b >= 64 ? 0 : a << b;
		return 0;
	case AGENT_OP_RSH_UNSIGNED:
		*r = b >= 64 ? 0 : a >> b;
		return 0;
	case AGENT_OP_RSH_SIGNED:
		/* gcc shifts negative values arithmetically. */
		*r = (uint64_t)(sa >> (b >= 64 ? 63 : b));
		return 0;
	}
	if (b == 0)
		return -EDOM;
	switch (op) {
	case AGENT_OP_DIV_UNSIGNED:
		*r = a / b;
		return 0;
	case AGENT_OP_REM_UNSIGNED:
		*r = a % b;
		return 0;
	/* INT64_MIN / -1 overflows in C: wrap, as two's complement would. */
	case AGENT_OP_DIV_SIGNED:
		*r = sb == -1 ? -a : (uint64_t)(sa / sb);
		return 0;
	case AGENT_OP_REM_SIGNED:
		*r = sb == -1 ? 0 : (uint64_t)(sa % sb);
		return 0;
	}
	return -EINVAL;
}

/* ext n / zero_ext n: keep the low n bits, then sign- or zero-extend. */
static uint64_t agent_extend(uint8_t op, uint64_t v, unsigned n)
{
	uint64_t sign;

	if (n >= 64)
		return v; /* the manual: no effect */
	if (n == 0)
		return 0; /* no bits kept */
	v &= (1ull << n) - 1;
	if (op == AGENT_OP_ZERO_EXT)
		return v;
	sign = 1ull << (n - 1);
	return (v ^ sign) - sign;
}

/* refN: pop an address, push the little-endian value stored there. */
static int agent_ref(struct agent_vm *vm, uint8_t op)
{
	size_t n = (size_t)1 << (op - AGENT_OP_REF8);
	uint8_t buf[8];
	uint64_t addr, v = 0;
	int rc;

	rc = agent_pop(vm, &addr);
	if (rc < 0)
		return rc;
	if (!vm->env || !vm->env->read_mem)
		return -EOPNOTSUPP;
	rc = vm->env->read_mem(vm->env->ctx, addr, buf, n);
	if (rc != 0)
		return agent_cb_err(rc);
	for (size_t i = n; i-- > 0;)
		v = v << 8 | buf[i];
	return agent_push(vm, v);
}

static int agent_reg(struct agent_vm *vm)
{
	uint64_t regnum, v;
	int rc;

	rc = agent_operand(vm, 2, &regnum);
	if (rc < 0)
		return rc;
	if (!vm->env || !vm->env->read_reg)
		return -EOPNOTSUPP;
	rc = vm->env->read_reg(vm->env->ctx, (int)regnum, &v);
	if (rc != 0)
		return agent_cb_err(rc);
	return agent_push(vm, v);
}

static int agent_jump(struct agent_vm *vm, uint8_t op)
{
	uint64_t target, cond = 1;
	int rc;

	rc = agent_operand(vm, 2, &target);
	if (rc < 0)
		return rc;
	if (op == AGENT_OP_IF_GOTO) {
		rc = agent_pop(vm, &cond);
		if (rc < 0)
			return rc;
	}
	if (target >= vm->len)
		return -EINVAL;
	if (cond)
		vm->pc = (size_t)target;
	return 0;
}

static int agent_stack_op(struct agent_vm *vm, uint8_t op)
{
	uint64_t *s = vm->stack, n = 0, t;
	size_t sp = vm->sp;
	int rc;

	switch (op) {
	case AGENT_OP_DUP:
		return sp < 1 ? -EINVAL : agent_push(vm, s[sp - 1]);
	case AGENT_OP_POP:
		return agent_pop(vm, &t);
	case AGENT_OP_PICK:
		rc = agent_operand(vm, 1, &n);
		if (rc < 0)
			return rc;
		return n >= sp ? -EINVAL : agent_push(vm, s[sp - 1 - n]);
	case AGENT_OP_SWAP:
		if (sp < 2)
			return -EINVAL;
		t = s[sp - 1];
		s[sp - 1] = s[sp - 2];
		s[sp - 2] = t;
		return 0;
	case AGENT_OP_ROT: /* a b c => c a b */
		if (sp < 3)
			return -EINVAL;
		t = s[sp - 1];
		s[sp - 1] = s[sp - 2];
		s[sp - 2] = s[sp - 3];
		s[sp - 3] = t;
		return 0;
	}
	return -EINVAL;
}

/* Format and print (the in-process agent never formats: utraced does). */
static int agent_printf_text(const struct agent_env *env, const char *fmt, size_t fmtlen,
			     const uint64_t *args, size_t nargs)
{
#ifdef AGENT_FREESTANDING
	(void)env, (void)fmt, (void)fmtlen, (void)args, (void)nargs;
	return -EOPNOTSUPP;
#else
	char text[AGENT_PRINTF_MAX];
	size_t textlen;
	int rc;

	if (!env || !env->print)
		return -EOPNOTSUPP;
	rc = agent_format(env, fmt, fmtlen, args, nargs, text, sizeof(text), &textlen);
	if (rc < 0)
		return rc;
	return env->print(env->ctx, text, textlen);
#endif
}

/*
 * printf nargs, len16, format: pops the function and channel (unused:
 * we never call into the inferior), then nargs arguments, the first
 * argument being the top one.
 */
static int agent_printf(struct agent_vm *vm)
{
	uint64_t nargs, slen, ignore, args[AGENT_STACK_MAX];
	size_t insn_pc = vm->pc - 1;
	const char *fmt;
	int rc;

	if ((rc = agent_operand(vm, 1, &nargs)) < 0 || (rc = agent_operand(vm, 2, &slen)) < 0)
		return rc;
	if (slen == 0 || vm->len - vm->pc < slen || vm->code[vm->pc + slen - 1] != '\0')
		return -EINVAL;
	fmt = (const char *)vm->code + vm->pc;
	vm->pc += slen;
	if (vm->sp < nargs + 2)
		return -EINVAL;
	agent_pop(vm, &ignore);
	agent_pop(vm, &ignore);
	for (size_t i = 0; i < nargs; i++)
		agent_pop(vm, &args[i]);
	if (vm->env && vm->env->print_raw)
		rc = vm->env->print_raw(vm->env->ctx, insn_pc, fmt, slen - 1, args, nargs);
	else
		rc = agent_printf_text(vm->env, fmt, slen - 1, args, nargs);
	return rc != 0 ? agent_cb_err(rc) : 0;
}

#ifndef AGENT_FREESTANDING
/* See agent.h. */
int agent_printf_replay(const uint8_t *code, size_t len, size_t insn_pc, const uint64_t *args,
			size_t nargs, const struct agent_env *env)
{
	size_t slen;

	if (!code || insn_pc >= len || len - insn_pc < 4 || code[insn_pc] != AGENT_OP_PRINTF ||
	    code[insn_pc + 1] != nargs)
		return -EINVAL;
	slen = (size_t)code[insn_pc + 2] << 8 | code[insn_pc + 3];
	if (slen == 0 || len - insn_pc - 4 < slen || code[insn_pc + 4 + slen - 1] != '\0')
		return -EINVAL;
	return agent_printf_text(env, (const char *)code + insn_pc + 4, slen - 1, args, nargs);
}
#endif

/*
 * trace, tracenz: addr size => (collect size bytes at addr); trace_quick n,
 * trace16 n: addr => addr (collect n bytes at addr, the address stays).
 */
static int agent_trace(struct agent_vm *vm, uint8_t op)
{
	uint64_t addr, size;
	int rc;

	if (op == AGENT_OP_TRACE_QUICK || op == AGENT_OP_TRACE16) {
		rc = agent_operand(vm, op == AGENT_OP_TRACE16 ? 2 : 1, &size);
		if (rc < 0)
			return rc;
		if (vm->sp < 1)
			return -EINVAL;
		addr = vm->stack[vm->sp - 1];
	} else if ((rc = agent_pop(vm, &size)) < 0 || (rc = agent_pop(vm, &addr)) < 0) {
		return rc;
	}
	if (!vm->env || !vm->env->collect)
		return -EOPNOTSUPP;
	rc = vm->env->collect(vm->env->ctx, addr, size, op == AGENT_OP_TRACENZ);
	return rc != 0 ? agent_cb_err(rc) : 0;
}

/* getv n: => v; setv n: v => v (n takes v); tracev n: => (n's value collected) */
static int agent_tsv(struct agent_vm *vm, uint8_t op)
{
	const struct agent_env *env = vm->env;
	uint64_t num;
	int64_t v;
	int rc = agent_operand(vm, 2, &num);

	if (rc < 0)
		return rc;
	switch (op) {
	case AGENT_OP_GETV:
		if (!env || !env->tsv_get)
			return -EOPNOTSUPP;
		rc = env->tsv_get(env->ctx, (unsigned)num, &v);
		return rc != 0 ? agent_cb_err(rc) : agent_push(vm, (uint64_t)v);
	case AGENT_OP_SETV:
		if (vm->sp < 1)
			return -EINVAL;
		if (!env || !env->tsv_set)
			return -EOPNOTSUPP;
		rc = env->tsv_set(env->ctx, (unsigned)num, (int64_t)vm->stack[vm->sp - 1]);
		return rc != 0 ? agent_cb_err(rc) : 0;
	default:
		if (!env || !env->tsv_collect)
			return -EOPNOTSUPP;
		rc = env->tsv_collect(env->ctx, (unsigned)num);
		return rc != 0 ? agent_cb_err(rc) : 0;
	}
}

/* Run the instruction whose opcode was just read; *done at `end`. */
static int agent_step(struct agent_vm *vm, uint8_t op, bool *done)
{
	const struct agent_op_info *info = &agent_ops[op];
	uint64_t a, b, r;
	int rc;

	switch (info->cls) {
	case AGENT_C_BINARY:
		if ((rc = agent_pop(vm, &b)) < 0 || (rc = agent_pop(vm, &a)) < 0)
			return rc;
		rc = agent_binary(op, a, b, &r);
		return rc < 0 ? rc : agent_push(vm, r);
	case AGENT_C_UNARY:
		if ((rc = agent_pop(vm, &a)) < 0)
			return rc;
		return agent_push(vm, op == AGENT_OP_LOG_NOT ? !a : ~a);
	case AGENT_C_EXT:
		if ((rc = agent_operand(vm, 1, &b)) < 0 || (rc = agent_pop(vm, &a)) < 0)
			return rc;
		return agent_push(vm, agent_extend(op, a, (unsigned)b));
	case AGENT_C_REF:
		return agent_ref(vm, op);
	case AGENT_C_CONST:
		if ((rc = agent_operand(vm, info->operands, &a)) < 0)
			return rc;
		return agent_push(vm, a);
	case AGENT_C_REG:
		return agent_reg(vm);
	case AGENT_C_JUMP:
		return agent_jump(vm, op);
	case AGENT_C_STACK:
		return agent_stack_op(vm, op);
	case AGENT_C_END:
		*done = true;
		return 0;
	case AGENT_C_PRINTF:
		return agent_printf(vm);
	case AGENT_C_TRACE:
		return agent_trace(vm, op);
	case AGENT_C_TSV:
		return agent_tsv(vm, op);
	case AGENT_C_UNSUPPORTED:
		/* Malformed first: a truncated operand is the worse news. */
		return vm->len - vm->pc < info->operands ? -EINVAL : -EOPNOTSUPP;
	}
	return -EINVAL;
}

/* See agent.h. */
int agent_eval(const uint8_t *code, size_t len, const struct agent_env *env, int64_t *result)
{
	struct agent_vm vm = {.code = code, .len = len, .env = env};
	bool done = false;
	int rc;

	if (!code || len == 0)
		return -EINVAL;
	if (len > AGENT_CODE_MAX)
		return -E2BIG;
	for (unsigned long steps = 0; steps < AGENT_STEP_MAX; steps++) {
		if (vm.pc >= vm.len)
			return -EINVAL; /* ran off the end: no `end` */
		rc = agent_step(&vm, code[vm.pc++], &done);
		if (rc < 0)
			return rc;
		if (!done)
			continue;
		if (!result)
			return 0;
		if (vm.sp == 0)
			return -EINVAL;
		*result = (int64_t)vm.stack[vm.sp - 1];
		return 0;
	}
	return -ELOOP;
}

/* Length of the instruction at code[pc] (pc < len), or -EINVAL. */
static long agent_insn_len(const uint8_t *code, size_t len, size_t pc)
{
	const struct agent_op_info *info = &agent_ops[code[pc]];
	size_t n = 1 + info->operands;

	if (info->cls == AGENT_C_INVALID || len - pc < n)
		return -EINVAL;
	if (info->cls == AGENT_C_PRINTF) {
		size_t slen = (size_t)code[pc + 2] << 8 | code[pc + 3];

		if (slen == 0 || len - pc - n < slen || code[pc + n + slen - 1] != '\0')
			return -EINVAL;
		n += slen;
	}
	return (long)n;
}

/* See agent.h. */
int agent_check(const uint8_t *code, size_t len)
{
	uint8_t starts[AGENT_CODE_MAX / 8] = {0}; /* bit per instruction start */
	size_t pc = 0, last = 0;
	long n;

	if (!code || len == 0)
		return -EINVAL;
	if (len > AGENT_CODE_MAX)
		return -E2BIG;
	for (pc = 0; pc < len; pc += (size_t)n) {
		n = agent_insn_len(code, len, pc);
		if (n < 0)
			return (int)n;
		starts[pc / 8] |= 1u << (pc % 8);
		last = pc;
	}
	if (code[last] != AGENT_OP_END && code[last] != AGENT_OP_GOTO)
		return -EINVAL;
	for (pc = 0; pc < len; pc += (size_t)agent_insn_len(code, len, pc)) {
		size_t target;

		if (agent_ops[code[pc]].cls != AGENT_C_JUMP)
			continue;
		target = (size_t)code[pc + 1] << 8 | code[pc + 2];
		if (target >= len || !(starts[target / 8] & (1u << (target % 8))))
			return -EINVAL;
	}
	return 0;
}
