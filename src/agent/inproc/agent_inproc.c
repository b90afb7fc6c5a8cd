/*
 * agent_inproc.c: the in-process agent's entry, run inside a traced
 * process by a breakpoint's trampoline (see ../agent_inproc.h).
 *
 * Built only as the freestanding blob (Makefile: no libc, no loader, no
 * writable data, no SSE: -mgeneral-regs-only leaves the program's vector
 * registers alone; -ffixed-r15 keeps the trampoline's frame pointer in r15
 * at every instruction, so utraced can take a thread stopped anywhere in
 * here back to its breakpoint). The evaluator is agent_expr.c itself,
 * compiled with AGENT_FREESTANDING: printf records its arguments in the
 * thread's ring of the output region (see ../agent_inproc.h), which
 * utraced formats and prints.
 */
#include "../agent.h"
#include "../agent_inproc.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

/* What the compiler may call for struct copies and initialisers. */
void *memset(void *s, int c, size_t n)
{
	unsigned char *p = s;

	while (n--)
		*p++ = (unsigned char)c;
	return s;
}

void *memcpy(void *d, const void *s, size_t n)
{
	unsigned char *dp = d;
	const unsigned char *sp = s;

	while (n--)
		*dp++ = *sp++;
	return d;
}

#ifdef __i386__
/*
 * The i386 build (Makefile: -m32, -ffixed-esi for the frame pointer):
 * struct agent_inproc_frame32, the thread pointer at %gs:0 (the i386 TLS
 * ABI's), regparm(2) entry. A fast tracepoint's 'R' block has amd64's
 * layout, the i386 registers in the slots of their amd64 namesakes
 * (eax in rax's, ...): utraced reads it through the process's own
 * register table, as it reads a 32-bit thread's PTRACE_GETREGS.
 */
typedef struct agent_inproc_frame32 frame_t;
typedef uint32_t entry_ret;
_Static_assert(sizeof(frame_t) == AGENT_INPROC_FRAME32_SIZE, "the trampoline's i386 frame");
#define ENTRY_ABI __attribute__((regparm(2)))
#else
typedef struct agent_inproc_frame frame_t;
typedef uint64_t entry_ret;
#define ENTRY_ABI
#endif

#ifdef __i386__
/*
 * The 64-bit divisions gcc calls on i386, here rather than libgcc's,
 * which use esi (the frame pointer utraced finds the frame by, at every
 * instruction). Shift and subtract: the agent divides rarely.
 */
static uint64_t udivmod(uint64_t n, uint64_t d, uint64_t *rem)
{
	uint64_t q = 0, r = 0;

	for (int i = 63; i >= 0; i--) {
		r = r << 1 | ((n >> i) & 1);
		if (r >= d) {
			r -= d;
			q |= 1ULL << i;
		}
	}
	*rem = r;
	return q;
}

uint64_t __udivdi3(uint64_t n, uint64_t d);
uint64_t __umoddi3(uint64_t n, uint64_t d);
int64_t __divdi3(int64_t n, int64_t d);
int64_t __moddi3(int64_t n, int64_t d);

uint64_t __udivdi3(uint64_t n, uint64_t d)
{
	uint64_t r;

	return udivmod(n, d, &r);
}

uint64_t __umoddi3(uint64_t n, uint64_t d)
{
	uint64_t r;

	udivmod(n, d, &r);
	return r;
}

/* (the caller never divides by 0, nor INT64_MIN by -1: agent_expr.c checks) */
int64_t __divdi3(int64_t n, int64_t d)
{
	uint64_t r, q = udivmod(n < 0 ? -(uint64_t)n : (uint64_t)n,
				d < 0 ? -(uint64_t)d : (uint64_t)d, &r);

	return (int64_t)((n < 0) != (d < 0) ? 0 - q : q);
}

int64_t __moddi3(int64_t n, int64_t d)
{
	uint64_t r;

	udivmod(n < 0 ? -(uint64_t)n : (uint64_t)n, d < 0 ? -(uint64_t)d : (uint64_t)d, &r);
	return (int64_t)(n < 0 ? 0 - r : r);
}
#endif

