/*
 * arm64_siginfo.c: gdb's $_siginfo for an arm64 program is the kernel's
 * own 64-bit siginfo layout: no conversion (no 32-bit personality).
 */
#include <string.h>

#include "arm64.h"

void arch_siginfo_out(const struct arch_desc *d, const void *native, uint8_t out[ARCH_SIGINFO_SIZE])
{
	(void)d;
	memcpy(out, native, ARCH_SIGINFO_SIZE);
}

void arch_siginfo_in(const struct arch_desc *d, const uint8_t in[ARCH_SIGINFO_SIZE], void *native)
{
	(void)d;
	memcpy(native, in, ARCH_SIGINFO_SIZE);
}
