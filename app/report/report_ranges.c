/* report_ranges.c — the intervals and sensitivities of --ranges in the reports (report_ranges.h). */
#include "app/report/report_ranges.h"

#include <math.h>
#include <string.h>

void
ps_ranges_figures (const PsRunResult *r, double out[PS_RANGE_N])
{
  for (int f = 0; f < PS_RANGE_N; f++)
    out[f] = NAN;
  for (int i = 0; i < PS_N_MODES; i++) {
    const PsModeResult *m = &r->modes[i];
    if (!m->ran)
      continue;
    out[PS_RANGE_MODE + 2 * i] = i == PS_SIMULTANEOUS ? m->read_mbps : m->mbps;
    if (i == PS_SIMULTANEOUS)
      out[PS_RANGE_MODE + 2 * i + 1] = m->write_mbps;
  }
  for (guint k = 0; r->fabric.ran && k < r->fabric.n_flows; k++)
    if (r->fabric.flows[k].ran)
      out[PS_RANGE_FLOW + k] = r->fabric.flows[k].mbps;
  if (r->microbench.ran) {
    out[PS_RANGE_MB_GBPS] = r->microbench.gbps;
    out[PS_RANGE_MB_P50] = r->microbench.latency.p50_ns;
  }
  for (guint i = 0; r->figures.ran && i < r->figures.n; i++)
    out[PS_RANGE_FIG + i] = r->figures.fig[i].value;
}

/* --- writing them ---------------------------------------------------------------------------------------- */

/* The decimals of a figure as the report writes it: MB/s 2, Gb/s 3, ns 3. */
static int
decimals (int f)
{
  return f == PS_RANGE_MB_GBPS || f >= PS_RANGE_MB_P50 ? 3 : 2;
}

/* In the text: MB/s and ns to 0.1, Gb/s to 0.001, as the tables write them. */
static int
text_decimals (int f)
{
  return f == PS_RANGE_MB_GBPS ? 3 : 1;
}

/* The assumptions an end was found at, those not at their file values: {key: value}. */
static void
at_member (PsJson *j, const PsRanges *r, const char *name, const double *at)
{
  ps_json_key (j, name);
  ps_json_object (j, 0);
  for (guint a = 0; a < r->n_assumptions; a++)
    if (at[a] != r->assumptions[a].value) {
      ps_json_key (j, r->assumptions[a].key);
      ps_json_general (j, at[a], 15);
    }
  ps_json_end (j);
}

void
ps_ranges_json_members (PsJson *j, const PsRanges *r, int f, const char *prefix)
{
  const PsFigureRange *fr = &r->fig[f];
  if (!fr->valid)
    return;
  g_autofree char *rk = g_strconcat (prefix, "range", NULL), *sk = g_strconcat (prefix, "sensitivity", NULL);
  int d = decimals (f);
  ps_json_key (j, rk);
  ps_json_object (j, 0);
  ps_json_fixed_member (j, "lo", fr->lo, d);
  ps_json_fixed_member (j, "hi", fr->hi, d);
  ps_json_uint_member (j, "samples", fr->samples);
  ps_json_uint_member (j, "assumptions", r->n_assumptions);
  /* The bound is a search's, not a sample's (docs/trust.md): how it was found, and where. */
  ps_json_string_member (j, "method", "worst_case_search");
  ps_json_uint_member (j, "runs", fr->samples);
  ps_json_uint_member (j, "budget_per_end", r->budget);
  at_member (j, r, "lo_at", fr->lo_at);
  at_member (j, r, "hi_at", fr->hi_at);
  if (r->sampled) {
    ps_json_key (j, "sample");
    ps_json_object (j, 0);
    ps_json_fixed_member (j, "lo", fr->sample_lo, d);
    ps_json_fixed_member (j, "hi", fr->sample_hi, d);
    ps_json_uint_member (j, "points", r->sampled);
    ps_json_end (j);
  }
  ps_json_end (j);
  ps_json_key (j, sk);
  ps_json_array (j, 0);
  for (guint a = 0; a < r->n_assumptions; a++) {
    const PsSensitivity *s = &fr->sens[a];
    ps_json_object (j, 0);
    ps_json_string_member (j, "key", s->key);
    ps_json_key (j, "lo_value");
    ps_json_general (j, s->lo_value, 15);
    ps_json_key (j, "hi_value");
    ps_json_general (j, s->hi_value, 15);
    ps_json_fixed_member (j, "lo_figure", s->lo_figure, d);
    ps_json_fixed_member (j, "hi_figure", s->hi_figure, d);
    ps_json_end (j);
  }
  ps_json_end (j);
}

