// SPDX-License-Identifier: GPL-2.0-or-later
/* Authorization of mutating D-Bus methods: root at once, anyone else through an async polkit check.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>

#include "common/log.h"
#include "dbus/bus-polkit.h"

/*
 * The shape of systemd's bus-polkit.c: the first call for a message starts CheckAuthorization
 * and remembers the message; polkit's answer is stored and the message re-queued with
 * sd_bus_enqueue_for_read(), so the handler runs again from the top and this time finds the
 * answer. Handlers stay linear (read, validate, authorize, apply, reply) and nothing waits.
 *
 * A query lives until the handler consumes the answer, and no longer than that second dispatch:
 * an idle event after it frees a query whose call never reached the handler again (its object
 * went away meanwhile: sd-bus answered UnknownObject). An object that goes away while polkit
 * still thinks (it may wait minutes for a password) drops its queries at once:
 * bus_polkit_forget_path().
 */
struct polkit_query {
	struct polkit_query *next;
	struct bus_polkit *owner;
	sd_bus_message *request;
	sd_bus_slot *slot;	  /* the CheckAuthorization call; NULL once answered */
	sd_event_source *cleanup; /* after the second dispatch: frees an unconsumed answer */
	char *action;
	uid_t uid; /* the caller's, for its share of the limit */
	bool done;
	int result; /* when done: 1 authorized, or -errno with error set */
	sd_bus_error error;
};

struct bus_polkit {
	struct polkit_query *queries;
	size_t max_total, max_per_caller;
	uint64_t refused; /* calls answered LimitsExceeded */
};

/* polkit's CheckAuthorizationFlags: let polkit ask an agent when the caller allows it. */
#define POLKIT_ALLOW_USER_INTERACTION 1u

int bus_polkit_new(struct bus_polkit **ret)
{
	struct bus_polkit *p = calloc(1, sizeof(*p));

	if (!p) {
		return -ENOMEM;
	}
	p->max_total = 32;
	p->max_per_caller = 4;
	*ret = p;
	return 0;
}

static void query_free(struct polkit_query *q)
{
	sd_event_source_disable_unref(q->cleanup);
	sd_bus_slot_unref(q->slot);
	sd_bus_message_unref(q->request);
	sd_bus_error_free(&q->error);
	free(q->action);
	free(q);
}

static void query_unlink(struct polkit_query *q)
{
	for (struct polkit_query **pp = &q->owner->queries; *pp; pp = &(*pp)->next) {
		if (*pp == q) {
			*pp = q->next;
			return;
		}
	}
}

struct bus_polkit *bus_polkit_free(struct bus_polkit *p)
{
	if (!p) {
		return NULL;
	}
	while (p->queries) {
		struct polkit_query *q = p->queries;

		p->queries = q->next;
		query_free(q);
	}
	free(p);
	return NULL;
}

/* The sender's uid as the bus driver vouches for it; /proc-augmented values do not count. */
static int sender_uid(sd_bus_message *m, uid_t *ret)
{
	sd_bus_creds *creds = NULL;
	uid_t uid;
	int r;

	r = sd_bus_query_sender_creds(m, SD_BUS_CREDS_UID | SD_BUS_CREDS_EUID, &creds);
	if (r < 0) {
		return r;
	}
	if (sd_bus_creds_get_augmented_mask(creds) & (SD_BUS_CREDS_UID | SD_BUS_CREDS_EUID)) {
		r = -EPERM;
		goto out;
	}
	r = sd_bus_creds_get_euid(creds, &uid);
	if (r == -ENXIO) {
		r = sd_bus_creds_get_uid(creds, &uid);
	}
	if (r >= 0) {
		*ret = uid;
	}
out:
	sd_bus_creds_unref(creds);
	return r;
}

