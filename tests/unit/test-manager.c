/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The supervisor without workers or links: instance state (port numbers, options, priorities and
 * their change hooks), port control, a reload carried out, and the system-clock follower's
 * decisions on a simulated kernel clock.
 */
#include <errno.h>
#include <math.h>
#include <inttypes.h>
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>
#include <cmocka.h>

#include "daemon/health.h"
#include "daemon/manager-internal.h"
#include "daemon/refclock-feed.h"
#include "daemon/manager-reload.h"
#include "daemon/sysclock-follow.h"
#include "tests/doubles/sysclock-sim.h"

struct rig {
	char dir[64];
	char path[128];
	sd_event *event;
	struct manager *m;
	/* what the change hooks saw */
	unsigned int instance_mask[4];
	unsigned int instance_calls;
	unsigned int ports_added, ports_removed, instances_added, instances_removed;
	unsigned int manager_mask;
};

static void on_instance_changed(void *userdata, struct instance *i, unsigned int mask)
{
	struct rig *r = userdata;

	r->instance_calls++;
	r->instance_mask[i == manager_instance_at(r->m, 0) ? 0 : 1] |= mask;
}

static void on_instance_added(void *userdata, struct instance *i)
{
	((struct rig *) userdata)->instances_added++;
}

static void on_instance_removed(void *userdata, struct instance *i)
{
	((struct rig *) userdata)->instances_removed++;
}

static void on_port_added(void *userdata, struct mport *p)
{
	((struct rig *) userdata)->ports_added++;
}

static void on_port_removed(void *userdata, struct mport *p)
{
	((struct rig *) userdata)->ports_removed++;
}

static void on_manager_changed(void *userdata, unsigned int mask)
{
	((struct rig *) userdata)->manager_mask |= mask;
}

static const struct manager_ops hooks = {
	.instance_added = on_instance_added,
	.instance_removed = on_instance_removed,
	.instance_changed = on_instance_changed,
	.port_added = on_port_added,
	.port_removed = on_port_removed,
	.manager_changed = on_manager_changed,
};

