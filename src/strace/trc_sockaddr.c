/*
 * trc_sockaddr.c: socket addresses, as strace prints them: one printer per
 * family and the length below which a family's address is shown as its
 * raw sa_data instead (sa_printers[]). The address is read up to the size
 * of a sockaddr_storage, whatever length the caller gave, and zero-padded:
 * a printer never reads past what it was given.
 */
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "trc_int.h"

#define SA_FAMILY_SIZE 2 /* sizeof(sa_family_t) */

/* The kernel's layouts (linux/ipx.h, x25.h, ax25.h, netlink.h, if_packet.h). */
struct sa_ipx {
	uint16_t family, port;
	uint32_t network;
	uint8_t node[6];
	uint8_t type, zero;
};

struct sa_x25 {
	uint16_t family;
	char addr[16]; /* x25_addr: digits, NUL-terminated */
};

struct ax25_call {
	uint8_t call[7];
};

struct sa_ax25 {
	uint16_t family;
	struct ax25_call call;
	int32_t ndigis;
};

#define AX25_MAX_DIGIS 8
struct sa_ax25_full {
	struct sa_ax25 ax25;
	struct ax25_call digi[AX25_MAX_DIGIS];
};

struct sa_nl {
	uint16_t family, pad;
	uint32_t pid, groups;
};

struct sa_ll {
	uint16_t family, protocol;
	int32_t ifindex;
	uint16_t hatype;
	uint8_t pkttype, halen;
	uint8_t addr[8];
};

static const struct xlat eth_protos[] = {
	{0x0003, "ETH_P_ALL"},	   {0x0800, "ETH_P_IP"},
	{0x0806, "ETH_P_ARP"},	   {0x8100, "ETH_P_8021Q"},
	{0x86dd, "ETH_P_IPV6"},	   {0x8035, "ETH_P_RARP"},
	{0x88a8, "ETH_P_8021AD"},  {0x888e, "ETH_P_PAE"},
	{0x8847, "ETH_P_MPLS_UC"}, {0x0004, "ETH_P_802_2"},
	{0x0001, "ETH_P_802_3"},   {0x0005, "ETH_P_SNAP"},
	{0x0060, "ETH_P_LOOP"},	   XEND,
};

static const struct xlat arphrd_types[] = {
	{0, "ARPHRD_NETROM"},
	{1, "ARPHRD_ETHER"},
	{2, "ARPHRD_EETHER"},
	{3, "ARPHRD_AX25"},
	{4, "ARPHRD_PRONET"},
	{6, "ARPHRD_IEEE802"},
	{23, "ARPHRD_METRICOM"},
	{24, "ARPHRD_IEEE1394"},
	{32, "ARPHRD_INFINIBAND"},
	{512, "ARPHRD_SLIP"},
	{768, "ARPHRD_TUNNEL"},
	{769, "ARPHRD_TUNNEL6"},
	{772, "ARPHRD_LOOPBACK"},
	{776, "ARPHRD_SIT"},
	{778, "ARPHRD_IPGRE"},
	{801, "ARPHRD_IEEE80211"},
	{803, "ARPHRD_IEEE80211_RADIOTAP"},
	{0xfffe, "ARPHRD_NONE"},
	{0xffff, "ARPHRD_VOID"},
	XEND,
};

static const struct xlat packet_types[] = {
	{0, "PACKET_HOST"},	 {1, "PACKET_BROADCAST"}, {2, "PACKET_MULTICAST"},
	{3, "PACKET_OTHERHOST"}, {4, "PACKET_OUTGOING"},  {5, "PACKET_LOOPBACK"},
	{6, "PACKET_USER"},	 {7, "PACKET_KERNEL"},	  XEND,
};

/* An interface index: if_nametoindex("lo") when this host has it, as strace. */
static void print_ifindex(struct trc_call *c, unsigned idx)
{
	char name[IF_NAMESIZE];

	if (if_indextoname(idx, name))
		tp_fmt(c, "if_nametoindex(\"%s\")", name);
	else
		tp_udec(c, idx);
}

/* strace's PRINT_VAL_0X: 0x, zero-padded to the field's width (0 stays 00). */
static void print_0x(struct trc_call *c, uint64_t v, int size)
{
	tp_fmt(c, "%#0*llx", size * 2, (unsigned long long)v);
}

static void sa_raw(struct trc_call *c, const unsigned char *buf, size_t len)
{
	tp_str(c, "sa_data=");
	tp_quote(c, buf + SA_FAMILY_SIZE, len - SA_FAMILY_SIZE, false);
}

static void sa_un(struct trc_call *c, const unsigned char *buf, size_t len)
{
	const struct sockaddr_un *sun = (const void *)buf;
	size_t n = (len > sizeof(*sun) ? sizeof(*sun) : len) - SA_FAMILY_SIZE;

	tp_str(c, "sun_path=");
	if (sun->sun_path[0]) {
		tp_quote(c, (const unsigned char *)sun->sun_path, strnlen(sun->sun_path, n), false);
		return;
	}
	buf_putc(c->b, '@'); /* abstract: exactly n - 1 bytes */
	tp_quote(c, (const unsigned char *)sun->sun_path + 1, n - 1, false);
}

static void sa_in(struct trc_call *c, const unsigned char *buf, size_t len)
{
	const struct sockaddr_in *sin = (const void *)buf;
	char text[INET_ADDRSTRLEN];

	(void)len;
	tp_fmt(c, "sin_port=htons(%u), sin_addr=inet_addr(\"%s\")", ntohs(sin->sin_port),
	       inet_ntop(AF_INET, &sin->sin_addr, text, sizeof(text)));
}

