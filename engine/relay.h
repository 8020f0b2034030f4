/*
 * Byte relays between two streams, with backpressure: no thread or
 * process per connection.  Used for the bridges that carry a sandboxed
 * app's allowed loopback ports out of its network namespace.
 */
#ifndef SPACEBOX_RELAY_H
#define SPACEBOX_RELAY_H

#include <uv.h>

struct relay_listener;

/*
 * Listen on a unix socket at path; relay each connection to
 * 127.0.0.1:port.  Returns NULL with err on failure.
 */
struct relay_listener	*relay_unix_to_tcp(uv_loop_t *, const char *path,
			    int port, char *err, size_t errlen);

/* Stop listening and close every relayed connection. */
void			 relay_close(struct relay_listener *);

#endif
