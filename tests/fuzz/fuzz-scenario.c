/* fuzz-scenario.c — libFuzzer harness for the scenario loader (ps_scenario_load), which reads a file through
 * ytree and then loads its base config with the overrides applied.
 *
 * The input is written to DIR/scenarios/s.yaml, and DIR/configs links to the source tree's configs/, so the
 * `base: ../configs/NAME.yaml` of real scenarios (the seeds) resolves. An accepted scenario also has its first
 * and last points' --set lists built and their configs loaded, which reaches axis-value relocation without
 * running a simulation. Oracles: a rejection is a one-line PS_ERROR_DATA, _NOINPUT or _USAGE. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "pciesim-version.h"
#include "app/base/error.h"
#include "app/study/scenario.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static char *path;

static void
check_error (GError *e)
{
  if (!e || e->domain != PS_ERROR
      || (e->code != PS_ERROR_DATA && e->code != PS_ERROR_NOINPUT && e->code != PS_ERROR_USAGE)
      || strchr (e->message, '\n'))
    abort ();
  g_error_free (e);
}

static void
point (const PsScenario *s, guint index)
{
  g_strfreev (ps_scenario_point_sets (s, index));
  GError *e = NULL;
  PsConfig *cfg = ps_scenario_point_config (s, index, &e);
  if (cfg)
    ps_config_free (cfg);
  else
    check_error (e);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (!path) {
    char *dir = g_dir_make_tmp ("pciesim-fuzz-scenario-XXXXXX", NULL);
    g_autofree char *configs = g_build_filename (dir, "configs", NULL);
    g_autofree char *scenarios = g_build_filename (dir, "scenarios", NULL);
    if (!dir || symlink (PCIESIM_SOURCE_ROOT "/configs", configs) != 0 || g_mkdir (scenarios, 0700) != 0)
      abort ();
    path = g_build_filename (scenarios, "s.yaml", NULL);
    g_free (dir);
  }
  FILE *f = fopen (path, "wb");
  if (!f || fwrite (data, 1, size, f) != size || fclose (f) != 0)
    abort ();
  GError *e = NULL;
  PsScenario *s = ps_scenario_load (path, &e);
  if (!s) {
    check_error (e);
    return 0;
  }
  if (s->n_points == 0)
    abort ();
  point (s, 0);
  point (s, s->n_points - 1);
  ps_scenario_free (s);
  return 0;
}
