// SPDX-License-Identifier: GPL-2.0-or-later
/* The clock back end wrappers: one call per op, so callers never reach into the ops table. */
#include "ptp/clock.h"

int clock_get_time(struct clock *c, ns_t *ret)
{
	return c->ops->gettime(c, ret);
}

int clock_adj_freq(struct clock *c, double ppb)
{
	return c->ops->adjfreq(c, ppb);
}

int clock_get_freq(struct clock *c, double *ppb)
{
	return c->ops->getfreq(c, ppb);
}

int clock_step(struct clock *c, ns_t delta)
{
	return c->ops->step(c, delta);
}

int clock_from_raw(struct clock *c, ns_t raw, ns_t *ret)
{
	return c->ops->from_raw(c, raw, ret);
}

struct clock *clock_free(struct clock *c)
{
	if (c) {
		c->ops->free(c);
	}
	return NULL;
}

const char *clock_name(const struct clock *c)
{
	return c->ops->name;
}
