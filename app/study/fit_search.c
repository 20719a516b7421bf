/* fit_search.c — `pciesim fit`'s search (fit.h's contract): evaluations, the simplex and the integers, restarts
 * and screening (the profiles are fit_profile.c's), on --jobs threads with results that do not depend on their
 * number.
 *
 * What runs at once: every batch of points whose values are known before any is run — the screening's ends, an
 * integer's grid, the derivatives' steps, the rescreening at the fitted point and the restarts' starts — runs as
 * one flat set of runs (points × measurements); the restarts run as parallel tasks, and so do the profiles (one task per parameter and
 * direction); the simplex, which needs each point's cost before it chooses the next, runs one point's
 * measurements at once. A task keeps the points it evaluates to itself and reads the fit's cache frozen, so what
 * it finds, and the evaluations it counts, are the same on one thread or many; its points join the cache after
 * the phase. */
#include <math.h>
#include <nlopt.h>
#include <stdio.h>
#include <string.h>

#include "app/run/builder.h"
#include "app/config/config.h"
#include "app/study/fit_impl.h"

/* --- evaluations ----------------------------------------------------------------------------------------- */

void
fit_search_init (Search *s, Fit *f)
{
  *s = (Search) { .f = f, .held = g_new0 (double, f->p->len), .free_idx = g_memdup2 (f->free_idx, f->p->len * sizeof (guint)),
                  .n_free = f->n_free, .jobs = f->opt->jobs, .own = f->cache };
}

void
fit_search_clear (Search *s)
{
  g_free (s->held);
  g_free (s->free_idx);
  if (s->own && s->own != s->f->cache)
    g_hash_table_unref (s->own);
  g_clear_error (&s->fail);
}

