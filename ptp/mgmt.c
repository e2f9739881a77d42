// SPDX-License-Identifier: GPL-2.0-or-later
/* IEEE 1588-2019 clause 15 management: answer GET/SET requests from a snapshot of the data sets. */
#include <errno.h>
#include <string.h>

#include "ptp/mgmt.h"
#include "ptp/tlv.h"
#include "ptp/util.h"
#include "ptp/wire.h"

/* 15.3.1: clock-level ids are answered once per clock, port-level ones once per target port. */
enum mgmt_scope {
	SCOPE_CLOCK,
	SCOPE_PORT,
};

/* Write one id's dataField for the clock c (and the port p for port-level ids). */
typedef int (*mgmt_get_fn)(struct wire_writer *w, const struct mgmt_clock *c,
			   const struct mgmt_port *p);

/* The longest name, EXTERNAL_PORT_CONFIGURATION_ENABLED, and its NUL fit (checked by entry). */
#define MGMT_NAME_MAX 40

/*
 * No pointer in it: the name within, the GET by its number in getters[] (below). A table of
 * pointers is relocated data, which each worker copies on write: this one was 2 kB of the
 * worker's RELRO segment, which now fits one page (docs/performance.md, footprint).
 */
struct mgmt_entry {
	char name[MGMT_NAME_MAX];
	unsigned set_bit; /* MGMT_CHANGE_*: SET is supported; 0: NOT_SUPPORTED */
	uint16_t id;
	uint16_t get_max; /* longest dataField a GET may carry (pmc sends a zeroed layout) */
	uint8_t scope;	  /* enum mgmt_scope */
	uint8_t get;	  /* GET_*, an index of getters[]; GET_NULL: GET is NOT_SUPPORTED */
	bool get_only;	  /* 15.5.2.3 Table 59: no SET in the standard (NOT_SETABLE) */
};

/* linuxptp's struct management_tlv_datum: one value octet and one reserved octet. */
#define DATUM_LEN 2
/* A PTPText of up to 255 octets plus its length octet and a pad octet. */
#define TEXT_MAX (1 + 255 + 1)

/* linuxptp ddt.h defaultDS flags. */
#define DDS_TWO_STEP_FLAG (1u << 0)
#define DDS_SLAVE_ONLY (1u << 1)

static int put_text(struct wire_writer *w, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	int r;

	if (n > 255) {
		n = 255;
	}
	r = wire_put_u8(w, (uint8_t) n);
	return r < 0 ? r : wire_put_bytes(w, s, n);
}

static int put_datum(struct wire_writer *w, uint8_t v)
{
	int r = wire_put_u8(w, v);

	return r < 0 ? r : wire_put_u8(w, 0);
}

static int put_time_interval(struct wire_writer *w, ns_t ns)
{
	return wire_put_u64(w, (uint64_t) ns_to_correction(ns));
}

/* Stop at the first field that does not fit (-EMSGSIZE) or cannot be encoded. */
#define PUT(expr)                   \
	do {                        \
		int _r_ = (expr);   \
		if (_r_ < 0) {      \
			return _r_; \
		}                   \
	} while (0)

/* 15.5.3.1.2 USER_DESCRIPTION (clock-level). */
static int get_user_description(struct wire_writer *w, const struct mgmt_clock *c,
				const struct mgmt_port *p)
{
	return put_text(w, c->user_description);
}

/* 15.5.3.3.1, linuxptp struct defaultDS: flags, reserved, numberPorts, priority1, clockQuality,
 * priority2, clockIdentity, domainNumber, reserved. */
static int get_default_ds(struct wire_writer *w, const struct mgmt_clock *c,
			  const struct mgmt_port *p)
{
	const struct defaultDS *d = &c->dds;
	uint8_t flags = (d->twoStepFlag ? DDS_TWO_STEP_FLAG : 0) |
			(d->slaveOnly ? DDS_SLAVE_ONLY : 0);

	PUT(wire_put_u8(w, flags));
	PUT(wire_put_u8(w, 0));
	PUT(wire_put_u16(w, d->numberPorts));
	PUT(wire_put_u8(w, d->priority1));
	PUT(wire_put_clock_quality(w, &d->clockQuality));
	PUT(wire_put_u8(w, d->priority2));
	PUT(wire_put_clock_identity(w, &d->clockIdentity));
	PUT(wire_put_u8(w, d->domainNumber));
	return wire_put_u8(w, 0);
}

/* 15.5.3.4.1: stepsRemoved, offsetFromMaster, meanPathDelay (TimeIntervals). */
static int get_current_ds(struct wire_writer *w, const struct mgmt_clock *c,
			  const struct mgmt_port *p)
{
	PUT(wire_put_u16(w, c->cds.stepsRemoved));
	PUT(put_time_interval(w, c->cds.offsetFromMaster));
	return put_time_interval(w, c->cds.meanDelay);
}

/* 15.5.3.5.1 */
static int get_parent_ds(struct wire_writer *w, const struct mgmt_clock *c,
			 const struct mgmt_port *p)
{
	const struct parentDS *d = &c->pds;

	PUT(wire_put_port_identity(w, &d->parentPortIdentity));
	PUT(wire_put_u8(w, d->parentStats ? 1 : 0));
	PUT(wire_put_u8(w, 0));
	PUT(wire_put_u16(w, d->observedParentOffsetScaledLogVariance));
	PUT(wire_put_u32(w, (uint32_t) d->observedParentClockPhaseChangeRate));
	PUT(wire_put_u8(w, d->grandmasterPriority1));
	PUT(wire_put_clock_quality(w, &d->grandmasterClockQuality));
	PUT(wire_put_u8(w, d->grandmasterPriority2));
	return wire_put_clock_identity(w, &d->grandmasterIdentity);
}

