// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of ptp/bmca.c: 9.3.4 case by case, its invariants, 9.3.3 branches, 9.3.2.5. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "ptp/bmca.h"
#include "ptp/msg.h"
#include "ptp/util.h"

/* A deterministic PRNG (splitmix64) so every run generates the same cases. */
static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

static struct ClockIdentity cid(uint8_t last)
{
	return (struct ClockIdentity){ .id = { 0x00, 0x11, 0x22, 0xff, 0xfe, 0x00, 0x00, last } };
}

static struct PortIdentity pid(uint8_t clock, uint16_t port)
{
	return (struct PortIdentity){ .clockIdentity = cid(clock), .portNumber = port };
}

/* A middle-of-the-road data set each case changes one thing of. */
static struct bmca_dataset base(void)
{
	return (struct bmca_dataset){
		.priority1 = 128,
		.identity = cid(0x50),
		.quality = { .clockClass = 248,
			     .clockAccuracy = 0xFE,
			     .offsetScaledLogVariance = 0xFFFF },
		.priority2 = 128,
		.stepsRemoved = 1,
		.sender = pid(0x50, 1),
		.receiver = pid(0x90, 1),
	};
}

enum field {
	F_NONE,
	F_P1,
	F_CLASS,
	F_ACC,
	F_VAR,
	F_P2,
	F_ID,
	F_STEPS,
	F_SENDER,
	F_RECEIVER,
	F_RECEIVER_PORT,
};

struct cmp_case {
	const char *what;
	enum field fa, fb;   /* which field of a / of b to set */
	unsigned int va, vb; /* the values (identities: last octet) */
	enum field fa2, fb2; /* a second change, for part 2 cases */
	unsigned int va2, vb2;
	enum bmca_cmp want;
};

static void set_field(struct bmca_dataset *d, enum field f, unsigned int v)
{
	switch (f) {
	case F_NONE:
		break;
	case F_P1:
		d->priority1 = v;
		break;
	case F_CLASS:
		d->quality.clockClass = v;
		break;
	case F_ACC:
		d->quality.clockAccuracy = v;
		break;
	case F_VAR:
		d->quality.offsetScaledLogVariance = v;
		break;
	case F_P2:
		d->priority2 = v;
		break;
	case F_ID:
		d->identity = cid(v);
		break;
	case F_STEPS:
		d->stepsRemoved = v;
		break;
	case F_SENDER:
		d->sender = pid(v, 1);
		break;
	case F_RECEIVER:
		d->receiver = pid(v, 1);
		break;
	case F_RECEIVER_PORT:
		d->receiver.portNumber = v;
		break;
	}
}

/* IEEE 1588-2019 9.3.4 figures 34 and 35, one decision per row. */
static const struct cmp_case cmp_cases[] = {
	/* figure 34: the attributes in order, each deciding when the ones before tie */
	{ "priority1 lower wins", F_P1, F_P1, 127, 128, 0, 0, 0, 0, BMCA_A_BETTER },
	{ "priority1 higher loses", F_P1, F_P1, 129, 128, 0, 0, 0, 0, BMCA_B_BETTER },
	{ "clockClass lower wins", F_CLASS, F_CLASS, 6, 248, 0, 0, 0, 0, BMCA_A_BETTER },
	{ "clockAccuracy lower wins", F_ACC, F_ACC, 0x21, 0x22, 0, 0, 0, 0, BMCA_A_BETTER },
	{ "offsetScaledLogVariance lower wins", F_VAR, F_VAR, 0x4000, 0x4E5D, 0, 0, 0, 0,
	  BMCA_A_BETTER },
	{ "priority2 lower wins", F_P2, F_P2, 200, 100, 0, 0, 0, 0, BMCA_B_BETTER },
	{ "identity breaks the tie", F_ID, F_ID, 0x10, 0x20, 0, 0, 0, 0, BMCA_A_BETTER },
	{ "priority1 beats clockClass", F_P1, F_CLASS, 1, 6, F_CLASS, F_P1, 248, 2, BMCA_A_BETTER },
	{ "clockClass beats priority2", F_CLASS, F_P2, 6, 0, F_P2, F_CLASS, 255, 7, BMCA_A_BETTER },
	{ "identity is last: priority2 first", F_ID, F_P2, 0x01, 1, F_P2, F_ID, 2, 0x02,
	  BMCA_B_BETTER },
	{ "stepsRemoved plays no part across grandmasters", F_ID, F_ID, 0x10, 0x20, F_STEPS,
	  F_STEPS, 200, 1, BMCA_A_BETTER },
	/* figure 35: same grandmaster */
	{ "A two steps closer", F_STEPS, F_STEPS, 1, 3, 0, 0, 0, 0, BMCA_A_BETTER },
	{ "B two steps closer", F_STEPS, F_STEPS, 5, 3, 0, 0, 0, 0, BMCA_B_BETTER },
	{ "A one step further, receiver < sender", F_STEPS, F_STEPS, 2, 1, F_RECEIVER, 0, 0x10, 0,
	  BMCA_B_BETTER },
	{ "A one step further, receiver > sender", F_STEPS, F_STEPS, 2, 1, F_RECEIVER, 0, 0xA0, 0,
	  BMCA_B_BETTER_BY_TOPOLOGY },
	{ "A one step further, receiver = sender (error-1)", F_STEPS, F_STEPS, 2, 1, F_RECEIVER, 0,
	  0x50, 0, BMCA_SAME },
	{ "B one step further, receiver < sender", F_STEPS, F_STEPS, 0, 1, 0, F_RECEIVER, 0, 0x10,
	  BMCA_A_BETTER },
	{ "B one step further, receiver > sender", F_STEPS, F_STEPS, 0, 1, 0, F_RECEIVER, 0, 0xA0,
	  BMCA_A_BETTER_BY_TOPOLOGY },
	{ "B one step further, receiver = sender (error-1)", F_STEPS, F_STEPS, 0, 1, 0, F_RECEIVER,
	  0, 0x50, BMCA_SAME },
	{ "equal steps, lower sender wins by topology", F_SENDER, F_SENDER, 0x40, 0x41, 0, 0, 0, 0,
	  BMCA_A_BETTER_BY_TOPOLOGY },
	{ "equal steps, higher sender loses by topology", F_SENDER, F_SENDER, 0x42, 0x41, 0, 0, 0,
	  0, BMCA_B_BETTER_BY_TOPOLOGY },
	{ "equal senders, lower receiver port wins", F_RECEIVER_PORT, F_RECEIVER_PORT, 1, 2, 0, 0,
	  0, 0, BMCA_A_BETTER_BY_TOPOLOGY },
	{ "equal senders, higher receiver port loses", F_RECEIVER_PORT, F_RECEIVER_PORT, 3, 2, 0, 0,
	  0, 0, BMCA_B_BETTER_BY_TOPOLOGY },
	{ "everything equal (error-2)", 0, 0, 0, 0, 0, 0, 0, 0, BMCA_SAME },
};

