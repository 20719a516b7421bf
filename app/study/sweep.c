/* sweep.c — points -> worker threads -> rows -> one file; --resume and merge.
 *
 * A sweep file is a header (the CSV column names, or the JSON object up to "points": [), one line per point, and
 * in JSON the closing brackets. Every write — final, checkpoint, resumed, merged — goes through render_file(),
 * with rows as finished strings, which is what makes the outputs agree byte for byte. Reading back is
 * sweep_file.c's (sweep_file_parse(): records, never bytes), and a row's text is kept beside what it holds, so a
 * row read back is written again unchanged.
 *
 * The main thread queues the positions of the points to run on a GThreadPool and waits; a worker loads (and in
 * phase 2 runs) one point, renders its row and stores it in the point's own slot. Rows live by position and are
 * never appended, so the file lists points in point order whatever finished first, and the main thread handles
 * only finished row strings, in checkpoints and in the final write.
 *
 * The final write, checkpoints, --resume and merge all go through render_file() here, the one writer that keeps
 * their outputs byte-identical; sweep_file.c only reads (the metrics a row holds are metrics.c's).
 */
#include "app/study/sweep.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/run/builder.h"
#include "pciesim-version.h"
#include "app/base/error.h"
#include "app/study/ranges.h"
#include "app/study/scenario.h"
#include "app/study/sweep_file.h"

/* Rewrite a partial output at most this often, and never spend more than ~5% of the time doing it. */
#define CHECKPOINT_MIN_US (5 * G_USEC_PER_SEC)
#define PROGRESS_PERIOD_US (G_USEC_PER_SEC / 4) /* live enough to watch, rare enough to cost nothing */

/* 1-based like the point ids, so `--shard 1/1` is the whole sweep and I = N is the last shard. */
gboolean
ps_sweep_parse_shard (const char *spec, guint *index, guint *count, GError **error)
{
  guint64 i = 0, n = 0;
  const char *slash = strchr (spec, '/');
  g_autofree char *left = slash ? g_strndup (spec, (gsize) (slash - spec)) : NULL;
  /* g_ascii_string_to_unsigned rejects signs, spaces and trailing junk, so "-1/3", " 1/3" and "1/3x" fail. */
  if (!slash || !g_ascii_string_to_unsigned (left, 10, 1, G_MAXUINT, &i, NULL) ||
      !g_ascii_string_to_unsigned (slash + 1, 10, 1, G_MAXUINT, &n, NULL) || i > n) {
    ps_error_plain (error, PS_ERROR_USAGE, "--shard '%s': expected I/N with 1 <= I <= N, e.g. 2/8", spec);
    return FALSE;
  }
  *index = (guint) i;
  *count = (guint) n;
  return TRUE;
}

/* --- the header (its struct is sweep_file.h's) ---------------------------------------------------------- */

static void
header_from_scenario (SweepHeader *h, const PsScenario *s, PsFormat format, uint64_t seed)
{
  *h = (SweepHeader) { .format = format, .version = g_strdup (PCIESIM_VERSION), .scenario = g_strdup (s->name),
                       .seed = seed, .points_total = s->n_points,
                       .axes = g_ptr_array_new_with_free_func (g_free),
                       .metrics = g_ptr_array_new_with_free_func (g_free) };
  for (guint a = 0; a < s->axes->len; a++)
    g_ptr_array_add (h->axes, g_strdup (((PsAxis *) s->axes->pdata[a])->key));
  for (guint m = 0; m < s->metrics->len; m++)
    g_ptr_array_add (h->metrics, g_strdup (g_array_index (s->metrics, PsMetric, m).name));
  /* The command line's --sets change every point, so resume and merge must see them (JSON; CSV, as for the seed,
   * cannot tell). They are the last n_cli_sets of the scenario's sets. */
  if (s->n_cli_sets) {
    h->sets = g_ptr_array_new_with_free_func (g_free);
    for (guint i = s->sets->len - s->n_cli_sets; i < s->sets->len; i++)
      g_ptr_array_add (h->sets, g_strdup (s->sets->pdata[i]));
  }
}

/* --- cells and lines ------------------------------------------------------------------------------------- */

/* JSON's number grammar, stricter than strtod (no hex, no inf, no leading '+' or zeros). A plain YAML value such
 * as 0x10, .5 or +1 is not a JSON number and is written as a string instead, so the file always parses. */
