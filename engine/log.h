/*
 * Logging in one vocabulary, after relayd: log_warn (with errno),
 * log_warnx, log_info, log_debug; fatal/fatalx only from main() and
 * impossible states.
 */
#ifndef SPACEBOX_LOG_H
#define SPACEBOX_LOG_H

#include <stdio.h>

void	log_init(const char *progname, int debug, FILE *to);
void	log_set_file(FILE *to);
void	log_warn(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_warnx(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_info(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_debug(const char *, ...) __attribute__((format(printf, 1, 2)));
void	fatal(const char *, ...)
	    __attribute__((format(printf, 1, 2), noreturn));
void	fatalx(const char *, ...)
	    __attribute__((format(printf, 1, 2), noreturn));

#endif
