/*
 * The control methods, described as data: one table of name, handler, accepted parameter keys,
 * a parameter summary and help. rpc_call looks a method up in the table, rejects unknown
 * parameter keys, and runs the handler; the handlers only read and call the channel operations of
 * fecd.h. Channel objects are read through the settings table (config.c), so channel.create takes
 * exactly what a configuration file's "channels" entries hold, and channel.get gives it back.
 *
 * channel.create and channel.update build codes, which can take minutes, so they run in three
 * steps (struct build_method): begin on the loop thread takes what the build needs of the
 * service's state (the channel's configuration as it is now); prepare, off the loop thread under
 * control.build_timeout_ms, parses the parameters and builds the code and the channel's epoch;
 * apply, back on the loop, checks again what may have changed meanwhile (ids, names and bound
 * endpoints still free, the channel still there with the configuration the update was built on)
 * and hands the epoch to the channel. Builds run side by side; applies happen in the order the
 * builds finish, each against the service as it is then: of two creates of one id, the first
 * to finish wins and the other gets -32001.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "backend.h"
#include "code_json.h"
#include "config.h"
#include "offload.h"
#include "rpc.h"
#include "settings.h"

#define SEQ_MAX 9007199254740992.0 /* 2^53: the largest integer JSON numbers carry exactly */

typedef int (*method_fn)(struct fecd *d, const cJSON *params, cJSON **result, char *msg,
                         size_t len);

/* A method call that builds a code, from begin to apply. */
struct rpc_job {
	struct fecd *d;
	const struct method *m;
	cJSON *params; /* a copy: the request is freed before prepare runs */
	/* begin (channel.update) */
	struct chan_config base; /* the channel's configuration when the request came */
	uint64_t at_seq;
	bool have_seq;
	/* prepare */
	struct chan_config cc; /* the new configuration */
	struct epoch *ep;      /* built for cc; NULL: nothing to apply */
	int code;              /* prepare's error (RPC_E*), or 0 */
	char msg[1024];
	/* rpc_start */
	rpc_done_fn done;
	void *arg;
};

struct build_method {
	/* Loop thread: what prepare needs of the service. 0 or RPC_E* with msg set. */
	int (*begin)(struct rpc_job *job, const cJSON *params, char *msg, size_t len);
	/* Off the loop: everything slow and pure; job->code and job->msg say how it went. */
	void (*prepare)(struct rpc_job *job);
	/* Loop thread: checks again and applies; takes job->ep. */
	int (*apply)(struct rpc_job *job, cJSON **result, char *msg, size_t len);
};

struct method {
	const char *name;
	method_fn fn;
	const char *const *keys; /* accepted parameter keys; NULL: the handler checks them */
	const char *params;      /* what to send */
	const char *help;
	const struct build_method *build; /* instead of fn: a method that builds codes */
};

static const char *const no_keys[] = {NULL};
static const char *const select_keys[] = {"id", "name", NULL};

static int bad_param(char *msg, size_t len, const char *key, const char *expected, const cJSON *v)
{
	char got[96];

	json_describe(v, got, sizeof(got));
	snprintf(msg, len, "params.%s: expected %s, got %s", key, expected, got);
	return RPC_EINVALID_PARAMS;
}

static void list_channels(struct fecd *d, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (struct channel *ch = fecd_channel_next(d, NULL); ch && o < len;
	     ch = fecd_channel_next(d, ch))
		o += (size_t)snprintf(buf + o, len - o, "%s%u \"%s\"", o ? ", " : "",
		                      (unsigned)channel_config(ch)->id, channel_config(ch)->name);
	if (!o)
		snprintf(buf, len, "none");
}

/* The channel that params' "id" and/or "name" select. */
static int select_channel(struct fecd *d, const cJSON *params, struct channel **out, char *msg,
                          size_t len)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(params, "id");
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(params, "name");
	struct channel *by_id = NULL, *by_name = NULL;
	unsigned long long v = 0;
	char list[512], what[128];

	if (!id && !name) {
		snprintf(msg, len,
		         "params: expected \"id\" (an integer) or \"name\" (a string) of a "
		         "channel");
		return RPC_EINVALID_PARAMS;
	}
	if (id && json_get_uint(id, 0, 4294967295.0, &v) != 0)
		return bad_param(msg, len, "id", "a channel id, an integer in 0..4294967295", id);
	if (name && !cJSON_IsString(name))
		return bad_param(msg, len, "name", "a channel name (a string)", name);
	if (id)
		by_id = fecd_channel_find(d, (uint32_t)v);
	if (name)
		by_name = fecd_channel_find_name(d, name->valuestring);
	if ((id && !by_id) || (name && !by_name)) {
		list_channels(d, list, sizeof(list));
		if (id && !by_id) {
			snprintf(msg, len,
			         "channel not found: no channel has id %llu (channels: %s)", v,
			         list);
		} else {
			json_describe(name, what, sizeof(what));
			snprintf(msg, len,
			         "channel not found: no channel is named %s (channels: %s)", what,
			         list);
		}
		return RPC_ENOT_FOUND;
	}
	if (id && name && by_id != by_name) {
		json_describe(name, what, sizeof(what));
		snprintf(msg, len, "params: id %llu and name %s are different channels", v, what);
		return RPC_EINVALID_PARAMS;
	}
	*out = by_id ? by_id : by_name;
	return 0;
}

