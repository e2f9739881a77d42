// SPDX-License-Identifier: GPL-2.0-or-later
/* IEEE 1588-2019 9.3.2.2, 9.3.3, 9.3.5: Ebest over a clock's ports, their decisions, the data sets.
 */
#include <errno.h>
#include <string.h>

#include "ptp/bmca-clock.h"

/* 9.2.2.2: a masterOnly port's Erbest takes no part in Ebest. */
static bool counts_for_ebest(const struct bmca_clock_port *p)
{
	return p->has_erbest && !p->rules.masterOnly;
}

/* 9.3.2.2: the best Erbest of the ports that may give it; ties (none in a real clock) go to
 * the lower index. */
static int clock_ebest(bmca_compare_fn compare, const struct bmca_clock_port *ports, size_t n)
{
	int best = -ENOENT;

	for (size_t k = 0; k < n; k++) {
		if (counts_for_ebest(&ports[k]) &&
		    (best < 0 || compare(&ports[k].erbest, &ports[best].erbest) > 0)) {
			best = (int) k;
		}
	}
	return best;
}

static enum bmca_decision port_decision(bmca_compare_fn compare, const struct bmca_dataset *d0,
					const struct bmca_dataset *ebest, bool slave_only,
					const struct bmca_clock_port *p, bool holds_ebest)
{
	enum bmca_decision d;

	d = bmca_state_decision_with(compare, d0, ebest, p->has_erbest ? &p->erbest : NULL,
				     holds_ebest, slave_only, p->state);
	/* 9.2.2.2: never SLAVE (it cannot be S1: its Erbest is not Ebest). */
	if (p->rules.masterOnly && d == BMCA_DECISION_S1) {
		d = BMCA_DECISION_M3;
	}
	return d;
}

void bmca_clock_decide(const struct defaultDS *dds, const struct timePropertiesDS *own_tp,
		       const struct bmca_clock_port *ports, size_t n,
		       struct bmca_clock_decision *decisions, struct bmca_clock_result *ret)
{
	/* The instance's comparison: 9.3.4, or G.8275.1's alternate BMCA. */
	bmca_compare_fn compare = bmca_comparison_function(dds->comparison);
	const struct bmca_dataset *ebest = NULL;
	struct bmca_dataset d0;
	int best, s1 = -ENOENT;

	bmca_dataset_from_default(dds, &d0);
	best = clock_ebest(compare, ports, n);
	if (best >= 0) {
		ebest = &ports[best].erbest;
	}
	for (size_t k = 0; k < n; k++) {
		enum bmca_decision d = port_decision(compare, &d0, ebest, dds->slaveOnly, &ports[k],
						     (int) k == best);

		decisions[k].decision = d;
		decisions[k].state = bmca_decision_to_state(d, ports[k].state);
		if (d == BMCA_DECISION_S1) {
			s1 = (int) k;
		}
	}

	memset(ret, 0, sizeof(*ret));
	ret->ebest = best;
	if (s1 >= 0) {
		/* 9.3.5 Table 30: the port holding Ebest became SLAVE. */
		bmca_update_slave(&ports[s1].erbest, &ports[s1].erbest_tp, &ret->cds, &ret->pds,
				  &ret->tp);
	} else {
		/*
		 * Table 27 (M1, M2), and the clock's own data sets (8.2.3 initialization) while no
		 * port follows anyone: M3, P1, P2 and LISTENING leave no parent to name.
		 */
		bmca_update_master(dds, &ret->cds, &ret->pds);
		ret->tp = *own_tp;
	}
}
