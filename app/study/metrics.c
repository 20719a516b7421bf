/* metrics.c — a sweep's metrics: the vocabulary of names, a fabric's names after its flows and links, the default
 * columns, resolving a name for a config, and reading a metric's value out of a run's result.
 *
 * The vocabulary is one table built once per process (metric_table()); its order is the column order of the
 * default metrics, so it is part of the output format. A fabric's metrics are not in the table: their names
 * depend on the topology, so they are matched against it when a name is resolved (fabric_metric()).
 */
#include "app/study/metrics.h"

#include <math.h>
#include <string.h>

#include "app/base/error.h"
#include "app/run/workloads.h"
#include "app/study/ranges.h"

/* Metric names form a closed vocabulary built from the modes and usage categories, so a misspelt metric is an
 * error with a did-you-mean when the scenario loads, not an empty column discovered after the sweep. */

/* The words of --mode and of the run report's JSON, so a metric's name says which mode it reads. */
static const char *const mode_words[PS_N_MODES] = { "read", "write", "simultaneous", "pio_read", "pio_write" };
static const char *const transfer_words[3] = { "mean", "p50", "p99" };
static const char *const microbench_words[7] = { "gbps", "mean", "p50", "p99", "max", "read_gbps", "write_gbps" };
static const char *const usage_words[5] = { "payload", "tlp_overhead", "dllp", "ordered_sets", "idle" };
/* PsLinkErrors fields, in its order. */
#define N_ERROR_WORDS 10
static const char *const error_words[N_ERROR_WORDS] = { "tlp_errors", "dllp_errors", "naks", "replays",
                                                        "replay_timeouts", "retrains", "replayed_tlps",
                                                        "replayed_bytes", "flit_errors", "framing_errors" };

/* The vocabulary, built once: per point, then per mode its figures, % of theoretical, usage, events, time.
 * This order is also the column order of the default metrics (ps_metric_defaults() walks the table), so it is part
 * of the output format: a name inserted in the middle would move existing columns. g_once makes the lazy build
 * safe whichever thread asks first; the table lives as long as the process, like a static array. */