static cJSON *channel_summary(const struct channel *ch)
{
	const struct chan_config *cc = channel_config(ch);
	const struct fec_family_ops *fam = fec_family_by_id(cc->spec.family);
	struct chan_stats st;
	char desc[160] = "", inst[24];
	cJSON *o = cJSON_CreateObject();

	channel_get_stats(ch, &st);
	if (fam && fam->spec_describe)
		fam->spec_describe(&cc->spec, desc, sizeof(desc));
	cJSON_AddNumberToObject(o, "id", cc->id);
	cJSON_AddStringToObject(o, "name", cc->name);
	cJSON_AddNumberToObject(o, "code_gen", st.code_gen);
	snprintf(inst, sizeof(inst), "%016" PRIx64, channel_instance(ch));
	cJSON_AddStringToObject(o, "instance", inst);
	cJSON_AddStringToObject(o, "description", desc);
	cJSON_AddNumberToObject(o, "rate", fec_spec_rate(&cc->spec));
	cJSON_AddStringToObject(o, "input", cc->in.endpoint);
	cJSON_AddStringToObject(o, "output", cc->out.endpoint);
	return o;
}

static int m_channel_list(struct fecd *d, const cJSON *params, cJSON **result, char *msg,
                          size_t len)
{
	cJSON *arr;

	(void)params, (void)msg, (void)len;
	*result = cJSON_CreateObject();
	arr = cJSON_AddArrayToObject(*result, "channels");
	for (struct channel *ch = fecd_channel_next(d, NULL); ch; ch = fecd_channel_next(d, ch))
		cJSON_AddItemToArray(arr, channel_summary(ch));
	return 0;
}

/* Most ranges channel.get lists of where a frame's information bits sit. */
#define INFO_RANGES_MAX 4096

/* channel.get's "info": the information bits a frame carries and where they sit (fec.h,
 * fec_decoder_info_ranges). NULL out of memory. */
static cJSON *code_info_json(const struct fec_decoder *dec)
{
	const struct fec_info *in = fec_decoder_info(dec);
	cJSON *o = cJSON_CreateObject(), *arr;
	struct fec_info_range *r;
	uint32_t unsent;
	int n;

	if (!o)
		return NULL;
	if (in->kind != FEC_KIND_FRAME) {
		/* a stream: unit_bits information bits in every unit_syms symbols */
		cJSON_AddStringToObject(o, "layout", "stream");
		cJSON_AddNumberToObject(o, "unit_bits", in->unit_bits);
		cJSON_AddNumberToObject(o, "unit_syms", in->unit_syms);
		return o;
	}
	if (in->frame_info_bits)
		cJSON_AddNumberToObject(o, "k", in->frame_info_bits);
	else
		cJSON_AddNullToObject(o, "k");
	r = malloc(INFO_RANGES_MAX * sizeof(*r));
	if (!r) {
		cJSON_Delete(o);
		return NULL;
	}
	n = fec_decoder_info_ranges(dec, r, INFO_RANGES_MAX, &unsent);
	if (n <= 0) {
		cJSON_AddStringToObject(o, "layout", "decoded");
		free(r);
		return o;
	}
	cJSON_AddStringToObject(o, "layout", "ranges");
	cJSON_AddNumberToObject(o, "frame_syms", in->frame_syms);
	cJSON_AddNumberToObject(o, "unsent", unsent);
	if (n > INFO_RANGES_MAX)
		cJSON_AddTrueToObject(o, "truncated");
	arr = cJSON_AddArrayToObject(o, "ranges");
	for (int i = 0; i < n && i < INFO_RANGES_MAX && arr; i++) {
		const int pair[2] = {(int)r[i].first, (int)r[i].last};
		cJSON_AddItemToArray(arr, cJSON_CreateIntArray(pair, 2));
	}
	free(r);
	return o;
}

static cJSON *channel_full(const struct channel *ch)
{
	cJSON *o = channel_summary(ch);
	const struct fec_decoder *dec = channel_decoder(ch);

	if (dec)
		cJSON_AddItemToObject(o, "info", code_info_json(dec));

	cJSON_AddItemToObject(o, "config", chan_config_to_json(channel_config(ch)));
	return o;
}