/* 15.5.3.6.1: currentUtcOffset, the flags of 13.3.2.8 octet 1, timeSource. */
static int get_time_properties_ds(struct wire_writer *w, const struct mgmt_clock *c,
				  const struct mgmt_port *p)
{
	PUT(wire_put_u16(w, (uint16_t) c->tpds.currentUtcOffset));
	PUT(wire_put_u8(w, (uint8_t) ds_time_properties_flags(&c->tpds)));
	return wire_put_u8(w, c->tpds.timeSource);
}

/* 15.5.3.7.1, linuxptp struct portDS (versionNumber without the minor version). */
static int get_port_ds(struct wire_writer *w, const struct mgmt_clock *c, const struct mgmt_port *p)
{
	const struct portDS *d = &p->ds;

	PUT(wire_put_port_identity(w, &d->portIdentity));
	PUT(wire_put_u8(w, (uint8_t) d->portState));
	PUT(wire_put_u8(w, (uint8_t) d->logMinDelayReqInterval));
	PUT(put_time_interval(w, d->meanLinkDelay));
	PUT(wire_put_u8(w, (uint8_t) d->logAnnounceInterval));
	PUT(wire_put_u8(w, d->announceReceiptTimeout));
	PUT(wire_put_u8(w, (uint8_t) d->logSyncInterval));
	PUT(wire_put_u8(w, (uint8_t) d->delayMechanism));
	PUT(wire_put_u8(w, (uint8_t) d->logMinPdelayReqInterval));
	return wire_put_u8(w, d->versionNumber & 0x0f);
}

static int get_priority1(struct wire_writer *w, const struct mgmt_clock *c,
			 const struct mgmt_port *p)
{
	return put_datum(w, c->dds.priority1);
}

static int get_priority2(struct wire_writer *w, const struct mgmt_clock *c,
			 const struct mgmt_port *p)
{
	return put_datum(w, c->dds.priority2);
}

static int get_domain(struct wire_writer *w, const struct mgmt_clock *c, const struct mgmt_port *p)
{
	return put_datum(w, c->dds.domainNumber);
}

/*
 * The SLAVE_ONLY TLV carries SO in bit 0 (1588-2019 15.5.3.3.5), as linuxptp 4.2 sends it.
 * linuxptp 3.1 sent its DEFAULT_DATA_SET bit (bit 1) here, and pmc 3.1.1 reads only that bit: it
 * shows 0 for this answer (docs/management.md).
 */
static int get_slave_only(struct wire_writer *w, const struct mgmt_clock *c,
			  const struct mgmt_port *p)
{
	return put_datum(w, c->dds.slaveOnly ? 1 : 0);
}

static int get_clock_accuracy(struct wire_writer *w, const struct mgmt_clock *c,
			      const struct mgmt_port *p)
{
	return put_datum(w, c->dds.clockQuality.clockAccuracy);
}

static int get_log_announce_interval(struct wire_writer *w, const struct mgmt_clock *c,
				     const struct mgmt_port *p)
{
	return put_datum(w, (uint8_t) p->ds.logAnnounceInterval);
}

static int get_announce_receipt_timeout(struct wire_writer *w, const struct mgmt_clock *c,
					const struct mgmt_port *p)
{
	return put_datum(w, p->ds.announceReceiptTimeout);
}

static int get_log_sync_interval(struct wire_writer *w, const struct mgmt_clock *c,
				 const struct mgmt_port *p)
{
	return put_datum(w, (uint8_t) p->ds.logSyncInterval);
}

static int get_version_number(struct wire_writer *w, const struct mgmt_clock *c,
			      const struct mgmt_port *p)
{
	return put_datum(w, p->ds.versionNumber & 0x0f);
}

static int get_delay_mechanism(struct wire_writer *w, const struct mgmt_clock *c,
			       const struct mgmt_port *p)
{
	return put_datum(w, (uint8_t) p->ds.delayMechanism);
}

static int get_log_min_pdelay_req_interval(struct wire_writer *w, const struct mgmt_clock *c,
					   const struct mgmt_port *p)
{
	return put_datum(w, (uint8_t) p->ds.logMinPdelayReqInterval);
}

/*
 * linuxptp struct time_status_np: master_offset and ingress_time (plain ns), the 802.1AS
 * Follow_Up information (zero: not an 802.1AS port), gmPresent, gmIdentity.
 */
static int get_time_status_np(struct wire_writer *w, const struct mgmt_clock *c,
			      const struct mgmt_port *p)
{
	bool gm_present = !clock_identity_equal(&c->pds.grandmasterIdentity, &c->dds.clockIdentity);

	PUT(wire_put_u64(w, (uint64_t) c->cds.offsetFromMaster));
	PUT(wire_put_u64(w, (uint64_t) c->ingress_time));
	PUT(wire_put_u32(w, 0));    /* cumulativeScaledRateOffset */
	PUT(wire_put_u32(w, 0));    /* scaledLastGmPhaseChange */
	PUT(wire_put_u16(w, 0));    /* gmTimeBaseIndicator */
	PUT(wire_put_zeros(w, 12)); /* lastGmPhaseChange (ScaledNs) */
	PUT(wire_put_u32(w, gm_present ? 1 : 0));
	return wire_put_clock_identity(w, &c->pds.grandmasterIdentity);
}

