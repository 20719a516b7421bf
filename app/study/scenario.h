/* scenario.h — a what-if study: a base config, overrides, axes to sweep and the metrics to record.
 *
 * Contract:
 * - A scenario file (scenarios/NAME.yaml) is loaded strictly through ytree: unknown keys (with a did-you-mean),
 *   wrong types, unknown config keys on axes or overrides, empty or duplicate axes and bad ranges are
 *   PS_ERROR_DATA located at the offending node (FILE:LINE:COL); a missing scenario or base is PS_ERROR_NOINPUT.
 * - Loading also loads the base config with the overrides applied, so a mistake that every point would share
 *   is reported once, before anything runs.
 * - Points are numbered 0..n_points-1 in a stable order: the cartesian product of the axes with the first
 *   axis varying slowest, as nested loops written in file order. Axes named together in a `zip:` group move in
 *   step (they must have as many values each) and take the place of the group's first axis.
 * - A point's config is ps_config_load(base, overrides then the point's axis values as --set strings);
 *   ps_scenario_point_config() relocates any error a point's value causes onto the scenario node that
 *   supplied it, naming the axis and the point.
 * - Metric names form a fixed vocabulary (ps_metric_names(), metrics.h); a scenario lists some of them or gets the
 *   defaults: theoretical MB/s, then for every mode run its MB/s, % of theoretical and link usage.
 */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "app/config/config.h"
#include "app/study/metrics.h"
#include "app/report/report.h"
#include "app/config/ytree.h"

/* Largest sweep accepted: beyond it a typo in a range (step 1 instead of 100) is likelier than intent. */
#define PS_SCENARIO_MAX_POINTS 10000000u

typedef struct {
  char *key; /* config key path, e.g. "endpoint.tags" */
  GPtrArray *values; /* YNode* scalars (owned): the values, located where they were written */
  const YNode *at; /* the axis entry, for errors about the axis as a whole */
  int group; /* axes sharing a group (zip) advance together; group numbers follow file order */
} PsAxis;

typedef struct {
  char *path; /* the scenario file as named */
  char *name; /* `name:` or the file's base name */
  char *base; /* base config path, resolved against the scenario's directory */
  GPtrArray *sets; /* char*: "KEY=YAML" overrides, in file order */
  GPtrArray *set_nodes; /* const YNode*: where each override was written; NULL for a command-line --set */
  guint n_cli_sets; /* the last of `sets` came from the command line (ps_scenario_load_with()) */
  GPtrArray *axes; /* PsAxis* */
  GArray *metrics; /* PsMetric */
  unsigned modes; /* PsModeMask run at every point */
  gboolean ranges; /* a metric is an interval's end (MODE_mbps_lo, …): every point runs as --ranges does */
  guint n_points;
  guint n_groups;
  YNode *tree; /* the file, owned: every located node above points into it */
} PsScenario;

PsScenario *ps_scenario_load (const char *path, GError **error);
/* The same with the command line's part: `sets` (KEY=VALUE, may be NULL) apply to every point after the
 * scenario's overrides and before its axis values, and may not name an axis (PS_ERROR_USAGE); `modes` (a
 * PsModeMask, 0 = not given) replaces the scenario's modes:. An error in one of `sets` keeps its --set location. */
PsScenario *ps_scenario_load_with (const char *path, const char *const *sets, unsigned modes, GError **error);
void ps_scenario_free (PsScenario *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PsScenario, ps_scenario_free)

/* Value index of each axis at point `index` (value_index has one slot per axis). */
void ps_scenario_point_coords (const PsScenario *s, guint index, guint *value_index);
/* The --set list of a point (overrides, then axis values), NULL-terminated; free with g_strfreev. */
char **ps_scenario_point_sets (const PsScenario *s, guint index);
/* Load the config of point `index`; errors are located in the scenario when a point's value caused them. */
PsConfig *ps_scenario_point_config (const PsScenario *s, guint index, GError **error);
/* Rewrite *error, raised while loading or running point `index`, into a scenario-located one naming the point
 * (and the axis value, when the error's origin is one). */
void ps_scenario_locate_error (const PsScenario *s, guint index, GError **error);
