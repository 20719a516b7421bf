/* metrics.h — what a sweep records at each point: named figures of a run's result (PsRunResult, report.h).
 *
 * Contract:
 * - Metric names form a fixed vocabulary (ps_metric_names()), plus a fabric's own names after its flows and
 *   links; a name outside it is a located PS_ERROR_DATA with a did-you-mean when the scenario (or a measurement
 *   of `pciesim fit`) loads, never an empty column found after the run.
 * - The defaults (ps_metric_defaults()): theoretical MB/s, then for every mode run its MB/s, % of theoretical and
 *   link usage; a fabric with flows: the flows together, then each flow's MB/s, median and first-TLP latency; a
 *   microbench: its Gb/s and latencies. Their order is the vocabulary's, fixed: it is the output's column order.
 * - A metric's value is read from a result, never recomputed: NaN when its mode, flow or figure did not run, so
 *   the cell is empty rather than a zero; a text metric (the verdicts' causes) is read with ps_metric_text().
 * - Same result, same value and decimals: nothing here depends on anything but its arguments.
 */
#pragma once

#include <glib.h>

#include "app/config/config.h"
#include "app/report/report.h"
#include "app/config/ytree.h"

typedef enum { PS_METRIC_THEORETICAL, PS_METRIC_PROTOCOL_LIMIT, PS_METRIC_MBPS, PS_METRIC_PCT_THEORETICAL,
               PS_METRIC_USAGE, PS_METRIC_EVENTS, PS_METRIC_SIM_TIME, PS_METRIC_ERRORS,
               PS_METRIC_LATENCY_P99, PS_METRIC_TRANSFER, PS_METRIC_MICROBENCH, PS_METRIC_RANGE,
               PS_METRIC_LIMITED_BY, PS_METRIC_FLOWS, PS_METRIC_FLOW,
               PS_METRIC_LINK, /* the fabric's kinds last, then: */
               PS_METRIC_FIGURE /* a device workload's named figure (workloads.h): `figure` its index, `category` 0
                                 * the value, 1..4 a latency's mean, p50, p99, max */ } PsMetricKind;

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
/* A text metric's value (MODE_limited_by, microbench_limited_by, FLOW_limited_by: the verdict's cause,
 * models/observe/stall.h's names); NULL when the figure was not produced, or for a numeric metric. */
const char *ps_metric_text (const PsMetric *m, const PsRunResult *r);
/* The decimals a metric's values are written with (format.h's fixed-precision numbers), fixed per kind. */
int ps_metric_decimals (const PsMetric *m);

/* Append a copy of `m` (its name duplicated) to `metrics`, a GArray of PsMetric whose owner frees the names:
 * the copies never touch the shared table. */
void ps_metric_add (GArray *metrics, const PsMetric *m);
/* Append the default metrics of a run of `base` with `modes` (a PsModeMask) to `metrics`, as ps_metric_add(). */
void ps_metric_defaults (GArray *metrics, const PsConfig *base, unsigned modes);
