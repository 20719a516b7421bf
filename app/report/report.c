/* report.c — table, CSV, Markdown and JSON renderings of a PsRunResult.
 *
 * Every format's comparison comes from ps_result_figures(), so which figures are compared, which are flagged and
 * what their error is cannot differ between the table a person reads and the JSON a script reads. Numbers are
 * printed with a fixed precision per field (format.h writes them; the table's padded columns use printf, whose
 * decimal point follows LC_NUMERIC, which main() pins to "C"). CSV columns and JSON keys are what scripts rely
 * on (docs/output.md, "Output formats"); JSON keys of schema 1 are only ever added, never renamed.
 *
 * About 910 lines, one file on purpose: every format of the one-link report comes from ps_result_figures()
 * here, so the table and the JSON cannot disagree; a fabric's flows and links are report_fabric.c's.
 */
#include "app/report/report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app/base/error.h"
#include "pciesim-version.h"
#include "app/report/report_ranges.h"
#include "app/report/report_fabric.h"

/* A figure whose mode did not run stays in the array with a NaN simulated value, so a position means the same
 * figure for every caller (render_json() pairs positions with the published keys). */
int
ps_result_figures (const PsRunResult *r, PsFigure out[PS_N_FIGURES])
{
  const PsConfig *c = r->config;
  const PsModeResult *m = r->modes;
  const gboolean sim = m[PS_SIMULTANEOUS].ran;
  /* The stream workload has no DMA engine: its rows say what ran (issue #26). */
  const gboolean stream = c->benchmark.workload == PS_WORKLOAD_STREAM;
  out[0] = (PsFigure) { .label = stream ? "Stream read" : "DMA read", .key = "read",
                        .simulated = m[PS_READ].ran ? m[PS_READ].mbps : NAN, .published = c->published.dma_read_mbps };
  out[1] = (PsFigure) { .label = stream ? "Stream write" : "DMA write", .key = "write",
                        .simulated = m[PS_WRITE].ran ? m[PS_WRITE].mbps : NAN, .published = c->published.dma_write_mbps };
  out[2] = (PsFigure) { .label = "Simultaneous read", .key = "simultaneous_read",
                        .simulated = sim ? m[PS_SIMULTANEOUS].read_mbps : NAN,
                        .published = c->published.simultaneous_read_mbps };
  out[3] = (PsFigure) { .label = "Simultaneous write", .key = "simultaneous_write",
                        .simulated = sim ? m[PS_SIMULTANEOUS].write_mbps : NAN,
                        .published = c->published.simultaneous_write_mbps };
  /* The window figures exist only for a simultaneous run of two or more transfers (models/workloads/system.h). */
  const gboolean peak = sim && m[PS_SIMULTANEOUS].peak_valid;
  out[4] = (PsFigure) { .label = "Peak write", .key = "peak_write",
                        .simulated = peak ? m[PS_SIMULTANEOUS].peak_write_mbps : NAN,
                        .published = c->published.peak_write_mbps };
  out[5] = (PsFigure) { .label = "Peak write excl. MRd", .key = "peak_write_excluding_read_requests",
                        .simulated = peak ? m[PS_SIMULTANEOUS].peak_write_mbps_excluding_read_requests : NAN,
                        .published = c->published.peak_write_excluding_read_requests_mbps };
  out[6] = (PsFigure) { .label = "Peak read", .key = "peak_read",
                        .simulated = peak ? m[PS_SIMULTANEOUS].peak_read_mbps : NAN,
                        .published = c->published.peak_read_mbps };
  out[7] = (PsFigure) { .label = "PIO read", .key = "pio_read",
                        .simulated = m[PS_PIO_READ].ran ? m[PS_PIO_READ].mbps : NAN, .published = NAN };
  out[8] = (PsFigure) { .label = "PIO write", .key = "pio_write",
                        .simulated = m[PS_PIO_WRITE].ran ? m[PS_PIO_WRITE].mbps : NAN, .published = NAN };
  /* The error is computed for flagged figures too: JSON and validate print it beside the flag, and only the
   * statistics leave it out. `published > 0` keeps a published 0 (a legal key value) from dividing by zero. */
  const gboolean changed = ps_config_set_changes (c) != NULL;
  for (int i = 0; i < PS_N_FIGURES; i++) {
    PsFigure *f = &out[i];
    /* Read figures (0, 2, the peak read 6 and PIO read 7) move data in completions, write figures (1, 3, 4, 5, 8)
     * in posted writes. */
    f->limit = i == 0 || i == 2 || i == 6 || i == 7 ? r->protocol_limit_read_mbps : r->protocol_limit_mbps;
    /* Published figures are DMA benchmark results: a run of another workload (the bare streaming source) is not
     * comparable with them. */
    if (strcmp (r->model, "chaining-dma") != 0)
      f->published = NAN;
    /* A window figure is shown only to be compared: JSON's results.simultaneous.peak carries it anyway. */
    if (i >= 4 && i <= 6 && !isfinite (f->published))
      f->simulated = NAN;
    /* A --set that changed the system leaves the figure in place (the report shows why it is not compared) but
     * neither scores nor flags it: this run's protocol limit is another link's. */
    f->comparable = isfinite (f->published) && !changed;
    /* The config's judgement on its own data (published.suspect), carried to every format with its reason. */
    f->suspect = f->comparable && (c->published.suspect_figures & (1u << i)) != 0;
    f->suspect_reason = f->suspect ? c->published.suspect_reason : NULL;
    /* A measurement above what the protocol can carry is an artifact: no honest model matches it. */
    f->above_limit = f->comparable && isfinite (f->limit) && f->published > f->limit;
    f->error_pct = f->comparable && isfinite (f->simulated) && f->published > 0
                       ? (f->simulated - f->published) / f->published * 100.0
                       : NAN;
  }
  return PS_N_FIGURES;
}

