/* system.c — wiring and the AN-456 benchmark driver (contract in system.h).
 *
 * The driver plays the benchmark's software: it programs the engines with PIO register writes, waits for their
 * MSIs (or polls EPLAST) and times each transfer as AN-456's application does, bytes over the engine's own
 * counter, averaged over iterations. A throughput printed from a broken run looks exactly like a result, so
 * nothing is returned before the run has been checked: a watchdog for runs that stop moving, byte counts and
 * address-pattern checksums for runs that move the wrong data, and every model's own end-of-run invariants. */
#include "models/system.h"

#include "models/pattern.h"
#include "models/units.h"

/* Host memory map. Any page-aligned values would do; these keep tables, buffers and BAR0 apart and put the data
 * buffers above 4 GB only when the parameters ask for 64-bit addressing. The address, not a flag, is what makes
 * a request 64-bit on real hardware (below 4 GB a requester must use the 3-DW format, spec §2.2.4), so the
 * buffers go above 4 GB exactly when dma.addr64 gives the engine's TLPs 4-DW headers. With 32-bit addressing
 * the tables end by 0x18000000 (8 tables x 16 MB), the buffers span 0x20000000..0xA0000000 and BAR0 (256 MB in
 * AN-456) starts at 0xD0000000: nothing overlaps and everything is below 4 GB. */
G_DEFINE_QUARK (pciesim-system-error-quark, system_error)

#define TABLE_BASE 0x10000000ull /* channel c's write engine's table at + 2c TABLE_STRIDE, its read engine's next */
#define TABLE_STRIDE 0x01000000ull /* 16 MB: room for 65,535 descriptors (1 MB) with plenty to spare */
#define BUF_BASE_32 0x20000000ull
#define BUF_BASE_64 0x100000000ull
#define BUF_STRIDE 0x40000000ull /* per direction: 1 GB, the largest transfer we accept (the 1 GB benchmark runs);
                                  * with dma.channels = N, channel c's buffer is at + c x BUF_STRIDE / N */
#define BAR0 0xD0000000ull

/* One benchmark run. `waiting` and `counting` are kept apart because they end at different times: an engine's
 * counter stops at its last data, but software hears of the end only after EPLAST and the MSI. The figures and
 * the link-usage window follow the counters; the iteration loop follows what software hears. */
struct System {
  const SystemParams *p;
  SystemMode mode;
  SimEngine *engine;
  TlpPool *pool;
  Link *link;
  Host *host;
  App *app;
  DmaChain *dma;

  gboolean uses[DMA_DIR_COUNT];
  uint32_t n_desc; /* descriptors per engine per transfer, the same for every engine */
  uint32_t channels; /* engine pairs (dma.channels, at least 1) */
  uint64_t buf[DMA_MAX_CHANNELS][DMA_DIR_COUNT];
  guint reported[DMA_DIR_COUNT]; /* channels of a direction that reported this iteration */
  guint write_counting; /* write counters running (read-request window: first start to last stop) */
  SimTime iteration_start_ps; /* software decided to start this iteration's transfers */

  uint32_t iteration;
  guint waiting; /* engines of this iteration not yet reported to software */
  guint counting; /* counters running in this iteration */
  gboolean finished;
  gboolean stalled; /* the watchdog stopped the run */
  SimTime watchdog_ps; /* effective bound, stretched by the host's longest quiet stretch */
  uint64_t last_progress;
  double mbps_sum[DMA_DIR_COUNT], counter_ns_sum[DMA_DIR_COUNT];
  /* Read-request cycles on the transmit interface during the current write counter window (see SystemResult). */
  SimTime write_rr_ps_at_start;
  SimTime write_rr_ps;
  double write_excl_mbps_sum;
  SimTime first_write_span_ps; /* the first transfer's write counter time: places the peak window */
  AppBusy peak_open; /* interface busy times at the peak window's start */
  /* Link usage summed over the counter windows (on_counter): fractions x window length, per LinkDir. */
  SimTime usage_start_ps;
  LinkUsage usage_sum[2];
  LinkCounters usage_counters[2];
  double usage_ps;
  uint32_t usage_windows;
  SystemResult *out;
};

