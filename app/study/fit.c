/* fit.c — `pciesim fit`: the search and the fitted config (fit.h); the measurement file is fit_file.c's. */
#include "app/study/fit.h"

#include <math.h>
#include <nlopt.h>
#include <stdio.h>
#include <string.h>

#include "app/run/builder.h"
#include "app/config/config.h"
#include "app/config/load.h"
#include "app/base/error.h"
#include "app/base/format.h"
#include "app/study/metrics.h"
#include "app/study/sweep.h"
#include "app/config/ytree.h"

#include "app/study/fit_impl.h"

/* --- evaluations ----------------------------------------------------------------------------------------- */

static void
eval_one (guint i, gpointer user)
{
  Fit *f = user;
  const Measurement *m = &g_array_index (f->m, Measurement, i);
  g_autoptr (GPtrArray) sets = g_ptr_array_new_with_free_func (g_free);
  for (char **s = m->sets; *s; s++)
    g_ptr_array_add (sets, g_strdup (*s));
  for (guint k = 0; k < f->p->len; k++)
    g_ptr_array_add (sets, ps_config_set_text (g_array_index (f->p, Parameter, k).a->key, f->values[k]));
  g_ptr_array_add (sets, NULL);
  GError *e = NULL;
  g_autoptr (PsConfig) cfg = fit_load_at (f->base->path, (const char *const *) sets->pdata, m->at, &e);
  PsRunResult r = { 0 };
  if (cfg && ps_run_config (cfg, cfg->benchmark.modes, f->opt->seed, &r, &e)) {
    f->figures[i] = ps_metric_value (&m->metric, &r);
    return;
  }
  ps_first_error_keep (&f->first, i, e);
}

/* The figures of every measurement with the parameters at `values` (snapped); NULL after an error (f->fail). */
static const double *
evaluate (Fit *f, double *values)
{
  GString *key = g_string_new (NULL);
  for (guint k = 0; k < f->p->len; k++) {
    values[k] = ps_config_snap (g_array_index (f->p, Parameter, k).a->key, values[k]);
    g_string_append_printf (key, "%.17g,", values[k]);
  }
  const double *hit = g_hash_table_lookup (f->cache, key->str);
  if (hit) {
    g_string_free (key, TRUE);
    return hit;
  }
  double *figures = g_new (double, f->m->len);
  f->values = values;
  f->figures = figures;
  ps_sweep_parallel (f->m->len, f->opt->jobs, eval_one, f);
  f->evaluations++;
  f->fail = g_steal_pointer (&f->first.error);
  if (f->fail) {
    g_free (figures);
    g_string_free (key, TRUE);
    return NULL;
  }
  g_hash_table_insert (f->cache, g_string_free (key, FALSE), figures);
  return figures;
}

/* The sum of squared relative errors; +inf after an error, which stops the search. */
static double
cost (Fit *f, const double *figures)
{
  if (!figures)
    return HUGE_VAL;
  double s = 0;
  for (guint i = 0; i < f->m->len; i++) {
    double m = g_array_index (f->m, Measurement, i).measured, e = (figures[i] - m) / m;
    s += isfinite (e) ? e * e : 1e6;
  }
  if (!(s >= f->best_cost))
    f->best_cost = s;
  /* A line on a terminal, rewritten at most five times a second: a fit takes minutes, silence looks like a hang. */
  gint64 now = f->opt->progress ? g_get_monotonic_time () : 0;
  if (f->opt->progress && now - f->progress_at > 200000) {
    f->progress_at = now;
    fprintf (stderr, "\rfit: %u evaluations, %u restart%s, best relative RMS error %.3f%%   ", f->evaluations,
             f->restarts, f->restarts == 1 ? "" : "s", sqrt (f->best_cost / f->m->len) * 100);
    fflush (stderr);
  }
  return s;
}

/* FALSE, with the failure of a run the search made (Fit.fail) moved to `error`, if there was one. */
static gboolean
no_failure (Fit *f, GError **error)
{
  if (!f->fail)
    return TRUE;
  g_propagate_error (error, g_steal_pointer (&f->fail));
  return FALSE;
}