static GArray *
metric_table (void)
{
  static GArray *table;
  if (g_once_init_enter (&table)) {
    GArray *t = g_array_new (FALSE, TRUE, sizeof (PsMetric));
    PsMetric m = { g_strdup ("theoretical_mbps"), PS_METRIC_THEORETICAL, -1, 0, 0, 0 };
    g_array_append_val (t, m);
    m = (PsMetric) { g_strdup ("protocol_limit_mbps"), PS_METRIC_PROTOCOL_LIMIT, -1, 0, 0, 0 };
    g_array_append_val (t, m);
    /* Figure 1: the read limit (3-DW completions), report.h. */
    m = (PsMetric) { g_strdup ("protocol_limit_read_mbps"), PS_METRIC_PROTOCOL_LIMIT, -1, 1, 0, 0 };
    g_array_append_val (t, m);
    for (int mode = 0; mode < PS_N_MODES; mode++) {
      int n_fig = mode == PS_SIMULTANEOUS ? 2 : 1;
      for (int f = 0; f < n_fig; f++) {
        const char *fig = mode != PS_SIMULTANEOUS ? "" : f ? "_write" : "_read";
        m = (PsMetric) { g_strdup_printf ("%s%s_mbps", mode_words[mode], fig), PS_METRIC_MBPS, mode, f, 0, 0 };
        g_array_append_val (t, m);
      }
      for (int f = 0; f < n_fig; f++) {
        const char *fig = mode != PS_SIMULTANEOUS ? "" : f ? "_write" : "_read";
        m = (PsMetric) { g_strdup_printf ("%s%s_pct_theoretical", mode_words[mode], fig), PS_METRIC_PCT_THEORETICAL,
                         mode, f, 0, 0 };
        g_array_append_val (t, m);
      }
      for (int d = 0; d < 2; d++)
        for (int c = 0; c < 5; c++) {
          m = (PsMetric) { g_strdup_printf ("%s_%s_%s_pct", mode_words[mode], d ? "down" : "up", usage_words[c]),
                           PS_METRIC_USAGE, mode, 0, d, c };
          g_array_append_val (t, m);
        }
      m = (PsMetric) { g_strdup_printf ("%s_events", mode_words[mode]), PS_METRIC_EVENTS, mode, 0, 0, 0 };
      g_array_append_val (t, m);
      m = (PsMetric) { g_strdup_printf ("%s_sim_time_ns", mode_words[mode]), PS_METRIC_SIM_TIME, mode, 0, 0, 0 };
      g_array_append_val (t, m);
    }
    /* Link errors, after everything else so no default column moves: both directions summed, as a scenario asks
     * what errors cost the transfer, and the stream's TLP latency tail. */
    for (int mode = 0; mode < PS_N_MODES; mode++) {
      for (int c = 0; c < N_ERROR_WORDS; c++) {
        m = (PsMetric) { g_strdup_printf ("%s_%s", mode_words[mode], error_words[c]), PS_METRIC_ERRORS, mode, 0, 0,
                         c };
        g_array_append_val (t, m);
      }
      m = (PsMetric) { g_strdup_printf ("%s_latency_p99_ns", mode_words[mode]), PS_METRIC_LATENCY_P99, mode, 0, 0,
                       0 };
      g_array_append_val (t, m);
    }
    /* A fabric's flows together (docs/fabrics.md); per flow and link, see fabric_metric(). */
    for (int f = 0; f < 3; f++) {
      m = (PsMetric) { g_strdup_printf ("flows_%s_mbps", f == 0 ? "total" : f == 1 ? "min" : "max"), PS_METRIC_FLOWS,
                       -1, f, 0, 0 };
      g_array_append_val (t, m);
    }
    /* Per-transfer times of software-timed figures (issue #14), last for the same reason: MODE_transfer_mean_ns,
     * _p50_ns, _p99_ns (simultaneous: MODE_read_transfer_… and MODE_write_transfer_…). */
    for (int mode = 0; mode < PS_N_MODES; mode++) {
      int n_fig = mode == PS_SIMULTANEOUS ? 2 : 1;
      for (int f = 0; f < n_fig; f++)
        for (int c = 0; c < 3; c++) {
          const char *fig = mode != PS_SIMULTANEOUS ? "" : f ? "_write" : "_read";
          m = (PsMetric) { g_strdup_printf ("%s%s_transfer_%s_ns", mode_words[mode], fig, transfer_words[c]),
                           PS_METRIC_TRANSFER, mode, f, 0, c };
          g_array_append_val (t, m);
        }
    }
    /* The microbench workload's figures (docs/validation.md, "pcie-bench microbenchmarks"): microbench_gbps,
     * microbench_latency_mean_ns, _p50_ns, _p99_ns, _max_ns. */
    for (int c = 0; c < 5; c++) {
      char *name = c ? g_strdup_printf ("microbench_latency_%s_ns", microbench_words[c]) : g_strdup ("microbench_gbps");
      m = (PsMetric) { name, PS_METRIC_MICROBENCH, -1, 0, 0, c };
      g_array_append_val (t, m);
    }
    /* The ends of the figures' intervals over the assumptions' ranges (ranges.h), last: MODE_mbps_lo and _hi
     * (simultaneous: _read_ and _write_), microbench_gbps_lo/_hi, microbench_latency_p50_ns_lo/_hi. Asking for one
     * makes every point run as --ranges does. */
    for (int mode = 0; mode < PS_N_MODES; mode++)
      for (int f = 0; f < (mode == PS_SIMULTANEOUS ? 2 : 1); f++)
        for (int end = 0; end < 2; end++) {
          const char *fig = mode != PS_SIMULTANEOUS ? "" : f ? "_write" : "_read";
          m = (PsMetric) { g_strdup_printf ("%s%s_mbps_%s", mode_words[mode], fig, end ? "hi" : "lo"), PS_METRIC_RANGE,
                           mode, f, PS_RANGE_MODE + 2 * mode + f, end };
          g_array_append_val (t, m);
        }
    for (int c = 0; c < 2; c++)
      for (int end = 0; end < 2; end++) {
        m = (PsMetric) { g_strdup_printf ("%s_%s", c ? "microbench_latency_p50_ns" : "microbench_gbps", end ? "hi" : "lo"),
                         PS_METRIC_RANGE, -1, 0, c ? PS_RANGE_MB_P50 : PS_RANGE_MB_GBPS, end };
        g_array_append_val (t, m);
      }
    /* The verdicts' causes (issue #25, docs/why-method.md), text: MODE_limited_by (simultaneous: _read_ and
     * _write_), microbench_limited_by. */
    for (int mode = 0; mode < PS_N_MODES; mode++)
      for (int f = 0; f < (mode == PS_SIMULTANEOUS ? 2 : 1); f++) {
        const char *fig = mode != PS_SIMULTANEOUS ? "" : f ? "_write" : "_read";
        m = (PsMetric) { g_strdup_printf ("%s%s_limited_by", mode_words[mode], fig), PS_METRIC_LIMITED_BY, mode, f,
                         0, 0 };
        g_array_append_val (t, m);
      }
    m = (PsMetric) { g_strdup ("microbench_limited_by"), PS_METRIC_LIMITED_BY, -1, 0, 0, 1 };
    g_array_append_val (t, m);
    /* The microbench's total split by direction (report.h), after everything else so no column moves:
     * microbench_read_gbps, microbench_write_gbps. Not among the default columns, which stay as they were. */
    for (int c = 5; c < 7; c++) {
      m = (PsMetric) { g_strdup_printf ("microbench_%s", microbench_words[c]), PS_METRIC_MICROBENCH, -1, 0, 0, c };
      g_array_append_val (t, m);
    }
    g_once_init_leave (&table, t);
  }
  return table;
}

