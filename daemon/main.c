/*
 * fecd's entry point: command line, configuration, and the life cycle around the loop. Signals
 * arrive through uv_signal_t, so their work runs on the loop like everything else: SIGTERM and
 * SIGINT drain (stop reading, publish everything accepted, let output leave within linger_ms,
 * exit 0), SIGHUP reloads the configuration file (reload.c: read and built off the loop thread,
 * applied on it; a bad file keeps the running one). systemd hears READY=1 once every channel's
 * sockets are bound and control listens, a STATUS= line every stats interval, and WATCHDOG=1 at
 * half the watchdog interval when one is set.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "config.h"
#include "curve_keys.h"
#include "fecd.h"
#include "fecd_cuda.h"
#include "log.h"
#include "metrics.h"
#include "notify.h"
#include "service.h"
#include "rpc.h"
#include "settings.h"

#ifndef FECD_VERSION
#define FECD_VERSION "0.0.0"
#endif

#define FECD_DEFAULT_CONFIG "/etc/fecd/fecd.json"

struct app {
	uv_loop_t loop;
	struct fecd *d;
	struct control *ctl;
	struct metrics *metrics;
	struct reload *reload;
	const char *config_path;
	bool config_explicit;
	int cmdline_level; /* -1: none given */
	uv_signal_t sig_term, sig_int, sig_hup;
	uv_timer_t stats_timer, watchdog_timer;
	bool watchdog_on;
};

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: fecd [--config FILE] [--check-config] [--log-level LEVEL] [--version] "
	    "[--help]\n"
	    "            [--print-config] [--print-settings] [--print-methods] "
	    "[--print-devices]\n"
	    "            [--curve-keygen PREFIX]\n"
	    "\n"
	    "A forward-error-correction decoder service: soft symbols in over ZeroMQ, decoded\n"
	    "frames out, channels managed over JSON-RPC.\n"
	    "\n"
	    "  -c, --config FILE     configuration file (default " FECD_DEFAULT_CONFIG
	    "; without it,\n"
	    "                        one CCSDS Viterbi channel on the default endpoints)\n"
	    "  -n, --check-config    check the configuration and exit (0 when it is good)\n"
	    "  -l, --log-level LEVEL error, warning, notice, info or debug (overrides the file)\n"
	    "      --print-config    print the configuration in effect as JSON and exit\n"
	    "      --print-settings  print every setting as a Markdown table and exit\n"
	    "      --print-methods   print the control methods and errors as Markdown and exit\n"
	    "      --print-devices   list the CUDA devices and exit (1 when there is none)\n"
	    "      --curve-keygen PREFIX  make a CURVE key pair for the data sockets: PREFIX.key\n"
	    "                        (secret, mode 0600) and PREFIX.pub (public), and exit\n"
	    "  -V, --version         print the version and exit\n"
	    "  -h, --help            this text\n"
	    "\n"
	    "Signals: SIGTERM/SIGINT drain and exit, SIGHUP reloads the configuration file.\n");
}

/* For people and for the GPU tests (which skip when this exits 1): the devices the GPU backend
 * can use, or why there is none. */
static int print_devices(void)
{
	char msg[512];
	int n = fecd_cuda_device_count(msg, sizeof(msg));

	if (n == 0) {
		printf("no CUDA device: %s\n", msg);
		return 1;
	}
	for (int i = 0; i < n; i++) {
		struct fecd_cuda_device d;

		if (fecd_cuda_device_query(i, &d, msg, sizeof(msg))) {
			printf("device %d: cannot query it: %s\n", i, msg);
			continue;
		}
		printf(
		    "device %d: %s, compute capability %d.%d, %d SMs at %d MHz, %zu MiB (%zu MiB "
		    "free), L2 %zu KiB, %d copy engines, driver %d.%d, runtime %d.%d\n",
		    i, d.name, d.cc_major, d.cc_minor, d.sm_count, d.clock_khz / 1000,
		    d.mem_total >> 20, d.mem_free >> 20, d.l2_bytes >> 10, d.async_engines,
		    d.driver_version / 1000, d.driver_version % 1000 / 10, d.runtime_version / 1000,
		    d.runtime_version % 1000 / 10);
	}
	return 0;
}

