/*
 * Logging for spaceboxd and spacebox: one line per message, prefixed with
 * the program name, to stderr or to the engine's log file once detached.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"

static const char	*log_prog = "spacebox";
static int		 log_debugging;
static FILE		*log_to;

void
log_init(const char *progname, int debug, FILE *to)
{
	log_prog = progname;
	log_debugging = debug;
	log_to = to;
}

void
log_set_file(FILE *to)
{
	log_to = to;
}

static void
log_vwrite(const char *level, int with_errno, const char *fmt, va_list ap)
{
	FILE		*f = log_to != NULL ? log_to : stderr;
	int		 saved = errno;
	char		 stamp[32] = "";
	time_t		 now;
	struct tm	 tm;

	if (f != stderr) {
		now = time(NULL);
		if (gmtime_r(&now, &tm) != NULL)
			strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ ", &tm);
	}
	fprintf(f, "%s%s: %s", stamp, log_prog, level);
	vfprintf(f, fmt, ap);
	if (with_errno)
		fprintf(f, ": %s", strerror(saved));
	fputc('\n', f);
	fflush(f);
	errno = saved;
}

void
log_warn(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	log_vwrite("", 1, fmt, ap);
	va_end(ap);
}

void
log_warnx(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	log_vwrite("", 0, fmt, ap);
	va_end(ap);
}

void
log_info(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	log_vwrite("", 0, fmt, ap);
	va_end(ap);
}

void
log_debug(const char *fmt, ...)
{
	va_list	ap;

	if (!log_debugging)
		return;
	va_start(ap, fmt);
	log_vwrite("debug: ", 0, fmt, ap);
	va_end(ap);
}

void
fatal(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	log_vwrite("fatal: ", 1, fmt, ap);
	va_end(ap);
	exit(1);
}

void
fatalx(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	log_vwrite("fatal: ", 0, fmt, ap);
	va_end(ap);
	exit(1);
}
