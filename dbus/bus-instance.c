// SPDX-License-Identifier: GPL-2.0-or-later
/* org.phcd1.Instance at /org/phcd1/instance/<escaped name>: one PTP clock of the supervisor. */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "daemon/refclock-feed.h"
#include "dbus/bus-internal.h"

static int find(sd_bus *bus, const char *path, const char *interface, void *userdata, void **found,
		sd_bus_error *error)
{
	struct bus_server *s = userdata;
	_cleanup_free_ char *name = NULL;
	struct instance *i;
	int r;

	r = sd_bus_path_decode(path, PHCD_BUS_PATH_INSTANCES, &name);
	if (r <= 0) {
		return r;
	}
	i = manager_find_instance(s->manager, name);
	if (!i) {
		return 0;
	}
	*found = i;
	return 1;
}

static int path_at(struct manager *m, size_t k, char **ret)
{
	return bus_instance_path(manager_instance_at(m, k), ret);
}

static int enumerate(sd_bus *bus, const char *path, void *userdata, char ***nodes,
		     sd_bus_error *error)
{
	struct bus_server *s = userdata;

	return bus_enumerate_paths(s->manager, manager_instance_count(s->manager), path_at, nodes);
}

static int get_profile(sd_bus *bus, const char *path, const char *interface, const char *property,
		       sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct instance *i = userdata;

	return sd_bus_message_append_basic(reply, 's', i->profile);
}

static int get_clock_backend(sd_bus *bus, const char *path, const char *interface,
			     const char *property, sd_bus_message *reply, void *userdata,
			     sd_bus_error *error)
{
	const char *b = options_clock_backend_to_string(*(enum options_clock_backend *) userdata);

	return bus_append_valid_string(reply, b ? b : "unknown");
}

static int get_clock_servo(sd_bus *bus, const char *path, const char *interface,
			   const char *property, sd_bus_message *reply, void *userdata,
			   sd_bus_error *error)
{
	const char *n = options_clock_servo_to_string(*(enum servo_type *) userdata);

	return bus_append_valid_string(reply, n ? n : "unknown");
}

/* Servo states travel in lower case ("locked"), as chrony and timedatectl show them. */
static const char *const servo_names[] = {
	[SERVO_UNLOCKED] = "unlocked",
	[SERVO_JUMP] = "jump",
	[SERVO_LOCKED] = "locked",
	[SERVO_HOLDOVER] = "holdover",
};

static int get_servo_state(sd_bus *bus, const char *path, const char *interface,
			   const char *property, sd_bus_message *reply, void *userdata,
			   sd_bus_error *error)
{
	unsigned int st = *(enum servo_state *) userdata;

	return bus_append_valid_string(reply,
				       st < ARRAY_SIZE(servo_names) ? servo_names[st] : "unknown");
}

/* ClockMode and ClockModeReason (clock-mode-step.c): the machine's mode and why. */
static int get_clock_mode(sd_bus *bus, const char *path, const char *interface,
			  const char *property, sd_bus_message *reply, void *userdata,
			  sd_bus_error *error)
{
	const struct clock_mode_fsm *f = &((struct instance *) userdata)->clock_mode;
	const char *s = strcmp(property, "ClockMode") == 0 ? clock_mode_to_string(f->mode)
							   : f->reason;

	return bus_append_valid_string(reply, s ? s : "unknown");
}

/* A byte-sized IEEE 1588 enum: its name, or "0xNN" for a profile-specific or reserved value. */
static int append_byte_enum(sd_bus_message *reply, const char *name, uint8_t value)
{
	char hex[sizeof("0xff")];

	if (!name) {
		snprintf(hex, sizeof(hex), "0x%02x", value);
		name = hex;
	}
	return bus_append_valid_string(reply, name);
}

static int get_time_source(sd_bus *bus, const char *path, const char *interface,
			   const char *property, sd_bus_message *reply, void *userdata,
			   sd_bus_error *error)
{
	uint8_t t = *(uint8_t *) userdata;

	return append_byte_enum(reply, time_source_to_string(t), t);
}

