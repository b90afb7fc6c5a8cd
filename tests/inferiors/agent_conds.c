/* agent_conds N [wait]: calls visit(&items[i % 8], i) for i = 0 .. N-1, items
 * being a linked ring of 8 (key k, val 10 * k), sets g_flag to 1 at
 * i == N / 2 only, then prints "total T" and "text ok" if visit()'s code in
 * memory is the executable file's. With "wait", the loop starts once a
 * line has been read from stdin (time for a debugger to attach). For
 * tests of breakpoint conditions on locals, globals, registers and memory
 * through pointers (tests/e2e/agent_cond.t). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text_ok.h"

struct item {
	int key;
	long val;
	struct item *next;
	const char *name; /* "item<key>" (for dprintf's %s) */
};

static const char *const names[8] = {"item0", "item1", "item2", "item3",
				     "item4", "item5", "item6", "item7"};

static struct item items[8];
long g_total;
int g_flag;

__attribute__((noinline)) void visit(struct item *it, long i)
{
	g_total += it->val + (i & 1); /* LINE:visit-body */
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	char line[64];

	if (argc > 2 && !fgets(line, sizeof(line), stdin))
		return 3;
	for (int k = 0; k < 8; k++)
		items[k] = (struct item){k, 10L * k, &items[(k + 1) % 8], names[k]};
	for (long i = 0; i < n; i++) {
		g_flag = i == n / 2;
		visit(&items[i % 8], i);
	}
	printf("total %ld\n", g_total);
	printf(text_ok((const void *)visit) ? "text ok\n" : "text modified\n");
	return 0;
}