char *
ps_result_not_comparable (const PsRunResult *r)
{
  const char *changes = ps_config_set_changes (r->config);
  if (!r->config->published.present || !changes)
    return NULL;
  return g_strdup_printf ("config changed by --set %s", changes);
}

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

/* results.MODE.errors of one direction (and links[].errors of a fabric): the LinkErrors counts (docs/output.md,
 * "Output formats"). */
void
ps_report_json_errors (PsJson *j, const PsLinkErrors *e)
{
  ps_json_object (j, 0);
  const char *names[] = { "tlp_errors", "dllp_errors", "naks", "replays", "replay_timeouts", "retrains",
                          "replayed_tlps", "replayed_bytes", "flit_errors", "framing_errors" };
  const uint64_t v[] = { e->tlp_errors, e->dllp_errors, e->naks, e->replays, e->replay_timeouts, e->retrains,
                         e->replayed_tlps, e->replayed_bytes, e->flit_errors, e->framing_errors };
  for (size_t i = 0; i < G_N_ELEMENTS (v); i++)
    ps_json_uint_member (j, names[i], v[i]);
  ps_json_end (j);
}

/* --- why (docs/why.md) ----------------------------------------------------------------------------------------- */

/* {"mean": …, "p50": …, "p99": …, "max": …, "count": N}: ns with the engine's picosecond resolution. */
void
ps_report_json_latency (PsJson *j, const PsLatency *l)
{
  ps_json_object (j, 0);
  ps_json_fixed_member (j, "mean", l->mean_ns, 3);
  ps_json_fixed_member (j, "p50", l->p50_ns, 3);
  ps_json_fixed_member (j, "p99", l->p99_ns, 3);
  ps_json_fixed_member (j, "max", l->max_ns, 3);
  ps_json_uint_member (j, "count", l->count);
  ps_json_end (j);
}

static void
json_shares (PsJson *j, guint n, const char *const *names, const double *v)
{
  ps_json_object (j, 0);
  for (guint k = 0; k < n; k++)
    ps_json_fixed_member (j, names[k], v[k], 6);
  ps_json_end (j);
}

/* A figure's verdict; bound_mbps is null where no formula applies (the link: its limit is protocol_limit_mbps). */
void
ps_report_json_verdict (PsJson *j, const PsVerdict *v)
{
  ps_json_object (j, 0);
  ps_json_string_member (j, "cause", v->cause);
  ps_json_fixed_member (j, "share", v->share, 6);
  ps_json_fixed_member (j, "bound_mbps", v->bound_mbps, 2);
  ps_json_fixed_member (j, "protocol_limit_mbps", v->link_mbps, 1);
  ps_json_string_member (j, "next", v->next);
  ps_json_fixed_member (j, "next_share", v->next_share, 6);
  ps_json_string_member (j, "verdict", v->text);
  /* The figure's window split (docs/why.md): the floor and each cause's share add up to 1. */
  ps_json_fixed_member (j, "floor", v->floor, 6);
  ps_json_key (j, "path");
  json_shares (j, v->n_path, v->path_name, v->path);
  if (v->has_software) {
    ps_json_key (j, "software_ns");
    ps_json_object (j, 0);
    for (int k = 0; k < PS_SW_PHASES; k++)
      ps_json_fixed_member (j, v->software_name[k], v->software_ns[k], 3);
    ps_json_end (j);
  }
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
    json_shares (j, t->n_busy, t->busy_name, t->busy);
    ps_json_key (j, "idle");
    json_shares (j, t->n_idle, t->idle_name, t->idle);
    ps_json_end (j);
  }
  ps_json_end (j);
  ps_json_break (j, 6);
}

/* The mode whose link usage is shown at top level: the busiest one run. Table and JSON both use this, so the
 * breakdown a reader sees and the one a script reads are always of the same mode. */
static const PsModeResult *
headline_mode (const PsRunResult *r)
{
  static const int order[] = { PS_SIMULTANEOUS, PS_WRITE, PS_READ, PS_PIO_WRITE, PS_PIO_READ };
  for (int i = 0; i < 5; i++)
    if (r->modes[order[i]].ran)
      return &r->modes[order[i]];
  return NULL;
}

/* The JSON keys under "results": the same words as --mode, so a script can index the results by what it asked. */
static const char *const mode_keys[PS_N_MODES] = { "read", "write", "simultaneous", "pio_read", "pio_write" };

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

/* Schema 1 (design.md). Keys are written in a fixed order with fixed precision, so the same result always gives
 * the same bytes; wall time, the one nondeterministic value, appears only when the caller asks for it. */
