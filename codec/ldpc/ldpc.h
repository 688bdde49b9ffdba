/*
 * Binary LDPC codes: where a parity-check matrix comes from, its sparse form, the systematic
 * encoder derived from it, and the decoders' parameters and exact arithmetic (the CPU decoder is
 * the reference the GPU one must match).
 *
 * A code is named by the spec's `code` text:
 *   - "nr-bg1", "nr-bg2": 3GPP TS 38.212 base graph 1 or 2, read from the base-graph table file
 *     5G_bg1.csv / 5G_bg2.csv in the codes folder, lifted by z (every lifting size of the
 *     standard's table 5.3.2-1); the first 2z columns are punctured (not transmitted);
 *   - "regular": a (dv,dc)-regular code of length n built at random without 4-cycles (seed);
 *   - "peg": a progressive-edge-growth code of length n, column degree dv, rows sized for row
 *     weight dc (m = ceil(n dv / dc); dc 0 = 2 dv, rate 1/2) (seed);
 *   - anything else is a file: ".qc" = a quasi-cyclic base matrix (line 1 `columns rows Z`, then
 *     the base matrix, each entry a circulant shift or -1), lifted by its own Z or by z when set;
 *     a puncturing line after the base matrix marks block columns not sent, which are moved to
 *     the front (the sent ones keep the standard's order); otherwise an alist file (MacKay's
 *     format; `#` comment lines and 0 padding tolerated).
 *     Relative paths resolve against the codes folder.
 * Files, the 5G NR tables included, are found and read under the codec's rules for code files
 * (fec.h: the codes folder, the path policy, size and kind checks, messages that never quote a
 * file). Named presets ("dvbs2-1/2", ...) in ldpc_presets.c are file names in the codes folder.
 *
 * Information bits sit at info_cols (k columns, increasing); for codes whose parity part is
 * triangular after the information columns (DVB-S2, 5G NR, WiMAX, 802.11n) that is the first k
 * columns, the standard's systematic order (AR4JA: the first k sent columns, after its punctured
 * block columns). rank(H) may be below m (k = n - rank).
 *
 * Exact arithmetic, int8 input (min-sum kinds: ms, nms, oms):
 *   channel LLR L[v] in -127..127 (punctured columns 0); messages are int8 in -127..127
 *   (sat8 below saturates to that range); layered, the a-posteriori values app[v] are int16 and
 *   exact, app[v] = L[v] + the sum of column v's messages (|app| <= 127 (1 + LDPC_DEG_MAX), so
 *   it never saturates: an int8 app would, and subtracting an old message from a clipped app
 *   flips signs, so that even noise-free codewords drift away under nms/oms);
 *   check update of row r over its edges e (column v_e), from the values x_e coming in:
 *     layered:  x_e = sat8(app[v_e] - c2v[e]);   flooding: x_e = sat8(L[v_e] + sum c2v - c2v[e])
 *     (the sum over all edges of column v_e in int32, from the previous iteration's c2v);
 *     m1 <= m2 the two smallest |x_e| (m1 at the first edge, in row order, holding it; m2 = 127
 *     in a row of one edge; float: 1e30), s the xor of the signs (x < 0 is negative, 0
 *     positive); the magnitude sent on e is m2 if e holds m1, else m1, then: ms as is; nms
 *     (m * alpha16) >> 4 with alpha16 = round(16 * alpha);
 *     oms max(m - offset8, 0) with offset8 = round(offset * llr_scale); sign s xor sign(x_e);
 *     layered: app[v_e] = (app[v_e] - c2v[e]) + c2v_new[e], in int16 from the exact
 *     difference (not from the saturated x_e).
 *   Hard decision: bit = 1 when the value (app, or flooding's L + sum c2v in int32) is < 0.
 *   Layers (sets of rows no two of which share a column; processed in order, and since their
 *   rows share no column, the order of rows within one changes nothing):
 *     - QC codes: the block rows;
 *     - codes of the DVB-S2 form (ldpc_cyclic below: m and n - m multiples of 360, the last m
 *       columns a staircase, rows g, g + q, g + 2q... (q = m / 360) meeting the information
 *       columns in circulants of 360): each row group g split into runs of consecutive rows
 *       t = 0..359 of length L, L the smallest cyclic distance between two of its rows sharing
 *       a column (360 when none do), then the runs, group by group, placed by first fit (each
 *       joins the first layer with none of whose rows it shares a column);
 *     - any other code: single rows in row order, placed by first fit.
 * Float (spa always; the min-sum kinds when in=f32): the same rules in float32 without
 * saturation, with int8 input divided by llr_scale; spa's check rule is the tanh rule,
 * 2 atanh(prod tanh(x/2)) over the other edges, with |x| clamped to LDPC_SPA_CLAMP and the
 * product's magnitude to at most 1 - 1e-7, so that no message is infinite.
 * Stop: after each iteration the syndrome of the hard decisions is checked; with early_stop the
 * decoder stops at the first zero syndrome. status DECODED when the final syndrome is zero, else
 * NOT_CONVERGED; iterations = iterations run. Soft output: the final a-posteriori LLRs (in LLR
 * units, positive favours 0) of the output bits.
 * Soft in, soft out (fec_decode_siso): the prior P[j] of output bit j (in LLR units) joins its
 * column's channel value before the first iteration, L[v] = sat8(L[v] + round(P[j] llr_scale))
 * with int8 (P[j] llr_scale first clamped to -254..254), L[v] + P[j] in float; the rest is the
 * decoder above, run by the portable decoder; the posteriors are the soft output.
 */
