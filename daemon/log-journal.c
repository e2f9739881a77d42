// SPDX-License-Identifier: GPL-2.0-or-later
/* The supervisor's log sink: under journald, each line as a native entry with its fields. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/uio.h>
/* CODE_FILE= would always name this sink, not who logs: leave it out. */
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>
#include <unistd.h>

#include "common/log.h"
#include "daemon/log-journal.h"

#define FIELD_MAX 600

/* stderr is the journal's stream (systemd sets JOURNAL_STREAM to its "device:inode"). */
static bool stderr_is_journal(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	return e && sscanf(e, "%llu:%llu", &dev, &ino) == 2 && fstat(STDERR_FILENO, &st) == 0 &&
	       st.st_dev == dev && st.st_ino == ino;
}

/* Append "KEY=value" to a native journal entry. */
static void journal_field(struct iovec *iov, size_t *n, char (*bufs)[FIELD_MAX], const char *key,
			  const char *value)
{
	int len = snprintf(bufs[*n], sizeof(bufs[*n]), "%s=%s", key, value);

	iov[*n] = (struct iovec){ .iov_base = bufs[*n],
				  .iov_len = (size_t) len < sizeof(bufs[*n])
						     ? (size_t) len
						     : sizeof(bufs[*n]) - 1 };
	(*n)++;
}

static bool journal_sink(int level, const char *ident, const char *ifname, const char *object,
			 const char *msg)
{
	char bufs[5][FIELD_MAX], pr[4];
	struct iovec iov[5];
	size_t n = 0;

	snprintf(pr, sizeof(pr), "%d", level);
	if (ifname) {
		/* The interface leads the text, as on stderr and as networkd does ("eth0: ..."):
		 * `journalctl -u phcd` shows the message, not the field. */
		char line[FIELD_MAX];

		snprintf(line, sizeof(line), "%s: %s", ifname, msg);
		journal_field(iov, &n, bufs, "MESSAGE", line);
	} else {
		journal_field(iov, &n, bufs, "MESSAGE", msg);
	}
	journal_field(iov, &n, bufs, "PRIORITY", pr);
	journal_field(iov, &n, bufs, "SYSLOG_IDENTIFIER", ident);
	if (object) {
		journal_field(iov, &n, bufs, "PHCD_OBJECT_PATH", object);
	}
	if (ifname) {
		journal_field(iov, &n, bufs, "PHCD_INTERFACE", ifname);
	}
	/* Not taken when journald cannot be reached: the line then goes to stderr. */
	return sd_journal_sendv(iov, (int) n) >= 0;
}

void log_journal_setup(void)
{
	if (stderr_is_journal()) {
		log_set_sink(journal_sink);
	}
}
