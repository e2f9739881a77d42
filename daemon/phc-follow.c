// SPDX-License-Identifier: GPL-2.0-or-later
/* A boundary clock across NICs: other PHCs of an instance follow its SLAVE port's PHC. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/phc-follow.h"
#include "ptp/util.h"

void phc_follow_config_default(struct phc_follow_config *cfg)
{
	*cfg = (struct phc_follow_config){ .interval_s = 1.0 };
	servo_config_default(&cfg->servo, false);
}

int phc_follow_new(const struct phc_follow_ops *ops, void *userdata,
		   const struct phc_follow_config *cfg, struct phc_follow **ret)
{
	struct phc_follow *pf;

	if (!ops || !ops->measure || !ops->open || !ops->close || !cfg || !(cfg->interval_s > 0)) {
		return -EINVAL;
	}
	pf = calloc(1, sizeof(*pf));
	if (!pf) {
		return -ENOMEM;
	}
	pf->ops = ops;
	pf->userdata = userdata;
	pf->cfg = *cfg;
	pf->source = -1;
	*ret = pf;
	return 0;
}

static void follower_drop_servo(struct phc_follower *f)
{
	f->servo = servo_free(f->servo);
	outlier_gate_reset(&f->gate);
	f->in_bound = 0;
	f->out_bound = 0;
}

static void follower_close(struct phc_follow *pf, struct phc_follower *f)
{
	follower_drop_servo(f);
	if (f->clock) {
		pf->ops->close(pf->userdata, f->clock);
	}
	f->clock = NULL;
}

struct phc_follow *phc_follow_free(struct phc_follow *pf)
{
	if (pf) {
		for (size_t k = 0; k < pf->n; k++) {
			follower_close(pf, &pf->f[k]);
		}
		free(pf->f);
		free(pf);
	}
	return NULL;
}

static struct phc_follower *find(struct phc_follow *pf, int phc_index)
{
	for (size_t k = 0; k < pf->n; k++) {
		if (pf->f[k].phc_index == phc_index) {
			return &pf->f[k];
		}
	}
	return NULL;
}

const struct phc_follower *phc_follow_find(const struct phc_follow *pf, int phc_index)
{
	return pf ? find((struct phc_follow *) pf, phc_index) : NULL;
}

static bool listed(int phc_index, const int *targets, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		if (targets[k] == phc_index) {
			return true;
		}
	}
	return false;
}

static void follower_fault(struct phc_follow *pf, struct phc_follower *f, int error)
{
	follower_close(pf, f);
	f->state = PHC_FOLLOWER_FAULTY;
	f->error_code = error;
}

static int follower_open(struct phc_follow *pf, struct phc_follower *f)
{
	int r;

	if (f->clock) {
		return 0;
	}
	r = pf->ops->open(pf->userdata, f->phc_index, &f->clock);
	if (r < 0) {
		f->clock = NULL;
		follower_fault(pf, f, r);
		return r;
	}
	f->error_code = 0;
	f->state = pf->source >= 0 ? PHC_FOLLOWER_UNLOCKED : PHC_FOLLOWER_HOLDOVER;
	return 0;
}

/* No source: keep the frequency the servo learnt, without its last phase correction. */
static void follower_hold(struct phc_follow *pf, struct phc_follower *f)
{
	double freq;

	if (!f->clock) {
		return;
	}
	if (f->servo && servo_enter_holdover(f->servo, f->last_ts, &freq)) {
		int r = clock_adj_freq(f->clock, freq);

		if (r < 0) {
			follower_fault(pf, f, r);
			return;
		}
		f->freq_ppb = freq;
	}
	f->in_bound = 0;
	f->state = PHC_FOLLOWER_HOLDOVER;
}

