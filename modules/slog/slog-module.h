/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_SLOG_MODULE_H
#define SLUICE_SLOG_MODULE_H

/* Register $(slog) (tf-slog.c; configuration time). */
void slog_register_template_functions(void);

#endif
