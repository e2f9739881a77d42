// SPDX-License-Identifier: GPL-2.0-or-later
/* A deterministic simulated clock with frequency error and Gaussian read noise, for tests. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "tests/doubles/clock-sim.h"
#include "ptp/util.h"

#define SIM_MAX_FREQ_PPB 1e6

struct clock_sim {
	struct clock base;
	ns_t true_now; /* the reference time the test moves */
	ns_t now;      /* the clock's own time, whole ns */
	double frac;   /* and its sub-ns part, so slow drifts add up exactly */
	double freq_error_ppb;
	double adj_ppb;
	double noise_ns;
	uint64_t rng;
	bool have_spare;
	double spare;
};

static const struct clock_ops clock_sim_ops;

static struct clock_sim *to_sim(struct clock *c)
{
	return container_of(c, struct clock_sim, base);
}

/* splitmix64: small, good enough, and its whole state lives in the clock. */
static uint64_t sim_next(struct clock_sim *s)
{
	uint64_t z = (s->rng += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* Uniform in (0, 1]: never 0, so the logarithm below is finite. */
static double sim_uniform(struct clock_sim *s)
{
	return ((double) (sim_next(s) >> 11) + 1.0) / 9007199254740992.0;
}

double clock_sim_gauss(struct clock *c, double stddev)
{
	struct clock_sim *s = to_sim(c);
	double u, v, r;

	if (s->have_spare) {
		s->have_spare = false;
		return s->spare * stddev;
	}
	/* Box-Muller: two independent normal values per two uniforms. */
	u = sim_uniform(s);
	v = sim_uniform(s);
	r = sqrt(-2.0 * log(u));
	s->spare = r * sin(2.0 * M_PI * v);
	s->have_spare = true;
	return r * cos(2.0 * M_PI * v) * stddev;
}

static int sim_gettime(struct clock *c, ns_t *ret)
{
	struct clock_sim *s = to_sim(c);

	*ret = s->now;
	if (s->noise_ns > 0) {
		*ret += (ns_t) llround(clock_sim_gauss(c, s->noise_ns));
	}
	return 0;
}

static int sim_adjfreq(struct clock *c, double ppb)
{
	if (!(fabs(ppb) <= c->max_freq_ppb)) {
		return -ERANGE;
	}
	to_sim(c)->adj_ppb = ppb;
	return 0;
}

static int sim_getfreq(struct clock *c, double *ppb)
{
	*ppb = to_sim(c)->adj_ppb;
	return 0;
}

static int sim_step(struct clock *c, ns_t delta)
{
	to_sim(c)->now += delta;
	return 0;
}

/* It stamps its own frames: raw time is its time. */
static int sim_from_raw(struct clock *c, ns_t raw, ns_t *ret)
{
	*ret = raw;
	return 0;
}

static void sim_free(struct clock *c)
{
	free(to_sim(c));
}

static const struct clock_ops clock_sim_ops = {
	.name = "simulated",
	.gettime = sim_gettime,
	.adjfreq = sim_adjfreq,
	.getfreq = sim_getfreq,
	.step = sim_step,
	.from_raw = sim_from_raw,
	.free = sim_free,
};

int clock_sim_new(const struct clock_sim_config *cfg, struct clock **ret)
{
	struct clock_sim *s;

	if (cfg->noise_ns < 0 || cfg->max_freq_ppb < 0) {
		return -EINVAL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		return -ENOMEM;
	}
	s->base.ops = &clock_sim_ops;
	s->base.max_freq_ppb = cfg->max_freq_ppb > 0 ? cfg->max_freq_ppb : SIM_MAX_FREQ_PPB;
	s->true_now = cfg->start;
	s->now = cfg->start;
	s->freq_error_ppb = cfg->freq_error_ppb;
	s->noise_ns = cfg->noise_ns;
	s->rng = cfg->seed;
	*ret = &s->base;
	return 0;
}

int clock_sim_advance(struct clock *c, ns_t dt)
{
	struct clock_sim *s;
	double whole;

	if (c->ops != &clock_sim_ops || dt < 0) {
		return -EINVAL;
	}
	s = to_sim(c);
	s->true_now += dt;
	s->frac += (double) dt * (s->freq_error_ppb + s->adj_ppb) / NS_PER_SEC;
	whole = floor(s->frac);
	s->frac -= whole;
	s->now += dt + (ns_t) whole;
	return 0;
}

ns_t clock_sim_true_time(const struct clock *c)
{
	return container_of(c, struct clock_sim, base)->true_now;
}

ns_t clock_sim_error(const struct clock *c)
{
	const struct clock_sim *s = container_of(c, struct clock_sim, base);

	return s->now - s->true_now;
}
