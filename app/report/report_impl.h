/* report_impl.h — what report.c and report_json.c share, and nothing outside app/report/ includes: which mode a
 * one-link report leads with and the modes' JSON keys, and the JSON rendering itself (schema 1, report.h). */
#pragma once

#include "app/report/report.h"

/* The mode whose link usage heads the report: the busiest that ran (simultaneous, write, read, PIO write, PIO read),
 * or NULL. */
const PsModeResult *ps_report_headline_mode (const PsRunResult *r);
/* The modes' keys under "results", in PsMode order. */
extern const char *const ps_report_mode_keys[PS_N_MODES];
/* The whole JSON report of `r`; wall time only `with_wall`. */
void ps_report_render_json (GString *o, const PsRunResult *r, gboolean with_wall);