/*
 * IEEE 1588-2019 7.6.2.6 Table 5, from 0x17: "WITHIN_<bound>" for "the time is accurate to
 * within <bound>" ("2_5" for 2.5, as ptp/ds.h spells it), then "BEYOND_10S" and "UNKNOWN".
 */
static const char *const clock_accuracy_names[] = {
	"WITHIN_1PS", "WITHIN_2_5PS", "WITHIN_10PS", "WITHIN_25PS", "WITHIN_100PS", "WITHIN_250PS",
	"WITHIN_1NS", "WITHIN_2_5NS", "WITHIN_10NS", "WITHIN_25NS", "WITHIN_100NS", "WITHIN_250NS",
	"WITHIN_1US", "WITHIN_2_5US", "WITHIN_10US", "WITHIN_25US", "WITHIN_100US", "WITHIN_250US",
	"WITHIN_1MS", "WITHIN_2_5MS", "WITHIN_10MS", "WITHIN_25MS", "WITHIN_100MS", "WITHIN_250MS",
	"WITHIN_1S",  "WITHIN_10S",   "BEYOND_10S",
};
#define CLOCK_ACCURACY_FIRST_NAMED 0x17
_Static_assert(CLOCK_ACCURACY_FIRST_NAMED + ARRAY_SIZE(clock_accuracy_names) - 1 ==
		       CLOCK_ACCURACY_GT_10S,
	       "Table 5 runs from 0x17 to 0x31");

static int get_clock_accuracy(sd_bus *bus, const char *path, const char *interface,
			      const char *property, sd_bus_message *reply, void *userdata,
			      sd_bus_error *error)
{
	uint8_t a = *(uint8_t *) userdata;
	const char *name = NULL;

	if (a == CLOCK_ACCURACY_UNKNOWN) {
		name = "UNKNOWN";
	} else if (a >= CLOCK_ACCURACY_FIRST_NAMED &&
		   a - CLOCK_ACCURACY_FIRST_NAMED < (int) ARRAY_SIZE(clock_accuracy_names)) {
		name = clock_accuracy_names[a - CLOCK_ACCURACY_FIRST_NAMED];
	}
	return append_byte_enum(reply, name, a);
}

static int get_health(sd_bus *bus, const char *path, const char *interface, const char *property,
		      sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct instance *i = userdata;
	struct health_report buf;

	return bus_append_health(reply, instance_health(i, &buf));
}

static int get_health_reasons(sd_bus *bus, const char *path, const char *interface,
			      const char *property, sd_bus_message *reply, void *userdata,
			      sd_bus_error *error)
{
	struct instance *i = userdata;
	struct health_report buf;

	return bus_append_health_reasons(reply, instance_health(i, &buf));
}

static int get_ports(sd_bus *bus, const char *path, const char *interface, const char *property,
		     sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct instance *i = userdata;

	return bus_append_port_paths(reply, i->manager, i);
}

/*
 * The interfaces its `interfaces` names that are not one of its ports yet (not present, or
 * renamed away): a boot waits for them. Empty with `interfaces auto`.
 */
static int get_missing_interfaces(sd_bus *bus, const char *path, const char *interface,
				  const char *property, sd_bus_message *reply, void *userdata,
				  sd_bus_error *error)
{
	struct instance *i = userdata;
	const struct interface_selection *sel = &i->options.interfaces;
	int r;

	r = sd_bus_message_open_container(reply, 'a', "s");
	for (unsigned int k = 0; r >= 0 && !sel->auto_select && k < sel->n_names; k++) {
		struct mport *p = manager_find_port(i->manager, sel->names[k]);

		if (!p || p->instance != i) {
			r = bus_append_valid_string(reply, sel->names[k]);
		}
	}
	return r < 0 ? r : sd_bus_message_close_container(reply);
}

/*
 * PhcFollowers a(iisxxdti): per PHC kept in step with the SLAVE port's (phc_follow), its index,
 * the source's (-1: holdover), state, offset and its uncertainty (ns), frequency (ppb), steps and
 * the -errno that made it faulty (0).
 */