void
fit_task_init (Search *s, Fit *f, int jobs)
{
  fit_search_init (s, f);
  s->jobs = jobs;
  s->own = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

gboolean
fit_tasks_end (Fit *f, Search *tasks, guint n, GError **error)
{
  gboolean ok = TRUE;
  for (guint t = 0; t < n; t++) {
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init (&it, tasks[t].own);
    while (g_hash_table_iter_next (&it, &k, &v)) {
      g_hash_table_iter_steal (&it);
      if (g_hash_table_contains (f->cache, k)) {
        g_free (k);
        g_free (v);
      } else {
        g_hash_table_insert (f->cache, k, v);
      }
    }
    f->evaluations += tasks[t].evaluations;
    if (ok && tasks[t].fail) {
      g_propagate_error (error, g_steal_pointer (&tasks[t].fail));
      ok = FALSE;
    }
    fit_search_clear (&tasks[t]);
  }
  return ok;
}

int
fit_outer_jobs (const Fit *f, guint n)
{
  int jobs = f->opt->jobs > 0 ? f->opt->jobs : (int) g_get_num_processors ();
  return (int) MAX (1, MIN ((guint) jobs, n));
}

int
fit_inner_jobs (const Fit *f, guint n)
{
  int jobs = f->opt->jobs > 0 ? f->opt->jobs : (int) g_get_num_processors ();
  return MAX (1, jobs / fit_outer_jobs (f, n));
}

/* The runs of one batch: measurement i % M at point i / M. */
typedef struct {
  Search *s;
  double **points, **figures;
  PsFirstError first;
} Batch;

static void
batch_one (guint i, gpointer user)
{
  Batch *b = user;
  const Fit *f = b->s->f;
  guint pt = i / f->m->len, mi = i % f->m->len;
  const Measurement *m = &g_array_index (f->m, Measurement, mi);
  g_autoptr (GPtrArray) sets = g_ptr_array_new_with_free_func (g_free);
  for (char **s = m->sets; *s; s++)
    g_ptr_array_add (sets, g_strdup (*s));
  for (guint k = 0; k < f->p->len; k++)
    g_ptr_array_add (sets, ps_config_set_text (g_array_index (f->p, Parameter, k).a->key, b->points[pt][k]));
  g_ptr_array_add (sets, NULL);
  GError *e = NULL;
  g_autoptr (PsConfig) cfg = fit_load_at (f->base->path, (const char *const *) sets->pdata, m->at, &e);
  PsRunResult r = { 0 };
  if (cfg && ps_run_config (cfg, m->modes, f->opt->seed, &r, &e)) {
    b->figures[pt][mi] = ps_metric_value (&m->metric, &r);
    return;
  }
  ps_first_error_keep (&b->first, i, e);
}

gboolean
fit_evaluate_points (Search *s, double *const *points, guint n, const double **figs)
{
  Fit *f = s->f;
  g_autoptr (GPtrArray) keys = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GHashTable) batch = g_hash_table_new (g_str_hash, g_str_equal); /* key -> miss + 1 */
  g_autoptr (GPtrArray) miss_points = g_ptr_array_new (), miss_keys = g_ptr_array_new ();
  for (guint q = 0; q < n; q++) {
    GString *key = g_string_new (NULL);
    for (guint k = 0; k < f->p->len; k++) {
      points[q][k] = ps_config_snap (g_array_index (f->p, Parameter, k).a->key, points[q][k]);
      g_string_append_printf (key, "%.17g,", points[q][k]);
    }
    g_ptr_array_add (keys, g_string_free (key, FALSE));
    const char *kq = keys->pdata[q];
    figs[q] = s->own != f->cache ? g_hash_table_lookup (f->cache, kq) : NULL;
    if (!figs[q])
      figs[q] = g_hash_table_lookup (s->own, kq);
    if (!figs[q] && !g_hash_table_contains (batch, kq)) {
      g_ptr_array_add (miss_points, points[q]);
      g_ptr_array_add (miss_keys, (gpointer) kq);
      g_hash_table_insert (batch, (gpointer) kq, GUINT_TO_POINTER (miss_points->len));
    }
  }
  if (miss_points->len == 0)
    return TRUE;
  guint nm = miss_points->len;
  g_autofree double **figures = g_new (double *, nm);
  for (guint q = 0; q < nm; q++)
    figures[q] = g_new (double, f->m->len);
  Batch b = { .s = s, .points = (double **) miss_points->pdata, .figures = figures };
  g_mutex_init (&b.first.lock);
  ps_sweep_parallel (nm * f->m->len, s->jobs, batch_one, &b);
  g_mutex_clear (&b.first.lock);
  s->evaluations += nm;
  g_mutex_lock (&f->progress_lock);
  f->progress_evals += nm;
  g_mutex_unlock (&f->progress_lock);
  if (b.first.error) {
    for (guint q = 0; q < nm; q++)
      g_free (figures[q]);
    s->fail = b.first.error;
    return FALSE;
  }
  for (guint q = 0; q < nm; q++)
    g_hash_table_insert (s->own, g_strdup (miss_keys->pdata[q]), figures[q]);
  for (guint q = 0; q < n; q++)
    if (!figs[q])
      figs[q] = g_hash_table_lookup (s->own, keys->pdata[q]);
  return TRUE;
}

gboolean
fit_evaluate_batch (Fit *f, GPtrArray *pts, const double **figs, GError **error)
{
  Search s;
  fit_search_init (&s, f);
  gboolean ok = fit_evaluate_points (&s, (double *const *) pts->pdata, pts->len, figs);
  f->evaluations += s.evaluations;
  ok = ok && fit_no_failure (&s, error);
  fit_search_clear (&s);
  return ok;
}

const double *
fit_evaluate (Search *s, double *values)
{
  const double *fig = NULL;
  return fit_evaluate_points (s, &values, 1, &fig) ? fig : NULL;
}

double
fit_cost (Fit *f, const double *figures)
{
  if (!figures)
    return HUGE_VAL;
  double s = 0;
  for (guint i = 0; i < f->m->len; i++) {
    double m = g_array_index (f->m, Measurement, i).measured, e = (figures[i] - m) / m;
    s += isfinite (e) ? e * e : 1e6;
  }
  /* A line on a terminal, rewritten at most five times a second: a fit takes minutes, silence looks like a hang. */
  g_mutex_lock (&f->progress_lock);
  if (!(s >= f->best_cost))
    f->best_cost = s;
  gint64 now = f->opt->progress ? g_get_monotonic_time () : 0;
  if (f->opt->progress && now - f->progress_at > 200000) {
    f->progress_at = now;
    fprintf (stderr, "\rfit: %u evaluations, best relative RMS error %.3f%%   ", f->progress_evals,
             fit_rms_pct (f, f->best_cost));
    fflush (stderr);
  }
  g_mutex_unlock (&f->progress_lock);
  return s;
}

