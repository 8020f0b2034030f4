/*
 * spaceboxd: the engine.  Owns the policies (and, later, the apps, their
 * proxies and the exec service) and serves the management API on a
 * private unix socket.  Detaches once its socket is ready, like tmux's
 * server, so a client that started it can connect at once.
 */
#include <sys/resource.h>
#include <sys/stat.h>

#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "log.h"
#include "server.h"
#include "store.h"
#include "supervisor.h"
#include "api.h"
#include "exec.h"
#include "xmalloc.h"

static struct engine	 engine;
static uv_signal_t	 sig_term, sig_int;

static void __attribute__((noreturn))
usage(int status)
{
	fprintf(status == 0 ? stdout : stderr,
	    "usage: spaceboxd [-dfhV] [--socket PATH] [--workspace DIR] "
	    "[--api-port N]\n"
	    "                 [--local-sandbox workspace-write|read-only|"
	    "full-access]\n"
	    "                 [--local-sandbox-read toolchain|PATH[,PATH...]]"
	    "\n"
	    "                 [--unsandboxed-commands allow] "
	    "[--unsandboxed-apps allow]\n"
	    "                 [--proxy-max-tunnels N] "
	    "[--proxy-idle-timeout SECS]\n"
	    "                 [--exec-timeout SECS] [--exec-network none|broker]"
	    " [--exec-hosts LIST]\n");
	exit(status);
}

/* Every app has stopped: close the rest and leave the loop. */
static void
shutdown_done(struct engine *e)
{
	engine_proxy_stop_all(e);
	server_stop(e);
	if (!uv_is_closing((uv_handle_t *)&sig_term)) {
		uv_close((uv_handle_t *)&sig_term, NULL);
		uv_close((uv_handle_t *)&sig_int, NULL);
	}
	uv_stop(e->loop);
}

static void
on_signal(uv_signal_t *s, int signum)
{
	static int	 again;

	if (again++) {
		log_info("signal %d again: not waiting for the apps", signum);
		shutdown_done(&engine);
		return;
	}
	log_info("signal %d: stopping the apps, then shutting down", signum);
	exec_shutdown(&engine);
	supervisor_shutdown(&engine, shutdown_done);
}

/* The app-facing API; port 0 picks a free one. */
static void
start_app_api(struct engine *e)
{
	struct server_listener	*l;
	struct sockaddr_storage	 ss;
	char			 err[256];
	int			 len = sizeof ss;

	l = server_listen_tcp(e, e->api_port, appapi_routes, appapi_nroutes,
	    err, sizeof err);
	if (l == NULL) {
		log_warnx("app-facing API: %s; apps sharing the host network "
		    "cannot reach it (use --api-port)", err);
		return;
	}
	if (uv_tcp_getsockname(&l->h.tcp, (struct sockaddr *)&ss, &len) == 0)
		e->api_port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

static void
close_handle(uv_handle_t *h, void *arg)
{
	if (!uv_is_closing(h))
		uv_close(h, NULL);
}

static int
parse_number(const char *opt, const char *arg, long min, long max)
{
	char	*end;
	long	 v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno != 0 || *end != '\0' || end == arg || v < min || v > max) {
		fprintf(stderr, "spaceboxd: %s \"%s\": must be a number from "
		    "%ld to %ld\n", opt, arg, min, max);
		usage(2);
	}
	return (int)v;
}

