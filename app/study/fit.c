/* fit.c — `pciesim fit`: the search and the fitted config (fit.h); the measurement file is fit_file.c's. */
#include "app/study/fit.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app/run/builder.h"
#include "app/config/config.h"
#include "app/config/load.h"
#include "app/base/error.h"
#include "app/base/format.h"
#include "app/study/metrics.h"
#include "app/study/sweep.h"
#include "app/config/ytree.h"

#include "app/study/fit_impl.h"

/* --- output ---------------------------------------------------------------------------------------------- */

/* `target` relative to directory `from` (both made absolute), for the fitted config's include. */
static char *
relative_to (const char *from, const char *target)
{
  g_autofree char *a = g_canonicalize_filename (from, NULL), *b = g_canonicalize_filename (target, NULL);
  g_auto (GStrv) pa = g_strsplit (a, "/", -1), pb = g_strsplit (b, "/", -1);
  guint i = 0;
  while (pa[i] && pb[i] && strcmp (pa[i], pb[i]) == 0)
    i++;
  GString *s = g_string_new (NULL);
  for (guint k = i; pa[k]; k++)
    if (*pa[k])
      g_string_append (s, "../");
  for (guint k = i; pb[k]; k++)
    g_string_append_printf (s, "%s%s", pb[k], pb[k + 1] ? "/" : "");
  return g_string_free (s, FALSE);
}

static void
value_text (GString *o, const Parameter *p)
{
  /* A boolean is searched as 0 or 1 but written as the word its key reads back. */
  if (ps_config_key_boolean (p->a->key))
    g_string_append (o, p->value > 0 ? "true" : "false");
  else if (p->integer)
    g_string_append_printf (o, "%" G_GINT64_FORMAT, (int64_t) p->value);
  else
    g_string_append_printf (o, "%.6g", p->value);
}

/* A parameter's range as the report and the fitted file print it (a boolean's ends as words). */
static char *
range_text (const Parameter *p)
{
  g_autofree char *lo = ps_config_number_text (p->a->key, p->a->lo), *hi = ps_config_number_text (p->a->key, p->a->hi);
  return g_strdup_printf ("[%s, %s]", lo, hi);
}

static void
write_config (const Fit *f, GString *o, double rms_pct)
{
  g_autofree char *outdir = g_path_get_dirname (f->opt->output);
  g_autofree char *inc = relative_to (outdir, f->base->path);
  g_string_append_printf (o, "# Fitted by pciesim fit %s: %u measurement%s, relative RMS error %.2f%%. Each value "
                          "below was\n# searched within its assumption's range; the measurements are the fit file's, "
                          "never this config's\n# inputs beyond these values. Unconstrained parameters keep the "
                          "base's values and ranges.\n", f->opt->path, f->m->len, f->m->len == 1 ? "" : "s", rms_pct);
  g_string_append_printf (o, "include: [%s]\n", inc);
  /* Keys in table order grouped by section; a section is opened when the previous key's differs. */
  g_auto (GStrv) prev = NULL;
  for (const char *const *key = ps_config_keys (); *key; key++) {
    const Parameter *p = NULL;
    for (guint k = 0; k < f->p->len; k++)
      if (g_array_index (f->p, Parameter, k).constrained && !strcmp (g_array_index (f->p, Parameter, k).a->key, *key))
        p = &g_array_index (f->p, Parameter, k);
    if (!p)
      continue;
    g_auto (GStrv) parts = g_strsplit (*key, ".", -1);
    guint n = g_strv_length (parts), same = 0;
    while (prev && prev[same] && parts[same + 1] && !strcmp (prev[same], parts[same]))
      same++;
    for (guint d = same; d + 1 < n; d++)
      g_string_append_printf (o, "%*s%s:\n", (int) (2 * d), "", parts[d]);
    g_string_append_printf (o, "%*s%s: ", (int) (2 * (n - 1)), "", parts[n - 1]);
    value_text (o, p);
    /* Where the value was set, not where its range is (PsAssumption.at). */
    const PsKeyOrigin *from = ps_config_origin (f->base, p->a->key);
    g_autofree char *range = range_text (p), *was = ps_config_number_text (p->a->key, p->file_value);
    g_string_append_printf (o, "   # fitted by pciesim fit %s within %s (was %s at %s)\n", f->opt->path, range, was,
                            from && from->at ? from->at : p->a->at);
    g_strfreev (prev);
    prev = g_steal_pointer (&parts);
  }
}

