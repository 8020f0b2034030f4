/*
 * Unit tests for guard.c (path rules, system roots, credential stores and
 * the messages of guard_folder) and app.c (app ids, manifests with their
 * sandbox declaration, and the app folder scan).
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

#include "app.h"
#include "guard.h"
#include "paths.h"
#include "policy.h"

/* ------------------------------------------------------------------ */
/* path_within, path_is_ancestor */

static void
test_path_within(void **state)
{
	(void)state;
	assert_true(path_within("/home/u", "/home"));
	assert_true(path_within("/home/u/x/y", "/home"));
	assert_true(path_within("/home", "/home"));
	assert_false(path_within("/homer", "/home"));
	assert_false(path_within("/home-u", "/home"));
	assert_false(path_within("/hom", "/home"));
	assert_false(path_within("/home", "/home/u"));
	assert_false(path_within("/etc/home/u", "/home"));
	assert_true(path_within("/", "/"));
	assert_true(path_within("/anything/at/all", "/"));
	assert_true(path_within("/home/u/.ssh", "/home/u/.ssh"));
	assert_false(path_within("/home/u/.sshx", "/home/u/.ssh"));
	assert_true(path_within("/home/u/.ssh/id_ed25519", "/home/u/.ssh"));
}

static void
test_path_is_ancestor(void **state)
{
	(void)state;
	assert_true(path_is_ancestor("/home", "/home/u"));
	assert_true(path_is_ancestor("/", "/home/u"));
	assert_true(path_is_ancestor("/", "/home"));
	assert_true(path_is_ancestor("/tmp", "/tmp/sbtest.x/home"));
	assert_false(path_is_ancestor("/home", "/home"));
	assert_false(path_is_ancestor("/", "/"));
	assert_false(path_is_ancestor("/home", "/homer/u"));
	assert_false(path_is_ancestor("/hom", "/home/u"));
	assert_false(path_is_ancestor("/home/u", "/home"));
	assert_false(path_is_ancestor("/home/u/projects", "/home/u"));
	assert_false(path_is_ancestor("/srv", "/home/u"));
}

static void
test_system_root(void **state)
{
	static const char *const roots[] = {
		"/usr", "/etc", "/var", "/dev", "/proc", "/sys", "/bin",
		"/sbin", "/lib", "/boot", "/run", NULL
	};
	static const char *const not_roots[] = {
		"/usr/share", "/usr/local", "/etc/x", "/var/tmp", "/srv",
		"/opt", "/home", "/usrx", "/us", "/proc/1", "/mnt", NULL
	};
	size_t	i;

	(void)state;
	for (i = 0; roots[i] != NULL; i++) {
		if (!guard_is_system_root(roots[i]))
			fail_msg("%s is not a system root", roots[i]);
	}
	for (i = 0; not_roots[i] != NULL; i++) {
		if (guard_is_system_root(not_roots[i]))
			fail_msg("%s taken as a system root", not_roots[i]);
	}
}