/*
 * linuxptp struct grandmaster_settings_np: clockQuality, utc_offset, time_flags (octet 1 of
 * flagField, 13.3.2.8), time_source.
 */
#define GM_SETTINGS_LEN 8

static int get_grandmaster_settings_np(struct wire_writer *w, const struct mgmt_clock *c,
				       const struct mgmt_port *p)
{
	PUT(wire_put_clock_quality(w, &c->gm.clockQuality));
	PUT(wire_put_u16(w, (uint16_t) c->gm.tp.currentUtcOffset));
	PUT(wire_put_u8(w, (uint8_t) ds_time_properties_flags(&c->gm.tp)));
	return wire_put_u8(w, c->gm.tp.timeSource);
}

/* The settings a SET carries; ptpTimescale stays the clock's (its timestamping decides it). */
static int parse_grandmaster_settings_np(const uint8_t *data, size_t len, bool ptp_timescale,
					 struct gm_settings *ret)
{
	struct wire_reader r;
	uint16_t utc;
	uint8_t flags;

	wire_reader_init(&r, data, len);
	if (wire_get_clock_quality(&r, &ret->clockQuality) < 0 || wire_get_u16(&r, &utc) < 0 ||
	    wire_get_u8(&r, &flags) < 0 || wire_get_u8(&r, &ret->tp.timeSource) < 0) {
		return -EBADMSG;
	}
	ret->tp.currentUtcOffset = (int16_t) utc;
	ds_time_properties_set_flags(&ret->tp, flags);
	ret->tp.ptpTimescale = ptp_timescale;
	return 0;
}

/* linuxptp struct port_properties_np: portIdentity, port_state, timestamping, interface. */
static int get_port_properties_np(struct wire_writer *w, const struct mgmt_clock *c,
				  const struct mgmt_port *p)
{
	PUT(wire_put_port_identity(w, &p->ds.portIdentity));
	PUT(wire_put_u8(w, (uint8_t) p->ds.portState));
	PUT(wire_put_u8(w, (uint8_t) p->timestamping));
	return put_text(w, p->ifname);
}

/* linuxptp: the TIME_TRACEABLE and FREQ_TRACEABLE bits of flagField octet 1 in a datum. */
static int get_traceability_properties(struct wire_writer *w, const struct mgmt_clock *c,
				       const struct mgmt_port *p)
{
	return put_datum(w, (uint8_t) (ds_time_properties_flags(&c->tpds) &
				       (MSG_FLAG_TIME_TRACEABLE | MSG_FLAG_FREQUENCY_TRACEABLE)));
}

/* linuxptp: the PTP_TIMESCALE bit of flagField octet 1 in a datum. */
static int get_timescale_properties(struct wire_writer *w, const struct mgmt_clock *c,
				    const struct mgmt_port *p)
{
	return put_datum(w,
			 (uint8_t) (ds_time_properties_flags(&c->tpds) & MSG_FLAG_PTP_TIMESCALE));
}

static int get_master_only(struct wire_writer *w, const struct mgmt_clock *c,
			   const struct mgmt_port *p)
{
	return put_datum(w, p->masterOnly ? 1 : 0);
}

/*
 * linuxptp struct port_stats_np: portIdentity, then received and sent messages per messageType,
 * 16 of each, as 64-bit little-endian numbers (linuxptp's choice for this id).
 */
#define PORT_STATS_LEN (10 + 2 * 16 * 8)

static int put_le64(struct wire_writer *w, uint64_t v)
{
	uint8_t b[8];

	for (int i = 0; i < 8; i++) {
		b[i] = (uint8_t) (v >> (8 * i));
	}
	return wire_put_bytes(w, b, sizeof(b));
}

static int get_port_stats_np(struct wire_writer *w, const struct mgmt_clock *c,
			     const struct mgmt_port *p)
{
	PUT(wire_put_port_identity(w, &p->ds.portIdentity));
	for (int i = 0; i < 16; i++) {
		PUT(put_le64(w, p->rx[i]));
	}
	for (int i = 0; i < 16; i++) {
		PUT(put_le64(w, p->tx[i]));
	}
	return 0;
}

/*
 * linuxptp struct ieee_c37_238_settings_np: version (0 none, 1 2011, 2 2017), grandmasterID,
 * grandmasterTimeInaccuracy, networkTimeInaccuracy, totalTimeInaccuracy.
 */
#define POWER_PROFILE_SETTINGS_LEN 16

static int get_power_profile_settings_np(struct wire_writer *w, const struct mgmt_clock *c,
					 const struct mgmt_port *p)
{
	const struct power_profile_options *pp = &p->power_profile;
	uint16_t version = pp->version == OPTIONS_POWER_PROFILE_2011   ? 1
			   : pp->version == OPTIONS_POWER_PROFILE_2017 ? 2
								       : 0;

	PUT(wire_put_u16(w, version));
	PUT(wire_put_u16(w, pp->grandmasterID));
	PUT(wire_put_u32(w, (uint32_t) pp->grandmasterTimeInaccuracy));
	PUT(wire_put_u32(w, (uint32_t) pp->networkTimeInaccuracy));
	return wire_put_u32(w, (uint32_t) pp->totalTimeInaccuracy);
}