static gboolean
json_number_like (const char *s)
{
  const char *p = s;
  if (*p == '-')
    p++;
  if (*p == '0')
    p++;
  else if (g_ascii_isdigit (*p))
    while (g_ascii_isdigit (*p))
      p++;
  else
    return FALSE;
  if (*p == '.') {
    if (!g_ascii_isdigit (*++p))
      return FALSE;
    while (g_ascii_isdigit (*p))
      p++;
  }
  if (*p == 'e' || *p == 'E') {
    p++;
    if (*p == '+' || *p == '-')
      p++;
    if (!g_ascii_isdigit (*p))
      return FALSE;
    while (g_ascii_isdigit (*p))
      p++;
  }
  return *p == '\0';
}

/* An axis value as written: plain numbers and booleans stay JSON numbers and booleans (their text copied, so
 * 0.50 stays 0.50), the rest are strings. A quoted "8" stays a string, as it is to the config loader. */
static void
json_value (PsJson *j, const YNode *v)
{
  if (v->plain && (json_number_like (v->value) || !strcmp (v->value, "true") || !strcmp (v->value, "false")))
    ps_json_raw (j, v->value);
  else
    ps_json_string (j, v->value);
}

/* The part of a point's row fixed by the scenario alone (id and axis values): resume checks rows against it. The
 * id is index + 1 in every shard, so rows of different shards never collide and merge can sort on it. JSON: the
 * row's object is left open after "params", for render_row() to add the metrics. */
static void
render_row_prefix (GString *o, PsJson *j, const PsScenario *s, guint index, PsFormat format)
{
  g_autofree guint *vi = g_new0 (guint, s->axes->len + 1);
  ps_scenario_point_coords (s, index, vi);
  if (format == PS_FORMAT_CSV)
    g_string_append_printf (o, "%u", index + 1);
  else {
    ps_json_object (j, 0);
    ps_json_uint_member (j, "id", index + 1);
    ps_json_key (j, "params");
    ps_json_object (j, 0);
  }
  for (guint a = 0; a < s->axes->len; a++) {
    const PsAxis *ax = s->axes->pdata[a];
    const YNode *v = ax->values->pdata[vi[a]];
    if (format == PS_FORMAT_CSV) {
      g_string_append_c (o, ',');
      ps_csv_cell (o, v->value);
    } else {
      ps_json_key (j, ax->key);
      json_value (j, v);
    }
  }
  if (format == PS_FORMAT_JSON)
    ps_json_end (j);
}

/* One point's row, without line break: a CSV line, or a one-line JSON object (a JSON Lines record). Rendered in
 * the worker so that the main thread only ever handles finished strings. A metric that did not run is an empty
 * CSV cell and JSON null (format.h). */
static char *
render_row (const PsScenario *s, guint index, PsFormat format, const PsRunResult *r)
{
  GString *o = g_string_new (NULL);
  PsJson j;
  ps_json_init (&j, o);
  render_row_prefix (o, &j, s, index, format);
  if (format == PS_FORMAT_JSON) {
    ps_json_key (&j, "metrics");
    ps_json_object (&j, 0);
  }
  for (guint m = 0; m < s->metrics->len; m++) {
    const PsMetric *metric = &g_array_index (s->metrics, PsMetric, m);
    /* A text metric (a verdict's cause): a CSV cell, a JSON string; absent, empty and null as a number's. */
    if (metric->kind == PS_METRIC_LIMITED_BY) {
      const char *t = ps_metric_text (metric, r);
      if (format == PS_FORMAT_CSV) {
        g_string_append_c (o, ',');
        if (t != NULL)
          ps_csv_cell (o, t);
      } else if (t != NULL)
        ps_json_string_member (&j, metric->name, t);
      else
        ps_json_fixed_member (&j, metric->name, NAN, 0);
      continue;
    }
    double v = ps_metric_value (metric, r);
    if (format == PS_FORMAT_CSV) {
      g_string_append_c (o, ',');
      ps_fmt_fixed (o, v, ps_metric_decimals (metric));
    } else {
      ps_json_fixed_member (&j, metric->name, v, ps_metric_decimals (metric));
    }
  }
  if (format == PS_FORMAT_JSON) {
    ps_json_end (&j);
    ps_json_end (&j);
  }
  return g_string_free (o, FALSE);
}

