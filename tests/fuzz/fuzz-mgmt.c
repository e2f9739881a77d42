// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer harness: management answers to any message; every answer must parse as a RESPONSE. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptp/mgmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void die(const char *what, long a)
{
	fprintf(stderr, "fuzz-mgmt: %s (%ld)\n", what, a);
	abort();
}

/* An answer is a Management RESPONSE or ACKNOWLEDGE that our own parser takes back. */
static int check(void *userdata, const void *buf, size_t len)
{
	struct msg m;

	if (len > MGMT_MSG_MAX || msg_parse(buf, len, &m) < 0) {
		die("answer does not parse", (long) len);
	}
	if (m.hdr.messageType != MSG_MANAGEMENT ||
	    (m.body.management.actionField != MSG_MANAGEMENT_RESPONSE &&
	     m.body.management.actionField != MSG_MANAGEMENT_ACKNOWLEDGE)) {
		die("answer is not a RESPONSE/ACKNOWLEDGE", m.body.management.actionField);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char long_name[] = "a-very-long-interface-name-that-is-longer-than-ifnamsiz";
	struct mgmt_port ports[2] = { 0 };
	struct mgmt_clock c = { 0 };
	struct instance_options io;
	struct mgmt_request req = { .ingress = MGMT_INGRESS_LOCAL, .set_allowed = true };
	struct mgmt_counters cnt = { 0 };
	struct mgmt_change change;
	uint64_t total = 0;
	int r;

	for (int i = 0; i < 2; i++) {
		ports[i].ds.portIdentity.portNumber = (uint16_t) (i + 1);
		ports[i].ifname = i ? long_name : "eth0";
	}
	options_instance_defaults(&io);
	io.gmCapable = size % 5 != 0;
	c.options = &io;
	options_default_ds(&io, &c.dds.clockIdentity, 2, 0, &c.dds);
	c.ports = ports;
	c.n_ports = 2;
	c.all_ports = size % 2 == 0;
	c.user_description = long_name;
	req.ingress = size % 3 == 0 ? 1 : MGMT_INGRESS_LOCAL;
	r = mgmt_handle_frame(&c, data, size, &req, check, NULL, &change, &cnt);
	if (r < 0 || r > 2) {
		die("answers", r);
	}
	for (int i = 0; i < MGMT_CNT_WRONG_LENGTH; i++) {
		total += cnt.c[i];
	}
	/* Every request lands in exactly one outcome. */
	if (total != 1) {
		die("outcomes", (long) total);
	}
	return 0;
}
