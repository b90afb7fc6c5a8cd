/*
 * x86_xol_forms.h: the instruction forms of x86_xol_test.c. The 64-bit
 * forms and the i386 ones (forms32x, in a 32-bit child) are executed for
 * real, in place and out of line; forms32 are checked by bytes. The
 * bytes were assembled by GNU as from the text in the name (AT&T syntax,
 * ".+N" is relative to the instruction's own address).
 *
 * Layout the 64-bit forms rely on (set up by the test): A = CODE + 0x400,
 * 0x1000(%rip) lands in DATA (DATA + 0x400 + length), %rbx points at a
 * qword naming a trap in DATA, %rdx and %r9 are trap addresses, every
 * stack qword is a trap address, and everything in the code page but the
 * instruction is int3. %rcx is 3 and eflags 0x246 (ZF) unless said.
 */
#ifndef X86_XOL_FORMS_H
#define X86_XOL_FORMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/user.h>

#define CODE 0x20000000ull
#define A    (CODE + 0x400)
#define DATA (CODE + 0x1000)

#define B(s)   (const uint8_t *)(s), sizeof(s) - 1
#define REG(r) (offsetof(struct user_regs_struct, r) / 8 + 1) /* 0: none */

struct form {
	const char *name;
	const uint8_t *bytes;
	size_t len;
	const char *inplace; /* NULL: must run out of line; else the reason expected */
	struct {
		size_t reg; /* REG(x) */
		uint64_t val;
	} set;
	uint64_t flags; /* eflags to start with; 0: 0x246 */
	struct {
		uint16_t off; /* in DATA */
		uint64_t val;
	} poke;
	bool partial; /* rep string: a single-step may stop halfway, at A */
};

