/* test-install.c — pciesim as an installed tool. `meson install --destdir` puts the program, its manual page,
 * the shipped configs and scenarios and the bash completion in the configured directories; the installed
 * program finds the installed configs and scenarios; the completion completes commands, options, config keys,
 * option words and files. tests/meson.build sets MESON, PCIESIM_BUILD_ROOT, PCIESIM_EXE, PCIESIM_SOURCE_ROOT,
 * PCIESIM_MAN_PAGE and PCIESIM_INSTALL_{BINDIR,MANDIR,DATADIR,COMPLETIONSDIR}. */
#include <check.h>
#include <glib/gstdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define TMPDIR_TEMPLATE "pciesim-test-install-XXXXXX"
#include "tests/common.h"

static const char *
env (const char *name)
{
  const char *v = g_getenv (name);
  ck_assert_msg (v && *v, "%s must be set (tests/meson.build does)", name);
  return v;
}

/* Lines of `text`, and whether `word` is one of them. */
static guint
count_lines (const char *text)
{
  guint n = 0;
  for (const char *p = text; (p = strchr (p, '\n')); p++)
    n++;
  return n;
}

static gboolean
has_line (const char *text, const char *word)
{
  g_autofree char *line = g_strdup_printf ("\n%s\n", word);
  g_autofree char *framed = g_strconcat ("\n", text, NULL);
  return strstr (framed, line) != NULL;
}

/* ---- one install for the whole suite ------------------------------------------------------------------------- */

/* Made in the parent before any test forks, so every test sees the same staged tree; its outcome is kept for the
 * tests to assert on, since an unchecked fixture cannot fail a test itself. */
static char *stage;
static TestRun install_run;

static void
install_setup (void)
{
  tmpdir_setup ();
  stage = g_build_filename (tmpdir_root, "stage", NULL);
  const char *argv[] = { g_getenv ("MESON"), "install", "--no-rebuild", "--quiet", "-C", g_getenv ("PCIESIM_BUILD_ROOT"),
                         "--destdir", stage, NULL };
  if (argv[0] && argv[5])
    spawn_run (&install_run, NULL, argv, NULL);
  else
    install_run.status = -1;
}

static void
install_teardown (void)
{
  test_run_clear (&install_run);
  g_free (stage);
  tmpdir_teardown ();
}

/* DESTDIR + an installation directory (absolute, from meson) + the rest. */
static char *
staged (const char *dir_env, const char *rest)
{
  g_autofree char *dir = g_strconcat (stage, env (dir_env), NULL);
  return g_build_filename (dir, rest, NULL);
}

static void
assert_installed (void)
{
  ck_assert_msg (install_run.status == 0, "meson install exited %d:\n%s%s", install_run.status,
                 install_run.out ? install_run.out : "", install_run.err ? install_run.err : "");
}

static void
assert_file (const char *dir_env, const char *rest, gboolean executable)
{
  g_autofree char *path = staged (dir_env, rest);
  ck_assert_msg (g_file_test (path, G_FILE_TEST_IS_REGULAR), "%s was not installed", path);
  if (executable)
    ck_assert_msg (g_file_test (path, G_FILE_TEST_IS_EXECUTABLE), "%s is not executable", path);
}

static void
assert_same_file (const char *a, const char *b)
{
  g_autofree char *x = NULL, *y = NULL;
  gsize nx = 0, ny = 0;
  ck_assert_msg (g_file_get_contents (a, &x, &nx, NULL) && g_file_get_contents (b, &y, &ny, NULL), "%s or %s", a, b);
  ck_assert_msg (nx == ny && memcmp (x, y, nx) == 0, "%s differs from %s", a, b);
}

