// SPDX-License-Identifier: GPL-2.0-or-later
/* The clock-level decision: invariants over random clocks, masterOnly, the data sets of 9.3.5. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "ptp/bmca-clock.h"
#include "ptp/util.h"

#define SELF 0x90
#define MAX_PORTS 8
#define ROUNDS 20000

static struct ClockIdentity cid(uint8_t last)
{
	return (struct ClockIdentity){ .id = { 0x00, 0x11, 0x22, 0xff, 0xfe, 0x00, 0x00, last } };
}

static struct PortIdentity pid(uint8_t clock, uint16_t port)
{
	return (struct PortIdentity){ .clockIdentity = cid(clock), .portNumber = port };
}

static uint64_t rng = 88172645463325252ULL;

static unsigned int draw(unsigned int n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned int) (rng % n);
}

static struct defaultDS own_dds(uint8_t clock_class, uint8_t priority1, bool slave_only)
{
	return (struct defaultDS){
		.clockIdentity = cid(SELF),
		.numberPorts = MAX_PORTS,
		.clockQuality = { clock_class, 0xFE, 0xFFFF },
		.priority1 = priority1,
		.priority2 = 128,
		.slaveOnly = slave_only,
	};
}

static const struct timePropertiesDS own_tp = { .currentUtcOffset = 37, .timeSource = 0xA0 };

/*
 * A random clock: a few grandmasters (some the same one over several paths), heard or not on each
 * port, the clock's own class and priority1 drawn around theirs. Port k has portNumber k + 1.
 */
static void random_clock(struct defaultDS *dds, struct bmca_clock_port *ports, size_t n)
{
	static const uint8_t classes[] = { 6, 7, 127, 135, 248 };

	*dds = own_dds(classes[draw(ARRAY_SIZE(classes))], (uint8_t) (100 + 20 * draw(4)),
		       draw(8) == 0);
	for (size_t k = 0; k < n; k++) {
		struct bmca_clock_port *p = &ports[k];
		uint8_t gm = (uint8_t) (0x40 + draw(3));

		memset(p, 0, sizeof(*p));
		p->state = draw(2) ? PORT_STATE_LISTENING : PORT_STATE_MASTER;
		p->rules.masterOnly = draw(5) == 0;
		p->has_erbest = draw(4) != 0;
		if (!p->has_erbest) {
			continue;
		}
		p->erbest = (struct bmca_dataset){
			.priority1 = (uint8_t) (100 + 20 * (gm & 3)),
			.identity = cid(gm),
			.quality = { gm == 0x40 ? 6 : 248, 0xFE, 0xFFFF },
			.priority2 = 128,
			.stepsRemoved = (uint16_t) draw(4),
			.sender = pid((uint8_t) (0x60 + draw(4)), (uint16_t) (1 + draw(2))),
			.receiver = pid(SELF, (uint16_t) (k + 1)),
		};
		p->erbest_tp = (struct timePropertiesDS){ .currentUtcOffset = 37,
							  .ptpTimescale = true,
							  .timeSource = 0x20 };
	}
}

static void assert_result_equal(const struct bmca_clock_result *a,
				const struct bmca_clock_result *b)
{
	assert_int_equal(a->cds.stepsRemoved, b->cds.stepsRemoved);
	assert_memory_equal(&a->pds.parentPortIdentity, &b->pds.parentPortIdentity,
			    sizeof(a->pds.parentPortIdentity));
	assert_memory_equal(&a->pds.grandmasterIdentity, &b->pds.grandmasterIdentity,
			    sizeof(a->pds.grandmasterIdentity));
	assert_memory_equal(&a->pds.grandmasterClockQuality, &b->pds.grandmasterClockQuality,
			    sizeof(a->pds.grandmasterClockQuality));
	assert_int_equal(a->pds.grandmasterPriority1, b->pds.grandmasterPriority1);
	assert_int_equal(a->pds.grandmasterPriority2, b->pds.grandmasterPriority2);
	assert_int_equal(a->pds.observedParentOffsetScaledLogVariance,
			 b->pds.observedParentOffsetScaledLogVariance);
	assert_int_equal(a->pds.observedParentClockPhaseChangeRate,
			 b->pds.observedParentClockPhaseChangeRate);
	assert_int_equal(a->tp.currentUtcOffset, b->tp.currentUtcOffset);
	assert_int_equal(a->tp.ptpTimescale, b->tp.ptpTimescale);
	assert_int_equal(a->tp.timeSource, b->tp.timeSource);
}

