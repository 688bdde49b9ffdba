/*
 * "pair", a family only the tests build (fec__family_add_for_test): the parameter layer of a
 * composite code, whose parameters name other families' codes, until a real composite family
 * exists. inner is a viterbi code (a CODE parameter limited to one family), outer a code of any
 * family, iters an integer. Its spec_finish parses both children as a composite family's must
 * (fec_param_code_parse), keeping their canonical text; it builds no decoder or encoder
 * (-FEC_ENOTSUP).
 */
#ifndef PAIR_FAMILY_H
#define PAIR_FAMILY_H

#include "fec.h"

#define PAIR_FAMILY_ID 200 /* no wire family has it */
#define PAIR_TEXT_MAX  149 /* longest child text; both fit in struct fec_spec's union */

/* What a pair spec holds, kept in the bytes of struct fec_spec's union. */
struct pair_spec {
	char inner[PAIR_TEXT_MAX + 1];
	char outer[PAIR_TEXT_MAX + 1];
	int iters;
};

/* Adds "pair" to the family table. */
void pair_family_register(void);
/* A copy of spec's pair part. */
struct pair_spec pair_spec_of(const struct fec_spec *spec);

#endif
