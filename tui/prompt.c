/*
 * One line of input at the bottom of the screen, edited by libedit:
 * emacs keys, a history per kind of prompt, and Tab completion of
 * folder names for paths.  Curses keeps the screen; libedit owns the
 * terminal only while the line is being edited.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <histedit.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"
#include "xmalloc.h"

#define PROMPT_KINDS	2

static History	*prompt_hist[PROMPT_KINDS];
static char	*prompt_text;

/* Ctrl-C cancels the line, not the TUI. */
static void
prompt_on_int(int sig)
{
}

static char *
prompt_show(EditLine *el)
{
	return prompt_text;
}

/* Longest common prefix of a and b's first n bytes. */
static size_t
prompt_common(const char *a, const char *b, size_t n)
{
	size_t	i;

	for (i = 0; i < n && a[i] != '\0' && a[i] == b[i]; i++)
		;
	return i;
}

/*
 * Tab: complete the last path component to the folders that start with
 * it; a single match gets its trailing '/'.
 */
static unsigned char
prompt_complete(EditLine *el, int ch)
{
	const LineInfo	*li = el_line(el);
	char		 word[PATH_MAX], dir[PATH_MAX], full[PATH_MAX];
	char		 best[PATH_MAX] = "";
	const char	*base, *slash;
	struct dirent	*de;
	struct stat	 st;
	size_t		 len, blen = 0, baselen;
	int		 matches = 0;
	DIR		*d;

	len = (size_t)(li->cursor - li->buffer);
	if (len >= sizeof word)
		return CC_ERROR;
	memcpy(word, li->buffer, len);
	word[len] = '\0';
	if ((slash = strrchr(word, '/')) == NULL)
		return CC_ERROR;
	snprintf(dir, sizeof dir, "%.*s", (int)(slash - word + 1), word);
	base = slash + 1;
	baselen = strlen(base);
	if ((d = opendir(dir)) == NULL)
		return CC_ERROR;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0 ||
		    strncmp(de->d_name, base, baselen) != 0)
			continue;
		if (baselen == 0 && de->d_name[0] == '.')
			continue;
		if (snprintf(full, sizeof full, "%s%s", dir, de->d_name) >=
		    (int)sizeof full || stat(full, &st) == -1 ||
		    !S_ISDIR(st.st_mode))
			continue;
		if (matches++ == 0) {
			snprintf(best, sizeof best, "%s", de->d_name);
			blen = strlen(best);
		} else
			blen = prompt_common(best, de->d_name, blen);
	}
	closedir(d);
	if (matches == 0)
		return CC_REFRESH_BEEP;
	best[blen] = '\0';
	if (blen > baselen && el_insertstr(el, best + baselen) == -1)
		return CC_ERROR;
	if (matches == 1 && el_insertstr(el, "/") == -1)
		return CC_ERROR;
	return matches == 1 || blen > baselen ? CC_REFRESH : CC_REFRESH_BEEP;
}

/*
 * Ask for one line; NULL when cancelled (Ctrl-D, Ctrl-C or an empty
 * line).  complete_dirs selects the path history and Tab completion.
 */
char *
prompt_line(struct tui *t, const char *prompt, const char *initial,
    int complete_dirs)
{
	HistEvent	 he;
	struct sigaction sa, oldint;
	sigset_t	 winch, oldmask;
	EditLine	*el;
	History		*h;
	const char	*line;
	char		*out = NULL;
	int		 count, kind = complete_dirs ? 1 : 0;

	if (prompt_hist[kind] == NULL) {
		prompt_hist[kind] = history_init();
		history(prompt_hist[kind], &he, H_SETSIZE, 100);
		history(prompt_hist[kind], &he, H_SETUNIQUE, 1);
	}
	h = prompt_hist[kind];

	/* The line is edited on the last row, under the screen. */
	def_prog_mode();
	move(LINES - 1, 0);
	clrtoeol();
	curs_set(1);
	refresh();
	reset_shell_mode();

	/*
	 * libedit is not let near signals: its handler would re-send them
	 * to the whole process group.  An interrupted read ends el_gets;
	 * SIGINT only cancels the line, SIGTERM and SIGHUP still reach the
	 * TUI's own handlers and end it.
	 */
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = prompt_on_int;
	sigaction(SIGINT, &sa, &oldint);
	/* A resize waits for the line: it is handled when the prompt ends. */
	sigemptyset(&winch);
	sigaddset(&winch, SIGWINCH);
	sigprocmask(SIG_BLOCK, &winch, &oldmask);
	xasprintf(&prompt_text, "%s", prompt);
	el = el_init("spacebox", stdin, stdout, stderr);
	el_set(el, EL_EDITOR, "emacs");
	el_set(el, EL_PROMPT, prompt_show);
	el_set(el, EL_HIST, history, h);
	el_set(el, EL_SIGNAL, 0);
	if (complete_dirs) {
		el_set(el, EL_ADDFN, "sb-complete", "complete a folder",
		    prompt_complete);
		el_set(el, EL_BIND, "^I", "sb-complete", NULL);
	}
	if (initial != NULL)
		el_push(el, initial);
	line = el_gets(el, &count);
	if (line != NULL && count > 0) {
		/* Trimmed: a line of spaces is no answer. */
		line += strspn(line, " \t");
		out = xstrdup(line);
		out[strcspn(out, "\r\n")] = '\0';
		count = (int)strlen(out);
		while (count > 0 && (out[count - 1] == ' ' ||
		    out[count - 1] == '\t'))
			out[--count] = '\0';
		if (out[0] == '\0') {
			free(out);
			out = NULL;
		} else
			history(h, &he, H_ENTER, out);
	}
	el_end(el);
	sigaction(SIGINT, &oldint, NULL);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	free(prompt_text);
	prompt_text = NULL;

	reset_prog_mode();
	curs_set(0);
	clearok(curscr, TRUE);
	return out;
}
