/* report_json.c — a run's JSON report, schema 1 (report.h's contract, docs/reference/design.md §4): the members of
 * one link's modes, the microbenchmark, the published comparison, the resolved config and the stats. The figures
 * compared come from report.c's ps_result_figures(), as the table's do. */
#include "app/report/report.h"

#include <math.h>
#include <string.h>

#include "pciesim-version.h"
#include "app/report/report_fabric.h"
#include "app/report/report_impl.h"
#include "app/report/report_ranges.h"

/* Six decimals: these are fractions of 1, not percentages, and two (as for MB/s) would print a DLLP or SKP share
 * of a few tenths of a percent as 0.00. */
static void
json_usage (PsJson *j, const PsUsage *u)
{
  ps_json_object (j, 0);
  const char *names[] = { "payload", "tlp_overhead", "dllp", "ordered_sets", "idle" };
  const double v[] = { u->payload, u->tlp_overhead, u->dllp, u->ordered_sets, u->idle };
  for (int i = 0; i < 5; i++) {
    ps_json_fixed_member (j, names[i], v[i], 6);
  }
  ps_json_end (j);
}

/* {"upstream": {…},\n<indent>"downstream": {…}}: one direction per line, aligned under the first. */
static void
json_directions (PsJson *j, const PsModeResult *m, int indent)
{
  ps_json_object (j, 0);
  ps_json_key (j, "upstream");
  json_usage (j, &m->upstream);
  ps_json_break (j, indent);
  ps_json_key (j, "downstream");
  json_usage (j, &m->downstream);
  ps_json_end (j);
}

/* results.MODE: latency_ns, first_descriptor_fetch_ns, limited_by, stalls (a simultaneous mode's first three by
 * figure: {"read": …, "write": …}); each on its own line, so the keys before and after keep their lines. */
static void
json_why (PsJson *j, const PsModeResult *m, gboolean simultaneous, gboolean read)
{
  if (!m->read_verdict.valid && !m->write_verdict.valid)
    return;
  /* A PIO figure: its verdict alone (no DMA workload's latencies, fetches, transmitters). */
  if (m->n_transmitters == 0) {
    ps_json_key (j, "limited_by");
    ps_report_json_verdict (j, read ? &m->read_verdict : &m->write_verdict);
    ps_json_break (j, 6);
    return;
  }
  ps_json_key (j, "latency_ns");
  if (simultaneous) {
    ps_json_object (j, 0);
    ps_json_key (j, "read");
    ps_report_json_latency (j, &m->read_latency);
    ps_json_key (j, "write");
    ps_report_json_latency (j, &m->write_latency);
    ps_json_end (j);
    ps_json_key (j, "first_descriptor_fetch_ns");
    ps_json_object (j, 0);
    ps_json_fixed_member (j, "read", m->read_first_fetch_ns, 3);
    ps_json_fixed_member (j, "write", m->write_first_fetch_ns, 3);
    ps_json_end (j);
  } else {
    ps_report_json_latency (j, read ? &m->read_latency : &m->write_latency);
    ps_json_fixed_member (j, "first_descriptor_fetch_ns", read ? m->read_first_fetch_ns : m->write_first_fetch_ns,
                          3);
  }
  ps_json_break (j, 6);
  ps_json_key (j, "limited_by");
  if (simultaneous) {
    ps_json_object (j, 0);
    ps_json_key (j, "read");
    ps_report_json_verdict (j, &m->read_verdict);
    ps_json_break (j, 20);
    ps_json_key (j, "write");
    ps_report_json_verdict (j, &m->write_verdict);
    ps_json_end (j);
  } else
    ps_report_json_verdict (j, read ? &m->read_verdict : &m->write_verdict);
  ps_json_break (j, 6);
  ps_json_key (j, "stalls");
  ps_json_object (j, 0);
  for (guint i = 0; i < m->n_transmitters; i++) {
    const PsTransmitter *t = &m->transmitters[i];
    if (i > 0)
      ps_json_break (j, 17);
    ps_json_key (j, t->name);
    ps_json_object (j, 0);
    ps_json_key (j, "busy");
    ps_report_json_shares (j, t->n_busy, t->busy_name, t->busy);
    ps_json_key (j, "idle");
    ps_report_json_shares (j, t->n_idle, t->idle_name, t->idle);
    ps_json_end (j);
  }
  ps_json_end (j);
  ps_json_break (j, 6);
}

