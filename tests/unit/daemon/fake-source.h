/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A source driver for pipeline tests: "fake" starts, stops and delivers
 * nothing by itself; the test delivers on its behalf. */
#ifndef SLUICE_TEST_FAKE_SOURCE_H
#define SLUICE_TEST_FAKE_SOURCE_H

#include "sluice/driver.h"

#include <stdlib.h>

static bool
fake_start(LogSourceDriver *s, const LogSourceEnv *env, char **error)
{
  return true;
}

static void
fake_stop(LogSourceDriver *s)
{
}

static void
fake_free(LogSourceDriver *s)
{
  free(s);
}

static const LogSourceOps fake_source_ops = { fake_start, fake_stop, fake_free };

static LogSourceDriver *
fake_new_source(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  LogSourceDriver *s = calloc(1, sizeof(*s));
  s->ops = &fake_source_ops;
  s->driver = "fake";
  return s;
}

#endif
