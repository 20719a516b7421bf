/* fit_profile.c — `pciesim fit`'s profiles (fit.h's contract): how far each constrained parameter can move, the
 * others re-fitted, while the fit stays within FIT_AS_WELL percentage points of relative RMS error of the best.
 *
 * Each probe re-fitted the others by a simplex from the fitted values, tens of evaluations even where the probe
 * fits at once: most of a fit's time went there (issue #37). Now the figures are linearised once at the fitted
 * point (a run a step down and one a step up per parameter: a figure another resource bounds has a kink there),
 * and a probe starts from the last point found that fits, the others moved where that linear model puts their
 * best for the probe's value, then Gauss-Newton steps on what each point measured (the derivatives updated by
 * Broyden's rule as they go, for a valley narrower than their step). Only a probe those leave unfit gets the
 * simplex, and only when they came within FIT_REFIT_RMS of the fit: beyond a cliff, where another resource binds,
 * it found nothing. A probe that fits is a run within the bound, whatever the model said: an interval never
 * claims more than runs showed. */
#include <math.h>
#include <string.h>

#include "app/config/config.h"
#include "app/study/fit_impl.h"

/* Halvings of the gap between the last probe that fits and the first that does not: 1/256 of it. */
#define FIT_HALVINGS 8
/* Gauss-Newton steps per probe; the short simplex only for a probe they leave within this many points of relative
 * RMS error of the fit (a cliff, where another resource binds, is no place to spend it). */
#define FIT_CORRECTIONS 3
#define FIT_REFIT_RMS (50 * FIT_AS_WELL)
/* Simplex re-fits per profile end: near the end, where the probes that decide the last digits fall just beyond the
 * bound, the simplex seldom brought one back (xdma_g3_x8: 2 of 19, for 1,016 of the profiles' 1,106 evaluations). */
#define FIT_REFITS 2

/* The linear model at the fitted point, in units of each range (u = (value - lo) / (hi - lo)). */
typedef struct {
  Fit *f;
  guint n, m; /* searched parameters, measurements */
  double *x; /* every parameter's fitted value */
  double *r0; /* the relative residuals there (m) */
  double *d[2]; /* [0] downwards, [1] upwards: n × m derivatives of the residuals, NAN where that side is out of range */
  double *dc; /* n × m: the mean of the sides there are */
  double c0, bound; /* the fitted cost; the highest cost that fits as well */
} Model;

static const Parameter *
free_param (const Fit *f, guint j)
{
  return &g_array_index (f->p, Parameter, f->free_idx[j]);
}

static double
span (const Parameter *p)
{
  return p->a->hi - p->a->lo;
}

/* The searched parameters' values in w, in units of their ranges, into u. */
static void
to_u (const Fit *f, guint n, const double *w, double *u)
{
  for (guint k = 0; k < n; k++)
    u[k] = (w[f->free_idx[k]] - free_param (f, k)->a->lo) / span (free_param (f, k));
}

/* Relative residuals of figures into r (non-finite: 0, left to the cost, which counts it). */
static void
residuals (const Fit *f, const double *fig, double *r)
{
  for (guint i = 0; i < f->m->len; i++) {
    double meas = g_array_index (f->m, Measurement, i).measured, e = (fig[i] - meas) / meas;
    r[i] = isfinite (e) ? e : 0;
  }
}

/* The n-vector delta (entry `fixed` 0) that minimises |r + sum_k delta_k d_k|^2 over the searched parameters but
 * `fixed`, keeping u + delta within [0, 1] (u NULL: unbounded): the normal equations (a hair of ridge, so that a
 * parameter that moves nothing stays put and a trade-off takes its smallest move), a parameter that would leave
 * its range held at its end and the rest solved again. */