static double
residual_pct (const Measurement *m, double fitted)
{
  return (fitted - m->measured) / m->measured * 100;
}

static gboolean
beyond_uncertainty (const Measurement *m, double fitted)
{
  return m->has_uncertainty && !(fabs (residual_pct (m, fitted)) <= m->uncertainty_pct);
}

static void
fit_text (const Fit *f, GString *report, const double *fig, double rms, guint judged, guint off)
{
  g_string_append_printf (report, "fit of %s on %s: %u measurement%s, %u parameter%s (%u constrained), %u "
                          "evaluations (NLopt Nelder-Mead; integers by a grid, then single steps; %u restart%s)\n\n",
                          f->opt->path, f->base->path, f->m->len, f->m->len == 1 ? "" : "s", f->p->len,
                          f->p->len == 1 ? "" : "s", f->n_free, f->evaluations, f->restarts,
                          f->restarts == 1 ? "" : "s");
  g_string_append (report, "measurement                                          metric                        "
                           "measured      fitted   residual\n");
  for (guint i = 0; i < f->m->len; i++) {
    const Measurement *m = &g_array_index (f->m, Measurement, i);
    g_string_append_printf (report, "%-52s %-28s %9.4g %11.4g %+9.2f%%", m->label, m->metric_node->value,
                            m->measured, fig[i], residual_pct (m, fig[i]));
    if (m->has_uncertainty)
      g_string_append_printf (report, "  (±%g%%%s)", m->uncertainty_pct,
                              beyond_uncertainty (m, fig[i]) ? ": DISAGREES" : "");
    else
      g_string_append (report, "  (no uncertainty: no verdict)");
    g_string_append_c (report, '\n');
  }
  g_string_append (report, "\nparameter                        range              file value      fitted   by the data\n");
  for (guint k = 0; k < f->p->len; k++) {
    const Parameter *p = &g_array_index (f->p, Parameter, k);
    /* %g is %.6g: the table's six significant digits. */
    g_autofree char *range = range_text (p), *was = ps_config_number_text (p->a->key, p->file_value);
    g_autofree char *now = ps_config_number_text (p->a->key, p->value);
    if (!p->constrained) {
      g_string_append_printf (report, "%-32s %-18s %10s %11s   unconstrained: it moves no measured figure; file "
                              "value kept\n", p->a->key, range, was, now);
      continue;
    }
    g_autofree char *fits_lo = ps_config_number_text (p->a->key, p->fits_lo);
    g_autofree char *fits_hi = ps_config_number_text (p->a->key, p->fits_hi);
    g_autofree char *fits = g_strdup_printf ("%s to %s", fits_lo, fits_hi);
    g_string_append_printf (report, "%-32s %-18s %10s %11s   constrained: %s fit as well%s\n", p->a->key, range,
                            was, now, fits,
                            p->fits_lo == p->a->lo || p->fits_hi == p->a->hi ? " (to the range's end: a plateau)"
                                                                              : "");
  }
  if (f->n_free > f->m->len)
    g_string_append_printf (report, "\n%u constrained parameters on %u measurement%s: the data fix at most %u "
                            "combination%s of them; the values above are one of many that fit as well.\n", f->n_free,
                            f->m->len, f->m->len == 1 ? "" : "s", f->m->len, f->m->len == 1 ? "" : "s");
  if (f->n_free > 0)
    g_string_append_printf (report, "\n\"fit as well\": each parameter fixed at a value and the others re-fitted "
                            "(a profile), within %.1f percentage points of the fit's relative RMS error.\n", FIT_AS_WELL);
  /* "Unconstrained" was judged at the file values, the fitted point and every restart's start (rescreen()). */
  g_string_append_printf (report, "\nrelative RMS error %.3f%%\n", rms);
  /* No uncertainty, no verdict: a tolerance the user did not state would be ours, not the data's. The largest
   * such residual is still said, so that a bad fit cannot pass for an unjudged good one. */
  guint unjudged = f->m->len - judged;
  double worst = 0;
  for (guint i = 0; i < f->m->len; i++)
    if (!g_array_index (f->m, Measurement, i).has_uncertainty)
      worst = MAX (worst, fabs (residual_pct (&g_array_index (f->m, Measurement, i), fig[i])));
  if (judged == 0)
    g_string_append_printf (report, "no verdict: no measurement gives uncertainty_pct, so whether the fit explains the "
                            "data is not judged (largest residual %.2f%%; give each measurement its uncertainty_pct: "
                            "to have one)\n", worst);
  else if (off == 0 && unjudged == 0)
    g_string_append_printf (report, "the fit explains the data: every one of the %u measurement%s with an "
                            "uncertainty is within it\n", judged, judged == 1 ? "" : "s");
  else if (off == 0)
    g_string_append_printf (report, "the fit explains only the measurements with an uncertainty: each of the %u is "
                            "within it\n", judged);
  else {
    g_string_append_printf (report, "the fit does NOT explain the data: %u of the %u measurement%s with an uncertainty "
                            "disagree%s beyond it (contradictory, or out of the model's reach within the ranges):\n",
                            off, judged, judged == 1 ? "" : "s", off == 1 ? "s" : "");
    for (guint i = 0; i < f->m->len; i++) {
      const Measurement *m = &g_array_index (f->m, Measurement, i);
      if (beyond_uncertainty (m, fig[i]))
        g_string_append_printf (report, "  %s:%d: %s %s measured %g, fitted %.4g (%+.2f%%, beyond ±%g%%)\n",
                                m->at->origin, m->at->line, m->label, m->metric_node->value, m->measured, fig[i],
                                residual_pct (m, fig[i]), m->uncertainty_pct);
    }
  }
  if (judged > 0 && unjudged > 0)
    g_string_append_printf (report, "%u measurement%s give%s no uncertainty_pct: no verdict on %s (largest residual "
                            "%.2f%%)\n", unjudged, unjudged == 1 ? "" : "s", unjudged == 1 ? "s" : "",
                            unjudged == 1 ? "it" : "them", worst);
}

