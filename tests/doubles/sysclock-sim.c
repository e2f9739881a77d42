// SPDX-License-Identifier: GPL-2.0-or-later
/* A simulated kernel clock: adjtimex(2) and clock_gettime emulated in memory for unit tests. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "tests/doubles/sysclock-sim.h"
#include "ptp/util.h"

#define SECS_PER_DAY 86400
/* kernel/time/ntp.c: MAXFREQ 500 ppm, NTP_PHASE_LIMIT 16 s (in us), maxerror growth per second */
#define SIM_MAXFREQ 32768000L /* 500 ppm in timex.freq units (ppm << 16) */
#define SIM_PHASE_LIMIT_US 16000000L
#define SIM_MAXERROR_GROWTH_US 500L

struct sysclock_sim {
	ns_t true_ns;
	ns_t mono;
	ns_t real_offset; /* REALTIME - MONOTONIC */
	double frac;	  /* sub-ns remainder of the kernel clocks' advance */
	double freq_error_ppb;
	bool cap_sys_time;
	ns_t phc_offset;
	/* the kernel's NTP state */
	long freq;
	long offset;
	int status;
	int state;
	long maxerror;
	long esterror;
	int tai;
};

int sysclock_sim_new(const struct sysclock_sim_config *cfg, struct sysclock_sim **ret)
{
	struct sysclock_sim *sim = calloc(1, sizeof(*sim));

	if (!sim) {
		return -ENOMEM;
	}
	sim->true_ns = cfg->start_real;
	sim->phc_offset = cfg->phc_offset;
	/* An arbitrary boot time, so MONOTONIC and REALTIME differ as they do. */
	sim->mono = 1000 * NS_PER_SEC;
	sim->real_offset = cfg->start_real - sim->mono;
	sim->freq_error_ppb = cfg->freq_error_ppb;
	sim->cap_sys_time = cfg->cap_sys_time;
	/* A freshly booted kernel: unsynchronized, maxerror at the limit. */
	sim->status = STA_UNSYNC;
	sim->state = TIME_OK;
	sim->maxerror = SIM_PHASE_LIMIT_US;
	sim->esterror = SIM_PHASE_LIMIT_US;
	*ret = sim;
	return 0;
}

struct sysclock_sim *sysclock_sim_free(struct sysclock_sim *sim)
{
	free(sim);
	return NULL;
}

ns_t sysclock_sim_real(const struct sysclock_sim *sim)
{
	return sim->mono + sim->real_offset;
}

ns_t sysclock_sim_true(const struct sysclock_sim *sim)
{
	return sim->true_ns;
}

static double sim_rate(const struct sysclock_sim *sim)
{
	return 1.0 + (sim->freq_error_ppb + sim->freq / 65.536) / 1e9;
}

/* kernel/time/ntp.c second_overflow(), at the start of REALTIME second secs. */
static void sim_second_overflow(struct sysclock_sim *sim, int64_t secs)
{
	switch (sim->state) {
	case TIME_OK:
		if (sim->status & STA_INS) {
			sim->state = TIME_INS;
		} else if (sim->status & STA_DEL) {
			sim->state = TIME_DEL;
		}
		break;
	case TIME_INS:
		if (!(sim->status & STA_INS)) {
			sim->state = TIME_OK;
		} else if (secs % SECS_PER_DAY == 0) {
			sim->real_offset -= NS_PER_SEC; /* 23:59:60 repeats as 23:59:59 */
			sim->state = TIME_OOP;
		}
		break;
	case TIME_DEL:
		if (!(sim->status & STA_DEL)) {
			sim->state = TIME_OK;
		} else if ((secs + 1) % SECS_PER_DAY == 0) {
			sim->real_offset += NS_PER_SEC; /* 23:59:59 skipped */
			sim->state = TIME_WAIT;
		}
		break;
	case TIME_OOP:
		sim->state = TIME_WAIT;
		break;
	case TIME_WAIT:
		if (!(sim->status & (STA_INS | STA_DEL))) {
			sim->state = TIME_OK;
		}
		break;
	}
	sim->maxerror += SIM_MAXERROR_GROWTH_US;
	if (sim->maxerror > SIM_PHASE_LIMIT_US) {
		sim->maxerror = SIM_PHASE_LIMIT_US;
		sim->status |= STA_UNSYNC;
	}
}

