/*
 * Command-line access to fecd_proto for the GNU Radio interoperability test (gr_interop.py), which
 * checks our bytes against GNU Radio's own pmt library and gr-zeromq blocks:
 *   proto_tool pdu-write CH SEQ STATUS FAMILY IN_FIRST IN_COUNT IN_SEQ BITS CODE_GEN WORK METRIC
 *                        FLAGS OUT_BIT_OFFSET UNPACKED HEX   -> the PDU, as hex on stdout
 *                        [END_CAUSE]                   (END_CAUSE: with FLAGS' END_OF_STREAM)
 *                        (WORK: the 32-bit counter; iterations is it saturated at 65535)
 *   proto_tool pdu-parse FILE                                 -> key=value lines
 *   proto_tool taghdr FILE                                    -> hdr_len=N offset=N
 * Status and family are names; FLAGS is the output flag word; HEX the packed payload bits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fecd_proto.h"

static size_t read_file(const char *path, uint8_t **out)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 16, n = 0;
	uint8_t *b = malloc(cap);

	if (!f || !b) {
		fprintf(stderr, "cannot read %s\n", path);
		exit(2);
	}
	for (;;) {
		size_t got = fread(b + n, 1, cap - n, f);
		n += got;
		if (n < cap)
			break;
		cap *= 2;
		b = realloc(b, cap);
		if (!b)
			exit(2);
	}
	fclose(f);
	*out = b;
	return n;
}

static int cmd_pdu_write(char **a)
{
	struct fecd_out_hdr h = {0};
	int status = fecd_status_from_name(a[2]), family = fecd_family_from_name(a[3]);

	if (status < 0 || family < 0) {
		fprintf(stderr, "unknown status or family\n");
		return 2;
	}
	h.channel = (uint32_t)strtoul(a[0], NULL, 0);
	h.frame_seq = strtoull(a[1], NULL, 0);
	h.status = (uint8_t)status;
	h.family = (uint8_t)family;
	h.in_first = strtoull(a[4], NULL, 0);
	h.in_count = (uint32_t)strtoul(a[5], NULL, 0);
	h.in_seq = strtoull(a[6], NULL, 0);
	h.payload_bits = (uint32_t)strtoul(a[7], NULL, 0);
	h.code_gen = (uint32_t)strtoul(a[8], NULL, 0);
	/* the work counter, as the daemon writes it: iterations its 16-bit saturation */
	h.work = (uint32_t)strtoul(a[9], NULL, 0);
	h.iterations = h.work > UINT16_MAX ? UINT16_MAX : (uint16_t)h.work;
	h.metric = strtof(a[10], NULL);
	h.flags = (uint16_t)strtoul(a[11], NULL, 0);
	h.out_bit_offset = strtoull(a[12], NULL, 0);
	bool unpacked = atoi(a[13]) != 0;
	if (a[15]) /* END_CAUSE, optional */
		h.end_cause = (uint8_t)strtoul(a[15], NULL, 0);

	size_t nhex = strlen(a[14]) / 2;
	uint8_t *bits = calloc(nhex + 1, 1);
	for (size_t i = 0; i < nhex; i++) {
		unsigned v;
		if (sscanf(a[14] + 2 * i, "%2x", &v) != 1)
			return 2;
		bits[i] = (uint8_t)v;
	}
	size_t cap = fecd_pdu_max_len(h.payload_bits, unpacked);
	uint8_t *buf = malloc(cap);
	long n = fecd_pdu_write(&h, bits, unpacked, buf, cap);
	if (n < 0) {
		fprintf(stderr, "pdu_write: %s\n", fecd_proto_strerror((int)n));
		return 1;
	}
	for (long i = 0; i < n; i++)
		printf("%02x", buf[i]);
	printf("\n");
	free(buf);
	free(bits);
	return 0;
}

static int cmd_pdu_parse(const char *path)
{
	uint8_t *b;
	size_t n = read_file(path, &b);
	struct fecd_out_hdr h;
	const uint8_t *bytes;
	size_t nbytes;
	bool unpacked;
	int r = fecd_pdu_parse_ex(b, n, &h, &bytes, &nbytes, &unpacked);

	if (r) {
		printf("error=%d %s\n", r, fecd_proto_strerror(r));
		return 1;
	}
	printf("channel=%u\nframe_seq=%llu\nstatus=%s\nfamily=%s\nin_first=%llu\nin_count=%u\n"
	       "in_seq=%llu\npayload_bits=%u\ncode_gen=%u\niterations=%u\nwork=%u\nmetric=%.9g\n"
	       "flags=%u\nout_bit_offset=%llu\nunpacked=%d\nbytes=",
	       h.channel, (unsigned long long)h.frame_seq, fecd_status_name(h.status),
	       fecd_family_name(h.family), (unsigned long long)h.in_first, h.in_count,
	       (unsigned long long)h.in_seq, h.payload_bits, h.code_gen, h.iterations, h.work,
	       h.metric, h.flags, (unsigned long long)h.out_bit_offset, unpacked);
	for (size_t i = 0; i < nbytes; i++)
		printf("%02x", bytes[i]);
	printf("\n");
	free(b);
	return 0;
}

static int cmd_taghdr(const char *path)
{
	uint8_t *b;
	size_t n = read_file(path, &b), hl = 0;
	uint64_t off = 0;
	int r = fecd_gr_tag_header_parse(b, n, &hl, &off);

	if (r)
		printf("error=%d %s\n", r, fecd_proto_strerror(r));
	else
		printf("hdr_len=%zu offset=%llu\n", hl, (unsigned long long)off);
	free(b);
	return r ? 1 : 0;
}

int main(int argc, char **argv)
{
	if ((argc == 17 || argc == 18) && strcmp(argv[1], "pdu-write") == 0)
		return cmd_pdu_write(argv + 2);
	if (argc == 3 && strcmp(argv[1], "pdu-parse") == 0)
		return cmd_pdu_parse(argv[2]);
	if (argc == 3 && strcmp(argv[1], "taghdr") == 0)
		return cmd_taghdr(argv[2]);
	fprintf(stderr, "usage: proto_tool pdu-write ARGS... | pdu-parse FILE | taghdr FILE\n");
	return 2;
}
