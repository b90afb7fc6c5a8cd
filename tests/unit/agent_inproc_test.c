/*
 * The in-process agent (src/agent/inproc/, the blob utraced copies into a
 * traced process) against src/agent as utraced runs it, on the same
 * bytecode, registers and memory: a differential test. The blob is mapped
 * executable in this process and called as a trampoline would call it.
 *
 * Each program P is checked for its value, not only for true/false: the
 * blob runs "P != v", with v what agent_eval() computed here; it must go
 * on (P == v in the blob too), and trap for v + 1. A program that fails
 * here (stack underflow, division by zero, an opcode the blob refuses)
 * must trap there: an error counts as true, utraced then decides.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "agent/agent.h"
#include "agent/agent_inproc.h"
#include "agent_blob.h"
#include "tap.h"
#include "gdb_bytecode.h"

static agent_inproc_entry_fn entry;
static struct agent_inproc_frame frame;
static uint8_t mem[256];

/* --- utraced's side: the same frame and memory behind a struct agent_env. */

static int host_read_mem(void *ctx, uint64_t addr, void *buf, size_t len)
{
	(void)ctx;
	memcpy(buf, (const void *)(uintptr_t)addr, len);
	return 0;
}

static int host_read_reg(void *ctx, int regnum, uint64_t *val)
{
	const struct agent_inproc_prog *prog = ctx;

	if (regnum == AGENT_INPROC_RSP_SLOT)
		*val = (uint64_t)(uintptr_t)(&frame + 1) + AGENT_INPROC_RED_ZONE;
	else if (regnum >= 0 && regnum < 16)
		*val = frame.gpr[regnum];
	else if (regnum == 16)
		*val = prog->pc;
	else if (regnum == 17)
		*val = (uint32_t)frame.eflags;
	else
		return -EOPNOTSUPP;
	return 0;
}

/* --- building programs */

/* A prog holding conds[0..n) then cmds[0..ncmds), in the blob's format. */
static struct agent_inproc_prog *prog_build_cmds(const struct code *conds, size_t n,
						 const struct code *cmds, size_t ncmds, uint64_t pc,
						 void *out)
{
	static _Alignas(8) uint8_t buf[8192];
	struct agent_inproc_prog *prog = (void *)buf;
	size_t off = sizeof(*prog);

	memset(buf, 0, sizeof(buf));
	prog->pc = pc;
	prog->nconds = (uint32_t)n;
	prog->ncmds = (uint32_t)ncmds;
	prog->out = (uint64_t)(uintptr_t)out;
	for (size_t i = 0; i < n + ncmds; i++)
		off = code_put(buf, off, i < n ? &conds[i] : &cmds[i - n]);
	prog->size = (uint32_t)off;
	return prog;
}

static struct agent_inproc_prog *prog_build(const struct code *conds, size_t n, uint64_t pc)
{
	return prog_build_cmds(conds, n, NULL, 0, pc, NULL);
}

/* P with its final `end` made "P != v; end". */
static struct code not_equal(const struct code *p, uint64_t v)
{
	struct code c = *p;

	c.n--; /* its `end`: a jump to it now lands on the comparison */
	push64(&c, v);
	emit(&c, EQUAL);
	emit(&c, LOG_NOT);
	emit(&c, END);
	return c;
}

/* Check P in the blob against agent_eval() here; false on a mismatch. */
static bool same(const struct code *p, const char *what)
{
	struct agent_inproc_prog *prog = prog_build(NULL, 0, 0x401136);
	struct agent_env env = {.ctx = prog, .read_mem = host_read_mem, .read_reg = host_read_reg};
	struct code c;
	int64_t v;
	int rc = agent_eval(p->b, p->n, &env, &v);

	if (rc < 0) {
		prog = prog_build(p, 1, 0x401136);
		if (entry(&frame, prog) == AGENT_INPROC_TRAP)
			return true;
		diag("%s: fails here (%d), goes on in the blob", what, rc);
		return false;
	}
	c = not_equal(p, (uint64_t)v);
	prog = prog_build(&c, 1, 0x401136);
	if (entry(&frame, prog) != AGENT_INPROC_GO) {
		diag("%s: %lld here, not in the blob", what, (long long)v);
		return false;
	}
	c = not_equal(p, (uint64_t)v + 1);
	prog = prog_build(&c, 1, 0x401136);
	if (entry(&frame, prog) != AGENT_INPROC_TRAP) {
		diag("%s: %lld here, also %lld in the blob", what, (long long)v, (long long)v + 1);
		return false;
	}
	return true;
}