const char *
system_mode_name (SystemMode mode)
{
  switch (mode) {
  case SYSTEM_READ: return "read";
  case SYSTEM_WRITE: return "write";
  case SYSTEM_SIMULTANEOUS: return "simultaneous";
  }
  return "?";
}

/* Each channel's share of a direction's buffer space, whole 4 KB pages, so every buffer starts page-aligned
 * (system.h) whatever the channel count dma_params_check() lets through, not only 1, 2 or 4. */
static uint64_t
channel_stride (uint32_t channels)
{
  return BUF_STRIDE / (channels ? channels : 1) & ~(uint64_t) 0xfff;
}

/* Besides each model's own ranges, the limits that come from this file's memory map and from the descriptor
 * header: a channel's buffer is BUF_STRIDE / channels, and DW0 counts descriptors in 16 bits (AN-456), so a
 * transfer needs at most 65,535 of them. An MWr longer than the link's negotiated MPS would be malformed, hence
 * the DMA's MPS may not exceed the link's. */
gboolean
system_params_check (const SystemParams *p, GError **error)
{
  if (!link_params_validate (&p->link, error) || !host_params_check (&p->host, p->link.max_payload_bytes, error)
      || !app_params_check (&p->app, error) || !dma_params_check (&p->dma, error))
    return FALSE;
  if (p->dma.tags > link_tags_max (&p->link)) {
    g_set_error (error, SYSTEM_ERROR, SYSTEM_ERROR_PARAM, "%u tags: the link carries at most %u outstanding requests",
      p->dma.tags, link_tags_max (&p->link));
    return FALSE;
  }
  if (p->dma.max_payload_bytes > p->link.max_payload_bytes) {
    g_set_error (error, SYSTEM_ERROR, SYSTEM_ERROR_PARAM, "DMA max payload %u exceeds the link's %u", p->dma.max_payload_bytes,
      p->link.max_payload_bytes);
    return FALSE;
  }
  uint64_t max_bytes = channel_stride (p->dma.channels);
  if (p->transfer_bytes == 0 || p->transfer_bytes % 4 != 0 || p->transfer_bytes > max_bytes) {
    g_set_error (error, SYSTEM_ERROR, SYSTEM_ERROR_PARAM, "transfer of %" G_GUINT64_FORMAT " bytes: must be whole DWs, 4..%"
      G_GUINT64_FORMAT " (per channel)", p->transfer_bytes, max_bytes);
    return FALSE;
  }
  if (p->iterations == 0) {
    g_set_error (error, SYSTEM_ERROR, SYSTEM_ERROR_PARAM, "iterations must be at least 1");
    return FALSE;
  }
  uint64_t per = p->dma.desc_max_bytes ? p->dma.desc_max_bytes : p->transfer_bytes;
  uint64_t n = (p->transfer_bytes + per - 1) / per;
  if (n > 0xffff || n * DMA_DESC_BYTES + DMA_DESC_BYTES > TABLE_STRIDE) {
    g_set_error (error, SYSTEM_ERROR, SYSTEM_ERROR_PARAM, "%" G_GUINT64_FORMAT " descriptors per transfer: at most 65535", n);
    return FALSE;
  }
  return TRUE;
}

/* A channel's two tables are adjacent, the write engine's first (DmaDir order), so one division of an EPLAST
 * address recovers both channel and direction (on_status). */
static uint64_t
table_addr_ch (uint32_t ch, DmaDir dir)
{
  return TABLE_BASE + ((uint64_t) ch * DMA_DIR_COUNT + dir) * TABLE_STRIDE;
}


/* Host memory model: descriptor i of an engine covers bytes [i * per, ...) of its transfer; the last one takes
 * what is left. Contents are worked out from the layout when a fetch completes, never stored, so a 1 GB
 * transfer needs no more memory than a 100 KB one (docs/performance.md). Endpoint addresses start at 0 for
 * every engine: they never reach the link, and the integrity checksums are keyed on host addresses. */
