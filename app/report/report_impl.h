/* report_impl.h — what the files of app/report/ share, and nothing outside it includes: report_common.c's mode a
 * one-link report leads with, the modes' JSON keys, the defaults line and the JSON objects every part writes;
 * report_json.c's JSON rendering (schema 1, report.h). */
#pragma once

#include "app/report/report.h"

/* The mode whose link usage heads the report: the busiest that ran (simultaneous, write, read, PIO write, PIO read),
 * or NULL. */
const PsModeResult *ps_report_headline_mode (const PsRunResult *r);
/* The modes' keys under "results", in PsMode order. */
extern const char *const ps_report_mode_keys[PS_N_MODES];
/* "defaults (not given): …" for the keys `shown` that no file or --set gave (and for the host keys), then the blank
 * line before the figures (a one-link run's header and a fabric's). */
void ps_report_defaults_line (GString *o, const PsConfig *c, const char *const *shown);
/* One direction's error counts as a JSON object (a one-link run's and a fabric's links'). */
void ps_report_json_errors (PsJson *j, const PsLinkErrors *e);
/* {"NAME": share, …} of n named shares, in the order given (busy, idle and path shares). */
void ps_report_json_shares (PsJson *j, guint n, const char *const *names, const double *v);
/* A figure's verdict as the JSON object limited_by (a one-link run's figures and a fabric's flows). */
void ps_report_json_verdict (PsJson *j, const PsVerdict *v);
/* {"mean", "p50", "p99", "max", "count"} in ns (a microbenchmark's and a fabric's read round trips). */
void ps_report_json_latency (PsJson *j, const PsLatency *l);
/* The whole JSON report of `r`; wall time only `with_wall`. */
void ps_report_render_json (GString *o, const PsRunResult *r, gboolean with_wall);