#ifndef LDPC_H
#define LDPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LDPC_CODE_TEXT_MAX 256
#define LDPC_N_MAX (1u << 20)     /* longest code */
#define LDPC_DEG_MAX 256          /* highest row or column weight */
#define LDPC_ITERS_MAX 1000
#define LDPC_SPA_CLAMP 30.0f

enum ldpc_algo { LDPC_ALGO_SPA = 1, LDPC_ALGO_MS, LDPC_ALGO_NMS, LDPC_ALGO_OMS };
enum ldpc_schedule { LDPC_SCHED_FLOODING = 1, LDPC_SCHED_LAYERED };
enum ldpc_output { LDPC_OUT_INFO = 1, LDPC_OUT_CODEWORD };

struct ldpc_spec {
	char code[LDPC_CODE_TEXT_MAX]; /* see above */
	uint32_t z;                    /* lifting size: nr-bg*, or a .qc file's (0 = its own) */
	uint32_t gen_n;                /* regular/peg: code length */
	uint8_t gen_dv, gen_dc;        /* regular/peg: column weight and row weight */
	uint32_t seed;                 /* regular/peg */
	enum ldpc_algo algo;
	enum ldpc_schedule schedule;
	uint16_t max_iters;
	float alpha;     /* nms factor, 0 < alpha <= 1 */
	float offset;    /* oms offset, in LLR units */
	bool early_stop;
	enum ldpc_output output;
	/* The decoder's input kind (in), the LLR scale (llr_scale) and framing are the frame
	 * families' common block, struct fec_spec's frame (fec.h). */
	/* derived by spec_finish from the loaded code */
	uint32_t n, k, n_tx;
};

/* The parity-check matrix, both ways. Edges are numbered in row order: row r owns edges
 * row_start[r] .. row_start[r+1]-1, edge e connects row r to column row_col[e]. Column v lists its
 * edges col_edge[col_start[v] .. col_start[v+1]-1] (increasing, so by increasing row). */
struct ldpc_matrix {
	uint32_t n, m, nnz;
	uint32_t *row_start; /* m + 1 */
	uint32_t *row_col;   /* nnz */
	uint32_t *col_start; /* n + 1 */
	uint32_t *col_edge;  /* nnz */
};

struct ldpc_enc_plan;

/* Rows and columns in groups of z under which H is made of z x z circulants: row t (0..z-1) of
 * row group g is row g * row_gstep + t * row_tstep; column v sits at position col_pos[v], in
 * block col_pos[v] / z; a group's rows have the same slots, slot s meeting row t at position
 * slot_block[s] * z + (t + slot_shift[s]) % z (ldpc_cyclic_pos). Short rows lack some of their
 * group's slots (DVB-S2's row 0). QC codes have it with columns in place; DVB-S2-form codes
 * with parity column i at position (n - m) + (i mod q) * 360 + i / q. */
struct ldpc_cyclic {
	uint32_t z, ngroups;
	uint32_t row_gstep, row_tstep;
	uint32_t *col_pos;    /* n */
	uint32_t *slot_start; /* ngroups + 1, into slot_block and slot_shift */
	uint32_t *slot_block;
	uint32_t *slot_shift;
	uint32_t nshort;
	uint32_t *short_rows; /* nshort */
};

static inline uint32_t ldpc_cyclic_row(const struct ldpc_cyclic *cy, uint32_t g, uint32_t t)
{
	return g * cy->row_gstep + t * cy->row_tstep;
}