/* The whole file: header, then rows (n, NULL entries, points not finished yet, left out). Writing, checkpoints,
 * resume and merge all come here, which is what makes their outputs agree byte for byte. JSON puts every point on
 * a line of its own, a record that resume and merge read back alone (sweep_file_parse()); a checkpoint with gaps is
 * still valid JSON. */
static void
render_file (GString *o, const SweepHeader *h, char *const *rows, guint n)
{
  if (h->format == PS_FORMAT_CSV) {
    g_string_append (o, "id");
    GPtrArray *names[] = { h->axes, h->metrics };
    for (int k = 0; k < 2; k++)
      for (guint i = 0; i < names[k]->len; i++) {
        g_string_append_c (o, ',');
        ps_csv_cell (o, names[k]->pdata[i]);
      }
    g_string_append_c (o, '\n');
    for (guint i = 0; i < n; i++)
      if (rows[i])
        g_string_append_printf (o, "%s\n", rows[i]);
    return;
  }
  PsJson j;
  ps_json_init (&j, o);
  ps_json_object (&j, 2);
  ps_json_int_member (&j, "schema", 1);
  ps_json_string_member (&j, "version", h->version);
  ps_json_string_member (&j, "scenario", h->scenario);
  ps_json_uint_member (&j, "seed", h->seed);
  ps_json_uint_member (&j, "points_total", h->points_total);
  /* An added key, only when --set was given, so a plain sweep's bytes are unchanged. */
  const char *lists[] = { "axes", "metrics", "sets" };
  GPtrArray *names[] = { h->axes, h->metrics, h->sets };
  for (int k = 0; k < 3; k++) {
    if (!names[k])
      continue;
    ps_json_key (&j, lists[k]);
    ps_json_array (&j, 0);
    for (guint i = 0; i < names[k]->len; i++)
      ps_json_string (&j, names[k]->pdata[i]);
    ps_json_end (&j);
  }
  ps_json_key (&j, "points");
  ps_json_array (&j, 4 | PS_JSON_BREAK_EMPTY);
  for (guint i = 0; i < n; i++)
    if (rows[i])
      ps_json_raw (&j, rows[i]);
  ps_json_end (&j);
  ps_json_end (&j);
}

/* Two headers agree when they render the same: the rendering is the one definition of what a header holds. */
static gboolean
header_equal (const SweepHeader *a, const SweepHeader *b)
{
  g_autoptr (GString) x = g_string_new (NULL), y = g_string_new (NULL);
  render_file (x, a, NULL, 0);
  render_file (y, b, NULL, 0);
  return a->format == b->format && g_string_equal (x, y);
}

/* --list: the points' ids and axis values as CSV, without metrics. The same row prefix as a real run, so a
 * listed point and the start of its row in the output are the same text. */
static void
render_list (GString *o, const PsScenario *s, guint first, guint step, guint n_sel)
{
  g_string_append (o, "id");
  for (guint a = 0; a < s->axes->len; a++) {
    g_string_append_c (o, ',');
    ps_csv_cell (o, ((PsAxis *) s->axes->pdata[a])->key);
  }
  g_string_append_c (o, '\n');
  for (guint pos = 0; pos < n_sel; pos++) {
    render_row_prefix (o, NULL, s, first + pos * step, PS_FORMAT_CSV);
    g_string_append_c (o, '\n');
  }
}

/* --- running --------------------------------------------------------------------------------------------- */

/* Shared by the main thread and the workers. sc, format, seed, first, step and the configs pointer are fixed
 * before the pool starts (each configs slot belongs to one job per phase); done, fail_index, fail and rows change
 * under the lock; validating changes only between phases, once every job of the last one has counted itself. */
typedef struct {
  const PsScenario *sc;
  PsFormat format;
  uint64_t seed;
  guint first, step; /* the shard: points first, first + step, … */
  gboolean validating; /* phase 1 only loads configs; set before each phase's pushes */
  GMutex lock;
  GCond cond;
  guint done; /* jobs finished in this phase */
  guint fail_index; /* lowest failing point, G_MAXUINT if none */
  GError *fail;
  char **rows; /* by position in the shard; a worker fills its own slot under the lock */
  PsConfig **configs; /* by position: phase 1's configs kept for phase 2, or NULL when too many to keep */
  gboolean interrupted; /* main thread only */
} Runner;

