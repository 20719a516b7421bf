/* report.c — table, CSV, Markdown and JSON renderings of a PsRunResult.
 *
 * Every format's comparison comes from ps_result_figures(), so which figures are compared, which are flagged and
 * what their error is cannot differ between the table a person reads and the JSON a script reads. Numbers are
 * printed with a fixed precision per field; printf's decimal point follows LC_NUMERIC, which main() pins to "C"
 * for that reason (a decimal comma would break CSV and JSON). CSV columns and JSON keys are what scripts rely
 * on (README.md); JSON keys of schema 1 are only ever added, never renamed.
 */
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "pciesim-version.h"

/* Word -> format; the order of names matches the PsFormat enum. The return value is meaningless when *ok is
 * FALSE: the caller owns the usage error, since only it knows which formats its command accepts. */
PsFormat
ps_format_parse (const char *word, gboolean *ok)
{
  static const char *names[] = { "table", "csv", "json", "markdown" };
  for (int i = 0; i < 4; i++)
    if (strcmp (word, names[i]) == 0) {
      *ok = TRUE;
      return (PsFormat) i;
    }
  *ok = FALSE;
  return PS_FORMAT_TABLE;
}

/* A figure whose mode did not run stays in the array with a NaN simulated value, so a position means the same
 * figure for every caller (render_json() pairs positions with the published keys). */
int
ps_result_figures (const PsRunResult *r, PsFigure out[4])
{
  const PsConfig *c = r->config;
  const PsModeResult *m = r->modes;
  const gboolean sim = m[PS_SIMULTANEOUS].ran;
  out[0] = (PsFigure) { .label = "DMA read", .key = "read", .simulated = m[PS_READ].ran ? m[PS_READ].mbps : NAN,
                        .published = c->published.dma_read_mbps };
  out[1] = (PsFigure) { .label = "DMA write", .key = "write", .simulated = m[PS_WRITE].ran ? m[PS_WRITE].mbps : NAN,
                        .published = c->published.dma_write_mbps };
  out[2] = (PsFigure) { .label = "Simultaneous read", .key = "simultaneous_read",
                        .simulated = sim ? m[PS_SIMULTANEOUS].read_mbps : NAN,
                        .published = c->published.simultaneous_read_mbps };
  out[3] = (PsFigure) { .label = "Simultaneous write", .key = "simultaneous_write",
                        .simulated = sim ? m[PS_SIMULTANEOUS].write_mbps : NAN,
                        .published = c->published.simultaneous_write_mbps };
  /* The error is computed for flagged figures too: JSON and validate print it beside the flag, and only the
   * statistics leave it out. `published > 0` keeps a published 0 (a legal key value) from dividing by zero. */
  for (int i = 0; i < 4; i++) {
    PsFigure *f = &out[i];
    /* Published figures are DMA benchmark results: a run of another workload (the bare streaming source) is not
     * comparable with them. */
    if (strcmp (r->model, "chaining-dma") != 0)
      f->published = NAN;
    /* A measurement above what the protocol can carry is an artifact: no honest model matches it. */
    f->above_limit = isfinite (f->published) && isfinite (r->protocol_limit_mbps) &&
                     f->published > r->protocol_limit_mbps;
    f->error_pct = isfinite (f->simulated) && isfinite (f->published) && f->published > 0
                       ? (f->simulated - f->published) / f->published * 100.0
                       : NAN;
  }
  return 4;
}

/* RFC 4180: quote a cell only when it holds a separator, a quote or edge spaces that readers would trim. User
 * text (config names, sweep axis keys and values) goes through here; fixed vocabularies (figure keys, metric
 * names) need no quoting. Line breaks need no case: config strings hold no control character (config.c) and an
 * axis value must fit on one line (scenario.c). */
void
ps_csv_cell (GString *o, const char *v)
{
  size_t n = strlen (v);
  if (!strpbrk (v, ",\"") && !(n && (v[0] == ' ' || v[n - 1] == ' '))) {
    g_string_append (o, v);
    return;
  }
  g_string_append_c (o, '"');
  for (const char *p = v; *p; p++) {
    if (*p == '"')
      g_string_append_c (o, '"');
    g_string_append_c (o, *p);
  }
  g_string_append_c (o, '"');
}

/* GitHub-flavoured Markdown splits a table row at every unescaped '|', so a label holding one would add a column;
 * "\|" is the table syntax's own escape. */
void
ps_md_cell (GString *o, const char *v)
{
  for (const char *p = v; *p; p++) {
    if (*p == '|')
      g_string_append_c (o, '\\');
    g_string_append_c (o, *p);
  }
}