static gboolean
mem_read (void *ctx, uint64_t address, DmaDescriptor *out)
{
  System *s = ctx;
  uint64_t per = s->p->dma.desc_max_bytes ? s->p->dma.desc_max_bytes : s->p->transfer_bytes;
  for (uint32_t k = 0; k < s->channels * DMA_DIR_COUNT; k++) {
    uint32_t ch = k / DMA_DIR_COUNT, dir = k % DMA_DIR_COUNT;
    uint64_t first = table_addr_ch (ch, dir) + DMA_DESC_BYTES;
    if (address < first || (address - first) % DMA_DESC_BYTES != 0 || (address - first) / DMA_DESC_BYTES >= s->n_desc)
      continue;
    uint64_t i = (address - first) / DMA_DESC_BYTES;
    uint64_t off = i * per;
    *out = (DmaDescriptor) { .length_bytes = (uint32_t) MIN (per, s->p->transfer_bytes - off),
                             .ep_address = off, .host_address = s->buf[ch][dir] + off };
    return TRUE;
  }
  return FALSE;
}

/* Software programs every engine of the mode: DW0..DW3 of its descriptor header, one uncached store each.
 * One software latency covers the whole batch and the stores then follow sw_pio_gap_ns apart, as a driver
 * writes the headers in one go. DW3 (RCLAST, the last descriptor's index) goes last because writing it starts
 * the engine; DW0 carries the count and the MSI enable (bit 16). iteration_start_ps is taken before the PIO
 * latency: it is where a software-timed measurement starts its clock. */
static void
start_iteration (SimEngine *e, void *ctx, uint64_t arg)
{
  System *s = ctx;
  const HostParams *hp = &s->p->host;
  SimTime t = units_ns_to_ps (hp->sw_pio_latency_ns), gap = units_ns_to_ps (hp->sw_pio_gap_ns);
  s->waiting = 0;
  s->counting = 0;
  s->write_counting = 0;
  s->reported[DMA_WRITE] = s->reported[DMA_READ] = 0;
  s->iteration_start_ps = sim_now (e);
  /* Channel by channel, write engine first within a channel (AN-456's order on channel 0). */
  for (uint32_t k = 0; k < s->channels * DMA_DIR_COUNT; k++) {
    uint32_t ch = k / DMA_DIR_COUNT, dir = k % DMA_DIR_COUNT;
    if (!s->uses[dir])
      continue;
    uint64_t regs = BAR0 + (uint64_t) DMA_CHANNEL_REG_STRIDE * ch + 0x10 * (uint64_t) dir;
    uint64_t table = table_addr_ch (ch, dir);
    uint32_t v[4] = { s->n_desc | (s->p->dma.msi ? 1u << 16 : 0), (uint32_t) (table >> 32), (uint32_t) table,
                      s->n_desc - 1 };
    for (int dw = 0; dw < 4; dw++) {
      host_pio_write (s->host, t, regs + 4 * (uint64_t) dw, FALSE, v[dw]);
      t += gap;
    }
    s->waiting++;
  }
}

/* A direction's figure for one iteration, once all its channels have reported: every channel's bytes over the
 * span from the first counter start to the last counter stop (one channel: AN-456's bytes / counter time). */
static void
direction_done (System *s, DmaDir dir)
{
  SimTime start = G_MAXUINT64, stop = 0;
  for (uint32_t ch = 0; ch < s->channels; ch++) {
    DmaEngineStatus st = dma_chain_channel_status (s->dma, ch, dir);
    g_assert (st.counter_stop_ps > st.counter_start_ps);
    start = MIN (start, st.counter_start_ps);
    stop = MAX (stop, st.counter_stop_ps);
  }
  if (s->p->software_timed) {
    /* The driver's clock: from its decision to start to its handler, now, seeing this direction's last end. */
    start = s->iteration_start_ps;
    stop = sim_now (s->engine);
  }
  /* Each iteration's rate is summed and system_run divides by the count: the mean of per-transfer rates, as
   * AN-456's application averages, not total bytes over total time. */
  SimTime dt = stop - start;
  double bytes = (double) s->p->transfer_bytes * s->channels;
  /* bytes / ps * 1e12 = B/s; / 1e6 = MB/s. */
  s->mbps_sum[dir] += bytes * 1e6 / (double) dt;
  /* A guard: read requests cannot normally fill the write window, but their beats are counted whole at each
   * grant rather than clipped to the window, so the clamp keeps the denominator at least 1 ps. */
  if (dir == DMA_WRITE)
    s->write_excl_mbps_sum += bytes * 1e6 / (double) (dt - MIN (s->write_rr_ps, dt - 1));
  if (dir == DMA_WRITE && s->iteration == 0)
    s->first_write_span_ps = dt;
  s->counter_ns_sum[dir] += (double) dt / 1000.0;
}