/* {"mean": …, "p50": …, "p99": …} in ns, three decimals (one picosecond, exact). */
static void
json_transfer (PsJson *j, const char *key, const PsTransferTimes *t)
{
  ps_json_key (j, key);
  ps_json_object (j, 0);
  ps_json_fixed_member (j, "mean", t->mean_ns, 3);
  ps_json_fixed_member (j, "p50", t->p50_ns, 3);
  ps_json_fixed_member (j, "p99", t->p99_ns, 3);
  ps_json_end (j);
}

/* One mode's members under "results": its figure(s), intervals (--ranges), transfer times, link usage, errors,
 * windows, verdicts and the engine's counts. */
static void
json_mode (PsJson *j, const PsRunResult *r, int i)
{
  const PsModeResult *m = &r->modes[i];
  ps_json_key (j, ps_report_mode_keys[i]);
  ps_json_object (j, 0);
  /* Simultaneous mode moves data both ways at once, so it has two figures and no single "mbps". */
  if (i == PS_SIMULTANEOUS) {
    ps_json_fixed_member (j, "read_mbps", m->read_mbps, 2);
    ps_json_fixed_member (j, "write_mbps", m->write_mbps, 2);
    /* Added keys (schema 1 grows, never renames): the Avalon-MM DMA's reported figures, §2.1 of
     * published-calibration.md — both directions averaged, and writes without the read-request cycles. */
    ps_json_fixed_member (j, "both_directions_mean_mbps", (m->read_mbps + m->write_mbps) / 2, 2);
    /* 0 means the model did not produce the figure: the key is then absent rather than a misleading 0. */
    if (m->write_mbps_excluding_read_requests > 0) {
      ps_json_fixed_member (j, "write_mbps_excluding_read_requests", m->write_mbps_excluding_read_requests, 2);
    }
    /* The steady state over a logic analyser's window (models/workloads/system.h), beside the whole-transfer figures. */
    if (m->peak_valid) {
      ps_json_key (j, "peak");
      ps_json_object (j, 0);
      ps_json_fixed_member (j, "write_mbps", m->peak_write_mbps, 2);
      ps_json_fixed_member (j, "write_mbps_excluding_read_requests", m->peak_write_mbps_excluding_read_requests, 2);
      ps_json_fixed_member (j, "read_mbps", m->peak_read_mbps, 2);
      ps_json_end (j);
    }
  } else {
    ps_json_fixed_member (j, "mbps", m->mbps, 2);
  }
  /* --ranges only, so plain reports keep their bytes. */
  if (r->ranges) {
    ps_json_break (j, 6);
    ps_ranges_json_members (j, r->ranges, PS_RANGE_MODE + 2 * i, i == PS_SIMULTANEOUS ? "read_" : "");
    if (i == PS_SIMULTANEOUS)
      ps_ranges_json_members (j, r->ranges, PS_RANGE_MODE + 2 * i + 1, "write_");
  }
  /* Added keys (issue #14), only for figures timed by software, so counter-timed results keep their bytes. */
  gboolean reads = i == PS_READ || i == PS_PIO_READ, writes = i == PS_WRITE || i == PS_PIO_WRITE;
  if (i == PS_SIMULTANEOUS && m->transfer_read.valid)
    json_transfer (j, "read_transfer_ns", &m->transfer_read);
  if (i == PS_SIMULTANEOUS && m->transfer_write.valid)
    json_transfer (j, "write_transfer_ns", &m->transfer_write);
  if ((reads && m->transfer_read.valid) || (writes && m->transfer_write.valid))
    json_transfer (j, "transfer_ns", reads ? &m->transfer_read : &m->transfer_write);
  ps_json_break (j, 6);
  ps_json_key (j, "link_usage");
  json_directions (j, m, 21);
  /* Only with errors modelled, so error-free results keep their bytes. */
  if (m->has_errors) {
    ps_json_break (j, 6);
    ps_json_key (j, "errors");
    ps_json_object (j, 0);
    ps_json_key (j, "upstream");
    ps_report_json_errors (j, &m->errors_up);
    ps_json_break (j, 17);
    ps_json_key (j, "downstream");
    ps_report_json_errors (j, &m->errors_down);
    ps_json_end (j);
    /* What errors cost in latency: the tail, where replays show (stream workload only). */
    if (isfinite (m->latency_p99_ns))
      ps_json_fixed_member (j, "latency_p99_ns", m->latency_p99_ns, 3);
  }
  ps_json_break (j, 6);
  /* Added keys: the windows each figure and the usage cover (report.h), in ns of simulated time. */
  if (i == PS_SIMULTANEOUS) {
    ps_json_fixed_member (j, "read_window_ns", m->read_window_ns, 3);
    ps_json_fixed_member (j, "write_window_ns", m->write_window_ns, 3);
  } else {
    ps_json_fixed_member (j, "window_ns", reads ? m->read_window_ns : m->write_window_ns, 3);
  }
  ps_json_fixed_member (j, "link_usage_window_ns", m->usage_window_ns, 3);
  ps_json_uint_member (j, "link_usage_windows", m->usage_windows);
  ps_json_break (j, 6);
  json_why (j, m, i == PS_SIMULTANEOUS, i == PS_READ || i == PS_PIO_READ);
  ps_json_uint_member (j, "events", m->events);
  /* Three decimals of a nanosecond are the engine's whole picosecond resolution: the value prints exactly. */
  ps_json_fixed_member (j, "sim_time_ns", m->sim_time_ns, 3);
  ps_json_end (j);
}

