/*
 * Golden tests of plan.c: the full bwrap argv of every read mode x network
 * mode, folder grants, PATH-derived runtime grants, masks and their place
 * in the order, the app's own folders, the network bridges, namespaces,
 * the environment, disabled and unconfined plans, the log line, plan_json
 * and a symlinked HOME -- all against a real temporary HOME under /var/tmp
 * (not /tmp: the plan masks /tmp).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "guard.h"
#include "paths.h"
#include "plan.h"
#include "policy.h"

#define T_PREFIX	"/var/tmp/sbplan."
#define T_START		"node server.js --port \"$PORT\""
#define T_NRT		18	/* runtime folders for the cap test */

/* ------------------------------------------------------------------ */
/* the temporary tree */

static char	t_base[PATH_MAX];	/* /var/tmp/sbplan.XXXXXX, canonical */
static char	t_home[PATH_MAX];	/* <base>/home */
static char	t_homelink[PATH_MAX];	/* <base>/homelink -> home */
static char	t_root[PATH_MAX];	/* <home>/.senclaw */
static char	t_sandbox[PATH_MAX];	/* <root>/sandbox */
static char	t_netdir[PATH_MAX];	/* <root>/sandbox/app-net/demo */
static char	t_appdir[PATH_MAX];	/* <root>/workspace/space-apps/demo */
static char	t_shim[PATH_MAX];	/* <base>/libexec/spacebox-shim */
static char	t_aws_real[PATH_MAX];	/* <base>/elsewhere/aws-real */
static struct guard_env t_env;

/* snprintf that fails the test rather than truncate a path. */
static size_t __attribute__((format(printf, 3, 4)))
fmt(char *buf, size_t len, const char *f, ...)
{
	va_list	ap;
	int	n;

	va_start(ap, f);
	n = vsnprintf(buf, len, f, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len)
		fail_msg("path too long for the test: %s", f);
	return (size_t)n;
}

static void
tpath(char *buf, size_t len, const char *rel)
{
	fmt(buf, len, "%s/%s", t_base, rel);
}

/* A path under the fake home. */
static void
hpath(char *buf, size_t len, const char *rel)
{
	fmt(buf, len, "%s/%s", t_home, rel);
}

