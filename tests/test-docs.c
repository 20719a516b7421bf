/* test-docs.c — the documentation that must not drift from the code: every `NAME.md §N` citation in the
 * repository names a file and section of docs/reference/ that exist; every relative link of the README, the
 * manual under docs/ and CONTRIBUTING.md names a file that exists (and a heading of it, for #anchors); the
 * README's command summary names every command and option and the manual documents each of them; and the
 * generated pciesim(1) page renders with man -l and holds every option of every command's --help and every key
 * of `pciesim keys`.
 * PCIESIM_EXE, PCIESIM_SOURCE_ROOT and PCIESIM_MAN_PAGE come from tests/meson.build. */
#include <check.h>
#include <glib/gstdio.h>
#include <string.h>

#define TMPDIR_TEMPLATE "pciesim-test-docs-XXXXXX"
#include "tests/common.h"

/* Written apart so that this file's own text holds no citation and no path that the scanner would check. */
#define MD ".md"
#define SHARED_REF "shared" "/reference/"

/* ---- the citation scanner ------------------------------------------------------------------------------------ */

/* What the repository cites: a file name, optionally with a directory (then relative to the source root,
 * otherwise in docs/reference/), then " §N" or " §N.M". "§2.2 b" cites 2.2; "§1." at a sentence's end cites 1. */
#define CITATION_RE "((?:[A-Za-z0-9_.-]+/)*)([A-Za-z0-9_-]+)\\.md §([0-9]+)(?:\\.([0-9]+))?"

/* Where citations live: code, tests, configs, scripts and the docs themselves. */
static const char *const scanned[] = { "sim", "models", "app", "tests", "bench", "scripts", "configs", "scenarios",
                                       "docs", ".ci", "README.md", "CONTRIBUTING.md", "meson.build",
                                       "meson_options.txt", NULL };

typedef struct {
  const char *root;
  GRegex *re;
  GHashTable *sections; /* reference file path -> GHashTable of its section numbers, or NULL if missing */
  guint citations;
  GString *problems; /* one line per citation that does not resolve */
} Scan;

/* The section numbers a Markdown file defines: headings "## 3. Title", "### 2.2 Title". */
static GHashTable *
read_sections (const char *path)
{
  g_autofree char *text = NULL;
  if (!g_file_get_contents (path, &text, NULL, NULL))
    return NULL;
  GHashTable *set = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GRegex) heading = g_regex_new ("^#+[ \\t]+([0-9]+(?:\\.[0-9]+)*)\\.?[ \\t]", G_REGEX_MULTILINE, 0, NULL);
  g_autoptr (GMatchInfo) m = NULL;
  for (g_regex_match (heading, text, 0, &m); g_match_info_matches (m); g_match_info_next (m, NULL))
    g_hash_table_add (set, g_match_info_fetch (m, 1));
  return set;
}

static GHashTable *
sections_of (Scan *s, const char *path)
{
  gpointer found;
  if (!g_hash_table_lookup_extended (s->sections, path, NULL, &found)) {
    found = read_sections (path);
    g_hash_table_insert (s->sections, g_strdup (path), found);
  }
  return found;
}

static void
scan_text (Scan *s, const char *file, const char *text)
{
  g_autoptr (GMatchInfo) m = NULL;
  for (g_regex_match (s->re, text, 0, &m); g_match_info_matches (m); g_match_info_next (m, NULL)) {
    g_autofree char *dir = g_match_info_fetch (m, 1), *name = g_match_info_fetch (m, 2);
    g_autofree char *major = g_match_info_fetch (m, 3), *minor = g_match_info_fetch (m, 4);
    g_autofree char *cited = g_strdup_printf ("%s%s.md", dir, name);
    g_autofree char *path = *dir ? g_build_filename (s->root, cited, NULL)
                                 : g_build_filename (s->root, "docs", "reference", cited, NULL);
    g_autofree char *section = minor && *minor ? g_strdup_printf ("%s.%s", major, minor) : g_strdup (major);
    s->citations++;
    GHashTable *set = sections_of (s, path);
    if (!set)
      g_string_append_printf (s->problems, "%s: %s §%s: no such file\n", file, cited, section);
    else if (!g_hash_table_contains (set, section))
      g_string_append_printf (s->problems, "%s: %s §%s: no such section\n", file, cited, section);
  }
  /* The reference files outside the repository are no citation target: a reader of the sources has no copy. */
  if (strstr (text, SHARED_REF))
    g_string_append_printf (s->problems, "%s: cites %s, which is outside the repository\n", file, SHARED_REF);
}