/* For did-you-mean: the names of the table, in table order, built once and shared by every thread. */
const char *const *
ps_metric_names (void)
{
  static const char **names;
  if (g_once_init_enter (&names)) {
    GArray *t = metric_table ();
    const char **n = g_new0 (const char *, t->len + 1);
    for (guint i = 0; i < t->len; i++)
      n[i] = g_array_index (t, PsMetric, i).name;
    g_once_init_leave (&names, n);
  }
  return names;
}

/* A linear search: the table has under fifty names and is searched only while a scenario loads. */
static const PsMetric *
metric_find (const char *name)
{
  GArray *t = metric_table ();
  for (guint i = 0; i < t->len; i++)
    if (strcmp (g_array_index (t, PsMetric, i).name, name) == 0)
      return &g_array_index (t, PsMetric, i);
  return NULL;
}

/* A fabric's own metrics, by the names of its flows and links: FLOW_mbps, FLOW_latency_p50_ns, FLOW_first_tlp_ns,
 * FLOW_latency_mean_ns, FLOW_latency_p99_ns, FLOW_latency_max_ns, FLOW_mbps_lo and FLOW_mbps_hi (the ends of the
 * flow's interval over the assumptions' ranges, as MODE_mbps_lo: the points run as --ranges does), FLOW_limited_by
 * (the flow's verdict's cause, text),
 * LINK_a_to_b_CATEGORY_pct and
 * LINK_b_to_a_CATEGORY_pct. Indices are the topology's, the same at every point (an axis cannot change a
 * topology). The first three are a fabric sweep's default columns. */
#define FLOW_METRICS 9
#define FLOW_DEFAULT_METRICS 3
/* The read_latency_* words (a read flow's round trips, issue #25) came last: empty for a write flow. */
static const char *const flow_metric_words[FLOW_METRICS] = { "mbps", "latency_p50_ns", "first_tlp_ns",
                                                             "latency_mean_ns", "latency_p99_ns", "latency_max_ns",
                                                             "read_latency_mean_ns", "read_latency_p99_ns",
                                                             "read_latency_max_ns" };

