/*
 * trc_sockios.c: the socket ioctls (linux/sockios.h: SIOC*, FIOSETOWN,
 * FIOGETOWN), named, and their argument as strace prints it: an int
 * given or returned, a bridge's interface name, the ifreq of
 * SIOCGIFINDEX/SIOCGIFNAME; the others' argument as its address. Called
 * by trc_ioctl.c for requests of this table only.
 */
#include <linux/sockios.h>
#include <net/if.h>
#include <stddef.h>
#include <string.h>

#include "trc_int.h"

enum sockio_arg {
	SA_ADDR,	 /* the address only */
	SA_INT_IN,	 /* [N] at entry */
	SA_INT_OUT,	 /* [N] at exit */
	SA_IFNAME,	 /* a NUL-terminated name of up to IFNAMSIZ bytes */
	SA_IFR_INDEX,	 /* {ifr_name="lo", ifr_ifindex=1} */
	SA_IFR_NAME,	 /* {ifr_ifindex=1, ifr_name="lo"} */
	SA_IFR_SET,	 /* {ifr_name="eth0", ifr_FIELD=...}: the SIOCSIF* requests */
	SA_IFR_INDEX_IN, /* {ifr_ifindex=if_nametoindex("lo")} */
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
	SIO(SIOCSIFFLAGS, SA_IFR_SET),
	SIO(SIOCGIFADDR, SA_ADDR),
	SIO(SIOCSIFADDR, SA_IFR_SET),
	SIO(SIOCGIFDSTADDR, SA_ADDR),
	SIO(SIOCSIFDSTADDR, SA_IFR_SET),
	SIO(SIOCGIFBRDADDR, SA_ADDR),
	SIO(SIOCSIFBRDADDR, SA_IFR_SET),
	SIO(SIOCGIFNETMASK, SA_ADDR),
	SIO(SIOCSIFNETMASK, SA_IFR_SET),
	SIO(SIOCGIFMETRIC, SA_ADDR),
	SIO(SIOCSIFMETRIC, SA_IFR_SET),
	SIO(SIOCGIFMEM, SA_ADDR),
	SIO(SIOCSIFMEM, SA_ADDR),
	SIO(SIOCGIFMTU, SA_ADDR),
	SIO(SIOCSIFMTU, SA_IFR_SET),
	SIO(SIOCSIFNAME, SA_IFR_SET),
	SIO(SIOCSIFHWADDR, SA_IFR_SET),
	SIO(SIOCGIFENCAP, SA_ADDR),
	SIO(SIOCSIFENCAP, SA_INT_IN),
	SIO(SIOCGIFHWADDR, SA_ADDR),
	SIO(SIOCGIFSLAVE, SA_ADDR),
	SIO(SIOCSIFSLAVE, SA_IFR_SET),
	SIO(SIOCADDMULTI, SA_IFR_SET),
	SIO(SIOCDELMULTI, SA_IFR_SET),
	SIO(SIOCGIFINDEX, SA_IFR_INDEX),
	SIO(SIOCSIFPFLAGS, SA_ADDR),
	SIO(SIOCGIFPFLAGS, SA_ADDR),
	SIO(SIOCDIFADDR, SA_ADDR),
	SIO(SIOCSIFHWBROADCAST, SA_IFR_SET),
	SIO(SIOCGIFCOUNT, SA_ADDR),
	SIO(SIOCGIFBR, SA_ADDR),
	SIO(SIOCSIFBR, SA_ADDR),
	SIO(SIOCGIFTXQLEN, SA_ADDR),
	SIO(SIOCSIFTXQLEN, SA_IFR_SET),
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
	SIO(SIOCSIFMAP, SA_IFR_SET),
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
	SIO(SIOCBRADDIF, SA_IFR_INDEX_IN),
	SIO(SIOCBRDELIF, SA_IFR_INDEX_IN),
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

/* An ifreq's name: at most IFNAMSIZ - 1 bytes, "..." when it fills the array. */
static void print_ifr_name(struct trc_call *c, const char *field, const char *name)
{
	size_t n = strnlen(name, IFNAMSIZ);

	tp_fmt(c, "%s=", field);
	tp_quote(c, (const unsigned char *)name, n < IFNAMSIZ ? n : IFNAMSIZ - 1, false);
	if (n == IFNAMSIZ)
		tp_str(c, "...");
}

static void print_ifindex(struct trc_call *c, int index)
{
	char name[IF_NAMESIZE];

	/* strace's form when the index names an interface here */
	if (index > 0 && if_indextoname((unsigned)index, name))
		tp_fmt(c, "ifr_ifindex=if_nametoindex(\"%s\")", name);
	else
		tp_fmt(c, "ifr_ifindex=%d", index);
}

static const struct xlat iff_flags[] = {
	XV(IFF_UP),
	XV(IFF_BROADCAST),
	XV(IFF_DEBUG),
	XV(IFF_LOOPBACK),
	XV(IFF_POINTOPOINT),
	XV(IFF_NOTRAILERS),
	XV(IFF_RUNNING),
	XV(IFF_NOARP),
	XV(IFF_PROMISC),
	XV(IFF_ALLMULTI),
	XV(IFF_MASTER),
	XV(IFF_SLAVE),
	XV(IFF_MULTICAST),
	XV(IFF_PORTSEL),
	XV(IFF_AUTOMEDIA),
	XV(IFF_DYNAMIC),
	XEND,
};

/* The field a SIOCSIF* request sets, after the name. */
static void print_ifr_set(struct trc_call *c, uint32_t req, uint64_t addr, const struct ifreq *ifr)
{
	const unsigned char *hw = (const unsigned char *)ifr->ifr_hwaddr.sa_data;
	const struct ifmap *m = &ifr->ifr_map;

	tp_sep(c);
	switch (req) {
	case SIOCSIFADDR:
	case SIOCSIFDSTADDR:
	case SIOCSIFBRDADDR:
	case SIOCSIFNETMASK:
		tp_str(c, req == SIOCSIFADDR	  ? "ifr_addr="
			  : req == SIOCSIFDSTADDR ? "ifr_dstaddr="
			  : req == SIOCSIFBRDADDR ? "ifr_broadaddr="
						  : "ifr_netmask=");
		tp_sockaddr(c, addr + offsetof(struct ifreq, ifr_addr), sizeof(struct sockaddr));
		break;
	case SIOCSIFFLAGS:
		tp_str(c, "ifr_flags=");
		tp_flags(c, iff_flags, (uint16_t)ifr->ifr_flags, "IFF_???");
		break;
	case SIOCSIFMAP:
		tp_fmt(c,
		       "ifr_map={mem_start=%#lx, mem_end=%#lx, base_addr=%#x, irq=%#x, dma=%#x, "
		       "port=%#x}",
		       m->mem_start, m->mem_end, m->base_addr, m->irq, m->dma, m->port);
		break;
	case SIOCSIFMETRIC:
		tp_fmt(c, "ifr_metric=%d", ifr->ifr_metric);
		break;
	case SIOCSIFMTU:
		tp_fmt(c, "ifr_mtu=%d", ifr->ifr_mtu);
		break;
	case SIOCSIFTXQLEN:
		tp_fmt(c, "ifr_qlen=%d", ifr->ifr_qlen);
		break;
	case SIOCSIFNAME:
		print_ifr_name(c, "ifr_newname", ifr->ifr_newname);
		break;
	case SIOCSIFSLAVE:
		print_ifr_name(c, "ifr_slave", ifr->ifr_slave);
		break;
	default: /* the hardware addresses */
		tp_str(c, "ifr_hwaddr={sa_family=");
		if (ifr->ifr_hwaddr.sa_family == 1 /* ARPHRD_ETHER */)
			tp_fmt(c, "ARPHRD_ETHER, sa_data=%02x:%02x:%02x:%02x:%02x:%02x}", hw[0],
			       hw[1], hw[2], hw[3], hw[4], hw[5]);
		else
			tp_fmt(c, "%u, sa_data=...}", ifr->ifr_hwaddr.sa_family);
	}
}

int trc_sockios_entry(struct trc_call *c, uint32_t req, uint64_t arg)
{
	int i = find(req);
	char name[IFNAMSIZ];
	struct ifreq ifr;
	int v;

	if (i < 0)
		return -1;
	tp_str(c, sockios[i].name);
	if (sockios[i].arg == SA_INT_OUT)
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
	case SA_IFR_INDEX: /* the name at entry, the index at exit */
	case SA_IFR_NAME:
	case SA_IFR_SET:
	case SA_IFR_INDEX_IN:
		if (tp_read_or_addr(c, arg, &ifr, sizeof(ifr)))
			return RV_DECODED;
		buf_putc(c->b, '{');
		if (sockios[i].arg == SA_IFR_NAME) { /* the number: its name is the answer */
			tp_fmt(c, "ifr_ifindex=%d", ifr.ifr_ifindex);
		} else if (sockios[i].arg == SA_IFR_INDEX_IN) {
			print_ifindex(c, ifr.ifr_ifindex);
		} else {
			print_ifr_name(c, "ifr_name", ifr.ifr_name);
			if (sockios[i].arg == SA_IFR_SET)
				print_ifr_set(c, req, arg, &ifr);
		}
		if (sockios[i].arg == SA_IFR_INDEX || sockios[i].arg == SA_IFR_NAME)
			return 0;
		buf_putc(c->b, '}');
		return RV_DECODED;
	case SA_INT_OUT:
	case SA_ADDR:
		break;
	}
	tp_addr(c, arg);
	return RV_DECODED;
}

/* The exit half; for the ifreq ones, after what the entry printed. */
int trc_sockios_exit(struct trc_call *c, uint32_t req, uint64_t arg)
{
	int i = find(req), v;
	struct ifreq ifr;

	if (i < 0)
		return -1;
	if (sockios[i].arg == SA_IFR_INDEX || sockios[i].arg == SA_IFR_NAME) {
		if (!c->failed && tp_read(c, arg, &ifr, sizeof(ifr)) == 0) {
			tp_sep(c);
			if (sockios[i].arg == SA_IFR_INDEX)
				tp_fmt(c, "ifr_ifindex=%d", ifr.ifr_ifindex);
			else
				print_ifr_name(c, "ifr_name", ifr.ifr_name);
		}
		buf_putc(c->b, '}');
		return RV_DEC;
	}
	tp_sep(c);
	if (c->failed || tp_read_or_addr(c, arg, &v, sizeof(v)) == 0)
		if (!c->failed)
			tp_fmt(c, "[%d]", v);
	if (c->failed)
		tp_addr(c, arg);
	return RV_DEC;
}