/* The relative RMS error in per cent, from a cost (the sum of squared relative errors). */
static double
rms_pct (const Fit *f, double c)
{
  return sqrt (c / f->m->len) * 100;
}

/* NLopt's objective: u in [0, 1] per searched parameter. */
static double
objective (unsigned n, const double *u, double *grad, void *data)
{
  Fit *f = data;
  (void) grad; /* derivative-free */
  g_autofree double *v = g_new (double, f->p->len);
  for (guint k = 0; k < f->p->len; k++)
    v[k] = g_array_index (f->p, Parameter, k).value;
  for (unsigned j = 0; j < n; j++) {
    const PsAssumption *a = g_array_index (f->p, Parameter, f->free_idx[j]).a;
    v[f->free_idx[j]] = a->lo + u[j] * (a->hi - a->lo);
  }
  double c = cost (f, evaluate (f, v));
  if (f->fail)
    nlopt_force_stop (f->nlopt);
  return c;
}

/* Parameter k's next value the key accepts above (dir 1) or below (-1) `v`, within its range; v when none. */
static double
step (const Parameter *p, double v, int dir)
{
  for (double d = 1; d <= p->a->hi - p->a->lo; d *= 2) {
    double w = ps_config_snap (p->a->key, v + dir * d);
    if (w != v)
      return w < p->a->lo || w > p->a->hi ? v : w;
  }
  return v;
}

/* The simplex over the constrained parameters from v (every parameter's value; the result replaces it). */
static void
simplex (Fit *f, double *v)
{
  guint n = f->n_free;
  nlopt_opt o = f->nlopt = nlopt_create (NLOPT_LN_NELDERMEAD, n);
  g_autofree double *u = g_new (double, n), *lo = g_new (double, n), *hi = g_new (double, n), *dx = g_new (double, n);
  for (guint j = 0; j < n; j++) {
    const Parameter *p = &g_array_index (f->p, Parameter, f->free_idx[j]);
    u[j] = (v[f->free_idx[j]] - p->a->lo) / (p->a->hi - p->a->lo);
    lo[j] = 0;
    hi[j] = 1;
    /* The first simplex spans a quarter of each range, towards the middle, so it leaves the start at once. */
    dx[j] = u[j] < 0.5 ? 0.25 : -0.25;
  }
  /* The objective reads the parameters it does not search from p->value. */
  for (guint k = 0; k < f->p->len; k++)
    g_array_index (f->p, Parameter, k).value = v[k];
  nlopt_set_lower_bounds (o, lo);
  nlopt_set_upper_bounds (o, hi);
  nlopt_set_initial_step (o, dx);
  nlopt_set_min_objective (o, objective, f);
  nlopt_set_xtol_abs1 (o, 1e-4);
  nlopt_set_ftol_abs (o, 1e-10);
  nlopt_set_maxeval (o, f->maxeval ? f->maxeval : 60 + 30 * (int) n);
  double best = 0;
  nlopt_optimize (o, u, &best);
  nlopt_destroy (o);
  f->nlopt = NULL;
  for (guint j = 0; j < n; j++) {
    const Parameter *p = &g_array_index (f->p, Parameter, f->free_idx[j]);
    v[f->free_idx[j]] = ps_config_snap (p->a->key, p->a->lo + u[j] * (p->a->hi - p->a->lo));
  }
}

/* Integers, one at a time while the cost falls: the simplex sees only plateaus there, and a figure a resource
 * bounds stops moving once another binds (a plateau that can hold the simplex far from the answer). Each pass
 * tries a geometric grid over the range (four values per doubling) and then single steps around the best.
 * Whether an integer moved. */
