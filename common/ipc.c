/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Supervisor <-> worker messages: one field list per type drives both packing and unpacking. */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/socket.h>

#include "common/ipc.h"
#include "ptp/msg.h"
#include "ptp/port.h"
#include "ptp/util.h"
#include "ptp/wire.h"

/*
 * A codec walks a message's fields in order, either writing them (encode) or reading them
 * (decode) through ptp/wire.h's bounds-checked reader and writer. One list per type cannot let
 * the two directions drift apart. The first failure sticks, so field lists need no error checks.
 */
struct codec {
	bool decode;
	struct wire_reader r;
	struct wire_writer w;
	int err;
};

static void c_u8(struct codec *c, uint8_t *v)
{
	if (!c->err) {
		c->err = c->decode ? wire_get_u8(&c->r, v) : wire_put_u8(&c->w, *v);
	}
}

static void c_u16(struct codec *c, uint16_t *v)
{
	if (!c->err) {
		c->err = c->decode ? wire_get_u16(&c->r, v) : wire_put_u16(&c->w, *v);
	}
}

static void c_u32(struct codec *c, uint32_t *v)
{
	if (!c->err) {
		c->err = c->decode ? wire_get_u32(&c->r, v) : wire_put_u32(&c->w, *v);
	}
}

static void c_u64(struct codec *c, uint64_t *v)
{
	if (!c->err) {
		c->err = c->decode ? wire_get_u64(&c->r, v) : wire_put_u64(&c->w, *v);
	}
}

/* Signed values travel as their two's complement bits; memcpy keeps that free of UB. */
#define DEFINE_SIGNED(name, stype, utype, base)     \
	static void name(struct codec *c, stype *v) \
	{                                           \
		utype u;                            \
		memcpy(&u, v, sizeof(u));           \
		base(c, &u);                        \
		if (c->decode && !c->err) {         \
			memcpy(v, &u, sizeof(u));   \
		}                                   \
	}

DEFINE_SIGNED(c_i8, int8_t, uint8_t, c_u8)
DEFINE_SIGNED(c_i16, int16_t, uint16_t, c_u16)
DEFINE_SIGNED(c_i32, int32_t, uint32_t, c_u32)
DEFINE_SIGNED(c_i64, int64_t, uint64_t, c_u64)
/* IEEE 754 binary64 bits, big-endian like every other field. */
DEFINE_SIGNED(c_double, double, uint64_t, c_u64)

static void c_bool(struct codec *c, bool *v)
{
	uint8_t u = *v;

	c_u8(c, &u);
	if (c->decode && !c->err) {
		/* Anything but 0 or 1 is a corrupt or hostile message, not "true". */
		if (u > 1) {
			c->err = -EBADMSG;
		}
		*v = u;
	}
}

/* An enum as a u8 that must lie in [min, max] when read. */
static void c_enum(struct codec *c, void *v, int min, int max)
{
	int x;
	uint8_t u;

	memcpy(&x, v, sizeof(x));
	u = (uint8_t) x;
	c_u8(c, &u);
	if (c->decode && !c->err) {
		if (u < min || u > max) {
			c->err = -EBADMSG;
			return;
		}
		x = u;
		memcpy(v, &x, sizeof(x));
	}
}

_Static_assert(sizeof(enum port_state) == sizeof(int), "c_enum handles int-sized enums");
_Static_assert(sizeof(enum bmca_decision) == sizeof(int), "c_enum handles int-sized enums");
_Static_assert(
	IPC_IGNORED_KINDS == _PORT_CNT_MAX - PORT_CNT_IGNORED_FIRST,
	"STATUS carries every ignored reason of the engine: a new one needs a new IPC_VERSION");
_Static_assert(sizeof(enum delay_mechanism) == sizeof(int), "int-sized enum");
_Static_assert(sizeof(enum options_clock_backend) == sizeof(int), "int-sized enum");
_Static_assert(sizeof(enum peer_policy_verdict) == sizeof(int), "int-sized enum");
_Static_assert(sizeof(enum port_uc_role) == sizeof(int), "int-sized enum");
_Static_assert(sizeof(enum port_uc_state) == sizeof(int), "int-sized enum");

/*
 * A fixed-size text field: NUL-padded when written; read, it must be NUL-padded too, so that a
 * valid message has exactly one encoding (the fuzz harness checks decode-encode is the identity).
 */
