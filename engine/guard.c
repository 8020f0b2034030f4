/*
 * Folder rules shared by the policy validator, the launch plan and the
 * command runner: what may never be granted, and what stays hidden.
 */
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"

const char *const guard_credential_stores[] = {
	".ssh", ".aws", ".gnupg", ".config/gcloud", ".kube", ".docker",
	".netrc", ".npmrc", ".pypirc", ".git-credentials",
	".local/share/keyrings", ".password-store",
	/* Inside folders a runtime on PATH may expose (~/.cargo/bin). */
	".cargo/credentials", ".cargo/credentials.toml", ".config/gh", NULL
};

static const char *const guard_system_roots[] = {
	"/usr", "/etc", "/var", "/dev", "/proc", "/sys", "/bin", "/sbin",
	"/lib", "/lib32", "/lib64", "/libx32", "/boot", "/run", NULL
};

int
path_within(const char *path, const char *dir)
{
	size_t	n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return path[0] == '/';
	if (strncmp(path, dir, n) != 0)
		return 0;
	return path[n] == '\0' || path[n] == '/';
}

int
path_is_ancestor(const char *path, const char *dir)
{
	return strcmp(path, dir) != 0 && path_within(dir, path);
}

int
guard_is_system_root(const char *path)
{
	size_t	i;

	for (i = 0; guard_system_roots[i] != NULL; i++) {
		if (strcmp(path, guard_system_roots[i]) == 0)
			return 1;
	}
	return 0;
}

int
guard_in_credential_store(const struct guard_env *env, const char *path,
    char *store)
{
	char	 name[PATH_MAX], real[PATH_MAX];
	size_t	 i;
	int	 n;

	if (env->home == NULL)
		return 0;
	for (i = 0; guard_credential_stores[i] != NULL; i++) {
		n = snprintf(name, sizeof name, "%s/%s", env->home,
		    guard_credential_stores[i]);
		if (n < 0 || (size_t)n >= sizeof name)
			continue;
		/*
		 * A store may itself be a symlink (~/.ssh -> /data/ssh): the
		 * canonical path given to us would then be the target, so
		 * check both spellings.
		 */
		if (path_within(path, name) ||
		    (realpath(name, real) != NULL && path_within(path, real))) {
			if (store != NULL)
				snprintf(store, PATH_MAX, "%s", name);
			return 1;
		}
	}
	return 0;
}

int
guard_folder(const struct guard_env *env, const char *in, char *out,
    char *err, size_t errlen)
{
	struct stat	 st;
	char		 store[PATH_MAX];
	const char	*p;

	for (p = in; *p != '\0'; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f) {
			snprintf(err, errlen, "contains a control character");
			return -1;
		}
	}
	if (in[0] != '/') {
		snprintf(err, errlen, "not an absolute path; give the full "
		    "path starting with /");
		return -1;
	}
	if (strlen(in) >= PATH_MAX) {
		snprintf(err, errlen, "path too long");
		return -1;
	}
	if (realpath(in, out) == NULL) {
		if (errno == ENOENT || errno == ENOTDIR)
			snprintf(err, errlen, "does not exist; create the "
			    "folder first");
		else
			snprintf(err, errlen, "cannot be resolved: %s",
			    strerror(errno));
		return -1;
	}
	if (stat(out, &st) == -1 || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "not a directory; grant the folder "
		    "that contains it");
		return -1;
	}
	if (strcmp(out, "/") == 0) {
		snprintf(err, errlen, "the whole filesystem cannot be "
		    "granted");
		return -1;
	}
	if (env->home != NULL && strcmp(out, env->home) == 0) {
		snprintf(err, errlen, "your home folder cannot be granted; "
		    "grant a folder inside it");
		return -1;
	}
	if (env->home != NULL && path_is_ancestor(out, env->home)) {
		snprintf(err, errlen, "contains your home folder %s; grant "
		    "a folder inside it", env->home);
		return -1;
	}
	if (guard_is_system_root(out)) {
		snprintf(err, errlen, "a system root cannot be granted; "
		    "grant a folder inside it");
		return -1;
	}
	if (guard_in_credential_store(env, out, store)) {
		snprintf(err, errlen, "inside the credential store %s; "
		    "credential stores can never be granted", store);
		return -1;
	}
	if (env->root != NULL && path_within(out, env->root)) {
		snprintf(err, errlen, "inside the engine's state root %s, "
		    "which apps may never read", env->root);
		return -1;
	}
	return 0;
}
