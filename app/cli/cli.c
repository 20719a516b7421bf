/* cli.c — one straight line: config_load -> ps_run_config -> report -> output. */
#include "app/cli/cli.h"

#include <stdio.h>

#include "app/run/builder.h"
#include "app/config/config.h"
#include "app/config/load.h"
#include "app/study/ranges.h"
#include "app/config/topology.h"
#include "sim/trace.h"

gboolean
ps_cli_run (const PsCliRun *run, GError **error)
{
  g_autoptr (PsConfig) cfg = ps_config_load (run->config_path, run->sets, error);
  if (!cfg)
    return FALSE;
  /* A fabric with flows runs them and the microbenchmark its test: a --mode there would be ignored. */
  gboolean flows = ps_config_runs_flows (cfg);
  if (run->modes && (flows || cfg->benchmark.workload == PS_WORKLOAD_MICROBENCH)) {
    ps_error_plain (error, PS_ERROR_USAGE, "--mode does not apply to %s: %s (see pciesim --help)", run->config_path,
                    flows ? "a fabric runs its flows: (fabric.active_flows chooses how many)"
                                  : "the microbenchmark runs microbench.test");
    return FALSE;
  }
  /* 0 can stand for "not given" because no valid mask is empty: the config refuses an empty mode list. */
  unsigned modes = run->modes ? run->modes : cfg->benchmark.modes;
  /* On the heap: a result is about 1 MB (a fabric's flows and links), and calloc takes that from fresh zero pages
   * instead of clearing it, which a stack variable's = { 0 } does on every run (issue #28's instruction count). */
  g_autofree PsRunResult *result = g_new0 (PsRunResult, 1);
  /* Wall time covers the run alone, on the monotonic clock so a clock step cannot make it negative. It is the
   * one nondeterministic figure and reaches only JSON's stats.wall_s (report.h). */
  SimTrace *trace = NULL;
  if (run->trace_path != NULL) {
    SimTraceOptions o = { .window_end_ps = SIM_TIME_MAX,
                          .max_bytes = run->trace_max_bytes ? run->trace_max_bytes : SIM_TRACE_DEFAULT_MAX_BYTES };
    if ((run->trace_window && !sim_trace_parse_window (run->trace_window, &o, error))
        || !(trace = sim_trace_open (run->trace_path, &o, error))) {
      ps_error_from_model (error, NULL);
      return FALSE;
    }
  }
  gint64 t0 = g_get_monotonic_time ();
  PsRanges ranges = { 0 };
  gboolean ran = run->ranges ? ps_ranges_run (cfg, run->sets, modes, run->seed, run->jobs, run->samples, result,
                                              &ranges, error)
                             : ps_run_config_traced (cfg, modes, run->seed, trace, result, error);
  if (!ran) {
    sim_trace_abort (trace);
    return FALSE;
  }
  result->wall_s = (double) (g_get_monotonic_time () - t0) / 1e6;
  result->ranges = run->ranges ? &ranges : NULL;
  /* A window that opens after the traced run ended leaves a trace of declarations only: say so, since the user
   * asked for events. The trace covers the first mode run (or the fabric's, or the microbenchmark's run). */
  if (trace != NULL && run->trace_window) {
    double end_ns = result->fabric.ran ? result->fabric.sim_time_ns
                    : result->microbench.ran ? result->microbench.sim_time_ns : 0;
    for (int m = 0; m < PS_N_MODES && end_ns == 0; m++)
      if (result->modes[m].ran)
        end_ns = result->modes[m].sim_time_ns;
    SimTraceOptions o = { .window_end_ps = SIM_TIME_MAX };
    if (sim_trace_parse_window (run->trace_window, &o, NULL) && (double) o.window_start_ps / 1000.0 >= end_ns)
      fprintf (stderr, "pciesim: warning: --trace-window starts at %.3f ns, after the traced run ended at %.3f ns: "
               "the trace holds no events\n", (double) o.window_start_ps / 1000.0, end_ns);
  }
  /* Rendered whole, then written in one go: ps_write_output() replaces a file atomically, which needs all of it. */
  g_autoptr (GString) out = g_string_new (NULL);
  ps_report_render (out, result, run->format, TRUE);
  /* The table and Markdown get a section of their own; CSV the same lines as comments; JSON has them inline. */
  if (run->ranges && run->format != PS_FORMAT_JSON) {
    g_autoptr (GString) text = g_string_new (NULL);
    ps_ranges_render_text (text, &ranges, result, run->format == PS_FORMAT_MARKDOWN);
    if (run->format == PS_FORMAT_CSV) {
      g_auto (GStrv) lines = g_strsplit (g_strstrip (text->str), "\n", -1);
      for (char **l = lines; *l; l++)
        g_string_append_printf (out, "# %s\n", *l);
    } else {
      g_string_append (out, text->str);
    }
  }
  ps_ranges_clear (&ranges);
  if (!ps_write_output (run->output, out, error)) {
    sim_trace_abort (trace);
    return FALSE;
  }
  if (trace != NULL && !sim_trace_close (trace, error)) {
    ps_error_from_model (error, NULL);
    return FALSE;
  }
  return TRUE;
}