static int m_channel_get(struct fecd *d, const cJSON *params, cJSON **result, char *msg, size_t len)
{
	struct channel *ch;
	int ret = select_channel(d, params, &ch, msg, len);

	if (ret == 0)
		*result = channel_full(ch);
	return ret;
}

/* A failed parse or build: -32004 when it ran out of time (the message says so), else -32602. */
static int prepare_error(int ret)
{
	return ret == -ETIME ? RPC_ELIMIT : RPC_EINVALID_PARAMS;
}

/* The epoch for job->cc; false with job->code set when it cannot be built. */
static bool prepare_epoch(struct rpc_job *job)
{
	char err[512];

	job->ep = fecd_epoch_build(job->d, &job->cc, err, sizeof(err));
	if (job->ep)
		return true;
	if (build_limit_passed()) {
		build_limit_message(job->msg, sizeof(job->msg), "params.code");
		job->code = RPC_ELIMIT;
	} else {
		snprintf(job->msg, sizeof(job->msg), "params.%s", err);
		job->code = RPC_EINVALID_PARAMS;
	}
	return false;
}

static void create_prepare(struct rpc_job *job)
{
	int ret =
	    chan_config_parse(job->params, NULL, &job->cc, "params", job->msg, sizeof(job->msg));

	if (ret) {
		job->code = prepare_error(ret);
		return;
	}
	prepare_epoch(job);
}

static int create_apply(struct rpc_job *job, cJSON **result, char *msg, size_t len)
{
	const struct chan_config *ptrs[FECD_MAX_CHANNELS + 1];
	const char *names[FECD_MAX_CHANNELS + 1];
	char labels[FECD_MAX_CHANNELS][80], err[512];
	const struct chan_config *cc = &job->cc;
	struct fecd *d = job->d;
	struct channel *ch;
	unsigned n = 0;
	int ret;

	/* Channels made while this one was being built count too. */
	for (ch = fecd_channel_next(d, NULL); ch && n < FECD_MAX_CHANNELS;
	     ch = fecd_channel_next(d, ch), n++) {
		ptrs[n] = channel_config(ch);
		snprintf(labels[n], sizeof(labels[n]), "channel \"%s\"", ptrs[n]->name);
		names[n] = labels[n];
	}
	if (n >= FECD_MAX_CHANNELS) {
		snprintf(msg, len, "channel limit reached: fecd runs at most %d channels",
		         FECD_MAX_CHANNELS);
		return RPC_ELIMIT;
	}
	ptrs[n] = cc;
	names[n] = "params";
	if (chan_configs_check_unique(ptrs, n + 1, names, msg, len) != 0)
		return RPC_EEXISTS;
	ret = fecd_channel_create(d, cc, job->ep, err, sizeof(err));
	job->ep = NULL;
	if (ret) {
		snprintf(msg, len, "channel.create failed: %s", err);
		/* An endpoint another process holds is as taken as one of ours. */
		return ret == -EEXIST || ret == -EADDRINUSE ? RPC_EEXISTS : RPC_EFAILED;
	}
	ch = fecd_channel_find(d, cc->id);
	if (!ch) {
		snprintf(msg, len, "channel %u was created but cannot be found", (unsigned)cc->id);
		return RPC_EINTERNAL;
	}
	*result = channel_full(ch);
	return 0;
}

static const struct build_method create_build = {NULL, create_prepare, create_apply};

static int update_begin(struct rpc_job *job, const cJSON *params, char *msg, size_t len)
{
	const cJSON *seq = cJSON_GetObjectItemCaseSensitive(params, "at_seq");
	unsigned long long at_seq = UINT64_MAX;
	struct channel *ch;
	int ret;

	ret = select_channel(job->d, params, &ch, msg, len);
	if (ret)
		return ret;
	if (seq && json_get_uint(seq, 0, SEQ_MAX, &at_seq) != 0)
		return bad_param(
		    msg, len, "at_seq",
		    "a sender sequence number, an integer in 0..2^53 (9007199254740992)", seq);
	job->base = *channel_config(ch);
	job->at_seq = at_seq;
	job->have_seq = seq != NULL;
	cJSON_DeleteItemFromObjectCaseSensitive(job->params, "at_seq");
	if (cJSON_GetObjectItemCaseSensitive(job->params, "at_seq")) {
		snprintf(msg, len, "params.at_seq: key given twice");
		return RPC_EINVALID_PARAMS;
	}
	return 0;
}