static void
test_credential_store_names(void **state)
{
	/* A home that does not exist: only the names count. */
	struct guard_env	env = { "/nonexistent-sbhome/u", "/nonexistent" };
	struct guard_env	none = { NULL, NULL };
	char			store[PATH_MAX];
	size_t			i;

	(void)state;
	store[0] = '\0';
	assert_true(guard_in_credential_store(&env,
	    "/nonexistent-sbhome/u/.ssh", store));
	assert_string_equal(store, "/nonexistent-sbhome/u/.ssh");
	store[0] = '\0';
	assert_true(guard_in_credential_store(&env,
	    "/nonexistent-sbhome/u/.ssh/keys/old", store));
	assert_string_equal(store, "/nonexistent-sbhome/u/.ssh");
	store[0] = '\0';
	assert_true(guard_in_credential_store(&env,
	    "/nonexistent-sbhome/u/.config/gcloud/legacy", store));
	assert_string_equal(store, "/nonexistent-sbhome/u/.config/gcloud");
	assert_true(guard_in_credential_store(&env,
	    "/nonexistent-sbhome/u/.local/share/keyrings", store));
	assert_string_equal(store,
	    "/nonexistent-sbhome/u/.local/share/keyrings");
	assert_true(guard_in_credential_store(&env,
	    "/nonexistent-sbhome/u/.netrc", NULL));
	assert_true(guard_in_credential_store(&env,
	    "/nonexistent-sbhome/u/.password-store/x", NULL));

	/* Every store in the list is recognised by its own name. */
	for (i = 0; guard_credential_stores[i] != NULL; i++) {
		char path[PATH_MAX];

		snprintf(path, sizeof path, "/nonexistent-sbhome/u/%s",
		    guard_credential_stores[i]);
		if (!guard_in_credential_store(&env, path, store))
			fail_msg("%s not a credential store", path);
		assert_string_equal(store, path);
	}

	/* Parents, look-alikes and other homes are not stores. */
	assert_false(guard_in_credential_store(&env,
	    "/nonexistent-sbhome/u/.config", NULL));
	assert_false(guard_in_credential_store(&env,
	    "/nonexistent-sbhome/u/.sshx", NULL));
	assert_false(guard_in_credential_store(&env,
	    "/nonexistent-sbhome/u/.ssh-backup", NULL));
	assert_false(guard_in_credential_store(&env,
	    "/nonexistent-sbhome/u/.config/gcloudy", NULL));
	assert_false(guard_in_credential_store(&env,
	    "/nonexistent-sbhome/u", NULL));
	assert_false(guard_in_credential_store(&env,
	    "/nonexistent-sbhome/other/.ssh", NULL));
	assert_false(guard_in_credential_store(&env, "/srv/.ssh", NULL));
	assert_false(guard_in_credential_store(&none,
	    "/nonexistent-sbhome/u/.ssh", NULL));
}

/* ------------------------------------------------------------------ */
/* a temporary tree: fake HOME, state root, workspace */

static char	 t_base[256];		/* canonical mkdtemp dir */
static char	 t_home[512];		/* t_base/home */
static char	 t_root[768];		/* t_home/.senclaw */
static char	 t_apps[768];		/* t_base/ws/space-apps */
static char	 t_scan[768];		/* t_base/scan */
static struct guard_env t_env;

static void
mk(const char *rel)
{
	char	path[PATH_MAX];

	snprintf(path, sizeof path, "%s/%s", t_base, rel);
	if (mkdir(path, 0700) == -1 && errno != EEXIST)
		fail_msg("mkdir %s: %s", path, strerror(errno));
}

static void
put(const char *rel, const char *text)
{
	char	 path[PATH_MAX];
	FILE	*f;

	snprintf(path, sizeof path, "%s/%s", t_base, rel);
	if ((f = fopen(path, "w")) == NULL)
		fail_msg("create %s: %s", path, strerror(errno));
	fputs(text, f);
	fclose(f);
}

static void
ln(const char *target, const char *rel)
{
	char	path[PATH_MAX];

	snprintf(path, sizeof path, "%s/%s", t_base, rel);
	if (symlink(target, path) == -1)
		fail_msg("symlink %s: %s", path, strerror(errno));
}

static const char good_manifest[] =
    "{\n"
    "  \"id\": \"good\",\n"
    "  \"name\": \"Good App\",\n"
    "  \"runtime\": {\n"
    "    \"kind\": \"node\",\n"
    "    \"start\": \"node server.js\",\n"
    "    \"port\": 4100,\n"
    "    \"mode\": \"background\",\n"
    "    \"idleTimeoutSecs\": 5,\n"
    "    \"healthPath\": \"/healthz\"\n"
    "  },\n"
    "  \"sandbox\": {\n"
    "    \"force\": true,\n"
    "    \"read_mode\": \"strict\",\n"
    "    \"network\": \"sites\",\n"
    "    \"hosts\": [\"Example.com\"],\n"
    "    \"daemon_api\": false,\n"
    "    \"loopback\": [5432],\n"
    "    \"folders\": [\"~/projects/app\",\n"
    "                {\"path\": \"~/data\", \"readOnly\": true}]\n"
    "  }\n"
    "}\n";

