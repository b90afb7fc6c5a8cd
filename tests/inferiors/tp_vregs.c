/* tp_vregs [NTHREADS [ITERS]]: NTHREADS threads (default 8) each call
 * hit(i) ITERS times (default 200) with i = id * 100000 + the call's
 * number, and with the x87 and vector registers set just before each
 * call: ymm0 (all 32 bytes) byte k = (i * 7 + k) & 0xff, xmm1 = ymm0's
 * low half, st0 = i + 0.25 (pushed before the call, popped after; hit()
 * touches none of them). A tracepoint at hit's first instruction that
 * collects $regs sees them all, known from rdi (i). Then done(), and
 * "calls N". */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXTHREADS 64

static long iters = 200;
static long calls;

/* noinline: the call is what the tracepoint sits on */
__attribute__((noinline)) void hit(long i)
{
	__atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
	__asm__ volatile("" ::"r"(i) : "memory");
}

__attribute__((noinline)) void done(void)
{
	__asm__ volatile("");
}

/* (target avx: the -m32 build, made without SSE, may name the registers too) */
__attribute__((target("avx"))) static void *run(void *arg)
{
	long id = (long)arg;

	for (long n = 0; n < iters; n++) {
		long i = id * 100000 + n;
		unsigned char y[32];
		double d = (double)i + 0.25;

		for (int k = 0; k < 32; k++)
			y[k] = (unsigned char)(i * 7 + k);
		__asm__ volatile("vmovdqu %0, %%ymm0\n\t"
				 "vmovdqu %0, %%xmm1\n\t"
				 "fldl %1"
				 :
				 : "m"(y), "m"(d)
				 : "xmm0", "xmm1");
		hit(i);
		__asm__ volatile("fstp %%st(0)" ::: "st");
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int nt = argc > 1 ? atoi(argv[1]) : 8;
	pthread_t t[MAXTHREADS];

	if (argc > 2)
		iters = atol(argv[2]);
	if (nt < 1 || nt > MAXTHREADS)
		return 2;
	for (long i = 0; i < nt; i++)
		pthread_create(&t[i], NULL, run, (void *)i);
	for (int i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	done();
	printf("calls %ld\n", calls);
	return 0;
}
