/*
 * Layered min-sum on int8 for codes with a cyclic structure (ldpc.h's struct ldpc_cyclic: QC codes
 * and DVB-S2-form codes), one frame at a time: the lanes of a vector are w consecutive rows t of
 * one row group (w = 32 with AVX2, 64 with AVX-512 and VBMI), whose columns in a slot are w
 * consecutive positions (mod z) of the a-posteriori array. A frame's working set (int16
 * a-posteriori values, int8 messages) is about 360 KB for DVB-S2: it stays in L2 where the 32-frame
 * pass (ldpc_decode_avx2.c) streams megabytes through L3, and a frame costs the same alone as among
 * others, where the 32-frame pass costs as much for one frame as for 32. ldpc__decode says which
 * frames come here: all at AVX-512 (with VBMI), those left over from the groups at AVX2.
 *
 * This file holds the plan, the scratch, rows lacking a slot (scalar), and a frame's walk;
 * ldpc_cyc_avx2.c and ldpc_cyc_avx512.c the kernels of a chunk of rows.
 *
 * A layer holds runs of rows of some groups (ldpc.h); each group of it is walked in chunks of w
 * rows, lanes outside the layer's rows masked. The a-posteriori array holds block b (z positions)
 * at b * block_len + w, followed by a copy of its first w values, so that rows t0..t0+w-1 of a
 * slot are always one unaligned load; a store that touches either copy is made at the other too
 * (the w values before a block and after its copy take what spills over). block_len, z + 3 w
 * rounded up to 32 values (64 bytes), starts every block on a cache line, so that the slots at
 * a shift of 0 mod 32 (DVB-S2's parity slots and some more: 282 of its 630) load and store whole
 * lines rather than across two (4% of a frame's time on a Xeon). Messages sit per slot in rows
 * of zpad bytes, a chunk's w in the order packs_epi16 gives (lane_byte). Rows lacking one of
 * their group's slots (DVB-S2's row 0) are masked out and go through a scalar row. The
 * arithmetic is ldpc.h's: the results are the portable decoder's, bit for bit.
 *
 * A chunk whose only lanes outside the layer are padding (rows past z: a group's last chunk,
 * 40 rows of 64 for DVB-S2) is stored whole rather than through masks (plan_whole): a padding
 * lane's messages stay 0, so that it stores back the values it loaded (masked stores cost 4% of
 * a frame's time there).
 */
#include <stdlib.h>
#include <string.h>

#include "cpu_simd.h"
#include "ldpc_decoder.h"

#define ALIGN 64
/* In col_index: the value has a copy z further (its offset in the block is below w). */
#define COPIED (1u << 31)

static size_t align_up(size_t v)
{
	return (v + ALIGN - 1) / ALIGN * ALIGN;
}

/* Byte of row o of a chunk of w in a message vector: AVX2 keeps the order packs_epi16 gives
 * (rows 0..w/2-1 and w/2..w-1 interleaved by 8 within each 128-bit lane); AVX-512 (w = 64)
 * stores them in row order, which it widens in one step. */
static inline unsigned lane_byte(unsigned o, unsigned w)
{
	const unsigned half = w / 2, b = o < half ? o : o - half;

	return w == 64 ? o : 16 * (b / 8) + (o < half ? 0 : 8) + b % 8;
}

static inline size_t pos_index(const struct ldpc_cyclic *cy, const struct ldpc_cyc_plan *p,
                               uint32_t pos)
{
	return (size_t)(pos / cy->z) * p->block_len + p->w + pos % cy->z;
}

void ldpc__cyc_plan_free(struct ldpc_cyc_plan *p)
{
	if (!p)
		return;
	free(p->layer_task);
	free(p->task_group);
	free(p->task_mask);
	free(p->task_whole);
	free(p->layer_short);
	free(p->short_row);
	free(p->syn_mask);
	free(p->col_index);
	free(p->chunk_at);
	free(p->chunk_mirror);
	free(p->block_col);
	free(p->block_step);
	free(p->block_run);
	free(p);
}