static gboolean
integer_passes (Fit *f, double *v, double *c)
{
  gboolean moved_any = FALSE;
  for (guint pass = 0, better = TRUE; better && pass < 4 && !f->fail; pass++) {
    better = FALSE;
    for (guint j = 0; j < f->n_free && !f->fail; j++) {
      Parameter *p = &g_array_index (f->p, Parameter, f->free_idx[j]);
      double *x = &v[f->free_idx[j]];
      if (!p->integer)
        continue;
      for (double g = MAX (p->a->lo, 1); g <= p->a->hi && !f->fail; g = MAX (g + 1, g * 1.19)) {
        double old = *x;
        *x = ps_config_snap (p->a->key, g);
        double c2 = *x != old ? cost (f, evaluate (f, v)) : *c;
        if (c2 < *c) {
          *c = c2;
          better = moved_any = TRUE;
        } else {
          *x = old;
        }
      }
      for (int dir = -1; dir <= 1 && !f->fail; dir += 2)
        for (gboolean moved = TRUE; moved && !f->fail;) {
          double old = *x;
          *x = step (p, old, dir);
          double c2 = *x != old ? cost (f, evaluate (f, v)) : *c;
          moved = c2 < *c;
          if (moved) {
            *c = c2;
            better = moved_any = TRUE;
          } else {
            *x = old;
          }
        }
    }
  }
  return moved_any;
}

/* One descent from v: the simplex, then the integers; when an integer moved, the simplex again from there (the
 * other parameters were fitted around the integer's old value and may be compensating for it). The cost at v. */
static double
descend (Fit *f, double *v)
{
  double c = HUGE_VAL;
  for (guint round = 0; round < 3 && !f->fail; round++) {
    simplex (f, v);
    c = cost (f, evaluate (f, v));
    if (!integer_passes (f, v, &c))
      break;
  }
  return c;
}

/* A fit that leaves more than this relative RMS error starts again elsewhere: the simplex is local, and a model
 * whose figures a different resource bounds in different parts of the range has more than one valley. */
#define FIT_GOOD_RMS_PCT 0.1
#define FIT_RESTARTS 4

static gboolean
search (Fit *f, GError **error)
{
  g_autofree double *v = g_new (double, f->p->len), *w = g_new (double, f->p->len);
  for (guint k = 0; k < f->p->len; k++)
    v[k] = g_array_index (f->p, Parameter, k).file_value;
  double c = cost (f, evaluate (f, v));
  if (f->n_free > 0) {
    c = descend (f, v);
    /* Restarts from a Latin-hypercube sample of the constrained parameters' ranges, drawn from the seed (the same
     * file and seed, the same fit), while the best fit is not yet good. */
    g_autoptr (GRand) rng = g_rand_new_with_seed ((guint32) (f->opt->seed ^ (f->opt->seed >> 32) ^ 0x66697431u));
    g_autofree guint *perm = g_new (guint, (gsize) f->n_free * FIT_RESTARTS);
    for (guint j = 0; j < f->n_free; j++) {
      guint *pj = perm + (gsize) j * FIT_RESTARTS;
      for (guint r = 0; r < FIT_RESTARTS; r++)
        pj[r] = r;
      for (guint r = FIT_RESTARTS - 1; r > 0; r--) {
        guint q = (guint) g_rand_int_range (rng, 0, (gint32) r + 1), t = pj[r];
        pj[r] = pj[q];
        pj[q] = t;
      }
    }
    for (guint r = 0; r < FIT_RESTARTS && !f->fail && rms_pct (f, c) > FIT_GOOD_RMS_PCT; r++) {
      memcpy (w, v, f->p->len * sizeof *w);
      for (guint j = 0; j < f->n_free; j++) {
        const Parameter *p = &g_array_index (f->p, Parameter, f->free_idx[j]);
        double u = (perm[(gsize) j * FIT_RESTARTS + r] + g_rand_double (rng)) / FIT_RESTARTS;
        w[f->free_idx[j]] = ps_config_snap (p->a->key, p->a->lo + u * (p->a->hi - p->a->lo));
      }
      f->restarts++;
      g_array_append_vals (f->starts, w, f->p->len);
      double c2 = descend (f, w);
      if (c2 < c) {
        c = c2;
        memcpy (v, w, f->p->len * sizeof *v);
      }
    }
  }
  if (!no_failure (f, error))
    return FALSE;
  for (guint k = 0; k < f->p->len; k++)
    g_array_index (f->p, Parameter, k).value = v[k];
  return TRUE;
}

/* How far each constrained parameter can move, the others re-fitted (as_good_profile()), while the fit stays within
 * FIT_AS_WELL percentage points of relative RMS error of the best: probes at growing fractions of the way to each
 * end of its range, the interval ending at the last probe that still fits (a plateau, where another resource
 * bounds every measured figure, shows as an interval reaching the range's end), then halving the gap to the first
 * probe that does not fit. */
