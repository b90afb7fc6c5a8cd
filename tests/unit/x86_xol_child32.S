/*
 * x86_xol_child32.S: the 32-bit child of x86_xol_test.c, where the i386
 * forms of x86_xol_forms.h run for real. No libc (no multilib needed to
 * build it): it maps the test's pages from the memfd it inherits as fd 3
 * at the addresses the test uses (CODE: 4 pages at offset 0; SLOTPG: the
 * fifth page), then stops on an int3; the test does the rest by ptrace.
 * The addresses are x86_xol_forms.h's CODE and x86_child.h's SLOTPG.
 */
	.text
	.globl _start
_start:
	movl	$192, %eax		/* mmap2 */
	movl	$0x20000000, %ebx	/* CODE */
	movl	$0x4000, %ecx
	movl	$7, %edx		/* PROT_READ | PROT_WRITE | PROT_EXEC */
	movl	$0x11, %esi		/* MAP_SHARED | MAP_FIXED */
	movl	$3, %edi
	xorl	%ebp, %ebp
	int	$0x80
	cmpl	$0x20000000, %eax
	jne	1f
	movl	$192, %eax
	movl	$0x60000000, %ebx	/* SLOTPG */
	movl	$0x1000, %ecx
	movl	$7, %edx
	movl	$0x11, %esi
	movl	$3, %edi
	movl	$4, %ebp		/* offset, in pages */
	int	$0x80
	cmpl	$0x60000000, %eax
	jne	1f
	int3				/* ready: the test takes over */
1:	movl	$1, %eax		/* exit(1) */
	movl	$1, %ebx
	int	$0x80

	.section .note.GNU-stack, "", @progbits
