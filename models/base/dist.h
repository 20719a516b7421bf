/* dist.h — random durations for the parts of a system that are random in real life (interrupt delivery, process
 * wake-up: issue #14): a distribution built from the plain parameters a host file states, drawn from a GRand the
 * caller owns.
 *
 * Contract:
 * - Parameters are nanoseconds (double), as configs and host files state times; draws are integer picoseconds
 *   (SimTime), the engine's unit, rounded to the nearest picosecond as units_ns_to_ps() does. A draw is never
 *   negative and never above DIST_MAX_NS (1e12 ns, host_params_check()'s bound): a lognormal's far tail is clamped
 *   there, which no 10^4-draw run can tell from the true tail.
 * - Kinds:
 *   fixed(v)                  always v; draws nothing from the GRand, so a config with only fixed values gives the
 *                             same bytes whatever --seed is (dist_is_random() is FALSE).
 *   uniform(min, max)         u in [0, 1) -> min + u (max - min); one g_rand_double() per draw.
 *   lognormal(median, p99)    ln X ~ N(mu, sigma^2) with mu = ln(median) and sigma = (ln(p99) - mu) / z99,
 *                             z99 = 2.3263478740408408 the standard normal's 0.99 quantile; so the median and the
 *                             99th percentile are the ones given, and the mean is e^(mu + sigma^2 / 2). The normal
 *                             comes from Box-Muller: exactly two g_rand_double() per draw. p99 == median is allowed
 *                             and is a fixed value (sigma 0) that still draws, so the stream's use does not depend
 *                             on the numbers.
 *   empirical(points)         a table of (value_ns, cumulative probability) pairs: values non-decreasing,
 *                             probabilities non-decreasing in [0, 1], the last exactly 1. A draw u in [0, 1) below
 *                             the first probability gives the first value (a point mass there); otherwise the value
 *                             is interpolated linearly inside the segment [p_i, p_i+1) that holds u. One
 *                             g_rand_double() per draw.
 * - Constructors check their parameters (finite, >= 0, ordered as above) and report a MODEL_ERROR_PARAM error naming
 *   the rule; the caller prefixes the config location.
 * - Dist is immutable after construction, so one may be shared by several components, each with its own GRand
 *   (sim_rand_new()). dist_draw_ps() allocates nothing.
 */
#pragma once

#include <glib.h>

#include "models/base/model_error.h"
#include "sim/engine.h"

/* Bad parameters (the builder maps them to exit 65). */

#define DIST_MAX_NS 1e12
/* Standard normal quantile at 0.99 (Phi^-1(0.99)), to 17 digits. */
#define DIST_Z99 2.3263478740408408

typedef enum { DIST_FIXED, DIST_UNIFORM, DIST_LOGNORMAL, DIST_EMPIRICAL } DistKind;

typedef struct {
  double value_ns;
  double cum_prob; /* P(X <= value_ns) */
} DistPoint;

typedef struct Dist Dist;

Dist *dist_new_fixed (double value_ns, GError **error);
Dist *dist_new_uniform (double min_ns, double max_ns, GError **error);
Dist *dist_new_lognormal (double median_ns, double p99_ns, GError **error);
/* The n points are copied. */
Dist *dist_new_empirical (const DistPoint *points, guint n, GError **error);
Dist *dist_copy (const Dist *d);
void dist_free (Dist *d);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Dist, dist_free)

DistKind dist_kind (const Dist *d);
/* FALSE for fixed: dist_draw_ps() will not touch the GRand (which may then be NULL). */
gboolean dist_is_random (const Dist *d);
SimTime dist_draw_ps (const Dist *d, GRand *rand);
/* A value draws exceed with probability below 1e-9, in ns: the largest value a fixed, uniform or empirical
 * distribution gives; for a lognormal e^(mu + 6 sigma) (P(Z > 6) is 1e-9), capped at DIST_MAX_NS. For bounds such
 * as the deadlock watchdog's longest legal quiet time. */
double dist_bound_ns (const Dist *d);
