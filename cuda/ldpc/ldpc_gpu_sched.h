/*
 * Internal to cuda/ldpc/: the fast GPU LDPC kernel's own order of the layered walk
 * (ldpc_gpu_sched.c).
 */
#ifndef LDPC_GPU_SCHED_H
#define LDPC_GPU_SCHED_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Regroups the m rows of a layered walk (positions 0..m-1 with their columns at
 * sched_col[sched_start[p] .. sched_start[p+1]-1], n columns) into levels of at most cap rows
 * such that every column still sees its rows in the walk's order, so decoding gives the same
 * values bit for bit. order[i] (m entries) is the walk position of the i-th row of the new order;
 * level l holds new positions level_start[l] .. level_start[l+1]-1 (level_start has m + 1
 * entries); *nlevels gets the count. Returns 0 or -1 (out of memory). */
int lgpu_reschedule(const uint32_t *sched_start, const uint32_t *sched_col, uint32_t m, uint32_t n,
                    uint32_t cap, uint32_t *order, uint32_t *level_start, uint32_t *nlevels);

#ifdef __cplusplus
}
#endif

#endif
