/*
 * Logging to stderr for journald: "<N>" syslog-level prefixes when stderr is the journal
 * (JOURNAL_STREAM is set), "fecd: LEVEL: " otherwise. Thread-safe; one line per call.
 */
#ifndef FECD_LOG_H
#define FECD_LOG_H

enum log_level { LOG_LVL_ERR = 3, LOG_LVL_WARN = 4, LOG_LVL_NOTICE = 5, LOG_LVL_INFO = 6, LOG_LVL_DEBUG = 7 };

void log_init(void);
void log_set_level(enum log_level max);
int log_level_from_name(const char *name); /* "error".."debug"; -1 if unknown */
const char *log_level_name(enum log_level lvl);
void log_msg(enum log_level lvl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_err(...) log_msg(LOG_LVL_ERR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_LVL_WARN, __VA_ARGS__)
#define log_notice(...) log_msg(LOG_LVL_NOTICE, __VA_ARGS__)
#define log_info(...) log_msg(LOG_LVL_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_LVL_DEBUG, __VA_ARGS__)

#endif
