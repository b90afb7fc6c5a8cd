/*
 * trc_sockios.c: the socket ioctls (linux/sockios.h: SIOC*, FIOSETOWN,
 * FIOGETOWN), named, and their argument as strace prints it: an int
 * given or returned, a bridge's interface name, the ifreq of
 * SIOCGIFINDEX/SIOCGIFNAME; the others' argument as its address. Called
 * by trc_ioctl.c for requests of this table only.
 */
#include <linux/sockios.h>
#include <net/if.h>
#include <string.h>

#include "trc_int.h"

enum sockio_arg {
	SA_ADDR,      /* the address only */
	SA_INT_IN,    /* [N] at entry */
	SA_INT_OUT,   /* [N] at exit */
	SA_IFNAME,    /* a NUL-terminated name of up to IFNAMSIZ bytes */
	SA_IFR_INDEX, /* {ifr_name="lo", ifr_ifindex=1} */
	SA_IFR_NAME,  /* {ifr_ifindex=1, ifr_name="lo"} */
};

#define SIO(r, a)                                                                                  \
	{                                                                                          \
		r, #r, a                                                                           \
	}

static const struct {
	uint32_t req;
	const char *name;
	enum sockio_arg arg;
} sockios[] = {
	SIO(FIOSETOWN, SA_INT_IN),
	SIO(SIOCSPGRP, SA_INT_IN),
	SIO(FIOGETOWN, SA_INT_OUT),
	SIO(SIOCGPGRP, SA_INT_OUT),
	SIO(SIOCATMARK, SA_INT_OUT),
	{0x8906, "SIOCGSTAMP_OLD", SA_ADDR},
	{0x8907, "SIOCGSTAMPNS_OLD", SA_ADDR},
	{0x8906 | 16 << 16 | 2u << 30, "SIOCGSTAMP_NEW", SA_ADDR}, /* _IOR(0x89, 6, long[2]) */
	{0x8907 | 16 << 16 | 2u << 30, "SIOCGSTAMPNS_NEW", SA_ADDR},
	SIO(SIOCADDRT, SA_ADDR),
	SIO(SIOCDELRT, SA_ADDR),
	SIO(SIOCRTMSG, SA_ADDR),
	SIO(SIOCGIFNAME, SA_IFR_NAME),
	SIO(SIOCSIFLINK, SA_ADDR),
	SIO(SIOCGIFCONF, SA_ADDR),
	SIO(SIOCGIFFLAGS, SA_ADDR),
	SIO(SIOCSIFFLAGS, SA_ADDR),
	SIO(SIOCGIFADDR, SA_ADDR),
	SIO(SIOCSIFADDR, SA_ADDR),
	SIO(SIOCGIFDSTADDR, SA_ADDR),
	SIO(SIOCSIFDSTADDR, SA_ADDR),
	SIO(SIOCGIFBRDADDR, SA_ADDR),
	SIO(SIOCSIFBRDADDR, SA_ADDR),
	SIO(SIOCGIFNETMASK, SA_ADDR),
	SIO(SIOCSIFNETMASK, SA_ADDR),
	SIO(SIOCGIFMETRIC, SA_ADDR),
	SIO(SIOCSIFMETRIC, SA_ADDR),
	SIO(SIOCGIFMEM, SA_ADDR),
	SIO(SIOCSIFMEM, SA_ADDR),
	SIO(SIOCGIFMTU, SA_ADDR),
	SIO(SIOCSIFMTU, SA_ADDR),
	SIO(SIOCSIFNAME, SA_ADDR),
	SIO(SIOCSIFHWADDR, SA_ADDR),
	SIO(SIOCGIFENCAP, SA_ADDR),
	SIO(SIOCSIFENCAP, SA_INT_IN),
	SIO(SIOCGIFHWADDR, SA_ADDR),
	SIO(SIOCGIFSLAVE, SA_ADDR),
	SIO(SIOCSIFSLAVE, SA_ADDR),
	SIO(SIOCADDMULTI, SA_ADDR),
	SIO(SIOCDELMULTI, SA_ADDR),
	SIO(SIOCGIFINDEX, SA_IFR_INDEX),
	SIO(SIOCSIFPFLAGS, SA_ADDR),
	SIO(SIOCGIFPFLAGS, SA_ADDR),
	SIO(SIOCDIFADDR, SA_ADDR),
	SIO(SIOCSIFHWBROADCAST, SA_ADDR),
	SIO(SIOCGIFCOUNT, SA_ADDR),
	SIO(SIOCGIFBR, SA_ADDR),
	SIO(SIOCSIFBR, SA_ADDR),
	SIO(SIOCGIFTXQLEN, SA_ADDR),
	SIO(SIOCSIFTXQLEN, SA_ADDR),
	SIO(SIOCETHTOOL, SA_ADDR),
	SIO(SIOCGMIIPHY, SA_ADDR),
	SIO(SIOCGMIIREG, SA_ADDR),
	SIO(SIOCSMIIREG, SA_ADDR),
	SIO(SIOCWANDEV, SA_ADDR),
	SIO(SIOCOUTQNSD, SA_ADDR),
	SIO(SIOCGSKNS, SA_ADDR),
	SIO(SIOCDARP, SA_ADDR),
	SIO(SIOCGARP, SA_ADDR),
	SIO(SIOCSARP, SA_ADDR),
	SIO(SIOCDRARP, SA_ADDR),
	SIO(SIOCGRARP, SA_ADDR),
	SIO(SIOCSRARP, SA_ADDR),
	SIO(SIOCGIFMAP, SA_ADDR),
	SIO(SIOCSIFMAP, SA_ADDR),
	SIO(SIOCADDDLCI, SA_ADDR),
	SIO(SIOCDELDLCI, SA_ADDR),
	SIO(SIOCGIFVLAN, SA_ADDR),
	SIO(SIOCSIFVLAN, SA_ADDR),
	SIO(SIOCBONDENSLAVE, SA_ADDR),
	SIO(SIOCBONDRELEASE, SA_ADDR),
	SIO(SIOCBONDSETHWADDR, SA_ADDR),
	SIO(SIOCBONDSLAVEINFOQUERY, SA_ADDR),
	SIO(SIOCBONDINFOQUERY, SA_ADDR),
	SIO(SIOCBONDCHANGEACTIVE, SA_ADDR),
	SIO(SIOCBRADDBR, SA_IFNAME),
	SIO(SIOCBRDELBR, SA_IFNAME),
	SIO(SIOCBRADDIF, SA_ADDR),
	SIO(SIOCBRDELIF, SA_ADDR),
	SIO(SIOCSHWTSTAMP, SA_ADDR),
	SIO(SIOCGHWTSTAMP, SA_ADDR),
};

