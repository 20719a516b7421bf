/* builder.c — PsConfig -> model parameter structs -> runs -> PsRunResult.
 *
 * The only place where config keys meet model fields. Keeping the mapping here keeps the models free of the
 * config module: a model takes plain structs that tests fill by hand, and knows nothing of key names, includes
 * or --set. Fields that take picoseconds (link, stream, watchdog) are converted here; HostParams keep the
 * config's nanoseconds and the host (and system.c's driver) convert them, all with units_ns_to_ps(), so each
 * value's unit is the one its field's name states and one ns figure gives the same picoseconds everywhere.
 *
 * The key with no model field: endpoint.soft_ip (a label: the soft-IP family files reuse the hard IP's
 * parameters, as the published soft rows measure within 1% of the hard ones). benchmark.modes is read by the command line, published.* only
 * by the comparisons (report, validate).
 *
 * About 960 lines, one file on purpose: it is the only place config keys meet model fields, and that mapping
 * is reviewed and kept complete in one place; the node kinds' factories are nodes.c's.
 */
#include "app/run/builder.h"

#include "app/run/assemble.h"

#include "models/base/dist.h"
#include "models/base/model_error.h"
#include "models/workloads/flow.h"
#include "models/link/phy.h"
#include "models/workloads/pio.h"
#include "models/fabric/switch.h"
#include "models/devices/wc.h"
#include "models/base/units.h"
#include "app/base/error.h"
#include "app/config/nodes.h"
#include "app/config/topology.h"

void
ps_error_from_model (GError **error, const char *prefix)
{
  if (!error || !*error || (*error)->domain == PS_ERROR)
    return;
  GError *e = *error;
  *error = NULL;
  /* The trace writer's errors are about the --trace options, not the config: no prefix. */
  if (e->domain == SIM_TRACE_ERROR) {
    ps_error_plain (error, e->code == SIM_TRACE_ERROR_USAGE ? PS_ERROR_USAGE : PS_ERROR_CANTCREAT, "%s", e->message);
    g_error_free (e);
    return;
  }
  /* The models' one domain (models/base/model_error.h): a refused parameter is bad data; an invariant, a deadlock
   * or any other domain is the program failing, internal. */
  PsErrorCode code = e->domain == MODEL_ERROR && e->code == MODEL_ERROR_PARAM ? PS_ERROR_DATA : PS_ERROR_INTERNAL;
  ps_error_plain (error, code, "%s%s%s", prefix ? prefix : "", prefix ? ": " : "", e->message);
  g_error_free (e);
}


/* LinkUsage (models) and PsUsage (reports) are the same five fractions; reports must not include model headers. */
static void
usage_of (PsUsage *out, const LinkUsage *u)
{
  *out = (PsUsage) { u->payload, u->tlp_overhead, u->dllp, u->ordered_sets, u->idle };
}

/* LinkErrors (models) and PsLinkErrors (reports) are the same counts. */
static void
link_errors_of (PsLinkErrors *dst, const LinkErrors *src)
{
  *dst = (PsLinkErrors) { src->tlp_errors, src->dllp_errors, src->naks, src->replays, src->replay_timeouts,
                          src->retrains, src->replayed_tlps, src->replayed_bytes, src->flit_errors,
                          src->framing_errors };
}

/* Written only when errors are modelled. */
static void
errors_of (PsModeResult *m, const PsConfig *cfg, const LinkErrors e[2])
{
  m->has_errors = cfg->link.ber > 0;
  m->latency_p99_ns = NAN;
  link_errors_of (&m->errors_up, &e[LINK_UPSTREAM]);
  link_errors_of (&m->errors_down, &e[LINK_DOWNSTREAM]);
}

/* WhyResult (models) -> the report's terms; transmitters keep only the causes that held them idle at all. */
static void
verdict_of (PsVerdict *out, const WhyVerdict *v)
{
  *out = (PsVerdict) { .valid = v->valid };
  if (!v->valid)
    return;
  out->cause = stall_cause_names[v->cause];
  out->next = stall_cause_names[v->next];
  out->share = v->share;
  out->next_share = v->next_share;
  out->bound_mbps = v->bound_mbps;
  out->link_mbps = v->link_mbps;
  out->floor = v->floor;
  G_STATIC_ASSERT (WHY_SW_PHASES == PS_SW_PHASES);
  for (int c = 0; c < STALL_COUNT; c++)
    if (v->path[c] > 0) {
      out->path_name[out->n_path] = stall_cause_names[c];
      out->path[out->n_path++] = v->path[c];
    }
  for (int k = 0; k < WHY_SW_PHASES; k++) {
    out->software_name[k] = why_software_phase_names[k];
    out->software_ns[k] = v->software_ns[k];
    out->has_software |= v->software_ns[k] > 0;
  }
  g_strlcpy (out->text, v->text, sizeof out->text);
}

static void
latency_of (PsLatency *out, const LatSummary *l)
{
  *out = (PsLatency) { .valid = l->count > 0, .count = l->count, .mean_ns = l->mean_ns, .p50_ns = l->p50_ns,
                       .p99_ns = l->p99_ns, .max_ns = l->max_ns };
}

