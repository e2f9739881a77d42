/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A PHC's external timestamp input (a 1PPS on a pin), as ts2phc sets it up, behind an ioctl seam.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The kernel interface, one table: phc_extts_kernel_ops calls ioctl() and read() on the PHC's fd;
 * tests give a fake that plays a NIC with pins (no NIC here has one).
 */
struct phc_extts_ops {
	/* ioctl(fd, request, arg): 0 or -errno */
	int (*ioctl)(void *userdata, int fd, unsigned long request, void *arg);
	/* read(fd, buf, size): bytes read, or -errno (-EAGAIN: nothing; the fd is O_NONBLOCK) */
	ssize_t (*read)(void *userdata, int fd, void *buf, size_t size);
};

extern const struct phc_extts_ops phc_extts_kernel_ops;

struct phc_extts {
	const struct phc_extts_ops *ops;
	void *userdata;
	int fd;		      /* the PHC, opened O_RDWR | O_NONBLOCK by the caller, not owned */
	unsigned int pin;     /* the pin that carries the pulse (PTP_PIN_SETFUNC) */
	unsigned int channel; /* its external timestamp channel (PTP_EXTTS_REQUEST) */
	bool enabled;
	uint64_t events;   /* edges taken */
	uint64_t foreign;  /* events of another channel on the same PHC, skipped */
	uint64_t rejected; /* events out of range (nanoseconds >= 10^9, a time before 1970), dropped
			    */
};

/* The PHC's time of one pulse's rising edge, in nanoseconds (the PHC's own timescale). */
struct phc_extts_edge {
	int64_t t_ns;
};

/*
 * Give pin the external timestamp function on channel and timestamp its rising edges, as ts2phc
 * does: PTP_CLOCK_GETCAPS (-ENODEV: the PHC has no pins or no channels; -ERANGE: pin or channel
 * beyond what it has), PTP_PIN_SETFUNC2 (PTP_PF_EXTTS), then PTP_EXTTS_REQUEST2 with
 * PTP_ENABLE_FEATURE | PTP_RISING_EDGE; events already queued are read and dropped. On failure
 * the pin is given back (PTP_PF_NONE) and the kernel's -errno returned (-EOPNOTSUPP: the driver
 * cannot; -EBUSY: the pin is another function's), *x left disabled.
 */
int phc_extts_enable(struct phc_extts *x, const struct phc_extts_ops *ops, void *userdata, int fd,
		     unsigned int pin, unsigned int channel);
/* Stop the timestamps and give the pin back (PTP_PF_NONE). No-op when not enabled. */
void phc_extts_disable(struct phc_extts *x);
/*
 * The edges queued on the PHC, up to max: their number (0: none now), or -errno from read().
 * Events of other channels are skipped and counted in foreign, impossible times in rejected; a
 * short read (not a whole event) is -EIO.
 */
int phc_extts_read(struct phc_extts *x, struct phc_extts_edge *edges, size_t max);