static void
render_json (GString *o, const PsRunResult *r, gboolean with_wall)
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
  for (int i = 0; i < PS_N_MODES; i++) {
    const PsModeResult *m = &r->modes[i];
    if (!m->ran)
      continue;
    ps_json_key (&j, mode_keys[i]);
    ps_json_object (&j, 0);
    /* Simultaneous mode moves data both ways at once, so it has two figures and no single "mbps". */
    if (i == PS_SIMULTANEOUS) {
      ps_json_fixed_member (&j, "read_mbps", m->read_mbps, 2);
      ps_json_fixed_member (&j, "write_mbps", m->write_mbps, 2);
      /* Added keys (schema 1 grows, never renames): the Avalon-MM DMA's reported figures, §2.1 of
       * published-calibration.md — both directions averaged, and writes without the read-request cycles. */
      ps_json_fixed_member (&j, "both_directions_mean_mbps", (m->read_mbps + m->write_mbps) / 2, 2);
      /* 0 means the model did not produce the figure: the key is then absent rather than a misleading 0. */
      if (m->write_mbps_excluding_read_requests > 0) {
        ps_json_fixed_member (&j, "write_mbps_excluding_read_requests", m->write_mbps_excluding_read_requests, 2);
      }
      /* The steady state over a logic analyser's window (models/workloads/system.h), beside the whole-transfer figures. */
      if (m->peak_valid) {
        ps_json_key (&j, "peak");
        ps_json_object (&j, 0);
        ps_json_fixed_member (&j, "write_mbps", m->peak_write_mbps, 2);
        ps_json_fixed_member (&j, "write_mbps_excluding_read_requests", m->peak_write_mbps_excluding_read_requests, 2);
        ps_json_fixed_member (&j, "read_mbps", m->peak_read_mbps, 2);
        ps_json_end (&j);
      }
    } else {
      ps_json_fixed_member (&j, "mbps", m->mbps, 2);
    }
    /* --ranges only, so plain reports keep their bytes. */
    if (r->ranges) {
      ps_json_break (&j, 6);
      ps_ranges_json_members (&j, r->ranges, PS_RANGE_MODE + 2 * i, i == PS_SIMULTANEOUS ? "read_" : "");
      if (i == PS_SIMULTANEOUS)
        ps_ranges_json_members (&j, r->ranges, PS_RANGE_MODE + 2 * i + 1, "write_");
    }
    /* Added keys (issue #14), only for figures timed by software, so counter-timed results keep their bytes. */
    gboolean reads = i == PS_READ || i == PS_PIO_READ, writes = i == PS_WRITE || i == PS_PIO_WRITE;
    if (i == PS_SIMULTANEOUS && m->transfer_read.valid)
      json_transfer (&j, "read_transfer_ns", &m->transfer_read);
    if (i == PS_SIMULTANEOUS && m->transfer_write.valid)
      json_transfer (&j, "write_transfer_ns", &m->transfer_write);
    if ((reads && m->transfer_read.valid) || (writes && m->transfer_write.valid))
      json_transfer (&j, "transfer_ns", reads ? &m->transfer_read : &m->transfer_write);
    ps_json_break (&j, 6);
    ps_json_key (&j, "link_usage");
    json_directions (&j, m, 21);
    /* Only with errors modelled, so error-free results keep their bytes. */
    if (m->has_errors) {
      ps_json_break (&j, 6);
      ps_json_key (&j, "errors");
      ps_json_object (&j, 0);
      ps_json_key (&j, "upstream");
      ps_report_json_errors (&j, &m->errors_up);
      ps_json_break (&j, 17);
      ps_json_key (&j, "downstream");
      ps_report_json_errors (&j, &m->errors_down);
      ps_json_end (&j);
      /* What errors cost in latency: the tail, where replays show (stream workload only). */
      if (isfinite (m->latency_p99_ns))
        ps_json_fixed_member (&j, "latency_p99_ns", m->latency_p99_ns, 3);
    }
    ps_json_break (&j, 6);
    /* Added keys: the windows each figure and the usage cover (report.h), in ns of simulated time. */
    if (i == PS_SIMULTANEOUS) {
      ps_json_fixed_member (&j, "read_window_ns", m->read_window_ns, 3);
      ps_json_fixed_member (&j, "write_window_ns", m->write_window_ns, 3);
    } else {
      ps_json_fixed_member (&j, "window_ns", reads ? m->read_window_ns : m->write_window_ns, 3);
    }
    ps_json_fixed_member (&j, "link_usage_window_ns", m->usage_window_ns, 3);
    ps_json_uint_member (&j, "link_usage_windows", m->usage_windows);
    ps_json_break (&j, 6);
    json_why (&j, m, i == PS_SIMULTANEOUS, i == PS_READ || i == PS_PIO_READ);
    ps_json_uint_member (&j, "events", m->events);
    /* Three decimals of a nanosecond are the engine's whole picosecond resolution: the value prints exactly. */
    ps_json_fixed_member (&j, "sim_time_ns", m->sim_time_ns, 3);
    ps_json_end (&j);
  }
  if (r->microbench.ran) {
    const PsMicrobenchResult *mb = &r->microbench;
    ps_json_key (&j, "microbench");
    ps_json_object (&j, 0);
    ps_json_string_member (&j, "test", mb->test);
    ps_json_int_member (&j, "transfer_bytes", mb->transfer_bytes);
    ps_json_fixed_member (&j, "gbps", mb->gbps, 3);
    /* The total's two directions over the same window, so they add up to it (bw_rdwr's split, issue #25). */
    ps_json_fixed_member (&j, "read_gbps", mb->read_gbps, 3);
    ps_json_fixed_member (&j, "write_gbps", mb->write_gbps, 3);
    ps_json_key (&j, "latency_ns");
    ps_report_json_latency (&j, &mb->latency);
    if (r->ranges) {
      ps_ranges_json_members (&j, r->ranges, PS_RANGE_MB_GBPS, "");
      ps_ranges_json_members (&j, r->ranges, PS_RANGE_MB_P50, "latency_p50_");
    }
    if (mb->verdict.valid) {
      ps_json_fixed_member (&j, "protocol_limit_gbps", mb->limit_gbps, 3);
      ps_json_break (&j, 6);
      ps_json_key (&j, "limited_by");
      ps_report_json_verdict (&j, &mb->verdict);
    }
    ps_json_end (&j);
  }
  ps_json_end (&j);
  if (r->ranges)
    ps_ranges_json_assumptions (&j, r->ranges, c);

  const PsModeResult *h = headline_mode (r);
  if (h) {
    ps_json_key (&j, "link_usage");
    json_directions (&j, h, 17);
  } else if (r->microbench.ran) {
    PsModeResult u = { .upstream = r->microbench.upstream, .downstream = r->microbench.downstream };
    ps_json_key (&j, "link_usage");
    json_directions (&j, &u, 17);
  }
  if (r->fabric.ran)
    ps_report_fabric_json (&j, &r->fabric, r->ranges);

  /* The published figures are repeated from the config so the file is self-contained: a script compares without
   * reading YAML. Only figures the config gives appear (a partial published: block is legal), and none for a
   * workload that ps_result_figures() does not compare; "comparison" then holds only figures with both values. */
  if (c->published.present) {
    PsFigure f[PS_N_FIGURES];
    ps_result_figures (r, f);
    ps_json_key (&j, "published");
    ps_json_object (&j, 0);
    ps_json_string_member (&j, "source", c->published.source);
    const char *pk[PS_N_FIGURES] = { "dma_read_mbps", "dma_write_mbps", "simultaneous_read_mbps",
                                     "simultaneous_write_mbps", "peak_write_mbps",
                                     "peak_write_excluding_read_requests_mbps", "peak_read_mbps" };
    for (int i = 0; i < PS_N_FIGURES; i++) {
      if (!isfinite (f[i].published))
        continue;
      ps_json_fixed_member (&j, pk[i], f[i].published, 1);
    }
    if (isfinite (c->published.theoretical_mbps)) {
      ps_json_fixed_member (&j, "theoretical_mbps", c->published.theoretical_mbps, 1);
    }
    if (c->published.suspect_figures) {
      ps_json_key (&j, "suspect");
      ps_json_object (&j, 0);
      ps_json_key (&j, "figures");
      ps_json_array (&j, 0);
      for (int i = 0; i < PS_N_FIGURES; i++)
        if (c->published.suspect_figures & (1u << i))
          ps_json_string (&j, ps_figure_words[i]);
      ps_json_end (&j);
      ps_json_string_member (&j, "reason", c->published.suspect_reason);
      ps_json_end (&j);
    }
    g_autofree char *why = ps_result_not_comparable (r);
    ps_json_bool_member (&j, "comparable", why == NULL);
    if (why)
      ps_json_string_member (&j, "not_comparable", why);
    ps_json_end (&j);
    ps_json_key (&j, "comparison");
    ps_json_array (&j, 4);
    for (int i = 0; i < PS_N_FIGURES; i++) {
      if (!f[i].comparable || !isfinite (f[i].simulated))
        continue;
      ps_json_object (&j, 0);
      ps_json_string_member (&j, "figure", f[i].key);
      ps_json_fixed_member (&j, "simulated_mbps", f[i].simulated, 2);
      ps_json_fixed_member (&j, "published_mbps", f[i].published, 1);
      ps_json_fixed_member (&j, "error_pct", f[i].error_pct, 2);
      ps_json_fixed_member (&j, "protocol_limit_mbps", f[i].limit, 1);
      ps_json_bool_member (&j, "above_protocol_limit", f[i].above_limit);
      ps_json_bool_member (&j, "suspect", f[i].suspect);
      ps_json_end (&j);
    }
    ps_json_end (&j);
  }

  /* Every key, its value and where it came from: the file alone would not say what a --set or a default made of
   * it. */
  ps_json_key (&j, "resolved_config");
  ps_config_write_json (c, &j, 4);

  /* stats sum over modes: each mode ran on its own engine, so events and simulated time add up. */
  uint64_t events = r->fabric.events + r->microbench.events;
  double sim_ns = r->fabric.sim_time_ns + r->microbench.sim_time_ns;
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

