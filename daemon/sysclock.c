// SPDX-License-Identifier: GPL-2.0-or-later
/* CLOCK_REALTIME following a PTP clock: servo, UTC offset, leap flags and kernel sync status. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "daemon/sysclock.h"
#include "ptp/clock.h"
#include "ptp/num.h"
#include "ptp/util.h"

#define SECS_PER_DAY 86400
#define SECS_PER_HOUR 3600
/* The kernel takes at most 500 ppm through ADJ_FREQUENCY. */
#define SYSCLOCK_MAX_FREQ_PPB 500000.0
/* Flags that mean the kernel's own PLL/FLL or PPS discipline is on: someone else's. */
#define STA_FOREIGN (STA_PLL | STA_FLL | STA_PPSFREQ | STA_PPSTIME | STA_FREQHOLD)
/* Weight of the newest offset in the running mean behind esterror. */
#define ESTERROR_WEIGHT 0.1

void sysclock_config_default(struct sysclock_config *cfg)
{
	*cfg = (struct sysclock_config){
		.sync_threshold = 1000000,
		.holdover_timeout = 60 * NS_PER_SEC,
		.sample_timeout = 5 * NS_PER_SEC,
		.step_tolerance = 1000000,
	};
	/* phc2sys's PI: the hardware constants, since a PHC or a port offset is the input. */
	servo_config_default(&cfg->servo, false);
	cfg->servo.max_freq_ppb = SYSCLOCK_MAX_FREQ_PPB;
}

static int sys_adjtime(struct sysclock *s, struct timex *tx)
{
	int r = s->ops->adjtime(s->userdata, tx);

	if (r < 0 && tx->modes) {
		s->last_error = r;
	}
	return r;
}

static int sys_gettime(struct sysclock *s, clockid_t id, ns_t *ret)
{
	return s->ops->gettime(s->userdata, id, ret);
}

static int real_minus_mono(struct sysclock *s, ns_t *ret)
{
	ns_t real, mono;
	int r = sys_gettime(s, CLOCK_REALTIME, &real);

	if (r < 0) {
		return r;
	}
	r = sys_gettime(s, CLOCK_MONOTONIC, &mono);
	if (r < 0) {
		return r;
	}
	*ret = real - mono;
	return 0;
}

int sysclock_new(const struct sysclock_ops *ops, void *userdata, const struct sysclock_config *cfg,
		 struct sysclock **ret)
{
	struct sysclock *s;
	struct timex tx = { .modes = 0 };
	int r;

	if (!ops || cfg->sync_threshold <= 0 || cfg->sample_timeout <= 0 ||
	    cfg->holdover_timeout < cfg->sample_timeout) {
		return -EINVAL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		return -ENOMEM;
	}
	s->ops = ops;
	s->userdata = userdata;
	s->cfg = *cfg;
	r = sys_adjtime(s, &tx);
	if (r >= 0) {
		r = real_minus_mono(s, &s->real_minus_mono);
	}
	/* Start from the kernel's frequency, so a restart of phcd does not kick the clock. */
	if (r >= 0) {
		r = servo_pi_new(&cfg->servo, tx.freq / 65.536, &s->servo);
	}
	s->locked_once = cfg->servo.first_step_taken;
	if (r < 0) {
		free(s);
		return r;
	}
	s->state = SYSCLOCK_UNSYNC;
	*ret = s;
	return 0;
}

struct sysclock *sysclock_free(struct sysclock *s)
{
	if (s) {
		servo_free(s->servo);
		free(s);
	}
	return NULL;
}

long sysclock_maxerror_us(ns_t offset, ns_t error)
{
	ns_t e = llabs(offset) + llabs(error);

	/* rounded up, and never 0: the kernel reads 0 as "no error at all" */
	return (long) ((e + 999) / 1000) + 1;
}

int sysclock_leap_status(int64_t utc_s, int leap_set, int *leap, int *utc_offset)
{
	int status = leap_set;
	int64_t sod = ((utc_s % SECS_PER_DAY) + SECS_PER_DAY) % SECS_PER_DAY;

	/*
	 * linuxptp util.c: leap flags come at most 12 h before midnight and go at most two
	 * announce intervals after it; split early and late updates at 06:00 after midnight.
	 */
	if (sod > 6 * SECS_PER_HOUR) {
		if (!status) {
			status = *leap;
		}
	} else if (status) {
		status = 0;
	}
	/* A master that changed currentUtcOffset before or after the leap: correct it. */
	if (!*leap && status) {
		*utc_offset -= status;
		*leap = status;
	} else if (*leap && !status) {
		*utc_offset += *leap;
		*leap = status;
	}
	return status;
}

bool sysclock_utc_ambiguous(int64_t utc_s)
{
	int64_t sod = ((utc_s % SECS_PER_DAY) + SECS_PER_DAY) % SECS_PER_DAY;

	/* The kernel leaps at the first tick of the day: 23:59:59 and 00:00:00 repeat or vanish. */
	return sod == SECS_PER_DAY - 1 || sod == 0;
}