struct inproc_ctx {
	frame_t *f;
	const struct agent_inproc_prog *prog;
	struct agent_out_region *out;
	unsigned slot;
	uint64_t head;	/* where the next record goes (published at the end) */
	uint64_t limit; /* the ring's tail plus its size: no byte there or past it */
	unsigned cmd;	/* the command being run */
	uint64_t start; /* a trace frame's record: where it begins */
	uint64_t cost;	/* ... and what its blocks cost in utraced's buffer */
};

/* A direct load: a fault is caught by utraced, not by us (see the header). */
static int inproc_read_mem(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const volatile unsigned char *src = (const volatile unsigned char *)(uintptr_t)addr;
	unsigned char *dst = buf;

	(void)ctx;
	for (size_t i = 0; i < len; i++)
		dst[i] = src[i];
	return 0;
}

#ifdef __i386__
static int inproc_read_reg(void *ctx, int regnum, uint64_t *val)
{
	const struct inproc_ctx *c = ctx;

	if (regnum == 4) /* (esp: pushal's, after the pushfl) */
		*val = c->f->pushal[7 - 4] + 4u;
	else if (regnum >= 0 && regnum < 8)
		*val = c->f->pushal[7 - regnum];
	else if (regnum == 8)
		*val = (uint32_t)c->prog->pc;
	else if (regnum == 9)
		*val = c->f->eflags;
	else
		return -EOPNOTSUPP; /* segments, vectors: utraced has them */
	return 0;
}

static void set_mark(struct inproc_ctx *c, uint64_t mark)
{
	c->f->mark = mark;
}

static uint64_t thread_pointer(void)
{
	uint32_t tp;

	__asm__ volatile("mov %%gs:0, %0" : "=r"(tp));
	return tp;
}

/* gdb's i386 numbers 0..7 into the slots of rax, rbx, rcx, rdx, rsi, rdi, rbp, rsp. */
static const uint8_t regs_slot_src[8] = {0, 3, 1, 2, 6, 7, 5, 4};
#define REGS_GPRS  8
#define TP_FS_BASE 0 /* the thread pointer is gs's base on i386 */
#else
static int inproc_read_reg(void *ctx, int regnum, uint64_t *val)
{
	const struct inproc_ctx *c = ctx;

	if (regnum == AGENT_INPROC_RSP_SLOT)
		*val = (uint64_t)(uintptr_t)(c->f + 1) + AGENT_INPROC_RED_ZONE;
	else if (regnum >= 0 && regnum < 16)
		*val = c->f->gpr[regnum];
	else if (regnum == 16)
		*val = c->prog->pc;
	else if (regnum == 17)
		*val = (uint32_t)c->f->eflags;
	else
		return -EOPNOTSUPP; /* segments, bases, vectors: utraced has them */
	return 0;
}

/* The frame's rsp slot, which the trampoline never pops. */
static void set_mark(struct inproc_ctx *c, uint64_t mark)
{
	c->f->gpr[AGENT_INPROC_RSP_SLOT] = mark;
}

/* The x86-64 TLS ABI keeps the thread pointer itself at %fs:0: one per thread. */
static uint64_t thread_pointer(void)
{
	uint64_t tp;

	__asm__ volatile("mov %%fs:0, %0" : "=r"(tp));
	return tp;
}

