/*
 * The GPU backend's context side (fecd_cuda.h): finding and describing devices, opening a context
 * on one, pinned host memory, and GPU decoders, which dispatch to a family's operations through
 * GPU_FAMILY_MAP, and what the host link carries (bare copies, the figure the benchmark's "with
 * transfers" rows are read against). Lanes (streams, device buffers, submit/wait) are in lane.c.
 *
 * A missing driver or an absent device is not an error here: the count is 0 and the message says
 * why, so the daemon can fall back to the CPU with one clear line.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu_core.h"

static const struct gpu_family_ops *const gpu_families[] = {
#define X(ops) &ops,
    GPU_FAMILY_MAP(X)
#undef X
};

#define NFAMILIES (sizeof(gpu_families) / sizeof(gpu_families[0]))

static const struct gpu_family_ops *family_ops(enum fecd_family family)
{
	for (size_t i = 0; i < NFAMILIES; i++)
		if (gpu_families[i]->family == family)
			return gpu_families[i];
	return NULL;
}

/* ---- Devices */

int fecd_cuda_device_count(char *msg, size_t msglen)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);

	if (e != cudaSuccess) {
		/* No driver, no device node, driver older than the runtime: all mean "no GPU". The
		 * runtime reports a missing driver as an insufficient one: say both. */
		const char *hint = e == cudaErrorInsufficientDriver
		                       ? "no NVIDIA driver, or one older than this CUDA runtime"
		                   : e == cudaErrorNoDevice ? "no CUDA device"
		                                            : "CUDA cannot start";
		if (msg && msglen)
			snprintf(msg, msglen, "%s: cudaGetDeviceCount: %s (%s)", hint,
			         cudaGetErrorString(e), cudaGetErrorName(e));
		cudaGetLastError();
		return 0;
	}
	if (n == 0 && msg && msglen)
		snprintf(msg, msglen, "no CUDA device is present");
	else if (msg && msglen)
		snprintf(msg, msglen, "%d CUDA device%s", n, n == 1 ? "" : "s");
	return n;
}

/* The device's attributes, each read with cudaDeviceGetAttribute into an int field of struct
 * fecd_cuda_device (the size_t ones are read into ints first). Attributes rather than
 * cudaDeviceProp fields: CUDA 13 dropped the clock fields. */
struct dev_attr {
	enum cudaDeviceAttr attr;
	const char *name;
	size_t off;
};

#define DEV_ATTR(a, field)                                                                         \
	{                                                                                          \
		a, #a, offsetof(struct fecd_cuda_device, field)                                    \
	}
static const struct dev_attr dev_attrs[] = {
    DEV_ATTR(cudaDevAttrComputeCapabilityMajor, cc_major),
    DEV_ATTR(cudaDevAttrComputeCapabilityMinor, cc_minor),
    DEV_ATTR(cudaDevAttrMultiProcessorCount, sm_count),
    DEV_ATTR(cudaDevAttrClockRate, clock_khz),
    DEV_ATTR(cudaDevAttrMemoryClockRate, mem_clock_khz),
    DEV_ATTR(cudaDevAttrGlobalMemoryBusWidth, mem_bus_bits),
    DEV_ATTR(cudaDevAttrMaxRegistersPerMultiprocessor, regs_per_sm),
    DEV_ATTR(cudaDevAttrMaxThreadsPerMultiProcessor, max_threads_per_sm),
    DEV_ATTR(cudaDevAttrWarpSize, warp_size),
    DEV_ATTR(cudaDevAttrAsyncEngineCount, async_engines),
};
#undef DEV_ATTR

static int attr(int *v, enum cudaDeviceAttr a, const char *name, int dev, char *err, size_t errlen)
{
	char call[128];
	cudaError_t e = cudaDeviceGetAttribute(v, a, dev);

	if (e == cudaSuccess)
		return 0;
	snprintf(call, sizeof(call), "cudaDeviceGetAttribute(%s)", name);
	return gpu_error(e, call, err, errlen);
}