/* The microbenchmark's members under "results" (pcie-bench's tests). */
static void
json_microbench (PsJson *j, const PsRunResult *r)
{
  const PsMicrobenchResult *mb = &r->microbench;
  ps_json_key (j, "microbench");
  ps_json_object (j, 0);
  ps_json_string_member (j, "test", mb->test);
  ps_json_int_member (j, "transfer_bytes", mb->transfer_bytes);
  ps_json_fixed_member (j, "gbps", mb->gbps, 3);
  /* The total's two directions over the same window, so they add up to it (bw_rdwr's split, issue #25). */
  ps_json_fixed_member (j, "read_gbps", mb->read_gbps, 3);
  ps_json_fixed_member (j, "write_gbps", mb->write_gbps, 3);
  ps_json_key (j, "latency_ns");
  ps_report_json_latency (j, &mb->latency);
  if (r->ranges) {
    ps_ranges_json_members (j, r->ranges, PS_RANGE_MB_GBPS, "");
    ps_ranges_json_members (j, r->ranges, PS_RANGE_MB_P50, "latency_p50_");
  }
  if (mb->verdict.valid) {
    ps_json_fixed_member (j, "protocol_limit_gbps", mb->limit_gbps, 3);
    ps_json_break (j, 6);
    ps_json_key (j, "limited_by");
    ps_report_json_verdict (j, &mb->verdict);
  }
  ps_json_end (j);
}

/* A device workload's named figures under "results", as one member named after the workload: each figure a member
 * (a latency one as NAME_ns, its distribution), and then the list itself with units, for a reader that knows no
 * workload. */
static void
json_figures (PsJson *j, const PsFiguresResult *fr, const PsRanges *ranges)
{
  ps_json_key (j, fr->workload);
  ps_json_object (j, 0);
  ps_json_string_member (j, "node", fr->node);
  for (guint i = 0; i < fr->n; i++) {
    const PsNamedFigure *f = &fr->fig[i];
    if (f->latency.valid) {
      g_autofree char *k = g_strdup_printf ("%s_ns", f->name);
      ps_json_key (j, k);
      ps_report_json_latency (j, &f->latency);
    } else
      ps_json_fixed_member (j, f->name, f->value, 3);
  }
  ps_json_key (j, "figures");
  ps_json_array (j, 6);
  for (guint i = 0; i < fr->n; i++) {
    const PsNamedFigure *f = &fr->fig[i];
    ps_json_object (j, 0);
    ps_json_string_member (j, "name", f->name);
    ps_json_string_member (j, "unit", f->unit);
    ps_json_fixed_member (j, "value", f->value, 3);
    if (f->latency.valid) {
      ps_json_key (j, "latency_ns");
      ps_report_json_latency (j, &f->latency);
    }
    if (f->verdict.valid) {
      ps_json_key (j, "limited_by");
      ps_report_json_verdict (j, &f->verdict);
    }
    if (ranges)
      ps_ranges_json_members (j, ranges, PS_RANGE_FIG + (int) i, "");
    ps_json_end (j);
  }
  ps_json_end (j);
  ps_json_end (j);
}

