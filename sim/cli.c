/* cli.c — one straight line: config_load -> ps_run_config -> report -> output. */
#include "cli.h"

#include "sim/builder.h"
#include "sim/config.h"

gboolean
ps_cli_run (const PsCliRun *run, GError **error)
{
  g_autoptr (PsConfig) cfg = ps_config_load (run->config_path, run->sets, error);
  if (!cfg)
    return FALSE;
  /* 0 can stand for "not given" because no valid mask is empty: the config refuses an empty mode list. */
  unsigned modes = run->modes ? run->modes : cfg->benchmark.modes;
  PsRunResult result = { 0 };
  /* Wall time covers the run alone, on the monotonic clock so a clock step cannot make it negative. It is the
   * one nondeterministic figure and reaches only JSON's stats.wall_s (report.h). */
  gint64 t0 = g_get_monotonic_time ();
  if (!ps_run_config (cfg, modes, run->seed, &result, error))
    return FALSE;
  result.wall_s = (double) (g_get_monotonic_time () - t0) / 1e6;
  /* Rendered whole, then written in one go: ps_write_output() replaces a file atomically, which needs all of it. */
  g_autoptr (GString) out = g_string_new (NULL);
  ps_report_render (out, &result, run->format, TRUE);
  return ps_write_output (run->output, out, error);
}