/* JSON string escaping per RFC 8259: quotes, backslash and control characters; UTF-8 passes through. Bytes
 * from 0x80 up are copied unchanged rather than \u-escaped, so a non-ASCII name stays readable in the file.
 * A NULL string is written as "" so that an optional field (published.source may be absent) never breaks the
 * JSON. */
void
ps_json_string (GString *out, const char *s)
{
  g_string_append_c (out, '"');
  for (const unsigned char *p = (const unsigned char *) (s ? s : ""); *p; p++) {
    switch (*p) {
    case '"':
      g_string_append (out, "\\\"");
      break;
    case '\\':
      g_string_append (out, "\\\\");
      break;
    case '\n':
      g_string_append (out, "\\n");
      break;
    case '\t':
      g_string_append (out, "\\t");
      break;
    case '\r':
      g_string_append (out, "\\r");
      break;
    /* The short escapes keep the common cases readable; \b, \f and the rest of C0 take the \u form, which is
     * equally valid and needs no table. */
    default:
      if (*p < 0x20)
        g_string_append_printf (out, "\\u%04x", *p);
      else
        g_string_append_c (out, (char) *p);
    }
  }
  g_string_append_c (out, '"');
}

/* JSON has no NaN: absent figures are null. Callers pick the decimals per field so that the same value always
 * prints the same digits; %.*f rather than %g, because %g switches to exponent notation for large values. */
static void
json_num (GString *out, double v, int decimals)
{
  if (isfinite (v))
    g_string_append_printf (out, "%.*f", decimals, v);
  else
    g_string_append (out, "null");
}

/* Six decimals: these are fractions of 1, not percentages, and two (as for MB/s) would print a DLLP or SKP share
 * of a few tenths of a percent as 0.00. */
static void
json_usage (GString *out, const PsUsage *u)
{
  g_string_append (out, "{\"payload\": ");
  json_num (out, u->payload, 6);
  g_string_append (out, ", \"tlp_overhead\": ");
  json_num (out, u->tlp_overhead, 6);
  g_string_append (out, ", \"dllp\": ");
  json_num (out, u->dllp, 6);
  g_string_append (out, ", \"ordered_sets\": ");
  json_num (out, u->ordered_sets, 6);
  g_string_append (out, ", \"idle\": ");
  json_num (out, u->idle, 6);
  g_string_append (out, "}");
}

/* results.MODE.errors of one direction: the LinkErrors counts (README, JSON output). */
static void
json_errors (GString *out, const PsLinkErrors *e)
{
  g_string_append_printf (out, "{\"tlp_errors\": %" G_GUINT64_FORMAT ", \"dllp_errors\": %" G_GUINT64_FORMAT
                          ", \"naks\": %" G_GUINT64_FORMAT ", \"replays\": %" G_GUINT64_FORMAT
                          ", \"replay_timeouts\": %" G_GUINT64_FORMAT ", \"retrains\": %" G_GUINT64_FORMAT
                          ", \"replayed_tlps\": %" G_GUINT64_FORMAT ", \"replayed_bytes\": %" G_GUINT64_FORMAT
                          ", \"flit_errors\": %" G_GUINT64_FORMAT "}",
                          e->tlp_errors, e->dllp_errors, e->naks, e->replays, e->replay_timeouts, e->retrains,
                          e->replayed_tlps, e->replayed_bytes, e->flit_errors);
}

/* The mode whose link usage is shown at top level: the busiest one run. Table and JSON both use this, so the
 * breakdown a reader sees and the one a script reads are always of the same mode. */
static const PsModeResult *
headline_mode (const PsRunResult *r)
{
  static const int order[] = { PS_SIMULTANEOUS, PS_WRITE, PS_READ };
  for (int i = 0; i < 3; i++)
    if (r->modes[order[i]].ran)
      return &r->modes[order[i]];
  return NULL;
}

/* The JSON keys under "results": the same words as --mode, so a script can index the results by what it asked. */
static const char *const mode_keys[PS_N_MODES] = { "read", "write", "simultaneous" };

/* Schema 1 (design.md). Keys are written in a fixed order with fixed precision, so the same result always gives
 * the same bytes; wall time, the one nondeterministic value, appears only when the caller asks for it. */