/* --curve-keygen: a key pair for the data sockets' CURVE settings (curve_keys.h). */
static int curve_keygen_files(const char *prefix)
{
	struct curve_keypair kp;
	char err[512];

	if (curve_keygen(prefix, &kp, err, sizeof(err)) != 0) {
		fprintf(stderr, "fecd: --curve-keygen: %s\n", err);
		return 1;
	}
	printf("%s.key: secret key (mode 0600)\n%s.pub: public key %s\n", prefix, prefix,
	       kp.public_z85);
	memset(&kp, 0, sizeof(kp));
	return 0;
}

/* At start: loads the file named on the command line (must exist) or the default one (may be
 * absent). Reloads read it again off the loop thread (reload.c). */
static int load_config(struct app *a, struct fecd_config *cfg)
{
	char err[512];

	if (!a->config_explicit && access(a->config_path, F_OK) != 0 && errno == ENOENT) {
		fecd_config_defaults(cfg);
		log_notice("no %s: running on the built-in defaults (one CCSDS Viterbi stream "
		           "channel)",
		           a->config_path);
		return 0;
	}
	int rc = fecd_config_load(a->config_path, cfg, err, sizeof(err));
	if (rc)
		fprintf(stderr, "fecd: %s: %s\n", a->config_path, err);
	return rc;
}

/* Builds every channel's decoder once: a code the family accepts but cannot build fails here. */
static int check_decoders(const struct fecd_config *cfg)
{
	for (uint32_t i = 0; i < cfg->nchannels; i++) {
		struct fec_decoder *dec;
		int rc = fec_decoder_create(&cfg->channels[i].spec, &dec);
		if (rc < 0) {
			fprintf(stderr, "fecd: channels[%u] (%s): code: %s\n", i,
			        cfg->channels[i].name, fec_strerror(rc));
			return rc;
		}
		fec_decoder_destroy(dec);
	}
	return 0;
}

static void apply_log_level(struct app *a, const struct fecd_config *cfg)
{
	int lvl = a->cmdline_level >= 0 ? a->cmdline_level : log_level_from_name(cfg->log_level);

	if (lvl >= 0)
		log_set_level((enum log_level)lvl);
}

/* ---- Signals and timers */

static void on_handle_closed(uv_handle_t *h)
{
	(void)h;
}

static void close_app_handles(struct app *a)
{
	metrics_stop(a->metrics);
	a->metrics = NULL;
	uv_close((uv_handle_t *)&a->sig_term, on_handle_closed);
	uv_close((uv_handle_t *)&a->sig_int, on_handle_closed);
	uv_close((uv_handle_t *)&a->sig_hup, on_handle_closed);
	uv_close((uv_handle_t *)&a->stats_timer, on_handle_closed);
	uv_close((uv_handle_t *)&a->watchdog_timer, on_handle_closed);
}

static void on_drained(struct fecd *d)
{
	log_notice("drained; exiting");
	close_app_handles(uv_loop_get_data(fecd_loop(d)));
}

static void on_stop_signal(uv_signal_t *s, int signum)
{
	struct app *a = s->data;

	if (fecd_draining(a->d)) {
		log_notice("%s again: no longer waiting for readers", strsignal(signum));
		fecd_drain(a->d, on_drained);
		return;
	}
	log_notice("%s: draining (no more input; publishing what was accepted)", strsignal(signum));
	notify_send("STOPPING=1\nSTATUS=draining");
	if (a->ctl) {
		control_stop(a->ctl);
		a->ctl = NULL;
	}
	fecd_drain(a->d, on_drained);
}

static void on_reloaded(const struct fecd_config *cfg, void *arg)
{
	apply_log_level(arg, cfg);
}

static void on_hup(uv_signal_t *s, int signum)
{
	struct app *a = s->data;

	(void)signum;
	if (fecd_draining(a->d))
		return;
	log_notice("SIGHUP: reloading %s", a->config_path);
	reload_request(a->reload);
}

