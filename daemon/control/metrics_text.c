/*
 * A metrics snapshot as Prometheus text exposition format 0.0.4: for each metric family its
 * HELP and TYPE lines, then one sample per channel (labels channel and id) and label value.
 * Names follow Prometheus's conventions: the fecd_ prefix, the unit in the name, _total on
 * counters. Every label value of a breakdown is written, zeros included, so a series exists
 * before its first event. README's "Metrics" table lists the families.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"

#ifndef FECD_VERSION
#define FECD_VERSION "0.0.0"
#endif

/* The text as it grows; oom sticks once an allocation failed. */
struct text {
	char *p;
	size_t len, cap;
	bool oom;
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->oom)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			t->oom = true;
			return;
		}
		if ((size_t)n < t->cap - t->len) {
			t->len += (size_t)n;
			return;
		}
		size_t cap =
		    t->cap * 2 > t->len + (size_t)n + 1 ? t->cap * 2 : t->len + (size_t)n + 1;
		char *p = realloc(t->p, cap);
		if (!p) {
			t->oom = true;
			return;
		}
		t->p = p;
		t->cap = cap;
	}
}

static void family(struct text *t, const char *name, const char *type, const char *help)
{
	put(t, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* The labels that name a channel, written once per scrape: channel="NAME",id="ID". Names are
 * [A-Za-z0-9_.-], but the value is escaped anyway as the format asks (backslash, quote,
 * newline). */
#define LABELS_MAX (2 * FECD_NAME_MAX + 32)

static void chan_labels(const struct metrics_channel *c, char *buf)
{
	size_t o = 0;

	o += (size_t)snprintf(buf, LABELS_MAX, "channel=\"");
	for (const char *p = c->name; *p && o + 2 < LABELS_MAX - 24; p++) {
		if (*p == '\\' || *p == '"' || *p == '\n')
			buf[o++] = '\\';
		buf[o++] = *p == '\n' ? 'n' : *p;
	}
	snprintf(buf + o, LABELS_MAX - o, "\",id=\"%u\"", (unsigned)c->id);
}

/* What the writers below share. */
struct render {
	struct text t;
	const struct metrics_snapshot *s;
	char (*labels)[LABELS_MAX]; /* per channel */
};

/* ---- Per channel: one sample each */

enum value_kind { V_U64, V_U32, V_F64 };

struct chan_metric {
	const char *name, *type, *help;
	size_t offset; /* in struct chan_stats */
	enum value_kind kind;
};

#define U64(field) offsetof(struct chan_stats, field), V_U64
#define U32(field) offsetof(struct chan_stats, field), V_U32
#define F64(field) offsetof(struct chan_stats, field), V_F64

static const struct chan_metric chan_metrics[] = {
    {"fecd_input_messages_total", "counter", "Input messages accepted.", U64(msgs_in)},
    {"fecd_input_symbols_total", "counter", "Soft symbols accepted.", U64(symbols_in)},
    {"fecd_input_bytes_total", "counter", "Payload bytes of the accepted input messages.",
     U64(bytes_in)},
    {"fecd_input_gaps_total", "counter", "SUB input: sequence gaps (runs of lost messages).",
     U64(gaps)},
    {"fecd_input_lost_messages_total", "counter", "SUB input: messages lost in those gaps.",
     U64(gap_msgs)},
    {"fecd_sync_markers_total", "counter", "Sync-marker framing: markers found (frames started).",
     U64(asm_frames)},
    {"fecd_sync_inverted_markers_total", "counter",
     "Sync-marker framing: markers found with inverted polarity.", U64(asm_inverted)},
    {"fecd_sync_missed_markers_total", "counter",
     "Sync-marker framing: markers not found where the frame before them ended.", U64(asm_misses)},
    {"fecd_sync_lost_symbols_total", "counter",
     "Sync-marker framing: symbols given up while searching for a marker.", U64(asm_lost_syms)},
    {"fecd_dropped_connections_total", "counter",
     "Connections libzmq dropped while the peer was still sending: a message part over the "
     "size limit, or a framing error (stats.get's conn_drops).",
     U64(conn_drops)},
    {"fecd_handshake_failures_total", "counter",
     "Connections whose handshake did not complete: a CURVE client key not allowed, a wrong "
     "server key, a mechanism mismatch, a peer gone mid-handshake (handshake_failures).",
     U64(handshake_failures)},
    {"fecd_output_bits_total", "counter", "Decoded bits published.", U64(bits_out)},
    {"fecd_queue_symbols", "gauge", "Symbols accepted and not yet published.", U64(queue_syms)},
    {"fecd_batches_inflight", "gauge", "Batches being decoded.", U32(batches_inflight)},
    {"fecd_jobs_retried_total", "counter",
     "Jobs decoded again because their decoder gave up within an attempt's budget (a job "
     "decoded three times counts 2; stats.get's jobs_retried).",
     U64(jobs_retried)},
    {"fecd_input_sampled_symbols_total", "counter",
     "Input health: symbols sampled (one job per batch).", U64(in_sampled_syms)},
    {"fecd_input_clipped_symbols_total", "counter",
     "Input health: sampled symbols at the int8 extremes or beyond (LLRs too large).",
     U64(in_clipped_syms)},
    {"fecd_input_health_warnings_total", "counter",
     "Input health: sample windows that looked clipped or far too small.",
     U64(in_health_warnings)},
    {"fecd_input_clipped_ratio", "gauge",
     "Input health: fraction of the last window's sampled symbols that were clipped.",
     F64(in_clipped_frac)},
    {"fecd_input_mean_abs_llr", "gauge",
     "Input health: mean |LLR| of the last window's sampled symbols, in int8 units (0..127).",
     F64(in_mean_abs_llr)},
    {"fecd_input_unsat_checks_ratio", "gauge",
     "Input health, where the family gives a polarity hint (ldpc frames): fraction of the "
     "code's checks that the last window's hard input fails.",
     F64(in_unsat_checks_frac)},
    {"fecd_input_unsat_checks_negated_ratio", "gauge",
     "Input health: the same with every symbol negated (below the other: input inverted).",
     F64(in_unsat_checks_negated_frac)},
    {"fecd_code_generation", "gauge", "Code generation in force (1 at creation, +1 per update).",
     U32(code_gen)},
};

static void chan_scalars(struct render *r)
{
	for (size_t i = 0; i < sizeof(chan_metrics) / sizeof(chan_metrics[0]); i++) {
		const struct chan_metric *m = &chan_metrics[i];

		family(&r->t, m->name, m->type, m->help);
		for (unsigned c = 0; c < r->s->nchannels; c++) {
			const char *field = (const char *)&r->s->ch[c].st + m->offset;
			unsigned long long v;

			if (m->kind == V_F64) {
				put(&r->t, "%s{%s} %.6g\n", m->name, r->labels[c],
				    *(const double *)(const void *)field);
				continue;
			}
			if (m->kind == V_U32)
				v = *(const uint32_t *)(const void *)field;
			else
				v = *(const uint64_t *)(const void *)field;
			put(&r->t, "%s{%s} %llu\n", m->name, r->labels[c], v);
		}
	}
}

static const char *const bad_names[] = {
#define X(name, label, help) label,
    FECD_BAD_MSG_MAP(X)
#undef X
};
static const char *const frame_error_names[] = {
#define X(name, label, help) label,
    FECD_FRAME_ERROR_MAP(X)
#undef X
};
static const char *const status_names[] = {
#define X(name, val, str) [val] = str,
    FECD_STATUS_MAP(X)
#undef X
};
static const char *const backend_names[] = {"cpu", "cuda"};

/* A counter family with one more label: the n counters at offset in every channel's stats,
 * under label="names[k]". */
struct breakdown {
	const char *name, *help, *label;
	const char *const *names;
	size_t offset;
	unsigned n;
};

static const struct breakdown breakdowns[] = {
    {"fecd_input_rejected_messages_total",
     "Input messages refused whole, by reason (their sum is stats.get's bad_msgs).", "reason",
     bad_names, offsetof(struct chan_stats, bad_by_reason), FECD_BAD_COUNT},
    {"fecd_frames_dropped_total",
     "Frames dropped at assembly, by reason (their sum is stats.get's frame_errors).", "reason",
     frame_error_names, offsetof(struct chan_stats, frame_errors_by_reason), FECD_FRAME_ERR_COUNT},
    {"fecd_output_messages_total", "Output messages published, by decoding status.", "status",
     status_names, offsetof(struct chan_stats, msgs_by_status), FECD_STATUS_COUNT},
    {"fecd_output_frames_total", "Frames published (frame codes), by decoding status.", "status",
     status_names, offsetof(struct chan_stats, frames_by_status), FECD_STATUS_COUNT},
    /* batches_cpu and batches_gpu lie side by side */
    {"fecd_batches_total", "Batches decoded, by where they ran.", "backend", backend_names,
     offsetof(struct chan_stats, batches_cpu), 2},
};

_Static_assert(offsetof(struct chan_stats, batches_gpu) ==
                   offsetof(struct chan_stats, batches_cpu) + sizeof(uint64_t),
               "fecd_batches_total reads batches_cpu and batches_gpu as an array");

static void chan_breakdowns(struct render *r)
{
	for (size_t i = 0; i < sizeof(breakdowns) / sizeof(breakdowns[0]); i++) {
		const struct breakdown *b = &breakdowns[i];

		family(&r->t, b->name, "counter", b->help);
		for (unsigned c = 0; c < r->s->nchannels; c++) {
			const uint64_t *v =
			    (const uint64_t *)(const void *)((const char *)&r->s->ch[c].st +
			                                     b->offset);

			for (unsigned k = 0; k < b->n; k++)
				put(&r->t, "%s{%s,%s=\"%s\"} %llu\n", b->name, r->labels[c],
				    b->label, b->names[k], (unsigned long long)v[k]);
		}
	}
}

static void chan_latency(struct render *r)
{
	static const double le_s[FECD_LAT_BUCKETS - 1] = {
#define X(us) (us) / 1e6,
	    FECD_LAT_LE_US_MAP(X)
#undef X
	};

	family(&r->t, "fecd_latency_seconds", "histogram",
	       "Time from accepting an input message to publishing the output that holds its "
	       "first symbol.");
	for (unsigned c = 0; c < r->s->nchannels; c++) {
		const struct chan_stats *st = &r->s->ch[c].st;
		const char *l = r->labels[c];

		for (unsigned b = 0; b < FECD_LAT_BUCKETS; b++) {
			if (b + 1 < FECD_LAT_BUCKETS)
				put(&r->t, "fecd_latency_seconds_bucket{%s,le=\"%g\"} %llu\n", l,
				    le_s[b], (unsigned long long)st->lat_le[b]);
			else
				put(&r->t, "fecd_latency_seconds_bucket{%s,le=\"+Inf\"} %llu\n", l,
				    (unsigned long long)st->lat_le[b]);
		}
		put(&r->t, "fecd_latency_seconds_sum{%s} %.9g\n", l, st->lat_sum_s);
		put(&r->t, "fecd_latency_seconds_count{%s} %llu\n", l,
		    (unsigned long long)st->lat_count);
	}
}

/* ---- The process */

static void process(struct text *t, const struct metrics_snapshot *s, double age_s)
{
	static const int codes[] = {
#define X(name, code, text) code,
	    RPC_ERR_MAP(X)
#undef X
	};
#ifdef FECD_HAVE_CUDA
	const char *cuda = "yes";
#else
	const char *cuda = "no";
#endif

	family(t, "fecd_build_info", "gauge", "The build: version, CUDA backend compiled in.");
	put(t, "fecd_build_info{version=\"%s\",cuda=\"%s\"} 1\n", FECD_VERSION, cuda);
	family(t, "fecd_backend_info", "gauge",
	       "The decoder backend: as configured, and where batches go now.");
	put(t, "fecd_backend_info{configured=\"%s\",active=\"%s\"} 1\n", s->backend_configured,
	    s->be.gpu_active ? "cuda" : "cpu");
	family(t, "fecd_gpu_active", "gauge",
	       "1 while the GPU backend decodes on the GPU, 0 on the CPU (fallback, or the CPU "
	       "backend).");
	put(t, "fecd_gpu_active %d\n", s->be.gpu_active ? 1 : 0);
	family(t, "fecd_gpu_fallback_batches_total", "counter",
	       "Batches the GPU backend gave to the CPU: at submission (no usable GPU, or a code "
	       "the GPU does not decode), or again after a CUDA error.");
	put(t, "fecd_gpu_fallback_batches_total{reason=\"not_on_gpu\"} %llu\n",
	    (unsigned long long)s->be.batches_to_cpu);
	put(t, "fecd_gpu_fallback_batches_total{reason=\"cuda_error\"} %llu\n",
	    (unsigned long long)s->be.batches_redone);
	family(t, "fecd_channels", "gauge", "Channels running.");
	put(t, "fecd_channels %u\n", s->nchannels);
	family(t, "fecd_control_requests_total", "counter", "JSON-RPC control requests read.");
	put(t, "fecd_control_requests_total %llu\n", (unsigned long long)s->rpc.requests);
	family(t, "fecd_control_errors_total", "counter",
	       "JSON-RPC control requests that failed, by error code.");
	for (unsigned i = 0; i < RPC_ERR_COUNT; i++)
		put(t, "fecd_control_errors_total{code=\"%d\"} %llu\n", codes[i],
		    (unsigned long long)s->rpc.errors[i]);
	family(t, "fecd_uptime_seconds", "gauge", "Seconds since the service started.");
	put(t, "fecd_uptime_seconds %.3f\n", s->uptime_s);
	family(t, "fecd_metrics_snapshot_age_seconds", "gauge",
	       "Age of the numbers in this scrape (more than a few milliseconds: the main loop "
	       "was busy and an older snapshot was served).");
	put(t, "fecd_metrics_snapshot_age_seconds %.3f\n", age_s);
}

char *metrics_render(const struct metrics_snapshot *s, double age_s, size_t *len)
{
	struct render r = {.t = {.cap = 4096 + (size_t)s->nchannels * 8192}, .s = s};

	r.t.p = malloc(r.t.cap);
	r.labels = calloc(s->nchannels ? s->nchannels : 1, sizeof(*r.labels));
	if (!r.t.p || !r.labels) {
		free(r.t.p);
		free(r.labels);
		return NULL;
	}
	for (unsigned c = 0; c < s->nchannels; c++)
		chan_labels(&s->ch[c], r.labels[c]);
	process(&r.t, s, age_s);
	chan_scalars(&r);
	chan_breakdowns(&r);
	chan_latency(&r);
	free(r.labels);
	if (r.t.oom) {
		free(r.t.p);
		return NULL;
	}
	*len = r.t.len;
	return r.t.p;
}
