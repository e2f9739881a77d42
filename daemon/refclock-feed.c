// SPDX-License-Identifier: GPL-2.0-or-later
/* phcd as chronyd's reference clock: each clock_servo refclock_sock instance's samples to chronyd.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "daemon/health.h"
#include "daemon/manager-object.h"
#include "daemon/manager-state.h"
#include "daemon/refclock-feed.h"
#include "daemon/refclock-sock.h"
#include "daemon/sysclock-follow.h"

#define REFCLOCK_REASON_MAX 160

struct refclock_feed {
	char name[OPTIONS_NAME_MAX]; /* its instance */
	char address[OPTIONS_REFCLOCK_SOCK_ADDRESS_MAX];
	int fd;
	struct sysclock_phc_reader phc;
	int leap_set;	  /* the leap chronyd was told last (sysclock_leap_status) */
	ns_t last_sample; /* software: the receive time of the offset sent last */
	ns_t last_sent;	  /* CLOCK_MONOTONIC of the last sample offered to the socket */
	bool seen;	  /* its instance still feeds chronyd (refclock_feeds_tick) */
	enum refclock_state state;
	int error;
	char reason[REFCLOCK_REASON_MAX];
	uint64_t accepted;
	uint64_t last_accepted_usec; /* CLOCK_REALTIME */
};

struct refclock_feeds {
	struct manager *m;
	const struct sysclock_ops *ops; /* the system clock follower's: the clocks read here */
	void *userdata;
	struct refclock_feed **f;
	size_t n;
};

static const char *const state_names[] = {
	[REFCLOCK_IDLE] = "idle",
	[REFCLOCK_SENDING] = "sending",
	[REFCLOCK_REFUSED] = "refused",
};

const char *refclock_state_to_string(enum refclock_state st)
{
	return (unsigned int) st < ARRAY_SIZE(state_names) ? state_names[st] : "unknown";
}

static ns_t clock_ns(const struct refclock_feeds *fs, clockid_t id)
{
	ns_t t = 0;

	(void) fs->ops->gettime(fs->userdata, id, &t);
	return t;
}

static struct refclock_feed *feed_free(struct refclock_feed *fd)
{
	if (fd) {
		if (fd->fd >= 0) {
			close(fd->fd);
		}
		sysclock_phc_reader_close(&fd->phc);
		free(fd);
	}
	return NULL;
}

int refclock_feeds_new(struct manager *m, const struct sysclock_ops *ops, void *userdata,
		       struct refclock_feeds **ret)
{
	struct refclock_feeds *fs = calloc(1, sizeof(*fs));

	if (!fs) {
		return -ENOMEM;
	}
	fs->m = m;
	fs->ops = ops;
	fs->userdata = userdata;
	*ret = fs;
	return 0;
}

struct refclock_feeds *refclock_feeds_free(struct refclock_feeds *fs)
{
	if (fs) {
		for (size_t k = 0; k < fs->n; k++) {
			feed_free(fs->f[k]);
		}
		free(fs->f);
		free(fs);
	}
	return NULL;
}

static struct refclock_feed *feed_find(const struct refclock_feeds *fs, const char *name)
{
	for (size_t k = 0; fs && k < fs->n; k++) {
		if (!strcmp(fs->f[k]->name, name)) {
			return fs->f[k];
		}
	}
	return NULL;
}

/*
 * A new state, error or reason: logged once per change (the retries at each sample are not), and
 * D-Bus and the health follow.
 */
