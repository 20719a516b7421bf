/* tmpdir.h — a scratch directory for a Check suite, shared by the suites that write files.
 *
 * Contract: tmpdir_new() makes a fresh directory under $TMPDIR (failing the test if it cannot) and
 * tmpdir_remove() deletes it with everything below it, never following a symlink out of it. Make and remove
 * it from an unchecked fixture (in the parent): a failing test exits its forked child before any cleanup. */
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
