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
 * - Metric names form a fixed vocabulary (ps_metric_names()); a scenario lists some of them or gets the
 *   defaults: theoretical MB/s, then for every mode run its MB/s, % of theoretical and link usage.
 */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "app/config.h"
#include "app/report.h"
#include "app/ytree.h"

/* Largest sweep accepted: beyond it a typo in a range (step 1 instead of 100) is likelier than intent. */
#define PS_SCENARIO_MAX_POINTS 10000000u

typedef struct {
  char *key; /* config key path, e.g. "endpoint.tags" */
  GPtrArray *values; /* YNode* scalars (owned): the values, located where they were written */
  const YNode *at; /* the axis entry, for errors about the axis as a whole */
  int group; /* axes sharing a group (zip) advance together; group numbers follow file order */
} PsAxis;

typedef enum { PS_METRIC_THEORETICAL, PS_METRIC_PROTOCOL_LIMIT, PS_METRIC_MBPS, PS_METRIC_PCT_THEORETICAL,
               PS_METRIC_USAGE, PS_METRIC_EVENTS, PS_METRIC_SIM_TIME, PS_METRIC_ERRORS,
               PS_METRIC_LATENCY_P99, PS_METRIC_TRANSFER, PS_METRIC_MICROBENCH, PS_METRIC_RANGE,
               PS_METRIC_LIMITED_BY, PS_METRIC_FLOWS, PS_METRIC_FLOW,
               PS_METRIC_LINK } PsMetricKind; /* the fabric's kinds last */

typedef struct {
  char *name;
  PsMetricKind kind;
  int mode; /* PS_READ, PS_WRITE, PS_SIMULTANEOUS; -1 for per-point metrics */
  int figure; /* simultaneous mode: 0 = read, 1 = write; protocol limit: 0 = write, 1 = read; flows: 0 total,
               * 1 min, 2 max; a fabric's flow or link: its index */
  int downstream; /* usage: 0 = upstream, 1 = downstream; a fabric's link: 0 = a to b, 1 = b to a */
  int category; /* usage: 0 payload, 1 TLP overhead, 2 DLLP, 3 ordered sets, 4 idle; a flow: 0 MB/s, 1 p50
                 * latency, 2 first TLP's latency; microbench: 0 Gb/s, 1 mean, 2 p50, 3 p99, 4 max latency;
                 * range: 0 the interval's low end, 1 its high end (of figure ranges.h PS_RANGE_* `downstream`);
                 * limited_by: 0 a mode's, 1 the microbench's, 2 a fabric flow's (`figure` its index) */
} PsMetric;

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

/* Every metric name in the vocabulary, NULL-terminated (static storage). A fabric's scenario (its base has a
 * topology:) has those of flows and links besides, named after them (docs/fabrics.md): FLOW_mbps,
 * FLOW_latency_p50_ns, FLOW_first_tlp_ns, FLOW_limited_by and LINK_a_to_b|b_to_a_CATEGORY_pct. */
const char *const *ps_metric_names (void);
/* The metric named by scalar `n` for a run of `base` with `modes` (a PsModeMask): a known name, of the kind the
 * config runs (a fabric's flows, a microbench, the benchmark's modes) and of a mode in `modes` ("... which
 * `runner` does not run"); else a located PS_ERROR_DATA. A fabric's metric borrows its name from `n`. */
gboolean ps_metric_resolve (const YNode *n, const PsConfig *base, unsigned modes, const char *runner, PsMetric *out,
                            GError **error);
/* The metric's value in a result (NaN when the mode did not run, and for a text metric). */
double ps_metric_value (const PsMetric *m, const PsRunResult *r);
/* A text metric's value (MODE_limited_by, microbench_limited_by: the verdict's cause, models/stall.h's names);
 * NULL when the figure was not produced, or for a numeric metric. */
const char *ps_metric_text (const PsMetric *m, const PsRunResult *r);
/* The decimals a metric's values are written with (format.h's fixed-precision numbers), fixed per kind. */
int ps_metric_decimals (const PsMetric *m);