static void write_config(struct rig *r, const char *text)
{
	FILE *f = fopen(r->path, "we");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* The rest of this event-loop turn and any it schedules: the derive pass and its emission. */
static void rig_turn(struct rig *r)
{
	while (sd_event_run(r->event, 0) > 0) {
	}
}

static void rig_reset_hooks(struct rig *r)
{
	memset(r->instance_mask, 0, sizeof(*r) - offsetof(struct rig, instance_mask));
}

static void rig_init(struct rig *r, const char *config)
{
	struct manager_settings s = { 0 };
	char *errors = NULL;

	memset(r, 0, sizeof(*r));
	snprintf(r->dir, sizeof(r->dir), "/tmp/phcd-test-manager-XXXXXX");
	assert_non_null(mkdtemp(r->dir));
	snprintf(r->path, sizeof(r->path), "%s/phcd.conf", r->dir);
	write_config(r, config);
	s.config_path = r->path;
	s.port_binary = "/nonexistent/phcd-port"; /* never run: every link here is down */
	assert_int_equal(sd_event_new(&r->event), 0);
	if (manager_new(r->event, &s, &r->m, &errors) < 0) {
		fail_msg("manager_new: %s", errors ? errors : "");
	}
	manager_set_ops(r->m, &hooks, r);
}

static void rig_free(struct rig *r)
{
	manager_free(r->m);
	sd_event_unref(r->event);
	unlink(r->path);
	rmdir(r->dir);
}

/* A port on a link that is down: no worker is started, the port is FAULTY "link down". */
static struct mport *add_port(struct rig *r, const char *instance, const char *ifname, int ifindex)
{
	struct link_info l = { .ifindex = ifindex };
	struct instance *i = manager_find_instance(r->m, instance);
	struct mport *p;

	assert_non_null(i);
	snprintf(l.name, sizeof(l.name), "%s", ifname);
	assert_int_equal(mport_add(r->m, i, &l), 0);
	p = manager_find_port(r->m, ifname);
	assert_non_null(p);
	assert_null(p->worker);
	return p;
}

static const char *const two = "[instance a]\ninterfaces = e0 e1 e2\n"
			       "[instance b]\ninterfaces = f0\ndomainNumber = 7\nslaveOnly = 1\n";

/* portNumbers are the lowest free ones, per instance, and a freed one is taken again. */
static void test_port_numbers(void **state)
{
	struct rig r;
	struct mport *p0, *p1, *p2, *q;
	struct instance *a, *b;

	rig_init(&r, two);
	a = manager_find_instance(r.m, "a");
	b = manager_find_instance(r.m, "b");
	p0 = add_port(&r, "a", "e0", 10);
	p1 = add_port(&r, "a", "e1", 11);
	q = add_port(&r, "b", "f0", 20);
	assert_int_equal(p0->port_identity.portNumber, 1);
	assert_int_equal(p1->port_identity.portNumber, 2);
	assert_int_equal(q->port_identity.portNumber, 1);
	assert_int_equal(p0->state, PORT_STATE_FAULTY);
	assert_int_equal(p0->last_error, -ENETDOWN);
	assert_int_equal(instance_port_count(a), 2);
	assert_int_equal(instance_port_count(b), 1);
	assert_ptr_equal(instance_port_at(a, 1), p1);
	assert_null(instance_port_at(a, 2));
	mport_remove(p0); /* no worker: it goes at once */
	assert_int_equal(instance_port_count(a), 1);
	p2 = add_port(&r, "a", "e2", 12);
	assert_int_equal(p2->port_identity.portNumber, 1);
	assert_int_equal(r.ports_added, 4);
	assert_int_equal(r.ports_removed, 1);
	rig_free(&r);
}

/* The configuration's part of an instance: domain, slaveOnly's clockClass, priorities. */
static void test_instance_options(void **state)
{
	struct rig r;
	struct instance *b;

	rig_init(&r, two);
	b = manager_find_instance(r.m, "b");
	assert_int_equal(b->domain, 7);
	assert_int_equal(b->clock_quality.clockClass, CLOCK_CLASS_SLAVE_ONLY);
	assert_int_equal(b->priority1, 128);
	assert_int_equal(b->servo_state, SERVO_UNLOCKED);
	assert_false(b->synchronized);
	rig_free(&r);
}

/*
 * A priority set at run time: one CONFIG change, none when the value is the same. The change
 * only marks: what follows (BMCA, holdover, health, readiness) is derived in exactly one pass
 * at the end of the loop turn, which emits the instance's change exactly once.
 */
static void test_priority_hooks(void **state)
{
	struct rig r;
	struct instance *a;
	uint64_t passes;

	rig_init(&r, two);
	a = manager_find_instance(r.m, "a");
	add_port(&r, "a", "e0", 10);
	rig_turn(&r);
	rig_reset_hooks(&r);
	passes = r.m->derive_passes;
	assert_int_equal(instance_set_priority1(a, 128), 0);
	rig_turn(&r);
	assert_int_equal(r.instance_calls, 0);
	assert_int_equal(r.m->derive_passes, passes);
	assert_int_equal(instance_set_priority1(a, 10), 0);
	assert_int_equal(r.instance_calls, 0); /* nothing emitted inside the change */
	rig_turn(&r);
	if (r.m->derive_passes != passes + 1 || r.instance_calls != 1) {
		fail_msg("one SetPriority1: expected 1 derive pass and 1 emission, got %" PRIu64
			 " passes and %u emissions",
			 r.m->derive_passes - passes, r.instance_calls);
	}
	assert_int_equal(a->priority1, 10);
	assert_int_equal(a->options.priority1, 10);
	assert_true(r.instance_mask[0] & INSTANCE_CHANGED_CONFIG);
	/* No port takes part in the BMCA (no worker): the instance is its own grandmaster. */
	assert_memory_equal(&a->grandmaster_identity, &a->clock_identity,
			    sizeof(a->clock_identity));
	assert_int_equal(instance_set_priority2(a, 5), 0);
	assert_int_equal(a->priority2, 5);
	assert_int_equal(a->priority1, 10);
	rig_free(&r);
}

/*
 * Issue 31: priorities set faster than a tick reach the workers once a tick, the last values
 * winning: the first push at once, the rest held until the tick is over, then pushed as one; the
 * supervisor's own view (D-Bus, management) takes each value at once.
 */
static void test_priority_push_coalesced(void **state)
{
	struct rig r;
	struct instance *a;

	rig_init(&r, two);
	a = manager_find_instance(r.m, "a");
	assert_int_equal(instance_set_priority1(a, 10), 0);
	assert_null(a->push_timer);
	assert_false(a->push_priorities);
	for (int k = 0; k < 20; k++) {
		assert_int_equal(instance_set_priority1(a, (uint8_t) (20 + k)), 0);
		assert_int_equal(instance_set_priority2(a, (uint8_t) (50 + k)), 0);
		assert_int_equal(a->priority1, 20 + k);
	}
	assert_non_null(a->push_timer);
	assert_true(a->push_priorities);
	/* the tick runs out on the loop: one push, of the last values */
	for (int k = 0; k < 10 && a->push_timer; k++) {
		assert_true(sd_event_run(r.event, 50 * 1000) >= 0);
	}
	assert_null(a->push_timer);
	assert_false(a->push_priorities);
	assert_int_equal(a->priority1, 39);
	assert_int_equal(a->priority2, 69);
	rig_free(&r);
}

/* Disable, enable and restart on a port whose link is down. */
static void test_port_control(void **state)
{
	struct rig r;
	struct mport *p;

	rig_init(&r, two);
	p = add_port(&r, "a", "e0", 10);
	assert_int_equal(mport_disable(p), 0);
	assert_false(p->enabled);
	assert_int_equal(p->state, PORT_STATE_DISABLED);
	assert_int_equal(mport_restart(p), -ENETDOWN);
	p->backoff.given_up = true;
	assert_int_equal(mport_enable(p), 0);
	assert_true(p->enabled);
	assert_false(p->backoff.given_up);
	assert_int_equal(p->state, PORT_STATE_FAULTY); /* the link is still down */
	assert_null(p->worker);
	rig_free(&r);
}

/* manager_reload() carries a plan out: retune in place, port restart, removal, addition. */
static void test_reload_applied(void **state)
{
	struct rig r;
	struct mport *e0, *e1, *f0;
	struct instance *a;
	char *errors = NULL;

	rig_init(&r, two);
	e0 = add_port(&r, "a", "e0", 10);
	e1 = add_port(&r, "a", "e1", 11);
	f0 = add_port(&r, "b", "f0", 20);
	(void) f0;
	e1->backoff.given_up = true;
	rig_reset_hooks(&r);

	/* priority1 of a (in place), e1's own key (its port restarts), b gone, c new. */
	write_config(&r, "[instance a]\ninterfaces = e0 e1 e2\npriority1 = 90\n"
			 "[interface e1]\nlogSyncInterval = -2\n"
			 "[instance c]\ninterfaces = g0\ndomainNumber = 9\n");
	assert_int_equal(manager_reload(r.m, &errors), 0);
	assert_null(errors);
	rig_turn(&r);
	a = manager_find_instance(r.m, "a");
	assert_non_null(a);
	assert_int_equal(a->priority1, 90);
	assert_true(r.instance_mask[0] & INSTANCE_CHANGED_CONFIG);
	assert_null(manager_find_instance(r.m, "b"));
	assert_non_null(manager_find_instance(r.m, "c"));
	assert_int_equal(r.instances_removed, 1);
	assert_int_equal(r.instances_added, 1);
	assert_int_equal(r.ports_removed, 1); /* f0, with its instance */
	assert_null(manager_find_port(r.m, "f0"));
	/* Same objects: e0 kept, e1 restarted with its new options and a fresh restart budget. */
	assert_ptr_equal(manager_find_port(r.m, "e0"), e0);
	assert_ptr_equal(manager_find_port(r.m, "e1"), e1);
	assert_int_equal(e0->options.logSyncInterval, 0);
	assert_int_equal(e1->options.logSyncInterval, -2);
	assert_false(e1->backoff.given_up);
	assert_true(r.manager_mask & MANAGER_CHANGED_CONFIG);

	/* An invalid configuration changes nothing. */
	rig_reset_hooks(&r);
	write_config(&r, "[instance a]\ninterfaces = e0\npriority1 = 300\n");
	assert_int_equal(manager_reload(r.m, &errors), -EINVAL);
	assert_non_null(errors);
	free(errors);
	assert_int_equal(a->priority1, 90);
	assert_int_equal(r.instance_calls + r.ports_removed + r.manager_mask, 0);

	/* e1 leaves a: its port goes. */
	write_config(&r, "[instance a]\ninterfaces = e0\npriority1 = 90\n"
			 "[instance c]\ninterfaces = g0\ndomainNumber = 9\n");
	assert_int_equal(manager_reload(r.m, &errors), 0);
	assert_null(manager_find_port(r.m, "e1"));
	assert_int_equal(r.ports_removed, 1);
	rig_free(&r);
}

/* ---- the system-clock follower ---- */

/* A SLAVE port whose worker's offsets are CLOCK_REALTIME's (software timestamps). */
struct follow_rig {
	struct rig r;
	struct sysclock_sim *sim;
	struct sysclock_follow *f;
	struct mport *p;
	ns_t ref_error; /* the master's time is true time plus this */
};

static void follow_init(struct follow_rig *fr, const char *config, ns_t ref_error)
{
	struct sysclock_sim_config sc = {
		.start_real = INT64_C(1700000000) * NS_PER_SEC,
		.freq_error_ppb = 20000,
		.cap_sys_time = true,
	};

	rig_init(&fr->r, config);
	fr->p = add_port(&fr->r, "a", "e0", 10);
	fr->p->state = PORT_STATE_SLAVE;
	/* the supervisor's BMCA made it SLAVE (worker-trust.h) */
	worker_trust_recommended(&fr->p->trust, BMCA_DECISION_S1, 0);
	fr->p->timestamping = TRANSPORT_TS_MODE_SOFTWARE;
	fr->ref_error = ref_error;
	assert_int_equal(sysclock_sim_new(&sc, &fr->sim), 0);
	assert_int_equal(sysclock_follow_new(fr->r.m, &sysclock_sim_ops, fr->sim, &fr->f), 0);
}

static void follow_free(struct follow_rig *fr)
{
	sysclock_follow_free(fr->f);
	sysclock_sim_free(fr->sim);
	rig_free(&fr->r);
}

/* n seconds, one sample each, measured now (as the status page read right after its write). */
static void follow_run(struct follow_rig *fr, int n)
{
	for (int k = 0; k < n; k++) {
		struct ipc_status s = { .port_state = PORT_STATE_SLAVE };

		sysclock_sim_advance(fr->sim, NS_PER_SEC);
		s.sample_ts = sysclock_sim_real(fr->sim);
		s.offset_ns = s.sample_ts - (sysclock_sim_true(fr->sim) + fr->ref_error);
		s.mean_path_delay_ns = 1000;
		sysclock_follow_port_status(fr->f, fr->p, &s);
	}
}

static ns_t sim_error(const struct follow_rig *fr)
{
	return sysclock_sim_real(fr->sim) - (sysclock_sim_true(fr->sim) + fr->ref_error);
}

static const char *const follow_free_running = "[global]\nsystem_clock_instance = a\n"
					       "[instance a]\ninterfaces = e0\n"
					       "clock_backend = free_running\n";

/* The followed instance's SLAVE port steers the clock: a step, then the servo locks. */
static void test_follow_locks(void **state)
{
	struct follow_rig fr;

	follow_init(&fr, follow_free_running, 50 * NS_PER_MSEC);
	assert_false(sysclock_follow_synchronized(fr.f));
	follow_run(&fr, 120);
	rig_turn(&fr.r);
	assert_true(sysclock_follow_synchronized(fr.f));
	assert_true(llabs(sim_error(&fr)) < 100 * NS_PER_USEC);
	assert_true(fr.r.manager_mask & MANAGER_CHANGED_SYSTEM_CLOCK);
	follow_free(&fr);
}

/*
 * Software timestamps from a grandmaster on the PTP timescale (a PHC's, as most are): the worker's
 * offsets are on UTC already (port_sync_offset), and CLOCK_REALTIME must follow UTC, not UTC less
 * currentUtcOffset (the closed-loop tier's S saw the guest's clock steered 37 s behind).
 */
static void test_follow_software_ptp_timescale(void **state)
{
	struct follow_rig fr;

	follow_init(&fr, follow_free_running, 50 * NS_PER_MSEC);
	manager_find_instance(fr.r.m, "a")->time_properties.ptpTimescale = true;
	manager_find_instance(fr.r.m, "a")->time_properties.currentUtcOffset = 37;
	follow_run(&fr, 120);
	rig_turn(&fr.r);
	assert_true(sysclock_follow_synchronized(fr.f));
	assert_true(llabs(sim_error(&fr)) < 100 * NS_PER_USEC);
	follow_free(&fr);
}

/* Nothing is written to the clock: nothing followed, a port not SLAVE, a virtual clock. */
static void follow_never_writes(const char *config, enum port_state st)
{
	struct follow_rig fr;
	struct timex before = { 0 }, after = { 0 };
	ns_t err;

	follow_init(&fr, config, 50 * NS_PER_MSEC);
	fr.p->state = st;
	assert_true(sysclock_sim_read(fr.sim, &before) >= 0);
	err = sim_error(&fr);
	follow_run(&fr, 30);
	assert_true(sysclock_sim_read(fr.sim, &after) >= 0);
	assert_int_equal(before.freq, after.freq);
	/* No step either: the error only grew by the simulated frequency error (20 ppm). */
	assert_true(llabs(sim_error(&fr) - err) < 1 * NS_PER_MSEC);
	assert_false(sysclock_follow_synchronized(fr.f));
	follow_free(&fr);
}

static void test_follow_never_writes(void **state)
{
	follow_never_writes("[instance a]\ninterfaces = e0\nclock_backend = free_running\n",
			    PORT_STATE_SLAVE);
	follow_never_writes(follow_free_running, PORT_STATE_MASTER);
	follow_never_writes("[global]\nsystem_clock_instance = a\n[instance a]\ninterfaces = e0\n"
			    "clock_backend = virtual\n",
			    PORT_STATE_SLAVE);
	follow_never_writes("[global]\nsystem_clock_instance = b\n[instance a]\ninterfaces = e0\n"
			    "clock_backend = free_running\n[instance b]\ninterfaces = e9\n",
			    PORT_STATE_SLAVE);
}

/* "auto" follows the instance that has a SLAVE port. */
static void test_follow_auto(void **state)
{
	struct follow_rig fr;

	follow_init(&fr,
		    "[global]\nsystem_clock_instance = auto\n[instance a]\ninterfaces = e0\n"
		    "clock_backend = system\ntime_stamping = software\n",
		    20 * NS_PER_MSEC);
	follow_run(&fr, 120);
	assert_true(sysclock_follow_synchronized(fr.f));
	follow_free(&fr);
}

/* The admission of one software sample, each reason on its own. */
static void test_follow_admit(void **state)
{
	const ns_t s = 1000 * NS_PER_SEC, mono = 50 * NS_PER_SEC;

	assert_int_equal(sysclock_follow_admit(s, 0, 0, 0, mono, s + 1), SYSCLOCK_FOLLOW_FEED);
	assert_int_equal(sysclock_follow_admit(0, 0, 0, 0, mono, s), SYSCLOCK_FOLLOW_REPEAT);
	assert_int_equal(sysclock_follow_admit(s, s, 0, 0, mono, s + 1), SYSCLOCK_FOLLOW_REPEAT);
	/* Within the holdoff after a step, and from its end on. */
	assert_int_equal(sysclock_follow_admit(s, 0, mono + 1, 0, mono, s + 1),
			 SYSCLOCK_FOLLOW_HOLDOFF);
	assert_int_equal(sysclock_follow_admit(s, 0, mono, 0, mono, s + 1), SYSCLOCK_FOLLOW_FEED);
	/* Stamped before the last step, or ahead of now (the clock stepped back since). */
	assert_int_equal(sysclock_follow_admit(s, 0, 0, s + 1, mono, s + 2),
			 SYSCLOCK_FOLLOW_BEFORE_STEP);
	assert_int_equal(sysclock_follow_admit(s, 0, 0, s, mono, s), SYSCLOCK_FOLLOW_FEED);
	assert_int_equal(sysclock_follow_admit(s, 0, 0, 0, mono, s - 1), SYSCLOCK_FOLLOW_FUTURE);
	/* Age: up to SYSCLOCK_FOLLOW_MAX_AGE_NS is fed. */
	assert_int_equal(sysclock_follow_admit(s, 0, 0, 0, mono, s + SYSCLOCK_FOLLOW_MAX_AGE_NS),
			 SYSCLOCK_FOLLOW_FEED);
	assert_int_equal(
		sysclock_follow_admit(s, 0, 0, 0, mono, s + SYSCLOCK_FOLLOW_MAX_AGE_NS + 1),
		SYSCLOCK_FOLLOW_STALE);
}

/* A sample offered twice (the page was not rewritten) moves the clock once. */
static void test_follow_repeat_fed_once(void **state)
{
	struct follow_rig fr;
	struct ipc_status s = { .port_state = PORT_STATE_SLAVE };
	struct timex z = { 0 }, a = { 0 }, b = { 0 };

	follow_init(&fr, follow_free_running, 0);
	follow_run(&fr, 20);
	sysclock_sim_advance(fr.sim, NS_PER_SEC);
	s.sample_ts = sysclock_sim_real(fr.sim);
	/* on the trend but 3 us off: within the gate, the servo answers it */
	s.offset_ns = sim_error(&fr) + 3 * NS_PER_USEC;
	assert_true(sysclock_sim_read(fr.sim, &z) >= 0);
	sysclock_follow_port_status(fr.f, fr.p, &s);
	assert_true(sysclock_sim_read(fr.sim, &a) >= 0);
	assert_int_not_equal(z.freq, a.freq);
	sysclock_follow_port_status(fr.f, fr.p, &s);
	assert_true(sysclock_sim_read(fr.sim, &b) >= 0);
	assert_int_equal(a.freq, b.freq);
	follow_free(&fr);
}

/*
 * One sample a second as follow_run(), every fourth of them forged (a forged Sync/Follow_Up pair
 * whose offset the status page happened to carry), +-forged in turn.
 */
static void follow_run_forged(struct follow_rig *fr, int n, ns_t forged)
{
	for (int k = 0; k < n; k++) {
		struct ipc_status s = { .port_state = PORT_STATE_SLAVE };

		sysclock_sim_advance(fr->sim, NS_PER_SEC);
		s.sample_ts = sysclock_sim_real(fr->sim);
		s.offset_ns = sim_error(fr);
		if (k % 4 == 3) {
			s.offset_ns += (k / 4) % 2 ? forged : -forged;
		}
		s.mean_path_delay_ns = 1000;
		sysclock_follow_port_status(fr->f, fr->p, &s);
	}
}

/*
 * Finding 5: forged offsets of +-500 us among the real ones. The follower's own gate keeps them
 * from the system clock's servo: it stays locked within microseconds, the frequency near the
 * true error. Without the gate every one reached the servo (the worker of a system or
 * free_running port runs no gate).
 */
static void test_follow_gates_forged(void **state)
{
	struct follow_rig fr;
	struct timex tx;

	follow_init(&fr, follow_free_running, 20 * NS_PER_MSEC);
	follow_run(&fr, 30);
	assert_true(sysclock_follow_synchronized(fr.f));
	follow_run_forged(&fr, 120, 500 * NS_PER_USEC);
	assert_true(sysclock_sim_read(fr.sim, &tx) >= 0);
	if (!(llabs(sim_error(&fr)) < 20 * NS_PER_USEC) || !(labs(tx.freq + 20 * 65536) < 65536)) {
		fail_msg("expected within 20 us and 1 ppm of -20 ppm, got %lld ns and %ld",
			 (long long) sim_error(&fr), tx.freq);
	}
	assert_true(sysclock_follow_synchronized(fr.f));
	follow_free(&fr);
}

/*
 * Finding 2: locked, the port is lost and a new grandmaster a day off comes: the sysclock the
 * follower builds again gets no first step, and the day is refused (max_offset_jump).
 */
static void test_follow_no_new_first_step(void **state)
{
	struct follow_rig fr;
	ns_t before;

	follow_init(&fr, follow_free_running, 20 * NS_PER_MSEC);
	follow_run(&fr, 30);
	assert_true(sysclock_follow_synchronized(fr.f));
	/* the parent changes: no SLAVE port for a few ticks (the follower drops its sysclock) */
	fr.p->state = PORT_STATE_LISTENING;
	for (int k = 0; k < 3; k++) {
		sysclock_sim_advance(fr.sim, NS_PER_SEC);
		sysclock_follow_tick(fr.f, (uint64_t) (k + 1) * 1000000);
	}
	fr.p->state = PORT_STATE_SLAVE;
	fr.ref_error += INT64_C(86326) * NS_PER_SEC;
	before = sysclock_sim_real(fr.sim) - sysclock_sim_true(fr.sim);
	follow_run(&fr, 30);
	assert_false(sysclock_follow_synchronized(fr.f));
	/* neither stepped nor slewed: within 100 us of where it was */
	assert_true(llabs(sysclock_sim_real(fr.sim) - sysclock_sim_true(fr.sim) - before) <
		    100 * NS_PER_USEC);
	follow_free(&fr);
}

/* Finding 3: a worker that says SLAVE, unasked by the supervisor's BMCA, never steers. */
static void test_follow_needs_recommended_slave(void **state)
{
	struct follow_rig fr;
	struct timex before = { 0 }, after = { 0 };

	follow_init(&fr, follow_free_running, 50 * NS_PER_MSEC);
	worker_trust_reset(&fr.p->trust);
	assert_true(sysclock_sim_read(fr.sim, &before) >= 0);
	follow_run(&fr, 30);
	for (int k = 0; k < 3; k++) {
		sysclock_follow_tick(fr.f, (uint64_t) (k + 1) * 1000000);
	}
	assert_true(sysclock_sim_read(fr.sim, &after) >= 0);
	assert_int_equal(before.freq, after.freq);
	assert_false(sysclock_follow_synchronized(fr.f));
	/* the same port once recommended: it steers */
	worker_trust_recommended(&fr.p->trust, BMCA_DECISION_S1, 0);
	follow_run(&fr, 60);
	assert_true(sysclock_follow_synchronized(fr.f));
	follow_free(&fr);
}

/* Where chronyd would listen: a bound, non-blocking datagram socket in a directory of its own. */
struct chrony_sock {
	char dir[32];
	struct sockaddr_un sa;
};

static int chrony_bind(struct chrony_sock *c)
{
	int fd;

	snprintf(c->dir, sizeof(c->dir), "/tmp/test-manager-XXXXXX");
	assert_non_null(mkdtemp(c->dir));
	c->sa = (struct sockaddr_un){ .sun_family = AF_UNIX };
	snprintf(c->sa.sun_path, sizeof(c->sa.sun_path), "%s/chrony.sock", c->dir);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *) &c->sa, sizeof(c->sa)), 0);
	return fd;
}

