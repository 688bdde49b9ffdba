/*
 * Logging for journald and terminals. Under systemd (JOURNAL_STREAM set) each line starts with the
 * syslog "<N>" priority prefix that journald strips and turns into the entry's priority; on a
 * terminal or a pipe it reads "fecd: LEVEL: message". One write(2) per line, so lines from worker
 * threads never interleave.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

#define LOG_LINE_MAX 1024

/* Set on the main thread (reloads), read on every loop thread. */
static int log_max = LOG_LVL_INFO;
static bool log_journal;

#define LOG_LEVEL_MAP(X)                                                                           \
	X(ERR, "error")                                                                            \
	X(WARN, "warning")                                                                         \
	X(NOTICE, "notice")                                                                        \
	X(INFO, "info")                                                                            \
	X(DEBUG, "debug")

static const struct {
	enum log_level lvl;
	const char *name;
} log_levels[] = {
#define X(lvl, name) {LOG_LVL_##lvl, name},
    LOG_LEVEL_MAP(X)
#undef X
};

void log_init(void)
{
	const char *js = getenv("JOURNAL_STREAM");

	log_journal = js && *js;
}

void log_set_level(enum log_level max)
{
	__atomic_store_n(&log_max, (int)max, __ATOMIC_RELAXED);
}

int log_level_from_name(const char *name)
{
	for (size_t i = 0; i < sizeof(log_levels) / sizeof(log_levels[0]); i++)
		if (strcmp(name, log_levels[i].name) == 0)
			return (int)log_levels[i].lvl;
	if (strcmp(name, "err") == 0)
		return LOG_LVL_ERR;
	if (strcmp(name, "warn") == 0)
		return LOG_LVL_WARN;
	return -1;
}

const char *log_level_name(enum log_level lvl)
{
	for (size_t i = 0; i < sizeof(log_levels) / sizeof(log_levels[0]); i++)
		if (log_levels[i].lvl == lvl)
			return log_levels[i].name;
	return "?";
}

void log_msg(enum log_level lvl, const char *fmt, ...)
{
	char line[LOG_LINE_MAX];
	va_list ap;
	int n;

	if ((int)lvl > __atomic_load_n(&log_max, __ATOMIC_RELAXED))
		return;
	if (log_journal)
		n = snprintf(line, sizeof(line), "<%d>", (int)lvl);
	else
		n = snprintf(line, sizeof(line), "fecd: %s: ", log_level_name(lvl));
	va_start(ap, fmt);
	int m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (m < 0)
		m = 0;
	n += m;
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	/* A message must stay on one line: journald would split it otherwise. */
	for (int i = 0; i < n; i++)
		if (line[i] == '\n')
			line[i] = ' ';
	line[n++] = '\n';
	for (size_t off = 0; off < (size_t)n;) {
		ssize_t w = write(STDERR_FILENO, line + off, (size_t)n - off);
		if (w <= 0)
			break;
		off += (size_t)w;
	}
}