/* A table cell: the number with one decimal and a suffix, a leading sign when `sign`, or "-" when absent. The
 * dash keeps the columns aligned where CSV leaves an empty cell and JSON writes null for parsers. */
static void
fmt_cell (char *buf, size_t n, double v, gboolean sign, const char *suffix)
{
  if (isfinite (v))
    g_snprintf (buf, n, sign ? "%+.1f%s" : "%.1f%s", v, suffix);
  else
    g_strlcpy (buf, "-", n);
}

/* The values of the table's two header lines that nobody gave, and whether any host key was given: a run of a
 * hand-written config should not pass off the key table's defaults as a device's or a host's (issue #12 item 7).
 * Nothing is printed when the files gave them all, as every shipped row does. Then the blank line before the
 * figures. */
void
ps_report_defaults_line (GString *o, const PsConfig *c, const char *const *shown)
{
  g_autoptr (GString) plain = g_string_new (NULL), ruled = g_string_new (NULL);
  const char *rule = NULL;
  for (const char *const *k = shown; *k; k++) {
    const PsKeyOrigin *origin = ps_config_origin (c, *k);
    if (origin->from != PS_FROM_DEFAULT)
      continue;
    g_autofree char *v = ps_config_value_text (c, *k);
    GString *to = origin->rule ? ruled : plain;
    g_string_append_printf (to, "%s%s %s", to->len ? ", " : "", *k, v);
    if (origin->rule)
      rule = origin->rule;
  }
  gboolean host_given = FALSE;
  for (const char *const *k = ps_config_keys (); *k && !host_given; k++)
    host_given = g_str_has_prefix (*k, "host.") && ps_config_origin (c, *k)->from != PS_FROM_DEFAULT;
  if (plain->len || ruled->len || !host_given) {
    g_string_append (o, "defaults (not given):");
    if (plain->len)
      g_string_append_printf (o, " %s;", plain->str);
    if (ruled->len)
      g_string_append_printf (o, " %s (%s);", ruled->str, rule);
    if (!host_given)
      g_string_append (o, " every host.* key (no host file; configs/hosts/ideal.yaml is a host that never limits);");
    g_string_truncate (o, o->len - 1);
    g_string_append_c (o, '\n');
  }
  g_string_append_c (o, '\n');
}

