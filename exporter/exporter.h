/* SPDX-License-Identifier: GPL-2.0-or-later */
/* phcd-exporter's view of org.phcd1: a cache of the objects and properties it last heard of. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

enum object_kind {
	OBJECT_MANAGER,
	OBJECT_INSTANCE,
	OBJECT_PORT,
};

/* One D-Bus property of a basic type; other types (arrays, structs) are not kept. */
struct prop {
	char *name;
	char type; /* the D-Bus type character */
	union {
		int64_t i;  /* y n q i u x b (b as 0/1) */
		uint64_t u; /* t */
		double d;
		char *s; /* s o */
	};
};

struct counter {
	char *name;
	uint64_t value;
};

/* One row of a port's UnicastTable a(ssssnu). */
struct uc_row {
	char *peer, *role, *message, *state;
	int16_t log_period;
	uint32_t seconds_left;
};

struct object {
	char *path;
	enum object_kind kind;
	struct prop *props;
	size_t n_props;
	struct counter *counters; /* a port's Counters, read with Get (phcd does not signal it) */
	size_t n_counters;
	struct uc_row *uc_rows; /* a port's UnicastTable, read with Get with the counters */
	size_t n_uc_rows;
	char **reasons; /* the codes of HealthReasons a(ss), when phcd has that property */
	size_t n_reasons;
	bool has_reasons;
};

struct model {
	bool up; /* org.phcd1 has an owner and its objects were read */
	struct object **objects;
	size_t n_objects;
};

void model_clear(struct model *m);
struct object *model_find(const struct model *m, const char *path);
/* The object at path, created with kind when absent; NULL when out of memory. */
struct object *model_get(struct model *m, const char *path, enum object_kind kind);
void model_remove(struct model *m, const char *path);

const struct prop *object_prop(const struct object *o, const char *name);
/* A property's number (bool as 0/1); false when absent or not a number. */
bool object_number(const struct object *o, const char *name, double *ret);
/* A property's string (s or o); NULL when absent or not a string. */
const char *object_string(const struct object *o, const char *name);

/* Read an a{sv} from m into o's properties (a value of a type not kept is skipped). */
int object_read_props(struct object *o, sd_bus_message *m);
/* Forget the properties named in an `as` (invalidated_properties of PropertiesChanged). */
int object_read_invalidated(struct object *o, sd_bus_message *m);
/* Replace o's counters with an a{st}. */
int object_read_counters(struct object *o, sd_bus_message *m);
/* Replace o's unicast table with an a(ssssnu). */
int object_read_unicast_table(struct object *o, sd_bus_message *m);

/* The text served on /metrics (Prometheus text format 0.0.4); NULL when out of memory. */
char *metrics_render(const struct model *m, size_t *ret_len);

struct exporter;
/*
 * Follow org.phcd1 into m. read(userdata) is called once, when phcd was first read (its objects
 * and the Manager's properties) or found absent or unreachable: scrapes before that would say
 * phcd_up 0 of a phcd that runs (the first one after socket activation).
 */
int exporter_bus_new(sd_event *e, struct model *m, unsigned counter_interval_s,
		     void (*read)(void *userdata), void *userdata, struct exporter **ret);
struct exporter *exporter_bus_free(struct exporter *x);