/* Invariant: the decisions and data sets do not depend on the order of the ports. */
static void test_order_independent(void **state)
{
	for (int round = 0; round < ROUNDS; round++) {
		struct bmca_clock_port ports[MAX_PORTS], shuffled[MAX_PORTS];
		struct bmca_clock_decision dec[MAX_PORTS], sdec[MAX_PORTS];
		struct bmca_clock_result res, sres;
		size_t n = 1 + draw(MAX_PORTS), where[MAX_PORTS];
		struct defaultDS dds;

		random_clock(&dds, ports, n);
		for (size_t k = 0; k < n; k++) {
			where[k] = k;
		}
		for (size_t k = n - 1; k > 0; k--) {
			size_t j = draw((unsigned int) k + 1), t = where[k];

			where[k] = where[j];
			where[j] = t;
		}
		for (size_t k = 0; k < n; k++) {
			shuffled[where[k]] = ports[k];
		}
		bmca_clock_decide(&dds, &own_tp, ports, n, dec, &res);
		bmca_clock_decide(&dds, &own_tp, shuffled, n, sdec, &sres);
		for (size_t k = 0; k < n; k++) {
			assert_int_equal(dec[k].decision, sdec[where[k]].decision);
			assert_int_equal(dec[k].state, sdec[where[k]].state);
		}
		assert_int_equal(res.ebest < 0, sres.ebest < 0);
		if (res.ebest >= 0) {
			assert_int_equal(where[res.ebest], sres.ebest);
		}
		assert_result_equal(&res, &sres);
	}
}

/*
 * Invariant: with one port the decision is the ordinary clock's: figure 33 with the port's
 * Erbest as Ebest (bmca_state_decision), Table 30 on S1 and Table 27 otherwise.
 */
static void test_one_port_is_ordinary_clock(void **state)
{
	for (int round = 0; round < ROUNDS; round++) {
		struct bmca_clock_port port;
		struct bmca_clock_decision dec;
		struct bmca_clock_result res, want = { 0 };
		struct defaultDS dds;
		struct bmca_dataset d0;
		const struct bmca_dataset *e;
		enum bmca_decision d;

		random_clock(&dds, &port, 1);
		port.rules.masterOnly = false;
		e = port.has_erbest ? &port.erbest : NULL;
		bmca_dataset_from_default(&dds, &d0);
		d = bmca_state_decision(&d0, e, e, true, dds.slaveOnly, port.state);
		bmca_clock_decide(&dds, &own_tp, &port, 1, &dec, &res);
		assert_int_equal(dec.decision, d);
		assert_int_equal(dec.state, bmca_decision_to_state(d, port.state));
		if (d == BMCA_DECISION_S1) {
			bmca_update_slave(&port.erbest, &port.erbest_tp, &want.cds, &want.pds,
					  &want.tp);
			assert_int_equal(res.ebest, 0);
		} else {
			bmca_update_master(&dds, &want.cds, &want.pds);
			want.tp = own_tp;
		}
		assert_result_equal(&res, &want);
	}
}

/*
 * Invariant: a masterOnly port's Erbest never becomes Ebest, the port is never SLAVE, and the
 * clock never names a grandmaster heard only there.
 */
static void test_master_only_never_ebest(void **state)
{
	for (int round = 0; round < ROUNDS; round++) {
		struct bmca_clock_port ports[MAX_PORTS];
		struct bmca_clock_decision dec[MAX_PORTS];
		struct bmca_clock_result res;
		size_t n = 1 + draw(MAX_PORTS);
		struct defaultDS dds;
		bool heard_elsewhere;

		random_clock(&dds, ports, n);
		bmca_clock_decide(&dds, &own_tp, ports, n, dec, &res);
		for (size_t k = 0; k < n; k++) {
			if (ports[k].rules.masterOnly) {
				assert_int_not_equal(res.ebest, (int) k);
				assert_int_not_equal(dec[k].state, PORT_STATE_SLAVE);
			}
		}
		heard_elsewhere = clock_identity_equal(&res.pds.grandmasterIdentity,
						       &dds.clockIdentity);
		for (size_t k = 0; k < n; k++) {
			heard_elsewhere |= !ports[k].rules.masterOnly && ports[k].has_erbest &&
					   clock_identity_equal(&ports[k].erbest.identity,
								&res.pds.grandmasterIdentity);
		}
		assert_true(heard_elsewhere);
	}
}

