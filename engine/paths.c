/*
 * Where spacebox keeps things.  Both programs compute the same paths from
 * the same environment so the client finds the engine's socket.
 */
#include <sys/stat.h>

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "paths.h"
#include "xmalloc.h"

static char *
paths_canon(const char *p)
{
	char	buf[PATH_MAX];

	if (realpath(p, buf) != NULL)
		return xstrdup(buf);
	return xstrdup(p);
}

int
paths_mkdirs(const char *path, int mode)
{
	char	 buf[PATH_MAX], *p;

	if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (p = buf + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, mode) == -1 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, mode) == -1 && errno != EEXIST)
		return -1;
	return 0;
}

int
paths_init(struct sb_paths *sp, const char *socket_opt,
    const char *workspace_opt, char *err, size_t errlen)
{
	const char	*home, *root, *rt, *sock;
	struct passwd	*pw;
	char		*tmp;

	memset(sp, 0, sizeof *sp);
	if ((home = getenv("HOME")) == NULL || *home != '/') {
		if ((pw = getpwuid(getuid())) == NULL) {
			snprintf(err, errlen, "HOME is not set and uid %u has "
			    "no passwd entry; set HOME", (unsigned)getuid());
			return -1;
		}
		home = pw->pw_dir;
	}
	sp->home = paths_canon(home);

	if ((root = getenv("SENCLAW_HOME")) != NULL && *root != '\0') {
		if (*root != '/') {
			snprintf(err, errlen, "SENCLAW_HOME \"%s\" is not an "
			    "absolute path", root);
			paths_free(sp);
			return -1;
		}
		sp->root = paths_canon(root);
	} else {
		xasprintf(&tmp, "%s/.senclaw", sp->home);
		sp->root = paths_canon(tmp);
		free(tmp);
	}

	if (workspace_opt != NULL) {
		if (*workspace_opt != '/') {
			char cwd[PATH_MAX];

			if (getcwd(cwd, sizeof cwd) == NULL) {
				snprintf(err, errlen, "getcwd: %s",
				    strerror(errno));
				paths_free(sp);
				return -1;
			}
			xasprintf(&tmp, "%s/%s", cwd, workspace_opt);
		} else
			tmp = xstrdup(workspace_opt);
		sp->workspace = paths_canon(tmp);
		free(tmp);
	} else
		xasprintf(&sp->workspace, "%s/workspace", sp->root);
	xasprintf(&sp->apps_dir, "%s/space-apps", sp->workspace);

	if (socket_opt == NULL)
		socket_opt = getenv("SPACEBOX_SOCKET");
	if (socket_opt != NULL && *socket_opt != '\0')
		sp->socket = xstrdup(socket_opt);
	else if ((rt = getenv("XDG_RUNTIME_DIR")) != NULL && *rt == '/')
		xasprintf(&sp->socket, "%s/spacebox/spaceboxd.sock", rt);
	else
		xasprintf(&sp->socket, "%s/run/spaceboxd.sock", sp->root);
	sock = sp->socket;
	if (strlen(sock) >= 100) {
		/* sun_path holds 108 bytes; leave room for a clear error. */
		snprintf(err, errlen, "socket path %s is too long for a unix "
		    "socket; use --socket with a shorter path", sock);
		paths_free(sp);
		return -1;
	}

	xasprintf(&sp->sandbox_dir, "%s/sandbox", sp->root);
	xasprintf(&sp->policy_dir, "%s/app-policies", sp->sandbox_dir);
	xasprintf(&sp->log_dir, "%s/logs", sp->sandbox_dir);
	return 0;
}

void
paths_free(struct sb_paths *sp)
{
	free(sp->home);
	free(sp->root);
	free(sp->workspace);
	free(sp->apps_dir);
	free(sp->socket);
	free(sp->sandbox_dir);
	free(sp->policy_dir);
	free(sp->log_dir);
	memset(sp, 0, sizeof *sp);
}

static int
paths_rm_one(const char *path, const struct stat *st, int flag,
    struct FTW *ftw)
{
	return remove(path) == -1 && errno != ENOENT ? -1 : 0;
}

int
paths_rmtree(const char *path)
{
	return nftw(path, paths_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}
