/*
 * spacebox: the client.  With a command it is the CLI; with none on a
 * terminal it will open the TUI (for now it lists the apps).  Every
 * operation is a request to spaceboxd, started on demand like tmux's
 * server.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "log.h"
#include "paths.h"
#include "tui.h"

#if defined(__SANITIZE_ADDRESS__)
/*
 * LeakSanitizer: libedit keeps wide-character copies (wcsdup) and ncurses
 * its trimmed sgr0 string for the life of the process; those are theirs.
 */
const char	*__lsan_default_suppressions(void);
const char	*__lsan_default_options(void);

const char *
__lsan_default_suppressions(void)
{
	return "leak:wcsdup\nleak:_nc_trim_sgr0\n";
}

/* Quiet about them, too: the TUI's stderr must stay empty. */
const char *
__lsan_default_options(void)
{
	return "print_suppressions=0";
}
#endif

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 'S' },
		{ "workspace", required_argument, NULL, 'w' },
		{ "no-start", no_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "no-color", no_argument, NULL, 'C' },
		{ "ascii", no_argument, NULL, 'a' },
		{ "no-mouse", no_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const struct cmd_entry	*cmd;
	struct client		 cl;
	struct sb_paths		 sp;
	const char		*socket_opt = NULL, *workspace_opt = NULL;
	char			 err[1024];
	char			*apps_argv[] = { (char *)"apps", NULL };
	int			 ch, i, rv;
	int			 color = 1, ascii = 0, mouse = 1;

	log_init("spacebox", 0, NULL);
	memset(&cl, 0, sizeof cl);
	/* "+": stop at the command name; its options are its own. */
	while ((ch = getopt_long(argc, argv, "+hS:V", longopts, NULL)) != -1) {
		switch (ch) {
		case 'S':
			socket_opt = optarg;
			break;
		case 'w':
			workspace_opt = optarg;
			break;
		case 'n':
			cl.no_start = 1;
			break;
		case 'j':
			cl.json = 1;
			break;
		case 'C':
			color = 0;
			break;
		case 'a':
			ascii = 1;
			break;
		case 'M':
			mouse = 0;
			break;
		case 'h':
			cmd_usage_all(stdout);
			return CMD_OK;
		case 'V':
			printf("spacebox %s\n", SPACEBOX_VERSION);
			return CMD_OK;
		default:
			cmd_usage_all(stderr);
			return CMD_USAGE;
		}
	}
	argc -= optind;
	argv += optind;

	if (paths_init(&sp, socket_opt, workspace_opt, err,
	    sizeof err) == -1) {
		fprintf(stderr, "spacebox: %s\n", err);
		return CMD_FAILED;
	}
	cl.socket = sp.socket;
	cl.workspace = workspace_opt != NULL ? sp.workspace : NULL;

	if (argc == 0) {
		/* On a terminal: the TUI; otherwise the list, for scripts. */
		if (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO) && !cl.json)
			rv = tui_main(&cl, color, ascii, mouse);
		else
			rv = cmd_apps(&cl, 1, apps_argv);
		paths_free(&sp);
		return rv;
	}
	if ((cmd = cmd_find(argv[0])) == NULL) {
		fprintf(stderr, "spacebox: unknown command \"%s\"\n", argv[0]);
		cmd_usage_all(stderr);
		paths_free(&sp);
		return CMD_USAGE;
	}
	/*
	 * --json may also follow the command name; exec parses its own
	 * (what follows "--" is the command's), sandbox set its own.
	 */
	for (i = 1; i < argc && strcmp(cmd->name, "exec") != 0; i++) {
		if (strcmp(argv[i], "--json") == 0 &&
		    strcmp(cmd->name, "sandbox") != 0) {
			cl.json = 1;
			memmove(&argv[i], &argv[i + 1],
			    (size_t)(argc - i) * sizeof *argv);
			argc--;
			i--;
		}
	}
	if (strcmp(cmd->name, "sandbox") == 0 && argc >= 2 &&
	    strcmp(argv[1], "set") != 0) {
		for (i = 2; i < argc; i++) {
			if (strcmp(argv[i], "--json") == 0) {
				cl.json = 1;
				memmove(&argv[i], &argv[i + 1],
				    (size_t)(argc - i) * sizeof *argv);
				argc--;
				i--;
			}
		}
	}
	rv = cmd->exec(&cl, argc, argv);
	paths_free(&sp);
	return rv;
}