START_TEST (test_install_layout)
{
  assert_installed ();
  assert_file ("PCIESIM_INSTALL_BINDIR", "pciesim", TRUE);
  assert_file ("PCIESIM_INSTALL_MANDIR", "man1/pciesim.1", FALSE);
  /* A row, the fragments it includes (the subdirectories come along) and a scenario. */
  assert_file ("PCIESIM_INSTALL_DATADIR", "configs/svgx_g2_x8.yaml", FALSE);
  assert_file ("PCIESIM_INSTALL_DATADIR", "configs/hosts/i7-3930k.yaml", FALSE);
  assert_file ("PCIESIM_INSTALL_DATADIR", "configs/families/svgx.yaml", FALSE);
  assert_file ("PCIESIM_INSTALL_DATADIR", "configs/benchmarks/an456.yaml", FALSE);
  assert_file ("PCIESIM_INSTALL_DATADIR", "scenarios/tags_vs_payload.yaml", FALSE);
  assert_file ("PCIESIM_INSTALL_COMPLETIONSDIR", "pciesim", FALSE);

  g_autofree char *man = staged ("PCIESIM_INSTALL_MANDIR", "man1/pciesim.1");
  assert_same_file (man, env ("PCIESIM_MAN_PAGE"));
  g_autofree char *completion = staged ("PCIESIM_INSTALL_COMPLETIONSDIR", "pciesim");
  g_autofree char *source = g_build_filename (env ("PCIESIM_SOURCE_ROOT"), "scripts", "completion", "pciesim", NULL);
  assert_same_file (completion, source);
  /* Every shipped config, not just the ones named above. */
  g_autofree char *configs = g_build_filename (env ("PCIESIM_SOURCE_ROOT"), "configs", NULL);
  g_autoptr (GDir) d = g_dir_open (configs, 0, NULL);
  ck_assert (d);
  for (const char *n; (n = g_dir_read_name (d));) {
    g_autofree char *rel = g_build_filename ("configs", n, NULL);
    if (g_str_has_suffix (n, ".yaml"))
      assert_file ("PCIESIM_INSTALL_DATADIR", rel, FALSE);
  }
}
END_TEST

/* Without CONFIG, the installed program validates the installed configs — found beside it (../share/pciesim), not
 * in the source tree. A broken config planted there shows which directory was read: validate loads every config
 * before running any, so it stops at once naming the planted file's installed path. The program in the build tree,
 * started from the same directory, reads the source tree and never sees it. */
START_TEST (test_installed_validate_finds_installed_configs)
{
  assert_installed ();
  g_autofree char *configs = staged ("PCIESIM_INSTALL_DATADIR", "configs");
  char real[PATH_MAX];
  ck_assert (realpath (configs, real));
  g_autofree char *planted = g_build_filename (real, "0_planted.yaml", NULL);
  ck_assert (g_file_set_contents (planted, "name: planted\nnot_a_key: 1\n", -1, NULL));
  /* A directory without configs/ of its own, so that ./configs does not win. */
  g_autofree char *cwd = tmpdir_case (tmpdir_root, "cwd");
  g_autofree char *exe = staged ("PCIESIM_INSTALL_BINDIR", "pciesim");

  g_auto (TestRun) r;
  const char *argv[] = { exe, "validate", NULL };
  spawn_run (&r, cwd, argv, NULL);
  g_autofree char *prefix = g_strconcat (planted, ":2:1: error: ", NULL);
  ck_assert_msg (r.status == 65 && g_str_has_prefix (r.err, prefix), "status %d, stderr: %s (expected %s…)", r.status,
                 r.err, prefix);

  g_auto (TestRun) b;
  const char *build_argv[] = { env ("PCIESIM_EXE"), "validate", "--format", "csv", NULL };
  spawn_run (&b, cwd, build_argv, NULL);
  /* 1: some figures are beyond the tolerance, which is a result, not a failure here. */
  ck_assert_msg (b.status == 0 || b.status == 1, "build-tree validate exited %d: %s", b.status, b.err);
  ck_assert_msg (strstr (b.out, "svgx_g2_x8") && !strstr (b.out, "planted"), "%s", b.out);
}
END_TEST

/* An installed scenario by its installed path: its base (../configs/svgx_g3_x4.yaml) resolves in the installed
 * tree. tags_vs_payload crosses 9 tag counts (1, 2, 4 … 256) with 4 payload sizes: 36 points and a header. */
