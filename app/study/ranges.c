/* ranges.c — the runs of --ranges, their intervals and sensitivities, (ranges.h); how reports write them is app/report/report_ranges.c. */
#include "app/study/ranges.h"

#include <math.h>
#include <nlopt.h>
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
run_label (const Plan *p, const double *values)
{
  GString *s = g_string_new (NULL);
  for (guint a = 0; a < p->n; a++) {
    double v = values[a];
    if (v != p->cfg->assumptions[a].value)
      g_string_append_printf (s, "%s%s=%g", s->len ? ", " : "", p->cfg->assumptions[a].key, v);
  }
  if (s->len == 0)
    g_string_append (s, "the file's values");
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

/* Run the config with the caller's --sets and `values` (one per assumption; NULL: the plain config) in `modes`. */
static gboolean
simulate (const Plan *p, const double *values, unsigned modes, PsRunResult *res, GError **error)
{
  g_autoptr (PsConfig) cfg = NULL;
  if (values) {
    GPtrArray *sets = g_ptr_array_new_with_free_func (g_free);
    for (const char *const *s = p->sets; s && *s; s++)
      g_ptr_array_add (sets, g_strdup (*s));
    for (guint k = 0; k < p->n; k++)
      g_ptr_array_add (sets, ps_config_set_text (p->cfg->assumptions[k].key, values[k]));
    g_ptr_array_add (sets, NULL);
    cfg = ps_config_load (p->cfg->path, (const char *const *) sets->pdata, error);
    g_ptr_array_unref (sets);
    if (!cfg)
      return FALSE;
  }
  return ps_run_config (cfg ? cfg : p->cfg, modes, p->seed, res, error);
}

static void
run_one (guint i, gpointer user)
{
  Plan *p = user;
  guint run = p->todo[i];
  GError *e = NULL;
  PsRunResult local = { 0 }, *res = run == 0 ? p->plain : &local;
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
  simulate (p, run > 0 ? p->values + (gsize) run * p->n : NULL, modes, res, &e);
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
    g_autofree char *label = run_label (p, p->values + (gsize) run * p->n);
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
  guint first = 1 + r->one_at_a_time, corners = r->joint - r->sampled;
  for (guint c = 0; c < corners; c++)
    for (guint a = 0; a < n; a++)
      p->values[(first + c) * n + a] = (c >> a) & 1 ? as[a].hi : as[a].lo;
  if (r->sampled == 0)
    return;
  /* Latin hypercube (--samples): in each assumption's range, one run per stratum, the strata shuffled per
   * assumption. Only these runs read the seed. */
  first += corners;
  guint32 words[2] = { (guint32) seed, (guint32) (seed >> 32) };
  g_autoptr (GRand) rng = g_rand_new_with_seed_array (words, 2);
  g_autofree guint *perm = g_new (guint, r->sampled);
  for (guint a = 0; a < n; a++) {
    for (guint s = 0; s < r->sampled; s++)
      perm[s] = s;
    for (guint s = r->sampled - 1; s > 0; s--) {
      guint t = (guint) g_rand_int_range (rng, 0, (gint32) s + 1), x = perm[s];
      perm[s] = perm[t];
      perm[t] = x;
    }
    for (guint s = 0; s < r->sampled; s++)
      p->values[(first + s) * n + a] = at (&as[a], (perm[s] + g_rand_double (rng)) / r->sampled);
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

/* --- the search for each figure's ends --------------------------------------------------------------------- */

/* A search: figure `f`'s lowest (dir +1, the objective being dir * figure) or highest (dir -1), over the `d`
 * assumptions in `dim` that can move it; the others stay at their values (they move it in no mode it runs). */
typedef struct {
  struct Search *s;
  int f, dir;
  unsigned modes;
  guint d, *dim;
  double *base; /* n: the values the search starts from; those not searched stay at them */
  GArray *points; /* of doubles, n values then PS_RANGE_N figures per point, in the order evaluated */
  guint index;
  nlopt_opt nlopt;
  bool failed;
} Chain;

typedef struct Search {
  Plan *p;
  Chain *chains;
  guint n_chains, budget;
  /* Points two searches both reach (a corner, an end) are simulated once: values and modes -> figures. */
  GMutex lock;
  GHashTable *cache;
} Search;

/* Run (or find) the point `row` (n values) in `modes`, appended to c's points; NULL when the run failed. */
static const double *
evaluate (Chain *c, const double *row_in, unsigned modes)
{
  Search *s = c->s;
  const Plan *p = s->p;
  guint n = p->n, w = n + PS_RANGE_N;
  g_array_set_size (c->points, c->points->len + w);
  double *row = &g_array_index (c->points, double, c->points->len - w), *fig = row + n;
  memcpy (row, row_in, n * sizeof (double));
  GString *key = g_string_new (NULL);
  g_string_append_printf (key, "%x", modes);
  for (guint a = 0; a < n; a++)
    g_string_append_printf (key, " %a", row[a]);
  g_mutex_lock (&s->lock);
  const double *known = g_hash_table_lookup (s->cache, key->str);
  if (known)
    memcpy (fig, known, PS_RANGE_N * sizeof (double));
  g_mutex_unlock (&s->lock);
  if (!known) {
    g_autofree PsRunResult *res = g_new0 (PsRunResult, 1);
    GError *e = NULL;
    if (!simulate (p, row, modes, res, &e)) {
      g_autofree char *label = run_label (p, row);
      g_prefix_error (&e, "--ranges, run with %s: ", label);
      ps_first_error_keep (&((Plan *) p)->fail, p->runs + c->index, e);
      c->failed = true;
      g_array_set_size (c->points, c->points->len - w);
      g_string_free (key, TRUE);
      return NULL;
    }
    ps_ranges_figures (res, fig);
    g_mutex_lock (&s->lock);
    if (!g_hash_table_contains (s->cache, key->str))
      g_hash_table_insert (s->cache, g_strdup (key->str), g_memdup2 (fig, PS_RANGE_N * sizeof (double)));
    g_mutex_unlock (&s->lock);
  }
  g_string_free (key, TRUE);
  return fig;
}

static double
chain_objective (unsigned nd, const double *x, double *grad, void *data)
{
  (void) grad;
  Chain *c = data;
  const Plan *p = c->s->p;
  g_autofree double *row = g_memdup2 (c->base, p->n * sizeof (double));
  for (guint k = 0; k < nd; k++)
    row[c->dim[k]] = ps_config_snap (p->cfg->assumptions[c->dim[k]].key, x[k]);
  const double *fig = evaluate (c, row, c->modes);
  if (!fig) {
    nlopt_force_stop (c->nlopt);
    return HUGE_VAL;
  }
  return isnan (fig[c->f]) ? HUGE_VAL : c->dir * fig[c->f];
}

/* The corner the one-at-a-time runs point to for c's figure and way (each assumption at the end that moved the
 * figure that way; at its value where neither end moved it), run with every mode: a corner good for one figure is
 * often so for another, and each search starts from the best point any run so far has found for it. */
static void
corner_run (guint i, gpointer user)
{
  Search *s = user;
  Chain *c = &s->chains[i];
  const Plan *p = s->p;
  for (guint a = 0; a < p->n; a++) {
    const PsAssumption *as = &p->cfg->assumptions[a];
    double at_lo = p->figures[(gsize) (1 + 2 * a) * PS_RANGE_N + c->f];
    double at_hi = p->figures[(gsize) (2 + 2 * a) * PS_RANGE_N + c->f];
    c->base[a] = c->dir * at_lo < c->dir * at_hi ? as->lo : c->dir * at_hi < c->dir * at_lo ? as->hi : as->value;
  }
  evaluate (c, c->base, p->modes);
}

/* The start of c's search: its corner, unless a planned run or another figure's corner did strictly better. */
static void
pick_start (Search *s, Chain *c)
{
  const Plan *p = s->p;
  guint n = p->n, w = n + PS_RANGE_N;
  if (c->points->len < w)
    return;
  const double *best = (const double *) c->points->data;
  double best_v = c->dir * best[n + c->f];
  for (guint run = 0; run < p->runs; run++) {
    double v = c->dir * p->figures[(gsize) run * PS_RANGE_N + c->f];
    if (v < best_v) {
      best_v = v;
      best = NULL;
      memcpy (c->base, p->values + (gsize) run * n, n * sizeof (double));
    }
  }
  for (guint o = 0; o < s->n_chains; o++) {
    const Chain *other = &s->chains[o];
    if (other == c || other->points->len < w)
      continue;
    const double *row = (const double *) other->points->data;
    if (c->dir * row[n + c->f] < best_v) {
      best_v = c->dir * row[n + c->f];
      best = NULL;
      memcpy (c->base, row, n * sizeof (double));
    }
  }
}

/* The simplex's runs for d assumptions: its first d + 1, then as many again and 9 for its reflections. */
static guint
simplex_budget (guint d)
{
  return 2 * (d + 1) + 9;
}

/* The most runs one search may take (about a plain run's time each, 2 ends per figure): its corner, its start in
 * the figure's mode, refine_flat()'s two ends of each assumption, the simplex's. */
static guint
search_budget (guint d)
{
  return 2 + 2 * d + simplex_budget (d);
}

/* An assumption that moved the figure neither way alone can still move it jointly: the NFP-6000's 512-byte writes
 * keep 52.6 Gb/s with 256 posted-data credits or with a 200 ns slot time alone, and fall to 31.2 with both at the
 * slowest transmit pipeline, a point the simplex, its first steps going to each one's farther end (2047 credits),
 * did not reach. So from the start, each such assumption in turn goes to each end and stays at the one that moved
 * the figure the search's way; at most 2 runs each. */
static void
refine_flat (Chain *c)
{
  const Plan *p = c->s->p;
  const double *fig = evaluate (c, c->base, c->modes);
  if (!fig)
    return;
  double best = c->dir * fig[c->f];
  for (guint k = 0; k < c->d; k++) {
    guint a = c->dim[k];
    const PsAssumption *as = &p->cfg->assumptions[a];
    double at_lo = p->figures[(gsize) (1 + 2 * a) * PS_RANGE_N + c->f];
    double at_hi = p->figures[(gsize) (2 + 2 * a) * PS_RANGE_N + c->f];
    if (!(at_lo == at_hi))
      continue;
    double keep = c->base[a], to = keep;
    for (int end = 0; end < 2; end++) {
      c->base[a] = end ? as->hi : as->lo;
      if (c->base[a] == keep)
        continue;
      fig = evaluate (c, c->base, c->modes);
      if (!fig)
        return;
      if (c->dir * fig[c->f] < best) {
        best = c->dir * fig[c->f];
        to = c->base[a];
      }
    }
    c->base[a] = to;
  }
}

/* From the best point so far (pick_start(), refine_flat()), NLopt's bounded Nelder-Mead simplex over the assumptions
 * that can move the figure, its first step to each one's farther end, within `budget` runs of the figure's mode
 * alone. */
static void
chain_run (guint i, gpointer user)
{
  Search *s = user;
  Chain *c = &s->chains[i];
  const Plan *p = s->p;
  if (c->failed)
    return;
  refine_flat (c);
  if (c->failed)
    return;
  g_autofree double *x = g_new (double, c->d), *lo = g_new (double, c->d), *hi = g_new (double, c->d),
                    *dx = g_new (double, c->d);
  for (guint k = 0; k < c->d; k++) {
    const PsAssumption *as = &p->cfg->assumptions[c->dim[k]];
    lo[k] = as->lo;
    hi[k] = as->hi;
    x[k] = c->base[c->dim[k]];
    dx[k] = x[k] - as->lo > as->hi - x[k] ? as->lo - x[k] : as->hi - x[k];
  }
  nlopt_opt o = c->nlopt = nlopt_create (NLOPT_LN_NELDERMEAD, c->d);
  nlopt_set_lower_bounds (o, lo);
  nlopt_set_upper_bounds (o, hi);
  nlopt_set_initial_step (o, dx);
  nlopt_set_min_objective (o, chain_objective, c);
  nlopt_set_xtol_rel (o, 1e-3);
  nlopt_set_maxeval (o, (int) simplex_budget (c->d));
  double best;
  nlopt_optimize (o, x, &best);
  nlopt_destroy (o);
  c->nlopt = NULL;
}

/* The searches: every figure the plain run has, each end, over the assumptions that can move it. */
static void
plan_searches (Search *s, const PsRanges *out)
{
  Plan *p = s->p;
  s->chains = g_new0 (Chain, 2 * PS_RANGE_N);
  for (int f = 0; f < PS_RANGE_N; f++) {
    if (isnan (p->figures[f]))
      continue;
    /* A mode's figure needs only its mode run; a microbench's or a fabric's, the run as it is. */
    unsigned modes = f < PS_RANGE_FLOW && !p->plain->fabric.ran && !p->plain->microbench.ran
                       ? 1u << ((f - PS_RANGE_MODE) / 2) : p->modes;
    g_autofree guint *dim = g_new (guint, MAX (p->n, 1));
    guint d = 0;
    for (guint a = 0; a < p->n; a++) {
      const PsAssumption *as = &p->cfg->assumptions[a];
      if (as->lo < as->hi && !out->unread[a] && (!p->use[a] || modes_reading (p->plain, modes, p->use[a])))
        dim[d++] = a;
    }
    for (int dir = 1; d > 0 && dir >= -1; dir -= 2) {
      Chain *c = &s->chains[s->n_chains];
      *c = (Chain) { .s = s, .f = f, .dir = dir, .modes = modes, .d = d, .dim = g_memdup2 (dim, d * sizeof (guint)),
                     .points = g_array_new (FALSE, FALSE, sizeof (double)), .index = s->n_chains,
                     .base = g_new (double, p->n) };
      s->n_chains++;
      s->budget = MAX (s->budget, search_budget (d));
    }
  }
}

/* Figure f's lowest and highest over every run, in a fixed order (the planned runs, then each search's in turn) so
 * that where they were found does not depend on the threads' timing. */
static void
bound_figure (const Plan *p, const Search *s, PsFigureRange *fr, int f)
{
  guint n = p->n;
  fr->lo = fr->hi = fr->value;
  fr->lo_at = g_new (double, MAX (n, 1));
  fr->hi_at = g_new (double, MAX (n, 1));
  for (guint a = 0; a < n; a++)
    fr->lo_at[a] = fr->hi_at[a] = p->cfg->assumptions[a].value;
  for (guint c = 0; c <= s->n_chains; c++) {
    const double *rows = c == 0 ? p->values : (const double *) s->chains[c - 1].points->data;
    guint w = c == 0 ? n : n + PS_RANGE_N, count = c == 0 ? p->runs : s->chains[c - 1].points->len / w;
    for (guint run = 0; run < count; run++) {
      const double *values = rows + (gsize) run * w;
      double v = c == 0 ? p->figures[(gsize) run * PS_RANGE_N + f] : values[n + f];
      if (isnan (v))
        continue;
      fr->samples++;
      if (v < fr->lo) {
        fr->lo = v;
        memcpy (fr->lo_at, values, n * sizeof (double));
      }
      if (v > fr->hi) {
        fr->hi = v;
        memcpy (fr->hi_at, values, n * sizeof (double));
      }
    }
  }
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
  out->sampled = n == 0 ? 0 : samples;
  out->joint = (n >= 2 && out->corners ? 1u << n : 0) + out->sampled;
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
  out->simulated = p.simulated;
  out->unread_runs = p.unread_runs;
  out->unread = p.unread;
  for (guint run = 0; run < p.runs; run++)
    if (p.same[run] != run)
      memcpy (p.figures + (gsize) run * PS_RANGE_N, p.figures + (gsize) p.same[run] * PS_RANGE_N,
              PS_RANGE_N * sizeof (double));
  /* Then each figure's ends, searched from where the one-at-a-time runs point (they need those runs' figures). */
  Search s = { .p = &p, .cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free) };
  g_mutex_init (&s.lock);
  if (p.fail.error == NULL) {
    plan_searches (&s, out);
    ps_sweep_parallel (s.n_chains, jobs, corner_run, &s);
    for (guint c = 0; c < s.n_chains; c++)
      pick_start (&s, &s.chains[c]);
    if (p.fail.error == NULL)
      ps_sweep_parallel (s.n_chains, jobs, chain_run, &s);
  }
  ytree_cache_end ();
  out->searches = s.n_chains;
  out->budget = s.budget;
  for (guint c = 0; c < s.n_chains; c++)
    out->searched += s.chains[c].points->len / (n + PS_RANGE_N);
  out->runs += out->searched;
  /* The points simulated, counted as the cache's keys: two searches that miss the same point at once both run it,
   * and a count of runs would then depend on the threads' timing. */
  out->simulated += g_hash_table_size (s.cache);
  g_mutex_clear (&p.fail.lock);
  g_mutex_clear (&p.lock);
  g_cond_clear (&p.plain_cond);
  gboolean ok = p.fail.error == NULL;
  if (!ok)
    g_propagate_error (error, p.fail.error);
  guint first_sample = p.runs - out->sampled;
  for (int f = 0; ok && f < PS_RANGE_N; f++) {
    PsFigureRange *fr = &out->fig[f];
    fr->value = p.figures[f];
    fr->valid = !isnan (fr->value);
    if (!fr->valid)
      continue;
    bound_figure (&p, &s, fr, f);
    fr->sample_lo = fr->sample_hi = NAN;
    for (guint run = first_sample; run < p.runs; run++) {
      double v = p.figures[(gsize) run * PS_RANGE_N + f];
      fr->sample_lo = isnan (fr->sample_lo) || v < fr->sample_lo ? v : fr->sample_lo;
      fr->sample_hi = isnan (fr->sample_hi) || v > fr->sample_hi ? v : fr->sample_hi;
    }
    fr->sens = g_new (PsSensitivity, MAX (n, 1));
    for (guint a = 0; a < n; a++)
      fr->sens[a] = (PsSensitivity) { cfg->assumptions[a].key, cfg->assumptions[a].lo, cfg->assumptions[a].hi,
                                      p.figures[(gsize) (1 + 2 * a) * PS_RANGE_N + f],
                                      p.figures[(gsize) (2 + 2 * a) * PS_RANGE_N + f] };
    sort_sens (fr->sens, n);
  }
  for (guint c = 0; c < s.n_chains; c++) {
    g_free (s.chains[c].dim);
    g_free (s.chains[c].base);
    g_array_unref (s.chains[c].points);
  }
  g_free (s.chains);
  g_hash_table_unref (s.cache);
  g_mutex_clear (&s.lock);
  g_free (p.use);
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
  for (int f = 0; f < PS_RANGE_N; f++) {
    g_clear_pointer (&r->fig[f].sens, g_free);
    g_clear_pointer (&r->fig[f].lo_at, g_free);
    g_clear_pointer (&r->fig[f].hi_at, g_free);
  }
}
