/* ranges.h — `pciesim CONFIG --ranges`: a config's figures over its assumptions' ranges (config.h PsAssumption),
 * each with its interval and the assumptions that move it most (docs/trust.md).
 *
 * Contract:
 * - The runs: the plain run (its figures are the report's, to the byte); each assumption alone at its low and its
 *   high end, the others at their values (one at a time: the sensitivities); and the assumptions together — every
 *   corner when there are at most PS_RANGES_MAX_CORNER_ASSUMPTIONS, else a Latin-hypercube sample of `samples`
 *   points (stratified in each assumption's range, paired at random from a GLib stream seeded with the seed), so
 *   the same config, sets and seed give the same runs and figures. Each run is the config loaded again with the
 *   caller's --sets and then the run's values as --sets (ps_config_set_text()), run with the same seed and modes.
 * - A figure's interval is the smallest and largest it took over every run, the plain one included: an interval
 *   over a sample, not a bound. A figure no run moves "depends on no assumption" (lo == hi == value).
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
/* The runs the default Latin-hypercube size aims to stay within (ps_ranges_default_samples()). */
#define PS_RANGES_RUN_BUDGET 40

/* The default Latin-hypercube size for n assumptions: max(8, n / 2), less (down to 4) where the plain and the 2 n
 * one-at-a-time runs leave less of PS_RANGES_RUN_BUDGET. */
guint ps_ranges_default_samples (guint n);
/* Run `cfg` (loaded from its path with `sets`) over its assumptions; `result` gets the plain run. `samples` is the
 * Latin-hypercube size (0: ps_ranges_default_samples()). Free with ps_ranges_clear(). */
gboolean ps_ranges_run (const PsConfig *cfg, const char *const *sets, unsigned modes, uint64_t seed, int jobs,
                        guint samples, PsRunResult *result, PsRanges *out, GError **error);
void ps_ranges_clear (PsRanges *r);
