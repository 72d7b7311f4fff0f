/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_PERSIST_H
#define SLUICE_PERSIST_H

/*
 * The persist file (syslog-ng's -R/--persist-file): small named blobs that
 * must outlive the process, such as the position a file() source's
 * destinations have acknowledged ("file:/var/log/app.log" -> device, inode,
 * offset).  The daemon opens one store at start, keeps it across reloads
 * and hands it to sources in LogSourceEnv.persist; it commits it about once
 * a second when something changed, after a reload and at stop, so a
 * SIGKILL loses at most the last second of changes (a source then reads
 * some lines again: nothing acknowledged is lost).
 *
 * Thread-safe.  get, set and remove take one mutex and never do I/O, so
 * a worker's or writer's ack path can call them; commit copies the
 * records under the mutex and writes without it.  The file is written
 * whole through PATH.tmp and a rename, so it is the old or the new one
 * after a crash, never a mix.  A file that is damaged or not ours is moved
 * aside (PATH.corrupt-<unix time>) with an error in the internal log, and
 * the store keeps the records before the damage (every record has its own
 * checksum): a bad file never stops the daemon.  The format is in
 * docs/architecture.md ("The persist file").
 */

#include <stdbool.h>
#include <stddef.h>

typedef struct PersistStore PersistStore;

/* The bounds every store keeps, in memory and in the file it loads, so a
 * hostile file cannot make the daemon allocate without end. */
#define PERSIST_MAX_KEY 4096                  /* bytes of a key, without its NUL */
#define PERSIST_MAX_VALUE 4096                /* bytes of a value */
#define PERSIST_MAX_RECORDS 1000000           /* keys in one store */
#define PERSIST_MAX_BYTES (256 * 1024 * 1024) /* keys and values together */

/* Open the store at path, loading what the file holds (a missing file is
 * an empty store; nothing is written until a commit finds a change).
 * Returns NULL with *error (g_free) only when path's directory cannot be
 * written (missing, not a directory, no permission, read-only): then no
 * commit could ever succeed. */
PersistStore *persist_store_open(const char *path, char **error);

/* Commit nothing, forget everything (NULL: nothing). */
void persist_store_free(PersistStore *s);

/* Copy key's value into buf (room for *len bytes) and set *len to its
 * length.  False when key is not there (*len = 0) or when the value does
 * not fit (*len = its length, nothing copied): a buffer of
 * PERSIST_MAX_VALUE bytes always fits. */
bool persist_store_get(PersistStore *s, const char *key, void *buf, size_t *len);

/* Set key (1..PERSIST_MAX_KEY bytes) to val[0..len) (len at most
 * PERSIST_MAX_VALUE).  Setting the value a key has is not a change.
 * False, with nothing changed, when a bound would be passed. */
bool persist_store_set(PersistStore *s, const char *key, const void *val, size_t len);

/* Forget key; nothing when it is not there. */
void persist_store_remove(PersistStore *s, const char *key);

/* Call fn for every key that starts with prefix ("" or NULL: all), in
 * strcmp order, until it returns false.  The store is locked meanwhile:
 * fn must not call the store. */
typedef bool (*PersistStoreFunc)(const char *key, const void *val, size_t len, void *user_data);
void persist_store_foreach(PersistStore *s, const char *prefix, PersistStoreFunc fn, void *user_data);

/* The number of keys. */
size_t persist_store_count(PersistStore *s);

/* True when something changed since the file was last written or read. */
bool persist_store_dirty(PersistStore *s);

/* Write the file when the store is dirty: PATH.tmp, fsync, rename over
 * PATH, fsync of the directory.  True when the file holds what the store
 * held when commit began (also when nothing had to be written); false with
 * *error (g_free) when it could not be written: the store stays dirty and
 * the old file stays whole.  Commits may run on any thread, one at a time. */
bool persist_store_commit(PersistStore *s, char **error);

/* The file's path, and its directory. */
const char *persist_store_path(PersistStore *s);
const char *persist_store_dir(PersistStore *s);

/* Why the file was not loaded whole at open ("checksum mismatch in record
 * 3", ...), NULL when it was (or there was none).  For tests and tools. */
const char *persist_store_load_error(PersistStore *s);

/* Where the damaged file was moved at open, NULL when it was not. */
const char *persist_store_moved_to(PersistStore *s);

#endif
