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
 * by the comparisons (report, validate). */
#include "builder.h"

#include "models/dist.h"
#include "models/phy.h"
#include "models/wc.h"
#include "models/units.h"
#include "sim/error.h"

/* Every model's error domain and its one code for a parameter it refuses (-1: each of its codes is one, as the
 * PHY's name the parameter); every other code of these domains is a broken invariant or a deadlock. */
static const struct {
  GQuark (*domain) (void);
  int param;
} model_errors[] = {
  { phy_error_quark, -1 }, { link_error_quark, LINK_ERROR_PARAM }, { host_error_quark, HOST_ERROR_PARAM },
  { app_error_quark, APP_ERROR_PARAM }, { dma_error_quark, DMA_ERROR_PARAM },
  { stream_error_quark, STREAM_ERROR_PARAM }, { system_error_quark, SYSTEM_ERROR_PARAM },
  { dist_error_quark, DIST_ERROR_PARAM }, { wc_error_quark, WC_ERROR_PARAM },
};

void
ps_error_from_model (GError **error, const char *prefix)
{
  if (!error || !*error || (*error)->domain == PS_ERROR)
    return;
  GError *e = *error;
  *error = NULL;
  /* A domain not listed is a model failing in a way it has no code for: internal too. */
  PsErrorCode code = PS_ERROR_INTERNAL;
  for (guint i = 0; i < G_N_ELEMENTS (model_errors); i++)
    if (e->domain == model_errors[i].domain ())
      code = model_errors[i].param < 0 || e->code == model_errors[i].param ? PS_ERROR_DATA : PS_ERROR_INTERNAL;
  ps_error_plain (error, code, "%s%s%s", prefix ? prefix : "", prefix ? ": " : "", e->message);
  g_error_free (e);
}

/* The config range checks (0..2032 headers, 0..32752 data) keep these casts lossless. */
static FcCredits
credits (const PsCredits *c)
{
  return (FcCredits) { (uint32_t) c->ph, (uint32_t) c->pd, (uint32_t) c->nph,
                       (uint32_t) c->npd, (uint32_t) c->cplh, (uint32_t) c->cpld };
}

/* Exposed so the streaming source, tests and tools build exactly the link a config describes. Credits are
 * named by who advertises them: the root port's (host.rx_credits) limit what the endpoint may send upstream, the
 * endpoint's limit the host's completions and PIO writes. The casts are lossless within the config's ranges. */
void
ps_build_link_params (const PsConfig *cfg, LinkParams *lp)
{
  *lp = (LinkParams) {
    .gen = (int) cfg->link.gen,
    .lanes = (int) cfg->link.lanes,
    .max_payload_bytes = (uint32_t) cfg->link.max_payload,
    .tx_pipeline_ps = units_ns_to_ps (cfg->link.tx_pipeline_ns),
    .rx_pipeline_ps = units_ns_to_ps (cfg->link.rx_pipeline_ns),
    .flight_ps = units_ns_to_ps (cfg->link.flight_ns),
    .replay_buffer_bytes = (uint32_t) cfg->link.replay_buffer_bytes,
    .tx_queue_tlps = (uint32_t) cfg->link.tx_queue_tlps,
    .updatefc_period_ps = units_ns_to_ps (cfg->link.updatefc_period_ns),
    .rx_credits[LINK_DSP] = credits (&cfg->host.rx_credits),
    .rx_credits[LINK_USP] = credits (&cfg->endpoint.rx_credits),
    .skp_interval_symbols = (uint32_t) cfg->link.skp_interval_symbols,
    .ack_every_tlps[LINK_DSP] = (uint32_t) cfg->host.ack_every_tlps,
    .ack_every_tlps[LINK_USP] = (uint32_t) cfg->endpoint.ack_every_tlps,
    .ecrc = cfg->link.ecrc,
    .flit_mode = cfg->link.flit_mode,
    .sris = cfg->link.sris,
    .ber = cfg->link.ber,
    .retrain_ps = units_ns_to_ps (cfg->link.retrain_ns),
    .replay_timer_symbols = (uint32_t) cfg->link.replay_timer_symbols,
    .updatefc_hdr_threshold_credits = (uint32_t) cfg->link.updatefc_hdr_threshold_credits,
    .updatefc_data_threshold_credits = (uint32_t) cfg->link.updatefc_data_threshold_credits,
    /* An explicit latency wins; otherwise the policy word picks the spec Table 2-54 value or none. */
    .updatefc_latency_symbols = cfg->link.updatefc_latency_symbols
                                    ? (uint32_t) cfg->link.updatefc_latency_symbols
                                    : cfg->link.updatefc_policy == PS_UPDATEFC_RECOMMENDED
                                          ? LINK_UPDATEFC_LATENCY_RECOMMENDED : 0,
  };
}