static const uint8_t regs_slot_src[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
#define REGS_GPRS  16
#define TP_FS_BASE 1 /* (the TLS ABI: %fs:0 is the thread pointer, fs's base) */
#endif

/* The calling thread's ring: the one it owns, or a free one it takes. */
static int claim_slot(struct agent_out_region *out, uint64_t tp, unsigned *slot)
{
	if (!tp)
		return -ENOSPC;
	for (unsigned i = 0; i < AGENT_OUT_SLOTS; i++) {
		if (((volatile struct agent_out_slot *)&out->slot[i])->owner == tp) {
			*slot = i;
			return 0;
		}
	}
	for (unsigned i = 0; i < AGENT_OUT_SLOTS; i++) {
		if (__sync_bool_compare_and_swap(&out->slot[i].owner, 0, tp)) {
			*slot = i;
			return 0;
		}
	}
	return -ENOSPC;
}

/* n bytes from s to d, 8 at a time (a frame's registers and memory are most of a hit). */
static void copy(uint8_t *d, const uint8_t *s, size_t n)
{
	for (; n >= 8; n -= 8, d += 8, s += 8) {
		uint64_t w;

		__builtin_memcpy(&w, s, 8);
		__builtin_memcpy(d, &w, 8);
	}
	while (n--)
		*d++ = *s++;
}

static void ring_put(struct inproc_ctx *c, const void *src, size_t n)
{
	uint8_t *ring = c->out->ring[c->slot];
	uint64_t at = c->head & (AGENT_OUT_RING - 1);
	size_t first = AGENT_OUT_RING - at < n ? AGENT_OUT_RING - at : n;

	copy(ring + at, src, first);
	copy(ring, (const uint8_t *)src + first, n - first);
	c->head += n;
}

static bool is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

/*
 * Which arguments a %s prints, and with what precision (-1: none). What
 * only utraced's formatter can judge (an escape that could make a '%',
 * too few arguments) is refused: the hit then traps, and utraced prints.
 */
static int scan_format(const char *fmt, size_t len, size_t nargs, int *prec, bool *is_str)
{
	size_t i = 0, arg = 0;

	while (i < len) {
		char ch = fmt[i++];

		if (ch == '\\') {
			if (i >= len || is_digit(fmt[i]) || fmt[i] == 'x')
				return -EOPNOTSUPP;
			i++;
			continue;
		}
		if (ch != '%')
			continue;
		if (i < len && fmt[i] == '%') {
			i++;
			continue;
		}
		if (arg >= nargs)
			return -EINVAL;
		prec[arg] = -1;
		while (i < len && (fmt[i] == '-' || fmt[i] == '+' || fmt[i] == ' ' ||
				   fmt[i] == '#' || is_digit(fmt[i])))
			i++;
		if (i < len && fmt[i] == '.') {
			prec[arg] = 0;
			for (i++; i < len && is_digit(fmt[i]); i++)
				if (prec[arg] < 100000)
					prec[arg] = prec[arg] * 10 + (fmt[i] - '0');
		}
		while (i < len && (fmt[i] == 'l' || fmt[i] == 'h' || fmt[i] == 'L' ||
				   fmt[i] == 'z' || fmt[i] == 'H' || fmt[i] == 'D'))
			i++;
		if (i >= len)
			return -EINVAL;
		is_str[arg++] = fmt[i++] == 's';
	}
	return arg == nargs ? 0 : -EINVAL;
}

/* How many bytes of the string at s the formatter will print; -E2BIG: too many to copy. */
static long string_len(uint64_t s, int prec)
{
	const volatile char *p = (const volatile char *)(uintptr_t)s;
	long max = prec >= 0 && prec < AGENT_PRINTF_MAX ? prec : AGENT_PRINTF_MAX;
	long n = 0;

	if (!s)
		return 0; /* "(null)": nothing read */
	while (n < max && n < AGENT_OUT_STR_MAX && p[n])
		n++;
	return n == AGENT_OUT_STR_MAX && n < max && p[n] ? -E2BIG : n;
}

/* The printf opcode: its record goes into the ring, unpublished yet. */
static int inproc_print_raw(void *ctx, size_t insn_pc, const char *fmt, size_t fmtlen,
			    const uint64_t *args, size_t nargs)
{
	struct inproc_ctx *c = ctx;
	int prec[AGENT_STACK_MAX];
	bool is_str[AGENT_STACK_MAX];
	struct agent_out_rec rec = {.cmd = (uint16_t)c->cmd,
				    .fmt_pc = (uint16_t)insn_pc,
				    .bp = c->prog->pc,
				    .nargs = (uint8_t)nargs};
	uint64_t size = sizeof(rec) + 8 * nargs, at = c->head;
	int rc;

	if (nargs > 255 || insn_pc > 0xffff)
		return -EOPNOTSUPP;
	rc = scan_format(fmt, fmtlen, nargs, prec, is_str);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < nargs; i++) {
		long n = is_str[i] ? string_len(args[i], prec[i]) : 0;

		if (n < 0)
			return (int)n;
		if (is_str[i]) {
			rec.nstr++;
			size += 4 + (uint64_t)n;
		}
	}
	if (rec.nstr > AGENT_RECORD_STRS)
		return -EOPNOTSUPP; /* more than utraced reads back: it prints this one */
	size = (size + 7) & ~7ULL;
	if (c->head + size > c->limit)
		return -ENOSPC; /* full: utraced empties it at the trap */
	rec.len = (uint32_t)size;
	ring_put(c, &rec, sizeof(rec));
	ring_put(c, args, 8 * nargs);
	for (size_t i = 0; i < nargs; i++) {
		uint16_t n;
		uint8_t idx[2] = {(uint8_t)i, 0};

		if (!is_str[i])
			continue;
		n = (uint16_t)string_len(args[i], prec[i]);
		ring_put(c, &n, 2);
		ring_put(c, idx, 2);
		ring_put(c, (const void *)(uintptr_t)args[i], n);
	}
	c->head = at + size;
	return 0;
}

