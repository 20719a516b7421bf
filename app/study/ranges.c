/* ranges.c — the runs of --ranges, their intervals and sensitivities, (ranges.h); how reports write them is app/report/report_ranges.c. */
#include "app/study/ranges.h"

#include <math.h>
#include <string.h>

#include "app/run/builder.h"
#include "app/base/error.h"
#include "app/config/load.h"
#include "app/study/parallel.h"
#include "app/config/ytree.h"

/* --- the runs -------------------------------------------------------------------------------------------- */

/* Run i's values, one per assumption: 0 the plain run (NULL: no --set at all); 1..2n one at a time (2a+1 low,
 * 2a+2 high); then the joint runs. */
typedef struct {
  const PsConfig *cfg;
  const char *const *sets;
  unsigned modes;
  uint64_t seed;
  guint n, runs;
  double *values; /* runs x n; row 0 unused */
  double *figures; /* runs x PS_RANGE_N */
  guint *same; /* runs: the first run with the same values (itself if none), whose figures it takes */
  guint *todo, n_todo; /* the runs that are first of their values, the plain one first and the unread-able last */
  unsigned *use; /* n: the key's ps_key_use() */
  bool *unread; /* n: TRUE once the plain run shows no run reads the key (ps_key_use()) */
  PsRunResult *plain;
  /* The runs of a key with a use wait for the plain run, whose `uses` say which of its modes read the key. */
  GMutex lock;
  GCond plain_cond;
  bool plain_done, plain_failed;
  guint simulated, unread_runs;
  PsFirstError fail;
} Plan;

static char *
run_label (const Plan *p, guint run)
{
  GString *s = g_string_new (NULL);
  for (guint a = 0; a < p->n; a++) {
    double v = p->values[run * p->n + a];
    if (v != p->cfg->assumptions[a].value)
      g_string_append_printf (s, "%s%s=%g", s->len ? ", " : "", p->cfg->assumptions[a].key, v);
  }
  return g_string_free (s, FALSE);
}

/* The assumption whose one-at-a-time run `run` is, if its key has a use (ps_key_use()); else -1. */
static int
tracked (const Plan *p, guint run)
{
  return run >= 1 && run <= 2 * p->n && p->use[(run - 1) / 2] ? (int) ((run - 1) / 2) : -1;
}

/* The modes of the plain run whose `uses` include `use`: the only ones the key's value can move; for a
 * microbenchmark all or nothing, for a fabric's flows all (they do not say). */
static unsigned
modes_reading (const PsRunResult *plain, unsigned modes, unsigned use)
{
  if (plain->fabric.ran)
    return modes | 1u;
  if (plain->microbench.ran)
    return plain->microbench.uses & use ? modes | 1u : 0;
  unsigned out = 0;
  for (int i = 0; i < PS_N_MODES; i++)
    if (plain->modes[i].ran && (plain->modes[i].uses & use))
      out |= 1u << i;
  return out;
}

static void
run_one (guint i, gpointer user)
{
  Plan *p = user;
  guint run = p->todo[i];
  GError *e = NULL;
  PsRunResult local = { 0 }, *res = run == 0 ? p->plain : &local;
  g_autoptr (PsConfig) cfg = NULL;
  unsigned modes = p->modes;
  int a = tracked (p, run);
  if (a >= 0) {
    g_mutex_lock (&p->lock);
    while (!p->plain_done)
      g_cond_wait (&p->plain_cond, &p->lock);
    bool failed = p->plain_failed;
    g_mutex_unlock (&p->lock);
    if (failed)
      return; /* the plain run's error is the error */
    modes = modes_reading (p->plain, p->modes, p->use[a]);
    if (modes == 0) {
      /* Nothing that ran reads the key: this run is the plain one, to the figure. */
      memcpy (p->figures + (gsize) run * PS_RANGE_N, p->figures, PS_RANGE_N * sizeof (double));
      g_mutex_lock (&p->lock);
      p->unread[a] = true;
      p->unread_runs++;
      g_mutex_unlock (&p->lock);
      return;
    }
  }
  g_mutex_lock (&p->lock);
  p->simulated++;
  g_mutex_unlock (&p->lock);
  if (run > 0) {
    GPtrArray *sets = g_ptr_array_new_with_free_func (g_free);
    for (const char *const *s = p->sets; s && *s; s++)
      g_ptr_array_add (sets, g_strdup (*s));
    for (guint k = 0; k < p->n; k++)
      g_ptr_array_add (sets, ps_config_set_text (p->cfg->assumptions[k].key, p->values[run * p->n + k]));
    g_ptr_array_add (sets, NULL);
    cfg = ps_config_load (p->cfg->path, (const char *const *) sets->pdata, &e);
    g_ptr_array_unref (sets);
  }
  if (!e)
    ps_run_config (cfg ? cfg : p->cfg, modes, p->seed, res, &e);
  bool failed = e != NULL;
  if (!e) {
    double *fig = p->figures + (gsize) run * PS_RANGE_N;
    ps_ranges_figures (res, fig);
    /* The plain run's modes this one left out do not read the key: their figures are the plain run's. */
    for (int m = 0; a >= 0 && m < PS_N_MODES; m++)
      if (p->plain->modes[m].ran && !res->modes[m].ran)
        for (int k = 0; k < 2; k++)
          fig[PS_RANGE_MODE + 2 * m + k] = p->figures[PS_RANGE_MODE + 2 * m + k];
  }
  if (e) {
    g_autofree char *label = run_label (p, run);
    g_prefix_error (&e, "--ranges, run with %s: ", label);
    ps_first_error_keep (&p->fail, run, e);
  }
  if (run == 0) {
    g_mutex_lock (&p->lock);
    p->plain_done = true;
    p->plain_failed = failed;
    g_cond_broadcast (&p->plain_cond);
    g_mutex_unlock (&p->lock);
  }
}

