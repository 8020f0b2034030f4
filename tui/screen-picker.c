/*
 * The folder picker: browse folders with the arrows, or type a path
 * (libedit: history, Tab completion), and grant the chosen one read-write
 * or read-only.  Folders the rules refuse (a credential store, $HOME, a
 * system root, the engine's state) are marked with the reason and cannot
 * be chosen; the engine checks again on Save.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"
#include "paths.h"
#include "tui.h"
#include "xmalloc.h"

struct picker_entry {
	char	*name;
	char	*why;		/* refused: the reason, else NULL */
};

struct picker {
	char			*dir;
	struct picker_entry	*entries;
	int			 n;
	int			 sel;
	int			 top;
	int			 hidden;
	int			 ro;
	struct sb_paths		 paths;
	struct guard_env	 genv;
	void			(*chosen)(struct tui *, void *, const char *,
				    int);
	void			*arg;
};

static int
picker_cmp(const void *a, const void *b)
{
	const struct picker_entry	*x = a, *y = b;

	return strcmp(x->name, y->name);
}

static void
picker_clear(struct picker *p)
{
	int	i;

	for (i = 0; i < p->n; i++) {
		free(p->entries[i].name);
		free(p->entries[i].why);
	}
	free(p->entries);
	p->entries = NULL;
	p->n = 0;
}

/* Why a folder cannot be granted, by the engine's own rules, or NULL. */
static char *
picker_refused(struct picker *p, const char *path)
{
	char	canon[PATH_MAX], why[PATH_MAX + 128];

	if (guard_folder(&p->genv, path, canon, why, sizeof why) == -1)
		return xstrdup(why);
	return NULL;
}

