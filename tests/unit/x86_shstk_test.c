/*
 * Shadow stacks (x86 CET) and the out-of-line copies: a relocated call is
 * a push and a jmp, which a shadow stack does not see (its ret would
 * fault), so such copies say so (arch_xol.pushes) and the engine steps
 * them in place when the thread's /proc status says "shstk"
 * (arch_shadow_stack_on). This VM has no CET: the parts are checked here,
 * the whole only where the kernel and the CPU have it.
 */
#include <string.h>

#include "arch/arch.h"
#include "tap.h"

static const char status_head[] = "Name:\tprog\nUmask:\t0022\nState:\tt (tracing stop)\n";

static bool shstk(const char *tail)
{
	char text[512];

	snprintf(text, sizeof(text), "%s%s", status_head, tail);
	return arch_shadow_stack_on(arch_get(ARCH_AMD64), text);
}

static void test_status(void)
{
	ok(shstk("x86_Thread_features:\tshstk wrss\nx86_Thread_features_locked:\tshstk\n"),
	   "status: shstk on");
	ok(shstk("x86_Thread_features:\twrss shstk\n"), "status: shstk second in the list");
	ok(!shstk("x86_Thread_features:\t\nx86_Thread_features_locked:\tshstk\n"),
	   "status: only locked, not on");
	ok(!shstk("x86_Thread_features:\twrss\n"), "status: wrss alone");
	ok(!shstk("x86_Thread_features:\tshstkx\n"), "status: a longer word");
	ok(!shstk("Cpus_allowed:\t3\n"), "status: a kernel without the line");
	ok(!shstk("x86_Thread_features:\t"), "status: cut short");
	ok(!arch_shadow_stack_on(arch_get(ARCH_AMD64), "x86_Thread_features:\tshstk\n"),
	   "status: the key is a line of its own, never the first");
	ok(!arch_shadow_stack_on(NULL, "\nx86_Thread_features:\tshstk\n"), "status: no arch");
	ok(!arch_shadow_stack_on(arch_get(ARCH_AMD64), NULL), "status: no text");
}

struct form {
	const char *name;
	uint8_t bytes[16];
	size_t len;
	bool pushes;
};

static const struct form forms[] = {
	{"call rel32", {0xe8, 0x10, 0x00, 0x00, 0x00}, 5, true},
	{"call *%rax", {0xff, 0xd0}, 2, true},
	{"call *0x10(%rip)", {0xff, 0x15, 0x10, 0x00, 0x00, 0x00}, 6, true},
	{"mov %rsp,%rbp", {0x48, 0x89, 0xe5}, 3, false},
	{"push %rbp", {0x55}, 1, false},
	{"jmp rel32", {0xe9, 0x10, 0x00, 0x00, 0x00}, 5, false},
	{"ret", {0xc3}, 1, false},
	{"endbr64", {0xf3, 0x0f, 0x1e, 0xfa}, 4, false},
};

static void test_pushes(void)
{
	const struct arch_desc *d = arch_get(ARCH_AMD64);

	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		const struct form *f = &forms[i];
		struct arch_xol x;
		int err = arch_xol_prepare(d, f->bytes, f->len, 0x401000, 0x402000, &x);

		ok(!err && x.kind == ARCH_XOL_RUN, "%s: relocated", f->name);
		is_int(x.pushes, f->pushes, "%s: %s", f->name,
		       f->pushes ? "a push of the return address" : "no push of ours");
	}
}

int main(void)
{
	test_status();
	test_pushes();
	return done_testing();
}