static int
mk(const char *rel)
{
	char	path[PATH_MAX];

	tpath(path, sizeof path, rel);
	if (mkdir(path, 0700) == -1 && errno != EEXIST) {
		fprintf(stderr, "mkdir %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* mkdir -p of a path under the base. */
static int
mkp(const char *rel)
{
	char	 buf[PATH_MAX], *p;

	fmt(buf, sizeof buf, "%s", rel);
	for (p = buf; (p = strchr(p + 1, '/')) != NULL; ) {
		*p = '\0';
		if (mk(buf) == -1)
			return -1;
		*p = '/';
	}
	return mk(buf);
}

static int
ln(const char *target, const char *rel)
{
	char	path[PATH_MAX];

	tpath(path, sizeof path, rel);
	if (symlink(target, path) == -1) {
		fprintf(stderr, "symlink %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int
mkfile(const char *rel)
{
	char	 path[PATH_MAX];
	FILE	*f;

	tpath(path, sizeof path, rel);
	if ((f = fopen(path, "w")) == NULL)
		return -1;
	fputs("secret\n", f);
	fclose(f);
	return 0;
}

static int
tree_setup(void **state)
{
	static const char *const dirs[] = {
		"home/.ssh/bin",
		"home/.config/gcloud",
		"home/.config/other",
		"home/projects/app",
		"home/bin",
		"home/.nvm/versions/node/v20/bin",
		"home/.nvm/versions/node/v20/lib/node_modules/.bin",
		"home/.senclaw/sandbox/app-net/demo",
		"home/.senclaw/sandbox/tools/bin",
		"home/.senclaw/bin",
		"home/.senclaw/workspace/space-apps/demo",
		"elsewhere/aws-real",
		"elsewhere/bin",
		"libexec",
		NULL
	};
	char	tmpl[] = T_PREFIX "XXXXXX";
	char	real[PATH_MAX], path[PATH_MAX], rel[64];
	size_t	i;

	(void)state;
	if (mkdtemp(tmpl) == NULL || realpath(tmpl, real) == NULL ||
	    strlen(real) + 128 >= sizeof t_base)
		return -1;
	memcpy(t_base, real, strlen(real) + 1);
	for (i = 0; dirs[i] != NULL; i++) {
		if (mkp(dirs[i]) == -1)
			return -1;
	}
	for (i = 0; i < T_NRT; i++) {
		fmt(rel, sizeof rel, "rt/r%02zu/bin", i);
		if (mkp(rel) == -1)
			return -1;
	}
	if (mkfile("home/.netrc") == -1 ||
	    mkfile("elsewhere/aws-real/credentials") == -1 ||
	    mkfile("libexec/spacebox-shim") == -1)
		return -1;
	tpath(t_aws_real, sizeof t_aws_real, "elsewhere/aws-real");
	if (ln(t_aws_real, "home/.aws") == -1 ||
	    ln("app", "home/projects/applink") == -1)
		return -1;
	tpath(path, sizeof path, "home");
	if (ln(path, "homelink") == -1)
		return -1;

	tpath(t_home, sizeof t_home, "home");
	tpath(t_homelink, sizeof t_homelink, "homelink");
	fmt(t_root, sizeof t_root, "%s/.senclaw", t_home);
	fmt(t_sandbox, sizeof t_sandbox, "%s/sandbox", t_root);
	fmt(t_netdir, sizeof t_netdir, "%s/app-net/demo", t_sandbox);
	fmt(t_appdir, sizeof t_appdir, "%s/workspace/space-apps/demo",
	    t_root);
	tpath(t_shim, sizeof t_shim, "libexec/spacebox-shim");
	t_env.home = t_home;
	t_env.root = t_root;
	return 0;
}

static int
tree_teardown(void **state)
{
	(void)state;
	if (strncmp(t_base, T_PREFIX, strlen(T_PREFIX)) != 0)
		return 0;
	return paths_rmtree(t_base);
}

/* ------------------------------------------------------------------ */
/* string vectors: the expected argv and env */

struct sv {
	char	**v;
	size_t	  n;
};

static void
sv_add(struct sv *s, const char *a)
{
	s->v = realloc(s->v, (s->n + 1) * sizeof *s->v);
	assert_non_null(s->v);
	s->v[s->n] = strdup(a);
	assert_non_null(s->v[s->n]);
	s->n++;
}

/* Several strings, NULL-terminated. */
static void
sv_addl(struct sv *s, ...)
{
	va_list		 ap;
	const char	*a;

	va_start(ap, s);
	while ((a = va_arg(ap, const char *)) != NULL)
		sv_add(s, a);
	va_end(ap);
}

static void __attribute__((format(printf, 2, 3)))
sv_addf(struct sv *s, const char *f, ...)
{
	va_list	 ap;
	char	 buf[PATH_MAX * 2];

	va_start(ap, f);
	vsnprintf(buf, sizeof buf, f, ap);
	va_end(ap);
	sv_add(s, buf);
}

static void
sv_free(struct sv *s)
{
	size_t	i;

	for (i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

static void
dump(const char *what, char *const *v, size_t n, size_t mark)
{
	size_t	i;

	fprintf(stderr, "%s (%zu):\n", what, n);
	for (i = 0; i < n; i++)
		fprintf(stderr, "%s %3zu  %s\n", i == mark ? ">>" : "  ", i,
		    v[i]);
}

/* The whole argv, element by element, in order. */
static void
assert_argv(const struct plan *p, const struct sv *want)
{
	size_t	i;

	for (i = 0; i < p->argc && i < want->n; i++) {
		if (strcmp(p->argv[i], want->v[i]) != 0)
			break;
	}
	if (i == p->argc && i == want->n) {
		assert_null(p->argv[p->argc]);
		return;
	}
	dump("expected argv", want->v, want->n, i);
	dump("actual argv", p->argv, p->argc, i);
	fail_msg("argv differs at element %zu: expected \"%s\", got \"%s\"",
	    i, i < want->n ? want->v[i] : "(end)",
	    i < p->argc ? p->argv[i] : "(end)");
}

/* The environment as a set: every entry once, nothing else. */
static void
assert_env(const struct plan *p, const struct sv *want)
{
	size_t	i, j, hits;

	for (i = 0; i < want->n; i++) {
		hits = 0;
		for (j = 0; j < p->nenv; j++)
			hits += strcmp(p->env[j], want->v[i]) == 0;
		if (hits != 1) {
			dump("actual env", p->env, p->nenv, (size_t)-1);
			fail_msg("env has \"%s\" %zu times", want->v[i], hits);
		}
	}
	if (p->nenv != want->n) {
		dump("expected env", want->v, want->n, (size_t)-1);
		dump("actual env", p->env, p->nenv, (size_t)-1);
		fail_msg("env has %zu entries, expected %zu", p->nenv,
		    want->n);
	}
	assert_null(p->env[p->nenv]);
}

/* Index of the first "a b c" triple at or after from, or -1. */
static long
find3(const struct plan *p, const char *a, const char *b, const char *c)
{
	size_t	i;

	for (i = 0; i + 2 < p->argc; i++) {
		if (strcmp(p->argv[i], a) == 0 && strcmp(p->argv[i + 1], b) ==
		    0 && (c == NULL || strcmp(p->argv[i + 2], c) == 0))
			return (long)i;
	}
	return -1;
}

static long
find1(const struct plan *p, const char *a)
{
	size_t	i;

	for (i = 0; i < p->argc; i++) {
		if (strcmp(p->argv[i], a) == 0)
			return (long)i;
	}
	return -1;
}

/* The value of one variable, or NULL. */
static const char *
env_get(const struct plan *pl, const char *name)
{
	size_t	i, n = strlen(name);

	for (i = 0; i < pl->nenv; i++) {
		if (strncmp(pl->env[i], name, n) == 0 && pl->env[i][n] == '=')
			return pl->env[i] + n + 1;
	}
	return NULL;
}

static int
env_has_name(const struct plan *pl, const char *name)
{
	return env_get(pl, name) != NULL;
}

/* ------------------------------------------------------------------ */
/* inputs */

static void
pol_parse(struct policy *pol, const char *json)
{
	char	err[1024] = "";

	if (policy_parse(pol, json, strlen(json), &t_env, POLICY_FROM_STORE,
	    err, sizeof err) != 0)
		fail_msg("policy refused %s: %s", json, err);
}

/* An enabled policy with the given modes and no folders. */
static void
pol_modes(struct policy *pol, const char *read, const char *net)
{
	char	json[256];

	fmt(json, sizeof json, "{\"enabled\":true,\"readMode\":\"%s\","
	    "\"network\":\"%s\"}", read, net);
	pol_parse(pol, json);
}

/* An enabled policy with one folder (ro < 0: readOnly not given). */
static void
pol_folder(struct policy *pol, const char *read, const char *net,
    const char *path, int ro)
{
	char	json[PATH_MAX + 256];

	fmt(json, sizeof json, "{\"enabled\":true,\"readMode\":\"%s\","
	    "\"network\":\"%s\",\"folders\":[{\"path\":\"%s\"%s}]}", read, net,
	    path, ro < 0 ? "" : ro ? ",\"readOnly\":true" :
	    ",\"readOnly\":false");
	pol_parse(pol, json);
}

static void
input_init(struct plan_input *in, const struct policy *pol)
{
	memset(in, 0, sizeof *in);
	in->app_id = "demo";
	in->app_dir = t_appdir;
	in->start = T_START;
	in->app_env = NULL;
	in->policy = pol;
	in->genv = t_env;
	in->sandbox_dir = t_sandbox;
	in->path_env = "/usr/bin:/bin";
	in->user = "alice";
	in->lang = "en_US.UTF-8";
	in->bwrap = "/usr/bin/bwrap";
	in->shim = t_shim;
	in->net_dir = t_netdir;
	in->token = "tok";
	in->port = 4000;
	in->api_port = 18788;
	in->proxy_port = 5000;
	in->as_root = 0;
	in->unconfined = 0;
}

static void
build_ok(const struct plan_input *in, struct plan *p)
{
	char	err[1024] = "";

	if (plan_build(in, p, err, sizeof err) != 0)
		fail_msg("plan_build failed: %s", err);
	assert_non_null(p->argv);
	assert_non_null(p->log_line);
}

/* ------------------------------------------------------------------ */
/* the expected argv, piece by piece (the order of plan.c's top comment) */

/* Step 1: bwrap, process hygiene, namespaces. */
static void
exp_prefix(struct sv *e, int as_root, int netns)
{
	sv_addl(e, "/usr/bin/bwrap", "--die-with-parent", "--new-session",
	    "--as-pid-1", "--info-fd", "4", NULL);
	if (!as_root)
		sv_addl(e, "--unshare-user", "--disable-userns", NULL);
	sv_addl(e, "--unshare-pid", "--unshare-ipc", "--unshare-uts",
	    "--unshare-cgroup-try", NULL);
	if (netns)
		sv_add(e, "--unshare-net");
	sv_addl(e, "--cap-drop", "ALL", "--hostname", "spacebox", NULL);
}

/*
 * Step 2.  The strict system roots depend on this machine's layout
 * (merged /usr: /bin is a symlink), so they are read from it here.
 */
static int	exp_strict;
/* Masked folders, made read-only again at the tail in this order. */
static char	exp_masked[16][PATH_MAX + 64];
static size_t	exp_nmasked;

static void
exp_mask(struct sv *e, const char *path)
{
	sv_addl(e, "--tmpfs", path, NULL);
	snprintf(exp_masked[exp_nmasked++], sizeof exp_masked[0], "%s", path);
}

static void
exp_base(struct sv *e, int strict)
{
	/* The tail of a strict plan remounts the root read-only. */
	exp_strict = strict;
	static const char *const roots[] = {
		"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64",
		"/libx32", "/etc", "/opt", NULL
	};
	struct stat	st;
	char		target[PATH_MAX];
	ssize_t		n;
	size_t		i;

	if (!strict)
		sv_addl(e, "--ro-bind", "/", "/", NULL);
	else {
		for (i = 0; roots[i] != NULL; i++) {
			if (lstat(roots[i], &st) == -1)
				continue;
			if (S_ISLNK(st.st_mode)) {
				n = readlink(roots[i], target,
				    sizeof target - 1);
				assert_true(n > 0);
				target[n] = '\0';
				sv_addl(e, "--symlink", target, roots[i], NULL);
			} else if (S_ISDIR(st.st_mode))
				sv_addl(e, "--ro-bind", roots[i], roots[i],
				    NULL);
		}
	}
	sv_addl(e, "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
	    NULL);
	if (strict)
		sv_addl(e, "--dir", t_home, NULL);
}

static void
exp_bind(struct sv *e, const char *how, const char *path)
{
	sv_addl(e, how, path, path, NULL);
}

/* Step 5 in open mode: every store of the fake home, then the root. */
static void
exp_open_masks(struct sv *e)
{
	char	path[PATH_MAX + 32];

	snprintf(path, sizeof path, "%s/.ssh", t_home);
	exp_mask(e, path);
	exp_mask(e, t_aws_real);		/* .aws, at its target */
	snprintf(path, sizeof path, "%s/.config/gcloud", t_home);
	exp_mask(e, path);
	sv_addl(e, "--ro-bind", "/dev/null", NULL);
	sv_addf(e, "%s/.netrc", t_home);
	exp_mask(e, t_root);
}

/* Step 6: the app's own folders, read-write, in the fixed order. */
static void
exp_own(struct sv *e)
{
	static const char *const fmts[] = {
		"%s/apps/demo", "%s/space-apps/demo",
		"%s/space-apps-data/demo", "%s/space-app-data/demo",
		"%s/demo", "%s/sandbox/app-tmp/demo", NULL
	};
	char	path[PATH_MAX];
	size_t	i;

	exp_bind(e, "--bind", t_appdir);
	for (i = 0; fmts[i] != NULL; i++) {
		fmt(path, sizeof path, fmts[i], t_root);
		exp_bind(e, "--bind", path);
	}
}

/* Step 7 (and 8 in strict mode) and the shim's own arguments. */
static void
exp_tail(struct sv *e, int netns, int hosts, int api, const int *lo,
    size_t nlo)
{
	size_t	i;

	if (netns)
		exp_bind(e, "--ro-bind", t_netdir);
	exp_bind(e, "--ro-bind", t_shim);
	for (i = 0; i < exp_nmasked; i++)
		sv_addl(e, "--remount-ro", exp_masked[i], NULL);
	exp_nmasked = 0;
	if (exp_strict)
		sv_addl(e, "--remount-ro", "/", NULL);
	sv_addl(e, "--chdir", t_appdir, t_shim, NULL);
	if (netns) {
		sv_addl(e, "--inbound", "3:4000", NULL);
		if (hosts) {
			sv_add(e, "--outbound");
			sv_addf(e, "5000:%s/proxy.sock", t_netdir);
		}
		if (api) {
			sv_add(e, "--outbound");
			sv_addf(e, "18788:%s/api.sock", t_netdir);
		}
		for (i = 0; i < nlo; i++) {
			sv_add(e, "--outbound");
			sv_addf(e, "%d:%s/lo-%d.sock", lo[i], t_netdir, lo[i]);
		}
	}
	sv_addl(e, "--", "/bin/sh", "-c", T_START, NULL);
}

/* The base environment; TMPDIR and the proxy variables by flag. */
static void
exp_env(struct sv *e, int tmpdir, int hosts)
{
	char	tmp[PATH_MAX];

	sv_addl(e, "PATH=/usr/bin:/bin", NULL);
	sv_addf(e, "HOME=%s", t_home);
	sv_addl(e, "USER=alice", "LANG=en_US.UTF-8", "TERM=dumb",
	    "PORT=4000", NULL);
	sv_addf(e, "SENCLAW_HOME=%s", t_root);
	sv_addl(e, "SENCLAW_BASE_URL=http://127.0.0.1:18788",
	    "SENCLAW_SPACE_APP_ID=demo", NULL);
	sv_addf(e, "SENCLAW_SPACE_LOG_FILE=%s/space-apps-data/demo/app.log",
	    t_root);
	sv_add(e, "SENCLAW_TOKEN_ACCESS_APP=tok");
	if (tmpdir) {
		fmt(tmp, sizeof tmp, "%s/app-tmp/demo", t_sandbox);
		sv_addf(e, "TMPDIR=%s", tmp);
		sv_addf(e, "TMP=%s", tmp);
		sv_addf(e, "TEMP=%s", tmp);
	}
	if (hosts) {
		sv_addl(e, "HTTP_PROXY=http://127.0.0.1:5000",
		    "http_proxy=http://127.0.0.1:5000",
		    "HTTPS_PROXY=http://127.0.0.1:5000",
		    "https_proxy=http://127.0.0.1:5000",
		    "ALL_PROXY=http://127.0.0.1:5000",
		    "all_proxy=http://127.0.0.1:5000",
		    "NO_PROXY=127.0.0.1,localhost,::1",
		    "no_proxy=127.0.0.1,localhost,::1",
		    "NODE_USE_ENV_PROXY=1", NULL);
	}
}

/* ------------------------------------------------------------------ */
/*
 * What a test holds.  Freed by fx_teardown, so a failing test (cmocka
 * leaves it by longjmp) leaks nothing and the sanitizer report stays
 * about real bugs.  Each is safe to free twice.
 */

static struct policy	 pol;
static struct plan	 p;
static struct sv	 e, env;
static cJSON		*app_env;
static char		*own[8];

static int
fx_teardown(void **state)
{
	size_t	i;

	(void)state;
	plan_free(&p);
	policy_free(&pol);
	sv_free(&e);
	sv_free(&env);
	cJSON_Delete(app_env);
	app_env = NULL;
	for (i = 0; i < 8; i++) {
		free(own[i]);
		own[i] = NULL;
	}
	unsetenv("SECRET_KEY");
	return 0;
}

/* ------------------------------------------------------------------ */
/* read mode x network mode, no folders */

static void
check_modes(const char *read, const char *net)
{
	struct plan_input	in;
	int			strict = strcmp(read, "strict") == 0;
	int			hosts = strcmp(net, "hosts") == 0;
	int			netns = strcmp(net, "all") != 0;

	pol_modes(&pol, read, net);
	input_init(&in, &pol);
	build_ok(&in, &p);

	exp_prefix(&e, 0, netns);
	exp_base(&e, strict);
	if (!strict)
		exp_open_masks(&e);
	/* strict, no grant: no store and not the root is in the view */
	exp_own(&e);
	exp_tail(&e, netns, hosts, 1, NULL, 0);
	assert_argv(&p, &e);

	exp_env(&env, 1, hosts);
	assert_env(&p, &env);

	assert_string_equal(p.isolation, "bubblewrap");
	assert_int_equal(p.netns, netns);
	assert_int_equal(p.nwarnings, 0);

	sv_free(&e);
	sv_free(&env);
	plan_free(&p);
	policy_free(&pol);
}

static void
test_open_all(void **state)
{
	(void)state;
	check_modes("open", "all");
}

static void
test_open_off(void **state)
{
	(void)state;
	check_modes("open", "off");
}

static void
test_open_hosts(void **state)
{
	(void)state;
	check_modes("open", "hosts");
}

static void
test_strict_all(void **state)
{
	(void)state;
	check_modes("strict", "all");
}

static void
test_strict_off(void **state)
{
	(void)state;
	check_modes("strict", "off");
}

static void
test_strict_hosts(void **state)
{
	(void)state;
	check_modes("strict", "hosts");
}

/* ------------------------------------------------------------------ */
/* folders */

static void
test_folders_rw_ro(void **state)
{
	struct plan_input	in;
	char			app[PATH_MAX], other[PATH_MAX], json[PATH_MAX * 3];

	(void)state;
	hpath(app, sizeof app, "projects/app");
	hpath(other, sizeof other, ".config/other");
	fmt(json, sizeof json, "{\"enabled\":true,\"folders\":["
	    "{\"path\":\"%s\"},{\"path\":\"%s\",\"readOnly\":true}]}", app,
	    other);
	pol_parse(&pol, json);
	input_init(&in, &pol);
	build_ok(&in, &p);

	exp_prefix(&e, 0, 0);
	exp_base(&e, 0);
	exp_bind(&e, "--bind", app);
	exp_bind(&e, "--ro-bind", other);
	exp_open_masks(&e);
	exp_own(&e);
	exp_tail(&e, 0, 0, 1, NULL, 0);
	assert_argv(&p, &e);

	/* The grants list names them with their access. */
	assert_true(p.ngrants >= 2);
	assert_string_equal(p.grants[0].path, app);
	assert_int_equal(p.grants[0].rw, 1);
	assert_string_equal(p.grants[0].why, "granted");
	assert_string_equal(p.grants[1].path, other);
	assert_int_equal(p.grants[1].rw, 0);
	assert_string_equal(p.grants[1].why, "granted");
	assert_string_equal(p.log_line, "sandbox: bubblewrap \xe2\x80\x94 "
	    "open reads, network shared with the host (loopback not closed), "
	    "2 folder(s) granted");

	sv_free(&e);
	plan_free(&p);
	policy_free(&pol);
}

/* A folder given through a symlink reaches argv by its real path. */
static void
test_folders_symlink(void **state)
{
	struct plan_input	in;
	char			link[PATH_MAX], real[PATH_MAX];
	size_t			i;

	(void)state;
	hpath(link, sizeof link, "projects/applink");
	hpath(real, sizeof real, "projects/app");
	pol_folder(&pol, "strict", "all", link, 1);
	assert_string_equal(pol.folders[0].path, real);
	input_init(&in, &pol);
	build_ok(&in, &p);
	assert_true(find3(&p, "--ro-bind", real, real) >= 0);
	for (i = 0; i < p.argc; i++)
		assert_null(strstr(p.argv[i], "applink"));
	plan_free(&p);

	/* plan_build keeps a policy folder exactly as it is given. */
	free(pol.folders[0].path);
	pol.folders[0].path = strdup(link);
	assert_non_null(pol.folders[0].path);
	pol.folders[0].read_only = 0;
	build_ok(&in, &p);
	assert_true(find3(&p, "--bind", link, link) >= 0);
	assert_int_equal(find3(&p, "--bind", real, real), -1);
	plan_free(&p);
	policy_free(&pol);
}

/* ------------------------------------------------------------------ */
/* PATH-derived runtime grants (strict mode) */

static void
test_runtime_grants(void **state)
{
	struct plan_input	in;
	char			path_env[PATH_MAX * 8], v20[PATH_MAX];
	char			hbin[PATH_MAX];
	size_t			i, nrt = 0;

	(void)state;
	hpath(v20, sizeof v20, ".nvm/versions/node/v20");
	hpath(hbin, sizeof hbin, "bin");
	fmt(path_env, sizeof path_env,
	    "%s/bin:"				/* -> v20, read-only */
	    "/usr/bin:/bin:"			/* system roots */
	    "%s:"				/* HOME/bin -> itself */
	    "%s/.ssh/bin:"			/* credential store */
	    "%s/bin:"				/* state root */
	    "%s/sandbox/tools/bin:"		/* inside the state root */
	    "%s/lib/node_modules/.bin:"		/* inside v20: collapses */
	    "%s/bin:"				/* duplicate */
	    "%s::"				/* duplicate, empty entry */
	    "relative/bin:"			/* not absolute */
	    "%s/does-not-exist/bin",		/* missing */
	    v20, hbin, t_home, t_root, t_root, v20, v20, hbin, t_home);
	pol_modes(&pol, "strict", "all");
	input_init(&in, &pol);
	in.path_env = path_env;
	build_ok(&in, &p);

	exp_prefix(&e, 0, 0);
	exp_base(&e, 1);
	exp_bind(&e, "--ro-bind", v20);
	exp_bind(&e, "--ro-bind", hbin);
	exp_own(&e);
	exp_tail(&e, 0, 0, 1, NULL, 0);
	assert_argv(&p, &e);

	for (i = 0; i < p.ngrants; i++) {
		if (strcmp(p.grants[i].why, "runtime on PATH") != 0)
			continue;
		assert_int_equal(p.grants[i].rw, 0);
		nrt++;
	}
	assert_int_equal(nrt, 2);
	assert_int_equal(p.nwarnings, 0);
	/* Runtime grants are not policy folders. */
	assert_string_equal(p.log_line, "sandbox: bubblewrap \xe2\x80\x94 "
	    "strict reads, network shared with the host (loopback not "
	    "closed), 0 folder(s) granted");
	/* HOME itself is never granted. */
	assert_int_equal(find3(&p, "--ro-bind", t_home, t_home), -1);
	/* The app's PATH is passed on as given. */
	assert_non_null(env_get(&p, "PATH"));
	assert_string_equal(env_get(&p, "PATH"), path_env);

	sv_free(&e);
	plan_free(&p);
	policy_free(&pol);
}

/* Open mode sees everything: PATH adds no grant. */
static void
test_runtime_open_none(void **state)
{
	struct plan_input	in;
	char			path_env[PATH_MAX * 2];
	size_t			i;

	(void)state;
	fmt(path_env, sizeof path_env, "%s/.nvm/versions/node/v20/bin:"
	    "%s/bin:/usr/bin", t_home, t_home);
	pol_modes(&pol, "open", "all");
	input_init(&in, &pol);
	in.path_env = path_env;
	build_ok(&in, &p);
	for (i = 0; i < p.ngrants; i++)
		assert_string_not_equal(p.grants[i].why, "runtime on PATH");
	plan_free(&p);
	policy_free(&pol);
}

static void
rt_path(char *buf, size_t len, size_t i, const char *suffix)
{
	fmt(buf, len, "%s/rt/r%02zu%s", t_base, i, suffix);
}

/* More than 16 runtime folders: the first 16 and one warning. */
static void
test_runtime_cap(void **state)
{
	struct plan_input	in;
	char			path_env[PATH_MAX * (T_NRT + 4)], dir[PATH_MAX];
	size_t			i, len = 0, nrt = 0;

	(void)state;
	path_env[0] = '\0';
	for (i = 0; i < T_NRT; i++) {
		rt_path(dir, sizeof dir, i, "/bin");
		len += fmt(path_env + len, sizeof path_env - len, "%s%s",
		    i ? ":" : "", dir);
		/* repeat one already granted: collapses, never counted */
		if (i == 3) {
			rt_path(dir, sizeof dir, 0, "/bin");
			len += fmt(path_env + len, sizeof path_env - len,
			    ":%s", dir);
		}
	}
	pol_modes(&pol, "strict", "off");
	input_init(&in, &pol);
	in.path_env = path_env;
	build_ok(&in, &p);

	exp_prefix(&e, 0, 1);
	exp_base(&e, 1);
	for (i = 0; i < PLAN_MAX_RUNTIME; i++) {
		rt_path(dir, sizeof dir, i, "");
		exp_bind(&e, "--ro-bind", dir);
	}
	exp_own(&e);
	exp_tail(&e, 1, 0, 1, NULL, 0);
	assert_argv(&p, &e);

	for (i = 0; i < p.ngrants; i++)
		nrt += strcmp(p.grants[i].why, "runtime on PATH") == 0;
	assert_int_equal(nrt, PLAN_MAX_RUNTIME);
	assert_int_equal(p.nwarnings, 1);
	assert_non_null(strstr(p.warnings[0], "16"));
	for (i = 0; i < T_NRT; i++) {
		rt_path(dir, sizeof dir, i, "");
		if (i < PLAN_MAX_RUNTIME)
			assert_null(strstr(p.warnings[0], dir));
		else if (strstr(p.warnings[0], dir) == NULL)
			fail_msg("warning does not name %s: %s", dir,
			    p.warnings[0]);
	}
	assert_string_equal(p.log_line, "sandbox: bubblewrap \xe2\x80\x94 "
	    "strict reads, network off, 0 folder(s) granted");

	sv_free(&e);
	plan_free(&p);
	policy_free(&pol);
}

/* Count non-overlapping occurrences of needle in s. */
static size_t
count_in(const char *s, const char *needle)
{
	size_t	n = 0, len = strlen(needle);

	while ((s = strstr(s, needle)) != NULL) {
		/* label-aligned: "<rt>/r16" must not count in "<rt>/r160" */
		if (s[len] == '\0' || s[len] == ',')
			n++;
		s += len;
	}
	return n;
}

/*
 * Duplicates collapse for dropped folders too: a folder past the cap
 * that appears twice on PATH is named once in the warning.
 */
static void
test_runtime_cap_dropped_dup(void **state)
{
	struct plan_input	in;
	char			path_env[PATH_MAX * (T_NRT + 4)], dir[PATH_MAX];
	size_t			i, len = 0;

	(void)state;
	path_env[0] = '\0';
	for (i = 0; i < T_NRT; i++) {
		rt_path(dir, sizeof dir, i, "/bin");
		len += fmt(path_env + len, sizeof path_env - len, "%s%s",
		    i ? ":" : "", dir);
	}
	rt_path(dir, sizeof dir, 16, "/bin");	/* r16 again */
	fmt(path_env + len, sizeof path_env - len, ":%s", dir);
	pol_modes(&pol, "strict", "all");
	input_init(&in, &pol);
	in.path_env = path_env;
	build_ok(&in, &p);
	assert_int_equal(p.nwarnings, 1);
	rt_path(dir, sizeof dir, 16, "");
	if (count_in(p.warnings[0], dir) != 1)
		fail_msg("warning names %s %zu times (expected once): %s", dir,
		    count_in(p.warnings[0], dir), p.warnings[0]);
	rt_path(dir, sizeof dir, 17, "");
	assert_int_equal(count_in(p.warnings[0], dir), 1);
	plan_free(&p);
	policy_free(&pol);
}

/* ------------------------------------------------------------------ */
/* masks */

/* Open mode: the masks sit after every grant and before the own dirs. */
static void
test_masks_open_order(void **state)
{
	struct plan_input	in;
	char			cfg[PATH_MAX], path[PATH_MAX];
	long			grant, ownat, m;
	const char		*masks[5][3];
	char			ssh[PATH_MAX], gcloud[PATH_MAX], netrc[PATH_MAX];
	size_t			i;

	(void)state;
	hpath(cfg, sizeof cfg, ".config");
	pol_folder(&pol, "open", "all", cfg, 0);
	input_init(&in, &pol);
	build_ok(&in, &p);

	hpath(ssh, sizeof ssh, ".ssh");
	hpath(gcloud, sizeof gcloud, ".config/gcloud");
	hpath(netrc, sizeof netrc, ".netrc");
	{
		const char *const m5[5][3] = {
			{ "--tmpfs", ssh, NULL },
			{ "--ro-bind", "/dev/null", netrc },
			{ "--tmpfs", t_aws_real, NULL },	/* .aws */
			{ "--tmpfs", gcloud, NULL },
			{ "--tmpfs", t_root, NULL },
		};

		memcpy(masks, m5, sizeof masks);
	}

	grant = find3(&p, "--bind", cfg, cfg);
	ownat = find3(&p, "--bind", t_appdir, t_appdir);
	assert_true(grant >= 0);
	assert_true(ownat > grant);
	for (i = 0; i < 5; i++) {
		m = find3(&p, masks[i][0], masks[i][1], masks[i][2]);
		if (m < 0 || m < grant || m > ownat)
			fail_msg("mask %s %s at %ld; grant at %ld, own dirs "
			    "from %ld", masks[i][0], masks[i][1], m, grant,
			    ownat);
	}
	/* The .aws symlink itself is not a mount point: its target is. */
	fmt(path, sizeof path, "%s/.aws", t_home);
	assert_int_equal(find1(&p, path), -1);
	plan_free(&p);
	policy_free(&pol);
}

/* Strict mode: only what a grant shows is masked, after that grant. */
static void
test_masks_strict_config(void **state)
{
	struct plan_input	in;
	char			cfg[PATH_MAX], gcloud[PATH_MAX];

	(void)state;
	hpath(cfg, sizeof cfg, ".config");
	hpath(gcloud, sizeof gcloud, ".config/gcloud");
	pol_folder(&pol, "strict", "off", cfg, 1);
	input_init(&in, &pol);
	build_ok(&in, &p);

	exp_prefix(&e, 0, 1);
	exp_base(&e, 1);
	exp_bind(&e, "--ro-bind", cfg);
	exp_mask(&e, gcloud);
	exp_own(&e);
	exp_tail(&e, 1, 0, 1, NULL, 0);
	assert_argv(&p, &e);
	assert_string_equal(p.log_line, "sandbox: bubblewrap \xe2\x80\x94 "
	    "strict reads, network off, 1 folder(s) granted");
	sv_free(&e);
	plan_free(&p);
	policy_free(&pol);
}

/* A runtime grant that shows a store is masked the same way. */
static void
test_masks_strict_runtime_parent(void **state)
{
	struct plan_input	in;
	char			cfg[PATH_MAX], gcloud[PATH_MAX], bin[PATH_MAX];
	long			g, m;

	(void)state;
	hpath(cfg, sizeof cfg, ".config");
	hpath(gcloud, sizeof gcloud, ".config/gcloud");
	fmt(bin, sizeof bin, "%s/other:/usr/bin", cfg);
	pol_modes(&pol, "strict", "all");
	input_init(&in, &pol);
	in.path_env = bin;		/* HOME/.config/other -> HOME/.config */
	build_ok(&in, &p);
	g = find3(&p, "--ro-bind", cfg, cfg);
	m = find3(&p, "--tmpfs", gcloud, NULL);
	assert_true(g >= 0);
	assert_true(m > g);
	plan_free(&p);
	policy_free(&pol);
}

/*
 * Strict mode, a granted folder that holds the *target* of a symlinked
 * credential store (~/.aws -> <base>/elsewhere/aws-real): the policy
 * accepts the folder (it is not inside the store), so the store's
 * target must be masked after the grant, as open mode does.
 */
static void
test_masks_strict_store_target_granted(void **state)
{
	struct plan_input	in;
	char			elsewhere[PATH_MAX];

	(void)state;
	tpath(elsewhere, sizeof elsewhere, "elsewhere");
	pol_folder(&pol, "strict", "all", elsewhere, 1);
	input_init(&in, &pol);
	build_ok(&in, &p);

	exp_prefix(&e, 0, 0);
	exp_base(&e, 1);
	exp_bind(&e, "--ro-bind", elsewhere);
	exp_mask(&e, t_aws_real);
	exp_own(&e);
	exp_tail(&e, 0, 0, 1, NULL, 0);
	assert_argv(&p, &e);
	sv_free(&e);
	plan_free(&p);
	policy_free(&pol);
}

/* The same store target shown by a PATH-derived runtime grant. */
static void
test_masks_strict_store_target_runtime(void **state)
{
	struct plan_input	in;
	char			elsewhere[PATH_MAX], path_env[PATH_MAX];
	long			g, m;

	(void)state;
	tpath(elsewhere, sizeof elsewhere, "elsewhere");
	fmt(path_env, sizeof path_env, "%s/bin:/usr/bin", elsewhere);
	pol_modes(&pol, "strict", "all");
	input_init(&in, &pol);
	in.path_env = path_env;
	build_ok(&in, &p);
	g = find3(&p, "--ro-bind", elsewhere, elsewhere);
	assert_true(g >= 0);
	m = find3(&p, "--tmpfs", t_aws_real, NULL);
	if (m < g)
		fail_msg("%s is granted read-only (runtime on PATH) but the "
		    ".aws store inside it, %s, is not masked", elsewhere,
		    t_aws_real);
	plan_free(&p);
	policy_free(&pol);
}

/* ------------------------------------------------------------------ */
/* own dirs */

static void
test_own_dirs(void **state)
{
	struct plan_input	in;
	char			want[PATH_MAX];
	long			root_mask, at, prev;
	size_t			n, i;

	(void)state;
	n = plan_own_dirs(t_root, t_sandbox, t_appdir, "demo", own, 8);
	assert_int_equal(n, 7);
	assert_string_equal(own[0], t_appdir);
	fmt(want, sizeof want, "%s/apps/demo", t_root);
	assert_string_equal(own[1], want);
	fmt(want, sizeof want, "%s/space-apps/demo", t_root);
	assert_string_equal(own[2], want);
	fmt(want, sizeof want, "%s/space-apps-data/demo", t_root);
	assert_string_equal(own[3], want);
	fmt(want, sizeof want, "%s/space-app-data/demo", t_root);
	assert_string_equal(own[4], want);
	fmt(want, sizeof want, "%s/demo", t_root);
	assert_string_equal(own[5], want);
	fmt(want, sizeof want, "%s/sandbox/app-tmp/demo", t_root);
	assert_string_equal(own[6], want);
	/* Too small an array: nothing. */
	assert_int_equal(plan_own_dirs(t_root, t_sandbox, t_appdir, "demo",
	    own + 7, 1), 0);

	pol_modes(&pol, "open", "hosts");
	input_init(&in, &pol);
	build_ok(&in, &p);
	root_mask = find3(&p, "--tmpfs", t_root, NULL);
	assert_true(root_mask >= 0);
	prev = root_mask;
	for (i = 0; i < n; i++) {
		at = find3(&p, "--bind", own[i], own[i]);
		if (at <= prev)
			fail_msg("own dir %s at %ld, not after %ld (state root "
			    "mask at %ld)", own[i], at, prev, root_mask);
		prev = at;
		assert_string_equal(p.grants[i].path, own[i]);
		assert_int_equal(p.grants[i].rw, 1);
		assert_string_equal(p.grants[i].why, i == 0 ? "install dir" :
		    i == n - 1 ? "private TMPDIR" : "data dir");
		free(own[i]);
		own[i] = NULL;
	}
	/* The socket folder too comes after the state-root mask. */
	assert_true(find3(&p, "--ro-bind", t_netdir, t_netdir) > prev);
	plan_free(&p);
	policy_free(&pol);
}

/* ------------------------------------------------------------------ */
/* network bridges and namespaces */

static void
test_network_bridges(void **state)
{
	static const int	 lo[] = { 5432, 6379 };
	struct plan_input	 in;

	(void)state;
	/* hosts, daemonApi, two loopback ports (stored sorted) */
	pol_parse(&pol, "{\"enabled\":true,\"network\":\"hosts\","
	    "\"hosts\":[\"example.com\"],\"loopback\":[6379,5432]}");
	input_init(&in, &pol);
	build_ok(&in, &p);
	exp_prefix(&e, 0, 1);
	exp_base(&e, 0);
	exp_open_masks(&e);
	exp_own(&e);
	exp_tail(&e, 1, 1, 1, lo, 2);
	assert_argv(&p, &e);
	assert_string_equal(p.log_line, "sandbox: bubblewrap \xe2\x80\x94 "
	    "open reads, network via allowlist proxy on 127.0.0.1:5000, "
	    "0 folder(s) granted");
	sv_free(&e);
	plan_free(&p);
	policy_free(&pol);

	/* off, no daemonApi: only the inbound bridge and the loopbacks */
	pol_parse(&pol, "{\"enabled\":true,\"readMode\":\"strict\","
	    "\"network\":\"off\",\"daemonApi\":false,\"loopback\":[5432]}");
	input_init(&in, &pol);
	build_ok(&in, &p);
	exp_prefix(&e, 0, 1);
	exp_base(&e, 1);
	exp_own(&e);
	exp_tail(&e, 1, 0, 0, lo, 1);
	assert_argv(&p, &e);
	sv_free(&e);
	plan_free(&p);
	policy_free(&pol);

	/* all: the host's network, so no bridge at all */
	pol_parse(&pol, "{\"enabled\":true,\"network\":\"all\","
	    "\"loopback\":[5432]}");
	input_init(&in, &pol);
	build_ok(&in, &p);
	assert_int_equal(p.netns, 0);
	assert_int_equal(find1(&p, "--unshare-net"), -1);
	assert_int_equal(find1(&p, "--inbound"), -1);
	assert_int_equal(find1(&p, "--outbound"), -1);
	assert_int_equal(find1(&p, t_netdir), -1);
	plan_free(&p);
	policy_free(&pol);
}

static void
test_as_root(void **state)
{
	struct plan_input	in;

	(void)state;
	pol_modes(&pol, "strict", "hosts");
	input_init(&in, &pol);
	in.as_root = 1;
	build_ok(&in, &p);
	exp_prefix(&e, 1, 1);
	exp_base(&e, 1);
	exp_own(&e);
	exp_tail(&e, 1, 1, 1, NULL, 0);
	assert_argv(&p, &e);
	assert_int_equal(find1(&p, "--unshare-user"), -1);
	assert_int_equal(find1(&p, "--disable-userns"), -1);
	/* always, root or not */
	assert_true(find3(&p, "--cap-drop", "ALL", NULL) > 0);
	assert_true(find1(&p, "--die-with-parent") > 0);
	assert_true(find1(&p, "--new-session") > 0);
	assert_true(find1(&p, "--as-pid-1") > 0);
	assert_true(find3(&p, "--info-fd", "4", NULL) > 0);
	sv_free(&e);
	plan_free(&p);
	policy_free(&pol);
}

/* ------------------------------------------------------------------ */
/* environment */

static void
test_environment(void **state)
{
	struct plan_input	 in;
	size_t			 i;

	(void)state;
	assert_int_equal(setenv("SECRET_KEY", "hunter2-from-engine", 1), 0);
	app_env = cJSON_Parse("{\"NODE_ENV\":\"production\","
	    "\"GREETING\":\"hello world\",\"BAD=NAME\":\"x\"}");
	assert_non_null(app_env);

	pol_modes(&pol, "strict", "hosts");
	input_init(&in, &pol);
	in.app_env = app_env;
	build_ok(&in, &p);
	exp_env(&env, 1, 1);
	sv_addl(&env, "NODE_ENV=production", "GREETING=hello world", NULL);
	assert_env(&p, &env);
	for (i = 0; i < p.nenv; i++)
		assert_null(strstr(p.env[i], "hunter2"));
	assert_false(env_has_name(&p, "SECRET_KEY"));
	sv_free(&env);
	plan_free(&p);
	policy_free(&pol);

	/* off: no proxy variables; still TMPDIR */
	pol_modes(&pol, "open", "off");
	input_init(&in, &pol);
	build_ok(&in, &p);
	exp_env(&env, 1, 0);
	assert_env(&p, &env);
	sv_free(&env);
	plan_free(&p);
	policy_free(&pol);

	/* defaults for a missing USER and LANG, and no token */
	pol_modes(&pol, "open", "all");
	input_init(&in, &pol);
	in.user = NULL;
	in.lang = NULL;
	in.token = NULL;
	build_ok(&in, &p);
	assert_false(env_has_name(&p, "SENCLAW_TOKEN_ACCESS_APP"));
	assert_false(env_has_name(&p, "SECRET_KEY"));
	assert_non_null(env_get(&p, "USER"));
	assert_string_equal(env_get(&p, "USER"), "nobody");
	assert_non_null(env_get(&p, "LANG"));
	assert_string_equal(env_get(&p, "LANG"), "C.UTF-8");
	plan_free(&p);
	policy_free(&pol);

	cJSON_Delete(app_env);
	app_env = NULL;
	unsetenv("SECRET_KEY");
}

/* ------------------------------------------------------------------ */
/* disabled and unconfined */

static void
test_disabled(void **state)
{
	struct plan_input	in;

	(void)state;
	/* network hosts but disabled: no proxy variables either */
	pol_parse(&pol, "{\"enabled\":false,\"readMode\":\"strict\","
	    "\"network\":\"hosts\",\"hosts\":[\"example.com\"]}");
	input_init(&in, &pol);
	build_ok(&in, &p);
	sv_addl(&e, t_shim, "--", "/bin/sh", "-c", T_START, NULL);
	assert_argv(&p, &e);
	assert_string_equal(p.isolation, "none");
	assert_string_equal(p.log_line, "sandbox: off");
	assert_int_equal(p.netns, 0);
	assert_false(env_has_name(&p, "TMPDIR"));
	assert_false(env_has_name(&p, "TMP"));
	assert_false(env_has_name(&p, "TEMP"));
	exp_env(&env, 0, 0);
	assert_env(&p, &env);
	sv_free(&e);
	sv_free(&env);
	plan_free(&p);

	/* disabled wins over unconfined */
	in.unconfined = 1;
	build_ok(&in, &p);
	assert_string_equal(p.isolation, "none");
	assert_string_equal(p.log_line, "sandbox: off");
	plan_free(&p);
	policy_free(&pol);
}

static void
test_unconfined(void **state)
{
	struct plan_input	in;

	(void)state;
	pol_modes(&pol, "strict", "off");
	input_init(&in, &pol);
	in.unconfined = 1;
	in.bwrap = NULL;	/* no sandbox helper is needed */
	build_ok(&in, &p);
	sv_addl(&e, t_shim, "--", "/bin/sh", "-c", T_START, NULL);
	assert_argv(&p, &e);
	assert_string_equal(p.isolation, "unconfined");
	assert_int_equal(p.netns, 0);
	assert_non_null(strstr(p.log_line, "UNCONFINED"));
	assert_int_equal(strncmp(p.log_line, "sandbox: ", 9), 0);
	assert_null(strchr(p.log_line, '\n'));
	sv_free(&e);
	plan_free(&p);
	policy_free(&pol);
}

/* The system-call filter comes as fd 5, right after the info fd. */
static void
test_seccomp(void **state)
{
	struct plan_input	in;
	long			info, sc;

	(void)state;
	pol_modes(&pol, "strict", "off");
	input_init(&in, &pol);
	build_ok(&in, &p);
	assert_true(find3(&p, "--seccomp", "5", NULL) < 0);
	plan_free(&p);
	in.seccomp = 1;
	build_ok(&in, &p);
	info = find3(&p, "--info-fd", "4", NULL);
	sc = find3(&p, "--seccomp", "5", NULL);
	assert_true(info >= 0);
	assert_int_equal(sc, info + 2);
	plan_free(&p);
	policy_free(&pol);
}

/* ------------------------------------------------------------------ */
/* plan_json, errors */

static void
test_json_hides_token(void **state)
{
	static const char	 secret[] = "tok-Zq8vX-secret-value";
	struct plan_input	 in;
	cJSON			*o, *jenv, *v;
	char			*s;
	int			 hidden = 0;

	(void)state;
	pol_modes(&pol, "open", "hosts");
	input_init(&in, &pol);
	in.token = secret;
	build_ok(&in, &p);
	/* The plan itself carries it: the app needs it. */
	assert_true(env_has_name(&p, "SENCLAW_TOKEN_ACCESS_APP"));

	o = plan_json(&p);
	assert_non_null(o);
	s = cJSON_PrintUnformatted(o);
	assert_non_null(s);
	assert_null(strstr(s, secret));
	jenv = cJSON_GetObjectItemCaseSensitive(o, "env");
	assert_true(cJSON_IsArray(jenv));
	cJSON_ArrayForEach(v, jenv) {
		assert_true(cJSON_IsString(v));
		if (strncmp(v->valuestring, "SENCLAW_TOKEN_ACCESS_APP=", 25) ==
		    0) {
			assert_string_equal(v->valuestring,
			    "SENCLAW_TOKEN_ACCESS_APP=(hidden)");
			hidden++;
		}
	}
	assert_int_equal(hidden, 1);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(o,
	    "isolation")->valuestring, "bubblewrap");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o,
	    "networkNamespace")));
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(
	    o, "argv")), (int)p.argc);
	cJSON_free(s);
	cJSON_Delete(o);
	plan_free(&p);
	policy_free(&pol);
}

static void
test_missing_start(void **state)
{
	static const char *const starts[] = { NULL, "" };
	struct plan_input	in;
	char			err[256];
	size_t			i;

	(void)state;
	pol_modes(&pol, "strict", "hosts");
	input_init(&in, &pol);
	for (i = 0; i < 2; i++) {
		in.start = starts[i];
		err[0] = '\0';
		assert_int_equal(plan_build(&in, &p, err, sizeof err), -1);
		assert_non_null(strstr(err, "runtime.start"));
		assert_null(strchr(err, '\n'));
		assert_null(p.argv);
		plan_free(&p);	/* safe on a failed plan */
	}
	policy_free(&pol);

	/* disabled: still nothing to launch */
	pol_parse(&pol, "{\"enabled\":false}");
	input_init(&in, &pol);
	in.start = NULL;
	err[0] = '\0';
	assert_int_equal(plan_build(&in, &p, err, sizeof err), -1);
	assert_true(err[0] != '\0');
	plan_free(&p);
	policy_free(&pol);

	/* sandboxed without bwrap or shim */
	pol_modes(&pol, "open", "all");
	input_init(&in, &pol);
	in.shim = NULL;
	err[0] = '\0';
	assert_int_equal(plan_build(&in, &p, err, sizeof err), -1);
	assert_true(err[0] != '\0');
	plan_free(&p);
	policy_free(&pol);
}

/* ------------------------------------------------------------------ */
/* a symlinked HOME */

static void
check_no_link(const struct plan *pl)
{
	size_t	i;

	for (i = 0; i < pl->argc; i++) {
		if (strstr(pl->argv[i], t_homelink) != NULL)
			fail_msg("argv[%zu] uses the symlinked HOME: %s", i,
			    pl->argv[i]);
	}
}

static void
test_symlinked_home(void **state)
{
	static const char *const modes[][2] = {
		{ "open", "all" }, { "strict", "hosts" }, { "strict", "off" }
	};
	struct plan_input	in;
	struct guard_env	genv;
	char			home[PATH_MAX], root[PATH_MAX], rootl[PATH_MAX];
	char			path_env[PATH_MAX * 3], folder[PATH_MAX];
	char			json[PATH_MAX * 2], v20[PATH_MAX];
	size_t			i;

	(void)state;
	/* The engine's HOME is the link; the guard env holds real paths. */
	fmt(rootl, sizeof rootl, "%s/.senclaw", t_homelink);
	assert_non_null(realpath(t_homelink, home));
	assert_non_null(realpath(rootl, root));
	assert_string_equal(home, t_home);
	assert_string_equal(root, t_root);
	genv.home = home;
	genv.root = root;

	fmt(folder, sizeof folder, "%s/projects/app", t_homelink);
	fmt(path_env, sizeof path_env, "%s/.nvm/versions/node/v20/bin:"
	    "%s/bin:/usr/bin:/bin", t_homelink, t_homelink);
	hpath(v20, sizeof v20, ".nvm/versions/node/v20");
	for (i = 0; i < sizeof modes / sizeof modes[0]; i++) {
		fmt(json, sizeof json, "{\"enabled\":true,\"readMode\":"
		    "\"%s\",\"network\":\"%s\",\"folders\":[{\"path\":"
		    "\"%s\"}]}", modes[i][0], modes[i][1], folder);
		pol_parse(&pol, json);
		input_init(&in, &pol);
		in.genv = genv;
		in.path_env = path_env;
		build_ok(&in, &p);
		check_no_link(&p);
		if (strcmp(modes[i][0], "strict") == 0) {
			assert_true(find3(&p, "--dir", t_home, NULL) >= 0);
			assert_true(find3(&p, "--ro-bind", v20, v20) >= 0);
		} else {
			assert_true(find3(&p, "--tmpfs", t_root, NULL) >= 0);
		}
		hpath(folder, sizeof folder, "projects/app");
		assert_true(find3(&p, "--bind", folder, folder) >= 0);
		fmt(folder, sizeof folder, "%s/projects/app", t_homelink);
		assert_non_null(env_get(&p, "HOME"));
		assert_string_equal(env_get(&p, "HOME"), t_home);
		plan_free(&p);
		policy_free(&pol);
	}
}

#define T(f)	cmocka_unit_test_teardown(f, fx_teardown)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_open_all),
		T(test_open_off),
		T(test_open_hosts),
		T(test_strict_all),
		T(test_strict_off),
		T(test_strict_hosts),
		T(test_folders_rw_ro),
		T(test_folders_symlink),
		T(test_runtime_grants),
		T(test_runtime_open_none),
		T(test_runtime_cap),
		T(test_runtime_cap_dropped_dup),
		T(test_masks_open_order),
		T(test_masks_strict_config),
		T(test_masks_strict_runtime_parent),
		T(test_masks_strict_store_target_granted),
		T(test_masks_strict_store_target_runtime),
		T(test_own_dirs),
		T(test_network_bridges),
		T(test_as_root),
		T(test_environment),
		T(test_disabled),
		T(test_unconfined),
		T(test_seccomp),
		T(test_json_hides_token),
		T(test_missing_start),
		T(test_symlinked_home),
	};

	return cmocka_run_group_tests_name("plan", tests, tree_setup,
	    tree_teardown) != 0;
}
