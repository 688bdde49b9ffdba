/*
 * fecd-sim's plots through gnuplot (sim_plot.h). The script carries its data inline (gnuplot 5
 * data blocks, $c0 = first curve's BER, ...), sets the axes from the measured points (the
 * reference lines are clipped to them, so a union bound that runs to 1e-15 does not squash the
 * measurements) and draws one panel, BER, or two side by side, BER and FER. gnuplot runs as a
 * child process (posix_spawnp) with its stderr read back, so that its error, if any, reaches the
 * caller's message.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim_plot.h"

extern char **environ;

enum panel { PANEL_BER, PANEL_FER };

/* A gnuplot single-quoted string: only ' needs escaping (as ''); no enhanced-text markup is read
 * where the script says noenhanced. */
static void put_quoted(FILE *out, const char *s)
{
	fputc('\'', out);
	for (; s && *s; s++) {
		if (*s == '\'')
			fputc('\'', out);
		if (*s != '\n' && *s != '\r')
			fputc(*s, out);
	}
	fputc('\'', out);
}

static double point_value(const struct sim_plot_point *pt, enum panel panel, double *lo, double *hi)
{
	if (panel == PANEL_BER) {
		*lo = pt->ber_lo, *hi = pt->ber_hi;
		return pt->ber;
	}
	*lo = pt->fer_lo, *hi = pt->fer_hi;
	return pt->fer;
}

/* Measured points that a log scale can show. */
static bool drawable(double v)
{
	return isfinite(v) && v > 0.0;
}

struct range {
	double xmin, xmax, ymin, ymax;
	bool any;
};

static void measured_range(const struct sim_plot *p, enum panel panel, struct range *r)
{
	r->xmin = INFINITY, r->xmax = -INFINITY, r->ymin = INFINITY, r->ymax = 1.0;
	r->any = false;
	for (unsigned c = 0; c < p->ncurves; c++)
		for (unsigned i = 0; i < p->curves[c].npoints; i++) {
			const struct sim_plot_point *pt = &p->curves[c].points[i];
			double lo, hi, v = point_value(pt, panel, &lo, &hi);

			if (!isfinite(pt->ebn0))
				continue;
			r->xmin = fmin(r->xmin, pt->ebn0);
			r->xmax = fmax(r->xmax, pt->ebn0);
			if (!drawable(v))
				continue;
			r->any = true;
			r->ymin = fmin(r->ymin, drawable(lo) ? fmin(lo, v) : v);
		}
}

/* Whether reference line i repeats an earlier one's label (several codes, one uncoded curve). */
static bool ref_repeats(const struct sim_plot *p, unsigned i)
{
	for (unsigned j = 0; j < i; j++)
		if (strcmp(p->refs[j].label, p->refs[i].label) == 0)
			return true;
	return false;
}

static void write_data(const struct sim_plot *p, FILE *out, const struct range *r)
{
	for (unsigned c = 0; c < p->ncurves; c++)
		for (int panel = PANEL_BER; panel <= PANEL_FER; panel++) {
			fprintf(out, "$c%u%s << EOD\n", c, panel == PANEL_BER ? "b" : "f");
			for (unsigned i = 0; i < p->curves[c].npoints; i++) {
				const struct sim_plot_point *pt = &p->curves[c].points[i];
				double lo, hi, v = point_value(pt, panel, &lo, &hi);

				if (!isfinite(pt->ebn0) || !drawable(v))
					continue;
				/* a bar's end at 0 (no error seen) runs off the log scale: cut it
				 */
				lo = drawable(lo) ? lo : r->ymin;
				hi = isfinite(hi) ? fmax(hi, v) : v;
				fprintf(out, "%.6g %.6e %.6e %.6e\n", pt->ebn0, v, fmin(lo, v), hi);
			}
			fputs("EOD\n", out);
		}
	for (unsigned i = 0; i < p->nrefs; i++) {
		const struct sim_ref_line *l = &p->refs[i];

		fprintf(out, "$r%u << EOD\n", i);
		if (l->kind == SIM_REF_VLINE) {
			fprintf(out, "%.6g %.6e\n%.6g %.6e\n", l->x0, r->ymin, l->x0, 1.0);
		} else {
			for (unsigned k = 0; k < l->npoints; k++)
				fprintf(out, "%.6g %.6e\n", l->x[k], l->y[k]);
		}
		fputs("EOD\n", out);
	}
}

