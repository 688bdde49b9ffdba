/*
 * Internal to the ids family: what ids.c (the parameters) and ids_coder.c (the fec decoder and
 * encoder, the concatenation with an outer nbldpc code) share.
 */
#ifndef IDS_CODER_H
#define IDS_CODER_H

#include "fec_impl.h"
#include "ids_map.h"

int ids__spec_finish(struct fec_spec *spec, char *err, size_t errlen);
bool ids__has_outer(const struct ids_spec *s);
unsigned ids__log2(uint32_t q);
/* The TVB code a (finished) spec names. */
int ids__code_build(const struct ids_spec *s, struct ids_code **out, char *err, size_t errlen);
/* The outer code's spec as the concatenation decodes it (f32v in, symbol posteriors out: of the
 * information symbols for iters 0, of every code symbol, soft=code, for passes back). */
int ids__outer_spec(const struct ids_spec *s, struct fec_spec *child, char *canon, size_t canonlen,
                    char *err, size_t errlen);
/* The MAP decoder's parameters a (finished) spec gives (the GPU decoder builds its map from them).
 */
void ids__map_params(const struct fec_spec *spec, struct ids_map_params *par);
int ids__decoder_create(const struct fec_spec *spec, struct fec_decoder **out);
int ids__encoder_create(const struct fec_spec *spec, struct fec_encoder **out);

#endif