/* Tunnels and apps need descriptors: take all the hard limit allows. */
static void
raise_nofile(void)
{
	struct rlimit	rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static int
parse_allow(const char *opt, const char *arg)
{
	if (strcmp(arg, "allow") != 0) {
		fprintf(stderr, "spaceboxd: %s takes only \"allow\", not "
		    "\"%s\"\n", opt, arg);
		usage(2);
	}
	return 1;
}

/* Tell the waiting parent how the start went, then let it go. */
static void
report(int fd, const char *msg)
{
	if (fd == -1)
		return;
	/* If the parent is gone there is no one to tell. */
	(void)!write(fd, msg, strlen(msg));
	close(fd);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 'S' },
		{ "workspace", required_argument, NULL, 'w' },
		{ "api-port", required_argument, NULL, 'p' },
		{ "local-sandbox", required_argument, NULL, 'L' },
		{ "local-sandbox-read", required_argument, NULL, 'R' },
		{ "unsandboxed-commands", required_argument, NULL, 'C' },
		{ "unsandboxed-apps", required_argument, NULL, 'A' },
		{ "proxy-max-tunnels", required_argument, NULL, 'T' },
		{ "proxy-idle-timeout", required_argument, NULL, 'I' },
		{ "exec-timeout", required_argument, NULL, 'X' },
		{ "exec-network", required_argument, NULL, 'N' },
		{ "exec-hosts", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const char	*socket_opt = NULL, *workspace_opt = NULL, *ls;
	const char	*exec_hosts = NULL;
	char		 err[1024], buf[1024], *logpath;
	int		 ch, foreground = 0, debug = 0, fds[2] = { -1, -1 };
	ssize_t		 n;
	pid_t		 pid;
	FILE		*logf;
	uv_loop_t	*loop;

	log_init("spaceboxd", 0, NULL);
	engine_init(&engine, NULL);
	if ((ls = getenv("SPACEBOX_LOCAL_SANDBOX")) != NULL && *ls != '\0')
		engine.local_sandbox = xstrdup(ls);
	while ((ch = getopt_long(argc, argv, "dfhS:V", longopts, NULL)) != -1) {
		switch (ch) {
		case 'd':
			debug = 1;
			break;
		case 'f':
			foreground = 1;
			break;
		case 'S':
			socket_opt = optarg;
			break;
		case 'w':
			workspace_opt = optarg;
			break;
		case 'p':
			engine.api_port = parse_number("--api-port", optarg, 0,
			    65535);
			break;
		case 'L':
			if (strcmp(optarg, "workspace-write") != 0 &&
			    strcmp(optarg, "read-only") != 0 &&
			    strcmp(optarg, "full-access") != 0) {
				fprintf(stderr, "spaceboxd: --local-sandbox "
				    "\"%s\": must be workspace-write, "
				    "read-only or full-access\n", optarg);
				usage(2);
			}
			free(engine.local_sandbox);
			engine.local_sandbox = xstrdup(optarg);
			break;
		case 'R':
			engine.local_sandbox_read = xstrdup(optarg);
			break;
		case 'C':
			engine.unsandboxed_commands = parse_allow(
			    "--unsandboxed-commands", optarg);
			break;
		case 'A':
			engine.unsandboxed_apps = parse_allow(
			    "--unsandboxed-apps", optarg);
			break;
		case 'T':
			engine.proxy_limits.max_tunnels = parse_number(
			    "--proxy-max-tunnels", optarg, 1, 1000000);
			break;
		case 'I':
			engine.proxy_limits.idle_secs = parse_number(
			    "--proxy-idle-timeout", optarg, 1, 86400);
			break;
		case 'X':
			engine.exec_timeout = parse_number("--exec-timeout",
			    optarg, 1, 86400);
			break;
		case 'N':
			if (strcmp(optarg, "broker") == 0)
				engine.exec_broker = 1;
			else if (strcmp(optarg, "none") != 0) {
				fprintf(stderr, "spaceboxd: --exec-network "
				    "\"%s\": must be none or broker\n", optarg);
				usage(2);
			}
			break;
		case 'H':
			exec_hosts = optarg;
			break;
		case 'V':
			printf("spaceboxd %s\n", SPACEBOX_VERSION);
			return 0;
		case 'h':
			usage(0);
		default:
			usage(2);
		}
	}
	if (optind != argc)
		usage(2);
	log_init("spaceboxd", debug, NULL);

	if (paths_init(&engine.paths, socket_opt, workspace_opt, err,
	    sizeof err) == -1)
		fatalx("%s", err);
	engine.genv.home = engine.paths.home;
	engine.genv.root = engine.paths.root;

	if (paths_mkdirs(engine.paths.root, 0700) == -1)
		fatal("cannot create the state root %s", engine.paths.root);
	if (paths_mkdirs(engine.paths.sandbox_dir, 0700) == -1)
		fatal("cannot create %s", engine.paths.sandbox_dir);
	/* Folder grants are checked against the canonical state root. */
	{
		char canon[PATH_MAX];

		if (realpath(engine.paths.root, canon) != NULL) {
			free(engine.paths.root);
			engine.paths.root = xstrdup(canon);
			engine.genv.root = engine.paths.root;
		}
	}

	/* Refuse a bad read list or site list before anything runs. */
	if (engine.local_sandbox_read != NULL && exec_reads_parse(&engine,
	    engine.local_sandbox_read, err, sizeof err) == -1)
		fatalx("%s", err);
	if (engine.exec_broker && exec_hosts == NULL)
		fatalx("--exec-network broker needs --exec-hosts LIST");
	if (exec_hosts != NULL && exec_hosts_parse(&engine, exec_hosts, err,
	    sizeof err) == -1)
		fatalx("--exec-hosts: %s", err);

	if (!foreground) {
		if (pipe2(fds, O_CLOEXEC) == -1)
			fatal("pipe2");
		if ((pid = fork()) == -1)
			fatal("fork");
		if (pid != 0) {
			close(fds[1]);
			n = read(fds[0], buf, sizeof buf - 1);
			buf[n > 0 ? n : 0] = '\0';
			if (strcmp(buf, "ok") == 0)
				return 0;
			fprintf(stderr, "spaceboxd: %s\n", n > 0 ? buf :
			    "the engine exited while starting");
			return 1;
		}
		close(fds[0]);
		setsid();
	}

	signal(SIGPIPE, SIG_IGN);
	raise_nofile();
	engine_probe(&engine);
	if (!engine.bwrap_ok)
		log_warnx("%s", engine.bwrap_note);

	loop = uv_default_loop();
	engine.loop = loop;
	if (server_start(&engine, err, sizeof err) == -1) {
		report(fds[1], err);
		fatalx("%s", err);
	}
	start_app_api(&engine);
	exec_sweep(&engine);
	if ((ch = store_sweep(engine.paths.policy_dir)) > 0)
		log_info("removed %d temporary file(s) of interrupted saves",
		    ch);
	uv_signal_init(loop, &sig_term);
	uv_signal_init(loop, &sig_int);
	uv_signal_start(&sig_term, on_signal, SIGTERM);
	uv_signal_start(&sig_int, on_signal, SIGINT);

	if (!foreground) {
		xasprintf(&logpath, "%s/spaceboxd.log",
		    engine.paths.sandbox_dir);
		if ((logf = fopen(logpath, "ae")) != NULL)
			log_set_file(logf);
		free(logpath);
		ch = open("/dev/null", O_RDWR);
		dup2(ch, 0);
		dup2(ch, 1);
		dup2(ch, 2);
		if (ch > 2)
			close(ch);
	}
	log_info("listening on %s (workspace %s)", engine.paths.socket,
	    engine.paths.workspace);
	report(fds[1], "ok");
	supervisor_start_background(&engine);

	uv_run(loop, UV_RUN_DEFAULT);
	/* Close what is still open and let the close callbacks run. */
	uv_walk(loop, close_handle, NULL);
	uv_run(loop, UV_RUN_DEFAULT);
	uv_loop_close(loop);
	log_info("stopped");
	paths_free(&engine.paths);
	free(engine.bwrap_note);
	free(engine.local_sandbox);
	free(engine.local_sandbox_read);
	return 0;
}