static void
why_of (PsModeResult *m, const WhyResult *w)
{
  verdict_of (&m->read_verdict, &w->verdict[DMA_READ]);
  verdict_of (&m->write_verdict, &w->verdict[DMA_WRITE]);
  latency_of (&m->read_latency, &w->read_latency);
  latency_of (&m->write_latency, &w->write_latency);
  m->read_first_fetch_ns = w->first_fetch_ns[DMA_READ];
  m->write_first_fetch_ns = w->first_fetch_ns[DMA_WRITE];
  G_STATIC_ASSERT (WHY_TRANSMITTERS <= PS_MAX_TRANSMITTERS && WHY_MAX_BUSY <= PS_MAX_BUSY
                   && STALL_COUNT <= PS_MAX_CAUSES);
  /* A figure measured on a path (PIO) has a verdict but no transmitters of a DMA workload. */
  m->n_transmitters = 0;
  for (int i = 0; i < WHY_TRANSMITTERS; i++) {
    const WhyTransmitter *t = &w->tx[i];
    if (t->name[0] == '\0')
      continue;
    PsTransmitter *o = &m->transmitters[m->n_transmitters++];
    g_strlcpy (o->name, t->name, sizeof o->name);
    o->n_busy = t->n_busy;
    for (guint k = 0; k < t->n_busy; k++) {
      o->busy_name[k] = t->busy_name[k];
      o->busy[k] = t->busy[k];
    }
    o->n_idle = 0;
    for (int c = 0; c < STALL_COUNT; c++)
      if (t->idle[c] > 0) {
        o->idle_name[o->n_idle] = stall_cause_names[c];
        o->idle[o->n_idle++] = t->idle[c];
      }
  }
}

static void
times_of (PsTransferTimes *out, const SystemTransferStats *t)
{
  *out = (PsTransferTimes) { t->valid, t->mean_ns, t->p50_ns, t->p99_ns };
}


/* The one-link system as a topology: what every config without a topology: describes (root complex "host",
 * endpoint "endpoint", one link trained to the config's link.gen and link.lanes), so one builder builds both. */
static void
default_topology (const PsConfig *cfg, PsTopology *t, PsNode nodes[2], PsLink *link)
{
  /* The registry's first three rows are the roles (app/config/nodes.h): kind = type. */
  nodes[0] = (PsNode) { .name = (char *) "host", .type = PS_NODE_ROOT_COMPLEX, .kind = PS_NODE_ROOT_COMPLEX,
                        .ports = 1, .up_link = -1 };
  nodes[1] = (PsNode) { .name = (char *) "endpoint", .type = PS_NODE_ENDPOINT, .kind = PS_NODE_ENDPOINT, .ports = 1,
                        .up_link = 0 };
  *link = (PsLink) { .name = (char *) "host-endpoint", .a = 0, .b = 1, .gen = cfg->link.gen, .lanes = cfg->link.lanes };
  *t = (PsTopology) { .nodes = nodes, .n_nodes = 2, .root = 0, .links = link, .n_links = 1 };
}

Fabric *
ps_build_system_fabric (const PsConfig *cfg, SystemMode mode, uint64_t seed, Host **host, Endpoint **endpoint,
  GError **error)
{
  PsTopology one;
  PsNode nodes[2];
  PsLink link;
  const PsTopology *t = cfg->topology;
  if (t == NULL) {
    default_topology (cfg, &one, nodes, &link);
    t = &one;
  }
  g_autofree Component **comp = g_new0 (Component *, t->n_nodes);
  g_autofree Endpoint **eps = g_new0 (Endpoint *, t->n_nodes);
  g_autofree LinkParams *lps = g_new0 (LinkParams, t->n_links);
  Fabric *f = ps_build_fabric (cfg, t, (int) mode, seed, comp, eps, host, lps, error);
  *endpoint = f ? eps[ps_topology_endpoint (t)] : NULL;
  if (f != NULL && *endpoint == NULL) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "node %s: a %s, not an endpoint the benchmark's DMA can run on",
                 t->nodes[ps_topology_endpoint (t)].name, ps_node_kind (t->nodes[ps_topology_endpoint (t)].kind)->type);
    fabric_free (f);
    f = NULL;
  }
  return f;
}

/* One mode of the benchmark on the config's fabric, built afresh: the checks of the one-link system first
 * (system_mode_check(), so a bad key reads the same on any fabric), then the fabric, then the driver or the PIO
 * program. */
static gboolean
run_system (const PsConfig *cfg, const SystemParams *sp, SystemMode mode, uint64_t seed, SystemResult *r,
  GError **error)
{
  Host *host;
  Endpoint *e;
  Fabric *f = NULL;
  if (!system_mode_check (sp, mode, error) || !(f = ps_build_system_fabric (cfg, mode, seed, &host, &e, error)))
    return FALSE;
  SystemDriver d = { .iterations = sp->iterations, .software_timed = sp->software_timed,
                     .watchdog_ps = sp->watchdog_ps, .cpu = &sp->cpu, .trace = sp->trace };
  SystemWorkload w = { .endpoint = e, .mode = mode, .transfer_bytes = sp->transfer_bytes };
  gboolean ok = mode == SYSTEM_PIO_READ || mode == SYSTEM_PIO_WRITE ? pio_run (f, host, e, sp, mode, &d, r, error)
                                                                    : system_run_fabric (f, host, &w, 1, &d, r, error);
  fabric_free (f);
  return ok;
}

/* The mechanisms of ps_key_use() that worked in a run, from its counters: each counts the only reads of its keys
 * (a draw of both random times per interrupt, cpu.c; a poll per watched write, a translation per request with the
 * IOMMU on, and every MRd the completer serves, host.c and models/txn/completer.c). */
static unsigned
uses_of (const HostCounters *h, uint64_t irqs)
{
  return (irqs > 0 ? PS_USE_IRQ : 0u) | (h->polled_writes > 0 ? PS_USE_POLL : 0u)
         | (h->iotlb_hits + h->iotlb_misses > 0 ? PS_USE_IOMMU : 0u) | (h->reads > 0 ? PS_USE_HOST_READ : 0u);
}

