/* report_fabric.c — a fabric's part of the report (report.h, PsFabricResult): the flows, then the links with the
 * busiest marked, in the table, Markdown, CSV and the JSON keys "flows" and "links" (schema 1: added keys).
 *
 * Kept apart from report.c, which calls these where a fabric's run replaces the benchmark's modes; numbers go
 * through format.h like every other figure: MB/s with two decimals, latencies with three (the engine's
 * picosecond), usage shares with six.
 */
#include "app/report/report_fabric.h"

#include <math.h>
#include <string.h>

#include "app/report/report_ranges.h"

static const char *const usage_names[] = { "payload", "tlp_overhead", "dllp", "ordered_sets", "idle" };

static void
usage_values (const PsUsage *u, double v[5])
{
  v[0] = u->payload;
  v[1] = u->tlp_overhead;
  v[2] = u->dllp;
  v[3] = u->ordered_sets;
  v[4] = u->idle;
}

/* The busiest link: the one whose busier direction is the least idle; the first of equals. -1 without links. */
static int
busiest (const PsFabricResult *fr)
{
  int best = -1;
  double most = -1;
  for (guint i = 0; i < fr->n_links; i++) {
    double busy = 1 - MIN (fr->links[i].a_to_b.idle, fr->links[i].b_to_a.idle);
    if (busy > most) {
      most = busy;
      best = (int) i;
    }
  }
  return best;
}

/* The busiest link's verdict: of its busier direction, what it spends the most of the window on, its wire (busy)
 * or a cause it waits for. A link is not a figure: no floor, its own time split. */
typedef struct {
  gboolean b_to_a;
  double busy, share;
  const char *cause;
} LinkVerdict;

static LinkVerdict
link_verdict (const PsFabricResult *fr, int i)
{
  const PsLinkResult *l = &fr->links[i];
  LinkVerdict v = { .b_to_a = l->b_to_a.idle < l->a_to_b.idle };
  v.busy = 1 - (v.b_to_a ? l->b_to_a.idle : l->a_to_b.idle);
  v.cause = "link";
  v.share = v.busy;
  for (guint c = 0; c < fr->n_causes; c++)
    if (l->idle[v.b_to_a][c] > v.share) {
      v.share = l->idle[v.b_to_a][c];
      v.cause = fr->cause_names[c];
    }
  return v;
}