void sysclock_sim_advance(struct sysclock_sim *sim, ns_t dt)
{
	while (dt > 0) {
		ns_t real = sysclock_sim_real(sim);
		ns_t next = (real / NS_PER_SEC + 1) * NS_PER_SEC;
		double rate = sim_rate(sim);
		/* true time to the next REALTIME second, at least 1 ns so the loop always moves */
		ns_t to_next = (ns_t) ceil((double) (next - real) / rate);
		ns_t step = to_next < 1 ? 1 : to_next;
		double adv;

		if (step > dt) {
			step = dt;
		}
		adv = step * rate + sim->frac;
		sim->frac = adv - floor(adv);
		sim->mono += (ns_t) floor(adv);
		sim->true_ns += step;
		dt -= step;
		if (sysclock_sim_real(sim) >= next) {
			sim_second_overflow(sim, next / NS_PER_SEC);
		}
	}
}

int sysclock_sim_read(struct sysclock_sim *sim, struct timex *tx)
{
	*tx = (struct timex){ .modes = 0 };
	return sysclock_sim_ops.adjtime(sim, tx);
}

static int sim_adjtime(void *userdata, struct timex *tx)
{
	struct sysclock_sim *sim = userdata;
	ns_t real;

	if (tx->modes && !sim->cap_sys_time) {
		return -EPERM;
	}
	if (tx->modes & ADJ_FREQUENCY) {
		sim->freq = tx->freq > SIM_MAXFREQ    ? SIM_MAXFREQ
			    : tx->freq < -SIM_MAXFREQ ? -SIM_MAXFREQ
						      : tx->freq;
	}
	if (tx->modes & ADJ_STATUS) {
		sim->status = (sim->status & STA_RONLY) | (tx->status & ~STA_RONLY);
	}
	if (tx->modes & ADJ_MAXERROR) {
		sim->maxerror = tx->maxerror;
	}
	if (tx->modes & ADJ_ESTERROR) {
		sim->esterror = tx->esterror;
	}
	if (tx->modes & ADJ_TAI) {
		sim->tai = tx->constant;
	}
	/* Recorded only, as the kernel does without STA_PLL: lets tests play another daemon. */
	if ((tx->modes & ADJ_OFFSET) && !(tx->modes & ADJ_SETOFFSET)) {
		sim->offset = tx->offset;
	}
	if (tx->modes & ADJ_SETOFFSET) {
		ns_t usec = tx->modes & ADJ_NANO ? tx->time.tv_usec : tx->time.tv_usec * 1000;

		if (usec < 0 || usec >= NS_PER_SEC) {
			return -EINVAL;
		}
		sim->real_offset += tx->time.tv_sec * NS_PER_SEC + usec;
	}
	real = sysclock_sim_real(sim);
	tx->freq = sim->freq;
	tx->offset = sim->offset;
	tx->status = sim->status;
	tx->maxerror = sim->maxerror;
	tx->esterror = sim->esterror;
	tx->tai = sim->tai;
	tx->time.tv_sec = real / NS_PER_SEC;
	tx->time.tv_usec = real % NS_PER_SEC / 1000;
	if (sim->status & (STA_UNSYNC | STA_CLOCKERR)) {
		return TIME_ERROR;
	}
	return sim->state;
}

static int sim_gettime(void *userdata, clockid_t id, ns_t *ret)
{
	struct sysclock_sim *sim = userdata;

	switch (id) {
	case CLOCK_REALTIME:
		*ret = sysclock_sim_real(sim);
		return 0;
	case CLOCK_MONOTONIC:
		*ret = sim->mono;
		return 0;
	default:
		return -EINVAL;
	}
}

/* One PHC, any index: true time plus phc_offset, read at no cost against CLOCK_REALTIME. */
static int sim_phc_measure(void *userdata, int phc_index, struct sysoff_pair *ret)
{
	const struct sysclock_sim *sim = userdata;

	(void) phc_index;
	*ret = (struct sysoff_pair){
		.sys = sysclock_sim_real(sim),
		.phc = sim->true_ns + sim->phc_offset,
	};
	return 0;
}

const struct sysclock_ops sysclock_sim_ops = {
	.name = "simulated",
	.adjtime = sim_adjtime,
	.gettime = sim_gettime,
	.proc_root = NULL, /* a simulated clock has no rivals: the tests must not see the host's */
	.phc_measure = sim_phc_measure,
};
