/*
 * The memory of finished codes, shared by the families that build their code to finish a spec
 * (ldpc, nbldpc): finishing a spec derives n, k and the like from the matrix, which can mean
 * reading a file or generating a large code. Describing a channel matches its code against every
 * preset (fec__preset_for_code finishes each), so without this memory the control loop would
 * build the presets again whenever other codes pushed them out.
 *
 * A key names the code and the version of what it is built from (a family's prefix, its
 * parameters, and for a file its path, size and modification time: fec__memo_file_key); the
 * value is the family's few derived numbers, copied as bytes. Slots are reused in turn; a
 * spinlock guards the table, whose lookups are a few hundred string compares.
 */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "fec_impl.h"

/* Room for the codes of every channel fecd can run (256) and every family's presets besides. */
#define MEMO_SLOTS 640

struct memo_slot {
	char key[FEC__MEMO_KEY];
	size_t len;
	unsigned char val[FEC__MEMO_VAL];
};

static struct memo_slot memo[MEMO_SLOTS];
static unsigned memo_next;
static atomic_flag memo_lock = ATOMIC_FLAG_INIT;

static void memo_lock_take(void)
{
	while (atomic_flag_test_and_set_explicit(&memo_lock, memory_order_acquire))
		;
}

static void memo_lock_give(void)
{
	atomic_flag_clear_explicit(&memo_lock, memory_order_release);
}

bool fec__memo_key(char *key, const char *fmt, ...)
{
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(key, FEC__MEMO_KEY, fmt, ap);
	va_end(ap);
	return len > 0 && len < FEC__MEMO_KEY;
}

bool fec__memo_file_key(char *key, const char *prefix, const char *name)
{
	struct fec__code_file f;
	struct stat st;

	if (fec__code_path(name, &f, NULL, 0) || stat(f.path, &st) || !S_ISREG(st.st_mode))
		return false;
	return fec__memo_key(key, "%s %s %lld %lld", prefix, f.path, (long long)st.st_size,
	                     (long long)st.st_mtime);
}

bool fec__memo_find(const char *key, void *val, size_t len)
{
	bool found = false;

	memo_lock_take();
	for (unsigned i = 0; i < MEMO_SLOTS && !found; i++) {
		if (memo[i].len != len || strcmp(memo[i].key, key))
			continue;
		memcpy(val, memo[i].val, len);
		found = true;
	}
	memo_lock_give();
	return found;
}

void fec__memo_add(const char *key, const void *val, size_t len)
{
	struct memo_slot *m;

	if (len > FEC__MEMO_VAL)
		return;
	memo_lock_take();
	m = &memo[memo_next];
	memo_next = (memo_next + 1) % MEMO_SLOTS;
	snprintf(m->key, sizeof(m->key), "%s", key);
	m->len = len;
	memcpy(m->val, val, len);
	memo_lock_give();
}
