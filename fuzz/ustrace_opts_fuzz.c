/*
 * ustrace_opts_fuzz.c: libFuzzer harness for ustrace's command line
 * (src/ustrace/ustrace_opts.c). ust_parse() never exits (the unit test
 * tests/unit/ustrace_opts_test.c runs it many times in one process), so
 * it is driven here the same way: the input, split at its NUL bytes, is
 * the argument list after "ustrace".
 *
 * What a parse accepts must also travel to a daemon: the options are
 * encoded as Qutraced.trace sends them (trc_wire.c) and must decode to
 * the same. Any mismatch aborts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strace/trc_wire.h"
#include "ustrace/ustrace.h"
#include "fuzz_check.h"

#define MAX_WORDS 64

static void check_wire(const struct ust_opts *o)
{
	static struct trc_wire w, back;
	static char text[TRC_WIRE_MAX];
	int n;

	memset(&w, 0, sizeof(w));
	w.o = o->trc;
	w.follow = o->follow;
	n = trc_wire_encode(&w, text, sizeof(text));
	CHECK(n > 0);
	CHECK(trc_wire_decode(&back, text, (size_t)n) == 0);
	CHECK(!memcmp(&w.o, &back.o, sizeof(w.o)) && w.follow == back.follow);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ust_opts o;
	char *argv[MAX_WORDS + 2], err[256];
	char *copy = malloc(size + 1);
	int argc = 1, ret;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	argv[0] = "ustrace";
	for (char *w = copy; w <= copy + size && argc <= MAX_WORDS; w += strlen(w) + 1)
		argv[argc++] = w;
	argv[argc] = NULL;
	err[0] = '\0';
	ret = ust_parse(&o, argc, argv, err, sizeof(err));
	CHECK(ret == 0 || ret == -1);
	CHECK(ret == 0 || (err[0] && memchr(err, '\0', sizeof(err))));
	if (ret == 0 && o.action == UST_RUN) {
		CHECK(o.npids <= UST_MAX_PIDS && (o.argv || o.npids));
		CHECK(!o.argv || (o.argv > argv && o.argv < argv + argc));
		check_wire(&o);
	}
	free(copy);
	return 0;
}
