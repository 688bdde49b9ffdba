/*
 * The ids lattice (ids_lattice.h) built at the build's baseline instruction set: the reference,
 * and what every CPU runs without AVX2.
 */
#include <stdbool.h>
#include <stddef.h>

#include "ids_lattice.h"

#define IDS_BODY_LANES 8
#define IDS_LATTICE_FN ids__lattice8_portable
#include "ids_lattice_body.h"
#undef IDS_BODY_LANES
#undef IDS_LATTICE_FN

#define IDS_BODY_LANES 16
#define IDS_LATTICE_FN ids__lattice16_portable
#include "ids_lattice_body.h"