static int query_answer(struct polkit_query *q, sd_bus_message *reply)
{
	const sd_bus_error *e = sd_bus_message_get_error(reply);
	int authorized, challenge, r;

	if (e) {
		/* No polkit on this bus (a container, a test bus): only root may change anything.
		 */
		if (sd_bus_error_has_names(e, SD_BUS_ERROR_SERVICE_UNKNOWN,
					   SD_BUS_ERROR_NAME_HAS_NO_OWNER, SD_BUS_ERROR_NO_REPLY)) {
			return sd_bus_error_setf(
				&q->error, SD_BUS_ERROR_ACCESS_DENIED,
				"Only root may do this: polkit is not running, so the "
				"action %s cannot be granted to anyone else",
				q->action);
		}
		return sd_bus_error_setf(&q->error, SD_BUS_ERROR_ACCESS_DENIED,
					 "Authorization check for %s failed: %s", q->action,
					 e->message ? e->message : e->name);
	}
	r = sd_bus_message_enter_container(reply, 'r', "bba{ss}");
	if (r >= 0) {
		r = sd_bus_message_read(reply, "bb", &authorized, &challenge);
	}
	if (r < 0) {
		return sd_bus_error_setf(
			&q->error, SD_BUS_ERROR_ACCESS_DENIED,
			"Authorization check for %s failed: polkit sent a malformed "
			"reply",
			q->action);
	}
	if (authorized) {
		return 1;
	}
	if (challenge) {
		return sd_bus_error_setf(
			&q->error, SD_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED,
			"Interactive authentication is needed for %s (run the command "
			"with a polkit agent, or as root)",
			q->action);
	}
	return sd_bus_error_setf(&q->error, SD_BUS_ERROR_ACCESS_DENIED,
				 "Not authorized: this needs root or the polkit action %s",
				 q->action);
}

static void query_drop(struct polkit_query *q)
{
	query_unlink(q);
	query_free(q);
}

static int on_cleanup(sd_event_source *src, void *userdata)
{
	/* The call was dispatched again and did not take its answer: nobody will. */
	query_drop(userdata);
	return 0;
}

static int query_callback(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error)
{
	struct polkit_query *q = userdata;
	sd_bus *bus = sd_bus_message_get_bus(q->request);
	int r;

	q->slot = sd_bus_slot_unref(q->slot);
	q->result = query_answer(q, reply);
	q->done = true;
	/*
	 * Idle priority: after the bus (normal priority) has dispatched the call again. Without an
	 * event loop the answer waits for the handler or bus_polkit_free().
	 */
	r = sd_bus_get_event(bus)
		    ? sd_event_add_defer(sd_bus_get_event(bus), &q->cleanup, on_cleanup, q)
		    : 0;
	if (r >= 0 && q->cleanup) {
		r = sd_event_source_set_priority(q->cleanup, SD_EVENT_PRIORITY_IDLE);
	}
	/* Dispatch the original call again; its handler finds the answer in bus_polkit_verify(). */
	if (r >= 0) {
		r = sd_bus_enqueue_for_read(bus, q->request);
	}
	if (r < 0) {
		query_drop(q);
	}
	return 0;
}

static struct polkit_query *query_find(struct bus_polkit *p, sd_bus_message *m, const char *action)
{
	for (struct polkit_query *q = p->queries; q; q = q->next) {
		if (q->request == m && strcmp(q->action, action) == 0) {
			return q;
		}
	}
	return NULL;
}

static int query_start(struct bus_polkit *p, sd_bus_message *m, const char *action, uid_t uid)
{
	sd_bus_message *pk = NULL;
	struct polkit_query *q;
	uint32_t flags = 0;
	int r;

	q = calloc(1, sizeof(*q));
	if (!q) {
		return -ENOMEM;
	}
	q->owner = p;
	q->uid = uid;
	q->error = SD_BUS_ERROR_NULL;
	q->action = strdup(action);
	if (!q->action) {
		r = -ENOMEM;
		goto fail;
	}
	if (sd_bus_message_get_allow_interactive_authorization(m) > 0) {
		flags |= POLKIT_ALLOW_USER_INTERACTION;
	}
	r = sd_bus_message_new_method_call(
		sd_bus_message_get_bus(m), &pk, "org.freedesktop.PolicyKit1",
		"/org/freedesktop/PolicyKit1/Authority", "org.freedesktop.PolicyKit1.Authority",
		"CheckAuthorization");
	if (r >= 0) {
		r = sd_bus_message_append(pk, "(sa{sv})sa{ss}us", "system-bus-name", 1, "name", "s",
					  sd_bus_message_get_sender(m), action, 0, flags, "");
	}
	if (r >= 0) {
		/* No timeout of our own: polkit may wait for a person to type a password. */
		r = sd_bus_call_async(sd_bus_message_get_bus(m), &q->slot, pk, query_callback, q,
				      UINT64_MAX);
	}
	sd_bus_message_unref(pk);
	if (r < 0) {
		goto fail;
	}
	q->request = sd_bus_message_ref(m);
	q->next = p->queries;
	p->queries = q;
	return 0;
fail:
	query_free(q);
	return r;
}