static void update_prepare(struct rpc_job *job)
{
	const struct chan_config *cur = &job->base, *neu = &job->cc;
	char now[128], asked[128];
	size_t o;
	int ret;

	ret = chan_config_parse(job->params, cur, &job->cc, "params", job->msg, sizeof(job->msg));
	if (ret) {
		job->code = prepare_error(ret);
		return;
	}
	for (const struct setting *s = settings_next_diff(fecd_chan_settings, cur, neu); s;
	     s = settings_next_diff(s + 1, cur, neu)) {
		if (s->flags & SET_LIVE)
			continue;
		settings_value_text(s, cur, now, sizeof(now));
		settings_value_text(s, neu, asked, sizeof(asked));
		o = (size_t)snprintf(
		    job->msg, sizeof(job->msg),
		    "update refused: %s cannot change on a running channel (it is %s, "
		    "asked for %s); delete the channel and create it again. Live "
		    "settings:",
		    s->path, now, asked);
		for (const struct setting *l = fecd_chan_settings; l->path && o < sizeof(job->msg);
		     l++)
			if (l->flags & SET_LIVE)
				o += (size_t)snprintf(job->msg + o, sizeof(job->msg) - o, " %s",
				                      l->path);
		job->code = RPC_EREFUSED;
		return;
	}
	if (settings_next_diff(fecd_chan_settings, cur, neu))
		prepare_epoch(job);
}

static int update_apply(struct rpc_job *job, cJSON **result, char *msg, size_t len)
{
	const struct chan_config *neu = &job->cc;
	struct channel *ch = fecd_channel_find(job->d, job->base.id);
	struct chan_stats st;
	char err[512];
	cJSON *changed;
	int ret;

	if (!ch) {
		snprintf(msg, len,
		         "channel not found: channel %u was deleted while its update was being "
		         "built",
		         (unsigned)job->base.id);
		return RPC_ENOT_FOUND;
	}
	if (settings_next_diff(fecd_chan_settings, &job->base, channel_config(ch))) {
		snprintf(msg, len,
		         "channel.update failed: channel %u (%s) changed while this update was "
		         "being built (another update, or a reload); nothing was changed: send "
		         "the update again",
		         (unsigned)job->base.id, job->base.name);
		return RPC_EFAILED;
	}
	changed = cJSON_CreateArray();
	for (const struct setting *s = settings_next_diff(fecd_chan_settings, &job->base, neu); s;
	     s = settings_next_diff(s + 1, &job->base, neu))
		cJSON_AddItemToArray(changed, cJSON_CreateString(s->path));
	if (job->ep) {
		ret = fecd_channel_update(job->d, neu->id, neu, job->ep, job->at_seq, err,
		                          sizeof(err));
		job->ep = NULL;
		if (ret) {
			cJSON_Delete(changed);
			snprintf(msg, len, "channel.update failed: %s", err);
			return RPC_EFAILED;
		}
	}
	*result = cJSON_CreateObject();
	channel_get_stats(ch, &st);
	cJSON_AddNumberToObject(*result, "id", neu->id);
	cJSON_AddStringToObject(*result, "name", neu->name);
	cJSON_AddNumberToObject(*result, "code_gen", st.code_gen);
	if (job->have_seq)
		cJSON_AddNumberToObject(*result, "at_seq", (double)job->at_seq);
	else
		cJSON_AddNullToObject(*result, "at_seq");
	cJSON_AddItemToObject(*result, "changed", changed);
	return 0;
}

static const struct build_method update_build = {update_begin, update_prepare, update_apply};

static int m_channel_delete(struct fecd *d, const cJSON *params, cJSON **result, char *msg,
                            size_t len)
{
	struct channel *ch;
	char name[FECD_NAME_MAX], err[512];
	uint32_t id;
	int ret = select_channel(d, params, &ch, msg, len);

	if (ret)
		return ret;
	id = channel_config(ch)->id;
	snprintf(name, sizeof(name), "%s", channel_config(ch)->name);
	ret = fecd_channel_delete(d, id, err, sizeof(err));
	if (ret) {
		snprintf(msg, len, "channel.delete failed: %s", err);
		return RPC_EFAILED;
	}
	*result = cJSON_CreateObject();
	cJSON_AddNumberToObject(*result, "id", id);
	cJSON_AddStringToObject(*result, "name", name);
	cJSON_AddTrueToObject(*result, "deleted");
	return 0;
}

static int m_channel_reset(struct fecd *d, const cJSON *params, cJSON **result, char *msg,
                           size_t len)
{
	struct channel *ch;
	char err[512];
	uint32_t id;
	int ret = select_channel(d, params, &ch, msg, len);

	if (ret)
		return ret;
	id = channel_config(ch)->id;
	ret = fecd_channel_reset(d, id, err, sizeof(err));
	if (ret) {
		snprintf(msg, len, "channel.reset failed: %s", err);
		return RPC_EFAILED;
	}
	*result = cJSON_CreateObject();
	cJSON_AddNumberToObject(*result, "id", id);
	cJSON_AddStringToObject(*result, "name", channel_config(ch)->name);
	cJSON_AddTrueToObject(*result, "reset");
	return 0;
}