void
ps_report_fabric_json (PsJson *j, const PsFabricResult *fr, const PsRanges *ranges)
{
  ps_json_key (j, "flows");
  ps_json_array (j, 4 | PS_JSON_BREAK_EMPTY);
  for (guint k = 0; k < fr->n_flows; k++) {
    const PsFlowResult *f = &fr->flows[k];
    if (!f->ran)
      continue;
    ps_json_object (j, 0);
    ps_json_string_member (j, "name", f->name);
    ps_json_string_member (j, "source", f->source);
    /* A multi-function source's function and requester ID (bus:device.function, as lspci writes it); absent for a
     * single-function one, whose output is as it was. */
    if (f->function >= 0) {
      ps_json_int_member (j, "function", f->function);
      g_autofree char *rid = g_strdup_printf ("%02x:%02x.%x", f->requester_id >> 8, (f->requester_id >> 3) & 0x1f,
                                              f->requester_id & 7);
      ps_json_string_member (j, "requester_id", rid);
    }
    ps_json_string_member (j, "target", f->target);
    ps_json_string_member (j, "op", f->op);
    ps_json_int_member (j, "bytes", f->bytes);
    ps_json_int_member (j, "iterations", f->iterations);
    ps_json_int_member (j, "delivered_bytes", (int64_t) f->delivered_bytes);
    ps_json_fixed_member (j, "mbps", f->mbps, 2);
    ps_json_key (j, "latency_ns");
    ps_json_object (j, 0);
    const char *names[] = { "first_tlp", "mean", "p50", "p99", "max" };
    const double v[] = { f->first_tlp_ns, f->mean_ns, f->p50_ns, f->p99_ns, f->max_ns };
    for (int i = 0; i < 5; i++)
      ps_json_fixed_member (j, names[i], v[i], 3);
    ps_json_end (j);
    /* A read flow's round trips (issue #25): the one-way figures above time only the request. */
    if (f->read_latency.valid) {
      ps_json_key (j, "read_latency_ns");
      ps_report_json_latency (j, &f->read_latency);
    }
    if (ranges)
      ps_ranges_json_members (j, ranges, PS_RANGE_FLOW + (int) k, "");
    /* Why (docs/why.md): the verdict, and the link directions the flow's data crosses (their stalls: links[]). */
    if (f->verdict.valid) {
      ps_json_break (j, 6);
      ps_json_key (j, "limited_by");
      ps_report_json_verdict (j, &f->verdict);
      ps_json_key (j, "path");
      ps_json_array (j, 0);
      for (guint h = 0; h < f->n_hops; h++) {
        ps_json_object (j, 0);
        ps_json_string_member (j, "link", fr->links[f->hop_link[h]].name);
        ps_json_string_member (j, "direction", f->hop_b_to_a[h] ? "b_to_a" : "a_to_b");
        ps_json_end (j);
      }
      ps_json_end (j);
    }
    ps_json_end (j);
  }
  ps_json_end (j);
  ps_json_key (j, "links");
  ps_json_array (j, 4 | PS_JSON_BREAK_EMPTY);
  for (guint i = 0; i < fr->n_links; i++) {
    const PsLinkResult *l = &fr->links[i];
    ps_json_object (j, 0);
    ps_json_string_member (j, "name", l->name);
    ps_json_string_member (j, "a", l->a);
    ps_json_string_member (j, "b", l->b);
    ps_json_int_member (j, "gen", l->gen);
    ps_json_int_member (j, "lanes", l->lanes);
    ps_json_key (j, "usage");
    ps_json_object (j, 0);
    const PsUsage *u[2] = { &l->a_to_b, &l->b_to_a };
    for (int d = 0; d < 2; d++) {
      ps_json_key (j, d ? "b_to_a" : "a_to_b");
      ps_json_object (j, 0);
      double v[5];
      usage_values (u[d], v);
      for (int x = 0; x < 5; x++)
        ps_json_fixed_member (j, usage_names[x], v[x], 6);
      ps_json_end (j);
    }
    ps_json_end (j);
    /* Only with errors modelled on the link, so error-free results keep their bytes. */
    if (l->has_errors) {
      ps_json_key (j, "errors");
      ps_json_object (j, 0);
      ps_json_key (j, "a_to_b");
      ps_report_json_errors (j, &l->a_to_b_errors);
      ps_json_key (j, "b_to_a");
      ps_report_json_errors (j, &l->b_to_a_errors);
      ps_json_end (j);
    }
    if (fr->n_causes > 0) {
      ps_json_key (j, "stalls");
      ps_json_object (j, 0);
      for (int d = 0; d < 2; d++) {
        ps_json_key (j, d ? "b_to_a" : "a_to_b");
        ps_json_object (j, 0);
        for (guint c = 0; c < fr->n_causes; c++)
          if (l->idle[d][c] > 0)
            ps_json_fixed_member (j, fr->cause_names[c], l->idle[d][c], 6);
        ps_json_end (j);
      }
      ps_json_end (j);
    }
    ps_json_end (j);
  }
  ps_json_end (j);
  ps_json_fixed_member (j, "fabric_window_ns", fr->window_ns, 3);
  int hot = busiest (fr);
  if (hot >= 0 && fr->n_causes > 0) {
    LinkVerdict lv = link_verdict (fr, hot);
    ps_json_key (j, "busiest_link");
    ps_json_object (j, 0);
    ps_json_string_member (j, "name", fr->links[hot].name);
    ps_json_string_member (j, "direction", lv.b_to_a ? "b_to_a" : "a_to_b");
    ps_json_fixed_member (j, "busy", lv.busy, 6);
    ps_json_string_member (j, "cause", lv.cause);
    ps_json_fixed_member (j, "share", lv.share, 6);
    ps_json_end (j);
  }
}

/* A cell of a fixed width: the number with `decimals`, or "-" for a value the run did not produce. */
static void
cell (GString *o, int width, double v, int decimals)
{
  if (isfinite (v))
    g_string_append_printf (o, " %*.*f", width, decimals, v);
  else
    g_string_append_printf (o, " %*s", width, "-");
}

/* The read flows' round trips, under the flow rows: request in to last completion out, per MRd. Nothing without
 * a read flow, so a fabric of writes prints what it did. */