/*
 * The boundary-clock case as it was seen: a better clock heard only on a masterOnly port (2)
 * while the real grandmaster is heard on port 1: the clock follows port 1 and port 2 stays
 * MASTER, announcing that grandmaster, not the better clock.
 */
static void test_master_only_boundary_clock(void **state)
{
	struct defaultDS dds = own_dds(248, 128, false);
	struct bmca_clock_port ports[2] = {
		{ .state = PORT_STATE_SLAVE,
		  .has_erbest = true,
		  .erbest = { 100,
			      cid(0x40),
			      { 248, 0xFE, 0xFFFF },
			      128,
			      0,
			      pid(0x40, 1),
			      pid(SELF, 1) } },
		{ .state = PORT_STATE_MASTER,
		  .has_erbest = true,
		  .erbest = { 50,
			      cid(0x41),
			      { 6, 0x21, 0x100 },
			      128,
			      0,
			      pid(0x41, 1),
			      pid(SELF, 2) },
		  .rules.masterOnly = true },
	};
	const struct ClockIdentity gm = cid(0x40);
	struct bmca_clock_decision dec[2];
	struct bmca_clock_result res;

	bmca_clock_decide(&dds, &own_tp, ports, 2, dec, &res);
	assert_int_equal(res.ebest, 0);
	assert_int_equal(dec[0].decision, BMCA_DECISION_S1);
	assert_int_equal(dec[1].state, PORT_STATE_MASTER);
	assert_true(clock_identity_equal(&res.pds.grandmasterIdentity, &gm));
	assert_int_equal(res.cds.stepsRemoved, 1);

	/* Heard on the masterOnly port alone, the better clock leaves us grandmaster (M2). */
	ports[0].has_erbest = false;
	bmca_clock_decide(&dds, &own_tp, ports, 2, dec, &res);
	assert_int_equal(res.ebest, -ENOENT);
	assert_int_equal(dec[1].decision, BMCA_DECISION_M2);
	assert_true(clock_identity_equal(&res.pds.grandmasterIdentity, &dds.clockIdentity));
}

/* 9.3.5: the data sets of Table 27 and Table 30, observedParent* "not computed" in both. */
/*
 * The instance's comparison ranks the Erbests of its ports: a grandmaster of priority1 10 on
 * port 1 against one of priority1 200 on port 2, whose localPriority is 100. 1588 follows port 1;
 * G.8275.x ignores priority1, and port 2's localPriority wins.
 */
static void test_g8275_clock(void **state)
{
	struct defaultDS dds = own_dds(248, 128, false);
	struct bmca_clock_port ports[2] = { 0 };
	struct bmca_clock_decision dec[2];
	struct bmca_clock_result res;

	dds.localPriority = 128;
	for (int k = 0; k < 2; k++) {
		ports[k].state = PORT_STATE_LISTENING;
		ports[k].has_erbest = true;
		ports[k].erbest = (struct bmca_dataset){
			.priority1 = k == 0 ? 10 : 200,
			.identity = cid(0x40 + k),
			.quality = { 248, 0xFE, 0xFFFF },
			.priority2 = 128,
			.stepsRemoved = 0,
			.sender = pid(0x40 + k, 1),
			.receiver = pid(SELF, k + 1),
			.localPriority = k == 0 ? 128 : 100,
		};
	}
	bmca_clock_decide(&dds, &own_tp, ports, 2, dec, &res);
	assert_int_equal(res.ebest, 0);
	assert_int_equal(dec[0].decision, BMCA_DECISION_S1);
	assert_int_equal(dec[1].decision, BMCA_DECISION_M3);

	dds.comparison = BMCA_COMPARISON_G8275;
	bmca_clock_decide(&dds, &own_tp, ports, 2, dec, &res);
	assert_int_equal(res.ebest, 1);
	assert_int_equal(dec[0].decision, BMCA_DECISION_M3);
	assert_int_equal(dec[1].decision, BMCA_DECISION_S1);
	assert_int_equal(res.pds.grandmasterIdentity.id[7], 0x41);

	/* D0 with a better localPriority than either (both grandmasters have class 248 too) */
	dds.localPriority = 50;
	bmca_clock_decide(&dds, &own_tp, ports, 2, dec, &res);
	assert_int_equal(dec[0].decision, BMCA_DECISION_M2);
	assert_int_equal(dec[1].decision, BMCA_DECISION_M2);
}

