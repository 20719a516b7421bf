/* report_common.c — what every rendering of a run shares (report_impl.h): the figures compared with the published
 * ones (ps_result_figures(), report.h), the mode a report leads with and the modes' keys, the defaults line, and
 * the JSON objects a one-link run and a fabric's flows and links have in common (errors, latency, verdict). Below
 * the table (report.c), the JSON (report_json.c) and the fabric's parts (report_fabric.c), which all call it. */
#include "app/report/report.h"

#include <math.h>
#include <string.h>

#include "app/report/report_impl.h"

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

/* The mode whose link usage is shown at top level: the busiest one run. Table and JSON both use this, so the
 * breakdown a reader sees and the one a script reads are always of the same mode. */
const PsModeResult *
ps_report_headline_mode (const PsRunResult *r)
{
  static const int order[] = { PS_SIMULTANEOUS, PS_WRITE, PS_READ, PS_PIO_WRITE, PS_PIO_READ };
  for (int i = 0; i < 5; i++)
    if (r->modes[order[i]].ran)
      return &r->modes[order[i]];
  return NULL;
}

/* The JSON keys under "results": the same words as --mode, so a script can index the results by what it asked. */
const char *const ps_report_mode_keys[PS_N_MODES] = { "read", "write", "simultaneous", "pio_read", "pio_write" };

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

void
ps_report_json_shares (PsJson *j, guint n, const char *const *names, const double *v)
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
  ps_report_json_shares (j, v->n_path, v->path_name, v->path);
  if (v->has_software) {
    ps_json_key (j, "software_ns");
    ps_json_object (j, 0);
    for (int k = 0; k < PS_SW_PHASES; k++)
      ps_json_fixed_member (j, v->software_name[k], v->software_ns[k], 3);
    ps_json_end (j);
  }
  ps_json_end (j);
}