/* "3697.6 MB/s" when reads and writes share a limit (32-bit addresses), else both: with 64-bit addresses the
 * writes' 4-DW MWr headers cost more wire than the reads' 3-DW completions (docs/output.md, on the protocol limit). */
static void
append_limits (GString *o, const PsRunResult *r)
{
  if (r->protocol_limit_mbps == r->protocol_limit_read_mbps)
    g_string_append_printf (o, "%.1f MB/s", r->protocol_limit_mbps);
  else
    g_string_append_printf (o, "%.1f MB/s write, %.1f MB/s read", r->protocol_limit_mbps,
                            r->protocol_limit_read_mbps);
}

/* The verdict under figure i of ps_result_figures(): the four DMA figures and the two PIO figures. */
static const PsVerdict *
figure_verdict (const PsRunResult *r, int i)
{
  switch (i) {
  case 0: return &r->modes[PS_READ].read_verdict;
  case 1: return &r->modes[PS_WRITE].write_verdict;
  case 2: return &r->modes[PS_SIMULTANEOUS].read_verdict;
  case 3: return &r->modes[PS_SIMULTANEOUS].write_verdict;
  case 7: return &r->modes[PS_PIO_READ].read_verdict;
  case 8: return &r->modes[PS_PIO_WRITE].write_verdict;
  default: return NULL;
  }
}

static void
table_latency (GString *o, const char *what, const PsLatency *l)
{
  if (l->valid)
    g_string_append_printf (o, "  %-30s %8" G_GUINT64_FORMAT " %9.1f %9.1f %9.1f %9.1f\n", what, l->count, l->mean_ns,
                            l->p50_ns, l->p99_ns, l->max_ns);
}

/* The headline mode's latencies and every transmitter's time: busy, then its idle causes, largest first. */
static void
table_why (GString *o, const PsModeResult *h, const char *mode)
{
  /* A PIO figure's verdict is under its row; it has no DMA workload's latencies and transmitters. */
  if ((!h->read_verdict.valid && !h->write_verdict.valid) || h->n_transmitters == 0)
    return;
  g_string_append_printf (o, "latency (%s mode), ns%*s count      mean       p50       p99       max\n", mode,
                          (int) (20 - strlen (mode)), "");
  table_latency (o, "read round trip per MRd", &h->read_latency);
  table_latency (o, "posted write, one way", &h->write_latency);
  double fetch = h->read_verdict.valid ? h->read_first_fetch_ns : h->write_first_fetch_ns;
  if (h->read_verdict.valid && h->write_verdict.valid)
    g_string_append_printf (o, "  first descriptor fetch         %9.1f (read engine), %.1f (write engine)\n",
                            h->read_first_fetch_ns, h->write_first_fetch_ns);
  else
    g_string_append_printf (o, "  first descriptor fetch         %9.1f\n", fetch);
  g_string_append_printf (o, "time by transmitter (%s mode)   busy  idle by cause\n", mode);
  for (guint i = 0; i < h->n_transmitters; i++) {
    const PsTransmitter *t = &h->transmitters[i];
    double busy = 0;
    for (guint k = 0; k < t->n_busy; k++)
      busy += t->busy[k];
    g_string_append_printf (o, "  %-28s %6.2f%%", t->name, busy * 100);
    /* Largest first; equal shares keep the causes' order. */
    gboolean used[PS_MAX_CAUSES] = { FALSE };
    guint shown = 0;
    for (guint n = 0; n < t->n_idle; n++) {
      int best = -1;
      for (guint k = 0; k < t->n_idle; k++)
        if (!used[k] && (best < 0 || t->idle[k] > t->idle[best]))
          best = (int) k;
      used[best] = TRUE;
      if (t->idle[best] < 0.0005)
        break;
      g_string_append_printf (o, "%s %s %.1f%%", shown++ ? "," : " ", t->idle_name[best], t->idle[best] * 100);
    }
    g_string_append_c (o, '\n');
  }
}

/* A microbench run as pcie-bench reports it: the test and its parameters, then Gb/s and the latency
 * distribution of its DMAs. */
