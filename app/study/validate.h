/* validate.h — `pciesim validate`: run every config that carries published figures and compare.
 *
 * Contract:
 * - Configs run in parallel on worker threads (each run owns its engine and models, nothing is shared), and the
 *   report lists them in the order given (or sorted by file name when discovered), so output does not depend
 *   on the number of workers.
 * - Statistics: mean and max |error| over every figure that has both a simulated and a published value, except
 *   published figures above the protocol limit and, unless `strict`, figures the config marks as suspect
 *   (published.suspect); both are shown, flagged, and left out.
 * - Result: 0 when every counted figure is within the tolerance, 1 when some is not (the table is still written),
 *   -1 with `error` set when a config fails to load or run: every config still runs, then the first failure in
 *   input order is reported and no table is written, so a table with rows missing never passes for a whole one.
 */
#pragma once

#include <glib.h>

#include "app/report/report.h"

typedef struct {
  const char *const *configs; /* NULL = every configs/NAME.yaml with a published: block; a named config without
                               * one is an error (PS_ERROR_DATA at its 1:1): it has nothing to validate */
  const char *const *sets; /* --set overrides applied to every config */
  PsFormat format;
  double tolerance_pct;
  gboolean strict; /* count suspect figures like any other */
  int jobs; /* 0 = number of processors */
  uint64_t seed;
  const char *output;
} PsValidate;

/* Directory searched when no configs are named: ./configs if it exists, else the source tree's configs/. */
char *ps_default_configs_dir (void);
/* The configs (sorted) under dir that have a published: block. */
GPtrArray *ps_find_published_configs (const char *dir, GError **error);

/* Returns 0 when all figures are within tolerance, 1 when some are not, or sets error and returns -1. */
int ps_validate (const PsValidate *v, GError **error);
