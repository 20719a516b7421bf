/* common.h — what the Check suites share: the paths tests/meson.build passes in, running a program (the pciesim
 * binary, usually) and collecting its exit status and output, scratch directories, and the runner of main().
 *
 * Contract:
 * - test_env() and source_root() fail the test when tests/meson.build's variables are missing, rather than
 *   letting a NULL path run anything.
 * - run_program() runs to completion, in the source root unless told otherwise (so configs/… and scenarios/…
 *   paths resolve), and fills a TestRun; PCIESIM() is the common case, the pciesim binary with its arguments.
 *   A program killed by a signal has status -1.
 * - tmpdir_new() makes a fresh directory under $TMPDIR (failing the test if it cannot) and tmpdir_remove()
 *   deletes it with everything below it, never following a symlink out of it. Make and remove it from an
 *   unchecked fixture (in the parent): a failing test exits its forked child before any cleanup.
 *   tmpdir_setup/tmpdir_teardown are that fixture for the suite's one root, `tmpdir_root`, named by
 *   TMPDIR_TEMPLATE, which the suite defines before including this header.
 * - run_suite() runs a suite as every suite's main() does (TAP to meson, so failures are reported there and
 *   the exit status stays 0) and frees it.
 */
#pragma once

#include <check.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>

/* --- paths from tests/meson.build --------------------------------------------------------------------------- */

static inline const char *
test_env (const char *name)
{
  const char *v = g_getenv (name);
  ck_assert_msg (v && *v, "%s must be set (tests/meson.build does)", name);
  return v;
}

static inline const char *
source_root (void)
{
  return test_env ("PCIESIM_SOURCE_ROOT");
}

/* --- running a program ----------------------------------------------------------------------------------- */

typedef struct {
  int status; /* exit status, or -1 if killed by a signal */
  char *out, *err;
} TestRun;

static inline void
test_run_clear (TestRun *r)
{
  g_free (r->out);
  g_free (r->err);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (TestRun, test_run_clear)

/* argv[0] (searched in PATH when it has no slash) with `envp` (NULL: ours), in `cwd` (NULL: ours). Never fails
 * the test itself, so unchecked fixtures may use it: a program that cannot be started gives FALSE, status -1 and
 * the reason in err; out and err are always strings. */
static inline gboolean
spawn_run (TestRun *r, const char *cwd, const char *const *argv, char **envp)
{
  int ws = 0;
  GError *e = NULL;
  memset (r, 0, sizeof *r);
  if (!g_spawn_sync (cwd, (char **) argv, envp, G_SPAWN_SEARCH_PATH, NULL, NULL, &r->out, &r->err, &ws, &e)) {
    r->status = -1;
    r->out = g_strdup ("");
    r->err = g_strdup (e->message);
    g_error_free (e);
    return FALSE;
  }
  r->status = WIFEXITED (ws) ? WEXITSTATUS (ws) : -1;
  return TRUE;
}

/* `exe` (NULL = PCIESIM_EXE; a bare name is looked up in PATH) with the NULL-terminated `args`, in `cwd` (NULL =
 * the source root); a program that cannot be started fails the test. */
static inline void
run_program (TestRun *r, const char *exe, const char *cwd, const char *const *args)
{
  exe = exe ? exe : test_env ("PCIESIM_EXE");
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (gpointer) exe);
  for (const char *const *a = args; *a; a++)
    g_ptr_array_add (argv, (gpointer) *a);
  g_ptr_array_add (argv, NULL);
  ck_assert_msg (spawn_run (r, cwd ? cwd : source_root (), (const char *const *) argv->pdata, NULL),
                 "spawning %s: %s", exe, r->err);
}

/* pciesim ARG… in the source root: PCIESIM (&r, "validate", "--format", "json"). */
#define PCIESIM(r, ...) run_program ((r), NULL, NULL, (const char *const[]) { __VA_ARGS__, NULL })

/* stderr is exactly one line (the error), as error.h promises, starting with `prefix`. One line is what a script
 * or a batch log can grep; a second line could also be forged by text copied from the input (bad-input.md). */
static inline void
assert_one_error_line (const TestRun *r, const char *prefix)
{
  const char *nl = strchr (r->err, '\n');
  ck_assert_msg (nl && nl[1] == '\0', "stderr is not one line: '%s'", r->err);
  ck_assert_msg (g_str_has_prefix (r->err, prefix), "stderr '%s' does not start with '%s'", r->err, prefix);
}

/* --- files and scratch directories ------------------------------------------------------------------------ */

/* Write `text` (len bytes, or all of it when len < 0) to dir/name, creating subdirectories; returns the path. */
static inline char *
write_bytes (const char *dir, const char *name, const char *text, gssize len)
{
  char *path = g_build_filename (dir, name, NULL);
  g_autofree char *parent = g_path_get_dirname (path);
  ck_assert_int_eq (g_mkdir_with_parents (parent, 0700), 0);
  g_autoptr (GError) e = NULL;
  ck_assert_msg (g_file_set_contents (path, text, len, &e), "writing %s: %s", path, e ? e->message : "?");
  return path;
}

static inline char *
write_file (const char *dir, const char *name, const char *text)
{
  return write_bytes (dir, name, text, -1);
}

static inline char *
slurp (const char *path)
{
  char *text = NULL;
  ck_assert_msg (g_file_get_contents (path, &text, NULL, NULL), "cannot read %s", path);
  return text;
}

static inline void
tmpdir_remove (const char *path)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK)) {
    g_autoptr (GDir) d = g_dir_open (path, 0, NULL);
    const char *name;
    while (d && (name = g_dir_read_name (d))) {
      g_autofree char *child = g_build_filename (path, name, NULL);
      tmpdir_remove (child);
    }
  }
  g_remove (path);
}

/* `name_template` as for g_dir_make_tmp(), e.g. "pciesim-test-x-XXXXXX". */
static inline char *
tmpdir_new (const char *name_template)
{
  g_autoptr (GError) e = NULL;
  char *dir = g_dir_make_tmp (name_template, &e);
  ck_assert_msg (dir != NULL, "g_dir_make_tmp: %s", e ? e->message : "?");
  return dir;
}

/* A fresh subdirectory `name` of `root` (emptied if a previous case left it), for one test case. */
static inline char *
tmpdir_case (const char *root, const char *name)
{
  char *dir = g_build_filename (root, name, NULL);
  tmpdir_remove (dir);
  ck_assert_int_eq (g_mkdir_with_parents (dir, 0700), 0);
  return dir;
}

#ifdef TMPDIR_TEMPLATE
/* The suite's scratch root: made before any test forks, removed after the last, so every case sees it. */
static char *tmpdir_root;

/* tcase_add_unchecked_fixture (tc, tmpdir_setup, tmpdir_teardown). */
static inline void
tmpdir_setup (void)
{
  tmpdir_root = tmpdir_new (TMPDIR_TEMPLATE);
}

static inline void
tmpdir_teardown (void)
{
  if (tmpdir_root)
    tmpdir_remove (tmpdir_root);
  g_clear_pointer (&tmpdir_root, g_free);
}

/* A fresh subdirectory of the root for one test case, so a case that counts its files sees only its own. */
static inline char *
case_dir (const char *name)
{
  return tmpdir_case (tmpdir_root, name);
}
#endif

/* --- main ------------------------------------------------------------------------------------------------- */

/* Every suite runs as TAP (tests/meson.build), so meson reads each result and main() always returns 0. */
static inline int
run_suite (Suite *s)
{
  SRunner *r = srunner_create (s);
  srunner_run_all (r, CK_ENV);
  srunner_free (r);
  return 0;
}
