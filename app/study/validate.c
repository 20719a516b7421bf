/* validate.c — parallel runs of the published configs and one comparison table.
 *
 * The calibration test (run by CI) parses its JSON and docs/validation.md's AN-456 tables are drawn from it, so
 * the output must not vary between runs: rows follow the input order (sorted when discovered), numbers have a
 * fixed precision, and nothing depends on which worker finished first. The statistics score the model, not the
 * data: a published figure above the protocol limit is shown but never counted (report.h), nor, unless --strict,
 * one its config marks as a suspect measurement (published.suspect, with the evidence in its reason).
 */
#include "app/study/validate.h"

#include <math.h>
#include <string.h>

#include "app/run/builder.h"
#include "app/config/config.h"
#include "app/config/load.h"
#include "pciesim-version.h"
#include "app/base/error.h"

/* One config's run. Workers write only their own Job; the main thread reads them after the pool has joined,
 * so no locking is needed and the report order is the input order whatever finished first. */
typedef struct {
  char *path;
  const char *const *sets; /* shared by every job and only read, so no copy per job */
  uint64_t seed;
  PsConfig *cfg;
  PsRunResult result;
  GError *error;
} Job;

/* ./configs first so a user's own checkout (or a copy with edited configs) wins over the shipped ones. Then the
 * configs installed with this binary: ../share/pciesim beside it (which also holds for a DESTDIR-staged or moved
 * install), else the configured data dir. A binary still in its build tree has none installed and uses the
 * source tree it was built from, which is also the last resort. */
char *
ps_default_configs_dir (void)
{
  if (g_file_test ("configs", G_FILE_TEST_IS_DIR))
    return g_strdup ("configs");
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  if (exe) {
    g_autofree char *bindir = g_path_get_dirname (exe);
    g_autofree char *beside = g_build_filename (bindir, "..", "share", "pciesim", "configs", NULL);
    if (g_file_test (beside, G_FILE_TEST_IS_DIR))
      return g_canonicalize_filename (beside, NULL);
  }
  gboolean in_build_tree = exe && g_str_has_prefix (exe, PCIESIM_BUILD_ROOT G_DIR_SEPARATOR_S);
  if (!in_build_tree && g_file_test (PCIESIM_DATADIR G_DIR_SEPARATOR_S "configs", G_FILE_TEST_IS_DIR))
    return g_strdup (PCIESIM_DATADIR G_DIR_SEPARATOR_S "configs");
  return g_build_filename (PCIESIM_SOURCE_ROOT, "configs", NULL);
}

