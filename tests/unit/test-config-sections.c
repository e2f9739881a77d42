/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The loader at scale: CONFIG_SECTIONS_MAX sections load and are found by name, the one past it is
 * refused with its file:line and nothing after it is read, and the name index finds every entry
 * (issue 31 item 5: 40,000 sections took 7.7 s and 130 MB).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "common/config-file.h"
#include "common/config-index.h"

#include "tests/unit/config-fixture.h"

enum kind {
	INTERFACES, /* [interface eN] and a comment: 2 lines */
	INSTANCES,  /* [instance iN] with interfaces = eN: 2 lines */
	PTP4L,	    /* a ptp4l_config's [eN]: 1 line */
};

/* Write path: header (may be ""), then n sections of one kind. */
static void write_sections(const char *path, const char *header, unsigned n, enum kind k)
{
	FILE *fp = fopen(path, "we");

	assert_non_null(fp);
	fputs(header, fp);
	for (unsigned i = 0; i < n; i++) {
		switch (k) {
		case INTERFACES:
			fprintf(fp, "[interface e%u]\n# section %u\n", i, i);
			break;
		case INSTANCES:
			fprintf(fp, "[instance i%u]\ninterfaces = e%u\n", i, i);
			break;
		case PTP4L:
			fprintf(fp, "[e%u]\n", i);
			break;
		}
	}
	assert_int_equal(fclose(fp), 0);
}

static int load(struct fixture *f, struct config **c, char **errors)
{
	*c = NULL;
	*errors = NULL;
	return config_load(&(struct config_source){ .path = f->path }, c, errors, NULL);
}

/* errors holds "PATH:LINE: rest" (rest a prefix of what follows). */
static void assert_error_at(const char *errors, const char *path, unsigned line, const char *rest)
{
	char want[512];

	snprintf(want, sizeof(want), "%s:%u: %s", path, line, rest);
	if (!errors || !strstr(errors, want)) {
		fail_msg("expected \"%s\" in the errors, got:\n%s", want,
			 errors ? errors : "(none)");
	}
}

static const char *const too_many = "more than 1024 sections ([instance], [interface] and the "
				    "[IFNAME] of ptp4l_config files together), expected at most "
				    "1024 (the rest is not read)";

/* The bound itself: one [instance] and 1023 [interface] sections load, every one found. */
static void test_at_bound_loads(void **state)
{
	struct fixture *f = *state;
	struct config *c;
	char *errors;
	char name[IFNAMSIZ];

	assert_int_equal(CONFIG_SECTIONS_MAX, 1024);
	write_sections(f->path, "[instance lab]\ninterfaces = auto\n", CONFIG_SECTIONS_MAX - 1,
		       INTERFACES);
	if (load(f, &c, &errors) != 0) {
		fail_msg("expected 1024 sections to load, got:\n%s", errors ? errors : "");
	}
	assert_int_equal(c->n_interfaces, CONFIG_SECTIONS_MAX - 1);
	for (unsigned i = 0; i < CONFIG_SECTIONS_MAX - 1; i++) {
		const struct config_interface *itf;
		struct port_options p;

		snprintf(name, sizeof(name), "e%u", i);
		itf = config_find_interface(c, name);
		assert_non_null(itf);
		assert_string_equal(itf->ifname, name);
		assert_int_equal(config_port_options(c, "lab", name, &p), 0);
	}
	assert_null(config_find_interface(c, "e1023"));
	config_free(c);
	free(errors);
}

/* One [interface] past the bound: refused at its header's line; later errors are not read. */
static void test_past_bound_phcd_conf(void **state)
{
	struct fixture *f = *state;
	struct config *c;
	char *errors;
	FILE *fp;

	/* Line 1-2 the instance, then 2 lines per [interface]: the 1024th is at line 3 + 2 * 1023.
	 */
	write_sections(f->path, "[instance lab]\ninterfaces = auto\n", CONFIG_SECTIONS_MAX,
		       INTERFACES);
	fp = fopen(f->path, "ae");
	assert_non_null(fp);
	fputs("[global]\nbogus_key_after_the_bound = 1\n", fp);
	assert_int_equal(fclose(fp), 0);
	assert_int_equal(load(f, &c, &errors), -EINVAL);
	assert_null(c);
	assert_error_at(errors, f->path, 3 + 2 * (CONFIG_SECTIONS_MAX - 1), too_many);
	assert_null(strstr(errors, "bogus_key_after_the_bound"));
	free(errors);
}