static void
read_round_trips (GString *o, const PsFabricResult *fr, gboolean markdown)
{
  gboolean any = FALSE;
  for (guint k = 0; k < fr->n_flows; k++)
    any |= fr->flows[k].ran && fr->flows[k].read_latency.valid;
  if (!any)
    return;
  g_string_append (o, markdown ? "\n| read flow | round trips | mean ns | p50 ns | p99 ns | max ns |\n"
                                 "|---|---:|---:|---:|---:|---:|\n"
                               : "read round trip per MRd, ns    count      mean       p50       p99       max\n");
  for (guint k = 0; k < fr->n_flows; k++) {
    const PsFlowResult *f = &fr->flows[k];
    const PsLatency *l = &f->read_latency;
    if (!f->ran || !l->valid)
      continue;
    if (markdown) {
      g_string_append (o, "| ");
      ps_md_cell (o, f->name);
      g_string_append_printf (o, " | %" G_GUINT64_FORMAT " | %.1f | %.1f | %.1f | %.1f |\n", l->count, l->mean_ns,
                              l->p50_ns, l->p99_ns, l->max_ns);
    } else {
      g_string_append_printf (o, "  %-26s %9" G_GUINT64_FORMAT, f->name, l->count);
      cell (o, 9, l->mean_ns, 1);
      cell (o, 9, l->p50_ns, 1);
      cell (o, 9, l->p99_ns, 1);
      cell (o, 9, l->max_ns, 1);
      g_string_append_c (o, '\n');
    }
  }
}

/* A flow's source as the tables show it: the node, and for a multi-function device the function ("e3 fn1"). */
static char *
source_cell (const PsFlowResult *f)
{
  return f->function >= 0 ? g_strdup_printf ("%s fn%d", f->source, f->function) : g_strdup (f->source);
}