/* Lane masks of the rows of group g in chunk k that are not short. */
static uint64_t syn_mask(const struct ldpc_cyclic *cy, const uint8_t *is_short, uint32_t w,
                         uint32_t g, uint32_t k)
{
	uint64_t mask = 0;

	for (uint32_t o = 0; o < w && k * w + o < cy->z; o++)
		if (!is_short[ldpc_cyclic_row(cy, g, k * w + o)])
			mask |= 1ull << o;
	return mask;
}

/* Tasks: per layer, each group it touches with its rows as lane masks; short rows apart. */
static int plan_tasks(struct ldpc_cyc_plan *p, const struct ldpc_code *c, const uint8_t *is_short)
{
	const struct ldpc_cyclic *cy = c->cyc;
	const uint32_t m = c->h.m, w = p->w;
	uint32_t *where = malloc((size_t)m * sizeof(uint32_t));
	uint32_t *task_of = calloc(cy->ngroups, sizeof(uint32_t)); /* task + 1, this layer */
	uint32_t *order = malloc(((size_t)cy->ngroups + 1) * sizeof(uint32_t));
	uint32_t ntask = 0, nshort = 0;
	int ret = -FEC_ENOMEM;

	if (!where || !task_of || !order)
		goto out_free;
	for (uint32_t g = 0; g < cy->ngroups; g++)
		for (uint32_t t = 0; t < cy->z; t++)
			where[ldpc_cyclic_row(cy, g, t)] = g * cy->z + t;
	for (uint32_t l = 0; l < c->nlayers; l++) {
		uint32_t ng = 0;

		p->layer_task[l] = ntask;
		p->layer_short[l] = nshort;
		for (uint32_t i = c->layer_start[l]; i < c->layer_start[l + 1]; i++) {
			const uint32_t r = c->layer_rows[i];
			const uint32_t g = where[r] / cy->z, t = where[r] % cy->z;

			if (is_short[r]) {
				p->short_row[nshort++] = r;
				continue;
			}
			if (!task_of[g]) {
				p->task_group[ntask] = g;
				task_of[g] = ++ntask;
				order[ng++] = g;
			}
			const size_t k = (size_t)(task_of[g] - 1) * p->nchunks + t / w;

			p->task_mask[k] |= 1ull << t % w;
		}
		for (uint32_t i = 0; i < ng; i++)
			task_of[order[i]] = 0;
	}
	p->layer_task[c->nlayers] = ntask;
	p->layer_short[c->nlayers] = nshort;
	ret = 0;
out_free:
	free(where);
	free(task_of);
	free(order);
	return ret;
}

/* Whether a padding lane (o >= rows) of chunk ch of a group (slots from s0, deg of them) touches a
 * position of a block that a lane below rows touches through another slot: its store of the
 * value it loaded would undo that lane's. */
static bool pad_conflict(const struct ldpc_cyclic *cy, uint32_t w, uint32_t s0, uint32_t deg,
                         uint32_t ch, uint32_t rows)
{
	for (uint32_t i = 0; i < deg; i++)
		for (uint32_t j = 0; j < deg; j++) {
			if (j == i || cy->slot_block[s0 + i] != cy->slot_block[s0 + j])
				continue;
			for (uint32_t o = rows; o < w; o++) {
				const uint32_t pos = (cy->slot_shift[s0 + i] + ch * w + o) % cy->z;

				for (uint32_t o2 = 0; o2 < rows; o2++)
					if ((cy->slot_shift[s0 + j] + ch * w + o2) % cy->z == pos)
						return true;
			}
		}
	return false;
}

/* Chunks stored whole: those whose lanes outside the layer are all padding (rows past z), with
 * no pad_conflict. */
static void plan_whole(struct ldpc_cyc_plan *p, const struct ldpc_cyclic *cy)
{
	const uint32_t w = p->w;
	const uint64_t all = w == 64 ? UINT64_MAX : UINT32_MAX;

	for (uint32_t k = 0; k < p->layer_task[p->nlayers]; k++) {
		const uint32_t g = p->task_group[k], s0 = cy->slot_start[g];
		const uint32_t deg = cy->slot_start[g + 1] - s0;

		for (uint32_t ch = 0; ch < p->nchunks; ch++) {
			const uint64_t mask = p->task_mask[(size_t)k * p->nchunks + ch];
			const uint32_t rows = cy->z - ch * w < w ? cy->z - ch * w : w;
			const uint64_t pad = all & ~((rows == 64 ? 0 : 1ull << rows) - 1);

			p->task_whole[(size_t)k * p->nchunks + ch] =
			    mask && mask != all && (mask | pad) == all &&
			    !pad_conflict(cy, w, s0, deg, ch, rows);
		}
	}
}

