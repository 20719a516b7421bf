/* fit_impl.h — what the files of `pciesim fit` share, and nothing else includes: a fit's state (its measurements,
 * parameters and search), the measurement file's reading (fit_file.c) and the search and its report (fit.c). */
#pragma once

#include <nlopt.h>

#include "app/config/config.h"
#include "app/config/ytree.h"
#include "app/study/fit.h"
#include "app/study/metrics.h"
#include "app/study/parallel.h"

typedef struct {
  const YNode *at; /* the measurement's mapping */
  unsigned modes; /* the modes its run needs: its metric's alone, or the config's (PsModeMask) */
  char **sets; /* its set: as KEY=VALUE, NULL-terminated */
  GPtrArray *set_nodes; /* the key node of each of sets (borrowed from the file's tree) */
  const YNode *value_node; /* the measured value */
  double uncertainty_pct; /* uncertainty_pct:, 0 when not given */
  gboolean has_uncertainty;
  char *label; /* the sets as one line, for the report */
  PsMetric metric;
  const YNode *metric_node;
  double measured;
} Measurement;

typedef struct {
  const PsAssumption *a; /* the base config's */
  const YNode *at; /* where the fit file names it (NULL: by default) */
  double file_value, value;
  double fits_lo, fits_hi; /* the values that fit as well as `value`, the others re-fitted (fit_profiles()) */
  gboolean integer, constrained;
} Parameter;

typedef struct {
  const PsFit *opt;
  PsConfig *base;
  GArray *m; /* Measurement */
  GArray *p; /* Parameter */
  guint *free_idx, n_free; /* the constrained parameters, searched */
  guint evaluations, restarts;
  GArray *starts; /* of doubles, p->len per restart: where each restart began (screened after the search) */
  /* "v1,v2,…" -> double[] figures of every point evaluated (snapped values repeat: integers, bounds). Only read
   * while a parallel phase runs: each task keeps its own points (Search.own), merged in afterwards. */
  GHashTable *cache;
  GMutex progress_lock; /* for the three below, which only the progress line reads */
  double best_cost; /* the lowest cost so far */
  guint progress_evals; /* evaluations so far, those of running tasks included */
  gint64 progress_at; /* when the progress line was last written (monotonic µs), 0 = never */
} Fit;

/* One line of search: a descent, a restart, a profile's probes. What it changes is its own, so that the tasks of
 * a parallel phase share only the Fit, which they read. */
typedef struct {
  Fit *f;
  double *held; /* every parameter's value: the simplex reads those it does not search from here */
  guint *free_idx, n_free; /* the parameters it searches (a profile's re-fit leaves one out) */
  int maxeval; /* the simplex's budget of evaluations; 0: its full one (a profile's re-fits take a smaller one) */
  double stopval; /* a cost the simplex may stop at (a profile's re-fit needs only to fit as well); 0: none */
  int jobs; /* threads for one batch of runs */
  nlopt_opt nlopt; /* while searching: stopped when a run fails */
  GHashTable *own; /* the points it evaluated; Fit.cache itself for the search that runs alone */
  guint evaluations; /* points it ran (cache misses) */
  GError *fail; /* the first failed run's, which stops it */
  /* While the simplex runs: its lowest cost and where (in units of the ranges), and the last cost that fell by
   * FIT_STALL_GAIN with the evaluation count then. */
  double best_c, *best_u, stall_best;
  guint stall_at;
} Search;

/* The simplex stops once its cost has not fallen by this fraction in this many evaluations (n parameters). */
#define FIT_STALL_GAIN 1e-3
#define FIT_STALL_EVALS(n) (10 + 5 * ((guint) (n) + 1))

/* A Measurement's own memory (the GArray's clear function). */
void fit_measurement_clear (gpointer data);
/* `path` loaded with `sets`, an error located at `at` (a measurement's mapping) when it cannot be. */
PsConfig *fit_load_at (const char *path, const char *const *sets, const YNode *at, GError **error);
/* The fit file's tree into f: the base config, the measurements and the parameters, every refusal located. */
gboolean fit_load_file (Fit *f, YNode *root, GError **error);

/* "Fit as well": within this many percentage points of the fit's relative RMS error (the profiles, the report). */
#define FIT_AS_WELL 0.1

/* fit_search.c: the search, alone or in parallel tasks (fit.h's contract). A Search that runs alone on f's jobs
 * and keeps its points in f->cache; free with fit_search_clear(). */
void fit_search_init (Search *s, Fit *f);
void fit_search_clear (Search *s);
/* The figures of every measurement at `values` (every parameter's, snapped in place), borrowed from a cache; NULL
 * after a run failed (s->fail). */
const double *fit_evaluate (Search *s, double *values);
/* The figures at each of n points (each p->len values, snapped in place) into figs[], borrowed from a cache: the
 * points no cache holds run at once, every measurement of each. FALSE after a run failed (s->fail). */
gboolean fit_evaluate_points (Search *s, double *const *points, guint n, const double **figs);
/* The same for a batch of points run alone on f's jobs (the figures borrowed from f->cache), its evaluations
 * counted; FALSE with `error` set when a run failed. */
gboolean fit_evaluate_batch (Fit *f, GPtrArray *pts, const double **figs, GError **error);
/* The simplex over s's searched parameters from v (every parameter's value; the result replaces it), within
 * s->maxeval evaluations (0: its full budget) and stopping at s->stopval (0: none). */
void fit_simplex (Search *s, double *v);
/* FALSE, with the failure of a run the search made (Search.fail) moved to `error`, if there was one. */
gboolean fit_no_failure (Search *s, GError **error);
/* A task of a parallel phase: its own cache, `jobs` threads for its runs. */
void fit_task_init (Search *s, Fit *f, int jobs);
/* A phase's n tasks done: their points join the cache (a point's figures are the same whoever ran it, so the order
 * does not matter) and their evaluations the count; the lowest-numbered task's failure, if any, moves to `error`.
 * Each task is cleared. */
gboolean fit_tasks_end (Fit *f, Search *tasks, guint n, GError **error);
/* Worker threads of a phase of n tasks, and each task's threads for its runs: --jobs shared between them. */
int fit_outer_jobs (const Fit *f, guint n);
int fit_inner_jobs (const Fit *f, guint n);
/* Parameter p's next value its key accepts above (dir 1) or below (-1) `v`, within its range; v when none. */
double fit_step (const Parameter *p, double v, int dir);
/* The derivatives' step: this fraction of each range (at least one step of an integer). */
#define FIT_DERIV_STEP (1.0 / 64)
/* Into pts: x, then each searched parameter a step down and a step up from it (to its range's end when nearer). */
void fit_derivative_points (const Fit *f, const double *x, GPtrArray *pts);
/* The sum of squared relative errors of `figures`; +inf for NULL. */
double fit_cost (Fit *f, const double *figures);
/* The relative RMS error in per cent, from a cost. */
double fit_rms_pct (const Fit *f, double c);
/* Screening, the search with its restarts, rescreening at the fitted point and the restarts' starts, and the
 * profiles: each FALSE with `error` set when a run failed. */
gboolean fit_screen (Fit *f, GError **error);
gboolean fit_search (Fit *f, GError **error);
gboolean fit_rescreen (Fit *f, GError **error);
/* fit_profile.c: each constrained parameter's values that fit as well (Parameter.fits_lo, fits_hi). */
gboolean fit_profiles (Fit *f, GError **error);