/* --- every opcode the blob runs, and those it refuses */

static void binary_case(int op, uint64_t a, uint64_t b, const char *name)
{
	struct code c = {0};

	push64(&c, a);
	push64(&c, b);
	emit(&c, op);
	emit(&c, END);
	ok(same(&c, name), "%s %#llx %#llx", name, (unsigned long long)a, (unsigned long long)b);
}

static void test_binary(void)
{
	static const struct {
		int op;
		const char *name;
	} ops[] = {
		{ADD, "add"},
		{SUB, "sub"},
		{MUL, "mul"},
		{DIV_S, "div_signed"},
		{DIV_U, "div_unsigned"},
		{REM_S, "rem_signed"},
		{REM_U, "rem_unsigned"},
		{LSH, "lsh"},
		{RSH_S, "rsh_signed"},
		{RSH_U, "rsh_unsigned"},
		{BIT_AND, "bit_and"},
		{BIT_OR, "bit_or"},
		{BIT_XOR, "bit_xor"},
		{EQUAL, "equal"},
		{LESS_S, "less_signed"},
		{LESS_U, "less_unsigned"},
	};
	static const uint64_t vals[][2] = {
		{7, 3}, {(uint64_t)-7, 3}, {0x8000000000000000ull, (uint64_t)-1}, {5, 0}, {1, 70},
	};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		for (size_t j = 0; j < sizeof(vals) / sizeof(vals[0]); j++)
			binary_case(ops[i].op, vals[j][0], vals[j][1], ops[i].name);
}

static void test_memory_and_registers(void)
{
	static const int refs[] = {REF8, REF16, REF32, REF64};
	struct code c;

	for (size_t i = 0; i < 4; i++) {
		c = (struct code){0};
		push64(&c, (uint64_t)(uintptr_t)&mem[13]); /* unaligned */
		emit(&c, refs[i]);
		emit(&c, END);
		ok(same(&c, "ref"), "ref%d at an unaligned address", 8 << i);
	}
	for (int r = 0; r < 18; r++) {
		c = (struct code){0};
		emit(&c, REG);
		emit_be(&c, (uint64_t)r, 2);
		emit(&c, END);
		ok(same(&c, "reg"), "reg %d", r);
	}
	c = (struct code){0};
	emit(&c, REG);
	emit_be(&c, 40, 2); /* a vector register: utraced's job */
	emit(&c, END);
	ok(same(&c, "reg 40"), "reg 40 (xmm): traps");
	/* a local as gdb reads one: rbp - 20, 32 bits, sign-extended, == -1 */
	c = (struct code){0};
	emit(&c, REG);
	emit_be(&c, 6, 2);
	emit(&c, CONST8);
	emit(&c, 20);
	emit(&c, SUB);
	emit(&c, REF32);
	emit(&c, EXT);
	emit(&c, 32);
	emit(&c, END);
	ok(same(&c, "local"), "reg rbp, const8, sub, ref32, ext 32: a local");
}