static void on_stats(uv_timer_t *t)
{
	struct app *a = t->data;
	struct fecd_totals tot;

	fecd_stats_tick(a->d);
	fecd_totals(a->d, &tot);
	notify_sendf("STATUS=%s%u channel%s, %.3f Msym/s in, %.3f Mb/s out, %llu bad messages, "
	             "%llu failed frames",
	             fecd_draining(a->d) ? "draining; " : "", tot.channels,
	             tot.channels == 1 ? "" : "s", tot.in_syms_per_s / 1e6,
	             tot.out_bits_per_s / 1e6, (unsigned long long)tot.bad_msgs,
	             (unsigned long long)tot.failures);
}

static void on_watchdog(uv_timer_t *t)
{
	(void)t;
	notify_send("WATCHDOG=1");
}

static int init_handles(struct app *a)
{
	int rc;

	if ((rc = uv_signal_init(&a->loop, &a->sig_term)) ||
	    (rc = uv_signal_init(&a->loop, &a->sig_int)) ||
	    (rc = uv_signal_init(&a->loop, &a->sig_hup)) ||
	    (rc = uv_timer_init(&a->loop, &a->stats_timer)) ||
	    (rc = uv_timer_init(&a->loop, &a->watchdog_timer)))
		return rc;
	a->sig_term.data = a->sig_int.data = a->sig_hup.data = a;
	a->stats_timer.data = a->watchdog_timer.data = a;
	return 0;
}

static int start_signals_and_timers(struct app *a, const struct fecd_config *cfg)
{
	uint64_t wd = notify_watchdog_usec();
	int rc;

	if ((rc = uv_signal_start(&a->sig_term, on_stop_signal, SIGTERM)) ||
	    (rc = uv_signal_start(&a->sig_int, on_stop_signal, SIGINT)) ||
	    (rc = uv_signal_start(&a->sig_hup, on_hup, SIGHUP)))
		return rc;
	uint64_t every = cfg->stats_interval_ms ? cfg->stats_interval_ms : 1000;
	uv_timer_start(&a->stats_timer, on_stats, every, every);
	if (wd) {
		uint64_t half = wd / 2000 ? wd / 2000 : 1;
		uv_timer_start(&a->watchdog_timer, on_watchdog, half, half);
		log_info("systemd watchdog: pinging every %llu ms", (unsigned long long)half);
	}
	return 0;
}

/* ---- main */

