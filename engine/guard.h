/*
 * Folder rules: which paths may ever be granted to an app or a command,
 * and which stay hidden inside a granted parent.  All comparisons are on
 * canonical (realpath) paths.
 */
#ifndef SPACEBOX_GUARD_H
#define SPACEBOX_GUARD_H

#include <limits.h>
#include <stddef.h>

/*
 * What the rules are computed from.  Borrowed strings, both canonical:
 * home is the engine's $HOME, root the state root ($SENCLAW_HOME).
 */
struct guard_env {
	const char	*home;
	const char	*root;
};

/* Credential stores, relative to $HOME, in a fixed order. */
extern const char *const guard_credential_stores[];

/*
 * Check a folder someone asked to grant.  Canonicalises in (which must be
 * an absolute path to an existing directory) into out (PATH_MAX bytes).
 * Returns 0, or -1 with a one-line reason in err that does not repeat the
 * path (the caller names the field and the value).
 */
int	guard_folder(const struct guard_env *, const char *in, char *out,
	    char *err, size_t errlen);

/*
 * 1 when path is equal to or inside a credential store (by its name under
 * home or by the store's own canonical path, for a store that is a
 * symlink), and copies the store's path to store (PATH_MAX) if not NULL.
 */
int	guard_in_credential_store(const struct guard_env *, const char *path,
	    char *store);

/* 1 when path equals one of the system roots (/usr, /etc, ...). */
int	guard_is_system_root(const char *path);

/* 1 when path is a strict ancestor of dir ("/home" of "/home/u"). */
int	path_is_ancestor(const char *path, const char *dir);

/* 1 when path equals dir or lies inside it, label-aligned on '/'. */
int	path_within(const char *path, const char *dir);

#endif