static int find(uint32_t req)
{
	for (size_t i = 0; i < sizeof(sockios) / sizeof(sockios[0]); i++)
		if (sockios[i].req == req)
			return (int)i;
	return -1;
}

/* Up to IFNAMSIZ bytes, "..." when no NUL ends them there, as strace. */
static void print_ifname(struct trc_call *c, const char *name, size_t have)
{
	size_t n = strnlen(name, have);

	tp_quote(c, (const unsigned char *)name, n, false);
	if (n == have)
		tp_str(c, "...");
}

static void print_ifreq(struct trc_call *c, uint64_t addr, bool index_first)
{
	struct ifreq ifr;

	if (tp_read_or_addr(c, addr, &ifr, sizeof(ifr)))
		return;
	if (index_first)
		tp_fmt(c, "{ifr_ifindex=%d, ifr_name=", ifr.ifr_ifindex);
	else
		tp_str(c, "{ifr_name=");
	print_ifname(c, ifr.ifr_name, sizeof(ifr.ifr_name));
	if (!index_first)
		tp_fmt(c, ", ifr_ifindex=%d", ifr.ifr_ifindex);
	buf_putc(c->b, '}');
}

int trc_sockios_entry(struct trc_call *c, uint32_t req, uint64_t arg)
{
	int i = find(req);
	char name[IFNAMSIZ];
	int v;

	if (i < 0)
		return -1;
	tp_str(c, sockios[i].name);
	if (sockios[i].arg == SA_INT_OUT || sockios[i].arg == SA_IFR_INDEX ||
	    sockios[i].arg == SA_IFR_NAME)
		return 0; /* the argument at exit (trc_dec_ioctl puts the ", ") */
	tp_sep(c);
	switch (sockios[i].arg) {
	case SA_INT_IN:
		if (tp_read_or_addr(c, arg, &v, sizeof(v)) == 0)
			tp_fmt(c, "[%d]", v);
		return RV_DECODED;
	case SA_IFNAME:
		if (tp_read_or_addr(c, arg, name, sizeof(name)) == 0)
			print_ifname(c, name, sizeof(name));
		return RV_DECODED;
	case SA_INT_OUT:
	case SA_IFR_INDEX:
	case SA_IFR_NAME:
		return 0;
	case SA_ADDR:
		break;
	}
	tp_addr(c, arg);
	return RV_DECODED;
}

int trc_sockios_exit(struct trc_call *c, uint32_t req, uint64_t arg)
{
	int i = find(req), v;

	if (i < 0)
		return -1;
	if (c->failed) {
		tp_addr(c, arg);
		return RV_DEC;
	}
	if (sockios[i].arg == SA_INT_OUT) {
		if (tp_read_or_addr(c, arg, &v, sizeof(v)) == 0)
			tp_fmt(c, "[%d]", v);
	} else {
		print_ifreq(c, arg, sockios[i].arg == SA_IFR_NAME);
	}
	return RV_DEC;
}