static void
lin_refit (const Model *md, const double *dc, guint fixed, const double *r, const double *u, double *delta)
{
  guint n = md->n, m = md->m;
  g_autofree gboolean *held = g_new0 (gboolean, n);
  g_autofree double *a = g_new (double, (gsize) n * n), *b = g_new (double, n), *rr = g_new (double, m);
  held[fixed] = TRUE;
  memset (delta, 0, n * sizeof *delta);
  for (guint round = 0; round < n; round++) {
    /* The residual with the held moves applied. */
    for (guint i = 0; i < m; i++) {
      rr[i] = r[i];
      for (guint k = 0; k < n; k++)
        if (held[k] && k != fixed)
          rr[i] += delta[k] * dc[(gsize) k * m + i];
    }
    double diag = 0;
    for (guint k = 0; k < n; k++) {
      b[k] = 0;
      for (guint l = 0; l < n; l++) {
        double s = 0;
        for (guint i = 0; i < m && !held[k] && !held[l]; i++)
          s += dc[(gsize) k * m + i] * dc[(gsize) l * m + i];
        a[(gsize) k * n + l] = s;
      }
      for (guint i = 0; i < m && !held[k]; i++)
        b[k] -= dc[(gsize) k * m + i] * rr[i];
      diag = MAX (diag, a[(gsize) k * n + k]);
    }
    for (guint k = 0; k < n; k++)
      a[(gsize) k * n + k] += held[k] ? 1 : 1e-9 * diag + 1e-300;
    /* Gaussian elimination with partial pivoting; the system is symmetric positive definite with the ridge. */
    for (guint c = 0; c < n; c++) {
      guint piv = c;
      for (guint k = c + 1; k < n; k++)
        if (fabs (a[(gsize) k * n + c]) > fabs (a[(gsize) piv * n + c]))
          piv = k;
      for (guint l = 0; l < n && piv != c; l++) {
        double t = a[(gsize) c * n + l];
        a[(gsize) c * n + l] = a[(gsize) piv * n + l];
        a[(gsize) piv * n + l] = t;
      }
      double t = b[c];
      b[c] = b[piv];
      b[piv] = t;
      for (guint k = c + 1; k < n; k++) {
        double q = a[(gsize) k * n + c] / a[(gsize) c * n + c];
        for (guint l = c; l < n; l++)
          a[(gsize) k * n + l] -= q * a[(gsize) c * n + l];
        b[k] -= q * b[c];
      }
    }
    gboolean clipped = FALSE;
    for (guint c = n; c-- > 0;) {
      double s = b[c];
      for (guint l = c + 1; l < n; l++)
        s -= a[(gsize) c * n + l] * b[l];
      b[c] = s / a[(gsize) c * n + c];
    }
    for (guint k = 0; k < n; k++) {
      if (held[k])
        continue;
      delta[k] = b[k];
      if (u && (u[k] + delta[k] < 0 || u[k] + delta[k] > 1)) {
        delta[k] = (u[k] + delta[k] < 0 ? 0 : 1) - u[k];
        held[k] = clipped = TRUE;
      }
    }
    if (!clipped)
      return;
  }
}

/* The derivatives at the fitted point: each searched parameter a step down and a step up, one batch. */
static gboolean
model_init (Model *md, Fit *f, GError **error)
{
  guint n = f->n_free, m = f->m->len, np = f->p->len;
  *md = (Model) { .f = f, .n = n, .m = m, .x = g_new (double, np), .r0 = g_new (double, m),
                  .d = { g_new (double, (gsize) n * m), g_new (double, (gsize) n * m) },
                  .dc = g_new0 (double, (gsize) n * m) };
  for (guint k = 0; k < np; k++)
    md->x[k] = g_array_index (f->p, Parameter, k).value;
  g_autoptr (GPtrArray) pts = g_ptr_array_new_with_free_func (g_free);
  fit_derivative_points (f, md->x, pts);
  g_autofree const double **figs = g_new (const double *, pts->len);
  if (!fit_evaluate_batch (f, pts, figs, error))
    return FALSE;
  residuals (f, figs[0], md->r0);
  md->c0 = fit_cost (f, figs[0]);
  /* Within FIT_AS_WELL points of the fit's relative RMS error (as the report says), a hair inside for rounding. */
  double lim = (fit_rms_pct (f, md->c0) + FIT_AS_WELL) / 100;
  md->bound = lim * lim * m * (1 - 1e-9);
  g_autofree double *r = g_new (double, m);
  for (guint j = 0; j < n; j++) {
    guint sides = 0;
    for (int side = 0; side < 2; side++) {
      double *d = md->d[side] + (gsize) j * m, h = (((double *) pts->pdata[1 + 2 * j + side])[f->free_idx[j]]
                                                    - md->x[f->free_idx[j]]) / span (free_param (f, j));
      residuals (f, figs[1 + 2 * j + side], r);
      for (guint i = 0; i < m; i++)
        d[i] = h != 0 ? (r[i] - md->r0[i]) / h : NAN;
      if (h != 0) {
        sides++;
        for (guint i = 0; i < m; i++)
          md->dc[(gsize) j * m + i] += d[i];
      }
    }
    for (guint i = 0; i < m && sides; i++)
      md->dc[(gsize) j * m + i] /= sides;
  }
  return TRUE;
}

