/* workloads.c — the devices' workloads and their runners (contract in workloads.h). */
#include "app/run/workloads.h"

#include <string.h>

#include "models/base/units.h"
#include "models/workloads/nvme_driver.h"
#include "app/base/error.h"
#include "app/config/nodes.h"
#include "app/run/assemble.h"
#include "app/run/params.h"

static void
figure (PsFiguresResult *out, const PsWorkloadKind *k, guint i, double value, const LatSummary *l)
{
  g_assert (i < k->n_figures && i < PS_MAX_NAMED_FIGURES && (l != NULL) == k->figures[i].latency);
  PsNamedFigure *f = &out->fig[i];
  *f = (PsNamedFigure) { .name = k->figures[i].name, .unit = k->figures[i].unit, .value = value };
  if (l)
    f->latency = (PsLatency) { .valid = l->count > 0, .count = l->count, .mean_ns = l->mean_ns, .p50_ns = l->p50_ns,
                               .p99_ns = l->p99_ns, .max_ns = l->max_ns };
  out->n = MAX (out->n, i + 1);
}

static const PsFigureSpec nvme_figures[] = {
  { "iops", "IO/s", FALSE },
  { "mbps", "MB/s", FALSE },
  { "command_latency", "ns", TRUE },
  { "interrupts_per_command", "ratio", FALSE },
};

/* The NVMe SSD under its host driver (models/workloads/nvme_driver.h): the run's part of the node's fields. */
static gboolean
run_nvme (const PsConfig *cfg, guint node, uint64_t seed, SimTrace *trace, PsFiguresResult *out, GError **error)
{
  const PsTopology *t = cfg->topology;
  const PsNode *n = &t->nodes[node];
  NvmeDriverParams p = { .block_bytes = (uint32_t) ps_node_field (n, "block_bytes"),
                         .write_percent = ps_node_field (n, "write_percent"),
                         .commands = (uint64_t) ps_node_field (n, "commands"),
                         .submit_ns = ps_node_field (n, "submit_ns"), .complete_ns = ps_node_field (n, "complete_ns"),
                         .watchdog_ps = units_ns_to_ps (cfg->benchmark.watchdog_ns) };
  /* The host's CPU: the file's cpu.* keys (its interrupt and wake-up times), as the chaining DMA's driver has. */
  SystemParams sp;
  ps_build_system_params (cfg, &sp);
  g_autoptr (Dist) interrupt = ps_build_dist (&cfg->cpu.interrupt, error);
  g_autoptr (Dist) wakeup = interrupt ? ps_build_dist (&cfg->cpu.wakeup, error) : NULL;
  if (!wakeup)
    return FALSE;
  p.cpu = sp.cpu;
  p.cpu.interrupt = interrupt;
  p.cpu.wakeup = wakeup;
  g_autofree Component **comp = g_new0 (Component *, t->n_nodes);
  g_autofree Endpoint **eps = g_new0 (Endpoint *, t->n_nodes);
  g_autofree LinkParams *lps = g_new0 (LinkParams, MAX (t->n_links, 1));
  Host *host = NULL;
  Fabric *f = ps_build_fabric (cfg, t, -1, seed, comp, eps, &host, lps, error);
  if (!f)
    return FALSE;
  NvmeResult r;
  ps_trace_declare_links (f, trace, t);
  p.trace = trace;
  gboolean ok = nvme_run (f, host, nvme_from_component (comp[node]), &p, &r, error);
  fabric_free (f);
  if (!ok)
    return FALSE;
  /* The data cross the node's own link: reads from flash up in MWrs with 4-DW headers (host memory above 4 GB),
   * writes to flash down in CplDs (3 DW); a mix uses both directions, each held to its own limit. */
  const LinkParams *lp = &lps[n->up_link];
  double limit = (p.write_percent < 100 ? link_protocol_limit_window_mbps (lp, 16, r.window_ps) : 0)
                 + (p.write_percent > 0 ? link_protocol_limit_window_mbps (lp, 12, r.window_ps) : 0);
  if (r.mbps > limit) {
    ps_error_plain (error, PS_ERROR_INTERNAL, "%s: node %s simulated %.1f MB/s, above link %s's protocol limit of "
                    "%.1f MB/s for its window: a model is wrong", cfg->path, n->name, r.mbps,
                    t->links[n->up_link].name, limit);
    return FALSE;
  }
  const PsWorkloadKind *k = ps_workload_find ("nvme");
  figure (out, k, 0, r.iops, NULL);
  figure (out, k, 1, r.mbps, NULL);
  figure (out, k, 2, r.latency.mean_ns, &r.latency);
  figure (out, k, 3, (double) r.interrupts / (double) r.commands, NULL);
  const LinkUsage *u = r.usage;
  out->upstream = (PsUsage) { u[LINK_UPSTREAM].payload, u[LINK_UPSTREAM].tlp_overhead, u[LINK_UPSTREAM].dllp,
                              u[LINK_UPSTREAM].ordered_sets, u[LINK_UPSTREAM].idle };
  out->downstream = (PsUsage) { u[LINK_DOWNSTREAM].payload, u[LINK_DOWNSTREAM].tlp_overhead, u[LINK_DOWNSTREAM].dllp,
                                u[LINK_DOWNSTREAM].ordered_sets, u[LINK_DOWNSTREAM].idle };
  out->events = r.stats.events;
  out->sim_time_ns = (double) r.end_ps / 1000.0;
  return TRUE;
}

static const PsWorkloadKind kinds[] = {
  { "nvme", nvme_figures, G_N_ELEMENTS (nvme_figures), run_nvme },
};

const PsWorkloadKind *
ps_workload_find (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    if (strcmp (kinds[i].name, name) == 0)
      return &kinds[i];
  return NULL;
}

int
ps_topology_workload_node (const PsTopology *t)
{
  for (guint i = 0; t && i < t->n_nodes; i++)
    if (ps_node_kind (t->nodes[i].kind)->workload != NULL)
      return (int) i;
  return -1;
}

const PsWorkloadKind *
ps_config_workload (const PsConfig *cfg)
{
  if (ps_config_runs_flows (cfg))
    return NULL;
  int n = ps_topology_workload_node (cfg->topology);
  return n < 0 ? NULL : ps_workload_find (ps_node_kind (cfg->topology->nodes[n].kind)->workload);
}