/* Directory order is filesystem-dependent; sorting makes the report (and CI logs) identical everywhere. */
static gint
cmp_str (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

GPtrArray *
ps_find_published_configs (const char *dir, GError **error)
{
  g_autoptr (GError) e = NULL;
  g_autoptr (GDir) d = g_dir_open (dir, 0, &e);
  if (!d) {
    ps_error_plain (error, PS_ERROR_NOINPUT, "%s", e->message);
    return NULL;
  }
  g_autoptr (GPtrArray) all = g_ptr_array_new_with_free_func (g_free);
  /* Only files directly in dir: the subdirectories of configs/ (hosts/, families/, benchmarks/) hold fragments
   * that rows include, which are not runnable configs on their own. */
  for (const char *n; (n = g_dir_read_name (d));)
    if (g_str_has_suffix (n, ".yaml"))
      g_ptr_array_add (all, g_build_filename (dir, n, NULL));
  g_ptr_array_sort (all, cmp_str);
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  /* Loading every file both filters and validates: a broken config under configs/ must fail validate loudly
   * rather than silently drop out of the statistics. */
  for (guint i = 0; i < all->len; i++) {
    g_autoptr (PsConfig) cfg = ps_config_load (all->pdata[i], NULL, error);
    if (!cfg) {
      g_ptr_array_unref (out);
      return NULL;
    }
    if (cfg->published.present)
      g_ptr_array_add (out, g_strdup (all->pdata[i]));
  }
  return out;
}

/* Every published row runs all three modes, whatever its benchmark.modes says: the comparison needs them. An
 * error stays in the job instead of stopping the pool, so one broken config does not cancel the others' runs. */
static void
run_job (gpointer data, gpointer user)
{
  Job *j = data;
  (void) user;
  j->cfg = ps_config_load (j->path, j->sets, &j->error);
  /* Discovery keeps only configs with a published: block; one named on the command line without one has nothing
   * to validate, which an empty table with exit status 0 would hide. */
  if (j->cfg && !j->cfg->published.present) {
    ps_error_located (&j->error, PS_ERROR_DATA, j->path, 1, 1, "no published: block, so nothing to validate "
                      "(pciesim %s runs it)", j->path);
    return;
  }
  if (j->cfg)
    ps_run_config (j->cfg, PS_MODE_ALL, j->seed, &j->result, &j->error);
}

/* Running totals for the summary line. The theoretical formula's error is accumulated over the same figures so
 * the two means compare like with like. */
typedef struct {
  int counted, flagged, suspect, beyond, accepted, not_comparable;
  const char *changed_by; /* the keys a --set changed, when that left figures not comparable */
  double sum_abs, max_abs, theo_sum_abs;
  const char *max_config, *max_figure; /* borrowed from the jobs, which outlive the rendering */
} Summary;

/* One compared figure as a row of the format asked for. */
static void
render_row (GString *o, PsJson *json, const PsValidate *v, const Job *j, const PsFigure *f, const char *flag,
            bool accepted, double tolerance)
{
  gboolean md = v->format == PS_FORMAT_MARKDOWN, csv = v->format == PS_FORMAT_CSV, js = v->format == PS_FORMAT_JSON;
  /* The flag rides in the error cell in Markdown, where a column that is almost always empty would only widen
   * the docs/validation.md tables; CSV and JSON give it a field of its own, which scripts can filter on. CSV
   * and JSON carry the same four numbers, at the same precision. */
  const double numbers[] = { f->simulated, f->published, f->error_pct, j->result.theoretical_mbps };
  if (md) {
    g_string_append (o, "| ");
    ps_md_cell (o, j->cfg->name);
    g_string_append_printf (o, " | %s | %.1f | %.1f | %+.1f%%%s | %.1f |\n", f->label, f->simulated,
                            f->published, f->error_pct,
                            f->above_limit ? " (flagged: published above protocol limit)"
                            : *flag == 's'   ? " (suspect, left out)"
                            : *flag == 'a'   ? " (accepted: its own tolerance)" : "",
                            j->result.theoretical_mbps);
  } else if (csv) {
    ps_csv_cell (o, j->cfg->name);
    g_string_append_printf (o, ",%s", f->key);
    for (int c = 0; c < 4; c++) {
      g_string_append_c (o, ',');
      ps_fmt_fixed (o, numbers[c], 2);
    }
    g_string_append_printf (o, ",%s\n", flag);
  } else if (js) {
    ps_json_object (json, 0);
    ps_json_string_member (json, "config", j->cfg->name);
    ps_json_string_member (json, "figure", f->key);
    const char *keys[] = { "simulated_mbps", "published_mbps", "error_pct", "theoretical_mbps" };
    for (int c = 0; c < 4; c++) {
      ps_json_fixed_member (json, keys[c], numbers[c], 2);
    }
    ps_json_string_member (json, "flag", flag);
    /* The evidence travels with the mark, whether or not --strict counted the figure. */
    if (f->suspect)
      ps_json_string_member (json, "suspect_reason", f->suspect_reason);
    if (accepted) {
      ps_json_fixed_member (json, "tolerance_pct", tolerance, 2);
      ps_json_string_member (json, "accepted_reason", j->cfg->published.accepted_reason);
    }
    ps_json_end (json);
  } else
    g_string_append_printf (o, "%-20s %-20s %9.1f  %9.1f  %+6.1f%%  %11.1f  %s\n", j->cfg->name, f->label,
                            f->simulated, f->published, f->error_pct, j->result.theoretical_mbps, flag);
}

/* The summary after the rows (none in CSV). */
static void
render_summary (GString *o, PsJson *json, const PsValidate *v, const Summary *s)
{
  gboolean md = v->format == PS_FORMAT_MARKDOWN, csv = v->format == PS_FORMAT_CSV, js = v->format == PS_FORMAT_JSON;
  /* CSV stays a pure table (one row per figure) so it can be loaded as is; the other formats end with the summary.
   * With nothing counted the means are 0 rather than NaN, which JSON could not carry and a reader would not
   * expect; the figure count of 0 beside them says why. */
  double mean = s->counted ? s->sum_abs / s->counted : 0, theo = s->counted ? s->theo_sum_abs / s->counted : 0;
  if (js) {
    ps_json_end (json);
    ps_json_key (json, "summary");
    ps_json_object (json, 0);
    ps_json_int_member (json, "figures", s->counted);
    ps_json_int_member (json, "flagged", s->flagged);
    ps_json_int_member (json, "suspect", s->suspect);
    ps_json_fixed_member (json, "mean_abs_error_pct", mean, 3);
    ps_json_fixed_member (json, "max_abs_error_pct", s->max_abs, 3);
    ps_json_int_member (json, "beyond_tolerance", s->beyond);
    ps_json_int_member (json, "accepted", s->accepted);
    ps_json_fixed_member (json, "theoretical_mean_abs_error_pct", theo, 3);
    /* Added keys, present only when a --set left figures out, so an ordinary report keeps its bytes. */
    if (s->not_comparable) {
      ps_json_int_member (json, "not_comparable", s->not_comparable);
      g_autofree char *why = g_strdup_printf ("config changed by --set %s", s->changed_by);
      ps_json_string_member (json, "not_comparable_why", why);
    }
    ps_json_end (json);
    ps_json_end (json);
  } else if (!csv) {
    g_string_append_printf (o, "%s%d figures (%d flagged and left out, %d of them suspect): mean |error| %.2f%%, "
                               "max |error| %.2f%% (%s %s), %d beyond ±%g%% or their own accepted tolerance (%d "
                               "beyond ±%g%% within it); the theoretical formula is %.2f%% off on average\n",
                            md ? "\n" : "\n", s->counted, s->flagged, s->suspect, mean, s->max_abs,
                            s->max_config ? s->max_config : "-", s->max_figure ? s->max_figure : "", s->beyond,
                            v->tolerance_pct, s->accepted, v->tolerance_pct, theo);
    if (s->not_comparable)
      g_string_append_printf (o, "%d published figures not compared: config changed by --set %s\n",
                              s->not_comparable, s->changed_by);
  }
}

static void
render (GString *o, Job *jobs, guint n, const PsValidate *v, Summary *s)
{
  gboolean md = v->format == PS_FORMAT_MARKDOWN, csv = v->format == PS_FORMAT_CSV, js = v->format == PS_FORMAT_JSON;
  PsJson json;
  ps_json_init (&json, o);
  if (md)
    g_string_append (o, "| config | figure | simulated MB/s | published MB/s | error | theoretical MB/s |\n"
                        "|---|---|---:|---:|---:|---:|\n");
  else if (csv)
    g_string_append (o, "config,figure,simulated_mbps,published_mbps,error_pct,theoretical_mbps,flag\n");
  else if (js) {
    ps_json_object (&json, 2);
    ps_json_int_member (&json, "schema", 1);
    ps_json_fixed_member (&json, "tolerance_pct", v->tolerance_pct, 2);
    ps_json_key (&json, "figures");
    ps_json_array (&json, 4 | PS_JSON_BREAK_EMPTY);
  } else
    g_string_append (o, "config               figure               simulated  published    error  theoretical\n");
  for (guint i = 0; i < n; i++) {
    Job *j = &jobs[i];
    /* A config can load and still fail to run (a stalled run, a figure above the protocol limit): either way
     * there are no figures to show, and ps_validate() turns the error into the command's. */
    if (!j->cfg || j->error)
      continue;
    PsFigure f[PS_N_FIGURES];
    ps_result_figures (&j->result, f);
    /* Only figures with both values are rows: a config named on the command line without a published: block
     * runs but contributes nothing. */
    for (int k = 0; k < PS_N_FIGURES; k++) {
      /* A --set that changed the system leaves nothing to compare (report.h): counted, not shown. */
      if (isfinite (f[k].published) && isfinite (f[k].simulated) && !f[k].comparable) {
        s->not_comparable++;
        if (!s->changed_by)
          s->changed_by = ps_config_set_changes (j->cfg);
      }
      if (!f[k].comparable || !isfinite (f[k].simulated))
        continue;
      const char *flag = "";
      double abs_err = fabs (f[k].error_pct);
      /* A figure whose deviation the config accepts is held to its own tolerance (never below --tolerance). */
      bool accepted = (j->cfg->published.accepted_figures & (1u << k)) != 0;
      double tolerance = accepted ? MAX (j->cfg->published.accepted_tolerance_pct, v->tolerance_pct)
                                  : v->tolerance_pct;
      /* A published figure above the protocol limit is a measurement artifact: report it, never score it. */
      if (f[k].above_limit) {
        flag = "above-protocol-limit";
        s->flagged++;
      } else if (f[k].suspect && !v->strict) {
        flag = "suspect";
        s->flagged++;
        s->suspect++;
      } else {
        s->counted++;
        s->sum_abs += abs_err;
        s->theo_sum_abs += fabs (j->result.theoretical_mbps - f[k].published) / f[k].published * 100;
        /* Strictly greater: on a tie the first row in report order is the one named. */
        if (abs_err > s->max_abs) {
          s->max_abs = abs_err;
          s->max_config = j->cfg->name;
          s->max_figure = f[k].key;
        }
        /* An error exactly at the tolerance passes: "within 5%" includes 5.00%. */
        if (abs_err > tolerance) {
          s->beyond++;
          flag = "beyond-tolerance";
        } else if (abs_err > v->tolerance_pct) {
          s->accepted++;
          flag = "accepted";
        }
      }
      render_row (o, &json, v, j, &f[k], flag, accepted, tolerance);
    }
  }
  render_summary (o, &json, v, s);
}

int
ps_validate (const PsValidate *v, GError **error)
{
  g_autoptr (GPtrArray) paths = NULL;
  /* Named configs run as given, in the order given; each must have a published: block (run_job()). */
  if (v->configs && v->configs[0]) {
    paths = g_ptr_array_new_with_free_func (g_free);
    for (const char *const *c = v->configs; *c; c++)
      g_ptr_array_add (paths, g_strdup (*c));
  } else {
    g_autofree char *dir = ps_default_configs_dir ();
    paths = ps_find_published_configs (dir, error);
    if (!paths)
      return -1;
  }
  guint n = paths->len;
  g_autofree Job *jobs = g_new0 (Job, n);
  /* Runs are independent (each builds its own engine and models), so they parallelise perfectly; the pool is
   * exclusive so it never outlives this call. */
  int workers = v->jobs > 0 ? v->jobs : (int) g_get_num_processors ();
  g_autoptr (GError) e = NULL;
  GThreadPool *pool = g_thread_pool_new (run_job, NULL, MAX (workers, 1), TRUE, &e);
  /* Every config runs with the same seed and --set list, so a row's figures are those `pciesim CONFIG --mode all`
   * prints with the same options. Jobs borrow their path from `paths`, which outlives the pool. */
  for (guint i = 0; i < n; i++) {
    jobs[i] = (Job) { .path = paths->pdata[i], .sets = v->sets, .seed = v->seed };
    g_thread_pool_push (pool, &jobs[i], NULL);
  }
  /* immediate = FALSE, wait = TRUE: every queued job runs to the end before this returns, which is the join that
   * lets render() read the jobs without a lock. */
  g_thread_pool_free (pool, FALSE, TRUE);

  g_autoptr (GString) out = g_string_new (NULL);
  Summary s = { 0 };
  render (out, jobs, n, v, &s);
  /* Exit status 1 (not an error code) lets CI gate on accuracy while still showing the whole table. */
  int rc = s.beyond > 0 ? 1 : 0;
  /* The first failure in input order, not in finishing order, so the same broken config set always gives the
   * same message. */
  GError *first_error = NULL;
  for (guint i = 0; i < n; i++) {
    if (jobs[i].error && !first_error)
      first_error = g_steal_pointer (&jobs[i].error);
    g_clear_error (&jobs[i].error);
    ps_config_free (jobs[i].cfg);
  }
  /* Report the first failing config only after rendering, so every job has finished and been freed. No table is
   * written when a config failed: the command exits with that config's error rather than print a table with rows
   * missing that could pass for a complete one. */
  if (first_error) {
    g_propagate_error (error, first_error);
    return -1;
  }
  if (!ps_write_output (v->output, out, error))
    return -1;
  return rc;
}