static int get_phc_followers(sd_bus *bus, const char *path, const char *interface,
			     const char *property, sd_bus_message *reply, void *userdata,
			     sd_bus_error *error)
{
	struct instance_follower_info fl[16];
	size_t n = instance_followers(userdata, fl, ARRAY_SIZE(fl));
	int r;

	r = sd_bus_message_open_container(reply, 'a', "(iisxxdti)");
	for (size_t k = 0; r >= 0 && k < n; k++) {
		r = sd_bus_message_append(reply, "(iisxxdti)", fl[k].phc_index,
					  fl[k].source_phc_index, fl[k].state,
					  (int64_t) fl[k].offset_ns, (int64_t) fl[k].error_ns,
					  fl[k].freq_ppb, fl[k].steps, fl[k].error);
	}
	return r < 0 ? r : sd_bus_message_close_container(reply);
}

/* Refclock*: where the instance's samples go (clock_servo refclock_sock) and how that goes. */
static int get_refclock(sd_bus *bus, const char *path, const char *interface, const char *property,
			sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct refclock_info info;

	(void) refclock_feed_info(userdata, &info);
	if (!strcmp(property, "RefclockAddress")) {
		return bus_append_valid_string(reply, info.address);
	}
	if (!strcmp(property, "RefclockState")) {
		return bus_append_valid_string(reply, info.state_name);
	}
	if (!strcmp(property, "RefclockReason")) {
		return bus_append_valid_string(reply, info.reason);
	}
	if (!strcmp(property, "RefclockError")) {
		return sd_bus_message_append(reply, "i", info.error);
	}
	return sd_bus_message_append(reply, "t", info.last_accepted_usec);
}

/* The grandmaster's own time source (time_source, daemon/instance-source.c) and its last report. */
static int get_reference(sd_bus *bus, const char *path, const char *interface, const char *property,
			 sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	const struct instance *i = userdata;
	const struct instance_reference *ref = &i->reference;
	bool any = ref->updated_usec != 0;

	if (!strcmp(property, "ReferenceSource")) {
		return bus_append_valid_string(
			reply, options_time_source_to_string(i->options.time_source));
	}
	if (!strcmp(property, "ReferenceOk")) {
		return sd_bus_message_append(reply, "b", ref->ok);
	}
	if (!strcmp(property, "ReferenceReason")) {
		return bus_append_valid_string(reply, ref->reason ? ref->reason : "");
	}
	if (!strcmp(property, "ReferenceUpdated")) {
		return sd_bus_message_append(reply, "t", ref->updated_usec);
	}
	if (!strcmp(property, "ReferenceMaxError")) {
		return sd_bus_message_append(reply, "x",
					     any ? (int64_t) ref->last.max_error_ns : (int64_t) -1);
	}
	return sd_bus_message_append(reply, "n",
				     any && ref->last.utc_offset_valid ? ref->last.utc_offset : 0);
}

/* SetPriority1(y) and SetPriority2(y): one handler, the member says which. */
static int method_set_priority(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	struct instance *i = userdata;
	bool one = strcmp(sd_bus_message_get_member(m), "SetPriority1") == 0;
	struct bus_server *s;
	uint8_t value;
	int r;

	r = sd_bus_message_read(m, "y", &value);
	if (r < 0) {
		return r;
	}
	/* Every value 0..255 is valid (IEEE 1588-2019 8.2.1.4.1); the signature checked the type.
	 */
	s = bus_current_server(m);
	r = bus_authorize(s, m, error);
	if (r <= 0) {
		return r < 0 ? r : 1;
	}
	r = one ? instance_set_priority1(i, value) : instance_set_priority2(i, value);
	if (r < 0) {
		return sd_bus_error_setf(error, PHCD_BUS_ERROR_OPERATION_FAILED,
					 "Cannot set priority%c of instance '%s' to %u: %s",
					 one ? '1' : '2', i->name, value, strerror(-r));
	}
	return sd_bus_reply_method_return(m, NULL);
}