static int print_config(const struct fecd_config *cfg)
{
	cJSON *j = fecd_config_to_json(cfg);
	char *text = j ? cJSON_Print(j) : NULL;

	cJSON_Delete(j);
	if (!text)
		return 1;
	printf("%s\n", text);
	free(text);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"config", required_argument, NULL, 'c'},
	    {"check-config", no_argument, NULL, 'n'},
	    {"log-level", required_argument, NULL, 'l'},
	    {"print-config", no_argument, NULL, 'P'},
	    {"print-settings", no_argument, NULL, 'S'},
	    {"print-methods", no_argument, NULL, 'M'},
	    {"print-devices", no_argument, NULL, 'D'},
	    {"curve-keygen", required_argument, NULL, 'K'},
	    {"version", no_argument, NULL, 'V'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct app a = {.config_path = FECD_DEFAULT_CONFIG, .cmdline_level = -1};
	bool check_only = false, print_cfg = false;
	struct fecd_config *cfg;
	char err[512];
	int opt, rc;

	log_init();
	/* A peer that goes away (a control client closing before its answer, a metrics scraper)
	 * must not kill the service: writes to it fail with EPIPE instead, and are handled. */
	signal(SIGPIPE, SIG_IGN);
	while ((opt = getopt_long(argc, argv, "c:nl:Vh", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			a.config_path = optarg;
			a.config_explicit = true;
			break;
		case 'n':
			check_only = true;
			break;
		case 'l':
			a.cmdline_level = log_level_from_name(optarg);
			if (a.cmdline_level < 0) {
				fprintf(stderr,
				        "fecd: --log-level: expected error, warning, notice, "
				        "info or debug, got \"%s\"\n",
				        optarg);
				return 1;
			}
			break;
		case 'P':
			print_cfg = true;
			break;
		case 'S':
			return settings_write_markdown(stdout) ? 1 : 0;
		case 'M':
			return rpc_write_markdown(stdout) ? 1 : 0;
		case 'D':
			return print_devices();
		case 'K':
			return curve_keygen_files(optarg);
		case 'V':
			printf("fecd %s\n", FECD_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "fecd: unexpected argument \"%s\"\n", argv[optind]);
		usage(stderr);
		return 1;
	}
	cfg = calloc(1, sizeof(*cfg));
	if (!cfg) {
		fprintf(stderr, "fecd: out of memory\n");
		return 1;
	}
	apply_log_level(&a, cfg);
	if (load_config(&a, cfg)) {
		free(cfg);
		return 1;
	}
	apply_log_level(&a, cfg);
	if (check_only || print_cfg) {
		rc = check_decoders(cfg);
		if (rc == 0 && print_cfg)
			rc = print_config(cfg);
		else if (rc == 0)
			printf("%s: configuration OK (%u channel%s)\n",
			       a.config_explicit || access(a.config_path, F_OK) == 0
			           ? a.config_path
			           : "built-in defaults",
			       cfg->nchannels, cfg->nchannels == 1 ? "" : "s");
		free(cfg);
		return rc ? 1 : 0;
	}

	uv_loop_init(&a.loop);
	uv_loop_set_data(&a.loop, &a);
	rc = init_handles(&a);
	if (rc) {
		log_err("cannot set up signal handling: %s", uv_strerror(rc));
		free(cfg);
		return 1;
	}
	rc = fecd_create(&a.loop, cfg, &a.d, err, sizeof(err));
	if (rc) {
		log_err("%s", err);
		free(cfg);
		return 1;
	}
	rc = metrics_start(a.d, cfg, &a.metrics, err, sizeof(err));
	if (rc == 0)
		rc = fecd_create_channels(a.d, cfg, err, sizeof(err));
	if (rc == 0 &&
	    !(a.reload = reload_new(a.d, a.config_path, a.config_explicit, on_reloaded, &a))) {
		rc = -ENOMEM;
		snprintf(err, sizeof(err), "out of memory");
	}
	if (rc == 0 && (rc = control_start(a.d, cfg, &a.ctl)) != 0)
		snprintf(err, sizeof(err), "cannot start the control server (%s)",
		         rc < 0 ? strerror(-rc) : "see above");
	if (rc == 0 && (rc = start_signals_and_timers(&a, cfg)) != 0)
		snprintf(err, sizeof(err), "cannot set up signals and timers: %s", uv_strerror(rc));
	if (rc) {
		log_err("%s", err);
		/* Release what was made (nothing was accepted yet) and leave. */
		if (a.ctl)
			control_stop(a.ctl);
		a.ctl = NULL;
		fecd_drain(a.d, NULL);
		close_app_handles(&a);
		uv_run(&a.loop, UV_RUN_DEFAULT);
		reload_free(a.reload);
		fecd_destroy(a.d);
		uv_loop_close(&a.loop);
		free(cfg);
		return 1;
	}
	log_notice("fecd %s ready: %u channel%s, %s backend with %s workers", FECD_VERSION,
	           cfg->nchannels, cfg->nchannels == 1 ? "" : "s",
	           cfg->backend[0] ? cfg->backend : "cpu",
	           cfg->workers ? "the configured" : "one per core");
	notify_sendf("READY=1\nSTATUS=%u channel%s running", cfg->nchannels,
	             cfg->nchannels == 1 ? "" : "s");
	free(cfg);

	uv_run(&a.loop, UV_RUN_DEFAULT);
	reload_free(a.reload);
	fecd_destroy(a.d);
	if (uv_loop_close(&a.loop) == UV_EBUSY)
		log_debug("some loop handles were still open at exit");
	return 0;
}