/* Each block's columns as an increasing progression: position j of block b is column
 * block_col[b] + j block_step[b] (QC codes: step 1; DVB-S2's parity blocks: step q). False when
 * one is not. */
static bool plan_blocks(struct ldpc_cyc_plan *p, const struct ldpc_code *c)
{
	const struct ldpc_cyclic *cy = c->cyc;
	uint32_t *col_at = malloc((size_t)c->h.n * sizeof(uint32_t));
	bool ok = col_at != NULL;

	for (uint32_t v = 0; ok && v < c->h.n; v++)
		col_at[cy->col_pos[v]] = v;
	for (uint32_t bk = 0; ok && bk < c->h.n / cy->z; bk++) {
		const uint32_t *v = col_at + (size_t)bk * cy->z;

		p->block_col[bk] = v[0];
		p->block_step[bk] = v[1] - v[0];
		ok = v[1] > v[0]; /* increasing: block_col is the smallest */
		for (uint32_t j = 1; ok && j < cy->z; j++)
			ok = v[j] - v[j - 1] == p->block_step[bk];
	}
	for (uint32_t bk = 0; ok && bk < c->h.n / cy->z; bk++) {
		const uint32_t step = p->block_step[bk];
		uint32_t j = 1;

		/* DVB-S2's parity blocks: q blocks of step q, block j starting at column v0 + j,
		 * whose columns are q consecutive input values per position */
		while (step > 1 && j < step && bk + j < c->h.n / cy->z &&
		       p->block_step[bk + j] == step &&
		       p->block_col[bk + j] == p->block_col[bk] + j)
			j++;
		if (step > 1 && j == step) {
			p->block_run[bk] = step;
			bk += step - 1;
		}
	}
	free(col_at);
	return ok;
}

/* Whether the output bits, column j for bit j, are whole blocks of step 1, each starting on a
 * byte: hard decisions straight from the a-posteriori array. */
static bool emit_blocks(const struct ldpc_decoder *d, const struct ldpc_cyc_plan *p)
{
	const struct ldpc_cyclic *cy = d->code->cyc;
	uint32_t bits = 0;

	if (d->out_cols || cy->z % 8)
		return false;
	for (uint32_t bk = 0; bk < d->code->h.n / cy->z; bk++) {
		if (p->block_col[bk] >= d->out_n)
			continue;
		if (p->block_step[bk] != 1 || p->block_col[bk] % 8 ||
		    p->block_col[bk] + cy->z > d->out_n)
			return false;
		bits += cy->z;
	}
	return bits == d->out_n;
}

/* Where each slot's values for each chunk of each group start in the a-posteriori array, and
 * whether that store touches a block's first w values (mirror +z) or their copy (mirror -z):
 * group g's entries from slot_start[g] * nchunks on, chunk by chunk, slot by slot. */
static void plan_chunks(struct ldpc_cyc_plan *p, const struct ldpc_cyclic *cy)
{
	for (uint32_t g = 0; g < cy->ngroups; g++) {
		const uint32_t s0 = cy->slot_start[g], deg = cy->slot_start[g + 1] - s0;

		for (uint32_t ch = 0; ch < p->nchunks; ch++)
			for (uint32_t i = 0; i < deg; i++) {
				const uint32_t off = (cy->slot_shift[s0 + i] + ch * p->w) % cy->z;
				const uint32_t rows =
				    cy->z - ch * p->w < p->w ? cy->z - ch * p->w : p->w;
				const size_t k = (size_t)s0 * p->nchunks + ch * deg + i;

				p->chunk_at[k] =
				    (int32_t)pos_index(cy, p, cy->slot_block[s0 + i] * cy->z + off);
				/* past the copy's end only in the padding rows: no mirror */
				p->chunk_mirror[k] = (int16_t)(off < p->w           ? (int)cy->z
				                               : off + rows > cy->z ? -(int)cy->z
				                                                    : 0);
			}
	}
}

