/*
 * trc_net.c: decoders of the socket syscalls, and socket addresses.
 *
 * socket, socketpair, connect/bind, listen, accept/accept4,
 * getsockname/getpeername, sendto/recvfrom, shutdown, setsockopt,
 * getsockopt. An in/out length (accept's addrlen) prints as [in => out]
 * when the kernel changed it, as strace does; the addresses themselves are
 * trc_sockaddr.c's.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "trc_int.h"

const struct xlat trc_families[] = {
	XV(AF_UNSPEC),	   XV(AF_UNIX),
	XV(AF_INET),	   XV(AF_AX25),
	XV(AF_IPX),	   XV(AF_APPLETALK),
	XV(AF_NETROM),	   XV(AF_BRIDGE),
	XV(AF_ATMPVC),	   XV(AF_X25),
	XV(AF_INET6),	   XV(AF_ROSE),
	XV(AF_DECnet),	   XV(AF_NETBEUI),
	XV(AF_SECURITY),   XV(AF_KEY),
	XV(AF_NETLINK),	   XV(AF_PACKET),
	XV(AF_ASH),	   XV(AF_ECONET),
	XV(AF_ATMSVC),	   XV(AF_RDS),
	XV(AF_SNA),	   XV(AF_IRDA),
	XV(AF_PPPOX),	   XV(AF_WANPIPE),
	XV(AF_LLC),	   XV(AF_IB),
	XV(AF_MPLS),	   XV(AF_CAN),
	XV(AF_TIPC),	   XV(AF_BLUETOOTH),
	XV(AF_IUCV),	   XV(AF_RXRPC),
	XV(AF_ISDN),	   XV(AF_PHONET),
	XV(AF_IEEE802154), XV(AF_CAIF),
	XV(AF_ALG),	   XV(AF_NFC),
	XV(AF_VSOCK),	   XV(AF_KCM),
	XV(AF_QIPCRTR),	   XV(AF_SMC),
	XV(AF_XDP),	   XEND,
};

static const struct xlat sock_types[] = {
	XV(SOCK_STREAM),    XV(SOCK_DGRAM), XV(SOCK_RAW),    XV(SOCK_RDM),
	XV(SOCK_SEQPACKET), XV(SOCK_DCCP),  XV(SOCK_PACKET), XEND,
};

static const struct xlat sock_type_flags[] = {
	XV(SOCK_CLOEXEC),
	XV(SOCK_NONBLOCK),
	XEND,
};

static const struct xlat ip_protos[] = {
	XV(IPPROTO_IP),	     XV(IPPROTO_ICMP),
	XV(IPPROTO_IGMP),    XV(IPPROTO_IPIP),
	XV(IPPROTO_TCP),     XV(IPPROTO_EGP),
	XV(IPPROTO_PUP),     XV(IPPROTO_UDP),
	XV(IPPROTO_IDP),     XV(IPPROTO_TP),
	XV(IPPROTO_DCCP),    XV(IPPROTO_IPV6),
	XV(IPPROTO_RSVP),    XV(IPPROTO_GRE),
	XV(IPPROTO_ESP),     XV(IPPROTO_AH),
	XV(IPPROTO_ICMPV6),  XV(IPPROTO_MTP),
	XV(IPPROTO_ENCAP),   XV(IPPROTO_PIM),
	XV(IPPROTO_COMP),    XV(IPPROTO_SCTP),
	XV(IPPROTO_UDPLITE), XV(IPPROTO_MPLS),
	XV(IPPROTO_RAW),     XEND,
};

const struct xlat trc_msg_flags[] = {
	XV(MSG_OOB),	      XV(MSG_PEEK),
	XV(MSG_DONTROUTE),    XV(MSG_CTRUNC),
	XV(MSG_PROXY),	      XV(MSG_TRUNC),
	XV(MSG_DONTWAIT),     XV(MSG_EOR),
	XV(MSG_WAITALL),      XV(MSG_FIN),
	XV(MSG_SYN),	      XV(MSG_CONFIRM),
	XV(MSG_RST),	      XV(MSG_ERRQUEUE),
	XV(MSG_NOSIGNAL),     XV(MSG_MORE),
	XV(MSG_WAITFORONE),   XV(MSG_BATCH),
	XV(MSG_ZEROCOPY),     XV(MSG_FASTOPEN),
	XV(MSG_CMSG_CLOEXEC), XEND,
};

static const struct xlat shut_how[] = {
	XV(SHUT_RD),
	XV(SHUT_WR),
	XV(SHUT_RDWR),
	XEND,
};

const struct xlat trc_sock_levels[] = {
	XV(SOL_IP),	XV(SOL_SOCKET),	 XV(SOL_TCP), {17, "SOL_UDP"}, XV(SOL_IPV6), XV(SOL_RAW),
	XV(SOL_PACKET), XV(SOL_NETLINK), XEND,
};

/* SOL_SOCKET's options, x86's (asm-generic) numbers, as strace names them. */
static const struct xlat sol_socket_opts[] = {
	{1, "SO_DEBUG"},
	{2, "SO_REUSEADDR"},
	{3, "SO_TYPE"},
	{4, "SO_ERROR"},
	{5, "SO_DONTROUTE"},
	{6, "SO_BROADCAST"},
	{7, "SO_SNDBUF"},
	{8, "SO_RCVBUF"},
	{9, "SO_KEEPALIVE"},
	{10, "SO_OOBINLINE"},
	{11, "SO_NO_CHECK"},
	{12, "SO_PRIORITY"},
	{13, "SO_LINGER"},
	{14, "SO_BSDCOMPAT"},
	{15, "SO_REUSEPORT"},
	{16, "SO_PASSCRED"},
	{17, "SO_PEERCRED"},
	{18, "SO_RCVLOWAT"},
	{19, "SO_SNDLOWAT"},
	{20, "SO_RCVTIMEO_OLD"},
	{21, "SO_SNDTIMEO_OLD"},
	{22, "SO_SECURITY_AUTHENTICATION"},
	{23, "SO_SECURITY_ENCRYPTION_TRANSPORT"},
	{24, "SO_SECURITY_ENCRYPTION_NETWORK"},
	{25, "SO_BINDTODEVICE"},
	{27, "SO_DETACH_FILTER"},
	{28, "SO_PEERNAME"},
	{29, "SO_TIMESTAMP_OLD"},
	{30, "SO_ACCEPTCONN"},
	{31, "SO_PEERSEC"},
	{32, "SO_SNDBUFFORCE"},
	{33, "SO_RCVBUFFORCE"},
	{34, "SO_PASSSEC"},
	{35, "SO_TIMESTAMPNS_OLD"},
	{36, "SO_MARK"},
	{37, "SO_TIMESTAMPING_OLD"},
	{38, "SO_PROTOCOL"},
	{39, "SO_DOMAIN"},
	{40, "SO_RXQ_OVFL"},
	{41, "SO_WIFI_STATUS"},
	{42, "SO_PEEK_OFF"},
	{43, "SO_NOFCS"},
	{44, "SO_LOCK_FILTER"},
	{45, "SO_SELECT_ERR_QUEUE"},
	{46, "SO_BUSY_POLL"},
	{47, "SO_MAX_PACING_RATE"},
	{48, "SO_BPF_EXTENSIONS"},
	{49, "SO_INCOMING_CPU"},
	{50, "SO_ATTACH_BPF"},
	{51, "SO_ATTACH_REUSEPORT_CBPF"},
	{52, "SO_ATTACH_REUSEPORT_EBPF"},
	{53, "SO_CNX_ADVICE"},
	{55, "SO_MEMINFO"},
	{56, "SO_INCOMING_NAPI_ID"},
	{57, "SO_COOKIE"},
	{59, "SO_PEERGROUPS"},
	{60, "SO_ZEROCOPY"},
	{61, "SO_TXTIME"},
	{62, "SO_BINDTOIFINDEX"},
	{63, "SO_TIMESTAMP_NEW"},
	{64, "SO_TIMESTAMPNS_NEW"},
	{65, "SO_TIMESTAMPING_NEW"},
	{66, "SO_RCVTIMEO_NEW"},
	{67, "SO_SNDTIMEO_NEW"},
	{68, "SO_DETACH_REUSEPORT_BPF"},
	{69, "SO_PREFER_BUSY_POLL"},
	{70, "SO_BUSY_POLL_BUDGET"},
	{71, "SO_NETNS_COOKIE"},
	{72, "SO_BUF_LOCK"},
	{73, "SO_RESERVE_MEM"},
	{74, "SO_TXREHASH"},
	{75, "SO_RCVMARK"},
	XEND,
};

