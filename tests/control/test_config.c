/*
 * Unit test of the configuration code: a table of bad configuration files, each of which must be
 * refused with a message naming the JSON path and what was expected; then the good paths
 * (defaults, a full example, round trips through JSON, code presets and overrides, the codes
 * folder and path policy, partial channel updates, the Markdown reference and the default
 * control-socket rule).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "check.h"
#include "code_json.h"
#include "config.h"
#include "ctlpath.h"
#include "log.h"
#include "settings.h"

struct bad_case {
	const char *json;
	const char *expect; /* a phrase the message must contain */
};

#define CH(x) "{\"channels\":[{\"id\":1," x "}]}"

static const struct bad_case bad_cases[] = {
    {"{\"workers\": \"4\"}", "workers: expected an integer in 0..1024, got \"4\""},
    {"{\"workers\": 2000}", "workers: expected an integer in 0..1024, got 2000"},
    {"{\"workers\": 1.5}", "workers: expected an integer in 0..1024, got 1.5"},
    {"{\"wrokers\": 1}", "unknown key \"wrokers\" (valid keys: control, backend, workers,"},
    {"{\"control.tcp\": \"\"}", "unknown key \"control.tcp\""},
    {"{\"workers\": 1, \"workers\": 2}", "workers: key given twice"},
    {"{\"control\": {\"tcp\": \"0.0.0.0:7011\"}}", "control.tcp: expected \"127.0.0.1:PORT\""},
    {"{\"control\": {\"tcp\": \"127.0.0.1:70000\"}}", "control.tcp: expected \"127.0.0.1:PORT\""},
    {"{\"metrics\": {\"listen\": \"localhost:9464\"}}",
     "metrics.listen: expected \"HOST:PORT\" with a numeric IPv4 address or an IPv6 one in "
     "brackets"},
    {"{\"metrics\": {\"listen\": \"[::1]:0\"}}", "metrics.listen: expected \"HOST:PORT\""},
    {"{\"metrics\": {\"listen\": \"::1:9464\"}}", "metrics.listen: expected \"HOST:PORT\""},
    {"{\"control\": {\"max_line\": 10}}",
     "control.max_line: expected an integer in 256..16777216, got 10"},
    {"{\"control\": {\"socket\": \"relative.sock\"}}", "control.socket: expected an absolute path"},
    {"{\"control\": {\"sockett\": \"/x\"}}",
     "control: unknown key \"sockett\" (valid keys: socket, tcp, max_line, max_depth, "
     "idle_timeout_ms, token_file, build_timeout_ms)"},
    {"{\"control\": 5}", "control: expected an object, got 5"},
    {"{\"log_level\": \"loud\"}", "log_level: expected one of \"error\", \"warning\""},
    {"{\"backend\": \"gpu\"}", "backend: expected one of \"auto\", \"cuda\", \"cpu\""},
    {"{\"codes_paths\": \"all\"}", "codes_paths: expected one of \"codes_dir\", \"any\""},
    {"[1, 2]", "(top level): expected an object, got an array"},
    {"{\"workers\": 1,,}", "invalid JSON at line 1, column"},
    {"{\n\"workers\": 1\n} x", "unexpected text after the JSON object at line 3, column 3"},
    {"{\"channels\": {}}", "channels: expected an array of channel objects, got an object"},
    {"{\"channels\": [5]}", "channels[0]: expected a channel object, got 5"},
    {"{\"channels\": [{\"name\": \"x\"}]}",
     "channels[0]: missing required key \"id\" (an integer in 0..4294967295)"},
    {"{\"channels\": [{\"id\": -1}]}",
     "channels[0].id: expected an integer in 0..4294967295, got -1"},
    {"{\"channels\": [{\"id\": 4294967296}]}",
     "channels[0].id: expected an integer in 0..4294967295"},
    {"{\"channels\": [{\"id\": 1e400}]}", "got a number too large to represent"},
    {CH("\"name\": \"bad name\""), "channels[0].name: expected a name of 1 to 63 characters"},
    {CH("\"nmae\": \"x\""), "channels[0]: unknown key \"nmae\" (valid keys: id, name, code, input"},
    {CH("\"input\": \"tcp://x\""), "channels[0].input: expected an object, got \"tcp://x\""},
    {CH("\"input\": {\"socket\": \"push\"}"),
     "channels[0].input.socket: expected one of \"pull\", \"sub\", got \"push\""},
    {CH("\"input\": {\"bind\": \"yes\"}"), "channels[0].input.bind: expected true or false"},
    {CH("\"input\": {\"endpoint\": \"tcp://127.0.0.1\"}"),
     "channels[0].input.endpoint: expected a ZMQ endpoint"},
    {CH("\"input\": {\"endpoint\": \"udp://127.0.0.1:5\"}"),
     "channels[0].input.endpoint: expected a ZMQ endpoint"},
    {CH("\"input\": {\"llr_scale\": 0}"),
     "channels[0].input.llr_scale: expected a number in 0.001..1000, got 0"},
    {CH("\"input\": {\"gnuradio\": {\"format\": \"s4\"}}"),
     "channels[0].input.gnuradio.format: expected one of \"f32\", \"s8\", \"u8\", got \"s4\""},
    {CH("\"input\": {\"gnuradio\": {\"taggs\": \"on\"}}"),
     "channels[0].input.gnuradio: unknown key \"taggs\" (valid keys: format, tags, polarity, "
     "frame_len)"},
    {CH("\"output\": {\"protocol\": \"zmq\"}"),
     "channels[0].output.protocol: expected one of \"native\", \"pdu\", got \"zmq\""},
    {CH("\"output\": {\"endpoint\": \"tcp://127.0.0.1:5550\"}"),
     "channels[0].output.endpoint: \"tcp://127.0.0.1:5550\" is also its input endpoint"},
    {CH("\"batch\": {\"jobs\": 5000}"),
     "channels[0].batch.jobs: expected an integer in 0..4096, got 5000"},
    {CH("\"batch\": {\"inflight\": 17}"),
     "channels[0].batch.inflight: expected an integer in 0..16, got 17"},
    {CH("\"batch\": {\"deadline_ms\": null}"),
     "channels[0].batch.deadline_ms: expected an integer in 1..10000, got null"},
    {CH("\"code\": \"ccsds\""),
     "channels[0].code: expected an object such as {\"preset\":\"ccsds\"}"},
    {CH("\"code\": {\"preset\": \"ccsds\", \"k\": 12}"),
     "channels[0].code.k: expected an integer in 3..9, got 12"},
    {CH("\"code\": {\"preset\": \"nosuch\"}"),
     "channels[0].code.preset: expected one of \"ccsds\""},
    {CH("\"code\": {\"family\": \"turbo\"}"),
     "channels[0].code.family: expected one of \"viterbi\", \"ldpc\", \"fano\", \"nbldpc\", "
     "\"ids\""},
    {CH("\"code\": {\"preset\": \"ccsds\", \"decode_length\": 10}"),
     "channels[0].code: unknown viterbi parameter \"decode_length\" (valid keys: preset, family, "
     "k"},
    {CH("\"code\": {\"family\": \"viterbi\", \"polys\": [\"171\", \"138\"]}"),
     "channels[0].code.polys[1]: expected an octal number"},
    {CH("\"code\": {\"family\": \"viterbi\", \"polys\": [1e17, 133]}"),
     "channels[0].code.polys[0]: expected an octal number in 1..777 as a string (\"777\"): JSON "
     "numbers above 2^53 are not exact, got 1e+17"},
    {CH("\"code\": {\"family\": \"viterbi\", \"polys\": [\"1777777777777777777777\", 133]}"),
     "channels[0].code.polys[0]: expected an octal number in 1..777, as a string (\"777\") or "
     "an integer with octal digits, got \"1777777777777777777777\""},
    {CH("\"code\": {\"family\": \"viterbi\", \"polys\": []}"),
     "channels[0].code.polys: expected an array of 1..4 octal numbers, got an array"},
    {CH("\"code\": {\"preset\": \"ccsds\", \"mode\": \"frames\"}"),
     "channels[0].code.mode: expected one of \"stream\", \"terminated\", \"truncated\""},
    {CH("\"code\": {\"preset\": \"ccsds\", \"invert\": \"012\"}"), "channels[0].code.invert: "},
    {CH("\"code\": {\"preset\": \"ccsds\", \"k\": 7, \"k\": 7}"),
     "channels[0].code.k: key given twice"},
    {"{\"channels\": [{\"id\": 1}, {\"id\": 1, \"input\": {\"endpoint\": "
     "\"tcp://127.0.0.1:6000\"}, "
     "\"output\": {\"endpoint\": \"tcp://127.0.0.1:6001\"}}]}",
     "channels[1].id: 1 is already the id of channels[0]"},
    {"{\"channels\": [{\"id\": 1, \"name\": \"a\"}, {\"id\": 2, \"name\": \"a\", \"input\": "
     "{\"endpoint\": \"tcp://127.0.0.1:6000\"}, \"output\": {\"endpoint\": "
     "\"tcp://127.0.0.1:6001\"}}]}",
     "channels[1].name: \"a\" is already the name of channels[0]"},
    {"{\"channels\": [{\"id\": 1}, {\"id\": 2, \"output\": {\"endpoint\": "
     "\"tcp://127.0.0.1:6001\"}}]}",
     "channels[1].input.endpoint: \"tcp://127.0.0.1:5550\" is already bound by channels[0].input"},
};

