/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_SECRETS_H
#define SLUICE_SECRETS_H

/*
 * The daemon's credential store, syslog-ng's secret storage: secrets given
 * at run time (`sluice-ctl credentials add --id=KEY --secret=...`, the
 * control socket's "PWD add KEY SECRET") under a key, today the path of a
 * TLS key-file protected by a passphrase.  The store lives as long as the
 * process, so a reload keeps what was given.  A user of a key says it
 * needs it (it is then listed as PENDING), and says whether the secret it
 * found worked (SUCCESS, INVALID_PASSWORD, or FAILED when it opened a key
 * that is of no use); `sluice-ctl credentials
 * status` lists each key with that state, never a secret.  A secret is
 * wiped from memory when replaced.  Thread-safe.
 */

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>

typedef enum SluiceSecretState
{
  SLUICE_SECRET_PENDING,          /* needed, not given (or not tried yet) */
  SLUICE_SECRET_SUCCESS,          /* given and it worked */
  SLUICE_SECRET_INVALID_PASSWORD, /* given and it did not */
  SLUICE_SECRET_FAILED,           /* given, it opened the key, and the key is of no use */
} SluiceSecretState;

/* Stores secret (len bytes) under key, replacing (and wiping) an earlier
 * one; a user waiting for the key tries again at its next use. */
void sluice_secret_add(const char *key, const char *secret, size_t len);

/* Copies the secret of key into buf (at most size bytes, no NUL added);
 * false when there is none or it does not fit.  *len gets its length
 * (also when it does not fit; 0 when there is none). */
bool sluice_secret_copy(const char *key, char *buf, size_t size, size_t *len);

/* How many times a secret was added: a user that failed with one tries
 * again only when this has moved. */
unsigned sluice_secret_generation(void);

/* Lists key with state (a key not listed yet becomes PENDING). */
void sluice_secret_set_state(const char *key, SluiceSecretState state);

/* "KEY\tSTATE\n" for each listed key, as syslog-ng-ctl prints them. */
void sluice_secret_status(GString *out);

/* Wipes len bytes at p so that the compiler cannot drop the writes. */
void sluice_secret_wipe(void *p, size_t len);

#endif
