/*
 * CURVE on the data sockets (curve.h): the ZAP handler thread with its table of allowed client
 * keys per domain, and the setup of one channel socket as CURVE server or client.
 *
 * The handler answers every ZAP request itself, so no CURVE server socket of fecd's context is
 * ever without one while it exists (libzmq lets every client in when no handler is bound): it is
 * started before the first server socket binds and stopped after the last has closed.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zmq.h>

#include "curve.h"
#include "curve_keys.h"
#include "log.h"
#include "service.h"

#define ZAP_ENDPOINT    "inproc://zeromq.zap.01"
#define ZAP_STOP        "inproc://fecd-zap-stop"
#define ZAP_PARTS_MAX   8
#define ZAP_LOGGED_KEYS 16 /* refused keys remembered per domain, so each is logged once */

struct zap_domain {
	char name[CURVE_DOMAIN_MAX];
	char label[96];
	char clients_file[FECD_KEY_PATH_MAX];
	uint8_t (*keys)[CURVE_KEY_BYTES];
	unsigned nkeys;
	uint8_t logged[ZAP_LOGGED_KEYS][CURVE_KEY_BYTES];
	unsigned nlogged, next_logged;
	struct zap_domain *next;
};

struct zap {
	void *rep, *stop_rx, *stop_tx;
	pthread_t thread;
	pthread_mutex_t lock; /* domains */
	struct zap_domain *domains;
};

static atomic_uint domain_seq;

/* ---- The handler */

static struct zap_domain *find_domain(struct zap *z, const char *name, size_t len)
{
	for (struct zap_domain *dom = z->domains; dom; dom = dom->next)
		if (strlen(dom->name) == len && memcmp(dom->name, name, len) == 0)
			return dom;
	return NULL;
}

/* Under z->lock: true the first time this key is refused on this domain (lately). */
static bool first_refusal(struct zap_domain *dom, const uint8_t *key)
{
	for (unsigned i = 0; i < dom->nlogged; i++)
		if (memcmp(dom->logged[i], key, CURVE_KEY_BYTES) == 0)
			return false;
	memcpy(dom->logged[dom->next_logged], key, CURVE_KEY_BYTES);
	dom->next_logged = (dom->next_logged + 1) % ZAP_LOGGED_KEYS;
	if (dom->nlogged < ZAP_LOGGED_KEYS)
		dom->nlogged++;
	return true;
}

/* The verdict on one request: "200" (the key is listed) or "400". */
static const char *decide(struct zap *z, zmq_msg_t *parts, int n, const char **text)
{
	const char *domain = zmq_msg_data(&parts[2]), *mech = zmq_msg_data(&parts[5]);
	size_t domain_len = zmq_msg_size(&parts[2]);
	const uint8_t *key;
	struct zap_domain *dom;
	char z85[CURVE_KEY_Z85_LEN + 1], address[64];
	bool allowed = false, log_it;

	if (n != 7 || zmq_msg_size(&parts[5]) != 5 || memcmp(mech, "CURVE", 5) != 0 ||
	    zmq_msg_size(&parts[6]) != CURVE_KEY_BYTES) {
		*text = "only CURVE clients are checked here";
		return "400";
	}
	key = zmq_msg_data(&parts[6]);
	pthread_mutex_lock(&z->lock);
	dom = find_domain(z, domain, domain_len);
	for (unsigned i = 0; dom && i < dom->nkeys && !allowed; i++)
		allowed = memcmp(dom->keys[i], key, CURVE_KEY_BYTES) == 0;
	log_it = dom && !allowed && first_refusal(dom, key);
	if (log_it) {
		size_t alen = zmq_msg_size(&parts[3]);

		if (alen >= sizeof(address))
			alen = sizeof(address) - 1;
		memcpy(address, zmq_msg_data(&parts[3]), alen);
		address[alen] = '\0';
		for (size_t i = 0; i < alen; i++)
			if (address[i] < ' ' || address[i] > '~')
				address[i] = '?';
		zmq_z85_encode(z85, key, CURVE_KEY_BYTES);
		log_warn("%s: refused the CURVE client key %s from %s: not in %s (logged once per "
		         "key; stats.get counts every refusal in handshake_failures)",
		         dom->label, z85, alen ? address : "a local peer", dom->clients_file);
	}
	pthread_mutex_unlock(&z->lock);
	if (!dom) {
		*text = "no such domain";
		return "400";
	}
	*text = allowed ? "OK" : "client key not allowed";
	return allowed ? "200" : "400";
}

static void reply(struct zap *z, const void *request_id, size_t id_len, const char *status,
                  const char *text)
{
	zmq_send(z->rep, "1.0", 3, ZMQ_SNDMORE);
	zmq_send(z->rep, request_id, id_len, ZMQ_SNDMORE);
	zmq_send(z->rep, status, strlen(status), ZMQ_SNDMORE);
	zmq_send(z->rep, text, strlen(text), ZMQ_SNDMORE);
	zmq_send(z->rep, "", 0, ZMQ_SNDMORE); /* user id */
	zmq_send(z->rep, "", 0, 0);           /* metadata */
}

