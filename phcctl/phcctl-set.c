// SPDX-License-Identifier: GPL-2.0-or-later
/* phcctl set-grandmaster-settings and check-config: the calls that take more than a name. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "phcctl/phcctl.h"
#include "ptp/util.h"

/* SetGrandmasterSettings' arguments, in its order, by the names of GRANDMASTER_SETTINGS_NP. */
static const struct gm_key {
	const char *name;
	long max;
} gm_keys[] = {
	{ "clockClass", 255 },
	{ "clockAccuracy", 255 },
	{ "offsetScaledLogVariance", 65535 },
	{ "currentUtcOffset", 32767 },
	{ "leap61", 1 },
	{ "leap59", 1 },
	{ "currentUtcOffsetValid", 1 },
	{ "timeTraceable", 1 },
	{ "frequencyTraceable", 1 },
	{ "timeSource", 255 },
};

#define GM_KEYS ARRAY_SIZE(gm_keys)

/* "KEY VALUE ..." pairs, every key once: what pmc's SET GRANDMASTER_SETTINGS_NP takes. */
static int gm_parse(char **args, int n, long v[GM_KEYS])
{
	bool seen[GM_KEYS] = { false };

	if (n != 2 * (int) GM_KEYS) {
		log_error("set-grandmaster-settings takes NAME and %zu KEY VALUE pairs, not %d "
			  "arguments; see phcctl --help",
			  GM_KEYS, n);
		return -EXIT_USAGE;
	}
	for (int k = 0; k < n; k += 2) {
		size_t j;
		char *end;

		for (j = 0; j < GM_KEYS && strcmp(gm_keys[j].name, args[k]); j++) {
		}
		if (j == GM_KEYS || seen[j]) {
			log_error("set-grandmaster-settings: %s key '%s'",
				  j == GM_KEYS ? "unknown" : "repeated", args[k]);
			return -EXIT_USAGE;
		}
		errno = 0;
		v[j] = strtol(args[k + 1], &end, 0);
		if (errno || *end || end == args[k + 1] || v[j] < 0 || v[j] > gm_keys[j].max) {
			log_error("set-grandmaster-settings: %s '%s', expected 0..%ld", args[k],
				  args[k + 1], gm_keys[j].max);
			return -EXIT_USAGE;
		}
		seen[j] = true;
	}
	return 0;
}

int phcctl_set_grandmaster_settings(struct phcctl *c, char **args, int n)
{
	_cleanup_free_ char *path = NULL;
	sd_bus_error e = SD_BUS_ERROR_NULL;
	long v[GM_KEYS];
	int r;

	r = gm_parse(args + 1, n - 1, v);
	if (r < 0) {
		return -r;
	}
	r = phcctl_lookup(c, "GetInstance", args[0], &path);
	if (r < 0) {
		return -r;
	}
	r = phcctl_call(c, path, PHCD_BUS_IFACE_INSTANCE, "SetGrandmasterSettings", &e, NULL,
			"yyqnbbbbby", (uint8_t) v[0], (uint8_t) v[1], (uint16_t) v[2],
			(int16_t) v[3], (int) v[4], (int) v[5], (int) v[6], (int) v[7], (int) v[8],
			(uint8_t) v[9]);
	r = r < 0 ? phcctl_error("SetGrandmasterSettings", &e, r) : EXIT_OK;
	sd_bus_error_free(&e);
	return r;
}

/* check-config FILE ("-": standard input): phcd's verdict on it, nothing applied. */
int phcctl_check_config(struct phcctl *c, const char *file)
{
	_cleanup_free_ char *text = NULL;
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	size_t len = 0;
	const char *line;
	int ok = 0, r;
	FILE *in = strcmp(file, "-") ? fopen(file, "re") : stdin;
	FILE *mem;

	if (!in) {
		log_error_errno(-errno, "%s: %m", file);
		return EXIT_FAILED;
	}
	mem = open_memstream(&text, &len);
	for (int ch; mem && (ch = getc(in)) != EOF;) {
		fputc(ch, mem);
	}
	if (in != stdin) {
		fclose(in);
	}
	if (!mem || fclose(mem) != 0) {
		return phcctl_error(file, NULL, -ENOMEM);
	}
	r = phcctl_call(c, PHCD_BUS_PATH_MANAGER, PHCD_BUS_IFACE_MANAGER, "CheckConfig", &e, &reply,
			"s", text);
	if (r < 0) {
		r = phcctl_error("CheckConfig", &e, r);
		sd_bus_error_free(&e);
		return r;
	}
	r = sd_bus_message_read(reply, "b", &ok);
	if (r >= 0) {
		r = sd_bus_message_enter_container(reply, 'a', "s");
	}
	while (r >= 0 && (r = sd_bus_message_read_basic(reply, 's', &line)) > 0) {
		printf("%s\n", line);
	}
	sd_bus_message_unref(reply);
	if (r < 0) {
		return phcctl_error("CheckConfig", NULL, r);
	}
	return ok ? EXIT_OK : EXIT_FAILED;
}