/* Every GET served, numbered: getters[GET_fn] is fn. */
#define GETTERS(X)                                                                                \
	X(get_user_description), X(get_default_ds), X(get_current_ds), X(get_parent_ds),          \
		X(get_time_properties_ds), X(get_port_ds), X(get_priority1), X(get_priority2),    \
		X(get_domain), X(get_slave_only), X(get_log_announce_interval),                   \
		X(get_announce_receipt_timeout), X(get_log_sync_interval), X(get_version_number), \
		X(get_clock_accuracy), X(get_traceability_properties),                            \
		X(get_timescale_properties), X(get_master_only), X(get_delay_mechanism),          \
		X(get_log_min_pdelay_req_interval), X(get_time_status_np),                        \
		X(get_grandmaster_settings_np), X(get_port_properties_np), X(get_port_stats_np),  \
		X(get_power_profile_settings_np)
#define GETTER_ENUM(fn) GET_##fn
#define GETTER_PTR(fn) [GET_##fn] = fn
enum {
	GET_NULL,
	GETTERS(GETTER_ENUM)
};
static const mgmt_get_fn getters[] = { GETTERS(GETTER_PTR) };

/* The name's length checked where it is written: a longer one fails to compile. */
#define NAME(i) .name = #i, .id = MGMT_##i + 0 * sizeof(char[sizeof(#i) <= MGMT_NAME_MAX ? 1 : -1])
#define CLOCK(i, fn, max, ro, set)                                                              \
	{                                                                                       \
		NAME(i), .scope = SCOPE_CLOCK, .get = GET_##fn, .get_max = max, .get_only = ro, \
			 .set_bit = set                                                         \
	}
#define PORT(i, fn, max, ro)                                                                  \
	{                                                                                     \
		NAME(i), .scope = SCOPE_PORT, .get = GET_##fn, .get_max = max, .get_only = ro \
	}
/* Known to the standard or to linuxptp but not served: NOT_SUPPORTED rather than NO_SUCH_ID. */
#define UNSUPPORTED(i, sc)           \
	{                            \
		NAME(i), .scope = sc \
	}

