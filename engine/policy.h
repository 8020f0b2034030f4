/*
 * The per-app sandbox policy: the SenClaw JSON keys and defaults, its
 * validation, and its round trip (unknown top-level keys are kept).
 */
#ifndef SPACEBOX_POLICY_H
#define SPACEBOX_POLICY_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "guard.h"

#define POLICY_MAX_FOLDERS	16
#define POLICY_MAX_HOSTS	64
#define POLICY_MAX_LOOPBACK	16

enum policy_read {
	POLICY_READ_OPEN,
	POLICY_READ_STRICT
};

enum policy_net {
	POLICY_NET_ALL,
	POLICY_NET_OFF,
	POLICY_NET_HOSTS
};

struct policy_folder {
	char	*path;		/* canonical, owned */
	int	 read_only;
};

/*
 * One app's policy.  policy_init sets the defaults; policy_free releases
 * the owned strings and the extra keys.  Copies are deep (policy_copy).
 */
struct policy {
	int			 enabled;
	enum policy_read	 read_mode;
	struct policy_folder	 folders[POLICY_MAX_FOLDERS];
	size_t			 nfolders;
	enum policy_net		 network;
	char			*hosts[POLICY_MAX_HOSTS];	/* owned */
	size_t			 nhosts;
	int			 daemon_api;
	int			 loopback[POLICY_MAX_LOOPBACK];	/* sorted */
	size_t			 nloopback;
	int			 forced;
	int			 allow_private;
	cJSON			*extra;		/* unknown keys, owned */
};

/* Where a policy comes from: a request body may not set "forced". */
#define POLICY_FROM_STORE	0x0
#define POLICY_FROM_REQUEST	0x1

void	 policy_init(struct policy *);
void	 policy_free(struct policy *);
void	 policy_copy(struct policy *dst, const struct policy *src);

/*
 * Parse and validate.  On success returns 0 and fills p (which must be
 * freed); on failure returns -1, leaves p initialised to the defaults and
 * writes one line naming the field and the value to err.
 */
int	 policy_from_json(struct policy *p, const cJSON *json,
	    const struct guard_env *, int flags, char *err, size_t errlen);
int	 policy_parse(struct policy *p, const char *text, size_t len,
	    const struct guard_env *, int flags, char *err, size_t errlen);

/* The canonical JSON form: known keys in a fixed order, then extras. */
cJSON	*policy_to_json(const struct policy *);
char	*policy_to_string(const struct policy *, int pretty);

int	 policy_equal(const struct policy *, const struct policy *);
/* 1 when something other than the site list or allowPrivate differs. */
int	 policy_needs_restart(const struct policy *running,
	    const struct policy *saved);

/* Add one site (normalised, validated, de-duplicated); -1 with err. */
int	 policy_add_host(struct policy *, const char *host, char *err,
	    size_t errlen);

const char *policy_read_name(enum policy_read);
const char *policy_net_name(enum policy_net);

#endif