double
fit_rms_pct (const Fit *f, double c)
{
  return sqrt (c / f->m->len) * 100;
}

gboolean
fit_no_failure (Search *s, GError **error)
{
  if (!s->fail)
    return TRUE;
  g_propagate_error (error, g_steal_pointer (&s->fail));
  return FALSE;
}

/* --- the simplex and the integers ------------------------------------------------------------------------ */

/* NLopt's objective: u in [0, 1] per searched parameter. */
static double
objective (unsigned n, const double *u, double *grad, void *data)
{
  Search *s = data;
  (void) grad; /* derivative-free */
  g_autofree double *v = g_memdup2 (s->held, s->f->p->len * sizeof *v);
  for (unsigned j = 0; j < n; j++) {
    const PsAssumption *a = g_array_index (s->f->p, Parameter, s->free_idx[j]).a;
    v[s->free_idx[j]] = a->lo + u[j] * (a->hi - a->lo);
  }
  double c = fit_cost (s->f, fit_evaluate (s, v));
  if (s->fail)
    nlopt_force_stop (s->nlopt);
  /* Stalled: a fit that has not fallen by FIT_STALL_GAIN of its cost in FIT_STALL_EVALS runs is polishing digits the
   * profiles and the passes after it take care of (xdma_g3_x8: 1.967% RMS after 108 evaluations, 1.966% after 307). */
  if (c < s->best_c) {
    s->best_c = c;
    memcpy (s->best_u, u, n * sizeof *u);
  }
  if (c < s->stall_best * (1 - FIT_STALL_GAIN)) {
    s->stall_best = c;
    s->stall_at = s->evaluations;
  } else if (s->evaluations - s->stall_at > FIT_STALL_EVALS (n)) {
    nlopt_force_stop (s->nlopt);
  }
  return c;
}

double
fit_step (const Parameter *p, double v, int dir)
{
  for (double d = 1; d <= p->a->hi - p->a->lo; d *= 2) {
    double w = ps_config_snap (p->a->key, v + dir * d);
    if (w != v)
      return w < p->a->lo || w > p->a->hi ? v : w;
  }
  return v;
}

void
fit_simplex (Search *s, double *v)
{
  const Fit *f = s->f;
  guint n = s->n_free;
  nlopt_opt o = s->nlopt = nlopt_create (NLOPT_LN_NELDERMEAD, n);
  g_autofree double *u = g_new (double, n), *lo = g_new (double, n), *hi = g_new (double, n), *dx = g_new (double, n);
  for (guint j = 0; j < n; j++) {
    const Parameter *p = &g_array_index (f->p, Parameter, s->free_idx[j]);
    u[j] = (v[s->free_idx[j]] - p->a->lo) / (p->a->hi - p->a->lo);
    lo[j] = 0;
    hi[j] = 1;
    /* The first simplex spans a quarter of each range, towards the middle, so it leaves the start at once. */
    dx[j] = u[j] < 0.5 ? 0.25 : -0.25;
  }
  memcpy (s->held, v, f->p->len * sizeof *v);
  nlopt_set_lower_bounds (o, lo);
  nlopt_set_upper_bounds (o, hi);
  nlopt_set_initial_step (o, dx);
  nlopt_set_min_objective (o, objective, s);
  nlopt_set_xtol_abs1 (o, 1e-4);
  nlopt_set_ftol_abs (o, 1e-10);
  nlopt_set_maxeval (o, s->maxeval ? s->maxeval : 60 + 30 * (int) n);
  if (s->stopval > 0)
    nlopt_set_stopval (o, s->stopval);
  double best = 0;
  g_autofree double *best_u = g_memdup2 (u, n * sizeof *u);
  s->best_u = best_u;
  s->best_c = s->stall_best = HUGE_VAL;
  s->stall_at = s->evaluations;
  /* Stopped early, the simplex's point is its best so far; kept here as well, not to rely on how NLopt leaves u. */
  if (nlopt_optimize (o, u, &best) == NLOPT_FORCED_STOP && s->best_c < HUGE_VAL)
    memcpy (u, best_u, n * sizeof *u);
  s->best_u = NULL;
  nlopt_destroy (o);
  s->nlopt = NULL;
  for (guint j = 0; j < n; j++) {
    const Parameter *p = &g_array_index (f->p, Parameter, s->free_idx[j]);
    v[s->free_idx[j]] = ps_config_snap (p->a->key, p->a->lo + u[j] * (p->a->hi - p->a->lo));
  }
}