static void
scan_path (Scan *s, const char *rel)
{
  g_autofree char *path = g_build_filename (s->root, rel, NULL);
  if (g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    return;
  if (g_file_test (path, G_FILE_TEST_IS_DIR)) {
    g_autoptr (GDir) d = g_dir_open (path, 0, NULL);
    for (const char *n; d && (n = g_dir_read_name (d));) {
      g_autofree char *child = g_build_filename (rel, n, NULL);
      scan_path (s, child);
    }
    return;
  }
  g_autofree char *text = NULL;
  gsize len = 0;
  /* Binary files (plots) and the bad-input corpus's deliberately broken encodings hold no citation. */
  if (!g_file_get_contents (path, &text, &len, NULL) || memchr (text, 0, len) || !g_utf8_validate (text, len, NULL))
    return;
  scan_text (s, rel, text);
}

/* Scans `paths` (NULL-terminated, relative to `root`; missing ones are skipped) and returns the problems, one per
 * line; *citations receives how many citations were checked. */
static char *
scan_tree (const char *root, const char *const *paths, guint *citations)
{
  Scan s = { .root = root, .problems = g_string_new (NULL),
             .sections = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                (GDestroyNotify) g_hash_table_unref) };
  s.re = g_regex_new (CITATION_RE, 0, 0, NULL);
  ck_assert (s.re);
  for (const char *const *p = paths; *p; p++)
    scan_path (&s, *p);
  g_regex_unref (s.re);
  /* g_hash_table_unref as the value destructor must not see the NULLs of missing files. */
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init (&it, s.sections);
  while (g_hash_table_iter_next (&it, &key, &value))
    if (!value) {
      g_hash_table_iter_steal (&it);
      g_free (key);
    }
  g_hash_table_unref (s.sections);
  *citations = s.citations;
  return g_string_free (s.problems, FALSE);
}

typedef char *(*Scanner) (const char *root, const char *const *paths, guint *found);

/* Runs `scan` over the source tree: no problem, and at least `min` of `what` found (far fewer would mean the
 * scanner went blind). */
static void
assert_tree_clean (Scanner scan, const char *const *paths, const char *what, guint min)
{
  const char *root = g_getenv ("PCIESIM_SOURCE_ROOT");
  ck_assert_msg (root, "PCIESIM_SOURCE_ROOT must be set (tests/meson.build does)");
  guint n = 0;
  g_autofree char *problems = scan (root, paths, &n);
  ck_assert_msg (*problems == '\0', "%s that do not resolve:\n%s", what, problems);
  ck_assert_msg (n >= min, "only %u %s found: is the scanner still matching them?", n, what);
}

/* How many problems a scan reported: one per line. */
static guint
problem_count (const char *problems)
{
  guint lines = 0;
  for (const char *p = problems; (p = strchr (p, '\n')); p++)
    lines++;
  return lines;
}

START_TEST (test_citations_resolve)
{
  /* 187 when the reference files came into the repository. */
  assert_tree_clean (scan_tree, scanned, "citations", 150);
}
END_TEST

/* The scanner fails where it should: a missing section, a missing subsection, a missing file and a path outside
 * the repository are each reported once; good citations (with a directory, a subsection, a trailing period and
 * a letter after the number) are not. */