static void test_bad_configs(void)
{
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		static struct fecd_config cfg;
		char err[1024] = "";
		int ret = fecd_config_parse(bad_cases[i].json, strlen(bad_cases[i].json), &cfg, err,
		                            sizeof(err));

		CHECK(ret < 0, "case %zu (%s) was accepted", i, bad_cases[i].json);
		CHECK(strstr(err, bad_cases[i].expect) != NULL,
		      "case %zu (%s):\n  message  \"%s\"\n  expected \"%s\"", i, bad_cases[i].json,
		      err, bad_cases[i].expect);
	}
}

static bool chan_equal(const struct chan_config *a, const struct chan_config *b)
{
	return settings_next_diff(fecd_chan_settings, a, b) == NULL;
}

static void test_defaults(void)
{
	static struct fecd_config cfg, back;
	struct fec_spec ccsds;
	char err[512] = "", *text;
	cJSON *j;

	fecd_config_defaults(&cfg);
	CHECK(cfg.nchannels == 1, "default channels %u", cfg.nchannels);
	CHECK(cfg.channels[0].id == 1 && !strcmp(cfg.channels[0].name, "ccsds"),
	      "default channel %u %s", cfg.channels[0].id, cfg.channels[0].name);
	CHECK(!strcmp(cfg.channels[0].in.endpoint, "tcp://127.0.0.1:5550") &&
	          cfg.channels[0].in.kind == SOCK_PULL && cfg.channels[0].in.bind,
	      "default input %s", cfg.channels[0].in.endpoint);
	CHECK(!strcmp(cfg.channels[0].out.endpoint, "tcp://127.0.0.1:5551") &&
	          cfg.channels[0].out.kind == SOCK_PUSH && cfg.channels[0].out.bind,
	      "default output %s", cfg.channels[0].out.endpoint);
	CHECK(cfg.channels[0].in_proto == IN_NATIVE && cfg.channels[0].out_proto == OUT_NATIVE,
	      "default protocols");
	CHECK(fec_preset_apply("ccsds", &ccsds) == 0 &&
	          fec_spec_equal(&ccsds, &cfg.channels[0].spec),
	      "default code is not the ccsds preset");
	CHECK(cfg.channels[0].spec.u.conv.mode == CONV_MODE_STREAM, "default code is not a stream");
	CHECK(cfg.control_max_line == 65536 && cfg.control_max_depth == 16 && !cfg.control_tcp[0],
	      "control defaults");
	CHECK(cfg.control_socket[0] == '/', "control socket default \"%s\"", cfg.control_socket);

	/* Through JSON and back: the same configuration. */
	j = fecd_config_to_json(&cfg);
	text = j ? cJSON_PrintUnformatted(j) : NULL;
	CHECK(text && fecd_config_parse(text, strlen(text), &back, err, sizeof(err)) == 0,
	      "defaults do not read back: %s\n%s", err, text ? text : "(null)");
	CHECK(settings_next_diff(fecd_global_settings, &cfg, &back) == NULL, "global differs");
	CHECK(back.nchannels == 1 && chan_equal(&cfg.channels[0], &back.channels[0]),
	      "channel differs after a round trip");
	cJSON_free(text);
	cJSON_Delete(j);

	CHECK(fecd_config_parse("{}", 2, &back, err, sizeof(err)) == 0 && back.nchannels == 1 &&
	          !strcmp(back.channels[0].name, "ccsds"),
	      "no \"channels\": the default channel expected");
	CHECK(fecd_config_parse("{\"channels\":[]}", 15, &back, err, sizeof(err)) == 0 &&
	          back.nchannels == 0,
	      "\"channels\": [] means none");
}