void
ps_report_fabric_table (GString *o, const PsConfig *c, const PsFabricResult *fr, gboolean markdown)
{
  int hot = busiest (fr);
  if (markdown) {
    g_string_append (o, "| flow | source | target | op | bytes × iterations | MB/s | first TLP ns | mean ns | p50 ns "
                        "| p99 ns | max ns |\n|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (guint k = 0; k < fr->n_flows; k++) {
      const PsFlowResult *f = &fr->flows[k];
      if (!f->ran)
        continue;
      g_string_append (o, "| ");
      ps_md_cell (o, f->name);
      g_autofree char *src = source_cell (f);
      g_string_append_printf (o, " | %s | %s | %s | %" G_GINT64_FORMAT " × %" G_GINT64_FORMAT " | %.1f | %.1f | %.1f "
                              "| %.1f | %.1f | %.1f |\n", src, f->target, f->op, f->bytes, f->iterations,
                              f->mbps, f->first_tlp_ns, f->mean_ns, f->p50_ns, f->p99_ns, f->max_ns);
    }
    read_round_trips (o, fr, TRUE);
    g_string_append (o, "\n| link | a → b | width | a→b payload | a→b idle | b→a payload | b→a idle |\n"
                        "|---|---|---|---:|---:|---:|---:|\n");
    for (guint i = 0; i < fr->n_links; i++) {
      const PsLinkResult *l = &fr->links[i];
      g_string_append_printf (o, "| %s%s | %s → %s | Gen%" G_GINT64_FORMAT " x%" G_GINT64_FORMAT " | %.2f%% | %.2f%% | "
                              "%.2f%% | %.2f%% |\n", l->name, (int) i == hot ? " (busiest)" : "", l->a, l->b, l->gen,
                              l->lanes, l->a_to_b.payload * 100, l->a_to_b.idle * 100, l->b_to_a.payload * 100,
                              l->b_to_a.idle * 100);
    }
    return;
  }
  guint ran = 0;
  for (guint k = 0; k < fr->n_flows; k++)
    ran += fr->flows[k].ran;
  g_string_append_printf (o, "%s — a fabric of %u nodes and %u link%s, %u of %u flows, MPS %" G_GINT64_FORMAT
                          ", MRRS %" G_GINT64_FORMAT " (fabric)\n", c->name, c->topology->n_nodes, fr->n_links,
                          fr->n_links == 1 ? "" : "s", ran, fr->n_flows, c->link.max_payload, c->link.max_read_request);
  /* The file-wide values a fabric's endpoints take unless a node gives its own. */
  static const char *const shown[] = { "link.max_payload", "link.max_read_request", "endpoint.tags",
                                       "endpoint.datapath_bits", "endpoint.clock_mhz", NULL };
  ps_report_defaults_line (o, c, shown);
  g_string_append (o, "flow             source       target       op        bytes x iter      MB/s   latency ns: "
                      "first TLP      mean       p50       p99       max\n");
  for (guint k = 0; k < fr->n_flows; k++) {
    const PsFlowResult *f = &fr->flows[k];
    if (!f->ran)
      continue;
    g_autofree char *size = g_strdup_printf ("%" G_GINT64_FORMAT " x %" G_GINT64_FORMAT, f->bytes, f->iterations);
    g_autofree char *src = source_cell (f);
    g_string_append_printf (o, "%-16s %-12s %-12s %-5s %16s", f->name, src, f->target, f->op, size);
    cell (o, 9, f->mbps, 1);
    g_string_append (o, "            ");
    cell (o, 9, f->first_tlp_ns, 1);
    cell (o, 9, f->mean_ns, 1);
    cell (o, 9, f->p50_ns, 1);
    cell (o, 9, f->p99_ns, 1);
    cell (o, 9, f->max_ns, 1);
    g_string_append_c (o, '\n');
    if (!f->verdict.valid)
      continue;
    g_string_append_printf (o, "  %s\n  path:", f->verdict.text);
    /* The stall split of each transmitter the flow's data crosses: busy, then its largest idle cause. */
    for (guint h = 0; h < f->n_hops; h++) {
      const PsLinkResult *l = &fr->links[f->hop_link[h]];
      int d = f->hop_b_to_a[h];
      const PsUsage *u = d ? &l->b_to_a : &l->a_to_b;
      int top = -1;
      for (guint x = 0; x < fr->n_causes; x++)
        if (l->idle[d][x] > 0.0005 && (top < 0 || l->idle[d][x] > l->idle[d][top]))
          top = (int) x;
      g_string_append_printf (o, "%s %s %s busy %.0f%%", h ? "," : "", l->name, d ? "b->a" : "a->b",
                              (1 - u->idle) * 100);
      if (top >= 0)
        g_string_append_printf (o, " (idle: %s %.0f%%)", fr->cause_names[top], l->idle[d][top] * 100);
    }
    g_string_append_c (o, '\n');
  }
  read_round_trips (o, fr, FALSE);
  g_string_append (o, "\nlink usage                    width    a->b payload  TLP ovh   DLLP  ord.sets   idle    "
                      "b->a payload  TLP ovh   DLLP  ord.sets   idle\n");
  for (guint i = 0; i < fr->n_links; i++) {
    const PsLinkResult *l = &fr->links[i];
    g_autofree char *width = g_strdup_printf ("Gen%" G_GINT64_FORMAT " x%" G_GINT64_FORMAT, l->gen, l->lanes);
    g_string_append_printf (o, "%s %-27s %-8s", (int) i == hot ? "*" : " ", l->name, width);
    const PsUsage *u[2] = { &l->a_to_b, &l->b_to_a };
    for (int d = 0; d < 2; d++)
      g_string_append_printf (o, "   %11.2f%%  %6.2f%%  %5.2f%%  %6.2f%%  %6.2f%% ", u[d]->payload * 100,
                              u[d]->tlp_overhead * 100, u[d]->dllp * 100, u[d]->ordered_sets * 100, u[d]->idle * 100);
    g_string_truncate (o, o->len - 1);
    g_string_append_c (o, '\n');
  }
  g_string_append_printf (o, "  a is the end nearer the root complex; * the busiest link; over the flows' window, first "
                          "start to last end: %.3f us\n", fr->window_ns / 1000);
  if (hot >= 0 && fr->n_causes > 0) {
    LinkVerdict lv = link_verdict (fr, hot);
    g_string_append_printf (o, "  busiest link %s %s: busy %.0f%%; limited by %s (%.0f%% of its time)\n",
                            fr->links[hot].name, lv.b_to_a ? "b->a" : "a->b", lv.busy * 100, lv.cause,
                            lv.share * 100);
  }
  gboolean any = FALSE;
  for (guint i = 0; i < fr->n_links; i++)
    any |= fr->links[i].has_errors;
  if (!any)
    return;
  g_string_append (o, "\nlink errors (whole run)    dir   TLP errors    Naks  replays  timeouts  retrains  replayed bytes\n");
  for (guint i = 0; i < fr->n_links; i++) {
    const PsLinkResult *l = &fr->links[i];
    const PsLinkErrors *e[2] = { &l->a_to_b_errors, &l->b_to_a_errors };
    for (int d = 0; l->has_errors && d < 2; d++)
      g_string_append_printf (o, "  %-25s %-4s %12" G_GUINT64_FORMAT " %7" G_GUINT64_FORMAT " %8" G_GUINT64_FORMAT
                              " %9" G_GUINT64_FORMAT " %9" G_GUINT64_FORMAT " %15" G_GUINT64_FORMAT "\n",
                              d ? "" : l->name, d ? "b->a" : "a->b", e[d]->tlp_errors, e[d]->naks, e[d]->replays,
                              e[d]->replay_timeouts, e[d]->retrains, e[d]->replayed_bytes);
  }
}

