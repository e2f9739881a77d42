/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The clock-level state decision of IEEE 1588-2019 9.3.2.2, 9.3.3 and 9.3.5 as one pure function.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "ptp/bmca.h"
#include "ptp/ds.h"

/*
 * Per-port rules of the decision. Profiles add their own here (and honour them in
 * bmca_clock_decide() only), so that the supervisor and a lone phcd-port obey them alike.
 */
struct bmca_port_rules {
	/*
	 * IEEE 1588-2019 9.2.2.2 portDS.masterOnly (ptp4l masterOnly, G.8275.x notSlave): the
	 * port's Erbest is never Ebest and the port never becomes SLAVE; a better master heard
	 * there is never followed by the clock.
	 */
	bool masterOnly;
};

/* One port as the decision sees it. */
struct bmca_clock_port {
	enum port_state state;
	bool has_erbest;
	struct bmca_dataset erbest;	   /* 9.3.2.3, with has_erbest */
	struct timePropertiesDS erbest_tp; /* the time properties its Announce carries */
	struct bmca_port_rules rules;
};

/* What the decision gives one port. */
struct bmca_clock_decision {
	enum bmca_decision decision; /* 9.3.3 figure 33 */
	enum port_state state;	     /* recommended state; the port's own for BMCA_DECISION_NONE */
};

/* What it gives the clock: 9.3.5's data sets after the decision. */
struct bmca_clock_result {
	int ebest; /* index of the port whose Erbest is Ebest, or -ENOENT */
	/*
	 * Table 27 (the clock is its own grandmaster: no port S1) or Table 30 (from Ebest).
	 * offsetFromMaster and meanDelay are 0: a SLAVE port's own measurements replace them.
	 */
	struct currentDS cds;
	struct parentDS pds;
	struct timePropertiesDS tp;
};

/*
 * The decision for a clock of n ports: D0 from dds (slaveOnly from dds->slaveOnly, the data set
 * comparison, 9.3.4's or G.8275.1's, from dds->comparison, which ranks the Erbests too), the
 * clock's own time properties own_tp (used while it is its own grandmaster). Writes n entries
 * of decisions. Ebest (9.3.2.2) is the best Erbest of the ports whose rules allow it; each
 * port's decision is figure 33; the data sets follow Table 30 when a port is S1, else Table 27.
 * The result does not depend on the order of the ports (their Erbest differ at least in their
 * receiving portIdentity). With one port it is the ordinary clock's decision.
 */
void bmca_clock_decide(const struct defaultDS *dds, const struct timePropertiesDS *own_tp,
		       const struct bmca_clock_port *ports, size_t n,
		       struct bmca_clock_decision *decisions, struct bmca_clock_result *ret);