static void
picker_read(struct picker *p)
{
	DIR		*d;
	struct dirent	*de;
	struct stat	 st;
	char		 full[PATH_MAX];

	picker_clear(p);
	if ((d = opendir(p->dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (de->d_name[0] == '.' && !p->hidden)
			continue;
		snprintf(full, sizeof full, "%s%s%s", p->dir,
		    strcmp(p->dir, "/") == 0 ? "" : "/", de->d_name);
		if (stat(full, &st) == -1 || !S_ISDIR(st.st_mode))
			continue;
		p->entries = xreallocarray(p->entries, p->n + 1,
		    sizeof *p->entries);
		p->entries[p->n].name = xstrdup(de->d_name);
		p->entries[p->n].why = picker_refused(p, full);
		p->n++;
	}
	closedir(d);
	qsort(p->entries, p->n, sizeof *p->entries, picker_cmp);
	if (p->sel >= p->n)
		p->sel = p->n > 0 ? p->n - 1 : 0;
}

static void
picker_cd(struct picker *p, const char *dir)
{
	char	canon[PATH_MAX];

	if (realpath(dir, canon) == NULL)
		return;
	free(p->dir);
	p->dir = xstrdup(canon);
	p->sel = p->top = 0;
	picker_read(p);
}

static char *
picker_path(struct picker *p, int i)
{
	char	*full;

	xasprintf(&full, "%s%s%s", p->dir, strcmp(p->dir, "/") == 0 ? "" :
	    "/", p->entries[i].name);
	return full;
}

static void
picker_draw(struct tui *t, struct tui_screen *s)
{
	struct picker	*p = s->data;
	char		 line[PATH_MAX + 200], title[PATH_MAX + 64];
	int		 rows = LINES - 6, i, y, attr;
	const char	*mark;

	snprintf(title, sizeof title, "Add folder %s %s", draw_glyph(t,
	    "\xe2\x80\x94", "-"), p->dir);
	draw_frame(t, title, "Enter open  BS up  Space grant  w rw/ro  "
	    "/ type path  . hidden  ? help");
	snprintf(line, sizeof line, "Grant as: %s   (w switches)   hidden "
	    "folders: %s", p->ro ? "read-only" : "read-write", p->hidden ?
	    "shown" : "not shown");
	draw_text(1, 2, COLS - 4, A_BOLD, line);
	if (p->sel < p->top)
		p->top = p->sel;
	if (p->sel >= p->top + rows)
		p->top = p->sel - rows + 1;
	if (p->n == 0)
		draw_text(3, 4, COLS - 8, 0, "(no folders here)");
	for (i = p->top, y = 3; i < p->n && y < 3 + rows; i++, y++) {
		attr = i == p->sel ? draw_attr(t, PAIR_SELECT, A_REVERSE) :
		    p->entries[i].why != NULL ? draw_attr(t, PAIR_DIM, A_DIM) :
		    0;
		mark = p->entries[i].why != NULL ? draw_glyph(t,
		    "\xe2\x9c\x97", "x") : " ";
		snprintf(line, sizeof line, "%s %s/%s%s%s", mark,
		    p->entries[i].name, p->entries[i].name[0] == '.' ?
		    "  (hidden)" : "", p->entries[i].why != NULL ? "  refused: "
		    : "", p->entries[i].why != NULL ? p->entries[i].why : "");
		draw_text(y, 2, COLS - 4, attr, line);
	}
}

static void
picker_choose(struct tui *t, struct picker *p, const char *path)
{
	char	*why;

	if ((why = picker_refused(p, path)) != NULL) {
		tui_message(t, 1, "%s: %s", path, why);
		free(why);
		return;
	}
	p->chosen(t, p->arg, path, p->ro);
}

static int
picker_action(struct tui *t, struct tui_screen *s, int action, int key)
{
	struct picker	*p = s->data;
	char		*path, *parent, *slash;
	struct stat	 st;

	switch (action) {
	case A_UP:
		if (p->sel > 0)
			p->sel--;
		break;
	case A_DOWN:
		if (p->sel + 1 < p->n)
			p->sel++;
		break;
	case A_PGUP:
		p->sel = p->sel > LINES - 7 ? p->sel - (LINES - 7) : 0;
		break;
	case A_PGDN:
		p->sel = p->sel + LINES - 7 < p->n ? p->sel + LINES - 7 :
		    p->n - 1;
		break;
	case A_HOME:
		p->sel = 0;
		break;
	case A_END:
		p->sel = p->n > 0 ? p->n - 1 : 0;
		break;
	case A_OPEN:
		if (p->n == 0)
			break;
		path = picker_path(p, p->sel);
		picker_cd(p, path);
		free(path);
		break;
	case A_PARENT:
		parent = xstrdup(p->dir);
		if ((slash = strrchr(parent, '/')) != NULL)
			slash[slash == parent ? 1 : 0] = '\0';
		picker_cd(p, parent);
		free(parent);
		break;
	case A_HIDDEN:
		p->hidden = !p->hidden;
		picker_read(p);
		break;
	case A_RW:
		p->ro = !p->ro;
		break;
	case A_CHOOSE:
		if (p->n == 0)
			break;
		path = picker_path(p, p->sel);
		picker_choose(t, p, path);
		free(path);
		if (t->message == NULL || !t->message_err)
			return TUI_POP;
		break;
	case A_TYPE_PATH:
		xasprintf(&parent, "%s/", strcmp(p->dir, "/") == 0 ? "" :
		    p->dir);
		path = prompt_line(t, "folder: ", parent, 1);
		free(parent);
		if (path == NULL)
			break;
		/* Enter on a typed folder grants it; it must exist. */
		if (stat(path, &st) == -1 || !S_ISDIR(st.st_mode)) {
			tui_message(t, 1, "%s: not an existing folder", path);
			free(path);
			break;
		}
		picker_choose(t, p, path);
		free(path);
		if (t->message == NULL || !t->message_err)
			return TUI_POP;
		break;
	case A_BACK:
		return TUI_POP;
	default:
		break;
	}
	return TUI_KEEP;
}

static void
picker_click(struct tui *t, struct tui_screen *s, int y, int x)
{
	struct picker	*p = s->data;

	if (y >= 3 && p->top + y - 3 < p->n)
		p->sel = p->top + y - 3;
}

static void
picker_free(struct tui_screen *s)
{
	struct picker	*p = s->data;

	picker_clear(p);
	free(p->dir);
	paths_free(&p->paths);
	free(p);
}

struct tui_screen *
picker_screen(struct tui *t, const char *start,
    void (*chosen)(struct tui *, void *, const char *, int), void *arg)
{
	struct tui_screen	*s;
	struct picker		*p;
	char			 err[256];

	p = xcalloc(1, sizeof *p);
	p->chosen = chosen;
	p->arg = arg;
	if (paths_init(&p->paths, NULL, NULL, err, sizeof err) == 0) {
		p->genv.home = p->paths.home;
		p->genv.root = p->paths.root;
	}
	p->dir = xstrdup("/");
	picker_cd(p, start != NULL ? start : p->paths.home != NULL ?
	    p->paths.home : "/");
	s = xcalloc(1, sizeof *s);
	s->title = "folder";
	s->ctx = TUI_CTX_PICKER;
	s->data = p;
	s->draw = picker_draw;
	s->action = picker_action;
	s->click = picker_click;
	s->free = picker_free;
	s->stream_fd = -1;
	return s;
}