/* The same as JSON: parameters (key, range, start, fitted, interval, constrained), measurements (set, metric,
 * measured, fitted, residual, uncertainty and verdict), rms, and the verdict on the whole. */
static void
fit_json (const Fit *f, GString *report, const double *fig, double rms, guint judged, guint off)
{
  PsJson j;
  ps_json_init (&j, report);
  ps_json_object (&j, 2);
  ps_json_int_member (&j, "schema", 1);
  ps_json_string_member (&j, "file", f->opt->path);
  ps_json_string_member (&j, "base", f->base->path);
  ps_json_uint_member (&j, "evaluations", f->evaluations);
  ps_json_uint_member (&j, "restarts", f->restarts);
  ps_json_key (&j, "parameters");
  ps_json_array (&j, 4 | PS_JSON_BREAK_EMPTY);
  for (guint k = 0; k < f->p->len; k++) {
    const Parameter *p = &g_array_index (f->p, Parameter, k);
    ps_json_object (&j, 0);
    ps_json_string_member (&j, "key", p->a->key);
    ps_json_key (&j, "range");
    ps_json_array (&j, 0);
    ps_json_general (&j, p->a->lo, 15);
    ps_json_general (&j, p->a->hi, 15);
    ps_json_end (&j);
    ps_json_key (&j, "start");
    ps_json_general (&j, p->file_value, 15);
    ps_json_key (&j, "fitted");
    ps_json_general (&j, p->value, 15);
    ps_json_key (&j, "interval");
    if (p->constrained) {
      ps_json_array (&j, 0);
      ps_json_general (&j, p->fits_lo, 15);
      ps_json_general (&j, p->fits_hi, 15);
      ps_json_end (&j);
    } else
      ps_json_raw (&j, "null");
    ps_json_bool_member (&j, "constrained", p->constrained);
    ps_json_end (&j);
  }
  ps_json_end (&j);
  ps_json_key (&j, "measurements");
  ps_json_array (&j, 4 | PS_JSON_BREAK_EMPTY);
  for (guint i = 0; i < f->m->len; i++) {
    const Measurement *m = &g_array_index (f->m, Measurement, i);
    ps_json_object (&j, 0);
    ps_json_key (&j, "set");
    ps_json_object (&j, 0);
    for (guint s = 0; m->sets[s]; s++) {
      const char *eq = strchr (m->sets[s], '=');
      g_autofree char *key = g_strndup (m->sets[s], (gsize) (eq - m->sets[s]));
      ps_json_string_member (&j, key, eq + 1);
    }
    ps_json_end (&j);
    ps_json_string_member (&j, "metric", m->metric_node->value);
    ps_json_key (&j, "measured");
    ps_json_general (&j, m->measured, 15);
    ps_json_key (&j, "fitted");
    ps_json_general (&j, fig[i], 15);
    ps_json_fixed_member (&j, "residual_pct", residual_pct (m, fig[i]), 3);
    if (m->has_uncertainty) {
      ps_json_key (&j, "uncertainty_pct");
      ps_json_general (&j, m->uncertainty_pct, 15);
      ps_json_bool_member (&j, "within_uncertainty", !beyond_uncertainty (m, fig[i]));
    }
    ps_json_string_member (&j, "verdict", !m->has_uncertainty ? "no_uncertainty"
                                          : beyond_uncertainty (m, fig[i]) ? "disagrees" : "within");
    ps_json_end (&j);
  }
  ps_json_end (&j);
  ps_json_fixed_member (&j, "rms_pct", rms, 3);
  ps_json_uint_member (&j, "judged", judged);
  ps_json_uint_member (&j, "disagree", off);
  ps_json_uint_member (&j, "unjudged", f->m->len - judged);
  ps_json_string_member (&j, "verdict", judged == 0 ? "no_verdict" : off > 0 ? "does_not_explain"
                                        : judged < f->m->len ? "explains_judged_only" : "explains");
  ps_json_end (&j);
  g_string_append_c (report, '\n');
}