static const struct xlat tcp_opts[] = {
	XV(TCP_NODELAY),      XV(TCP_MAXSEG),	    XV(TCP_CORK),     XV(TCP_KEEPIDLE),
	XV(TCP_KEEPINTVL),    XV(TCP_KEEPCNT),	    XV(TCP_SYNCNT),   XV(TCP_LINGER2),
	XV(TCP_DEFER_ACCEPT), XV(TCP_WINDOW_CLAMP), XV(TCP_INFO),     XV(TCP_QUICKACK),
	XV(TCP_CONGESTION),   XV(TCP_USER_TIMEOUT), XV(TCP_FASTOPEN), XEND,
};

static void print_family(struct trc_call *c, unsigned family)
{
	tp_xval_dec(c, trc_families, family, "AF_???");
}

static void print_sock_type(struct trc_call *c, uint64_t type)
{
	tp_xval(c, sock_types, type & 0xf, "SOCK_???");
	type &= ~0xfull;
	if (type) {
		buf_putc(c->b, '|');
		tp_flags(c, sock_type_flags, type, "SOCK_???");
	}
}

static void print_protocol(struct trc_call *c, unsigned family, uint64_t proto)
{
	if (family == AF_INET || family == AF_INET6)
		tp_xval_dec(c, ip_protos, proto, "IPPROTO_???");
	else
		tp_int(c, proto);
}