int fecd_cuda_device_query(int index, struct fecd_cuda_device *out, char *err, size_t errlen)
{
	struct cudaDeviceProp p;
	int l2 = 0, smem_sm = 0, smem_optin = 0;
	size_t free_b = 0, total_b = 0;
	cudaError_t e;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	out->index = index;
	e = cudaGetDeviceProperties(&p, index);
	if (e != cudaSuccess)
		return gpu_error(e, "cudaGetDeviceProperties", err, errlen);
	snprintf(out->name, sizeof(out->name), "%s", p.name);
	for (size_t i = 0; !rc && i < sizeof(dev_attrs) / sizeof(dev_attrs[0]); i++)
		rc = attr((int *)((char *)out + dev_attrs[i].off), dev_attrs[i].attr,
		          dev_attrs[i].name, index, err, errlen);
	if (!rc)
		rc =
		    attr(&l2, cudaDevAttrL2CacheSize, "cudaDevAttrL2CacheSize", index, err, errlen);
	if (!rc)
		rc = attr(&smem_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor,
		          "cudaDevAttrMaxSharedMemoryPerMultiprocessor", index, err, errlen);
	if (!rc)
		rc = attr(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin,
		          "cudaDevAttrMaxSharedMemoryPerBlockOptin", index, err, errlen);
	if (rc)
		return rc;
	out->l2_bytes = (size_t)l2;
	out->smem_per_sm = (size_t)smem_sm;
	out->smem_per_block_optin = (size_t)smem_optin;
	e = cudaDriverGetVersion(&out->driver_version);
	if (e != cudaSuccess)
		return gpu_error(e, "cudaDriverGetVersion", err, errlen);
	e = cudaRuntimeGetVersion(&out->runtime_version);
	if (e != cudaSuccess)
		return gpu_error(e, "cudaRuntimeGetVersion", err, errlen);
	/* Free memory needs the device's context: this is where it starts. */
	e = cudaSetDevice(index);
	if (e != cudaSuccess)
		return gpu_error(e, "cudaSetDevice", err, errlen);
	e = cudaMemGetInfo(&free_b, &total_b);
	if (e != cudaSuccess)
		return gpu_error(e, "cudaMemGetInfo", err, errlen);
	out->mem_free = free_b;
	out->mem_total = total_b;
	return 0;
}

/* ---- Context */

int gpu_use_device(const struct fecd_cuda *ctx, char *err, size_t errlen)
{
	cudaError_t e = cudaSetDevice(ctx->dev.index);

	return e == cudaSuccess ? 0 : gpu_error(e, "cudaSetDevice", err, errlen);
}

int fecd_cuda_open(int device, struct fecd_cuda **out, char *err, size_t errlen)
{
	char why[256];
	int n = fecd_cuda_device_count(why, sizeof(why));
	struct fecd_cuda *ctx;
	int rc;

	if (n == 0) {
		snprintf(err, errlen, "%s", why);
		return -FEC_EDEVICE;
	}
	if (device < 0 || device >= n) {
		snprintf(err, errlen, "GPU device %d does not exist (devices 0..%d)", device,
		         n - 1);
		return -FEC_ERANGE;
	}
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx) {
		snprintf(err, errlen, "out of memory");
		return -FEC_ENOMEM;
	}
	/* Blocking sync, set before the context starts: waiter threads sleep in the driver
	 * instead of spinning on the cores the CPU decoders share. */
	cudaError_t e = cudaSetDevice(device);
	if (e != cudaSuccess) {
		rc = gpu_error(e, "cudaSetDevice", err, errlen);
		goto out_free;
	}
	/* Already active (a query started the context): keeps the driver's default, still works. */
	e = cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync);
	if (e != cudaSuccess && e != cudaErrorSetOnActiveProcess) {
		rc = gpu_error(e, "cudaSetDeviceFlags", err, errlen);
		goto out_free;
	}
	cudaGetLastError();
	rc = fecd_cuda_device_query(device, &ctx->dev, err, errlen);
	if (rc)
		goto out_free;
	pthread_mutex_init(&ctx->lock, NULL);
	*out = ctx;
	return 0;

out_free:
	free(ctx);
	return rc;
}

void fecd_cuda_close(struct fecd_cuda *ctx)
{
	if (!ctx)
		return;
	while (ctx->lanes)
		fecd_cuda_lane_destroy(ctx->lanes);
	while (ctx->decoders)
		fecd_cuda_decoder_destroy(ctx->decoders);
	pthread_mutex_destroy(&ctx->lock);
	free(ctx);
}

const struct fecd_cuda_device *fecd_cuda_device_info(const struct fecd_cuda *ctx)
{
	return &ctx->dev;
}

unsigned fecd_cuda_default_lanes(const struct fecd_cuda *ctx)
{
	/* One lane's copy in, kernel and copy out run in sequence; with two copy engines three
	 * lanes keep both directions and the SMs busy at once, and a fourth covers the host's
	 * turnaround on large devices. One copy engine overlaps only one direction. */
	unsigned lanes = ctx->dev.async_engines >= 2 ? 3 : 2;

	if (ctx->dev.async_engines >= 2 && ctx->dev.sm_count >= 64)
		lanes = 4;
	return lanes;
}

/* ---- Pinned host memory */

void *fecd_cuda_host_alloc(struct fecd_cuda *ctx, size_t len)
{
	void *p = NULL;

	if (gpu_use_device(ctx, NULL, 0))
		return NULL;
	/* Portable: any thread (and context) may copy from it. */
	if (cudaHostAlloc(&p, len ? len : 1, cudaHostAllocPortable) != cudaSuccess) {
		cudaGetLastError();
		return NULL;
	}
	return p;
}

