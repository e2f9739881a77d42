/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The supervisor's management sockets: its instances answer pmc, SETs go through the manager. */
#pragma once

#include "daemon/manager.h"
#include "daemon/uds.h"
#include "ptp/mgmt.h"

struct manager_mgmt;

/*
 * Serve the read-write socket at rw_path and the read-only one at ro_path (either NULL: not
 * served). Every instance answers in its own domain (pmc -d N picks one); a SET of PRIORITY1/2
 * on the read-write socket calls instance_set_priority1/2(), the same path as D-Bus, so the
 * D-Bus layer signals it. A socket that cannot be bound is logged and skipped: the daemon runs
 * without it rather than not at all.
 */
int manager_mgmt_new(struct manager *m, const char *rw_path, const char *ro_path,
		     struct manager_mgmt **ret);
struct manager_mgmt *manager_mgmt_free(struct manager_mgmt *mm);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct manager_mgmt *, manager_mgmt_free);

/*
 * A worker accepted a management SET from the network (its instance has management_network_set):
 * apply the priorities that differ through instance_set_priority1/2(), as D-Bus does.
 */
void manager_mgmt_priority_request(struct mport *p, const struct ipc_set_priority *s);

/* The same for SET GRANDMASTER_SETTINGS_NP: instance_set_gm_settings(), as D-Bus does. */
void manager_mgmt_gm_settings_request(struct mport *p, const struct gm_settings *s);