static void test_compare_cases(void **state)
{
	unsigned int failed = 0;

	for (size_t i = 0; i < ARRAY_SIZE(cmp_cases); i++) {
		const struct cmp_case *c = &cmp_cases[i];
		struct bmca_dataset a = base(), b = base();
		enum bmca_cmp got;

		/* figure 34 cases compare different grandmasters; b's identity is the higher */
		if (c->fa != F_NONE && c->fa < F_STEPS) {
			b.identity = cid(0x51);
		}
		set_field(&a, c->fa, c->va);
		set_field(&b, c->fb, c->vb);
		set_field(&a, c->fa2, c->va2);
		set_field(&b, c->fb2, c->vb2);
		got = bmca_compare(&a, &b);
		if (got != c->want) {
			print_error("case \"%s\": expected %s, got %s\n", c->what,
				    bmca_cmp_to_string(c->want), bmca_cmp_to_string(got));
			failed++;
		}
		got = bmca_compare(&b, &a);
		if (got != (enum bmca_cmp) - c->want) {
			print_error("case \"%s\" swapped: expected %s, got %s\n", c->what,
				    bmca_cmp_to_string(-c->want), bmca_cmp_to_string(got));
			failed++;
		}
	}
	assert_int_equal(failed, 0);
}

static void test_compare_null(void **state)
{
	struct bmca_dataset a = base();

	assert_int_equal(bmca_compare(&a, NULL), BMCA_A_BETTER);
	assert_int_equal(bmca_compare(NULL, &a), BMCA_B_BETTER);
	assert_int_equal(bmca_compare(NULL, NULL), BMCA_SAME);
	assert_int_equal(bmca_compare(&a, &a), BMCA_SAME);
}

/*
 * Small value ranges so ties, equal grandmasters and the topology cases come up often. With
 * receiver_clock set, the grandmaster's attributes follow from its identity, as on a real
 * network (one grandmaster announces one set of values); without, anything goes.
 */
static void random_dataset(uint64_t *s, struct bmca_dataset *d, uint8_t receiver_clock)
{
	uint8_t gm = 1 + rnd(s) % 3;
	uint64_t g = receiver_clock ? gm * UINT64_C(0x9E3779B97F4A7C15) : 0;
	uint64_t *src = receiver_clock ? &g : s;

	d->identity = cid(gm);
	d->priority1 = 127 + rnd(src) % 2;
	d->quality.clockClass = rnd(src) % 2 ? 6 : 248;
	d->quality.clockAccuracy = 0x20 + rnd(src) % 2;
	d->quality.offsetScaledLogVariance = 0x4000 + rnd(src) % 2;
	d->priority2 = 127 + rnd(src) % 2;
	d->stepsRemoved = rnd(s) % 4;
	d->sender = pid(1 + rnd(s) % 4, 1 + rnd(s) % 2);
	d->receiver = receiver_clock ? pid(receiver_clock, 1 + rnd(s) % 2)
				     : pid(1 + rnd(s) % 4, 1 + rnd(s) % 2);
}

static void test_compare_antisymmetric(void **state)
{
	uint64_t s = 1;
	unsigned int seen[5] = { 0 };

	for (int i = 0; i < 200000; i++) {
		struct bmca_dataset a, b;
		enum bmca_cmp ab, ba;

		random_dataset(&s, &a, 0);
		random_dataset(&s, &b, 0);
		ab = bmca_compare(&a, &b);
		ba = bmca_compare(&b, &a);
		if (ab != -ba) {
			print_error("pair %d: compare(a,b) = %s but compare(b,a) = %s\n", i,
				    bmca_cmp_to_string(ab), bmca_cmp_to_string(ba));
			fail();
		}
		seen[ab + 2]++;
	}
	/* The generator must reach every outcome, or the property proves little. */
	for (int r = 0; r < 5; r++) {
		if (seen[r] == 0) {
			print_error("outcome %s never generated\n", bmca_cmp_to_string(r - 2));
			fail();
		}
	}
}