static int leap_bits(int leap)
{
	return leap > 0 ? STA_INS : leap < 0 ? STA_DEL : 0;
}

/* Compare the kernel's state with what we set last; sets s->conflict, returns the state read. */
static int check_conflict(struct sysclock *s, struct timex *tx)
{
	ns_t rmm;
	int r;

	*tx = (struct timex){ .modes = 0 };
	r = sys_adjtime(s, tx);
	if (r < 0) {
		return r;
	}
	s->conflict = 0;
	if (tx->status & STA_FOREIGN) {
		s->conflict |= SYSCLOCK_CONFLICT_STATUS;
	}
	if (tx->offset != 0) {
		s->conflict |= SYSCLOCK_CONFLICT_OFFSET;
	}
	if (s->have_set) {
		if (labs(tx->freq - s->freq_set) > 1) {
			s->conflict |= SYSCLOCK_CONFLICT_FREQ;
		}
		if ((tx->status & (STA_INS | STA_DEL)) != (s->status_set & (STA_INS | STA_DEL))) {
			s->conflict |= SYSCLOCK_CONFLICT_STATUS;
		}
	}
	/* REALTIME - MONOTONIC moves only by steps; ours and a leap the kernel did are known. */
	if (real_minus_mono(s, &rmm) == 0) {
		ns_t jump = rmm - s->real_minus_mono;

		if (s->leap_set &&
		    llabs(jump + s->leap_set * NS_PER_SEC) <= s->cfg.step_tolerance) {
			jump = 0;
		}
		if (llabs(jump) > s->cfg.step_tolerance) {
			s->conflict |= SYSCLOCK_CONFLICT_STEP;
		}
		s->real_minus_mono = rmm;
	}
	return r;
}

/* One adjtimex call for frequency, status (UNSYNC and leap bits), maxerror/esterror, TAI. */
static int write_kernel(struct sysclock *s, const struct timex *cur, double freq_ppb, bool synced,
			ns_t error, int tai)
{
	struct timex tx = {
		.modes = ADJ_FREQUENCY | ADJ_STATUS,
		.freq = (long) num_llround(freq_ppb * 65.536),
	};
	int r;

	/* Our status: no PLL, our leap bits; UNSYNC cleared only while synchronized. */
	tx.status = leap_bits(s->leap_set);
	if (!synced) {
		tx.status |= cur->status & STA_UNSYNC;
	}
	if (synced) {
		tx.modes |= ADJ_MAXERROR | ADJ_ESTERROR;
		tx.esterror = (long) num_ceil((sqrt(s->esterror2) + llabs(error)) / 1000.0);
		/* A maximum below the estimate would contradict it (recent offsets were larger). */
		tx.maxerror = sysclock_maxerror_us(s->offset, error);
		if (tx.maxerror < tx.esterror) {
			tx.maxerror = tx.esterror;
		}
	}
	if (tai > 0) {
		tx.modes |= ADJ_TAI;
		tx.constant = tai;
	}
	r = sys_adjtime(s, &tx);
	if (r < 0) {
		return r;
	}
	s->freq_set = tx.freq;
	s->status_set = tx.status;
	s->have_set = true;
	return 0;
}

static int step_clock(struct sysclock *s, ns_t delta)
{
	struct timex tx;
	int r;

	clock_timex_set_offset(&tx, delta);
	r = sys_adjtime(s, &tx);
	if (r < 0) {
		return r;
	}
	s->steps++;
	/* Our own step is not a conflict. */
	s->real_minus_mono += delta;
	return 0;
}