static const char example[] =
    "{\"control\":{\"socket\":\"/tmp/"
    "fecd-test.sock\",\"tcp\":\"127.0.0.1:7011\",\"max_line\":65536,"
    "\"max_depth\":16},\"backend\":\"cpu\",\"workers\":0,\"log_level\":\"info\",\"linger_ms\":5000,"
    "\"stats_interval_ms\":1000,\"channels\":[{\"id\":1,\"name\":\"ccsds\",\"code\":{\"preset\":"
    "\"ccsds\",\"mode\":\"stream\",\"decode_len\":2048},\"input\":{\"endpoint\":"
    "\"tcp://"
    "127.0.0.1:5550\",\"socket\":\"pull\",\"bind\":true,\"hwm\":100,\"protocol\":\"native\","
    "\"llr_scale\":8,\"gnuradio\":{\"format\":\"f32\",\"tags\":\"auto\",\"polarity\":\"zero\","
    "\"frame_len\":0}},\"output\":{\"endpoint\":\"tcp://127.0.0.1:5551\",\"socket\":\"push\","
    "\"bind\":true,\"hwm\":100,\"protocol\":\"native\",\"soft\":false,\"pdu_unpacked\":false},"
    "\"batch\":{\"jobs\":64,\"deadline_ms\":20,\"inflight\":2}},"
    "{\"id\":7,\"code\":{\"preset\":\"dvbs-3/4\",\"traceback_len\":96},\"input\":{\"endpoint\":"
    "\"ipc:///tmp/fecd-test-in\",\"socket\":\"sub\",\"bind\":false,\"protocol\":\"gnuradio\","
    "\"llr_scale\":0.5,\"gnuradio\":{\"format\":\"u8\",\"tags\":\"on\",\"polarity\":\"one\"}},"
    "\"output\":{\"endpoint\":\"tcp://127.0.0.1:5553\",\"socket\":\"pub\",\"protocol\":\"pdu\","
    "\"pdu_unpacked\":true},\"batch\":{\"jobs\":8}}]}";