static void chrony_close(struct chrony_sock *c, int fd)
{
	close(fd);
	unlink(c->sa.sun_path);
	rmdir(c->dir);
}

/*
 * chronyd's socket bound (its fd returned), and a rig whose instance a feeds it with software
 * timestamps, system_clock_instance auto.
 */
static int follow_init_refclock(struct follow_rig *fr, struct chrony_sock *chrony, ns_t ref_error)
{
	char conf[512];
	int rx = chrony_bind(chrony);

	snprintf(conf, sizeof(conf),
		 "[global]\nsystem_clock_instance = auto\n[instance a]\ninterfaces = e0\n"
		 "clock_backend = system\ntime_stamping = software\nclock_servo = refclock_sock\n"
		 "refclock_sock_address = %s\n",
		 chrony->sa.sun_path);
	follow_init(fr, conf, ref_error);
	return rx;
}

/* The instance's health as the derive pass makes it: its ports' and its feed's. */
static void feed_health(struct follow_rig *fr, struct health_report *h)
{
	struct instance *a = manager_find_instance(fr->r.m, "a");
	bool gm;

	health_instance(a, &fr->p, 1, NULL, NULL, h, &gm);
	refclock_feed_health(a, &fr->p, 1, h);
}

/*
 * clock_servo refclock_sock, even with system_clock_instance auto: the clock is never written, and
 * chronyd's socket gets each offset of the port as true time minus CLOCK_REALTIME. The grandmaster
 * announces the PTP timescale (a PHC's, as most do): the worker's software offsets are on UTC
 * already (port_sync_offset), and chronyd must get UTC, not 37 s less.
 */