static int
tree_setup(void **state)
{
	char	tmpl[] = "/tmp/sbtest.XXXXXX", real[PATH_MAX];
	char	path[PATH_MAX];

	(void)state;
	if (mkdtemp(tmpl) == NULL || realpath(tmpl, real) == NULL ||
	    strlen(real) >= sizeof t_base)
		return -1;
	memcpy(t_base, real, strlen(real) + 1);
	snprintf(t_home, sizeof t_home, "%s/home", t_base);
	snprintf(t_root, sizeof t_root, "%s/.senclaw", t_home);
	snprintf(t_apps, sizeof t_apps, "%s/ws/space-apps", t_base);
	snprintf(t_scan, sizeof t_scan, "%s/scan", t_base);
	t_env.home = t_home;
	t_env.root = t_root;

	mk("home");
	mk("home/.ssh");
	mk("home/.config");
	mk("home/.config/gcloud");
	mk("home/projects");
	mk("home/projects/app");
	mk("home/data");
	mk("home/.senclaw");
	mk("home/.senclaw/sandbox");
	put("home/notes.txt", "x\n");
	mk("elsewhere");
	mk("elsewhere/aws-real");
	snprintf(path, sizeof path, "%s/elsewhere/aws-real", t_base);
	ln(path, "home/.aws");

	mk("ws");
	mk("ws/space-apps");
	mk("ws/space-apps/good");
	put("ws/space-apps/good/senclaw-manifest.json", good_manifest);
	mk("ws/space-apps/nonet");
	put("ws/space-apps/nonet/senclaw-manifest.json",
	    "{\"id\":\"nonet\",\"sandbox\":{\"network\":\"none\"}}");
	mk("ws/space-apps/plain");
	put("ws/space-apps/plain/senclaw-manifest.json",
	    "{\"name\":\"Plain\",\"runtime\":{\"kind\":\"static\"}}");
	mk("ws/space-apps/broken");
	put("ws/space-apps/broken/senclaw-manifest.json",
	    "{\"id\": \"broken\", \"name\": ");
	mk("ws/space-apps/notobj");
	put("ws/space-apps/notobj/senclaw-manifest.json", "[1,2]");
	mk("ws/space-apps/nomanifest");
	mk("ws/space-apps/mismatch");
	put("ws/space-apps/mismatch/senclaw-manifest.json",
	    "{\"id\":\"someone-else\",\"name\":\"M\"}");
	mk("ws/space-apps/baddecl");
	put("ws/space-apps/baddecl/senclaw-manifest.json",
	    "{\"id\":\"baddecl\",\"sandbox\":{\"force\":true,"
	    "\"folders\":[\"~/.ssh\"]}}");
	mk("ws/space-apps/badhost");
	put("ws/space-apps/badhost/senclaw-manifest.json",
	    "{\"sandbox\":{\"network\":\"hosts\",\"hosts\":[\"localhost\"]}}");
	mk("ws/space-apps/badforce");
	put("ws/space-apps/badforce/senclaw-manifest.json",
	    "{\"sandbox\":{\"force\":\"yes\"}}");

	mk("scan");
	mk("scan/zeta");
	mk("scan/alpha");
	mk("scan/beta_2");
	mk("scan/.hidden");
	mk("scan/.git");
	put("scan/README.txt", "not an app\n");
	return 0;
}

static int
tree_teardown(void **state)
{
	(void)state;
	if (strncmp(t_base, "/tmp/sbtest.", 12) != 0)
		return 0;
	return paths_rmtree(t_base);
}

/* ------------------------------------------------------------------ */
/* guard_folder and the credential store symlink */

static void
test_credential_store_symlink(void **state)
{
	char	path[PATH_MAX], store[PATH_MAX], want[PATH_MAX];

	(void)state;
	snprintf(want, sizeof want, "%s/.aws", t_home);
	snprintf(path, sizeof path, "%s/elsewhere/aws-real", t_base);
	store[0] = '\0';
	assert_true(guard_in_credential_store(&t_env, path, store));
	assert_string_equal(store, want);
	snprintf(path, sizeof path, "%s/elsewhere/aws-real/cli", t_base);
	assert_true(guard_in_credential_store(&t_env, path, NULL));
	snprintf(path, sizeof path, "%s/elsewhere/aws-realx", t_base);
	assert_false(guard_in_credential_store(&t_env, path, NULL));
	snprintf(path, sizeof path, "%s/elsewhere", t_base);
	assert_false(guard_in_credential_store(&t_env, path, NULL));
}

/*
 * Run guard_folder on in; it must refuse with a one-line message that
 * contains want (and, when given, an instruction word).
 */