static void c_string(struct codec *c, char *s, size_t size)
{
	if (c->err) {
		return;
	}
	if (c->decode) {
		size_t n;

		c->err = wire_get_bytes(&c->r, s, size);
		if (c->err) {
			return;
		}
		n = strnlen(s, size);
		if (n == size) {
			c->err = -EBADMSG;
		}
		for (size_t i = n; i < size; i++) {
			if (s[i] != '\0') {
				c->err = -EBADMSG;
			}
		}
		return;
	}
	size_t n = strnlen(s, size - 1);

	c->err = wire_put_bytes(&c->w, s, n);
	if (!c->err) {
		c->err = wire_put_zeros(&c->w, size - n);
	}
}

/* A multicast MAC (the group bit set): the port joins it, as options_mac_from_string() admits. */
static void c_mac(struct codec *c, uint8_t mac[OPTIONS_MAC_LEN])
{
	if (c->err) {
		return;
	}
	c->err = c->decode ? wire_get_bytes(&c->r, mac, OPTIONS_MAC_LEN)
			   : wire_put_bytes(&c->w, mac, OPTIONS_MAC_LEN);
	if (!c->err && !(mac[0] & 0x01)) {
		c->err = -EBADMSG;
	}
}

/* A unicast peer's address: its family, then exactly the octets of that family. */
static void c_unicast_addr(struct codec *c, struct unicast_addr *a)
{
	static const uint8_t lens[] = {
		[UNICAST_FAMILY_L2] = 6, [UNICAST_FAMILY_IPV4] = 4, [UNICAST_FAMILY_IPV6] = 16
	};

	c_enum(c, &a->family, UNICAST_FAMILY_L2, UNICAST_FAMILY_IPV6);
	if (c->err) {
		return;
	}
	a->len = lens[a->family];
	c->err = c->decode ? wire_get_bytes(&c->r, a->bytes, a->len)
			   : wire_put_bytes(&c->w, a->bytes, a->len);
}

/* A port's [unicast_master_table]: only its n addresses travel (n 0: none). */
static void c_unicast_table(struct codec *c, struct unicast_master_table *t)
{
	c_i32(c, &t->table_id);
	c_i8(c, &t->logQueryInterval);
	c_u8(c, &t->n);
	c_bool(c, &t->has_peer);
	if (!c->err && (t->n > UNICAST_TABLE_ADDRS_MAX || t->table_id < 0 ||
			t->logQueryInterval < UNICAST_TABLE_LOG_QUERY_MIN ||
			t->logQueryInterval > UNICAST_TABLE_LOG_QUERY_MAX)) {
		c->err = -EBADMSG;
	}
	for (unsigned k = 0; !c->err && k < t->n; k++) {
		c_unicast_addr(c, &t->addr[k]);
	}
	if (t->has_peer) {
		c_unicast_addr(c, &t->peer_address);
	}
}

static void c_clock_identity(struct codec *c, struct ClockIdentity *v)
{
	if (!c->err) {
		c->err = c->decode ? wire_get_clock_identity(&c->r, v)
				   : wire_put_clock_identity(&c->w, v);
	}
}

static void c_port_identity(struct codec *c, struct PortIdentity *v)
{
	if (!c->err) {
		c->err = c->decode ? wire_get_port_identity(&c->r, v)
				   : wire_put_port_identity(&c->w, v);
	}
}

static void c_clock_quality(struct codec *c, struct ClockQuality *v)
{
	if (!c->err) {
		c->err = c->decode ? wire_get_clock_quality(&c->r, v)
				   : wire_put_clock_quality(&c->w, v);
	}
}

static void c_time_properties(struct codec *c, struct timePropertiesDS *tp)
{
	c_i16(c, &tp->currentUtcOffset);
	c_bool(c, &tp->currentUtcOffsetValid);
	c_bool(c, &tp->leap59);
	c_bool(c, &tp->leap61);
	c_bool(c, &tp->timeTraceable);
	c_bool(c, &tp->frequencyTraceable);
	c_bool(c, &tp->ptpTimescale);
	c_u8(c, &tp->timeSource);
}

/*
 * The servo state's wire encoding, mapped here and nowhere else: JUMP, a step on the way to
 * LOCKED, travels as unlocked, so a decoded STATUS never says JUMP.
 */
