/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internal to config_load(): ptp4l's [unicast_master_table] sections of a ptp4l_config file, and
 * the unicast keys' checks across the configuration (ptp/unicast-neg.h runs them, once wired).
 */
#pragma once

#include <stdbool.h>

#include "common/config-loader.h"

/* Why a configuration that uses unicast is refused, until the port engine runs it. */
#define CONFIG_UNICAST_REFUSED "unicast negotiation: not yet wired to the port"

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
 * After resolution: every unicast_master_table key names a table that exists, and every use of
 * unicast (a table, or a unicast key set to another value than its default) is refused with
 * CONFIG_UNICAST_REFUSED at its file:line.
 */
void config_unicast_check(struct loader *l);