static void
folder_refused(const char *in, const char *want, const char *todo)
{
	char	out[PATH_MAX], err[512];

	memset(err, 0, sizeof err);
	if (guard_folder(&t_env, in, out, err, sizeof err) != -1)
		fail_msg("%s granted as %s", in, out);
	if (err[0] == '\0')
		fail_msg("%s refused without a reason", in);
	if (strchr(err, '\n') != NULL || strchr(err, '\r') != NULL)
		fail_msg("reason for %s is not one line: %s", in, err);
	if (strstr(err, want) == NULL)
		fail_msg("reason for %s lacks '%s': %s", in, want, err);
	if (todo != NULL && strstr(err, todo) == NULL)
		fail_msg("reason for %s does not say what to do ('%s'): %s",
		    in, todo, err);
}

static void
test_guard_folder(void **state)
{
	char	in[PATH_MAX], out[PATH_MAX], want[PATH_MAX], err[512];

	(void)state;
	/* Accepted, canonical. */
	snprintf(in, sizeof in, "%s/projects/../projects/./app/", t_home);
	snprintf(want, sizeof want, "%s/projects/app", t_home);
	err[0] = '\0';
	assert_int_equal(guard_folder(&t_env, in, out, err, sizeof err), 0);
	assert_string_equal(out, want);
	assert_int_equal(guard_folder(&t_env, "/usr/share", out, err,
	    sizeof err), 0);
	assert_string_equal(out, "/usr/share");

	/* Refused, each with a reason and what to do. */
	folder_refused("projects/app", "absolute", "full path");
	snprintf(in, sizeof in, "%s/missing", t_home);
	folder_refused(in, "does not exist", "create");
	snprintf(in, sizeof in, "%s/notes.txt", t_home);
	folder_refused(in, "not a directory", "grant the folder");
	folder_refused(t_home, "home", "grant a folder inside");
	folder_refused(t_base, "home", "grant a folder inside");
	folder_refused("/tmp", "home", "grant a folder inside");
	folder_refused("/usr", "system root", "grant a folder inside");
	folder_refused("/etc/", "system root", "grant a folder inside");
	folder_refused("/", "filesystem", NULL);
	snprintf(in, sizeof in, "%s/.ssh", t_home);
	folder_refused(in, ".ssh", NULL);
	folder_refused(in, "credential", NULL);
	snprintf(in, sizeof in, "%s/.config/gcloud", t_home);
	folder_refused(in, ".config/gcloud", NULL);
	snprintf(in, sizeof in, "%s/elsewhere/aws-real", t_base);
	folder_refused(in, ".aws", NULL);
	folder_refused(t_root, "state root", NULL);
	snprintf(in, sizeof in, "%s/sandbox", t_root);
	folder_refused(in, "state root", NULL);
	snprintf(in, sizeof in, "%s/pro\njects", t_home);
	folder_refused(in, "control character", NULL);
	snprintf(in, sizeof in, "%s/pro\x1b[0mjects", t_home);
	folder_refused(in, "control character", NULL);

	/* The reason does not repeat the path (the caller names it). */
	snprintf(in, sizeof in, "%s/missing-folder-xyz", t_home);
	assert_int_equal(guard_folder(&t_env, in, out, err, sizeof err), -1);
	assert_null(strstr(err, "missing-folder-xyz"));

	/* A too-small message buffer is not overrun (ASan would see it). */
	{
		char	small[8];

		assert_int_equal(guard_folder(&t_env, "rel", out, small,
		    sizeof small), -1);
		assert_int_equal(strlen(small), sizeof small - 1);
	}
}

/* ------------------------------------------------------------------ */
/* app ids */

static void
id_ok(const char *id)
{
	char	err[256] = "";

	if (app_id_check(id, err, sizeof err) != 0)
		fail_msg("id \"%s\" refused: %s", id, err);
}

static void
id_refused(const char *id, const char *want)
{
	char	err[512] = "";

	if (app_id_check(id, err, sizeof err) != -1)
		fail_msg("id \"%s\" accepted", id);
	if (err[0] == '\0')
		fail_msg("id \"%s\": refused without a reason", id);
	if (strchr(err, '\n') != NULL || strchr(err, '\r') != NULL)
		fail_msg("id \"%s\": reason is not one line: %s", id, err);
	if (want != NULL && strstr(err, want) == NULL)
		fail_msg("id \"%s\": reason lacks '%s': %s", id, want, err);
}