static gboolean
fabric_metric (const PsTopology *t, const char *name, PsMetric *out)
{
  for (guint k = 0; t && k < t->n_flows; k++)
    for (int c = 0; c < FLOW_METRICS; c++) {
      g_autofree char *n = g_strdup_printf ("%s_%s", t->flows[k].name, flow_metric_words[c]);
      if (strcmp (n, name) == 0) {
        *out = (PsMetric) { (char *) name, PS_METRIC_FLOW, -1, (int) k, 0, c };
        return TRUE;
      }
    }
  for (guint k = 0; t && k < t->n_flows; k++)
    for (int end = 0; end < 2; end++) {
      g_autofree char *n = g_strdup_printf ("%s_mbps_%s", t->flows[k].name, end ? "hi" : "lo");
      if (strcmp (n, name) == 0) {
        *out = (PsMetric) { (char *) name, PS_METRIC_RANGE, -1, 0, PS_RANGE_FLOW + (int) k, end };
        return TRUE;
      }
    }
  /* FLOW_limited_by: the flow's verdict's cause (category 2 of the per-point text kind, figure the flow). */
  for (guint k = 0; t && k < t->n_flows; k++) {
    g_autofree char *n = g_strdup_printf ("%s_limited_by", t->flows[k].name);
    if (strcmp (n, name) == 0) {
      *out = (PsMetric) { (char *) name, PS_METRIC_LIMITED_BY, -1, (int) k, 0, 2 };
      return TRUE;
    }
  }
  for (guint l = 0; t && l < t->n_links; l++)
    for (int d = 0; d < 2; d++)
      for (int c = 0; c < 5; c++) {
        g_autofree char *n = g_strdup_printf ("%s_%s_%s_pct", t->links[l].name, d ? "b_to_a" : "a_to_b",
                                              usage_words[c]);
        if (strcmp (n, name) == 0) {
          *out = (PsMetric) { (char *) name, PS_METRIC_LINK, -1, (int) l, d, c };
          return TRUE;
        }
      }
  return FALSE;
}

/* A device workload's metrics (workloads.h), by its figures' names: NAME for each, and NAME_mean_ns, _p50_ns,
 * _p99_ns, _max_ns for a latency's distribution. */
static const char *const latency_words[4] = { "mean", "p50", "p99", "max" };

static gboolean
figure_metric (const PsWorkloadKind *wk, const char *name, PsMetric *out)
{
  for (guint i = 0; i < wk->n_figures; i++)
    for (int c = 0; c < (wk->figures[i].latency ? 5 : 1); c++) {
      g_autofree char *n = c ? g_strdup_printf ("%s_%s_ns", wk->figures[i].name, latency_words[c - 1])
                             : g_strdup (wk->figures[i].name);
      if (strcmp (n, name) == 0) {
        *out = (PsMetric) { (char *) name, PS_METRIC_FIGURE, -1, (int) i, 0, c };
        return TRUE;
      }
    }
  return FALSE;
}

/* A device workload runs no mode, flow or microbenchmark: its own figures, and the link's two analytic limits. */
static gboolean
figure_resolve (const YNode *n, const PsWorkloadKind *wk, PsMetric *out, GError **error)
{
  const PsMetric *m = metric_find (n->value);
  if (m && (m->kind == PS_METRIC_THEORETICAL || m->kind == PS_METRIC_PROTOCOL_LIMIT)) {
    *out = *m;
    return TRUE;
  }
  if (figure_metric (wk, n->value, out))
    return TRUE;
  g_autoptr (GString) names = g_string_new (NULL);
  for (guint i = 0; i < wk->n_figures; i++)
    g_string_append_printf (names, "%s%s%s", i ? ", " : "", wk->figures[i].name,
                            wk->figures[i].latency ? " (and _mean_ns, _p50_ns, _p99_ns, _max_ns)" : "");
  ytree_error (error, PS_ERROR_DATA, n, "unknown metric '%s': the base config runs the %s workload, whose metrics are "
               "%s", n->value, wk->name, names->str);
  return FALSE;
}

/* The scenario owns copies so that freeing it never touches the shared table. */
void
ps_metric_add (GArray *metrics, const PsMetric *m)
{
  PsMetric copy = *m;
  copy.name = g_strdup (m->name);
  g_array_append_val (metrics, copy);
}

/* Metrics name a mode by index, scenarios select modes by PsModeMask bit: this maps one to the other. */
static const unsigned mode_bits[PS_N_MODES] = { PS_MODE_READ, PS_MODE_WRITE, PS_MODE_SIMULTANEOUS, PS_MODE_PIO_READ,
                                                PS_MODE_PIO_WRITE };

/* Enough to plot any mode's throughput and see where its link time goes; events and simulated time are left
 * to scenarios that ask for them, as they matter for performance work, not for what-if answers. */