static void
model_clear (Model *md)
{
  g_free (md->x);
  g_free (md->r0);
  g_free (md->d[0]);
  g_free (md->d[1]);
  g_free (md->dc);
}

/* Whether parameter j at value t fits as well, from `from` (every parameter's value: the last point found that fits,
 * the fitted one first): the others moved where the linear model puts their best, then up to FIT_CORRECTIONS
 * Gauss-Newton steps from what each point measured, then, when the best of them is within FIT_REFIT_RMS points of
 * the fit, the short simplex from there. *c: the lowest cost found, at `found`. */
static gboolean
probe (Search *s, const Model *md, const double *from, double t, guint j, double *c, double *found, guint *refits)
{
  Fit *f = s->f;
  guint n = md->n, m = md->m, np = f->p->len;
  double dj = (t - from[f->free_idx[j]]) / span (free_param (f, j));
  const double *a = md->d[dj > 0] + (gsize) j * m;
  if (isnan (a[0]))
    a = md->dc + (gsize) j * m;
  g_autofree double *r = g_new (double, m), *u = g_new (double, n), *delta = g_new (double, n);
  g_autofree double *w = g_memdup2 (from, np * sizeof *w), *jac = g_memdup2 (md->dc, (gsize) n * m * sizeof *jac);
  g_autofree double *prev_r = g_new (double, m), *prev_u = g_new (double, n);
  /* From a point that fits, the others move only to undo what j's move does to the residuals, and each step after
   * undoes what the point measured beyond the fitted residuals (the search left those where the others cannot
   * lower them, whatever the linear model says). */
  for (guint i = 0; i < m; i++)
    r[i] = a[i] * dj;
  w[f->free_idx[j]] = t;
  memcpy (found, w, np * sizeof *w);
  *c = HUGE_VAL;
  to_u (f, n, w, u);
  for (guint step = 0; step <= FIT_CORRECTIONS && !s->fail; step++) {
    lin_refit (md, jac, j, r, u, delta);
    gboolean moved = step == 0;
    for (guint k = 0; k < n; k++) {
      const Parameter *p = free_param (f, k);
      double to = CLAMP (ps_config_snap (p->a->key, w[f->free_idx[k]] + delta[k] * span (p)), p->a->lo, p->a->hi);
      moved |= to != w[f->free_idx[k]];
      w[f->free_idx[k]] = to;
    }
    if (!moved)
      break;
    const double *fig = fit_evaluate (s, w);
    double cw = fit_cost (f, fig);
    if (cw < *c) {
      *c = cw;
      memcpy (found, w, np * sizeof *w);
    }
    if (*c <= md->bound || !fig)
      return !s->fail && *c <= md->bound;
    residuals (f, fig, r);
    for (guint i = 0; i < m; i++)
      r[i] -= md->r0[i];
    /* Broyden's update of the others' derivatives by the step the last correction took and what it changed. */
    to_u (f, n, w, u);
    double ss = 0;
    for (guint k = 0; k < n && step > 0; k++)
      ss += k != j ? (u[k] - prev_u[k]) * (u[k] - prev_u[k]) : 0;
    for (guint i = 0; i < m && ss > 0; i++) {
      double pred = prev_r[i];
      for (guint k = 0; k < n; k++)
        pred += k != j ? jac[(gsize) k * m + i] * (u[k] - prev_u[k]) : 0;
      for (guint k = 0; k < n; k++)
        jac[(gsize) k * m + i] += k != j ? (r[i] - pred) * (u[k] - prev_u[k]) / ss : 0;
    }
    memcpy (prev_r, r, m * sizeof *r);
    memcpy (prev_u, u, n * sizeof *u);
  }
  if (s->fail || n < 2 || *refits >= FIT_REFITS || fit_rms_pct (f, *c) > fit_rms_pct (f, md->c0) + FIT_REFIT_RMS)
    return FALSE;
  ++*refits;
  /* The simplex searches free_idx[0 .. n_free): the fixed one is swapped out of it for the re-fit, which stops at
   * the first point that fits as well (its best only falls, so stopping there answers as its budget would). */
  guint *idx = s->free_idx, last = idx[n - 1];
  idx[n - 1] = idx[j];
  idx[j] = last;
  s->n_free = n - 1;
  /* Its budget grows with the parameters it re-fits up to three. In more, a re-fit that fits does so among the
   * simplex's first vertices, each one parameter a quarter of its range away (xdma_g3_x8's posted-header credits
   * held low: from 6.1% RMS to 1.77% at the posted-data credits' vertex), and the steps after them, 15 or 40
   * evaluations, brought no probe back (6 of 6 there): the vertices alone, n evaluations. */
  s->maxeval = n - 1 <= 3 ? 20 + 10 * (int) (n - 1) : (int) n;
  s->stopval = md->bound;
  fit_simplex (s, found);
  s->maxeval = 0;
  s->stopval = 0;
  s->n_free = n;
  idx[j] = idx[n - 1];
  idx[n - 1] = last;
  double cb = fit_cost (f, fit_evaluate (s, found));
  *c = MIN (*c, cb);
  return !s->fail && cb <= md->bound;
}

