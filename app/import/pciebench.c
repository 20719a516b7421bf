/* pciebench.c — `pciesim import pciebench`: pcie-bench's CSV rows as `pciesim fit` measurements on a base imported
 * from the same directory's lspci (contract in pciebench.h; pcie-bench's file layout in tests/data/pciebench/). */
#include "app/import/pciebench.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>

#include "app/base/error.h"
#include "app/base/format.h"
#include "app/config/load.h"
#include "app/import/lspci.h"
#include "app/import/lspci_dump.h"

/* pcie-bench's test names and the microbench.test words they are (pcie-protocol.md §11; issue #36's names). */
static const char *
test_word (const char *t)
{
  static const char *const map[][2] = { { "BW_DMA_RD", "bw_rd" },       { "BW_DMA_WR", "bw_wr" },
                                        { "BW_DMA_RW", "bw_rdwr" },     { "LAT_DMA_RD", "lat_rd" },
                                        { "LAT_DMA_WRRD", "lat_wrrd" }, { "LAT_CMD_RD", "lat_cmd_rd" },
                                        { "LAT_CMD_WRRD", "lat_cmd_wrrd" } };
  for (size_t i = 0; i < G_N_ELEMENTS (map); i++)
    if (strcmp (t, map[i][0]) == 0)
      return map[i][1];
  return NULL;
}

static const char *
cache_word (const char *c)
{
  static const char *const map[][2] = { { "HWarm", "warm" }, { "Cold", "cold" }, { "DWarm", "device_warm" },
                                        { "DThrash", "device_thrash" } };
  for (size_t i = 0; i < G_N_ELEMENTS (map); i++)
    if (strcmp (c, map[i][0]) == 0)
      return map[i][1];
  return NULL;
}

/* The device pcie-bench drove: the one whose "Kernel driver in use:" names its driver (nfp-pciebench). Several
 * (a machine with two cards, both bound to it) are for the user to choose among with --device. */
static char *
find_device (const char *name, const char *dump, gsize len, GError **error)
{
  Text t = { 0 };
  if (!lspci_split_lines (&t, name, dump, len, error))
    return NULL;
  g_autoptr (GPtrArray) found = g_ptr_array_new_with_free_func (g_free);
  const Line *head = NULL;
  for (guint i = 0; i < t.lines->len; i++) {
    const Line *l = line_at (&t, i);
    if (lspci_is_header (l))
      head = l;
    else if (head && g_str_has_prefix (l->text, "Kernel driver in use:") && strstr (l->text, "pciebench"))
      g_ptr_array_add (found, g_strdup (head->text));
  }
  lspci_text_clear (&t);
  if (found->len == 1) {
    const char *h = found->pdata[0];
    return g_strndup (h, strcspn (h, " \t"));
  }
  if (!found->len) {
    ps_error_plain (error, PS_ERROR_USAGE, "%s: no device uses pcie-bench's driver (\"Kernel driver in use: "
                    "nfp-pciebench\"): name it with --device", name);
    return NULL;
  }
  g_ptr_array_add (found, NULL);
  g_autofree char *list = g_strjoinv ("; ", (char **) found->pdata);
  ps_error_plain (error, PS_ERROR_USAGE, "%s: %u devices use pcie-bench's driver (%s): choose the one measured with "
                  "--device", name, found->len - 1, list);
  return NULL;
}

/* "…/m.yaml" -> "…/m.base.yaml". */
static char *
base_name (const char *output)
{
  g_autofree char *stem = g_str_has_suffix (output, ".yaml") ? g_strndup (output, strlen (output) - 5)
                                                             : g_strdup (output);
  return g_strdup_printf ("%s.base.yaml", stem);
}

typedef struct {
  guint count;
  char *example;
} Reason;

static void
reason_free (gpointer p)
{
  Reason *r = p;
  g_free (r->example);
  g_free (r);
}

/* One CSV file's rows into `out`; counts what was taken and what not. */
typedef struct {
  guint files, skipped_files, rows, taken;
  GHashTable *reasons; /* the key a refusal names -> Reason, for the header */
} Tally;

/* Columns by name: pcie-bench's bandwidth and latency tables differ in their figures' columns, not in the
 * first seven. */
static int
column (GStrv head, const char *name)
{
  for (int i = 0; head[i]; i++)
    if (strcmp (head[i], name) == 0)
      return i;
  return -1;
}