int ldpc__cyc_plan_build(struct ldpc_decoder *d)
{
	const struct ldpc_code *c = d->code;
	const struct ldpc_cyclic *cy = c->cyc;
	const unsigned level = fec_simd_level();
	/* AVX-512 where it has VBMI too (ldpc_cyc_avx512.c), else AVX2 */
	const uint32_t w =
	    level >= FEC_SIMD_AVX512 && __builtin_cpu_supports("avx512vbmi") ? 64 : 32;
	struct ldpc_cyc_plan *p;
	uint8_t *is_short;
	int ret = -FEC_ENOMEM;

	if (!cy || cy->z < 2 * w || c->h.n % cy->z || !d->int8 || level < FEC_SIMD_AVX2 ||
	    d->base.spec.u.ldpc.schedule != LDPC_SCHED_LAYERED)
		return 0;
	p = calloc(1, sizeof(*p));
	is_short = calloc(c->h.m, 1);
	if (!p || !is_short)
		goto out_free;
	p->w = w;
	for (unsigned m = 0; m < sizeof(p->norm); m++)
		p->norm[m] = (uint8_t)ldpc__norm8(d, (int)m);
	p->level = w == 64 ? FEC_SIMD_AVX512 : FEC_SIMD_AVX2;
	p->nchunks = (cy->z + w - 1) / w;
	p->zpad = p->nchunks * w;
	p->block_len = (cy->z + 3 * w + 31) / 32 * 32;
	p->nlayers = c->nlayers;
	for (uint32_t g = 0; g < cy->ngroups; g++)
		if (cy->slot_start[g + 1] - cy->slot_start[g] > p->max_slots)
			p->max_slots = cy->slot_start[g + 1] - cy->slot_start[g];
	p->layer_task = malloc(((size_t)c->nlayers + 1) * sizeof(uint32_t));
	p->task_group = malloc((size_t)c->h.m * sizeof(uint32_t));
	p->task_mask = calloc((size_t)c->h.m * p->nchunks, sizeof(uint64_t));
	p->task_whole = calloc((size_t)c->h.m * p->nchunks, 1);
	p->layer_short = malloc(((size_t)c->nlayers + 1) * sizeof(uint32_t));
	p->short_row = malloc(((size_t)cy->nshort + 1) * sizeof(uint32_t));
	p->syn_mask = malloc((size_t)cy->ngroups * p->nchunks * sizeof(uint64_t));
	p->col_index = malloc((size_t)c->h.n * sizeof(uint32_t));
	p->chunk_at = malloc((size_t)cy->slot_start[cy->ngroups] * p->nchunks * sizeof(int32_t));
	p->chunk_mirror =
	    malloc((size_t)cy->slot_start[cy->ngroups] * p->nchunks * sizeof(int16_t));
	p->block_col = malloc((size_t)(c->h.n / cy->z) * sizeof(uint32_t));
	p->block_step = malloc((size_t)(c->h.n / cy->z) * sizeof(uint32_t));
	p->block_run = calloc(c->h.n / cy->z, sizeof(uint32_t));
	if (!p->chunk_at || !p->chunk_mirror || !p->block_col || !p->block_step || !p->block_run ||
	    !p->layer_task || !p->task_group || !p->task_mask || !p->task_whole ||
	    !p->layer_short || !p->short_row || !p->syn_mask || !p->col_index)
		goto out_free;
	for (uint32_t i = 0; i < cy->nshort; i++)
		is_short[cy->short_rows[i]] = 1;
	for (uint32_t g = 0; g < cy->ngroups; g++)
		for (uint32_t k = 0; k < p->nchunks; k++)
			p->syn_mask[g * p->nchunks + k] = syn_mask(cy, is_short, w, g, k);
	for (uint32_t v = 0; v < c->h.n; v++)
		p->col_index[v] = (uint32_t)pos_index(cy, p, cy->col_pos[v]) |
		                  (cy->col_pos[v] % cy->z < w ? COPIED : 0);
	if (!plan_blocks(p, c)) {
		ret = 0; /* columns of a block not in step: the pass does not apply */
		goto out_free;
	}
	plan_chunks(p, cy);
	p->emit_blocks = emit_blocks(d, p);
	ret = plan_tasks(p, c, is_short);
	if (ret)
		goto out_free;
	plan_whole(p, cy);
	d->cyc = p;
	p = NULL;
out_free:
	ldpc__cyc_plan_free(p);
	free(is_short);
	return ret;
}

