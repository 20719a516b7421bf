/* cli.h — the actions behind the command line, callable from tests without spawning a process.
 *
 * Contract: ps_cli_run() loads the config, runs the requested modes through the builder, renders the report
 * and writes it (atomically when a file is named). On any error nothing is written and `error` carries the
 * PsErrorCode that is the process exit status. A trace, when asked for, is renamed into place only after the
 * report was written; a failed run leaves none. */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "app/report/report.h"

typedef struct {
  const char *config_path;
  const char *const *sets; /* NULL-terminated KEY=VALUE list, may be NULL */
  uint64_t seed;
  unsigned modes; /* PsModeMask; 0 = the config's benchmark.modes */
  PsFormat format;
  const char *output; /* NULL or "-" = stdout */
  /* --trace FILE (.vcd or .json; NULL = none), --trace-window START_NS:END_NS (NULL = all), --trace-max-bytes
   * (0 = SIM_TRACE_DEFAULT_MAX_BYTES). The trace is of the first mode run, or of a fabric's or the
   * microbenchmark's run: every workload (docs/traces.md). */
  const char *trace_path, *trace_window;
  uint64_t trace_max_bytes;
  /* --ranges (ranges.h): the figures over the config's assumption ranges, on `jobs` threads (0 = processors),
   * `samples` Latin-hypercube points (0 = the default). Not with a trace. */
  gboolean ranges;
  int jobs;
  guint samples;
} PsCliRun;

gboolean ps_cli_run (const PsCliRun *run, GError **error);
