/*
 * trc_sa_ax25.c: AX.25 socket addresses (amateur radio), as strace prints
 * them: a callsign is 6 shifted ASCII characters and an SSID byte; one that
 * a callsign cannot be ("VALID-13") is shown as its bytes, with the text it
 * would read as in a comment, or as its bytes alone when that text would
 * not print. A full address (digipeaters) says how many it holds.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "trc_int.h"

#define CALL_LEN  7
#define MAX_DIGIS 8
#define HEAD_LEN  16 /* family, callsign, ndigis (struct sockaddr_ax25) */

enum call_style { CALL_PLAIN, CALL_COMMENT, CALL_RAW };

static enum call_style call_style(const uint8_t *call)
{
	enum call_style st = CALL_PLAIN;
	bool space = false, chars = false;

	for (int i = 0; i < CALL_LEN - 1; i++) {
		unsigned ch = call[i];

		if (ch & 1)
			st = CALL_COMMENT;
		ch >>= 1;
		if (ch == ' ')
			space = true;
		else
			chars = true;
		if ((ch < '0' || ch > '9') && (ch < 'A' || ch > 'Z') && ch != ' ')
			st = CALL_COMMENT;
		if (ch != ' ' && space)
			st = CALL_COMMENT;
		if (ch < ' ' || ch > 0x7e || ch == '*' || ch == '/')
			return CALL_RAW;
	}
	if (call[CALL_LEN - 1] & ~0x1e)
		st = CALL_COMMENT;
	if (!chars && call[CALL_LEN - 1])
		st = CALL_COMMENT;
	return st;
}

/* "CALL-SSID", or "*" for an empty one */
static void call_text(const uint8_t *call, char out[CALL_LEN + 4])
{
	unsigned ssid = (call[CALL_LEN - 1] >> 1) & 0xf;
	size_t end, n = 0;

	for (end = CALL_LEN - 1; end; end--)
		if ((call[end - 1] >> 1) != ' ')
			break;
	for (size_t i = 0; i < end; i++)
		out[n++] = (char)(call[i] >> 1);
	out[n++] = '-';
	if (ssid > 9) {
		out[n++] = '1';
		ssid -= 10;
	}
	out[n++] = (char)('0' + ssid);
	out[n] = 0;
	if (out[0] == '-' && out[1] == '0')
		strcpy(out, "*");
}

static void print_call(struct trc_call *c, const uint8_t *call)
{
	enum call_style st = call_style(call);
	char text[CALL_LEN + 4];

	if (st != CALL_PLAIN) {
		tp_str(c, "{ax25_call=");
		tp_quote(c, call, CALL_LEN, true);
		tp_str(c, "}");
	}
	if (st == CALL_RAW)
		return;
	call_text(call, text);
	if (st == CALL_COMMENT)
		tp_fmt(c, " /* %s */", text);
	else
		tp_str(c, text);
}

void trc_sa_ax25(struct trc_call *c, const unsigned char *buf, size_t len)
{
	int32_t ndigis;
	size_t has, want, n;
	bool full;

	memcpy(&ndigis, buf + 12, sizeof(ndigis)); /* (after the callsign, int-aligned) */
	full = ndigis || len > HEAD_LEN;
	if (full)
		tp_str(c, "fsa_ax25={");
	tp_str(c, "sax25_call=");
	print_call(c, buf + 2);
	tp_fmt(c, ", sax25_ndigis=%d", ndigis);
	if (!full)
		return;
	tp_str(c, "}");
	has = (len - HEAD_LEN) / CALL_LEN;
	if (has > MAX_DIGIS)
		has = MAX_DIGIS;
	want = ndigis > 0 ? (size_t)ndigis : 0;
	if (want > MAX_DIGIS)
		want = MAX_DIGIS;
	n = has < want ? has : want;
	if (want) {
		tp_str(c, ", fsa_digipeater=[");
		for (size_t i = 0; i < n; i++) {
			if (i)
				tp_str(c, ", ");
			print_call(c, buf + HEAD_LEN + i * CALL_LEN);
		}
		if (want > has)
			tp_str(c, n ? ", ..." : "...");
		tp_str(c, "]");
	}
	if (len > has * CALL_LEN + HEAD_LEN)
		tp_str(c, ", ...");
}
