/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internal to config_load(): ptp4l's [unicast_master_table] sections of a ptp4l_config file, and
 * the unicast keys' checks across the configuration (ptp/port-unicast.c runs them).
 */
#pragma once

#include <stdbool.h>

#include "common/config-loader.h"

/* Why a port's use of unicast is refused: what the port engine does not run (below). */
#define CONFIG_UNICAST_REFUSED "unicast negotiation: not supported"

/*
 * A [unicast_master_table] header at pos, of a linuxptp file (ptp4l: its lines get a verdict in
 * the report) or of phcd.conf: a new table, which its lines fill. Returns its index in
 * c->unicast_tables, or SIZE_MAX when none was opened (past CONFIG_UNICAST_TABLES_MAX: reported;
 * no memory: l->oom).
 */
size_t config_unicast_open(struct loader *l, struct config_pos pos, bool ptp4l);
/*
 * One line of table t: table_id N, logQueryInterval N, peer_address ADDRESS, or UDPv4|UDPv6|L2
 * ADDRESS (ptp4l's words, in either file's syntax); each problem reported at pos.
 */
void config_unicast_line(struct loader *l, size_t t, struct config_pos pos, const char *key,
			 const char *value);
/* The end of table t's section: a table without a table_id is an error at its header. */
void config_unicast_close(struct loader *l, size_t t);
/*
 * After resolution: every unicast_master_table key names a table that exists, the masters of a
 * port's table are of its transport, and a port that uses unicast with P2P is refused with
 * CONFIG_UNICAST_REFUSED at the file:line of the key that made it use unicast.
 */
void config_unicast_check(struct loader *l);