/* Keeping phase 1's configs saves a second load per point (about 5% of a small point's time) but costs ~1 KB
 * each; past this many points they are loaded again instead. */
#define KEEP_CONFIGS_MAX 200000u

/* Worker: one point, loaded (phase 1) or loaded and run (phase 2). The lock guards only the bookkeeping; the
 * simulation itself runs unlocked on the worker's own engine. */
static void
run_point (gpointer data, gpointer user)
{
  Runner *r = user;
  /* Queued as position + 1: a GThreadPool cannot queue NULL, which position 0 would be. */
  guint pos = GPOINTER_TO_UINT (data) - 1, index = r->first + pos * r->step;
  g_mutex_lock (&r->lock);
  /* Points after a failure need not run: the error reported is the lowest failing point's either way. */
  gboolean skip = index > r->fail_index;
  g_mutex_unlock (&r->lock);
  GError *e = NULL;
  char *row = NULL;
  /* Each slot of configs is touched by one job of each phase, and the phases never overlap. */
  g_autoptr (PsConfig) cfg = r->configs && !r->validating ? g_steal_pointer (&r->configs[pos]) : NULL;
  if (!skip && !cfg)
    cfg = ps_scenario_point_config (r->sc, index, &e);
  if (cfg && r->validating && r->configs)
    r->configs[pos] = g_steal_pointer (&cfg);
  PsRunResult result = { 0 };
  if (!skip && cfg && !r->validating) {
    /* A load error comes back located from ps_scenario_point_config(); a run error (a model's) is located here. */
    /* A point with interval metrics runs as --ranges does, its runs in this worker (the sweep's jobs are the
     * points), reloaded with the point's own --sets. */
    PsRanges ranges = { 0 };
    g_auto (GStrv) sets = r->sc->ranges ? ps_scenario_point_sets (r->sc, index) : NULL;
    gboolean ran = r->sc->ranges ? ps_ranges_run (cfg, (const char *const *) sets, r->sc->modes, r->seed, 1, 0,
                                                  &result, &ranges, &e)
                                 : ps_run_config (cfg, r->sc->modes, r->seed, &result, &e);
    result.ranges = r->sc->ranges ? &ranges : NULL;
    if (ran)
      row = render_row (r->sc, index, r->format, &result);
    else
      ps_scenario_locate_error (r->sc, index, &e);
    ps_ranges_clear (&ranges);
  }
  g_mutex_lock (&r->lock);
  /* The lowest failing index is kept, not the first failure to arrive, so the error reported does not depend on
   * --jobs or timing. */
  if (e && index < r->fail_index) {
    r->fail_index = index;
    g_clear_error (&r->fail);
    r->fail = g_steal_pointer (&e);
  }
  r->rows[pos] = row ? row : r->rows[pos];
  r->done++;
  /* Wakes the main thread at once, so a failure or the last point is seen without waiting out its timeout. */
  g_cond_signal (&r->cond);
  g_mutex_unlock (&r->lock);
  g_clear_error (&e);
}

static void
format_duration (char *buf, size_t n, double s)
{
  guint64 t = (guint64) (s + 0.5);
  if (t >= 3600)
    g_snprintf (buf, n, "%" G_GUINT64_FORMAT ":%02u:%02u", t / 3600, (guint) (t / 60 % 60), (guint) (t % 60));
  else
    g_snprintf (buf, n, "%u:%02u", (guint) (t / 60), (guint) (t % 60));
}

/* \r and erase-to-end-of-line keep it one line; the rate counts only points run now, not resumed ones. */
static void
progress_line (const PsScenario *s, guint done, guint total, gint64 t0, gboolean final)
{
  double el = (double) (g_get_monotonic_time () - t0) / G_USEC_PER_SEC;
  double rate = el > 0 ? done / el : 0;
  if (final) {
    fprintf (stderr, "\r%s: %u points in %.2f s (%.1f points/s)\033[K\n", s->name, done, el, rate);
    return;
  }
  /* The time left assumes the rate so far holds; "?" until a point has finished gives a rate. */
  char left[32] = "?";
  if (done > 0)
    format_duration (left, sizeof left, (total - done) / rate);
  fprintf (stderr, "\r%s: %u/%u points, %.1f points/s, %s left\033[K", s->name, done, total, rate, left);
  fflush (stderr);
}

