/*
 * fecd-bench's sections as tables: fecd-bench runs from them (bench.c) and check_bench_json
 * checks its report against them, so that a family's section is one line here and one file
 * beside bench.c (bench_<family>.c; the main data set's are the viterbi family's: bench_cpu.c,
 * bench_gpu.c, bench_anchor.c, bench_sweep.c; fecd's own, e2e, is bench_e2e.c).
 *
 * BENCH_SECTION_MAP: what runs, in this order. X(name, family, function, flags): --only takes
 * the names, --family the family (NULL: fecd as a whole, which no --family selects); the
 * function (bench_section_fn, bench.h) fills the section's report entries (BENCH_REPORT_MAP), or
 * marks them skipped with the reason. Flags: BENCH_MAIN_DATA, it measures the main data set (a
 * CCSDS stream: bench_data_build), which is then built at full size; BENCH_DAEMON, it starts
 * fecd, which opens the GPU itself, so fecd-bench's own GPU context is closed before it (and the
 * sections after it see none).
 *
 * BENCH_REPORT_MAP: the report's entries, the JSON's "sections" array. X(section, json name,
 * title, ci): ci is BENCH_CI_RUNS when the CI run (--short, no GPU, maybe no codes folder) must
 * run it, 0 when it may say why it skipped.
 *
 * BENCH_CHECK_MAP: what check_bench_json asks of an entry that ran. X(json name, column, yes
 * column, rows): every row has column > 0 and, if given, the yes column reading "yes" (its
 * output was verified); at least that many rows.
 */
#ifndef FECD_BENCH_SECTIONS_H
#define FECD_BENCH_SECTIONS_H

#define BENCH_MAIN_DATA 0x1u
#define BENCH_DAEMON    0x2u

#define BENCH_SECTION_MAP(X)                                                                       \
	X(cpu, "viterbi", bench_cpu, BENCH_MAIN_DATA)                                              \
	X(gpu, "viterbi", bench_gpu_sections, BENCH_MAIN_DATA)                                     \
	X(anchors, "viterbi", bench_anchors, BENCH_MAIN_DATA)                                      \
	X(sweeps, "viterbi", bench_sweeps, BENCH_MAIN_DATA)                                        \
	X(ldpc, "ldpc", bench_ldpc, 0)                                                             \
	X(fano, "fano", bench_fano, 0)                                                             \
	X(fano_walkers, "fano", bench_fano_walkers, 0)                                             \
	X(nbldpc, "nbldpc", bench_nbldpc, 0)                                                       \
	X(nbldpc_seed, "nbldpc", bench_nbldpc_seed, 0)                                             \
	X(sim, NULL, bench_sim, 0)                                                                 \
	X(ids, "ids", bench_ids, 0)                                                                \
	X(e2e, NULL, bench_e2e, BENCH_MAIN_DATA | BENCH_DAEMON)

#define BENCH_CI_RUNS 1