static void serve_one(struct zap *z)
{
	zmq_msg_t parts[ZAP_PARTS_MAX], extra;
	const char *status = "500", *text = "malformed request";
	bool too_many = false;
	int n = 0, more = 1;

	while (more) {
		zmq_msg_t *m = n < ZAP_PARTS_MAX ? &parts[n] : &extra;

		zmq_msg_init(m);
		if (zmq_msg_recv(m, z->rep, 0) < 0) {
			zmq_msg_close(m);
			break;
		}
		more = zmq_msg_more(m);
		if (m == &extra) {
			zmq_msg_close(m);
			too_many = true;
		} else {
			n++;
		}
	}
	if (n >= 6 && !too_many && zmq_msg_size(&parts[0]) == 3 &&
	    memcmp(zmq_msg_data(&parts[0]), "1.0", 3) == 0)
		status = decide(z, parts, n, &text);
	/* A REP socket answers before it receives again; libzmq refuses anything but 200. */
	if (n >= 2)
		reply(z, zmq_msg_data(&parts[1]), zmq_msg_size(&parts[1]), status, text);
	else if (n == 1)
		reply(z, "", 0, status, text);
	for (int i = 0; i < n; i++)
		zmq_msg_close(&parts[i]);
}

static void *zap_thread(void *arg)
{
	struct zap *z = arg;

	for (;;) {
		zmq_pollitem_t items[2] = {{z->rep, 0, ZMQ_POLLIN, 0},
		                           {z->stop_rx, 0, ZMQ_POLLIN, 0}};

		if (zmq_poll(items, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			log_err("ZAP handler: %s; CURVE handshakes will stall",
			        zmq_strerror(errno));
			break;
		}
		if (items[1].revents & ZMQ_POLLIN)
			break;
		if (items[0].revents & ZMQ_POLLIN)
			serve_one(z);
	}
	zmq_close(z->rep);
	zmq_close(z->stop_rx);
	return NULL;
}

int zap_start(void *zctx, struct zap **out, char *err, size_t errlen)
{
	struct zap *z = calloc(1, sizeof(*z));
	int zero = 0, rc;

	if (!z) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	pthread_mutex_init(&z->lock, NULL);
	z->rep = zmq_socket(zctx, ZMQ_REP);
	z->stop_rx = zmq_socket(zctx, ZMQ_PAIR);
	z->stop_tx = zmq_socket(zctx, ZMQ_PAIR);
	if (!z->rep || !z->stop_rx || !z->stop_tx)
		goto out_zmq;
	zmq_setsockopt(z->rep, ZMQ_LINGER, &zero, sizeof(zero));
	zmq_setsockopt(z->stop_rx, ZMQ_LINGER, &zero, sizeof(zero));
	zmq_setsockopt(z->stop_tx, ZMQ_LINGER, &zero, sizeof(zero));
	if (zmq_bind(z->rep, ZAP_ENDPOINT) != 0 || zmq_bind(z->stop_rx, ZAP_STOP) != 0 ||
	    zmq_connect(z->stop_tx, ZAP_STOP) != 0)
		goto out_zmq;
	rc = pthread_create(&z->thread, NULL, zap_thread, z);
	if (rc) {
		snprintf(err, errlen, "cannot start the ZAP handler thread: %s", strerror(rc));
		rc = -rc;
		goto out_close;
	}
	log_info("ZAP handler: checking CURVE client keys on %s", ZAP_ENDPOINT);
	*out = z;
	return 0;

out_zmq:
	rc = -errno;
	snprintf(err, errlen, "cannot start the ZAP handler: %s", zmq_strerror(errno));
out_close:
	if (z->rep)
		zmq_close(z->rep);
	if (z->stop_rx)
		zmq_close(z->stop_rx);
	if (z->stop_tx)
		zmq_close(z->stop_tx);
	pthread_mutex_destroy(&z->lock);
	free(z);
	return rc;
}

void zap_stop(struct zap *z)
{
	if (!z)
		return;
	zmq_send(z->stop_tx, "", 0, 0);
	pthread_join(z->thread, NULL);
	zmq_close(z->stop_tx);
	while (z->domains) {
		struct zap_domain *dom = z->domains;
		z->domains = dom->next;
		free(dom->keys);
		free(dom);
	}
	pthread_mutex_destroy(&z->lock);
	free(z);
}

/* ---- Channel sockets */

/* Registers a server socket's allowed keys (taking them over) under a new domain. */
static int zap_allow(struct zap *z, const char *label, const char *clients_file,
                     uint8_t (*keys)[CURVE_KEY_BYTES], unsigned nkeys,
                     char domain[CURVE_DOMAIN_MAX])
{
	struct zap_domain *dom = calloc(1, sizeof(*dom));

	if (!dom)
		return -ENOMEM;
	snprintf(dom->name, sizeof(dom->name), "fecd.%u", atomic_fetch_add(&domain_seq, 1));
	snprintf(dom->label, sizeof(dom->label), "%s", label);
	snprintf(dom->clients_file, sizeof(dom->clients_file), "%s", clients_file);
	dom->keys = keys;
	dom->nkeys = nkeys;
	pthread_mutex_lock(&z->lock);
	dom->next = z->domains;
	z->domains = dom;
	pthread_mutex_unlock(&z->lock);
	memcpy(domain, dom->name, sizeof(dom->name));
	return 0;
}

void curve_socket_forget(struct fecd *d, const char *domain)
{
	struct zap *z = domain[0] ? fecd_zap(d, false, NULL, 0) : NULL;

	if (!z)
		return;
	pthread_mutex_lock(&z->lock);
	for (struct zap_domain **pp = &z->domains; *pp; pp = &(*pp)->next) {
		struct zap_domain *dom = *pp;

		if (strcmp(dom->name, domain) != 0)
			continue;
		*pp = dom->next;
		free(dom->keys);
		free(dom);
		break;
	}
	pthread_mutex_unlock(&z->lock);
}

static int set_key(void *sock, int option, const char *z85, const char *what, char *err,
                   size_t errlen)
{
	if (zmq_setsockopt(sock, option, z85, CURVE_KEY_Z85_LEN) == 0)
		return 0;
	snprintf(err, errlen, "%s.curve: libzmq refused a key: %s", what, zmq_strerror(errno));
	return -errno;
}

int curve_socket_setup(struct fecd *d, void *sock, const struct endpoint_config *ec,
                       const char *what, const char *label, char domain[CURVE_DOMAIN_MAX],
                       char *err, size_t errlen)
{
	const struct curve_config *cc = &ec->curve;
	uint8_t(*keys)[CURVE_KEY_BYTES] = NULL;
	struct curve_keypair kp;
	char server[CURVE_KEY_Z85_LEN + 1], msg[384];
	unsigned nkeys = 0;
	int one = 1, rc;
	struct zap *z;

	domain[0] = '\0';
	if (!cc->secret_key_file[0])
		return 0;
	if (!zmq_has("curve")) {
		snprintf(err, errlen, "%s.curve: this libzmq was built without CURVE", what);
		return -ENOTSUP;
	}
	rc = curve_read_secret(cc->secret_key_file, &kp, msg, sizeof(msg));
	if (rc) {
		snprintf(err, errlen, "%s.curve.secret_key_file: %s", what, msg);
		return rc;
	}
	if (ec->bind) {
		rc = curve_read_list(cc->clients_file, &keys, &nkeys, msg, sizeof(msg));
		if (rc) {
			snprintf(err, errlen, "%s.curve.clients_file: %s", what, msg);
			goto out_wipe;
		}
		z = fecd_zap(d, true, msg, sizeof(msg));
		if (!z) {
			snprintf(err, errlen, "%s.curve: %s", what, msg);
			rc = -EIO;
			free(keys);
			goto out_wipe;
		}
		rc = zap_allow(z, label, cc->clients_file, keys, nkeys, domain);
		if (rc) {
			snprintf(err, errlen, "%s.curve: out of memory", what);
			free(keys);
			goto out_wipe;
		}
		if (zmq_setsockopt(sock, ZMQ_ZAP_DOMAIN, domain, strlen(domain)) != 0 ||
		    zmq_setsockopt(sock, ZMQ_CURVE_SERVER, &one, sizeof(one)) != 0) {
			rc = -errno;
			snprintf(err, errlen, "%s.curve: %s", what, zmq_strerror(errno));
			goto out_wipe;
		}
		rc = set_key(sock, ZMQ_CURVE_SECRETKEY, kp.secret_z85, what, err, errlen);
		if (rc == 0)
			log_info("%s: CURVE server, public key %s, %u client key%s allowed (%s)",
			         label, kp.public_z85, nkeys, nkeys == 1 ? "" : "s",
			         cc->clients_file);
	} else {
		rc = curve_read_public(cc->server_key_file, server, msg, sizeof(msg));
		if (rc) {
			snprintf(err, errlen, "%s.curve.server_key_file: %s", what, msg);
			goto out_wipe;
		}
		rc = set_key(sock, ZMQ_CURVE_SERVERKEY, server, what, err, errlen);
		if (rc == 0)
			rc = set_key(sock, ZMQ_CURVE_PUBLICKEY, kp.public_z85, what, err, errlen);
		if (rc == 0)
			rc = set_key(sock, ZMQ_CURVE_SECRETKEY, kp.secret_z85, what, err, errlen);
		if (rc == 0)
			log_info("%s: CURVE client, public key %s, server key %s", label,
			         kp.public_z85, server);
	}
out_wipe:
	memset(&kp, 0, sizeof(kp));
	return rc;
}