/* Within one port (one receiver), "better" is a strict total order: transitive, no ties. */
static void test_compare_transitive_one_receiver(void **state)
{
	uint64_t s = 7;

	for (int i = 0; i < 100000; i++) {
		struct bmca_dataset d[3];

		for (int k = 0; k < 3; k++) {
			random_dataset(&s, &d[k], 0x90);
			d[k].receiver.portNumber = 1;
		}
		if (port_identity_equal(&d[0].sender, &d[1].sender) ||
		    port_identity_equal(&d[1].sender, &d[2].sender) ||
		    port_identity_equal(&d[0].sender, &d[2].sender)) {
			continue;
		}
		assert_int_not_equal(bmca_compare(&d[0], &d[1]), BMCA_SAME);
		if (bmca_compare(&d[0], &d[1]) > 0 && bmca_compare(&d[1], &d[2]) > 0) {
			assert_true(bmca_compare(&d[0], &d[2]) > 0);
		}
	}
}

static struct bmca_announce announce_from(const struct bmca_dataset *d)
{
	return (struct bmca_announce){
		.sourcePortIdentity = d->sender,
		.grandmasterPriority1 = d->priority1,
		.grandmasterClockQuality = d->quality,
		.grandmasterPriority2 = d->priority2,
		.grandmasterIdentity = d->identity,
		.stepsRemoved = d->stepsRemoved,
	};
}

/* G.8275.1 6.3.8 figure 4, case by case: what the alternate BMCA decides where 9.3.4 differs. */
static void test_compare_g8275_cases(void **state)
{
	struct bmca_dataset a = base(), b = base();

	a.localPriority = b.localPriority = 128;
	/* priority1 plays no part: the identity decides (a's is larger: b wins) */
	a.priority1 = 10;
	b.priority1 = 200;
	a.identity = cid(0x60);
	a.sender = pid(0x60, 1);
	assert_int_equal(bmca_compare(&a, &b), BMCA_A_BETTER);
	assert_int_equal(bmca_compare_g8275(&a, &b), BMCA_B_BETTER);
	/* localPriority after priority2, before the identity */
	a.localPriority = 127;
	assert_int_equal(bmca_compare_g8275(&a, &b), BMCA_A_BETTER);
	a.priority2 = 129;
	assert_int_equal(bmca_compare_g8275(&a, &b), BMCA_B_BETTER);
	a.priority2 = 128;
	/* clockClass first: 6 beats 248 whatever else */
	b.quality.clockClass = 6;
	assert_int_equal(bmca_compare_g8275(&a, &b), BMCA_B_BETTER);
	/* both class 6 (1..127), different grandmasters: the nearer one wins, not the identity */
	a.quality.clockClass = 6;
	a.localPriority = 128;
	a.stepsRemoved = 3;
	b.stepsRemoved = 1;
	b.identity = cid(0x70);
	assert_int_equal(bmca_compare(&a, &b), BMCA_A_BETTER);
	assert_int_equal(bmca_compare_g8275(&a, &b), BMCA_B_BETTER);
	/* class 248: the identity before the topology */
	a.quality.clockClass = b.quality.clockClass = 248;
	assert_int_equal(bmca_compare_g8275(&a, &b), BMCA_A_BETTER);
	assert_int_equal(bmca_compare_g8275(&a, NULL), BMCA_A_BETTER);
	assert_int_equal(bmca_compare_g8275(NULL, &b), BMCA_B_BETTER);
	assert_int_equal(bmca_comparison_function(BMCA_COMPARISON_G8275), bmca_compare_g8275);
	assert_int_equal(bmca_comparison_function(BMCA_COMPARISON_IEEE1588), bmca_compare);
}

/* The alternate comparison is antisymmetric too, and a strict order within one port. */
static void test_compare_g8275_invariants(void **state)
{
	uint64_t s = 3;

	for (int i = 0; i < 200000; i++) {
		struct bmca_dataset a, b, c;
		enum bmca_cmp ab, ba;

		random_dataset(&s, &a, 0);
		random_dataset(&s, &b, 0);
		a.localPriority = 127 + rnd(&s) % 2;
		b.localPriority = 127 + rnd(&s) % 2;
		ab = bmca_compare_g8275(&a, &b);
		ba = bmca_compare_g8275(&b, &a);
		if (ab != -ba) {
			print_error("pair %d: compare(a,b) = %s but compare(b,a) = %s\n", i,
				    bmca_cmp_to_string(ab), bmca_cmp_to_string(ba));
			fail();
		}
		/* one port: one receiver, one localPriority */
		random_dataset(&s, &a, 0x90);
		random_dataset(&s, &b, 0x90);
		random_dataset(&s, &c, 0x90);
		a.receiver.portNumber = b.receiver.portNumber = c.receiver.portNumber = 1;
		a.localPriority = b.localPriority = c.localPriority = 128;
		if (port_identity_equal(&a.sender, &b.sender) ||
		    port_identity_equal(&b.sender, &c.sender) ||
		    port_identity_equal(&a.sender, &c.sender)) {
			continue;
		}
		assert_int_not_equal(bmca_compare_g8275(&a, &b), BMCA_SAME);
		if (bmca_compare_g8275(&a, &b) > 0 && bmca_compare_g8275(&b, &c) > 0) {
			assert_true(bmca_compare_g8275(&a, &c) > 0);
		}
	}
}

/* The rules of a port: clock_class_threshold, maxStepsRemoved, and the comparison with its
 * localPriority. */