#define FIT_AS_WELL 0.1
/* Halvings of the gap between the last probe that fits and the first that does not: 1/256 of it. */
#define FIT_HALVINGS 8

/* Whether the parameters at v fit within FIT_AS_WELL points of `best` (the fit's relative RMS error, per cent). */
static gboolean
as_good (Fit *f, double *v, double best)
{
  return rms_pct (f, cost (f, evaluate (f, v))) <= best + FIT_AS_WELL;
}

/* The same for a profile: parameter `fixed` (a position in free_idx) at its value in v, the other constrained ones
 * re-fitted from v by a short simplex (issue #37: with the others held, two parameters that trade off each look
 * pinned). A probe that fits with the others held needs no re-fit. v is left as it was. */
static gboolean
as_good_profile (Fit *f, double *v, guint fixed, double best)
{
  if (as_good (f, v, best) || f->n_free < 2 || f->fail)
    return !f->fail && as_good (f, v, best);
  g_autofree double *w = g_memdup2 (v, f->p->len * sizeof *w);
  g_autofree double *kept = g_new (double, f->p->len);
  for (guint k = 0; k < f->p->len; k++)
    kept[k] = g_array_index (f->p, Parameter, k).value;
  /* The simplex searches free_idx[0 .. n_free): the fixed one is swapped out of it for the re-fit. */
  guint *idx = f->free_idx, n = f->n_free, last = idx[n - 1];
  idx[n - 1] = idx[fixed];
  idx[fixed] = last;
  f->n_free = n - 1;
  f->maxeval = 20 + 10 * (int) (n - 1);
  simplex (f, w);
  f->maxeval = 0;
  f->n_free = n;
  idx[fixed] = idx[n - 1];
  idx[n - 1] = last;
  for (guint k = 0; k < f->p->len; k++)
    g_array_index (f->p, Parameter, k).value = kept[k];
  return !f->fail && as_good (f, w, best);
}

static gboolean
fits_as_well (Fit *f, GError **error)
{
  static const double frac[] = { 1.0 / 32, 1.0 / 8, 1.0 / 4, 1.0 / 2, 3.0 / 4, 1 };
  g_autofree double *v = g_new (double, f->p->len);
  for (guint k = 0; k < f->p->len; k++)
    v[k] = g_array_index (f->p, Parameter, k).value;
  double best = rms_pct (f, cost (f, evaluate (f, v)));
  for (guint j = 0; j < f->n_free && !f->fail; j++) {
    Parameter *p = &g_array_index (f->p, Parameter, f->free_idx[j]);
    double *x = &v[f->free_idx[j]];
    for (int dir = -1; dir <= 1; dir += 2) {
      double end = dir < 0 ? p->a->lo : p->a->hi, good = p->value, bad = NAN;
      for (guint i = 0; i < G_N_ELEMENTS (frac) && !f->fail && isnan (bad); i++) {
        *x = ps_config_snap (p->a->key, p->value + frac[i] * (end - p->value));
        if (*x == good)
          continue;
        *(as_good_profile (f, v, j, best) ? &good : &bad) = *x;
      }
      /* Then halving the gap between the last probe that fits and the first that does not, five times. */
      for (guint b = 0; b < FIT_HALVINGS && !isnan (bad) && !f->fail; b++) {
        *x = ps_config_snap (p->a->key, (good + bad) / 2);
        if (*x == good || *x == bad)
          break;
        *(as_good_profile (f, v, j, best) ? &good : &bad) = *x;
      }
      *(dir < 0 ? &p->fits_lo : &p->fits_hi) = good;
      *x = p->value;
    }
  }
  return no_failure (f, error);
}

/* Which parameters not yet constrained move a measured figure at `at` (every parameter's value): each at its low
 * and its high end, the others at `at`. Those that do join the searched ones; *added counts them. */