static const struct mgmt_entry entries[] = {
	PORT(NULL_MANAGEMENT, NULL, 0, false),
	UNSUPPORTED(CLOCK_DESCRIPTION, SCOPE_PORT),
	CLOCK(USER_DESCRIPTION, get_user_description, TEXT_MAX, false, 0),
	UNSUPPORTED(SAVE_IN_NON_VOLATILE_STORAGE, SCOPE_CLOCK),
	UNSUPPORTED(RESET_NON_VOLATILE_STORAGE, SCOPE_CLOCK),
	UNSUPPORTED(INITIALIZE, SCOPE_CLOCK),
	UNSUPPORTED(FAULT_LOG, SCOPE_CLOCK),
	UNSUPPORTED(FAULT_LOG_RESET, SCOPE_CLOCK),
	CLOCK(DEFAULT_DATA_SET, get_default_ds, 20, true, 0),
	CLOCK(CURRENT_DATA_SET, get_current_ds, 18, true, 0),
	CLOCK(PARENT_DATA_SET, get_parent_ds, 32, true, 0),
	CLOCK(TIME_PROPERTIES_DATA_SET, get_time_properties_ds, 4, true, 0),
	PORT(PORT_DATA_SET, get_port_ds, 26, true),
	CLOCK(PRIORITY1, get_priority1, DATUM_LEN, false, MGMT_CHANGE_PRIORITY1),
	CLOCK(PRIORITY2, get_priority2, DATUM_LEN, false, MGMT_CHANGE_PRIORITY2),
	CLOCK(DOMAIN, get_domain, DATUM_LEN, false, 0),
	CLOCK(SLAVE_ONLY, get_slave_only, DATUM_LEN, false, 0),
	PORT(LOG_ANNOUNCE_INTERVAL, get_log_announce_interval, DATUM_LEN, false),
	PORT(ANNOUNCE_RECEIPT_TIMEOUT, get_announce_receipt_timeout, DATUM_LEN, false),
	PORT(LOG_SYNC_INTERVAL, get_log_sync_interval, DATUM_LEN, false),
	PORT(VERSION_NUMBER, get_version_number, DATUM_LEN, false),
	UNSUPPORTED(ENABLE_PORT, SCOPE_PORT),
	UNSUPPORTED(DISABLE_PORT, SCOPE_PORT),
	UNSUPPORTED(TIME, SCOPE_CLOCK),
	CLOCK(CLOCK_ACCURACY, get_clock_accuracy, DATUM_LEN, false, 0),
	UNSUPPORTED(UTC_PROPERTIES, SCOPE_CLOCK),
	CLOCK(TRACEABILITY_PROPERTIES, get_traceability_properties, DATUM_LEN, false, 0),
	CLOCK(TIMESCALE_PROPERTIES, get_timescale_properties, DATUM_LEN, false, 0),
	UNSUPPORTED(UNICAST_NEGOTIATION_ENABLE, SCOPE_PORT),
	UNSUPPORTED(PATH_TRACE_LIST, SCOPE_CLOCK),
	UNSUPPORTED(PATH_TRACE_ENABLE, SCOPE_CLOCK),
	UNSUPPORTED(GRANDMASTER_CLUSTER_TABLE, SCOPE_CLOCK),
	UNSUPPORTED(UNICAST_MASTER_TABLE, SCOPE_PORT),
	UNSUPPORTED(UNICAST_MASTER_MAX_TABLE_SIZE, SCOPE_PORT),
	UNSUPPORTED(ACCEPTABLE_MASTER_TABLE, SCOPE_CLOCK),
	UNSUPPORTED(ACCEPTABLE_MASTER_TABLE_ENABLED, SCOPE_PORT),
	UNSUPPORTED(ACCEPTABLE_MASTER_MAX_TABLE_SIZE, SCOPE_CLOCK),
	UNSUPPORTED(ALTERNATE_MASTER, SCOPE_PORT),
	UNSUPPORTED(ALTERNATE_TIME_OFFSET_ENABLE, SCOPE_CLOCK),
	UNSUPPORTED(ALTERNATE_TIME_OFFSET_NAME, SCOPE_CLOCK),
	UNSUPPORTED(ALTERNATE_TIME_OFFSET_MAX_KEY, SCOPE_CLOCK),
	UNSUPPORTED(ALTERNATE_TIME_OFFSET_PROPERTIES, SCOPE_CLOCK),
	UNSUPPORTED(EXTERNAL_PORT_CONFIGURATION_ENABLED, SCOPE_CLOCK),
	PORT(MASTER_ONLY, get_master_only, DATUM_LEN, false),
	UNSUPPORTED(HOLDOVER_UPGRADE_ENABLE, SCOPE_CLOCK),
	UNSUPPORTED(EXT_PORT_CONFIG_PORT_DATA_SET, SCOPE_PORT),
	UNSUPPORTED(SLAVE_EVENT_MONITORING, SCOPE_PORT),
	UNSUPPORTED(TRANSPARENT_CLOCK_DEFAULT_DATA_SET, SCOPE_CLOCK),
	UNSUPPORTED(TRANSPARENT_CLOCK_PORT_DATA_SET, SCOPE_PORT),
	UNSUPPORTED(PRIMARY_DOMAIN, SCOPE_CLOCK),
	PORT(DELAY_MECHANISM, get_delay_mechanism, DATUM_LEN, false),
	PORT(LOG_MIN_PDELAY_REQ_INTERVAL, get_log_min_pdelay_req_interval, DATUM_LEN, false),
	CLOCK(TIME_STATUS_NP, get_time_status_np, 50, true, 0),
	CLOCK(GRANDMASTER_SETTINGS_NP, get_grandmaster_settings_np, GM_SETTINGS_LEN, false,
	      MGMT_CHANGE_GM_SETTINGS),
	UNSUPPORTED(PORT_DATA_SET_NP, SCOPE_PORT),
	UNSUPPORTED(SUBSCRIBE_EVENTS_NP, SCOPE_CLOCK),
	PORT(PORT_PROPERTIES_NP, get_port_properties_np, 13 + TEXT_MAX, true),
	PORT(PORT_STATS_NP, get_port_stats_np, PORT_STATS_LEN, true),
	UNSUPPORTED(SYNCHRONIZATION_UNCERTAIN_NP, SCOPE_CLOCK),
	UNSUPPORTED(PORT_SERVICE_STATS_NP, SCOPE_PORT),
	UNSUPPORTED(UNICAST_MASTER_TABLE_NP, SCOPE_PORT),
	UNSUPPORTED(PORT_HWCLOCK_NP, SCOPE_PORT),
	PORT(POWER_PROFILE_SETTINGS_NP, get_power_profile_settings_np, POWER_PROFILE_SETTINGS_LEN,
	     false),
};

static const struct mgmt_entry *mgmt_entry_find(uint16_t id)
{
	for (size_t i = 0; i < ARRAY_SIZE(entries); i++) {
		if (entries[i].id == id) {
			return &entries[i];
		}
	}
	return NULL;
}

const char *mgmt_id_to_string(uint16_t id)
{
	const struct mgmt_entry *e = mgmt_entry_find(id);

	return e ? e->name : NULL;
}

int mgmt_id_from_string(const char *s, uint16_t *ret)
{
	for (size_t i = 0; i < ARRAY_SIZE(entries); i++) {
		if (strcmp(entries[i].name, s) == 0) {
			*ret = entries[i].id;
			return 0;
		}
	}
	return -EINVAL;
}

/* Names within, not pointers: a table of pointers is relocated data, copied by each worker. */
static const char counter_names[_MGMT_CNT_MAX][16] = {
	[MGMT_CNT_ANSWERED] = "answered",	[MGMT_CNT_ERROR_STATUS] = "error_status",
	[MGMT_CNT_NOT_FOR_US] = "not_for_us",	[MGMT_CNT_NOT_A_REQUEST] = "not_a_request",
	[MGMT_CNT_MALFORMED] = "malformed",	[MGMT_CNT_WRONG_LENGTH] = "wrong_length",
	[MGMT_CNT_SET_REFUSED] = "set_refused", [MGMT_CNT_SET_APPLIED] = "set_applied",
	[MGMT_CNT_SEND_FAILED] = "send_failed",
};