/* Read the u32 length of the next expression; NULL when it does not fit. */
static const unsigned char *next_expr(const unsigned char *p, const unsigned char *end,
				      uint32_t *len)
{
	if (end - p < 4)
		return NULL;
	*len = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	p += 4;
	return (uint64_t)(end - p) < *len ? NULL : p;
}

/*
 * The commands, recorded into the thread's ring and published at once
 * (see AGENT_OUT_MARK); false: nothing published, the hit must trap.
 */
static bool run_cmds(struct inproc_ctx *c, const unsigned char *p, const unsigned char *end)
{
	struct agent_env env = {.ctx = c,
				.read_mem = inproc_read_mem,
				.read_reg = inproc_read_reg,
				.print_raw = inproc_print_raw};
	volatile struct agent_out_slot *s;
	uint64_t start;

	c->out = (struct agent_out_region *)(uintptr_t)c->prog->out;
	if (!c->out || claim_slot(c->out, thread_pointer(), &c->slot) < 0)
		return false;
	s = &c->out->slot[c->slot];
	start = c->head = s->head;
	c->limit = s->tail + AGENT_OUT_RING;
	for (c->cmd = 0; c->cmd < c->prog->ncmds; c->cmd++) {
		uint32_t len;

		p = next_expr(p, end, &len);
		if (!p || agent_eval(p, len, &env, NULL) < 0)
			return false;
		p += (len + 3) & ~3u;
	}
	if (c->head == start)
		return true;
	set_mark(c, AGENT_OUT_MARK | (uint64_t)c->slot << 48 | AGENT_OUT_MARK_HEAD(start));
	__asm__ volatile("" ::: "memory"); /* the mark first (x86 keeps stores in order) */
	s->head = c->head;
	return true;
}

/* ---- fast tracepoints: a trace frame into the ring ---- */

/* n more bytes fit in this frame's record (and in the ring)? */
static bool frame_room(const struct inproc_ctx *c, uint64_t n)
{
	return c->head + n <= c->limit && c->head + n - c->start <= AGENT_TRACE_REC_MAX;
}

/* The collect callback: an 'M' block of each 65535 bytes at most, by plain loads. */
static int inproc_collect(void *ctx, uint64_t addr, uint64_t len, bool nz)
{
	struct inproc_ctx *c = ctx;

	if (nz) { /* up to and with the first NUL */
		const volatile char *p = (const volatile char *)(uintptr_t)addr;
		uint64_t n = 0;

		while (n < len && n <= AGENT_TRACE_REC_MAX && p[n])
			n++;
		len = n < len ? n + 1 : len;
	}
	while (len) {
		uint16_t n = len > 65535 ? 65535 : (uint16_t)len;

		if (!frame_room(c, 11 + (uint64_t)n))
			return -ENOSPC; /* the hit traps: utraced collects it */
		ring_put(c, "M", 1);
		ring_put(c, &addr, 8);
		ring_put(c, &n, 2);
		ring_put(c, (const void *)(uintptr_t)addr, n);
		c->cost += 11 + (uint64_t)n;
		addr += n;
		len -= n;
	}
	return 0;
}

static uint64_t seg(int which)
{
	uint32_t v = 0;

	switch (which) {
	case 0:
		__asm__ volatile("mov %%cs, %k0" : "=r"(v));
		break;
	case 1:
		__asm__ volatile("mov %%ss, %k0" : "=r"(v));
		break;
	case 2:
		__asm__ volatile("mov %%ds, %k0" : "=r"(v));
		break;
	case 3:
		__asm__ volatile("mov %%es, %k0" : "=r"(v));
		break;
	case 4:
		__asm__ volatile("mov %%fs, %k0" : "=r"(v));
		break;
	default:
		__asm__ volatile("mov %%gs, %k0" : "=r"(v));
		break;
	}
	return v & 0xffff;
}