static void c_servo_state(struct codec *c, enum servo_state *v)
{
	uint8_t u = 0;

	if (!c->decode) {
		switch (*v) {
		case SERVO_UNLOCKED:
		case SERVO_JUMP:
			u = 0;
			break;
		case SERVO_LOCKED:
			u = 1;
			break;
		case SERVO_HOLDOVER:
			u = 2;
			break;
		}
	}
	c_u8(c, &u);
	if (!c->decode || c->err) {
		return;
	}
	switch (u) {
	case 0:
		*v = SERVO_UNLOCKED;
		break;
	case 1:
		*v = SERVO_LOCKED;
		break;
	case 2:
		*v = SERVO_HOLDOVER;
		break;
	default:
		c->err = -EBADMSG;
		break;
	}
}

static void f_hello(struct codec *c, struct ipc_msg *m)
{
	c_u16(c, &m->hello.protocol_version);
	c_i32(c, &m->hello.ifindex);
	c_i32(c, &m->hello.pid);
}

static void f_status(struct codec *c, struct ipc_msg *m)
{
	struct ipc_status *s = &m->status;

	c_enum(c, &s->port_state, PORT_STATE_MIN, PORT_STATE_MAX);
	c_servo_state(c, &s->servo_state);
	c_bool(c, &s->servo_stable);
	c_bool(c, &s->as_capable);
	c_i64(c, &s->offset_ns);
	c_i64(c, &s->mean_path_delay_ns);
	c_double(c, &s->freq_ppb);
	c_i64(c, &s->sample_ts);
	c_i64(c, &s->sample_mono);
	c_u32(c, &s->stats.count);
	c_i64(c, &s->stats.mean_ns);
	c_i64(c, &s->stats.rms_ns);
	c_i64(c, &s->stats.max_abs_ns);
	c_i64(c, &s->stats.window_ns);
	c_i64(c, &s->stats.end_mono);
	if (c->decode && !c->err && s->stats.end_mono &&
	    (s->stats.count == 0 || s->stats.rms_ns < 0 || s->stats.max_abs_ns < 0 ||
	     s->stats.window_ns <= 0)) {
		c->err = -EBADMSG;
	}
	if (c->decode && !c->err && !s->stats.end_mono &&
	    (s->stats.count || s->stats.mean_ns || s->stats.rms_ns || s->stats.max_abs_ns ||
	     s->stats.window_ns)) {
		c->err = -EBADMSG;
	}
	for (size_t i = 0; i < IPC_MSG_KINDS; i++) {
		c_u64(c, &s->rx[i]);
		c_u64(c, &s->tx[i]);
	}
	for (size_t i = 0; i < IPC_IGNORED_KINDS; i++) {
		c_u64(c, &s->ignored[i]);
	}
	c_u64(c, &s->mgmt_malformed);
	_Static_assert(IPC_UNICAST_KINDS == _PORT_UC_MAX, "one slot per unicast counter");
	for (size_t i = 0; i < IPC_UNICAST_KINDS; i++) {
		c_u64(c, &s->unicast[i]);
	}
	c_i32(c, &s->last_error);
	c_string(c, s->last_error_text, sizeof(s->last_error_text));
}

static void c_path_trace(struct codec *c, struct port_path_trace *pt)
{
	c_u8(c, &pt->n);
	c_bool(c, &pt->overflow);
	if (c->decode && !c->err && pt->n > PORT_PATH_TRACE_MAX) {
		c->err = -EBADMSG;
	}
	/* Fixed layout: every slot travels, the unused ones zero. */
	for (size_t i = 0; i < PORT_PATH_TRACE_MAX; i++) {
		c_clock_identity(c, &pt->ids[i]);
	}
}

static void f_erbest(struct codec *c, struct ipc_msg *m)
{
	struct ipc_erbest *e = &m->erbest;

	c_bool(c, &e->present);
	c_u8(c, &e->ds.priority1);
	c_clock_identity(c, &e->ds.identity);
	c_clock_quality(c, &e->ds.quality);
	c_u8(c, &e->ds.priority2);
	c_u16(c, &e->ds.stepsRemoved);
	/* 9.3.2.5 d): such an Announce never qualifies; the supervisor adds 1 to it (Table 30). */
	if (c->decode && !c->err && e->ds.stepsRemoved >= 255) {
		c->err = -EBADMSG;
	}
	c_port_identity(c, &e->ds.sender);
	c_port_identity(c, &e->ds.receiver);
	c_time_properties(c, &e->tp);
	c_path_trace(c, &e->path);
	c_u8(c, &e->ds.localPriority);
}