static gboolean
screen_at (Fit *f, const double *at, guint *added, GError **error)
{
  g_autofree double *v = g_new (double, f->p->len);
  if (!f->free_idx)
    f->free_idx = g_new (guint, f->p->len);
  for (guint k = 0; k < f->p->len; k++) {
    Parameter *p = &g_array_index (f->p, Parameter, k);
    if (p->constrained)
      continue;
    memcpy (v, at, f->p->len * sizeof *v);
    v[k] = p->a->lo;
    const double *a = evaluate (f, v);
    g_autofree double *lo = a ? g_memdup2 (a, f->m->len * sizeof (double)) : NULL;
    v[k] = p->a->hi;
    const double *hi = lo ? evaluate (f, v) : NULL;
    if (!hi) {
      g_propagate_error (error, g_steal_pointer (&f->fail));
      return FALSE;
    }
    for (guint i = 0; i < f->m->len; i++)
      p->constrained |= lo[i] != hi[i];
    if (p->constrained) {
      f->free_idx[f->n_free++] = k;
      ++*added;
    }
  }
  return TRUE;
}

/* The first screening, at the file values. */
static gboolean
screen (Fit *f, GError **error)
{
  g_autofree double *v = g_new (double, f->p->len);
  for (guint k = 0; k < f->p->len; k++)
    v[k] = g_array_index (f->p, Parameter, k).file_value;
  guint added = 0;
  return screen_at (f, v, &added, error);
}

/* A parameter that moved nothing at the file values may move a figure once another has moved (a write latency
 * that only matters once the credits are few): screened again at the fitted point and at each restart's start,
 * and when one joins, the search descends again from the fitted point with it (issue #37). */
static gboolean
rescreen (Fit *f, GError **error)
{
  for (guint round = 0; round < 3; round++) {
    g_autofree double *v = g_new (double, f->p->len);
    for (guint k = 0; k < f->p->len; k++)
      v[k] = g_array_index (f->p, Parameter, k).value;
    guint added = 0;
    if (!screen_at (f, v, &added, error))
      return FALSE;
    for (guint r = 0; r < f->starts->len / MAX (f->p->len, 1); r++)
      if (!screen_at (f, &g_array_index (f->starts, double, (gsize) r * f->p->len), &added, error))
        return FALSE;
    if (added == 0)
      return TRUE;
    double before = cost (f, evaluate (f, v)), after = descend (f, v);
    if (!no_failure (f, error))
      return FALSE;
    if (after < before)
      for (guint k = 0; k < f->p->len; k++)
        g_array_index (f->p, Parameter, k).value = v[k];
  }
  return TRUE;
}

/* --- output ---------------------------------------------------------------------------------------------- */

/* `target` relative to directory `from` (both made absolute), for the fitted config's include. */
static char *
relative_to (const char *from, const char *target)
{
  g_autofree char *a = g_canonicalize_filename (from, NULL), *b = g_canonicalize_filename (target, NULL);
  g_auto (GStrv) pa = g_strsplit (a, "/", -1), pb = g_strsplit (b, "/", -1);
  guint i = 0;
  while (pa[i] && pb[i] && strcmp (pa[i], pb[i]) == 0)
    i++;
  GString *s = g_string_new (NULL);
  for (guint k = i; pa[k]; k++)
    if (*pa[k])
      g_string_append (s, "../");
  for (guint k = i; pb[k]; k++)
    g_string_append_printf (s, "%s%s", pb[k], pb[k + 1] ? "/" : "");
  return g_string_free (s, FALSE);
}

static void
value_text (GString *o, const Parameter *p)
{
  if (p->integer)
    g_string_append_printf (o, "%" G_GINT64_FORMAT, (int64_t) p->value);
  else
    g_string_append_printf (o, "%.6g", p->value);
}

