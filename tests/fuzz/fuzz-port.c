// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness: frames from the wire into the port engine with the 802.1AS and automotive
 * behaviours on (Follow_Up information TLV, path trace, asCapable, Signaling interval requests,
 * operational intervals), as a master and as a slave, and twice more with unicast negotiation
 * (IEEE 1588-2019 16.1) as grantor and grantee with E2E, over UDPv4 and over L2, each frame from
 * the table's master or from an address its octet 16 (messageTypeSpecific, ignored) picks (over
 * L2 one of them PTP's group MAC, which no station sends from). Input: frames, each a 2-byte
 * big-endian length and that many bytes; every frame gets an RX timestamp and a tick. Nothing
 * may crash, read out of bounds or leave a log interval outside -7..7, and no address of the
 * port's unicast table may be one no unicast message can go to.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptp/clock.h"
#include "ptp/port.h"
#include "ptp/unicast-table.h"
#include "tests/doubles/clock-sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define START (1000 * NS_PER_SEC)

static int fuzz_send(void *userdata, const void *buf, size_t len, bool pdelay, bool event,
		     ns_t *ret_tx_ts)
{
	struct clock *c = userdata;

	if (event) {
		return clock_get_time(c, ret_tx_ts);
	}
	return (int) len;
}

static int fuzz_send_unicast(void *userdata, const void *buf, size_t len,
			     const struct port_address *to, bool event, ns_t *ret_tx_ts)
{
	struct unicast_addr a;

	if (to->len != 4 && to->len != 6) {
		abort(); /* the engine hands back only the addresses it was given */
	}
	if (unicast_addr_from_bytes(to->bytes, to->len, &a) < 0) {
		return -ENOTCONN; /* as the transports: no single peer there */
	}
	return fuzz_send(userdata, buf, len, false, event, ret_tx_ts);
}

static const struct port_ops ops = { .send = fuzz_send, .send_unicast = fuzz_send_unicast };

enum mode {
	MODE_MASTER,
	MODE_SLAVE,
	MODE_UNICAST,
	MODE_UNICAST_L2,
};

/* The source of a frame in the unicast modes: the table's master (k 0) or one of 7 others. */
static void unicast_from(bool l2, uint8_t k, struct port_address *ret)
{
	static const struct port_address group = { 6, { 0x01, 0x1b, 0x19, 0, 0, 0 } };

	if (!l2) {
		*ret = (struct port_address){ 4, { 192, 0, 2, (uint8_t) (1 + k) } };
	} else if (k == 7) {
		*ret = group;
	} else {
		*ret = (struct port_address){ 6, { 0x02, 0, 0, 0, 0, (uint8_t) (1 + k) } };
	}
}

/* Every address of the port's unicast table is one a unicast message can go to. */
static void check_table(const struct port *p, ns_t now)
{
	struct port_uc_entry e[32];
	size_t n = port_unicast_table(p, now, e, 32);

	for (size_t k = 0; k < n && k < 32; k++) {
		struct unicast_addr back;

		if (unicast_addr_from_bytes(e[k].addr.bytes, e[k].addr.len, &back) < 0) {
			fprintf(stderr,
				"fuzz-port: a unicast table entry that is no unicast peer\n");
			abort();
		}
	}
}

static void run(const uint8_t *data, size_t size, enum mode mode)
{
	bool slave = mode == MODE_SLAVE;
	struct clock_sim_config cc = { .start = START, .seed = 1 };
	struct port_config pc;
	struct clock *clk = NULL;
	struct port *p = NULL;
	ns_t now = START;
	size_t pos = 0;

	if (clock_sim_new(&cc, &clk) < 0) {
		abort();
	}
	port_config_default(&pc);
	pc.clockIdentity.id[0] = 0x02;
	pc.clockIdentity.id[7] = 0x01;
	pc.port.follow_up_info = true;
	pc.port.path_trace_enabled = true;
	pc.port.transportSpecific = 1;
	pc.port.delay_mechanism = DELAY_MECHANISM_P2P;
	pc.port.neighborPropDelayThresh = 100000;
	if (slave) {
		/* a designated slave that takes any Sync and switches intervals once stable */
		pc.port.BMCA = OPTIONS_BMCA_NOOP;
		pc.instance.slaveOnly = true;
		pc.port.ignore_source_id = true;
		pc.port.asCapable = OPTIONS_AS_CAPABLE_TRUE;
		pc.port.msg_interval_request = true;
		pc.port.operLogPdelayReqInterval = 2;
	}
	if (mode == MODE_UNICAST || mode == MODE_UNICAST_L2) {
		struct port_address master;

		unicast_from(mode == MODE_UNICAST_L2, 0, &master);
		pc.port.follow_up_info = false;
		pc.port.path_trace_enabled = false;
		pc.port.transportSpecific = 0;
		pc.port.delay_mechanism = DELAY_MECHANISM_E2E;
		pc.port.network_transport = mode == MODE_UNICAST_L2 ? OPTIONS_TRANSPORT_L2
								    : OPTIONS_TRANSPORT_UDPV4;
		pc.port.unicast_listen = true;
		pc.port.inhibit_multicast_service = true;
		pc.port.unicast_peers_max = 4;
		pc.port.unicast_master_table = 1;
		pc.port.unicast_table = (struct unicast_master_table){ .table_id = 1, .n = 1 };
		if (unicast_addr_from_bytes(master.bytes, master.len,
					    &pc.port.unicast_table.addr[0]) < 0) {
			abort();
		}
	}
	if (port_new(&pc, clk, &ops, clk, &p) < 0 || port_start(p, now) < 0) {
		abort();
	}
	while (pos + 2 <= size) {
		size_t n = ((size_t) data[pos] << 8) | data[pos + 1];
		ns_t rx;

		pos += 2;
		if (n > size - pos) {
			n = size - pos;
		}
		now += 10 * NS_PER_MSEC;
		(void) clock_get_time(clk, &rx);
		if (mode == MODE_UNICAST || mode == MODE_UNICAST_L2) {
			/* the table's master, or one of 7 others: messageTypeSpecific's first octet
			 */
			struct port_address from;

			unicast_from(mode == MODE_UNICAST_L2, n > 16 ? data[pos + 16] & 0x7 : 0,
				     &from);
			(void) port_receive_from(p, data + pos, n, rx, &from, now);
		} else {
			(void) port_receive(p, data + pos, n, rx, now);
		}
		(void) port_tick(p, now);
		pos += n;
		if (port_port_ds(p)->logSyncInterval < -7 || port_port_ds(p)->logSyncInterval > 7 ||
		    port_port_ds(p)->logMinPdelayReqInterval < -7 ||
		    port_port_ds(p)->logMinPdelayReqInterval > 7) {
			fprintf(stderr, "fuzz-port: a log interval outside -7..7\n");
			abort();
		}
	}
	check_table(p, now);
	port_free(p);
	clock_free(clk);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	run(data, size, MODE_MASTER);
	run(data, size, MODE_SLAVE);
	run(data, size, MODE_UNICAST);
	run(data, size, MODE_UNICAST_L2);
	return 0;
}
