/* tmpdir.h — a scratch directory for a Check suite, shared by the suites that write files.
 *
 * Contract: tmpdir_new() makes a fresh directory under $TMPDIR (failing the test if it cannot) and
 * tmpdir_remove() deletes it with everything below it, never following a symlink out of it. Make and remove
 * it from an unchecked fixture (in the parent): a failing test exits its forked child before any cleanup.
 * tmpdir_setup/tmpdir_teardown are that fixture for the suite's one root, `tmpdir_root`, named by
 * TMPDIR_TEMPLATE, which the suite defines before including this header. */
#pragma once

#include <check.h>
#include <glib/gstdio.h>

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