/* A checkpoint waits at least CHECKPOINT_MIN_US and 20 times what the last one cost, so rewriting stays under
 * ~5% of the run however large the file grows. `written` records whether any checkpoint reached the file: the
 * interrupt message and the clean-up of a failed run depend on it. */
typedef struct {
  const PsSweep *opt;
  const SweepHeader *header;
  gint64 last_write, write_cost;
  gboolean written;
} Checkpoint;

/* Write the rows finished so far; row strings never change once set, so only the pointer copy needs the lock. */
static void
checkpoint (Checkpoint *c, Runner *r, guint n_sel, gboolean force)
{
  gint64 now = g_get_monotonic_time ();
  /* Standard output gets no checkpoints: a stream cannot be rewritten in place. */
  if (!c->opt->output || !strcmp (c->opt->output, "-") ||
      (!force && now - c->last_write < MAX (CHECKPOINT_MIN_US, 20 * c->write_cost)))
    return;
  g_autofree char **snap = g_new (char *, n_sel + 1);
  g_mutex_lock (&r->lock);
  memcpy (snap, r->rows, n_sel * sizeof *snap);
  g_mutex_unlock (&r->lock);
  /* Rendered and written outside the lock, so workers finishing points are not held up by a large file. */
  g_autoptr (GString) out = g_string_new (NULL);
  render_file (out, c->header, snap, n_sel);
  g_autoptr (GError) ignored = NULL;
  /* A failed checkpoint only costs resumability; the final write reports the problem. */
  c->written |= ps_write_output (c->opt->output, out, &ignored);
  c->last_write = g_get_monotonic_time ();
  c->write_cost = c->last_write - now;
}

/* Run one phase over the positions in `todo`; FALSE when a point failed (its error in r->fail) or the user
 * interrupted (r->interrupted; jobs still queued are left for the caller to drop). */
static gboolean
run_phase (Runner *r, GThreadPool *pool, GArray *todo, gboolean validating, Checkpoint *cp, guint n_sel)
{
  r->validating = validating;
  r->done = 0;
  for (guint i = 0; i < todo->len; i++)
    g_thread_pool_push (pool, GUINT_TO_POINTER (g_array_index (todo, guint, i) + 1), NULL);
  gint64 t0 = g_get_monotonic_time (), shown = t0;
  /* Phase 1 produces no rows, so it writes no checkpoint, and at under a millisecond a point it needs no
   * progress line. */
  gboolean progress = cp->opt->progress && !validating;
  g_mutex_lock (&r->lock);
  /* A timed wait, not a plain one: an interrupt or a due checkpoint must be noticed even while no point finishes
   * for minutes. It also absorbs spurious wake-ups, since the loop tests `done` again. */
  while (r->done < todo->len) {
    g_cond_wait_until (&r->cond, &r->lock, g_get_monotonic_time () + PROGRESS_PERIOD_US);
    guint done = r->done;
    g_mutex_unlock (&r->lock);
    if (cp->opt->interrupted && *cp->opt->interrupted) {
      r->interrupted = TRUE;
      if (progress)
        fputc ('\n', stderr);
      return FALSE;
    }
    /* Workers wake us at every point; the line changes only a few times a second. */
    if (progress && g_get_monotonic_time () - shown >= PROGRESS_PERIOD_US) {
      progress_line (r->sc, done, todo->len, t0, FALSE);
      shown = g_get_monotonic_time ();
    }
    if (!validating)
      checkpoint (cp, r, n_sel, FALSE);
    g_mutex_lock (&r->lock);
  }
  g_mutex_unlock (&r->lock);
  if (progress)
    progress_line (r->sc, todo->len, todo->len, t0, TRUE);
  return r->fail == NULL;
}

/* Take the rows of an earlier (possibly cut) output that belong to this run; anything else is an error, since
 * silently dropping or overwriting rows of another sweep would lose results. */