const struct ipc_range ipc_limits[_IPC_LIMIT_MAX] = {
	[IPC_LIMIT_RATE_PPB] = { -999999999.0, 999999999.0, false },
	[IPC_LIMIT_GM_RATE_RATIO] = { 1.0 - PORT_RATE_RATIO_MAX_DEVIATION,
				      1.0 + PORT_RATE_RATIO_MAX_DEVIATION, true },
};

bool ipc_limit_ok(enum ipc_limit l, double v)
{
	const struct ipc_range *r = &ipc_limits[l];

	/* NaN fails both comparisons. */
	return (v >= r->min && v <= r->max) || (r->zero_ok && v == 0.0);
}

double ipc_limit_clamp(enum ipc_limit l, double v)
{
	const struct ipc_range *r = &ipc_limits[l];

	if (isnan(v)) {
		return r->zero_ok ? 0.0 : (r->min + r->max) / 2;
	}
	return ipc_limit_ok(l, v) ? v : v < r->min ? r->min : r->max;
}

static void c_limited(struct codec *c, double *v, enum ipc_limit l)
{
	c_double(c, v);
	if (c->decode && !c->err && !ipc_limit_ok(l, *v)) {
		c->err = -EBADMSG;
	}
}

static void f_clock_state(struct codec *c, struct ipc_msg *m)
{
	struct ipc_clock_state *s = &m->clock_state;

	c_i64(c, &s->raw_ns);
	c_i64(c, &s->local_ns);
	c_limited(c, &s->rate_ppb, IPC_LIMIT_RATE_PPB);
	c_limited(c, &s->gm_rate_ratio, IPC_LIMIT_GM_RATE_RATIO);
}

/* octet 1 of flagField a grandmaster setting may carry (options_set_gm_settings()) */
#define GM_FLAGS                                                                   \
	(MSG_FLAG_LEAP_61 | MSG_FLAG_LEAP_59 | MSG_FLAG_CURRENT_UTC_OFFSET_VALID | \
	 MSG_FLAG_TIME_TRACEABLE | MSG_FLAG_FREQUENCY_TRACEABLE)

static void c_gm_flags(struct codec *c, uint8_t *flags)
{
	c_u8(c, flags);
	if (c->decode && !c->err && (*flags & ~GM_FLAGS)) {
		c->err = -EBADMSG;
	}
}