static void
test_app_id(void **state)
{
	static const char *const reserved[] = {
		"sandbox", "apps", "space-apps", "space-apps-data",
		"space-app-data", "run", "workspace", "Sandbox", "SANDBOX",
		"Space-Apps", "RUN", "WorkSpace", NULL
	};
	char	id[APP_ID_MAX + 2];
	size_t	i;

	(void)state;
	id_ok("a");
	id_ok("Z");
	id_ok("0");
	id_ok("my-app_1");
	id_ok("-");
	id_ok("_");
	id_ok("sandboxes");
	id_ok("my-run");
	memset(id, 'a', APP_ID_MAX);
	id[APP_ID_MAX] = '\0';
	assert_int_equal(strlen(id), 80);
	id_ok(id);
	id[APP_ID_MAX] = 'a';
	id[APP_ID_MAX + 1] = '\0';
	id_refused(id, "1 to 80");

	id_refused("", "1 to 80");
	id_refused("a.b", "\"a.b\"");
	id_refused("a/b", "\"a/b\"");
	id_refused("..", "\"..\"");
	id_refused(".", NULL);
	id_refused("a b", NULL);
	id_refused("caf\xc3\xa9", NULL);
	id_refused("a:b", NULL);
	id_refused("a\\b", NULL);
	for (i = 0; reserved[i] != NULL; i++)
		id_refused(reserved[i], reserved[i]);
}

/* An id holding a control character: refused in a one-line reason. */
static void
test_app_id_control_chars(void **state)
{
	(void)state;
	id_refused("app\n", "app id");
	id_refused("a\r\nb", "app id");
}

/* ------------------------------------------------------------------ */
/* manifests */

static void
test_app_read_good(void **state)
{
	struct app	a;
	char		want[PATH_MAX];

	(void)state;
	assert_int_equal(app_read(t_apps, "good", &t_env, &a), 0);
	if (a.error != NULL)
		fail_msg("good manifest refused: %s", a.error);
	assert_string_equal(a.id, "good");
	assert_string_equal(a.name, "Good App");
	snprintf(want, sizeof want, "%s/good", t_apps);
	assert_string_equal(a.dir, want);
	assert_string_equal(a.kind, "node");
	assert_string_equal(a.start, "node server.js");
	assert_int_equal(a.port, 4100);
	assert_true(a.background);
	assert_int_equal(a.idle_secs, APP_IDLE_MIN);
	assert_int_equal(a.idle_secs, 15);
	assert_string_equal(a.health_path, "/healthz");

	assert_true(a.has_decl);
	assert_true(a.decl.forced);
	assert_true(a.decl.enabled);		/* defaults to force */
	assert_int_equal(a.decl.read_mode, POLICY_READ_STRICT);
	assert_int_equal(a.decl.network, POLICY_NET_HOSTS);
	assert_int_equal(a.decl.nhosts, 1);
	assert_string_equal(a.decl.hosts[0], "example.com");
	assert_false(a.decl.daemon_api);
	assert_int_equal(a.decl.nloopback, 1);
	assert_int_equal(a.decl.loopback[0], 5432);
	assert_int_equal(a.decl.nfolders, 2);
	snprintf(want, sizeof want, "%s/projects/app", t_home);
	assert_string_equal(a.decl.folders[0].path, want);
	assert_false(a.decl.folders[0].read_only);
	snprintf(want, sizeof want, "%s/data", t_home);
	assert_string_equal(a.decl.folders[1].path, want);
	assert_true(a.decl.folders[1].read_only);
	app_free(&a);
}

static void
test_app_read_network_none(void **state)
{
	struct app	a;

	(void)state;
	assert_int_equal(app_read(t_apps, "nonet", &t_env, &a), 0);
	assert_null(a.error);
	assert_true(a.has_decl);
	assert_int_equal(a.decl.network, POLICY_NET_OFF);
	assert_false(a.decl.forced);
	assert_false(a.decl.enabled);		/* force is false */
	assert_true(a.decl.daemon_api);
	/* Runtime defaults. */
	assert_int_equal(a.idle_secs, APP_IDLE_DEFAULT);
	assert_string_equal(a.health_path, "/health");
	assert_false(a.background);
	assert_int_equal(a.port, 0);
	app_free(&a);

	/* No sandbox block: no declaration, no error. */
	assert_int_equal(app_read(t_apps, "plain", &t_env, &a), 0);
	assert_null(a.error);
	assert_false(a.has_decl);
	assert_string_equal(a.name, "Plain");
	assert_string_equal(a.kind, "static");
	assert_false(a.decl.enabled);
	app_free(&a);
}