#define STATS_FIELDS(X)                                                                            \
	X(msgs_in)                                                                                 \
	X(symbols_in)                                                                              \
	X(bytes_in)                                                                                \
	X(bad_msgs)                                                                                \
	X(gaps)                                                                                    \
	X(gap_msgs)                                                                                \
	X(frames_out) X(bits_out) X(msgs_out) X(failures) X(frame_errors) X(asm_frames)            \
	    X(asm_inverted) X(asm_lost_syms) X(asm_misses) X(conn_drops) X(handshake_failures)     \
	    X(queue_syms) X(jobs_retried)                                                          \
	    X(batches_inflight) X(code_gen) X(in_syms_per_s) X(out_bits_per_s) X(lat_p50_ms)       \
	        X(lat_p90_ms) X(lat_p99_ms) X(lat_max_ms) X(batch_p50_ms) X(batch_p99_ms) X(batch_max_ms)  \
	            X(in_sampled_syms) X(in_clipped_syms) X(in_health_warnings) X(in_clipped_frac)   \
	                X(in_mean_abs_llr) X(in_unsat_checks_frac) X(in_unsat_checks_negated_frac)

/* An object of counters by name ({"header": 3, ...}). */
static void add_breakdown(cJSON *o, const char *key, const char *const *names,
                          const uint64_t *counts, unsigned n)
{
	cJSON *b = cJSON_AddObjectToObject(o, key);

	for (unsigned i = 0; b && i < n; i++)
		cJSON_AddNumberToObject(b, names[i], (double)counts[i]);
}

/* The counters that came with metrics: where batches ran, and the breakdowns of bad_msgs,
 * frame_errors and the published messages (fecd.h's tables). */
static void stats_breakdowns_json(const struct chan_stats *st, cJSON *o)
{
	static const char *const bad[] = {
#define X(name, label, help) label,
	    FECD_BAD_MSG_MAP(X)
#undef X
	};
	static const char *const frame[] = {
#define X(name, label, help) label,
	    FECD_FRAME_ERROR_MAP(X)
#undef X
	};
	static const char *const status[] = {
#define X(name, val, str) [val] = str,
	    FECD_STATUS_MAP(X)
#undef X
	};

	cJSON_AddNumberToObject(o, "batches_cpu", (double)st->batches_cpu);
	cJSON_AddNumberToObject(o, "batches_gpu", (double)st->batches_gpu);
	add_breakdown(o, "bad_msgs_by_reason", bad, st->bad_by_reason, FECD_BAD_COUNT);
	add_breakdown(o, "frame_errors_by_reason", frame, st->frame_errors_by_reason,
	              FECD_FRAME_ERR_COUNT);
	add_breakdown(o, "msgs_out_by_status", status, st->msgs_by_status, FECD_STATUS_COUNT);
	add_breakdown(o, "frames_out_by_status", status, st->frames_by_status, FECD_STATUS_COUNT);
}

static cJSON *channel_stats_json(const struct channel *ch)
{
	const struct chan_config *cc = channel_config(ch);
	struct chan_stats st;
	cJSON *o = cJSON_CreateObject();

	channel_get_stats(ch, &st);
	cJSON_AddNumberToObject(o, "id", cc->id);
	cJSON_AddStringToObject(o, "name", cc->name);
#define X(f) cJSON_AddNumberToObject(o, #f, (double)st.f);
	STATS_FIELDS(X)
#undef X
	cJSON_AddStringToObject(o, "in_health", st.in_health);
	cJSON_AddStringToObject(o, "in_polarity", st.in_polarity);
	stats_breakdowns_json(&st, o);
	return o;
}

static int m_stats_get(struct fecd *d, const cJSON *params, cJSON **result, char *msg, size_t len)
{
	struct channel *ch;
	cJSON *arr;
	int ret;

	if (params && params->child) {
		ret = select_channel(d, params, &ch, msg, len);
		if (ret == 0)
			*result = channel_stats_json(ch);
		return ret;
	}
	*result = cJSON_CreateObject();
	arr = cJSON_AddArrayToObject(*result, "channels");
	for (ch = fecd_channel_next(d, NULL); ch; ch = fecd_channel_next(d, ch))
		cJSON_AddItemToArray(arr, channel_stats_json(ch));
	return 0;
}

