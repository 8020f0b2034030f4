/*
 * The policy store.  Plain files so configuration management can deploy
 * them; each write is atomic so a crash leaves the old or the new policy,
 * never a mix, and a file that does not parse is never read as "off".
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "paths.h"
#include "store.h"
#include "xmalloc.h"

#define STORE_MAX_FILE	(256 * 1024)

static int
store_path(const char *dir, const char *id, char *path, size_t len)
{
	int	n;

	n = snprintf(path, len, "%s/%s.json", dir, id);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* Read a whole small file; returns NULL with errno set. */
static char *
store_read(const char *path, size_t *lenp)
{
	struct stat	 st = { 0 };
	char		*buf;
	ssize_t		 n;
	size_t		 off = 0;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1)
		return NULL;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size > STORE_MAX_FILE) {
		int saved = errno;

		if (st.st_size > STORE_MAX_FILE)
			saved = EFBIG;
		else if (saved == 0 || !S_ISREG(st.st_mode))
			saved = EINVAL;
		close(fd);
		errno = saved;
		return NULL;
	}
	buf = xmalloc((size_t)st.st_size + 1);
	while (off < (size_t)st.st_size) {
		n = read(fd, buf + off, (size_t)st.st_size - off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	close(fd);
	buf[off] = '\0';
	*lenp = off;
	return buf;
}

int
store_load(const char *dir, const char *id, const struct guard_env *env,
    struct policy *p, char *err, size_t errlen)
{
	char	 path[PATH_MAX], why[512];
	char	*text;
	size_t	 len;

	policy_init(p);
	if (store_path(dir, id, path, sizeof path) == -1) {
		snprintf(err, errlen, "%s/%s.json: path too long", dir, id);
		return STORE_CORRUPT;
	}
	if ((text = store_read(path, &len)) == NULL) {
		if (errno == ENOENT)
			return STORE_MISSING;
		snprintf(err, errlen, "%s: cannot read: %s", path,
		    errno == EFBIG ? "larger than 256 KiB" : strerror(errno));
		return STORE_CORRUPT;
	}
	if (policy_parse(p, text, len, env, POLICY_FROM_STORE, why,
	    sizeof why) == -1) {
		snprintf(err, errlen, "%s: %s", path, why);
		free(text);
		return STORE_CORRUPT;
	}
	free(text);
	return STORE_OK;
}

static int
store_write_all(int fd, const char *buf, size_t len)
{
	ssize_t	n;

	while (len > 0) {
		n = write(fd, buf, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Keep a file that does not parse aside so saving never loses it. */
static int
store_set_aside(const char *dir, const char *id, const char *path, char *err,
    size_t errlen)
{
	struct policy	 p;
	char		 aside[PATH_MAX], why[512];
	char		*text;
	size_t		 len;
	int		 bad;

	if ((text = store_read(path, &len)) == NULL)
		return 0;
	/* Validity of folders does not matter here, only the syntax. */
	bad = policy_parse(&p, text, len, NULL, POLICY_FROM_STORE, why,
	    sizeof why) == -1;
	policy_free(&p);
	free(text);
	if (!bad)
		return 0;
	snprintf(aside, sizeof aside, "%s/%s.json.corrupt-%lld", dir, id,
	    (long long)time(NULL));
	if (rename(path, aside) == -1) {
		snprintf(err, errlen, "%s: cannot keep the corrupt file aside "
		    "as %s: %s", path, aside, strerror(errno));
		return -1;
	}
	return 0;
}

int
store_write_atomic(const char *dir, const char *name, const char *text,
    char *err, size_t errlen)
{
	char	 path[PATH_MAX], tmp[PATH_MAX];
	int	 fd, dfd;

	if (snprintf(path, sizeof path, "%s/%s", dir, name) >=
	    (int)sizeof path || snprintf(tmp, sizeof tmp, "%s/.%s.tmp-%ld",
	    dir, name, (long)getpid()) >= (int)sizeof tmp) {
		snprintf(err, errlen, "%s/%s: path too long", dir, name);
		return -1;
	}
	if (paths_mkdirs(dir, 0700) == -1) {
		snprintf(err, errlen, "%s: cannot create: %s", dir,
		    strerror(errno));
		return -1;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
	    0600);
	if (fd == -1) {
		snprintf(err, errlen, "%s: cannot create: %s", tmp,
		    strerror(errno));
		return -1;
	}
	if (store_write_all(fd, text, strlen(text)) == -1 || fsync(fd) == -1) {
		snprintf(err, errlen, "%s: cannot write: %s", tmp,
		    strerror(errno));
		close(fd);
		unlink(tmp);
		return -1;
	}
	close(fd);
	if (rename(tmp, path) == -1) {
		snprintf(err, errlen, "%s: cannot replace: %s", path,
		    strerror(errno));
		unlink(tmp);
		return -1;
	}
	/* The rename is durable only once the directory itself is synced. */
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) != -1) {
		fsync(dfd);
		close(dfd);
	}
	return 0;
}

int
store_save(const char *dir, const char *id, const struct policy *p,
    char *err, size_t errlen)
{
	char	 path[PATH_MAX], name[PATH_MAX];
	char	*text, *pretty;
	int	 rv;

	if (store_path(dir, id, path, sizeof path) == -1) {
		snprintf(err, errlen, "%s/%s.json: path too long", dir, id);
		return -1;
	}
	if (paths_mkdirs(dir, 0700) == -1) {
		snprintf(err, errlen, "%s: cannot create: %s", dir,
		    strerror(errno));
		return -1;
	}
	if (store_set_aside(dir, id, path, err, errlen) == -1)
		return -1;
	pretty = policy_to_string(p, 1);
	xasprintf(&text, "%s\n", pretty);
	free(pretty);
	snprintf(name, sizeof name, "%s.json", id);
	rv = store_write_atomic(dir, name, text, err, errlen);
	free(text);
	return rv;
}

int
store_sweep(const char *dir)
{
	DIR		*d;
	struct dirent	*de;
	const char	*tag;
	char		*end;
	long		 pid;
	int		 n = 0;

	if ((d = opendir(dir)) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] != '.' ||
		    (tag = strstr(de->d_name, ".json.tmp-")) == NULL)
			continue;
		pid = strtol(tag + 10, &end, 10);
		if (*end != '\0' || pid <= 0)
			continue;
		if (kill((pid_t)pid, 0) == -1 && errno == ESRCH &&
		    unlinkat(dirfd(d), de->d_name, 0) == 0)
			n++;
	}
	closedir(d);
	return n;
}
