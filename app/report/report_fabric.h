/* report_fabric.h — the flows and links of a fabric's run in each format, for report.c (report.h's contract):
 * the JSON keys "flows" (per flow {name, source, target, op, bytes, iterations, mbps, latency_ns: {first_tlp, mean,
 * p50, p99, max}, limited_by, path, and for a read flow read_latency_ns: {mean, p50, p99, max, count}, its round
 * trips}) and "links" (per link {name, a, b, gen, lanes, usage: {a_to_b, b_to_a}, stalls}) and "fabric_window_ns",
 * "busiest_link"; the table (flows with their verdicts and paths, then links, the busiest marked with its verdict),
 * Markdown, and CSV rows per flow (with limited_by).
 * Flows left out by fabric.active_flows appear nowhere. */
#pragma once

#include "app/report/report.h"

void ps_report_fabric_json (PsJson *j, const PsFabricResult *fr, const PsRanges *ranges);
/* "defaults (not given): …" for the keys `shown` that no file or --set gave (and for the host keys), then the blank
 * line before the figures (report.c's, shared with a fabric's header). */
void ps_report_defaults_line (GString *o, const PsConfig *c, const char *const *shown);
/* One direction's error counts as a JSON object (report.c's, shared with the links of a fabric). */
void ps_report_json_errors (PsJson *j, const PsLinkErrors *e);
/* A figure's verdict as the JSON object limited_by (report.c's, shared with a fabric's flows). */
void ps_report_json_verdict (PsJson *j, const PsVerdict *v);
/* {"mean", "p50", "p99", "max", "count"} in ns (report.c's, shared with a fabric's read round trips). */
void ps_report_json_latency (PsJson *j, const PsLatency *l);
void ps_report_fabric_table (GString *o, const PsConfig *c, const PsFabricResult *fr, gboolean markdown);
void ps_report_fabric_csv (GString *o, const PsRunResult *r);
