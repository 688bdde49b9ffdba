/*
 * The nbldpc family: LDPC codes over GF(2^p), p = 1..8 (q = 2..256). Its spec, the field, the
 * code (parity-check matrix with coefficients, from a non-binary alist file or generated) and the
 * systematic encoder derived from H; the decoders (FFT belief propagation, layered min-max) are
 * in nbldpc_decode.c, trellis min-sum (tms) in nbldpc_tms.c.
 *
 * code names the matrix: a non-binary alist file (the format of ../shared/codes/README.md: line
 * 1 "N M q", then the degrees, then (row, value) pairs per column and (column, value) pairs per
 * row; values in power form, exponents of alpha with 0 = alpha^0, or with form=vector the
 * element's bits, bit i the coefficient of x^i), "regular" (generated: n symbols, column
 * weight dv, row weight dc, random nonzero coefficients, no 4-cycles, deterministic for seed) or
 * "irregular" (generated, rate 1/2, n symbols, the seed thesis's degree profile for q).
 * Each GF(q) symbol is p channel bits, most significant first (bit_order=msb) as BeiDou sends
 * them, or least significant first.
 */
#ifndef NBLDPC_H
#define NBLDPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NBLDPC_CODE_TEXT_MAX 256
#define NBLDPC_N_MAX         (1u << 16) /* longest code, in symbols */
#define NBLDPC_DEG_MAX       64         /* highest row or column weight */
#define NBLDPC_ITERS_MAX     1000
#define NBLDPC_Q_MAX         256
/* Largest M x N the dense elimination takes (a byte copy of H), for codes whose last m columns
 * are not independent (the sparse encoder, nbldpc_encode.c, takes the others at any size). */
#define NBLDPC_DENSE_MAX (64u << 20)

enum nbldpc_algo { NBLDPC_ALGO_FFTBP = 1, NBLDPC_ALGO_MINMAX, NBLDPC_ALGO_TMS };
enum nbldpc_domain { NBLDPC_DOMAIN_LOG = 1, NBLDPC_DOMAIN_PROB };
enum nbldpc_form { NBLDPC_FORM_POWER = 1, NBLDPC_FORM_VECTOR };
enum nbldpc_bit_order { NBLDPC_MSB_FIRST = 1, NBLDPC_LSB_FIRST };
/* sym: q log-probabilities per information symbol; bit: an LLR per information bit; code: q
 * log-probabilities per code symbol (all n, column order: a composite decoder's passes back) */
enum nbldpc_soft { NBLDPC_SOFT_SYM = 1, NBLDPC_SOFT_BIT, NBLDPC_SOFT_CODE };

struct nbldpc_spec {
	char code[NBLDPC_CODE_TEXT_MAX];
	uint16_t q;    /* regular: the field's size (a file gives its own) */
	uint16_t poly; /* primitive polynomial with its x^p term; 0: the conventional one for q */
	enum nbldpc_form form;
	uint32_t gen_n; /* regular: code length in symbols */
	uint8_t gen_dv, gen_dc;
	uint32_t seed;
	enum nbldpc_algo algo;
	enum nbldpc_domain domain; /* fft-bp: log (signed log values) or prob (normalised) */
	uint16_t max_iters;
	uint16_t nm;    /* min-max: values kept per message (0, or q and more: all) */
	uint16_t dev2;  /* tms: first deviations tried in two-deviation configurations */
	uint8_t offset; /* tms: subtracted from each check message's costs */
	bool early_stop;
	enum nbldpc_bit_order bit_order;
	enum nbldpc_soft soft; /* soft output: q-ary symbol log-probabilities or bit LLRs */
	/* derived by spec_finish from the loaded code */
	uint32_t n, m, k, p, code_q;
};

/* GF(2^p): elements in vector form (bit i the coefficient of x^i); exp[i] = alpha^i for
 * i < 2(q-1), log[a] for a != 0. */
struct nbldpc_gf {
	unsigned p, q, poly;
	uint8_t log[256];
	uint8_t exp[512];
};

/* The conventional primitive polynomial of GF(2^p) (x+1, x^2+x+1, x^3+x+1, x^4+x+1, x^5+x^2+1,
 * x^6+x+1, x^7+x^3+1, x^8+x^4+x^3+x^2+1), with its x^p term; 0 for p outside 1..8. */
unsigned nbldpc_gf_default_poly(unsigned p);
/* Builds the tables; -FEC_EINVAL with a message when poly is not a primitive polynomial of
 * degree p (0: the default). */
int nbldpc_gf_init(struct nbldpc_gf *gf, unsigned p, unsigned poly, char *err, size_t errlen);

static inline uint8_t nbldpc_gf_mul(const struct nbldpc_gf *gf, uint8_t a, uint8_t b)
{
	return a && b ? gf->exp[gf->log[a] + gf->log[b]] : 0;
}

/* a / b, b != 0 */
static inline uint8_t nbldpc_gf_div(const struct nbldpc_gf *gf, uint8_t a, uint8_t b)
{
	return a ? gf->exp[gf->log[a] + gf->q - 1 - gf->log[b]] : 0;
}

/* The parity-check matrix, both ways; edges numbered in row order, row_val[e] the coefficient
 * (vector form) of edge e. */