void
ps_ranges_json_assumptions (PsJson *j, const PsRanges *r, const PsConfig *cfg)
{
  ps_json_key (j, "assumptions");
  ps_json_array (j, 4 | PS_JSON_BREAK_EMPTY);
  for (guint a = 0; a < r->n_assumptions; a++) {
    const PsAssumption *as = &r->assumptions[a];
    ps_json_object (j, 0);
    ps_json_string_member (j, "key", as->key);
    ps_json_key (j, "value");
    ps_json_general (j, as->value, 15);
    ps_json_key (j, "lo");
    ps_json_general (j, as->lo, 15);
    ps_json_key (j, "hi");
    ps_json_general (j, as->hi, 15);
    ps_json_string_member (j, "at", as->at);
    ps_json_bool_member (j, "read", !r->unread[a]);
    ps_json_end (j);
  }
  ps_json_end (j);
  ps_json_key (j, "ranges_runs");
  ps_json_object (j, 0);
  ps_json_uint_member (j, "total", r->runs);
  ps_json_uint_member (j, "one_at_a_time", r->one_at_a_time);
  ps_json_uint_member (j, "joint", r->joint);
  ps_json_uint_member (j, "simulated", r->simulated);
  ps_json_uint_member (j, "unread", r->unread_runs);
  ps_json_string_member (j, "joint_kind", r->corners && r->sampled ? "corners+latin_hypercube" : r->corners ? "corners"
                                          : r->sampled ? "latin_hypercube" : "none");
  ps_json_uint_member (j, "corners", r->joint - r->sampled);
  ps_json_uint_member (j, "sampled", r->sampled);
  ps_json_uint_member (j, "searches", r->searches);
  ps_json_uint_member (j, "searched", r->searched);
  ps_json_uint_member (j, "budget_per_end", r->budget);
  ps_json_end (j);
}

static const char *const mode_labels[PS_N_MODES][2] = {
  { "DMA read", NULL }, { "DMA write", NULL }, { "Simultaneous read", "Simultaneous write" },
  { "PIO read", NULL }, { "PIO write", NULL },
};

/* A figure's name and unit in the text. */
static void
figure_name (const PsRunResult *res, int f, const char **name, const char **unit, char *buf, size_t n)
{
  *unit = "MB/s";
  if (f >= PS_RANGE_FIG) {
    *name = res->figures.fig[f - PS_RANGE_FIG].name;
    *unit = res->figures.fig[f - PS_RANGE_FIG].unit;
  } else if (f < PS_RANGE_FLOW) {
    *name = mode_labels[(f - PS_RANGE_MODE) / 2][(f - PS_RANGE_MODE) % 2];
  } else if (f < PS_RANGE_MB_GBPS) {
    g_snprintf (buf, n, "flow %s", res->fabric.flows[f - PS_RANGE_FLOW].name);
    *name = buf;
  } else {
    *name = f == PS_RANGE_MB_GBPS ? "microbench" : "latency p50";
    *unit = f == PS_RANGE_MB_GBPS ? "Gb/s" : "ns";
  }
}