static void test_follow_refclock(void **state)
{
	struct chrony_sock chrony;
	struct timex before = { 0 }, after = { 0 };
	struct refclock_info info;
	struct health_report h;
	struct follow_rig fr;
	uint8_t b[64];
	size_t n = 0;
	double offset = 0;
	char *errors = NULL;
	ns_t err;
	int rx;

	rx = follow_init_refclock(&fr, &chrony, 50 * NS_PER_MSEC);
	manager_find_instance(fr.r.m, "a")->time_properties.ptpTimescale = true;
	manager_find_instance(fr.r.m, "a")->time_properties.currentUtcOffset = 37;
	assert_true(sysclock_sim_read(fr.sim, &before) >= 0);
	err = sim_error(&fr);
	sysclock_follow_tick(fr.f, USEC_PER_SEC); /* the feed comes with the tick */
	/*
	 * chronyd is the servo (software timestamps): the health is the feed's, a port SLAVE and
	 * nothing sent yet
	 */
	fr.r.m->sysclock = fr.f;
	feed_health(&fr, &h);
	assert_int_equal(h.n_reasons, 1);
	assert_string_equal(h.reasons[0].code, "not-synchronized");
	assert_non_null(strstr(h.reasons[0].text, "no samples to chronyd at /tmp/"));
	fr.r.m->sysclock = NULL;
	for (int k = 0; k < 30; k++) {
		/* read as chronyd does: a Unix datagram socket queues 10 at most */
		follow_run(&fr, 1);
		while (recv(rx, b, sizeof(b), 0) > 0) {
			/* the offset follows chronyd's struct timeval (refclock-sock.c) */
			memcpy(&offset, b + sizeof(struct timeval), sizeof(offset));
			n++;
		}
	}
	assert_true(sysclock_sim_read(fr.sim, &after) >= 0);
	assert_int_equal(before.freq, after.freq);
	assert_true(llabs(sim_error(&fr) - err) < 1 * NS_PER_MSEC); /* no step */
	assert_false(sysclock_follow_synchronized(fr.f));
	assert_string_equal(sysclock_follow_conflict(fr.f), "");
	assert_int_equal(n, 30);
	assert_true(fabs(offset + (double) sim_error(&fr) / NS_PER_SEC) < 1e-9);
	/* what D-Bus reads, through the manager as phcd's own follower */
	fr.r.m->sysclock = fr.f;
	assert_true(refclock_feed_info(manager_find_instance(fr.r.m, "a"), &info));
	fr.r.m->sysclock = NULL;
	assert_string_equal(info.state_name, "sending");
	assert_int_equal(info.accepted, 30);
	/* samples accepted: healthy, although phcd's instance is never Synchronized */
	fr.r.m->sysclock = fr.f;
	feed_health(&fr, &h);
	fr.r.m->sysclock = NULL;
	assert_int_equal(h.level, HEALTH_OK);
	assert_int_equal(h.n_reasons, 0);
	/* reloaded to pi: the feed goes at the next tick, and D-Bus hears of it */
	write_config(&fr.r, "[global]\nsystem_clock_instance = auto\n[instance a]\n"
			    "interfaces = e0\nclock_backend = system\ntime_stamping = software\n");
	assert_int_equal(manager_reload(fr.r.m, &errors), 0);
	rig_reset_hooks(&fr.r);
	sysclock_follow_tick(fr.f, 40 * USEC_PER_SEC);
	rig_turn(&fr.r); /* the change is emitted by the derive pass */
	assert_true(fr.r.instance_mask[0] & INSTANCE_CHANGED_HEALTH);
	fr.r.m->sysclock = fr.f;
	assert_false(refclock_feed_info(manager_find_instance(fr.r.m, "a"), &info));
	fr.r.m->sysclock = NULL;
	assert_string_equal(info.address, "");
	free(errors);
	follow_free(&fr);
	chrony_close(&chrony, rx);
}

