/* fit.h — `pciesim fit FILE -o fitted.yaml`: a user's measurements in, the assumed values that reproduce them out
 * (docs/trust.md).
 *
 * Contract:
 * - FILE (YAML): `base:` a config (relative to FILE); `parameters:` (optional) keys of the base that carry a range
 *   (config.h PsAssumption), default every one; `measurements:` a non-empty list, each a mapping of an optional
 *   `set:` (config keys, nested or dotted, applied as --sets) and exactly one sweep metric (metrics.h) with its
 *   measured value (positive, finite, at most 1e12) and an optional `uncertainty_pct:`. Every mistake is a located PS_ERROR_DATA (exit 65): unknown keys, a parameter
 *   without a range ("not fittable"), an empty list, an unknown metric, a metric of a mode or workload the
 *   measurement's config does not run, a metric that is text or an interval's end, a parameter a measurement's
 *   own set: fixes, the same set: and metric measured twice further apart than their uncertainties.
 * - A parameter is constrained when moving it from its range's low to its high end moves at least one measured
 *   figure with the others at their file values, at the fitted point or at a restart's start (issue #37: a
 *   parameter can matter only where another has moved); one found so after the search joins it, which runs again
 *   from the fitted point. An unconstrained one keeps its file value and is not written.
 * - The search: NLopt's Nelder-Mead simplex (derivative-free, bounded) over the constrained parameters scaled to
 *   [0, 1], from the file values, minimising the sum of squared relative errors; integer parameters are rounded at
 *   every evaluation (ps_config_snap()) and then improved one at a time over a geometric grid of their range and
 *   by single steps (a plateau, where another resource binds, can hold the simplex); the continuous ones then
 *   one at a time by probes at 1/8 to 1/1024 of their range on each side (a figure a clocked part bounds is a
 *   staircase in them, whose steps hold the simplex too); when either moved, the simplex runs again from there.
 *   When the relative RMS error stays above 0.1%, four restarts from a Latin-hypercube sample of the ranges drawn
 *   from the seed; the best fit wins. No restarts when every measurement carries an uncertainty_pct and the fit is
 *   within each, or each one beyond it stays beyond it on the same side at the corner its derivatives at the fit
 *   point to (out of reach: no restart can bring it in). Deterministic: same file and seed, same result.
 * - Each constrained parameter's values that fit as well: a profile, the parameter fixed at each probe and the
 *   other constrained ones re-fitted, within 0.1 percentage points of the fit's relative RMS error (probes towards
 *   each end of its range, then up to 8 halvings to the first that does not fit, until the gap is a sixteenth of
 *   the interval's half). A re-fit starts from the last probe that fit, the others moved by the figures'
 *   derivatives at the fitted point (two runs per parameter), then up to three Gauss-Newton steps; a short simplex
 *   (20 + 10 evaluations per re-fitted parameter, up to three) only when those leave it unfit within 5 points of
 *   the fit's error, at most twice per end; each stops at the first point that fits as well. An interval reaching a range's end is a plateau.
 * - Every evaluation runs each measurement's config (base, the measurement's sets, the parameters' values as
 *   --sets), only the mode its metric reads, through ps_sweep_parallel() on `jobs` threads: one point's runs, a
 *   batch of points known in advance (screening, an integer's grid) at once; the restarts (all four, when the
 *   first descent is not good) and the profiles (one per parameter and direction) as parallel tasks, each keeping
 *   its points to itself until all are done. The result and the evaluations counted do not depend on `jobs`.
 * - Each measurement with an uncertainty_pct is judged at the fit: off by more than it, it is named and
 *   *disagree is set (exit 1). One without gets no verdict, said on its row and in the last lines with the largest
 *   such residual; no default tolerance is assumed. The report is a table or JSON (PsFit.format); a progress line
 *   goes to stderr while it runs when PsFit.progress.
 * - The output config includes the base (a path relative to the output) and sets each constrained parameter to its
 *   fitted value with a comment naming the fit; it is written atomically. The report (stdout) gives each
 *   measurement's residual and each parameter's value and whether the data constrain it.
 */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "app/base/format.h"

typedef struct {
  const char *path; /* the measurement file */
  const char *output; /* the fitted config; NULL = none written */
  uint64_t seed;
  int jobs;
  PsFormat format; /* PS_FORMAT_TABLE (0) or PS_FORMAT_JSON */
  gboolean progress; /* evaluations and the best error so far on stderr while it runs (a terminal, not --quiet) */
} PsFit;

/* FALSE with `error` set when the file is wrong or a run fails. Otherwise TRUE, the report written and the fitted
 * config with it; *disagree (may be NULL) is TRUE when a measurement with an uncertainty_pct is off by more than
 * it at the fit (the report names each): the data are contradictory or out of the model's reach, exit 1. */
gboolean ps_fit_run (const PsFit *fit, GString *report, gboolean *disagree, GError **error);
