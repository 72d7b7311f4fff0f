/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_NVREGISTRY_H
#define SLUICE_NVREGISTRY_H

/* Internal: a thread-safe name <-> small integer registry (see nvregistry.c).
 * Ids are dense, start at 0, and are never freed. */

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct NameRegistry NameRegistry;

/* What name_registry_intern returns for a new name once a registry is full. */
#define NAME_REGISTRY_FULL UINT32_MAX

/* A new, empty registry of at most max names (what, e.g. "name-value pair
 * names", says what it holds in the one log line it writes when full);
 * lives for the whole process. */
NameRegistry *name_registry_new(uint32_t max, const char *what);

/* The id of name[0..name_len), adding it if it is new;
 * NAME_REGISTRY_FULL when it is new and the registry is full (names made
 * from input, such as kv-parser keys, must not grow it without end). */
uint32_t name_registry_intern(NameRegistry *self, const char *name, size_t name_len);

/* Look name up without adding it; true and *id when it is there. */
bool name_registry_lookup(NameRegistry *self, const char *name, size_t name_len, uint32_t *id);

/* Make alias resolve to an existing id (its name stays the canonical one). */
void name_registry_alias(NameRegistry *self, const char *alias, uint32_t id);

/* The name of id (lives as long as the process), or NULL; no lock taken. */
const char *name_registry_name(NameRegistry *self, uint32_t id, size_t *name_len);

/* How many ids have been handed out. */
uint32_t name_registry_count(NameRegistry *self);

#endif
