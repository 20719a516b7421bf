/* report_ranges.h — a run's figures over its assumptions' ranges as the reports write them: the intervals and
 * sensitivities that `--ranges` (app/study/ranges.h) computes, and their JSON members and table section.
 *
 * Contract:
 * - PsRanges is filled by ps_ranges_run() (app/study/ranges.h) and only read here; the report layer needs its
 *   shape, not how it was computed, so the study layer sits above the reports and not beside them.
 * - ps_ranges_figures() names a result's figures in PS_RANGE_* order, NaN where the run has none.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>

#include "app/base/format.h"
#include "app/config/config.h"
#include "app/report/report.h"

/* One assumption's effect on one figure: the figure with the assumption at its low and at its high end. */
typedef struct {
  const char *key; /* borrowed from the config's PsAssumption */
  double lo_value, hi_value, lo_figure, hi_figure;
} PsSensitivity;

typedef struct {
  bool valid; /* the figure exists in this run */
  double value, lo, hi; /* lo, hi: the lowest and highest over every run made, the searches' included */
  guint samples; /* runs the bound is taken over (those that have the figure) */
  double *lo_at, *hi_at; /* n_assumptions each: the values lo and hi were found at */
  double sample_lo, sample_hi; /* over the Latin-hypercube runs alone, when the ranges have any (sampled > 0) */
  PsSensitivity *sens; /* n_assumptions of them, largest |hi_figure - lo_figure| first (ties: the file's order) */
} PsFigureRange;

/* The figures that get an interval: per mode its MB/s (simultaneous: read, then write), per flow its MB/s, the
 * microbench's Gb/s and its median latency, a device workload's named figures (a latency's: its mean). */
enum { PS_RANGE_MODE = 0, PS_RANGE_FLOW = PS_RANGE_MODE + 2 * PS_N_MODES,
       PS_RANGE_MB_GBPS = PS_RANGE_FLOW + PS_TOPOLOGY_MAX_FLOWS, PS_RANGE_MB_P50,
       PS_RANGE_FIG, PS_RANGE_N = PS_RANGE_FIG + PS_MAX_NAMED_FIGURES };

struct PsRanges {
  guint n_assumptions;
  const PsAssumption *assumptions; /* the config's */
  guint runs, one_at_a_time, joint; /* runs = 1 + one_at_a_time + joint + searched */
  guint sampled; /* of the joint runs, the Latin-hypercube points (--samples); the others are corners */
  guint searched; /* runs of the searches for each figure's lowest and highest (ranges.h) */
  guint searches, budget; /* the searches (a figure's end each), the most runs one may take */
  guint simulated; /* of the runs, those simulated: the others repeat another run's values or are unread ones */
  guint unread_runs; /* one-at-a-time runs not simulated: their key is read by nothing the plain run ran */
  bool *unread; /* n_assumptions: TRUE for a key nothing the plain run ran reads (ps_key_use()) */
  bool corners; /* the joint runs include every corner (at most PS_RANGES_MAX_CORNER_ASSUMPTIONS assumptions) */
  PsFigureRange fig[PS_RANGE_N];
};

/* The figures a result has, in PS_RANGE_* order; NaN where it has none. */
void ps_ranges_figures (const PsRunResult *r, double out[PS_RANGE_N]);

/* The JSON members of figure `f` ("range" and "sensitivity" under `prefix`: "" or "read_"), at the current object. */
void ps_ranges_json_members (PsJson *j, const PsRanges *r, int f, const char *prefix);
/* The top-level "assumptions" member: every assumption with its value, range and where the range is written. */
void ps_ranges_json_assumptions (PsJson *j, const PsRanges *r, const PsConfig *cfg);
/* The table's section: every figure with its interval and the (up to) three assumptions that move it most. */
void ps_ranges_render_text (GString *out, const PsRanges *r, const PsRunResult *result, gboolean markdown);
