// SPDX-License-Identifier: GPL-2.0-or-later
/* The exporter's cache of org.phcd1 objects: properties of basic types and a port's counters. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "exporter/exporter.h"

static void prop_done(struct prop *p)
{
	free(p->name);
	if (p->type == 's' || p->type == 'o') {
		free(p->s);
	}
}

static void counters_free(struct object *o)
{
	for (size_t i = 0; i < o->n_counters; i++) {
		free(o->counters[i].name);
	}
	free(o->counters);
	o->counters = NULL;
	o->n_counters = 0;
}

static void uc_rows_free(struct object *o)
{
	for (size_t i = 0; i < o->n_uc_rows; i++) {
		struct uc_row *u = &o->uc_rows[i];

		free(u->peer);
		free(u->role);
		free(u->message);
		free(u->state);
	}
	free(o->uc_rows);
	o->uc_rows = NULL;
	o->n_uc_rows = 0;
}

static void reasons_free(struct object *o)
{
	for (size_t i = 0; i < o->n_reasons; i++) {
		free(o->reasons[i]);
	}
	free(o->reasons);
	o->reasons = NULL;
	o->n_reasons = 0;
	o->has_reasons = false;
}

static struct object *object_free(struct object *o)
{
	if (!o) {
		return NULL;
	}
	for (size_t i = 0; i < o->n_props; i++) {
		prop_done(&o->props[i]);
	}
	free(o->props);
	counters_free(o);
	uc_rows_free(o);
	reasons_free(o);
	free(o->path);
	free(o);
	return NULL;
}

void model_clear(struct model *m)
{
	for (size_t i = 0; i < m->n_objects; i++) {
		object_free(m->objects[i]);
	}
	free(m->objects);
	m->objects = NULL;
	m->n_objects = 0;
}

struct object *model_find(const struct model *m, const char *path)
{
	for (size_t i = 0; i < m->n_objects; i++) {
		if (strcmp(m->objects[i]->path, path) == 0) {
			return m->objects[i];
		}
	}
	return NULL;
}

struct object *model_get(struct model *m, const char *path, enum object_kind kind)
{
	struct object *o = model_find(m, path), **objects;

	if (o) {
		return o;
	}
	objects = reallocarray(m->objects, m->n_objects + 1, sizeof(*objects));
	if (!objects) {
		return NULL;
	}
	m->objects = objects;
	o = calloc(1, sizeof(*o));
	if (!o) {
		return NULL;
	}
	o->path = strdup(path);
	if (!o->path) {
		free(o);
		return NULL;
	}
	o->kind = kind;
	m->objects[m->n_objects++] = o;
	return o;
}

void model_remove(struct model *m, const char *path)
{
	for (size_t i = 0; i < m->n_objects; i++) {
		if (strcmp(m->objects[i]->path, path) == 0) {
			object_free(m->objects[i]);
			memmove(&m->objects[i], &m->objects[i + 1],
				(m->n_objects - i - 1) * sizeof(*m->objects));
			m->n_objects--;
			return;
		}
	}
}

const struct prop *object_prop(const struct object *o, const char *name)
{
	for (size_t i = 0; i < o->n_props; i++) {
		if (strcmp(o->props[i].name, name) == 0) {
			return &o->props[i];
		}
	}
	return NULL;
}

bool object_number(const struct object *o, const char *name, double *ret)
{
	const struct prop *p = object_prop(o, name);

	if (!p) {
		return false;
	}
	switch (p->type) {
	case 's':
	case 'o':
		return false;
	case 't':
		*ret = (double) p->u;
		return true;
	case 'd':
		*ret = p->d;
		return true;
	default:
		*ret = (double) p->i;
		return true;
	}
}

const char *object_string(const struct object *o, const char *name)
{
	const struct prop *p = object_prop(o, name);

	return p && (p->type == 's' || p->type == 'o') ? p->s : NULL;
}

static void object_forget(struct object *o, const char *name)
{
	for (size_t i = 0; i < o->n_props; i++) {
		if (strcmp(o->props[i].name, name) == 0) {
			prop_done(&o->props[i]);
			memmove(&o->props[i], &o->props[i + 1],
				(o->n_props - i - 1) * sizeof(*o->props));
			o->n_props--;
			return;
		}
	}
}

/* Read one variant's value (the message is inside the variant) into p; -EOPNOTSUPP for a type
 * not kept, with the value left unread. */