START_TEST (test_citations_fail_when_wrong)
{
  g_autofree char *dir = tmpdir_case (tmpdir_root, "scan");
  g_free (write_file (dir, "docs/reference/facts" MD, "# Facts\n\n## 1. One\n\n## 2. Two\n\n### 2.1 Two-one\n\nText.\n"));
  g_free (write_file (dir, "docs/other" MD, "# Other\n\n## 4. Four\n"));
  g_free (write_file (dir, "sim/good.c", "/* facts" MD " §1. facts" MD " §2.1 b, docs/other" MD " §4 */\n"));
  g_free (write_file (dir, "sim/bad.c",
              "/* facts" MD " §3 */\n/* facts" MD " §2.2 */\n/* nosuch" MD " §1 */\n/* " SHARED_REF "facts" MD " */\n"));
  static const char *const paths[] = { "sim", "docs", NULL };
  guint n = 0;
  g_autofree char *problems = scan_tree (dir, paths, &n);
  ck_assert_uint_eq (n, 6);
  ck_assert_msg (strstr (problems, "sim/bad.c: facts" MD " §3: no such section"), "%s", problems);
  ck_assert_msg (strstr (problems, "sim/bad.c: facts" MD " §2.2: no such section"), "%s", problems);
  ck_assert_msg (strstr (problems, "sim/bad.c: nosuch" MD " §1: no such file"), "%s", problems);
  ck_assert_msg (strstr (problems, "sim/bad.c: cites " SHARED_REF), "%s", problems);
  ck_assert_msg (!strstr (problems, "good.c"), "%s", problems);
  ck_assert_msg (problem_count (problems) == 4, "%s", problems);
}
END_TEST

/* ---- links of the README and the manual ---------------------------------------------------------------------- */

/* The documents whose links are checked: the front door, the development habits and every page of the manual. */
static const char *const linked_docs[] = { "README.md", "CONTRIBUTING.md", "docs", "docs/reference", NULL };

/* The anchor a heading gets on the forges that render these files (GitHub's rule): lower case, letters, digits,
 * '-' and '_' kept, spaces made '-', everything else (punctuation, backquotes) dropped. */
static char *
heading_anchor (const char *title)
{
  GString *s = g_string_new (NULL);
  for (const char *p = title; *p; p = g_utf8_next_char (p)) {
    gunichar c = g_utf8_get_char (p);
    if (g_unichar_isalnum (c))
      g_string_append_unichar (s, g_unichar_tolower (c));
    else if (c == ' ' || c == '-' || c == '_')
      g_string_append_c (s, c == ' ' ? '-' : (char) c);
  }
  return g_string_free (s, FALSE);
}

/* Calls fn on each line of `text` outside fenced code blocks. */
static void
prose_lines (const char *text, void (*fn) (const char *line, gpointer data), gpointer data)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  gboolean fence = FALSE;
  for (char **l = lines; *l; l++) {
    if (g_str_has_prefix (*l, "```")) {
      fence = !fence;
      continue;
    }
    if (!fence)
      fn (*l, data);
  }
}

static void
add_anchor (const char *line, gpointer data)
{
  GHashTable *set = data;
  gsize hashes = strspn (line, "#");
  if (hashes == 0 || hashes > 6 || line[hashes] != ' ')
    return;
  g_autofree char *title = g_strstrip (g_strdup (line + hashes + 1));
  char *base = heading_anchor (title), *anchor = g_strdup (base);
  /* A second heading of the same title gets "-1", the third "-2". */
  for (guint n = 1; g_hash_table_contains (set, anchor); n++) {
    g_free (anchor);
    anchor = g_strdup_printf ("%s-%u", base, n);
  }
  g_free (base);
  g_hash_table_add (set, anchor);
}

/* The anchors of a Markdown file, or NULL if it cannot be read. */
static GHashTable *
anchors_of (const char *path)
{
  g_autofree char *text = NULL;
  if (!g_file_get_contents (path, &text, NULL, NULL))
    return NULL;
  GHashTable *set = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  prose_lines (text, add_anchor, set);
  return set;
}