/* The 'R' block: the registers at the tracepoint, as the trampoline saved them. */
static bool put_regs(struct inproc_ctx *c)
{
	struct agent_trace_regs r;

	if (!frame_room(c, 1 + sizeof(r)))
		return false;
	for (int i = 0; i < 16; i++)
		r.gpr[i] = 0;
	for (int i = 0; i < REGS_GPRS; i++)
		inproc_read_reg(c, regs_slot_src[i], &r.gpr[i]);
	r.rip = c->prog->pc;
	r.eflags = c->f->eflags;
	for (int i = 0; i < 6; i++)
		r.seg[i] = seg(i);
	r.fs_base = TP_FS_BASE ? thread_pointer() : 0;
	r.gs_base = TP_FS_BASE ? 0 : thread_pointer();
	ring_put(c, "R", 1);
	ring_put(c, &r, sizeof(r));
	c->cost += 1 + (uint64_t)c->prog->regs_len;
	return true;
}

/*
 * The x87 and vector registers, saved by the CPU straight into the ring
 * (AGENT_PROG_FPSTATE). They cost nothing more in utraced's buffer: they
 * are part of the 'R' block counted above.
 */
static bool put_fpstate(struct inproc_ctx *c)
{
#ifdef __x86_64__
	uint32_t len = c->prog->fp_len, mask = c->prog->fp_mask;
	uint8_t *ring = c->out->ring[c->slot], *area;
	uint64_t at = (c->head + 5) & (AGENT_OUT_RING - 1);
	uint64_t pad = (64 - ((uintptr_t)(ring + at) & 63)) & 63;
	uint8_t hdr[5];

	if (at + pad + len > AGENT_OUT_RING) /* (xsave cannot wrap: from the ring's start) */
		pad = AGENT_OUT_RING - at + ((64 - ((uintptr_t)ring & 63)) & 63);
	if (len < 512 || len > AGENT_FP_MAX || !frame_room(c, 5 + pad + len))
		return false;
	hdr[0] = 'x';
	hdr[1] = (uint8_t)pad;
	hdr[2] = (uint8_t)(pad >> 8);
	hdr[3] = (uint8_t)len;
	hdr[4] = (uint8_t)(len >> 8);
	ring_put(c, hdr, 5);
	area = ring + ((at + pad) & (AGENT_OUT_RING - 1));
	if (mask)
		__asm__ volatile("xsave64 %0"
				 : "=m"(*(uint8_t(*)[AGENT_FP_MAX])area)
				 : "a"(mask), "d"(0));
	else
		__asm__ volatile("fxsave64 %0" : "=m"(*(uint8_t(*)[512])area));
	c->head += pad + len;
	return true;
#else
	(void)c;
	return false;
#endif
}

/* The pass count and the buffer's space: false, the hit must trap (see agent_trace_ctl). */
static bool take_budget(const struct agent_inproc_prog *prog, uint64_t cost)
{
	struct agent_trace_ctl *ctl;

	if (prog->hits_left) {
		ctl = (struct agent_trace_ctl *)(uintptr_t)prog->hits_left;
		if (__sync_fetch_and_sub(&ctl->left, 1) <= 0)
			return false;
	}
	if (prog->budget) {
		ctl = (struct agent_trace_ctl *)(uintptr_t)prog->budget;
		if (__sync_fetch_and_add(&ctl->used, (int64_t)cost) + (int64_t)cost >
		    ((volatile struct agent_trace_ctl *)ctl)->limit)
			return false;
	}
	return true;
}