/* The next iteration is programmed iteration_gap_ns after software has heard from every engine, not when the
 * counters stop: a driver cannot start the next transfer before it learns that the last one ended. The last
 * report stops the run; system_run then lets the link settle before checking it. */
static void
engine_reported (System *s, uint32_t ch, DmaDir dir)
{
  g_assert (s->uses[dir] && s->waiting > 0 && ch < s->channels);
  if (++s->reported[dir] == s->channels)
    direction_done (s, dir);
  if (--s->waiting > 0)
    return;
  if (++s->iteration < s->p->iterations) {
    sim_schedule_in (s->engine, units_ns_to_ps (s->p->host.iteration_gap_ns), start_iteration, s, 0);
    return;
  }
  s->finished = TRUE;
  s->out->sim_time_ps = sim_now (s->engine);
  sim_stop (s->engine);
}

/* MSI data: 2 x channel + direction (dma_chain.h). */
static void
on_msi (void *ctx, uint64_t address, uint32_t value)
{
  engine_reported (ctx, value / DMA_DIR_COUNT, value % DMA_DIR_COUNT == DMA_READ ? DMA_READ : DMA_WRITE);
}

/* The EPLAST word of channel c's table: table + 12. */
static void
on_status (void *ctx, uint64_t address, uint32_t value)
{
  uint64_t k = (address - 12 - TABLE_BASE) / TABLE_STRIDE;
  engine_reported (ctx, (uint32_t) (k / DMA_DIR_COUNT), k % DMA_DIR_COUNT == DMA_READ ? DMA_READ : DMA_WRITE);
}

/* Transmit-interface time read requests took so far, in ps: MRd beats (segments with straddle) plus every engine
 * turnaround (turnarounds happen because requests slip in between writes; the few around EPLAST and MSI writes
 * are counted too). */
static SimTime
read_request_ps (const System *s)
{
  return app_tx_kind_beats (s->app, TLP_MRD) * app_unit_ps (s->app)
         + app_tx_switch_cycles (s->app) * app_cycle_ps (s->app);
}

static void
peak_close (SimEngine *e, void *ctx, uint64_t arg)
{
  System *s = ctx;
  AppBusy b = app_busy_at (s->app, sim_now (e));
  double w = (double) SYSTEM_PEAK_WINDOW_CYCLES * (double) app_cycle_ps (s->app);
  double data = (double) (b.tx_data_ps - s->peak_open.tx_data_ps);
  double req = (double) (b.tx_read_request_ps - s->peak_open.tx_read_request_ps);
  /* MB/s of the interface: bytes per cycle x cycles per microsecond. */
  double full = s->p->app.width_bits / 8.0 * s->p->app.clock_mhz;
  s->out->peak_write_mbps = data / w * full;
  s->out->peak_write_mbps_excluding_read_requests = req < w ? data / (w - req) * full : 0;
  s->out->peak_read_mbps = (double) (b.rx_data_ps - s->peak_open.rx_data_ps) / w * full;
  s->out->peak_valid = TRUE;
}

static void
peak_open (SimEngine *e, void *ctx, uint64_t arg)
{
  System *s = ctx;
  s->peak_open = app_busy_at (s->app, sim_now (e));
  sim_schedule_in (e, (SimTime) SYSTEM_PEAK_WINDOW_CYCLES * app_cycle_ps (s->app), peak_close, s, 0);
}

/* Every iteration: the read-request cycles inside the write counter's window, and link usage over the counter
 * window, so usage covers the same transfers the MB/s figures average (no inter-iteration idle). Both windows
 * run from the first counter to start to the last to stop, counted across channels (and, for link usage,
 * across both directions), so in simultaneous mode the link-usage window covers both engines' counters. Each
 * iteration's usage is weighted by its window's length: the result is the share of all the windows' time. */