typedef struct {
  const char *root, *file; /* the source root; the document being read, relative to it */
  GRegex *re;
  guint links;
  GString *problems;
} LinkScan;

static void
check_links (const char *line, gpointer data)
{
  LinkScan *s = data;
  g_autoptr (GMatchInfo) m = NULL;
  for (g_regex_match (s->re, line, 0, &m); g_match_info_matches (m); g_match_info_next (m, NULL)) {
    g_autofree char *target = g_match_info_fetch (m, 1);
    /* A URL (https:, mailto:) leaves the repository: not checked here. */
    if (g_regex_match_simple ("^[a-z]+:", target, 0, 0))
      continue;
    s->links++;
    char *hash = strchr (target, '#');
    g_autofree char *anchor = hash ? g_strdup (hash + 1) : NULL;
    if (hash)
      *hash = '\0';
    g_autofree char *dir = g_path_get_dirname (s->file);
    g_autofree char *path = *target ? g_build_filename (s->root, dir, target, NULL)
                                    : g_build_filename (s->root, s->file, NULL);
    if (!g_file_test (path, G_FILE_TEST_EXISTS)) {
      g_string_append_printf (s->problems, "%s: %s: no such file\n", s->file, target);
      continue;
    }
    if (!anchor || !g_str_has_suffix (path, ".md"))
      continue;
    g_autoptr (GHashTable) set = anchors_of (path);
    if (!set || !g_hash_table_contains (set, anchor))
      g_string_append_printf (s->problems, "%s: %s#%s: no such heading\n", s->file, target, anchor);
  }
}

/* Checks the relative links of `paths` (files, or folders whose *.md files are read; relative to `root`) and
 * returns the problems, one per line; *links receives how many links were checked. */
static char *
scan_links (const char *root, const char *const *paths, guint *links)
{
  LinkScan s = { .root = root, .problems = g_string_new (NULL) };
  /* [text](target) and ![alt](target); a title after the target is not used in these files. */
  s.re = g_regex_new ("\\]\\(([^()\\s]+)\\)", 0, 0, NULL);
  ck_assert (s.re);
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  for (const char *const *p = paths; *p; p++) {
    g_autofree char *full = g_build_filename (root, *p, NULL);
    if (!g_file_test (full, G_FILE_TEST_IS_DIR)) {
      if (g_file_test (full, G_FILE_TEST_EXISTS))
        g_ptr_array_add (files, g_strdup (*p));
      continue;
    }
    g_autoptr (GDir) d = g_dir_open (full, 0, NULL);
    for (const char *n; d && (n = g_dir_read_name (d));)
      if (g_str_has_suffix (n, ".md"))
        g_ptr_array_add (files, g_build_filename (*p, n, NULL));
  }
  for (guint i = 0; i < files->len; i++) {
    s.file = files->pdata[i];
    g_autofree char *path = g_build_filename (root, s.file, NULL);
    g_autofree char *text = slurp (path);
    prose_lines (text, check_links, &s);
  }
  g_regex_unref (s.re);
  *links = s.links;
  return g_string_free (s.problems, FALSE);
}

START_TEST (test_links_resolve)
{
  /* 118 when the README was split into the manual. */
  assert_tree_clean (scan_links, linked_docs, "links", 100);
}
END_TEST

/* The link checker fails where it should: a missing file, a missing heading in another file and in the same file
 * are each reported once; a good file link, a folder, an anchor made from punctuation and backquotes, a repeated
 * heading's "-1", a URL and a link inside a code block are not. */
