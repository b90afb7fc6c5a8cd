/*
 * gdb_dispatch_test: the packet table. No entry may be shadowed by an
 * earlier one (the QTDP/QTDPsrc trap: a shorter prefix listed first would
 * swallow the longer name), every packet gdb sends finds its handler, and
 * names that merely start like a packet do not.
 */
#include "tap.h"

#include <string.h>

#include "gdb/gdb.h"

static const struct gdb_packet *find(const char *p)
{
	return gdb_packet_find(p, strlen(p));
}

/* The example packet of each entry, as gdb would send it. */
static const char *example(const struct gdb_packet *gp, char *out, size_t len)
{
	snprintf(out, len, "%s%s", gp->name, gp->match == GDB_EXACT ? "" : ":x");
	if (gp->match == GDB_PREFIX)
		snprintf(out, len, "%s1", gp->name);
	return out;
}

int main(void)
{
	static const struct {
		const char *pkt;
		const char *want; /* entry name, or NULL for "unknown" */
	} cases[] = {
		{"vCont?", "vCont?"},
		{"vCont;c", "vCont"},
		{"vContX", NULL},
		{"qSupported:multiprocess+", "qSupported"},
		{"qSupportedX", NULL},
		{"qXfer:features:read:target.xml:0,fff", "qXfer:features:read"},
		{"qXfer:featuresX", NULL},
		{"QStartNoAckMode", "QStartNoAckMode"},
		{"QStartNoAckModeX", NULL},
		{"g", "g"},
		{"gX", NULL},
		{"m1000,4", "m"},
		{"D", "D"},
		{"D;1234", "D"},
		{"vMustReplyEmpty", NULL},
		{"qTStatus", "qTStatus"},
		{"QTDPsrc:1:400:cmd:0:4:6869", "QTDPsrc"},
		{"QTDP:1:400:E:0:0", "QTDP"},
		{"QTDPX", NULL},
		{"qTfSTM", NULL},
		{"", NULL},
	};
	char buf[128];

	for (size_t i = 0; i < gdb_npackets; i++) {
		const struct gdb_packet *gp = &gdb_packets[i];

		is_str(find(example(gp, buf, sizeof(buf)))->name, gp->name,
		       "entry %zu (%s) is reached, not shadowed", i, gp->name);
		ok(gp->fn != NULL, "entry %s has a handler", gp->name);
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct gdb_packet *gp = find(cases[i].pkt);

		if (cases[i].want)
			is_str(gp ? gp->name : "(none)", cases[i].want, "'%s' dispatches",
			       cases[i].pkt);
		else
			ok(gp == NULL, "'%s' is unknown (empty reply)", cases[i].pkt);
	}
	return done_testing();
}