static void
on_counter (void *ctx, DmaDir dir, gboolean stopped)
{
  System *s = ctx;
  if (dir == DMA_WRITE) {
    if (!stopped && s->write_counting++ == 0) {
      s->write_rr_ps_at_start = read_request_ps (s);
      /* The peak window (SystemResult): in the second transfer, at half the first one's write time, on a clock
       * edge so the interface's busy times are exact at both ends. */
      if (s->mode == SYSTEM_SIMULTANEOUS && s->iteration == 1) {
        SimTime cyc = app_cycle_ps (s->app), at = sim_now (s->engine) + s->first_write_span_ps / 2;
        sim_schedule_at (s->engine, (at + cyc - 1) / cyc * cyc, peak_open, s, 0);
      }
    }
    else if (stopped && --s->write_counting == 0)
      s->write_rr_ps = read_request_ps (s) - s->write_rr_ps_at_start;
  }
  if (!stopped) {
    if (s->counting++ == 0) {
      link_stats_reset (s->link);
      s->usage_start_ps = sim_now (s->engine);
    }
    return;
  }
  if (--s->counting > 0)
    return;
  /* The window's length is the counters' span: a write counter stops at the end of its last MWr on the wire,
   * which the link has already committed (its usage reaches that far upstream). */
  SimTime stop = sim_now (s->engine);
  for (uint32_t ch = 0; ch < s->channels; ch++)
    for (int k = 0; k < DMA_DIR_COUNT; k++)
      if (s->uses[k])
        stop = MAX (stop, dma_chain_channel_status (s->dma, ch, (DmaDir) k).counter_stop_ps);
  double w = (double) (stop - s->usage_start_ps);
  s->usage_ps += w;
  s->usage_windows++;
  for (int d = 0; d < 2; d++) {
    LinkUsage u = link_usage (s->link, (LinkDir) d);
    LinkUsage *sum = &s->usage_sum[d];
    sum->payload += u.payload * w;
    sum->tlp_overhead += u.tlp_overhead * w;
    sum->dllp += u.dllp * w;
    sum->ordered_sets += u.ordered_sets * w;
    sum->idle += u.idle * w;
    LinkCounters c = link_counters (s->link, (LinkDir) d), *cs = &s->usage_counters[d];
    cs->tlps += c.tlps;
    cs->dllps += c.dllps;
    cs->acks += c.acks;
    cs->updatefcs += c.updatefcs;
    cs->skps += c.skps;
    cs->payload_bytes += c.payload_bytes;
  }
}

/* Deliveries anywhere in the system: the watchdog's sign of life. pio_writes counts when software queues the
 * stores, so the start of an iteration is itself a sign of life: a watchdog tick that fell in a long iteration
 * gap can never make the first tick after the start look stalled. */
static uint64_t
progress (const System *s)
{
  HostCounters hc = host_counters (s->host);
  DmaCounters dc = dma_chain_counters (s->dma);
  return hc.reads + hc.writes + hc.msis + hc.pio_writes + dc.cpls + dc.unexpected_cpls + dc.mrds + dc.mwrs;
}

/* Longest stretch in which a healthy run may deliver nothing: every wait the host parameters can impose on one
 * request, added up (a generous upper bound; the link's own delays are microseconds). Eight store gaps cover
 * one channel's two headers, and the first engine starts after four. iteration_gap_ns needs no place here:
 * between iterations no engine is owed, so the watchdog does not judge that stretch. */
static SimTime
quiet_ps (const SystemParams *p)
{
  const HostParams *h = &p->host;
  double mps = p->link.max_payload_bytes, ns = h->read_latency_ns + h->read_latency_per_byte_ps
    * p->dma.max_read_request_bytes / 1000.0 + h->cpl_overhead_ns + h->write_latency_ns + h->msi_latency_ns
    + h->poll_interval_ns + h->sw_pio_latency_ns + 8 * h->sw_pio_gap_ns;
  if (h->cpl_rate_mbps > 0)
    ns += mps * 1000.0 / h->cpl_rate_mbps;
  if (h->write_drain_mbps > 0)
    ns += mps * 1000.0 / h->write_drain_mbps;
  return units_ns_to_ps (ns);
}

/* Polled rather than re-armed on every delivery: re-arming would put a cancel and a schedule on the per-TLP hot
 * path, while a tick costs one event per period. The price is resolution: a stall is reported between one and
 * two bounds after the last delivery. Quiet with no engine owed (between iterations, after the last report) is
 * legal and only updates the mark. */
