/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one logger of phcd, phcd-port and phcctl: level, line format and journal fields. */
#pragma once

#include <stdbool.h>
#include <syslog.h>

#include "ptp/util.h"

/*
 * A line is "IDENT: [IFNAME: ]message" on stderr, with a "<N>" syslog priority prefix when the
 * prefix is on (journald then files the line at that priority). A sink, where one is set (the
 * supervisor's journal writer), gets the line first with its fields and may take it.
 */
typedef bool (*log_sink_fn)(int level, const char *ident, const char *ifname, const char *object,
			    const char *msg);

/* Lines above this syslog level are dropped (LOG_INFO by default). */
void log_set_max_level(int level);
/* "<N>" prefixes on or off; off by default, on under systemd (JOURNAL_STREAM) by log_setup(). */
void log_set_level_prefix(bool on);
bool log_get_level_prefix(void);
void log_set_sink(log_sink_fn sink);
/* The program's name on each line ("phcd", "phcd-port", "phcctl"), and the prefix on when
 * stderr is the journal. */
void log_setup(const char *ident);
/*
 * Lines that carry their own context (a configuration's "file:line: ..." errors), each on stderr
 * as it is, with the "<N>" priority prefix when it is on (so journald files them at level).
 */
void log_lines(int level, const char *text);

/*
 * Lines about an interface (ifname set) are rate-limited per interface: a burst of 200, then one
 * a second; the next line that passes is preceded by "N lines suppressed".
 *
 * Log one line at level; error (a negative errno, or 0) is what "%m" prints. Returns error as
 * given, so `return log_error_errno(r, "Failed to ...: %m");` hands r on. ifname and object (a
 * D-Bus path) may be NULL.
 */
int log_internal(int level, int error, const char *ifname, const char *object, const char *fmt, ...)
	_printf_(5, 6);

/*
 * A line that is data asked for, not an event (phcd-port -m: every servo sample, as ptp4l -m
 * prints them): through the same sink and priority prefix, the ident stamped with CLOCK_MONOTONIC
 * as ptp4l's ("phcd-port[12.345]: IFNAME: ..."), neither filtered by level nor rate-limited (the
 * caller asked for every one).
 */
void log_port_data(int level, const char *ifname, const char *fmt, ...) _printf_(3, 4);

#define log_full_errno(level, error, ...) log_internal(level, error, NULL, NULL, __VA_ARGS__)
#define log_full(level, ...) (void) log_internal(level, 0, NULL, NULL, __VA_ARGS__)
#define log_debug(...) log_full(LOG_DEBUG, __VA_ARGS__)
#define log_info(...) log_full(LOG_INFO, __VA_ARGS__)
#define log_notice(...) log_full(LOG_NOTICE, __VA_ARGS__)
#define log_warning(...) log_full(LOG_WARNING, __VA_ARGS__)
#define log_error(...) log_full(LOG_ERR, __VA_ARGS__)
#define log_debug_errno(error, ...) log_full_errno(LOG_DEBUG, error, __VA_ARGS__)
#define log_info_errno(error, ...) log_full_errno(LOG_INFO, error, __VA_ARGS__)
#define log_warning_errno(error, ...) log_full_errno(LOG_WARNING, error, __VA_ARGS__)
#define log_error_errno(error, ...) log_full_errno(LOG_ERR, error, __VA_ARGS__)

/* The same for a port: its interface leads the line and is the PHCD_INTERFACE journal field. */
#define log_port_full_errno(ifname, level, error, ...) \
	log_internal(level, error, ifname, NULL, __VA_ARGS__)
#define log_port_full(ifname, level, ...) (void) log_internal(level, 0, ifname, NULL, __VA_ARGS__)
#define log_port_debug(ifname, ...) log_port_full(ifname, LOG_DEBUG, __VA_ARGS__)
#define log_port_info(ifname, ...) log_port_full(ifname, LOG_INFO, __VA_ARGS__)
#define log_port_notice(ifname, ...) log_port_full(ifname, LOG_NOTICE, __VA_ARGS__)
#define log_port_warning(ifname, ...) log_port_full(ifname, LOG_WARNING, __VA_ARGS__)
#define log_port_error(ifname, ...) log_port_full(ifname, LOG_ERR, __VA_ARGS__)
#define log_port_warning_errno(ifname, error, ...) \
	log_port_full_errno(ifname, LOG_WARNING, error, __VA_ARGS__)
#define log_port_error_errno(ifname, error, ...) \
	log_port_full_errno(ifname, LOG_ERR, error, __VA_ARGS__)