/* The whole AN-456 system: link, root complex, endpoint datapath and DMA, one struct each. A key may feed two
 * models because one physical setting governs both: link.max_payload sets the link's Ack timing and credits and
 * bounds the DMA's MWrs; link.address_bits makes dma.addr64, which both places the buffers above 4 GB and gives
 * the TLPs 4-DW headers. */
void
ps_build_system_params (const PsConfig *cfg, SystemParams *sp)
{
  *sp = (SystemParams) { 0 };
  ps_build_link_params (cfg, &sp->link);
  /* Config validation admits 0, the RCB or MPS only: one per RCB block is the RCB policy, the rest MPS-sized. */
  int64_t cb = cfg->host.completion_bytes;
  sp->host = (HostParams) {
    .rcb_bytes = (uint32_t) cfg->link.read_completion_boundary,
    .cpl_policy = cb != 0 && cb == cfg->link.read_completion_boundary && cb != cfg->link.max_payload
                      ? CPL_POLICY_RCB : CPL_POLICY_MPS,
    .read_latency_ns = cfg->host.read_latency_ns,
    .read_latency_per_byte_ps = cfg->host.read_latency_ps_per_byte,
    .cpl_rate_mbps = cfg->host.completion_mbps,
    .cpl_overhead_ns = cfg->host.completion_overhead_ns,
    .read_queue_depth = (uint32_t) cfg->host.read_queue_depth,
    .write_drain_mbps = cfg->host.write_drain_mbps,
    .write_latency_ns = cfg->host.write_latency_ns,
    .sw_pio_latency_ns = cfg->host.pio_latency_ns,
    .sw_pio_gap_ns = cfg->host.pio_gap_ns,
    .msi_latency_ns = cfg->host.msi_latency_ns,
    .poll_interval_ns = cfg->host.poll_interval_ns,
    .iteration_gap_ns = cfg->host.iteration_gap_ns,
  };
  sp->app = (AppParams) {
    .width_bits = (uint32_t) cfg->endpoint.datapath_bits,
    .clock_mhz = cfg->endpoint.clock_mhz,
    .header_own_beat = cfg->endpoint.header_own_beat,
    .straddle = cfg->endpoint.straddle,
    .tx_gap_cycles = (uint32_t) cfg->endpoint.tx_gap_cycles,
    .arbitration = cfg->endpoint.arbitration == PS_ARB_ROUND_ROBIN ? APP_ARB_ROUND_ROBIN : APP_ARB_PRIORITY,
    .rx_overhead_cycles = (uint32_t) cfg->endpoint.rx_overhead_cycles,
    .rx_overhead_bytes = (uint32_t) cfg->endpoint.rx_overhead_bytes,
    .arb_switch_cycles = (uint32_t) cfg->endpoint.arb_switch_cycles,
  };
  sp->dma = (DmaParams) {
    .max_payload_bytes = (uint32_t) cfg->link.max_payload,
    .max_read_request_bytes = (uint32_t) cfg->link.max_read_request,
    .tags = (uint32_t) cfg->endpoint.tags,
    .cpl_buffer_bytes = (uint32_t) cfg->endpoint.completion_buffer_bytes,
    .cpl_buffer_headers = (uint32_t) cfg->endpoint.completion_buffer_headers,
    .rcb_bytes = (uint32_t) cfg->link.read_completion_boundary,
    .desc_max_bytes = (uint32_t) cfg->dma.desc_max_bytes,
    .desc_per_fetch = (uint32_t) cfg->dma.desc_per_fetch,
    .desc_fifo_entries = (uint32_t) cfg->dma.desc_fifo_entries,
    .desc_setup_cycles = (uint32_t) cfg->dma.desc_setup_cycles,
    .addr64 = cfg->link.address_bits == 64,
    .msi = cfg->dma.msi,
    .counter_start = cfg->dma.counter_start == PS_COUNTER_AT_HOST ? DMA_COUNTER_AT_HOST : DMA_COUNTER_AT_ENDPOINT,
    /* The datapath's priority mode favours the client registered first; which engine registers first turns it
     * into write priority (priority) or read priority (read_priority). */
    .read_first = cfg->endpoint.arbitration == PS_ARB_READ_PRIORITY,
    .channels = (uint32_t) cfg->dma.channels,
  };
  sp->transfer_bytes = (uint64_t) cfg->benchmark.transfer_bytes;
  sp->iterations = (uint32_t) cfg->benchmark.iterations;
  /* "software" descriptors mean a driver in the loop per transfer (published-calibration.md §2.2 b), so its
   * clock, not the engine's counter, times each transfer. */
  sp->software_timed = cfg->dma.descriptor_mode == PS_DESCRIPTORS_SOFTWARE;
  sp->watchdog_ps = units_ns_to_ps (cfg->benchmark.watchdog_ns);
}