#define BENCH_REPORT_MAP(X)                                                                        \
	X(cpu, "cpu", "CPU backend (fec_decode on threads)", BENCH_CI_RUNS)                        \
	X(gpu, "gpu_kernel", "GPU kernel only (no host copies)", 0)                                \
	X(gpu, "gpu_transfer", "GPU with host transfers (pinned)", 0)                              \
	X(anchors, "anchors", "Anchors on the same data (one core each)", 0)                       \
	X(sweeps, "sweep_k", "Throughput vs K (r=1/2, stream)", 0)                                 \
	X(sweeps, "sweep_batch", "Throughput vs batch size (main code)", 0)                        \
	X(ldpc, "ldpc",                                                                            \
	  "LDPC DVB-S2 64800 r1/2, layered nms, 10 iterations, int8 (information bits)", 0)        \
	X(ldpc, "ldpc_rates",                                                                      \
	  "LDPC DVB-S2 64800 by rate, layered nms, 10 iterations, int8 (information bits)", 0)     \
	X(ldpc, "ldpc_seed",                                                                       \
	  "LDPC: the seed's table 4.3, GPU/CPU(1 core) speedup, spa flooding, Eb/N0 -1 dB", 0)     \
	X(fano, "fano", "Fano: whd-k7 and nasa-k32, 1024-bit frames (information bits)", 0)        \
	X(fano, "fano_snr",                                                                        \
	  "Fano: cycles per bit and frame errors against Eb/N0, 1024-bit frames", 0)               \
	X(fano_walkers, "fano_walkers",                                                            \
	  "Fano: the GPU kernels' walker builds side by side (FECD_FANO_GPU_KERNEL)", 0)           \
	X(nbldpc, "nbldpc",                                                                        \
	  "nbldpc: FFT-BP, min-max, tms and the binary image, 10 iterations, int8, GPU and CPU",   \
	  0)                                                                                       \
	X(nbldpc_seed, "nbldpc_seed",                                                              \
	  "nbldpc: the seed's table 4.6, GPU/CPU(1 core) speedup, FFT-BP, Eb/N0 -1 dB", 0)         \
	X(ids, "ids",                                                                              \
	  "ids: the seed's Fig. 17 setting, q = 2..256, GPU and CPU (information bits)", 0)        \
	X(ids, "ids_concat", "ids: the Davey-MacKay concatenation (dm-ldpc), throughput and FER",  \
	  0)                                                                                       \
	X(sim, "sim_cpu",                                                                          \
	  "fecd-sim's CPU engine, one thread: the simulation beside the decoder alone, per "       \
	  "CPU-second",                                                                            \
	  0)                                                                                       \
	X(sim, "sim",                                                                              \
	  "fecd-sim's GPU engine: simulated information bits (bits, encoder, channel, decoder, "   \
	  "counting) beside the decoder kernel alone",                                             \
	  0)                                                                                       \
	X(e2e, "e2e", "End to end: fecd-feed -> fecd -> fecd-sink (loopback)", BENCH_CI_RUNS)      \
	X(e2e, "latency", "Latency through fecd at a set input rate", BENCH_CI_RUNS)

#define BENCH_CHECK_MAP(X)                                                                         \
	X("cpu", "Mb/s", "same as ref", 2)                                                         \
	X("gpu_kernel", "Gb/s", "same as cpu", 1)                                                  \
	X("gpu_transfer", "Gb/s", "same as cpu", 1)                                                \
	X("anchors", "Mb/s", NULL, 1)                                                              \
	X("sweep_k", "cpu 1 core Mb/s", NULL, 7)                                                   \
	X("sweep_batch", "cpu all Mb/s", NULL, 3)                                                  \
	X("ldpc", "Mb/s", "same as cpu", 4)                                                        \
	X("ldpc_rates", "CPU 1 core Mb/s", "same as cpu", 1)                                       \
	X("ldpc_seed", "CPU fr/s", NULL, 1)                                                        \
	X("fano", "Mb/s", "same as cpu", 2)                                                        \
	X("fano_snr", "frames", "same as cpu", 5)                                                  \
	X("fano_walkers", "Gb/s", "same as cpu", 6)                                                \
	X("nbldpc", "CPU all cores Mb/s", NULL, 3)                                                 \
	X("nbldpc_seed", "CPU fr/s", NULL, 1)                                                      \
	X("sim_cpu", "sim Gb/s", NULL, 1)                                                          \
	X("sim_cpu", "decoder Gb/s", NULL, 1)                                                      \
	X("sim", "sim Gb/s", NULL, 2)                                                              \
	X("sim", "decoder Gb/s", NULL, 2)                                                          \
	X("ids", "CPU 1 core kb/s", NULL, 1)                                                       \
	X("ids_concat", "frames", NULL, 4)                                                         \
	X("e2e", "Mb/s total", "verified", 2)                                                      \
	X("e2e", "bare total", NULL, 2)                                                            \
	X("latency", "samples", "verified", 1)                                                     \
	X("latency", "p50 ms", NULL, 1)

#endif