static void
write_config (const Fit *f, GString *o, double rms_pct)
{
  g_autofree char *outdir = g_path_get_dirname (f->opt->output);
  g_autofree char *inc = relative_to (outdir, f->base->path);
  g_string_append_printf (o, "# Fitted by pciesim fit %s: %u measurement%s, relative RMS error %.2f%%. Each value "
                          "below was\n# searched within its assumption's range; the measurements are the fit file's, "
                          "never this config's\n# inputs beyond these values. Unconstrained parameters keep the "
                          "base's values and ranges.\n", f->opt->path, f->m->len, f->m->len == 1 ? "" : "s", rms_pct);
  g_string_append_printf (o, "include: [%s]\n", inc);
  /* Keys in table order grouped by section; a section is opened when the previous key's differs. */
  g_auto (GStrv) prev = NULL;
  for (const char *const *key = ps_config_keys (); *key; key++) {
    const Parameter *p = NULL;
    for (guint k = 0; k < f->p->len; k++)
      if (g_array_index (f->p, Parameter, k).constrained && !strcmp (g_array_index (f->p, Parameter, k).a->key, *key))
        p = &g_array_index (f->p, Parameter, k);
    if (!p)
      continue;
    g_auto (GStrv) parts = g_strsplit (*key, ".", -1);
    guint n = g_strv_length (parts), same = 0;
    while (prev && prev[same] && parts[same + 1] && !strcmp (prev[same], parts[same]))
      same++;
    for (guint d = same; d + 1 < n; d++)
      g_string_append_printf (o, "%*s%s:\n", (int) (2 * d), "", parts[d]);
    g_string_append_printf (o, "%*s%s: ", (int) (2 * (n - 1)), "", parts[n - 1]);
    value_text (o, p);
    /* Where the value was set, not where its range is (PsAssumption.at). */
    const PsKeyOrigin *from = ps_config_origin (f->base, p->a->key);
    g_string_append_printf (o, "   # fitted by pciesim fit %s within [%g, %g] (was %g at %s)\n", f->opt->path, p->a->lo,
                            p->a->hi, p->file_value, from && from->at ? from->at : p->a->at);
    g_strfreev (prev);
    prev = g_steal_pointer (&parts);
  }
}

static double
residual_pct (const Measurement *m, double fitted)
{
  return (fitted - m->measured) / m->measured * 100;
}

static gboolean
beyond_uncertainty (const Measurement *m, double fitted)
{
  return m->has_uncertainty && !(fabs (residual_pct (m, fitted)) <= m->uncertainty_pct);
}

static void
fit_text (const Fit *f, GString *report, const double *fig, double rms, guint judged, guint off)
{
  g_string_append_printf (report, "fit of %s on %s: %u measurement%s, %u parameter%s (%u constrained), %u "
                          "evaluations (NLopt Nelder-Mead; integers by a grid, then single steps; %u restart%s)\n\n",
                          f->opt->path, f->base->path, f->m->len, f->m->len == 1 ? "" : "s", f->p->len,
                          f->p->len == 1 ? "" : "s", f->n_free, f->evaluations, f->restarts,
                          f->restarts == 1 ? "" : "s");
  g_string_append (report, "measurement                                          metric                        "
                           "measured      fitted   residual\n");
  for (guint i = 0; i < f->m->len; i++) {
    const Measurement *m = &g_array_index (f->m, Measurement, i);
    g_string_append_printf (report, "%-52s %-28s %9.4g %11.4g %+9.2f%%", m->label, m->metric_node->value,
                            m->measured, fig[i], residual_pct (m, fig[i]));
    if (m->has_uncertainty)
      g_string_append_printf (report, "  (±%g%%%s)", m->uncertainty_pct,
                              beyond_uncertainty (m, fig[i]) ? ": DISAGREES" : "");
    g_string_append_c (report, '\n');
  }
  g_string_append (report, "\nparameter                        range              file value      fitted   by the data\n");
  for (guint k = 0; k < f->p->len; k++) {
    const Parameter *p = &g_array_index (f->p, Parameter, k);
    g_autofree char *range = g_strdup_printf ("[%g, %g]", p->a->lo, p->a->hi);
    if (!p->constrained) {
      g_string_append_printf (report, "%-32s %-18s %10g %11.6g   unconstrained: it moves no measured figure; file "
                              "value kept\n", p->a->key, range, p->file_value, p->value);
      continue;
    }
    g_autofree char *fits = g_strdup_printf ("%.6g to %.6g", p->fits_lo, p->fits_hi);
    g_string_append_printf (report, "%-32s %-18s %10g %11.6g   constrained: %s fit as well%s\n", p->a->key, range,
                            p->file_value, p->value, fits,
                            p->fits_lo == p->a->lo || p->fits_hi == p->a->hi ? " (to the range's end: a plateau)"
                                                                              : "");
  }
  if (f->n_free > f->m->len)
    g_string_append_printf (report, "\n%u constrained parameters on %u measurement%s: the data fix at most %u "
                            "combination%s of them; the values above are one of many that fit as well.\n", f->n_free,
                            f->m->len, f->m->len == 1 ? "" : "s", f->m->len, f->m->len == 1 ? "" : "s");
  if (f->n_free > 0)
    g_string_append_printf (report, "\n\"fit as well\": each parameter fixed at a value and the others re-fitted "
                            "(a profile), within %.1f percentage points of the fit's relative RMS error.\n", FIT_AS_WELL);
  /* "Unconstrained" was judged at the file values, the fitted point and every restart's start (rescreen()). */
  g_string_append_printf (report, "\nrelative RMS error %.3f%%\n", rms);
  if (judged == 0)
    g_string_append (report, "no measurement gives uncertainty_pct: whether the fit explains the data within their "
                             "uncertainty is not judged\n");
  else if (off == 0)
    g_string_append_printf (report, "the fit explains the data: every one of the %u measurement%s with an "
                            "uncertainty is within it\n", judged, judged == 1 ? "" : "s");
  else {
    g_string_append_printf (report, "the fit does NOT explain the data: %u of the %u measurement%s with an uncertainty "
                            "disagree%s beyond it (contradictory, or out of the model's reach within the ranges):\n",
                            off, judged, judged == 1 ? "" : "s", off == 1 ? "s" : "");
    for (guint i = 0; i < f->m->len; i++) {
      const Measurement *m = &g_array_index (f->m, Measurement, i);
      if (beyond_uncertainty (m, fig[i]))
        g_string_append_printf (report, "  %s:%d: %s %s measured %g, fitted %.4g (%+.2f%%, beyond ±%g%%)\n",
                                m->at->origin, m->at->line, m->label, m->metric_node->value, m->measured, fig[i],
                                residual_pct (m, fig[i]), m->uncertainty_pct);
    }
  }
}