static inline uint32_t ldpc_cyclic_pos(const struct ldpc_cyclic *cy, uint32_t s, uint32_t t)
{
	return cy->slot_block[s] * cy->z + (t + cy->slot_shift[s]) % cy->z;
}

struct ldpc_code {
	struct ldpc_matrix h;
	uint32_t k;          /* information bits */
	uint32_t *info_cols; /* k increasing column indices */
	uint32_t punct;      /* the first punct columns are not transmitted (5G NR: 2z) */
	uint32_t n_tx;       /* transmitted symbols: n - punct */
	uint32_t z;          /* QC lifting size, 0 when not quasi-cyclic */
	uint32_t nlayers;
	uint32_t *layer_start; /* nlayers + 1, into layer_rows */
	uint32_t *layer_rows;  /* m rows, layer by layer */
	uint32_t max_row_deg, max_col_deg;
	struct ldpc_cyclic *cyc; /* NULL when the code has no such structure */
	char name[96];       /* "DVB-S2_64800x32400.alist", "nr-bg1 z=384", ... */
	struct ldpc_enc_plan *enc; /* built at load: ldpc_encode is thread-safe */
};

/* Builds the code the spec names (spec_finish has not to have run; only code, z, gen_* and seed
 * are read). A bad file gets -FEC_EINVAL and a message naming the file, the line and what was
 * expected there; a path the policy refuses, -FEC_EINVAL; a read past the build deadline,
 * -FEC_ETIME. */
int ldpc_code_load(const struct ldpc_spec *spec, struct ldpc_code **out, char *err, size_t errlen);
void ldpc_code_free(struct ldpc_code *code);
/* Parsers on text in memory (for the tests' bad-file table); name is used in messages. */
int ldpc_alist_parse(const char *text, const char *name, struct ldpc_code **out, char *err,
		     size_t errlen);
int ldpc_qc_parse(const char *text, const char *name, uint32_t z, struct ldpc_code **out,
		  char *err, size_t errlen);
int ldpc_nr_parse(const char *text, const char *name, int bg, uint32_t z, struct ldpc_code **out,
		  char *err, size_t errlen);
/* 38.212 lifting sizes: true when z is one of them. */
bool ldpc_nr_lifting_valid(uint32_t z);

/* Systematic encoding: info (k bits, one per byte) -> codeword (n bits, one per byte, all
 * columns including punctured ones). */
int ldpc_encode(struct ldpc_code *code, const uint8_t *info, uint8_t *codeword);
/* The systematic encoder's plan as tables, for an encoder elsewhere (the GPU simulator's,
 * cuda/ldpc/ldpc_gpu_sim.cu). ldpc_encode computes the codeword c (n bits) as:
 *   1. c = 0, then c[info_cols[i]] = info[i];
 *   2. c[q2_cols[j]] = parity(q2_rows[j] & c) for j < nq2, every j from step 1's c (q2_rows:
 *      nq2 rows of nw 64-bit words over the n columns, column v at bit v % 64 of word v / 64);
 *   3. for i < t in order, c[peel_col[i]] = the xor of row peel_row[i]'s other columns (a
 *      peeled row's other columns are information, step 2's, step 4's or earlier steps' of 3);
 *   4. where nq1 > 0: s[j] = the parity of row left_rows[j] over c for j < nleft, then
 *      c[q1_cols[j]] = parity(q1_rows[j] & s) for j < nq1 (rows of lw words over the nleft
 *      values), then step 3 again.
 * The pointers are the code's own (valid while it lives; the plan is built when the code is
 * loaded). -FEC_EINVAL where the code has none. */
struct ldpc_enc_tables {
	uint32_t t;
	const uint32_t *peel_row, *peel_col;
	uint32_t nleft, lw;
	const uint32_t *left_rows;
	uint32_t nq1;
	const uint32_t *q1_cols;
	const uint64_t *q1_rows;
	uint32_t nq2, nw;
	const uint32_t *q2_cols;
	const uint64_t *q2_rows;
};
int ldpc_enc_tables_get(const struct ldpc_code *code, struct ldpc_enc_tables *out);

/* Whether H * c = 0 (c: n bits, one per byte). */
bool ldpc_codeword_valid(const struct ldpc_code *code, const uint8_t *c);

/* The code behind an ldpc decoder (for the GPU backend and the tests). */
struct fec_decoder;
const struct ldpc_code *ldpc_decoder_code(const struct fec_decoder *dec);

#endif
