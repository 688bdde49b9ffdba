/*
 * Fuzz harness: the configuration file, as `fecd --check-config` reads it: fecd_config_parse on
 * the file's text (every setting through the settings tables, each channel's code object through
 * the family's parameter table, daemon/control/code_json.c), then a decoder built for each
 * channel's code (fec_decoder_create), as fecd does before it starts.
 *
 * Properties: a configuration that parses prints as JSON (fecd_config_to_json, what
 * --print-config and config.get give) that parses back to a configuration printing the same;
 * a code that parses builds its decoder (or runs out of the build time, fuzz.h). The codes folder
 * a file names is process-wide: it is put back after each input, so that inputs stay
 * independent.
 */
#include <cjson/cJSON.h>

#include "config.h"
#include "fec.h"
#include "fecd.h"
#include "fuzz.h"
#include "log.h"

/* Decoders built per input at most: each can take a while for long LDPC codes. */
#define MAX_DECODERS 4

static char *codes_dir_at_start;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	log_init();
	log_set_level((enum log_level)(LOG_LVL_ERR - 1));
	codes_dir_at_start = strdup(fec_codes_dir());
	if (!codes_dir_at_start)
		abort();
	return 0;
}

static char *config_text(const struct fecd_config *cfg)
{
	cJSON *j = fecd_config_to_json(cfg);
	char *text = j ? cJSON_PrintUnformatted(j) : NULL;

	FUZZ_CHECK(text != NULL, "configuration not printable");
	cJSON_Delete(j);
	return text;
}

static void check_round_trip(const struct fecd_config *cfg)
{
	struct fecd_config *back = malloc(sizeof(*back));
	char *text = config_text(cfg), err[512];

	if (!back)
		abort();
	int rc = fecd_config_parse(text, strlen(text), back, err, sizeof(err));
	FUZZ_CHECK(rc == 0, "the printed configuration is refused: %s\n%s", err, text);
	char *again = config_text(back);
	FUZZ_CHECK(strcmp(text, again) == 0, "the configuration changed in a round trip:\n%s\n%s",
	           text, again);
	free(again);
	free(text);
	free(back);
}

static void check_decoders(const struct fecd_config *cfg)
{
	for (uint32_t i = 0; i < cfg->nchannels && i < MAX_DECODERS; i++) {
		struct fec_decoder *dec;
		int rc = fec_decoder_create(&cfg->channels[i].spec, &dec);

		FUZZ_CHECK(rc == 0 || rc == -FEC_ETIME || rc == -FEC_ENOMEM,
		           "channels[%u]: a code that parsed builds no decoder: %s", i,
		           fec_strerror(rc));
		if (rc == 0)
			fec_decoder_destroy(dec);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fecd_config *cfg = malloc(sizeof(*cfg));
	char err[512];

	if (!cfg)
		abort();
	/* Text as fecd_config_load hands it over: the file's bytes and a terminator. */
	char *text = fuzz_text(data, size);
	fuzz_build_deadline();
	if (fecd_config_parse(text, size, cfg, err, sizeof(err)) == 0) {
		check_round_trip(cfg);
		check_decoders(cfg);
	}
	fec_codes_dir_set(codes_dir_at_start);
	free(text);
	free(cfg);
	return 0;
}
