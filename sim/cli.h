/* cli.h — the actions behind the command line, callable from tests without spawning a process.
 *
 * Contract: ps_cli_run() loads the config, runs the requested modes through the builder, renders the report
 * and writes it (atomically when a file is named). On any error nothing is written and `error` carries the
 * PsErrorCode that is the process exit status. */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "sim/report.h"

typedef struct {
  const char *config_path;
  const char *const *sets; /* NULL-terminated KEY=VALUE list, may be NULL */
  uint64_t seed;
  unsigned modes; /* PsModeMask; 0 = the config's benchmark.modes */
  PsFormat format;
  const char *output; /* NULL or "-" = stdout */
} PsCliRun;

gboolean ps_cli_run (const PsCliRun *run, GError **error);
