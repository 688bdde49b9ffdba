/*
 * What the one-core CPU timers (bench_fano_cpu, bench_cpu_ldpc, bench_ids) share: clocks, the
 * core's clock rate, and sorting rounds for the best and the median; the clocks also for the
 * other programs that time something (bench_viterbi, bench_ldpc, bench_gpu_ldpc,
 * bench_gpu_nbldpc, test_ldpc_files).
 */
#ifndef CPU_TIMER_H
#define CPU_TIMER_H

#include <time.h>

/* Seconds on clock id (CLOCK_MONOTONIC: wall time; CLOCK_THREAD_CPUTIME_ID: this thread's CPU
 * time, which time the shared machine gives other processes does not count). */
double cpu_timer_secs(clockid_t id);
/* The core's clock in GHz measured on clock id (x86: 3-cycle dependent imul, 10^7 of them); 0
 * elsewhere. */
double cpu_timer_core_ghz(clockid_t id);
/* qsort's comparison for doubles, ascending. */
int cpu_timer_cmp(const void *a, const void *b);

#endif