struct nbldpc_code {
	uint32_t n, m, nnz, k;
	struct nbldpc_gf gf;
	uint32_t *row_start; /* m + 1 */
	uint32_t *row_col;   /* nnz */
	uint8_t *row_val;    /* nnz */
	uint32_t *col_start; /* n + 1 */
	uint32_t *col_edge;  /* nnz: the edges of each column, in row order */
	uint32_t max_row_deg, max_col_deg;
	/* The systematic encoder: info_cols (k increasing columns) carry the information symbols;
	 * parity column par_cols[r] = sum over j of enc[r * k + j] * info symbol j. */
	uint32_t *info_cols, *par_cols;
	uint8_t *enc; /* rank x k; NULL when plan encodes */
	uint32_t rank;
	/* The sparse encoder (nbldpc_encode.c) when H's last m columns are independent: information
	 * in columns 0..k-1, parity by peeling; NULL when the dense elimination chose. */
	struct nbldpc_enc_plan *plan;
	char name[96];
};

/* Builds the code the spec names (spec_finish need not have run). */
int nbldpc_code_load(const struct nbldpc_spec *spec, struct nbldpc_code **out, char *err,
                     size_t errlen);
void nbldpc_code_free(struct nbldpc_code *code);
/* The alist parser on text in memory (the tests' bad-file table); name is used in messages;
 * poly 0 is the default for the file's q. */
int nbldpc_alist_parse(const char *text, const char *name, enum nbldpc_form form, unsigned poly,
                       struct nbldpc_code **out, char *err, size_t errlen);
/* A generated (dv, dc)-regular code over GF(q), no 4-cycles. */
int nbldpc_regular_build(uint32_t n, unsigned dv, unsigned dc, unsigned q, unsigned poly,
                         uint32_t seed, struct nbldpc_code **out, char *err, size_t errlen);

/* The sparse encoder (nbldpc_encode.c): 0 with *out NULL when H's last m columns are not
 * independent; -FEC_ETIME past the build deadline. */
struct nbldpc_enc_plan;
int nbldpc__enc_plan_build(const struct nbldpc_code *code, struct nbldpc_enc_plan **out);
void nbldpc__enc_plan_encode(const struct nbldpc_code *code, const struct nbldpc_enc_plan *plan,
                             const uint8_t *info, uint8_t *codeword);
void nbldpc__enc_plan_free(struct nbldpc_enc_plan *plan);
/* The plan's steps, read-only, for an encoder elsewhere that must give its codewords (the GPU
 * simulator's, cuda/nbldpc/nbldpc_gpu_sim.cu): with the inactivated columns at 0, column
 * peel_col[i] is solved from check peel_row[i] for i = 0..npeel-1 in order; the inactivated
 * columns are then ainv (g x g, row-major) times the sums of the left-over checks left_row; the
 * peeling is done again with them. */
struct nbldpc_enc_plan_view {
	uint32_t npeel, g;
	const uint32_t *peel_row, *peel_col, *inact_col, *left_row;
	const uint8_t *ainv;
};
void nbldpc__enc_plan_view(const struct nbldpc_enc_plan *plan, struct nbldpc_enc_plan_view *v);

/* A generated rate-1/2 code over GF(q) of n symbols (even, >= 16) with the seed thesis's degree
 * profile for q and a zigzag parity part (nbldpc_gen.c says which and why), no 4-cycles. */
int nbldpc_irregular_build(uint32_t n, unsigned q, unsigned poly, uint32_t seed,
                           struct nbldpc_code **out, char *err, size_t errlen);
/* The largest column and row degrees of that profile for q (the thesis's table 4.4). */
void nbldpc_irregular_profile(unsigned q, unsigned *dv_max, unsigned *dc_max);
/* Builds the column view and the encoder of a code whose rows are filled (nbldpc_code.c). */
int nbldpc__code_finish(struct nbldpc_code *code, char *err, size_t errlen);

/* Systematic encoding: info (k symbols) -> codeword (n symbols). */
void nbldpc_encode(const struct nbldpc_code *code, const uint8_t *info, uint8_t *codeword);
/* Whether H c = 0 over GF(q). */
bool nbldpc_codeword_valid(const struct nbldpc_code *code, const uint8_t *c);

/* The binary image (nbldpc_image.c): the (m p) x (n p) binary parity-check matrix whose
 * codewords are the code's codewords as bits (bit_order inside each symbol), as the text of a
 * binary alist file that the ldpc family reads (code=FILE). *text is malloc'ed. */
int nbldpc_binary_image_alist(const struct nbldpc_code *code, enum nbldpc_bit_order order,
                              char **text, char *err, size_t errlen);
/* Whether the image's information bits are nbldpc's: the encoder's information symbols are
 * columns 0..k-1 (H's last m columns independent), so that the ldpc family, which prefers the
 * rightmost columns as parity, decodes the image to the same k p bits in the same order. */
bool nbldpc_binary_image_same_info(const struct nbldpc_code *code);
/* Loads the code spec names and writes its image's alist (spec->bit_order) to path. */
int nbldpc_binary_image_write(const struct nbldpc_spec *spec, const char *path, char *err,
                              size_t errlen);

/* q-ary input from a binary channel (nbldpc_symbols.c): nsym symbols of p bit LLRs each (in
 * order, positive favours 0) to q = 2^p normalised log-probabilities each, value 0 first. */
void nbldpc_llr_to_symlogp(const float *llr, size_t nsym, unsigned p, enum nbldpc_bit_order order,
                           float *out);
/* Which bit of a symbol's value (the coefficient of x^b) its j-th bit on the channel and in the
 * decoded bits is. */
unsigned nbldpc_symbol_bit(unsigned p, unsigned j, enum nbldpc_bit_order order);

/* The code behind an nbldpc decoder (the tests, later the GPU backend). */
struct fec_decoder;
const struct nbldpc_code *nbldpc_decoder_code(const struct fec_decoder *dec);

#endif