static void feed_set(struct refclock_feeds *fs, struct refclock_feed *fd, enum refclock_state st,
		     int error, const char *reason)
{
	struct instance *i = manager_find_instance(fs->m, fd->name);

	if (fd->state == st && fd->error == error && !strcmp(fd->reason, reason)) {
		return;
	}
	if (st == REFCLOCK_REFUSED && error == -EACCES) {
		log_full_errno(
			LOG_WARNING, error,
			"instance %s: chronyd's refclock socket %s refuses (%m): chronyd made "
			"it root's; phcd's chrony-refclock.conf drop-in for chrony.service "
			"gives it to phcd (phcd.conf(5)). Retrying at each sample",
			fd->name, fd->address);
	} else if (st == REFCLOCK_REFUSED) {
		log_full_errno(LOG_WARNING, error,
			       "instance %s: chronyd's refclock socket %s %s (%m): is chronyd "
			       "running with `refclock SOCK %s`? Retrying at each sample",
			       fd->name, fd->address, error == -ENOENT ? "is missing" : "refuses",
			       fd->address);
	} else if (st == REFCLOCK_SENDING) {
		log_full(LOG_INFO, "instance %s: samples of CLOCK_REALTIME go to chronyd at %s",
			 fd->name, fd->address);
	} else if (fd->state == REFCLOCK_SENDING || fd->state == REFCLOCK_REFUSED) {
		log_full(LOG_INFO, "instance %s: no samples to chronyd at %s: %s", fd->name,
			 fd->address, reason);
	}
	fd->state = st;
	fd->error = error;
	snprintf(fd->reason, sizeof(fd->reason), "%s", reason);
	if (i) {
		/* The derive pass of this loop turn takes the new health (and readiness) from here.
		 */
		manager_instance_changed(i, INSTANCE_CHANGED_HEALTH);
	}
}

/*
 * CLOCK_REALTIME at sys against the instance's time ref (its PTP timescale): the offset of UTC
 * from the system clock, with the pending leap second, as sysclock.c computes it for its servo.
 */
/* The largest offset a worker may report for chronyd: 2^61 ns, so no sum below overflows. */
#define REFCLOCK_OFFSET_MAX (INT64_C(1) << 61)

static void feed_send(struct refclock_feeds *fs, struct refclock_feed *fd, struct instance *i,
		      ns_t sys, ns_t ref)
{
	const struct timePropertiesDS *tp = &i->time_properties;
	int utc_offset = tp->ptpTimescale ? tp->currentUtcOffset : 0;
	int leap = tp->ptpTimescale ? (tp->leap61 ? 1 : tp->leap59 ? -1 : 0) : 0;
	int64_t utc_s = (ref - (ns_t) utc_offset * NS_PER_SEC) / NS_PER_SEC;
	struct refclock_sample sample;
	int r;

	fd->last_sent = clock_ns(fs, CLOCK_MONOTONIC);
	/* 23:59:59 and 00:00:00 around a leap are ambiguous: no sample, as phc2sys does */
	if ((leap || fd->leap_set) && sysclock_utc_ambiguous(utc_s)) {
		return;
	}
	fd->leap_set = sysclock_leap_status(utc_s, fd->leap_set, &leap, &utc_offset);
	sample = (struct refclock_sample){
		.sys = sys,
		.offset = ref - (ns_t) utc_offset * NS_PER_SEC - sys,
		.leap = fd->leap_set,
	};
	/* no socket yet (socket() failed: out of descriptors): opened again with each sample */
	r = fd->fd >= 0 ? 0 : refclock_sock_open(&fd->fd);
	if (r >= 0) {
		r = refclock_sock_send(fd->fd, fd->address, &sample);
	}
	if (r < 0) {
		feed_set(fs, fd, REFCLOCK_REFUSED, r, "");
		return;
	}
	fd->accepted++;
	fd->last_accepted_usec = (uint64_t) clock_ns(fs, CLOCK_REALTIME) / 1000;
	feed_set(fs, fd, REFCLOCK_SENDING, 0, "");
	manager_instance_changed(i, INSTANCE_CHANGED_SAMPLE);
}

static struct refclock_feed *feed_get(struct refclock_feeds *fs, const struct instance *i)
{
	struct refclock_feed *fd = feed_find(fs, i->name), **f;
	int r;