static void sa_in6(struct trc_call *c, const unsigned char *buf, size_t len)
{
	const struct sockaddr_in6 *sin6 = (const void *)buf;
	char text[INET6_ADDRSTRLEN];

	tp_fmt(c, "sin6_port=htons(%u), sin6_flowinfo=htonl(%u)", ntohs(sin6->sin6_port),
	       ntohl(sin6->sin6_flowinfo));
	tp_fmt(c, ", inet_pton(AF_INET6, \"%s\", &sin6_addr)",
	       inet_ntop(AF_INET6, &sin6->sin6_addr, text, sizeof(text)));
	if (len <= offsetof(struct sockaddr_in6, sin6_scope_id))
		return;
	tp_str(c, ", sin6_scope_id=");
	if (IN6_IS_ADDR_LINKLOCAL(&sin6->sin6_addr) || IN6_IS_ADDR_MC_LINKLOCAL(&sin6->sin6_addr))
		print_ifindex(c, sin6->sin6_scope_id);
	else
		tp_udec(c, sin6->sin6_scope_id);
}

static void sa_ipx(struct trc_call *c, const unsigned char *buf, size_t len)
{
	const struct sa_ipx *ipx = (const void *)buf;

	(void)len;
	tp_fmt(c, "sipx_port=htons(%u), sipx_network=htonl(%#x), sipx_node=[", ntohs(ipx->port),
	       ntohl(ipx->network));
	for (size_t i = 0; i < sizeof(ipx->node); i++) {
		if (i)
			tp_str(c, ", ");
		print_0x(c, ipx->node[i], 1);
	}
	tp_str(c, "], sipx_type=");
	print_0x(c, ipx->type, 1);
	if (ipx->zero)
		tp_fmt(c, ", sipx_zero=%#x", ipx->zero);
}

static void sa_x25(struct trc_call *c, const unsigned char *buf, size_t len)
{
	const struct sa_x25 *x25 = (const void *)buf;
	size_t n = strnlen(x25->addr, sizeof(x25->addr));

	(void)len;
	tp_str(c, "sx25_addr={x25_addr=");
	tp_quote(c, (const unsigned char *)x25->addr, n < sizeof(x25->addr) ? n : n - 1, false);
	if (n == sizeof(x25->addr))
		tp_str(c, "...");
	tp_str(c, "}");
}

static void sa_nl(struct trc_call *c, const unsigned char *buf, size_t len)
{
	const struct sa_nl *nl = (const void *)buf;

	(void)len;
	if (nl->pad)
		tp_fmt(c, "nl_pad=%#x, ", nl->pad);
	tp_fmt(c, "nl_pid=%u, nl_groups=", nl->pid);
	print_0x(c, nl->groups, 4);
}

static void sa_ll(struct trc_call *c, const unsigned char *buf, size_t len)
{
	const struct sa_ll *ll = (const void *)buf;
	size_t room = len - offsetof(struct sa_ll, addr);

	tp_str(c, "sll_protocol=htons(");
	tp_xval(c, eth_protos, ntohs(ll->protocol), "ETH_P_???");
	tp_str(c, "), sll_ifindex=");
	print_ifindex(c, (unsigned)ll->ifindex);
	tp_str(c, ", sll_hatype=");
	tp_xval(c, arphrd_types, ll->hatype, "ARPHRD_???");
	tp_str(c, ", sll_pkttype=");
	tp_xval(c, packet_types, ll->pkttype, "PACKET_???");
	tp_fmt(c, ", sll_halen=%u", ll->halen);
	if (!ll->halen)
		return;
	tp_str(c, ", sll_addr=[");
	for (size_t i = 0; i < ll->halen; i++) {
		if (i)
			tp_str(c, ", ");
		if (i >= room || i >= sizeof(ll->addr)) {
			tp_str(c, "...");
			break;
		}
		print_0x(c, ll->addr[i], 1);
	}
	tp_str(c, "]");
}

const struct trc_sa_family trc_sa_families[] = {
	{AF_UNIX, sa_un, SA_FAMILY_SIZE + 1},
	{AF_INET, sa_in, sizeof(struct sockaddr_in)},
	{AF_AX25, trc_sa_ax25, sizeof(struct sa_ax25)},
	{AF_IPX, sa_ipx, sizeof(struct sa_ipx)},
	{AF_X25, sa_x25, sizeof(struct sa_x25)},
	{AF_INET6, sa_in6, offsetof(struct sockaddr_in6, sin6_scope_id)},
	{AF_NETLINK, sa_nl, sizeof(struct sa_nl)},
	{AF_PACKET, sa_ll, sizeof(struct sa_ll)},
	{0, NULL, 0},
};

void tp_sockaddr(struct trc_call *c, uint64_t addr, uint64_t len)
{
	unsigned char buf[sizeof(struct sockaddr_storage) + 1];
	const struct trc_sa_family *f;
	uint16_t family;

	if (!addr) {
		tp_str(c, "NULL");
		return;
	}
	if (len < SA_FAMILY_SIZE || len > INT32_MAX) {
		tp_addr(c, addr);
		return;
	}
	if (len > sizeof(struct sockaddr_storage))
		len = sizeof(struct sockaddr_storage);
	memset(buf, 0, sizeof(buf));
	if (tp_read_or_addr(c, addr, buf, len))
		return;
	memcpy(&family, buf, sizeof(family));
	tp_str(c, "{sa_family=");
	tp_xval(c, trc_families, family, "AF_???");
	if (len > SA_FAMILY_SIZE) {
		tp_str(c, ", ");
		for (f = trc_sa_families; f->print && f->family != family; f++)
			;
		if (f->print && len >= f->min_len)
			f->print(c, buf, len);
		else
			sa_raw(c, buf, len);
	}
	buf_putc(c->b, '}');
}