int phc_follow_set(struct phc_follow *pf, int source, const int *targets, size_t n)
{
	bool new_source;
	int ret = 0;
	size_t k = 0;

	if (source < 0) {
		source = -1;
	}
	new_source = source != pf->source;
	pf->source = source;
	/* forget what is no longer a target (the source now, or gone from the instance) */
	while (k < pf->n) {
		struct phc_follower *f = &pf->f[k];

		if (f->phc_index != source && listed(f->phc_index, targets, n)) {
			k++;
			continue;
		}
		follower_close(pf, f);
		memmove(f, f + 1, (pf->n - k - 1) * sizeof(*f));
		pf->n--;
	}
	for (k = 0; k < n; k++) {
		struct phc_follower *f;

		if (targets[k] < 0 || targets[k] == source || find(pf, targets[k])) {
			continue;
		}
		f = realloc(pf->f, (pf->n + 1) * sizeof(*pf->f));
		if (!f) {
			return -ENOMEM;
		}
		pf->f = f;
		f = &pf->f[pf->n++];
		*f = (struct phc_follower){ .phc_index = targets[k] };
		outlier_gate_reset(&f->gate);
	}
	for (k = 0; k < pf->n; k++) {
		struct phc_follower *f = &pf->f[k];
		int r = follower_open(pf, f);

		if (r < 0) {
			ret = ret ? ret : r;
			continue;
		}
		if (source < 0) {
			follower_hold(pf, f);
		} else if (new_source || f->state == PHC_FOLLOWER_HOLDOVER) {
			/* a new reference: a new servo, no first step for a PHC that locked */
			follower_drop_servo(f);
			f->state = PHC_FOLLOWER_UNLOCKED;
		}
	}
	return ret;
}

void phc_follow_set_interval(struct phc_follow *pf, double interval_s)
{
	if (!(interval_s > 0) || interval_s == pf->cfg.interval_s) {
		return;
	}
	pf->cfg.interval_s = interval_s;
	for (size_t k = 0; k < pf->n; k++) {
		if (pf->f[k].servo) {
			servo_set_interval(pf->f[k].servo, interval_s);
		}
	}
}

static int follower_servo(struct phc_follow *pf, struct phc_follower *f)
{
	struct servo_config cfg = pf->cfg.servo;
	double freq = 0;
	int r;

	if (f->servo) {
		return 0;
	}
	/*
	 * A PHC that locked once, or any PHC of an instance whose followers locked (its worker or
	 * we kept it on the instance's timescale): no first step after a change of role.
	 */
	cfg.first_step_taken = cfg.first_step_taken || f->locked_once || pf->locked_once;
	if (f->clock->max_freq_ppb > 0 && f->clock->max_freq_ppb < cfg.max_freq_ppb) {
		cfg.max_freq_ppb = f->clock->max_freq_ppb;
	}
	/* the frequency the PHC has now: a rebuilt servo starts from it */
	if (clock_get_freq(f->clock, &freq) < 0) {
		freq = f->freq_ppb;
	}
	r = servo_new(&cfg, freq, &f->servo);
	if (r < 0) {
		return r;
	}
	servo_set_interval(f->servo, pf->cfg.interval_s);
	f->freq_ppb = freq;
	return 0;
}

/*
 * target - source: the source is read before and after the target and interpolated to the
 * target's system time, so the source's drift against CLOCK_REALTIME during the reads cancels.
 */
static int measure(struct phc_follow *pf, int target, ns_t *offset, ns_t *error, ns_t *ts)
{
	struct sysoff_pair a1, b, a2;
	ns_t d1, d2, a;
	int r;

	r = pf->ops->measure(pf->userdata, pf->source, &a1);
	if (r >= 0) {
		r = pf->ops->measure(pf->userdata, target, &b);
	}
	if (r >= 0) {
		r = pf->ops->measure(pf->userdata, pf->source, &a2);
	}
	if (r < 0) {
		return r;
	}
	d1 = a1.phc - a1.sys;
	d2 = a2.phc - a2.sys;
	if (a2.sys > a1.sys && b.sys >= a1.sys && b.sys <= a2.sys) {
		a = d1 + (ns_t) ((double) (d2 - d1) * (double) (b.sys - a1.sys) /
				 (double) (a2.sys - a1.sys));
	} else {
		a = d1 + (d2 - d1) / 2;
	}
	*offset = (b.phc - b.sys) - a;
	*error = b.error + (a1.error > a2.error ? a1.error : a2.error);
	*ts = b.phc;
	return 0;
}

