/*
 * fecd-sim's plot: the script it writes (two codes with BER and FER and their intervals, the
 * reference lines of sim_ref, log scale, dashed references drawn once, labels quoted), a PNG
 * rendered by gnuplot (signature, the size asked for in its header, at least a few kB of
 * picture), a clear message where gnuplot is missing or fails (its exit status), where the
 * folder does not exist, and a plot of BER alone in one
 * panel. The rendering part skips, saying so, where gnuplot is not installed (CI installs
 * gnuplot-nox, so it runs there).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "sim_plot.h"

static const struct sim_plot_point ccsds_pts[] = {
    {2.0, 3.1e-3, 2.9e-3, 3.3e-3, 0.12, 0.10, 0.14},
    {3.0, 2.2e-4, 1.9e-4, 2.5e-4, 0.011, 0.009, 0.013},
    {4.0, 1.1e-5, 0.8e-5, 1.5e-5, 6e-4, 4e-4, 9e-4},
    {5.0, 0.0, 0.0, 3e-7, 0.0, 0.0, 2e-5}, /* no error seen: not drawn */
};
static const struct sim_plot_point ldpc_pts[] = {
    {1.0, 4e-2, 3.8e-2, 4.2e-2, 0.9, 0.85, 0.94},
    {1.5, 2e-4, 1.5e-4, 2.6e-4, 0.05, 0.04, 0.06},
    {2.0, 1e-6, 4e-7, 2e-6, NAN, NAN, NAN}, /* FER not measured */
};

static char *script_of(const struct sim_plot *p, const char *png, int *rc, char *err, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	*rc = sim_plot_write_script(p, png, f, err, n);
	fclose(f);
	return buf;
}

static unsigned count_of(const char *hay, const char *needle)
{
	unsigned n = 0;

	for (const char *s = hay; (s = strstr(s, needle)); s++)
		n++;
	return n;
}

/* Width and height from a PNG's IHDR, 0 where the file is no PNG. */
static void png_size(const char *path, uint32_t *w, uint32_t *h, long *bytes)
{
	unsigned char hd[24];
	FILE *f = fopen(path, "rb");
	struct stat st;

	*w = *h = 0;
	*bytes = stat(path, &st) == 0 ? (long)st.st_size : -1;
	if (!f)
		return;
	if (fread(hd, 1, sizeof(hd), f) == sizeof(hd) && memcmp(hd, "\x89PNG\r\n\x1a\n", 8) == 0 &&
	    memcmp(hd + 12, "IHDR", 4) == 0) {
		*w = (uint32_t)hd[16] << 24 | hd[17] << 16 | hd[18] << 8 | hd[19];
		*h = (uint32_t)hd[20] << 24 | hd[21] << 16 | hd[22] << 8 | hd[23];
	}
	fclose(f);
}