/* The published figures are repeated from the config so the file is self-contained: a script compares without
 * reading YAML. Only figures the config gives appear (a partial published: block is legal), and none for a
 * workload that ps_result_figures() does not compare; "comparison" then holds only figures with both values. */
static void
json_published (PsJson *j, const PsRunResult *r)
{
  const PsConfig *c = r->config;
  PsFigure f[PS_N_FIGURES];
  ps_result_figures (r, f);
  ps_json_key (j, "published");
  ps_json_object (j, 0);
  ps_json_string_member (j, "source", c->published.source);
  const char *pk[PS_N_FIGURES] = { "dma_read_mbps", "dma_write_mbps", "simultaneous_read_mbps",
                                   "simultaneous_write_mbps", "peak_write_mbps",
                                   "peak_write_excluding_read_requests_mbps", "peak_read_mbps" };
  for (int i = 0; i < PS_N_FIGURES; i++) {
    if (!isfinite (f[i].published))
      continue;
    ps_json_fixed_member (j, pk[i], f[i].published, 1);
  }
  if (isfinite (c->published.theoretical_mbps)) {
    ps_json_fixed_member (j, "theoretical_mbps", c->published.theoretical_mbps, 1);
  }
  if (c->published.suspect_figures) {
    ps_json_key (j, "suspect");
    ps_json_object (j, 0);
    ps_json_key (j, "figures");
    ps_json_array (j, 0);
    for (int i = 0; i < PS_N_FIGURES; i++)
      if (c->published.suspect_figures & (1u << i))
        ps_json_string (j, ps_figure_words[i]);
    ps_json_end (j);
    ps_json_string_member (j, "reason", c->published.suspect_reason);
    ps_json_end (j);
  }
  g_autofree char *why = ps_result_not_comparable (r);
  ps_json_bool_member (j, "comparable", why == NULL);
  if (why)
    ps_json_string_member (j, "not_comparable", why);
  ps_json_end (j);
  ps_json_key (j, "comparison");
  ps_json_array (j, 4);
  for (int i = 0; i < PS_N_FIGURES; i++) {
    if (!f[i].comparable || !isfinite (f[i].simulated))
      continue;
    ps_json_object (j, 0);
    ps_json_string_member (j, "figure", f[i].key);
    ps_json_fixed_member (j, "simulated_mbps", f[i].simulated, 2);
    ps_json_fixed_member (j, "published_mbps", f[i].published, 1);
    ps_json_fixed_member (j, "error_pct", f[i].error_pct, 2);
    ps_json_fixed_member (j, "protocol_limit_mbps", f[i].limit, 1);
    ps_json_bool_member (j, "above_protocol_limit", f[i].above_limit);
    ps_json_bool_member (j, "suspect", f[i].suspect);
    ps_json_end (j);
  }
  ps_json_end (j);
}

/* Schema 1 (design.md). Keys are written in a fixed order with fixed precision, so the same result always gives
 * the same bytes; wall time, the one nondeterministic value, appears only when the caller asks for it. */