/* a-posteriori values (blocks of block_len), messages (zpad per slot), the output values in column
 * order and a chunk's incoming values (three vectors a slot). */
size_t ldpc__cyc_scratch(const struct ldpc_decoder *d)
{
	const struct ldpc_cyclic *cy = d->code->cyc;
	const struct ldpc_cyc_plan *p = d->cyc;

	return ALIGN + align_up((size_t)d->code->h.n / cy->z * p->block_len * 2) +
	       align_up((size_t)cy->slot_start[cy->ngroups] * p->zpad) +
	       align_up((size_t)d->code->h.n * 2) + align_up((size_t)p->max_slots * 3 * p->w);
}

/* A row lacking slots, scalar: each edge's message sits in the slot its column takes. */
static void short_row(const struct ldpc_decoder *d, int16_t *app, uint8_t *c2v, uint32_t r)
{
	const struct ldpc_cyclic *cy = d->code->cyc;
	const struct ldpc_matrix *h = &d->code->h;
	const uint32_t w = d->cyc->w, zpad = d->cyc->zpad;
	/* one of the two steps is 1 (QC: row g z + t; DVB-S2: row g + q t) */
	const uint32_t g = cy->row_tstep == 1 ? r / cy->row_gstep : r % cy->row_tstep;
	const uint32_t t = cy->row_tstep == 1 ? r % cy->row_gstep : r / cy->row_tstep;
	int8_t x[LDPC_DEG_MAX] = {0}, out[LDPC_DEG_MAX], *msg[LDPC_DEG_MAX];
	int16_t xe[LDPC_DEG_MAX];
	uint32_t at[LDPC_DEG_MAX], deg = 0;

	for (uint32_t e = h->row_start[r]; e < h->row_start[r + 1]; e++, deg++) {
		const uint32_t pos = cy->col_pos[h->row_col[e]];
		uint32_t s = cy->slot_start[g];

		while (ldpc_cyclic_pos(cy, s, t) != pos)
			s++;
		msg[deg] = (int8_t *)c2v + (size_t)s * zpad + t / w * w + lane_byte(t % w, w);
		at[deg] = d->cyc->col_index[h->row_col[e]];
		xe[deg] = (int16_t)(app[at[deg] & ~COPIED] - *msg[deg]);
		x[deg] = (int8_t)(xe[deg] > 127 ? 127 : xe[deg] < -127 ? -127 : xe[deg]);
	}
	ldpc__check_ms8(d, x, out, deg);
	for (uint32_t i = 0; i < deg; i++) {
		*msg[i] = out[i];
		app[at[i] & ~COPIED] = (int16_t)(xe[i] + out[i]);
		if (at[i] & COPIED)
			app[(at[i] & ~COPIED) + cy->z] = (int16_t)(xe[i] + out[i]);
	}
}

/* Parity of the short rows' hard decisions: whether all are even. */
static bool short_syndrome(const struct ldpc_decoder *d, const int16_t *app)
{
	const struct ldpc_cyclic *cy = d->code->cyc;
	const struct ldpc_matrix *h = &d->code->h;

	for (uint32_t i = 0; i < cy->nshort; i++) {
		const uint32_t r = cy->short_rows[i];
		unsigned par = 0;

		for (uint32_t e = h->row_start[r]; e < h->row_start[r + 1]; e++)
			par ^= app[d->cyc->col_index[h->row_col[e]] & ~COPIED] < 0;
		if (par)
			return false;
	}
	return true;
}

/* A channel value as the decoders take it: -128 is -127 (ldpc.h). */
static inline int16_t channel_value(int8_t x)
{
	return (int16_t)(x < -127 ? -127 : x);
}

/* A run of blocks (DVB-S2's parity part: position j of its block i is input value run j + i)
 * from the input, 16 by 16 values transposed in registers where it has 16 blocks (block by
 * block, with a stride of run and one value at a time, it took 10% of a frame's time on a
 * Xeon), and each block's first w values into their copy. */