void
ps_ranges_render_text (GString *o, const PsRanges *r, const PsRunResult *res, gboolean markdown)
{
  if (r->n_assumptions == 0) {
    g_string_append_printf (o, "\n%sHow far to trust these figures: no value of this config is an assumption with a "
                            "range; every figure depends on no assumption.%s\n", markdown ? "**" : "",
                            markdown ? "**" : "");
    return;
  }
  g_autofree char *unread = r->unread_runs ? g_strdup_printf (", %u skipped as their assumption is read by nothing "
                                                              "it runs", r->unread_runs) : g_strdup ("");
  guint corners = r->joint - r->sampled;
  GString *joint = g_string_new (NULL);
  if (corners)
    g_string_append_printf (joint, ", %u corners", corners);
  if (r->sampled)
    g_string_append_printf (joint, ", %u Latin-hypercube point%s", r->sampled, r->sampled == 1 ? "" : "s");
  g_string_append_printf (o, "\n%sHow far to trust these figures: %u assumption%s with ranges. Each interval is the "
                          "figure's worst case over the ranges: the lowest and highest found by %u searches (from the "
                          "corner the one-at-a-time runs point to, at most %u runs each), not a sample; a search, not "
                          "a proof.%s\n", markdown ? "**" : "", r->n_assumptions, r->n_assumptions == 1 ? "" : "s",
                          r->searches, r->budget, markdown ? "**\n" : "");
  g_string_append_printf (o, "%s%u runs: the plain one, %u one at a time%s, %u searching; %u simulated%s, the rest "
                          "repeat their values\n", markdown ? "- " : "  ", r->runs, r->one_at_a_time, joint->str,
                          r->searched, r->simulated, unread);
  g_string_free (joint, TRUE);
  GString *keys = g_string_new (NULL);
  for (guint a = 0; a < r->n_assumptions; a++)
    if (r->unread[a])
      g_string_append_printf (keys, "%s%s", keys->len ? ", " : "", r->assumptions[a].key);
  if (keys->len)
    g_string_append_printf (o, "%sread by nothing it runs (move no figure): %s\n", markdown ? "- " : "  ", keys->str);
  g_string_free (keys, TRUE);
  for (int f = 0; f < PS_RANGE_N; f++) {
    const PsFigureRange *fr = &r->fig[f];
    if (!fr->valid)
      continue;
    const char *name, *unit;
    char buf[96];
    figure_name (res, f, &name, &unit, buf, sizeof buf);
    int d = text_decimals (f);
    g_string_append_printf (o, "%s%-20s %.*f %s ", markdown ? "- " : "  ", name, d, fr->value, unit);
    if (fr->lo == fr->hi) {
      g_string_append (o, "(depends on no assumption)\n");
      continue;
    }
    g_string_append_printf (o, "(worst case %.*f–%.*f over the ranges", d, fr->lo, d, fr->hi);
    if (r->sampled)
      g_string_append_printf (o, "; a sample of %u spread %.*f–%.*f", r->sampled, d, fr->sample_lo, d, fr->sample_hi);
    g_string_append (o, ")\n");
    GString *most = g_string_new (NULL);
    for (guint a = 0, shown = 0; a < r->n_assumptions && shown < 3; a++) {
      const PsSensitivity *s = &fr->sens[a];
      /* An effect that rounds to nothing as printed ("2891.2→2891.2") says nothing: the list stops there. */
      char lo_text[G_ASCII_DTOSTR_BUF_SIZE], hi_text[G_ASCII_DTOSTR_BUF_SIZE];
      g_snprintf (lo_text, sizeof lo_text, "%.*f", d, s->lo_figure);
      g_snprintf (hi_text, sizeof hi_text, "%.*f", d, s->hi_figure);
      if (!(fabs (s->hi_figure - s->lo_figure) > 0) || strcmp (lo_text, hi_text) == 0)
        break;
      /* A boolean's ends are its words; its JSON keeps 0 and 1, as every value there is a number. */
      g_autofree char *lo_v = ps_config_number_text (s->key, s->lo_value);
      g_autofree char *hi_v = ps_config_number_text (s->key, s->hi_value);
      g_string_append_printf (most, "%s%s %s→%s: %s→%s", shown++ ? "; " : "", s->key, lo_v, hi_v, lo_text, hi_text);
    }
    if (most->len)
      g_string_append_printf (o, "%s%-20s moved most by %s\n", markdown ? "  " : "  ", "", most->str);
    else
      g_string_append_printf (o, "%s%-20s no assumption alone moves it; only together\n", markdown ? "  " : "  ", "");
    g_string_free (most, TRUE);
  }
}