/* LinkUsage (models) and PsUsage (reports) are the same five fractions; reports must not include model headers. */
static void
usage_of (PsUsage *out, const LinkUsage *u)
{
  *out = (PsUsage) { u->payload, u->tlp_overhead, u->dllp, u->ordered_sets, u->idle };
}

/* LinkErrors (models) and PsLinkErrors (reports) are the same counts; written only when errors are modelled. */
static void
errors_of (PsModeResult *m, const PsConfig *cfg, const LinkErrors e[2])
{
  m->has_errors = cfg->link.ber > 0;
  m->latency_p99_ns = NAN;
  const LinkErrors *src[2] = { &e[LINK_UPSTREAM], &e[LINK_DOWNSTREAM] };
  PsLinkErrors *dst[2] = { &m->errors_up, &m->errors_down };
  for (int i = 0; i < 2; i++)
    *dst[i] = (PsLinkErrors) { src[i]->tlp_errors, src[i]->dllp_errors, src[i]->naks, src[i]->replays,
                               src[i]->replay_timeouts, src[i]->retrains, src[i]->replayed_tlps,
                               src[i]->replayed_bytes, src[i]->flit_errors };
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
  m->n_transmitters = WHY_TRANSMITTERS;
  for (int i = 0; i < WHY_TRANSMITTERS; i++) {
    const WhyTransmitter *t = &w->tx[i];
    PsTransmitter *o = &m->transmitters[i];
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

/* One benchmark mode on a fresh system: modes never share state, so each is reproducible on its own. Every mode
 * gets the same seed, so `--mode write` prints the same write figure as `--mode all`. */
static gboolean
run_dma (const PsConfig *cfg, int mode, uint64_t seed, SimTrace *trace, PsModeResult *m, GError **error)
{
  SystemParams sp;
  ps_build_system_params (cfg, &sp);
  sp.trace = trace;
  static const SystemMode modes[PS_N_MODES] = { SYSTEM_READ, SYSTEM_WRITE, SYSTEM_SIMULTANEOUS };
  SystemResult r;
  if (!system_run (&sp, modes[mode], seed, &r, error)) {
    ps_error_from_model (error, NULL);
    return FALSE;
  }
  m->ran = true;
  /* mbps is the single-engine figure; in simultaneous mode the reports read read_mbps and write_mbps instead. */
  m->mbps = mode == PS_READ ? r.read_mbps : r.write_mbps;
  m->read_mbps = r.read_mbps;
  m->write_mbps = r.write_mbps;
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
  m->sim_time_ns = (double) r.sim_time_ps / 1000.0;
  return TRUE;
}

/* The streaming source measures the link alone, so it takes the link keys and only the host's first-order figures
 * (fixed read latency, drain rate, completion size); the rest of the host model and the datapath and DMA keys do
 * not apply. */
void
ps_build_stream_params (const PsConfig *cfg, StreamMode mode, StreamParams *sp)
{
  *sp = (StreamParams) {
    .mode = mode,
    /* A config names a transfer size, and the figure is that transfer's, from its first TLP offered to its last
     * delivery, like the DMA counter's: a steady-state window would be empty or SKP-free for small transfers. */
    .window = STREAM_WINDOW_TRANSFER,
    .total_bytes = (uint64_t) cfg->benchmark.transfer_bytes,
    .addr64 = cfg->link.address_bits == 64,
    .consumer_mbps = cfg->host.write_drain_mbps,
    .max_read_request_bytes = (uint32_t) cfg->link.max_read_request,
    .tags = (uint32_t) cfg->endpoint.tags,
    .rcb_bytes = (uint32_t) cfg->link.read_completion_boundary,
    .completion_bytes = (uint32_t) cfg->host.completion_bytes,
    .completer_latency_ps = units_ns_to_ps (cfg->host.read_latency_ns),
    .tlp_payload_bytes = (uint32_t) cfg->benchmark.stream_payload_bytes,
  };
  ps_build_link_params (cfg, &sp->link);
}

/* The streaming source has no engines to run at once, so simultaneous mode is not offered. A parameter the
 * stream refuses is bad input (exit 65); any other failure of the stream is a model error. */
static gboolean
run_stream (const PsConfig *cfg, int mode, uint64_t seed, PsModeResult *m, GError **error)
{
  if (mode == PS_SIMULTANEOUS)
    return TRUE;
  StreamParams sp;
  ps_build_stream_params (cfg, mode == PS_READ ? STREAM_READ : STREAM_WRITE, &sp);
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
  m->sim_time_ns = (double) r.sim_time_ps / 1000.0;
  return TRUE;
}

/* Runs the requested modes in a fixed order (read, write, simultaneous) so output order never depends on how
 * the modes were asked for. */
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
  gboolean stream = cfg->benchmark.workload == PS_WORKLOAD_STREAM;
  if (trace != NULL && stream) {
    ps_error_plain (error, PS_ERROR_USAGE, "%s: --trace: the stream workload is not traced (a chaining DMA is)",
                    cfg->path);
    return FALSE;
  }
  out->model = stream ? "stream" : "chaining-dma";
  out->theoretical_mbps = link_theoretical_mbps (lp.gen, lp.lanes, lp.max_payload_bytes);
  /* Each figure's limit has the header its data travels with (report.h): MWrs that of their addresses (the DMA
   * and the stream put their buffers above 4 GB exactly when link.address_bits is 64), CplDs 3 DW. */
  uint32_t write_hdr = cfg->link.address_bits == 64 ? 16 : 12;
  out->protocol_limit_mbps = link_protocol_limit_mbps (&lp, write_hdr);
  out->protocol_limit_read_mbps = link_protocol_limit_mbps (&lp, 12);
  static const unsigned bits[PS_N_MODES] = { PS_MODE_READ, PS_MODE_WRITE, PS_MODE_SIMULTANEOUS };
  for (int i = 0; i < PS_N_MODES; i++) {
    if (!(modes & bits[i]))
      continue;
    if (!(stream ? run_stream (cfg, i, seed, &out->modes[i], error)
                 : run_dma (cfg, i, seed, trace, &out->modes[i], error)))
      return FALSE;
    trace = NULL; /* the first mode run is the one traced */
    /* The protocol limit is an analytic upper bound for one direction: a figure above it means a model lets data
     * through faster than the wire can carry it (e.g. a counter stopped before the data left), never a result.
     * The printed limit is a long-run average over SKP intervals; a finite window can hold fewer SKP ordered
     * sets than its share, so each figure is held to the bound for its own window (link.h), which for a
     * one-TLP transfer is the wire without ordered sets and for a 100 KB one within 0.05% of the printed limit. */
    const PsModeResult *m = &out->modes[i];
    const struct {
      double mbps, window_ns;
      uint32_t header_bytes;
      const char *what;
    } fig[2] = { { i == PS_WRITE ? 0 : i == PS_READ ? m->mbps : m->read_mbps, m->read_window_ns, 12, "read" },
                 { i == PS_READ ? 0 : i == PS_WRITE ? m->mbps : m->write_mbps, m->write_window_ns, write_hdr,
                   "write" } };
    for (int k = 0; k < 2; k++) {
      double limit = link_protocol_limit_window_mbps (&lp, fig[k].header_bytes, units_ns_to_ps (fig[k].window_ns));
      if (fig[k].mbps > limit) {
        ps_error_plain (error, PS_ERROR_INTERNAL, "%s: %s mode simulated %.1f MB/s %s, above the protocol limit of "
                        "%.1f MB/s for its %.1f ns window: a model is wrong", cfg->path, ps_mode_name (bits[i]),
                        fig[k].mbps, fig[k].what, limit, fig[k].window_ns);
        return FALSE;
      }
    }
  }
  return TRUE;
}
