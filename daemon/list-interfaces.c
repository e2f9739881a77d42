// SPDX-License-Identifier: GPL-2.0-or-later
/* `phcd --list-interfaces [--json]`: every interface with its timestamping and PHC. */
#include <errno.h>
#include <linux/net_tstamp.h>
#include <string.h>

#include "daemon/list-interfaces.h"
#include "netlink/link-monitor.h"
#include "netlink/tsinfo.h"

/* What phcd's transport would pick (its AUTO rule): hardware needs a PHC and raw HW stamps. */
static const char *mode_of(const struct tsinfo *ti)
{
	const uint32_t hw = SOF_TIMESTAMPING_TX_HARDWARE | SOF_TIMESTAMPING_RX_HARDWARE |
			    SOF_TIMESTAMPING_RAW_HARDWARE;
	const uint32_t sw = SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_RX_SOFTWARE |
			    SOF_TIMESTAMPING_SOFTWARE;

	if (ti->phc_index >= 0 && (ti->so_timestamping & hw) == hw) {
		return "hardware";
	}
	if ((ti->so_timestamping & sw) == sw) {
		return "software";
	}
	return "none";
}

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char) *s;

		if (c == '"' || c == '\\') {
			fprintf(f, "\\%c", c);
		} else if (c < 0x20 || c >= 0x7f) {
			fprintf(f, "\\u%04x", c);
		} else {
			fputc(c, f);
		}
	}
	fputc('"', f);
}

static void bits_out(FILE *f, bool json, uint32_t bits, const char *(*name)(unsigned) )
{
	bool first = true;

	if (json) {
		fputc('[', f);
	}
	for (unsigned b = 0; b < 32; b++) {
		const char *n;

		if (!(bits & (UINT32_C(1) << b))) {
			continue;
		}
		n = name(b);
		if (json) {
			fprintf(f, "%s\"%s\"", first ? "" : ",", n ? n : "unknown");
		} else {
			fprintf(f, "%s%s", first ? "" : " ", n ? n : "unknown");
		}
		first = false;
	}
	if (json) {
		fputc(']', f);
	} else if (first) {
		fputs("none", f);
	}
}

static void one_text(FILE *f, const struct link_info *li, const struct tsinfo *ti, int err,
		     const struct tsconfig *tc, int tc_err)
{
	fprintf(f, "%s (ifindex %d, %s, carrier %s)\n", li->name, li->ifindex,
		li->admin_up ? "up" : "down", li->carrier ? "on" : "off");
	if (err < 0) {
		fprintf(f, "\ttimestamping info: %s\n", strerror(-err));
		return;
	}
	if (ti->phc_index >= 0) {
		fprintf(f, "\tPTP Hardware Clock: %d\n", ti->phc_index);
	} else {
		fputs("\tPTP Hardware Clock: none\n", f);
	}
	fputs("\tCapabilities: ", f);
	bits_out(f, false, ti->so_timestamping, tsinfo_so_timestamping_name);
	fputs("\n\tHardware Transmit Timestamp Modes: ", f);
	bits_out(f, false, ti->tx_types, tsinfo_tx_type_name);
	fputs("\n\tHardware Receive Filter Modes: ", f);
	bits_out(f, false, ti->rx_filters, tsinfo_rx_filter_name);
	if (ti->has_provider) {
		fprintf(f, "\n\tHardware timestamp provider: index %u qualifier %u",
			ti->provider_index, ti->provider_qualifier);
	}
	if (tc_err >= 0) {
		fputs("\n\tActive TX type: ", f);
		bits_out(f, false, tc->tx_types, tsinfo_tx_type_name);
		fputs("\n\tActive RX filter: ", f);
		bits_out(f, false, tc->rx_filters, tsinfo_rx_filter_name);
	}
	fprintf(f, "\n\tphcd timestamping: %s\n", mode_of(ti));
}

static void one_json(FILE *f, const struct link_info *li, const struct tsinfo *ti, int err,
		     const struct tsconfig *tc, int tc_err)
{
	fputs("{\"ifname\":", f);
	json_string(f, li->name);
	fprintf(f, ",\"ifindex\":%d,\"admin_up\":%s,\"carrier\":%s", li->ifindex,
		li->admin_up ? "true" : "false", li->carrier ? "true" : "false");
	if (li->has_mac) {
		fprintf(f, ",\"mac\":\"%02x:%02x:%02x:%02x:%02x:%02x\"", li->mac[0], li->mac[1],
			li->mac[2], li->mac[3], li->mac[4], li->mac[5]);
	}
	if (err < 0) {
		fputs(",\"error\":", f);
		json_string(f, strerror(-err));
		fputc('}', f);
		return;
	}
	fprintf(f, ",\"phc_index\":%d,\"timestamping\":", ti->phc_index);
	bits_out(f, true, ti->so_timestamping, tsinfo_so_timestamping_name);
	fputs(",\"tx_types\":", f);
	bits_out(f, true, ti->tx_types, tsinfo_tx_type_name);
	fputs(",\"rx_filters\":", f);
	bits_out(f, true, ti->rx_filters, tsinfo_rx_filter_name);
	if (ti->has_provider) {
		fprintf(f, ",\"hwtstamp_provider\":{\"index\":%u,\"qualifier\":%u}",
			ti->provider_index, ti->provider_qualifier);
	}
	if (tc_err >= 0) {
		fputs(",\"tsconfig\":{\"tx_types\":", f);
		bits_out(f, true, tc->tx_types, tsinfo_tx_type_name);
		fputs(",\"rx_filters\":", f);
		bits_out(f, true, tc->rx_filters, tsinfo_rx_filter_name);
		fputc('}', f);
	}
	fprintf(f, ",\"mode\":\"%s\"}", mode_of(ti));
}

int list_interfaces(FILE *f, bool json)
{
	struct link_monitor *m = NULL;
	struct ethtool_nl *e = NULL;
	int r;

	/* The monitor without an event loop is just its initial enumeration. */
	r = link_monitor_new(NULL, NULL, NULL, &m);
	if (r < 0) {
		return r;
	}
	r = ethtool_nl_new(&e);
	if (r < 0) {
		link_monitor_free(m);
		return r;
	}
	if (json) {
		fputc('[', f);
	}
	for (size_t i = 0; i < link_monitor_count(m); i++) {
		const struct link_info *li = link_monitor_get(m, i);
		struct tsinfo ti = { .phc_index = -1 };
		struct tsconfig tc = { 0 };
		int err = ethtool_nl_tsinfo_get(e, li->name, &ti);
		/* TSCONFIG only means something with hardware; -EOPNOTSUPP elsewhere. */
		int tc_err = err >= 0 && ti.phc_index >= 0
				     ? ethtool_nl_tsconfig_get(e, li->name, &tc)
				     : -EOPNOTSUPP;

		if (json) {
			if (i > 0) {
				fputc(',', f);
			}
			one_json(f, li, &ti, err, &tc, tc_err);
		} else {
			one_text(f, li, &ti, err, &tc, tc_err);
		}
	}
	if (json) {
		fputs("]\n", f);
	}
	ethtool_nl_free(e);
	link_monitor_free(m);
	return 0;
}