static void
watchdog (SimEngine *e, void *ctx, uint64_t arg)
{
  System *s = ctx;
  uint64_t now = progress (s);
  if (s->waiting > 0 && now == s->last_progress) {
    s->stalled = TRUE;
    sim_stop (e);
    return;
  }
  s->last_progress = now;
  sim_schedule_in (e, s->watchdog_ps, watchdog, s, 0);
}

/* The message is the debugging aid: each component names what it holds or waits for (credits of which type,
 * tags, replay space), so a model bug shows as its mechanism rather than as a hang or a low figure. */
static void
deadlock_error (const System *s, const char *how, GError **error)
{
  g_autoptr (GString) why = g_string_new (NULL);
  dma_chain_describe_wait (s->dma, why);
  host_describe_wait (s->host, why);
  link_describe_wait (s->link, why);
  g_set_error (error, SYSTEM_ERROR, SYSTEM_ERROR_DEADLOCK, "deadlock in the %s run, iteration %u of %u, t = %.3f us: %s; waiting: %s",
    system_mode_name (s->mode), s->iteration + 1, s->p->iterations, (double) sim_now (s->engine) / 1e6, how,
    why->len ? why->str : "nothing (software never heard of the end)");
}

/* What the host and the endpoint must have folded into their checksums (pattern.h), from the memory layout
 * alone, per iteration: the read engine's whole buffer as data completions; every used engine's descriptor
 * table (after its 16-byte header) as completions too; the write engine's whole buffer and each engine's
 * 4-byte EPLAST as host memory writes. Byte counts alone would pass a completion sent to the wrong address, or
 * one duplicated while another was dropped; the address pattern catches both. What the host sent and what the
 * endpoint took in are summed apart, so a mismatch says at which end the data went wrong. */
static gboolean
check_integrity (const System *s, const HostCounters *hc, const DmaCounters *dc, GError **error)
{
  uint64_t n = s->p->iterations, want_data = 0, want_cpl = 0, want_mem = 0;
  for (uint32_t k = 0; k < s->channels * DMA_DIR_COUNT; k++) {
    uint32_t ch = k / DMA_DIR_COUNT, dir = k % DMA_DIR_COUNT;
    if (!s->uses[dir])
      continue;
    uint64_t buf = n * pattern_sum (s->buf[ch][dir], s->p->transfer_bytes);
    want_cpl += n * pattern_sum (table_addr_ch (ch, dir) + DMA_DESC_BYTES, (uint64_t) s->n_desc * DMA_DESC_BYTES);
    want_mem += n * pattern_sum (table_addr_ch (ch, dir) + 12, 4);
    if (dir == DMA_READ)
      want_data += buf;
    else
      want_mem += buf;
  }
  want_cpl += want_data;
  if (dc->read_checksum != want_data || hc->cpl_checksum != want_cpl || hc->write_checksum != want_mem) {
    g_set_error (error, SYSTEM_ERROR, SYSTEM_ERROR_INVARIANT, "data integrity: checksum mismatch (read data received %016"
      G_GINT64_MODIFIER "x, expected %016" G_GINT64_MODIFIER "x; completions sent %016" G_GINT64_MODIFIER
      "x, expected %016" G_GINT64_MODIFIER "x; host memory %016" G_GINT64_MODIFIER "x, expected %016"
      G_GINT64_MODIFIER "x): data was dropped, duplicated or misplaced", dc->read_checksum, want_data,
      hc->cpl_checksum, want_cpl, hc->write_checksum, want_mem);
    return FALSE;
  }
  return TRUE;
}

/* The components' own checks come first, because their messages name the broken mechanism; the system-wide
 * byte totals and checksums then catch what no single component can see, such as data that left one end and
 * arrived at the other in a different amount or place. */
