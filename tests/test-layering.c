/* test-layering.c — the layers of design.md §2, checked on the sources, each folder including only the folders
 * below it. sim/ (the kernel: engine, trace writers, JSON emitter) includes nothing of the others; the folders of
 * models/ (PCIe) include the kernel and the models' folders before them in `order`, never app/; the folders of app/
 * (configs, builder, reports, studies, CLI) include the kernel, every model and the app folders before them. So
 * every model takes plain parameter structs and can be built and tested without the program, the kernel could
 * carry another simulator, and no two folders include each other. The rule would otherwise hold only as long as
 * everyone remembered it. PCIESIM_SOURCE_ROOT comes from tests/meson.build. */
#include <check.h>
#include <string.h>

#include <glib/gstdio.h>

#include "tests/common.h"

/* Every source folder, lowest first; each one's role is in CONTRIBUTING.md ("The layout"). */
static const char *const order[] = {
  "sim",
  "models/base", "models/proto", "models/observe", "models/link", "models/fabric", "models/txn",
  "models/devices",
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

/* ---- no circles between files -------------------------------------------------------------------------------- */

/* Two files of one folder that call each other are one module in two places: neither can be read, tested or
 * replaced alone (#38). The folders' order rules out circles between folders; this looks inside each. A file
 * "uses" another when its text (comments removed) names a function or table the other defines without `static`
 * at the start of a line, as this project writes every definition. The circles still to break are listed, each
 * side in either order; a listed one that no longer holds fails too, so the list only shrinks. */
static const char *const known_circles[][2] = {
  { "models/link/link.c", "models/link/link_errors.c" },
  { "models/link/link.c", "models/link/flit.c" },
};

typedef struct {
  char *path; /* relative to the source root */
  GHashTable *words; /* every identifier in the text, comments removed */
  GPtrArray *defs; /* the names it defines for other files */
} SourceFile;

static void
source_file_free (gpointer p)
{
  SourceFile *s = p;
  g_free (s->path);
  g_hash_table_unref (s->words);
  g_ptr_array_unref (s->defs);
  g_free (s);
}

/* The text with every comment replaced by a space (string literals are kept: a name in a message is rare, and a
 * false use can only add a circle to look at, never hide one). */
static char *
strip_comments (const char *text)
{
  GString *o = g_string_sized_new (strlen (text));
  for (const char *p = text; *p;) {
    if (p[0] == '/' && p[1] == '*') {
      const char *e = strstr (p + 2, "*/");
      p = e ? e + 2 : p + strlen (p);
      g_string_append_c (o, ' ');
    } else if (p[0] == '/' && p[1] == '/') {
      while (*p && *p != '\n')
        p++;
    } else {
      g_string_append_c (o, *p++);
    }
  }
  return g_string_free (o, FALSE);
}

static SourceFile *
source_file_read (const char *rel)
{
  g_autofree char *path = g_path_is_absolute (rel) ? g_strdup (rel) : g_build_filename (source_root (), rel, NULL);
  g_autofree char *raw = slurp (path);
  g_autofree char *text = strip_comments (raw);
  SourceFile *s = g_new0 (SourceFile, 1);
  s->path = g_strdup (rel);
  s->words = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  s->defs = g_ptr_array_new_with_free_func (g_free);
  for (const char *p = text; *p;) {
    if (g_ascii_isalpha (*p) || *p == '_') {
      const char *w = p;
      while (g_ascii_isalnum (*p) || *p == '_')
        p++;
      g_hash_table_add (s->words, g_strndup (w, (gsize) (p - w)));
    } else if (g_ascii_isdigit (*p)) {
      /* A number's letters (0x1f, 10u) are not a word. */
      while (g_ascii_isalnum (*p) || *p == '_')
        p++;
    } else {
      p++;
    }
  }
  /* A function: its name at the start of a line, then " (", the line before not `static …`; a table: a line not
   * starting with `static` that gives NAME[…] an initialiser. */
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  g_autoptr (GRegex) fn = g_regex_new ("^([a-z_][a-z0-9_]*) \\([^;]*$", 0, 0, NULL);
  g_autoptr (GRegex) table = g_regex_new ("^(?!static)[A-Za-z_][^;(]*\\b([a-z_][a-z0-9_]*)\\[[^]]*\\] = ", 0, 0,
                                          NULL);
  for (guint i = 0; lines[i]; i++) {
    g_autoptr (GMatchInfo) f = NULL, a = NULL;
    if (i > 0 && !g_str_has_prefix (lines[i - 1], "static") && g_regex_match (fn, lines[i], 0, &f))
      g_ptr_array_add (s->defs, g_match_info_fetch (f, 1));
    else if (g_regex_match (table, lines[i], 0, &a))
      g_ptr_array_add (s->defs, g_match_info_fetch (a, 1));
  }
  return s;
}

static gboolean
uses (const SourceFile *a, const SourceFile *b)
{
  for (guint k = 0; k < b->defs->len; k++)
    if (g_hash_table_contains (a->words, g_ptr_array_index (b->defs, k)))
      return TRUE;
  return FALSE;
}

static gboolean
known_circle (const char *a, const char *b)
{
  for (guint k = 0; k < G_N_ELEMENTS (known_circles); k++)
    if ((strcmp (a, known_circles[k][0]) == 0 && strcmp (b, known_circles[k][1]) == 0)
        || (strcmp (a, known_circles[k][1]) == 0 && strcmp (b, known_circles[k][0]) == 0))
      return TRUE;
  return FALSE;
}

static gint
cmp_paths (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* Every circle of one folder, "A <-> B" a line, appended to `out`; the number of files and definitions read. */
static void
folder_circles (const char *folder, GString *out, guint *n_files, guint *n_defs)
{
  g_autofree char *dir = g_build_filename (source_root (), folder, NULL);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  ck_assert_msg (d != NULL, "cannot open %s", dir);
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (source_file_free);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  for (const char *name; (name = g_dir_read_name (d)) != NULL;)
    if (g_str_has_suffix (name, ".c"))
      g_ptr_array_add (names, g_build_filename (folder, name, NULL));
  /* Directory order is the file system's: sort, so the message is the same everywhere. */
  g_ptr_array_sort (names, cmp_paths);
  for (guint i = 0; i < names->len; i++)
    g_ptr_array_add (files, source_file_read (g_ptr_array_index (names, i)));
  for (guint i = 0; i < files->len; i++) {
    const SourceFile *a = g_ptr_array_index (files, i);
    *n_defs += a->defs->len;
    for (guint j = i + 1; j < files->len; j++) {
      const SourceFile *b = g_ptr_array_index (files, j);
      if (uses (a, b) && uses (b, a))
        g_string_append_printf (out, "%s <-> %s\n", a->path, b->path);
    }
  }
  *n_files += files->len;
}

START_TEST (test_no_circles_between_files)
{
  g_autoptr (GString) found = g_string_new (NULL), bad = g_string_new (NULL);
  guint n_files = 0, n_defs = 0;
  for (guint k = 0; k < G_N_ELEMENTS (order); k++)
    folder_circles (order[k], found, &n_files, &n_defs);
  /* A reader that found nothing would pass anything. */
  ck_assert_msg (n_files >= 50 && n_defs >= 300, "only %u files and %u definitions read", n_files, n_defs);
  g_auto (GStrv) lines = g_strsplit (found->str, "\n", -1);
  for (guint i = 0; lines[i] && *lines[i]; i++) {
    g_auto (GStrv) ab = g_strsplit (lines[i], " <-> ", 2);
    if (!known_circle (ab[0], ab[1]))
      g_string_append_printf (bad, "new circle: %s\n", lines[i]);
  }
  for (guint k = 0; k < G_N_ELEMENTS (known_circles); k++) {
    g_autofree char *ab = g_strdup_printf ("%s <-> %s\n", known_circles[k][0], known_circles[k][1]);
    g_autofree char *ba = g_strdup_printf ("%s <-> %s\n", known_circles[k][1], known_circles[k][0]);
    if (!strstr (found->str, ab) && !strstr (found->str, ba))
      g_string_append_printf (bad, "no longer a circle (take it off known_circles): %s", ab);
  }
  ck_assert_msg (bad->len == 0, "%s", bad->str);
}
END_TEST

/* The reader itself, on two files written here: a.c calls b.c's function and b.c reads a.c's table — a circle —
 * while c.c only calls a.c, and a static function and a name in a comment are no use. */
START_TEST (test_circle_reader)
{
  g_autofree char *dir = g_dir_make_tmp ("pciesim-test-layering-XXXXXX", NULL);
  ck_assert (dir != NULL);
  /* slurp() and the reader take any path; these are absolute. */
  const char *files[][2] = {
    { "a.c", "const char *const a_names[2] = { \"x\", \"y\" };\nstatic int\nhidden (void)\n{\n  return 0;\n}\n"
             "int\na_call (void)\n{\n  return b_call () + hidden ();\n}\n" },
    { "b.c", "int\nb_call (void)\n{\n  return a_names[0][0];\n}\n/* c_call */\n" },
    { "c.c", "int\nc_call (void)\n{\n  return a_call ();\n}\nstatic int\nb_alone (void)\n{\n  return 1;\n}\n" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (files); i++) {
    g_autofree char *p = g_build_filename (dir, files[i][0], NULL);
    ck_assert (g_file_set_contents (p, files[i][1], -1, NULL));
  }
  g_autofree char *pa = g_build_filename (dir, "a.c", NULL), *pb = g_build_filename (dir, "b.c", NULL),
                  *pc = g_build_filename (dir, "c.c", NULL);
  SourceFile *a = source_file_read (pa), *b = source_file_read (pb), *c = source_file_read (pc);
  ck_assert_uint_eq (a->defs->len, 2); /* a_names, a_call; not hidden */
  ck_assert_uint_eq (c->defs->len, 1); /* c_call; not b_alone */
  ck_assert (uses (a, b) && uses (b, a));
  ck_assert (uses (c, a) && !uses (a, c) && !uses (b, c));
  source_file_free (a);
  source_file_free (b);
  source_file_free (c);
  for (guint i = 0; i < G_N_ELEMENTS (files); i++) {
    g_autofree char *p = g_build_filename (dir, files[i][0], NULL);
    g_unlink (p);
  }
  g_rmdir (dir);
}
END_TEST

/* ---- files and functions a reader can hold ---------------------------------------------------------------------- */

#define MAX_FILE_LINES 900
#define MAX_FUNCTION_LINES 120

/* A file past MAX_FILE_LINES or a function past MAX_FUNCTION_LINES (its name's line to its closing brace at the
 * start of a line) does more than one job (#38). None is left (the last, app/study/sweep.c, gave its reading back
 * of files to sweep_file.c), so any fails. */

/* Lines of one folder's files and functions beyond the bounds, "WHAT LINES" a line. */
static void
folder_sizes (const char *folder, GString *out, guint *n_functions)
{
  g_autofree char *dir = g_build_filename (source_root (), folder, NULL);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  ck_assert_msg (d != NULL, "cannot open %s", dir);
  g_autoptr (GRegex) fn = g_regex_new ("^([a-z_][a-z0-9_]*) \\(", 0, 0, NULL);
  for (const char *name; (name = g_dir_read_name (d)) != NULL;) {
    if (!g_str_has_suffix (name, ".c") && !g_str_has_suffix (name, ".h"))
      continue;
    g_autofree char *path = g_build_filename (dir, name, NULL);
    g_autofree char *rel = g_build_filename (folder, name, NULL);
    g_autofree char *text = slurp (path);
    g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
    guint n = g_strv_length (lines) - (text[0] && text[strlen (text) - 1] == '\n' ? 1 : 0);
    if (n > MAX_FILE_LINES)
      g_string_append_printf (out, "%s %u\n", rel, n);
    for (guint i = 0; lines[i]; i++) {
      g_autoptr (GMatchInfo) m = NULL;
      if (!g_regex_match (fn, lines[i], 0, &m) || g_str_has_suffix (lines[i], ";"))
        continue;
      guint open = i + 1;
      while (lines[open] && strcmp (lines[open], "{") != 0 && !g_str_has_suffix (lines[open], ";"))
        open++;
      if (!lines[open] || strcmp (lines[open], "{") != 0)
        continue;
      guint close = open;
      while (lines[close] && strcmp (lines[close], "}") != 0)
        close++;
      g_autofree char *fname = g_match_info_fetch (m, 1);
      (*n_functions)++;
      if (lines[close] && close - i + 1 > MAX_FUNCTION_LINES)
        g_string_append_printf (out, "%s:%s %u\n", rel, fname, close - i + 1);
      i = lines[close] ? close : i;
    }
  }
}

START_TEST (test_files_and_functions_within_bounds)
{
  g_autoptr (GString) found = g_string_new (NULL);
  guint n_functions = 0;
  for (guint k = 0; k < G_N_ELEMENTS (order); k++)
    folder_sizes (order[k], found, &n_functions);
  ck_assert_msg (n_functions >= 500, "only %u functions found", n_functions);
  ck_assert_msg (found->len == 0, "beyond %u lines a file or %u a function:\n%s", MAX_FILE_LINES, MAX_FUNCTION_LINES,
                 found->str);
}
END_TEST

/* Every occurrence of `needle` in the sources (.c and .h) of the folders whose names start with `prefix`, as
 * " FOLDER/FILE" each appended to `found`, except in files whose path starts with one of `allowed` (NULL-ended);
 * the count. */
static guint
grep_sources (const char *prefix, const char *needle, const char *const *allowed, GString *found)
{
  guint n = 0;
  for (guint k = 0; k < G_N_ELEMENTS (order); k++) {
    if (!g_str_has_prefix (order[k], prefix))
      continue;
    g_autofree char *dir = g_build_filename (source_root (), order[k], NULL);
    g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
    ck_assert_msg (d != NULL, "cannot open %s", dir);
    for (const char *name; (name = g_dir_read_name (d)) != NULL;) {
      g_autofree char *rel = g_build_filename (order[k], name, NULL);
      gboolean skip = !g_str_has_suffix (name, ".c") && !g_str_has_suffix (name, ".h");
      for (guint a = 0; allowed != NULL && allowed[a] != NULL; a++)
        skip = skip || g_str_has_prefix (rel, allowed[a]);
      if (skip)
        continue;
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autofree char *text = slurp (path);
      for (const char *p = text; (p = strstr (p, needle)) != NULL; p++, n++)
        g_string_append_printf (found, " %s", rel);
    }
  }
  return n;
}

/* One error domain a layer (design.md §3): models/ defines exactly one, MODEL_ERROR, so the builder maps every
 * model's refusal to exit 65 without a table of domains that a new model could be missing from (a domain not in
 * it was an internal error, exit 70, for a bad parameter). */
START_TEST (test_models_have_one_error_domain)
{
  g_autoptr (GString) found = g_string_new (NULL);
  guint n = grep_sources ("models/", "G_DEFINE_QUARK", NULL, found);
  ck_assert_msg (n == 1 && strstr (found->str, "models/base/model_error.c"), "%u error domains in models/:%s", n,
                 found->str);
}
END_TEST

/* One requester and one completer (#38): requests and completions are cut in models/txn/ alone, so no device or
 * workload keeps a copy of the rules that can drift. Calls only: a comment may name the rule. */
START_TEST (test_only_txn_cuts)
{
  const char *const allowed[] = { "models/proto/split.", "models/txn/", NULL };
  const char *const calls[] = { "split_next_request (", "split_next_completion (", "split_requests (",
                                "split_completions (" };
  g_autoptr (GString) found = g_string_new (NULL);
  guint n = 0;
  for (guint k = 0; k < G_N_ELEMENTS (calls); k++)
    n += grep_sources ("", calls[k], allowed, found);
  ck_assert_msg (n == 0, "requests or completions cut outside models/txn/:%s", found->str);
}
END_TEST

/* A device kind's footprint (docs/adding-a-device.md): the source files outside its own that name it. Each shipped
 * device is listed with those files; a device that comes to need one more file (a branch over kinds in the
 * builder, a case in a report) fails here, and so does a listed file that no longer names it, so the lists only
 * shrink. Its own files, its config, scenario and tests are not counted: they are the device. */
static const struct {
  const char *word; /* as its sources name it, matched case-insensitively */
  const char *own[3]; /* path prefixes of its own files */
  const char *outside[4]; /* the files outside them that may name it, sorted */
} footprints[] = {
  { "memdev", { "models/devices/memdev." }, { "app/config/nodes.c", "models/meson.build" } },
  { "nvme", { "models/devices/nvme.", "models/workloads/nvme_driver." },
    { "app/config/nodes.c", "app/run/workloads.c", "models/meson.build" } },
};

static void
footprint_scan (const char *folder, const char *word, GPtrArray *hits)
{
  g_autofree char *dir = g_build_filename (source_root (), folder, NULL);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  ck_assert_msg (d != NULL, "cannot open %s", dir);
  for (const char *name; (name = g_dir_read_name (d)) != NULL;) {
    if (!g_str_has_suffix (name, ".c") && !g_str_has_suffix (name, ".h") && strcmp (name, "meson.build") != 0)
      continue;
    g_autofree char *path = g_build_filename (dir, name, NULL);
    g_autofree char *text = slurp (path);
    g_autofree char *lower = g_ascii_strdown (text, -1);
    if (strstr (lower, word))
      g_ptr_array_add (hits, g_build_filename (folder, name, NULL));
  }
}

START_TEST (test_device_footprint)
{
  g_autoptr (GString) bad = g_string_new (NULL);
  for (guint k = 0; k < G_N_ELEMENTS (footprints); k++) {
    g_autoptr (GPtrArray) hits = g_ptr_array_new_with_free_func (g_free);
    for (guint i = 0; i < G_N_ELEMENTS (order); i++)
      footprint_scan (order[i], footprints[k].word, hits);
    footprint_scan ("models", footprints[k].word, hits);
    footprint_scan ("app", footprints[k].word, hits);
    g_ptr_array_sort (hits, cmp_paths);
    g_autoptr (GString) outside = g_string_new (NULL);
    for (guint i = 0; i < hits->len; i++) {
      const char *h = g_ptr_array_index (hits, i);
      gboolean own = FALSE;
      for (guint o = 0; o < G_N_ELEMENTS (footprints[k].own) && footprints[k].own[o]; o++)
        own |= g_str_has_prefix (h, footprints[k].own[o]);
      if (!own)
        g_string_append_printf (outside, " %s", h);
    }
    g_autoptr (GString) want = g_string_new (NULL);
    for (guint o = 0; o < G_N_ELEMENTS (footprints[k].outside) && footprints[k].outside[o]; o++)
      g_string_append_printf (want, " %s", footprints[k].outside[o]);
    if (strcmp (outside->str, want->str) != 0)
      g_string_append_printf (bad, "%s is named outside its own files by%s; listed:%s\n", footprints[k].word,
                              outside->str, want->str);
  }
  ck_assert_msg (bad->len == 0, "%s", bad->str);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("layering");
  TCase *tc = tcase_create ("layering");
  tcase_add_loop_test (tc, test_layers_include_only_below, 0, G_N_ELEMENTS (order));
  tcase_add_test (tc, test_every_folder_is_ordered);
  tcase_add_test (tc, test_no_circles_between_files);
  tcase_add_test (tc, test_circle_reader);
  tcase_add_test (tc, test_files_and_functions_within_bounds);
  tcase_add_test (tc, test_models_have_one_error_domain);
  tcase_add_test (tc, test_only_txn_cuts);
  tcase_add_test (tc, test_device_footprint);
  tcase_add_test (tc, test_scanner_catches);
  tcase_add_loop_test (tc, test_config_does_not_include_topology, 0, G_N_ELEMENTS (config_files));
  suite_add_tcase (s, tc);
  return run_suite (s);
}
