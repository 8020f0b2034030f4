/*
 * Two-way socket relays with splice(2): bytes move socket -> pipe ->
 * socket without being copied through user space, driven by libuv poll
 * handles.  Used by the shim's bridges and the proxy's CONNECT tunnels.
 */
#ifndef SPACEBOX_SPLICE_H
#define SPACEBOX_SPLICE_H

#include <uv.h>

struct splice_pair;

/* Bytes moved (either way); at most once per event. */
typedef void (*splice_activity_cb)(void *arg);

/*
 * The pair is over and gone: its handles are closed, its sockets too.
 * error is 0 when both ways ended with an EOF (or the owner closed it),
 * 1 after an error or splice_pair_abort (the peers saw a reset).
 */
typedef void (*splice_done_cb)(void *arg, int error);

/*
 * Relay between two connected, non-blocking stream sockets, which the
 * pair then owns: flow 0 reads fd0 and writes fd1, flow 1 the other way.
 * EOF on one side becomes shutdown(SHUT_WR) on the other; the pair ends
 * when both ways have ended, or at once on an error, with a reset passed
 * on as a reset.  Nothing is called back before this returns.  NULL when
 * the pair cannot be set up: the sockets have then been closed (with a
 * reset) and done is never called.
 */
struct splice_pair	*splice_pair_new(uv_loop_t *, int fd0, int fd1,
			    splice_activity_cb, splice_done_cb, void *arg);

/*
 * From now on only flow keep reads; the other only flushes what it holds.
 * The pair ends once flow keep has ended and the other has nothing left.
 */
void			 splice_pair_drain(struct splice_pair *, int keep);

/* End now: close both sockets (done follows, from the loop). */
void			 splice_pair_close(struct splice_pair *);

/* End now with a zero linger, so both peers see a reset. */
void			 splice_pair_abort(struct splice_pair *);

#endif