static void load_run(const struct ldpc_decoder *d, const int8_t *src, int16_t *dst, uint32_t run)
{
	const struct ldpc_cyclic *cy = d->code->cyc;
	const struct ldpc_cyc_plan *p = d->cyc;

	if (run >= 16 && cy->z >= 16)
		ldpc__cyc_load_run_avx2(src, dst, run, cy->z, p->block_len);
	else
		for (uint32_t j = 0; j < cy->z; j++, src += run)
			for (uint32_t i = 0; i < run; i++)
				dst[i * p->block_len + j] = channel_value(src[i]);
	for (uint32_t i = 0; i < run; i++, dst += p->block_len)
		memcpy(dst + cy->z, dst, p->w * sizeof(int16_t));
}

/* The channel values into the a-posteriori array, block by block (punctured columns 0), and
 * each block's first w values into their copy. */
static void load_app(const struct ldpc_decoder *d, const int8_t *in, int16_t *app)
{
	const struct ldpc_cyclic *cy = d->code->cyc;
	const struct ldpc_cyc_plan *p = d->cyc;
	const uint32_t punct = d->code->punct, nblocks = d->code->h.n / cy->z;

	for (uint32_t bk = 0; bk < nblocks; bk++) {
		int16_t *dst = app + pos_index(cy, p, bk * cy->z);
		const uint32_t v0 = p->block_col[bk], step = p->block_step[bk];
		const int8_t *src = v0 >= punct ? in + (v0 - punct) : NULL;
		const uint32_t run = src ? p->block_run[bk] : 0;

		if (run) {
			load_run(d, src, dst, run);
			bk += run - 1;
			continue;
		}
		if (step == 1 && src && cy->z >= 16) {
			ldpc__cyc_load_avx2(src, dst, cy->z);
		} else if (step == 1 && src) {
			for (uint32_t j = 0; j < cy->z; j++)
				dst[j] = channel_value(src[j]);
		} else if (src) {
			for (uint32_t j = 0; j < cy->z; j++, src += step)
				dst[j] = channel_value(*src);
		} else {
			/* a block that starts among the punctured columns */
			for (uint32_t j = 0, v = v0; j < cy->z; j++, v += step)
				dst[j] = v < punct ? 0 : channel_value(in[v - punct]);
		}
		memcpy(dst + cy->z, dst, p->w * sizeof(int16_t));
	}
}

/* One iteration: layer by layer, each task's chunks that hold rows of the layer, then its short
 * rows. */
static void iterate(const struct ldpc_decoder *d, struct ldpc_cyc_work *wk)
{
	const struct ldpc_cyclic *cy = d->code->cyc;
	const struct ldpc_cyc_plan *p = d->cyc;

	for (uint32_t l = 0; l < p->nlayers; l++) {
		for (uint32_t k = p->layer_task[l]; k < p->layer_task[l + 1]; k++) {
			const uint32_t g = p->task_group[k], s0 = cy->slot_start[g];
			const uint32_t deg = cy->slot_start[g + 1] - s0;
			const uint64_t *mask = p->task_mask + (size_t)k * p->nchunks;
			const uint8_t *whole = p->task_whole + (size_t)k * p->nchunks;
			const int32_t *at = p->chunk_at + (size_t)s0 * p->nchunks;
			const int16_t *mir = p->chunk_mirror + (size_t)s0 * p->nchunks;
			uint8_t *c = wk->c2v + (size_t)s0 * p->zpad;

			for (uint32_t ch = 0; ch < p->nchunks; ch++, at += deg, mir += deg) {
				if (!mask[ch])
					continue;
				if (p->w == 64)
					ldpc__cyc_chunk_avx512(d, wk, at, mir, deg, mask[ch],
					                       whole[ch], c + ch * p->w);
				else
					ldpc__cyc_chunk_avx2(d, wk, at, mir, deg, mask[ch],
					                     whole[ch], c + ch * p->w);
			}
		}
		for (uint32_t i = p->layer_short[l]; i < p->layer_short[l + 1]; i++)
			short_row(d, wk->app, wk->c2v, p->short_row[i]);
	}
}