START_TEST (test_links_fail_when_wrong)
{
  g_autofree char *dir = tmpdir_case (tmpdir_root, "links");
  g_free (write_file (dir, "docs/page" MD, "# Page\n\n## `--set`: keys, and more\n\n## Twice\n\n## Twice\n"));
  g_free (write_file (dir, "docs/sub/x.txt", "x\n"));
  g_free (write_file (dir, "README" MD,
                      "# Top\n\n[a](docs/page" MD ") [b](docs/page" MD "#--set-keys-and-more) [c](docs/page" MD
                      "#twice-1) [d](docs/sub/) [e](https://example.org/x) [f](#top)\n"
                      "[g](docs/nosuch" MD ") [h](docs/page" MD "#nosuch) [i](#nowhere)\n```\n[j](nosuch)\n```\n"));
  static const char *const paths[] = { "README" MD, "docs", NULL };
  guint n = 0;
  g_autofree char *problems = scan_links (dir, paths, &n);
  ck_assert_uint_eq (n, 8);
  ck_assert_msg (strstr (problems, "README" MD ": docs/nosuch" MD ": no such file"), "%s", problems);
  ck_assert_msg (strstr (problems, "README" MD ": docs/page" MD "#nosuch: no such heading"), "%s", problems);
  ck_assert_msg (strstr (problems, "README" MD ": #nowhere: no such heading"), "%s", problems);
  ck_assert_msg (problem_count (problems) == 3, "%s", problems);
}
END_TEST

/* ---- the manual page ----------------------------------------------------------------------------------------- */

/* man and pciesim, in the source root. */
static void
run_argv (TestRun *r, const char *const *argv)
{
  g_auto (GStrv) env = g_get_environ ();
  /* man's own messages and groff's output in one known language; a wide page so that no option is wrapped. */
  env = g_environ_setenv (env, "LC_ALL", "C.UTF-8", TRUE);
  env = g_environ_setenv (env, "MANWIDTH", "200", TRUE);
  env = g_environ_unsetenv (env, "MANPAGER");
  env = g_environ_unsetenv (env, "PAGER");
  spawn_run (r, g_getenv ("PCIESIM_SOURCE_ROOT"), argv, env);
}

/* The page as a reader sees it. Where groff prints a Unicode hyphen or minus for "-", it is turned back into
 * ASCII, since that is what the reader types. */
static char *
rendered_page (void)
{
  const char *page = g_getenv ("PCIESIM_MAN_PAGE");
  ck_assert_msg (page, "PCIESIM_MAN_PAGE must be set (tests/meson.build does)");
  const char *argv[] = { "man", "--warnings=all", "-l", page, NULL };
  g_auto (TestRun) r;
  run_argv (&r, argv);
  ck_assert_msg (r.status == 0, "man -l exited %d: %s", r.status, r.err);
  /* groff's warnings (a bad escape, a line it cannot fill) would go to stderr. */
  ck_assert_msg (*r.err == '\0', "man -l warns:\n%s", r.err);
  GString *s = g_string_new (r.out);
  g_string_replace (s, "\u2010", "-", 0);
  g_string_replace (s, "\u2212", "-", 0);
  return g_string_free (s, FALSE);
}

static char *
pciesim_out (const char *a, const char *b, const char *c)
{
  const char *argv[] = { g_getenv ("PCIESIM_EXE"), a, b, c, NULL };
  ck_assert_msg (argv[0], "PCIESIM_EXE must be set (tests/meson.build does)");
  TestRun r;
  run_argv (&r, argv);
  ck_assert_msg (r.status == 0, "pciesim %s %s exited %d: %s", a, b ? b : "", r.status, r.err);
  g_free (r.err);
  return r.out;
}

START_TEST (test_man_renders)
{
  g_autofree char *text = rendered_page ();
  ck_assert_msg (g_str_has_prefix (text, "PCIESIM(1)"), "%.200s", text);
  for (const char *h = "NAME\0SYNOPSIS\0DESCRIPTION\0COMMANDS\0CONFIG KEYS\0EXIT STATUS\0"; *h; h += strlen (h) + 1) {
    g_autofree char *line = g_strdup_printf ("\n%s\n", h);
    ck_assert_msg (strstr (text, line), "no %s section", h);
  }
  /* The footer carries the version the program reports. */
  g_autofree char *version = pciesim_out ("--version", NULL, NULL);
  g_strchomp (version);
  ck_assert_msg (strstr (text, version), "the page does not name '%s'", version);
}
END_TEST