static void
microbench_table (GString *o, const PsRunResult *r, gboolean markdown)
{
  const PsConfig *c = r->config;
  const PsMicrobenchResult *mb = &r->microbench;
  const PsLatency *l = &mb->latency;
  static const char *const offsets[] = { "sequential", "random" };
  /* microbench.cache's words, in PsMicrobenchCache order. */
  static const char *const cache[] = { "warm", "cold", "device_warm", "device_thrash" };
  G_STATIC_ASSERT (G_N_ELEMENTS (cache) == PS_MB_DEVICE_THRASH + 1);
  if (!markdown) {
    g_string_append_printf (o, "%s: %s, Gen%" G_GINT64_FORMAT " x%" G_GINT64_FORMAT ", microbench %s: %" G_GINT64_FORMAT
                            " DMAs of %" G_GINT64_FORMAT " bytes in a %" G_GINT64_FORMAT "-byte window, %s offsets, "
                            "%s cache, %" G_GINT64_FORMAT " in flight\n", c->path, c->name, c->link.gen, c->link.lanes,
                            mb->test, c->microbench.dmas, mb->transfer_bytes, c->microbench.window_bytes,
                            offsets[c->microbench.offsets], cache[c->microbench.cache],
                            c->microbench.test <= PS_MB_LAT_WRRD || c->microbench.test >= PS_MB_LAT_CMD_RD
                                ? (int64_t) 1 : c->microbench.outstanding);
    g_string_append (o, "test        bytes      Gb/s   read Gb/s  write Gb/s   mean ns    p50 ns    p99 ns    max ns\n");
    g_string_append_printf (o, "%-9s %7" G_GINT64_FORMAT " %9.3f %11.3f %11.3f %9.1f %9.1f %9.1f %9.1f\n", mb->test,
                            mb->transfer_bytes, mb->gbps, mb->read_gbps, mb->write_gbps, l->mean_ns, l->p50_ns,
                            l->p99_ns, l->max_ns);
    /* The verdict, and the protocol limit beside the figure: the test's TLPs on this link. */
    if (mb->verdict.valid)
      g_string_append_printf (o, "  protocol limit %.3f Gb/s; %s\n", mb->limit_gbps, mb->verdict.text);
  } else {
    g_string_append (o, "| test | bytes | Gb/s | read Gb/s | write Gb/s | mean ns | p50 ns | p99 ns | max ns |\n"
                        "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    g_string_append_printf (o, "| %s | %" G_GINT64_FORMAT " | %.3f | %.3f | %.3f | %.1f | %.1f | %.1f | %.1f |\n",
                            mb->test, mb->transfer_bytes, mb->gbps, mb->read_gbps, mb->write_gbps, l->mean_ns,
                            l->p50_ns, l->p99_ns, l->max_ns);
  }
}

/* The human table: one line per figure that ran, then the headline mode's link usage per direction. Markdown
 * shares the figure rows so the manual's tables (docs/) and terminal output cannot disagree. */