	if (fd) {
		return fd;
	}
	f = reallocarray(fs->f, fs->n + 1, sizeof(*f));
	fd = calloc(1, sizeof(*fd));
	if (f) {
		fs->f = f;
	}
	if (!f || !fd) {
		free(fd);
		return NULL;
	}
	*fd = (struct refclock_feed){
		.fd = -1,
		.phc = { .ops = fs->ops, .userdata = fs->userdata, .fd = -1, .index = -1 },
	};
	snprintf(fd->name, sizeof(fd->name), "%s", i->name);
	snprintf(fd->address, sizeof(fd->address), "%s", i->options.refclock_sock_address);
	snprintf(fd->reason, sizeof(fd->reason), "not synchronized yet");
	r = refclock_sock_open(&fd->fd);
	if (r < 0) {
		log_full_errno(LOG_ERR, r, "instance %s: cannot open a socket for chronyd: %m",
			       i->name);
	}
	fs->f[fs->n++] = fd;
	log_full(LOG_INFO,
		 "instance %s: clock_servo refclock_sock: phcd leaves CLOCK_REALTIME to chronyd "
		 "and sends it samples at %s while it follows its grandmaster",
		 i->name, fd->address);
	return fd;
}

/* Keep a feed for each instance that feeds chronyd, at its current address; drop the others. */
static void feeds_sync(struct refclock_feeds *fs)
{
	struct instance *i;

	for (size_t k = 0; k < fs->n; k++) {
		fs->f[k]->seen = false;
	}
	MANAGER_FOREACH_INSTANCE(i, fs->m, k)
	{
		struct refclock_feed *fd;

		if (!instance_feeds_refclock(i) || !(fd = feed_get(fs, i))) {
			continue;
		}
		fd->seen = true;
		if (strcmp(fd->address, i->options.refclock_sock_address)) {
			log_full(LOG_INFO, "instance %s: samples for chronyd now go to %s", i->name,
				 i->options.refclock_sock_address);
			snprintf(fd->address, sizeof(fd->address), "%s",
				 i->options.refclock_sock_address);
			fd->state = REFCLOCK_IDLE;
			fd->error = 0;
			manager_instance_changed(i, INSTANCE_CHANGED_HEALTH);
		}
	}
	for (size_t k = 0; k < fs->n;) {
		struct refclock_feed *fd = fs->f[k];
		struct instance *gone;

		if (fd->seen) {
			k++;
			continue;
		}
		/* out of the array first: the change hook below may read it */
		fs->f[k] = fs->f[--fs->n];
		gone = manager_find_instance(fs->m, fd->name);
		log_full(LOG_INFO, "instance %s: no longer feeds chronyd", fd->name);
		feed_free(fd);
		/* reconfigured (not removed): its Refclock* properties are empty now */
		if (gone) {
			manager_instance_changed(gone, INSTANCE_CHANGED_HEALTH);
		}
	}
}

void refclock_feeds_tick(struct refclock_feeds *fs)
{
	if (!fs) {
		return;
	}
	feeds_sync(fs);
	for (size_t k = 0; k < fs->n; k++) {
		struct refclock_feed *fd = fs->f[k];
		struct instance *i = manager_find_instance(fs->m, fd->name);
		struct mport *p = i ? sysclock_follow_slave_port(fs->m, i) : NULL;
		enum sysclock_source src = p ? sysclock_follow_source(p) : SYSCLOCK_SOURCE_NONE;
		struct sysoff_pair pair;
		int r;

		if (!p) {
			feed_set(fs, fd, REFCLOCK_IDLE, 0, "no port follows a master");
		} else if (src == SYSCLOCK_SOURCE_NONE) {
			feed_set(fs, fd, REFCLOCK_IDLE, 0,
				 "the SLAVE port's time is its worker's own (clock_backend "
				 "free_running with hardware timestamps): nothing to compare "
				 "CLOCK_REALTIME with");
		} else if (src == SYSCLOCK_SOURCE_SOFTWARE) {
			/* its offsets arrive with STATUS: only see that they still do */
			if (clock_ns(fs, CLOCK_MONOTONIC) - fd->last_sent >
			    SYSCLOCK_FOLLOW_MAX_AGE_NS) {
				feed_set(fs, fd, REFCLOCK_IDLE, 0, "no fresh offset from the port");
			}
		} else if (!i->synchronized) {
			feed_set(fs, fd, REFCLOCK_IDLE, 0, "the PHC is not synchronized");
		} else if ((r = sysclock_phc_reader_measure(&fd->phc, p->phc_index, &pair)) < 0) {
			log_port_full_errno(p->ifname, LOG_DEBUG, r,
					    "instance %s: cannot read /dev/ptp%d: %m", fd->name,
					    p->phc_index);
			feed_set(fs, fd, REFCLOCK_IDLE, 0, "the PHC cannot be read");
		} else {
			feed_send(fs, fd, i, pair.sys, pair.phc);
		}
	}
}