/*
 * SetGrandmasterSettings(y clockClass, y clockAccuracy, q offsetScaledLogVariance,
 * n currentUtcOffset, b leap61, b leap59, b currentUtcOffsetValid, b timeTraceable,
 * b frequencyTraceable, y timeSource): what linuxptp's GRANDMASTER_SETTINGS_NP sets.
 */
static int method_set_grandmaster_settings(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	struct instance *i = userdata;
	struct gm_settings gm = { 0 };
	int leap61, leap59, valid, time_traceable, freq_traceable, r;

	r = sd_bus_message_read(
		m, "yyqnbbbbby", &gm.clockQuality.clockClass, &gm.clockQuality.clockAccuracy,
		&gm.clockQuality.offsetScaledLogVariance, &gm.tp.currentUtcOffset, &leap61, &leap59,
		&valid, &time_traceable, &freq_traceable, &gm.tp.timeSource);
	if (r < 0) {
		return r;
	}
	/* The ranges of phcd.conf's utc_offset and timeSource; 9.4 has no leap both ways. */
	if (gm.tp.currentUtcOffset < 0) {
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
					 "currentUtcOffset %d is negative, expected 0 to 32767",
					 gm.tp.currentUtcOffset);
	}
	if (gm.tp.timeSource < 0x10 || gm.tp.timeSource > 0xfe) {
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
					 "timeSource 0x%02x is out of range, expected 0x10 to 0xfe",
					 gm.tp.timeSource);
	}
	if (leap61 && leap59) {
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
					 "leap61 and leap59 both set, expected at most one");
	}
	gm.tp.leap61 = leap61;
	gm.tp.leap59 = leap59;
	gm.tp.currentUtcOffsetValid = valid;
	gm.tp.timeTraceable = time_traceable;
	gm.tp.frequencyTraceable = freq_traceable;
	r = bus_authorize(bus_current_server(m), m, error);
	if (r <= 0) {
		return r < 0 ? r : 1;
	}
	r = instance_set_gm_settings(i, &gm);
	if (r < 0) {
		return sd_bus_error_setf(error, PHCD_BUS_ERROR_OPERATION_FAILED,
					 "Cannot set the grandmaster settings of instance '%s': %s",
					 i->name, strerror(-r));
	}
	return sd_bus_reply_method_return(m, NULL);
}

#define EMITS SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE
#define I_OFF(f) offsetof(struct instance, f)