gboolean
system_check_invariants (const System *s, GError **error)
{
  if (!link_check_invariants (s->link, error) || !host_check_invariants (s->host, error)
      || !dma_chain_check_invariants (s->dma, error))
    return FALSE;
  /* sim_schedule_at() already aborts on a past time; this is the end-of-run statement of the same invariant
   * (README, "Invariants"), independent of how the engine is built. */
  if (sim_next_time (s->engine) < sim_now (s->engine)) {
    g_set_error (error, SYSTEM_ERROR, SYSTEM_ERROR_INVARIANT, "an event is scheduled at %" G_GUINT64_FORMAT " ps, before now (%"
      G_GUINT64_FORMAT " ps)", sim_next_time (s->engine), sim_now (s->engine));
    return FALSE;
  }
  HostCounters hc = host_counters (s->host);
  DmaCounters dc = dma_chain_counters (s->dma);
  uint64_t runs = 0, want_read = 0, want_write = 0, per_engine = s->p->transfer_bytes * s->p->iterations;
  if (s->uses[DMA_READ]) {
    want_read = per_engine * s->channels;
    runs += (uint64_t) s->p->iterations * s->channels;
  }
  if (s->uses[DMA_WRITE]) {
    want_write = per_engine * s->channels;
    runs += (uint64_t) s->p->iterations * s->channels;
  }
  /* Host memory receives the write data plus one 4-byte EPLAST per engine run (and a 4-byte MSI when on). */
  uint64_t status_bytes = runs * 4 * (s->p->dma.msi ? 2 : 1);
  if (dc.ep_bytes_written != want_read || dc.write_bytes_sent != want_write
      || hc.bytes_written != want_write + status_bytes) {
    g_set_error (error, SYSTEM_ERROR, SYSTEM_ERROR_INVARIANT, "bytes moved do not add up: endpoint memory got %" G_GUINT64_FORMAT
      " of %" G_GUINT64_FORMAT ", write engine sent %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
      ", host memory got %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT, dc.ep_bytes_written, want_read,
      dc.write_bytes_sent, want_write, hc.bytes_written, want_write + status_bytes);
    return FALSE;
  }
  if (!check_integrity (s, &hc, &dc, error))
    return FALSE;
  if (tlp_pool_live (s->pool) != 0) {
    g_set_error (error, SYSTEM_ERROR, SYSTEM_ERROR_INVARIANT, "%zu TLPs not returned to the pool", tlp_pool_live (s->pool));
    return FALSE;
  }
  return TRUE;
}