int trc_dec_socket(struct trc_call *c)
{
	print_family(c, (uint32_t)c->a[0]);
	tp_sep(c);
	print_sock_type(c, (uint32_t)c->a[1]);
	tp_sep(c);
	print_protocol(c, (uint32_t)c->a[0], (uint32_t)c->a[2]);
	return RV_DECODED | RV_FD;
}

int trc_dec_socketpair(struct trc_call *c)
{
	int fds[2];

	if (!c->exiting) {
		print_family(c, (uint32_t)c->a[0]);
		tp_sep(c);
		print_sock_type(c, (uint32_t)c->a[1]);
		tp_sep(c);
		print_protocol(c, (uint32_t)c->a[0], (uint32_t)c->a[2]);
		tp_sep(c);
		return 0;
	}
	if (tp_failed(c) || tp_read(c, c->a[3], fds, sizeof(fds)))
		tp_addr(c, c->a[3]);
	else
		tp_fmt(c, "[%d, %d]", fds[0], fds[1]);
	return RV_DEC;
}

/* connect and bind: fd, address, length. */
int trc_dec_connect(struct trc_call *c)
{
	tp_fd(c, c->a[0]);
	tp_sep(c);
	tp_sockaddr(c, c->a[1], (uint32_t)c->a[2]);
	tp_sep(c);
	tp_udec(c, (uint32_t)c->a[2]);
	return RV_DECODED;
}

int trc_dec_listen(struct trc_call *c)
{
	tp_fd(c, c->a[0]);
	tp_sep(c);
	tp_int(c, c->a[1]);
	return RV_DECODED;
}

int trc_dec_shutdown(struct trc_call *c)
{
	tp_fd(c, c->a[0]);
	tp_sep(c);
	tp_xval_dec(c, shut_how, (uint32_t)c->a[1], "SHUT_???");
	return RV_DECODED;
}

/*
 * An address the kernel fills in, with an in/out length: at entry the
 * length the caller offers (kept in c->aux), at exit the address and
 * "[in => out]", or "[in]" when the kernel left it unchanged.
 */
static void addr_out_entry(struct trc_call *c, uint64_t lenp)
{
	uint32_t in = 0;

	c->aux = lenp && tp_read(c, lenp, &in, sizeof(in)) == 0 ? (uint64_t)in | 1ull << 32 : 0;
}

