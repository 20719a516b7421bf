/* test-layering.c — the layering rule of design.md §2, checked on the sources: models/ includes, of sim/, the
 * engine alone (never the config, report or error modules), so every model takes plain parameter structs, raises
 * its own GError domain, and can be built and tested without the program around it. The rule would otherwise hold
 * only as long as everyone remembered it. PCIESIM_SOURCE_ROOT comes from tests/meson.build. */
#include <check.h>
#include <string.h>

#include "tests/common.h"

/* The sim/ headers a model may include. */
/* The engine and the trace sink: both know nothing of PCIe, configs or reports (engine.h, trace.h). */
static const char *const allowed[] = { "sim/engine.h", "sim/trace.h", NULL };

/* Every `#include "sim/…"` or `#include "…"` naming a file of sim/ in `text`, other than those allowed, appended to
 * `bad` as "FILE:LINE: INCLUDE". A quoted include without a directory names a file of the includer's own directory
 * (models/), so only "sim/…" can reach sim/ (and "../sim/…", refused as well). */
static void
scan_includes (const char *file, const char *text, GString *bad, guint *n_includes)
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
    if (!g_str_has_prefix (path, "sim/") && !strstr (path, "../"))
      continue;
    gboolean ok = FALSE;
    for (const char *const *a = allowed; *a; a++)
      ok |= strcmp (path, *a) == 0;
    if (!ok)
      g_string_append_printf (bad, "%s:%u: %s\n", file, i + 1, path);
  }
}

START_TEST (test_models_include_only_the_engine)
{
  g_autofree char *dir = g_build_filename (source_root (), "models", NULL);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  ck_assert_msg (d != NULL, "cannot open %s", dir);
  g_autoptr (GString) bad = g_string_new (NULL);
  guint files = 0, includes = 0;
  for (const char *name; (name = g_dir_read_name (d)) != NULL;) {
    if (!g_str_has_suffix (name, ".c") && !g_str_has_suffix (name, ".h"))
      continue;
    g_autofree char *path = g_build_filename (dir, name, NULL);
    g_autofree char *text = slurp (path);
    scan_includes (name, text, bad, &includes);
    files++;
  }
  /* A scanner that found nothing to scan would pass anything. */
  ck_assert_msg (files >= 20 && includes >= 50, "only %u files and %u includes found in %s", files, includes, dir);
  ck_assert_msg (bad->len == 0, "models/ may include sim/engine.h and sim/trace.h only:\n%s", bad->str);
}
END_TEST

/* The scanner itself: each forbidden form is caught, with its line, and the allowed ones are not. */
START_TEST (test_scanner_catches)
{
  const char *text = "#include <glib.h>\n"
                     "#include \"models/link.h\"\n"
                     "#include \"sim/engine.h\"\n"
                     "#  include \"sim/config.h\"\n"
                     "#include \"sim/report.h\"\n"
                     "#include \"../sim/error.h\"\n"
                     "/* #include \"sim/error.h\" in a comment's text does not start a line */\n";
  g_autoptr (GString) bad = g_string_new (NULL);
  guint n = 0;
  scan_includes ("x.c", text, bad, &n);
  ck_assert_uint_eq (n, 6);
  ck_assert_str_eq (bad->str, "x.c:4: sim/config.h\nx.c:5: sim/report.h\nx.c:6: ../sim/error.h\n");
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("layering");
  TCase *tc = tcase_create ("layering");
  tcase_add_test (tc, test_models_include_only_the_engine);
  tcase_add_test (tc, test_scanner_catches);
  suite_add_tcase (s, tc);
  return run_suite (s);
}