static void test_foreign_rules(void **state)
{
	const struct PortIdentity self = pid(0x90, 1);
	struct bmca_foreign_table t;
	struct bmca_dataset d1 = base(), d2 = base(), erbest;
	struct bmca_announce a1, a2;
	enum bmca_comparison c;

	bmca_foreign_init(&t, &self, 0);
	assert_int_equal(t.rules.clockClassThreshold, 248);
	assert_int_equal(t.rules.maxStepsRemoved, 255);
	assert_int_equal(t.rules.localPriority, 128);
	/* a slave-only grandmaster (255) is above the default threshold */
	a1 = announce_from(&d1);
	a1.grandmasterClockQuality.clockClass = 255;
	assert_int_equal(bmca_foreign_add(&t, &a1, 1), -EINVAL);
	t.rules.clockClassThreshold = 6;
	a1.grandmasterClockQuality.clockClass = 7;
	assert_int_equal(bmca_foreign_add(&t, &a1, 1), -EINVAL);
	a1.grandmasterClockQuality.clockClass = 6;
	assert_int_equal(bmca_foreign_add(&t, &a1, 1), 0);
	bmca_foreign_clear(&t);
	t.rules.clockClassThreshold = 248;
	t.rules.maxStepsRemoved = 3;
	a1 = announce_from(&d1);
	a1.stepsRemoved = 3;
	assert_int_equal(bmca_foreign_add(&t, &a1, 1), -EINVAL);
	a1.stepsRemoved = 2;
	assert_int_equal(bmca_foreign_add(&t, &a1, 1), 0);
	bmca_foreign_clear(&t);

	/* two grandmasters: priority1 picks one for 1588, the identity the other for G.8275 */
	d1.priority1 = 10;
	d1.identity = cid(0x60);
	d1.sender = pid(0x60, 1);
	d2.priority1 = 200;
	a1 = announce_from(&d1);
	a2 = announce_from(&d2);
	for (int k = 0; k < 2; k++) {
		assert_true(bmca_foreign_add(&t, &a1, 1 + k) >= 0);
		assert_true(bmca_foreign_add(&t, &a2, 1 + k) >= 0);
	}
	assert_non_null(bmca_foreign_best(&t, 3, &erbest));
	assert_true(clock_identity_equal(&erbest.identity, &d1.identity));
	t.rules.comparison = BMCA_COMPARISON_G8275;
	t.rules.localPriority = 77;
	assert_non_null(bmca_foreign_best(&t, 3, &erbest));
	assert_true(clock_identity_equal(&erbest.identity, &d2.identity));
	assert_int_equal(erbest.localPriority, 77);

	assert_int_equal(bmca_comparison_from_string("g.8275.X", &c), 0);
	assert_int_equal(c, BMCA_COMPARISON_G8275);
	assert_string_equal(bmca_comparison_to_string(c), "G.8275.x");
	assert_int_equal(bmca_comparison_from_string("IEEE1588", &c), 0);
	assert_int_equal(c, BMCA_COMPARISON_IEEE1588);
	assert_int_equal(bmca_comparison_from_string("G.8275.2", &c), -EINVAL);
}

static bool next_permutation(size_t *p, size_t n)
{
	size_t i = n - 1, j = n - 1;

	while (i > 0 && p[i - 1] >= p[i]) {
		i--;
	}
	if (i == 0) {
		return false;
	}
	while (p[j] <= p[i - 1]) {
		j--;
	}
	size_t t = p[i - 1];
	p[i - 1] = p[j];
	p[j] = t;
	for (j = n - 1; i < j; i++, j--) {
		t = p[i];
		p[i] = p[j];
		p[j] = t;
	}
	return true;
}

/* Erbest does not depend on the order foreign masters arrive in: every permutation of 6 senders
 * (720 orders) for 20 generated sets gives the same best, and it beats every other record. */
static void test_best_independent_of_order(void **state)
{
	const struct PortIdentity self = pid(0x90, 1);
	uint64_t s = 42;

	for (int set = 0; set < 20; set++) {
		struct bmca_announce ann[6];
		struct PortIdentity first_best = { 0 };
		size_t perm[6] = { 0, 1, 2, 3, 4, 5 };
		unsigned int orders = 0;

		for (size_t k = 0; k < 6; k++) {
			struct bmca_dataset d;

			random_dataset(&s, &d, 0x90);
			d.sender = pid(0x10 + k % 3, 1 + k); /* distinct senders */
			ann[k] = announce_from(&d);
		}
		do {
			struct bmca_foreign_table t;
			struct bmca_dataset best_ds, other;
			const struct bmca_foreign *best;

			bmca_foreign_init(&t, &self, 1);
			for (int round = 0; round < 2; round++) {
				for (size_t k = 0; k < 6; k++) {
					assert_true(bmca_foreign_add(&t, &ann[perm[k]],
								     100 + round * 10 + k) >= 0);
				}
			}
			best = bmca_foreign_best(&t, 200, &best_ds);
			assert_non_null(best);
			if (orders++ == 0) {
				first_best = best->announce.sourcePortIdentity;
			}
			assert_true(port_identity_equal(&first_best,
							&best->announce.sourcePortIdentity));
			for (size_t k = 0; k < 6; k++) {
				if (port_identity_equal(&ann[k].sourcePortIdentity, &first_best)) {
					continue;
				}
				bmca_dataset_from_announce(&ann[k], &self, &other);
				assert_true(bmca_compare(&best_ds, &other) > 0);
			}
		} while (next_permutation(perm, 6));
		assert_int_equal(orders, 720);
	}
}

/* 9.3.3 figure 33, one test per branch. */
struct decision_case {
	const char *what;
	uint8_t d0_class;
	uint8_t d0_p1;
	int ebest_p1;	/* -1: no Ebest */
	int erbest_p1;	/* -1: no Erbest */
	bool same_gm;	/* Erbest has Ebest's grandmaster, one sender up */
	bool this_port; /* Ebest was heard on this port */
	bool slave_only;
	enum port_state state;
	enum bmca_decision want;
};