int main(void)
{
	struct sim_ref_line refs[8];
	unsigned nref = 0, n2 = 0;
	struct fec_spec spec;
	struct sim_plot_curve curves[] = {
	    {"ccsds 'K=7' r=1/2", ccsds_pts, 4},
	    {"ldpc_regular", ldpc_pts, 3},
	};
	struct sim_plot p = {.title = "test: two codes", .curves = curves, .ncurves = 2};
	char err[512] = "", dir[] = "/tmp/test_sim_plot.XXXXXX", png[600], png1[600];
	uint32_t w, h;
	long bytes;
	int rc;
	char *s;

	CHECK(fec_spec_from_string("ccsds", &spec, err, sizeof(err)) == 0, "%s", err);
	CHECK(sim_ref_for_spec(&spec, "ccsds", SIM_REF_ALL, 0.0, 6.0, refs, 8, &nref, err,
	                       sizeof(err)) == 0,
	      "%s", err);
	/* a second code's lines: its uncoded curve repeats the first's and is drawn once */
	CHECK(fec_spec_from_string("dvbs-3/4", &spec, err, sizeof(err)) == 0, "%s", err);
	CHECK(sim_ref_for_spec(&spec, "dvbs-3/4", SIM_REF_ALL, 0.0, 6.0, refs + nref, 8 - nref, &n2,
	                       err, sizeof(err)) == 0,
	      "%s", err);
	p.refs = refs;
	p.nrefs = nref + n2;
	CHECK(p.nrefs == 6, "%u reference lines", p.nrefs);

	s = script_of(&p, "/x/out.png", &rc, err, sizeof(err));
	CHECK(rc == 0, "%s", err);
	CHECK(strstr(s, "set logscale y") && strstr(s, "set multiplot layout 1,2"),
	      "log scale, two panels");
	CHECK(count_of(s, "with yerrorlines") == 4, "4 measured series (2 codes x BER, FER): %u",
	      count_of(s, "with yerrorlines"));
	CHECK(count_of(s, "'uncoded BPSK'") == 1, "uncoded BPSK drawn %u times",
	      count_of(s, "'uncoded BPSK'"));
	CHECK(strstr(s, "union bound ccsds (dfree 10)") &&
	          strstr(s, "union bound dvbs-3/4 (dfree 5)"),
	      "both union bounds");
	/* the limits on both panels */
	CHECK(count_of(s, "BI-AWGN limit R=0.5 (0.19 dB)") == 2, "R=1/2 limit: %u",
	      count_of(s, "BI-AWGN limit R=0.5 (0.19 dB)"));
	CHECK(strstr(s, "dt 2") && strstr(s, "ls 20") != NULL, "dashed reference curves");
	CHECK(strstr(s, "'ccsds ''K=7'' r=1/2' noenhanced"), "label quoted");
	CHECK(strstr(s, "set output '/x/out.png'"), "output path");
	/* the point with no error is left out; the FER that was not measured too */
	CHECK(!strstr(s, "\n5 0.0") && !strstr(s, "\n5 "), "zero point drawn");
	CHECK(strstr(s, "$c1f << EOD\n1 9.000000e-01 8.500000e-01 9.400000e-01\n1.5 "
	                "5.000000e-02 4.000000e-02 6.000000e-02\nEOD"),
	      "ldpc FER block:\n%s", s);
	free(s);

	/* BER alone: one panel */
	{
		static const struct sim_plot_point ber_only[] = {
		    {3.0, 1e-3, 8e-4, 1.2e-3, NAN, NAN, NAN}};
		struct sim_plot_curve one = {"one", ber_only, 1};
		struct sim_plot q = {.curves = &one, .ncurves = 1, .refs = refs, .nrefs = nref};

		s = script_of(&q, "/x/one.png", &rc, err, sizeof(err));
		CHECK(rc == 0 && !strstr(s, "multiplot") && strstr(s, "size 800,600"),
		      "one panel: %s", err);
		free(s);
	}
	/* nothing to draw */
	{
		static const struct sim_plot_point zero[] = {{3.0, 0, 0, 1e-6, 0, 0, 1e-4}};
		struct sim_plot_curve one = {"zero", zero, 1};
		struct sim_plot q = {.curves = &one, .ncurves = 1};

		s = script_of(&q, "/x/z.png", &rc, err, sizeof(err));
		CHECK(rc == -FEC_EINVAL && strstr(err, "no point"), "nothing to draw: %s", err);
		free(s);
	}
	/* gnuplot missing: named, with the package to install */
	{
		struct sim_plot q = p;

		q.gnuplot = "/nonexistent/gnuplot";
		rc = sim_plot_render(&q, "/tmp/never.png", err, sizeof(err));
		CHECK(rc == -FEC_ENOTSUP && strstr(err, "install gnuplot-nox"), "missing: %s", err);
	}

	if (!sim_plot_have_gnuplot(NULL)) {
		check_done();
		check_skip("gnuplot is not installed (Debian: apt-get install gnuplot-nox); the "
		           "script checks passed");
	}
	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(png, sizeof(png), "%s/curves.png", dir);
	rc = sim_plot_render(&p, png, err, sizeof(err));
	CHECK(rc == 0, "render: %s", err);
	png_size(png, &w, &h, &bytes);
	CHECK(w == 1600 && h == 600, "PNG %ux%u, want 1600x600", w, h);
	CHECK(bytes > 8000 && bytes < 4000000, "PNG of %ld bytes", bytes);
	snprintf(png1, sizeof(png1), "%s/curves.gp", dir);
	CHECK(access(png1, R_OK) == 0, "script kept beside the PNG");

	/* a plotting program that fails: its exit status reaches the message */
	{
		struct sim_plot q = p;

		q.gnuplot = "false";
		snprintf(png1, sizeof(png1), "%s/fails.png", dir);
		rc = sim_plot_render(&q, png1, err, sizeof(err));
		CHECK(rc == -FEC_EINVAL && strstr(err, "false") && strstr(err, "exit 1"),
		      "failing gnuplot: rc %d: %s", rc, err);
		snprintf(png1, sizeof(png1), "%s/fails.gp", dir);
		unlink(png1);
	}
	/* a folder that does not exist */
	snprintf(png1, sizeof(png1), "%s/no/such/dir.png", dir);
	rc = sim_plot_render(&p, png1, err, sizeof(err));
	CHECK(rc == -FEC_EINVAL && strstr(err, "No such file"), "bad output: rc %d: %s", rc, err);

	/* SIM_PLOT_KEEP=1 keeps the picture to look at */
	if (getenv("SIM_PLOT_KEEP")) {
		printf("kept %s\n", png);
		return check_done();
	}
	unlink(png);
	snprintf(png1, sizeof(png1), "%s/curves.gp", dir);
	unlink(png1);
	rmdir(dir);
	return check_done();
}
