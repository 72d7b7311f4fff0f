/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_JSON_MODULE_H
#define SLUICE_JSON_MODULE_H

/* The json module: format-json and format-flat-json (format-json.c), and
 * format-welf and format-cef-extension (format-kv.c), on value-pairs
 * (value-pairs.h). */

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>

/* Append str[0..len) to out as the inside of a JSON string, escaped byte
 * for byte as syslog-ng 3.38's format-json does (see format-json.c). */
void json_append_escaped(GString *out, const char *str, size_t len);

/* Whether format-json and format-flat-json run the plan made once when a
 * message allows it (format-json.c); the tests turn it off to compare
 * with the general path.  true unless a test says otherwise. */
extern bool format_json_plans;

/* Register format-json, format-flat-json, format-welf and
 * format-cef-extension (configuration time). */
void json_register_template_functions(void);

/* format-welf and format-cef-extension (format-kv.c), which
 * json_register_template_functions registers too. */
void json_register_kv_template_functions(void);
/* $(graphite-output) (graphite-output.c) */
void json_register_graphite_template_functions(void);

#endif