START_TEST (test_installed_scenario_runs)
{
  assert_installed ();
  g_autofree char *exe = staged ("PCIESIM_INSTALL_BINDIR", "pciesim");
  g_autofree char *scenario = staged ("PCIESIM_INSTALL_DATADIR", "scenarios/tags_vs_payload.yaml");
  g_auto (TestRun) r;
  const char *argv[] = { exe, "sweep", "--list", scenario, NULL };
  spawn_run (&r, tmpdir_root, argv, NULL);
  ck_assert_msg (r.status == 0, "status %d: %s", r.status, r.err);
  ck_assert_uint_eq (count_lines (r.out), 37);
}
END_TEST

/* ---- bash completion ----------------------------------------------------------------------------------------- */

/* What the completion offers for the words typed so far (the last one is being completed; words[0] is the
 * program), sorted, one per line. Words are given as bash splits them: "--format=j" is "--format" "=" "j". */
static char *
complete (const char *const *words)
{
  g_autofree char *script = g_build_filename (env ("PCIESIM_SOURCE_ROOT"), "scripts", "completion", "pciesim", NULL);
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (gpointer) "bash");
  g_ptr_array_add (argv, (gpointer) "--norc");
  g_ptr_array_add (argv, (gpointer) "--noprofile");
  g_ptr_array_add (argv, (gpointer) "-c");
  g_ptr_array_add (argv, (gpointer) "source \"$1\" || exit 70; shift\n"
                                    "[[ $(complete -p pciesim) == 'complete -F _pciesim pciesim' ]] || exit 71\n"
                                    "COMP_WORDS=(\"$@\"); COMP_CWORD=$(($# - 1)); COMP_LINE=\"$*\"; "
                                    "COMP_POINT=${#COMP_LINE}\n"
                                    "_pciesim || exit 72\n"
                                    "((${#COMPREPLY[@]} == 0)) || printf '%s\\n' \"${COMPREPLY[@]}\" | LC_ALL=C sort");
  g_ptr_array_add (argv, (gpointer) "bash");
  g_ptr_array_add (argv, script);
  g_ptr_array_add (argv, (gpointer) env ("PCIESIM_EXE"));
  for (const char *const *w = words; *w; w++)
    g_ptr_array_add (argv, (gpointer) *w);
  g_ptr_array_add (argv, NULL);
  TestRun r;
  spawn_run (&r, env ("PCIESIM_SOURCE_ROOT"), (const char *const *) argv->pdata, NULL);
  ck_assert_msg (r.status == 0, "completion exited %d: %s", r.status, r.err);
  g_free (r.err);
  return r.out;
}

typedef struct {
  const char *words[5];
  const char *expected; /* sorted, one per line */
} CompletionCase;