static int m_backend_info(struct fecd *d, const cJSON *params, cJSON **result, char *msg,
                          size_t len)
{
	const struct fecd_config *cfg = fecd_running_config(d);
	struct backend *b = fecd_backend(d);
	cJSON *o = cJSON_CreateObject(), *arr;
	unsigned n = 0;

	(void)params, (void)msg, (void)len;
	if (b && b->ops) {
		if (b->ops->info)
			b->ops->info(b, o);
		if (!cJSON_GetObjectItemCaseSensitive(o, "name"))
			cJSON_AddStringToObject(o, "name", b->ops->name);
	}
	cJSON_AddStringToObject(o, "configured", cfg->backend);
	cJSON_AddNumberToObject(o, "workers_configured", cfg->workers);
	cJSON_AddNumberToObject(o, "cpus", uv_available_parallelism());
	cJSON_AddNumberToObject(o, "protocol_version", FECD_PROTO_VERSION);
	cJSON_AddNumberToObject(o, "max_payload_bytes", FECD_MAX_PAYLOAD_BYTES);
	cJSON_AddNumberToObject(o, "max_channels", FECD_MAX_CHANNELS);
	for (struct channel *ch = fecd_channel_next(d, NULL); ch; ch = fecd_channel_next(d, ch))
		n++;
	cJSON_AddNumberToObject(o, "channels", n);
	arr = cJSON_AddArrayToObject(o, "families");
	for (unsigned i = 0; arr && i < fec_family_count(); i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(fec_family_at(i)->name));
	arr = cJSON_AddArrayToObject(o, "formats");
#define X(name, val, str, bits) cJSON_AddItemToArray(arr, cJSON_CreateString(str));
	FECD_FORMAT_MAP(X)
#undef X
	*result = o;
	return 0;
}

static int m_codes_list(struct fecd *d, const cJSON *params, cJSON **result, char *msg, size_t len)
{
	(void)d, (void)params, (void)msg, (void)len;
	*result = codes_list_json();
	return 0;
}

static int m_config_get(struct fecd *d, const cJSON *params, cJSON **result, char *msg, size_t len)
{
	cJSON *o = cJSON_CreateObject(), *arr;

	(void)params, (void)msg, (void)len;
	settings_to_json(fecd_global_settings, fecd_running_config(d), o);
	arr = cJSON_AddArrayToObject(o, "channels");
	for (struct channel *ch = fecd_channel_next(d, NULL); ch; ch = fecd_channel_next(d, ch))
		cJSON_AddItemToArray(arr, chan_config_to_json(channel_config(ch)));
	*result = o;
	return 0;
}

static int m_methods_list(struct fecd *d, const cJSON *params, cJSON **result, char *msg,
                          size_t len);

static const char *const auth_keys[] = {"token", NULL};

static const struct method methods[] = {
    {"auth", NULL, auth_keys, "{token}",
     "authenticates the connection with the token of control.token_file: needed on TCP before "
     "any other method (a wrong token closes the connection); accepted on the Unix socket"},
    {"channel.list", m_channel_list, no_keys, "{}", "the channels: id, name, code, endpoints"},
    {"channel.get", m_channel_get, select_keys, "{id or name}",
     "one channel: summary, its full configuration (\"config\", as channel.create takes it) and "
     "\"info\", where its information bits sit: a stream's unit_bits per unit_syms symbols; a "
     "frame code's k (information bits per frame, null where frames vary) and layout "
     "\"ranges\" (systematic codes, ldpc and nbldpc: the frame's symbols [first, last] that carry "
     "them in order, of frame_syms, after the unsent ones a punctured code has; up to 4096 "
     "ranges, truncated: true beyond) or \"decoded\" (no fixed positions: the decoder's output "
     "of the whole frame, as for convolutional codes)"},
    {"channel.create", NULL, NULL, "{id, name?, code?, input?, output?, batch?}",
     "creates a channel from a channel object, as in the configuration file",
     .build = &create_build},
    {"channel.update", NULL, NULL,
     "{id or name, at_seq?, ...the channel's live settings (code, batch, ...)}",
     "changes live settings; a new code applies from sender sequence at_seq (default: the "
     "next message); returns code_gen",
     .build = &update_build},
    {"channel.delete", m_channel_delete, select_keys, "{id or name}",
     "stops reading, publishes what was accepted, closes the channel"},
    {"channel.reset", m_channel_reset, select_keys, "{id or name}",
     "the sender starts again: the stream in progress ends (its tail published now, marked "
     "end_cause reset), the next message starts a new stream from bit 0 and a new seq count"},
    {"stats.get", m_stats_get, select_keys, "{id or name} or nothing",
     "counters, throughput and latency percentiles of one channel, or of all"},
    {"backend.info", m_backend_info, no_keys, "{}", "the decoder backend and build facts"},
    {"codes.list", m_codes_list, no_keys, "{}",
     "code families with their parameter tables, and presets"},
    {"config.get", m_config_get, no_keys, "{}",
     "the running configuration, shaped like the configuration file"},
    {"methods.list", m_methods_list, no_keys, "{}", "these methods"},
};

