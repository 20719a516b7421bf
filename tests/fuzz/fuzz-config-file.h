/* fuzz-config-file.h — what the harnesses that load an input as a config file share (fuzz-config.c,
 * fuzz-fabric_run.c): fuzz_config_path() makes, once, a private temporary directory that links to the include
 * directories of configs/ (benchmarks/, hosts/, families/), so seeds taken from configs/ load whole, and returns
 * the path of the file in it; fuzz_config_write() puts an input there with plain stdio (g_file_set_contents()
 * renames and may fsync, which costs most of an iteration). Either aborts when the file system refuses. */
#pragma once

#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "pciesim-version.h"

static inline const char *
fuzz_config_path (const char *template)
{
  static char *path;
  if (path)
    return path;
  g_autofree char *dir = g_dir_make_tmp (template, NULL);
  if (!dir)
    abort ();
  g_autofree char *configs = g_build_filename (PCIESIM_SOURCE_ROOT, "configs", NULL);
  g_autoptr (GDir) d = g_dir_open (configs, 0, NULL);
  const char *name;
  while (d && (name = g_dir_read_name (d))) {
    g_autofree char *src = g_build_filename (configs, name, NULL);
    g_autofree char *dst = g_build_filename (dir, name, NULL);
    if (g_file_test (src, G_FILE_TEST_IS_DIR) && symlink (src, dst) != 0)
      abort ();
  }
  path = g_build_filename (dir, "c.yaml", NULL);
  return path;
}

static inline void
fuzz_config_write (const char *path, const uint8_t *data, size_t size)
{
  FILE *f = fopen (path, "wb");
  if (!f || fwrite (data, 1, size, f) != size || fclose (f) != 0)
    abort ();
}