unsigned
ps_key_use (const char *key)
{
  if (g_str_has_prefix (key, "cpu.interrupt.") || g_str_has_prefix (key, "cpu.wakeup."))
    return PS_USE_IRQ;
  if (strcmp (key, "host.poll_interval_ns") == 0)
    return PS_USE_POLL;
  if (g_str_has_prefix (key, "host.iommu."))
    return PS_USE_IOMMU;
  if (strcmp (key, "host.cold_cache_latency_ns") == 0)
    return PS_USE_COLD_CACHE;
  if (strcmp (key, "host.numa.remote_ns") == 0)
    return PS_USE_NUMA;
  static const char *const completer[] = { "host.read_latency_ns", "host.read_latency_ps_per_byte",
                                           "host.completion_overhead_ns", "host.completion_fence_ns",
                                           "host.completion_mbps", "host.completion_group_tlps",
                                           "host.completion_bytes", "host.completion_full_block_bytes",
                                           "host.read_queue_depth", "host.completion_queue_tlps",
                                           "host.completions_in_order" };
  for (size_t i = 0; i < G_N_ELEMENTS (completer); i++)
    if (strcmp (key, completer[i]) == 0)
      return PS_USE_HOST_READ;
  return 0;
}

/* One benchmark mode on a fresh system: modes never share state, so each is reproducible on its own. Every mode
 * gets the same seed, so `--mode write` prints the same write figure as `--mode all`. The CPU's random times are
 * built here from their keys and live as long as the run. A DMA moves whole DWs: a transfer that is no multiple of
 * 4 bytes moves the DWs around it, and its figures count the bytes asked for (as software timing it would). */
gboolean
ps_run_dma_mode (const PsConfig *cfg, int mode, uint64_t seed, SimTrace *trace, PsModeResult *m, GError **error)
{
  SystemParams sp;
  ps_build_system_params (cfg, &sp);
  sp.trace = trace;
  static const SystemMode modes[PS_N_MODES] = { SYSTEM_READ, SYSTEM_WRITE, SYSTEM_SIMULTANEOUS, SYSTEM_PIO_READ,
                                                SYSTEM_PIO_WRITE };
  g_autoptr (Dist) interrupt = ps_build_dist (&cfg->cpu.interrupt, error);
  g_autoptr (Dist) wakeup = interrupt ? ps_build_dist (&cfg->cpu.wakeup, error) : NULL;
  if (!wakeup) {
    ps_error_from_model (error, cfg->path);
    return FALSE;
  }
  sp.cpu.interrupt = interrupt;
  sp.cpu.wakeup = wakeup;
  gboolean pio = mode == PS_PIO_READ || mode == PS_PIO_WRITE;
  uint64_t asked = sp.transfer_bytes;
  if (!pio)
    sp.transfer_bytes = (asked + 3) / 4 * 4;
  double counted = (double) asked / (double) sp.transfer_bytes;
  SystemResult r;
  if (!run_system (cfg, &sp, modes[mode], seed, &r, error)) {
    ps_error_from_model (error, NULL);
    return FALSE;
  }
  if (asked != sp.transfer_bytes) {
    r.read_mbps *= counted;
    r.write_mbps *= counted;
    r.write_mbps_excluding_read_requests *= counted;
  }
  m->ran = true;
  /* mbps is the single-engine figure; in simultaneous mode the reports read read_mbps and write_mbps instead. */
  m->mbps = mode == PS_READ || mode == PS_PIO_READ ? r.read_mbps : r.write_mbps;
  m->read_mbps = r.read_mbps;
  m->write_mbps = r.write_mbps;
  times_of (&m->transfer_read, &r.transfer[DMA_READ]);
  times_of (&m->transfer_write, &r.transfer[DMA_WRITE]);
  m->write_mbps_excluding_read_requests = r.write_mbps_excluding_read_requests;
  m->peak_valid = r.peak_valid;
  m->peak_write_mbps = r.peak_write_mbps;
  m->peak_write_mbps_excluding_read_requests = r.peak_write_mbps_excluding_read_requests;
  m->peak_read_mbps = r.peak_read_mbps;
  usage_of (&m->upstream, &r.upstream);
  usage_of (&m->downstream, &r.downstream);
  m->read_window_ns = r.read_counter_ns;
  m->write_window_ns = r.write_counter_ns;
  m->usage_window_ns = r.usage_window_ns;
  m->usage_windows = r.usage_windows;
  errors_of (m, cfg, r.errors);
  why_of (m, &r.why);
  m->events = r.events;
  m->tlps = r.tlps;
  m->sim_time_ns = (double) r.sim_time_ps / 1000.0;
  m->uses = uses_of (&r.host, r.cpu.irqs) | (cfg->host.numa.buffer_remote ? PS_USE_NUMA : 0u);
  return TRUE;
}

/* The streaming source has no engines to run at once, so simultaneous mode is not offered. A parameter the
 * stream refuses is bad input (exit 65); any other failure of the stream is a model error. */