static void write_panel(const struct sim_plot *p, FILE *out, enum panel panel,
                        const struct range *r)
{
	bool first = true;

	fprintf(out, "set ylabel '%s'\n",
	        panel == PANEL_BER ? "bit error rate" : "frame error rate");
	fprintf(out, "set yrange [%.3e:%.3e]\n", r->ymin, r->ymax);
	fputs("plot ", out);
	for (unsigned c = 0; c < p->ncurves; c++) {
		fprintf(out, "%s$c%u%s using 1:2:3:4 with yerrorlines ls %u title ",
		        first ? "" : ", \\\n  ", c, panel == PANEL_BER ? "b" : "f", c % 8 + 1);
		put_quoted(out, p->curves[c].label ? p->curves[c].label : "");
		fputs(" noenhanced", out);
		first = false;
	}
	/* Reference lines are BER curves and limits: limits go on both panels, curves on BER's. */
	for (unsigned i = 0; i < p->nrefs; i++) {
		const struct sim_ref_line *l = &p->refs[i];

		if (ref_repeats(p, i) || (panel == PANEL_FER && l->kind != SIM_REF_VLINE))
			continue;
		fprintf(out, "%s$r%u using 1:2 with lines ls %u title ", first ? "" : ", \\\n  ", i,
		        l->kind == SIM_REF_VLINE ? 30 + i % 8 : 20 + i % 8);
		put_quoted(out, l->label);
		fputs(" noenhanced", out);
		first = false;
	}
	if (first)
		fputs("NaN notitle", out);
	fputc('\n', out);
}