/* A value stratum u in [0, 1) of assumption a, snapped to what the key accepts. */
static double
at (const PsAssumption *a, double u)
{
  return ps_config_snap (a->key, a->lo + u * (a->hi - a->lo));
}

static void
plan_values (Plan *p, const PsRanges *r, uint64_t seed)
{
  const PsAssumption *as = p->cfg->assumptions;
  guint n = p->n;
  for (guint run = 0; run < p->runs; run++)
    for (guint a = 0; a < n; a++)
      p->values[run * n + a] = as[a].value;
  for (guint a = 0; a < n; a++) {
    p->values[(1 + 2 * a) * n + a] = as[a].lo;
    p->values[(2 + 2 * a) * n + a] = as[a].hi;
  }
  guint first = 1 + r->one_at_a_time;
  if (r->corners) {
    for (guint c = 0; c < r->joint; c++)
      for (guint a = 0; a < n; a++)
        p->values[(first + c) * n + a] = (c >> a) & 1 ? as[a].hi : as[a].lo;
    return;
  }
  /* Latin hypercube: in each assumption's range, one run per stratum, the strata shuffled per assumption. */
  guint32 words[2] = { (guint32) seed, (guint32) (seed >> 32) };
  g_autoptr (GRand) rng = g_rand_new_with_seed_array (words, 2);
  g_autofree guint *perm = g_new (guint, r->joint);
  for (guint a = 0; a < n; a++) {
    for (guint s = 0; s < r->joint; s++)
      perm[s] = s;
    for (guint s = r->joint - 1; s > 0; s--) {
      guint t = (guint) g_rand_int_range (rng, 0, (gint32) s + 1), x = perm[s];
      perm[s] = perm[t];
      perm[t] = x;
    }
    for (guint s = 0; s < r->joint; s++)
      p->values[(first + s) * n + a] = at (&as[a], (perm[s] + g_rand_double (rng)) / r->joint);
  }
}

/* The larger effect first; NaN effects (a figure absent from a run) last. */
static gboolean
moves_more (const PsSensitivity *x, const PsSensitivity *y)
{
  double dx = fabs (x->hi_figure - x->lo_figure), dy = fabs (y->hi_figure - y->lo_figure);
  return !isnan (dx) && (isnan (dy) || dx > dy);
}

/* Insertion sort: stable, so equal effects keep the file's order, and n is a few dozen at most. */
static void
sort_sens (PsSensitivity *s, guint n)
{
  for (guint i = 1; i < n; i++) {
    PsSensitivity x = s[i];
    guint k = i;
    for (; k > 0 && moves_more (&x, &s[k - 1]); k--)
      s[k] = s[k - 1];
    s[k] = x;
  }
}

guint
ps_ranges_default_samples (guint n)
{
  /* max(8, n / 2), but within a budget of PS_RANGES_RUN_BUDGET runs once the one-at-a-time runs are counted (so
   * --ranges stays within about 20 plain runs' time on two cores), never fewer than 4. */
  int within = PS_RANGES_RUN_BUDGET - 1 - 2 * (int) n;
  return (guint) MAX (4, MIN ((int) MAX (8, n / 2), within));
}

