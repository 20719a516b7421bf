/* ranges.h — `pciesim CONFIG --ranges`: a config's figures over its assumptions' ranges (config.h PsAssumption),
 * each with its interval and the assumptions that move it most (docs/trust.md).
 *
 * Contract:
 * - The runs: the plain run (its figures are the report's, to the byte); each assumption alone at its low and its
 *   high end, the others at their values (one at a time: the sensitivities); every corner when there are at most
 *   PS_RANGES_MAX_CORNER_ASSUMPTIONS; `samples` Latin-hypercube points (0: none; stratified in each range, paired at
 *   random from a GLib stream seeded with the seed, the only runs that read it); then, for each figure and each
 *   way, a search (issue #37): the corner the one-at-a-time runs point to (each assumption at the end that moved the
 *   figure that way, at its value where neither did), run with every mode, then from the best point any run so far
 *   found for it, NLopt's bounded Nelder-Mead over the assumptions that can move the figure, within
 *   2 (d + 1) + 10 runs of the figure's own mode. Each run is the config loaded again with the caller's --sets and
 *   then the run's values as --sets (ps_config_set_text()), run with the same seed and modes.
 * - A figure's interval is the lowest and highest it took over every run: its worst case over the ranges as far as
 *   the search finds it (a search, not a proof; docs/trust.md), with where each was found (lo_at, hi_at). Without
 *   `samples` it does not depend on the seed beyond the plain run's own figures. A figure no run moves "depends on
 *   no assumption" (lo == hi == value). The result does not depend on `jobs` (the searches' runs are cached by
 *   values and counted as the cache's keys).
 * - Runs with the same values (an end that is the value itself) are simulated once.
 * - A key only one mechanism reads (ps_key_use(), builder.h) is run alone only in the modes of the plain run where
 *   that mechanism worked (its `uses`); the other modes' figures are the plain run's. Where it worked in none, the
 *   key is unread: its one-at-a-time runs are not simulated, their figures are the plain run's, and it moves
 *   nothing alone. The joint runs are all simulated.
 * - The runs go through ps_sweep_parallel() (sweep.h), `jobs` at once; results do not depend on `jobs`. A run that
 *   fails fails the whole (the lowest failing run's error, prefixed with the values it ran with).
 */
#pragma once

#include <glib.h>
#include <stdbool.h>

#include "app/config/config.h"
#include "app/base/format.h"
#include "app/report/report.h"
#include "app/report/report_ranges.h"

#define PS_RANGES_MAX_CORNER_ASSUMPTIONS 4
/* Run `cfg` (loaded from its path with `sets`) over its assumptions; `result` gets the plain run. `samples` is the
 * Latin-hypercube size (0: none). Free with ps_ranges_clear(). */
gboolean ps_ranges_run (const PsConfig *cfg, const char *const *sets, unsigned modes, uint64_t seed, int jobs,
                        guint samples, PsRunResult *result, PsRanges *out, GError **error);
void ps_ranges_clear (PsRanges *r);
