/*
 * fecd-sink's report: latency from the feed's stamps, and the verdict with its reasons, as text
 * or as one JSON object (see sink.c's header comment for the rules).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sink.h"

/* Stamps file records in send order; looked up by binary search on seq. */
int sink_stamps_match(struct sink *s)
{
	FILE *f = fopen(s->o.stamps, "rb");
	uint8_t rec[STAMP_RECORD_LEN];
	uint64_t *seq = NULL, *ns = NULL;
	size_t n = 0, cap = 0;
	FILE *log = NULL;
	int rc = -1;

	if (!f) {
		fprintf(stderr, "fecd-sink: %s: %s\n", s->o.stamps, strerror(errno));
		return -1;
	}
	while (fread(rec, 1, sizeof(rec), f) == sizeof(rec)) {
		if (n == cap) {
			cap = cap ? 2 * cap : 4096;
			uint64_t *a = realloc(seq, cap * sizeof(*a)),
			         *b = a ? realloc(ns, cap * sizeof(*b)) : NULL;
			if (a)
				seq = a;
			if (!b)
				goto out_nomem;
			ns = b;
		}
		seq[n] = get_le64(rec);
		ns[n++] = get_le64(rec + 8);
	}
	if (s->o.latency_log && !(log = fopen(s->o.latency_log, "w"))) {
		fprintf(stderr, "fecd-sink: %s: %s\n", s->o.latency_log, strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < s->nlat; i++) {
		size_t lo = 0, hi = n;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (seq[mid] < s->lat_seq[i])
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo >= n || seq[lo] != s->lat_seq[i])
			continue;
		if (lat_add(&s->lat, (int64_t)(s->lat_rx[i] - ns[lo])))
			goto out_nomem;
		if (log)
			fprintf(log, "%.6f %.6f %" PRIu64 " %.3f\n", (double)(ns[lo] - ns[0]) / 1e9,
			        (double)(s->lat_rx[i] - ns[0]) / 1e9, seq[lo],
			        (double)(int64_t)(s->lat_rx[i] - ns[lo]) / 1e6);
	}
	rc = 0;
	if (log && fclose(log)) {
		fprintf(stderr, "fecd-sink: %s: %s\n", s->o.latency_log, strerror(errno));
		rc = -1;
	}
	log = NULL;
	goto out;
out_nomem:
	fprintf(stderr, "fecd-sink: out of memory reading %s\n", s->o.stamps);
out:
	if (log)
		fclose(log);
	free(seq);
	free(ns);
	fclose(f);
	return rc;
}

struct verdict {
	char why[512];
	size_t len;
};

static void fail(struct verdict *v, const char *what)
{
	int n =
	    snprintf(v->why + v->len, sizeof(v->why) - v->len, "%s%s", v->len ? "; " : "", what);
	if (n > 0 && (size_t)n < sizeof(v->why) - v->len)
		v->len += (size_t)n;
}