#define NMETHODS (sizeof(methods) / sizeof(methods[0]))

static int m_methods_list(struct fecd *d, const cJSON *params, cJSON **result, char *msg,
                          size_t len)
{
	cJSON *arr;

	(void)d, (void)params, (void)msg, (void)len;
	*result = cJSON_CreateObject();
	arr = cJSON_AddArrayToObject(*result, "methods");
	for (size_t i = 0; arr && i < NMETHODS; i++) {
		cJSON *m = cJSON_CreateObject();

		cJSON_AddStringToObject(m, "name", methods[i].name);
		cJSON_AddStringToObject(m, "params", methods[i].params);
		cJSON_AddStringToObject(m, "help", methods[i].help);
		cJSON_AddItemToArray(arr, m);
	}
	return 0;
}

static int check_keys(const struct method *m, const cJSON *params, char *msg, size_t len)
{
	char got[96];
	size_t o = 0;

	for (const cJSON *c = params ? params->child : NULL; c; c = c->next) {
		bool known = false;

		for (const char *const *k = m->keys; *k && !known; k++)
			known = strcmp(*k, c->string) == 0;
		for (const cJSON *e = params->child; known && e != c; e = e->next) {
			if (strcmp(e->string, c->string) == 0) {
				snprintf(msg, len, "params.%s: key given twice", c->string);
				return RPC_EINVALID_PARAMS;
			}
		}
		if (known)
			continue;
		json_describe(&(cJSON){.type = cJSON_String, .valuestring = c->string}, got,
		              sizeof(got));
		if (!*m->keys) {
			snprintf(msg, len, "params: unknown key %s (%s takes no parameters)", got,
			         m->name);
			return RPC_EINVALID_PARAMS;
		}
		o = (size_t)snprintf(msg, len, "params: unknown key %s (valid keys:", got);
		for (const char *const *k = m->keys; *k && o < len; k++)
			o += (size_t)snprintf(msg + o, len - o, "%s %s", k == m->keys ? "" : ",",
			                      *k);
		if (o < len)
			snprintf(msg + o, len - o, ")");
		return RPC_EINVALID_PARAMS;
	}
	return 0;
}

static void job_free(struct rpc_job *job)
{
	fecd_epoch_free(job->ep);
	cJSON_Delete(job->params);
	free(job);
}

/* Looks the method up and checks its parameter keys; a cheap method runs here. Returns 0 with
 * *job set for a method that builds codes (begin done), or with *result set; else RPC_E*. */
static int call_begin(struct fecd *d, const char *method, const cJSON *params, struct rpc_job **job,
                      cJSON **result, char *msg, size_t len)
{
	const struct method *m = NULL;
	struct rpc_job *j;
	char got[96];
	size_t o;
	int ret;

	*result = NULL;
	*job = NULL;
	for (size_t i = 0; i < NMETHODS && !m; i++)
		if (strcmp(methods[i].name, method) == 0)
			m = &methods[i];
	if (!m) {
		json_describe(&(cJSON){.type = cJSON_String, .valuestring = (char *)method}, got,
		              sizeof(got));
		o = (size_t)snprintf(msg, len, "method not found: %s (methods:", got);
		for (size_t i = 0; i < NMETHODS && o < len; i++)
			o += (size_t)snprintf(msg + o, len - o, "%s %s", i ? "," : "",
			                      methods[i].name);
		if (o < len)
			snprintf(msg + o, len - o, ")");
		return RPC_EMETHOD_NOT_FOUND;
	}
	if (m->keys) {
		ret = check_keys(m, params, msg, len);
		if (ret)
			return ret;
	}
	if (!m->fn && !m->build) {
		snprintf(msg, len, "%s belongs to a control connection and is answered there",
		         m->name);
		return RPC_EINVALID_REQUEST;
	}
	if (!params && !m->keys) {
		snprintf(msg, len, "params: %s needs parameters: %s", m->name, m->params);
		return RPC_EINVALID_PARAMS;
	}
	if (!m->build)
		return m->fn(d, params, result, msg, len);
	j = calloc(1, sizeof(*j));
	if (!j || !(j->params = cJSON_Duplicate(params, true))) {
		free(j);
		snprintf(msg, len, "out of memory");
		return RPC_EINTERNAL;
	}
	j->d = d;
	j->m = m;
	ret = m->build->begin ? m->build->begin(j, params, msg, len) : 0;
	if (ret) {
		job_free(j);
		return ret;
	}
	*job = j;
	return 0;
}

