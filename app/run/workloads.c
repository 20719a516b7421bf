/* workloads.c — the registry of workloads, the devices' runners and the dispatch (contract in workloads.h). The
 * built-in workloads' runners are the builder's (builder.h): here they are rows. */
#include "app/run/workloads.h"

#include <string.h>

#include "models/base/units.h"
#include "models/workloads/nvme_driver.h"
#include "app/base/error.h"
#include "app/config/nodes.h"
#include "app/run/assemble.h"
#include "app/run/builder.h"
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
  g_autofree LinkParams *lps = g_new0 (LinkParams, MAX (t->n_links, 1));
  Host *host = NULL;
  Fabric *f = ps_build_fabric (cfg, t, -1, seed, comp, NULL, &host, lps, error);
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

/* The whole-run rows' part of the result. */
static gboolean
run_microbench (const PsConfig *cfg, uint64_t seed, SimTrace *trace, PsRunResult *out, GError **error)
{
  return ps_run_microbench (cfg, seed, trace, &out->microbench, error);
}

static gboolean
run_flows (const PsConfig *cfg, uint64_t seed, SimTrace *trace, PsRunResult *out, GError **error)
{
  return ps_run_fabric_traced (cfg, seed, trace, &out->fabric, error);
}

/* Row order is the lookup's only: a config's row is chosen by the contract's rule, never by position. */
static const PsWorkloadKind kinds[] = {
  /* A topology's flows: (models/workloads/flow.h), traffic any node that requests can source. */
  { .name = "fabric", .chosen_by = PS_CHOSEN_BY_FLOWS, .run_whole = run_flows },
  /* The AN-456 chaining DMA under its driver (models/workloads/system.h), on the one link or a topology's one
   * endpoint; its PIO modes are the CPU's loads and stores to the endpoint's BAR (pio.h). */
  { .name = "chaining-dma", .chosen_by = PS_CHOSEN_BY_BENCHMARK, .benchmark = PS_WORKLOAD_CHAINING_DMA,
    .modes = PS_MODE_ALL | PS_MODE_PIO_READ | PS_MODE_PIO_WRITE, .run_mode = ps_run_dma_mode },
  /* The streaming source (stream.h): no engines to run at once, so read and write alone. */
  { .name = "stream", .chosen_by = PS_CHOSEN_BY_BENCHMARK, .benchmark = PS_WORKLOAD_STREAM, .one_link = TRUE,
    .modes = PS_MODE_READ | PS_MODE_WRITE, .run_mode = ps_run_stream_mode },
  /* pcie-bench's tests as flows in DMA mode: one test, not the modes. */
  { .name = "microbench", .chosen_by = PS_CHOSEN_BY_BENCHMARK, .benchmark = PS_WORKLOAD_MICROBENCH,
    .one_link = TRUE, .run_whole = run_microbench },
  { .name = "nvme", .chosen_by = PS_CHOSEN_BY_NODE, .figures = nvme_figures, .n_figures = G_N_ELEMENTS (nvme_figures),
    .run = run_nvme },
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
  int n = ps_topology_workload_node (cfg->topology);
  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++) {
    const PsWorkloadKind *k = &kinds[i];
    gboolean by_node = k->chosen_by == PS_CHOSEN_BY_NODE && n >= 0
                       && strcmp (k->name, ps_node_kind (cfg->topology->nodes[n].kind)->workload) == 0;
    gboolean by_benchmark = k->chosen_by == PS_CHOSEN_BY_BENCHMARK && (int) k->benchmark == cfg->benchmark.workload;
    if (ps_config_runs_flows (cfg) ? k->chosen_by == PS_CHOSEN_BY_FLOWS : n >= 0 ? by_node : by_benchmark)
      return k;
  }
  return NULL;
}

/* --- the dispatch ---------------------------------------------------------------------------------------------- */

/* A device's workload on the node its kind names it from. */
static gboolean
run_device (const PsConfig *cfg, const PsWorkloadKind *wk, uint64_t seed, SimTrace *trace, PsRunResult *out,
  GError **error)
{
  int node = ps_topology_workload_node (cfg->topology);
  PsFiguresResult *fr = &out->figures;
  *fr = (PsFiguresResult) { .workload = wk->name, .node = cfg->topology->nodes[node].name };
  if (!wk->run (cfg, (guint) node, seed, trace, fr, error)) {
    ps_error_from_model (error, cfg->path);
    return FALSE;
  }
  fr->ran = true;
  return TRUE;
}

