// SPDX-License-Identifier: GPL-2.0-or-later
/* The supervisor's management sockets: its instances answer pmc, SETs go through the manager. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/manager-internal.h"
#include "daemon/manager-mgmt.h"

struct manager_mgmt {
	struct manager *manager;
	struct uds *rw;
	struct uds *ro;
};

/* Snapshot one instance for mgmt_handle_frame(): data sets from the supervisor's cached view. */
static int manager_mgmt_clock(struct instance *i, struct mgmt_clock *ret, struct mgmt_port *ports,
			      size_t max_ports)
{
	size_t n = instance_port_count(i);

	memset(ret, 0, sizeof(*ret));
	instance_default_ds(i, &ret->dds);
	ret->options = &i->options;
	/* 8.2.2, 8.2.3, 8.2.4: what the clock-level BMCA and the SLAVE port's samples left. */
	ret->cds.stepsRemoved = i->steps_removed;
	ret->cds.offsetFromMaster = i->offset_ns;
	ret->cds.meanDelay = i->mean_path_delay_ns;
	ret->pds = i->parent;
	ret->pds.parentPortIdentity = i->parent_port_identity;
	ret->pds.grandmasterIdentity = i->grandmaster_identity;
	ret->tpds = i->time_properties;
	ret->user_description = i->options.userDescription;
	instance_gm_settings(i, &ret->gm);
	ret->ports = ports;
	ret->all_ports = n <= max_ports;
	for (size_t k = 0; k < n && k < max_ports; k++) {
		const struct mport *p = instance_port_at(i, k);
		struct mgmt_port *mp = &ports[k];

		memset(mp, 0, sizeof(*mp));
		mp->ds.portIdentity = p->port_identity;
		mp->ds.portState = p->state;
		mp->ds.logMinDelayReqInterval = p->options.logMinDelayReqInterval;
		mp->ds.logAnnounceInterval = p->options.logAnnounceInterval;
		mp->ds.announceReceiptTimeout = p->options.announceReceiptTimeout;
		mp->ds.logSyncInterval = p->options.logSyncInterval;
		mp->ds.delayMechanism = p->delay_mechanism;
		mp->ds.logMinPdelayReqInterval = p->options.logMinPdelayReqInterval;
		mp->ds.versionNumber = MSG_VERSION_PTP;
		mp->ds.minorVersionNumber = MSG_MINOR_VERSION_PTP;
		mp->ifname = p->ifname;
		mp->masterOnly = p->options.masterOnly;
		mp->power_profile = p->options.power_profile;
		memcpy(mp->rx, p->rx, sizeof(mp->rx));
		memcpy(mp->tx, p->tx, sizeof(mp->tx));
		mp->timestamping = p->timestamping == TRANSPORT_TS_MODE_HARDWARE ? MGMT_TS_HARDWARE
										 : MGMT_TS_SOFTWARE;
		ret->n_ports++;
	}
	return 0;
}

static int manager_mgmt_clock_at(void *userdata, size_t i, struct mgmt_clock *ret,
				 struct mgmt_port *ports)
{
	struct manager_mgmt *mm = userdata;

	if (i >= manager_instance_count(mm->manager)) {
		return -ENOENT;
	}
	return manager_mgmt_clock(manager_instance_at(mm->manager, i), ret, ports, UDS_PORTS_MAX);
}

/* A burst of SETs ends after this long without one, or is summed up after MGMT_LOG_BURST_MAX. */
#define MGMT_LOG_QUIET_USEC (1 * USEC_PER_SEC)
#define MGMT_LOG_BURST_MAX_USEC (10 * USEC_PER_SEC)

static uint64_t mgmt_now(struct instance *inst)
{
	uint64_t t;

	sd_event_now(inst->manager->event, CLOCK_MONOTONIC, &t);
	return t;
}

/* The end of a burst: one line for every SET after its first, with what they left. */
static int on_mgmt_log_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct instance *inst = userdata;

	inst->mgmt_log_timer = sd_event_source_disable_unref(inst->mgmt_log_timer);
	if (inst->mgmt_log_held) {
		log_full(LOG_INFO,
			 "instance %s: %u more management SETs in %.1f s, coalesced: priority1 %u "
			 "priority2 %u clockClass %u",
			 inst->name, inst->mgmt_log_held,
			 (double) (usec - inst->mgmt_log_start_usec) / USEC_PER_SEC,
			 inst->priority1, inst->priority2, inst->clock_quality.clockClass);
	}
	inst->mgmt_log_held = 0;
	return 0;
}

/*
 * Issue 31: a flood of SETs wrote a line each (49,702 in 10 s). The first of a burst is logged
 * (true), the others counted and summed up in one line when the burst ends.
 */
static bool mgmt_log_first(struct instance *inst)
{
	uint64_t now = mgmt_now(inst);

	if (inst->mgmt_log_timer) {
		inst->mgmt_log_held++;
		if (now - inst->mgmt_log_start_usec < MGMT_LOG_BURST_MAX_USEC) {
			(void) sd_event_source_set_time(inst->mgmt_log_timer,
							now + MGMT_LOG_QUIET_USEC);
		}
		return false;
	}
	inst->mgmt_log_start_usec = now;
	inst->mgmt_log_held = 0;
	(void) sd_event_add_time(inst->manager->event, &inst->mgmt_log_timer, CLOCK_MONOTONIC,
				 now + MGMT_LOG_QUIET_USEC, 0, on_mgmt_log_timer, inst);
	return true;
}

