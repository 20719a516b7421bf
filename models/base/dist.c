/* dist.c — see dist.h for the contract. */
#include "models/base/dist.h"

#include <math.h>
#include <string.h>

#include "models/base/units.h"

struct Dist {
  DistKind kind;
  double a, b; /* fixed: a; uniform: min, max; lognormal: mu, sigma (of ln ns) */
  guint n;
  DistPoint *points; /* empirical only */
};

/* The one range rule of every parameter: the negated test also rejects NaN. */
static gboolean
check_ns (const char *what, double v, GError **error)
{
  if (!(v >= 0.0 && v <= DIST_MAX_NS)) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "%s %g ns: must be finite, >= 0 and <= %g", what, v, DIST_MAX_NS);
    return FALSE;
  }
  return TRUE;
}

static Dist *
dist_alloc (DistKind kind, double a, double b)
{
  Dist *d = g_new0 (Dist, 1);
  d->kind = kind;
  d->a = a;
  d->b = b;
  return d;
}

Dist *
dist_new_fixed (double value_ns, GError **error)
{
  return check_ns ("fixed value", value_ns, error) ? dist_alloc (DIST_FIXED, value_ns, 0) : NULL;
}

Dist *
dist_new_uniform (double min_ns, double max_ns, GError **error)
{
  if (!check_ns ("uniform minimum", min_ns, error) || !check_ns ("uniform maximum", max_ns, error))
    return NULL;
  if (max_ns < min_ns) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "uniform maximum %g ns is below its minimum %g ns", max_ns, min_ns);
    return NULL;
  }
  return dist_alloc (DIST_UNIFORM, min_ns, max_ns);
}

Dist *
dist_new_lognormal (double median_ns, double p99_ns, GError **error)
{
  if (!check_ns ("lognormal median", median_ns, error) || !check_ns ("lognormal p99", p99_ns, error))
    return NULL;
  /* ln 0 has no value: a median of 0 would be a distribution stuck at 0, which is fixed(0), not lognormal. */
  if (median_ns <= 0.0) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "lognormal median %g ns: must be > 0", median_ns);
    return NULL;
  }
  if (p99_ns < median_ns) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "lognormal p99 %g ns is below its median %g ns", p99_ns, median_ns);
    return NULL;
  }
  const double mu = log (median_ns);
  return dist_alloc (DIST_LOGNORMAL, mu, (log (p99_ns) - mu) / DIST_Z99);
}

Dist *
dist_new_empirical (const DistPoint *points, guint n, GError **error)
{
  if (n == 0) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "empirical distribution: the table is empty");
    return NULL;
  }
  for (guint i = 0; i < n; i++) {
    if (!check_ns ("empirical value", points[i].value_ns, error))
      return NULL;
    const double p = points[i].cum_prob;
    if (!(p >= 0.0 && p <= 1.0)) {
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "empirical point %u: cumulative probability %g is outside [0, 1]", i + 1,
        p);
      return NULL;
    }
    if (i > 0 && (points[i].value_ns < points[i - 1].value_ns || p < points[i - 1].cum_prob)) {
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM,
        "empirical point %u (%g ns, %g) goes back from point %u (%g ns, %g): values and probabilities must not "
        "decrease", i + 1, points[i].value_ns, p, i, points[i - 1].value_ns, points[i - 1].cum_prob);
      return NULL;
    }
  }
  if (points[n - 1].cum_prob != 1.0) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "empirical distribution: the last cumulative probability is %g, not 1",
      points[n - 1].cum_prob);
    return NULL;
  }
  Dist *d = dist_alloc (DIST_EMPIRICAL, 0, 0);
  d->n = n;
  d->points = g_memdup2 (points, n * sizeof *points);
  return d;
}

Dist *
dist_copy (const Dist *d)
{
  Dist *c = g_memdup2 (d, sizeof *d);
  if (d->points)
    c->points = g_memdup2 (d->points, d->n * sizeof *d->points);
  return c;
}

void
dist_free (Dist *d)
{
  if (d) {
    g_free (d->points);
    g_free (d);
  }
}

DistKind
dist_kind (const Dist *d)
{
  return d->kind;
}

gboolean
dist_is_random (const Dist *d)
{
  return d->kind != DIST_FIXED;
}

/* Inverse of the piecewise-linear CDF at u in [0, 1). */
static double
empirical_at (const Dist *d, double u)
{
  const DistPoint *p = d->points;
  if (u < p[0].cum_prob)
    return p[0].value_ns;
  /* The first i with u < p[i].cum_prob; it exists because the last probability is 1 > u, and i >= 1 because
   * u >= p[0].cum_prob. Zero-width segments (equal probabilities) are never chosen, so the division is safe. */
  guint lo = 1, hi = d->n - 1;
  while (lo < hi) {
    guint mid = lo + (hi - lo) / 2;
    if (u < p[mid].cum_prob)
      hi = mid;
    else
      lo = mid + 1;
  }
  const DistPoint *a = &p[lo - 1], *b = &p[lo];
  return a->value_ns + (u - a->cum_prob) / (b->cum_prob - a->cum_prob) * (b->value_ns - a->value_ns);
}

SimTime
dist_draw_ps (const Dist *d, GRand *rand)
{
  double ns = 0;
  switch (d->kind) {
  case DIST_FIXED:
    ns = d->a;
    break;
  case DIST_UNIFORM:
    ns = d->a + g_rand_double (rand) * (d->b - d->a);
    break;
  case DIST_LOGNORMAL: {
    /* Box-Muller with u1 in (0, 1] so the logarithm is finite; only the cosine half is used, so every draw
     * takes the same two numbers from the stream. */
    const double u1 = 1.0 - g_rand_double (rand);
    const double u2 = g_rand_double (rand);
    const double z = sqrt (-2.0 * log (u1)) * cos (2.0 * G_PI * u2);
    ns = exp (d->a + d->b * z);
    break;
  }
  case DIST_EMPIRICAL:
    ns = empirical_at (d, g_rand_double (rand));
    break;
  }
  return units_ns_to_ps (MIN (ns, DIST_MAX_NS));
}

double
dist_bound_ns (const Dist *d)
{
  switch (d->kind) {
  case DIST_FIXED:
    return d->a;
  case DIST_UNIFORM:
    return d->b;
  case DIST_LOGNORMAL:
    return MIN (exp (d->a + 6 * d->b), DIST_MAX_NS);
  case DIST_EMPIRICAL:
    return d->points[d->n - 1].value_ns;
  }
  return DIST_MAX_NS;
}