/* Expected words from the README's command table and options, not from the program's output. */
static const CompletionCase completion_cases[] = {
  { { "va" }, "validate\n" },
  { { "validate", "--t" }, "--tolerance\n" },
  { { "sweep", "--re" }, "--resume\n" },
  { { "--mode", "s" }, "simultaneous\n" },
  { { "-m", "" }, "all\npio_read\npio_write\nread\nsimultaneous\nwrite\n" },
  { { "--format", "" }, "csv\njson\nmarkdown\ntable\n" },
  { { "sweep", "--format", "" }, "csv\njson\n" },
  { { "keys", "-f", "" }, "markdown\ntable\n" },
  { { "--format", "=", "j" }, "json\n" },
  { { "--set", "link.la" }, "link.lanes=\n" },
  { { "validate", "-s", "endpoint.ta" }, "endpoint.tags=\n" },
  { { "--set", "=", "benchmark.it" }, "benchmark.iterations=\n" },
  { { "--seed", "" }, "" },
  { { "sweep", "README" }, "" },
  { { "merge", "README" }, "README.md\n" },
  { { "sweep", "scenarios/tags_" }, "scenarios/tags_vs_payload.yaml\n" },
  { { "help", "" }, "fit\nimport\nkeys\nmachine\nmerge\nsweep\nvalidate\n" },
  { { "import", "" }, "lspci\npciebench\n" },
  { { "machine", "README" }, "README.md\n" },
  { { "import", "lspci", "README" }, "README.md\n" },
  { { "import", "--de" }, "--device\n" },
  { { "he" }, "help\n" },
  /* One element of the config on the command line (configs/fabric_hops_g3_x4.yaml: nodes host, sw1-sw4, e0-e4;
   * unnamed links, so named by their ends; flows h0-h4), then that element's keys. */
  { { "configs/fabric_hops_g3_x4.yaml", "--set", "nodes.sw" }, "nodes.sw1.\nnodes.sw2.\nnodes.sw3.\nnodes.sw4.\n" },
  { { "configs/fabric_hops_g3_x4.yaml", "-s", "nodes.e1.link.la" }, "nodes.e1.link.lanes=\n" },
  { { "configs/fabric_hops_g3_x4.yaml", "--set", "links.sw1-s" }, "links.sw1-sw2.\n" },
  { { "configs/fabric_hops_g3_x4.yaml", "--set", "links.host-e0.max_p" }, "links.host-e0.max_payload=\n" },
  { { "configs/fabric_hops_g3_x4.yaml", "--set", "flows.h2.st" }, "flows.h2.start_ns=\n" },
  { { "configs/fabric_hops_g3_x4.yaml", "--set", "flows.h9.st" }, "" },
};

START_TEST (test_completion_words)
{
  const CompletionCase *c = &completion_cases[_i];
  g_autofree char *got = complete (c->words);
  ck_assert_msg (strcmp (got, c->expected) == 0, "case %d (%s %s …): got\n%s\nexpected\n%s", _i, c->words[0],
                 c->words[1] ? c->words[1] : "", got, c->expected);
}
END_TEST

/* The first word: every command, and configs/ to walk into. */
START_TEST (test_completion_commands_and_configs)
{
  const char *first[] = { "", NULL };
  g_autofree char *got = complete (first);
  for (const char *w = "validate\0keys\0sweep\0merge\0import\0machine\0configs\0"; *w; w += strlen (w) + 1)
    ck_assert_msg (has_line (got, w), "'%s' not offered:\n%s", w, got);
  /* A CONFIG prefix: exactly the YAML files of configs/ that start with it, listed here from the directory. */
  const char *words[] = { "configs/svgx_g2_x", NULL };
  g_autofree char *configs = complete (words);
  g_autofree char *dir = g_build_filename (env ("PCIESIM_SOURCE_ROOT"), "configs", NULL);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  guint expected = 0;
  for (const char *n; d && (n = g_dir_read_name (d));)
    if (g_str_has_prefix (n, "svgx_g2_x") && g_str_has_suffix (n, ".yaml")) {
      g_autofree char *path = g_strdup_printf ("configs/%s", n);
      ck_assert_msg (has_line (configs, path), "%s not offered:\n%s", path, configs);
      expected++;
    }
  ck_assert_uint_eq (expected, 3); /* svgx_g2_x1, _x4 and _x8 (AN-456 Table 8) */
  ck_assert_uint_eq (count_lines (configs), expected);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("install");
  TCase *tc = tcase_create ("install");
  tcase_add_unchecked_fixture (tc, install_setup, install_teardown);
  /* test_installed_validate_… runs the whole published set through the build tree's validate: a few seconds alone,
   * past Check's default 4 s on a loaded machine, and ~20x that under valgrind (CK_TIMEOUT_MULTIPLIER). */
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_install_layout);
  tcase_add_test (tc, test_installed_validate_finds_installed_configs);
  tcase_add_test (tc, test_installed_scenario_runs);
  tcase_add_loop_test (tc, test_completion_words, 0, G_N_ELEMENTS (completion_cases));
  tcase_add_test (tc, test_completion_commands_and_configs);
  suite_add_tcase (s, tc);
    return run_suite (s);
}
