/*
 * fecd-sim's table, CSV and JSON (sim_out.h). Error rates carry 95 % Wilson score intervals:
 * exact enough at the counts a stop rule leaves (it never leaves [0, 1] and stays sensible at 0
 * errors, where the normal approximation collapses). The Wilson BER interval treats bits as
 * independent, which decoded errors are not (they come in bursts): it is narrower than the
 * truth. The files also give the BER's interval with frames as the trials (sim_ber_frames95),
 * which is the one to compare BERs by (sim_gpu_agree.sh does).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "sim_out.h"

void sim_row_finish(struct sim_row *row)
{
	const struct sim_tally *t = &row->res.t;

	row->ber = t->bits ? (double)t->bit_errors / (double)t->bits : 0.0;
	row->fer = t->frames ? (double)t->frame_errors / (double)t->frames : 0.0;
	sim_wilson95(t->bit_errors, t->bits, &row->ber_lo, &row->ber_hi);
	sim_wilson95(t->frame_errors, t->frames, &row->fer_lo, &row->fer_hi);
	sim_ber_frames95(t, &row->ber_frames_lo, &row->ber_frames_hi);
	row->info_gbps = row->res.secs > 0 ? (double)t->bits / row->res.secs * 1e-9 : 0.0;
}

void sim_table_heading(FILE *f, const struct sim_curve *c, uint64_t seed, const char *why_backend)
{
	const struct sim_code *k = c->code;

	fprintf(f, "# %s: %s, rate %.6g, channel %s%s\n", k->text, k->describe, k->rate, k->channel,
	        k->all_zero ? ", all-zero codeword" : "");
	if (k->stream)
		fprintf(f,
		        "# frame: one decoder job of %u information bits (head %u, tail %u "
		        "symbols)",
		        k->info_bits, k->info.head_syms, k->info.tail_syms);
	else
		fprintf(f, "# frame: %u information bits, %u code bits", k->info_bits,
		        k->code_syms);
	if (c->threads)
		fprintf(f, "; backend %s, %u threads, batches of %u frames", c->backend, c->threads,
		        c->batch);
	else if (c->batch)
		fprintf(f, "; backend %s, batches of %u frames", c->backend, c->batch);
	else
		fprintf(f, "; backend %s", c->backend);
	fprintf(f, "; seed %llu%s%s\n", (unsigned long long)seed,
	        why_backend && *why_backend ? "; " : "", why_backend ? why_backend : "");
	fprintf(f, "%6s %6s %11s %10s %9s %9s %9s %19s %9s %19s %7s %7s %s\n", "Eb/N0", "Es/N0",
	        "frames", "bit_err", "frame_err", "wrong_bit", "BER", "BER 95% CI", "FER",
	        "FER 95% CI", "Gb/s", "secs", "stop");
	fflush(f);
}

static void row_text(FILE *f, const struct sim_row *r, const char *stop)
{
	fprintf(f,
	        "%6.2f %6.2f %11llu %10llu %9llu %9llu %9.3e [%8.2e,%8.2e] %9.3e [%8.2e,%8.2e] "
	        "%7.4f %7.1f %s",
	        r->ebn0_db, r->esn0_db, (unsigned long long)r->res.t.frames,
	        (unsigned long long)r->res.t.bit_errors, (unsigned long long)r->res.t.frame_errors,
	        (unsigned long long)r->res.t.wrong_frames, r->ber, r->ber_lo, r->ber_hi, r->fer,
	        r->fer_lo, r->fer_hi, r->info_gbps, r->res.secs, stop);
}

void sim_table_row(FILE *f, const struct sim_row *row, bool in_place)
{
	if (in_place)
		fputs("\r\033[K", f);
	row_text(f, row, sim_stop_name(row->res.why));
	fputc('\n', f);
	fflush(f);
}

void sim_table_progress(FILE *f, const struct sim_row *row)
{
	fputs("\r\033[K", f);
	row_text(f, row, "...");
	fflush(f);
}

/* A CSV field: quoted, with quotes doubled, where it holds a comma or a quote. */
static void csv_text(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

int sim_write_csv(const char *path, const struct sim_curve *curves, unsigned n, uint64_t seed,
                  char *err, size_t errlen)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		snprintf(err, errlen, "--csv %s: cannot write: %m", path);
		return -1;
	}
	fputs("code,family,rate,channel,all_zero,backend,seed,frame_info_bits,ebn0_db,esn0_db,"
	      "frames,bits,bit_errors,frame_errors,unconverged,ber,ber_lo,ber_hi,fer,fer_lo,fer_hi,"
	      "info_gbps,seconds,stop,frames_wrong_bits,ber_frames_lo,ber_frames_hi\n",
	      f);
	for (unsigned i = 0; i < n; i++) {
		const struct sim_curve *c = &curves[i];

		for (unsigned j = 0; j < c->nrows; j++) {
			const struct sim_row *r = &c->rows[j];
			const struct sim_tally *t = &r->res.t;

			csv_text(f, c->code->text);
			fprintf(f, ",%s,%.9g,", fec_family_by_id(c->code->spec.family)->name,
			        c->code->rate);
			csv_text(f, c->code->channel);
			fprintf(f,
			        ",%d,%s,%llu,%u,%.4f,%.4f,%llu,%llu,%llu,%llu,%llu,%.6e,%.6e,%.6e,"
			        "%.6e,%.6e,%.6e,%.6f,%.3f,%s,",
			        c->code->all_zero, c->backend, (unsigned long long)seed,
			        c->code->info_bits, r->ebn0_db, r->esn0_db,
			        (unsigned long long)t->frames, (unsigned long long)t->bits,
			        (unsigned long long)t->bit_errors,
			        (unsigned long long)t->frame_errors,
			        (unsigned long long)t->unconverged, r->ber, r->ber_lo, r->ber_hi,
			        r->fer, r->fer_lo, r->fer_hi, r->info_gbps, r->res.secs,
			        sim_stop_name(r->res.why));
			fprintf(f, "%llu,%.6e,%.6e\n", (unsigned long long)t->wrong_frames,
			        r->ber_frames_lo, r->ber_frames_hi);
		}
	}
	if (fclose(f)) {
		snprintf(err, errlen, "--csv %s: write failed: %m", path);
		return -1;
	}
	return 0;
}