gboolean
ps_run_stream_mode (const PsConfig *cfg, int mode, uint64_t seed, SimTrace *trace, PsModeResult *m, GError **error)
{
  if (mode != PS_READ && mode != PS_WRITE)
    return TRUE;
  StreamParams sp;
  ps_build_stream_params (cfg, mode == PS_READ ? STREAM_READ : STREAM_WRITE, &sp);
  sp.trace = trace;
  StreamResult r;
  if (!stream_run (&sp, seed, &r, error)) {
    ps_error_from_model (error, cfg->path);
    return FALSE;
  }
  m->ran = true;
  m->mbps = r.mbps;
  usage_of (&m->upstream, &r.usage[LINK_UPSTREAM]);
  usage_of (&m->downstream, &r.usage[LINK_DOWNSTREAM]);
  /* One window for the figure and the usage: the stream resets the link's counters when it opens (stream.h). */
  double window_ns = (double) r.window_ps / 1000.0;
  *(mode == PS_READ ? &m->read_window_ns : &m->write_window_ns) = window_ns;
  m->usage_window_ns = window_ns;
  m->usage_windows = 1;
  errors_of (m, cfg, r.errors);
  m->latency_p99_ns = r.latency_p99_ns;
  m->events = r.events;
  m->tlps = r.tlps;
  m->sim_time_ns = (double) r.sim_time_ps / 1000.0;
  /* No CPU, no polls, no IOMMU (ps_build_stream_params()); its completer takes host.read_latency_ns and
   * host.completion_bytes in either mode. */
  m->uses = PS_USE_HOST_READ;
  return TRUE;
}

/* The microbench workload (pcie-bench's tests, pcie-protocol.md §11): a one-link fabric, the config's root complex
 * and an endpoint with its datapath but no DMA engine, running the test as flows in DMA mode (models/workloads/flow.h).
 * A cold cache is host latency: host.cold_cache_latency_ns more for every read. bw_rdwr is a read flow and a
 * write flow at once, each with its own window and microbench.outstanding DMAs. */
/* The verdict (models/analysis/why.h) of the first flow's data: its TLPs (a DMA of transfer_bytes, cut at MPS) on
 * the one link, against the datapath side that moves them and the engine's command rate (one DMA per
 * issue_gap_ps, before any partial-word cost of a read). */
static void
microbench_verdict (const SystemParams *sp, const FlowSpec *specs, SimTime issue_gap_ps, const FlowResult *fr,
                    const FlowLinkResult *lr, SimTime window_ps, PsMicrobenchResult *out)
{
  gboolean wr = specs[0].op == FLOW_WRITE;
  uint32_t hdr = wr && specs[0].addr64 ? 16 : 12;
  LinkParams lp = sp->link;
  lp.max_payload_bytes = MIN (sp->link.max_payload_bytes, specs[0].transfer_bytes);
  /* A read's chain: its requests up, its completions down. */
  WhyHop hops[2] = { { .usage = lr[0].usage[LINK_UPSTREAM] }, { .usage = lr[0].usage[LINK_DOWNSTREAM] } };
  for (int d = 0; d < 2; d++)
    memcpy (hops[d].idle_ps, lr[0].idle_ps[d == 0 ? LINK_UPSTREAM : LINK_DOWNSTREAM], sizeof hops[d].idle_ps);
  WhyHop *data = &hops[wr ? 0 : 1];
  data->limit_mbps = link_protocol_limit_mbps (&lp, hdr);
  /* The device's own capacity: its datapath's beats, and its engine's one DMA per dma_issue_cycles. */
  double src = why_datapath_capacity_mbps (&sp->app, !wr, lp.max_payload_bytes, hdr);
  if (issue_gap_ps > 0)
    src = MIN (src, (double) specs[0].transfer_bytes * 1e6 / (double) issue_gap_ps);
  WhyVerdict v;
  why_hops_verdict (hops, wr ? 1 : 2, (double) fr[0].bytes * 1e6 / (double) window_ps, STALL_DATAPATH_TX, src,
                    &v);
  verdict_of (&out->verdict, &v);
  out->limit_gbps = data->limit_mbps * 8 / 1000;
}

/* No figure above the wire: each direction's bytes within its protocol limit over the run's window. */
static gboolean
microbench_within_limits (const PsConfig *cfg, const LinkParams *link, const FlowSpec *specs, const FlowResult *fr,
                          guint n, int test, SimTime window_ps, const char *test_name, GError **error)
{
  for (guint k = 0; k < n; k++) {
    uint32_t hdr = specs[k].op == FLOW_WRITE && specs[k].addr64 ? 16 : 12;
    double limit = link_protocol_limit_window_mbps (link, hdr, window_ps);
    double mbps = (double) fr[k].bytes * 1e6 / (double) window_ps;
    if (test != PS_MB_LAT_WRRD && mbps > limit) {
      ps_error_plain (error, PS_ERROR_INTERNAL, "%s: microbench %s simulated %.1f MB/s, above the protocol limit of "
                      "%.1f MB/s: a model is wrong", cfg->path, test_name, mbps, limit);
      return FALSE;
    }
  }
  return TRUE;
}

/* The device's side of a DMA (microbench.device_offset): its engine moves whole 8-byte words of its memory. A read
 * whose first or last byte lies inside a word writes that word in part, a read-modify-write that lengthens its
 * issue (endpoint.dma_read_partial_ns, once per such word); a write's pieces (endpoint.dma_write_max_bytes) count
 * the words, so an offset inside a word leaves the first piece that much, in whole DWs, shorter. */