bool sink_report(struct sink *s)
{
	uint64_t lost_bits = track_lost(&s->bits_track, s->o.expect_bits);
	uint64_t lost_frames = track_lost(&s->frame_track, s->o.expect_frames);
	uint64_t dups = s->bits_track.duplicates + s->frame_track.duplicates;
	uint64_t ooo = s->bits_track.out_of_order + s->frame_track.out_of_order;
	uint64_t outs = s->stream_msgs + s->frame_msgs;
	double ber = s->bits ? (double)s->bit_errors / (double)s->bits : 0.0;
	double fer = outs ? (double)s->msg_errors / (double)outs : 0.0;
	double secs = s->t_last > s->t_first ? (double)(s->t_last - s->t_first) * 1e-9 : 0.0;
	struct verdict v = {0};
	char gens[SINK_MAX_GENS * 11 + 1] = "";
	char buf[128];

	if (!s->msgs)
		fail(&v, "no message received");
	else if (!outs && s->stale)
		fail(&v, "every message stale: none of this sink's checked");
	if (ber > s->o.max_ber || (s->o.max_ber == 0.0 && s->bit_errors)) {
		snprintf(buf, sizeof(buf), "BER %.3g above %.3g", ber, s->o.max_ber);
		fail(&v, buf);
	}
	if (s->o.max_fer_set && fer > s->o.max_fer) {
		snprintf(buf, sizeof(buf), "FER %.3g above %.3g", fer, s->o.max_fer);
		fail(&v, buf);
	}
	if (s->o.expect_bits && s->bits_track.next < s->o.expect_bits)
		fail(&v, "expected bits not reached");
	if (s->o.expect_frames && s->frame_track.next < s->o.expect_frames)
		fail(&v, "expected frames not reached");
	if (s->o.until_eos && s->sender_ends < s->o.until_eos) {
		snprintf(buf, sizeof(buf),
		         "the sender's END_OF_STREAM not seen (%" PRIu64 " of %" PRIu64 "; %" PRIu64
		         " stream ends fecd made)",
		         s->sender_ends, s->o.until_eos, s->eos_seen - s->sender_ends);
		fail(&v, buf);
	}
	if (!s->o.allow_loss && (lost_bits || lost_frames))
		fail(&v, "data lost");
	if (!s->o.allow_reorder && (dups || ooo))
		fail(&v, "duplicated or reordered data");
	if (s->malformed)
		fail(&v, "malformed messages");
	if (s->out_of_window)
		fail(&v, "messages beyond the window");
	if (s->soft_size_errors)
		fail(&v, "soft values that do not fit their decoded bits");
	if (s->soft_sign_errors)
		fail(&v, "soft values that disagree with their decoded bits");
	for (unsigned i = 0; i < s->ngens; i++)
		snprintf(gens + strlen(gens), sizeof(gens) - strlen(gens), "%s%u", i ? "," : "",
		         s->gens[i]);
	double p50 = lat_percentile_ms(&s->lat, 50), p90 = lat_percentile_ms(&s->lat, 90);
	double p99 = lat_percentile_ms(&s->lat, 99), pmax = lat_percentile_ms(&s->lat, 100);

	if (s->o.json) {
		printf("{\"pass\":%s,\"why\":\"%s\",\"messages\":%" PRIu64
		       ",\"stream_msgs\":%" PRIu64 ",\"frames\":%" PRIu64 ",\"bits\":%" PRIu64
		       ",\"bit_errors\":%" PRIu64 ",\"ber\":%.6g,\"frame_errors\":%" PRIu64
		       ",\"fer\":%.6g,\"frame_errors_wrong_bits\":%" PRIu64
		       ",\"frame_errors_status_only\":%" PRIu64 ",\"bits_delivered\":%" PRIu64
		       ",\"lost_bits\":%" PRIu64 ",\"lost_frames\":%" PRIu64
		       ",\"duplicates\":%" PRIu64 ",\"out_of_order\":%" PRIu64
		       ",\"malformed\":%" PRIu64 ",\"out_of_window\":%" PRIu64 ",\"stale\":%" PRIu64
		       ",\"restarts\":%" PRIu64 ",\"end_of_stream\":%" PRIu64
		       ",\"sender_end\":%" PRIu64 ",\"status\":{"
		       "\"decoded\":%" PRIu64 ",\"not_converged\":%" PRIu64 ",\"erased\":%" PRIu64
		       ",\"other\":%" PRIu64 "},\"code_gens\":[%s],\"code_changed\":%" PRIu64
		       ",\"frame_len_changes\":%" PRIu64 ",\"soft\":{\"messages\":%" PRIu64
		       ",\"values\":%" PRIu64 ",\"zero\":%" PRIu64 ",\"size_errors\":%" PRIu64
		       ",\"sign_errors\":%" PRIu64
		       "},\"latency_ms\":{\"samples\":%zu,\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,"
		       "\"max\":%.3f},\"seconds\":%.3f,\"bits_per_s\":%.0f}\n",
		       v.len ? "false" : "true", v.why, s->msgs, s->stream_msgs, s->frame_msgs,
		       s->bits, s->bit_errors, ber, s->msg_errors, fer, s->errors_wrong,
		       s->errors_status, s->bits_track.delivered, lost_bits, lost_frames, dups, ooo,
		       s->malformed, s->out_of_window, s->stale, s->restarts, s->eos_seen,
		       s->sender_ends, s->status[0], s->status[1], s->status[2], s->status_other,
		       gens, s->code_changed, s->len_changes, s->soft_msgs, s->soft_values,
		       s->soft_zero, s->soft_size_errors, s->soft_sign_errors, s->lat.n, p50, p90,
		       p99, pmax, secs, secs > 0 ? (double)s->bits / secs : 0.0);
	} else {
		printf("fecd-sink: messages=%" PRIu64 " frames=%" PRIu64 " bits=%" PRIu64
		       " bit_errors=%" PRIu64 " ber=%.3g frame_errors=%" PRIu64 " fer=%.3g\n",
		       s->msgs, s->frame_msgs, s->bits, s->bit_errors, ber, s->msg_errors, fer);
		if (s->stale)
			printf("  stale=%" PRIu64
			       " (an earlier run's stream output, not checked)\n",
			       s->stale);
		if (s->msg_errors)
			printf("  frame_errors: %" PRIu64 " with bits wrong, %" PRIu64
			       " with every bit right but not decoded (not_converged, erased)\n",
			       s->errors_wrong, s->errors_status);
		printf("  lost_bits=%" PRIu64 " lost_frames=%" PRIu64 " duplicates=%" PRIu64
		       " out_of_order=%" PRIu64 " malformed=%" PRIu64 " out_of_window=%" PRIu64
		       " restarts=%" PRIu64 " end_of_stream=%" PRIu64 " sender_end=%" PRIu64 "\n",
		       lost_bits, lost_frames, dups, ooo, s->malformed, s->out_of_window,
		       s->restarts, s->eos_seen, s->sender_ends);
		printf("  status decoded=%" PRIu64 " not_converged=%" PRIu64 " erased=%" PRIu64
		       " code_gens=%s code_changed=%" PRIu64 " frame_len_changes=%" PRIu64 "\n",
		       s->status[0], s->status[1], s->status[2], gens, s->code_changed,
		       s->len_changes);
		if (s->soft_msgs)
			printf("  soft messages=%" PRIu64 " values=%" PRIu64 " zero=%" PRIu64
			       " size_errors=%" PRIu64 " sign_errors=%" PRIu64 "\n",
			       s->soft_msgs, s->soft_values, s->soft_zero, s->soft_size_errors,
			       s->soft_sign_errors);
		if (s->lat.n)
			printf("  latency_ms p50=%.3f p90=%.3f p99=%.3f max=%.3f (%zu samples)\n",
			       p50, p90, p99, pmax, s->lat.n);
		printf("  seconds=%.3f rate=%.0f bits/s\n", secs,
		       secs > 0 ? (double)s->bits / secs : 0.0);
		printf("  %s%s\n", v.len ? "FAIL: " : "PASS", v.why);
	}
	fflush(stdout);
	return v.len == 0;
}