const char *mgmt_counter_to_string(enum mgmt_counter c)
{
	return (unsigned) c < _MGMT_CNT_MAX && counter_names[c][0] ? counter_names[c] : NULL;
}

/* One request being answered. */
struct mgmt_ctx {
	const struct mgmt_clock *c;
	const struct msg *m;
	const struct mgmt_request *req;
	mgmt_send_fn send;
	void *userdata;
	struct mgmt_counters *cnt;
	uint16_t id;
	int sent;
};

static void count(struct mgmt_ctx *x, enum mgmt_counter c)
{
	if (x->cnt) {
		x->cnt->c[c]++;
	}
}

/* 15.4.1: the answer's header and body, addressed back to the requester. */
static void mgmt_answer_init(struct mgmt_ctx *x, const struct PortIdentity *source, struct msg *a)
{
	const struct msg_management *rq = &x->m->body.management;
	uint8_t hops = rq->startingBoundaryHops >= rq->boundaryHops
			       ? (uint8_t) (rq->startingBoundaryHops - rq->boundaryHops)
			       : 0;

	memset(a, 0, sizeof(*a));
	msg_header_init(&a->hdr, MSG_MANAGEMENT, x->c->dds.domainNumber, source,
			x->m->hdr.sequenceId);
	a->hdr.majorSdoId = (uint8_t) (x->c->dds.sdoId >> 8) & 0x0f;
	a->hdr.minorSdoId = (uint8_t) (x->c->dds.sdoId & 0xff);
	a->body.management.targetPortIdentity = x->m->hdr.sourcePortIdentity;
	a->body.management.startingBoundaryHops = hops;
	a->body.management.boundaryHops = hops;
	/* 15.4.1.6: a COMMAND is acknowledged, GET and SET get a RESPONSE. */
	a->body.management.actionField = (x->m->body.management.actionField & 0x0f) ==
							 MSG_MANAGEMENT_COMMAND
						 ? MSG_MANAGEMENT_ACKNOWLEDGE
						 : MSG_MANAGEMENT_RESPONSE;
}

static int mgmt_emit(struct mgmt_ctx *x, struct msg *a, const uint8_t *tlv, size_t tlv_len)
{
	uint8_t buf[MGMT_MSG_MAX];
	ssize_t n;
	int r;

	a->tlv = tlv;
	a->tlv_len = tlv_len;
	n = msg_build(a, buf, sizeof(buf));
	if (n < 0) {
		return (int) n;
	}
	r = x->send(x->userdata, buf, (size_t) n);
	if (r < 0) {
		count(x, MGMT_CNT_SEND_FAILED);
		return r;
	}
	x->sent++;
	return 0;
}

/* The identity an answer about port p (NULL: about the clock) comes from. */
static void mgmt_source(const struct mgmt_ctx *x, const struct mgmt_port *p,
			struct PortIdentity *ret)
{
	if (p) {
		*ret = p->ds.portIdentity;
	} else if (x->req->ingress >= 0 && (size_t) x->req->ingress < x->c->n_ports) {
		*ret = x->c->ports[x->req->ingress].ds.portIdentity;
	} else {
		ret->clockIdentity = x->c->dds.clockIdentity;
		ret->portNumber = 0;
	}
}

/* 15.5.4: MANAGEMENT_ERROR_STATUS about port p (NULL: the clock). */
static int mgmt_error(struct mgmt_ctx *x, const struct mgmt_port *p, uint16_t error)
{
	struct tlv_management_error_status e = { .managementErrorId = error,
						 .managementId = x->id };
	uint8_t tlv[64];
	struct tlv_builder b;
	struct PortIdentity src;
	struct msg a;
	int r;

	tlv_builder_init(&b, tlv, sizeof(tlv));
	r = tlv_builder_add_management_error_status(&b, &e);
	if (r < 0) {
		return r;
	}
	mgmt_source(x, p, &src);
	mgmt_answer_init(x, &src, &a);
	return mgmt_emit(x, &a, tlv, tlv_builder_len(&b));
}

/* A MANAGEMENT TLV with the id's data (get NULL: empty, NULL_MANAGEMENT). */
static int mgmt_data(struct mgmt_ctx *x, const struct mgmt_entry *e, const struct mgmt_clock *c,
		     const struct mgmt_port *p)
{
	uint8_t tlv[MGMT_MSG_MAX - MSG_HEADER_LEN - 14];
	struct tlv_builder b;
	struct PortIdentity src;
	struct msg a;
	int r;

	tlv_builder_init(&b, tlv, sizeof(tlv));
	r = tlv_builder_begin(&b, TLV_MANAGEMENT);
	if (r == 0) {
		r = wire_put_u16(&b.w, e->id);
	}
	if (r == 0 && e->get != GET_NULL) {
		r = getters[e->get](&b.w, c, p);
	}
	if (r == 0) {
		r = tlv_builder_end(&b);
	}
	if (r < 0) {
		/* 15.5.4.4 Table 109: the data does not fit an answer. */
		return mgmt_error(x, p, TLV_MGMT_ERR_RESPONSE_TOO_BIG);
	}
	mgmt_source(x, p, &src);
	mgmt_answer_init(x, &src, &a);
	return mgmt_emit(x, &a, tlv, tlv_builder_len(&b));
}

/*
 * Run fn once for the clock (clock-level id) or once per target port. Returns the number of
 * targets, 0 when no port matched.
 */
