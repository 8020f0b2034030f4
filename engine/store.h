/*
 * The policy store: one JSON file per app under
 * <root>/sandbox/app-policies/<id>.json, written atomically.
 */
#ifndef SPACEBOX_STORE_H
#define SPACEBOX_STORE_H

#include "policy.h"

#define STORE_OK	0
#define STORE_MISSING	1
#define STORE_CORRUPT	(-1)

/*
 * Load one app's policy.  STORE_OK fills p; STORE_MISSING leaves the
 * defaults; STORE_CORRUPT writes "<path>: <reason>" to err and leaves the
 * defaults, which the caller must never use as the app's policy.
 */
int	store_load(const char *dir, const char *id, const struct guard_env *,
	    struct policy *p, char *err, size_t errlen);

/*
 * Save atomically: temporary file, fsync, rename, fsync of the directory.
 * A file that does not parse is first kept aside as
 * <id>.json.corrupt-<time>.  Returns 0 or -1 with err.
 */
int	store_save(const char *dir, const char *id, const struct policy *p,
	    char *err, size_t errlen);

/*
 * Write text to dir/name atomically (the same way policies are written):
 * temporary file, fsync, rename, fsync of the directory.
 */
int	store_write_atomic(const char *dir, const char *name, const char *text,
	    char *err, size_t errlen);

/*
 * Remove temporary files left by saves that a crash interrupted (their
 * writer, named in the file name, is gone).  Returns how many went.
 */
int	store_sweep(const char *dir);

#endif
