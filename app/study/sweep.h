/* sweep.h — `pciesim sweep` and `pciesim merge`: run a scenario's points, in parallel, sharded, resumable.
 *
 * Contract:
 * - Output is a pure function of the scenario, the seed and the shard: one row per point in point order, each
 *   row the point's id (index + 1), its axis values and its metrics. No wall-clock value is ever written, so
 *   runs with any --jobs, and merged shards, compare byte for byte with one unsharded run.
 *   CSV: a header line, then one line per point. JSON: an object whose "points" array holds one point per
 *   line, each a one-line JSON object — that line structure is part of the format, because resume and merge
 *   read a cut or sharded file back record by record (a JSON Lines record is a point line less its comma).
 * - --shard I/N keeps the points whose index % N == I - 1 (round robin, so cheap and costly corners of a
 *   sweep spread evenly). Merging sorts rows by id and checks the ids run 1..max without a gap; with round
 *   robin any missing shard leaves a gap unless there are fewer points than shards.
 * - Every point's config is loaded before any point runs, so a bad axis value fails at once, located in the
 *   scenario. Errors are reported for the lowest failing point, whatever the number of workers.
 * - The output file is only ever replaced whole (temporary file + rename). While a long sweep runs it is
 *   rewritten every few seconds with the points finished so far; --resume reads it back (tolerating a cut
 *   last line, e.g. of a killed `sweep > file`), keeps rows that match this scenario's points, runs the rest.
 *   A run that fails removes the file if it created it; an interrupted one (SIGINT, SIGTERM as a batch
 *   system sends before it kills or pre-empts a job) saves every finished point first.
 * - Models keep no global mutable state (checked when this was written: no writable statics in models/ or the
 *   engine), so each worker runs its point on its own engine without locks.
 */
#pragma once

#include <glib.h>
#include <signal.h>
#include <stdint.h>

#include "app/report/report.h"
#include "app/study/parallel.h"

typedef struct {
  const char *scenario;
  int jobs; /* worker threads; 0 = number of processors */
  guint shard_index, shard_count; /* 1-based; shard_count 0 = every point */
  PsFormat format; /* PS_FORMAT_CSV or PS_FORMAT_JSON */
  const char *output; /* NULL or "-" = stdout */
  gboolean resume; /* needs output */
  gboolean progress; /* progress line and timing summary on stderr */
  gboolean list; /* load every point's config, then write only "id,AXIS…" rows (CSV) instead of running */
  /* Set asynchronously (a signal handler) to stop: the points running finish, the output file gets every
   * finished point, and the run fails with PS_ERROR_FAILED. NULL = never. */
  const volatile sig_atomic_t *interrupted;
  uint64_t seed;
  const char *const *sets; /* --set KEY=VALUE applied to every point (scenario.h), may be NULL */
  unsigned modes; /* --mode: PsModeMask replacing the scenario's modes; 0 = not given */
} PsSweep;

/* Parse "I/N" with 1 <= I <= N; anything else is PS_ERROR_USAGE. */
gboolean ps_sweep_parse_shard (const char *spec, guint *index, guint *count, GError **error);
gboolean ps_sweep_run (const PsSweep *sweep, GError **error);
/* Join sweep outputs (shards, in any order) into the file one unsharded run writes. */
gboolean ps_sweep_merge (const char *const *inputs, const char *output, GError **error);