static void
device_words (const PsConfig *cfg, gboolean cmd, int test, FlowSpec specs[2])
{
  if (cmd)
    return;
  uint32_t dof = (uint32_t) cfg->microbench.device_offset % 8, asked = (uint32_t) cfg->microbench.transfer_bytes;
  unsigned partial = (dof != 0) + ((dof + asked) % 8 != 0);
  if (test != PS_MB_BW_WR)
    specs[0].dma_gap_ps += partial * units_ns_to_ps (cfg->endpoint.dma_read_partial_ns);
  if (cfg->endpoint.dma_write_max_bytes > 0)
    for (int k = 0; k < 2; k++)
      specs[k].write_head_skew_bytes = (dof + 3) / 4 * 4;
  /* A write's data leaves the card's memory through its interface (endpoint.datapath_bits at clock_mhz) before the
   * engine takes its next command: a write DMA issues that much after the last, on top of the command's cycles. */
  SimTime data_ps = (SimTime) llround (asked * 8.0 * 1e6 / (cfg->endpoint.datapath_bits * cfg->endpoint.clock_mhz));
  for (int k = 0; k < 2; k++)
    if (specs[k].op == FLOW_WRITE && specs[k].dma_gap_ps > 0)
      specs[k].dma_gap_ps += data_ps;
}

/* What a read of the window pays beyond the host's read latency, by the window's cache state and the sockets; TRUE
 * if some read crosses to the other socket (host.numa.remote_ns is read). */
static gboolean
microbench_memory (const PsConfig *cfg, HostParams *hp)
{
  /* Cold, device-warm and thrashed windows are read from DRAM: an I/O read that misses the LLC does not allocate
   * a line in it (Intel DDIO allocates on writes only), so the device's own reads leave the window as cold. */
  gboolean cold = cfg->microbench.cache != PS_MB_WARM;
  if (cold)
    hp->read_latency_ns += cfg->host.cold_cache_latency_ns;
  else
    hp->llc_miss_ns = cfg->host.cold_cache_latency_ns;
  /* A warm line is read from the socket whose LLC holds it (host.numa.warm_cache), a line beyond the LLC from the
   * buffer's memory: ps_build_system_params() charged every read the buffer's socket, which a line cached in the
   * other one is not (docs/host-model.md §3b). A write-then-read reads its own write, in the buffer's socket. */
  int wc = cfg->host.numa.warm_cache;
  gboolean wrrd = cfg->microbench.test == PS_MB_LAT_WRRD || cfg->microbench.test == PS_MB_LAT_CMD_WRRD;
  if (!cold && wc != PS_NUMA_CACHE_BUFFER && !wrrd) {
    double remote = cfg->host.numa.remote_ns, buffer = cfg->host.numa.buffer_remote ? remote : 0;
    hp->read_latency_ns -= buffer;
    hp->llc_miss_ns += buffer;
    hp->llc_hit_ns = wc == PS_NUMA_CACHE_OTHER ? remote : 0;
  }
  return cfg->host.numa.buffer_remote || (!cold && wc == PS_NUMA_CACHE_OTHER && !wrrd);
}

