/*
 * The fano fast path's stage table (fano_stage.h) built with AVX2: a stage of a rate-1/3 code is
 * one 256-bit vector of int16 sums. fano_fast.c calls it where the CPU has AVX2.
 */
#include "fano_stage.h"

FANO_STAGE_TABLE(fano_stage_table_avx2)