void bus_polkit_set_limits(struct bus_polkit *p, size_t total, size_t per_caller)
{
	p->max_total = total;
	p->max_per_caller = per_caller;
}

/*
 * Would one more check for a caller of uid go beyond the limits? An error set if so. The share
 * is per uid, not per sender: one user's many connections are one caller.
 */
static int over_limits(struct bus_polkit *p, sd_bus_message *m, uid_t uid, sd_bus_error *error)
{
	const char *sender = sd_bus_message_get_sender(m);
	size_t total = 0, mine = 0;

	for (const struct polkit_query *q = p->queries; q; q = q->next) {
		if (q->done) {
			continue;
		}
		total++;
		mine += q->uid == uid;
	}
	if (total < p->max_total && mine < p->max_per_caller) {
		return 0;
	}
	if (p->refused++ % 1000 == 0) {
		log_warning("D-Bus: %s (uid %u): too many authorization checks in flight (%zu of "
			    "%zu from this user, %zu of %zu in all): refused at once (%" PRIu64
			    " so far)",
			    sender ? sender : "?", (unsigned int) uid, mine, p->max_per_caller,
			    total, p->max_total, p->refused);
	}
	return sd_bus_error_setf(error, SD_BUS_ERROR_LIMITS_EXCEEDED,
				 "Too many authorization checks in flight (%s): try again later",
				 mine >= p->max_per_caller ? "this caller's" : "all callers'");
}

int bus_polkit_verify(struct bus_polkit *p, sd_bus_message *m, const char *action,
		      sd_bus_error *error)
{
	struct polkit_query *q;
	uid_t uid = (uid_t) -1;
	int r;

	r = sender_uid(m, &uid);
	if (r < 0 && r != -EPERM) {
		return sd_bus_error_set_errnof(error, -r, "Cannot identify the caller: %s",
					       strerror(-r));
	}
	if (r >= 0 && uid == 0) {
		return 1;
	}
	q = query_find(p, m, action);
	if (q && !q->done) {
		return 0;
	}
	if (q) {
		r = q->result;
		if (r < 0) {
			sd_bus_error_move(error, &q->error);
		}
		query_drop(q);
		return r;
	}
	r = over_limits(p, m, uid, error);
	if (r < 0) {
		return r;
	}
	r = query_start(p, m, action, uid);
	if (r < 0) {
		return sd_bus_error_set_errnof(error, -r, "Cannot ask polkit about %s: %s", action,
					       strerror(-r));
	}
	return 0;
}

void bus_polkit_forget_path(struct bus_polkit *p, const char *path)
{
	struct polkit_query **pp = &p->queries;

	while (*pp) {
		struct polkit_query *q = *pp;

		if (strcmp(sd_bus_message_get_path(q->request), path) != 0) {
			pp = &q->next;
			continue;
		}
		/* Answered and queued again: sd-bus answers that dispatch (UnknownObject). */
		if (!q->done) {
			(void) sd_bus_reply_method_errorf(q->request, SD_BUS_ERROR_UNKNOWN_OBJECT,
							  "%s went away while its authorization "
							  "was pending",
							  path);
		}
		*pp = q->next;
		query_free(q);
	}
}

size_t bus_polkit_pending(const struct bus_polkit *p)
{
	size_t n = 0;

	for (const struct polkit_query *q = p->queries; q; q = q->next) {
		n++;
	}
	return n;
}