static gboolean
resume_rows (Runner *r, const char *path, const SweepHeader *header, guint *kept, GError **error)
{
  *kept = 0;
  g_autofree char *text = NULL;
  gsize len = 0;
  /* No file yet is not an error: --resume on a first run runs everything, so a batch script can always pass it. */
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    return TRUE;
  if (!sweep_read_text (path, &text, &len, error))
    return FALSE;
  g_auto (SweepFile) f = { 0 };
  sweep_file_parse (text, len, &f);
  if (!f.has_header) {
    /* Cut inside the header: nothing to keep, but only if it is the start of what we would write. */
    g_autoptr (GString) empty = g_string_new (NULL);
    render_file (empty, header, NULL, 0);
    if (len <= empty->len && memcmp (text, empty->str, len) == 0)
      return TRUE;
  }
  /* The header carries the axes and metrics (and JSON the seed and version): equal headers, same sweep. */
  if (!f.has_header || !header_equal (&f.header, header)) {
    ps_error_plain (error, PS_ERROR_DATA, "%s: not an output of this scenario in this format (its header differs); "
                                          "remove it or run without --resume", path);
    return FALSE;
  }
  guint n_fields = 1 + header->axes->len + header->metrics->len;
  /* A row is kept only if its id belongs to this shard and it holds exactly what this scenario renders for that
   * point's axes, with a field or member per metric: rows of an edited scenario, another shard or a damaged
   * line are refused and the file is left alone. */
  for (guint i = 0; i < f.rows->len; i++) {
    const SweepRow *row = &g_array_index (f.rows, SweepRow, i);
    guint index = row->id - 1;
    gboolean ok = row->id && index < r->sc->n_points && index >= r->first && (index - r->first) % r->step == 0;
    if (ok) {
      g_autoptr (GString) want = g_string_new (NULL);
      PsJson j;
      ps_json_init (&j, want);
      render_row_prefix (want, &j, r->sc, index, r->format);
      if (r->format == PS_FORMAT_CSV) {
        /* The prefix is the id and the axis cells, each written as ps_csv_cell() writes it. */
        g_auto (GStrv) cells = sweep_csv_split (want->str);
        ok = g_strv_length (row->fields) == n_fields;
        for (guint c = 0; ok && cells[c]; c++)
          ok = !strcmp (cells[c], row->fields[c]);
      } else {
        ps_json_end (&j);
        g_autoptr (JsonNode) expect = ps_json_parse (want->str, -1, NULL);
        JsonObject *got = json_node_get_object (row->record), *exp = json_node_get_object (expect);
        ok = json_node_equal (json_object_get_member (got, "params"), json_object_get_member (exp, "params")) &&
             json_object_get_size (json_object_get_object_member (got, "metrics")) == header->metrics->len;
      }
    }
    if (!ok) {
      ps_error_plain (error, PS_ERROR_DATA, "%s: line %u is not a point of this %s (remove the file or run "
                                            "without --resume)", path, row->line, r->step > 1 ? "shard" : "scenario");
      return FALSE;
    }
    guint pos = (index - r->first) / r->step;
    /* A point that appears twice keeps its later line and counts once. */
    if (!r->rows[pos])
      (*kept)++;
    g_free (r->rows[pos]);
    r->rows[pos] = g_strdup (row->text);
  }
  return TRUE;
}

/* Fail before the sweep rather than after it when the output's directory takes no new file (the final write
 * is a temporary file there renamed over the target). */
static gboolean
check_writable (const char *output, GError **error)
{
  if (!output || !strcmp (output, "-"))
    return TRUE;
  g_autofree char *dir = g_path_get_dirname (output);
  g_autofree char *probe = g_build_filename (dir, ".pciesim-probe-XXXXXX", NULL);
  /* A hidden name with a random suffix cannot clash with the output or with another run's probe. */
  int fd = g_mkstemp (probe);
  if (fd < 0) {
    ps_error_plain (error, PS_ERROR_CANTCREAT, "cannot write '%s': %s", output, g_strerror (errno));
    return FALSE;
  }
  close (fd);
  g_unlink (probe);
  return TRUE;
}