void
ps_metric_defaults (GArray *metrics, const PsConfig *base, unsigned modes)
{
  GArray *t = metric_table ();
  /* A device workload: each figure's value, and a latency's p50 and p99. */
  const PsWorkloadKind *wk = ps_config_workload (base);
  for (guint i = 0; i < wk->n_figures; i++)
    for (int c = 0; c < (wk->figures[i].latency ? 5 : 1); c++)
      if (c == 0 || c == 2 || c == 3) {
        g_autofree char *n = c ? g_strdup_printf ("%s_%s_ns", wk->figures[i].name, latency_words[c - 1])
                               : g_strdup (wk->figures[i].name);
        PsMetric m = { n, PS_METRIC_FIGURE, -1, (int) i, 0, c };
        ps_metric_add (metrics, &m);
      }
  if (wk->figures)
    return;
  /* A fabric with flows: the flows together, then each flow's throughput, median and first-TLP latency (without
   * flows a fabric runs the benchmark's modes, as a one-link config). */
  if (ps_config_runs_flows (base)) {
    for (guint i = 0; i < t->len; i++)
      if (g_array_index (t, PsMetric, i).kind == PS_METRIC_FLOWS)
        ps_metric_add (metrics, &g_array_index (t, PsMetric, i));
    for (guint k = 0; k < base->topology->n_flows; k++)
      for (int c = 0; c < FLOW_DEFAULT_METRICS; c++) {
        g_autofree char *n = g_strdup_printf ("%s_%s", base->topology->flows[k].name, flow_metric_words[c]);
        PsMetric m = { n, PS_METRIC_FLOW, -1, (int) k, 0, c };
        ps_metric_add (metrics, &m);
      }
    return;
  }
  /* A microbench runs one test, not the modes: its Gb/s and latencies. */
  if (base->benchmark.workload == PS_WORKLOAD_MICROBENCH) {
    for (guint i = 0; i < t->len; i++)
      if (g_array_index (t, PsMetric, i).kind == PS_METRIC_MICROBENCH && g_array_index (t, PsMetric, i).category < 5)
        ps_metric_add (metrics, &g_array_index (t, PsMetric, i));
    return;
  }
  for (guint i = 0; i < t->len; i++) {
    const PsMetric *m = &g_array_index (t, PsMetric, i);
    gboolean per_mode = m->kind == PS_METRIC_MBPS || m->kind == PS_METRIC_PCT_THEORETICAL || m->kind == PS_METRIC_USAGE;
    if (m->kind == PS_METRIC_THEORETICAL || (per_mode && (modes & mode_bits[m->mode])))
      ps_metric_add (metrics, m);
  }
}

gboolean
ps_metric_resolve (const YNode *n, const PsConfig *base, unsigned modes, const char *runner, PsMetric *out,
                   GError **error)
{
  if (n->kind != YNODE_SCALAR) {
    ytree_error (error, PS_ERROR_DATA, n, "a metric must be %s, not %s", ytree_kind_name (YNODE_SCALAR),
                 ytree_kind_name (n->kind));
    return FALSE;
  }
  const PsWorkloadKind *wk = ps_config_workload (base);
  if (wk->figures)
    return figure_resolve (n, wk, out, error);
  const PsMetric *m = metric_find (n->value);
  if (!m && fabric_metric (base->topology, n->value, out))
    m = out;
  if (!m) {
    const char *hint = ps_closest (ps_metric_names (), n->value, 3);
    ytree_error (error, PS_ERROR_DATA, n, "unknown metric '%s'%s%s%s", n->value, hint ? " (did you mean '" : "",
                 hint ? hint : "", hint ? "'?)" : "");
    return FALSE;
  }
  /* A fabric with flows runs them, not the benchmark's modes; flows' metrics need them. */
  gboolean flows = ps_config_runs_flows (base);
  if ((flows && m->mode >= 0) || (!flows && m->kind >= PS_METRIC_FLOWS)) {
    ytree_error (error, PS_ERROR_DATA, n, "metric '%s' %s", n->value, flows
                 ? "is a benchmark mode's: a fabric (topology:) runs its flows, whose metrics are flows_total_mbps, "
                   "FLOW_mbps and the like" : "is a fabric's: the base config has no topology: and no flows");
    return FALSE;
  }
  gboolean mb = base->benchmark.workload == PS_WORKLOAD_MICROBENCH;
  gboolean per_point = m->kind == PS_METRIC_RANGE || m->kind == PS_METRIC_LIMITED_BY;
  gboolean mb_metric = m->kind == PS_METRIC_MICROBENCH || (per_point && m->mode < 0);
  if (mb_metric != mb && !flows && m->kind != PS_METRIC_THEORETICAL
      && m->kind != PS_METRIC_PROTOCOL_LIMIT) {
    ytree_error (error, PS_ERROR_DATA, n, "metric '%s' %s", n->value, mb
                 ? "is a benchmark mode's: the microbench workload runs one test, whose metrics are microbench_gbps "
                   "and microbench_latency_*_ns"
                 : "is the microbench workload's: the base config's benchmark.workload is not microbench");
    return FALSE;
  }
  if (m->mode >= 0 && !(modes & mode_bits[m->mode])) {
    ytree_error (error, PS_ERROR_DATA, n, "metric '%s' needs %s mode, which %s does not run", n->value,
                 mode_words[m->mode], runner);
    return FALSE;
  }
  *out = *m;
  return TRUE;
}

