/*
 * The ids lattice (ids_lattice.h) built for AVX2 (this file alone gets -mavx2; ids_map.c calls
 * it only where cpu_simd.c says the CPU has it). The same operations as the portable build, no
 * FMA: the same gammas bit for bit, eight symbols per instruction.
 */
#include <stdbool.h>
#include <stddef.h>

#include "ids_lattice.h"

#define IDS_BODY_LANES 8
#define IDS_LATTICE_FN ids__lattice8_avx2
#include "ids_lattice_body.h"
#undef IDS_BODY_LANES
#undef IDS_LATTICE_FN

#define IDS_BODY_LANES 16
#define IDS_LATTICE_FN ids__lattice16_avx2
#include "ids_lattice_body.h"