void refclock_feeds_port_status(struct refclock_feeds *fs, struct mport *p,
				const struct ipc_status *s)
{
	struct refclock_feed *fd = fs ? feed_find(fs, p->instance->name) : NULL;
	ns_t ref;

	/* sysclock_follow_slave_port: SLAVE as the supervisor made it, and trusted */
	if (!fd || !instance_feeds_refclock(p->instance) ||
	    sysclock_follow_slave_port(fs->m, p->instance) != p ||
	    sysclock_follow_source(p) != SYSCLOCK_SOURCE_SOFTWARE ||
	    sysclock_follow_admit(s->sample_ts, fd->last_sample, 0, 0,
				  clock_ns(fs, CLOCK_MONOTONIC),
				  clock_ns(fs, CLOCK_REALTIME)) != SYSCLOCK_FOLLOW_FEED) {
		return;
	}
	/*
	 * The worker's offset is bounded here, so that the arithmetic of feed_send() cannot
	 * overflow on what a lying worker sends (about 73 years either way; how far chronyd lets a
	 * sample move the clock is its own policy: maxchange, makestep).
	 */
	if (s->offset_ns < -REFCLOCK_OFFSET_MAX || s->offset_ns > REFCLOCK_OFFSET_MAX) {
		return;
	}
	fd->last_sample = s->sample_ts;
	/*
	 * The offset is CLOCK_REALTIME minus the master at the Sync's receive time, on UTC: back on
	 * the master's timescale, which feed_send() takes the UTC offset off (taken off twice,
	 * chronyd's clock ended up currentUtcOffset, 37 s, behind UTC).
	 */
	if (sysclock_follow_software_ref(s, &p->instance->time_properties, &ref)) {
		feed_send(fs, fd, p->instance, s->sample_ts, ref);
	}
}

bool refclock_feed_info(const struct instance *i, struct refclock_info *ret)
{
	const struct refclock_feed *fd = feed_find(sysclock_follow_feeds(i->manager->sysclock),
						   i->name);

	if (!fd) {
		*ret = (struct refclock_info){ .address = "", .state_name = "", .reason = "" };
		return false;
	}
	*ret = (struct refclock_info){
		.address = fd->address,
		.state = fd->state,
		.state_name = refclock_state_to_string(fd->state),
		.last_accepted_usec = fd->last_accepted_usec,
		.accepted = fd->accepted,
		.error = fd->error,
		.reason = fd->reason,
	};
	return true;
}

void refclock_feed_health(const struct instance *i, struct mport *const *ports, size_t n,
			  struct health_report *h)
{
	char gm[CLOCK_IDENTITY_STRLEN];
	struct refclock_info info;

	if (!refclock_feed_info(i, &info)) {
		return;
	}
	if (info.state == REFCLOCK_REFUSED) {
		health_add(h, HEALTH_DEGRADED, "refclock-refused",
			   "chronyd's refclock socket %s %s (%s): samples are not delivered",
			   info.address, info.error == -ENOENT ? "is missing" : "refuses",
			   strerror(-info.error));
	} else if (info.state == REFCLOCK_IDLE && health_chronyd_servo(i, ports, n)) {
		/* in place of health_instance()'s "not synchronized yet (servo UNLOCKED)" */
		clock_identity_to_string(&i->grandmaster_identity, gm);
		health_add(h, HEALTH_DEGRADED, "not-synchronized",
			   "following grandmaster %s, no samples to chronyd at %s: %s", gm,
			   info.address, info.reason);
	}
}
