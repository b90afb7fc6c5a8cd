/*
 * fuzz_check.h: the property check of the harnesses. A property that does
 * not hold aborts, so that libFuzzer (and the replay) count it as a crash.
 */
#ifndef UTRACED_FUZZ_CHECK_H
#define UTRACED_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s: %s failed (line %d)\n", __FILE__, #cond, __LINE__);   \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

#endif
