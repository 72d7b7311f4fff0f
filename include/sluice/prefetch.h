/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Asking for cache lines ahead of use.  A message is made on a reader's CPU
 * and formatted and freed on a writer's: each of its lines is a transfer
 * between the two caches, paid in full when it is touched cold.  Asked for
 * one message ahead, the transfer overlaps the work on the current one.
 */
#ifndef SLUICE_PREFETCH_H
#define SLUICE_PREFETCH_H

#include <stddef.h>

#define PREFETCH_LINE 64

/* The lines of [p, p + bytes) for reading. */
static inline void
prefetch_read(const void *p, size_t bytes)
{
  for (size_t ofs = 0; ofs < bytes; ofs += PREFETCH_LINE)
    __builtin_prefetch((const char *) p + ofs, 0, 3);
}

/* The lines of [p, p + bytes) for writing: owned by this CPU when they
 * come.  PREFETCHW is a hint that does nothing where the CPU lacks it
 * (opcode 0F 0D is a NOP on every x86-64), and GCC emits it only when told
 * the CPU has it, hence the asm. */
static inline void
prefetch_write(const void *p, size_t bytes)
{
  for (size_t ofs = 0; ofs < bytes; ofs += PREFETCH_LINE)
    {
#if defined(__x86_64__)
      __asm__ volatile("prefetchw %0" : : "m"(((const char *) p)[ofs]));
#else
      __builtin_prefetch((const char *) p + ofs, 1, 3);
#endif
    }
}

#endif