/* [instance] sections count as well (17,000 of them took 21.5 s in the daemon). */
static void test_past_bound_instances(void **state)
{
	struct fixture *f = *state;
	struct config *c;
	char *errors;

	write_sections(f->path, "", CONFIG_SECTIONS_MAX + 100, INSTANCES);
	assert_int_equal(load(f, &c, &errors), -EINVAL);
	assert_error_at(errors, f->path, 2 * CONFIG_SECTIONS_MAX + 1, too_many);
	/* Reported once, not once per section past the bound. */
	assert_ptr_equal(strstr(errors, too_many), strrchr(errors, '\n') - strlen(too_many));
	free(errors);
}

/*
 * A ptp4l_config's [IFNAME] sections count with phcd.conf's, and its file:line is named, shown
 * even after more than CONFIG_ERRORS_MAX other errors (each [IFNAME] past 64 is one).
 */
static void test_past_bound_ptp4l_config(void **state)
{
	struct fixture *f = *state;
	struct config *c;
	char *errors;
	FILE *fp;

	fp = fopen(f->path, "we");
	assert_non_null(fp);
	fprintf(fp, "[global]\nptp4l_config = %s\n", f->ptp4l);
	assert_int_equal(fclose(fp), 0);
	/* Line 1 [global], then one line per [IFNAME]: the 1025th at line 1026. */
	write_sections(f->ptp4l, "[global]\n", 40000, PTP4L);
	assert_int_equal(load(f, &c, &errors), -EINVAL);
	assert_error_at(errors, f->ptp4l, CONFIG_SECTIONS_MAX + 2, too_many);
	assert_non_null(strstr(errors, "more errors (only the first 50 are shown)"));
	free(errors);
}

/* A drop-in that amends a section adds none; one that opens a new one past the bound is refused.
 */
static void test_dropins_count_new_sections_only(void **state)
{
	struct fixture *f = *state;
	struct config *c;
	char *errors;
	char path[256];
	FILE *fp;

	write_sections(f->path, "[instance lab]\ninterfaces = auto\n", CONFIG_SECTIONS_MAX - 1,
		       INTERFACES);
	mkdir(f->dropins, 0755);
	snprintf(path, sizeof(path), "%s/10-amend.conf", f->dropins);
	fp = fopen(path, "we");
	assert_non_null(fp);
	fputs("[interface e5]\nlogSyncInterval = 2\n[instance lab]\npriority1 = 7\n", fp);
	assert_int_equal(fclose(fp), 0);
	if (load(f, &c, &errors) != 0) {
		fail_msg("expected an amending drop-in to load, got:\n%s", errors ? errors : "");
	}
	assert_int_equal(config_find_instance(c, "lab")->options.priority1, 7);
	config_free(c);

	snprintf(path, sizeof(path), "%s/20-new.conf", f->dropins);
	fp = fopen(path, "we");
	assert_non_null(fp);
	fputs("[interface extra]\n", fp);
	assert_int_equal(fclose(fp), 0);
	assert_int_equal(load(f, &c, &errors), -EINVAL);
	assert_error_at(errors, path, 1, too_many);
	free(errors);
}

/* The index finds every position, also when all share one hash, and grows past its first size. */
static void test_index(void **state)
{
	struct config_index x = { 0 };
	static unsigned char seen[5000];
	uint32_t cursor = 0, pos;
	unsigned n = 0;

	(void) state;
	assert_false(config_index_next(&x, 7, &cursor, &pos));
	for (uint32_t i = 0; i < 5000; i++) {
		assert_int_equal(config_index_add(&x, i % 2 ? 42 : config_index_hash("x", i), i),
				 0);
	}
	while (config_index_next(&x, 42, &cursor, &pos)) {
		assert_true(pos % 2 == 1 && pos < 5000 && !seen[pos]);
		seen[pos] = 1;
		n++;
	}
	assert_int_equal(n, 2500);
	for (uint32_t i = 0; i < 5000; i += 2) {
		bool found = false;

		cursor = 0;
		while (config_index_next(&x, config_index_hash("x", i), &cursor, &pos)) {
			found |= pos == i;
		}
		assert_true(found);
	}
	/* The salt tells apart the same name of two owners. */
	assert_int_not_equal(config_index_hash("eth0", 0), config_index_hash("eth0", 1));
	config_index_free(&x);
	assert_null(x.slots);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_at_bound_loads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_past_bound_phcd_conf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_past_bound_instances, setup, teardown),
		cmocka_unit_test_setup_teardown(test_past_bound_ptp4l_config, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dropins_count_new_sections_only, setup,
						teardown),
		cmocka_unit_test(test_index),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