static const struct decision_case decision_cases[] = {
	{ "no Erbest while LISTENING: stay", 248, 128, -1, -1, false, false, false,
	  PORT_STATE_LISTENING, BMCA_DECISION_NONE },
	{ "class 6, D0 better than Erbest", 6, 128, 128, 128, false, true, false,
	  PORT_STATE_LISTENING, BMCA_DECISION_M1 },
	{ "class 6, Erbest better", 6, 128, 100, 100, false, true, false, PORT_STATE_MASTER,
	  BMCA_DECISION_P1 },
	{ "class 6, no Erbest outside LISTENING", 6, 128, -1, -1, false, false, false,
	  PORT_STATE_PASSIVE, BMCA_DECISION_M1 },
	{ "D0 better than Ebest", 248, 100, 128, 128, false, true, false, PORT_STATE_LISTENING,
	  BMCA_DECISION_M2 },
	{ "master gone while SLAVE", 248, 128, -1, -1, false, false, false, PORT_STATE_SLAVE,
	  BMCA_DECISION_M2 },
	{ "Ebest heard here", 248, 128, 100, 100, false, true, false, PORT_STATE_LISTENING,
	  BMCA_DECISION_S1 },
	{ "Ebest on another port, same GM, better by topology", 248, 128, 100, 100, true, false,
	  false, PORT_STATE_MASTER, BMCA_DECISION_P2 },
	{ "Ebest on another port, better GM", 248, 128, 100, 110, false, false, false,
	  PORT_STATE_LISTENING, BMCA_DECISION_M3 },
	{ "Ebest on another port, none here", 248, 128, 100, -1, false, false, false,
	  PORT_STATE_PASSIVE, BMCA_DECISION_M3 },
	{ "slave-only, Ebest heard here", 255, 128, 100, 100, false, true, true,
	  PORT_STATE_LISTENING, BMCA_DECISION_S1 },
	{ "slave-only, Ebest elsewhere", 255, 128, 100, 110, false, false, true, PORT_STATE_SLAVE,
	  BMCA_DECISION_LISTENING },
	{ "slave-only, D0 'better' still no master", 255, 1, 100, 100, false, false, true,
	  PORT_STATE_UNCALIBRATED, BMCA_DECISION_LISTENING },
};

static void test_state_decision(void **state)
{
	unsigned int failed = 0;

	for (size_t i = 0; i < ARRAY_SIZE(decision_cases); i++) {
		const struct decision_case *c = &decision_cases[i];
		struct defaultDS dds = {
			.clockIdentity = cid(0x90),
			.clockQuality = { c->d0_class, 0xFE, 0xFFFF },
			.priority1 = c->d0_p1,
			.priority2 = 128,
		};
		struct bmca_dataset d0, ebest = base(), erbest = base();
		enum bmca_decision got;

		bmca_dataset_from_default(&dds, &d0);
		ebest.priority1 = c->ebest_p1 < 0 ? 0 : c->ebest_p1;
		ebest.receiver = pid(0x90, 2);
		erbest.priority1 = c->erbest_p1 < 0 ? 0 : c->erbest_p1;
		erbest.receiver = pid(0x90, 1);
		if (c->same_gm) {
			/* the same grandmaster heard one sender further along the identities */
			erbest.sender = pid(0x51, 1);
		} else if (!c->this_port) {
			erbest.identity = cid(0x60);
		}
		if (c->this_port) {
			erbest = ebest;
		}
		got = bmca_state_decision(&d0, c->ebest_p1 < 0 ? NULL : &ebest,
					  c->erbest_p1 < 0 ? NULL : &erbest, c->this_port,
					  c->slave_only, c->state);
		if (got != c->want) {
			print_error("case \"%s\": expected %s, got %s\n", c->what,
				    bmca_decision_to_string(c->want), bmca_decision_to_string(got));
			failed++;
		}
	}
	assert_int_equal(failed, 0);
}

/* Ebest the way bmca_clock_decide() (ptp/bmca-clock.c, tested there) takes it: the best one. */
static int ebest_of(const struct bmca_dataset *const *erbest, int n)
{
	int best = -1;

	for (int i = 0; i < n; i++) {
		if (erbest[i] && (best < 0 || bmca_compare(erbest[i], erbest[best]) > 0)) {
			best = i;
		}
	}
	return best;
}

/*
 * A boundary clock (identity 0x90) with three ports on one grandmaster's tree: port 1 hears the
 * grandmaster itself, port 2 hears it one step further through another boundary clock, port 3
 * hears nobody. Ebest is port 1's: port 1 S1, port 3 M3. Port 2 shares its segment with the other
 * boundary clock: figure 35 lets the lower identity serve the segment, so port 2 is M3 when the
 * other one is 0xA0 and P2 (a loop broken by topology) when it is 0x60. Then a sender of the same
 * grandmaster on port 2, as close as port 1's and lower, takes Ebest: port 1 is P2.
 */
