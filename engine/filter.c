/*
 * The sandbox's system-call filter.  See filter.h.
 *
 * A deny list, not an allow list: apps are arbitrary Node and Python
 * servers and builds run arbitrary tools, so the filter only takes away
 * what they have no business with.  Refused calls fail with EPERM, except
 * io_uring and clone3, which fail with ENOSYS so that libuv and glibc
 * quietly fall back to what they used before those existed (clone3 cannot
 * be judged by its flags, so clone's CLONE_NEWUSER check would be moot).
 */
#include <sys/mman.h>
#include <sys/stat.h>

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <seccomp.h>

#include "filter.h"
#include "xmalloc.h"

static const char *const filter_denied[] = {
	/* Namespaces and mounts: the sandbox's shape is bwrap's. */
	"unshare", "setns", "mount", "umount2", "pivot_root", "chroot",
	"fsopen", "fsmount", "fsconfig", "fspick", "open_tree",
	"move_mount", "mount_setattr",
	/* Other processes and the kernel's inner parts. */
	"ptrace", "process_vm_readv", "process_vm_writev", "kcmp",
	"add_key", "request_key", "keyctl", "bpf", "perf_event_open",
	"userfaultfd", "lookup_dcookie", "open_by_handle_at",
	"name_to_handle_at",
	/* The machine itself. */
	"reboot", "kexec_load", "kexec_file_load", "init_module",
	"finit_module", "delete_module", "swapon", "swapoff", "acct",
	"settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
	"syslog", "vhangup", "quotactl", "nfsservctl",
	NULL
};

static const char *const filter_enosys[] = {
	"io_uring_setup", "io_uring_enter", "io_uring_register", "clone3",
	NULL
};

static char	*filter_prog;
static size_t	 filter_len;

int
filter_init(char *err, size_t errlen)
{
	scmp_filter_ctx	 ctx;
	struct stat	 st;
	char		*buf = NULL;
	size_t		 len = 0;
	size_t		 i;
	int		 nr, fd, rv = -1;

	if ((ctx = seccomp_init(SCMP_ACT_ALLOW)) == NULL) {
		snprintf(err, errlen, "seccomp_init failed");
		return -1;
	}
	for (i = 0; filter_denied[i] != NULL; i++) {
		/* A call this architecture does not have needs no rule. */
		if ((nr = seccomp_syscall_resolve_name(filter_denied[i])) ==
		    __NR_SCMP_ERROR)
			continue;
		if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0) != 0)
			goto fail;
	}
	for (i = 0; filter_enosys[i] != NULL; i++) {
		if ((nr = seccomp_syscall_resolve_name(filter_enosys[i])) ==
		    __NR_SCMP_ERROR)
			continue;
		if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0) != 0)
			goto fail;
	}
	/* clone may make threads and processes, never a user namespace. */
	if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
	    SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER)) != 0)
		goto fail;
	/* libseccomp writes to a descriptor: a memfd, read back once. */
	if ((fd = memfd_create("spacebox-seccomp", MFD_CLOEXEC)) == -1)
		goto fail;
	if (seccomp_export_bpf(ctx, fd) == 0 && fstat(fd, &st) == 0 &&
	    st.st_size > 0) {
		len = (size_t)st.st_size;
		buf = xmalloc(len);
		if (pread(fd, buf, len, 0) == (ssize_t)len) {
			free(filter_prog);
			filter_prog = buf;
			filter_len = len;
			buf = NULL;
			rv = 0;
		}
	}
	close(fd);
fail:
	free(buf);
	seccomp_release(ctx);
	if (rv == -1)
		snprintf(err, errlen, "cannot build the system-call filter "
		    "with libseccomp");
	return rv;
}

int
filter_fd(char *err, size_t errlen)
{
	size_t	off = 0;
	ssize_t	n;
	int	fd;

	if (filter_prog == NULL) {
		snprintf(err, errlen, "no system-call filter was built");
		return -1;
	}
	if ((fd = memfd_create("spacebox-seccomp", MFD_CLOEXEC)) == -1) {
		snprintf(err, errlen, "memfd_create: %s", strerror(errno));
		return -1;
	}
	while (off < filter_len) {
		if ((n = write(fd, filter_prog + off, filter_len - off)) <= 0) {
			snprintf(err, errlen, "writing the filter: %s",
			    strerror(errno));
			close(fd);
			return -1;
		}
		off += (size_t)n;
	}
	if (lseek(fd, 0, SEEK_SET) == -1) {
		snprintf(err, errlen, "lseek: %s", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}