void
ps_report_fabric_csv (GString *o, const PsRunResult *r)
{
  const PsFabricResult *fr = &r->fabric;
  /* One table: a row per flow, then a row per link; each leaves the other's columns empty (the link columns were
   * added after the flow ones, so a reader of the flow columns is unaffected). */
  g_string_append (o, "config,flow,source,target,op,bytes,iterations,mbps,latency_first_tlp_ns,latency_mean_ns,"
                      "latency_p50_ns,latency_p99_ns,latency_max_ns,link,a,b,gen,lanes");
  for (int d = 0; d < 2; d++)
    for (int x = 0; x < 5; x++)
      g_string_append_printf (o, ",%s_%s", d ? "b_to_a" : "a_to_b", usage_names[x]);
  /* The flow's verdict, then a read flow's round trips, added last (empty for writes and links). */
  g_string_append (o, ",limited_by,limited_by_share,read_latency_mean_ns,read_latency_p50_ns,read_latency_p99_ns,"
                      "read_latency_max_ns\n");
  for (guint k = 0; k < fr->n_flows; k++) {
    const PsFlowResult *f = &fr->flows[k];
    if (!f->ran)
      continue;
    ps_csv_cell (o, r->config->name);
    g_string_append_c (o, ',');
    ps_csv_cell (o, f->name);
    g_string_append_printf (o, ",%s,%s,%s,%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",", f->source, f->target, f->op,
                            f->bytes, f->iterations);
    ps_fmt_fixed (o, f->mbps, 2);
    const double v[] = { f->first_tlp_ns, f->mean_ns, f->p50_ns, f->p99_ns, f->max_ns };
    for (int i = 0; i < 5; i++) {
      g_string_append_c (o, ',');
      ps_fmt_fixed (o, v[i], 3);
    }
    g_string_append (o, ",,,,,,,,,,,,,,,");
    g_string_append_printf (o, ",%s,", f->verdict.valid ? f->verdict.cause : "");
    ps_fmt_fixed (o, f->verdict.valid ? f->verdict.share * 100 : NAN, 2);
    const PsLatency *l = &f->read_latency;
    const double rt[] = { l->mean_ns, l->p50_ns, l->p99_ns, l->max_ns };
    for (int i = 0; i < 4; i++) {
      g_string_append_c (o, ',');
      if (l->valid)
        ps_fmt_fixed (o, rt[i], 3);
    }
    g_string_append_c (o, '\n');
  }
  for (guint i = 0; i < fr->n_links; i++) {
    const PsLinkResult *l = &fr->links[i];
    ps_csv_cell (o, r->config->name);
    g_string_append (o, ",,,,,,,,,,,,,");
    ps_csv_cell (o, l->name);
    g_string_append_c (o, ',');
    ps_csv_cell (o, l->a);
    g_string_append_c (o, ',');
    ps_csv_cell (o, l->b);
    g_string_append_printf (o, ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT, l->gen, l->lanes);
    const PsUsage *u[2] = { &l->a_to_b, &l->b_to_a };
    for (int d = 0; d < 2; d++) {
      double v[5];
      usage_values (u[d], v);
      for (int x = 0; x < 5; x++) {
        g_string_append_c (o, ',');
        ps_fmt_fixed (o, v[x], 6);
      }
    }
    g_string_append (o, ",,,,,,\n");
  }
}
