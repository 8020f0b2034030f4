/*
 * The system-call filter every sandbox gets: a seccomp program built with
 * libseccomp and handed to bwrap (--seccomp FD), which installs it before
 * the sandbox's first process starts.  It refuses what a web app or a
 * build never needs and what widens the kernel's attack surface: new user
 * namespaces, mounts, keyrings, ptrace, BPF, perf, io_uring, module and
 * clock changes, open_by_handle_at.
 */
#ifndef SPACEBOX_FILTER_H
#define SPACEBOX_FILTER_H

#include <stddef.h>

/*
 * Compile the filter once (at engine start).  Returns 0, or -1 with a
 * one-line reason; the engine then refuses to launch sandboxes (it does
 * not run them without the filter).
 */
int	filter_init(char *err, size_t errlen);

/*
 * A fresh descriptor holding the compiled program, positioned at its
 * start, for one launch; the caller closes it.  -1 with err.
 */
int	filter_fd(char *err, size_t errlen);

#endif