static void test_boundary_clock(void **state)
{
	struct defaultDS dds = { .clockIdentity = cid(0x90),
				 .clockQuality = { 248, 0xFE, 0xFFFF },
				 .priority1 = 128,
				 .priority2 = 128 };
	struct bmca_dataset d0, e1 = base(), e2 = base();
	const struct bmca_dataset *erbest[3] = { &e1, &e2, NULL };
	enum bmca_decision d[3];
	int eb;

	bmca_dataset_from_default(&dds, &d0);
	e1.priority1 = e2.priority1 = 100;
	e1.stepsRemoved = 0;
	e1.sender = pid(0x50, 1);
	e1.receiver = pid(0x90, 1);
	e2.stepsRemoved = 1;
	e2.sender = pid(0xA0, 4);
	e2.receiver = pid(0x90, 2);

	eb = ebest_of(erbest, 3);
	assert_int_equal(eb, 0);
	for (int i = 0; i < 3; i++) {
		d[i] = bmca_state_decision(&d0, erbest[eb], erbest[i], i == eb, false,
					   PORT_STATE_MASTER);
	}
	assert_int_equal(d[0], BMCA_DECISION_S1);
	assert_int_equal(d[1], BMCA_DECISION_M3);
	assert_int_equal(d[2], BMCA_DECISION_M3);
	e2.sender = pid(0x60, 4);
	assert_int_equal(bmca_state_decision(&d0, &e1, &e2, false, false, PORT_STATE_MASTER),
			 BMCA_DECISION_P2);

	e2.stepsRemoved = 0;
	e2.sender = pid(0x40, 1);
	eb = ebest_of(erbest, 3);
	assert_int_equal(eb, 1);
	assert_int_equal(bmca_state_decision(&d0, erbest[eb], &e1, false, false, PORT_STATE_SLAVE),
			 BMCA_DECISION_P2);
	assert_int_equal(bmca_state_decision(&d0, erbest[eb], &e2, true, false, PORT_STATE_PASSIVE),
			 BMCA_DECISION_S1);
}

static void test_decision_mapping(void **state)
{
	static const struct {
		enum bmca_decision d;
		enum fsm_event ev;
		enum port_state st;
	} map[] = {
		{ BMCA_DECISION_NONE, FSM_EV_NONE, PORT_STATE_UNCALIBRATED },
		{ BMCA_DECISION_M1, FSM_EV_RS_GRAND_MASTER, PORT_STATE_MASTER },
		{ BMCA_DECISION_M2, FSM_EV_RS_GRAND_MASTER, PORT_STATE_MASTER },
		{ BMCA_DECISION_M3, FSM_EV_RS_MASTER, PORT_STATE_MASTER },
		{ BMCA_DECISION_P1, FSM_EV_RS_PASSIVE, PORT_STATE_PASSIVE },
		{ BMCA_DECISION_P2, FSM_EV_RS_PASSIVE, PORT_STATE_PASSIVE },
		{ BMCA_DECISION_S1, FSM_EV_RS_SLAVE, PORT_STATE_SLAVE },
		{ BMCA_DECISION_LISTENING, FSM_EV_RS_PASSIVE, PORT_STATE_LISTENING },
	};

	for (size_t i = 0; i < ARRAY_SIZE(map); i++) {
		assert_int_equal(bmca_decision_to_event(map[i].d), map[i].ev);
		assert_int_equal(bmca_decision_to_state(map[i].d, PORT_STATE_UNCALIBRATED),
				 map[i].st);
		assert_non_null(bmca_decision_to_string(map[i].d));
	}
	/* slave-only: the LISTENING recommendation lands in LISTENING through the FSM */
	assert_int_equal(fsm_next_slave_only(PORT_STATE_SLAVE,
					     bmca_decision_to_event(BMCA_DECISION_LISTENING),
					     false),
			 PORT_STATE_LISTENING);
	assert_int_equal(bmca_qualification_timeout(BMCA_DECISION_M1, 3, 1), 0);
	assert_int_equal(bmca_qualification_timeout(BMCA_DECISION_M2, 3, 1), 0);
	assert_int_equal(bmca_qualification_timeout(BMCA_DECISION_M3, 3, 1), 8 * NS_PER_SEC);
}

static void test_data_set_updates(void **state)
{
	struct bmca_announce a = {
		.sourcePortIdentity = pid(0x50, 3),
		.flagField = MSG_FLAG_PTP_TIMESCALE | MSG_FLAG_CURRENT_UTC_OFFSET_VALID,
		.currentUtcOffset = 37,
		.grandmasterPriority1 = 1,
		.grandmasterClockQuality = { 6, 0x21, 0x4E5D },
		.grandmasterPriority2 = 2,
		.grandmasterIdentity = cid(0x40),
		.stepsRemoved = 2,
		.timeSource = TIME_SOURCE_GNSS,
	};
	struct defaultDS dds = { .clockIdentity = cid(0x90),
				 .clockQuality = { 248, 0xFE, 0xFFFF },
				 .priority1 = 128,
				 .priority2 = 127 };
	struct currentDS cds = { .offsetFromMaster = 5, .meanDelay = 7 };
	struct parentDS pds = { 0 };
	struct timePropertiesDS tp = { .leap61 = true }, atp;
	struct bmca_dataset parent;
	const struct PortIdentity self = pid(0x90, 1);

	bmca_dataset_from_announce(&a, &self, &parent);
	bmca_time_properties_from_announce(&a, &atp);
	bmca_update_slave(&parent, &atp, &cds, &pds, &tp);
	assert_int_equal(cds.stepsRemoved, 3);
	assert_int_equal(cds.offsetFromMaster, 5);
	/* 8.2.3.4 to 8.2.3.6: no parent statistics, so "not computed" (as linuxptp) */
	assert_false(pds.parentStats);
	assert_int_equal(pds.observedParentOffsetScaledLogVariance, 0xFFFF);
	assert_int_equal(pds.observedParentClockPhaseChangeRate, 0x7FFFFFFF);
	assert_true(port_identity_equal(&pds.parentPortIdentity, &a.sourcePortIdentity));
	assert_true(clock_identity_equal(&pds.grandmasterIdentity, &a.grandmasterIdentity));
	assert_int_equal(pds.grandmasterClockQuality.clockClass, 6);
	assert_int_equal(pds.grandmasterPriority1, 1);
	assert_int_equal(pds.grandmasterPriority2, 2);
	assert_int_equal(tp.currentUtcOffset, 37);
	assert_true(tp.ptpTimescale && tp.currentUtcOffsetValid && !tp.leap61);
	assert_int_equal(tp.timeSource, TIME_SOURCE_GNSS);

	bmca_update_master(&dds, &cds, &pds);
	assert_int_equal(cds.stepsRemoved, 0);
	assert_int_equal(cds.offsetFromMaster, 0);
	assert_int_equal(cds.meanDelay, 0);
	assert_true(clock_identity_equal(&pds.grandmasterIdentity, &dds.clockIdentity));
	assert_true(
		clock_identity_equal(&pds.parentPortIdentity.clockIdentity, &dds.clockIdentity));
	assert_int_equal(pds.parentPortIdentity.portNumber, 0);
	assert_int_equal(pds.grandmasterPriority2, 127);
	assert_int_equal(pds.observedParentOffsetScaledLogVariance, 0xFFFF);
	assert_int_equal(pds.observedParentClockPhaseChangeRate, 0x7FFFFFFF);
}