gboolean
ps_run_microbench (const PsConfig *cfg, uint64_t seed, SimTrace *trace, PsMicrobenchResult *out, GError **error)
{
  SystemParams sp;
  ps_build_system_params (cfg, &sp);
  gboolean numa = microbench_memory (cfg, &sp.host), cold = cfg->microbench.cache != PS_MB_WARM;
  Fabric *f = NULL;
  Endpoint *ep = NULL;
  Host *host = NULL;
  Link *link;
  EndpointParams epp = { .app = sp.app, .rcb_bytes = ENDPOINT_RCB_BYTES, .mem_read_latency_ns = cfg->endpoint.memory_read_latency_ns };
  gboolean ok = host_params_check (&sp.host, sp.link.max_payload_bytes, error) && endpoint_params_check (&epp, error)
                && (f = system_one_link (seed, &sp.host, &epp, &sp.link, &host, &ep, &link, error)) != NULL;
  int test = cfg->microbench.test;
  /* The direct command path (lat_cmd_*) is the latency test without the DMA engine: its costs (endpoint.dma_*)
   * do not apply. */
  gboolean cmd = test == PS_MB_LAT_CMD_RD || test == PS_MB_LAT_CMD_WRRD;
  if (cmd)
    test = test == PS_MB_LAT_CMD_RD ? PS_MB_LAT_RD : PS_MB_LAT_WRRD;
  gboolean lat = test == PS_MB_LAT_RD || test == PS_MB_LAT_WRRD;
  /* pcie-bench's DMA of any size (microbench.transfer_bytes): its TLPs carry the whole DWs that hold its bytes,
   * the first and last DW's byte enables marking the rest (spec §2.2.5); slots start on 64-byte lines, each DMA
   * host_offset into its own. The flow moves the DWs; the figures count the bytes asked for. */
  uint32_t asked = (uint32_t) cfg->microbench.transfer_bytes, ho = (uint32_t) cfg->microbench.host_offset;
  uint32_t dws = (ho % 4 + asked + 3) / 4 * 4;
  FlowSpec spec = {
    .name = ps_microbench_test_words[cfg->microbench.test], .source = endpoint_component (ep),
    .op = test == PS_MB_BW_WR ? FLOW_WRITE : FLOW_READ,
    .bytes = (uint64_t) cfg->microbench.window_bytes, .iterations = (uint32_t) cfg->microbench.dmas,
    .max_read_request_bytes = (uint32_t) cfg->link.max_read_request, .tags = (uint32_t) cfg->endpoint.tags,
    .addr64 = cfg->link.address_bits == 64, .transfer_bytes = dws,
    .dma_stride_bytes = (ho + asked + 63) / 64 * 64, .dma_offset_bytes = ho / 4 * 4,
    /* Of a warm window, the LLC holds what fits (host.llc_bytes); a DMA that writes first reads its own write. */
    .llc_bytes = !cold && test != PS_MB_LAT_WRRD ? (uint64_t) cfg->host.llc_bytes : 0,
    .outstanding = lat ? 1 : (uint32_t) cfg->microbench.outstanding, .write_first = test == PS_MB_LAT_WRRD,
    /* The engine's command rate, in its own clock's cycles. */
    .dma_gap_ps = cmd ? 0
                      : (SimTime) llround ((double) cfg->endpoint.dma_issue_cycles * 1e6 / cfg->endpoint.clock_mhz),
    /* Its write path and its own time per DMA outside the PCIe core (endpoint.dma_*). */
    .write_max_bytes = cmd ? 0 : (uint32_t) cfg->endpoint.dma_write_max_bytes,
    .write_gap_ps = cmd ? 0 : units_ns_to_ps (cfg->endpoint.dma_write_gap_ns),
    .write_switch_ps = cmd ? 0 : units_ns_to_ps (cfg->endpoint.dma_write_switch_ns),
    .dma_overhead_ps = cmd ? 0 : units_ns_to_ps (cfg->endpoint.dma_overhead_ns),
    .dma_write_extra_ps = cmd ? 0 : units_ns_to_ps (cfg->endpoint.dma_write_extra_ns),
    .dma_ps_per_byte = cmd ? 0 : cfg->endpoint.dma_ps_per_byte,
  };
  FlowSpec specs[2] = { spec, spec };
  specs[1].op = FLOW_WRITE;
  device_words (cfg, cmd, test, specs);
  guint n = test == PS_MB_BW_RDWR ? 2 : 1;
  /* pcie-bench's bw_rdwr alternates its reads and writes: DMA k of each in turn. */
  specs[0].alternate = specs[1].alternate = n == 2;
  GRand *rand[2] = { NULL, NULL };
  for (guint k = 0; ok && k < n && cfg->microbench.offsets == 1; k++)
    specs[k].offsets = rand[k] = sim_rand_new (fabric_engine (f), FLOW_RAND_ID (k));
  FlowResult fr[2];
  FlowLinkResult lr[1];
  FlowRunStats st;
  ok = ok && ps_trace_links (f, trace, NULL, error)
       && flows_run (f, host, specs, n, units_ns_to_ps (cfg->benchmark.watchdog_ns), fr, lr, &st, error);
  for (guint k = 0; k < 2; k++)
    if (rand[k])
      g_rand_free (rand[k]);
  /* No CPU here: no interrupt draws. The cold cache is read above, for this test's every read. */
  HostCounters hc = ok ? host_counters (host) : (HostCounters) { 0 };
  unsigned uses = uses_of (&hc, 0) | (numa ? PS_USE_NUMA : 0u);
  if (cold || (cfg->host.llc_bytes > 0 && cfg->host.llc_bytes < cfg->microbench.window_bytes))
    uses |= PS_USE_COLD_CACHE;
  fabric_free (f);
  if (!ok) {
    ps_error_from_model (error, cfg->path);
    return FALSE;
  }
  /* pcie-bench's figures: Gb/s of every byte moved over the run, latency per DMA. With two flows the latency is
   * the read flow's (the write flow's DMAs end when posted, which says little of the host). */
  SimTime start = fr[0].start_ps, end = fr[0].end_ps;
  uint64_t bytes = fr[0].bytes;
  for (guint k = 1; k < n; k++) {
    start = MIN (start, fr[k].start_ps);
    end = MAX (end, fr[k].end_ps);
    bytes += fr[k].bytes;
  }
  /* Each direction's bytes over the run's one window, so the two add up to the total (report.h). */
  uint64_t dir_bytes[2] = { 0, 0 }; /* by FlowOp */
  for (guint k = 0; k < n; k++)
    dir_bytes[specs[k].op] += fr[k].bytes;
  if (specs[0].write_first) {
    dir_bytes[FLOW_WRITE] += dir_bytes[FLOW_READ] / 2;
    dir_bytes[FLOW_READ] -= dir_bytes[FLOW_READ] / 2;
  }
  double gbit = 8.0 * 1000.0 / (double) (end - start) * asked / dws;
  *out = (PsMicrobenchResult) {
    .ran = true, .test = ps_microbench_test_words[cfg->microbench.test], .transfer_bytes = cfg->microbench.transfer_bytes,
    .gbps = (double) bytes * gbit, .read_gbps = (double) dir_bytes[FLOW_READ] * gbit,
    .write_gbps = (double) dir_bytes[FLOW_WRITE] * gbit,
    .latency = { .valid = true, .count = (uint64_t) cfg->microbench.dmas, .mean_ns = fr[0].mean_ns,
                 .p50_ns = fr[0].p50_ns, .p99_ns = fr[0].p99_ns, .max_ns = fr[0].max_ns },
    .events = st.events, .sim_time_ns = (double) st.sim_time_ps / 1000.0, .uses = uses,
  };
  usage_of (&out->upstream, &lr[0].usage[LINK_UPSTREAM]);
  usage_of (&out->downstream, &lr[0].usage[LINK_DOWNSTREAM]);
  microbench_verdict (&sp, specs, specs[0].dma_gap_ps, fr, lr, end - start, out);
  return microbench_within_limits (cfg, &sp.link, specs, fr, n, test, end - start, out->test, error);
}

/* --- fabrics --------------------------------------------------------------------------------------------------- */

/* No flow may carry more than every link on its path allows its data: posted writes with their MWr header, read
 * data in 3-DW CplDs (link.h), over the flow's own window. A TLP carries the ECRC its originator's link gave it
 * and no switch adds one (link_port_set_forwarding()), so the limit counts ECRC only where every link of the path
 * has it. */