/* A fabric's metric: NaN for a flow that did not run (fabric.active_flows), or none at all. */
static double
fabric_value (const PsMetric *m, const PsFabricResult *fr)
{
  if (!fr->ran)
    return NAN;
  if (m->kind == PS_METRIC_LINK) {
    const PsUsage *u = m->downstream ? &fr->links[m->figure].b_to_a : &fr->links[m->figure].a_to_b;
    const double v[5] = { u->payload, u->tlp_overhead, u->dllp, u->ordered_sets, u->idle };
    return v[m->category] * 100.0;
  }
  if (m->kind == PS_METRIC_FLOW) {
    const PsFlowResult *f = &fr->flows[m->figure];
    const PsLatency *rt = &f->read_latency;
    const double v[FLOW_METRICS] = { f->mbps, f->p50_ns, f->first_tlp_ns, f->mean_ns, f->p99_ns, f->max_ns,
                                     rt->mean_ns, rt->p99_ns, rt->max_ns };
    return !f->ran || (m->category >= 6 && !rt->valid) ? NAN : v[m->category];
  }
  double total = 0, min = INFINITY, max = -INFINITY;
  for (guint k = 0; k < fr->n_flows; k++)
    if (fr->flows[k].ran) {
      total += fr->flows[k].mbps;
      min = MIN (min, fr->flows[k].mbps);
      max = MAX (max, fr->flows[k].mbps);
    }
  return m->figure == 0 ? total : m->figure == 1 ? min : max;
}

const char *
ps_metric_text (const PsMetric *m, const PsRunResult *r)
{
  if (m->kind != PS_METRIC_LIMITED_BY)
    return NULL;
  if (m->category == 2) {
    const PsFlowResult *f = r->fabric.ran ? &r->fabric.flows[m->figure] : NULL;
    return f && f->ran && f->verdict.valid ? f->verdict.cause : NULL;
  }
  if (m->mode < 0)
    return r->microbench.ran && r->microbench.verdict.valid ? r->microbench.verdict.cause : NULL;
  const PsModeResult *mr = &r->modes[m->mode];
  gboolean read = m->mode == PS_READ || m->mode == PS_PIO_READ || (m->mode == PS_SIMULTANEOUS && m->figure == 0);
  const PsVerdict *v = read ? &mr->read_verdict : &mr->write_verdict;
  return mr->ran && v->valid ? v->cause : NULL;
}

/* NaN rather than 0 for a mode that did not run, so the cell is empty (null in JSON) instead of claiming a
 * throughput of zero. Usage is in percent of the direction's time, as the metric names say (_pct), where the run
 * report's JSON gives fractions. */
