/* builder.h — the only module that knows both the config and the models: turns a PsConfig into model parameters,
 * builds and runs them, and turns their results and errors into the report's terms.
 *
 * Contract: ps_run_config() runs each requested mode on a fresh engine (so modes never influence each other and
 * each is reproducible alone), fills a PsRunResult, and checks every model's end-of-run invariants. The models
 * raise errors in their one domain (MODEL_ERROR, models/base/model_error.h); here they become PS_ERROR codes,
 * the exit statuses: a parameter a model refuses is PS_ERROR_DATA (65), a broken invariant or a deadlock
 * PS_ERROR_INTERNAL (70), and no figure is returned. It never reads cfg->published. */
#pragma once

#include "models/workloads/stream.h"
#include "models/workloads/system.h"
#include "app/config/config.h"
#include "app/report/report.h"
#include "app/run/params.h"
#include "app/run/workloads.h"

/* The fabric the benchmark (chaining DMA or PIO, `mode`) runs on: the config's topology: (one without flows: its one
 * endpoint carries the DMA) or, without one, the one-link system as a topology of two nodes, "host" and
 * "endpoint" (one builder for both); enumerated, not yet run; the caller frees it. NULL with the model's error,
 * prefixed with the node or link it is about. */
Fabric *ps_build_system_fabric (const PsConfig *cfg, SystemMode mode, uint64_t seed, Host **host, Endpoint **endpoint,
  GError **error);
/* A model's error as the PsErrorCode its exit status is (see the contract), its message prefixed with `prefix`
 * (e.g. the config's path) when not NULL. An error already in PS_ERROR is left alone. */
void ps_error_from_model (GError **error, const char *prefix);
/* The mechanism (PS_USE_*, report.h) that is the only reader of key `key` in a run, or 0 for a key any run may
 * read. A run whose result's `uses` lacks that bit read nothing the key sets: its figures are those of the same
 * run with any other value of the key (same seed), and --ranges does not run the key's ends there. A fabric's
 * run (flows) does not say: every key is read. */
unsigned ps_key_use (const char *key);

/* A config with a topology: (topology.h) as a fabric (models/fabric/fabric.h, switch.h, flow.h): each node's model from its
 * own config, each link's parameters from the file's link.* keys, the link's own, and per end the pipelines and
 * credits of the device at that end; then its flows, the first fabric.active_flows of them (0: all), in one run.
 * Every flow's figure is held to the protocol limit of each link on its path. Called by ps_run_config() for such a
 * config (one with flows), whatever the modes; a topology without flows runs the benchmark's modes on its endpoint
 * (ps_build_system_fabric()). */
gboolean ps_run_fabric (const PsConfig *cfg, uint64_t seed, PsFabricResult *out, GError **error);

/* The built-in workloads' runners, rows of the registry (workloads.h), which the dispatch (ps_run_config()) calls:
 * one benchmark mode (PS_READ.. PS_PIO_WRITE) of the chaining DMA (its PIO modes too) or of the stream into
 * `m`, a microbenchmark, a topology's flows (traced when `trace`). Errors already in PS_ERROR terms. */
gboolean ps_run_dma_mode (const PsConfig *cfg, int mode, uint64_t seed, SimTrace *trace, PsModeResult *m,
  GError **error);
gboolean ps_run_stream_mode (const PsConfig *cfg, int mode, uint64_t seed, SimTrace *trace, PsModeResult *m,
  GError **error);
gboolean ps_run_microbench (const PsConfig *cfg, uint64_t seed, SimTrace *trace, PsMicrobenchResult *out,
  GError **error);
gboolean ps_run_fabric_traced (const PsConfig *cfg, uint64_t seed, SimTrace *trace, PsFabricResult *out,
  GError **error);
