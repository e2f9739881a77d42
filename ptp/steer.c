// SPDX-License-Identifier: GPL-2.0-or-later
/* What a port steers, from its configuration and what its interface gave. Pure. */
#include <errno.h>
#include <stddef.h>

#include "ptp/steer.h"
#include "ptp/util.h"

enum options_timestamping steer_ts_request(enum options_clock_backend backend,
					   enum options_timestamping time_stamping)
{
	switch (time_stamping) {
	case OPTIONS_TS_HARDWARE:
		/* Asked for: taken, and for "system" refused by steer_decide() with the reason. */
	case OPTIONS_TS_SOFTWARE:
		return time_stamping;
	case OPTIONS_TS_AUTO:
	default:
		/* The system clock follows offsets taken on CLOCK_REALTIME: software stamps. */
		return backend == OPTIONS_CLOCK_SYSTEM ? OPTIONS_TS_SOFTWARE : OPTIONS_TS_AUTO;
	}
}

bool steer_wants_phc(enum options_clock_backend backend, bool hw_timestamps)
{
	return hw_timestamps && backend != OPTIONS_CLOCK_SYSTEM;
}

static void decide(struct steer_decision *d, enum steer_target t, bool servo, bool raw_phc,
		   int error, const char *reason)
{
	*d = (struct steer_decision){
		.target = t,
		.servo = servo,
		.raw_phc = raw_phc,
		.error = error,
		.reason = error ? reason : NULL,
	};
}

void steer_decide(const struct steer_input *in, struct steer_decision *d)
{
	bool hw = in->hw_timestamps;

	if (in->backend == OPTIONS_CLOCK_SYSTEM && in->time_stamping == OPTIONS_TS_HARDWARE) {
		decide(d, STEER_FAULTY, false, false, -EINVAL,
		       "clock_backend system takes software timestamps only");
		return;
	}
	/* As ptp4l: hardware asked for and not had is not a port, never a software fallback. */
	if (in->time_stamping == OPTIONS_TS_HARDWARE && !hw) {
		decide(d, STEER_FAULTY, false, false, in->hw_error ? in->hw_error : -EOPNOTSUPP,
		       in->phc_index < 0 ? "time_stamping hardware: the interface has no PHC"
					 : "time_stamping hardware: refused by the driver");
		return;
	}
	/* Hardware timestamps are the PHC's time: without the PHC nothing can be read or steered.
	 */
	if (hw && !in->phc_open && in->backend != OPTIONS_CLOCK_SYSTEM) {
		decide(d, STEER_FAULTY, false, false, in->phc_error ? in->phc_error : -ENODEV,
		       "hardware timestamps, but the PHC cannot be opened");
		return;
	}
	switch (in->backend) {
	case OPTIONS_CLOCK_PHC:
		if (!hw) {
			/* auto without a PHC, or software asked for: nothing of ours to steer. */
			decide(d, STEER_NOTHING, false, false,
			       in->hw_error ? in->hw_error : -ENODEV,
			       "no PHC with hardware timestamps: measuring only");
		} else if (in->phc_error) {
			decide(d, STEER_FAULTY, false, false, in->phc_error,
			       "the PHC cannot be adjusted");
		} else {
			decide(d, STEER_PHC, true, true, 0, NULL);
		}
		return;
	case OPTIONS_CLOCK_VIRTUAL:
		decide(d, STEER_VIRTUAL, true, hw, 0, NULL);
		return;
	case OPTIONS_CLOCK_SYSTEM:
		if (hw) {
			/* auto never asks for hardware here (steer_ts_request); a driver forced it.
			 */
			decide(d, STEER_FAULTY, false, false, -EINVAL,
			       "clock_backend system, but the socket has hardware timestamps");
		} else {
			decide(d, STEER_SYSTEM, false, false, 0, NULL);
		}
		return;
	case OPTIONS_CLOCK_FREE_RUNNING:
	default:
		decide(d, STEER_NOTHING, false, hw, 0, NULL);
		return;
	}
}

const char *steer_target_to_string(enum steer_target t)
{
	static const char *const names[] = {
		[STEER_PHC] = "phc",	     [STEER_VIRTUAL] = "virtual", [STEER_SYSTEM] = "system",
		[STEER_NOTHING] = "nothing", [STEER_FAULTY] = "faulty",
	};

	return (unsigned int) t < ARRAY_SIZE(names) ? names[t] : "unknown";
}
