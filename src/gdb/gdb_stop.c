/*
 * gdb_stop.c: stop replies (T, W, X), the one place engine stops become
 * protocol text.
 *
 * w (a thread exited) and N (no thread left running) name no live thread.
 * T replies carry the thread, the stop reason gdb asked for with swbreak+
 * / hwbreak+ (the pc is already back on the breakpoint), and the frame,
 * stack and program counter registers so gdb need not ask for them.
 */
#include "gdb_int.h"

#include <string.h>

static void put_expedited(struct engine *e, pid_t tid, struct buf *b)
{
	const struct arch_desc *d = engine_arch(e);
	struct arch_regs *r;
	uint8_t val[64];

	if (engine_regs_of(e, tid, ARCH_RS_GP, &r) < 0) /* frame registers: no vector state */
		return;
	for (int i = 0; i < d->nregs; i++) {
		if ((i != d->fp_regno && i != d->sp_regno && i != d->pc_regno) ||
		    arch_reg_read(d, r, i, val) < 0)
			continue;
		buf_printf(b, "%02x:", i);
		buf_hex(b, val, d->regs[i].size);
		buf_putc(b, ';');
	}
}

static void put_reason(struct gdb_session *s, const struct engine_stop *st, struct buf *b)
{
	struct gdb_proc *pr;
	char path[4096];

	static const char *const watch[] = {
		[ARCH_DR_WRITE] = "watch", [ARCH_DR_READ] = "rwatch", [ARCH_DR_ACCESS] = "awatch"};

	switch (st->kind) {
	case ENGINE_STOP_SWBREAK:
		buf_puts(b, "swbreak:;");
		break;
	case ENGINE_STOP_HWBREAK:
		buf_puts(b, "hwbreak:;");
		break;
	case ENGINE_STOP_FORK:
	case ENGINE_STOP_VFORK:
		buf_puts(b, st->kind == ENGINE_STOP_FORK ? "fork:" : "vfork:");
		gdb_put_ptid(s, b, st->child, st->child);
		buf_putc(b, ';');
		break;
	case ENGINE_STOP_VFORK_DONE:
		buf_puts(b, "vforkdone:;");
		break;
	case ENGINE_STOP_THREAD_CREATED:
		buf_puts(b, "create:;");
		break;
	case ENGINE_STOP_EXEC:
		pr = gdb_proc_of(s, st->pid);
		if (!pr || engine_exe_path(pr->e, path, sizeof(path)) < 0)
			break;
		buf_puts(b, "exec:");
		buf_hex(b, path, strlen(path));
		buf_putc(b, ';');
		break;
	case ENGINE_STOP_SYSCALL_ENTRY:
		buf_printf(b, "syscall_entry:%lx;", (unsigned long)st->sysno);
		break;
	case ENGINE_STOP_SYSCALL_RETURN:
		buf_printf(b, "syscall_return:%lx;", (unsigned long)st->sysno);
		break;
	case ENGINE_STOP_WATCH:
		if (st->watch >= ARCH_DR_WRITE && st->watch <= ARCH_DR_ACCESS)
			buf_printf(b, "%s:%llx;", watch[st->watch], (unsigned long long)st->addr);
		break;
	default:
		break;
	}
}

static int stop_signal(const struct engine_stop *st)
{
	switch (st->kind) {
	case ENGINE_STOP_SIGNAL:
		return st->sig;
	case ENGINE_STOP_INTERRUPT:
		return SIGINT;
	case ENGINE_STOP_STOPPED:
		return 0;
	default:
		return SIGTRAP;
	}
}

bool gdb_stop_has_thread(const struct engine_stop *st)
{
	switch (st->kind) {
	case ENGINE_STOP_EXITED:
	case ENGINE_STOP_KILLED:
	case ENGINE_STOP_THREAD_EXITED:
	case ENGINE_STOP_NO_RESUMED:
		return false;
	default:
		return true;
	}
}

void gdb_stop_reply(struct gdb_session *s, const struct engine_stop *st, struct buf *b)
{
	unsigned off = s->server ? s->server->disabled : 0;
	struct gdb_proc *pr;

	if (st->kind == ENGINE_STOP_EXITED || st->kind == ENGINE_STOP_KILLED) {
		if (st->kind == ENGINE_STOP_EXITED)
			buf_printf(b, "W%02x", st->status & 0xff);
		else
			buf_printf(b, "X%02x", gdb_signal_from_host(st->sig) & 0xff);
		if (s->multiprocess)
			buf_printf(b, ";process:%x", (unsigned)st->pid);
		return;
	}
	if (st->kind == ENGINE_STOP_THREAD_EXITED) {
		buf_printf(b, "w%x;", (unsigned)st->status);
		gdb_put_ptid(s, b, st->pid, st->tid);
		return;
	}
	if (st->kind == ENGINE_STOP_NO_RESUMED) {
		buf_putc(b, 'N');
		return;
	}
	if (off & GDB_DISABLE_T) {
		buf_printf(b, "S%02x", gdb_signal_from_host(stop_signal(st)) & 0xff);
		return;
	}
	buf_printf(b, "T%02x", gdb_signal_from_host(stop_signal(st)) & 0xff);
	if (!(off & GDB_DISABLE_TTHREAD)) {
		buf_puts(b, "thread:");
		gdb_put_ptid(s, b, st->pid, st->tid);
		buf_putc(b, ';');
	}
	pr = gdb_proc_of(s, st->pid);
	/*
	 * exec: before the registers, as gdbserver: gdb skips the registers
	 * that follow it (the new program's, maybe of another architecture)
	 * but reads those before it in the old one's sizes.
	 */
	if (st->kind == ENGINE_STOP_EXEC)
		put_reason(s, st, b);
	if (pr && st->pid != s->attach_noregs)
		put_expedited(pr->e, st->tid, b);
	if (st->kind != ENGINE_STOP_EXEC)
		put_reason(s, st, b);
}