static const sd_bus_vtable instance_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY("Name", "s", bus_property_get_chars, I_OFF(name),
			SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("Domain", "y", NULL, I_OFF(domain), EMITS),
	SD_BUS_PROPERTY("Profile", "s", get_profile, 0, EMITS),
	SD_BUS_PROPERTY("ClockIdentity", "s", bus_property_get_clock_identity,
			I_OFF(clock_identity), EMITS),
	SD_BUS_PROPERTY("Priority1", "y", NULL, I_OFF(priority1), EMITS),
	SD_BUS_PROPERTY("Priority2", "y", NULL, I_OFF(priority2), EMITS),
	SD_BUS_PROPERTY("ClockClass", "y", NULL, I_OFF(clock_quality.clockClass), EMITS),
	SD_BUS_PROPERTY("ClockAccuracy", "s", get_clock_accuracy,
			I_OFF(clock_quality.clockAccuracy), EMITS),
	SD_BUS_PROPERTY("OffsetScaledLogVariance", "q", NULL,
			I_OFF(clock_quality.offsetScaledLogVariance), EMITS),
	SD_BUS_PROPERTY("ClockBackend", "s", get_clock_backend, I_OFF(clock_backend), EMITS),
	SD_BUS_PROPERTY("ClockServo", "s", get_clock_servo, I_OFF(clock_servo), EMITS),
	SD_BUS_PROPERTY("GrandmasterIdentity", "s", bus_property_get_clock_identity,
			I_OFF(grandmaster_identity), EMITS),
	SD_BUS_PROPERTY("ParentPortIdentity", "s", bus_property_get_port_identity,
			I_OFF(parent_port_identity), EMITS),
	SD_BUS_PROPERTY("StepsRemoved", "q", NULL, I_OFF(steps_removed), EMITS),
	SD_BUS_PROPERTY("GrandmasterPriority1", "y", NULL, I_OFF(parent.grandmasterPriority1),
			EMITS),
	SD_BUS_PROPERTY("GrandmasterPriority2", "y", NULL, I_OFF(parent.grandmasterPriority2),
			EMITS),
	SD_BUS_PROPERTY("GrandmasterClockClass", "y", NULL,
			I_OFF(parent.grandmasterClockQuality.clockClass), EMITS),
	SD_BUS_PROPERTY("GrandmasterClockAccuracy", "s", get_clock_accuracy,
			I_OFF(parent.grandmasterClockQuality.clockAccuracy), EMITS),
	SD_BUS_PROPERTY("GrandmasterOffsetScaledLogVariance", "q", NULL,
			I_OFF(parent.grandmasterClockQuality.offsetScaledLogVariance), EMITS),
	SD_BUS_PROPERTY("OffsetFromMaster", "x", NULL, I_OFF(offset_ns), EMITS),
	SD_BUS_PROPERTY("MeanPathDelay", "x", NULL, I_OFF(mean_path_delay_ns), EMITS),
	SD_BUS_PROPERTY("FrequencyAdjustment", "d", NULL, I_OFF(freq_ppb), EMITS),
	SD_BUS_PROPERTY("OffsetTimestamp", "t", NULL, I_OFF(sample_realtime_usec), EMITS),
	SD_BUS_PROPERTY("OffsetTimestampMonotonic", "t", NULL, I_OFF(sample_monotonic_usec), EMITS),
	SD_BUS_PROPERTY("OffsetStatisticsCount", "u", NULL, I_OFF(stats.count), EMITS),
	SD_BUS_PROPERTY("OffsetStatisticsMean", "x", NULL, I_OFF(stats.mean_ns), EMITS),
	SD_BUS_PROPERTY("OffsetStatisticsRMS", "t", NULL, I_OFF(stats.rms_ns), EMITS),
	SD_BUS_PROPERTY("OffsetStatisticsMax", "t", NULL, I_OFF(stats.max_abs_ns), EMITS),
	SD_BUS_PROPERTY("OffsetStatisticsWindowUSec", "t", NULL, I_OFF(stats.window_usec), EMITS),
	SD_BUS_PROPERTY("OffsetStatisticsTimestamp", "t", NULL, I_OFF(stats.realtime_usec), EMITS),
	SD_BUS_PROPERTY("OffsetStatisticsTimestampMonotonic", "t", NULL,
			I_OFF(stats.monotonic_usec), EMITS),
	SD_BUS_PROPERTY("ServoState", "s", get_servo_state, I_OFF(servo_state), EMITS),
	SD_BUS_PROPERTY("Synchronized", "b", bus_property_get_bool, I_OFF(synchronized), EMITS),
	SD_BUS_PROPERTY("IsGrandmaster", "b", bus_property_get_bool, I_OFF(is_grandmaster), EMITS),
	SD_BUS_PROPERTY("Health", "s", get_health, 0, EMITS),
	SD_BUS_PROPERTY("HealthReasons", "a(ss)", get_health_reasons, 0, EMITS),
	SD_BUS_PROPERTY("HoldoverSince", "t", NULL, I_OFF(holdover_since_usec), EMITS),
	SD_BUS_PROPERTY("ClockMode", "s", get_clock_mode, 0, EMITS),
	SD_BUS_PROPERTY("ClockModeSince", "t", NULL, I_OFF(clock_mode_since_usec), EMITS),
	SD_BUS_PROPERTY("ClockModeReason", "s", get_clock_mode, 0, EMITS),
	SD_BUS_PROPERTY("EstimatedTimeError", "x", NULL, I_OFF(time_error_ns), EMITS),
	SD_BUS_PROPERTY("Ready", "b", bus_property_get_bool, I_OFF(readiness.ready), EMITS),
	SD_BUS_PROPERTY("ReadyReason", "s", bus_property_get_chars, I_OFF(readiness.reason), EMITS),
	SD_BUS_PROPERTY("ConfiguredGrandmaster", "b", bus_property_get_bool,
			I_OFF(readiness.configured_grandmaster), EMITS),
	SD_BUS_PROPERTY("CurrentUtcOffset", "n", NULL, I_OFF(time_properties.currentUtcOffset),
			EMITS),
	SD_BUS_PROPERTY("CurrentUtcOffsetValid", "b", bus_property_get_bool,
			I_OFF(time_properties.currentUtcOffsetValid), EMITS),
	SD_BUS_PROPERTY("Leap59", "b", bus_property_get_bool, I_OFF(time_properties.leap59), EMITS),
	SD_BUS_PROPERTY("Leap61", "b", bus_property_get_bool, I_OFF(time_properties.leap61), EMITS),
	SD_BUS_PROPERTY("TimeTraceable", "b", bus_property_get_bool,
			I_OFF(time_properties.timeTraceable), EMITS),
	SD_BUS_PROPERTY("FrequencyTraceable", "b", bus_property_get_bool,
			I_OFF(time_properties.frequencyTraceable), EMITS),
	SD_BUS_PROPERTY("PtpTimescale", "b", bus_property_get_bool,
			I_OFF(time_properties.ptpTimescale), EMITS),
	SD_BUS_PROPERTY("TimeSource", "s", get_time_source, I_OFF(time_properties.timeSource),
			EMITS),
	SD_BUS_PROPERTY("Ports", "ao", get_ports, 0, EMITS),
	SD_BUS_PROPERTY("MissingInterfaces", "as", get_missing_interfaces, 0, EMITS),
	SD_BUS_PROPERTY("PhcFollowers", "a(iisxxdti)", get_phc_followers, 0, EMITS),
	SD_BUS_PROPERTY("RefclockAddress", "s", get_refclock, 0, EMITS),
	SD_BUS_PROPERTY("RefclockState", "s", get_refclock, 0, EMITS),
	SD_BUS_PROPERTY("RefclockReason", "s", get_refclock, 0, EMITS),
	SD_BUS_PROPERTY("RefclockError", "i", get_refclock, 0, EMITS),
	SD_BUS_PROPERTY("RefclockLastAccepted", "t", get_refclock, 0, EMITS),
	SD_BUS_PROPERTY("ReferenceSource", "s", get_reference, 0, EMITS),
	SD_BUS_PROPERTY("ReferenceOk", "b", get_reference, 0, EMITS),
	SD_BUS_PROPERTY("ReferenceReason", "s", get_reference, 0, EMITS),
	SD_BUS_PROPERTY("ReferenceUpdated", "t", get_reference, 0, EMITS),
	SD_BUS_PROPERTY("ReferenceMaxError", "x", get_reference, 0, EMITS),
	SD_BUS_PROPERTY("ReferenceUtcOffset", "n", get_reference, 0, EMITS),
	SD_BUS_METHOD_WITH_ARGS("SetPriority1", SD_BUS_ARGS("y", priority1), SD_BUS_NO_RESULT,
				method_set_priority, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("SetPriority2", SD_BUS_ARGS("y", priority2), SD_BUS_NO_RESULT,
				method_set_priority, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS(
		"SetGrandmasterSettings",
		SD_BUS_ARGS("y", clockClass, "y", clockAccuracy, "q", offsetScaledLogVariance, "n",
			    currentUtcOffset, "b", leap61, "b", leap59, "b", currentUtcOffsetValid,
			    "b", timeTraceable, "b", frequencyTraceable, "y", timeSource),
		SD_BUS_NO_RESULT, method_set_grandmaster_settings, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_VTABLE_END,
};

static const struct bus_prop_group instance_groups[] = {
	{ INSTANCE_CHANGED_CONFIG,
	  (const char *const[]){ "Domain", "Profile", "ClockIdentity", "Priority1", "Priority2",
				 "ClockClass", "ClockAccuracy", "OffsetScaledLogVariance",
				 "ClockBackend", "ClockServo", "MissingInterfaces", NULL } },
	{ INSTANCE_CHANGED_PARENT,
	  (const char *const[]){ "GrandmasterIdentity", "ParentPortIdentity", "StepsRemoved",
				 "GrandmasterPriority1", "GrandmasterPriority2",
				 "GrandmasterClockClass", "GrandmasterClockAccuracy",
				 "GrandmasterOffsetScaledLogVariance", NULL } },
	{ INSTANCE_CHANGED_SAMPLE,
	  (const char *const[]){ "OffsetFromMaster", "MeanPathDelay", "FrequencyAdjustment",
				 "OffsetTimestamp", "OffsetTimestampMonotonic",
				 "RefclockLastAccepted", NULL } },
	{ INSTANCE_CHANGED_STATS,
	  (const char *const[]){ "OffsetStatisticsCount", "OffsetStatisticsMean",
				 "OffsetStatisticsRMS", "OffsetStatisticsMax",
				 "OffsetStatisticsWindowUSec", "OffsetStatisticsTimestamp",
				 "OffsetStatisticsTimestampMonotonic", NULL } },
	{ INSTANCE_CHANGED_HEALTH,
	  (const char *const[]){ "IsGrandmaster", "Health", "HealthReasons", "RefclockAddress",
				 "RefclockState", "RefclockReason", "RefclockError", NULL } },
	{ INSTANCE_CHANGED_SERVO,
	  (const char *const[]){ "ServoState", "Synchronized", "HoldoverSince", NULL } },
	{ INSTANCE_CHANGED_TIME_PROPERTIES,
	  (const char *const[]){ "CurrentUtcOffset", "CurrentUtcOffsetValid", "Leap59", "Leap61",
				 "TimeTraceable", "FrequencyTraceable", "PtpTimescale",
				 "TimeSource", NULL } },
	{ INSTANCE_CHANGED_PORTS, (const char *const[]){ "Ports", "MissingInterfaces", NULL } },
	{ INSTANCE_CHANGED_READY,
	  (const char *const[]){ "Ready", "ReadyReason", "ConfiguredGrandmaster", NULL } },
	{ INSTANCE_CHANGED_FOLLOWERS, (const char *const[]){ "PhcFollowers", NULL } },
	{ INSTANCE_CHANGED_CLOCK_MODE,
	  (const char *const[]){ "ClockMode", "ClockModeSince", "ClockModeReason",
				 "EstimatedTimeError", NULL } },
	{ INSTANCE_CHANGED_REFERENCE,
	  (const char *const[]){ "ReferenceSource", "ReferenceOk", "ReferenceReason",
				 "ReferenceUpdated", "ReferenceMaxError", "ReferenceUtcOffset",
				 NULL } },
	{},
};

int bus_instance_register(struct bus_server *s)
{
	int r;

	r = sd_bus_add_fallback_vtable(s->bus, NULL, PHCD_BUS_PATH_INSTANCES,
				       PHCD_BUS_IFACE_INSTANCE, instance_vtable, find, s);
	if (r < 0) {
		return r;
	}
	return sd_bus_add_node_enumerator(s->bus, NULL, PHCD_BUS_PATH_INSTANCES, enumerate, s);
}

int bus_instance_emit(struct bus_server *s, struct instance *i, unsigned int mask)
{
	_cleanup_free_ char *path = NULL;
	int r = bus_instance_path(i, &path);

	return r < 0 ? r : bus_emit_groups(s, path, PHCD_BUS_IFACE_INSTANCE, instance_groups, mask);
}

int bus_instance_describe(struct bus_server *s, FILE *f, struct instance *i)
{
	_cleanup_free_ char *path = NULL;
	int r = bus_instance_path(i, &path);

	return r < 0 ? r
		     : bus_describe_object(s, f, instance_vtable, i, path, PHCD_BUS_IFACE_INSTANCE);
}

int bus_instance_append_object(struct bus_server *s, sd_bus_message *reply, struct instance *i)
{
	_cleanup_free_ char *path = NULL;
	int r = bus_instance_path(i, &path);

	return r < 0 ? r
		     : bus_append_object(s, reply, instance_vtable, i, path,
					 PHCD_BUS_IFACE_INSTANCE);
}
