/* assemble.h — a config's topology as a fabric of models: each node's component from its kind's factory (nodes.h),
 * each link's parameters from the link keys of the file, the link's own and its two ends' devices; the one fabric
 * builder every workload's runner uses (builder.c's, workloads.c's).
 *
 * Contract: ps_build_fabric() returns the fabric enumerated, not yet run (the caller frees it), with comp[i] node
 * i's component, eps[i] its endpoint when it is one (else NULL; eps may be NULL), *host the root complex and lps[l]
 * link l's parameters;
 * NULL with the first model error, prefixed with the node's or link's name. dma_mode >= 0 makes the benchmark's
 * endpoint carry the chaining DMA of that mode. ps_trace_links() declares every link's tracks and starts `trace`
 * (nothing when NULL); ps_trace_declare_links() leaves the start to the run. */
#pragma once

#include "models/devices/endpoint.h"
#include "models/devices/host.h"
#include "app/config/config.h"
#include "app/config/topology.h"

Fabric *ps_build_fabric (const PsConfig *cfg, const PsTopology *t, int dma_mode, uint64_t seed, Component **comp,
  Endpoint **eps, Host **host, LinkParams *lps, GError **error);
gboolean ps_trace_links (Fabric *f, SimTrace *trace, const PsTopology *t, GError **error);
/* The same without starting the trace, for a run that declares tracks of its own (a CPU's) and starts it. */
void ps_trace_declare_links (Fabric *f, SimTrace *trace, const PsTopology *t);