gboolean
system_run (const SystemParams *p, SystemMode mode, uint64_t seed, SystemResult *out, GError **error)
{
  if (!system_params_check (p, error))
    return FALSE;
  /* Everything is built afresh for this run and freed at its end: a mode never inherits credits, queues or
   * timers from another, so its figure is the same whether it ran alone or after the others. */
  *out = (SystemResult) { 0 };
  System s = { .p = p, .mode = mode, .out = out };
  s.uses[DMA_READ] = mode != SYSTEM_WRITE;
  s.uses[DMA_WRITE] = mode != SYSTEM_READ;
  uint64_t per = p->dma.desc_max_bytes ? p->dma.desc_max_bytes : p->transfer_bytes;
  s.n_desc = (uint32_t) ((p->transfer_bytes + per - 1) / per);
  s.channels = p->dma.channels ? p->dma.channels : 1;
  for (uint32_t ch = 0; ch < s.channels; ch++)
    for (int dir = 0; dir < DMA_DIR_COUNT; dir++)
      s.buf[ch][dir] = (p->dma.addr64 ? BUF_BASE_64 : BUF_BASE_32) + (uint64_t) dir * BUF_STRIDE
                       + (uint64_t) ch * channel_stride (s.channels);

  s.engine = sim_engine_new (seed);
  s.pool = tlp_pool_new ();
  s.link = link_new (s.engine, &p->link, s.pool);
  s.host = host_new (s.engine, &p->host, p->link.max_payload_bytes, link_port (s.link, LINK_DSP), s.pool);
  s.app = app_new (s.engine, &p->app, link_port (s.link, LINK_USP), s.pool);
  s.dma = dma_chain_new (s.engine, &p->dma, s.app, s.pool, BAR0, mem_read, &s);
  dma_chain_set_counter_notify (s.dma, on_counter, &s);
  if (p->dma.msi)
    host_set_msi (s.host, on_msi, &s);
  else
    for (uint32_t k = 0; k < s.channels * DMA_DIR_COUNT; k++)
      host_watch_status (s.host, table_addr_ch (k / DMA_DIR_COUNT, k % DMA_DIR_COUNT) + 12, on_status, &s);

  if (p->host_fault != HOST_FAULT_NONE)
    host_inject_fault (s.host, p->host_fault, p->host_fault_at);
  if (p->link_fault != LINK_FAULT_NONE)
    link_inject_fault (s.link, p->link_fault, p->link_fault_dir, p->link_fault_at);

  /* The bound is the configured quiet time plus the host's longest legal one, so a slow host never reads as a
   * deadlock however the watchdog is set. */
  sim_schedule_at (s.engine, 0, start_iteration, &s, 0);
  s.watchdog_ps = (p->watchdog_ps ? p->watchdog_ps : SYSTEM_WATCHDOG_DEFAULT_PS) + quiet_ps (p);
  sim_schedule_in (s.engine, s.watchdog_ps, watchdog, &s, 0);
  /* Backstop for a run that keeps delivering but never ends (a livelock the watchdog cannot see): far beyond
   * any legal run, as 1 MB/s would be a broken model. */
  SimTime budget = SIM_MS * 1000 + (SimTime) p->iterations * p->transfer_bytes * SIM_US;
  sim_run_until (s.engine, budget);
  gboolean ok = TRUE;
  if (!s.finished) {
    g_autofree char *how = s.stalled
      ? g_strdup_printf ("nothing delivered for %.3f us", (double) s.watchdog_ps / 1e6)
      : g_strdup (sim_pending (s.engine) ? "not finished within the time budget" : "no event left to run");
    deadlock_error (&s, how, error);
    ok = FALSE;
  } else {
    /* Let the last Acks and UpdateFCs settle so the link's end-of-run checks see a quiet link: many Ack and
     * UpdateFC periods (each <= 30 us). */
    sim_run_until (s.engine, sim_now (s.engine) + 200 * SIM_US);
    ok = system_check_invariants (&s, error);
  }
  /* Figures and counters only from a run that passed every check; events and pool size are kept either way. */
  if (ok) {
    for (int dir = 0; dir < DMA_DIR_COUNT; dir++) {
      if (!s.uses[dir])
        continue;
      double mbps = s.mbps_sum[dir] / p->iterations, ns = s.counter_ns_sum[dir] / p->iterations;
      if (dir == DMA_READ) {
        out->read_mbps = mbps;
        out->read_counter_ns = ns;
      } else {
        out->write_mbps = mbps;
        out->write_counter_ns = ns;
        out->write_mbps_excluding_read_requests = s.write_excl_mbps_sum / p->iterations;
      }
    }
    out->host = host_counters (s.host);
    out->dma = dma_chain_counters (s.dma);
    LinkUsage u[2];
    for (int d = 0; d < 2; d++) {
      const LinkUsage *sum = &s.usage_sum[d];
      double w = s.usage_ps > 0 ? s.usage_ps : 1;
      u[d] = (LinkUsage) { sum->payload / w, sum->tlp_overhead / w, sum->dllp / w, sum->ordered_sets / w,
                           sum->idle / w };
      /* Idle absorbs the rounding of the weighted sums, so the five still sum to 1. */
      u[d].idle = 1.0 - (u[d].payload + u[d].tlp_overhead + u[d].dllp + u[d].ordered_sets);
    }
    out->downstream = u[LINK_DOWNSTREAM];
    out->upstream = u[LINK_UPSTREAM];
    out->downstream_counters = s.usage_counters[LINK_DOWNSTREAM];
    out->upstream_counters = s.usage_counters[LINK_UPSTREAM];
    out->usage_window_ns = s.usage_windows ? s.usage_ps / s.usage_windows / 1000.0 : 0;
    out->usage_windows = s.usage_windows;
  }
  out->events = sim_events_executed (s.engine);
  for (int dir = 0; dir < 2; dir++)
    out->errors[dir] = link_errors (s.link, (LinkDir) dir);
  out->tlp_pool_capacity = tlp_pool_capacity (s.pool);
  dma_chain_free (s.dma);
  app_free (s.app);
  host_free (s.host);
  link_free (s.link);
  tlp_pool_free (s.pool);
  sim_engine_free (s.engine);
  return ok;
}
