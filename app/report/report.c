/* report.c — table, CSV, Markdown and JSON renderings of a PsRunResult.
 *
 * Every format's comparison comes from ps_result_figures(), so which figures are compared, which are flagged and
 * what their error is cannot differ between the table a person reads and the JSON a script reads. Numbers are
 * printed with a fixed precision per field (format.h writes them; the table's padded columns use printf, whose
 * decimal point follows LC_NUMERIC, which main() pins to "C"). CSV columns and JSON keys are what scripts rely
 * on (docs/output.md, "Output formats"); JSON keys of schema 1 are only ever added, never renamed.
 *
 * Every format of the one-link report comes from ps_result_figures() here, so the table and the JSON cannot
 * disagree; the JSON's members are written by report_json.c, a fabric's flows and links by report_fabric.c.
 */
#include "app/report/report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app/base/error.h"
#include "pciesim-version.h"
#include "app/report/report_ranges.h"
#include "app/report/report_fabric.h"
#include "app/report/report_impl.h"

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
    /* The verdict, and the protocol limit beside the figure: the test's TLPs on this link. bw_rdwr's Gb/s adds two
     * directions, each within its own limit: said so, lest the total read as beyond the wire. */
    if (mb->verdict.valid)
      g_string_append_printf (o, "  protocol limit %.3f Gb/s%s; %s\n", mb->limit_gbps,
                              c->microbench.test == PS_MB_BW_RDWR ? " per direction (the reads' and the writes' each)"
                                                                  : "",
                              mb->verdict.text);
  } else {
    g_string_append (o, "| test | bytes | Gb/s | read Gb/s | write Gb/s | mean ns | p50 ns | p99 ns | max ns |\n"
                        "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    g_string_append_printf (o, "| %s | %" G_GINT64_FORMAT " | %.3f | %.3f | %.3f | %.1f | %.1f | %.1f | %.1f |\n",
                            mb->test, mb->transfer_bytes, mb->gbps, mb->read_gbps, mb->write_gbps, l->mean_ns,
                            l->p50_ns, l->p99_ns, l->max_ns);
  }
}

/* The two header lines name the parameters that decide the figures, so a table pasted into a bug report or a
 * mail still says what was simulated. */
static void
table_header (GString *o, const PsRunResult *r, gboolean markdown)
{
  const PsConfig *c = r->config;
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
}

/* The terminal report's last part: where the headline mode's link time went, over which window, why, and the
 * link's errors. */
static void
table_usage (GString *o, const PsRunResult *r)
{
  const PsModeResult *h = ps_report_headline_mode (r);
  if (!h)
    return;
  g_string_append_printf (o, "\nlink usage (%s mode)  payload  TLP ovh   DLLP  ord.sets   idle\n",
                          ps_report_mode_keys[h - r->modes]);
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

/* A device workload's figures (report.h's PsFiguresResult), one row each: a value with its unit, or a latency's
 * distribution. */
static void
figures_table (GString *o, const PsRunResult *r, gboolean markdown)
{
  const PsFiguresResult *fr = &r->figures;
  const PsConfig *c = r->config;
  g_string_append_printf (o, "%s: %s on node %s, Gen%" G_GINT64_FORMAT " x%" G_GINT64_FORMAT ", MPS %" G_GINT64_FORMAT
                          ", MRRS %" G_GINT64_FORMAT " (%s)\n\n", c->name, fr->workload, fr->node, c->link.gen,
                          c->link.lanes, c->link.max_payload, c->link.max_read_request, r->model);
  const char *sep = markdown ? " | " : "  ";
  if (markdown)
    g_string_append (o, "| figure | value | unit | mean ns | p50 ns | p99 ns | max ns |\n|---|---:|---|---:|---:|---:|---:|\n");
  else
    g_string_append_printf (o, "%-24s%s%14s%s%-6s%s%12s%s%12s%s%12s%s%12s\n", "figure", sep, "value", sep, "unit", sep,
                            "mean ns", sep, "p50 ns", sep, "p99 ns", sep, "max ns");
  for (guint i = 0; i < fr->n; i++) {
    const PsNamedFigure *f = &fr->fig[i];
    const PsLatency *l = &f->latency;
    if (markdown)
      g_string_append_c (o, '|'), g_string_append_c (o, ' ');
    g_string_append_printf (o, l->valid || markdown ? "%-24s%s%14.1f%s%-6s" : "%-24s%s%14.1f%s%s", f->name, sep,
                            f->value, sep, f->unit);
    if (l->valid)
      g_string_append_printf (o, "%s%12.1f%s%12.1f%s%12.1f%s%12.1f", sep, l->mean_ns, sep, l->p50_ns, sep, l->p99_ns,
                              sep, l->max_ns);
    else if (markdown)
      g_string_append (o, " | | | |");
    g_string_append (o, markdown ? " |\n" : "\n");
    /* A workload that says why a figure is what it is gets its verdict under it, as the modes' figures do. */
    if (f->verdict.valid && !markdown)
      g_string_append_printf (o, "  limited by %s: %s\n", f->verdict.cause, f->verdict.text);
  }
  g_string_append_printf (o, "\nlink usage of %s's link        payload  TLP ovh     DLLP  ord.sets     idle\n", fr->node);
  const PsUsage *u[2] = { &fr->upstream, &fr->downstream };
  for (int d = 0; d < 2; d++)
    g_string_append_printf (o, "  %-28s%7.2f%% %7.2f%% %7.2f%% %7.2f%% %7.2f%%\n", d ? "downstream" : "upstream",
                            u[d]->payload * 100, u[d]->tlp_overhead * 100, u[d]->dllp * 100, u[d]->ordered_sets * 100,
                            u[d]->idle * 100);
  g_string_append_printf (o, "protocol limit %.1f MB/s (MWr data, %s headers), %.1f MB/s (CplD data)\n",
                          r->protocol_limit_mbps, c->link.address_bits == 64 ? "4-DW" : "3-DW",
                          r->protocol_limit_read_mbps);
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
  if (r->figures.ran) {
    figures_table (o, r, markdown);
    return;
  }
  PsFigure f[PS_N_FIGURES];
  ps_result_figures (r, f);
  table_header (o, r, markdown);
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
                                   "end)\n", ps_report_mode_keys[i], i != PS_SIMULTANEOUS ? "" : d ? " write" : " read",
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

  table_usage (o, r);
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
  if (r->figures.ran) {
    g_string_append (o, "config,workload,node,figure,unit,value,latency_mean_ns,latency_p50_ns,latency_p99_ns,"
                        "latency_max_ns\n");
    for (guint i = 0; i < r->figures.n; i++) {
      const PsNamedFigure *nf = &r->figures.fig[i];
      ps_csv_cell (o, r->config->name);
      g_string_append_printf (o, ",%s,%s,%s,%s", r->figures.workload, r->figures.node, nf->name, nf->unit);
      csv_num (o, nf->value);
      const double l[4] = { nf->latency.mean_ns, nf->latency.p50_ns, nf->latency.p99_ns, nf->latency.max_ns };
      for (int k = 0; k < 4; k++)
        csv_num (o, nf->latency.valid ? l[k] : NAN);
      g_string_append_c (o, '\n');
    }
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
    ps_report_render_json (out, r, with_wall);
    break;
  }
}
