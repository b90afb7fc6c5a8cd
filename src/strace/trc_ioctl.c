/*
 * trc_ioctl.c: ioctl, for the requests programs make most: the terminal
 * ones (TCGETS & co, window size, process group) and FIONREAD/FIONBIO;
 * the socket requests are trc_sockios.c's.
 *
 * Other requests print as strace prints an unknown one: the _IOC()
 * fields of the number, then the argument in hex.
 */
#include <asm/ioctls.h>
#include <asm/termbits.h>
#include <sys/ioctl.h>
#include <stdint.h>

#include "trc_int.h"

static const struct xlat requests[] = {
	XV(TCGETS),
	XV(TCSETS),
	XV(TCSETSW),
	XV(TCSETSF),
	XV(TCGETA),
	XV(TCSETA),
	XV(TCSETAW),
	XV(TCSETAF),
	XV(TCSBRK),
	XV(TCXONC),
	XV(TCFLSH),
	XV(TIOCEXCL),
	XV(TIOCNXCL),
	XV(TIOCSCTTY),
	XV(TIOCGPGRP),
	XV(TIOCSPGRP),
	XV(TIOCOUTQ),
	XV(TIOCSTI),
	XV(TIOCGWINSZ),
	XV(TIOCSWINSZ),
	XV(TIOCMGET),
	XV(TIOCMBIS),
	XV(TIOCMBIC),
	XV(TIOCMSET),
	XV(TIOCGSOFTCAR),
	XV(TIOCSSOFTCAR),
	XV(FIONREAD),
	XV(TIOCLINUX),
	XV(TIOCCONS),
	XV(TIOCGSERIAL),
	XV(TIOCSSERIAL),
	XV(TIOCPKT),
	XV(FIONBIO),
	XV(TIOCNOTTY),
	XV(TIOCSETD),
	XV(TIOCGETD),
	XV(TCSBRKP),
	XV(TIOCSBRK),
	XV(TIOCCBRK),
	XV(TIOCGSID),
	XV(TCGETS2),
	XV(TCSETS2),
	XV(TCSETSW2),
	XV(TCSETSF2),
	XV(TIOCGPTN),
	XV(TIOCSPTLCK),
	XV(TIOCGDEV),
	XV(TIOCSIG),
	XV(TIOCVHANGUP),
	XV(TIOCGPKT),
	XV(TIOCGPTLCK),
	XV(TIOCGEXCL),
	XV(TIOCGPTPEER),
	XV(FIONCLEX),
	XV(FIOCLEX),
	XV(FIOASYNC),
	XV(TIOCSERCONFIG),
	XV(TIOCSERGWILD),
	XV(TIOCSERSWILD),
	XV(TIOCGLCKTRMIOS),
	XV(TIOCSLCKTRMIOS),
	XV(TIOCSERGSTRUCT),
	XV(TIOCSERGETLSR),
	XV(FIOQSIZE),
	XEND,
};

static const struct xlat bauds[] = {
	XV(B0),	      XV(B50),	    XV(B75),	  XV(B110),	XV(B134),     XV(B150),
	XV(B200),     XV(B300),	    XV(B600),	  XV(B1200),	XV(B1800),    XV(B2400),
	XV(B4800),    XV(B9600),    XV(B19200),	  XV(B38400),	XV(B57600),   XV(B115200),
	XV(B230400),  XV(B460800),  XV(B500000),  XV(B576000),	XV(B921600),  XV(B1000000),
	XV(B1152000), XV(B1500000), XV(B2000000), XV(B2500000), XV(B3000000), XV(B3500000),
	XV(B4000000), XEND,
};

