/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The message block cache (src/message/msgcache.c): where new blocks come
 * from and where the ones the depot cannot keep go back to. */
#include "message/msgcache.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REGION_BLOCKS ((int) (MSG_CACHE_REGION_BYTES / MSG_BLOCK_SIZE))
#define HUGE_PAGE ((uintptr_t) 2 << 20)

/* The VmFlags of the mapping that holds p, and its start; false when no
 * mapping of /proc/self/smaps holds it. */
static bool
_mapping_of(const void *p, char *flags, size_t room, uintptr_t *start)
{
  FILE *f = fopen("/proc/self/smaps", "r");
  cr_assert_not_null(f);
  char line[512];
  bool inside = false, found = false;
  while (fgets(line, sizeof(line), f))
    {
      unsigned long lo, hi;
      if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
        {
          inside = (uintptr_t) p >= lo && (uintptr_t) p < hi;
          if (inside)
            *start = lo;
        }
      else if (inside && strncmp(line, "VmFlags:", 8) == 0)
        {
          size_t n = strlen(line + 8) < room ? strlen(line + 8) : room - 1;
          memcpy(flags, line + 8, n);
          flags[n] = '\0';
          found = true;
          break;
        }
    }
  fclose(f);
  return found;
}

Test(msgcache, new_blocks_come_from_a_region_advised_for_huge_pages)
{
  void *b = msg_cache_alloc();
  if (SLUICE_NO_MSG_CACHE)
    {
      /* sanitizer builds: every block is malloc's, for AddressSanitizer */
      cr_assert_not(msg_cache_block_in_region(b));
      msg_cache_free(b);
      return;
    }
  cr_assert(msg_cache_block_in_region(b));
  char flags[256];
  uintptr_t start = 0;
  cr_assert(_mapping_of(b, flags, sizeof(flags), &start));
  cr_assert_eq(start % HUGE_PAGE, 0, "the region starts at %#lx, not on a huge page", (unsigned long) start);
  if (access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) == 0)
    cr_assert(strstr(flags, " hg") != NULL, "the region is not advised for huge pages: VmFlags:%s", flags);
  msg_cache_free(b);
}

/* More blocks than the region holds: the rest come from malloc; given
 * back, the ones the depot cannot keep go back where they came from (a
 * region block handed to free() aborts), and the region's blocks all serve
 * again. */
Test(msgcache, blocks_past_the_region_come_from_malloc_and_all_come_back)
{
  if (SLUICE_NO_MSG_CACHE)
    return;
  /* past the region, a multiple of the 64 blocks a magazine takes at once
   * while the pool grows: none is left over in this thread's magazine */
  enum { N = REGION_BLOCKS + 1024 };
  void **blocks = calloc(N, sizeof(void *));
  cr_assert_not_null(blocks);
  for (int round = 0; round < 2; round++)
    {
      size_t in_region = 0;
      for (size_t i = 0; i < N; i++)
        {
          blocks[i] = msg_cache_alloc();
          memset(blocks[i], 0xa5, MSG_BLOCK_SIZE);
          in_region += msg_cache_block_in_region(blocks[i]);
        }
      cr_assert_eq(in_region, REGION_BLOCKS, "round %d: %zu of %d blocks from the region", round, in_region,
                   N);
      /* the last ones given back are the region's: those overflow */
      for (size_t i = N; i-- > 0;)
        msg_cache_free(blocks[i]);
      msg_cache_thread_flush();
    }
  free(blocks);
}
