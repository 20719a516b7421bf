/* workloads.h — the registry of devices' workloads: what a topology without flows: runs when one of its nodes is
 * of a kind that names a workload (PsNodeKind.workload, nodes.h), as a drive names its host driver's run.
 * A new device with a workload of its own is one row here and its runner; the builder dispatches by the row.
 *
 * Contract:
 * - A runner builds the config's fabric (assemble.h), runs its workload on node `node` (traced when `trace`: it
 *   declares the links and starts it), checks its figures against the protocol limit (exit 70 above it) and fills
 *   out->fig[] in the order of its row's `figures`, which name what a sweep may ask for before anything runs.
 * - Errors are the models' (the caller maps them to exit statuses) or PS_ERROR.
 */
#pragma once

#include "sim/trace.h"
#include "app/config/config.h"
#include "app/config/topology.h"
#include "app/report/report.h"

typedef struct {
  const char *name, *unit;
  gboolean latency; /* a distribution: metrics NAME_mean_ns, _p50_ns, _p99_ns, _max_ns besides NAME */
} PsFigureSpec;

typedef struct {
  const char *name; /* what PsNodeKind.workload names; the result's model and its JSON member */
  const PsFigureSpec *figures;
  guint n_figures;
  gboolean (*run) (const PsConfig *cfg, guint node, uint64_t seed, SimTrace *trace, PsFiguresResult *out,
    GError **error);
} PsWorkloadKind;

const PsWorkloadKind *ps_workload_find (const char *name);
/* The node of `t` a device workload runs on, the first whose kind names one; -1 when none (or t NULL). */
int ps_topology_workload_node (const PsTopology *t);
/* The workload of `cfg`'s topology without flows, or NULL. */
const PsWorkloadKind *ps_config_workload (const PsConfig *cfg);