gboolean
ps_fit_run (const PsFit *opt, GString *report, gboolean *disagree, GError **error)
{
  g_autoptr (YNode) root = ytree_load_file (opt->path, error);
  if (!root) {
    if (error && !*error)
      ps_error_located (error, PS_ERROR_DATA, opt->path, 1, 1, "empty file: a fit file gives base: and measurements:");
    return FALSE;
  }
  Fit f = { .opt = opt, .m = g_array_new (FALSE, TRUE, sizeof (Measurement)),
            .p = g_array_new (FALSE, TRUE, sizeof (Parameter)),
            .cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free),
            .starts = g_array_new (FALSE, FALSE, sizeof (double)), .best_cost = HUGE_VAL };
  g_array_set_clear_func (f.m, fit_measurement_clear);
  g_mutex_init (&f.progress_lock);
  /* Every evaluation loads the base again with its values as --sets: its files are parsed once (ytree.h). */
  ytree_cache_begin ();
  gboolean ok = fit_load_file (&f, root, error) && fit_screen (&f, error) && fit_search (&f, error)
                && fit_rescreen (&f, error) && fit_profiles (&f, error);
  if (f.progress_at)
    fputs ("\n", stderr);
  g_autofree double *v = g_new (double, f.p->len + 1);
  const double *fig = NULL;
  if (ok) {
    for (guint k = 0; k < f.p->len; k++)
      v[k] = g_array_index (f.p, Parameter, k).value;
    Search s;
    fit_search_init (&s, &f);
    fig = fit_evaluate (&s, v);
    ok = fig != NULL;
    if (!ok)
      g_propagate_error (error, g_steal_pointer (&s.fail));
    fit_search_clear (&s);
  }
  ytree_cache_end ();
  if (ok) {
    double rms = fit_rms_pct (&f, fit_cost (&f, fig));
    /* Whether the fit explains the data: each measurement that says how far it may be off, against its residual. */
    guint judged = 0, off = 0;
    for (guint i = 0; i < f.m->len; i++) {
      const Measurement *m = &g_array_index (f.m, Measurement, i);
      judged += m->has_uncertainty;
      off += m->has_uncertainty && !(fabs (fig[i] - m->measured) / m->measured * 100 <= m->uncertainty_pct);
    }
    if (disagree)
      *disagree = off > 0;
    if (opt->format == PS_FORMAT_JSON)
      fit_json (&f, report, fig, rms, judged, off);
    else
      fit_text (&f, report, fig, rms, judged, off);
    if (opt->output) {
      g_autoptr (GString) cfg = g_string_new (NULL);
      write_config (&f, cfg, rms);
      ok = ps_write_output (opt->output, cfg, error);
    }
  }
  g_mutex_clear (&f.progress_lock);
  g_array_unref (f.m);
  g_array_unref (f.p);
  g_free (f.free_idx);
  g_hash_table_unref (f.cache);
  g_array_unref (f.starts);
  ps_config_free (f.base);
  return ok;
}