static int read_value(sd_bus_message *m, char type, struct prop *p)
{
	union {
		uint8_t y;
		int b;
		int16_t n;
		uint16_t q;
		int32_t i;
		uint32_t u;
		int64_t x;
		uint64_t t;
		double d;
		const char *s;
	} v;
	int r = sd_bus_message_read_basic(m, type, &v);

	if (r < 0) {
		return r;
	}
	p->type = type;
	switch (type) {
	case 'y':
		p->i = v.y;
		break;
	case 'b':
		p->i = !!v.b;
		break;
	case 'n':
		p->i = v.n;
		break;
	case 'q':
		p->i = v.q;
		break;
	case 'i':
		p->i = v.i;
		break;
	case 'u':
		p->i = v.u;
		break;
	case 'x':
		p->i = v.x;
		break;
	case 't':
		p->u = v.t;
		break;
	case 'd':
		p->d = v.d;
		break;
	case 's':
	case 'o':
		p->s = strdup(v.s);
		if (!p->s) {
			return -ENOMEM;
		}
		break;
	default:
		return -EOPNOTSUPP;
	}
	return 0;
}

/* HealthReasons, a(ss) of (code, sentence): the codes are kept (the sentences are for people). */
static int read_reasons(struct object *o, sd_bus_message *m)
{
	const char *code, *sentence;
	char **reasons;
	int r;

	reasons_free(o);
	o->has_reasons = true;
	r = sd_bus_message_enter_container(m, SD_BUS_TYPE_VARIANT, "a(ss)");
	if (r < 0) {
		return r;
	}
	r = sd_bus_message_enter_container(m, SD_BUS_TYPE_ARRAY, "(ss)");
	if (r < 0) {
		return r;
	}
	while ((r = sd_bus_message_read(m, "(ss)", &code, &sentence)) > 0) {
		reasons = reallocarray(o->reasons, o->n_reasons + 1, sizeof(*reasons));
		if (!reasons) {
			return -ENOMEM;
		}
		o->reasons = reasons;
		o->reasons[o->n_reasons] = strdup(code);
		if (!o->reasons[o->n_reasons]) {
			return -ENOMEM;
		}
		o->n_reasons++;
	}
	if (r < 0) {
		return r;
	}
	r = sd_bus_message_exit_container(m);
	if (r < 0) {
		return r;
	}
	return sd_bus_message_exit_container(m);
}

static int object_set(struct object *o, const char *name, sd_bus_message *m)
{
	const char *contents;
	struct prop p = { 0 }, *props;
	char type;
	int r;

	r = sd_bus_message_peek_type(m, &type, &contents);
	if (r < 0) {
		return r;
	}
	if (type == SD_BUS_TYPE_VARIANT && strcmp(name, "HealthReasons") == 0 &&
	    strcmp(contents, "a(ss)") == 0) {
		return read_reasons(o, m);
	}
	if (type != SD_BUS_TYPE_VARIANT || !contents[0] || !strchr("ybnqiuxtdso", contents[0]) ||
	    contents[1]) {
		/* An array or struct: not a metric; skipped. */
		return sd_bus_message_skip(m, "v");
	}
	r = sd_bus_message_enter_container(m, SD_BUS_TYPE_VARIANT, contents);
	if (r < 0) {
		return r;
	}
	r = read_value(m, contents[0], &p);
	if (r < 0) {
		return r;
	}
	r = sd_bus_message_exit_container(m);
	if (r < 0) {
		prop_done(&p);
		return r;
	}
	object_forget(o, name);
	props = reallocarray(o->props, o->n_props + 1, sizeof(*props));
	if (!props) {
		prop_done(&p);
		return -ENOMEM;
	}
	o->props = props;
	p.name = strdup(name);
	if (!p.name) {
		prop_done(&p);
		return -ENOMEM;
	}
	o->props[o->n_props++] = p;
	return 0;
}