static void
render_table (GString *o, const PsRunResult *r, gboolean markdown)
{
  const PsConfig *c = r->config;
  if (r->fabric.ran) {
    ps_report_fabric_table (o, c, &r->fabric, markdown);
    return;
  }
  if (r->microbench.ran) {
    microbench_table (o, r, markdown);
    return;
  }
  PsFigure f[PS_N_FIGURES];
  ps_result_figures (r, f);
  /* The two header lines name the parameters that decide the figures, so a table pasted into a bug report or a
   * mail still says what was simulated. */
  if (!markdown) {
    /* Flit mode and a bit error rate change every figure, so they are named when on (and only then, so other
     * headers keep their text). */
    g_autofree char *extra = g_strdup_printf ("%s%s", c->link.gen == 6 || c->link.flit_mode ? " flit mode" : "",
                                              c->link.ber > 0 ? " with errors" : "");
    g_string_append_printf (o, "%s — Gen%" G_GINT64_FORMAT " x%" G_GINT64_FORMAT "%s%s, MPS %" G_GINT64_FORMAT
                               ", MRRS %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT " tags, %" G_GINT64_FORMAT
                               "-bit @ %g MHz (%s)\n",
                            c->name, c->link.gen, c->link.lanes, *extra ? "," : "", extra, c->link.max_payload,
                            c->link.max_read_request, c->endpoint.tags, c->endpoint.datapath_bits,
                            c->endpoint.clock_mhz, r->model);
    g_string_append_printf (o, "%" G_GINT64_FORMAT " bytes x %" G_GINT64_FORMAT
                               " iterations; theoretical %.1f MB/s, protocol limit ",
                            c->benchmark.transfer_bytes, c->benchmark.iterations, r->theoretical_mbps);
    append_limits (o, r);
    g_string_append_c (o, '\n');
    static const char *const shown[] = { "link.max_payload", "link.max_read_request", "endpoint.tags",
                                         "benchmark.transfer_bytes", "benchmark.iterations", "endpoint.datapath_bits",
                                         "endpoint.clock_mhz", NULL };
    ps_report_defaults_line (o, c, shown);
    g_string_append (o, "figure               simulated  published  theoretical  %theor.   error\n");
  } else {
    g_string_append (o, "| figure | simulated MB/s | published MB/s | theoretical MB/s | % of theoretical | error |\n");
    g_string_append (o, "|---|---:|---:|---:|---:|---:|\n");
  }
  gboolean flagged = FALSE, suspect = FALSE;
  /* Figures of modes that did not run are left out, not shown as "-": `--mode read` prints one row. */
  for (int i = 0; i < PS_N_FIGURES; i++) {
    if (!isfinite (f[i].simulated))
      continue;
    char sim[32], pub[32], pct[32], err[40];
    fmt_cell (sim, sizeof sim, f[i].simulated, FALSE, "");
    fmt_cell (pub, sizeof pub, f[i].comparable ? f[i].published : NAN, FALSE, "");
    /* "%theor." is against the vendor's theoretical maximum, the number AN-456 readers already know, not against
     * the protocol limit (the header line gives both). */
    fmt_cell (pct, sizeof pct, isfinite (f[i].simulated) ? f[i].simulated / r->theoretical_mbps * 100 : NAN,
              FALSE, "%");
    fmt_cell (err, sizeof err, f[i].error_pct, TRUE, "%");
    /* The flag replaces the error rather than following it, so nobody reads a measurement artifact's error as the
     * model's; the footnote below says why. */
    if (f[i].above_limit) {
      g_strlcpy (err, "flagged*", sizeof err);
      flagged = TRUE;
    } else if (f[i].suspect) {
      /* The error stays readable, marked: a suspect figure is the config's judgement, not a physical bound. */
      g_strlcat (err, "†", sizeof err);
      suspect = TRUE;
    }
    if (markdown)
      g_string_append_printf (o, "| %s | %s | %s | %.1f | %s | %s |\n", f[i].label, sim, pub, r->theoretical_mbps,
                              pct, err);
    else {
      /* Widths count bytes: a multi-byte mark (the suspect dagger) widens its field so the columns stay aligned. */
      g_string_append_printf (o, "%-20s %9s  %9s  %11.1f  %7s  %*s\n", f[i].label, sim, pub, r->theoretical_mbps,
                              pct, (int) (7 + strlen (err) - g_utf8_strlen (err, -1)), err);
      const PsVerdict *v = figure_verdict (r, i);
      if (v != NULL && v->valid)
        g_string_append_printf (o, "  %s\n", v->text);
    }
  }
  /* Software-timed figures say how their transfers spread: a long tail (interrupts, wake-ups) moves the mean
   * above the median. */
  for (int i = 0; i < PS_N_MODES && !markdown; i++) {
    const PsModeResult *m = &r->modes[i];
    const PsTransferTimes *t[2] = { &m->transfer_read, &m->transfer_write };
    for (int d = 0; d < 2 && m->ran; d++)
      if (t[d]->valid)
        g_string_append_printf (o, "%s%s per transfer: mean %.3f us, p50 %.3f us, p99 %.3f us (software start to "
                                   "end)\n", mode_keys[i], i != PS_SIMULTANEOUS ? "" : d ? " write" : " read",
                                t[d]->mean_ns / 1000, t[d]->p50_ns / 1000, t[d]->p99_ns / 1000);
  }
  const PsModeResult *sm = &r->modes[PS_SIMULTANEOUS];
  if (!markdown && sm->ran && sm->write_mbps_excluding_read_requests > 0)
    g_string_append_printf (o, "Simultaneous: both directions averaged %.1f MB/s; write excluding read-request "
                               "cycles %.1f MB/s\n",
                            (sm->read_mbps + sm->write_mbps) / 2, sm->write_mbps_excluding_read_requests);
  /* Once per table, with the limit's value, so the reader can check the claim against the header line. Markdown
   * needs the blank line or the footnote would be parsed as one more table row. */
  if (flagged) {
    g_string_append_printf (o, "%s* published figure is above the protocol limit (", markdown ? "\n" : "");
    append_limits (o, r);
    g_string_append (o, "): a measurement artifact no honest model can match; left out of error statistics\n");
  }
  if (suspect)
    g_string_append_printf (o, "%s† suspect measurement (published.suspect), left out of error statistics: %s\n",
                            markdown && !flagged ? "\n" : "", c->published.suspect_reason);
  g_autofree char *why = ps_result_not_comparable (r);
  if (why)
    g_string_append_printf (o, "%spublished figures%s%s%s not comparable: %s\n", markdown ? "\n" : "",
                            c->published.source ? " (" : "", c->published.source ? c->published.source : "",
                            c->published.source ? ")" : "", why);
  /* Markdown output is the figure table alone, as docs/output.md ("Output formats") documents it; the averaged
   * line above and the usage breakdown below belong to the terminal report. */
  if (markdown)
    return;

  const PsModeResult *h = headline_mode (r);
  if (!h)
    return;
  g_string_append_printf (o, "\nlink usage (%s mode)  payload  TLP ovh   DLLP  ord.sets   idle\n",
                          mode_keys[h - r->modes]);
  /* Each direction's five shares sum to 100% (report.h), so idle is what that direction could still carry. */
  const PsUsage *u[2] = { &h->upstream, &h->downstream };
  const char *names[2] = { "upstream", "downstream" };
  for (int i = 0; i < 2; i++)
    g_string_append_printf (o, "  %-19s %6.2f%%  %6.2f%%  %5.2f%%  %6.2f%%  %6.2f%%\n", names[i],
                            u[i]->payload * 100, u[i]->tlp_overhead * 100, u[i]->dllp * 100,
                            u[i]->ordered_sets * 100, u[i]->idle * 100);
  /* Which stretch of time the shares cover, against the figures' windows (issue #12 item 12). */
  if (strcmp (r->model, "stream") == 0)
    g_string_append_printf (o, "  over the MB/s figure's window: first TLP offered to last delivered, %.3f us\n",
                            h->usage_window_ns / 1000);
  else if (h == &r->modes[PS_PIO_READ] || h == &r->modes[PS_PIO_WRITE])
    g_string_append_printf (o, "  over the MB/s figure's windows: %u transfers of %.3f us on average, software start "
                               "to end\n", h->usage_windows, h->usage_window_ns / 1000);
  else if (h == &r->modes[PS_SIMULTANEOUS])
    g_string_append_printf (o, "  over %u windows of %.3f us on average, first counter start to last stop (each "
                               "MB/s figure: its engine's counter)\n",
                            h->usage_windows, h->usage_window_ns / 1000);
  else
    g_string_append_printf (o, "  over the MB/s figure's windows: %u counter windows of %.3f us on average\n",
                            h->usage_windows, h->usage_window_ns / 1000);
  table_why (o, h, h == &r->modes[PS_SIMULTANEOUS] ? "simultaneous" : h == &r->modes[PS_WRITE] ? "write" : "read");
  if (h->has_errors) {
    const PsLinkErrors *e[2] = { &h->errors_up, &h->errors_down };
    g_string_append (o, "link errors (whole run)  TLP errors    Naks  replays  timeouts  retrains  replayed bytes\n");
    for (int i = 0; i < 2; i++)
      g_string_append_printf (o, "  %-19s %12" G_GUINT64_FORMAT " %7" G_GUINT64_FORMAT " %8" G_GUINT64_FORMAT " %9"
                              G_GUINT64_FORMAT " %9" G_GUINT64_FORMAT " %15" G_GUINT64_FORMAT "\n", names[i],
                              e[i]->tlp_errors, e[i]->naks, e[i]->replays, e[i]->replay_timeouts, e[i]->retrains,
                              e[i]->replayed_bytes);
  }
}

