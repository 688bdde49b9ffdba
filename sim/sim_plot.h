/*
 * fecd-sim's plots: measured curves (BER and FER against Eb/N0, with their 95 % confidence
 * intervals as error bars) and reference lines (sim_ref.h: dashed curves, vertical limits),
 * written as a gnuplot script and rendered to a PNG by gnuplot (Debian's gnuplot-nox, pngcairo
 * terminal, png where cairo is missing). Log-scale BER, and a FER panel beside it where any
 * point has a FER; several codes on one plot.
 *
 * The script is kept beside the PNG (FILE.png -> FILE.gp, the data inline) so that a user can
 * restyle the plot and run gnuplot on it again. Nothing here prints; functions return 0 or a
 * negative FEC_E* code with a message in err.
 */
#ifndef SIM_PLOT_H
#define SIM_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "sim_ref.h"

/* One measured point; a rate that was not measured is NaN, one with no error 0 (not drawn on
 * the log scale). lo and hi: the 95 % confidence interval. */
struct sim_plot_point {
	double ebn0;
	double ber, ber_lo, ber_hi;
	double fer, fer_lo, fer_hi;
};

struct sim_plot_curve {
	const char *label; /* the code, as the legend shows it */
	const struct sim_plot_point *points;
	unsigned npoints;
};

struct sim_plot {
	const char *title;  /* NULL: "fecd-sim" */
	const char *xlabel; /* NULL: "Eb/N0 (dB)" */
	const struct sim_plot_curve *curves;
	unsigned ncurves;
	const struct sim_ref_line *refs; /* lines with the same label are drawn once */
	unsigned nrefs;
	unsigned width, height; /* pixels; 0: 800 x 600 a panel */
	const char *gnuplot;    /* the program; NULL: "gnuplot" on PATH */
};

/* The gnuplot script that draws p into png_path. */
int sim_plot_write_script(const struct sim_plot *p, const char *png_path, FILE *out, char *err,
                          size_t errlen);

/* Writes the script (png_path with ".png" replaced by ".gp", or ".gp" appended) and runs gnuplot
 * on it. A missing gnuplot is -FEC_ENOTSUP with "install gnuplot-nox" in the message; gnuplot's
 * own error (its last line on stderr) is -FEC_EINVAL. */
int sim_plot_render(const struct sim_plot *p, const char *png_path, char *err, size_t errlen);

/* True where the program (p->gnuplot's, or "gnuplot") can be found: on PATH or as a path. */
bool sim_plot_have_gnuplot(const char *program);

#endif