static const struct form forms64[] = {
	{.name = "nop", B("\x90")},
	{.name = "mov %rbx, %rax", B("\x48\x89\xd8")},
	{.name = "add $0x7f, %rax", B("\x48\x83\xc0\x7f")},
	{.name = "sub %rdi, %rax", B("\x48\x29\xf8")},
	{.name = "xor %eax, %eax", B("\x31\xc0")},
	{.name = "imul %rdi, %rax", B("\x48\x0f\xaf\xc7")},
	{.name = "shl $3, %rax", B("\x48\xc1\xe0\x03")},
	{.name = "bswap %r11", B("\x49\x0f\xcb")},
	{.name = "mov (%rbx), %rax", B("\x48\x8b\x03")},
	{.name = "mov 0x1000(%rip), %rax", B("\x48\x8b\x05\x00\x10\x00\x00")},
	{.name = "mov %rdi, 0x1000(%rip)", B("\x48\x89\x3d\x00\x10\x00\x00")},
	{.name = "movl $0x12345678, 0x1000(%rip)", B("\xc7\x05\x00\x10\x00\x00\x78\x56\x34\x12")},
	{.name = "cmpl $5, 0x1000(%rip)", B("\x83\x3d\x00\x10\x00\x00\x05")},
	{.name = "addq $0x11223344, 0x1000(%rip)",
	 B("\x48\x81\x05\x00\x10\x00\x00\x44\x33\x22\x11")},
	{.name = "lea 0x1000(%rip), %rsi", B("\x48\x8d\x35\x00\x10\x00\x00")},
	{.name = "lea -0x200(%rip), %r9", B("\x4c\x8d\x0d\x00\xfe\xff\xff")},
	{.name = "movzbl 0x1000(%rip), %r10d", B("\x44\x0f\xb6\x15\x00\x10\x00\x00")},
	{.name = "incl 0x1000(%rip)", B("\xff\x05\x00\x10\x00\x00")},
	{.name = "testb $0x80, 0x1000(%rip)", B("\xf6\x05\x00\x10\x00\x00\x80")},
	{.name = "mov 0x1000(%rip), %r12", B("\x4c\x8b\x25\x00\x10\x00\x00")},
	{.name = "cmovz 0x1000(%rip), %r13", B("\x4c\x0f\x44\x2d\x00\x10\x00\x00")},
	{.name = "setne 0x1000(%rip)", B("\x0f\x95\x05\x00\x10\x00\x00")},
	{.name = "lock xaddl %eax, 0x1000(%rip)", B("\xf0\x0f\xc1\x05\x00\x10\x00\x00")},
	{.name = "cmpxchg %rdi, 0x1000(%rip)", B("\x48\x0f\xb1\x3d\x00\x10\x00\x00")},
	{.name = "btl $3, 0x1000(%rip)", B("\x0f\xba\x25\x00\x10\x00\x00\x03")},
	{.name = "pushq 0x1000(%rip)", B("\xff\x35\x00\x10\x00\x00")},
	{.name = "popq 0x1000(%rip)", B("\x8f\x05\x00\x10\x00\x00")},
	{.name = "movups 0x1000(%rip), %xmm0", B("\x0f\x10\x05\x00\x10\x00\x00")},
	{.name = "movdqu %xmm1, 0x1000(%rip)", B("\xf3\x0f\x7f\x0d\x00\x10\x00\x00")},
	{.name = "addps 0x1000(%rip), %xmm2", B("\x0f\x58\x15\x00\x10\x00\x00")},
	{.name = "pxor 0x1000(%rip), %xmm3", B("\x66\x0f\xef\x1d\x00\x10\x00\x00")},
	{.name = "pshufd $0x1b, 0x1000(%rip), %xmm4", B("\x66\x0f\x70\x25\x00\x10\x00\x00\x1b")},
	{.name = "cvtsi2sdl 0x1000(%rip), %xmm14", B("\xf2\x44\x0f\x2a\x35\x00\x10\x00\x00")},
	{.name = "movq %xmm15, 0x1000(%rip)", B("\x66\x44\x0f\xd6\x3d\x00\x10\x00\x00")},
	{.name = "vmovdqu 0x1000(%rip), %ymm5", B("\xc5\xfe\x6f\x2d\x00\x10\x00\x00")},
	{.name = "vmovdqu %ymm6, 0x1000(%rip)", B("\xc5\xfe\x7f\x35\x00\x10\x00\x00")},
	{.name = "vpaddd 0x1000(%rip), %ymm7, %ymm8", B("\xc5\x45\xfe\x05\x00\x10\x00\x00")},
	{.name = "vpermq $0x1b, 0x1000(%rip), %ymm9",
	 B("\xc4\x63\xfd\x00\x0d\x00\x10\x00\x00\x1b")},
	{.name = "vbroadcastss 0x1000(%rip), %ymm13", B("\xc4\x62\x7d\x18\x2d\x00\x10\x00\x00")},
	{.name = "{evex} vpaddq 0x1000(%rip), %xmm1, %xmm2",
	 B("\x62\xf1\xf5\x08\xd4\x15\x00\x10\x00\x00")},
	{.name = "vmovdqu32 0x1000(%rip), %ymm10", B("\x62\x71\x7e\x28\x6f\x15\x00\x10\x00\x00")},
	{.name = "fldl 0x1000(%rip)", B("\xdd\x05\x00\x10\x00\x00")},
	{.name = "mov %ax, 0x1000(%rip)", B("\x66\x89\x05\x00\x10\x00\x00")},
	{.name = "addw $0x1234, %bx", B("\x66\x81\xc3\x34\x12")},
	{.name = "movw $0x4242, 0x1000(%rip)", B("\x66\xc7\x05\x00\x10\x00\x00\x42\x42")},
	{.name = "mov 0x1000(%eip), %eax", B("\x67\x8b\x05\x00\x10\x00\x00")},
	{.name = "mov %fs:0x28, %rax", B("\x64\x48\x8b\x04\x25\x28\x00\x00\x00")},
	{.name = "nopw 0x0(%rax,%rax,1)", B("\x66\x0f\x1f\x04\x00")},
	{.name = "push %rbx", B("\x53")},
	{.name = "pop %rcx", B("\x59")},
	{.name = "push $0x12345678", B("\x68\x78\x56\x34\x12")},
	{.name = "pushq $-1", B("\x6a\xff")},
	{.name = "pop %r15", B("\x41\x5f")},
	{.name = "pushfq", B("\x9c")},
	{.name = "popfq", B("\x9d")},
	{.name = "leave", B("\xc9")},
	{.name = "xchg %rax, (%rsp)", B("\x48\x87\x04\x24")},
	{.name = "rep stosb", B("\xf3\xaa"), .set = {REG(rdi), DATA + 0x300}, .partial = true},
	{.name = "movsq", B("\x48\xa5"), .set = {REG(rdi), DATA + 0x300}},
	{.name = "endbr64", B("\xf3\x0f\x1e\xfa")},
	{.name = "mov (%rdi), %rax", B("\x48\x8b\x07")},
	{.name = "div %rcx", B("\x48\xf7\xf1"), .set = {REG(rcx), 0}},
	{.name = "jmp .+0x22", B("\xeb\x20")},
	{.name = "jmp .-0x1e", B("\xeb\xe0")},
	{.name = "{disp32} jmp .+0x105", B("\xe9\x00\x01\x00\x00")},
	{.name = "je .+0x12", B("\x74\x10")},
	{.name = "je .+0x12", B("\x74\x10"), .flags = 0x202},
	{.name = "{disp32} jne .+0x106", B("\x0f\x85\x00\x01\x00\x00"), .flags = 0x202},
	{.name = "{disp32} jne .+0x106", B("\x0f\x85\x00\x01\x00\x00")},
	{.name = "jl .+0x12", B("\x7c\x10"), .flags = 0x282},
	{.name = "{disp32} jg .+0x106", B("\x0f\x8f\x00\x01\x00\x00")},
	{.name = "jb .+0x12", B("\x72\x10"), .flags = 0x203},
	{.name = "je rel8 with a ds (taken hint) prefix", B("\x3e\x74\x11")},
	{.name = "bnd jmp .+0x106", B("\xf2\xe9\x00\x01\x00\x00")},
	{.name = "call .+0x105", B("\xe8\x00\x01\x00\x00")},
	{.name = "call .-0x1fb", B("\xe8\x00\xfe\xff\xff")},
	{.name = "call *%rdx", B("\xff\xd2")},
	{.name = "call *%r9", B("\x41\xff\xd1")},
	{.name = "call *(%rbx)", B("\xff\x13")},
	{.name = "call *0x1000(%rip)",
	 B("\xff\x15\x00\x10\x00\x00"),
	 .poke = {0x406, CODE + 0x8c0}},
	{.name = "call *8(%rsp)", B("\xff\x54\x24\x08")},
	{.name = "call *0x100(%rsp)", B("\xff\x94\x24\x00\x01\x00\x00")},
	{.name = "notrack call *%rdx", B("\x3e\xff\xd2")},
	{.name = "ret", B("\xc3")},
	{.name = "ret $0x10", B("\xc2\x10\x00")},
	{.name = "jmp *%rdx", B("\xff\xe2")},
	{.name = "jmp *0x1000(%rip)", B("\xff\x25\x00\x10\x00\x00"), .poke = {0x406, CODE + 0x8c0}},
	{.name = "jmp *(%rbx)", B("\xff\x23")},
	{.name = "loop .+0x12", B("\xe2\x10")},
	{.name = "loop .+0x12", B("\xe2\x10"), .set = {REG(rcx), 1}},
	{.name = "loope .+0x12", B("\xe1\x10")},
	{.name = "loopne .+0x12", B("\xe0\x10")},
	{.name = "jrcxz .+0x12", B("\xe3\x10"), .set = {REG(rcx), 0}},
	{.name = "jrcxz .+0x12", B("\xe3\x10")},
	{.name = "jecxz .+0x13", B("\x67\xe3\x10"), .set = {REG(rcx), 0x100000000}},
	{.name = "addr32 loop .+0x13", B("\x67\xe2\x10"), .set = {REG(rcx), 0x100000001}},
	{.name = "call *0x78(%rsp)", B("\xff\x54\x24\x78"), "call via the stack pointer"},
	{.name = "call *(%rsp)", B("\xff\x14\x24"), "call via the stack pointer"},
	{.name = "call *%rsp", B("\xff\xd4"), "call via the stack pointer"},
	{.name = "call *-8(%rsp)", B("\xff\x54\x24\xf8"), "call via the stack pointer"},
	{.name = "syscall", B("\x0f\x05"), "syscall"},
	{.name = "sysenter", B("\x0f\x34"), "syscall"},
	{.name = "int $0x80", B("\xcd\x80"), "syscall"},
	{.name = "int3", B("\xcc"), "trap"},
	{.name = "int1", B("\xf1"), "trap"},
	{.name = "ud2", B("\x0f\x0b"), "ud"},
	{.name = "ud0 (%rax), %eax", B("\x0f\xff\x00"), "ud"},
	{.name = "66-prefixed jmp rel", B("\x66\xe9\x10\x00\x00\x00\x00"), "16-bit branch"},
	{.name = "66-prefixed jmp rel8", B("\x66\xeb\x10"), "16-bit branch"},
	{.name = "66-prefixed call rel", B("\x66\xe8\x10\x00\x00\x00\x00"), "16-bit branch"},
	{.name = "66-prefixed ret", B("\x66\xc3"), "16-bit branch"},
	{.name = "66-prefixed je rel8", B("\x66\x74\x10"), "16-bit branch"},
	{.name = "xbegin .+0x106", B("\xc7\xf8\x00\x01\x00\x00"), "xbegin"},
	{.name = "ljmp *(%rbx)", B("\xff\x2b"), "far branch"},
	{.name = "lcall *(%rbx)", B("\xff\x1b"), "far branch"},
	{.name = "hlt", B("\xf4"), "privileged"},
	{.name = "iretq (cs from the stack: a fault)", B("\x48\xcf")},
	{.name = "(06: push %es, invalid in 64-bit)", B("\x06"), "undecodable"},
};