int sim_plot_write_script(const struct sim_plot *p, const char *png_path, FILE *out, char *err,
                          size_t errlen)
{
	struct range ber, fer, x;
	unsigned w = p->width ? p->width : 800, h = p->height ? p->height : 600;

	if (!png_path || !*png_path || (p->ncurves && !p->curves) || (p->nrefs && !p->refs)) {
		snprintf(err, errlen, "plot: a PNG path and the curves are needed");
		return -FEC_EINVAL;
	}
	measured_range(p, PANEL_BER, &ber);
	measured_range(p, PANEL_FER, &fer);
	x = ber;
	if (!ber.any && !fer.any && !p->nrefs) {
		snprintf(err, errlen, "plot: no point to draw (every rate is 0 or missing)");
		return -FEC_EINVAL;
	}
	/* The x axis spans the points and the limits; the y axis the points, a decade below the
	 * lowest (1e-7 .. 0.5 where nothing was measured). */
	for (unsigned i = 0; i < p->nrefs; i++) {
		const struct sim_ref_line *l = &p->refs[i];

		if (l->kind == SIM_REF_VLINE && isfinite(l->x0)) {
			x.xmin = fmin(x.xmin, l->x0);
			x.xmax = fmax(x.xmax, l->x0);
		} else if (l->kind == SIM_REF_CURVE && l->npoints && !isfinite(x.xmin)) {
			x.xmin = l->x[0];
			x.xmax = l->x[l->npoints - 1];
		}
	}
	if (!isfinite(x.xmin))
		x.xmin = 0.0, x.xmax = 1.0;
	if (x.xmax - x.xmin < 0.5)
		x.xmin -= 0.25, x.xmax += 0.25;
	ber.ymin = ber.any ? pow(10.0, floor(log10(ber.ymin)) - 1.0) : 1e-7;
	fer.ymin = fer.any ? pow(10.0, floor(log10(fer.ymin)) - 1.0) : 1e-5;

	fputs("# fecd-sim plot: rerun with gnuplot FILE.gp after editing\n", out);
	fprintf(out,
	        "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
	        "  set terminal pngcairo enhanced font ',10' size %u,%u\n"
	        "} else {\n  set terminal png size %u,%u\n}\n",
	        fer.any ? 2 * w : w, h, fer.any ? 2 * w : w, h);
	fputs("set output ", out);
	put_quoted(out, png_path);
	fputc('\n', out);
	write_data(p, out, &ber);
	fputs("set logscale y\nset format y '10^{%L}'\nset grid xtics ytics mytics\n"
	      "set key bottom left box opaque\nset bars small\n",
	      out);
	/* line styles: 1..8 the measured curves, 20.. dashed reference curves, 30.. limits */
	fputs(
	    "set style line 1 lc rgb '#0072b2' lw 2 pt 7\nset style line 2 lc rgb '#d55e00' lw 2 "
	    "pt 5\nset style line 3 lc rgb '#009e73' lw 2 pt 9\nset style line 4 lc rgb "
	    "'#cc79a7' lw 2 pt 11\nset style line 5 lc rgb '#e69f00' lw 2 pt 13\nset style line "
	    "6 lc rgb '#56b4e9' lw 2 pt 4\nset style line 7 lc rgb '#000000' lw 2 pt 6\nset style "
	    "line 8 lc rgb '#f0e442' lw 2 pt 8\n",
	    out);
	for (unsigned i = 0; i < 8; i++) {
		static const char *const grey[] = {"#555555", "#0072b2", "#d55e00", "#009e73",
		                                   "#cc79a7", "#e69f00", "#56b4e9", "#999999"};

		fprintf(out, "set style line %u lc rgb '%s' lw 1.5 dt 2\n", 20 + i, grey[i]);
		fprintf(out, "set style line %u lc rgb '%s' lw 1.5 dt 4\n", 30 + i, grey[i]);
	}
	fprintf(out, "set xrange [%.4g:%.4g]\n", x.xmin - 0.1, x.xmax + 0.1);
	fputs("set xlabel ", out);
	put_quoted(out, p->xlabel ? p->xlabel : "Eb/N0 (dB)");
	fputs(" noenhanced\n", out);
	if (fer.any) {
		fputs("set multiplot layout 1,2 title ", out);
		put_quoted(out, p->title ? p->title : "fecd-sim");
		fputs(" noenhanced\n", out);
		write_panel(p, out, PANEL_BER, &ber);
		write_panel(p, out, PANEL_FER, &fer);
		fputs("unset multiplot\n", out);
	} else {
		fputs("set title ", out);
		put_quoted(out, p->title ? p->title : "fecd-sim");
		fputs(" noenhanced\n", out);
		write_panel(p, out, PANEL_BER, &ber);
	}
	fputs("set output\n", out);
	if (ferror(out)) {
		snprintf(err, errlen, "plot: writing the script failed");
		return -FEC_EINVAL;
	}
	return 0;
}

bool sim_plot_have_gnuplot(const char *program)
{
	const char *path = getenv("PATH");
	char buf[4096];

	if (!program)
		program = "gnuplot";
	if (strchr(program, '/'))
		return access(program, X_OK) == 0;
	if (!path)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");

		if (len && len + strlen(program) + 2 < sizeof(buf)) {
			snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, path, program);
			if (access(buf, X_OK) == 0)
				return true;
		}
		path += len + (path[len] == ':');
	}
	return false;
}