static void test_stack_and_jumps(void)
{
	struct code c = {0};

	push64(&c, 0x1122334455667788ull);
	emit(&c, CONST16);
	emit_be(&c, 0xbeef, 2);
	emit(&c, CONST32);
	emit_be(&c, 0xdeadbeef, 4);
	emit(&c, ROT);
	emit(&c, SWAP);
	emit(&c, PICK);
	emit(&c, 1);
	emit(&c, DUP);
	emit(&c, POP);
	emit(&c, BIT_XOR);
	emit(&c, ZERO_EXT);
	emit(&c, 16);
	emit(&c, BIT_NOT);
	emit(&c, EXT);
	emit(&c, 8);
	emit(&c, ADD);
	emit(&c, END);
	ok(same(&c, "stack"),
	   "const16, const32, rot, swap, pick, dup, pop, zero_ext, bit_not, ext");

	/* (x ? 7 : 9) with x = mem[0] */
	for (int x = 0; x < 2; x++) {
		mem[0] = (uint8_t)x;
		c = (struct code){0};
		push64(&c, (uint64_t)(uintptr_t)mem);
		emit(&c, REF8);
		emit(&c, IF_GOTO);
		emit_be(&c, 18, 2);
		emit(&c, CONST8);
		emit(&c, 9);
		emit(&c, GOTO);
		emit_be(&c, 20, 2);
		emit(&c, CONST8); /* offset 18 */
		emit(&c, 7);
		emit(&c, LOG_NOT); /* offset 20 */
		emit(&c, LOG_NOT);
		emit(&c, END);
		ok(same(&c, "if_goto"), "if_goto and goto, taken %d", x);
	}
}

static void test_refused(void)
{
	static const int refused[] = {FLOAT, TRACE, REF_FLOAT, GETV, PRINTF};
	struct code c;

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		c = (struct code){0};
		push64(&c, (uint64_t)(uintptr_t)mem);
		emit(&c, refused[i]);
		emit_be(&c, 0, 3);
		emit(&c, END);
		ok(same(&c, "refused") && entry(&frame, prog_build(&c, 1, 0)) == AGENT_INPROC_TRAP,
		   "opcode %#x: traps", refused[i]);
	}
	c = (struct code){0};
	emit(&c, ADD); /* underflow */
	emit(&c, END);
	ok(entry(&frame, prog_build(&c, 1, 0)) == AGENT_INPROC_TRAP, "stack underflow: traps");
	ok(entry(&frame, prog_build(NULL, 0, 0)) == AGENT_INPROC_TRAP, "no condition: traps");
}

/* Several conditions: go on only when every one is false. */
static void test_conditions(void)
{
	struct code f = {0}, t = {0}, both[3];

	emit(&f, CONST8);
	emit(&f, 0);
	emit(&f, END);
	emit(&t, CONST8);
	emit(&t, 1);
	emit(&t, END);
	both[0] = f;
	both[1] = f;
	ok(entry(&frame, prog_build(both, 2, 0)) == AGENT_INPROC_GO, "two false: goes on");
	both[2] = t;
	ok(entry(&frame, prog_build(both, 3, 0)) == AGENT_INPROC_TRAP, "false, false, true: traps");
}

static void test_random(void)
{
	int bad = 0, n = 20000;
	struct code c;
	char what[32];

	srand(12345);
	for (int i = 0; i < n && bad < 5; i++) {
		agent_random_program(&c, mem, sizeof(mem), 18);
		snprintf(what, sizeof(what), "random program %d", i);
		if (!same(&c, what))
			bad++;
	}
	ok(bad == 0, "%d random programs: the same value in the blob and here", n);
}

/* --- what real gdb emits (gdb_bytecode.h), on random registers and locals */

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static bool code_of(const char *lenhex, struct code *c)
{
	char *end;
	unsigned long len = strtoul(lenhex, &end, 16);

	*c = (struct code){0};
	if (*end++ != ',' || len > sizeof(c->b) || strlen(end) != 2 * len)
		return false;
	for (size_t i = 0; i < len; i++)
		c->b[c->n++] = (uint8_t)(hexval(end[2 * i]) << 4 | hexval(end[2 * i + 1]));
	return true;
}

