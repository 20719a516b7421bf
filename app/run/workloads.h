/* workloads.h — the registry of workloads, one row each, and the dispatch that runs a config's: the built-in ones
 * (the chaining DMA and its PIO modes, the stream, the microbenchmark, a topology's flows) and the devices' (what a
 * topology without flows: runs when one of its nodes is of a kind that names a workload, PsNodeKind.workload,
 * nodes.h, as a drive names its host driver's run). A new device with a workload of its own is one row here and
 * its runner; ps_run_config() chooses the row and calls it, with no branch over workloads.
 *
 * Contract:
 * - A config runs one row (ps_config_workload()): with flows, the row chosen by flows; else the row a node's kind
 *   names; else the row of benchmark.workload. A row that runs on one link only refuses a topology (exit 65).
 * - Whatever the row, the result's model is its name and carries the link's vendor figure and protocol limits.
 * - A row runs in one of three ways: per benchmark mode (run_mode, for the modes it offers, in a fixed order,
 *   each figure held to the protocol limit of its window), whole (run_whole fills its own part of the result), or
 *   as a device's named figures (run).
 * - A device's runner builds the config's fabric (assemble.h), runs its workload on node `node` (traced when
 *   `trace`: it declares the links and starts it), checks its figures against the protocol limit (exit 70 above
 *   it) and fills out->fig[] in the order of its row's `figures`, which name what a sweep may ask for before
 *   anything runs.
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

/* What chooses a row for a config (the contract's order). */
typedef enum { PS_CHOSEN_BY_FLOWS, PS_CHOSEN_BY_NODE, PS_CHOSEN_BY_BENCHMARK } PsWorkloadChoice;

typedef struct {
  const char *name; /* the result's model; a device's: what PsNodeKind.workload names and its JSON member */
  PsWorkloadChoice chosen_by;
  PsWorkload benchmark; /* PS_CHOSEN_BY_BENCHMARK: the benchmark.workload value */
  gboolean one_link; /* runs on the one-link system only: a topology without flows: is refused */
  /* Per mode: the PsModeMask bits it offers (others asked for are skipped) and its runner for mode index i. */
  unsigned modes;
  gboolean (*run_mode) (const PsConfig *cfg, int mode, uint64_t seed, SimTrace *trace, PsModeResult *m,
    GError **error);
  /* Whole: its part of `out`. */
  gboolean (*run_whole) (const PsConfig *cfg, uint64_t seed, SimTrace *trace, PsRunResult *out, GError **error);
  /* A device's: its named figures, in this order (names a sweep may ask for before anything runs). */
  const PsFigureSpec *figures;
  guint n_figures;
  gboolean (*run) (const PsConfig *cfg, guint node, uint64_t seed, SimTrace *trace, PsFiguresResult *out,
    GError **error);
} PsWorkloadKind;

const PsWorkloadKind *ps_workload_find (const char *name);
/* The node of `t` a device workload runs on, the first whose kind names one; -1 when none (or t NULL). */
int ps_topology_workload_node (const PsTopology *t);
/* The row `cfg` runs (the contract's choice); never NULL for a loaded config. */
const PsWorkloadKind *ps_config_workload (const PsConfig *cfg);

/* Runs `cfg`'s row, the modes of `modes` it offers in a fixed order (read, write, simultaneous, PIO read, PIO
 * write) so output order never depends on how the modes were asked for. */
gboolean ps_run_config (const PsConfig *cfg, unsigned modes, uint64_t seed, PsRunResult *out, GError **error);
/* The same, writing the first mode run (a fabric's or a microbenchmark's run) to `trace` (opened, not started: the
 * run declares and starts it; the caller closes it on success, aborts it on failure). Every workload is traced.
 * Figures are those of the untraced run, to the byte. */
gboolean ps_run_config_traced (const PsConfig *cfg, unsigned modes, uint64_t seed, SimTrace *trace,
  PsRunResult *out, GError **error);