/* Each value writes its own leading comma, so a row is `name,key` and then one call per column. An absent value
 * is an empty cell, not "nan": spreadsheet and data-frame readers take an empty field as missing. */
static void
csv_num (GString *o, double v)
{
  g_string_append_c (o, ',');
  ps_fmt_fixed (o, v, 2);
}

/* One row per figure that ran, numbers with two decimals, empty cells for absent values. The link's theoretical
 * and the figure's protocol limit (read or write, PsFigure) repeat on every row so that each row stands alone
 * once rows of many runs are concatenated or filtered. */
static void
render_csv (GString *o, const PsRunResult *r)
{
  PsFigure f[PS_N_FIGURES];
  ps_result_figures (r, f);
  /* Comment lines first: what was run (the resolved config and the seed) and, when so, why the published
   * figures are left out; readers skip them (pandas' comment='#', gnuplot, spreadsheets' import option). */
  g_string_append_printf (o, "# pciesim %s: %s (%s), model %s, seed %" G_GUINT64_FORMAT "\n", PCIESIM_VERSION,
                          r->config->path, r->config->name, r->model, r->seed);
  g_autofree char *why = ps_result_not_comparable (r);
  if (why)
    g_string_append_printf (o, "# published figures not comparable: %s\n", why);
  ps_config_write_comments (r->config, o);
  if (r->fabric.ran) {
    ps_report_fabric_csv (o, r);
    return;
  }
  if (r->microbench.ran) {
    const PsMicrobenchResult *mb = &r->microbench;
    /* read_gbps and write_gbps were added after the others, so a reader of the first columns is unaffected. */
    g_string_append (o, "config,test,transfer_bytes,gbps,latency_mean_ns,latency_p50_ns,latency_p99_ns,"
                        "latency_max_ns,protocol_limit_gbps,limited_by,limited_by_share,read_gbps,write_gbps\n");
    ps_csv_cell (o, r->config->name);
    g_string_append_printf (o, ",%s,%" G_GINT64_FORMAT, mb->test, mb->transfer_bytes);
    csv_num (o, mb->gbps);
    csv_num (o, mb->latency.mean_ns);
    csv_num (o, mb->latency.p50_ns);
    csv_num (o, mb->latency.p99_ns);
    csv_num (o, mb->latency.max_ns);
    csv_num (o, mb->verdict.valid ? mb->limit_gbps : NAN);
    g_string_append_printf (o, ",%s", mb->verdict.valid ? mb->verdict.cause : "");
    csv_num (o, mb->verdict.valid ? mb->verdict.share * 100 : NAN);
    csv_num (o, mb->read_gbps);
    csv_num (o, mb->write_gbps);
    g_string_append_c (o, '\n');
    return;
  }
  /* The header is written even when no figure ran, so the output is always a parseable table with its columns. */
  g_string_append (o, "config,figure,simulated_mbps,published_mbps,theoretical_mbps,protocol_limit_mbps,error_pct,"
                      "above_protocol_limit,suspect,limited_by,limited_by_share,bound_mbps\n");
  for (int i = 0; i < PS_N_FIGURES; i++) {
    if (!isfinite (f[i].simulated))
      continue;
    ps_csv_cell (o, r->config->name);
    g_string_append_printf (o, ",%s", f[i].key);
    csv_num (o, f[i].simulated);
    csv_num (o, f[i].comparable ? f[i].published : NAN);
    csv_num (o, r->theoretical_mbps);
    csv_num (o, f[i].limit);
    csv_num (o, f[i].error_pct);
    g_string_append_printf (o, ",%s,%s", f[i].above_limit ? "true" : "false", f[i].suspect ? "true" : "false");
    /* The verdict's cause, its share of the figure's window and its bound (empty where there is none). */
    const PsVerdict *v = figure_verdict (r, i);
    gboolean has = v != NULL && v->valid;
    g_string_append_printf (o, ",%s", has ? v->cause : "");
    csv_num (o, has ? v->share * 100 : NAN);
    csv_num (o, has ? v->bound_mbps : NAN);
    g_string_append_c (o, '\n');
  }
}

/* Entry point: the one switch on PsFormat in the program. with_wall matters only for JSON: no other format shows
 * wall time, so they are byte-identical for the same config and seed whatever the caller passes. */
void
ps_report_render (GString *out, const PsRunResult *r, PsFormat format, gboolean with_wall)
{
  switch (format) {
  case PS_FORMAT_TABLE:
    render_table (out, r, FALSE);
    break;
  case PS_FORMAT_MARKDOWN:
    render_table (out, r, TRUE);
    break;
  case PS_FORMAT_CSV:
    render_csv (out, r);
    break;
  case PS_FORMAT_JSON:
    render_json (out, r, with_wall);
    break;
  }
}