/* 9.3.2.5: qualification by threshold within the window, exclusions, pruning, a full table. */
static void test_foreign_qualification(void **state)
{
	const struct PortIdentity self = pid(0x90, 1);
	const ns_t s = NS_PER_SEC; /* logAnnounceInterval 0: window 4 s */
	struct bmca_foreign_table t;
	struct bmca_dataset b = base(), erbest;
	struct bmca_announce a = announce_from(&b), own = a;
	const struct bmca_foreign *best;

	bmca_foreign_init(&t, &self, 0);
	assert_int_equal(t.window, 4 * s);

	own.sourcePortIdentity = pid(0x90, 2);
	assert_int_equal(bmca_foreign_add(&t, &own, 0), -EINVAL);
	own = a;
	own.stepsRemoved = 255;
	assert_int_equal(bmca_foreign_add(&t, &own, 0), -EINVAL);
	assert_int_equal(t.n, 0);

	assert_int_equal(bmca_foreign_add(&t, &a, 10 * s), 0);
	assert_null(bmca_foreign_best(&t, 10 * s, &erbest));
	/* second Announce outside the window: still one receipt in it */
	assert_int_equal(bmca_foreign_add(&t, &a, 15 * s), 0);
	assert_null(bmca_foreign_best(&t, 15 * s, &erbest));
	/* within the window: qualified, BMCA needed */
	assert_int_equal(bmca_foreign_add(&t, &a, 16 * s), 1);
	best = bmca_foreign_best(&t, 16 * s, &erbest);
	assert_non_null(best);
	assert_true(port_identity_equal(&erbest.receiver, &self));
	/* same content again: no new decision needed */
	assert_int_equal(bmca_foreign_add(&t, &a, 17 * s), 0);
	/* a changed data set of a qualified sender: decide again */
	a.grandmasterPriority2 = 1;
	assert_int_equal(bmca_foreign_add(&t, &a, 18 * s), 1);

	/* silence: after the window the record stops qualifying, prune drops it */
	assert_int_equal(bmca_foreign_next_unqualified(&t, 18 * s), 21 * s + 1);
	assert_non_null(bmca_foreign_best(&t, 21 * s, &erbest));
	assert_null(bmca_foreign_best(&t, 21 * s + 1, &erbest));
	assert_int_equal(bmca_foreign_next_unqualified(&t, 21 * s + 1), INT64_MAX);
	assert_null(bmca_foreign_best(&t, 22 * s + 1, &erbest));
	assert_int_equal(bmca_foreign_prune(&t, 18 * s + 4 * s), 0);
	assert_int_equal(bmca_foreign_prune(&t, 22 * s + 1), 1);
	assert_int_equal(t.n, 0);
}

static void test_foreign_full(void **state)
{
	const struct PortIdentity self = pid(0x90, 1);
	struct bmca_foreign_table t;
	struct bmca_dataset b = base();
	struct bmca_announce a = announce_from(&b);

	bmca_foreign_init(&t, &self, 0);
	for (int i = 0; i < BMCA_FOREIGN_MAX; i++) {
		a.sourcePortIdentity = pid(0x10, 1 + i);
		assert_int_equal(bmca_foreign_add(&t, &a, NS_PER_SEC), 0);
	}
	a.sourcePortIdentity = pid(0x11, 1);
	assert_int_equal(bmca_foreign_add(&t, &a, 2 * NS_PER_SEC), -ENOSPC);
	/* once the old ones are stale, a newcomer finds room */
	assert_int_equal(bmca_foreign_add(&t, &a, 10 * NS_PER_SEC), 0);
	assert_int_equal(t.n, 1);
	bmca_foreign_clear(&t);
	assert_int_equal(t.n, 0);
}

/* An Announce of a grandmaster of its own (identity = sender's clock) with this priority1. */
static struct bmca_announce gm_announce(uint8_t clock, uint8_t priority1)
{
	struct bmca_dataset b = base();
	struct bmca_announce a;

	b.priority1 = priority1;
	b.identity = cid(clock);
	b.sender = pid(clock, 1);
	b.stepsRemoved = 0;
	a = announce_from(&b);
	return a;
}