static void f_config(struct codec *c, struct ipc_msg *m)
{
	struct instance_options *i = &m->config.instance;
	struct port_options *p = &m->config.port;

	c_string(c, m->config.ifname, sizeof(m->config.ifname));
	c_clock_identity(c, &m->config.clock_identity);
	c_u16(c, &m->config.port_number);
	c_bool(c, &m->config.clock_locked_before);
	if (c->decode && !c->err &&
	    (m->config.port_number == 0 || m->config.port_number == 0xffff)) {
		c->err = -EBADMSG;
	}
	c_string(c, i->name, sizeof(i->name));
	c_u8(c, &i->domainNumber);
	c_u8(c, &i->priority1);
	c_u8(c, &i->priority2);
	c_u8(c, &i->clockClass);
	c_u8(c, &i->clockAccuracy);
	c_u16(c, &i->offsetScaledLogVariance);
	c_bool(c, &i->slaveOnly);
	c_bool(c, &i->twoStepFlag);
	c_i16(c, &i->utc_offset);
	c_u8(c, &i->timeSource);
	c_enum(c, &i->clock_backend, OPTIONS_CLOCK_PHC, OPTIONS_CLOCK_FREE_RUNNING);
	c_enum(c, &i->servo.clock_servo, SERVO_TYPE_PI, SERVO_TYPE_REFCLOCK_SOCK);
	c_double(c, &i->servo.pi_proportional_const);
	c_double(c, &i->servo.pi_integral_const);
	c_double(c, &i->servo.step_threshold);
	c_double(c, &i->servo.first_step_threshold);
	c_double(c, &i->servo.max_offset_jump);
	c_i32(c, &i->servo.max_frequency);
	c_i32(c, &i->servo.servo_offset_threshold);
	c_i32(c, &i->servo.servo_num_offset_values);
	c_i64(c, &i->virtual_clock.initial_offset_ns);
	c_i32(c, &i->virtual_clock.initial_freq_ppb);
	c_string(c, i->userDescription, sizeof(i->userDescription));
	c_enum(c, &i->management_network, OPTIONS_MGMT_NETWORK_READ_ONLY, OPTIONS_MGMT_NETWORK_OFF);
	c_bool(c, &i->gmCapable);
	c_enum(c, &i->dataset_comparison, BMCA_COMPARISON_IEEE1588, BMCA_COMPARISON_G8275);
	c_u8(c, &i->localPriority);
	c_u8(c, &i->maxStepsRemoved);
	c_u8(c, &i->clock_class_threshold);
	c_gm_flags(c, &i->gm_time_flags);

	c_i8(c, &p->logAnnounceInterval);
	c_i8(c, &p->logSyncInterval);
	c_i8(c, &p->logMinDelayReqInterval);
	c_i8(c, &p->logMinPdelayReqInterval);
	c_u8(c, &p->announceReceiptTimeout);
	c_u8(c, &p->syncReceiptTimeout);
	c_enum(c, &p->delay_mechanism, DELAY_MECHANISM_E2E, DELAY_MECHANISM_P2P);
	c_enum(c, &p->network_transport, OPTIONS_TRANSPORT_L2, OPTIONS_TRANSPORT_UDPV6);
	c_enum(c, &p->time_stamping, OPTIONS_TS_HARDWARE, OPTIONS_TS_AUTO);
	c_i32(c, &p->tx_timestamp_timeout);
	c_bool(c, &p->masterOnly);
	c_i32(c, &p->neighborPropDelayThresh);
	c_i32(c, &p->delayAsymmetry);
	c_i8(c, &p->fault_reset_interval);
	c_i8(c, &p->summary_interval);
	if (c->decode && !c->err &&
	    (p->summary_interval < OPTIONS_SUMMARY_INTERVAL_MIN ||
	     p->summary_interval > OPTIONS_SUMMARY_INTERVAL_MAX)) {
		c->err = -EBADMSG;
	}
	c_bool(c, &p->follow_up_info);
	c_u8(c, &p->transportSpecific);
	if (!c->err && p->transportSpecific > 0x0f) {
		c->err = -EBADMSG; /* 4 bits on the wire */
	}
	c_u8(c, &p->acceptable_masters.n);
	if (!c->err && p->acceptable_masters.n > OPTIONS_ACCEPTABLE_MASTERS_MAX) {
		c->err = -EBADMSG;
	}
	for (unsigned int k = 0; !c->err && k < OPTIONS_ACCEPTABLE_MASTERS_MAX; k++) {
		c_clock_identity(c, &p->acceptable_masters.id[k]);
	}
	c_bool(c, &p->path_trace_enabled);
	c_i32(c, &p->min_neighbor_prop_delay);
	c_enum(c, &p->asCapable, OPTIONS_AS_CAPABLE_AUTO, OPTIONS_AS_CAPABLE_TRUE);
	c_enum(c, &p->BMCA, OPTIONS_BMCA_PTP, OPTIONS_BMCA_NOOP);
	c_bool(c, &p->inhibit_announce);
	c_bool(c, &p->inhibit_delay_req);
	c_bool(c, &p->ignore_source_id);
	c_i8(c, &p->operLogSyncInterval);
	c_i8(c, &p->operLogPdelayReqInterval);
	c_bool(c, &p->msg_interval_request);
	c_mac(c, p->ptp_dst_mac);
	c_mac(c, p->p2p_dst_mac);
	c_u8(c, &p->localPriority);
	c_bool(c, &p->assume_two_step);
	c_i32(c, &p->ingressLatency);
	c_i32(c, &p->egressLatency);
	c_enum(c, &p->power_profile.version, OPTIONS_POWER_PROFILE_NONE,
	       OPTIONS_POWER_PROFILE_2017);
	c_u16(c, &p->power_profile.grandmasterID);
	c_i32(c, &p->power_profile.grandmasterTimeInaccuracy);
	c_i32(c, &p->power_profile.networkTimeInaccuracy);
	c_i32(c, &p->power_profile.totalTimeInaccuracy);
	c_u8(c, &p->socket_priority);
	if (!c->err && p->socket_priority > 15) {
		c->err = -EBADMSG;
	}
	c_u8(c, &p->udp_ttl);
	c_u8(c, &p->udp6_scope);
	c_u8(c, &p->dscp_event);
	c_u8(c, &p->dscp_general);
	if (!c->err && (p->udp_ttl < 1 || p->udp6_scope < 1 || p->udp6_scope > 0xf ||
			p->dscp_event > 63 || p->dscp_general > 63)) {
		c->err = -EBADMSG;
	}
	c_bool(c, &p->unicast_listen);
	c_i32(c, &p->unicast_master_table);
	c_unicast_table(c, &p->unicast_table);
	c_i32(c, &p->unicast_req_duration);
	c_bool(c, &p->inhibit_multicast_service);
	c_bool(c, &p->hybrid_e2e);
	c_u8(c, &p->unicast_peers_max);
	if (!c->err &&
	    (p->unicast_master_table < 0 || p->unicast_req_duration < 10 ||
	     p->unicast_peers_max < 1 || p->unicast_peers_max > OPTIONS_UNICAST_PEERS_MAX)) {
		c->err = -EBADMSG;
	}
}

