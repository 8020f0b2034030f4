/*
 * The terminal: curses set up and torn down, colours only when wanted
 * (NO_COLOR, --no-color), ASCII glyphs when the locale is not UTF-8 or
 * --ascii, the mouse only when wanted; and the few drawing helpers every
 * screen uses (a frame with a title and a key bar, clipped text, wrapped
 * text, the generated help).
 */
#include <langinfo.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "tui.h"
#include "xmalloc.h"

static int	draw_active;
static int	draw_ascii;	/* --ascii, or a locale that is not UTF-8 */

int
draw_init(struct tui *t)
{
	const char	*cs;

	setlocale(LC_ALL, "");
	cs = nl_langinfo(CODESET);
	if (cs == NULL || strcmp(cs, "UTF-8") != 0)
		t->ascii = 1;
	draw_ascii = t->ascii;
	if (getenv("NO_COLOR") != NULL && *getenv("NO_COLOR") != '\0')
		t->color = 0;
	if (initscr() == NULL)
		return -1;
	draw_active = 1;
	raw();
	noecho();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	if (t->color && has_colors()) {
		start_color();
		use_default_colors();
		init_pair(PAIR_TITLE, COLOR_BLACK, COLOR_CYAN);
		init_pair(PAIR_SELECT, COLOR_BLACK, COLOR_WHITE);
		init_pair(PAIR_ERROR, COLOR_RED, -1);
		init_pair(PAIR_OK, COLOR_GREEN, -1);
		init_pair(PAIR_DIM, COLOR_BLUE, -1);
		init_pair(PAIR_WANT, COLOR_YELLOW, -1);
	} else
		t->color = 0;
	if (t->mouse)
		mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED |
		    BUTTON1_RELEASED, NULL);
	return 0;
}

void
draw_end(void)
{
	if (!draw_active)
		return;
	draw_active = 0;
	mousemask(0, NULL);
	curs_set(1);
	endwin();
}

int
draw_attr(struct tui *t, int pair, int fallback)
{
	return t->color ? (int)COLOR_PAIR(pair) : fallback;
}

const char *
draw_glyph(struct tui *t, const char *utf8, const char *ascii)
{
	return t->ascii ? ascii : utf8;
}

/*
 * s in ASCII for --ascii or a non-UTF-8 locale: the few glyphs the
 * screens use become their ASCII forms, anything else a '?'.
 */
static char *
draw_to_ascii(const char *s)
{
	static const struct {
		const char	*utf8;
		const char	*ascii;
	} map[] = {
		{ "\xe2\x80\x94", "-" }, { "\xe2\x80\xa6", "..." },
		{ "\xe2\x80\xa2", "*" }, { "\xe2\x9c\x97", "x" },
		{ "\xe2\x96\xb2", "^" }, { "\xe2\x96\xbc", "v" },
	};
	char	*out, *o;
	size_t	 i, n;

	out = o = xmalloc(strlen(s) * 3 + 1);
	while (*s != '\0') {
		if ((unsigned char)*s < 0x80) {
			*o++ = *s++;
			continue;
		}
		for (i = 0; i < sizeof map / sizeof map[0]; i++) {
			n = strlen(map[i].utf8);
			if (strncmp(s, map[i].utf8, n) == 0)
				break;
		}
		if (i < sizeof map / sizeof map[0]) {
			o = stpcpy(o, map[i].ascii);
			s += n;
			continue;
		}
		/* One '?' for a whole UTF-8 sequence. */
		*o++ = '?';
		s++;
		while (((unsigned char)*s & 0xc0) == 0x80)
			s++;
	}
	*o = '\0';
	return out;
}

/* Text clipped to width columns (multibyte aware). */
void
draw_text(int y, int x, int width, int attr, const char *s)
{
	wchar_t	 wbuf[512];
	char	*a;
	size_t	 n;
	int	 w = 0, i;

	if (width <= 0 || y < 0 || y >= LINES)
		return;
	n = draw_ascii ? (size_t)-1 : mbstowcs(wbuf, s,
	    sizeof wbuf / sizeof wbuf[0] - 1);
	if (n == (size_t)-1) {
		a = draw_to_ascii(s);
		attron(attr);
		mvaddnstr(y, x, a, width);
		attroff(attr);
		free(a);
		return;
	}
	wbuf[n] = L'\0';
	for (i = 0; wbuf[i] != L'\0'; i++) {
		int cw = wcwidth(wbuf[i]);

		if (cw < 0)
			cw = 1;
		if (w + cw > width)
			break;
		w += cw;
	}
	wbuf[i] = L'\0';
	attron(attr);
	mvaddwstr(y, x, wbuf);
	attroff(attr);
}

/* Wrap at spaces; returns the lines used. */
int
draw_wrap(int y, int x, int width, int maxlines, int attr, const char *s)
{
	char	*copy, *p, *line;
	int	 used = 0;
	size_t	 len, cut;

	copy = xstrdup(s);
	p = copy;
	while (*p != '\0' && used < maxlines) {
		len = strlen(p);
		if ((int)len <= width)
			cut = len;
		else {
			for (cut = (size_t)width; cut > 0 && p[cut] != ' ';
			    cut--)
				;
			if (cut == 0)
				cut = (size_t)width;
		}
		line = xstrndup(p, cut);
		draw_text(y + used, x, width, attr, line);
		free(line);
		used++;
		p += cut;
		while (*p == ' ')
			p++;
	}
	free(copy);
	return used;
}

void
draw_frame(struct tui *t, const char *title, const char *keys)
{
	int	attr = draw_attr(t, PAIR_TITLE, A_REVERSE);

	attron(attr);
	mvhline(0, 0, ' ', COLS);
	attroff(attr);
	draw_text(0, 1, COLS - 2, attr | A_BOLD, title);
	attron(attr);
	mvhline(LINES - 1, 0, ' ', COLS);
	attroff(attr);
	draw_text(LINES - 1, 1, COLS - 1, attr, keys);
}

static const char *const draw_ctx_names[] = {
	"Everywhere", "App list", "Sandbox dialog", "Folder picker",
	"Logs and status"
};

/*
 * The help screen, generated from the key table, one key a line: this
 * screen's keys, then those that work everywhere.  Any key closes it;
 * the title says so, leaving every other line for keys (80x24 fits all).
 */
void
draw_help(struct tui *t, enum tui_ctx ctx)
{
	const struct tui_key	*k;
	enum tui_ctx		 order[2];
	int			 attr = draw_attr(t, PAIR_TITLE, A_REVERSE);
	int			 y = 1, pass, n;

	order[0] = ctx;
	order[1] = TUI_CTX_ANY;
	n = ctx == TUI_CTX_ANY ? 1 : 2;
	erase();
	attron(attr);
	mvhline(0, 0, ' ', COLS);
	attroff(attr);
	draw_text(0, 1, COLS - 2, attr | A_BOLD, "spacebox: keys "
	    "(any key: back)");
	for (pass = 0; pass < n; pass++) {
		draw_text(y++, 2, COLS - 4, A_BOLD,
		    draw_ctx_names[order[pass]]);
		for (k = tui_keys; k->name != NULL && y < LINES; k++) {
			if (k->ctx != order[pass])
				continue;
			draw_text(y, 4, 14, 0, k->name);
			draw_text(y++, 20, COLS - 22, 0, k->help);
		}
	}
	refresh();
	nodelay(stdscr, FALSE);
	getch();
	nodelay(stdscr, TRUE);
}