static void test_example(void)
{
	static struct fecd_config cfg, back;
	const struct chan_config *c;
	char err[512] = "", *text;
	cJSON *j;

	CHECK(fecd_config_parse(example, strlen(example), &cfg, err, sizeof(err)) == 0,
	      "example refused: %s", err);
	CHECK(cfg.nchannels == 2, "channels %u", cfg.nchannels);
	CHECK(!strcmp(cfg.control_tcp, "127.0.0.1:7011") &&
	          !strcmp(cfg.control_socket, "/tmp/fecd-test.sock"),
	      "control");
	c = &cfg.channels[1];
	CHECK(c->id == 7 && !strcmp(c->name, "ch7"), "second channel %u %s", c->id, c->name);
	CHECK(c->in.kind == SOCK_SUB && !c->in.bind && c->in_proto == IN_GNURADIO &&
	          c->gr_format == FECD_FMT_U8_OFFSET && c->gr_tags == GR_TAGS_ON &&
	          c->gr_polarity_one && c->llr_scale == 0.5f,
	      "second channel input");
	CHECK(c->out.kind == SOCK_PUB && c->out_proto == OUT_PDU && c->pdu_unpacked &&
	          c->batch_jobs == 8 && c->batch_deadline_ms == 20 && c->max_inflight == 0,
	      "second channel output and batch");
	CHECK(c->spec.u.conv.punct_period == 3 && c->spec.u.conv.traceback_len == 96,
	      "preset with override: period %u traceback %u", c->spec.u.conv.punct_period,
	      c->spec.u.conv.traceback_len);
	j = fecd_config_to_json(&cfg);
	text = j ? cJSON_PrintUnformatted(j) : NULL;
	CHECK(text && fecd_config_parse(text, strlen(text), &back, err, sizeof(err)) == 0,
	      "example does not read back: %s", err);
	CHECK(back.nchannels == 2 && chan_equal(&cfg.channels[0], &back.channels[0]) &&
	          chan_equal(&cfg.channels[1], &back.channels[1]) &&
	          settings_next_diff(fecd_global_settings, &cfg, &back) == NULL,
	      "example changed on a round trip:\n%s", text ? text : "");
	cJSON_free(text);
	cJSON_Delete(j);
}

