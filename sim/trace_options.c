/* trace_options.c — the trace writer's options as a command line gives them (trace.h): the format a file's
 * extension names, the --trace-window text, and the writer's error domain. Apart from trace.c, which writes. */
#include "sim/trace.h"

#include <math.h>
#include <string.h>

G_DEFINE_QUARK (sim-trace-error-quark, sim_trace_error)

gboolean
sim_trace_format_from_path (const char *path, SimTraceFormat *format, GError **error)
{
  g_autofree char *lower = g_ascii_strdown (path, -1);
  if (g_str_has_suffix (lower, ".vcd"))
    *format = SIM_TRACE_VCD;
  else if (g_str_has_suffix (lower, ".json"))
    *format = SIM_TRACE_JSON;
  else {
    g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_USAGE, "trace file '%s': its extension names the format, .vcd or .json", path);
    return FALSE;
  }
  return TRUE;
}

/* One side of START_NS:END_NS: empty means open (fallback), else a finite decimal >= 0. */
static gboolean
parse_ns (const char *s, SimTime fallback, SimTime *out)
{
  if (*s == '\0') {
    *out = fallback;
    return TRUE;
  }
  char *end = NULL;
  double ns = g_ascii_strtod (s, &end);
  /* 1.8e13 ns is SIM_TIME_MAX in ps; past it the conversion would overflow. */
  if (end == s || *end != '\0' || !(ns >= 0.0 && ns < 1.8e13) || g_ascii_isspace (*s))
    return FALSE;
  *out = (SimTime) llround (ns * 1000.0);
  return TRUE;
}

gboolean
sim_trace_parse_window (const char *arg, SimTraceOptions *o, GError **error)
{
  const char *colon = strchr (arg, ':');
  g_autofree char *start = colon ? g_strndup (arg, (gsize) (colon - arg)) : NULL;
  SimTime s = 0, e = 0;
  if (!colon || strchr (colon + 1, ':') || !parse_ns (start, 0, &s) || !parse_ns (colon + 1, SIM_TIME_MAX, &e)) {
    g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_USAGE, "--trace-window '%s': expected START_NS:END_NS (numbers >= 0, either "
      "side may be empty)", arg);
    return FALSE;
  }
  if (s >= e) {
    g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_USAGE, "--trace-window '%s': the start must be before the end", arg);
    return FALSE;
  }
  o->window_start_ps = s;
  o->window_end_ps = e;
  return TRUE;
}