static void addr_out_exit(struct trc_call *c, uint64_t addr, uint64_t lenp)
{
	uint32_t in = (uint32_t)c->aux, out;
	bool have_in = c->aux >> 32;

	if (!addr) {
		tp_str(c, "NULL");
	} else if (c->failed || !lenp || tp_read(c, lenp, &out, sizeof(out))) {
		tp_addr(c, addr);
		out = in;
	} else {
		tp_sockaddr(c, addr, out < in ? out : in);
	}
	tp_sep(c);
	if (!lenp)
		tp_str(c, "NULL");
	else if (!have_in)
		tp_addr(c, lenp);
	else if (c->failed || out == in)
		tp_fmt(c, "[%u]", in);
	else
		tp_fmt(c, "[%u => %u]", in, out);
}

int trc_dec_accept(struct trc_call *c)
{
	if (!c->exiting) {
		tp_fd(c, c->a[0]);
		tp_sep(c);
		addr_out_entry(c, c->a[2]);
		return 0;
	}
	addr_out_exit(c, c->a[1], c->a[2]);
	return RV_FD;
}

int trc_dec_accept4(struct trc_call *c)
{
	if (!c->exiting)
		return trc_dec_accept(c);
	addr_out_exit(c, c->a[1], c->a[2]);
	tp_sep(c);
	tp_flags(c, sock_type_flags, (uint32_t)c->a[3], "SOCK_???");
	return RV_FD;
}

int trc_dec_getsockname(struct trc_call *c)
{
	if (!c->exiting) {
		tp_fd(c, c->a[0]);
		tp_sep(c);
		addr_out_entry(c, c->a[2]);
		return 0;
	}
	addr_out_exit(c, c->a[1], c->a[2]);
	return RV_DEC;
}

int trc_dec_sendto(struct trc_call *c)
{
	tp_fd(c, c->a[0]);
	tp_sep(c);
	tp_buf(c, c->a[1], c->a[2]);
	tp_sep(c);
	tp_udec(c, c->a[2]);
	tp_sep(c);
	tp_flags(c, trc_msg_flags, (uint32_t)c->a[3], "MSG_???");
	tp_sep(c);
	tp_sockaddr(c, c->a[4], (uint32_t)c->a[5]);
	tp_sep(c);
	tp_udec(c, (uint32_t)c->a[5]);
	return RV_DECODED;
}

int trc_dec_recvfrom(struct trc_call *c)
{
	if (!c->exiting) {
		tp_fd(c, c->a[0]);
		tp_sep(c);
		addr_out_entry(c, c->a[5]);
		return 0;
	}
	if (tp_failed(c))
		tp_addr(c, c->a[1]);
	else
		tp_buf(c, c->a[1], (uint64_t)c->ret);
	tp_sep(c);
	tp_udec(c, c->a[2]);
	tp_sep(c);
	tp_flags(c, trc_msg_flags, (uint32_t)c->a[3], "MSG_???");
	tp_sep(c);
	addr_out_exit(c, c->a[4], c->a[5]);
	return RV_DEC;
}

/* 26 is SO_GET_FILTER to getsockopt, SO_ATTACH_FILTER to setsockopt. */
static void print_so_name(struct trc_call *c, unsigned name, bool get)
{
	if (name == 26)
		tp_str(c, get ? "SO_GET_FILTER" : "SO_ATTACH_FILTER");
	else
		tp_xval(c, sol_socket_opts, name, "SO_???");
}

static void print_opt_name(struct trc_call *c, unsigned level, unsigned name, bool get)
{
	tp_xval_dec(c, trc_sock_levels, level, "SOL_???");
	tp_sep(c);
	if (level == SOL_SOCKET)
		print_so_name(c, name, get);
	else if (level == SOL_TCP)
		tp_xval_dec(c, tcp_opts, name, "TCP_???");
	else
		tp_udec(c, name);
}