/* Whether every row's hard decisions (value < 0) have even parity. */
static bool syndrome_zero(const struct ldpc_decoder *d, const int16_t *app)
{
	const struct ldpc_cyclic *cy = d->code->cyc;
	const struct ldpc_cyc_plan *p = d->cyc;

	for (uint32_t g = 0; g < cy->ngroups; g++) {
		const uint32_t s0 = cy->slot_start[g], deg = cy->slot_start[g + 1] - s0;
		const int32_t *at = p->chunk_at + (size_t)s0 * p->nchunks;

		for (uint32_t ch = 0; ch < p->nchunks; ch++, at += deg) {
			const uint64_t mask = p->syn_mask[g * p->nchunks + ch];

			if (p->w == 64 ? ldpc__cyc_parity_avx512(app, at, deg, mask)
			               : ldpc__cyc_parity_avx2(app, at, deg, mask))
				return false;
		}
	}
	return short_syndrome(d, app);
}

void ldpc__decode_frame_cyc(const struct ldpc_decoder *d, void *scratch, struct fec_batch *b,
                            uint32_t i)
{
	const struct ldpc_spec *ls = &d->base.spec.u.ldpc;
	const struct ldpc_code *code = d->code;
	const struct ldpc_cyclic *cy = code->cyc;
	const struct ldpc_cyc_plan *p = d->cyc;
	const int8_t *in = b->in + (size_t)i * b->in_stride;
	const size_t app_len = (size_t)code->h.n / cy->z * p->block_len;
	struct fec_job *job = &b->jobs[i];
	uintptr_t at = ((uintptr_t)scratch + ALIGN - 1) / ALIGN * ALIGN;
	struct ldpc_cyc_work wk;
	int16_t *val;
	unsigned it = 0;
	bool ok = false;

	wk.app = (int16_t *)at;
	at += align_up(app_len * 2);
	/* no memset of the a-posteriori array: load_app writes every position and copy, and the
	 * margins between blocks take stores (mirror) but are never read */
	wk.c2v = (uint8_t *)at;
	at += align_up((size_t)cy->slot_start[cy->ngroups] * p->zpad);
	val = (int16_t *)at;
	at += align_up((size_t)code->h.n * 2);
	wk.xbuf = (void *)at;

	load_app(d, in, wk.app);
	memset(wk.c2v, 0, (size_t)cy->slot_start[cy->ngroups] * p->zpad);
	while (it < ls->max_iters) {
		iterate(d, &wk);
		it++;
		if (ls->early_stop || it == ls->max_iters) {
			ok = syndrome_zero(d, wk.app);
			if (ok && ls->early_stop)
				break;
		}
	}
	job->work = it;
	job->status = ok ? FECD_STATUS_DECODED : FECD_STATUS_NOT_CONVERGED;
	if (p->emit_blocks && !b->soft) {
		/* 2-3% of a frame's time through val and ldpc__emit_i16 (Xeon) */
		for (uint32_t bk = 0; bk < code->h.n / cy->z; bk++)
			if (p->block_col[bk] < d->out_n)
				ldpc__cyc_emit_avx2(wk.app + pos_index(cy, p, bk * cy->z), cy->z,
				                    b->out + (size_t)i * b->out_stride +
				                        p->block_col[bk] / 8);
		job->out_bits = d->out_n;
		job->soft_count = 0;
		return;
	}
	for (uint32_t bk = 0; bk < code->h.n / cy->z; bk++) {
		const int16_t *src = wk.app + pos_index(cy, p, bk * cy->z);
		int16_t *dst = val + p->block_col[bk];

		if (!d->out_cols && p->block_col[bk] >= d->out_n)
			continue; /* its columns (increasing) hold no output bit */
		if (p->block_step[bk] == 1)
			memcpy(dst, src, cy->z * sizeof(int16_t));
		else
			for (uint32_t j = 0; j < cy->z; j++)
				dst[(size_t)j * p->block_step[bk]] = src[j];
	}
	ldpc__emit_i16(d, val, 1, b->out + (size_t)i * b->out_stride,
	               b->soft ? b->soft + (size_t)i * b->soft_stride : NULL, job);
}