/* The same as JSON: parameters (key, range, start, fitted, interval, constrained), measurements (set, metric,
 * measured, fitted, residual), rms. */
static void
fit_json (const Fit *f, GString *report, const double *fig, double rms, guint judged, guint off)
{
  PsJson j;
  ps_json_init (&j, report);
  ps_json_object (&j, 2);
  ps_json_int_member (&j, "schema", 1);
  ps_json_string_member (&j, "file", f->opt->path);
  ps_json_string_member (&j, "base", f->base->path);
  ps_json_uint_member (&j, "evaluations", f->evaluations);
  ps_json_uint_member (&j, "restarts", f->restarts);
  ps_json_key (&j, "parameters");
  ps_json_array (&j, 4 | PS_JSON_BREAK_EMPTY);
  for (guint k = 0; k < f->p->len; k++) {
    const Parameter *p = &g_array_index (f->p, Parameter, k);
    ps_json_object (&j, 0);
    ps_json_string_member (&j, "key", p->a->key);
    ps_json_key (&j, "range");
    ps_json_array (&j, 0);
    ps_json_general (&j, p->a->lo, 15);
    ps_json_general (&j, p->a->hi, 15);
    ps_json_end (&j);
    ps_json_key (&j, "start");
    ps_json_general (&j, p->file_value, 15);
    ps_json_key (&j, "fitted");
    ps_json_general (&j, p->value, 15);
    ps_json_key (&j, "interval");
    if (p->constrained) {
      ps_json_array (&j, 0);
      ps_json_general (&j, p->fits_lo, 15);
      ps_json_general (&j, p->fits_hi, 15);
      ps_json_end (&j);
    } else
      ps_json_raw (&j, "null");
    ps_json_bool_member (&j, "constrained", p->constrained);
    ps_json_end (&j);
  }
  ps_json_end (&j);
  ps_json_key (&j, "measurements");
  ps_json_array (&j, 4 | PS_JSON_BREAK_EMPTY);
  for (guint i = 0; i < f->m->len; i++) {
    const Measurement *m = &g_array_index (f->m, Measurement, i);
    ps_json_object (&j, 0);
    ps_json_key (&j, "set");
    ps_json_object (&j, 0);
    for (guint s = 0; m->sets[s]; s++) {
      const char *eq = strchr (m->sets[s], '=');
      g_autofree char *key = g_strndup (m->sets[s], (gsize) (eq - m->sets[s]));
      ps_json_string_member (&j, key, eq + 1);
    }
    ps_json_end (&j);
    ps_json_string_member (&j, "metric", m->metric_node->value);
    ps_json_key (&j, "measured");
    ps_json_general (&j, m->measured, 15);
    ps_json_key (&j, "fitted");
    ps_json_general (&j, fig[i], 15);
    ps_json_fixed_member (&j, "residual_pct", residual_pct (m, fig[i]), 3);
    if (m->has_uncertainty) {
      ps_json_key (&j, "uncertainty_pct");
      ps_json_general (&j, m->uncertainty_pct, 15);
      ps_json_bool_member (&j, "within_uncertainty", !beyond_uncertainty (m, fig[i]));
    }
    ps_json_end (&j);
  }
  ps_json_end (&j);
  ps_json_fixed_member (&j, "rms_pct", rms, 3);
  ps_json_uint_member (&j, "judged", judged);
  ps_json_uint_member (&j, "disagree", off);
  ps_json_end (&j);
  g_string_append_c (report, '\n');
}

