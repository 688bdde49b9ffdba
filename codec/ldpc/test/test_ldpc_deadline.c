/*
 * The codec's build deadline (fec_build_deadline_set, -FEC_ETIME): building a generated LDPC code
 * stops soon after its thread's deadline, whichever step it is in (generation, the encoder's
 * elimination), in spec_finish, decoder and encoder creation alike; a deadline is the calling
 * thread's own; and without a deadline, or with one far off, the very same code comes out.
 * Promptness is checked loosely (a shared CI machine), the step each build stopped in is printed.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "fec.h"
#include "ldpc.h"

#define LATE_MAX_MS 2000 /* how far past its deadline a build may still be running */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The code's matrix and information columns, built under the deadline set now. */
static struct ldpc_code *load(const char *text)
{
	struct fec_spec spec;
	struct ldpc_code *code = NULL;
	char err[256] = "";
	int ret;

	/* The spec names the code; spec_finish may have built it, load builds it again. */
	ret = fec_spec_from_string(text, &spec, err, sizeof(err));
	CHECK(ret == 0, "%s: %s", text, err);
	if (ret == 0) {
		ret = ldpc_code_load(&spec.u.ldpc, &code, err, sizeof(err));
		CHECK(ret == 0, "%s: load: %s", text, err);
	}
	return code;
}

static bool same_code(const struct ldpc_code *a, const struct ldpc_code *b)
{
	return a->h.n == b->h.n && a->h.m == b->h.m && a->h.nnz == b->h.nnz && a->k == b->k &&
	       !memcmp(a->h.row_start, b->h.row_start, (a->h.m + 1) * sizeof(uint32_t)) &&
	       !memcmp(a->h.row_col, b->h.row_col, a->h.nnz * sizeof(uint32_t)) &&
	       !memcmp(a->info_cols, b->info_cols, a->k * sizeof(uint32_t));
}

/* No deadline and a deadline an hour away give the same code. */
static void test_unchanged(const char *text)
{
	struct ldpc_code *a, *b;

	fec_build_deadline_set(0);
	a = load(text);
	fec_build_deadline_set(mono_ns() + 3600ull * 1000000000ull);
	b = load(text);
	fec_build_deadline_set(0);
	CHECK(a && b && same_code(a, b), "%s: a far deadline changed the code", text);
	ldpc_code_free(a);
	ldpc_code_free(b);
}

/* A build given ms milliseconds stops with -FEC_ETIME, at most LATE_MAX_MS after its deadline. */
static void test_stops(const char *text, unsigned ms)
{
	struct fec_spec spec;
	char err[256] = "";
	uint64_t start = mono_ns(), deadline = start + (uint64_t)ms * 1000000u;
	int ret;
	double late_ms;

	fec_build_deadline_set(deadline);
	ret = fec_spec_from_string(text, &spec, err, sizeof(err));
	late_ms = ((double)mono_ns() - (double)deadline) / 1e6;
	fec_build_deadline_set(0);
	printf("%s with %u ms: %d after %.0f ms (%+.0f ms past the deadline): %s\n", text, ms, ret,
	       (double)(mono_ns() - start) / 1e6, late_ms, err);
	CHECK(ret == -FEC_ETIME, "%s: expected -FEC_ETIME, got %d (%s)", text, ret, err);
	CHECK(late_ms >= 0 && late_ms <= LATE_MAX_MS, "%s: stopped %.0f ms past its deadline", text,
	      late_ms);
}

/* Decoder and encoder creation build the code again: a passed deadline stops them, none lets
 * them through. */
static void test_coders(void)
{
	const char *text = "ldpc,code=regular,n=2048,seed=9";
	struct fec_decoder *dec = NULL;
	struct fec_encoder *enc = NULL;
	struct fec_spec spec;
	char err[256] = "";
	int ret;

	fec_build_deadline_set(0);
	ret = fec_spec_from_string(text, &spec, err, sizeof(err));
	CHECK(ret == 0, "%s: %s", text, err);
	fec_build_deadline_set(1); /* long passed */
	CHECK(fec_decoder_create(&spec, &dec) == -FEC_ETIME, "decoder past its deadline");
	CHECK(fec_encoder_create(&spec, &enc) == -FEC_ETIME, "encoder past its deadline");
	fec_build_deadline_set(0);
	CHECK(fec_decoder_create(&spec, &dec) == 0 && dec, "decoder without a deadline");
	CHECK(fec_encoder_create(&spec, &enc) == 0 && enc, "encoder without a deadline");
	fec_decoder_destroy(dec);
	fec_encoder_destroy(enc);
}

static void *other_thread(void *arg)
{
	*(uint64_t *)arg = fec_build_deadline();
	return NULL;
}

/* A deadline belongs to the thread that set it. */
static void test_per_thread(void)
{
	uint64_t seen = 12345;
	pthread_t t;

	fec_build_deadline_set(1);
	CHECK(fec_build_deadline() == 1, "this thread's deadline");
	CHECK(pthread_create(&t, NULL, other_thread, &seen) == 0, "pthread_create");
	pthread_join(t, NULL);
	CHECK(seen == 0, "another thread sees this thread's deadline: %llu",
	      (unsigned long long)seen);
	fec_build_deadline_set(0);
}

int main(void)
{
	test_unchanged("ldpc,code=regular,n=8192,seed=3");
	test_unchanged("ldpc,code=peg,n=1200,seed=3");
	test_coders();
	test_per_thread();
	/* Already passed: the first check stops it. */
	test_stops("ldpc,code=regular,n=8192,seed=4", 0);
	/* Minutes (regular, n = 2^20) and over ten minutes (PEG, n = 10^5) of work, stopped in
	 * generation. */
	test_stops("ldpc,code=regular,n=1048576,seed=5", 300);
	test_stops("ldpc,code=peg,n=100000,seed=5", 300);
	/* Generation takes a fraction of this one: the deadline falls in the encoder's derivation
	 * (the elimination) on most machines. */
	test_stops("ldpc,code=regular,n=262144,seed=6", 1000);
	return check_done();
}