static gboolean
check_flow_limits (const PsConfig *cfg, const PsFabricResult *out, const LinkParams *lps, GError **error)
{
  const PsTopology *t = cfg->topology;
  for (guint k = 0; k < out->n_flows; k++) {
    const PsFlowResult *r = &out->flows[k];
    const PsFlow *fl = &t->flows[k];
    if (!r->ran)
      continue;
    const PsNode *src = &t->nodes[fl->source];
    gboolean addr64 = (src->cfg ? src->cfg : cfg)->link.address_bits == 64;
    uint32_t hdr = fl->op == PS_FLOW_WRITE && t->nodes[fl->target].type == PS_NODE_ROOT_COMPLEX && addr64 ? 16 : 12;
    double window_ns = (double) r->bytes * r->iterations * 1000.0 / r->mbps;
    guint path[PS_TOPOLOGY_MAX_LINKS];
    guint n = ps_topology_path (t, fl->source, fl->target, path);
    gboolean ecrc = TRUE;
    for (guint i = 0; i < n; i++)
      ecrc = ecrc && lps[path[i]].ecrc;
    for (guint i = 0; i < n; i++) {
      LinkParams lp = lps[path[i]];
      lp.ecrc = ecrc;
      double limit = link_protocol_limit_window_mbps (&lp, hdr, units_ns_to_ps (window_ns));
      if (r->mbps > limit) {
        ps_error_plain (error, PS_ERROR_INTERNAL, "%s: flow %s simulated %.1f MB/s, above link %s's protocol limit "
                        "of %.1f MB/s for its %.1f ns window: a model is wrong", cfg->path, r->name, r->mbps,
                        t->links[path[i]].name, limit, window_ns);
        return FALSE;
      }
    }
  }
  return TRUE;
}

/* A flow's verdict (models/analysis/why.h): the chain of link directions its TLPs take (a write's data from source to
 * target; a read's requests there, then its completions back), each hop's protocol limit for the flow's data and
 * whether a switch sends on it, and the source's datapath capacity for its data. The data hops are kept for the
 * report. */
static void
flow_verdict (const PsConfig *cfg, const PsFlow *fl, const FlowLinkResult *lr, const LinkParams *lps,
  PsFlowResult *r)
{
  const PsTopology *t = cfg->topology;
  g_autofree guint *path = g_new (guint, MAX (t->n_links, 1));
  guint n = ps_topology_path (t, fl->source, fl->target, path);
  gboolean rd = fl->op == PS_FLOW_READ;
  const PsConfig *sc = t->nodes[fl->source].cfg ? t->nodes[fl->source].cfg : cfg;
  uint32_t hdr = !rd && t->nodes[fl->target].type == PS_NODE_ROOT_COMPLEX && sc->link.address_bits == 64 ? 16 : 12;
  g_autofree WhyHop *hops = g_new0 (WhyHop, 2 * MAX (n, 1));
  g_autofree gboolean *down = g_new (gboolean, MAX (n, 1));
  g_autofree guint *from = g_new (guint, MAX (n, 1));
  guint cur = fl->source, k = 0;
  for (guint i = 0; i < n; i++) {
    const PsLink *l = &t->links[path[i]];
    down[i] = l->a == cur;
    from[i] = cur;
    cur = down[i] ? l->b : l->a;
  }
  /* Forward: a write's data, a read's requests; backward: a read's completions. */
  for (guint pass = 0; pass < (rd ? 2u : 1u); pass++)
    for (guint x = 0; x < n; x++) {
      guint i = pass ? n - 1 - x : x;
      gboolean b_to_a = pass ? down[i] : !down[i];
      guint sender = pass ? (down[i] ? t->links[path[i]].b : t->links[path[i]].a) : from[i];
      LinkDir d = b_to_a ? LINK_UPSTREAM : LINK_DOWNSTREAM;
      WhyHop *h = &hops[k++];
      h->usage = lr[path[i]].usage[d];
      memcpy (h->idle_ps, lr[path[i]].idle_ps[d], sizeof h->idle_ps);
      h->from_switch = t->nodes[sender].type == PS_NODE_SWITCH;
      gboolean data = rd == (pass == 1);
      h->limit_mbps = data ? link_protocol_limit_mbps (&lps[path[i]], hdr) : 0;
      if (data && r->n_hops < PS_FLOW_SHOWN_HOPS) {
        r->hop_link[r->n_hops] = (uint16_t) path[i];
        r->hop_b_to_a[r->n_hops++] = b_to_a;
      }
    }
  SystemParams sp;
  ps_build_system_params (sc, &sp);
  uint32_t payload = rd ? MIN (sp.link.max_payload_bytes, (uint32_t) sc->link.max_read_request) : sp.link.max_payload_bytes;
  WhyVerdict v;
  why_hops_verdict (hops, k, r->mbps, STALL_DATAPATH_TX, why_datapath_capacity_mbps (&sp.app, rd, payload, hdr), &v);
  verdict_of (&r->verdict, &v);
}

gboolean
ps_run_fabric (const PsConfig *cfg, uint64_t seed, PsFabricResult *out, GError **error)
{
  return ps_run_fabric_traced (cfg, seed, NULL, out, error);
}

