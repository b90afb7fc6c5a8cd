/* text_ok.h: for the test programs that check, at their end, that a
 * debugger left their code as the file has it (no int3, no jmp of a
 * patched breakpoint): the first 32 bytes of fn in memory against the
 * executable file at the same offset from the start of its text. */
#ifndef TEXT_OK_H
#define TEXT_OK_H

#include <stdio.h>
#include <string.h>

extern const char __executable_start[];

static int text_ok(const void *fn)
{
	size_t off = (size_t)((const char *)fn - __executable_start);
	unsigned char file[32];
	FILE *f = fopen("/proc/self/exe", "rb");
	int ok;

	if (!f)
		return 0;
	ok = fseek(f, (long)off, SEEK_SET) == 0 && fread(file, 1, sizeof(file), f) == sizeof(file) &&
	     memcmp(file, fn, sizeof(file)) == 0;
	fclose(f);
	return ok;
}

#endif