void
ps_report_render_json (GString *o, const PsRunResult *r, gboolean with_wall)
{
  const PsConfig *c = r->config;
  PsJson j;
  ps_json_init (&j, o);
  ps_json_object (&j, 2);
  /* The version lets a script refuse to compare results of different builds. The config path is written as
   * given, not made absolute, so the bytes do not depend on where the checkout lives. "model" says which
   * workload produced the figures, which decides whether they are compared with the published ones at all. */
  ps_json_int_member (&j, "schema", 1);
  ps_json_string_member (&j, "version", PCIESIM_VERSION);
  ps_json_string_member (&j, "config", c->path);
  ps_json_string_member (&j, "name", c->name);
  ps_json_string_member (&j, "model", r->model);
  /* With the resolved config below, the seed makes the file a complete statement of what was run. */
  ps_json_uint_member (&j, "seed", r->seed);
  /* A summary of the link, not the whole config: "config" names the file that holds the rest. A fabric has no
   * one link: its links[] carry their own (issue #26), and the file-wide defaults would describe none of them. */
  if (!r->fabric.ran) {
    ps_json_key (&j, "link");
    ps_json_object (&j, 0);
    const char *link_keys[] = { "gen", "lanes", "max_payload", "max_read_request", "read_completion_boundary" };
    const int64_t link_values[] = { c->link.gen, c->link.lanes, c->link.max_payload, c->link.max_read_request,
                                    c->link.read_completion_boundary };
    for (int i = 0; i < 5; i++) {
      ps_json_int_member (&j, link_keys[i], link_values[i]);
    }
    ps_json_end (&j);
    ps_json_fixed_member (&j, "theoretical_mbps", r->theoretical_mbps, 1);
    ps_json_fixed_member (&j, "protocol_limit_mbps", r->protocol_limit_mbps, 1);
    ps_json_fixed_member (&j, "protocol_limit_read_mbps", r->protocol_limit_read_mbps, 1);
  }
  /* A mode that did not run is left out, not written as null: whether a key exists is how a script tells which
   * modes ran (docs/output.md: "A mode that was not run is absent from results"). */
  ps_json_key (&j, "results");
  ps_json_object (&j, 4);
  for (int i = 0; i < PS_N_MODES; i++)
    if (r->modes[i].ran)
      json_mode (&j, r, i);
  if (r->microbench.ran)
    json_microbench (&j, r);
  if (r->figures.ran)
    json_figures (&j, &r->figures, r->ranges);
  ps_json_end (&j);
  if (r->ranges)
    ps_ranges_json_assumptions (&j, r->ranges, c);

  const PsModeResult *h = ps_report_headline_mode (r);
  if (h) {
    ps_json_key (&j, "link_usage");
    json_directions (&j, h, 17);
  } else if (r->microbench.ran || r->figures.ran) {
    PsModeResult u = { .upstream = r->microbench.ran ? r->microbench.upstream : r->figures.upstream,
                       .downstream = r->microbench.ran ? r->microbench.downstream : r->figures.downstream };
    ps_json_key (&j, "link_usage");
    json_directions (&j, &u, 17);
  }
  if (r->fabric.ran)
    ps_report_fabric_json (&j, &r->fabric, r->ranges);

  if (c->published.present)
    json_published (&j, r);

  /* Every key, its value and where it came from: the file alone would not say what a --set or a default made of
   * it. */
  ps_json_key (&j, "resolved_config");
  ps_config_write_json (c, &j, 4);

  /* stats sum over modes: each mode ran on its own engine, so events and simulated time add up. */
  uint64_t events = r->fabric.events + r->microbench.events + r->figures.events;
  double sim_ns = r->fabric.sim_time_ns + r->microbench.sim_time_ns + r->figures.sim_time_ns;
  for (int i = 0; i < PS_N_MODES; i++) {
    events += r->modes[i].events;
    sim_ns += r->modes[i].sim_time_ns;
  }
  ps_json_key (&j, "stats");
  ps_json_object (&j, 0);
  ps_json_uint_member (&j, "events", events);
  ps_json_fixed_member (&j, "sim_time_ns", sim_ns, 3);
  /* wall_s is the one value that differs between two identical runs (docs/output.md's only exception to byte-identical
   * output), so it comes last and only when the caller asks for it. */
  if (with_wall) {
    ps_json_fixed_member (&j, "wall_s", r->wall_s, 3);
  }
  ps_json_end (&j);
  ps_json_end (&j);
}