gboolean
ps_run_fabric_traced (const PsConfig *cfg, uint64_t seed, SimTrace *trace, PsFabricResult *out, GError **error)
{
  const PsTopology *t = cfg->topology;
  *out = (PsFabricResult) { .n_flows = t->n_flows, .n_links = t->n_links };
  g_autofree Component **comp = g_new0 (Component *, t->n_nodes);
  g_autofree LinkParams *lps = g_new0 (LinkParams, MAX (t->n_links, 1));
  Host *host = NULL;
  Fabric *f = ps_build_fabric (cfg, t, -1, seed, comp, NULL, &host, lps, error);
  if (!f) {
    ps_error_from_model (error, cfg->path);
    return FALSE;
  }
  guint n = cfg->fabric.active_flows ? MIN ((guint) cfg->fabric.active_flows, t->n_flows) : t->n_flows;
  FlowSpec specs[PS_TOPOLOGY_MAX_FLOWS];
  for (guint k = 0; k < n; k++) {
    const PsFlow *fl = &t->flows[k];
    const PsNode *src = &t->nodes[fl->source];
    const PsConfig *sc = src->cfg ? src->cfg : cfg;
    specs[k] = (FlowSpec) {
      .name = fl->name, .source = comp[fl->source], .function = fl->function, .bar = fl->bar,
      .target = t->nodes[fl->target].type == PS_NODE_ROOT_COMPLEX ? NULL : comp[fl->target],
      .op = fl->op == PS_FLOW_READ ? FLOW_READ : FLOW_WRITE, .bytes = (uint64_t) fl->bytes,
      .iterations = (uint32_t) fl->iterations, .start_ps = units_ns_to_ps (fl->start_ns), .rate_mbps = fl->rate_mbps,
      .max_read_request_bytes = (uint32_t) sc->link.max_read_request, .tags = (uint32_t) sc->endpoint.tags,
      .addr64 = sc->link.address_bits == 64,
    };
  }
  FlowResult fr[PS_TOPOLOGY_MAX_FLOWS];
  g_autofree FlowLinkResult *lr = g_new0 (FlowLinkResult, MAX (t->n_links, 1));
  FlowRunStats st;
  gboolean ok = ps_trace_links (f, trace, t, error)
                && flows_run (f, host, specs, n, units_ns_to_ps (cfg->benchmark.watchdog_ns), fr, lr, &st, error);
  /* The sources' IDs, as enumerated, for the flows of multi-function devices (report.h). */
  g_autofree uint16_t *ids = g_new0 (uint16_t, t->n_nodes);
  for (guint i = 0; i < t->n_nodes; i++)
    ids[i] = comp[i] ? comp[i]->id : 0;
  fabric_free (f);
  if (!ok) {
    ps_error_from_model (error, cfg->path);
    return FALSE;
  }
  static const char *const op_names[] = { "write", "read" };
  for (guint k = 0; k < t->n_flows; k++) {
    const PsFlow *fl = &t->flows[k];
    PsFlowResult *r = &out->flows[k];
    *r = (PsFlowResult) { .ran = k < n, .name = fl->name, .source = t->nodes[fl->source].name,
                          .target = t->nodes[fl->target].name, .op = op_names[fl->op], .bytes = fl->bytes,
                          .iterations = fl->iterations, .mbps = NAN, .first_tlp_ns = NAN, .mean_ns = NAN,
                          .p50_ns = NAN, .p99_ns = NAN, .max_ns = NAN, .function = -1 };
    if (t->nodes[fl->source].functions > 1) {
      r->function = (int) fl->function;
      r->requester_id = (uint16_t) (ids[fl->source] | fl->function);
    }
    if (k < n) {
      r->mbps = fr[k].mbps;
      r->delivered_bytes = fr[k].bytes;
      r->first_tlp_ns = fr[k].first_tlp_ns;
      r->mean_ns = fr[k].mean_ns;
      r->p50_ns = fr[k].p50_ns;
      r->p99_ns = fr[k].p99_ns;
      r->max_ns = fr[k].max_ns;
      flow_verdict (cfg, fl, lr, lps, r);
      latency_of (&r->read_latency, &fr[k].read_latency);
    }
  }
  out->n_causes = STALL_COUNT;
  for (int c = 0; c < STALL_COUNT; c++)
    out->cause_names[c] = stall_cause_names[c];
  for (guint i = 0; i < t->n_links; i++) {
    const PsLink *l = &t->links[i];
    PsLinkResult *r = &out->links[i];
    *r = (PsLinkResult) { .name = l->name, .a = t->nodes[l->a].name, .b = t->nodes[l->b].name, .gen = l->gen,
                          .lanes = l->lanes };
    /* a is the link's DSP end: a to b is downstream. */
    usage_of (&r->a_to_b, &lr[i].usage[LINK_DOWNSTREAM]);
    usage_of (&r->b_to_a, &lr[i].usage[LINK_UPSTREAM]);
    r->has_errors = (l->cfg ? l->cfg : cfg)->link.ber > 0;
    link_errors_of (&r->a_to_b_errors, &lr[i].errors[LINK_DOWNSTREAM]);
    link_errors_of (&r->b_to_a_errors, &lr[i].errors[LINK_UPSTREAM]);
    /* Each direction's idle share split as its clock saw the idle time (models/analysis/why.h). */
    for (int d = 0; d < 2; d++) {
      const double *ps = lr[i].idle_ps[d ? LINK_UPSTREAM : LINK_DOWNSTREAM];
      double idle = (d ? r->b_to_a : r->a_to_b).idle, total = 0;
      for (int c = 0; c < STALL_COUNT; c++)
        total += ps[c];
      for (int c = 0; c < STALL_COUNT; c++)
        r->idle[d][c] = total > 0 ? idle * ps[c] / total : c == STALL_IDLE ? idle : 0;
    }
  }
  out->ran = true;
  out->window_ns = (double) (st.window_end_ps - st.window_start_ps) / 1000.0;
  out->events = st.events;
  out->tlps = st.tlps;
  out->sim_time_ns = (double) st.sim_time_ps / 1000.0;
  return check_flow_limits (cfg, out, lps, error);
}