static void test_gdb_corpus(void)
{
	struct agent_inproc_frame saved = frame;
	uint8_t saved_mem[sizeof(mem)];
	size_t n = sizeof(gdb_bytecode) / sizeof(gdb_bytecode[0]);

	memcpy(saved_mem, mem, sizeof(mem));
	srand(29);
	for (size_t k = 0; k < n; k++) {
		struct code c;
		int bad = 0;

		if (!code_of(gdb_bytecode[k].hex, &c)) {
			ok(0, "gdb's \"%s\": its bytecode decodes", gdb_bytecode[k].cond);
			continue;
		}
		for (int round = 0; round < 200 && !bad; round++) {
			for (int r = 0; r < 16; r++)
				if (r != 6 && r != 7)
					frame.gpr[r] = (uint64_t)rand() << 33 ^ (uint64_t)rand();
			frame.eflags = (uint64_t)rand() & 0xcd5;
			for (size_t i = 0; i < sizeof(mem);
			     i++) /* small values often: conditions hold */
				mem[i] = (uint8_t)(round % 3 ? rand() % 16 : rand());
			bad += !same(&c, gdb_bytecode[k].cond);
		}
		ok(!bad, "gdb's \"%s\": the agent agrees with utraced on 200 states",
		   gdb_bytecode[k].cond);
	}
	frame = saved;
	memcpy(mem, saved_mem, sizeof(mem));
}

/* --- a record read back as what it is: the program's memory, hostile */

static void test_record_parse(void)
{
	static uint8_t buf[512];
	struct agent_record r;
	int bad = 0, parsed = 0;

	srand(31);
	for (int i = 0; i < 200000; i++) {
		size_t len = (size_t)(rand() % (int)sizeof(buf));
		struct agent_out_rec h = {.len = (uint32_t)len,
					  .nargs = (uint8_t)(rand() % 6),
					  .nstr = (uint8_t)(rand() % 4)};

		for (size_t k = 0; k < len; k++)
			buf[k] = (uint8_t)(rand() % 4 ? rand() % 8 : rand());
		if (i % 2 && len >= sizeof(h)) /* a plausible header: the checks past it run */
			memcpy(buf, &h, sizeof(h));
		if (agent_record_parse(buf, len, &r) < 0)
			continue;
		parsed++;
		for (size_t k = 0; k < r.nstrs; k++)
			bad += (const uint8_t *)r.strs[k].s < buf ||
			       (const uint8_t *)r.strs[k].s + r.strs[k].len > buf + len;
		bad += r.nargs > (len - sizeof(h)) / 8;
	}
	ok(!bad && parsed > 0,
	   "200000 random records: each refused or read inside its bytes (%d read)", parsed);
}

/* --- agent-style dprintf: records in the thread's ring, formatted by utraced */

static struct agent_out_region *out;

/* printf FMT with the values of args (pushed last to first), as gdb compiles a dprintf. */
static struct code printf_cmd(const char *fmt, const uint64_t *args, int nargs)
{
	struct code c = {0};
	size_t len = strlen(fmt) + 1;

	for (int i = nargs; i-- > 0;)
		push64(&c, args[i]);
	emit(&c, CONST8); /* function and channel: unused */
	emit(&c, 0);
	emit(&c, CONST8);
	emit(&c, 0);
	emit(&c, PRINTF);
	emit(&c, nargs);
	emit_be(&c, len, 2);
	for (size_t i = 0; i < len; i++)
		emit(&c, fmt[i]);
	emit(&c, END);
	return c;
}

struct printed {
	char text[8192];
	size_t len;
	const struct agent_out_rec *rec;
};

static int collect(void *ctx, const char *text, size_t len)
{
	struct printed *pr = ctx;

	if (len > sizeof(pr->text) - pr->len)
		return -ENOSPC;
	memcpy(pr->text + pr->len, text, len);
	pr->len += len;
	return 0;
}

/* The record at ring offset at of the slot that was used, read back and formatted as utraced does.
 */
