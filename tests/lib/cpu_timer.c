/*
 * The one-core CPU timers' clocks (cpu_timer.h).
 */
#include "cpu_timer.h"

double cpu_timer_secs(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double cpu_timer_core_ghz(clockid_t id)
{
#if defined(__x86_64__)
	const unsigned long n = 10000000;
	unsigned long x = 1, y = 3;
	const double t0 = cpu_timer_secs(id);

	for (unsigned long i = 0; i < n; i += 4)
		__asm__ volatile("imul %1, %0\n\timul %1, %0\n\timul %1, %0\n\timul %1, %0"
		                 : "+r"(x)
		                 : "r"(y));
	return 3.0 * (double)n / (cpu_timer_secs(id) - t0) / 1e9;
#else
	(void)id;
	return 0.0;
#endif
}

int cpu_timer_cmp(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}