/* An option value: an int as [N], anything else as bytes (-s). */
/* SOL_SOCKET options whose value is an int (strace's list; the numbers are x86's). */
static const uint16_t so_int_opts[] = {
	1 /* SO_DEBUG */,
	2 /* SO_REUSEADDR */,
	5 /* SO_DONTROUTE */,
	6 /* SO_BROADCAST */,
	7 /* SO_SNDBUF */,
	8 /* SO_RCVBUF */,
	9 /* SO_KEEPALIVE */,
	10 /* SO_OOBINLINE */,
	11 /* SO_NO_CHECK */,
	12 /* SO_PRIORITY */,
	14 /* SO_BSDCOMPAT */,
	15 /* SO_REUSEPORT */,
	16 /* SO_PASSCRED */,
	18 /* SO_RCVLOWAT */,
	19 /* SO_SNDLOWAT */,
	27 /* SO_DETACH_FILTER */,
	29 /* SO_TIMESTAMP_OLD */,
	30 /* SO_ACCEPTCONN */,
	32 /* SO_SNDBUFFORCE */,
	33 /* SO_RCVBUFFORCE */,
	34 /* SO_PASSSEC */,
	35 /* SO_TIMESTAMPNS_OLD */,
	36 /* SO_MARK */,
	37 /* SO_TIMESTAMPING_OLD */,
	40 /* SO_RXQ_OVFL */,
	41 /* SO_WIFI_STATUS */,
	42 /* SO_PEEK_OFF */,
	43 /* SO_NOFCS */,
	44 /* SO_LOCK_FILTER */,
	45 /* SO_SELECT_ERR_QUEUE */,
	46 /* SO_BUSY_POLL */,
	49 /* SO_INCOMING_CPU */,
	53 /* SO_CNX_ADVICE */,
	56 /* SO_INCOMING_NAPI_ID */,
	60 /* SO_ZEROCOPY */,
	63 /* SO_TIMESTAMP_NEW */,
	64 /* SO_TIMESTAMPNS_NEW */,
	65 /* SO_TIMESTAMPING_NEW */,
	68 /* SO_DETACH_REUSEPORT_BPF */,
	69 /* SO_PREFER_BUSY_POLL */,
	70 /* SO_BUSY_POLL_BUDGET */,
	73 /* SO_RESERVE_MEM */,
	75 /* SO_RCVMARK */,
};

static bool so_int_opt(uint32_t level, uint32_t name)
{
	if (level != SOL_SOCKET)
		return false;
	for (size_t i = 0; i < sizeof(so_int_opts) / sizeof(so_int_opts[0]); i++)
		if (so_int_opts[i] == name)
			return true;
	return false;
}

/* The bytes of a field the length cuts short, in hex as strace shows them. */
static void print_hex_bytes(struct trc_call *c, const void *p, size_t n)
{
	tp_quote(c, p, n, true);
}

/* getsockopt(SO_LINGER): the fields the returned length covers. */
static void print_get_linger(struct trc_call *c, uint64_t addr, uint32_t len)
{
	int32_t l[2];

	if (len > sizeof(l))
		len = sizeof(l);
	if (tp_read_or_addr(c, addr, l, len))
		return;
	tp_str(c, "{l_onoff=");
	if (len >= 4)
		tp_fmt(c, "%d", l[0]);
	else
		print_hex_bytes(c, l, len);
	if (len > 4) {
		tp_str(c, ", l_linger=");
		if (len >= 8)
			tp_fmt(c, "%d", l[1]);
		else
			print_hex_bytes(c, &l[1], len - 4);
	}
	buf_putc(c->b, '}');
}

