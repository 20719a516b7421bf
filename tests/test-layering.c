/* test-layering.c — the three layers of design.md §2, checked on the sources, each including only the layers
 * below it: sim/ (the kernel: engine, trace writers, JSON emitter) includes nothing of the others; models/ (PCIe)
 * includes the kernel and itself, never app/; app/ (configs, builder, reports, CLI) may include anything. So every
 * model takes plain parameter structs, raises its own GError domain and can be built and tested without the
 * program around it, and the kernel could carry another simulator. The rule would otherwise hold only as long as
 * everyone remembered it. PCIESIM_SOURCE_ROOT comes from tests/meson.build. */
#include <check.h>
#include <string.h>

#include "tests/common.h"

/* A layer: its folder and the folders its files may include from (its own always; NULL-terminated). */
typedef struct {
  const char *dir;
  const char *may[3];
} Layer;

static const Layer layers[] = {
  { "sim", { "sim/", NULL } },
  { "models", { "sim/", "models/", NULL } },
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
  const Layer *layer = &layers[_i];
  g_autofree char *dir = g_build_filename (source_root (), layer->dir, NULL);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  ck_assert_msg (d != NULL, "cannot open %s", dir);
  g_autoptr (GString) bad = g_string_new (NULL);
  guint files = 0, includes = 0;
  for (const char *name; (name = g_dir_read_name (d)) != NULL;) {
    if (!g_str_has_suffix (name, ".c") && !g_str_has_suffix (name, ".h"))
      continue;
    g_autofree char *path = g_build_filename (dir, name, NULL);
    g_autofree char *text = slurp (path);
    g_autofree char *shown = g_build_filename (layer->dir, name, NULL);
    scan_includes (shown, text, layer->may, bad, &includes);
    files++;
  }
  /* A scanner that found nothing to scan would pass anything. */
  ck_assert_msg (files >= 4 && includes >= 10, "only %u files and %u includes found in %s", files, includes, dir);
  ck_assert_msg (bad->len == 0, "%s/ includes a layer above it:\n%s", layer->dir, bad->str);
}
END_TEST

/* The scanner itself: each forbidden form is caught, with its line, and the allowed ones are not. */
START_TEST (test_scanner_catches)
{
  const char *text = "#include <glib.h>\n"
                     "#include \"models/link.h\"\n"
                     "#include \"sim/engine.h\"\n"
                     "#  include \"app/config.h\"\n"
                     "#include \"app/report.h\"\n"
                     "#include \"../app/error.h\"\n"
                     "#include \"local.h\"\n"
                     "#include \"pciesim-version.h\"\n"
                     "/* #include \"app/error.h\" in a comment's text does not start a line */\n";
  const char *const models_may[] = { "sim/", "models/", NULL };
  g_autoptr (GString) bad = g_string_new (NULL);
  guint n = 0;
  scan_includes ("x.c", text, models_may, bad, &n);
  ck_assert_uint_eq (n, 8);
  ck_assert_str_eq (bad->str, "x.c:4: app/config.h\nx.c:5: app/report.h\nx.c:6: ../app/error.h\nx.c:8: pciesim-version.h\n");
  /* The kernel may not reach models/ either. */
  const char *const sim_may[] = { "sim/", NULL };
  g_string_truncate (bad, 0);
  scan_includes ("y.c", "#include \"models/link.h\"\n#include \"sim/json.h\"\n", sim_may, bad, &n);
  ck_assert_str_eq (bad->str, "y.c:1: models/link.h\n");
}
END_TEST

/* Inside app/: the keys and the fabric are composed by app/load.c alone, so config never reaches topology (which
 * derives its nodes' configs from config: the other way would be a cycle). */
static const char *const config_files[] = { "app/config.h", "app/config_private.h", "app/config_keys.c",
                                             "app/config_values.c", "app/config_load.c", "app/config_rules.c",
                                             "app/config_emit.c" };

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
  tcase_add_loop_test (tc, test_layers_include_only_below, 0, G_N_ELEMENTS (layers));
  tcase_add_test (tc, test_scanner_catches);
  tcase_add_loop_test (tc, test_config_does_not_include_topology, 0, G_N_ELEMENTS (config_files));
  suite_add_tcase (s, tc);
  return run_suite (s);
}
