/* vectors: loads known values into ymm0 (or only xmm0 without AVX),
 * calls vector_stop() from the same asm block, then reads the register
 * back and prints what it sees, so a debugger stopped in vector_stop can
 * check the values and write new ones that the program then prints.
 *
 * Loaded, as 32-bit words (v8_int32 / v4_int32), lowest first:
 *   0x11111111 0x22222222 ... 0x88888888
 * Output: "avx=1" (or 0), then "seen: " and 8 (or 4) words in %08x. */
#include <stdint.h>
#include <stdio.h>

static const uint32_t loaded[8] = {
	0x11111111, 0x22222222, 0x33333333, 0x44444444,
	0x55555555, 0x66666666, 0x77777777, 0x88888888,
};
uint32_t seen[8];
int have_avx;

/* Where the debugger stops.  Compiled -O0, it touches no vector register. */
void vector_stop(void)
{
	__asm__ volatile("" ::: "memory"); /* LINE:stop */
}

/* The call in the middle clobbers what the ABI lets a callee clobber.
 * On x86-64 it first steps over the red zone below the stack pointer. */
#ifdef __x86_64__
#define CALL_STOP "sub $128, %%rsp\n\tcall vector_stop\n\tadd $128, %%rsp\n\t"
#define CALL_CLOBBERS "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11"
#else
#define CALL_STOP "call vector_stop\n\t"
#define CALL_CLOBBERS "eax", "ecx", "edx"
#endif

/* -m32 builds default to no SSE, and then xmm0 cannot be named a clobber. */
__attribute__((target("sse2"))) static void round_trip(void)
{
	if (have_avx)
		__asm__ volatile("vmovdqu %[in], %%ymm0\n\t" CALL_STOP "vmovdqu %%ymm0, %[out]\n\t"
				 : [out] "=m"(seen)
				 : [in] "m"(loaded)
				 : "xmm0", "memory", "cc", CALL_CLOBBERS);
	else
		__asm__ volatile("movdqu %[in], %%xmm0\n\t" CALL_STOP "movdqu %%xmm0, %[out]\n\t"
				 : [out] "=m"(*(uint32_t(*)[4])seen)
				 : [in] "m"(*(const uint32_t(*)[4])loaded)
				 : "xmm0", "memory", "cc", CALL_CLOBBERS);
}

int main(void)
{
	int i, words;

	__builtin_cpu_init();
	have_avx = __builtin_cpu_supports("avx") != 0;
	words = have_avx ? 8 : 4;
	printf("avx=%d\n", have_avx);
	round_trip();
	printf("seen:");
	for (i = 0; i < words; i++)
		printf(" %08x", seen[i]);
	printf("\n");
	return 0;
}