/* The options strace knows in SOL_SOCKET: true when printed. */
static bool print_so_opt(struct trc_call *c, uint32_t level, uint32_t name, uint64_t addr, int len,
			 bool get)
{
	int32_t v[2];

	if (!addr || !c->verbose)
		return false;
	if (level == SOL_SOCKET && name == SO_LINGER) {
		if (get)
			print_get_linger(c, addr, (uint32_t)len);
		else if (len < 8 || tp_read_or_addr(c, addr, v, sizeof(v)) == 0) {
			if (len < 8)
				tp_addr(c, addr);
			else
				tp_fmt(c, "{l_onoff=%d, l_linger=%d}", v[0], v[1]);
		}
		return true;
	}
	if (level == SOL_SOCKET && name == 74) { /* SO_TXREHASH */
		static const struct xlat txrehash[] = {
			{0, "SOCK_TXREHASH_DISABLED"},
			{1, "SOCK_TXREHASH_ENABLED"},
			{255, "SOCK_TXREHASH_DEFAULT"},
			XEND,
		};
		unsigned char b[4];

		if (len < 4 && !get)
			tp_addr(c, addr);
		else if (len < 4 && tp_read_or_addr(c, addr, b, (size_t)len) == 0)
			print_hex_bytes(c, b, (size_t)len);
		else if (len >= 4 && tp_read_or_addr(c, addr, v, 4) == 0) {
			buf_putc(c->b, '[');
			tp_xval_dec(c, txrehash, (uint64_t)(int64_t)v[0], "SOCK_TXREHASH_???");
			buf_putc(c->b, ']');
		}
		return true;
	}
	if (!so_int_opt(level, name))
		return false;
	if (len < 4) {
		unsigned char b[4];

		if (!get)
			tp_addr(c, addr);
		else if (tp_read_or_addr(c, addr, b, (size_t)len) == 0)
			print_hex_bytes(c, b, (size_t)len);
	} else if (tp_read_or_addr(c, addr, v, 4) == 0) {
		tp_fmt(c, "[%d]", v[0]);
	}
	return true;
}

static void print_opt_val(struct trc_call *c, uint64_t addr, uint32_t len)
{
	int v;

	if (len == sizeof(int) && tp_read(c, addr, &v, sizeof(v)) == 0) {
		tp_fmt(c, "[%d]", v);
		return;
	}
	if (len < 4096)
		tp_buf(c, addr, len);
	else
		tp_addr(c, addr);
}

int trc_dec_setsockopt(struct trc_call *c)
{
	tp_fd(c, c->a[0]);
	tp_sep(c);
	print_opt_name(c, (uint32_t)c->a[1], (uint32_t)c->a[2], false);
	tp_sep(c);
	if (!print_so_opt(c, (uint32_t)c->a[1], (uint32_t)c->a[2], c->a[3], (int)c->a[4], false))
		print_opt_val(c, c->a[3], (uint32_t)c->a[4]);
	tp_sep(c);
	tp_dec(c, (int32_t)c->a[4]);
	return RV_DECODED;
}

int trc_dec_getsockopt(struct trc_call *c)
{
	uint32_t in = (uint32_t)c->aux, out;
	bool read_in = c->aux >> 32 & 1;

	if (!c->exiting) {
		tp_fd(c, c->a[0]);
		tp_sep(c);
		print_opt_name(c, (uint32_t)c->a[1], (uint32_t)c->a[2], false);
		tp_sep(c);
		if (c->a[4] && tp_read(c, c->a[4], &in, sizeof(in)) == 0)
			c->aux = in | (uint64_t)1 << 32; /* bit 32: it was read */
		return 0;
	}
	if (!read_in) { /* optlen unreadable at entry: both as addresses, as strace */
		tp_addr(c, c->a[3]);
		tp_sep(c);
		tp_addr(c, c->a[4]);
		return RV_DEC;
	}
	if (tp_failed(c) || tp_read(c, c->a[4], &out, sizeof(out))) {
		tp_addr(c, c->a[3]);
		tp_sep(c);
		tp_fmt(c, "[%d]", (int32_t)in);
		return RV_DEC;
	}
	if ((int32_t)in <= 0 || (int32_t)out <= 0)
		tp_addr(c, c->a[3]);
	else if (!print_so_opt(c, (uint32_t)c->a[1], (uint32_t)c->a[2], c->a[3], (int32_t)out,
			       true))
		print_opt_val(c, c->a[3], out);
	tp_sep(c);
	if (out == in)
		tp_fmt(c, "[%d]", (int32_t)out);
	else
		tp_fmt(c, "[%d => %d]", (int32_t)in, (int32_t)out);
	return RV_DEC;
}