gboolean
ps_ranges_run (const PsConfig *cfg, const char *const *sets, unsigned modes, uint64_t seed, int jobs, guint samples,
               PsRunResult *result, PsRanges *out, GError **error)
{
  memset (out, 0, sizeof *out);
  guint n = cfg->n_assumptions;
  out->n_assumptions = n;
  out->assumptions = cfg->assumptions;
  out->one_at_a_time = 2 * n;
  /* One assumption's corners are its one-at-a-time runs: nothing joint to add. */
  out->corners = n <= PS_RANGES_MAX_CORNER_ASSUMPTIONS;
  out->joint = n < 2 ? 0 : out->corners ? 1u << n : samples ? samples : ps_ranges_default_samples (n);
  out->runs = 1 + out->one_at_a_time + out->joint;
  Plan p = { .cfg = cfg, .sets = sets, .modes = modes, .seed = seed, .n = n, .runs = out->runs, .plain = result };
  p.values = g_new0 (double, (gsize) p.runs * MAX (n, 1));
  p.figures = g_new (double, (gsize) p.runs * PS_RANGE_N);
  p.use = g_new0 (unsigned, MAX (n, 1));
  p.unread = g_new0 (bool, MAX (n, 1));
  for (guint a = 0; a < n; a++)
    p.use[a] = ps_key_use (cfg->assumptions[a].key);
  g_mutex_init (&p.fail.lock);
  g_mutex_init (&p.lock);
  g_cond_init (&p.plain_cond);
  plan_values (&p, out, seed);
  /* A run whose values another already has (an end that is the value itself, a corner met twice) is not run again:
   * the same config and seed give the same figures. */
  p.same = g_new (guint, p.runs);
  p.todo = g_new (guint, p.runs);
  for (guint run = 0; run < p.runs; run++) {
    p.same[run] = run;
    for (guint o = 0; o < run && p.same[run] == run; o++)
      if (o == p.same[o] && memcmp (p.values + (gsize) run * n, p.values + (gsize) o * n, n * sizeof (double)) == 0)
        p.same[run] = o;
    if (p.same[run] == run && tracked (&p, run) < 0)
      p.todo[p.n_todo++] = run;
  }
  /* Queued last, so they seldom wait for the plain run (queued first). */
  for (guint run = 0; run < p.runs; run++)
    if (p.same[run] == run && tracked (&p, run) >= 0)
      p.todo[p.n_todo++] = run;
  /* Every run loads the same files: parsed once (ytree.h), each run gets a copy with its own --sets over it. */
  ytree_cache_begin ();
  ps_sweep_parallel (p.n_todo, jobs, run_one, &p);
  ytree_cache_end ();
  out->simulated = p.simulated;
  out->unread_runs = p.unread_runs;
  out->unread = p.unread;
  for (guint run = 0; run < p.runs; run++)
    if (p.same[run] != run)
      memcpy (p.figures + (gsize) run * PS_RANGE_N, p.figures + (gsize) p.same[run] * PS_RANGE_N,
              PS_RANGE_N * sizeof (double));
  g_mutex_clear (&p.fail.lock);
  g_mutex_clear (&p.lock);
  g_cond_clear (&p.plain_cond);
  g_free (p.use);
  gboolean ok = p.fail.error == NULL;
  if (!ok)
    g_propagate_error (error, p.fail.error);
  for (int f = 0; ok && f < PS_RANGE_N; f++) {
    PsFigureRange *fr = &out->fig[f];
    fr->value = p.figures[f];
    fr->valid = !isnan (fr->value);
    if (!fr->valid)
      continue;
    fr->lo = fr->hi = fr->value;
    for (guint run = 0; run < p.runs; run++) {
      double v = p.figures[(gsize) run * PS_RANGE_N + f];
      if (isnan (v))
        continue;
      fr->lo = MIN (fr->lo, v);
      fr->hi = MAX (fr->hi, v);
      fr->samples++;
    }
    fr->sens = g_new (PsSensitivity, MAX (n, 1));
    for (guint a = 0; a < n; a++)
      fr->sens[a] = (PsSensitivity) { cfg->assumptions[a].key, cfg->assumptions[a].lo, cfg->assumptions[a].hi,
                                      p.figures[(gsize) (1 + 2 * a) * PS_RANGE_N + f],
                                      p.figures[(gsize) (2 + 2 * a) * PS_RANGE_N + f] };
    sort_sens (fr->sens, n);
  }
  g_free (p.values);
  g_free (p.figures);
  g_free (p.same);
  g_free (p.todo);
  if (!ok)
    ps_ranges_clear (out);
  return ok;
}

void
ps_ranges_clear (PsRanges *r)
{
  g_clear_pointer (&r->unread, g_free);
  for (int f = 0; f < PS_RANGE_N; f++)
    g_clear_pointer (&r->fig[f].sens, g_free);
}