typedef int (*mgmt_target_fn)(struct mgmt_ctx *x, const struct mgmt_entry *e,
			      const struct mgmt_clock *c, const struct mgmt_port *p, uint16_t arg);

static int mgmt_for_targets(struct mgmt_ctx *x, const struct mgmt_entry *e,
			    const struct mgmt_clock *c, mgmt_target_fn fn, uint16_t arg)
{
	uint16_t want = x->m->body.management.targetPortIdentity.portNumber;
	int n = 0, r;

	/* 15.3.2: clock-level ids go to the clock whatever port number the request names. */
	if (!e || e->scope == SCOPE_CLOCK) {
		r = fn(x, e, c, NULL, arg);
		return r < 0 ? r : 1;
	}
	for (size_t i = 0; i < c->n_ports; i++) {
		const struct mgmt_port *p = &c->ports[i];

		if (want != 0xffff && want != p->ds.portIdentity.portNumber) {
			continue;
		}
		r = fn(x, e, c, p, arg);
		if (r < 0) {
			return r;
		}
		n++;
	}
	return n;
}

static int target_error(struct mgmt_ctx *x, const struct mgmt_entry *e, const struct mgmt_clock *c,
			const struct mgmt_port *p, uint16_t error)
{
	return mgmt_error(x, p, error);
}

static int target_data(struct mgmt_ctx *x, const struct mgmt_entry *e, const struct mgmt_clock *c,
		       const struct mgmt_port *p, uint16_t arg)
{
	return mgmt_data(x, e, c, p);
}

/* Answer every target with an error; a port number nobody holds is WRONG_VALUE (see below). */
static int mgmt_fail(struct mgmt_ctx *x, const struct mgmt_entry *e, uint16_t error)
{
	int n = mgmt_for_targets(x, e, x->c, target_error, error);

	if (n == 0) {
		return 0;
	}
	count(x, MGMT_CNT_ERROR_STATUS);
	return n < 0 ? n : x->sent;
}

/* Answer every target with the id's data about clock c (ANSWERED). */
static int mgmt_answer(struct mgmt_ctx *x, const struct mgmt_entry *e, const struct mgmt_clock *c)
{
	int n = mgmt_for_targets(x, e, c, target_data, 0);

	if (n < 0) {
		return n;
	}
	count(x, MGMT_CNT_ANSWERED);
	return x->sent;
}

/* SET of PRIORITY1/PRIORITY2 (15.5.3.3.5/.6): exactly one datum; GRANDMASTER_SETTINGS_NP. */
static int mgmt_set(struct mgmt_ctx *x, const struct mgmt_entry *e, const struct tlv_management *t,
		    struct mgmt_change *change)
{
	struct mgmt_clock after = *x->c;
	struct instance_options o = *x->c->options;

	if (t->data_len != (e->set_bit == MGMT_CHANGE_GM_SETTINGS ? GM_SETTINGS_LEN : DATUM_LEN)) {
		count(x, MGMT_CNT_WRONG_LENGTH);
		return mgmt_fail(x, e, TLV_MGMT_ERR_WRONG_LENGTH);
	}
	if (e->set_bit == MGMT_CHANGE_GM_SETTINGS) {
		if (parse_grandmaster_settings_np(t->data, t->data_len, x->c->gm.tp.ptpTimescale,
						  &change->gm) < 0) {
			count(x, MGMT_CNT_WRONG_LENGTH);
			return mgmt_fail(x, e, TLV_MGMT_ERR_WRONG_LENGTH);
		}
		after.gm = change->gm;
		options_set_gm_settings(&o, &change->gm);
	} else if (e->set_bit == MGMT_CHANGE_PRIORITY1) {
		change->priority1 = o.priority1 = t->data[0];
	} else {
		change->priority2 = o.priority2 = t->data[0];
	}
	change->mask |= e->set_bit;
	count(x, MGMT_CNT_SET_APPLIED);
	/*
	 * 15.5.3.3.5: the RESPONSE carries the value now in effect, as defaultDS's rules make it
	 * (gmCapable 0: priority1 stays 255; slave-only: clockClass 255).
	 */
	options_default_ds(&o, &x->c->dds.clockIdentity, x->c->dds.numberPorts,
			   (uint8_t) (x->c->dds.sdoId >> 8), &after.dds);
	return mgmt_answer(x, e, &after);
}

/* Does the request name a port of this clock (or all of them)? Clock-level ids always do. */
static bool mgmt_port_matches(const struct mgmt_ctx *x, const struct mgmt_entry *e)
{
	uint16_t want = x->m->body.management.targetPortIdentity.portNumber;

	if (!e || e->scope == SCOPE_CLOCK || want == 0xffff) {
		return true;
	}
	for (size_t i = 0; i < x->c->n_ports; i++) {
		if (x->c->ports[i].ds.portIdentity.portNumber == want) {
			return true;
		}
	}
	return false;
}

/* Exactly one MANAGEMENT TLV (15.4.1: a request carries one), with at least its managementId. */
static int mgmt_request_tlv(const struct msg *m, struct tlv_management *ret)
{
	struct tlv_iter it;
	struct tlv t;
	int r;

	tlv_iter_init(&it, m->tlv, m->tlv_len);
	r = tlv_next(&it, &t);
	if (r <= 0 || tlv_management_parse(&t, ret) < 0) {
		return -EBADMSG;
	}
	return tlv_next(&it, &t) == 0 ? 0 : -EBADMSG;
}