/*
 * 32-bit forms executed for real, in place and out of line, in a 32-bit
 * child (x86_xol_child32.S, run where the kernel runs 32-bit programs: the
 * guest of `make check-vm`). The same layout as the 64-bit forms, with
 * absolute addresses where those are rip-relative: 0x20001400 is DATA +
 * 0x400; the stack holds qwords, so a dword popped is a trap address or 0.
 * Assembled by GNU as --32.
 */
static const struct form forms32x[] = {
	{.name = "nop", B("\x90")},
	{.name = "mov %ebx, %eax", B("\x89\xd8")},
	{.name = "add $0x7f, %eax", B("\x83\xc0\x7f")},
	{.name = "sub %edi, %eax", B("\x29\xf8")},
	{.name = "xor %eax, %eax", B("\x31\xc0")},
	{.name = "imul %edi, %eax", B("\x0f\xaf\xc7")},
	{.name = "shl $3, %eax", B("\xc1\xe0\x03")},
	{.name = "bswap %esi", B("\x0f\xce")},
	{.name = "mov (%ebx), %eax", B("\x8b\x03")},
	{.name = "mov 0x20001400, %eax", B("\xa1\x00\x14\x00\x20")},
	{.name = "mov 0x20001400, %ecx", B("\x8b\x0d\x00\x14\x00\x20")},
	{.name = "mov %edi, 0x20001400", B("\x89\x3d\x00\x14\x00\x20")},
	{.name = "movl $0x12345678, 0x20001400", B("\xc7\x05\x00\x14\x00\x20\x78\x56\x34\x12")},
	{.name = "cmpl $5, 0x20001400", B("\x83\x3d\x00\x14\x00\x20\x05")},
	{.name = "addl $0x11223344, 0x20001400", B("\x81\x05\x00\x14\x00\x20\x44\x33\x22\x11")},
	{.name = "lea 0x20001400, %esi", B("\x8d\x35\x00\x14\x00\x20")},
	{.name = "lea 0x10(%esp), %ebp", B("\x8d\x6c\x24\x10")},
	{.name = "movzbl 0x20001400, %edx", B("\x0f\xb6\x15\x00\x14\x00\x20")},
	{.name = "incl 0x20001400", B("\xff\x05\x00\x14\x00\x20")},
	{.name = "testb $0x80, 0x20001400", B("\xf6\x05\x00\x14\x00\x20\x80")},
	{.name = "cmovz 0x20001400, %esi", B("\x0f\x44\x35\x00\x14\x00\x20")},
	{.name = "setne 0x20001400", B("\x0f\x95\x05\x00\x14\x00\x20")},
	{.name = "lock xaddl %eax, 0x20001400", B("\xf0\x0f\xc1\x05\x00\x14\x00\x20")},
	{.name = "cmpxchg %edi, 0x20001400", B("\x0f\xb1\x3d\x00\x14\x00\x20")},
	{.name = "btl $3, 0x20001400", B("\x0f\xba\x25\x00\x14\x00\x20\x03")},
	{.name = "pushl 0x20001400", B("\xff\x35\x00\x14\x00\x20")},
	{.name = "popl 0x20001400", B("\x8f\x05\x00\x14\x00\x20")},
	{.name = "movups 0x20001400, %xmm0", B("\x0f\x10\x05\x00\x14\x00\x20")},
	{.name = "movdqu %xmm1, 0x20001400", B("\xf3\x0f\x7f\x0d\x00\x14\x00\x20")},
	{.name = "addps 0x20001400, %xmm2", B("\x0f\x58\x15\x00\x14\x00\x20")},
	{.name = "pxor 0x20001400, %xmm3", B("\x66\x0f\xef\x1d\x00\x14\x00\x20")},
	{.name = "pshufd $0x1b, 0x20001400, %xmm4", B("\x66\x0f\x70\x25\x00\x14\x00\x20\x1b")},
	{.name = "cvtsi2sdl 0x20001400, %xmm6", B("\xf2\x0f\x2a\x35\x00\x14\x00\x20")},
	{.name = "vmovdqu 0x20001400, %ymm5", B("\xc5\xfe\x6f\x2d\x00\x14\x00\x20")},
	{.name = "vmovdqu %ymm6, 0x20001400", B("\xc5\xfe\x7f\x35\x00\x14\x00\x20")},
	{.name = "vpaddd 0x20001400, %ymm7, %ymm1", B("\xc5\xc5\xfe\x0d\x00\x14\x00\x20")},
	{.name = "vbroadcastss 0x20001400, %ymm2", B("\xc4\xe2\x7d\x18\x15\x00\x14\x00\x20")},
	{.name = "fldl 0x20001400", B("\xdd\x05\x00\x14\x00\x20")},
	{.name = "mov %ax, 0x20001400", B("\x66\xa3\x00\x14\x00\x20")},
	{.name = "addw $0x1234, %bx", B("\x66\x81\xc3\x34\x12")},
	{.name = "movw $0x4242, 0x20001400", B("\x66\xc7\x05\x00\x14\x00\x20\x42\x42")},
	{.name = "nopw 0x0(%eax,%eax,1)", B("\x66\x0f\x1f\x04\x00")},
	{.name = "push %ebx", B("\x53")},
	{.name = "pop %ecx", B("\x59")},
	{.name = "push $0x12345678", B("\x68\x78\x56\x34\x12")},
	{.name = "push $-1", B("\x6a\xff")},
	{.name = "pushfl", B("\x9c")},
	{.name = "popfl", B("\x9d")},
	{.name = "leave", B("\xc9")},
	{.name = "xchg %eax, (%esp)", B("\x87\x04\x24")},
	{.name = "pusha", B("\x60")},
	{.name = "popa", B("\x61")},
	{.name = "push %es", B("\x06")},
	{.name = "pop %es", B("\x07")},
	{.name = "push %cs", B("\x0e")},
	{.name = "daa", B("\x27")},
	{.name = "das", B("\x2f")},
	{.name = "aaa", B("\x37")},
	{.name = "aam $10", B("\xd4\x0a")},
	{.name = "bound %eax, (%ebx)", B("\x62\x03"), "trap"},
	{.name = "mov %gs:0, %eax", B("\x65\xa1\x00\x00\x00\x00")},
	{.name = "rep stosb", B("\xf3\xaa"), .set = {REG(rdi), DATA + 0x300}, .partial = true},
	{.name = "movsl", B("\xa5"), .set = {REG(rdi), DATA + 0x300}},
	{.name = "endbr32", B("\xf3\x0f\x1e\xfb")},
	{.name = "mov (%edi), %eax", B("\x8b\x07")},
	{.name = "div %ecx", B("\xf7\xf1"), .set = {REG(rcx), 0}},
	{.name = "jmp .+0x22", B("\xeb\x20")},
	{.name = "jmp .-0x1e", B("\xeb\xe0")},
	{.name = "{disp32} jmp .+0x105", B("\xe9\x00\x01\x00\x00")},
	{.name = "je .+0x12", B("\x74\x10")},
	{.name = "je .+0x12", B("\x74\x10"), .flags = 0x202},
	{.name = "{disp32} jne .+0x106", B("\x0f\x85\x00\x01\x00\x00"), .flags = 0x202},
	{.name = "{disp32} jne .+0x106", B("\x0f\x85\x00\x01\x00\x00")},
	{.name = "jl .+0x12", B("\x7c\x10"), .flags = 0x282},
	{.name = "{disp32} jg .+0x106", B("\x0f\x8f\x00\x01\x00\x00")},
	{.name = "jb .+0x12", B("\x72\x10"), .flags = 0x203},
	{.name = "ds je .+0x13", B("\x3e\x74\x10")},
	{.name = "call .+0x105", B("\xe8\x00\x01\x00\x00")},
	{.name = "call .-0x1fb", B("\xe8\x00\xfe\xff\xff")},
	{.name = "call *%edx", B("\xff\xd2")},
	{.name = "call *(%ebx)", B("\xff\x13")},
	{.name = "call *0x20001400", B("\xff\x15\x00\x14\x00\x20"), .poke = {0x400, CODE + 0x8c0}},
	{.name = "call *8(%esp)", B("\xff\x54\x24\x08")},
	{.name = "call *0x100(%esp)", B("\xff\x94\x24\x00\x01\x00\x00")},
	{.name = "call *0x78(%esp)", B("\xff\x54\x24\x78")},
	{.name = "ret", B("\xc3")},
	{.name = "ret $0x10", B("\xc2\x10\x00")},
	{.name = "jmp *%edx", B("\xff\xe2")},
	{.name = "jmp *(%ebx)", B("\xff\x23")},
	{.name = "jmp *0x20001400", B("\xff\x25\x00\x14\x00\x20"), .poke = {0x400, CODE + 0x8c0}},
	{.name = "loop .+0x12", B("\xe2\x10")},
	{.name = "loop .+0x12", B("\xe2\x10"), .set = {REG(rcx), 1}},
	{.name = "loope .+0x12", B("\xe1\x10")},
	{.name = "loopne .+0x12", B("\xe0\x10")},
	{.name = "jecxz .+0x12", B("\xe3\x10"), .set = {REG(rcx), 0}},
	{.name = "jecxz .+0x12", B("\xe3\x10")},
	{.name = "jcxz .+0x13 (67: cx)", B("\x67\xe3\x10"), .set = {REG(rcx), 0x10000}},
	{.name = "addr16 loop .+0x13", B("\x67\xe2\x10"), .set = {REG(rcx), 0x10001}},
	{.name = "iret", B("\xcf")},
	{.name = "call *0x7c(%esp)", B("\xff\x54\x24\x7c"), "call via the stack pointer"},
	{.name = "call *(%esp)", B("\xff\x14\x24"), "call via the stack pointer"},
	{.name = "call *%esp", B("\xff\xd4"), "call via the stack pointer"},
	{.name = "call *-4(%esp)", B("\xff\x54\x24\xfc"), "call via the stack pointer"},
	{.name = "int $0x80", B("\xcd\x80"), "syscall"},
	{.name = "sysenter", B("\x0f\x34"), "syscall"},
	{.name = "int3", B("\xcc"), "trap"},
	{.name = "int1", B("\xf1"), "trap"},
	{.name = "into", B("\xce"), "trap"},
	{.name = "ud2", B("\x0f\x0b"), "ud"},
	{.name = "data16 jmp .+0x14 (jmpw rel16)", B("\x66\xe9\x10\x00"), "16-bit branch"},
	{.name = "data16 call .+0x14 (callw rel16)", B("\x66\xe8\x10\x00"), "16-bit branch"},
	{.name = "retw", B("\x66\xc3"), "16-bit branch"},
	{.name = "data16 je .+0x13", B("\x66\x74\x10"), "16-bit branch"},
	{.name = "xbegin .+0x106", B("\xc7\xf8\x00\x01\x00\x00"), "xbegin"},
	{.name = "ljmp $0x23, $0x1234", B("\xea\x34\x12\x00\x00\x23\x00"), "far branch"},
	{.name = "lcall *(%ebx)", B("\xff\x1b"), "far branch"},
	{.name = "hlt", B("\xf4"), "privileged"},

};