/* Integer j of the searched (at *x in v) over a geometric grid of its range (four values per doubling), keeping the
 * first of the lowest costs below *c. The grid's points differ from v in that parameter alone, so the cost of one
 * does not depend on which an earlier one kept: they run as one batch. Whether it moved. */
static gboolean
integer_grid (Search *s, const Parameter *p, double *v, double *x, double *c)
{
  g_autoptr (GPtrArray) pts = g_ptr_array_new_with_free_func (g_free);
  for (double g = MAX (p->a->lo, 1); g <= p->a->hi; g = MAX (g + 1, g * 1.19)) {
    double *w = g_memdup2 (v, s->f->p->len * sizeof *w);
    w[x - v] = g;
    g_ptr_array_add (pts, w);
  }
  g_autofree const double **figs = g_new (const double *, MAX (pts->len, 1));
  if (!fit_evaluate_points (s, (double *const *) pts->pdata, pts->len, figs))
    return FALSE;
  gboolean moved = FALSE;
  for (guint q = 0; q < pts->len; q++) {
    double c2 = fit_cost (s->f, figs[q]);
    if (c2 < *c) {
      *c = c2;
      *x = ((double *) pts->pdata[q])[x - v];
      moved = TRUE;
    }
  }
  return moved;
}

/* Integers, one at a time while the cost falls: the simplex sees only plateaus there, and a figure a resource
 * bounds stops moving once another binds (a plateau that can hold the simplex far from the answer). Each pass
 * tries the grid over the range and then single steps around the best. Whether an integer moved. */