double
ps_metric_value (const PsMetric *m, const PsRunResult *r)
{
  if (m->kind == PS_METRIC_THEORETICAL)
    return r->theoretical_mbps;
  if (m->kind == PS_METRIC_PROTOCOL_LIMIT)
    return m->figure ? r->protocol_limit_read_mbps : r->protocol_limit_mbps;
  if (m->kind == PS_METRIC_FLOWS || m->kind == PS_METRIC_FLOW || m->kind == PS_METRIC_LINK)
    return fabric_value (m, &r->fabric);
  if (m->kind == PS_METRIC_RANGE) {
    const PsFigureRange *fr = r->ranges ? &r->ranges->fig[m->downstream] : NULL;
    return fr && fr->valid ? (m->category ? fr->hi : fr->lo) : NAN;
  }
  if (m->kind == PS_METRIC_LIMITED_BY)
    return NAN;
  if (m->kind == PS_METRIC_FIGURE) {
    if (!r->figures.ran || (guint) m->figure >= r->figures.n)
      return NAN;
    const PsNamedFigure *f = &r->figures.fig[m->figure];
    const double v[5] = { f->value, f->latency.mean_ns, f->latency.p50_ns, f->latency.p99_ns, f->latency.max_ns };
    return m->category == 0 || f->latency.valid ? v[m->category] : NAN;
  }
  if (m->kind == PS_METRIC_MICROBENCH) {
    const PsMicrobenchResult *mb = &r->microbench;
    const double v[7] = { mb->gbps, mb->latency.mean_ns, mb->latency.p50_ns, mb->latency.p99_ns, mb->latency.max_ns,
                          mb->read_gbps, mb->write_gbps };
    return mb->ran ? v[m->category] : NAN;
  }
  /* m->mode is -1 only for the per-point kinds returned above, so the index is valid from here on. */
  const PsModeResult *mr = &r->modes[m->mode];
  if (!mr->ran)
    return NAN;
  double mbps = m->mode != PS_SIMULTANEOUS ? mr->mbps : m->figure ? mr->write_mbps : mr->read_mbps;
  const PsUsage *u = m->downstream ? &mr->downstream : &mr->upstream;
  const double usage[5] = { u->payload, u->tlp_overhead, u->dllp, u->ordered_sets, u->idle };
  switch (m->kind) {
  case PS_METRIC_MBPS:
    return mbps;
  /* Against the vendor formula, like the run report's "%theor." column, so the two can be compared. */
  case PS_METRIC_PCT_THEORETICAL:
    return mbps / r->theoretical_mbps * 100.0;
  case PS_METRIC_USAGE:
    return usage[m->category] * 100.0;
  case PS_METRIC_EVENTS:
    return (double) mr->events;
  case PS_METRIC_SIM_TIME:
    return mr->sim_time_ns;
  case PS_METRIC_ERRORS: {
    G_STATIC_ASSERT (sizeof (PsLinkErrors) == N_ERROR_WORDS * sizeof (uint64_t));
    uint64_t up[N_ERROR_WORDS], down[N_ERROR_WORDS];
    memcpy (up, &mr->errors_up, sizeof up);
    memcpy (down, &mr->errors_down, sizeof down);
    return (double) (up[m->category] + down[m->category]);
  }
  case PS_METRIC_LATENCY_P99:
    return mr->latency_p99_ns;
  case PS_METRIC_TRANSFER: {
    /* The figure's own direction: a read mode's reads, a write mode's writes, simultaneous by m->figure. */
    gboolean write = m->mode == PS_SIMULTANEOUS ? m->figure : m->mode == PS_WRITE || m->mode == PS_PIO_WRITE;
    const PsTransferTimes *t = write ? &mr->transfer_write : &mr->transfer_read;
    const double v[3] = { t->mean_ns, t->p50_ns, t->p99_ns };
    return t->valid ? v[m->category] : NAN;
  }
  /* Only the per-point kinds, already returned above, fall here. */
  default:
    return NAN;
  }
}

/* Two decimals like the run report's CSV, so a sweep cell and `pciesim CONFIG --format csv` agree. Event counts
 * are whole numbers, and simulated time has three decimals: one picosecond, exact. */
int
ps_metric_decimals (const PsMetric *m)
{
  return m->kind == PS_METRIC_EVENTS || m->kind == PS_METRIC_ERRORS ? 0
         : m->kind == PS_METRIC_SIM_TIME || m->kind == PS_METRIC_LATENCY_P99 || m->kind == PS_METRIC_TRANSFER
                || m->kind == PS_METRIC_MICROBENCH || (m->kind == PS_METRIC_FLOW && m->category > 0)
                || (m->kind == PS_METRIC_RANGE && m->mode < 0) || m->kind == PS_METRIC_FIGURE ? 3 : 2;
}