static void job_prepare(void *arg)
{
	struct rpc_job *job = arg;

	job->m->build->prepare(job);
}

/* On the loop thread: applies a prepared job and frees it. */
static int job_finish(struct rpc_job *job, cJSON **result, char *msg, size_t len)
{
	int ret = job->code;

	*result = NULL;
	if (ret)
		snprintf(msg, len, "%s", job->msg);
	else
		ret = job->m->build->apply(job, result, msg, len);
	job_free(job);
	return ret;
}

/* A call's end: no result without success, and no success without a result. */
static int call_end(int ret, cJSON **result, char *msg, size_t len)
{
	if (ret == 0 && !*result) {
		snprintf(msg, len, "out of memory building the result");
		return RPC_EINTERNAL;
	}
	if (ret && *result) {
		cJSON_Delete(*result);
		*result = NULL;
	}
	return ret;
}

int rpc_call(struct fecd *d, const char *method, const cJSON *params, cJSON **result, char *msg,
             size_t len)
{
	struct rpc_job *job;
	int ret = call_begin(d, method, params, &job, result, msg, len);

	if (ret == 0 && job) {
		build_limit_begin(fecd_running_config(d)->control_build_timeout_ms);
		job_prepare(job);
		build_limit_end();
		ret = job_finish(job, result, msg, len);
	}
	ret = call_end(ret, result, msg, len);
	rpc_count_error(ret);
	return ret;
}

static void job_done(void *arg)
{
	struct rpc_job *job = arg;
	rpc_done_fn done = job->done;
	void *done_arg = job->arg;
	cJSON *result;
	char msg[1024];
	int ret;

	msg[0] = '\0';
	ret = job_finish(job, &result, msg, sizeof(msg));
	ret = call_end(ret, &result, msg, sizeof(msg));
	rpc_count_error(ret);
	done(done_arg, ret, result, msg);
}

int rpc_start(struct fecd *d, const char *method, const cJSON *params, rpc_done_fn done, void *arg,
              bool *pending, cJSON **result, char *msg, size_t len)
{
	struct rpc_job *job;
	int ret = call_begin(d, method, params, &job, result, msg, len);

	*pending = false;
	if (ret || !job) {
		ret = call_end(ret, result, msg, len);
		rpc_count_error(ret);
		return ret;
	}
	job->done = done;
	job->arg = arg;
	ret = offload_run(fecd_loop(d), fecd_running_config(d)->control_build_timeout_ms,
	                  job_prepare, job_done, job);
	if (ret) {
		job_free(job);
		snprintf(msg, len, "cannot start the work off the loop thread: %s",
		         uv_strerror(ret));
		rpc_count_error(RPC_EINTERNAL);
		return RPC_EINTERNAL;
	}
	*pending = true;
	return 0;
}

int rpc_write_markdown(FILE *f)
{
	fputs(
	    "### Control methods\n\n"
	    "JSON-RPC 2.0, one request per line (`\\n`), one response per line, on the Unix socket "
	    "`control.socket` (mode 0660) and, when `control.tcp` is set, on 127.0.0.1. Lines "
	    "longer than `control.max_line` get -32600 and are discarded up to their `\\n`; "
	    "nesting deeper than `control.max_depth`, NUL bytes and invalid UTF-8 are refused "
	    "before parsing. `params` is an object (named parameters) or absent; `id` is a "
	    "string, an integer of magnitude at most 2^53, or null; a request without `id` is a "
	    "notification and gets no response. Batches (arrays) and unknown members are "
	    "refused. Integers where ids and sequence numbers are expected must be whole, "
	    "non-negative and at most 2^53. On TCP a connection must first send `auth` with the "
	    "token of `control.token_file` (readable by fecd's group; `fecdctl --tcp` reads it); "
	    "until then every other method gets -32005. A connection idle for "
	    "`control.idle_timeout_ms` is closed. channel.create and channel.update build their code "
	    "off the loop thread, within `control.build_timeout_ms` (longer: -32004), and are "
	    "answered when done; other clients are served meanwhile, and the answers on one "
	    "connection keep the order of its requests.\n\n"
	    "| Method | Params | What it does |\n|---|---|---|\n",
	    f);
	for (size_t i = 0; i < NMETHODS; i++)
		fprintf(f, "| `%s` | `%s` | %s |\n", methods[i].name, methods[i].params,
		        methods[i].help);
	fputs("\n### Control errors\n\n| Code | Meaning |\n|---|---|\n", f);
#define X(name, code, text) fprintf(f, "| %d | %s |\n", code, text);
	RPC_ERR_MAP(X)
#undef X
	return ferror(f) ? -EIO : 0;
}