static void f_recommended_state(struct codec *c, struct ipc_msg *m)
{
	struct ipc_recommended_state *s = &m->recommended_state;

	c_enum(c, &s->decision, BMCA_DECISION_M1, BMCA_DECISION_LISTENING);
	c_u16(c, &s->stepsRemoved);
	c_port_identity(c, &s->parent.parentPortIdentity);
	c_bool(c, &s->parent.parentStats);
	c_u16(c, &s->parent.observedParentOffsetScaledLogVariance);
	c_i32(c, &s->parent.observedParentClockPhaseChangeRate);
	c_clock_identity(c, &s->parent.grandmasterIdentity);
	c_clock_quality(c, &s->parent.grandmasterClockQuality);
	c_u8(c, &s->parent.grandmasterPriority1);
	c_u8(c, &s->parent.grandmasterPriority2);
	c_time_properties(c, &s->tp);
	c_path_trace(c, &s->path);
}

static void f_set_priority(struct codec *c, struct ipc_msg *m)
{
	c_u8(c, &m->set_priority.priority1);
	c_u8(c, &m->set_priority.priority2);
}

static void f_gm_settings(struct codec *c, struct ipc_msg *m)
{
	struct gm_settings *s = &m->gm_settings;
	uint8_t flags = 0;

	if (!c->decode) {
		flags = (uint8_t) (ds_time_properties_flags(&s->tp) & GM_FLAGS);
	} else {
		memset(&s->tp, 0, sizeof(s->tp));
	}
	c_clock_quality(c, &s->clockQuality);
	c_i16(c, &s->tp.currentUtcOffset);
	c_gm_flags(c, &flags);
	c_u8(c, &s->tp.timeSource);
	if (c->decode && !c->err) {
		ds_time_properties_set_flags(&s->tp, flags);
	}
}

static void f_shutdown(struct codec *c, struct ipc_msg *m)
{
}

/*
 * An IPv4 or IPv6 address, zero-padded to PEER_ADDR_MAX (the padding must be zero: one encoding
 * per message), with a scope only for an IPv6 one. What the address may be is the policy's.
 */
static void c_peer_addr(struct codec *c, struct peer_addr *a)
{
	c_u8(c, &a->len);
	if (!c->err && a->len != 4 && a->len != 16) {
		c->err = -EBADMSG;
	}
	if (!c->err) {
		c->err = c->decode ? wire_get_bytes(&c->r, a->bytes, sizeof(a->bytes))
				   : wire_put_bytes(&c->w, a->bytes, sizeof(a->bytes));
	}
	c_u32(c, &a->scope_id);
	if (c->err || !c->decode) {
		return;
	}
	for (size_t k = a->len; k < sizeof(a->bytes); k++) {
		if (a->bytes[k]) {
			c->err = -EBADMSG;
		}
	}
	if (a->len == 4 && a->scope_id != 0) {
		c->err = -EBADMSG;
	}
}

static void f_peer(struct codec *c, struct ipc_msg *m)
{
	c_peer_addr(c, &m->peer);
}

static void f_peer_sockets(struct codec *c, struct ipc_msg *m)
{
	struct ipc_peer_sockets *s = &m->peer_sockets;

	c_peer_addr(c, &s->peer);
	c_enum(c, &s->verdict, PEER_POLICY_GRANTED, _PEER_POLICY_MAX - 1);
	c_i32(c, &s->error);
	if (!c->err && (s->error > 0 || (s->error != 0 && s->verdict == PEER_POLICY_GRANTED))) {
		c->err = -EBADMSG;
	}
}

/*
 * One peer of the unicast table: what the port may hold, and nothing else. A period outside the
 * TLVs' range, time left of a flow not granted, or more time than a duration can hold is refused.
 */