static gboolean
integer_passes (Search *s, double *v, double *c)
{
  gboolean moved_any = FALSE;
  for (guint pass = 0, better = TRUE; better && pass < 4 && !s->fail; pass++) {
    better = FALSE;
    for (guint j = 0; j < s->n_free && !s->fail; j++) {
      const Parameter *p = &g_array_index (s->f->p, Parameter, s->free_idx[j]);
      double *x = &v[s->free_idx[j]];
      if (!p->integer)
        continue;
      if (integer_grid (s, p, v, x, c))
        better = moved_any = TRUE;
      for (int dir = -1; dir <= 1 && !s->fail; dir += 2)
        for (gboolean moved = TRUE; moved && !s->fail;) {
          double old = *x;
          *x = fit_step (p, old, dir);
          double c2 = *x != old ? fit_cost (s->f, fit_evaluate (s, v)) : *c;
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

/* Probes of a continuous parameter on each side of its value: 1/8, 1/16, ... 1/1024 of its range. */
#define FIT_PROBE_LEVELS 8

/* The continuous parameters, one at a time while the cost falls. A figure a clocked part bounds (a device that
 * issues on its interface's edges, a credit loop that closes on them) is a staircase in the parameters, and one
 * that aliases two periods (a DMA's length against the credit returns') jumps between neighbouring values: the
 * simplex stops on a step (all its vertices cost the same) next to a lower one. Each pass probes every level on
 * both sides at once (a batch, as no probe depends on another), moves to the first of the lowest below *c and on
 * in that direction while the cost falls; the passes end when one gains less than could matter. */
static void
continuous_passes (Search *s, double *v, double *c)
{
  guint np = s->f->p->len, n = 2 * FIT_PROBE_LEVELS;
  g_autofree double *pts = g_new (double, (gsize) n * np);
  g_autofree double **rows = g_new (double *, n);
  g_autofree const double **figs = g_new (const double *, n);
  for (guint pass = 0, better = TRUE; better && pass < 4 && !s->fail; pass++) {
    double at_start = *c;
    for (guint j = 0; j < s->n_free && !s->fail; j++) {
      const Parameter *p = &g_array_index (s->f->p, Parameter, s->free_idx[j]);
      guint k = s->free_idx[j];
      if (p->integer)
        continue;
      for (guint q = 0; q < n; q++) {
        double d = (p->a->hi - p->a->lo) / (double) (8u << (q / 2)) * (q % 2 ? -1 : 1);
        rows[q] = pts + (gsize) q * np;
        memcpy (rows[q], v, np * sizeof *v);
        rows[q][k] = CLAMP (v[k] + d, p->a->lo, p->a->hi);
      }
      if (!fit_evaluate_points (s, rows, n, figs))
        break;
      double from = v[k];
      for (guint q = 0; q < n; q++) {
        double c2 = fit_cost (s->f, figs[q]);
        if (c2 < *c) {
          *c = c2;
          v[k] = rows[q][k];
        }
      }
      /* Onwards the same way, the step doubling while the cost falls: a valley's floor many probe steps away
       * (xdma_g3_x8's read latency, seven eighths of its range) in a run per step, not a batch per step. */
      for (double step = 2 * (v[k] - from); step != 0 && !s->fail; step *= 2) {
        double old = v[k];
        v[k] = CLAMP (old + step, p->a->lo, p->a->hi);
        double c2 = v[k] != old ? fit_cost (s->f, fit_evaluate (s, v)) : *c;
        if (!(c2 < *c)) {
          v[k] = old;
          break;
        }
        *c = c2;
      }
    }
    /* Another pass only for a gain that could matter: a fifth of what "fits as well" allows. */
    better = fit_rms_pct (s->f, at_start) - fit_rms_pct (s->f, *c) > FIT_AS_WELL / 5;
  }
}

/* One descent from v: the simplex, then the integers, then the continuous passes; when an integer moved, the simplex
 * again from there (the other parameters were fitted around the integer's old value and may be compensating for
 * it). The cost at v. */
static double
descend (Search *s, double *v)
{
  double c = HUGE_VAL;
  for (guint round = 0; round < 3 && !s->fail; round++) {
    fit_simplex (s, v);
    c = fit_cost (s->f, fit_evaluate (s, v));
    gboolean ints = integer_passes (s, v, &c);
    /* The continuous passes' moves are small beside an integer's; the simplex again after them alone found nothing
     * (xdma_g3_x8: 194 evaluations for 1e-6 of cost). */
    continuous_passes (s, v, &c);
    if (!ints)
      break;
  }
  return c;
}

/* --- the search and its restarts ------------------------------------------------------------------------- */

/* A fit that leaves more than this relative RMS error starts again elsewhere: the simplex is local, and a model
 * whose figures a different resource bounds in different parts of the range has more than one valley. */
#define FIT_GOOD_RMS_PCT 0.1
#define FIT_RESTARTS 4

typedef struct {
  Search *tasks;
  double *starts; /* FIT_RESTARTS x p->len, descended in place */
  double *costs;
} Restarts;

static void
restart_one (guint r, gpointer user)
{
  Restarts *rs = user;
  Search *s = &rs->tasks[r];
  rs->costs[r] = descend (s, rs->starts + (gsize) r * s->f->p->len);
}

/* FIT_RESTARTS starts from a Latin-hypercube sample of the searched parameters' ranges, drawn from the seed (the
 * same file and seed, the same starts), the others at v's values; all run at once, the best (the first of the
 * lowest costs) replacing v when lower than *c. */
static gboolean
restarts (Fit *f, double *v, double *c, GError **error)
{
  guint np = f->p->len;
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
  g_autofree double *starts = g_new (double, (gsize) np * FIT_RESTARTS), *costs = g_new (double, FIT_RESTARTS);
  Search tasks[FIT_RESTARTS];
  for (guint r = 0; r < FIT_RESTARTS; r++) {
    double *w = starts + (gsize) r * np;
    memcpy (w, v, np * sizeof *w);
    for (guint j = 0; j < f->n_free; j++) {
      const Parameter *p = &g_array_index (f->p, Parameter, f->free_idx[j]);
      double u = (perm[(gsize) j * FIT_RESTARTS + r] + g_rand_double (rng)) / FIT_RESTARTS;
      w[f->free_idx[j]] = ps_config_snap (p->a->key, p->a->lo + u * (p->a->hi - p->a->lo));
    }
    g_array_append_vals (f->starts, w, np);
    fit_task_init (&tasks[r], f, fit_inner_jobs (f, FIT_RESTARTS));
  }
  f->restarts += FIT_RESTARTS;
  Restarts rs = { tasks, starts, costs };
  ps_sweep_parallel (FIT_RESTARTS, fit_outer_jobs (f, FIT_RESTARTS), restart_one, &rs);
  if (!fit_tasks_end (f, tasks, FIT_RESTARTS, error))
    return FALSE;
  for (guint r = 0; r < FIT_RESTARTS; r++)
    if (costs[r] < *c) {
      *c = costs[r];
      memcpy (v, starts + (gsize) r * np, np * sizeof *v);
    }
  return TRUE;
}

void
fit_derivative_points (const Fit *f, const double *x, GPtrArray *pts)
{
  guint np = f->p->len;
  g_ptr_array_add (pts, g_memdup2 (x, np * sizeof (double)));
  for (guint j = 0; j < f->n_free; j++)
    for (int side = 0; side < 2; side++) {
      const Parameter *p = &g_array_index (f->p, Parameter, f->free_idx[j]);
      double *w = g_memdup2 (x, np * sizeof (double)), *y = &w[f->free_idx[j]];
      double to = ps_config_snap (p->a->key, *y + (side ? 1 : -1) * FIT_DERIV_STEP * (p->a->hi - p->a->lo));
      *y = to != *y && to >= p->a->lo && to <= p->a->hi ? to : fit_step (p, *y, side ? 1 : -1);
      g_ptr_array_add (pts, w);
    }
}

/* Whether restarts could change the answer at v (cost c). Not when the fit is good: within FIT_GOOD_RMS_PCT, or
 * every measurement within its uncertainty. Nor when every measurement is judged and each one beyond its
 * uncertainty stays beyond it on the same side at the corner that moves it most towards its value: each searched
 * parameter at the end of its range its derivatives at v say helps it (issue #37: xdma_g3_x8's C2H writes, under
 * 6.9 GB/s at every value in the ranges, made every fit restart four times, for nothing). Those derivatives are
 * the profiles' (fit_profile.c), which find them in the cache when no restart moves v. */
static gboolean
worth_restarting (Fit *f, Search *s, double *v, double c)
{
  guint m = f->m->len, n = f->n_free;
  if (fit_rms_pct (f, c) <= FIT_GOOD_RMS_PCT)
    return FALSE;
  for (guint i = 0; i < m; i++)
    if (!g_array_index (f->m, Measurement, i).has_uncertainty)
      return TRUE;
  g_autoptr (GPtrArray) pts = g_ptr_array_new_with_free_func (g_free);
  fit_derivative_points (f, v, pts);
  g_autofree const double **figs = g_new (const double *, pts->len);
  if (!fit_evaluate_points (s, (double *const *) pts->pdata, pts->len, figs))
    return FALSE;
  g_autoptr (GPtrArray) corners = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GArray) which = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < m; i++) {
    const Measurement *me = &g_array_index (f->m, Measurement, i);
    double r = (figs[0][i] - me->measured) / me->measured;
    if (fabs (r) * 100 <= me->uncertainty_pct)
      continue;
    double *w = g_memdup2 (v, f->p->len * sizeof *w);
    for (guint j = 0; j < n; j++) {
      const Parameter *p = &g_array_index (f->p, Parameter, f->free_idx[j]);
      double down = (figs[1 + 2 * j][i] - figs[0][i]) * (r > 0 ? 1 : -1);
      double up = (figs[2 + 2 * j][i] - figs[0][i]) * (r > 0 ? 1 : -1);
      if (MIN (down, up) < 0)
        w[f->free_idx[j]] = down < up ? p->a->lo : p->a->hi;
    }
    g_ptr_array_add (corners, w);
    g_array_append_val (which, i);
  }
  if (corners->len == 0)
    return FALSE;
  g_autofree const double **cf = g_new (const double *, corners->len);
  if (!fit_evaluate_points (s, (double *const *) corners->pdata, corners->len, cf))
    return FALSE;
  for (guint q = 0; q < corners->len; q++) {
    guint i = g_array_index (which, guint, q);
    const Measurement *me = &g_array_index (f->m, Measurement, i);
    double r = (figs[0][i] - me->measured) / me->measured, rc = (cf[q][i] - me->measured) / me->measured;
    if (!(r * rc > 0 && fabs (rc) * 100 > me->uncertainty_pct))
      return TRUE;
  }
  return FALSE;
}

gboolean
fit_search (Fit *f, GError **error)
{
  Search s;
  fit_search_init (&s, f);
  g_autofree double *v = g_new (double, f->p->len);
  for (guint k = 0; k < f->p->len; k++)
    v[k] = g_array_index (f->p, Parameter, k).file_value;
  double c = fit_cost (f, fit_evaluate (&s, v));
  gboolean again = FALSE;
  if (f->n_free > 0) {
    c = descend (&s, v);
    again = !s.fail && worth_restarting (f, &s, v, c);
  }
  f->evaluations += s.evaluations;
  gboolean ok = fit_no_failure (&s, error);
  fit_search_clear (&s);
  if (ok && again)
    ok = restarts (f, v, &c, error);
  if (!ok)
    return FALSE;
  for (guint k = 0; k < f->p->len; k++)
    g_array_index (f->p, Parameter, k).value = v[k];
  return TRUE;
}

/* --- screening ------------------------------------------------------------------------------------------- */

/* Which parameters not yet constrained move a measured figure at any of n points (each every parameter's value):
 * each at its low and its high end, the others at the point, all in one batch. Those that do join the searched
 * ones, in the parameters' order; *added counts them. */
static gboolean
screen_at (Fit *f, const double *const *at, guint n, guint *added, GError **error)
{
  guint np = f->p->len;
  if (!f->free_idx)
    f->free_idx = g_new (guint, np);
  g_autoptr (GPtrArray) pts = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GArray) which = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint k = 0; k < np; k++) {
    const Parameter *p = &g_array_index (f->p, Parameter, k);
    if (p->constrained)
      continue;
    for (guint q = 0; q < n; q++)
      for (int end = 0; end < 2; end++) {
        double *w = g_memdup2 (at[q], np * sizeof *w);
        w[k] = end ? p->a->hi : p->a->lo;
        g_ptr_array_add (pts, w);
      }
    g_array_append_val (which, k);
  }
  g_autofree const double **figs = g_new (const double *, MAX (pts->len, 1));
  if (!fit_evaluate_batch (f, pts, figs, error))
    return FALSE;
  for (guint w = 0; w < which->len; w++) {
    Parameter *p = &g_array_index (f->p, Parameter, g_array_index (which, guint, w));
    for (guint q = 0; q < n; q++)
      for (guint i = 0; i < f->m->len; i++)
        p->constrained |= figs[(w * n + q) * 2][i] != figs[(w * n + q) * 2 + 1][i];
    if (p->constrained) {
      f->free_idx[f->n_free++] = g_array_index (which, guint, w);
      ++*added;
    }
  }
  return TRUE;
}