/* The same setters as D-Bus SetPriority1/2: one state, one change signal. */
static int manager_mgmt_set(struct instance *inst, const struct mgmt_change *change)
{
	bool log = change->mask && mgmt_log_first(inst);
	int r = 0;

	if (change->mask & MGMT_CHANGE_PRIORITY1) {
		if (log) {
			log_full(LOG_INFO, "instance %s: priority1 %u by management", inst->name,
				 change->priority1);
		}
		r = instance_set_priority1(inst, change->priority1);
	}
	if (r >= 0 && (change->mask & MGMT_CHANGE_PRIORITY2)) {
		if (log) {
			log_full(LOG_INFO, "instance %s: priority2 %u by management", inst->name,
				 change->priority2);
		}
		r = instance_set_priority2(inst, change->priority2);
	}
	if (r >= 0 && (change->mask & MGMT_CHANGE_GM_SETTINGS)) {
		if (log) {
			log_full(LOG_INFO,
				 "instance %s: grandmaster settings clockClass %u clockAccuracy "
				 "0x%02x offsetScaledLogVariance 0x%04x currentUtcOffset %d "
				 "timeTraceable %d frequencyTraceable %d by management",
				 inst->name, change->gm.clockQuality.clockClass,
				 change->gm.clockQuality.clockAccuracy,
				 change->gm.clockQuality.offsetScaledLogVariance,
				 change->gm.tp.currentUtcOffset, change->gm.tp.timeTraceable,
				 change->gm.tp.frequencyTraceable);
		}
		r = instance_set_gm_settings(inst, &change->gm);
	}
	return r;
}

static int manager_mgmt_apply(void *userdata, size_t i, const struct mgmt_change *change)
{
	struct manager_mgmt *mm = userdata;

	if (i >= manager_instance_count(mm->manager)) {
		return -ENOENT;
	}
	return manager_mgmt_set(manager_instance_at(mm->manager, i), change);
}

void manager_mgmt_priority_request(struct mport *p, const struct ipc_set_priority *s)
{
	struct mgmt_change change = { .priority1 = s->priority1, .priority2 = s->priority2 };

	/* The worker refuses SET unless its instance enables it; a request without is a bug. */
	if (p->instance->options.management_network != OPTIONS_MGMT_NETWORK_READ_WRITE) {
		log_port_full(p->ifname, LOG_WARNING,
			      "PRIORITY_REQUEST without management_network = read-write, ignoring");
		return;
	}
	if (s->priority1 != p->instance->priority1) {
		change.mask |= MGMT_CHANGE_PRIORITY1;
	}
	if (s->priority2 != p->instance->priority2) {
		change.mask |= MGMT_CHANGE_PRIORITY2;
	}
	if (change.mask && !p->instance->mgmt_log_timer) {
		log_port_full(p->ifname, LOG_INFO, "management SET from the network");
	}
	(void) manager_mgmt_set(p->instance, &change);
}

void manager_mgmt_gm_settings_request(struct mport *p, const struct gm_settings *s)
{
	struct mgmt_change change = { .mask = MGMT_CHANGE_GM_SETTINGS, .gm = *s };

	if (p->instance->options.management_network != OPTIONS_MGMT_NETWORK_READ_WRITE) {
		log_port_full(
			p->ifname, LOG_WARNING,
			"GM_SETTINGS_REQUEST without management_network = read-write, ignoring");
		return;
	}
	if (!p->instance->mgmt_log_timer) {
		log_port_full(p->ifname, LOG_INFO, "management SET from the network");
	}
	(void) manager_mgmt_set(p->instance, &change);
}

/* Logged at 1, 2, 4, 8, ...: the read-only socket is open to every local user. */
static void manager_mgmt_dropped(void *userdata, const char *path, uint64_t total)
{
	if ((total & (total - 1)) == 0) {
		log_full(LOG_NOTICE,
			 "management socket %s: malformed request dropped (%" PRIu64 " so far)",
			 path, total);
	}
}

static const struct uds_ops manager_mgmt_ops = {
	.clock_at = manager_mgmt_clock_at,
	.apply = manager_mgmt_apply,
	.dropped = manager_mgmt_dropped,
};

static void manager_mgmt_open(struct manager_mgmt *mm, const char *path, bool read_only,
			      struct uds **ret)
{
	int r;

	if (!path || !*path) {
		return;
	}
	r = uds_new(mm->manager->event, path, read_only, &manager_mgmt_ops, mm, ret);
	if (r < 0) {
		log_full_errno(LOG_WARNING, r, "management socket %s: %m, not serving it", path);
	}
}

int manager_mgmt_new(struct manager *m, const char *rw_path, const char *ro_path,
		     struct manager_mgmt **ret)
{
	struct manager_mgmt *mm = calloc(1, sizeof(*mm));

	if (!mm) {
		return -ENOMEM;
	}
	mm->manager = m;
	manager_mgmt_open(mm, rw_path, false, &mm->rw);
	manager_mgmt_open(mm, ro_path, true, &mm->ro);
	*ret = mm;
	return 0;
}

struct manager_mgmt *manager_mgmt_free(struct manager_mgmt *mm)
{
	if (mm) {
		uds_free(mm->rw);
		uds_free(mm->ro);
		free(mm);
	}
	return NULL;
}