static void replay(unsigned slot, uint64_t at, const struct code *cmd, struct printed *pr)
{
	const uint8_t *r = out->ring[slot] + (at & (AGENT_OUT_RING - 1));
	struct agent_env env = {.ctx = pr, .print = collect};
	static struct agent_record rec;

	pr->len = 0;
	pr->rec = (const void *)r;
	if (agent_record_parse(r, pr->rec->len, &rec) < 0 || rec.cmd != 0 || rec.bp != 0x401136 ||
	    agent_record_replay(cmd->b, cmd->n, &rec, &env) < 0)
		pr->len = 0;
}

/* The same command formatted directly by utraced's evaluator. */
static void direct(const struct code *cmd, struct printed *pr)
{
	struct agent_env env = {.ctx = pr, .read_mem = host_read_mem, .print = collect};

	pr->len = 0;
	env.ctx = pr;
	env.read_mem = host_read_mem;
	if (agent_eval(cmd->b, cmd->n, &env, NULL) < 0)
		pr->len = 0;
}

static unsigned my_slot(void)
{
	uint64_t tp;

	__asm__ volatile("mov %%fs:0, %0" : "=r"(tp));
	for (unsigned i = 0; i < AGENT_OUT_SLOTS; i++)
		if (out->slot[i].owner == tp)
			return i;
	return AGENT_OUT_SLOTS;
}

static void dprintf_case(const char *what, const char *fmt, const uint64_t *args, int nargs)
{
	struct code cmd = printf_cmd(fmt, args, nargs);
	struct printed a, b;
	uint64_t head;
	unsigned slot = my_slot();

	head = slot < AGENT_OUT_SLOTS ? out->slot[slot].head : 0;
	frame.gpr[7] = 0x7000;
	if (entry(&frame, prog_build_cmds(NULL, 0, &cmd, 1, 0x401136, out)) != AGENT_INPROC_GO) {
		ok(0, "dprintf %s: goes on", what);
		return;
	}
	slot = my_slot();
	replay(slot, head, &cmd, &a);
	direct(&cmd, &b);
	ok(a.len && a.len == b.len && !memcmp(a.text, b.text, a.len) &&
		   out->slot[slot].head == head + a.rec->len &&
		   frame.gpr[7] == (AGENT_OUT_MARK | (uint64_t)slot << 48 | head),
	   "dprintf %s: recorded, published, marked; formatted as utraced does: %.*s", what,
	   (int)(a.len && a.text[a.len - 1] == '\n' ? a.len - 1 : a.len), a.text);
	out->slot[slot].tail = out->slot[slot].head; /* utraced took it */
}

