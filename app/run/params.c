/* params.c — config keys to model parameters (params.h). */
#include "app/run/params.h"

#include "models/base/units.h"
#include "models/devices/wc.h"
#include "models/fabric/switch.h"
#include "models/link/phy.h"
#include "models/workloads/flow.h"
#include "models/workloads/pio.h"
#include "app/config/nodes.h"

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
    .rx_tl_pipeline_ps = { units_ns_to_ps (cfg->link.rx_transaction_ns), units_ns_to_ps (cfg->link.rx_transaction_ns) },
    .flight_ps = units_ns_to_ps (cfg->link.flight_ns),
    .replay_buffer_bytes = (uint32_t) cfg->link.replay_buffer_bytes,
    .tx_queue_tlps = (uint32_t) cfg->link.tx_queue_tlps,
    .updatefc_period_ps = units_ns_to_ps (cfg->link.updatefc_period_ns),
    .rx_credits[LINK_DSP] = ps_credits (&cfg->host.rx_credits),
    .rx_credits[LINK_USP] = ps_credits (&cfg->endpoint.rx_credits),
    .skp_interval_symbols = (uint32_t) cfg->link.skp_interval_symbols,
    .ack_every_tlps[LINK_DSP] = (uint32_t) cfg->host.ack_every_tlps,
    .ack_every_tlps[LINK_USP] = (uint32_t) cfg->endpoint.ack_every_tlps,
    .ecrc = cfg->link.ecrc,
    .flit_mode = cfg->link.flit_mode,
    .sris = cfg->link.sris,
    .flit_selective_nak = cfg->link.flit_selective_nak,
    .ber = cfg->link.ber,
    .flit_lane_correlation = cfg->link.flit_lane_correlation,
    .retrain_ps = units_ns_to_ps (cfg->link.retrain_ns),
    .replay_timer_symbols = (uint32_t) cfg->link.replay_timer_symbols,
    .supported_gen = (int) cfg->link.supported_gen,
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
    .full_block_bytes = (uint32_t) cfg->host.completion_full_block_bytes,
    .read_latency_ns = cfg->host.read_latency_ns,
    .read_latency_per_byte_ps = cfg->host.read_latency_ps_per_byte,
    .cpl_rate_mbps = cfg->host.completion_mbps,
    .cpl_overhead_ns = cfg->host.completion_overhead_ns,
    .cpl_group_tlps = (uint32_t) cfg->host.completion_group_tlps,
    .cpl_fence_ns = cfg->host.completion_fence_ns,
    .read_queue_depth = (uint32_t) cfg->host.read_queue_depth,
    .cpl_queue_tlps = (uint32_t) cfg->host.completion_queue_tlps,
    .cpl_in_order = cfg->host.completions_in_order,
    .iommu_enabled = cfg->host.iommu.enabled,
    .iotlb_entries = (uint32_t) cfg->host.iommu.iotlb_entries,
    .iommu_page_bytes = (uint64_t) cfg->host.iommu.page_bytes,
    .iommu_walk_ns = cfg->host.iommu.walk_ns,
    .iommu_walks = (uint32_t) cfg->host.iommu.walks_in_flight,
    .iommu_read_resume_ns = cfg->host.iommu.read_resume_ns,
    .iommu_read_resume_group_ns = cfg->host.iommu.read_resume_group_ns,
    .write_drain_mbps = cfg->host.write_drain_mbps,
    .write_latency_ns = cfg->host.write_latency_ns,
    .write_block_bytes = (uint32_t) cfg->host.write_block_bytes,
    .write_partial_block_ns = cfg->host.write_partial_block_ns,
    .sw_pio_latency_ns = cfg->host.pio_latency_ns,
    .sw_pio_gap_ns = cfg->host.pio_gap_ns,
    .msi_latency_ns = cfg->host.msi_latency_ns,
    .poll_interval_ns = cfg->host.poll_interval_ns,
    .iteration_gap_ns = cfg->host.iteration_gap_ns,
    .cpu_write_queue_tlps = (uint32_t) cfg->host.cpu_write_queue_tlps,
    /* With a posted-write queue the core's path is cut where the queue takes a write: the rest is the root
     * complex's to time. */
    .cpu_write_path_ns = cfg->host.cpu_write_queue_tlps > 0 ? cfg->host.cpu_access_ns - cfg->host.cpu_write_post_ns
                                                            : 0,
  };
  /* A buffer in the other socket's memory: every read and posted write crosses the sockets' link and back. */
  if (cfg->host.numa.buffer_remote) {
    sp->host.read_latency_ns += cfg->host.numa.remote_ns;
    sp->host.write_latency_ns += cfg->host.numa.remote_ns;
  }
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
  sp->cpu = (CpuParams) {
    .wc = { .buffers = (uint32_t) cfg->cpu.wc_buffers, .buffer_bytes = (uint32_t) cfg->cpu.wc_buffer_bytes },
    .store_ns = cfg->cpu.store_ns,
    .access_ns = cfg->host.cpu_access_ns,
    .post_ns = cfg->host.cpu_write_queue_tlps > 0 ? cfg->host.cpu_write_post_ns : cfg->host.cpu_access_ns,
    .bus_write_ns = cfg->host.cpu_write_transaction_ns,
    .dma_setup_ns = cfg->cpu.dma_setup_ns,
    .dma_desc_ns = cfg->cpu.dma_descriptor_ns,
  };
  sp->pio = (SystemPio) {
    .store_bytes = (uint32_t) cfg->cpu.store_bytes,
    .load_bytes = (uint32_t) cfg->cpu.load_bytes,
    .write_uc = cfg->cpu.pio_write_mapping == PS_MAPPING_UC,
    .overhead_ns = cfg->cpu.transfer_overhead_ns,
  };
  sp->bar_read_latency_cycles = (uint32_t) cfg->endpoint.bar_read_latency_cycles;
  sp->transfer_bytes = (uint64_t) cfg->benchmark.transfer_bytes;
  sp->iterations = (uint32_t) cfg->benchmark.iterations;
  /* "software" descriptors mean a driver in the loop per transfer (published-calibration.md §2.2 b), so its
   * clock, not the engine's counter, times each transfer. */
  sp->software_timed = cfg->dma.descriptor_mode == PS_DESCRIPTORS_SOFTWARE;
  sp->watchdog_ps = units_ns_to_ps (cfg->benchmark.watchdog_ns);
}

Dist *
ps_build_dist (const PsDist *d, GError **error)
{
  switch ((PsDistKind) d->kind) {
  case PS_DIST_FIXED:
    return dist_new_fixed (d->value_ns, error);
  case PS_DIST_UNIFORM:
    return dist_new_uniform (d->min_ns, d->max_ns, error);
  case PS_DIST_LOGNORMAL:
    return dist_new_lognormal (d->median_ns, d->p99_ns, error);
  case PS_DIST_EMPIRICAL: {
    g_autofree DistPoint *pts = g_new (DistPoint, d->table.n ? d->table.n : 1);
    for (guint i = 0; i < d->table.n; i++)
      pts[i] = (DistPoint) { d->table.pairs[2 * i], d->table.pairs[2 * i + 1] };
    return dist_new_empirical (pts, d->table.n, error);
  }
  }
  g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "unknown distribution kind %d", d->kind);
  return NULL;
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
    .watchdog_ps = units_ns_to_ps (cfg->benchmark.watchdog_ns),
  };
  ps_build_link_params (cfg, &sp->link);
}