static void
render_json (GString *o, const PsRunResult *r, gboolean with_wall)
{
  const PsConfig *c = r->config;
  /* The version lets a script refuse to compare results of different builds. The config path is written as
   * given, not made absolute, so the bytes do not depend on where the checkout lives. "model" says which
   * workload produced the figures, which decides whether they are compared with the published ones at all. */
  g_string_append (o, "{\n  \"schema\": 1,\n  \"version\": ");
  ps_json_string (o, PCIESIM_VERSION);
  g_string_append (o, ",\n  \"config\": ");
  ps_json_string (o, c->path);
  g_string_append (o, ",\n  \"name\": ");
  ps_json_string (o, c->name);
  g_string_append (o, ",\n  \"model\": ");
  ps_json_string (o, r->model);
  /* A summary of the link, not the whole config: "config" names the file that holds the rest. */
  g_string_append_printf (o,
                          ",\n  \"link\": {\"gen\": %" G_GINT64_FORMAT ", \"lanes\": %" G_GINT64_FORMAT
                          ", \"max_payload\": %" G_GINT64_FORMAT ", \"max_read_request\": %" G_GINT64_FORMAT
                          ", \"read_completion_boundary\": %" G_GINT64_FORMAT "},\n",
                          c->link.gen, c->link.lanes, c->link.max_payload, c->link.max_read_request,
                          c->link.read_completion_boundary);
  g_string_append (o, "  \"theoretical_mbps\": ");
  json_num (o, r->theoretical_mbps, 1);
  g_string_append (o, ",\n  \"protocol_limit_mbps\": ");
  json_num (o, r->protocol_limit_mbps, 1);
  g_string_append (o, ",\n  \"results\": {");
  /* A mode that did not run is left out, not written as null: whether a key exists is how a script tells which
   * modes ran (README: "A mode that was not run is absent from results"). */
  gboolean first = TRUE;
  for (int i = 0; i < PS_N_MODES; i++) {
    const PsModeResult *m = &r->modes[i];
    if (!m->ran)
      continue;
    g_string_append_printf (o, "%s\n    \"%s\": {", first ? "" : ",", mode_keys[i]);
    first = FALSE;
    /* Simultaneous mode moves data both ways at once, so it has two figures and no single "mbps". */
    if (i == PS_SIMULTANEOUS) {
      g_string_append (o, "\"read_mbps\": ");
      json_num (o, m->read_mbps, 2);
      g_string_append (o, ", \"write_mbps\": ");
      json_num (o, m->write_mbps, 2);
      /* Added keys (schema 1 grows, never renames): the Avalon-MM DMA's reported figures, §2.1 of
       * published-calibration.md — both directions averaged, and writes without the read-request cycles. */
      g_string_append (o, ", \"both_directions_mean_mbps\": ");
      json_num (o, (m->read_mbps + m->write_mbps) / 2, 2);
      /* 0 means the model did not produce the figure: the key is then absent rather than a misleading 0. */
      if (m->write_mbps_excluding_read_requests > 0) {
        g_string_append (o, ", \"write_mbps_excluding_read_requests\": ");
        json_num (o, m->write_mbps_excluding_read_requests, 2);
      }
    } else {
      g_string_append (o, "\"mbps\": ");
      json_num (o, m->mbps, 2);
    }
    g_string_append (o, ",\n      \"link_usage\": {\"upstream\": ");
    json_usage (o, &m->upstream);
    g_string_append (o, ",\n                     \"downstream\": ");
    json_usage (o, &m->downstream);
    g_string_append (o, "}");
    /* Only with errors modelled, so error-free results keep their bytes. */
    if (m->has_errors) {
      g_string_append (o, ",\n      \"errors\": {\"upstream\": ");
      json_errors (o, &m->errors_up);
      g_string_append (o, ",\n                 \"downstream\": ");
      json_errors (o, &m->errors_down);
      g_string_append (o, "}");
      /* What errors cost in latency: the tail, where replays show (stream workload only). */
      if (isfinite (m->latency_p99_ns)) {
        g_string_append (o, ",\n      \"latency_p99_ns\": ");
        json_num (o, m->latency_p99_ns, 3);
      }
    }
    g_string_append_printf (o, ",\n      \"events\": %" G_GUINT64_FORMAT ", \"sim_time_ns\": ", m->events);
    /* Three decimals of a nanosecond are the engine's whole picosecond resolution: the value prints exactly. */
    json_num (o, m->sim_time_ns, 3);
    g_string_append (o, "}");
  }
  g_string_append (o, first ? "},\n" : "\n  },\n");

  const PsModeResult *h = headline_mode (r);
  if (h) {
    g_string_append (o, "  \"link_usage\": {\"upstream\": ");
    json_usage (o, &h->upstream);
    g_string_append (o, ",\n                 \"downstream\": ");
    json_usage (o, &h->downstream);
    g_string_append (o, "},\n");
  }

  /* The published figures are repeated from the config so the file is self-contained: a script compares without
   * reading YAML. Only figures the config gives appear (a partial published: block is legal), and none for a
   * workload that ps_result_figures() does not compare; "comparison" then holds only figures with both values. */
  if (c->published.present) {
    PsFigure f[4];
    ps_result_figures (r, f);
    g_string_append (o, "  \"published\": {\"source\": ");
    ps_json_string (o, c->published.source);
    const char *pk[] = { "dma_read_mbps", "dma_write_mbps", "simultaneous_read_mbps", "simultaneous_write_mbps" };
    for (int i = 0; i < 4; i++) {
      if (!isfinite (f[i].published))
        continue;
      g_string_append_printf (o, ", \"%s\": ", pk[i]);
      json_num (o, f[i].published, 1);
    }
    if (isfinite (c->published.theoretical_mbps)) {
      g_string_append (o, ", \"theoretical_mbps\": ");
      json_num (o, c->published.theoretical_mbps, 1);
    }
    g_string_append (o, "},\n  \"comparison\": [");
    gboolean firstc = TRUE;
    for (int i = 0; i < 4; i++) {
      if (!isfinite (f[i].published) || !isfinite (f[i].simulated))
        continue;
      g_string_append_printf (o, "%s\n    {\"figure\": \"%s\", \"simulated_mbps\": ", firstc ? "" : ",", f[i].key);
      firstc = FALSE;
      json_num (o, f[i].simulated, 2);
      g_string_append (o, ", \"published_mbps\": ");
      json_num (o, f[i].published, 1);
      g_string_append (o, ", \"error_pct\": ");
      json_num (o, f[i].error_pct, 2);
      g_string_append_printf (o, ", \"above_protocol_limit\": %s}", f[i].above_limit ? "true" : "false");
    }
    g_string_append (o, firstc ? "],\n" : "\n  ],\n");
  }

  /* stats sum over modes: each mode ran on its own engine, so events and simulated time add up. */
  uint64_t events = 0;
  double sim_ns = 0;
  for (int i = 0; i < PS_N_MODES; i++) {
    events += r->modes[i].events;
    sim_ns += r->modes[i].sim_time_ns;
  }
  g_string_append_printf (o, "  \"stats\": {\"events\": %" G_GUINT64_FORMAT ", \"sim_time_ns\": ", events);
  json_num (o, sim_ns, 3);
  /* wall_s is the one value that differs between two identical runs (README's only exception to byte-identical
   * output), so it comes last and only when the caller asks for it. */
  if (with_wall) {
    g_string_append (o, ", \"wall_s\": ");
    json_num (o, r->wall_s, 3);
  }
  g_string_append (o, "}\n}\n");
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

/* The human table: one line per figure that ran, then the headline mode's link usage per direction. Markdown
 * shares the figure rows so README tables and terminal output cannot disagree. */
static void
render_table (GString *o, const PsRunResult *r, gboolean markdown)
{
  const PsConfig *c = r->config;
  PsFigure f[4];
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
                               " iterations; theoretical %.1f MB/s, protocol limit %.1f MB/s\n\n",
                            c->benchmark.transfer_bytes, c->benchmark.iterations, r->theoretical_mbps,
                            r->protocol_limit_mbps);
    g_string_append (o, "figure               simulated  published  theoretical  %theor.   error\n");
  } else {
    g_string_append (o, "| figure | simulated MB/s | published MB/s | theoretical MB/s | % of theoretical | error |\n");
    g_string_append (o, "|---|---:|---:|---:|---:|---:|\n");
  }
  gboolean flagged = FALSE;
  /* Figures of modes that did not run are left out, not shown as "-": `--mode read` prints one row. */
  for (int i = 0; i < 4; i++) {
    if (!isfinite (f[i].simulated))
      continue;
    char sim[32], pub[32], pct[32], err[40];
    fmt_cell (sim, sizeof sim, f[i].simulated, FALSE, "");
    fmt_cell (pub, sizeof pub, f[i].published, FALSE, "");
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
    }
    if (markdown)
      g_string_append_printf (o, "| %s | %s | %s | %.1f | %s | %s |\n", f[i].label, sim, pub, r->theoretical_mbps,
                              pct, err);
    else
      g_string_append_printf (o, "%-20s %9s  %9s  %11.1f  %7s  %7s\n", f[i].label, sim, pub, r->theoretical_mbps,
                              pct, err);
  }
  const PsModeResult *sm = &r->modes[PS_SIMULTANEOUS];
  if (!markdown && sm->ran && sm->write_mbps_excluding_read_requests > 0)
    g_string_append_printf (o, "Simultaneous: both directions averaged %.1f MB/s; write excluding read-request "
                               "cycles %.1f MB/s\n",
                            (sm->read_mbps + sm->write_mbps) / 2, sm->write_mbps_excluding_read_requests);
  /* Once per table, with the limit's value, so the reader can check the claim against the header line. Markdown
   * needs the blank line or the footnote would be parsed as one more table row. */
  if (flagged)
    g_string_append_printf (o, "%s* published figure is above the protocol limit (%.1f MB/s): a measurement "
                               "artifact no honest model can match; left out of error statistics\n",
                            markdown ? "\n" : "", r->protocol_limit_mbps);
  /* Markdown output is the figure table alone, as README documents it; the averaged line above and the usage
   * breakdown below belong to the terminal report. */
  if (markdown)
    return;

  const PsModeResult *h = headline_mode (r);
  if (!h)
    return;
  g_string_append_printf (o, "\nlink usage (%s mode)  payload  TLP ovh   DLLP  ord.sets   idle\n",
                          h == &r->modes[PS_SIMULTANEOUS] ? "simultaneous" : h == &r->modes[PS_WRITE] ? "write"
                                                                                                       : "read");
  /* Each direction's five shares sum to 100% (report.h), so idle is what that direction could still carry. */
  const PsUsage *u[2] = { &h->upstream, &h->downstream };
  const char *names[2] = { "upstream", "downstream" };
  for (int i = 0; i < 2; i++)
    g_string_append_printf (o, "  %-19s %6.2f%%  %6.2f%%  %5.2f%%  %6.2f%%  %6.2f%%\n", names[i],
                            u[i]->payload * 100, u[i]->tlp_overhead * 100, u[i]->dllp * 100,
                            u[i]->ordered_sets * 100, u[i]->idle * 100);
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
  if (isfinite (v))
    g_string_append_printf (o, ",%.2f", v);
  else
    g_string_append (o, ",");
}