/* A fast tracepoint's hit: GO (a false condition, or the frame published) or TRAP. */
static uint64_t run_trace(struct inproc_ctx *c, const unsigned char *p, const unsigned char *end)
{
	struct agent_env env = {.ctx = c,
				.read_mem = inproc_read_mem,
				.read_reg = inproc_read_reg,
				.collect = inproc_collect};
	struct agent_trace_rec rec = {
		.kind = AGENT_REC_TRACE, .bp = c->prog->pc, .tpnum = c->prog->tpnum};
	volatile struct agent_out_slot *s;
	uint32_t len;
	uint64_t at;

	if (c->prog->nconds) { /* one, gdb's condition: an error traps (utraced says terror) */
		int64_t v;

		p = next_expr(p, end, &len);
		if (!p || agent_eval(p, len, &env, &v) < 0)
			return AGENT_INPROC_TRAP;
		if (!v)
			return AGENT_INPROC_GO;
		p += (len + 3) & ~3u;
	}
	c->out = (struct agent_out_region *)(uintptr_t)c->prog->out;
	if (!c->out || claim_slot(c->out, thread_pointer(), &c->slot) < 0)
		return AGENT_INPROC_TRAP;
	s = &c->out->slot[c->slot];
	c->start = c->head = s->head;
	c->limit = s->tail + AGENT_OUT_RING;
	if (!frame_room(c, sizeof(rec)))
		return AGENT_INPROC_TRAP;
	c->head += sizeof(rec); /* (written last, with the length) */
	if ((c->prog->flags & AGENT_PROG_REGS) && !put_regs(c))
		return AGENT_INPROC_TRAP;
	if ((c->prog->flags & (AGENT_PROG_REGS | AGENT_PROG_FPSTATE)) ==
		    (AGENT_PROG_REGS | AGENT_PROG_FPSTATE) &&
	    !put_fpstate(c))
		return AGENT_INPROC_TRAP;
	for (c->cmd = 0; c->cmd < c->prog->ncmds; c->cmd++) {
		p = next_expr(p, end, &len);
		if (!p || agent_eval(p, len, &env, NULL) < 0)
			return AGENT_INPROC_TRAP;
		p += (len + 3) & ~3u;
	}
	c->head = c->start + ((c->head - c->start + 7) & ~7ULL);
	if (c->head > c->limit || !take_budget(c->prog, AGENT_TRACE_FRAME_HDR + c->cost))
		return AGENT_INPROC_TRAP;
	rec.len = (uint32_t)(c->head - c->start);
	rec.reserved = (uint32_t)(AGENT_TRACE_FRAME_HDR + c->cost);
	/* nothing can trap from here: the number is taken as late as can be */
	if (c->prog->budget)
		rec.seq = __sync_fetch_and_add(
			&((struct agent_trace_ctl *)(uintptr_t)c->prog->budget)->seq, 1);
	at = c->head;
	c->head = c->start;
	ring_put(c, &rec, sizeof(rec));
	c->head = at;
	set_mark(c, AGENT_OUT_MARK | (uint64_t)c->slot << 48 | AGENT_OUT_MARK_HEAD(c->start));
	__asm__ volatile("" ::: "memory"); /* the mark first (x86 keeps stores in order) */
	s->head = c->head;
	return AGENT_INPROC_GO;
}

/* The entry, placed at offset 0 of the blob by agent_inproc.ld. */
__attribute__((section(".text.entry"), used)) ENTRY_ABI entry_ret
agent_inproc_entry(frame_t *f, const struct agent_inproc_prog *prog)
{
	struct inproc_ctx c = {.f = f, .prog = prog};
	struct agent_env env = {
		.ctx = &c, .read_mem = inproc_read_mem, .read_reg = inproc_read_reg};
	const unsigned char *p = (const unsigned char *)(prog + 1);
	const unsigned char *end = (const unsigned char *)prog + prog->size;
	bool held = prog->nconds == 0;

	if (prog->flags & AGENT_PROG_TRACE)
		return run_trace(&c, p, end);
	for (uint32_t i = 0; i < prog->nconds; i++) { /* (all read: the commands follow) */
		uint32_t len;
		int64_t v;

		p = next_expr(p, end, &len);
		if (!p)
			return AGENT_INPROC_TRAP;
		if (!held && (agent_eval(p, len, &env, &v) < 0 || v != 0))
			held = true; /* (an error too: utraced decides) */
		p += (len + 3) & ~3u;
	}
	if (!held)
		return AGENT_INPROC_GO; /* every condition false */
	if (!prog->ncmds)
		return AGENT_INPROC_TRAP;
	return run_cmds(&c, p, end) ? AGENT_INPROC_GO : AGENT_INPROC_TRAP;
}