static void test_dprintf(void)
{
	static const char name[] = "item4", longer[600] = {[0 ... 598] = 'x'};
	uint64_t args[4] = {42, (uint64_t)-7, (uint64_t)(uintptr_t)name, 0xbeef};
	struct code f = {0}, t = {0}, cmd;
	unsigned slot;
	uint64_t head;

	out = calloc(1, sizeof(*out));
	if (!out)
		abort();
	dprintf_case("text only", "At foo entry\n", NULL, 0);
	dprintf_case("integers", "arg=%d, g=%ld\n", args, 2);
	dprintf_case("strings", "%s|%5.3s|%-8s|%x\n",
		     (uint64_t[]){args[2], args[2], args[2], args[3]}, 4);
	dprintf_case("a NULL string", "null %s\n", (uint64_t[]){0}, 1);
	dprintf_case("chars, percent, octal, unsigned long, pointer", "%c%c %% %#o %lu %p\n",
		     (uint64_t[]){'o', 'k', 8, (uint64_t)-1, 0x1000}, 5);
	dprintf_case("eight strings", "%s%s%s%s%s%s%s%s\n",
		     (uint64_t[]){args[2], args[2], args[2], args[2], args[2], args[2], args[2],
				  args[2]},
		     8);
	dprintf_case("a string of 255", "%.255s\n", (uint64_t[]){(uint64_t)(uintptr_t)longer}, 1);
	cmd = printf_cmd("%.599s\n", (uint64_t[]){(uint64_t)(uintptr_t)longer}, 1);
	slot = my_slot();
	head = out->slot[slot].head;
	ok(entry(&frame, prog_build_cmds(NULL, 0, &cmd, 1, 0, out)) == AGENT_INPROC_TRAP &&
		   out->slot[slot].head == head,
	   "a %%s longer than the agent copies: traps, nothing published");
	cmd = printf_cmd("%s%s%s%s%s%s%s%s%s\n",
			 (uint64_t[]){args[2], args[2], args[2], args[2], args[2], args[2], args[2],
				      args[2], args[2]},
			 9);
	ok(entry(&frame, prog_build_cmds(NULL, 0, &cmd, 1, 0, out)) == AGENT_INPROC_TRAP &&
		   out->slot[slot].head == head,
	   "nine strings, more than utraced reads back: traps, nothing published");
	cmd = printf_cmd("%d %d\n", args, 1);
	ok(entry(&frame, prog_build_cmds(NULL, 0, &cmd, 1, 0, out)) == AGENT_INPROC_TRAP &&
		   out->slot[slot].head == head,
	   "a format with more conversions than arguments: traps (utraced says why)");

	/* a condition first: false, nothing; true, the record */
	emit(&f, CONST8), emit(&f, 0), emit(&f, END);
	emit(&t, CONST8), emit(&t, 1), emit(&t, END);
	cmd = printf_cmd("hit %d\n", args, 1);
	slot = my_slot();
	head = out->slot[slot].head;
	ok(entry(&frame, prog_build_cmds(&f, 1, &cmd, 1, 0, out)) == AGENT_INPROC_GO &&
		   out->slot[slot].head == head,
	   "condition false: goes on, nothing recorded");
	ok(entry(&frame, prog_build_cmds(&t, 1, &cmd, 1, 0, out)) == AGENT_INPROC_GO &&
		   out->slot[slot].head > head,
	   "condition true: goes on, recorded");
	ok(entry(&frame, prog_build_cmds(&t, 1, &cmd, 1, 0, NULL)) == AGENT_INPROC_TRAP,
	   "no output region: traps");

	/* a full ring traps, publishing nothing; room again once utraced took it */
	for (int i = 0; i < 100000; i++) {
		head = out->slot[slot].head;
		if (entry(&frame, prog_build_cmds(NULL, 0, &cmd, 1, 0, out)) != AGENT_INPROC_GO)
			break;
	}
	ok(out->slot[slot].head == head &&
		   out->slot[slot].head - out->slot[slot].tail <= AGENT_OUT_RING &&
		   out->slot[slot].head - out->slot[slot].tail > AGENT_OUT_RING - 64,
	   "a full ring: traps, nothing published, never past its size");
	out->slot[slot].tail = out->slot[slot].head;
	ok(entry(&frame, prog_build_cmds(NULL, 0, &cmd, 1, 0, out)) == AGENT_INPROC_GO,
	   "emptied: recorded again");
	replay(slot, head, &cmd, &(struct printed){0});
	frame.gpr[7] = 0x0808080808080808ull ^ 7ull << 60;
	free(out);
}

int main(void)
{
	entry = agent_blob_load();
	for (int i = 0; i < 16; i++)
		frame.gpr[i] = 0x0101010101010101ull * (uint64_t)(i + 1) ^ (uint64_t)i << 60;
	frame.gpr[6] = (uint64_t)(uintptr_t)&mem[64]; /* rbp: locals below it */
	frame.eflags = 0x246;
	for (size_t i = 0; i < sizeof(mem); i++)
		mem[i] = (uint8_t)(i * 37 + 11);
	mem[44] = mem[45] = mem[46] = mem[47] = 0xff; /* rbp - 20: the local is -1 */
	ok(agent_inproc_blob_len > 0 && agent_inproc_blob_len < 16384, "the blob: %lu bytes",
	   agent_inproc_blob_len);
	test_binary();
	test_memory_and_registers();
	test_stack_and_jumps();
	test_refused();
	test_conditions();
	test_random();
	test_gdb_corpus();
	test_record_parse();
	test_dprintf();
	return done_testing();
}