static void
test_app_read_errors(void **state)
{
	struct app	a;

	(void)state;
	/* Broken JSON: an app in an error state that names the file. */
	assert_int_equal(app_read(t_apps, "broken", &t_env, &a), 0);
	assert_non_null(a.error);
	assert_non_null(strstr(a.error, APP_MANIFEST));
	assert_non_null(strstr(a.error, "broken"));
	assert_false(a.has_decl);
	app_free(&a);

	assert_int_equal(app_read(t_apps, "notobj", &t_env, &a), 0);
	assert_non_null(a.error);
	assert_non_null(strstr(a.error, APP_MANIFEST));
	app_free(&a);

	/* No manifest at all: still an app, with the reason. */
	assert_int_equal(app_read(t_apps, "nomanifest", &t_env, &a), 0);
	assert_non_null(a.error);
	assert_non_null(strstr(a.error, APP_MANIFEST));
	app_free(&a);

	assert_int_equal(app_read(t_apps, "mismatch", &t_env, &a), 0);
	assert_non_null(a.error);
	assert_non_null(strstr(a.error, "someone-else"));
	assert_non_null(strstr(a.error, "mismatch"));
	app_free(&a);

	/* A declaration that fails validation: an error, still forced. */
	assert_int_equal(app_read(t_apps, "baddecl", &t_env, &a), 0);
	assert_non_null(a.error);
	assert_non_null(strstr(a.error, "sandbox declaration"));
	assert_non_null(strstr(a.error, "folders[0]"));
	assert_non_null(strstr(a.error, ".ssh"));
	assert_true(a.decl.forced);
	assert_false(a.has_decl);
	app_free(&a);

	assert_int_equal(app_read(t_apps, "badhost", &t_env, &a), 0);
	assert_non_null(a.error);
	assert_non_null(strstr(a.error, "sandbox declaration"));
	assert_non_null(strstr(a.error, "localhost"));
	app_free(&a);

	assert_int_equal(app_read(t_apps, "badforce", &t_env, &a), 0);
	assert_non_null(a.error);
	assert_non_null(strstr(a.error, "sandbox.force"));
	app_free(&a);

	/* No such app folder. */
	assert_int_equal(app_read(t_apps, "no-such-app", &t_env, &a), -1);
	assert_int_equal(app_read(t_apps, "sandbox", &t_env, &a), -1);
	assert_int_equal(app_read("/nonexistent-sb-apps", "good", &t_env,
	    &a), -1);
}

static void
test_app_scan(void **state)
{
	char	**ids;
	size_t	  n = 99, i;

	(void)state;
	ids = app_scan(t_scan, &n);
	assert_non_null(ids);
	assert_int_equal(n, 3);
	assert_string_equal(ids[0], "alpha");
	assert_string_equal(ids[1], "beta_2");
	assert_string_equal(ids[2], "zeta");
	for (i = 0; i < n; i++)
		free(ids[i]);
	free(ids);

	n = 99;
	ids = app_scan("/nonexistent-sb-apps", &n);
	assert_null(ids);
	assert_int_equal(n, 0);
}

int
main(void)
{
	const struct CMUnitTest pure[] = {
		cmocka_unit_test(test_path_within),
		cmocka_unit_test(test_path_is_ancestor),
		cmocka_unit_test(test_system_root),
		cmocka_unit_test(test_credential_store_names),
		cmocka_unit_test(test_app_id),
		cmocka_unit_test(test_app_id_control_chars),
	};
	const struct CMUnitTest tree[] = {
		cmocka_unit_test(test_credential_store_symlink),
		cmocka_unit_test(test_guard_folder),
		cmocka_unit_test(test_app_read_good),
		cmocka_unit_test(test_app_read_network_none),
		cmocka_unit_test(test_app_read_errors),
		cmocka_unit_test(test_app_scan),
	};
	int	rc;

	rc = cmocka_run_group_tests_name("guard", pure, NULL, NULL);
	rc += cmocka_run_group_tests_name("guard and apps on disk", tree,
	    tree_setup, tree_teardown);
	return rc != 0;
}