static void test_data_sets(void **state)
{
	struct defaultDS dds = own_dds(248, 128, false);
	struct bmca_clock_port ports[2] = {
		{ .state = PORT_STATE_LISTENING },
		{ .state = PORT_STATE_LISTENING,
		  .has_erbest = true,
		  .erbest = { 100,
			      cid(0x40),
			      { 6, 0x21, 0x4E5D },
			      127,
			      2,
			      pid(0x61, 3),
			      pid(SELF, 2) },
		  .erbest_tp = { .currentUtcOffset = 37,
				 .currentUtcOffsetValid = true,
				 .ptpTimescale = true,
				 .timeSource = 0x20 } },
	};
	struct bmca_clock_decision dec[2];
	struct bmca_clock_result res;

	bmca_clock_decide(&dds, &own_tp, ports, 2, dec, &res);
	assert_int_equal(dec[0].decision, BMCA_DECISION_NONE);
	assert_int_equal(dec[0].state, PORT_STATE_LISTENING);
	assert_int_equal(dec[1].decision, BMCA_DECISION_S1);
	assert_int_equal(res.cds.stepsRemoved, 3);
	assert_true(port_identity_equal(&res.pds.parentPortIdentity, &ports[1].erbest.sender));
	assert_int_equal(res.pds.grandmasterPriority2, 127);
	assert_int_equal(res.pds.grandmasterClockQuality.offsetScaledLogVariance, 0x4E5D);
	assert_int_equal(res.pds.observedParentOffsetScaledLogVariance, 0xFFFF);
	assert_int_equal(res.pds.observedParentClockPhaseChangeRate, 0x7FFFFFFF);
	assert_true(res.tp.ptpTimescale && res.tp.currentUtcOffsetValid);

	/* Nobody heard, a LISTENING port with a MASTER beside it: Table 27, own time properties. */
	ports[1].has_erbest = false;
	ports[1].state = PORT_STATE_MASTER;
	bmca_clock_decide(&dds, &own_tp, ports, 2, dec, &res);
	assert_int_equal(dec[1].decision, BMCA_DECISION_M2);
	assert_int_equal(res.cds.stepsRemoved, 0);
	assert_true(clock_identity_equal(&res.pds.grandmasterIdentity, &dds.clockIdentity));
	assert_int_equal(res.pds.parentPortIdentity.portNumber, 0);
	assert_int_equal(res.pds.observedParentOffsetScaledLogVariance, 0xFFFF);
	assert_int_equal(res.pds.observedParentClockPhaseChangeRate, 0x7FFFFFFF);
	assert_int_equal(res.tp.timeSource, 0xA0);

	/* Slave-only and nobody heard: its own parent data set, not zeros (gmPresent false). */
	dds = own_dds(255, 128, true);
	bmca_clock_decide(&dds, &own_tp, ports, 2, dec, &res);
	assert_int_equal(dec[1].state, PORT_STATE_LISTENING);
	assert_true(clock_identity_equal(&res.pds.grandmasterIdentity, &dds.clockIdentity));
	assert_int_equal(res.pds.grandmasterClockQuality.clockClass, 255);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_independent),
		cmocka_unit_test(test_one_port_is_ordinary_clock),
		cmocka_unit_test(test_master_only_never_ebest),
		cmocka_unit_test(test_master_only_boundary_clock),
		cmocka_unit_test(test_data_sets),
		cmocka_unit_test(test_g8275_clock),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