gboolean
ps_fit_run (const PsFit *opt, GString *report, gboolean *disagree, GError **error)
{
  g_autoptr (YNode) root = ytree_load_file (opt->path, error);
  if (!root) {
    if (error && !*error)
      ps_error_located (error, PS_ERROR_DATA, opt->path, 1, 1, "empty file: a fit file gives base: and measurements:");
    return FALSE;
  }
  Fit f = { .opt = opt, .m = g_array_new (FALSE, TRUE, sizeof (Measurement)),
            .p = g_array_new (FALSE, TRUE, sizeof (Parameter)),
            .cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free),
            .starts = g_array_new (FALSE, FALSE, sizeof (double)), .best_cost = HUGE_VAL };
  g_array_set_clear_func (f.m, fit_measurement_clear);
  g_mutex_init (&f.first.lock);
  /* Every evaluation loads the base again with its values as --sets: its files are parsed once (ytree.h). */
  ytree_cache_begin ();
  gboolean ok = fit_load_file (&f, root, error) && screen (&f, error) && search (&f, error) && rescreen (&f, error)
                && fits_as_well (&f, error);
  if (f.progress_at)
    fputs ("\n", stderr);
  g_autofree double *v = g_new (double, f.p->len + 1);
  const double *fig = NULL;
  if (ok) {
    for (guint k = 0; k < f.p->len; k++)
      v[k] = g_array_index (f.p, Parameter, k).value;
    fig = evaluate (&f, v);
    ok = fig != NULL;
    if (!ok)
      g_propagate_error (error, g_steal_pointer (&f.fail));
  }
  ytree_cache_end ();
  if (ok) {
    double rms = rms_pct (&f, cost (&f, fig));
    /* Whether the fit explains the data: each measurement that says how far it may be off, against its residual. */
    guint judged = 0, off = 0;
    for (guint i = 0; i < f.m->len; i++) {
      const Measurement *m = &g_array_index (f.m, Measurement, i);
      judged += m->has_uncertainty;
      off += m->has_uncertainty && !(fabs (fig[i] - m->measured) / m->measured * 100 <= m->uncertainty_pct);
    }
    if (disagree)
      *disagree = off > 0;
    if (opt->format == PS_FORMAT_JSON)
      fit_json (&f, report, fig, rms, judged, off);
    else
      fit_text (&f, report, fig, rms, judged, off);
    if (opt->output) {
      g_autoptr (GString) cfg = g_string_new (NULL);
      write_config (&f, cfg, rms);
      ok = ps_write_output (opt->output, cfg, error);
    }
  }
  g_clear_error (&f.fail);
  g_mutex_clear (&f.first.lock);
  g_array_unref (f.m);
  g_array_unref (f.p);
  g_free (f.free_idx);
  g_hash_table_unref (f.cache);
  g_array_unref (f.starts);
  ps_config_free (f.base);
  return ok;
}
