/*
 * trc_mem.c: decoders of the memory-mapping syscalls.
 *
 * mmap, munmap, mprotect, brk, madvise, mremap. Addresses come back in
 * hex (RV_HEX) as strace prints them; lengths are decimal.
 */
#include <sys/mman.h>

#include "trc_int.h"

static const struct xlat prot_flags[] = {
	XV(PROT_READ),	    XV(PROT_WRITE),   XV(PROT_EXEC), {0x8, "PROT_SEM"},
	XV(PROT_GROWSDOWN), XV(PROT_GROWSUP), XEND,
};

static const struct xlat map_types[] = {
	XV(MAP_SHARED),
	XV(MAP_PRIVATE),
	XV(MAP_SHARED_VALIDATE),
	XEND,
};

static const struct xlat map_flags[] = {
	XV(MAP_FIXED),
	XV(MAP_ANONYMOUS),
#ifdef MAP_32BIT /* x86 only */
	XV(MAP_32BIT),
#endif
	XV(MAP_GROWSDOWN),
	XV(MAP_DENYWRITE),
	XV(MAP_EXECUTABLE),
	XV(MAP_LOCKED),
	XV(MAP_NORESERVE),
	XV(MAP_POPULATE),
	XV(MAP_NONBLOCK),
	XV(MAP_STACK),
	XV(MAP_HUGETLB),
	XV(MAP_SYNC),
	XV(MAP_FIXED_NOREPLACE),
	{0x4000000, "MAP_UNINITIALIZED"},
	XEND,
};

static const struct xlat madvise_advice[] = {
	XV(MADV_NORMAL),
	XV(MADV_RANDOM),
	XV(MADV_SEQUENTIAL),
	XV(MADV_WILLNEED),
	XV(MADV_DONTNEED),
	XV(MADV_FREE),
	XV(MADV_REMOVE),
	XV(MADV_DONTFORK),
	XV(MADV_DOFORK),
	XV(MADV_HWPOISON),
	{101, "MADV_SOFT_OFFLINE"},
	XV(MADV_MERGEABLE),
	XV(MADV_UNMERGEABLE),
	XV(MADV_HUGEPAGE),
	XV(MADV_NOHUGEPAGE),
	XV(MADV_DONTDUMP),
	XV(MADV_DODUMP),
	XV(MADV_WIPEONFORK),
	XV(MADV_KEEPONFORK),
	XV(MADV_COLD),
	XV(MADV_PAGEOUT),
	{22, "MADV_POPULATE_READ"},
	{23, "MADV_POPULATE_WRITE"},
	{24, "MADV_DONTNEED_LOCKED"},
	XEND,
};

static const struct xlat mremap_flags[] = {
	XV(MREMAP_MAYMOVE),
	XV(MREMAP_FIXED),
	XV(MREMAP_DONTUNMAP),
	XEND,
};

static void print_prot(struct trc_call *c, uint64_t prot)
{
	if (!prot)
		tp_str(c, "PROT_NONE");
	else
		tp_flags(c, prot_flags, prot, "PROT_???");
}

int trc_dec_mmap(struct trc_call *c)
{
	uint64_t flags = (uint32_t)c->a[3];

	tp_addr(c, c->a[0]);
	tp_sep(c);
	tp_udec(c, c->a[1]);
	tp_sep(c);
	print_prot(c, (uint32_t)c->a[2]);
	tp_sep(c);
	tp_xval(c, map_types, flags & MAP_TYPE, "MAP_???");
	flags &= ~(uint64_t)MAP_TYPE;
	if (flags) {
		buf_putc(c->b, '|');
		tp_flags(c, map_flags, flags, NULL);
	}
	tp_sep(c);
	tp_fd(c, c->a[4]);
	tp_sep(c);
	tp_hex(c, c->a[5]);
	return RV_DECODED | RV_HEX;
}

int trc_dec_munmap(struct trc_call *c)
{
	tp_addr(c, c->a[0]);
	tp_sep(c);
	tp_udec(c, c->a[1]);
	return RV_DECODED;
}

int trc_dec_mprotect(struct trc_call *c)
{
	trc_dec_munmap(c);
	tp_sep(c);
	print_prot(c, (uint32_t)c->a[2]);
	return RV_DECODED;
}

int trc_dec_brk(struct trc_call *c)
{
	tp_addr(c, c->a[0]);
	return RV_DECODED | RV_HEX;
}

int trc_dec_madvise(struct trc_call *c)
{
	trc_dec_munmap(c);
	tp_sep(c);
	tp_xval_dec(c, madvise_advice, (uint32_t)c->a[2], "MADV_???");
	return RV_DECODED;
}

int trc_dec_mremap(struct trc_call *c)
{
	trc_dec_munmap(c);
	tp_sep(c);
	tp_udec(c, c->a[2]);
	tp_sep(c);
	tp_flags(c, mremap_flags, c->a[3], "MREMAP_???");
	if (c->a[3] & MREMAP_FIXED) {
		tp_sep(c);
		tp_addr(c, c->a[4]);
	}
	return RV_DECODED | RV_HEX;
}