typedef struct {
  Search *tasks; /* 2 per constrained parameter: towards its low end, then its high end */
  const Model *md;
} Profiles;

/* Task t: constrained parameter t / 2 towards the end of its range t % 2 names: probes at growing fractions of the
 * way to the end, the interval ending at the last that fits (a plateau, where another resource bounds every
 * measured figure, shows as an interval reaching the range's end), then up to FIT_HALVINGS of the gap to the first
 * probe that does not fit. Each probe starts from the last point found that fits. */
static void
profile_one (guint t, gpointer user)
{
  static const double frac[] = { 1.0 / 256, 1.0 / 32, 1.0 / 8, 1.0 / 4, 1.0 / 2, 3.0 / 4, 1 };
  Profiles *pr = user;
  Search *s = &pr->tasks[t];
  const Model *md = pr->md;
  Fit *f = s->f;
  guint j = t / 2, np = f->p->len;
  int dir = t % 2 ? 1 : -1;
  Parameter *p = &g_array_index (f->p, Parameter, f->free_idx[j]);
  g_autofree double *from = g_memdup2 (md->x, np * sizeof *from), *found = g_new (double, np);
  double end = dir < 0 ? p->a->lo : p->a->hi, good = p->value, bad = NAN, c;
  guint refits = 0, none = FIT_REFITS;
  /* A plateau first: the range's end and the way there halved, each the others re-fitted without the simplex. Both
   * fit: the interval reaches the end in two probes, where the growing fractions take seven (xdma_g3_x8: 16 of its
   * 20 profile ends). */
  double half = ps_config_snap (p->a->key, p->value + (end - p->value) / 2);
  if (end != p->value && probe (s, md, from, end, j, &c, found, &none)
      && (half == p->value || half == end || probe (s, md, from, half, j, &c, found, &none))) {
    *(dir < 0 ? &p->fits_lo : &p->fits_hi) = end;
    return;
  }
  for (guint i = 0; i < G_N_ELEMENTS (frac) + FIT_HALVINGS && !s->fail; i++) {
    double x = i < G_N_ELEMENTS (frac) ? p->value + frac[i] * (end - p->value) : (good + bad) / 2;
    if (i < G_N_ELEMENTS (frac) ? !isnan (bad) : isnan (bad))
      continue;
    x = ps_config_snap (p->a->key, x);
    /* Halvings end when the gap is a 64th of the interval's half. A sixteenth, with no probe nearer than 1/32 of
     * the way to the range's end, left test_fit_recovers' set 1 (a 60 ns pipeline on a staircase of the card's
     * 4-ns clock) 0.006 ns outside the 58.06 to 59.99 ns printed, the step being 0.03 ns beyond the truth. */
    if (x == good || x == bad || (i >= G_N_ELEMENTS (frac) && fabs (bad - good) * 64 <= fabs (good - p->value))) {
      if (i < G_N_ELEMENTS (frac))
        continue;
      break;
    }
    if (probe (s, md, from, x, j, &c, found, &refits)) {
      good = x;
      memcpy (from, found, np * sizeof *from);
    } else {
      bad = x;
    }
  }
  *(dir < 0 ? &p->fits_lo : &p->fits_hi) = good;
}

gboolean
fit_profiles (Fit *f, GError **error)
{
  if (f->n_free == 0)
    return TRUE;
  Model md;
  gboolean ok = model_init (&md, f, error);
  if (ok) {
    guint n = 2 * f->n_free;
    g_autofree Search *tasks = g_new (Search, n);
    for (guint t = 0; t < n; t++)
      fit_task_init (&tasks[t], f, fit_inner_jobs (f, n));
    Profiles pr = { tasks, &md };
    ps_sweep_parallel (n, fit_outer_jobs (f, n), profile_one, &pr);
    ok = fit_tasks_end (f, tasks, n, error);
  }
  model_clear (&md);
  return ok;
}