/* pcie-bench writes Python's floats: "8.611148788524776", "1572864.0"; nan or inf would be no measurement. */
static gboolean
is_number (const char *s)
{
  char *end = NULL;
  errno = 0;
  double v = g_ascii_strtod (s, &end);
  return end != s && !*end && !errno && v == v;
}

static gboolean
read_csv (const char *path, const char *shown, const char *base_path, GString *out, Tally *tally, GError **error)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  g_autoptr (GError) e = NULL;
  if (!g_file_get_contents (path, &text, &len, &e)) {
    ps_error_plain (error, PS_ERROR_NOINPUT, "%s", e->message);
    return FALSE;
  }
  /* pcie-bench's CSVs hold no quoted cells: a plain split is the format, and a cell count that differs from the
   * header's is an error rather than a guess. */
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  if (!lines[0] || !g_str_has_prefix (lines[0], "Test,")) {
    tally->skipped_files++;
    g_string_append_printf (out, "  # %s: no \"Test,\" header (a distribution, not a measurement table): skipped\n",
                            shown);
    return TRUE;
  }
  g_strchomp (lines[0]);
  g_auto (GStrv) head = g_strsplit (lines[0], ",", -1);
  guint ncol = g_strv_length (head);
  int c_test = 0, c_pat = column (head, "PAT"), c_cache = column (head, "Cache"), c_ho = column (head, "HO"),
      c_do = column (head, "DO"), c_win = column (head, "WinSZ"), c_sz = column (head, "SZ");
  int c_bw = column (head, "BW (GB/s)"), c_med = column (head, "Med(ns)");
  if (c_pat < 0 || c_cache < 0 || c_ho < 0 || c_do < 0 || c_win < 0 || c_sz < 0 || (c_bw < 0 && c_med < 0)) {
    ps_error_located (error, PS_ERROR_DATA, shown, 1, 1, "a pcie-bench table names PAT, Cache, HO, DO, WinSZ, SZ "
                      "and BW (GB/s) or Med(ns) in its header");
    return FALSE;
  }
  tally->files++;
  g_string_append_printf (out, "  # %s\n", shown);
  for (guint i = 1; lines[i]; i++) {
    g_strchomp (lines[i]);
    if (!*lines[i])
      continue;
    g_auto (GStrv) v = g_strsplit (lines[i], ",", -1);
    if (g_strv_length (v) != ncol) {
      ps_error_located (error, PS_ERROR_DATA, shown, (int) i + 1, 1, "%u cells where the header names %u",
                        g_strv_length (v), ncol);
      return FALSE;
    }
    tally->rows++;
    const char *test = test_word (v[c_test]), *cache = cache_word (v[c_cache]);
    gboolean bw = g_str_has_prefix (v[c_test], "BW_");
    const char *fig = v[bw ? c_bw : c_med];
    /* pcie-bench writes some windows as "1572864.0": whole numbers, written here as integers. */
    const int nums[] = { c_ho, c_do, c_win, c_sz };
    for (size_t k = 0; k < G_N_ELEMENTS (nums); k++) {
      double x = g_ascii_isdigit (v[nums[k]][0]) && is_number (v[nums[k]]) ? g_ascii_strtod (v[nums[k]], NULL) : -1;
      if (x < 0 || x != floor (x) || x > 1e15) {
        ps_error_located (error, PS_ERROR_DATA, shown, (int) i + 1, 1, "'%s' in column %s is no whole number",
                          v[nums[k]], head[nums[k]]);
        return FALSE;
      }
      g_free (v[nums[k]]);
      v[nums[k]] = g_strdup_printf ("%.0f", x);
    }
    if (!test || !cache || (strcmp (v[c_pat], "Seq") != 0 && strcmp (v[c_pat], "Rand") != 0) || (bw ? c_bw : c_med) < 0
        || !is_number (fig)) {
      ps_error_located (error, PS_ERROR_DATA, shown, (int) i + 1, 1, "not a pcie-bench row: test '%s', PAT '%s', "
                        "Cache '%s', figure '%s'", v[c_test], v[c_pat], v[c_cache], (bw ? c_bw : c_med) < 0 ? ""
                        : fig);
      return FALSE;
    }
    /* Offsets of 0 are left out: the keys do not exist before branch pb, and 0 is their default after it, so the
     * rows that need no offset run today. */
    g_autoptr (GPtrArray) sets = g_ptr_array_new_with_free_func (g_free);
    g_ptr_array_add (sets, g_strdup_printf ("microbench.test=%s", test));
    g_ptr_array_add (sets, g_strdup_printf ("microbench.transfer_bytes=%s", v[c_sz]));
    g_ptr_array_add (sets, g_strdup_printf ("microbench.window_bytes=%s", v[c_win]));
    g_ptr_array_add (sets, g_strdup_printf ("microbench.offsets=%s", v[c_pat][0] == 'S' ? "sequential" : "random"));
    g_ptr_array_add (sets, g_strdup_printf ("microbench.cache=%s", cache));
    if (strcmp (v[c_ho], "0") != 0)
      g_ptr_array_add (sets, g_strdup_printf ("microbench.host_offset=%s", v[c_ho]));
    if (strcmp (v[c_do], "0") != 0)
      g_ptr_array_add (sets, g_strdup_printf ("microbench.device_offset=%s", v[c_do]));
    g_ptr_array_add (sets, NULL);
    g_autoptr (GString) m = g_string_new ("- {set: {");
    for (guint k = 0; sets->pdata[k]; k++) {
      const char *s = sets->pdata[k];
      const char *eq = strchr (s, '=');
      g_string_append_printf (m, "%s%.*s: %s", k ? ", " : "", (int) (eq - s), s, eq + 1);
    }
    /* BW_DMA_RW's figure is one direction's bytes over the time (pcie-bench counts the pairs): the run's reads',
     * microbench_read_gbps, where microbench_gbps adds both directions (issue #25's split). */
    const char *metric = !bw ? "microbench_latency_p50_ns"
                         : strcmp (test, "bw_rdwr") == 0 ? "microbench_read_gbps" : "microbench_gbps";
    g_string_append_printf (m, "}, %s: %s}", metric, fig);
    /* Loaded as fit will load it: a row this pciesim cannot run stays a comment, with the reason. */
    g_autoptr (GError) le = NULL;
    g_autoptr (PsConfig) cfg = ps_config_load (base_path, (const char *const *) sets->pdata, &le);
    if (cfg) {
      tally->taken++;
      g_string_append_printf (out, "  %s   # %s:%u\n", m->str, shown, i + 1);
    } else {
      /* The reason without its location (a --set's "FILE:1:1: error: "): the same for every row it refuses. */
      const char *r = strstr (le->message, "error: ");
      r = r ? r + 7 : le->message;
      g_autofree char *reason = g_strndup (r, MIN (strlen (r), 160));
      /* Counted by the key the message opens with, the first message kept as its example. */
      const char *kp = g_str_has_prefix (reason, "unknown key '") ? reason + 13 : reason;
      g_autofree char *key = g_strndup (kp, strcspn (kp, " ('"));
      Reason *rs = g_hash_table_lookup (tally->reasons, key);
      if (!rs) {
        rs = g_new0 (Reason, 1);
        rs->example = g_strdup (reason);
        g_hash_table_insert (tally->reasons, g_strdup (key), rs);
      }
      rs->count++;
      g_string_append_printf (out, "  # not run by this pciesim (%s): %s   # %s:%u\n", reason, m->str, shown, i + 1);
    }
  }
  return TRUE;
}