static void c_uc_entry(struct codec *c, struct port_uc_entry *e)
{
	c_unicast_addr(c, &e->addr);
	c_enum(c, &e->role, PORT_UC_GRANTEE, _PORT_UC_ROLE_MAX - 1);
	for (int k = 0; k < UNICAST_MT_N; k++) {
		struct port_uc_grant *g = &e->mt[k];

		c_enum(c, &g->state, PORT_UC_NONE, _PORT_UC_STATE_MAX - 1);
		c_i8(c, &g->log_period);
		c_u32(c, &g->seconds_left);
		if (!c->err &&
		    (g->log_period < UNICAST_TLV_LOG_PERIOD_MIN ||
		     g->log_period > UNICAST_TLV_LOG_PERIOD_MAX || g->seconds_left > INT32_MAX ||
		     (g->seconds_left && g->state != PORT_UC_GRANTED))) {
			c->err = -EBADMSG;
		}
	}
}

static void f_unicast_table(struct codec *c, struct ipc_msg *m)
{
	struct ipc_unicast_table *t = &m->unicast_table;

	c_u16(c, &t->total);
	c_u8(c, &t->n);
	if (!c->err && (t->n > IPC_UNICAST_TABLE_MAX || t->n > t->total)) {
		c->err = -EBADMSG;
	}
	for (unsigned k = 0; !c->err && k < t->n; k++) {
		c_uc_entry(c, &t->e[k]);
	}
}

struct ipc_type_info {
	enum ipc_type type;
	const char *name;
	bool from_worker;
	void (*fields)(struct codec *c, struct ipc_msg *m);
};

static const struct ipc_type_info types[] = {
	{ IPC_HELLO, "HELLO", true, f_hello },
	{ IPC_STATUS, "STATUS", true, f_status },
	{ IPC_ERBEST, "ERBEST", true, f_erbest },
	{ IPC_PRIORITY_REQUEST, "PRIORITY_REQUEST", true, f_set_priority },
	{ IPC_CLOCK_STATE, "CLOCK_STATE", true, f_clock_state },
	{ IPC_GM_SETTINGS_REQUEST, "GM_SETTINGS_REQUEST", true, f_gm_settings },
	{ IPC_PEER_REQUEST, "PEER_REQUEST", true, f_peer },
	{ IPC_PEER_RELEASE, "PEER_RELEASE", true, f_peer },
	{ IPC_UNICAST_TABLE, "UNICAST_TABLE", true, f_unicast_table },
	{ IPC_CONFIG, "CONFIG", false, f_config },
	{ IPC_RECOMMENDED_STATE, "RECOMMENDED_STATE", false, f_recommended_state },
	{ IPC_SET_PRIORITY, "SET_PRIORITY", false, f_set_priority },
	{ IPC_SHUTDOWN, "SHUTDOWN", false, f_shutdown },
	{ IPC_SET_CLOCK_STATE, "SET_CLOCK_STATE", false, f_clock_state },
	{ IPC_SET_GM_SETTINGS, "SET_GM_SETTINGS", false, f_gm_settings },
	{ IPC_PEER_SOCKETS, "PEER_SOCKETS", false, f_peer_sockets },
};

static const struct ipc_type_info *type_info(unsigned int t)
{
	for (size_t i = 0; i < ARRAY_SIZE(types); i++) {
		if ((unsigned int) types[i].type == t) {
			return &types[i];
		}
	}
	return NULL;
}

const char *ipc_type_to_string(enum ipc_type t)
{
	const struct ipc_type_info *ti = type_info(t);

	return ti ? ti->name : NULL;
}

bool ipc_type_from_worker(enum ipc_type t)
{
	const struct ipc_type_info *ti = type_info(t);

	return ti && ti->from_worker;
}

int ipc_encode(const struct ipc_msg *m, void *buf, size_t size, size_t *ret_len)
{
	const struct ipc_type_info *ti = type_info(m->type);
	struct codec c = { .decode = false };
	int r;

	if (!ti) {
		return -EINVAL;
	}
	wire_writer_init(&c.w, buf, size);
	r = wire_put_u16(&c.w, (uint16_t) m->type);
	if (r == 0) {
		r = wire_put_u16(&c.w, IPC_VERSION);
	}
	if (r == 0) {
		r = wire_put_u32(&c.w, 0); /* length, patched below */
	}
	if (r < 0) {
		return r;
	}
	/* The field list takes a mutable message because decoding shares it; encode only reads. */
	ti->fields(&c, (struct ipc_msg *) m);
	if (c.err) {
		return c.err;
	}
	/* wire.h patches u16 only: write the u32 length as two halves. */
	r = wire_patch_u16(&c.w, 4, (uint16_t) ((c.w.pos - IPC_HEADER_SIZE) >> 16));
	if (r == 0) {
		r = wire_patch_u16(&c.w, 6, (uint16_t) (c.w.pos - IPC_HEADER_SIZE));
	}
	if (r < 0) {
		return r;
	}
	*ret_len = c.w.pos;
	return 0;
}