/*
 * Out of descriptors when the feed begins: no socket, the samples refused (EMFILE) rather than
 * lost for good; once descriptors are free again the next sample opens one and reaches chronyd.
 */
static void test_follow_refclock_no_fd(void **state)
{
	struct chrony_sock chrony;
	struct rlimit old, low;
	struct refclock_info info;
	struct follow_rig fr;
	int fill[64], n = 0, rx;
	uint8_t b[64];

	rx = follow_init_refclock(&fr, &chrony, 0);
	fr.r.m->sysclock = fr.f;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	low.rlim_cur = (rlim_t) rx + 1 + ARRAY_SIZE(fill);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	while (n < (int) ARRAY_SIZE(fill) && (fill[n] = dup(0)) >= 0) {
		n++;
	}
	assert_int_equal(errno, EMFILE);
	sysclock_follow_tick(fr.f, USEC_PER_SEC); /* the feed begins: socket() fails */
	follow_run(&fr, 2);
	assert_true(refclock_feed_info(manager_find_instance(fr.r.m, "a"), &info));
	assert_string_equal(info.state_name, "refused");
	assert_int_equal(info.error, -EMFILE);
	while (n > 0) {
		close(fill[--n]);
	}
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	follow_run(&fr, 1);
	assert_true(refclock_feed_info(manager_find_instance(fr.r.m, "a"), &info));
	assert_string_equal(info.state_name, "sending");
	assert_int_equal(recv(rx, b, sizeof(b), 0), (ssize_t) sizeof(struct timeval) + 24);
	fr.r.m->sysclock = NULL;
	follow_free(&fr);
	chrony_close(&chrony, rx);
}

