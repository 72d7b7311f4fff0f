/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RFC 3161 time stamps of a logstore's chain (docs/logstore-format.md,
 * TIMESTAMP chunks): asking a time-stamping authority over HTTP for a
 * token on a chunk hash (the writer), and checking a token (the reader).
 */
#ifndef SLUICE_LOGSTORE_TSA_H
#define SLUICE_LOGSTORE_TSA_H

#include "logstore-file.h"

#include <glib.h>
#include <openssl/x509.h>
#include <stdbool.h>

/* Split "http://host[:port]/path"; false for anything else (https too). */
bool ls_tsa_url_parse(const char *url, char **host, char **port, char **path);

/* A token from the TSA at url (plain HTTP POST, timeout_ms for all of it)
 * on hash, under policy (an OID, or NULL for the TSA's default), checked
 * against the request (status granted, the imprint, the nonce, the
 * policy), appended to token (DER).  False with *error. */
bool ls_tsa_stamp(const char *url, const char *policy, const uint8_t hash[LS_HASH_LEN], int timeout_ms,
                  GByteArray *token, char **error);

/* Check a token (DER) against the hash it must stamp; with ca, its
 * signature and its signer's chain to ca too.  *when gets its time
 * (g_free).  False with *error. */
bool ls_tsa_check(const uint8_t *der, size_t len, const uint8_t hash[LS_HASH_LEN], X509_STORE *ca,
                  char **when, char **error);

#endif
