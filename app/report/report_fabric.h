/* report_fabric.h — the flows and links of a fabric's run in each format, for report.c (report.h's contract):
 * the JSON keys "flows" (per flow {name, source, target, op, bytes, iterations, mbps, latency_ns: {first_tlp, mean,
 * p50, p99, max}, limited_by, path, and for a read flow read_latency_ns: {mean, p50, p99, max, count}, its round
 * trips}) and "links" (per link {name, a, b, gen, lanes, usage: {a_to_b, b_to_a}, stalls}) and "fabric_window_ns",
 * "busiest_link"; the table (flows with their verdicts and paths, then links, the busiest marked with its verdict),
 * Markdown, and CSV rows per flow (with limited_by).
 * Flows left out by fabric.active_flows appear nowhere. */
#pragma once

#include "app/report/report.h"
#include "app/report/report_impl.h"

void ps_report_fabric_json (PsJson *j, const PsFabricResult *fr, const PsRanges *ranges);
void ps_report_fabric_table (GString *o, const PsConfig *c, const PsFabricResult *fr, gboolean markdown);
void ps_report_fabric_csv (GString *o, const PsRunResult *r);