gboolean
fit_screen (Fit *f, GError **error)
{
  g_autofree double *v = g_new (double, f->p->len);
  for (guint k = 0; k < f->p->len; k++)
    v[k] = g_array_index (f->p, Parameter, k).file_value;
  guint added = 0;
  const double *at = v;
  return screen_at (f, &at, 1, &added, error);
}

/* A parameter that moved nothing at the file values may move a figure once another has moved (a write latency
 * that only matters once the credits are few): screened again at the fitted point and at each restart's start,
 * and when one joins, the search descends again from the fitted point with it (issue #37). */
gboolean
fit_rescreen (Fit *f, GError **error)
{
  guint np = f->p->len;
  for (guint round = 0; round < 3; round++) {
    g_autofree double *v = g_new (double, np);
    for (guint k = 0; k < np; k++)
      v[k] = g_array_index (f->p, Parameter, k).value;
    g_autoptr (GPtrArray) at = g_ptr_array_new ();
    g_ptr_array_add (at, v);
    for (guint r = 0; r < f->starts->len / MAX (np, 1); r++)
      g_ptr_array_add (at, &g_array_index (f->starts, double, (gsize) r * np));
    guint added = 0;
    if (!screen_at (f, (const double *const *) at->pdata, at->len, &added, error))
      return FALSE;
    if (added == 0)
      return TRUE;
    Search s;
    fit_search_init (&s, f);
    double before = fit_cost (f, fit_evaluate (&s, v)), after = descend (&s, v);
    f->evaluations += s.evaluations;
    gboolean ok = fit_no_failure (&s, error);
    fit_search_clear (&s);
    if (!ok)
      return FALSE;
    if (after < before)
      for (guint k = 0; k < np; k++)
        g_array_index (f->p, Parameter, k).value = v[k];
  }
  return TRUE;
}