static const struct ClockIdentity wildcard_identity = {
	.id = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
};

/* One parsed message: any messageType but Management is MALFORMED. */
static int mgmt_handle(const struct mgmt_clock *c, const struct msg *m,
		       const struct mgmt_request *req, mgmt_send_fn send, void *userdata,
		       struct mgmt_change *change, struct mgmt_counters *cnt)
{
	struct mgmt_ctx x = {
		.c = c, .m = m, .req = req, .send = send, .userdata = userdata, .cnt = cnt
	};
	const struct ClockIdentity *target = &m->body.management.targetPortIdentity.clockIdentity;
	const struct mgmt_entry *e;
	struct tlv_management t;
	uint8_t action;
	int n;

	memset(change, 0, sizeof(*change));
	if (m->hdr.messageType != MSG_MANAGEMENT) {
		count(&x, MGMT_CNT_MALFORMED);
		return 0;
	}
	action = m->body.management.actionField & 0x0f;
	/* 15.4.1.6: only GET, SET and COMMAND ask for something; answers are not ours to take. */
	if (action != MSG_MANAGEMENT_GET && action != MSG_MANAGEMENT_SET &&
	    action != MSG_MANAGEMENT_COMMAND) {
		count(&x, MGMT_CNT_NOT_A_REQUEST);
		return 0;
	}
	/* 15.3.1: the target clock is us or everyone, in our domain. */
	if (m->hdr.domainNumber != c->dds.domainNumber ||
	    (!clock_identity_equal(target, &wildcard_identity) &&
	     !clock_identity_equal(target, &c->dds.clockIdentity))) {
		count(&x, MGMT_CNT_NOT_FOR_US);
		return 0;
	}
	if (mgmt_request_tlv(m, &t) < 0) {
		count(&x, MGMT_CNT_MALFORMED);
		return 0;
	}
	x.id = t.managementId;
	e = mgmt_entry_find(t.managementId);
	if (!mgmt_port_matches(&x, e)) {
		if (!c->all_ports) {
			count(&x, MGMT_CNT_NOT_FOR_US);
			return 0;
		}
		/* IEEE 1588 interpretation 21 (as linuxptp): a port that does not exist. */
		count(&x, MGMT_CNT_ERROR_STATUS);
		n = mgmt_error(&x, NULL, TLV_MGMT_ERR_WRONG_VALUE);
		return n < 0 ? n : x.sent;
	}

	switch (action) {
	case MSG_MANAGEMENT_GET:
		if (!e) {
			return mgmt_fail(&x, e, TLV_MGMT_ERR_NO_SUCH_ID);
		}
		if (e->get == GET_NULL && e->id != MGMT_NULL_MANAGEMENT) {
			return mgmt_fail(&x, e, TLV_MGMT_ERR_NOT_SUPPORTED);
		}
		/* pmc sends a zeroed layout with a GET; more than an answer would hold is not one.
		 */
		if (t.data_len > e->get_max) {
			count(&x, MGMT_CNT_WRONG_LENGTH);
			return mgmt_fail(&x, e, TLV_MGMT_ERR_WRONG_LENGTH);
		}
		return mgmt_answer(&x, e, c);
	case MSG_MANAGEMENT_SET:
		/* 15.5.3: every settable id carries data; linuxptp answers WRONG_LENGTH too. */
		if (t.data_len == 0 && t.managementId != MGMT_NULL_MANAGEMENT) {
			count(&x, MGMT_CNT_WRONG_LENGTH);
			return mgmt_fail(&x, e, TLV_MGMT_ERR_WRONG_LENGTH);
		}
		/* Without the options the clock's defaultDS came from, no SET can say its effect.
		 */
		if (!req->set_allowed || !c->options) {
			count(&x, MGMT_CNT_SET_REFUSED);
			return mgmt_fail(&x, e, TLV_MGMT_ERR_NOT_SUPPORTED);
		}
		if (!e) {
			return mgmt_fail(&x, e, TLV_MGMT_ERR_NO_SUCH_ID);
		}
		if (e->get_only) {
			return mgmt_fail(&x, e, TLV_MGMT_ERR_NOT_SETABLE);
		}
		if (!e->set_bit) {
			return mgmt_fail(&x, e, TLV_MGMT_ERR_NOT_SUPPORTED);
		}
		return mgmt_set(&x, e, &t, change);
	default:
		if (!e) {
			return mgmt_fail(&x, e, TLV_MGMT_ERR_NO_SUCH_ID);
		}
		if (e->id == MGMT_NULL_MANAGEMENT) {
			return mgmt_answer(&x, e, c);
		}
		return mgmt_fail(&x, e, TLV_MGMT_ERR_NOT_SUPPORTED);
	}
}

int mgmt_handle_frame(const struct mgmt_clock *c, const void *buf, size_t len,
		      const struct mgmt_request *req, mgmt_send_fn send, void *userdata,
		      struct mgmt_change *change, struct mgmt_counters *cnt)
{
	struct msg m;

	memset(change, 0, sizeof(*change));
	if (msg_parse(buf, len, &m) < 0) {
		if (cnt) {
			cnt->c[MGMT_CNT_MALFORMED]++;
		}
		return 0;
	}
	return mgmt_handle(c, &m, req, send, userdata, change, cnt);
}