/* strace's short form of a termios: speed and the four flags people look at. */
static void print_termios(struct trc_call *c, uint64_t addr)
{
	struct termios t;
	const char *baud;

	if (tp_read_or_addr(c, addr, &t, sizeof(t)))
		return;
	baud = xlat_name(bauds, t.c_cflag & CBAUD);
	buf_putc(c->b, '{');
	if (baud)
		tp_str(c, baud);
	else
		tp_fmt(c, "%#x", t.c_cflag & CBAUD);
	tp_fmt(c, " %sopost %sisig %sicanon %secho ...}", t.c_oflag & OPOST ? "" : "-",
	       t.c_lflag & ISIG ? "" : "-", t.c_lflag & ICANON ? "" : "-",
	       t.c_lflag & ECHO ? "" : "-");
}

static void print_winsize(struct trc_call *c, uint64_t addr)
{
	struct winsize w;

	if (tp_read_or_addr(c, addr, &w, sizeof(w)))
		return;
	tp_fmt(c, "{ws_row=%u, ws_col=%u, ws_xpixel=%u, ws_ypixel=%u}", w.ws_row, w.ws_col,
	       w.ws_xpixel, w.ws_ypixel);
}

static void print_int_at(struct trc_call *c, uint64_t addr)
{
	int v;

	if (tp_read_or_addr(c, addr, &v, sizeof(v)) == 0)
		tp_fmt(c, "[%d]", v);
}

static void print_request(struct trc_call *c, uint32_t req)
{
	static const char *const dirs[] = {"_IOC_NONE", "_IOC_WRITE", "_IOC_READ",
					   "_IOC_READ|_IOC_WRITE"};
	const char *name = xlat_name(requests, req);

	if (name) {
		tp_str(c, name);
		return;
	}
	tp_fmt(c, "_IOC(%s, %#x, %#x, %#x)", dirs[(req >> 30) & 3], (req >> 8) & 0xff, req & 0xff,
	       (req >> 16) & 0x3fff);
}

/* Requests whose argument is the tracee's answer (printed at exit). */
static bool out_arg(uint32_t req)
{
	switch (req) {
	case TCGETS:
	case TIOCGWINSZ:
	case TIOCGPGRP:
	case TIOCGSID:
	case FIONREAD:
	case TIOCOUTQ:
	case TIOCGPTN:
		return true;
	}
	return false;
}

static void print_out_arg(struct trc_call *c, uint32_t req, uint64_t arg)
{
	if (c->failed) {
		tp_addr(c, arg);
		return;
	}
	if (req == TCGETS)
		print_termios(c, arg);
	else if (req == TIOCGWINSZ)
		print_winsize(c, arg);
	else
		print_int_at(c, arg);
}

int trc_dec_ioctl(struct trc_call *c)
{
	uint32_t req = (uint32_t)c->a[1];

	int rv;

	if (c->exiting) {
		rv = trc_sockios_exit(c, req, c->a[2]);
		if (rv >= 0)
			return rv;
		tp_sep(c);
		print_out_arg(c, req, c->a[2]);
		return RV_DEC;
	}
	tp_fd(c, c->a[0]);
	tp_sep(c);
	rv = trc_sockios_entry(c, req, c->a[2]); /* trc_sockios.c: socket requests */
	if (rv >= 0)
		return rv;
	print_request(c, req);
	if (out_arg(req))
		return 0;
	switch (req) {
	case TCSETS:
	case TCSETSW:
	case TCSETSF:
		tp_sep(c);
		print_termios(c, c->a[2]);
		break;
	case TIOCSWINSZ:
		tp_sep(c);
		print_winsize(c, c->a[2]);
		break;
	case TIOCSPGRP:
	case FIONBIO:
	case FIOASYNC:
	case TIOCSPTLCK:
		tp_sep(c);
		print_int_at(c, c->a[2]);
		break;
	case FIOCLEX:
	case FIONCLEX:
	case TIOCNOTTY:
	case TIOCEXCL:
	case TIOCNXCL:
		break;
	default:
		tp_sep(c);
		tp_hex(c, c->a[2]);
	}
	return RV_DECODED;
}