/* Scenario -> shard selection -> resumed rows -> phase 1 (load all) -> phase 2 (run) -> one atomic write. */
gboolean
ps_sweep_run (const PsSweep *opt, GError **error)
{
  if (opt->resume && (!opt->output || !strcmp (opt->output, "-"))) {
    ps_error_plain (error, PS_ERROR_USAGE, "--resume needs --output FILE (the file to complete)");
    return FALSE;
  }
  g_autoptr (PsScenario) sc = ps_scenario_load_with (opt->scenario, opt->sets, opt->modes, error);
  if (!sc || !check_writable (opt->output, error))
    return FALSE;
  Runner r = { .sc = sc, .format = opt->format, .seed = opt->seed, .fail_index = G_MAXUINT };
  /* A shard is an arithmetic progression of point indices, so a position maps to its point without a table. */
  r.first = opt->shard_count ? opt->shard_index - 1 : 0;
  r.step = opt->shard_count ? opt->shard_count : 1;
  /* A shard that starts beyond the last point (more shards than points) has nothing to run and writes an output
   * with no rows, which merge accepts. */
  guint n_sel = r.first < sc->n_points ? (sc->n_points - r.first + r.step - 1) / r.step : 0;
  r.rows = g_new0 (char *, n_sel + 1);
  g_mutex_init (&r.lock);
  g_cond_init (&r.cond);
  g_auto (SweepHeader) header = { 0 };
  header_from_scenario (&header, sc, opt->format, opt->seed);

  gboolean ok = TRUE;
  guint kept = 0;
  if (opt->resume)
    ok = resume_rows (&r, opt->output, &header, &kept, error);
  g_autoptr (GArray) todo = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint pos = 0; ok && pos < n_sel; pos++)
    if (!r.rows[pos])
      g_array_append_val (todo, pos);

  Checkpoint cp = { .opt = opt, .header = &header, .last_write = g_get_monotonic_time () };
  /* Noted before anything is written, so a failed run removes only a file it created, never one already there. */
  gboolean existed = opt->output && g_file_test (opt->output, G_FILE_TEST_EXISTS);
  /* Only with progress on (stderr a terminal), so a script's stderr stays empty when all goes well. */
  if (ok && kept && opt->progress)
    fprintf (stderr, "%s: %u of %u points already in %s\n", sc->name, kept, n_sel, opt->output);
  if (ok && todo->len) {
    int workers = opt->jobs > 0 ? opt->jobs : (int) g_get_num_processors ();
    /* More threads than points would only idle. */
    workers = (int) MIN ((guint) MAX (workers, 1), todo->len);
    if (n_sel <= KEEP_CONFIGS_MAX)
      r.configs = g_new0 (PsConfig *, n_sel + 1);
    /* Exclusive threads: the pool is this run's alone, and freeing it below joins them before Runner goes. */
    GThreadPool *pool = g_thread_pool_new (run_point, &r, workers, TRUE, NULL);
    /* Phase 1 loads every config so that a bad value fails before hours of good points have run. */
    ok = run_phase (&r, pool, todo, TRUE, &cp, n_sel) && (opt->list || run_phase (&r, pool, todo, FALSE, &cp, n_sel));
    /* Interrupted: let the points in progress finish, drop the queued ones, save what is done. */
    g_thread_pool_free (pool, r.interrupted, TRUE);
    if (r.interrupted) {
      checkpoint (&cp, &r, n_sel, TRUE);
      guint saved = 0;
      for (guint i = 0; i < n_sel; i++)
        saved += r.rows[i] != NULL;
      /* Without a checkpoint on disk nothing was saved, and the message must not claim the finished points. */
      ps_error_plain (error, PS_ERROR_FAILED, "interrupted: %u of %u points saved in %s; --resume finishes them",
                      cp.written ? saved : 0, n_sel, opt->output);
    } else if (!ok) {
      g_propagate_error (error, g_steal_pointer (&r.fail));
    }
    /* A failed run leaves no file it created: only a stopped one leaves its checkpoint to resume from. */
    if (!ok && !r.interrupted && cp.written && !existed)
      g_unlink (opt->output);
  }
  /* One atomic write of the whole file, even when every point was resumed: a cut tail or a missing JSON epilogue
   * is completed, and the result is the same bytes an uninterrupted run writes. */
  if (ok) {
    g_autoptr (GString) out = g_string_new (NULL);
    if (opt->list)
      render_list (out, sc, r.first, r.step, n_sel);
    else
      render_file (out, &header, r.rows, n_sel);
    ok = ps_write_output (opt->output, out, error);
  }
  for (guint i = 0; i < n_sel; i++) {
    g_free (r.rows[i]);
    if (r.configs)
      ps_config_free (r.configs[i]);
  }
  g_free (r.configs);
  g_free (r.rows);
  g_clear_error (&r.fail);
  g_mutex_clear (&r.lock);
  g_cond_clear (&r.cond);
  return ok;
}