int ipc_decode(const void *buf, size_t len, struct ipc_msg *ret)
{
	const struct ipc_type_info *ti;
	struct codec c = { .decode = true };
	uint16_t type, version;
	uint32_t length;

	wire_reader_init(&c.r, buf, len);
	if (wire_get_u16(&c.r, &type) < 0 || wire_get_u16(&c.r, &version) < 0 ||
	    wire_get_u32(&c.r, &length) < 0) {
		return -EBADMSG;
	}
	ti = type_info(type);
	if (!ti || version != IPC_VERSION || length != len - IPC_HEADER_SIZE) {
		return -EBADMSG;
	}
	/* In place: no second 2.5 kB message on a worker's stack, no copy of it per message. */
	memset(ret, 0, sizeof(*ret));
	ret->type = ti->type;
	ti->fields(&c, ret);
	/* Exact length: every payload byte consumed, none missing. */
	return c.err || wire_reader_left(&c.r) != 0 ? -EBADMSG : 0;
}

static void close_fds(int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (fds[i] >= 0) {
			close(fds[i]);
			fds[i] = -1;
		}
	}
}

int ipc_send(int sock, const struct ipc_msg *m, const int *fds, size_t n_fds)
{
	uint8_t buf[IPC_MAX_SIZE];
	union {
		struct cmsghdr h;
		uint8_t b[CMSG_SPACE(sizeof(int) * IPC_MAX_FDS)];
	} control;
	struct iovec iov;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	size_t len;
	ssize_t n;
	int r;

	if (n_fds > IPC_MAX_FDS) {
		return -EINVAL;
	}
	r = ipc_encode(m, buf, sizeof(buf), &len);
	if (r < 0) {
		return r;
	}
	iov.iov_base = buf;
	iov.iov_len = len;
	if (n_fds > 0) {
		struct cmsghdr *cm;

		memset(&control, 0, sizeof(control));
		mh.msg_control = control.b;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * n_fds);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * n_fds);
		memcpy(CMSG_DATA(cm), fds, sizeof(int) * n_fds);
	}
	/*
	 * Without fds, no msghdr: a worker's seccomp filter refuses sendmsg() (its address cannot
	 * be checked there) and lets sendto() through only without one (worker/sandbox.c).
	 */
	n = n_fds > 0 ? sendmsg(sock, &mh, MSG_NOSIGNAL)
		      : sendto(sock, buf, len, MSG_NOSIGNAL, NULL, 0);
	if (n < 0) {
		return -errno;
	}
	/* SOCK_SEQPACKET sends a datagram whole or not at all. */
	return (size_t) n == len ? 0 : -EIO;
}

int ipc_recv(int sock, struct ipc_msg *ret, int *fds, size_t max_fds, size_t *ret_n_fds)
{
	/* One byte more than any valid message, so an oversized one shows as MSG_TRUNC or length.
	 */
	uint8_t buf[IPC_MAX_SIZE + 1];
	union {
		struct cmsghdr h;
		uint8_t b[CMSG_SPACE(sizeof(int) * IPC_MAX_FDS)];
	} control;
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = control.b,
		.msg_controllen = sizeof(control.b),
	};
	int got[IPC_MAX_FDS];
	size_t n_got = 0;
	struct cmsghdr *cm;
	ssize_t n;
	int r;

	n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	if (n < 0) {
		return -errno;
	}
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
			size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);

			for (size_t i = 0; i < k; i++) {
				int fd;

				memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
				if (n_got < IPC_MAX_FDS) {
					got[n_got++] = fd;
				} else {
					close(fd);
				}
			}
		}
	}
	if (n == 0) {
		close_fds(got, n_got);
		return -ECONNRESET;
	}
	r = 0;
	if ((mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || n_got > max_fds) {
		r = -EBADMSG;
	}
	if (r == 0) {
		r = ipc_decode(buf, (size_t) n, ret);
	}
	if (r < 0) {
		close_fds(got, n_got);
		return r;
	}
	if (n_got > 0) {
		memcpy(fds, got, n_got * sizeof(int));
	}
	if (ret_n_fds) {
		*ret_n_fds = n_got;
	}
	return 0;
}
