/* test-layering.c — the layers of design.md §2, checked on the sources, each folder including only the folders
 * below it. sim/ (the kernel: engine, trace writers, JSON emitter) includes nothing of the others; the folders of
 * models/ (PCIe) include the kernel and the models' folders before them in `order`, never app/; the folders of app/
 * (configs, builder, reports, studies, CLI) include the kernel, every model and the app folders before them. So
 * every model takes plain parameter structs and can be built and tested without the program, the kernel could
 * carry another simulator, and no two folders include each other. The rule would otherwise hold only as long as
 * everyone remembered it. PCIESIM_SOURCE_ROOT comes from tests/meson.build. */
#include <check.h>
#include <string.h>

#include "tests/common.h"

/* Every source folder, lowest first; each one's role is in CONTRIBUTING.md ("The layout"). */
static const char *const order[] = {
  "sim",
  "models/base", "models/proto", "models/observe", "models/link", "models/fabric", "models/devices",
  "models/analysis", "models/workloads",
  "app/base", "app/config", "app/report", "app/run", "app/study", "app/import", "app/cli",
};

/* Every quoted `#include` in `text` that reaches a folder not in `may`, appended to `bad` as "FILE:LINE: INCLUDE".
 * A quoted include without a directory names a file of the includer's own folder, so passes; "../" climbs out
 * of it and is refused whatever follows; generated headers (pciesim-version.h) have no directory and are
 * refused below the application by name. */
static void
scan_includes (const char *file, const char *text, const char *const *may, GString *bad, guint *n_includes)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i]; i++) {
    const char *l = lines[i];
    while (*l == ' ' || *l == '\t')
      l++;
    if (*l != '#')
      continue;
    l++;
    while (*l == ' ' || *l == '\t')
      l++;
    if (!g_str_has_prefix (l, "include"))
      continue;
    (*n_includes)++;
    const char *q = strchr (l, '"');
    if (!q)
      continue; /* <system> headers */
    const char *end = strchr (q + 1, '"');
    g_autofree char *path = g_strndup (q + 1, end ? (gsize) (end - q - 1) : strlen (q + 1));
    gboolean ok = strchr (path, '/') == NULL && !g_str_has_prefix (path, "pciesim-");
    if (!strstr (path, "../"))
      for (const char *const *a = may; *a; a++)
        ok |= g_str_has_prefix (path, *a);
    if (!ok)
      g_string_append_printf (bad, "%s:%u: %s\n", file, i + 1, path);
  }
}

START_TEST (test_layers_include_only_below)
{
  /* Folder _i may include the folders up to itself in `order`. */
  g_autoptr (GPtrArray) may = g_ptr_array_new_with_free_func (g_free);
  for (int k = 0; k <= _i; k++)
    g_ptr_array_add (may, g_strconcat (order[k], "/", NULL));
  /* The generated headers (pciesim-version.h, pciesim-describe.h) belong to the application. */
  if (g_str_has_prefix (order[_i], "app/"))
    g_ptr_array_add (may, g_strdup ("pciesim-"));
  g_ptr_array_add (may, NULL);
  g_autofree char *dir = g_build_filename (source_root (), order[_i], NULL);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  ck_assert_msg (d != NULL, "cannot open %s", dir);
  g_autoptr (GString) bad = g_string_new (NULL);
  guint files = 0, includes = 0;
  for (const char *name; (name = g_dir_read_name (d)) != NULL;) {
    if (!g_str_has_suffix (name, ".c") && !g_str_has_suffix (name, ".h"))
      continue;
    g_autofree char *path = g_build_filename (dir, name, NULL);
    g_autofree char *text = slurp (path);
    g_autofree char *shown = g_build_filename (order[_i], name, NULL);
    scan_includes (shown, text, (const char *const *) may->pdata, bad, &includes);
    files++;
  }
  /* A scanner that found nothing to scan would pass anything. */
  ck_assert_msg (files >= 1 && includes >= 2, "only %u files and %u includes found in %s", files, includes, dir);
  ck_assert_msg (bad->len == 0, "%s/ includes a folder above it:\n%s", order[_i], bad->str);
}
END_TEST

/* Every folder of models/ and app/ is in `order` (a new one must take its place there), and no source file sits in
 * models/ or app/ itself, outside a folder. */
