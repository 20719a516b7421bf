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
  double fits_lo, fits_hi; /* the values that fit as well as `value`, the others at theirs (fits_as_well()) */
  gboolean integer, constrained;
} Parameter;

typedef struct {
  const PsFit *opt;
  PsConfig *base;
  GArray *m; /* Measurement */
  GArray *p; /* Parameter */
  guint *free_idx, n_free; /* the constrained parameters, searched */
  /* One evaluation: the values of every parameter, the figures of every measurement. */
  const double *values;
  double *figures;
  PsFirstError first; /* of one evaluation's runs; moved to fail after it */
  GError *fail;
  guint evaluations, restarts;
  GArray *starts; /* of doubles, p->len per restart: where each restart began (screened after the search) */
  int maxeval; /* the simplex's budget of evaluations; 0: its full one (a profile's re-fits take a smaller one) */
  double best_cost; /* the lowest cost so far, for the progress line */
  gint64 progress_at; /* when the progress line was last written (monotonic µs), 0 = never */
  nlopt_opt nlopt; /* while searching: stopped when a run fails */
  GHashTable *cache; /* "v1,v2,…" -> double[] figures (snapped values repeat: integers, bounds) */
} Fit;

/* A Measurement's own memory (the GArray's clear function). */
void fit_measurement_clear (gpointer data);
/* `path` loaded with `sets`, an error located at `at` (a measurement's mapping) when it cannot be. */
PsConfig *fit_load_at (const char *path, const char *const *sets, const YNode *at, GError **error);
/* The fit file's tree into f: the base config, the measurements and the parameters, every refusal located. */
gboolean fit_load_file (Fit *f, YNode *root, GError **error);