/* One row per figure that ran, numbers with two decimals, empty cells for absent values. The link's theoretical
 * and protocol limit repeat on every row so that each row stands alone once rows of many runs are concatenated
 * or filtered. */
static void
render_csv (GString *o, const PsRunResult *r)
{
  PsFigure f[4];
  ps_result_figures (r, f);
  /* The header is written even when no figure ran, so the output is always a parseable table with its columns. */
  g_string_append (o, "config,figure,simulated_mbps,published_mbps,theoretical_mbps,protocol_limit_mbps,error_pct,"
                      "above_protocol_limit\n");
  for (int i = 0; i < 4; i++) {
    if (!isfinite (f[i].simulated))
      continue;
    ps_csv_cell (o, r->config->name);
    g_string_append_printf (o, ",%s", f[i].key);
    csv_num (o, f[i].simulated);
    csv_num (o, f[i].published);
    csv_num (o, r->theoretical_mbps);
    csv_num (o, r->protocol_limit_mbps);
    csv_num (o, f[i].error_pct);
    g_string_append_printf (o, ",%s\n", f[i].above_limit ? "true" : "false");
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

/* Every failure is PS_ERROR_CANTCREAT, exit 73, the status README gives to an output that cannot be written,
 * whether the target is a file or standard output. */
gboolean
ps_write_output (const char *path, const GString *data, GError **error)
{
  /* The flush is checked as well as the write: on a full disk the error may appear only when the buffer goes
   * out, and a report that lost its tail must exit 73, not 0. */
  if (!path || strcmp (path, "-") == 0) {
    if (fwrite (data->str, 1, data->len, stdout) != data->len || fflush (stdout) != 0) {
      ps_error_plain (error, PS_ERROR_CANTCREAT, "writing standard output failed");
      return FALSE;
    }
    return TRUE;
  }
  /* g_file_set_contents writes a temporary file beside the target and renames it over: readers never see
   * a half-written file, and a failure leaves no file behind. */
  g_autoptr (GError) e = NULL;
  if (!g_file_set_contents (path, data->str, (gssize) data->len, &e)) {
    ps_error_plain (error, PS_ERROR_CANTCREAT, "%s", e->message);
    return FALSE;
  }
  return TRUE;
}