/* Impulse response of a code given as JSON (a terminated frame of one 1), symbols 0/1. */
static size_t impulse_of(const char *json, uint8_t *out)
{
	cJSON *j = cJSON_Parse(json);
	struct fec_encoder *enc = NULL;
	struct fec_spec spec;
	char err[256] = "";
	const uint8_t one = 1;
	size_t n = 0;

	CHECK(j && fec_spec_from_json(j, NULL, &spec, err, sizeof(err)) == 0, "%s: %s", json, err);
	spec.u.conv.mode = CONV_MODE_TERMINATED;
	CHECK(fec_encoder_create(&spec, &enc) == 0 && fec_encode(enc, &one, 1, out, &n) == 0,
	      "%s: encoder", json);
	fec_encoder_destroy(enc);
	cJSON_Delete(j);
	return n;
}

/* A code given by its polynomials alone is the textbook code, with no output inverted:
 * 171 = 1111001 and 133 = 1011011 from the current input down, interleaved; the ccsds preset
 * keeps its inverted G2 (CCSDS 131.0-B). */
static void test_textbook_code(void)
{
	static const uint8_t textbook[] = {1, 1, 1, 0, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1};
	static const uint8_t ccsds[] = {1, 0, 1, 1, 1, 0, 1, 0, 0, 1, 0, 0, 1, 0};
	uint8_t got[32];
	size_t n;

	n = impulse_of("{\"family\":\"viterbi\",\"k\":7,\"polys\":[171,133]}", got);
	CHECK(n == sizeof(textbook) && !memcmp(got, textbook, n),
	      "polys 171, 133 alone: not the textbook code (%zu symbols)", n);
	n = impulse_of("{\"preset\":\"ccsds\"}", got);
	CHECK(n == sizeof(ccsds) && !memcmp(got, ccsds, n), "ccsds: G2 no longer inverted");
	n = impulse_of("{\"family\":\"viterbi\",\"k\":7,\"polys\":[171,133],\"invert\":\"01\"}",
	               got);
	CHECK(n == sizeof(ccsds) && !memcmp(got, ccsds, n), "invert 01: not the CCSDS code");
}