/*
 * Issue 17 finding 6: 16 worse senders, qualified and still announcing, fill the table; the real
 * (better) grandmaster takes the worst one's place, qualifies and is Erbest. A worse newcomer is
 * still refused, and the kept parent is never the one that goes.
 */
static void test_foreign_evict(void **state)
{
	const struct PortIdentity self = pid(0x90, 1);
	const ns_t s = NS_PER_SEC; /* logAnnounceInterval 0: window 4 s */
	struct bmca_foreign_table t;
	struct bmca_dataset erbest;
	struct bmca_announce gm = gm_announce(0x01, 100), a;
	const struct bmca_foreign *best;

	bmca_foreign_init(&t, &self, 0);
	for (ns_t now = s; now <= 2 * s; now += s) {
		for (int i = 0; i < BMCA_FOREIGN_MAX; i++) {
			a = gm_announce((uint8_t) (0xA0 + i), 250);
			assert_true(bmca_foreign_add(&t, &a, now) >= 0);
		}
	}
	assert_int_equal(t.n, BMCA_FOREIGN_MAX);
	assert_non_null(bmca_foreign_best(&t, 2 * s, &erbest));
	assert_int_equal(erbest.priority1, 250);
	/* A worse newcomer: refused. */
	a = gm_announce(0xC0, 251);
	assert_int_equal(bmca_foreign_add(&t, &a, 2 * s), -ENOSPC);
	/* The better grandmaster: in, in place of the worst (0xAF: the highest identity). */
	assert_int_equal(bmca_foreign_add(&t, &gm, 2 * s), 1);
	assert_int_equal(t.n, BMCA_FOREIGN_MAX);
	for (size_t i = 0; i < t.n; i++) {
		assert_int_not_equal(t.rec[i].announce.sourcePortIdentity.clockIdentity.id[7],
				     0xAF);
	}
	/* The crowd goes on (0xAF, worse than every record now, stays out), the grandmaster too. */
	for (ns_t now = 3 * s; now <= 4 * s; now += s) {
		for (int i = 0; i < BMCA_FOREIGN_MAX; i++) {
			a = gm_announce((uint8_t) (0xA0 + i), 250);
			(void) bmca_foreign_add(&t, &a, now);
		}
		assert_true(bmca_foreign_add(&t, &gm, now) >= 0);
	}
	best = bmca_foreign_best(&t, 4 * s, &erbest);
	assert_non_null(best);
	assert_true(
		port_identity_equal(&best->announce.sourcePortIdentity, &gm.sourcePortIdentity));

	/* Kept (the parent): a better crowd cannot push it out, worst as it is. */
	bmca_foreign_init(&t, &self, 0);
	assert_true(bmca_foreign_add(&t, &gm, s) >= 0);
	assert_int_equal(bmca_foreign_add(&t, &gm, 2 * s), 1);
	bmca_foreign_keep(&t, &gm.sourcePortIdentity);
	for (int i = 0; i < 3 * BMCA_FOREIGN_MAX; i++) {
		a = gm_announce((uint8_t) (0xA0 + i), 10);
		(void) bmca_foreign_add(&t, &a, 2 * s);
	}
	assert_int_equal(t.n, BMCA_FOREIGN_MAX);
	bool kept = false;
	for (size_t i = 0; i < t.n; i++) {
		kept |= port_identity_equal(&t.rec[i].announce.sourcePortIdentity,
					    &gm.sourcePortIdentity);
	}
	assert_true(kept);
	/* Not kept any more: the next better newcomer may take its place. */
	bmca_foreign_keep(&t, NULL);
	a = gm_announce(0x02, 10);
	assert_true(bmca_foreign_add(&t, &a, 2 * s) >= 0);
	kept = false;
	for (size_t i = 0; i < t.n; i++) {
		kept |= port_identity_equal(&t.rec[i].announce.sourcePortIdentity,
					    &gm.sourcePortIdentity);
	}
	assert_false(kept);

	/* Stale records expire (9.3.2.4.4: the window): the crowd gone, anyone finds room. */
	a = gm_announce(0xD0, 255);
	assert_int_equal(bmca_foreign_add(&t, &a, 2 * s + 4 * s + 1), 0);
	assert_int_equal(t.n, 1);
}

static void test_announce_timer(void **state)
{
	struct bmca_announce_timer t = { 0 };

	assert_false(bmca_announce_timer_expired(&t, 0));
	bmca_announce_timer_restart(&t, 100, -2, 3); /* 3 x 250 ms */
	assert_false(bmca_announce_timer_expired(&t, 100 + 750 * NS_PER_MSEC - 1));
	assert_true(bmca_announce_timer_expired(&t, 100 + 750 * NS_PER_MSEC));
	bmca_announce_timer_stop(&t);
	assert_false(bmca_announce_timer_expired(&t, 100 + 750 * NS_PER_MSEC));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compare_cases),
		cmocka_unit_test(test_compare_null),
		cmocka_unit_test(test_compare_antisymmetric),
		cmocka_unit_test(test_compare_transitive_one_receiver),
		cmocka_unit_test(test_best_independent_of_order),
		cmocka_unit_test(test_state_decision),
		cmocka_unit_test(test_boundary_clock),
		cmocka_unit_test(test_decision_mapping),
		cmocka_unit_test(test_data_set_updates),
		cmocka_unit_test(test_foreign_qualification),
		cmocka_unit_test(test_foreign_full),
		cmocka_unit_test(test_foreign_evict),
		cmocka_unit_test(test_announce_timer),
		cmocka_unit_test(test_compare_g8275_cases),
		cmocka_unit_test(test_compare_g8275_invariants),
		cmocka_unit_test(test_foreign_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
