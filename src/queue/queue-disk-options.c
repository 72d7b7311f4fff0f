/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * disk-buffer() as syslog-ng 3.38 names its options, with the names
 * syslog-ng 4 gave them as aliases (capacity-bytes() = disk-buf-size(),
 * flow-control-window-bytes() = mem-buf-size(), flow-control-window-size()
 * = mem-buf-length(), front-cache-size() = qout-size(), prealloc()), and
 * one Sluice extension, fsync(yes): one fdatasync per pushed batch before
 * its messages are acked, so a reliable buffer also survives a power loss.
 * compaction() is not taken (it is refused as unknown).
 */
#include "sluice/logqueue-disk.h"

#include "sluice-config.h"
#include "sluice/internal-log.h"

#include <glib.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define OFF(field) offsetof(DiskBufferOptions, field)

const CfgOption disk_buffer_options_table[] = {
  { .name = "reliable", .type = CFG_OPT_BOOL, .offset = OFF(reliable) },
  { .name = "disk-buf-size", .type = CFG_OPT_SIZE, .offset = OFF(capacity), .def_int = -1, .min = 1,
    .max = INT64_C(1) << 50 },
  { .name = "capacity-bytes", .type = CFG_OPT_SIZE, .offset = OFF(capacity), .def_int = -1, .min = 1,
    .max = INT64_C(1) << 50 },
  { .name = "mem-buf-size", .type = CFG_OPT_SIZE, .offset = OFF(mem_buf_size), .def_int = -1, .min = 0,
    .max = INT64_MAX },
  { .name = "flow-control-window-bytes", .type = CFG_OPT_SIZE, .offset = OFF(mem_buf_size), .def_int = -1,
    .min = 0, .max = INT64_MAX },
  { .name = "mem-buf-length", .type = CFG_OPT_INT, .offset = OFF(mem_buf_length), .def_int = -1, .min = 0,
    .max = INT32_MAX },
  { .name = "flow-control-window-size", .type = CFG_OPT_INT, .offset = OFF(mem_buf_length), .def_int = -1,
    .min = 0, .max = INT32_MAX },
  { .name = "qout-size", .type = CFG_OPT_INT, .offset = OFF(qout_size), .def_int = -1, .min = 0,
    .max = INT32_MAX },
  { .name = "front-cache-size", .type = CFG_OPT_INT, .offset = OFF(qout_size), .def_int = -1, .min = 0,
    .max = INT32_MAX },
  { .name = "dir", .type = CFG_OPT_STRING, .offset = OFF(dir) },
  { .name = "prealloc", .type = CFG_OPT_BOOL, .offset = OFF(prealloc) },
  { .name = "truncate-size-ratio", .type = CFG_OPT_STRING, .offset = OFF(truncate_size_ratio) },
  { .name = "fsync", .type = CFG_OPT_BOOL, .offset = OFF(fsync) },
  { 0 },
};

const char *
disk_buffer_options_check(const CfgOption *opt, const void *field)
{
  const DiskBufferOptions *o = field;
  if (o->capacity < 0)
    return "disk-buf-size() (or capacity-bytes()) is required: the size of the buffer file";
  if (o->dir && !o->dir[0])
    return "dir() needs a directory";
  if (o->truncate_size_ratio)
    {
      char *end;
      double v = g_ascii_strtod(o->truncate_size_ratio, &end);
      if (*end || end == o->truncate_size_ratio || !(v >= 0 && v <= 1))
        return "truncate-size-ratio() takes a number between 0 and 1";
    }
  return NULL;
}

bool
disk_buffer_persist_name(const CfgNode *call, const char **name, CfgError *err)
{
  *name = NULL;
  const CfgNode *given = cfg_option_given(call, "persist-name");
  if (!given)
    return true;
  if (given->n_children > 0 || given->n_args != 1 || given->args[0].type == CFG_VAL_NUMBER || !*given->args[0].str)
    {
      cfg_error_set(err, &given->loc, "%s(): persist-name() takes one name", call->name);
      return false;
    }
  *name = given->args[0].str;
  return true;
}

bool
disk_buffer_options_load(DiskBufferOptions *o, const CfgNode *call, CfgError *err)
{
  memset(o, 0, sizeof(*o));
  const CfgNode *block = cfg_option_given(call, "disk-buffer");
  if (!block)
    return true;
  cfg_options_defaults(disk_buffer_options_table, o);
  const char *problem = NULL;
  if (!cfg_options_apply(disk_buffer_options_table, block, o, "disk-buffer()", err) ||
      (problem = disk_buffer_options_check(NULL, o)))
    {
      if (problem)
        cfg_error_set(err, &block->loc, "disk-buffer(): %s", problem);
      cfg_options_free(disk_buffer_options_table, o);
      memset(o, 0, sizeof(*o));
      return false;
    }
  if (o->capacity < DISKQ_MIN_CAPACITY)
    {
      sluice_log(SLUICE_LOG_WARNING, "The configured disk buffer size is smaller than the minimum allowed; "
                 "using 1 MiB", NULL);
      o->capacity = DISKQ_MIN_CAPACITY;
    }
  o->enabled = true;
  return true;
}

void
disk_buffer_options_free(DiskBufferOptions *o)
{
  if (o->enabled)
    cfg_options_free(disk_buffer_options_table, o);
  memset(o, 0, sizeof(*o));
}

const char *
disk_buffer_default_dir(void)
{
  return SLUICE_STATEDIR;
}