/* The modes asked for that the row offers, each on a fresh system. */
static gboolean
run_modes (const PsConfig *cfg, const PsWorkloadKind *wk, unsigned modes, const LinkParams *lp, uint64_t seed,
  SimTrace *trace, PsRunResult *out, GError **error)
{
  uint32_t write_hdr = cfg->link.address_bits == 64 ? 16 : 12;
  static const unsigned bits[PS_N_MODES] = { PS_MODE_READ, PS_MODE_WRITE, PS_MODE_SIMULTANEOUS, PS_MODE_PIO_READ,
                                              PS_MODE_PIO_WRITE };
  for (int i = 0; i < PS_N_MODES; i++) {
    if (!(modes & bits[i] & wk->modes))
      continue;
    if (!wk->run_mode (cfg, i, seed, trace, &out->modes[i], error))
      return FALSE;
    if (out->modes[i].ran)
      trace = NULL; /* the first mode run is the one traced */

    /* The protocol limit is an analytic upper bound for one direction: a figure above it means a model lets data
     * through faster than the wire can carry it (e.g. a counter stopped before the data left), never a result.
     * The printed limit is a long-run average over SKP intervals; a finite window can hold fewer SKP ordered
     * sets than its share, so each figure is held to the bound for its own window (link.h), which for a
     * one-TLP transfer is the wire without ordered sets and for a 100 KB one within 0.05% of the printed limit. */
    const PsModeResult *m = &out->modes[i];
    gboolean reads = i == PS_READ || i == PS_PIO_READ, writes = i == PS_WRITE || i == PS_PIO_WRITE;
    const struct {
      double mbps, window_ns;
      uint32_t header_bytes;
      const char *what;
    } fig[2] = { { writes ? 0 : reads ? m->mbps : m->read_mbps, m->read_window_ns, 12, "read" },
                 { reads ? 0 : writes ? m->mbps : m->write_mbps, m->write_window_ns, write_hdr, "write" } };
    for (int k = 0; k < 2; k++) {
      double limit = link_protocol_limit_window_mbps (lp, fig[k].header_bytes, units_ns_to_ps (fig[k].window_ns));
      if (fig[k].mbps > limit) {
        ps_error_plain (error, PS_ERROR_INTERNAL, "%s: %s mode simulated %.1f MB/s %s, above the protocol limit of "
                        "%.1f MB/s for its %.1f ns window: a model is wrong", cfg->path, ps_mode_name (bits[i]),
                        fig[k].mbps, fig[k].what, limit, fig[k].window_ns);
        return FALSE;
      }
    }
  }
  /* Only the stream skips modes (it runs read and write alone): then no run may have taken the trace. */
  if (trace != NULL) {
    ps_error_plain (error, PS_ERROR_USAGE, "%s: --trace: none of the modes asked for runs here (the stream workload "
                    "runs read and write only)", cfg->path);
    return FALSE;
  }
  return TRUE;
}

gboolean
ps_run_config (const PsConfig *cfg, unsigned modes, uint64_t seed, PsRunResult *out, GError **error)
{
  return ps_run_config_traced (cfg, modes, seed, NULL, out, error);
}

gboolean
ps_run_config_traced (const PsConfig *cfg, unsigned modes, uint64_t seed, SimTrace *trace, PsRunResult *out,
  GError **error)
{
  /* The vendor figure and the protocol limit follow from the link parameters alone, so they are filled in
   * whichever modes run. */
  LinkParams lp;
  ps_build_link_params (cfg, &lp);
  out->config = cfg;
  out->seed = seed;
  const PsWorkloadKind *wk = ps_config_workload (cfg);
  /* Without flows a fabric runs the benchmark on its endpoint: the chaining DMA's, whose driver knows fabrics. */
  if (cfg->topology && wk->one_link) {
    ps_error_plain (error, PS_ERROR_DATA, "%s: the %s workload runs on a one-link config: a topology: without flows: "
                    "runs the chaining DMA", cfg->path, wk->name);
    return FALSE;
  }
  out->model = wk->name;
  /* In flit mode the vendor formula's per-TLP framing does not exist: the flit's own overhead stands for it. */
  out->theoretical_mbps = lp.flit_mode || lp.gen == 6
                             ? link_theoretical_flit_mbps (lp.gen, lp.lanes, lp.max_payload_bytes)
                             : link_theoretical_mbps (lp.gen, lp.lanes, lp.max_payload_bytes);
  /* Each figure's limit has the header its data travels with (report.h): MWrs that of their addresses (the DMA
   * and the stream put their buffers above 4 GB exactly when link.address_bits is 64), CplDs 3 DW. */
  out->protocol_limit_mbps = link_protocol_limit_mbps (&lp, cfg->link.address_bits == 64 ? 16 : 12);
  out->protocol_limit_read_mbps = link_protocol_limit_mbps (&lp, 12);
  return wk->run ? run_device (cfg, wk, seed, trace, out, error)
         : wk->run_whole ? wk->run_whole (cfg, seed, trace, out, error)
                         : run_modes (cfg, wk, modes, &lp, seed, trace, out, error);
}