/*
 * A chronyd that steers CLOCK_REALTIME (no -x) is phcd's rival, but not where phcd's only
 * instance feeds it (clock_servo refclock_sock): SystemClockConflict stays empty then, and names
 * it for the same instance with pi. test-refclock's chronyd runs with -x, never a rival: only
 * this /proc written by hand shows the difference.
 */
static void test_follow_refclock_rival(void **state)
{
	char root[] = "/tmp/test-manager-proc-XXXXXX", path[320], conf[256];
	struct sysclock_ops ops = sysclock_sim_ops;
	struct follow_rig fr;
	FILE *f;

	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/self", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/4242", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/4242/comm", root);
	assert_non_null(f = fopen(path, "w"));
	fputs("chronyd\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/4242/cmdline", root);
	assert_non_null(f = fopen(path, "w"));
	fwrite("chronyd\0-u\0_chrony\0", 1, 19, f);
	fclose(f);
	ops.proc_root = root;
	for (int feeds = 1; feeds >= 0; feeds--) {
		snprintf(conf, sizeof(conf),
			 "[global]\nsystem_clock_instance = auto\n[instance a]\ninterfaces = e0\n"
			 "clock_backend = system\ntime_stamping = software\n%s",
			 feeds ? "clock_servo = refclock_sock\n" : "");
		follow_init(&fr, conf, 0);
		sysclock_follow_free(fr.f);
		assert_int_equal(sysclock_follow_new(fr.r.m, &ops, fr.sim, &fr.f), 0);
		sysclock_follow_tick(fr.f, USEC_PER_SEC);
		if (feeds) {
			assert_string_equal(sysclock_follow_conflict(fr.f), "");
		} else {
			assert_non_null(strstr(sysclock_follow_conflict(fr.f),
					       "chronyd (pid 4242) already steers CLOCK_REALTIME"));
		}
		follow_free(&fr);
	}
	snprintf(path, sizeof(path), "rm -rf '%s'", root);
	assert_int_equal(system(path), 0);
}