static void test_codes(void)
{
	char err[512] = "", text[128];

	/* Every preset reads back from its written form, starting from the family. */
	for (unsigned i = 0; i < fec_preset_count(); i++) {
		struct fec_spec spec, back;
		cJSON *j;

		CHECK(fec_preset_apply(fec_preset_at(i)->name, &spec) == 0, "preset %s",
		      fec_preset_at(i)->name);
		j = fec_spec_to_json(&spec);
		CHECK(j && fec_spec_from_json(j, NULL, &back, err, sizeof(err)) == 0,
		      "preset %s does not read back: %s", fec_preset_at(i)->name, err);
		CHECK(fec_spec_equal(&spec, &back), "preset %s changed on a round trip",
		      fec_preset_at(i)->name);
		cJSON_Delete(j);
	}
	/* Octal lists as strings or as integers with octal digits; parameters on top of a base. */
	{
		struct fec_spec a, b, c, base;
		cJSON *ja =
		    cJSON_Parse("{\"family\":\"viterbi\",\"k\":7,\"polys\":[\"171\",\"133\"]}");
		cJSON *jb = cJSON_Parse("{\"family\":\"viterbi\",\"k\":7,\"polys\":[171,133]}");
		cJSON *jc = cJSON_Parse("{\"decode_len\":4096}");

		fec_preset_apply("ccsds", &base);
		CHECK(fec_spec_from_json(ja, NULL, &a, err, sizeof(err)) == 0, "%s", err);
		CHECK(fec_spec_from_json(jb, NULL, &b, err, sizeof(err)) == 0, "%s", err);
		CHECK(fec_spec_equal(&a, &b) && a.u.conv.polys[0] == 0171 &&
		          a.u.conv.polys[1] == 0133,
		      "octal forms differ");
		CHECK(fec_spec_from_json(jc, &base, &c, err, sizeof(err)) == 0, "%s", err);
		CHECK(c.u.conv.decode_len == 4096 && fec_spec_same_code(&c, &base),
		      "override on a base: decode_len %u", c.u.conv.decode_len);
		CHECK(fec_spec_from_json(jc, NULL, &c, err, sizeof(err)) < 0 &&
		          strstr(err, "code: expected \"preset\" or \"family\""),
		      "no base: %s", err);
		cJSON_Delete(ja);
		cJSON_Delete(jb);
		cJSON_Delete(jc);
	}
	test_textbook_code();
	{
		cJSON *list = codes_list_json();
		char *s = list ? cJSON_PrintUnformatted(list) : NULL;

		snprintf(text, sizeof(text), "\"name\":\"viterbi\"");
		CHECK(s && strstr(s, text) && strstr(s, "\"presets\"") && strstr(s, "\"ccsds\""),
		      "codes.list");
		cJSON_free(s);
		cJSON_Delete(list);
	}
}

/* codes_dir and codes_paths are put in force in the codec while a file's channels are read, and
 * a file that fails leaves the running ones. */
static void test_codes_paths(void)
{
	static const char any[] = "{\"codes_dir\": \"/tmp/x\", \"codes_paths\": \"any\", "
	                          "\"channels\": []}";
	static const char abs_code[] =
	    "{\"channels\": [{\"id\": 1, \"code\": {\"family\": \"ldpc\", \"code\": "
	    "\"/etc/passwd\"}}]}";
	struct fecd_config cfg;
	char err[512] = "";

	fecd_config_defaults(&cfg);
	CHECK(cfg.codes_paths == FEC_PATHS_CODES_DIR && fec_code_paths() == FEC_PATHS_CODES_DIR,
	      "the daemon's default is codes_dir");
	CHECK(fecd_config_parse(any, strlen(any), &cfg, err, sizeof(err)) == 0, "%s", err);
	CHECK(cfg.codes_paths == FEC_PATHS_ANY && fec_code_paths() == FEC_PATHS_ANY &&
	          !strcmp(fec_codes_dir(), "/tmp/x"),
	      "codes_paths any: %d %s", (int)fec_code_paths(), fec_codes_dir());
	CHECK(fecd_config_parse(abs_code, strlen(abs_code), &cfg, err, sizeof(err)) == -EINVAL &&
	          strstr(err, "channels[0].code") && strstr(err, "an absolute path") &&
	          strstr(err, "codes_paths"),
	      "an absolute code path under the default: %s", err);
	CHECK(fec_code_paths() == FEC_PATHS_ANY && !strcmp(fec_codes_dir(), "/tmp/x"),
	      "a refused file changed the codec's folder or policy: %d %s", (int)fec_code_paths(),
	      fec_codes_dir());
	fecd_config_defaults(&cfg);
}