/* Every command the help lists (at least the four the README documents), and in each command's part of the page
 * every option of its --help with that option's own description. */
/* The commands `pciesim --help` lists, "" (the default command, running a config) first. `pciesim help COMMAND` is
 * COMMAND --help (scripts/man-page leaves it out): it has no options of its own, and is left out unless asked. */
static GPtrArray *
help_commands (const char *help, gboolean with_help)
{
  GPtrArray *commands = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (commands, g_strdup (""));
  g_autoptr (GRegex) cmd_re = g_regex_new ("^  pciesim ([a-z][a-z-]*) ", G_REGEX_MULTILINE, 0, NULL);
  g_autoptr (GMatchInfo) cm = NULL;
  for (g_regex_match (cmd_re, help, 0, &cm); g_match_info_matches (cm); g_match_info_next (cm, NULL)) {
    char *c = g_match_info_fetch (cm, 1);
    if (strcmp (c, "help") == 0 && !with_help)
      g_free (c);
    else
      g_ptr_array_add (commands, c);
  }
  ck_assert_uint_ge (commands->len, 5);
  return commands;
}

/* An option line of a --help: "  -s, --set=KEY=VALUE   description"; group 1 the long option, 2 the description. */
#define OPTION_RE "^  (?:-[A-Za-z], )?(--[a-z-]+)(?:=\\S+)?  +(.+)$"

START_TEST (test_man_has_every_option)
{
  g_autofree char *text = rendered_page ();
  g_autofree char *help = pciesim_out ("--help", NULL, NULL);
  g_autoptr (GPtrArray) commands = help_commands (help, FALSE);
  g_autoptr (GRegex) opt_re = g_regex_new (OPTION_RE, G_REGEX_MULTILINE, 0, NULL);
  for (guint i = 0; i < commands->len; i++) {
    const char *cmd = commands->pdata[i];
    /* The page's part for this command runs from its heading to the next command's. */
    g_autofree char *heading = g_strdup_printf ("\n   pciesim %s%s", cmd, *cmd ? " " : "[");
    const char *part = strstr (text, heading);
    ck_assert_msg (part, "no COMMANDS heading for '%s'", cmd);
    const char *end = strstr (part + strlen (heading), "\n   pciesim ");
    g_autofree char *section = end ? g_strndup (part, (gsize) (end - part)) : g_strdup (part);
    g_autofree char *cmd_help = *cmd ? pciesim_out (cmd, "--help", NULL) : g_strdup (help);
    guint options = 0;
    g_autoptr (GMatchInfo) m = NULL;
    for (g_regex_match (opt_re, cmd_help, 0, &m); g_match_info_matches (m); g_match_info_next (m, NULL)) {
      g_autofree char *opt = g_match_info_fetch (m, 1), *desc = g_match_info_fetch (m, 2);
      ck_assert_msg (strstr (section, opt), "pciesim %s: %s is not on the page", cmd, opt);
      ck_assert_msg (strstr (section, desc), "pciesim %s %s: '%s' is not on the page", cmd, opt, desc);
      options++;
    }
    /* Every command has --help and at least one option of its own. */
    ck_assert_msg (options >= 2, "pciesim %s: only %u options read from its --help", cmd, options);
  }
}
END_TEST

/* The README's command summary names every command and every long option of its --help, and the manual (the
 * README and the pages of docs/ together) documents each of them: a new command or option that no page mentions fails. */