/*
 * Hardware timestamps: once a tick, CLOCK_REALTIME against the SLAVE port's PHC (a PHC on TAI,
 * 37 s ahead), to UTC with the grandmaster's currentUtcOffset, only while the instance is
 * synchronized; the leap61 the grandmaster announces goes with it.
 */
static void test_follow_refclock_phc(void **state)
{
	struct chrony_sock chrony;
	char conf[512];
	struct sysclock_sim_config sc = {
		.start_real = INT64_C(1700000000) * NS_PER_SEC,
		.freq_error_ppb = 20000,
		.cap_sys_time = true,
		.phc_offset = 37 * NS_PER_SEC,
	};
	struct follow_rig fr = { 0 };
	struct instance *a;
	size_t leap_at = sizeof(struct timeval) + sizeof(double) + sizeof(int);
	uint8_t b[64];
	double offset = 0;
	int32_t leap = -1;
	int rx, k;

	rx = chrony_bind(&chrony);
	snprintf(conf, sizeof(conf),
		 "[instance a]\ninterfaces = e0\nclock_servo = refclock_sock\n"
		 "refclock_sock_address = %s\n",
		 chrony.sa.sun_path);
	rig_init(&fr.r, conf);
	fr.p = add_port(&fr.r, "a", "e0", 10);
	fr.p->state = PORT_STATE_SLAVE;
	worker_trust_recommended(&fr.p->trust, BMCA_DECISION_S1, 0);
	fr.p->timestamping = TRANSPORT_TS_MODE_HARDWARE;
	fr.p->phc_index = 0;
	assert_int_equal(sysclock_sim_new(&sc, &fr.sim), 0);
	/* 2 ms off true time, so that the sign shows */
	assert_true(sysclock_sim_ops.adjtime(
			    fr.sim, &(struct timex){ .modes = ADJ_SETOFFSET | ADJ_NANO,
						     .time = { .tv_usec = 2000000 } }) >= 0);
	assert_int_equal(sysclock_follow_new(fr.r.m, &sysclock_sim_ops, fr.sim, &fr.f), 0);
	a = manager_find_instance(fr.r.m, "a");
	a->time_properties.ptpTimescale = true;
	a->time_properties.currentUtcOffset = 37;
	a->time_properties.leap61 = true;
	/* not synchronized: nothing sent */
	for (k = 1; k <= 3; k++) {
		sysclock_sim_advance(fr.sim, NS_PER_SEC);
		sysclock_follow_tick(fr.f, (uint64_t) k * USEC_PER_SEC);
	}
	assert_true(recv(rx, b, sizeof(b), 0) < 0);
	a->synchronized = true;
	for (; k <= 6; k++) {
		sysclock_sim_advance(fr.sim, NS_PER_SEC);
		sysclock_follow_tick(fr.f, (uint64_t) k * USEC_PER_SEC);
		assert_int_equal(recv(rx, b, sizeof(b), 0), (ssize_t) sizeof(struct timeval) + 24);
		memcpy(&offset, b + sizeof(struct timeval), sizeof(offset));
		memcpy(&leap, b + leap_at, sizeof(leap));
		/* true minus system time: -2 ms and the 20 ppm the simulated clock runs fast */
		assert_true(fabs(offset -
				 (double) (sysclock_sim_true(fr.sim) - sysclock_sim_real(fr.sim)) /
					 NS_PER_SEC) < 1e-9);
		assert_true(offset < -0.0019 && offset > -0.0022);
		/* 1700000000 s is 22:13:20 UTC: leap61 is pending, chrony's 1 (insert) */
		assert_int_equal(leap, 1);
	}
	follow_free(&fr);
	chrony_close(&chrony, rx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_port_numbers),
		cmocka_unit_test(test_instance_options),
		cmocka_unit_test(test_priority_hooks),
		cmocka_unit_test(test_priority_push_coalesced),
		cmocka_unit_test(test_port_control),
		cmocka_unit_test(test_reload_applied),
		cmocka_unit_test(test_follow_admit),
		cmocka_unit_test(test_follow_gates_forged),
		cmocka_unit_test(test_follow_needs_recommended_slave),
		cmocka_unit_test(test_follow_no_new_first_step),
		cmocka_unit_test(test_follow_locks),
		cmocka_unit_test(test_follow_never_writes),
		cmocka_unit_test(test_follow_auto),
		cmocka_unit_test(test_follow_repeat_fed_once),
		cmocka_unit_test(test_follow_software_ptp_timescale),
		cmocka_unit_test(test_follow_refclock),
		cmocka_unit_test(test_follow_refclock_phc),
		cmocka_unit_test(test_follow_refclock_rival),
		cmocka_unit_test(test_follow_refclock_no_fd),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