int sysclock_sample(struct sysclock *s, const struct sysclock_sample *sample,
		    const struct timePropertiesDS *tp)
{
	int utc_offset = tp->ptpTimescale ? tp->currentUtcOffset : 0;
	int leap = tp->ptpTimescale ? (tp->leap61 ? 1 : tp->leap59 ? -1 : 0) : 0;
	int64_t utc_s = (sample->ref - (ns_t) utc_offset * NS_PER_SEC) / NS_PER_SEC;
	enum servo_state st;
	struct timex cur;
	double freq;
	bool synced;
	ns_t mono;
	int r;

	s->samples++;
	r = sys_gettime(s, CLOCK_MONOTONIC, &mono);
	if (r < 0) {
		return r;
	}
	if ((leap || s->leap_set) && sysclock_utc_ambiguous(utc_s)) {
		s->ignored++;
		return -EAGAIN;
	}
	/* Before the leap bookkeeping: a leap the kernel just did is told from a foreign step. */
	r = check_conflict(s, &cur);
	if (r < 0) {
		return r;
	}
	s->leap_set = sysclock_leap_status(utc_s, s->leap_set, &leap, &utc_offset);
	s->leap = leap;
	s->utc_offset = utc_offset;
	s->offset = sample->sys - (sample->ref - (ns_t) utc_offset * NS_PER_SEC);
	st = servo_sample(s->servo, s->offset, sample->sys, &freq);
	if (st == SERVO_HOLDOVER) {
		/*
		 * Refused by the sanity bound (max_offset_jump): hold the frequency, clear
		 * nothing, and let the sample not count as one, so that after holdover_timeout
		 * the kernel is told the clock is unsynchronized.
		 */
		r = write_kernel(s, &cur, freq, false, sample->error, 0);
		if (r < 0) {
			return r;
		}
		s->state = SYSCLOCK_HOLDOVER;
		return s->state;
	}
	s->last_sample_mono = mono;
	s->locked_once |= st == SERVO_LOCKED || st == SERVO_JUMP;
	if (st == SERVO_JUMP) {
		r = step_clock(s, -s->offset);
		if (r < 0) {
			return r;
		}
		s->offset = 0;
		s->esterror2 = 0;
	}
	s->esterror2 = s->samples == 1 ? (double) s->offset * s->offset
				       : (1 - ESTERROR_WEIGHT) * s->esterror2 +
						 ESTERROR_WEIGHT * (double) s->offset * s->offset;
	synced = st == SERVO_LOCKED && llabs(s->offset) <= s->cfg.sync_threshold;
	r = write_kernel(s, &cur, freq, synced, sample->error,
			 tp->ptpTimescale && tp->currentUtcOffsetValid ? utc_offset : 0);
	if (r < 0) {
		return r;
	}
	s->last_error = 0;
	s->state = synced ? SYSCLOCK_LOCKED : SYSCLOCK_LOCKING;
	return s->state;
}

static int set_unsync(struct sysclock *s)
{
	struct timex tx = { .modes = ADJ_STATUS, .status = STA_UNSYNC | leap_bits(s->leap_set) };
	int r = sys_adjtime(s, &tx);

	if (r < 0) {
		return r;
	}
	s->status_set = tx.status;
	return 0;
}

int sysclock_check(struct sysclock *s)
{
	struct timex cur;
	ns_t now;
	int r;

	r = sys_gettime(s, CLOCK_MONOTONIC, &now);
	if (r < 0) {
		return r;
	}
	r = check_conflict(s, &cur);
	if (r < 0) {
		return r;
	}
	if (s->state == SYSCLOCK_LOCKED && now - s->last_sample_mono > s->cfg.sample_timeout) {
		s->state = SYSCLOCK_HOLDOVER;
	}
	/* Holdover over (or never locked): say so to the kernel, and relearn from scratch. */
	if (s->state != SYSCLOCK_UNSYNC && now - s->last_sample_mono > s->cfg.holdover_timeout) {
		r = set_unsync(s);
		if (r < 0) {
			return r;
		}
		servo_reset(s->servo);
		s->state = SYSCLOCK_UNSYNC;
	}
	return s->state;
}

void sysclock_lost_reference(struct sysclock *s)
{
	if (s->state == SYSCLOCK_LOCKED) {
		s->state = SYSCLOCK_HOLDOVER;
	}
}

int sysclock_kernel_synchronized(struct sysclock *s, bool *ret)
{
	struct timex tx = { .modes = 0 };
	int r = sys_adjtime(s, &tx);

	if (r < 0) {
		return r;
	}
	/* systemd's ntp_synced(): TIME_ERROR, STA_UNSYNC or maxerror at the 16 s limit say no. */
	*ret = r != TIME_ERROR && !(tx.status & STA_UNSYNC) && tx.maxerror < 16000000;
	return 0;
}

static const char *const sysclock_state_names[] = {
	[SYSCLOCK_UNSYNC] = "UNSYNC",
	[SYSCLOCK_LOCKING] = "LOCKING",
	[SYSCLOCK_LOCKED] = "LOCKED",
	[SYSCLOCK_HOLDOVER] = "HOLDOVER",
};

const char *sysclock_state_to_string(enum sysclock_state st)
{
	if ((unsigned int) st >= ARRAY_SIZE(sysclock_state_names)) {
		return NULL;
	}
	return sysclock_state_names[st];
}

static int linux_adjtime(void *userdata, struct timex *tx)
{
	int r = clock_adjtime(CLOCK_REALTIME, tx);

	return r < 0 ? -errno : r;
}

static int linux_gettime(void *userdata, clockid_t id, ns_t *ret)
{
	struct timespec ts;

	if (clock_gettime(id, &ts) < 0) {
		return -errno;
	}
	*ret = (ns_t) ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
	return 0;
}

/* The real kernel: only the supervisor, with CAP_SYS_TIME, ever passes this table. */
const struct sysclock_ops sysclock_linux_ops = {
	.name = "CLOCK_REALTIME",
	.adjtime = linux_adjtime,
	.gettime = linux_gettime,
	.proc_root = "/proc",
};
