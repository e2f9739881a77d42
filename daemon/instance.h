/* SPDX-License-Identifier: GPL-2.0-or-later */
/* instance.c: a PTP instance in the supervisor, its clock's data sets and the clock-level BMCA. */
#pragma once

#include "common/config-file.h"
#include "daemon/model.h"
#include "ptp/bmca-clock.h"

int instance_new(struct manager *m, const struct config_instance *ci, struct instance **ret);
struct instance *instance_free(struct instance *i);
/* Take new options (reload): the config part of the public state follows. */
void instance_apply_options(struct instance *i, const struct instance_options *o);
/* The clock-level BMCA (9.3.2.2, 9.3.3) over the instance's ports: its decision per port. */
struct instance_decision {
	size_t n; /* ports taking part */
	struct mport **ports;
	struct bmca_clock_port *cp;
	struct bmca_clock_decision *dec;
	struct bmca_clock_result res;
};
int instance_decide(const struct instance *i, struct instance_decision *ret);
void instance_decision_free(struct instance_decision *d);
/* Decide and send RECOMMENDED_STATE where it changed. */
void instance_run_bmca(struct instance *i);
/* A STATUS from one of its ports: the instance's sample and servo follow its SLAVE port. */
void instance_port_status(struct instance *i, struct mport *p, const struct ipc_status *s);
/*
 * A CLOCK_STATE from one of its ports: with the virtual back end, the SLAVE port's correction goes
 * to every other software-timestamping worker of the instance (one timescale per boundary clock).
 */
void instance_clock_state(struct instance *i, struct mport *p, const struct ipc_clock_state *cs);
/*
 * defaultDS.priority1/2 of the instance changed (D-Bus, management SET, a reload): tell every
 * configured worker (IPC_SET_PRIORITY, applied in place) and run the BMCA again.
 */
void instance_push_priorities(struct instance *i);
/* The lowest portNumber no port of the instance uses (7.5.2.3: 1-based). */
uint16_t instance_free_port_number(const struct instance *i);

/* Change an instance's priority at run time (until the next reload), sent to its workers. */
int instance_set_priority1(struct instance *i, uint8_t priority1);
int instance_set_priority2(struct instance *i, uint8_t priority2);
/*
 * What the instance announces of itself as grandmaster (D-Bus SetGrandmasterSettings,
 * management SET GRANDMASTER_SETTINGS_NP): clockQuality (a slave-only clock keeps class 255),
 * currentUtcOffset, the leap, currentUtcOffsetValid and traceability flags, timeSource; until the
 * next reload that restarts the instance. Sent to its workers; the BMCA runs again.
 */
int instance_set_gm_settings(struct instance *i, const struct gm_settings *s);
/* The settings in effect, ptpTimescale as its ports' timestamping makes it. */
void instance_gm_settings(const struct instance *i, struct gm_settings *ret);
/*
 * What the instance announces of itself as grandmaster: the configured settings, the clock
 * mode's class and traceability over them (clock-mode-step.c) unless SetGrandmasterSettings
 * overrides. Its workers get these (CONFIG, IPC_SET_GM_SETTINGS).
 */
void instance_announced_gm_settings(const struct instance *i, struct gm_settings *ret);
/* The clock mode changed what the instance announces: to its workers within a push tick. */
void instance_push_own_quality(struct instance *i);
/* The clock's defaultDS (options_default_ds()): what its BMCA uses and management answers. */
void instance_default_ds(const struct instance *i, struct defaultDS *ret);