int object_read_props(struct object *o, sd_bus_message *m)
{
	const char *name;
	int r;

	r = sd_bus_message_enter_container(m, SD_BUS_TYPE_ARRAY, "{sv}");
	if (r < 0) {
		return r;
	}
	while ((r = sd_bus_message_enter_container(m, SD_BUS_TYPE_DICT_ENTRY, "sv")) > 0) {
		r = sd_bus_message_read(m, "s", &name);
		if (r < 0) {
			return r;
		}
		r = object_set(o, name, m);
		if (r < 0) {
			return r;
		}
		r = sd_bus_message_exit_container(m);
		if (r < 0) {
			return r;
		}
	}
	if (r < 0) {
		return r;
	}
	return sd_bus_message_exit_container(m);
}

int object_read_invalidated(struct object *o, sd_bus_message *m)
{
	const char *name;
	int r;

	r = sd_bus_message_enter_container(m, SD_BUS_TYPE_ARRAY, "s");
	if (r < 0) {
		return r;
	}
	while ((r = sd_bus_message_read(m, "s", &name)) > 0) {
		object_forget(o, name);
		if (strcmp(name, "HealthReasons") == 0) {
			reasons_free(o);
		}
	}
	if (r < 0) {
		return r;
	}
	return sd_bus_message_exit_container(m);
}

/*
 * Read an array of sig's elements, one at a time through row() (> 0: one read and kept, 0: the
 * end, < 0: an error).
 */
static int read_rows(struct object *o, sd_bus_message *m, const char *sig,
		     int (*row)(struct object *o, sd_bus_message *m))
{
	int r = sd_bus_message_enter_container(m, SD_BUS_TYPE_ARRAY, sig);

	if (r < 0) {
		return r;
	}
	while ((r = row(o, m)) > 0) {
	}
	if (r < 0) {
		return r;
	}
	return sd_bus_message_exit_container(m);
}

static int counter_row(struct object *o, sd_bus_message *m)
{
	struct counter *c;
	const char *name;
	uint64_t value;
	int r = sd_bus_message_read(m, "{st}", &name, &value);

	if (r <= 0) {
		return r;
	}
	c = reallocarray(o->counters, o->n_counters + 1, sizeof(*c));
	if (!c) {
		return -ENOMEM;
	}
	o->counters = c;
	c = &c[o->n_counters++];
	*c = (struct counter){ strdup(name), value };
	return c->name ? 1 : -ENOMEM;
}

int object_read_counters(struct object *o, sd_bus_message *m)
{
	counters_free(o);
	return read_rows(o, m, "{st}", counter_row);
}

static int uc_row(struct object *o, sd_bus_message *m)
{
	const char *peer, *role, *message, *state;
	struct uc_row *u;
	uint32_t left;
	int16_t period;
	int r = sd_bus_message_read(m, "(ssssnu)", &peer, &role, &message, &state, &period, &left);

	if (r <= 0) {
		return r;
	}
	u = reallocarray(o->uc_rows, o->n_uc_rows + 1, sizeof(*u));
	if (!u) {
		return -ENOMEM;
	}
	o->uc_rows = u;
	u = &u[o->n_uc_rows++];
	*u = (struct uc_row){ strdup(peer),  strdup(role), strdup(message),
			      strdup(state), period,	   left };
	return u->peer && u->role && u->message && u->state ? 1 : -ENOMEM;
}

int object_read_unicast_table(struct object *o, sd_bus_message *m)
{
	uc_rows_free(o);
	return read_rows(o, m, "(ssssnu)", uc_row);
}