static cJSON *row_json(const struct sim_row *r)
{
	cJSON *o = cJSON_CreateObject();
	const struct sim_tally *t = &r->res.t;

	cJSON_AddNumberToObject(o, "ebn0_db", r->ebn0_db);
	cJSON_AddNumberToObject(o, "esn0_db", r->esn0_db);
	cJSON_AddNumberToObject(o, "frames", (double)t->frames);
	cJSON_AddNumberToObject(o, "bits", (double)t->bits);
	cJSON_AddNumberToObject(o, "bit_errors", (double)t->bit_errors);
	cJSON_AddNumberToObject(o, "frame_errors", (double)t->frame_errors);
	cJSON_AddNumberToObject(o, "unconverged", (double)t->unconverged);
	cJSON_AddNumberToObject(o, "frames_wrong_bits", (double)t->wrong_frames);
	cJSON_AddNumberToObject(o, "ber", r->ber);
	cJSON_AddItemToObject(o, "ber_ci95",
	                      cJSON_CreateDoubleArray((const double[]){r->ber_lo, r->ber_hi}, 2));
	cJSON_AddItemToObject(
	    o, "ber_frames_ci95",
	    cJSON_CreateDoubleArray((const double[]){r->ber_frames_lo, r->ber_frames_hi}, 2));
	cJSON_AddNumberToObject(o, "fer", r->fer);
	cJSON_AddItemToObject(o, "fer_ci95",
	                      cJSON_CreateDoubleArray((const double[]){r->fer_lo, r->fer_hi}, 2));
	cJSON_AddNumberToObject(o, "info_gbps", r->info_gbps);
	cJSON_AddNumberToObject(o, "seconds", r->res.secs);
	cJSON_AddStringToObject(o, "stop", sim_stop_name(r->res.why));
	return o;
}

int sim_write_json(const char *path, const struct sim_curve *curves, unsigned n, uint64_t seed,
                   char *err, size_t errlen)
{
	cJSON *root = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(root, "curves");
	char *text;
	FILE *f;
	int rc = 0;

	cJSON_AddStringToObject(root, "tool", "fecd-sim");
	cJSON_AddNumberToObject(root, "seed", (double)seed);
	cJSON_AddStringToObject(root, "interval", "wilson95");
	for (unsigned i = 0; i < n; i++) {
		const struct sim_curve *c = &curves[i];
		const struct sim_code *k = c->code;
		cJSON *o = cJSON_CreateObject(), *pts;

		cJSON_AddStringToObject(o, "code", k->text);
		cJSON_AddStringToObject(o, "describe", k->describe);
		cJSON_AddStringToObject(o, "family", fec_family_by_id(k->spec.family)->name);
		cJSON_AddNumberToObject(o, "rate", k->rate);
		cJSON_AddStringToObject(o, "channel", k->channel);
		cJSON_AddBoolToObject(o, "all_zero", k->all_zero);
		cJSON_AddStringToObject(o, "frame", k->stream ? "job" : "frame");
		cJSON_AddNumberToObject(o, "frame_info_bits", k->info_bits);
		cJSON_AddStringToObject(o, "backend", c->backend);
		cJSON_AddNumberToObject(o, "threads", c->threads);
		pts = cJSON_AddArrayToObject(o, "points");
		for (unsigned j = 0; j < c->nrows; j++)
			cJSON_AddItemToArray(pts, row_json(&c->rows[j]));
		cJSON_AddItemToArray(arr, o);
	}
	text = cJSON_Print(root);
	cJSON_Delete(root);
	f = text ? fopen(path, "w") : NULL;
	if (!f) {
		snprintf(err, errlen, "--json %s: cannot write: %m", path);
		rc = -1;
	} else {
		bool bad = fputs(text, f) < 0 || fputc('\n', f) < 0;

		if (fclose(f) || bad) {
			snprintf(err, errlen, "--json %s: write failed: %m", path);
			rc = -1;
		}
	}
	free(text);
	return rc;
}