static gint
by_name (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

gboolean
ps_pciebench_import (const PsPciebenchImport *imp, GError **error)
{
  if (!imp->output || strcmp (imp->output, "-") == 0) {
    ps_error_plain (error, PS_ERROR_USAGE, "import pciebench writes two files, the measurements and their base "
                    "config beside them: give -o FILE.yaml");
    return FALSE;
  }
  if (!g_file_test (imp->dir, G_FILE_TEST_IS_DIR)) {
    ps_error_plain (error, PS_ERROR_NOINPUT, "%s: no such directory (pcie-bench's results directory)", imp->dir);
    return FALSE;
  }
  g_autofree char *host_path = ps_lspci_host_path (imp->host, error);
  if (!host_path)
    return FALSE;
  g_autofree char *lspci = g_build_filename (imp->dir, "sys-lspci.txt", NULL);
  g_autofree char *dump = NULL;
  gsize dump_len = 0;
  g_autoptr (GError) e = NULL;
  if (!g_file_get_contents (lspci, &dump, &dump_len, &e)) {
    ps_error_plain (error, PS_ERROR_NOINPUT, "%s (pcie-bench saves the machine's lspci -vvv there)", e->message);
    return FALSE;
  }
  g_autofree char *device = imp->device ? g_strdup (imp->device) : find_device (lspci, dump, dump_len, error);
  if (!device)
    return FALSE;
  g_autofree char *base = base_name (imp->output);
  g_autofree char *include = ps_lspci_include_path (base, host_path);
  g_autofree char *config = ps_lspci_config (lspci, dump, dump_len, NULL, NULL, 0, device, include,
                                             imp->host ? "the host chosen with --host"
                                                       : "no --host given: hosts/ideal.yaml, a host that never limits",
                                             NULL, error);
  if (!config)
    return FALSE;
  /* The base is written before the rows are tried: each row is checked by loading it with the row's --sets, as
   * fit will. */
  g_autoptr (GString) b = g_string_new (config);
  g_string_append (b, "# pcie-bench's microbenchmarks: each measurement of the fit file sets its test, size, window, "
                      "offsets and cache.\nbenchmark:\n  workload: microbench\n");
  if (!ps_write_output (base, b, error))
    return FALSE;
  g_autoptr (PsConfig) bc = ps_config_load (base, NULL, &e);
  if (!bc) {
    ps_error_plain (error, PS_ERROR_INTERNAL, "internal: the base imported from %s does not load: %s", lspci,
                    ps_error_text (e));
    return FALSE;
  }
  /* The CSV files in name order: the same directory gives the same file. */
  g_autoptr (GDir) dir = g_dir_open (imp->dir, 0, NULL);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  for (const char *n; dir && (n = g_dir_read_name (dir));)
    if (g_str_has_suffix (n, ".csv"))
      g_ptr_array_add (names, g_strdup (n));
  g_ptr_array_sort (names, by_name);
  g_autoptr (GString) rows = g_string_new (NULL);
  Tally tally = { .reasons = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, reason_free) };
  gboolean ok = TRUE;
  for (guint i = 0; i < names->len && ok; i++) {
    g_autofree char *path = g_build_filename (imp->dir, names->pdata[i], NULL);
    ok = read_csv (path, names->pdata[i], base, rows, &tally, error);
  }
  if (ok && !tally.taken) {
    ps_error_plain (error, PS_ERROR_DATA, "%s: none of its %u rows runs on this pciesim: no measurement to fit",
                    imp->dir, tally.rows);
    ok = FALSE;
  }
  if (!ok) {
    g_hash_table_unref (tally.reasons);
    g_unlink (base);
    return FALSE;
  }
  g_autofree char *base_rel = g_path_get_basename (base);
  g_autoptr (GString) o = g_string_new (NULL);
  g_string_append_printf (o, "# Imported by `pciesim import pciebench` from %s: %u rows of %u CSV tables (%u files "
                          "without a table skipped),\n# %u of them measurements this pciesim runs, the other %u "
                          "comments giving the reason:\n", imp->dir, tally.rows, tally.files, tally.skipped_files,
                          tally.taken, tally.rows - tally.taken);
  g_autoptr (GList) keys = g_list_sort (g_hash_table_get_keys (tally.reasons), (GCompareFunc) strcmp);
  for (GList *k = keys; k; k = k->next) {
    const Reason *r = g_hash_table_lookup (tally.reasons, k->data);
    g_string_append_printf (o, "#   %u rows refused at %s, as: %s\n", r->count, (const char *) k->data, r->example);
  }
  g_string_append_printf (o, "# pcie-bench's \"BW (GB/s)\" column holds Gb/s (8 x bytes / ns), as microbench_gbps "
                          "does; BW_DMA_RW counts one direction's bytes, as microbench_read_gbps does. Latencies: "
                          "the median, Med(ns).\n# The base is %s's %s imported from its sys-lspci.txt. "
                          "`pciesim fit %s -o fitted.yaml`.\n", imp->dir, device, imp->output);
  g_string_append_printf (o, "base: %s\nmeasurements:\n%s", base_rel, rows->str);
  g_hash_table_unref (tally.reasons);
  return ps_write_output (imp->output, o, error);
}