void fecd_cuda_host_free(struct fecd_cuda *ctx, void *p)
{
	(void)ctx;
	if (p && cudaFreeHost(p) != cudaSuccess)
		cudaGetLastError(); /* after a sticky error the memory stays until exit */
}

/* ---- The host link */

static double now_secs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int fecd_cuda_copy_in_rate(struct fecd_cuda *ctx, const void *host, size_t len, unsigned streams,
                           double min_secs, double *bytes_per_s, char *err, size_t errlen)
{
	cudaStream_t s[FECD_CUDA_COPY_STREAMS_MAX];
	cudaError_t e = cudaSuccess;
	unsigned made = 0;
	uint64_t rounds = 0;
	char *dev = NULL;
	double t0 = 0, secs = 0;
	int rc;

	*bytes_per_s = 0;
	if (!host || !len || streams < 1 || streams > FECD_CUDA_COPY_STREAMS_MAX) {
		snprintf(err, errlen, "copy rate: streams must be 1..%d and the buffer non-empty",
		         FECD_CUDA_COPY_STREAMS_MAX);
		return -FEC_EINVAL;
	}
	rc = gpu_use_device(ctx, err, errlen);
	if (rc)
		return rc;
	e = cudaMalloc((void **)&dev, len * streams);
	while (e == cudaSuccess && made < streams) {
		e = cudaStreamCreateWithFlags(&s[made], cudaStreamNonBlocking);
		made += e == cudaSuccess;
	}
	/* every stream copies the same pinned bytes into its own device slice, a round at a time;
	 * the first round warms the link and is not timed */
	for (int timed = 0; e == cudaSuccess;) {
		for (unsigned i = 0; i < streams && e == cudaSuccess; i++)
			e = cudaMemcpyAsync(dev + i * len, host, len, cudaMemcpyHostToDevice, s[i]);
		for (unsigned i = 0; i < streams && e == cudaSuccess; i++)
			e = cudaStreamSynchronize(s[i]);
		if (!timed) {
			timed = 1;
			t0 = now_secs();
			continue;
		}
		rounds++;
		secs = now_secs() - t0;
		if (secs >= min_secs && rounds >= 4)
			break;
	}
	if (e == cudaSuccess)
		*bytes_per_s = (double)rounds * streams * (double)len / secs;
	while (made)
		cudaStreamDestroy(s[--made]);
	cudaFree(dev);
	return e == cudaSuccess ? 0 : gpu_error(e, "copy rate", err, errlen);
}

/* ---- Decoders */

bool fecd_cuda_supports(const struct fec_spec *spec)
{
	const struct gpu_family_ops *ops = family_ops(spec->family);

	return ops && ops->supports(spec);
}

int fecd_cuda_decoder_create(struct fecd_cuda *ctx, const struct fec_decoder *cpu_dec,
                             struct fecd_cuda_decoder **out, char *err, size_t errlen)
{
	const struct fec_spec *spec = fec_decoder_spec(cpu_dec);
	const struct gpu_family_ops *ops = family_ops(spec->family);
	struct fecd_cuda_decoder *dec;
	int rc;

	if (!ops || !ops->supports(spec)) {
		snprintf(err, errlen, "the GPU does not decode this code (family %s)",
		         fecd_family_name(spec->family));
		return -FEC_ENOTSUP;
	}
	rc = gpu_use_device(ctx, err, errlen);
	if (rc)
		return rc;
	dec = calloc(1, sizeof(*dec));
	if (!dec) {
		snprintf(err, errlen, "out of memory");
		return -FEC_ENOMEM;
	}
	dec->ctx = ctx;
	dec->ops = ops;
	dec->cpu = cpu_dec;
	rc = ops->create(&ctx->dev, cpu_dec, &dec->impl, err, errlen);
	if (rc)
		goto out_free;
	pthread_mutex_lock(&ctx->lock);
	dec->next = ctx->decoders;
	ctx->decoders = dec;
	pthread_mutex_unlock(&ctx->lock);
	*out = dec;
	return 0;

out_free:
	free(dec);
	return rc;
}

void fecd_cuda_decoder_destroy(struct fecd_cuda_decoder *dec)
{
	struct fecd_cuda *ctx;

	if (!dec)
		return;
	ctx = dec->ctx;
	pthread_mutex_lock(&ctx->lock);
	for (struct fecd_cuda_decoder **pp = &ctx->decoders; *pp; pp = &(*pp)->next) {
		if (*pp == dec) {
			*pp = dec->next;
			break;
		}
	}
	pthread_mutex_unlock(&ctx->lock);
	gpu_use_device(ctx, NULL, 0);
	dec->ops->destroy(dec->impl);
	free(dec);
}

const char *fecd_cuda_decoder_describe(const struct fecd_cuda_decoder *dec)
{
	return dec->ops->describe(dec->impl);
}