/* Runs program on script; gnuplot's stderr is read back and its last line kept for the message. */
static int run_gnuplot(const char *program, const char *script, char *err, size_t errlen)
{
	char *argv[] = {(char *)program, (char *)script, NULL};
	posix_spawn_file_actions_t fa;
	char tail[512] = "", buf[256];
	size_t tlen = 0;
	int fds[2], status = 0, rc;
	pid_t pid;
	ssize_t got;

	if (pipe(fds) != 0) {
		snprintf(err, errlen, "plot: pipe: %s", strerror(errno));
		return -FEC_EINVAL;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addclose(&fa, fds[0]);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
	posix_spawn_file_actions_addclose(&fa, fds[1]);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	rc = posix_spawnp(&pid, program, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (rc != 0) {
		close(fds[0]);
		snprintf(err, errlen, "plot: cannot run %s (%s): install gnuplot-nox", program,
		         strerror(rc));
		return rc == ENOENT ? -FEC_ENOTSUP : -FEC_EINVAL;
	}
	/* keep the last part of what gnuplot says */
	while ((got = read(fds[0], buf, sizeof(buf))) > 0 || (got < 0 && errno == EINTR)) {
		if (got < 0)
			continue;
		if (tlen + (size_t)got >= sizeof(tail)) {
			size_t drop = tlen + (size_t)got - (sizeof(tail) - 1);

			drop = drop > tlen ? tlen : drop;
			memmove(tail, tail + drop, tlen - drop);
			tlen -= drop;
		}
		got = (size_t)got > sizeof(tail) - 1 - tlen ? (ssize_t)(sizeof(tail) - 1 - tlen)
		                                            : got;
		memcpy(tail + tlen, buf, (size_t)got);
		tlen += (size_t)got;
	}
	tail[tlen] = '\0';
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		char *last;

		while (tlen && (tail[tlen - 1] == '\n' || tail[tlen - 1] == ' '))
			tail[--tlen] = '\0';
		last = strrchr(tail, '\n');
		snprintf(err, errlen, "plot: %s %s failed (%s%d)%s%s", program, script,
		         WIFEXITED(status) ? "exit " : "signal ",
		         WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
		         tlen ? ": " : "", last ? last + 1 : tail);
		return -FEC_EINVAL;
	}
	return 0;
}

int sim_plot_render(const struct sim_plot *p, const char *png_path, char *err, size_t errlen)
{
	const char *program = p->gnuplot ? p->gnuplot : "gnuplot";
	size_t len = png_path ? strlen(png_path) : 0;
	char *script;
	FILE *out;
	struct stat st;
	int rc;

	if (!len) {
		snprintf(err, errlen, "plot: a PNG path is needed");
		return -FEC_EINVAL;
	}
	if (!sim_plot_have_gnuplot(program)) {
		snprintf(err, errlen,
		         "plot: %s not found: install gnuplot-nox (apt-get install "
		         "gnuplot-nox)",
		         program);
		return -FEC_ENOTSUP;
	}
	script = malloc(len + 4);
	if (!script) {
		snprintf(err, errlen, "plot: out of memory");
		return -FEC_ENOMEM;
	}
	if (len > 4 && strcmp(png_path + len - 4, ".png") == 0)
		snprintf(script, len + 4, "%.*s.gp", (int)(len - 4), png_path);
	else
		snprintf(script, len + 4, "%s.gp", png_path);
	out = fopen(script, "w");
	if (!out) {
		snprintf(err, errlen, "plot: %s: %s", script, strerror(errno));
		rc = -FEC_EINVAL;
		goto out_free;
	}
	rc = sim_plot_write_script(p, png_path, out, err, errlen);
	if (fclose(out) != 0 && rc == 0) {
		snprintf(err, errlen, "plot: %s: %s", script, strerror(errno));
		rc = -FEC_EINVAL;
	}
	if (rc == 0)
		rc = run_gnuplot(program, script, err, errlen);
	if (rc == 0 && (stat(png_path, &st) != 0 || st.st_size == 0)) {
		snprintf(err, errlen, "plot: gnuplot ran but %s is missing or empty", png_path);
		rc = -FEC_EINVAL;
	}
out_free:
	free(script);
	return rc;
}
