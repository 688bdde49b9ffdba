/*
 * fecd-sim's output: the live table (a row per point, redrawn in place with its progress on a
 * terminal), and the CSV and JSON files, from the curves kept in memory (one per --code). The
 * columns and fields are the README's ("Simulating codes with fecd-sim").
 */
#ifndef FECD_SIM_OUT_H
#define FECD_SIM_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "sim.h"

/* One point of a curve as reported. */
struct sim_row {
	double ebn0_db, esn0_db;
	struct sim_result res;
	double ber, ber_lo, ber_hi, fer, fer_lo, fer_hi; /* Wilson 95 % intervals */
	double ber_frames_lo, ber_frames_hi; /* the BER's with frames as trials (sim_ber_frames95) */
	double info_gbps; /* information bits simulated per second, in 10^9 */
};

/* One --code's curve. */
struct sim_curve {
	const struct sim_code *code;
	const char *backend; /* "cpu" or "cuda" */
	unsigned threads;    /* CPU threads (0 on the GPU) */
	uint32_t batch;      /* frames per batch, the stop rules' step */
	struct sim_row *rows;
	unsigned nrows;
};

/* Fills the row's rates, intervals and throughput from its result. */
void sim_row_finish(struct sim_row *row);

/* The table: a curve's heading, the column heads, a finished row, and a row in progress (on a
 * terminal: redrawn in place, then overwritten by its finished row). */
void sim_table_heading(FILE *f, const struct sim_curve *c, uint64_t seed, const char *why_backend);
void sim_table_row(FILE *f, const struct sim_row *row, bool in_place);
void sim_table_progress(FILE *f, const struct sim_row *row);

/* The files; 0, or -1 with a message. */
int sim_write_csv(const char *path, const struct sim_curve *curves, unsigned n, uint64_t seed,
                  char *err, size_t errlen);
int sim_write_json(const char *path, const struct sim_curve *curves, unsigned n, uint64_t seed,
                   char *err, size_t errlen);

#endif