/* --- merge ----------------------------------------------------------------------------------------------- */

/* Rows of one id compare equal and may end up in either order: duplicates must be byte-identical to pass. */
static gint
cmp_row_id (gconstpointer a, gconstpointer b)
{
  guint x = ((const SweepRow *) a)->id, y = ((const SweepRow *) b)->id;
  return x < y ? -1 : x > y;
}

/* Shards are checked against each other rather than against the scenario, so a merge needs only the files
 * (the machine that merges may not have the scenario or the same checkout). */
gboolean
ps_sweep_merge (const char *const *inputs, const char *output, GError **error)
{
  if (!inputs || !inputs[0]) {
    ps_error_plain (error, PS_ERROR_USAGE, "merge needs at least one sweep output");
    return FALSE;
  }
  g_auto (SweepFile) first = { 0 };
  g_autoptr (GArray) rows = g_array_new (FALSE, TRUE, sizeof (SweepRow));
  g_array_set_clear_func (rows, sweep_row_clear);
  for (const char *const *in = inputs; *in; in++) {
    g_autofree char *text = NULL;
    gsize len = 0;
    if (!sweep_read_text (*in, &text, &len, error))
      return FALSE;
    g_auto (SweepFile) f = { 0 };
    sweep_file_parse (text, len, &f);
    /* A cut shard is refused rather than merged: its lost points would show only as a gap below, or not at all
     * when they held the highest ids. */
    if (!f.has_header || !f.closed) {
      ps_error_plain (error, PS_ERROR_DATA, "%s: not a complete sweep output (cut short? finish it with "
                                            "pciesim sweep --resume)", *in);
      return FALSE;
    }
    if (in != inputs && !header_equal (&first.header, &f.header)) {
      ps_error_plain (error, PS_ERROR_DATA, "%s: header differs from %s's: not a shard of the same sweep", *in,
                      inputs[0]);
      return FALSE;
    }
    for (guint i = 0; i < f.rows->len; i++) {
      SweepRow *row = &g_array_index (f.rows, SweepRow, i);
      if (!row->id || (f.format == PS_FORMAT_CSV && g_strv_length (row->fields) != 1 + f.header.axes->len)) {
        ps_error_plain (error, PS_ERROR_DATA, "%s: point line %u is malformed", *in, i + 1);
        return FALSE;
      }
      /* Moved, leaving zeros behind, so clearing `f` at the end of the iteration does not free the moved row. */
      g_array_append_val (rows, *row);
      memset (row, 0, sizeof *row);
    }
    if (in == inputs)
      first = f, f = (SweepFile) { 0 };
  }
  /* Sorting by id restores point order whatever the sharding was (round robin or anything else). */
  g_array_sort (rows, cmp_row_id);
  /* The same shard given twice is harmless; two different rows for one point are not. */
  g_autoptr (GPtrArray) texts = g_ptr_array_new ();
  for (guint i = 0; i < rows->len; i++) {
    const SweepRow *row = &g_array_index (rows, SweepRow, i);
    if (texts->len && row->id == texts->len) {
      if (strcmp (row->text, texts->pdata[texts->len - 1]) != 0) {
        ps_error_plain (error, PS_ERROR_DATA, "point %u appears twice with different values", row->id);
        return FALSE;
      }
      continue;
    }
    if (row->id != texts->len + 1) {
      ps_error_plain (error, PS_ERROR_DATA, "point %u is missing (a shard not given, or not finished?)",
                      texts->len + 1);
      return FALSE;
    }
    g_ptr_array_add (texts, row->text);
  }
  /* JSON says how many points the sweep has, which catches even a missing last shard. */
  if (first.format == PS_FORMAT_JSON && first.header.points_total != texts->len) {
    ps_error_plain (error, PS_ERROR_DATA, "point %u is missing (a shard not given, or not finished?)", texts->len + 1);
    return FALSE;
  }
  /* The same renderer as a run's final write: this is what makes the merge the bytes of an unsharded run. */
  g_autoptr (GString) out = g_string_new (NULL);
  render_file (out, &first.header, (char *const *) texts->pdata, texts->len);
  return ps_write_output (output, out, error);
}