/* One sample of the target's offset: gate, servo, steer, and its lock state. */
static int follower_apply(struct phc_follow *pf, struct phc_follower *f, ns_t offset, ns_t error,
			  ns_t ts)
{
	enum outlier_verdict v;
	enum servo_state st;
	double before, freq;
	int r = 0;

	f->samples++;
	f->offset = offset;
	f->error = error;
	f->last_ts = ts;
	before = f->servo->freq_ppb;
	v = outlier_gate_judge(&f->gate, ts, offset);
	if (v == OUTLIER_REJECT) {
		f->gated++;
		freq = servo_skip(f->servo);
		r = clock_adj_freq(f->clock, freq);
		if (r < 0) {
			follower_fault(pf, f, r);
			return r;
		}
		outlier_gate_bend(&f->gate, ts, freq - before);
		f->freq_ppb = freq;
		return 0;
	}
	st = servo_sample(f->servo, offset, ts, &freq);
	if (st == SERVO_JUMP) {
		r = clock_step(f->clock, -offset);
		if (r >= 0) {
			f->steps++;
			f->locked_once = true;
			pf->locked_once = true;
			f->in_bound = 0;
		}
	}
	if (r >= 0) {
		r = clock_adj_freq(f->clock, freq);
	}
	if (r < 0) {
		follower_fault(pf, f, r);
		return r;
	}
	f->freq_ppb = freq;
	outlier_gate_follow(&f->gate, st, freq - before);
	if (st == SERVO_LOCKED && llabs(offset) <= PHC_FOLLOW_LOCK_NS + 2 * error) {
		f->in_bound += f->in_bound < PHC_FOLLOW_LOCK_SAMPLES;
		f->out_bound = 0;
	} else if (st != SERVO_JUMP) {
		f->in_bound = 0;
		f->out_bound += f->out_bound < PHC_FOLLOW_LOCK_SAMPLES;
	}
	/* locked: as many in a row within the bound; unlocked again only by as many beyond it */
	if (f->in_bound >= PHC_FOLLOW_LOCK_SAMPLES ||
	    (f->state == PHC_FOLLOWER_LOCKED && st == SERVO_LOCKED &&
	     f->out_bound < PHC_FOLLOW_LOCK_SAMPLES)) {
		f->state = PHC_FOLLOWER_LOCKED;
		f->locked_once = true;
		pf->locked_once = true;
	} else if (st == SERVO_HOLDOVER) {
		/* refused by max_offset_jump: the frequency is held */
		f->state = PHC_FOLLOWER_HOLDOVER;
	} else {
		f->state = PHC_FOLLOWER_LOCKING;
	}
	return 0;
}

static int follower_tick(struct phc_follow *pf, struct phc_follower *f)
{
	ns_t offset, error, ts;
	int r;

	if (!f->clock) {
		return f->error_code;
	}
	r = follower_servo(pf, f);
	if (r < 0) {
		return r;
	}
	r = measure(pf, f->phc_index, &offset, &error, &ts);
	if (r < 0) {
		/* a failed read is not a failed adjustment: try again next time */
		return r;
	}
	return follower_apply(pf, f, offset, error, ts);
}

int phc_follow_sample(struct phc_follow *pf, int phc_index, ns_t offset, ns_t error, ns_t ts)
{
	struct phc_follower *f = find(pf, phc_index);
	int r;

	if (pf->source != PHC_FOLLOW_PIN) {
		return -EAGAIN;
	}
	if (!f) {
		return -ENOENT;
	}
	if (!f->clock) {
		return f->error_code;
	}
	r = follower_servo(pf, f);
	return r < 0 ? r : follower_apply(pf, f, offset, error, ts);
}

int phc_follow_tick(struct phc_follow *pf)
{
	int ret = 0;

	/* A pin's samples come through phc_follow_sample(), not from a read at each tick. */
	if (pf->source < 0 || pf->source == PHC_FOLLOW_PIN) {
		return 0;
	}
	for (size_t k = 0; k < pf->n; k++) {
		int r = follower_tick(pf, &pf->f[k]);

		ret = ret ? ret : r;
	}
	return ret;
}

bool phc_follow_locked(const struct phc_follow *pf)
{
	if (!pf) {
		return true;
	}
	for (size_t k = 0; k < pf->n; k++) {
		if (pf->f[k].state != PHC_FOLLOWER_LOCKED) {
			return false;
		}
	}
	return true;
}

static const char *const state_names[] = {
	[PHC_FOLLOWER_UNLOCKED] = "unlocked", [PHC_FOLLOWER_LOCKING] = "locking",
	[PHC_FOLLOWER_LOCKED] = "locked",     [PHC_FOLLOWER_HOLDOVER] = "holdover",
	[PHC_FOLLOWER_FAULTY] = "faulty",
};

const char *phc_follower_state_to_string(enum phc_follower_state st)
{
	return (size_t) st < ARRAY_SIZE(state_names) ? state_names[st] : "unknown";
}