static void test_partial_update(void)
{
	struct chan_config base, out;
	const struct setting *d;
	char err[512] = "";
	cJSON *j = cJSON_Parse("{\"batch\":{\"jobs\":8},\"code\":{\"traceback_len\":100}}");

	chan_config_defaults(&base, 3);
	CHECK(!strcmp(base.name, "ch3"), "default name %s", base.name);
	CHECK(chan_config_from_json(j, &base, &out, err, sizeof(err)) == 0, "%s", err);
	d = settings_next_diff(fecd_chan_settings, &base, &out);
	CHECK(d && !strcmp(d->path, "code"), "first change %s", d ? d->path : "none");
	d = d ? settings_next_diff(d + 1, &base, &out) : NULL;
	CHECK(d && !strcmp(d->path, "batch.jobs"), "second change %s", d ? d->path : "none");
	CHECK(d && !settings_next_diff(d + 1, &base, &out), "more changes than asked for");
	CHECK(out.spec.u.conv.traceback_len == 100 && fec_spec_same_code(&out.spec, &base.spec),
	      "code override");
	cJSON_Delete(j);
}

static void test_markdown_and_paths(void)
{
	char *buf = NULL, path[128], dir[] = "/tmp/fecd-ctlpath-XXXXXX";
	size_t len = 0;
	const char *why = NULL;
	FILE *f = open_memstream(&buf, &len);

	CHECK(f && settings_write_markdown(f) == 0, "markdown");
	if (f)
		fclose(f);
	CHECK(buf && strstr(buf, "| `batch.jobs` | integer | 0..4096 | `0` | yes |"),
	      "markdown row");
	CHECK(buf && strstr(buf, "#### Family `viterbi`") && strstr(buf, "| `ccsds` |"),
	      "markdown codes");
	free(buf);

	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	setenv("RUNTIME_DIRECTORY", dir, 1);
	CHECK(fecd_control_path_default(path, sizeof(path), false, &why) == 0, "path");
	CHECK(!strncmp(path, dir, strlen(dir)) && strstr(path, "/control.sock") && why &&
	          strstr(why, "RUNTIME_DIRECTORY"),
	      "RUNTIME_DIRECTORY rule: %s (%s)", path, why ? why : "");
	CHECK(fecd_control_path_default(path, 8, false, NULL) == -ENAMETOOLONG, "short buffer");
	unsetenv("RUNTIME_DIRECTORY");
	setenv("XDG_RUNTIME_DIR", dir, 1);
	if (access("/run/fecd", F_OK) != 0) {
		/* The client never creates /run/fecd: it falls back to XDG_RUNTIME_DIR. */
		CHECK(fecd_control_path_default(path, sizeof(path), false, &why) == 0 &&
		          strstr(path, "/fecd-control.sock") && !strncmp(path, dir, strlen(dir)),
		      "XDG rule: %s", path);
		CHECK(access("/run/fecd", F_OK) != 0, "the client created /run/fecd");
	}
	setenv("RUNTIME_DIRECTORY", dir, 1);
	rmdir(dir);
}

static void test_load(void)
{
	static struct fecd_config cfg;
	char path[] = "/tmp/fecd-config-XXXXXX", err[512] = "";
	int fd = mkstemp(path);
	const char *text = "{\"channels\":[{\"id\":1,\"batch\":{\"jobs\":5000}}]}";

	CHECK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text), "temp file");
	close(fd);
	CHECK(fecd_config_load(path, &cfg, err, sizeof(err)) < 0, "bad file accepted");
	CHECK(!strncmp(err, "channels[0].batch.jobs: expected", 32), "load message: %s", err);
	unlink(path);
	CHECK(fecd_config_load(path, &cfg, err, sizeof(err)) == -ENOENT, "missing file: %s", err);
}

int main(void)
{
	char dir[] = "/tmp/fecd-cfgtest-XXXXXX";

	/* Keep the default socket rule away from /run/fecd while testing. */
	if (mkdtemp(dir))
		setenv("RUNTIME_DIRECTORY", dir, 1);
	log_init();
	log_set_level(LOG_LVL_WARN);
	test_bad_configs();
	test_defaults();
	test_example();
	test_codes();
	test_codes_paths();
	test_partial_update();
	test_markdown_and_paths();
	test_load();
	rmdir(dir);
	return check_done();
}