START_TEST (test_every_folder_is_ordered)
{
  const char *const tops[] = { "models", "app" };
  guint folders = 0;
  for (guint t = 0; t < G_N_ELEMENTS (tops); t++) {
    g_autofree char *dir = g_build_filename (source_root (), tops[t], NULL);
    g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
    ck_assert_msg (d != NULL, "cannot open %s", dir);
    for (const char *name; (name = g_dir_read_name (d)) != NULL;) {
      g_autofree char *rel = g_build_filename (tops[t], name, NULL);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      if (!g_file_test (path, G_FILE_TEST_IS_DIR)) {
        ck_assert_msg (!g_str_has_suffix (name, ".c") && !g_str_has_suffix (name, ".h"),
                       "%s is outside every folder of the layout", rel);
        continue;
      }
      gboolean listed = FALSE;
      for (guint k = 0; k < G_N_ELEMENTS (order); k++)
        listed |= strcmp (order[k], rel) == 0;
      ck_assert_msg (listed, "%s/ is not in test-layering.c's order", rel);
      folders++;
    }
  }
  ck_assert_uint_eq (folders, G_N_ELEMENTS (order) - 1);
}
END_TEST

/* The scanner itself: each forbidden form is caught, with its line, and the allowed ones are not. */
START_TEST (test_scanner_catches)
{
  const char *text = "#include <glib.h>\n"
                     "#include \"models/link/link.h\"\n"
                     "#include \"sim/engine.h\"\n"
                     "#  include \"app/config/config.h\"\n"
                     "#include \"app/report/report.h\"\n"
                     "#include \"../app/base/error.h\"\n"
                     "#include \"local.h\"\n"
                     "#include \"pciesim-version.h\"\n"
                     "/* #include \"app/base/error.h\" in a comment's text does not start a line */\n";
  const char *const models_may[] = { "sim/", "models/", NULL };
  g_autoptr (GString) bad = g_string_new (NULL);
  guint n = 0;
  scan_includes ("x.c", text, models_may, bad, &n);
  ck_assert_uint_eq (n, 8);
  ck_assert_str_eq (bad->str, "x.c:4: app/config/config.h\nx.c:5: app/report/report.h\nx.c:6: ../app/base/error.h\nx.c:8: pciesim-version.h\n");
  /* The kernel may not reach models/ either. */
  const char *const sim_may[] = { "sim/", NULL };
  g_string_truncate (bad, 0);
  scan_includes ("y.c", "#include \"models/link/link.h\"\n#include \"sim/json.h\"\n", sim_may, bad, &n);
  ck_assert_str_eq (bad->str, "y.c:1: models/link/link.h\n");
}
END_TEST

/* Inside app/: the keys and the fabric are composed by app/config/load.c alone, so config never reaches topology (which
 * derives its nodes' configs from config: the other way would be a cycle). */
static const char *const config_files[] = { "app/config/config.h", "app/config/config_private.h", "app/config/config_keys.c",
                                             "app/config/config_values.c", "app/config/config_load.c", "app/config/config_rules.c",
                                             "app/config/config_emit.c" };

START_TEST (test_config_does_not_include_topology)
{
  g_autofree char *path = g_build_filename (source_root (), config_files[_i], NULL);
  g_autofree char *text = slurp (path);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  guint includes = 0;
  for (guint i = 0; lines[i]; i++) {
    const char *l = lines[i];
    if (!g_str_has_prefix (l, "#include"))
      continue;
    includes++;
    ck_assert_msg (!strstr (l, "topology.h"), "%s:%u: %s", config_files[_i], i + 1, l);
  }
  ck_assert_msg (includes >= 3, "only %u includes found in %s", includes, config_files[_i]);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("layering");
  TCase *tc = tcase_create ("layering");
  tcase_add_loop_test (tc, test_layers_include_only_below, 0, G_N_ELEMENTS (order));
  tcase_add_test (tc, test_every_folder_is_ordered);
  tcase_add_test (tc, test_scanner_catches);
  tcase_add_loop_test (tc, test_config_does_not_include_topology, 0, G_N_ELEMENTS (config_files));
  suite_add_tcase (s, tc);
  return run_suite (s);
}