/*
 * 32-bit forms, relocated and checked by bytes only: where the copy's
 * branches leave the slot to (exits, in order) and what it pushes.
 */
#define A32 0x08049400ull

struct form32 {
	const char *name;
	const uint8_t *bytes;
	size_t len;
	const char *inplace;
	struct {
		const uint8_t *b;
		size_t n;
	} starts;	   /* what the slot must start with (n 0: anything) */
	uint64_t exits[3]; /* 0-terminated */
	uint64_t push;	   /* the push imm32 of a call, 0 if none */
};

static const struct form32 forms32[] = {
	{.name = "nop", B("\x90"), .starts = {B("\x90")}, .exits = {A32 + 1}},
	{.name = "mov 0x804c000, %eax",
	 B("\xa1\x00\xc0\x04\x08"),
	 .starts = {B("\xa1\x00\xc0\x04\x08")},
	 .exits = {A32 + 5}},
	{.name = "movl $5, 0x10(%ebx)",
	 B("\xc7\x43\x10\x05\x00\x00\x00"),
	 .starts = {B("\xc7\x43\x10\x05\x00\x00\x00")},
	 .exits = {A32 + 7}},
	{.name = "movups 0x804c000, %xmm0",
	 B("\x0f\x10\x05\x00\xc0\x04\x08"),
	 .starts = {B("\x0f\x10\x05\x00\xc0\x04\x08")},
	 .exits = {A32 + 7}},
	{.name = "push %ebx", B("\x53"), .starts = {B("\x53")}, .exits = {A32 + 1}},
	{.name = "endbr32",
	 B("\xf3\x0f\x1e\xfb"),
	 .starts = {B("\xf3\x0f\x1e\xfb")},
	 .exits = {A32 + 4}},
	{.name = "jmp .+0x22", B("\xeb\x20"), .exits = {A32 + 0x22}},
	{.name = "jmp .+0x105", B("\xe9\x00\x01\x00\x00"), .exits = {A32 + 0x105}},
	{.name = "jmp .-0x300", B("\xe9\xfb\xfc\xff\xff"), .exits = {A32 - 0x300}},
	{.name = "je .+0x12",
	 B("\x74\x10"),
	 .starts = {B("\x0f\x84")},
	 .exits = {A32 + 0x12, A32 + 2}},
	{.name = "jne .+0x106",
	 B("\x0f\x85\x00\x01\x00\x00"),
	 .starts = {B("\x0f\x85")},
	 .exits = {A32 + 0x106, A32 + 6}},
	{.name = "call .+0x105",
	 B("\xe8\x00\x01\x00\x00"),
	 .starts = {B("\x68\x05\x94\x04\x08")},
	 .exits = {A32 + 0x105},
	 .push = A32 + 5},
	{.name = "call *%edx",
	 B("\xff\xd2"),
	 .starts = {B("\x68\x02\x94\x04\x08\xff\xe2")},
	 .push = A32 + 2},
	{.name = "call *(%ebx)",
	 B("\xff\x13"),
	 .starts = {B("\x68\x02\x94\x04\x08\xff\x23")},
	 .push = A32 + 2},
	{.name = "call *8(%esp)",
	 B("\xff\x54\x24\x08"),
	 .starts = {B("\x68\x04\x94\x04\x08\xff\x64\x24\x0c")},
	 .push = A32 + 4},
	{.name = "call *(%esp)", B("\xff\x14\x24"), "call via the stack pointer"},
	{.name = "ret", B("\xc3"), .starts = {B("\xc3")}},
	{.name = "ret $8", B("\xc2\x08\x00"), .starts = {B("\xc2\x08\x00")}},
	{.name = "loop .+0x12",
	 B("\xe2\x10"),
	 .starts = {B("\xe2\x05")},
	 .exits = {A32 + 2, A32 + 0x12}},
	{.name = "jecxz .+0x12",
	 B("\xe3\x10"),
	 .starts = {B("\xe3\x05")},
	 .exits = {A32 + 2, A32 + 0x12}},
	{.name = "jcxz .+0x13 (67: cx)",
	 B("\x67\xe3\x10"),
	 .starts = {B("\x67\xe3\x05")},
	 .exits = {A32 + 3, A32 + 0x13}},
	{.name = "int $0x80", B("\xcd\x80"), "syscall"},
	{.name = "sysenter", B("\x0f\x34"), "syscall"},
	{.name = "into", B("\xce"), "trap"},
	{.name = "ljmp $0x23, $0x1234", B("\xea\x34\x12\x00\x00\x23\x00"), "far branch"},
	{.name = "lcall *(%ebx)", B("\xff\x1b"), "far branch"},
	{.name = "jmpw .+0x14 (66 e9 rel16)", B("\x66\xe9\x10\x00"), "16-bit branch"},
	{.name = "callw .+0x14 (66 e8 rel16)", B("\x66\xe8\x10\x00"), "16-bit branch"},
};

#endif