START_TEST (test_manual_has_every_option)
{
  const char *root = g_getenv ("PCIESIM_SOURCE_ROOT");
  g_autofree char *readme_path = g_build_filename (root, "README.md", NULL);
  g_autofree char *readme = slurp (readme_path);
  GString *manual = g_string_new (readme);
  g_autofree char *docs = g_build_filename (root, "docs", NULL);
  g_autoptr (GDir) d = g_dir_open (docs, 0, NULL);
  guint pages = 0;
  for (const char *n; d && (n = g_dir_read_name (d));)
    if (g_str_has_suffix (n, ".md")) {
      g_autofree char *path = g_build_filename (docs, n, NULL);
      g_autofree char *page = slurp (path);
      g_string_append (manual, page);
      pages++;
    }
  g_autofree char *all = g_string_free (manual, FALSE);
  ck_assert_msg (pages >= 10, "only %u pages in docs/", pages);

  g_autofree char *help = pciesim_out ("--help", NULL, NULL);
  g_autoptr (GPtrArray) commands = help_commands (help, TRUE);
  g_autoptr (GRegex) opt_re = g_regex_new (OPTION_RE, G_REGEX_MULTILINE, 0, NULL);
  guint options = 0;
  for (guint i = 0; i < commands->len; i++) {
    const char *cmd = commands->pdata[i];
    /* The summary's first column: `pciesim validate [CONFIG…]`, `pciesim CONFIG` for the default command. */
    g_autofree char *named = g_strdup_printf ("`pciesim %s", *cmd ? cmd : "CONFIG");
    ck_assert_msg (strstr (readme, named), "the README's command summary does not name %s`", named);
    g_autofree char *cmd_help = *cmd ? pciesim_out (cmd, "--help", NULL) : g_strdup (help);
    g_autoptr (GMatchInfo) m = NULL;
    for (g_regex_match (opt_re, cmd_help, 0, &m); g_match_info_matches (m); g_match_info_next (m, NULL)) {
      g_autofree char *opt = g_match_info_fetch (m, 1);
      /* Quoted as code, so that --set does not stand for --set-something. */
      g_autofree char *quoted = g_strdup_printf ("`%s", opt);
      ck_assert_msg (strstr (readme, quoted), "pciesim %s %s: not in the README's command summary", cmd, opt);
      ck_assert_msg (strstr (all, quoted), "pciesim %s %s: not in the manual", cmd, opt);
      options++;
    }
  }
  ck_assert_msg (options >= 30, "only %u options read from the --help texts", options);
}
END_TEST

/* Every key of `pciesim keys` (the table format, not the Markdown the page is made from) with its description. */
START_TEST (test_man_has_every_key)
{
  g_autofree char *text = rendered_page ();
  g_autofree char *keys = pciesim_out ("keys", NULL, NULL);
  g_auto (GStrv) lines = g_strsplit (keys, "\n", -1);
  guint n = 0;
  for (char **l = lines; *l; l++) {
    if (!**l)
      continue;
    g_autofree char *key = g_strndup (*l, strcspn (*l, " "));
    /* A tag line of its own, or (a key shorter than the indent) followed by its type on the same line. */
    g_autofree char *tag = g_strdup_printf ("\n       %s", key);
    const char *at = text;
    while ((at = strstr (at, tag)) && at[strlen (tag)] != '\n' && at[strlen (tag)] != ' ')
      at++;
    ck_assert_msg (at, "key %s is not on the page", key);
    n++;
  }
  /* There were 75 keys when this was written, and keys are only ever added. */
  ck_assert_msg (n >= 75, "only %u keys", n);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("docs");
  TCase *tc = tcase_create ("docs");
  tcase_add_unchecked_fixture (tc, tmpdir_setup, tmpdir_teardown);
  tcase_add_test (tc, test_citations_resolve);
  tcase_add_test (tc, test_citations_fail_when_wrong);
  tcase_add_test (tc, test_links_resolve);
  tcase_add_test (tc, test_links_fail_when_wrong);
  tcase_add_test (tc, test_manual_has_every_option);
  tcase_add_test (tc, test_man_renders);
  tcase_add_test (tc, test_man_has_every_option);
  tcase_add_test (tc, test_man_has_every_key);
  suite_add_tcase (s, tc);
    return run_suite (s);
}
