/* system.c — the AN-456 benchmark driver on a fabric, and the one-link system (contract in system.h).
 *
 * The driver plays the benchmark's software: it programs the engines with PIO register writes, waits for their
 * MSIs (or polls EPLAST) and times each transfer as AN-456's application does, bytes over the engine's own
 * counter, averaged over iterations. A throughput printed from a broken run looks exactly like a result, so
 * nothing is returned before the run has been checked: a watchdog for runs that stop moving, byte counts and
 * address-pattern checksums for runs that move the wrong data, and every model's own end-of-run invariants.
 *
 * Several workloads (one per endpoint) run in one iteration structure: software programs them all, then waits for
 * every engine. Each keeps its own figures, counter windows and link-usage sums (Work); the iteration, the
 * watchdog and the memory map are the System's. With one workload every event is scheduled in the order the
 * one-link driver always scheduled it, so its results are those of the one-link model before the fabric.
 *
 * The software is a program of the CPU (cpu.h): DMA_START's hook is the old register programming, the interrupt
 * and poll handlers signal the thread that waits, and the CPU's LOOP schedules the next iteration where the driver
 * used to. A CPU without costs or random times therefore runs every event as the driver before it did, which is
 * what keeps the AN-456 results byte for byte. The PIO benchmark (pio.c) is another program on the same CPU, with
 * its own accounting. Both are workloads of the run harness (run.h), which owns the watchdog, the settle and the
 * end-of-run checks.
 *
 * One file on purpose: the AN-456 driver is one benchmark's software (its CPU program, the descriptor memory it
 * lays out, its run-harness hooks and checks); PIO is pio.c's, the harness run.c's, what both drivers share
 * driver.c's.
 */
#include "models/workloads/system.h"

#include "models/base/pattern.h"
#include "models/workloads/pio.h"
#include "models/fabric/run.h"
#include "models/base/units.h"

/* Host memory map. Any page-aligned values would do; these keep tables and buffers apart, below the fabric's
 * MMIO windows (fabric.h), and put the data buffers above 4 GB only when the parameters ask for 64-bit
 * addressing. The address, not a flag, is what makes a request 64-bit on real hardware (below 4 GB a requester
 * must use the 3-DW format, spec §2.2.4), so the buffers go above 4 GB exactly when dma.addr64 gives the engine's
 * TLPs 4-DW headers. With 32-bit addressing the tables end by 0x20000000, the buffers span 0x20000000..0xA0000000
 * and BARs start at 0xC0000000: nothing overlaps and everything is below 4 GB. Engine g (all workloads' engines
 * numbered in order, two per channel, write first) has its table at TABLE_BASE + g x the table stride: 16 MB,
 * less when more than 16 engines share the 256 MB. */
#define TABLE_BASE 0x10000000ull
#define TABLE_SPACE 0x10000000ull /* every table lies in TABLE_BASE .. + TABLE_SPACE */
#define TABLE_STRIDE 0x01000000ull /* 16 MB: room for 65,535 descriptors (1 MB) with plenty to spare */
#define BUF_BASE_32 0x20000000ull
#define BUF_BASE_64 0x100000000ull
#define BUF_STRIDE 0x40000000ull /* per direction: 1 GB, the largest transfer we accept (the 1 GB benchmark runs);
                                  * shared out among every channel whose buffers are in host memory */

typedef struct System System;

/* One workload's state. `counting` and the usage sums cover its counter windows on its own link. */
typedef struct {
  System *s;
  const SystemWorkload *w;
  DmaChain *dma;
  App *app;
  Link *link;
  const DmaParams *dp;
  const AppParams *ap;
  gboolean uses[DMA_DIR_COUNT];
  uint32_t n_desc; /* descriptors per engine per transfer, the same for every engine */
  uint32_t channels; /* engine pairs (dma.channels, at least 1) */
  uint32_t engine0; /* the global number of its channel 0 write engine: table and MSI data follow from it */
  uint64_t bar0; /* its registers */
  uint64_t buf[DMA_MAX_CHANNELS][DMA_DIR_COUNT];
  guint reported[DMA_DIR_COUNT]; /* channels of a direction that reported this iteration */
  guint write_counting; /* write counters running (read-request window: first start to last stop) */
  guint counting; /* counters running in this iteration */
  double mbps_sum[DMA_DIR_COUNT], counter_ns_sum[DMA_DIR_COUNT];
  /* Read-request cycles on the transmit interface during the current write counter window (see SystemResult). */
  SimTime write_rr_ps_at_start;
  SimTime write_rr_ps;
  double write_excl_mbps_sum;
  SimTime first_write_span_ps; /* the first transfer's write counter time: places the peak window */
  SimTime *samples[DMA_DIR_COUNT]; /* software_timed: each iteration's time per direction */
  uint32_t n_samples[DMA_DIR_COUNT];
  AppBusy peak_open; /* interface busy times at the peak window's start */
  /* Link usage summed over the counter windows (on_counter). */
  SimTime usage_start_ps;
  RunUsage usage;
  Why *why; /* stalls, verdicts, latencies over the same windows (why.h) */
  SystemResult *out;
} Work;

/* One benchmark run. `waiting` and the workloads' `counting` are kept apart because they end at different times:
 * an engine's counter stops at its last data, but software hears of the end only after EPLAST and the MSI. The
 * figures and the link-usage windows follow the counters; the iteration loop follows what software hears. */
struct System {
  Fabric *f;
  Host *host;
  SimEngine *engine;
  RunCtx *run;
  const SystemDriver *d;
  SystemMode mode; /* the first workload's: names the run in messages */
  Work *work;
  guint n_work;
  uint32_t n_engines;
  uint64_t table_stride;
  SimTime iteration_start_ps; /* software decided to start this iteration's transfers */
  uint32_t iteration;
  guint waiting; /* engines of this iteration not yet reported to software */
  Cpu *cpu;
  guint n_threads; /* 1, or one per channel (system.h) */
};

/* A share of a buffer space, whole 4 KB pages, so every buffer starts page-aligned (system.h) whatever the number
 * of sharers, not only 1, 2 or 4. */
static uint64_t
share (uint64_t space, uint32_t sharers)
{
  return space / (sharers ? sharers : 1) & ~(uint64_t) 0xfff;
}

/* The limits of one workload beyond each model's own ranges: its buffer is `max_bytes` (its share of a buffer
 * space), DW0 counts descriptors in 16 bits (AN-456), so a transfer needs at most 65,535 of them, and they must
 * fit the table stride; an MWr longer than the link's negotiated MPS would be malformed, hence the DMA's MPS may
 * not exceed the link's, and the DMA may not use more tags than the link carries. */
static gboolean
work_check (const DmaParams *dma, const LinkParams *link, uint64_t transfer_bytes, uint64_t max_bytes,
  uint64_t table_stride, GError **error)
{
  if (dma->tags > link_tags_max (link)) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "%u tags: the link carries at most %u outstanding requests",
      dma->tags, link_tags_max (link));
    return FALSE;
  }
  if (dma->max_payload_bytes > link->max_payload_bytes) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM,
      "DMA max payload %u exceeds the link's %u", dma->max_payload_bytes,
      link->max_payload_bytes);
    return FALSE;
  }
  if (transfer_bytes == 0 || transfer_bytes % 4 != 0 || transfer_bytes > max_bytes) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM,
      "transfer of %" G_GUINT64_FORMAT " bytes: must be whole DWs, 4..%"
      G_GUINT64_FORMAT " (per channel)", transfer_bytes, max_bytes);
    return FALSE;
  }
  uint64_t per = dma->desc_max_bytes ? dma->desc_max_bytes : transfer_bytes;
  uint64_t n = (transfer_bytes + per - 1) / per;
  if (n > 0xffff || n * DMA_DESC_BYTES + DMA_DESC_BYTES > table_stride) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "%" G_GUINT64_FORMAT " descriptors per transfer: at most %"
      G_GUINT64_FORMAT, n, MIN ((uint64_t) 0xffff, table_stride / DMA_DESC_BYTES - 1));
    return FALSE;
  }
  return TRUE;
}

/* The DMA's limits in this memory map (work_check) with the transfer's buffer one channel's share of a direction's
 * space. */
gboolean
system_transfer_check (const DmaParams *dma, const LinkParams *link, uint64_t transfer_bytes, GError **error)
{
  return work_check (dma, link, transfer_bytes, share (BUF_STRIDE, dma->channels), TABLE_STRIDE, error);
}

/* A channel's two tables are adjacent, the write engine's first (DmaDir order), so one division of an EPLAST
 * address recovers the engine (on_status). */
static uint64_t
table_addr (const System *s, uint32_t g)
{
  return TABLE_BASE + (uint64_t) g * s->table_stride;
}

/* Engine g's workload, channel and direction. */
static Work *
engine_work (const System *s, uint32_t g, uint32_t *ch, DmaDir *dir)
{
  for (guint k = 0; k < s->n_work; k++) {
    Work *w = &s->work[k];
    if (g >= w->engine0 && g < w->engine0 + w->channels * DMA_DIR_COUNT) {
      *ch = (g - w->engine0) / DMA_DIR_COUNT;
      *dir = (g - w->engine0) % DMA_DIR_COUNT == DMA_READ ? DMA_READ : DMA_WRITE;
      return w;
    }
  }
  return NULL;
}

/* Host memory model: descriptor i of an engine covers bytes [i * per, ...) of its transfer; the last one takes
 * what is left. Contents are worked out from the layout when a fetch completes, never stored, so a 1 GB
 * transfer needs no more memory than a 100 KB one (docs/performance.md). Endpoint addresses start at 0 for
 * every engine: they never reach the link, and the integrity checksums are keyed on bus addresses. */
static gboolean
mem_read (void *ctx, uint64_t address, DmaDescriptor *out)
{
  System *s = ctx;
  if (address < TABLE_BASE + DMA_DESC_BYTES)
    return FALSE;
  uint32_t g = (uint32_t) ((address - TABLE_BASE) / s->table_stride), ch;
  DmaDir dir;
  Work *w = engine_work (s, g, &ch, &dir);
  uint64_t first = table_addr (s, g) + DMA_DESC_BYTES;
  if (w == NULL || address < first || (address - first) % DMA_DESC_BYTES != 0
      || (address - first) / DMA_DESC_BYTES >= w->n_desc)
    return FALSE;
  uint64_t per = w->dp->desc_max_bytes ? w->dp->desc_max_bytes : w->w->transfer_bytes;
  uint64_t off = (address - first) / DMA_DESC_BYTES * per;
  *out = (DmaDescriptor) { .length_bytes = (uint32_t) MIN (per, w->w->transfer_bytes - off), .ep_address = off,
                           .host_address = w->buf[ch][dir] + off };
  return TRUE;
}

/* The thread that programs and waits for a channel: thread c for channel c, or the one thread. */
static guint
channel_thread (const System *s, uint32_t ch)
{
  return s->n_threads > 1 ? ch : 0;
}

/* DMA_START's hook: software programs every engine of the thread's channels: DW0..DW3 of its descriptor header, one
 * uncached store each. One software latency covers the whole batch (after the driver's work, `delay`) and the
 * stores then follow sw_pio_gap_ns apart, as a driver writes the headers in one go. DW3 (RCLAST, the last
 * descriptor's index) goes last because writing it starts the engine; DW0 carries the count and the MSI enable
 * (bit 16). The first start of an iteration takes iteration_start_ps, before the driver's work and the PIO
 * latency: it is where a software-timed measurement starts its clock. */
static void
start_engines (void *ctx, guint thread, uint64_t arg, SimTime delay)
{
  System *s = ctx;
  const HostParams *hp = host_params (s->host);
  SimTime t = delay + units_ns_to_ps (hp->sw_pio_latency_ns), gap = units_ns_to_ps (hp->sw_pio_gap_ns);
  if (s->waiting == 0) {
    s->iteration_start_ps = sim_now (s->engine);
    for (guint k = 0; k < s->n_work; k++) {
      Work *w = &s->work[k];
      w->counting = 0;
      w->write_counting = 0;
      w->reported[DMA_WRITE] = w->reported[DMA_READ] = 0;
    }
  }
  for (guint k = 0; k < s->n_work; k++) {
    Work *w = &s->work[k];
    /* Channel by channel, write engine first within a channel (AN-456's order on channel 0). */
    for (uint32_t i = 0; i < w->channels * DMA_DIR_COUNT; i++) {
      uint32_t ch = i / DMA_DIR_COUNT, dir = i % DMA_DIR_COUNT;
      if (!w->uses[dir] || channel_thread (s, ch) != thread)
        continue;
      uint64_t regs = w->bar0 + (uint64_t) DMA_CHANNEL_REG_STRIDE * ch + 0x10 * (uint64_t) dir;
      uint64_t table = table_addr (s, w->engine0 + i);
      uint32_t v[4] = { w->n_desc | (w->dp->msi ? 1u << 16 : 0), (uint32_t) (table >> 32), (uint32_t) table,
                        w->n_desc - 1 };
      for (int dw = 0; dw < 4; dw++) {
        host_pio_write (s->host, t, regs + 4 * (uint64_t) dw, FALSE, v[dw]);
        t += gap;
      }
      s->waiting++;
    }
  }
}

/* A direction's figure for one iteration, once all its channels have reported: every channel's bytes over the
 * span from the first counter start to the last counter stop (one channel: AN-456's bytes / counter time). */
static void
direction_done (Work *w, DmaDir dir)
{
  System *s = w->s;
  SimTime start = G_MAXUINT64, stop = 0;
  for (uint32_t ch = 0; ch < w->channels; ch++) {
    DmaEngineStatus st = dma_chain_channel_status (w->dma, ch, dir);
    g_assert (st.counter_stop_ps > st.counter_start_ps);
    start = MIN (start, st.counter_start_ps);
    stop = MAX (stop, st.counter_stop_ps);
  }
  if (s->d->software_timed) {
    /* The driver's clock: from its decision to start to its handler, now, seeing this direction's last end. */
    start = s->iteration_start_ps;
    stop = sim_now (s->engine);
  }
  /* Each iteration's rate is summed and the run divides by the count: the mean of per-transfer rates, as
   * AN-456's application averages, not total bytes over total time. */
  SimTime dt = stop - start;
  double bytes = (double) w->w->transfer_bytes * w->channels;
  /* bytes / ps * 1e12 = B/s; / 1e6 = MB/s. */
  w->mbps_sum[dir] += bytes * 1e6 / (double) dt;
  /* A guard: read requests cannot normally fill the write window, but their beats are counted whole at each
   * grant rather than clipped to the window, so the clamp keeps the denominator at least 1 ps. */
  if (dir == DMA_WRITE)
    w->write_excl_mbps_sum += bytes * 1e6 / (double) (dt - MIN (w->write_rr_ps, dt - 1));
  if (dir == DMA_WRITE && s->iteration == 0)
    w->first_write_span_ps = dt;
  w->counter_ns_sum[dir] += (double) dt / 1000.0;
  if (s->d->software_timed)
    w->samples[dir][w->n_samples[dir]++] = dt;
}

/* Software has heard of engine g's end: its direction's figure when every channel has, and a signal for the thread
 * that waits for it. The next iteration is programmed (the CPU's LOOP) iteration_gap_ns after software has heard
 * from every engine, not when the counters stop: a driver cannot start the next transfer before it learns that
 * the last one ended. The last thread's end stops the run (all_done); the caller then lets the links settle
 * before checking them. */
static void
engine_reported (System *s, uint32_t g)
{
  uint32_t ch;
  DmaDir dir;
  Work *w = engine_work (s, g, &ch, &dir);
  g_assert (w != NULL && w->uses[dir] && s->waiting > 0);
  if (++w->reported[dir] == w->channels)
    direction_done (w, dir);
  if (--s->waiting == 0)
    s->iteration++;
  cpu_signal (s->cpu, channel_thread (s, ch));
}

/* Every thread of the driver has ended. */
static void
all_done (void *ctx)
{
  System *s = ctx;
  s->waiting = 0;
  for (guint k = 0; k < s->n_work; k++)
    s->work[k].out->sim_time_ps = sim_now (s->engine);
  run_finished (s->run);
}

/* MSI data: the engine's number (dma_chain_set_msi_data() gave each workload its base). */
static void
on_msi (void *ctx, uint64_t address, uint32_t value)
{
  engine_reported (ctx, value);
}

/* The EPLAST word of engine g's table: table + 12. */
static void
on_status (void *ctx, uint64_t address, uint32_t value)
{
  System *s = ctx;
  engine_reported (s, (uint32_t) ((address - 12 - TABLE_BASE) / s->table_stride));
}

/* Transmit-interface time read requests took so far, in ps: MRd beats (segments with straddle) plus every engine
 * turnaround (turnarounds happen because requests slip in between writes; the few around EPLAST and MSI writes
 * are counted too). */
static SimTime
read_request_ps (const Work *w)
{
  return app_tx_kind_beats (w->app, TLP_MRD) * app_unit_ps (w->app)
         + app_tx_switch_cycles (w->app) * app_cycle_ps (w->app);
}

static void
peak_close (SimEngine *e, void *ctx, uint64_t arg)
{
  Work *w = ctx;
  AppBusy b = app_busy_at (w->app, sim_now (e));
  double win = (double) SYSTEM_PEAK_WINDOW_CYCLES * (double) app_cycle_ps (w->app);
  double data = (double) (b.tx_data_ps - w->peak_open.tx_data_ps);
  double req = (double) (b.tx_read_request_ps - w->peak_open.tx_read_request_ps);
  /* MB/s of the interface: bytes per cycle x cycles per microsecond. */
  double full = w->ap->width_bits / 8.0 * w->ap->clock_mhz;
  w->out->peak_write_mbps = data / win * full;
  w->out->peak_write_mbps_excluding_read_requests = req < win ? data / (win - req) * full : 0;
  w->out->peak_read_mbps = (double) (b.rx_data_ps - w->peak_open.rx_data_ps) / win * full;
  w->out->peak_valid = TRUE;
}

static void
peak_open (SimEngine *e, void *ctx, uint64_t arg)
{
  Work *w = ctx;
  w->peak_open = app_busy_at (w->app, sim_now (e));
  sim_schedule_in (e, (SimTime) SYSTEM_PEAK_WINDOW_CYCLES * app_cycle_ps (w->app), peak_close, w, 0);
}

/* Every iteration: the read-request cycles inside the write counter's window, and link usage over the counter
 * window, so usage covers the same transfers the MB/s figures average (no inter-iteration idle). Both windows
 * run from the first counter to start to the last to stop, counted across channels (and, for link usage,
 * across both directions), so in simultaneous mode the link-usage window covers both engines' counters. Each
 * iteration's usage is weighted by its window's length: the result is the share of all the windows' time. */
static void
on_counter (void *ctx, DmaDir dir, gboolean stopped)
{
  Work *w = ctx;
  System *s = w->s;
  if (dir == DMA_WRITE) {
    if (!stopped && w->write_counting++ == 0) {
      w->write_rr_ps_at_start = read_request_ps (w);
      /* The peak window (SystemResult): in the second transfer, at half the first one's write time, on a clock
       * edge so the interface's busy times are exact at both ends. */
      if (w->w->mode == SYSTEM_SIMULTANEOUS && s->iteration == 1) {
        SimTime cyc = app_cycle_ps (w->app), at = sim_now (s->engine) + w->first_write_span_ps / 2;
        sim_schedule_at (s->engine, (at + cyc - 1) / cyc * cyc, peak_open, w, 0);
      }
    }
    else if (stopped && --w->write_counting == 0)
      w->write_rr_ps = read_request_ps (w) - w->write_rr_ps_at_start;
  }
  if (!stopped) {
    if (w->counting++ == 0) {
      link_stats_reset (w->link);
      w->usage_start_ps = sim_now (s->engine);
      why_open (w->why, w->usage_start_ps);
    }
    return;
  }
  if (--w->counting > 0)
    return;
  /* The window's length is the counters' span: a write counter stops at the end of its last MWr on the wire,
   * which the link has already committed (its usage reaches that far upstream). */
  SimTime stop = sim_now (s->engine);
  for (uint32_t ch = 0; ch < w->channels; ch++)
    for (int k = 0; k < DMA_DIR_COUNT; k++)
      if (w->uses[k])
        stop = MAX (stop, dma_chain_channel_status (w->dma, ch, (DmaDir) k).counter_stop_ps);
  why_close (w->why, stop);
  run_usage_add (&w->usage, w->link, (double) (stop - w->usage_start_ps));
}

/* The pattern sums each memory must have folded (pattern.h), from the memory layout alone, over every iteration:
 * a data buffer read arrives as completions at its reader and leaves its memory as completions; a buffer written
 * arrives in its memory as writes; descriptor tables (after their 16-byte headers) leave host memory as
 * completions and every EPLAST arrives there as a 4-byte write. What each memory sent (the run's ledger, run.h)
 * and what each reader took in are summed apart, so a mismatch says at which end the data went wrong. Host
 * memory's byte totals are checked with the engines' (check), its sums here. */
static void
want_of (const System *s, RunLedger *ledger)
{
  uint64_t n = s->d->iterations;
  RunMemory *host = run_ledger_at (ledger, host_component (s->host), FALSE);
  for (guint k = 0; k < s->n_work; k++) {
    const Work *w = &s->work[k];
    for (uint32_t i = 0; i < w->channels * DMA_DIR_COUNT; i++) {
      uint32_t ch = i / DMA_DIR_COUNT, dir = i % DMA_DIR_COUNT;
      if (!w->uses[dir])
        continue;
      RunMemory *at = w->w->peer != NULL ? run_ledger_at (ledger, endpoint_component (w->w->peer), TRUE) : host;
      uint64_t table = table_addr (s, w->engine0 + i), buf = n * pattern_sum (w->buf[ch][dir], w->w->transfer_bytes);
      host->cpl_sum += n * pattern_sum (table + DMA_DESC_BYTES, (uint64_t) w->n_desc * DMA_DESC_BYTES);
      host->mem_sum += n * pattern_sum (table + 12, 4);
      if (dir == DMA_READ) {
        at->cpl_sum += buf;
        at->cpl_bytes += n * w->w->transfer_bytes;
      } else {
        at->mem_sum += buf;
        at->mem_bytes += n * w->w->transfer_bytes;
      }
    }
  }
}

/* What each reader took in: its read buffers' pattern, every iteration. */
static uint64_t
want_read (const System *s, const Work *w)
{
  uint64_t sum = 0;
  for (uint32_t ch = 0; ch < w->channels && w->uses[DMA_READ]; ch++)
    sum += s->d->iterations * pattern_sum (w->buf[ch][DMA_READ], w->w->transfer_bytes);
  return sum;
}

/* The workload's end-of-run check (run.h): bytes each engine moved and host memory took in, what each reader took
 * in, and the ledger of every memory. */
static gboolean
check (void *self, RunLedger *ledger, GError **error)
{
  const System *s = self;
  uint64_t host_want = 0;
  HostCounters hc = host_counters (s->host);
  for (guint k = 0; k < s->n_work; k++) {
    const Work *w = &s->work[k];
    DmaCounters dc = dma_chain_counters (w->dma);
    uint64_t runs = 0, want_read = 0, want_write = 0, per_engine = w->w->transfer_bytes * s->d->iterations;
    if (w->uses[DMA_READ]) {
      want_read = per_engine * w->channels;
      runs += (uint64_t) s->d->iterations * w->channels;
    }
    if (w->uses[DMA_WRITE]) {
      want_write = per_engine * w->channels;
      runs += (uint64_t) s->d->iterations * w->channels;
    }
    /* Host memory receives the write data in it plus one 4-byte EPLAST per engine run (and a 4-byte MSI when
     * on). */
    host_want += (w->w->peer == NULL ? want_write : 0) + runs * 4 * (w->dp->msi ? 2 : 1);
    if (dc.ep_bytes_written != want_read || dc.write_bytes_sent != want_write) {
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_INVARIANT, "bytes moved do not add up: endpoint memory got %"
        G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT ", write engine sent %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT,
        dc.ep_bytes_written, want_read, dc.write_bytes_sent, want_write);
      return FALSE;
    }
  }
  if (hc.bytes_written != host_want) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_INVARIANT, "bytes moved do not add up: host memory got %"
      G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT, hc.bytes_written, host_want);
    return FALSE;
  }
  for (guint k = 0; k < s->n_work; k++) {
    const Work *w = &s->work[k];
    uint64_t got = dma_chain_counters (w->dma).read_checksum, want = want_read (s, w);
    if (got != want)
      return run_integrity_error (error, endpoint_component (w->w->endpoint)->name, "read data received", got, want);
  }
  want_of (s, ledger);
  return TRUE;
}

/* Buffers: host memory's space per direction is shared out among every host-memory channel of every workload, in
 * order; a peer BAR's among the channels of the workloads naming it, two buffers (write, read) per channel. */
static gboolean
lay_out (System *s, GError **error)
{
  uint32_t host_channels = 0, host_slot = 0;
  for (guint k = 0; k < s->n_work; k++)
    if (s->work[k].w->peer == NULL)
      host_channels += s->work[k].channels;
  for (guint k = 0; k < s->n_work; k++) {
    Work *w = &s->work[k];
    const SystemWorkload *wl = w->w;
    uint64_t room;
    if (wl->peer == NULL) {
      room = share (BUF_STRIDE, host_channels);
      for (uint32_t ch = 0; ch < w->channels; ch++, host_slot++)
        for (int dir = 0; dir < DMA_DIR_COUNT; dir++)
          w->buf[ch][dir] = (w->dp->addr64 ? BUF_BASE_64 : BUF_BASE_32) + (uint64_t) dir * BUF_STRIDE
                            + (uint64_t) host_slot * room;
    } else {
      uint32_t before = 0, sharers = 0;
      for (guint j = 0; j < s->n_work; j++)
        if (s->work[j].w->peer == wl->peer && s->work[j].w->peer_bar == wl->peer_bar) {
          before += j < k ? s->work[j].channels : 0;
          sharers += s->work[j].channels;
        }
      const Component *pc = endpoint_component (wl->peer);
      const FabricBar *bar = wl->peer_bar < FABRIC_MAX_BARS ? &pc->bars[wl->peer_bar] : NULL;
      if (bar == NULL || bar->size_bytes == 0 || wl->peer == wl->endpoint) {
        g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "%s: peer %s has no BAR%u to hold its buffers",
          endpoint_component (wl->endpoint)->name, pc->name, wl->peer_bar);
        return FALSE;
      }
      /* The DMA's register block is not memory: BAR0 of a peer with a DMA starts its buffers after it. */
      uint64_t skip = wl->peer_bar == 0 && endpoint_dma (wl->peer) != NULL ? 0x1000 : 0;
      room = share (bar->size_bytes - skip, 2 * sharers);
      for (uint32_t ch = 0; ch < w->channels; ch++)
        for (int dir = 0; dir < DMA_DIR_COUNT; dir++)
          w->buf[ch][dir] = bar->base + skip + (2 * (uint64_t) (before + ch) + (uint64_t) dir) * room;
    }
    uint64_t per = w->dp->desc_max_bytes ? w->dp->desc_max_bytes : wl->transfer_bytes;
    w->n_desc = (uint32_t) ((wl->transfer_bytes + per - 1) / per);
    if (!work_check (w->dp, link_params (w->link), wl->transfer_bytes, room, s->table_stride, error)) {
      g_prefix_error (error, "%s: ", endpoint_component (wl->endpoint)->name);
      return FALSE;
    }
  }
  return TRUE;
}

/* --- the driver as a workload of the run harness (run.h) --------------------------------------------------- */

static void
start (void *self, RunCtx *run)
{
  System *s = self;
  s->run = run;
  cpu_start (s->cpu, all_done, s);
}

/* An engine owed to software: quiet then is a stall. Between iterations and after the last report, none is. */
static gboolean
owed (void *self)
{
  return ((System *) self)->waiting > 0;
}

static uint64_t
progress (void *self)
{
  return cpu_progress (((System *) self)->cpu);
}

/* The host's longest legal quiet stretch for the largest payload and read request of any workload, and the CPU's
 * for every descriptor the driver prepares. */
static SimTime
quiet (void *self)
{
  const System *s = self;
  uint32_t mps = 0, mrrs = 0, descriptors = 0;
  for (guint k = 0; k < s->n_work; k++) {
    mps = MAX (mps, link_params (s->work[k].link)->max_payload_bytes);
    mrrs = MAX (mrrs, s->work[k].dp->max_read_request_bytes);
    descriptors += s->work[k].n_desc * s->work[k].channels * DMA_DIR_COUNT;
  }
  return system_quiet_ps (host_params (s->host), mps, mrrs) + system_cpu_quiet_ps (s->d->cpu, descriptors);
}

/* Backstop for a run that keeps delivering but never ends (a livelock the watchdog cannot see): far beyond any
 * legal run, as 1 MB/s would be a broken model. */
static SimTime
budget (void *self)
{
  const System *s = self;
  uint64_t bytes = 0;
  for (guint k = 0; k < s->n_work; k++)
    bytes = MAX (bytes, s->work[k].w->transfer_bytes);
  return SIM_MS * 1000 + (SimTime) s->d->iterations * bytes * SIM_US;
}

static void
where (void *self, GString *out)
{
  const System *s = self;
  g_string_append_printf (out, "the %s run, iteration %u of %u", system_mode_name (s->mode), s->iteration + 1,
                          s->d->iterations);
}

static void
describe_wait (void *self, GString *out)
{
  cpu_describe_wait (((System *) self)->cpu, out);
}

/* A software-timed workload's figures for the verdicts (why.h): the driver's window per transfer, the counters'
 * inside it, and the driver's mean cost per transfer by phase: its work and register writes before the engines
 * start, the MSI's way to the handler and the wake-up after (as drawn), or half a polling period. */
static void
why_software (const System *s, const Work *w)
{
  const CpuParams *c = s->d->cpu;
  const HostParams *h = host_params (s->host);
  CpuCounters cc = cpu_counters (s->cpu);
  uint32_t engines = w->channels * (uint32_t) (w->uses[DMA_READ] + w->uses[DMA_WRITE]);
  double irqs = cc.irqs ? (double) cc.irqs : 1;
  double phase[WHY_SW_PHASES] = {
    [WHY_SW_SETUP] = (c ? c->dma_setup_ns : 0) + h->sw_pio_latency_ns + (4.0 * engines - 1) * h->sw_pio_gap_ns,
    [WHY_SW_DESCRIPTORS] = c ? (double) w->n_desc * engines * c->dma_desc_ns : 0,
    [WHY_SW_INTERRUPT] = w->dp->msi ? h->msi_latency_ns + (double) cc.interrupt_ps / irqs / 1000 : 0,
    [WHY_SW_WAKEUP] = w->dp->msi ? (double) cc.wakeup_ps / irqs / 1000 : 0,
    [WHY_SW_POLL] = w->dp->msi ? 0 : h->poll_interval_ns / 2,
  };
  for (int dir = 0; dir < DMA_DIR_COUNT; dir++)
    if (w->uses[dir] && w->out->transfer[dir].valid)
      why_set_software (w->why, (DmaDir) dir, (double) w->w->transfer_bytes * w->channels,
                        w->out->transfer[dir].mean_ns, w->out->usage_window_ns, phase);
}

/* Figures and counters only from a run that passed every check; events and pool size are kept either way. */
static void
result (void *self, const RunCtx *run, gboolean ok)
{
  System *s = self;
  RunStats st = run_stats (run);
  for (guint k = 0; k < s->n_work; k++) {
    Work *w = &s->work[k];
    SystemResult *out = w->out;
    if (ok) {
      for (int dir = 0; dir < DMA_DIR_COUNT; dir++) {
        if (!w->uses[dir])
          continue;
        double mbps = w->mbps_sum[dir] / s->d->iterations, ns = w->counter_ns_sum[dir] / s->d->iterations;
        if (dir == DMA_READ) {
          out->read_mbps = mbps;
          out->read_counter_ns = ns;
        } else {
          out->write_mbps = mbps;
          out->write_counter_ns = ns;
          out->write_mbps_excluding_read_requests = w->write_excl_mbps_sum / s->d->iterations;
        }
        if (s->d->software_timed)
          out->transfer[dir] = system_transfer_stats (w->samples[dir], w->n_samples[dir]);
      }
      out->cpu = cpu_counters (s->cpu);
      out->host = host_counters (s->host);
      out->dma = dma_chain_counters (w->dma);
      system_usage_result (out, &w->usage);
      const double mbps[DMA_DIR_COUNT] = { [DMA_WRITE] = w->uses[DMA_WRITE] ? out->write_mbps : NAN,
                                           [DMA_READ] = w->uses[DMA_READ] ? out->read_mbps : NAN };
      LinkUsage u[2];
      u[LINK_UPSTREAM] = out->upstream;
      u[LINK_DOWNSTREAM] = out->downstream;
      if (s->d->software_timed)
        why_software (s, w);
      why_result (w->why, u, mbps, &out->why);
    }
    system_run_counts (out, &st, w->link);
  }
}

static const RunWorkload driver_workload = {
  .start = start, .owed = owed, .progress = progress, .quiet_ps = quiet, .budget_ps = budget, .where = where,
  .describe_wait = describe_wait, .check = check, .result = result,
};

/* The driver's program for thread `thread` (system.h): start its engines, wait for their ends, meet the other
 * threads, loop. The driver's work per descriptor counts every descriptor the thread's engines take. */
static void
add_driver_thread (System *s, guint thread)
{
  uint32_t engines = 0, descriptors = 0;
  for (guint k = 0; k < s->n_work; k++) {
    const Work *w = &s->work[k];
    for (uint32_t ch = 0; ch < w->channels; ch++)
      for (int dir = 0; dir < DMA_DIR_COUNT; dir++)
        if (w->uses[dir] && channel_thread (s, ch) == thread) {
          engines++;
          descriptors += w->n_desc;
        }
  }
  CpuOp ops[4] = {
    { .kind = CPU_OP_DMA_START, .count = descriptors, .hook = start_engines, .ctx = s },
    { .kind = CPU_OP_WAIT, .count = engines, .arg = !s->work[0].dp->msi },
  };
  guint n = 2;
  if (s->n_threads > 1)
    ops[n++] = (CpuOp) { .kind = CPU_OP_BARRIER };
  ops[n++] = (CpuOp) { .kind = CPU_OP_LOOP, .target = 0, .count = s->d->iterations,
                       .ns = host_params (s->host)->iteration_gap_ns };
  cpu_add_thread (s->cpu, ops, n);
}

/* Every link and every workload's DMA on the trace, then the trace starts (trace.h: declarations come first). */
static gboolean
trace_start (System *s, GError **error)
{
  SimTrace *t = s->d->trace;
  if (t == NULL)
    return TRUE;
  system_trace_links (s->f, t);
  for (guint k = 0; k < s->n_work; k++) {
    g_autofree char *scope = g_strdup_printf ("%s.dma", endpoint_component (s->work[k].w->endpoint)->name);
    dma_chain_trace_declare (s->work[k].dma, t, scope);
  }
  cpu_trace_declare (s->cpu, t, "cpu");
  return sim_trace_start (t, error);
}

/* "linkN": the trace's and the stalls' name of a link, by its place in the fabric. */
static char *
link_name (const Fabric *f, const Link *l)
{
  guint i = 0;
  while (i < fabric_n_links (f) && fabric_link (f, i) != l)
    i++;
  return g_strdup_printf ("link%u", i);
}

/* Sets up the driver's side of every workload (memory map, MSI data, descriptor memory, counters, status words)
 * and its CPU, and runs. */
static gboolean
drive (Fabric *f, Host *host, const SystemWorkload *wl, guint n, const SystemDriver *d, SystemResult *out,
  GError **error)
{
  g_assert (n >= 1);
  System s = { .f = f, .host = host, .engine = fabric_engine (f), .d = d, .mode = wl[0].mode, .n_work = n };
  g_autofree Work *work = g_new0 (Work, n);
  s.work = work;
  for (guint k = 0; k < n; k++) {
    Work *w = &work[k];
    out[k] = (SystemResult) { 0 };
    *w = (Work) { .s = &s, .w = &wl[k], .out = &out[k], .engine0 = s.n_engines };
    w->dma = endpoint_dma (wl[k].endpoint);
    if (w->dma == NULL) {
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "%s has no DMA to run",
        endpoint_component (wl[k].endpoint)->name);
      return FALSE;
    }
    w->app = endpoint_app (wl[k].endpoint);
    w->link = fabric_uplink (endpoint_component (wl[k].endpoint));
    w->dp = &endpoint_params (wl[k].endpoint)->dma;
    w->ap = &endpoint_params (wl[k].endpoint)->app;
    w->bar0 = endpoint_bar (wl[k].endpoint, 0);
    w->uses[DMA_READ] = wl[k].mode != SYSTEM_WRITE;
    w->uses[DMA_WRITE] = wl[k].mode != SYSTEM_READ;
    w->channels = w->dp->channels ? w->dp->channels : 1;
    s.n_engines += w->channels * DMA_DIR_COUNT;
  }
  s.table_stride = MIN (TABLE_STRIDE, share (TABLE_SPACE, s.n_engines));
  if (d->iterations == 0) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "iterations must be at least 1");
    return FALSE;
  }
  if (!lay_out (&s, error))
    return FALSE;
  for (guint k = 0; k < n; k++) {
    Work *w = &work[k];
    dma_chain_set_memory (w->dma, mem_read, &s);
    dma_chain_set_msi_data (w->dma, w->engine0);
    dma_chain_set_counter_notify (w->dma, on_counter, w);
    if (!w->dp->msi)
      for (uint32_t i = 0; i < w->channels * DMA_DIR_COUNT; i++)
        host_watch_status (host, table_addr (&s, w->engine0 + i) + 12, on_status, &s);
    g_autofree char *ln = link_name (f, w->link);
    const Component *ec = endpoint_component (wl[k].endpoint);
    w->why = why_new (s.engine, w->link, ln, w->app, w->ap, w->dma, w->dp, host_params (host), ec->id, ec->name);
  }
  host_set_msi (host, on_msi, &s);
  uint32_t max_channels = 1;
  for (guint k = 0; k < n; k++) {
    max_channels = MAX (max_channels, work[k].channels);
    for (int dir = 0; dir < DMA_DIR_COUNT; dir++)
      if (d->software_timed && work[k].uses[dir])
        work[k].samples[dir] = g_new (SimTime, d->iterations);
  }
  CpuParams cp = system_cpu_params (d->cpu);
  s.cpu = cpu_new (s.engine, host, &cp);
  host_set_irq_delay (host, cpu_irq_delay_ps, s.cpu);
  s.n_threads = d->software_timed ? max_channels : 1;
  for (guint t = 0; t < s.n_threads; t++)
    add_driver_thread (&s, t);
  gboolean ok = trace_start (&s, error) && run_go (f, &driver_workload, &s, d->watchdog_ps, error);
  for (guint k = 0; k < n; k++)
    why_free (work[k].why);
  for (guint k = 0; k < n; k++)
    for (int dir = 0; dir < DMA_DIR_COUNT; dir++)
      g_free (work[k].samples[dir]);
  cpu_free (s.cpu);
  return ok;
}

gboolean
system_run_fabric (Fabric *f, Host *host, const SystemWorkload *w, guint n, const SystemDriver *d,
  SystemResult *out, GError **error)
{
  for (guint k = 0; k < n; k++) {
    const Component *c = endpoint_component (w[k].endpoint);
    Link *l = fabric_uplink (c);
    const EndpointParams *ep = endpoint_params (w[k].endpoint);
    if (l == NULL || !ep->has_dma) {
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "%s: no link or no DMA", c->name);
      return FALSE;
    }
    if (!host_params_check (host_params (host), link_params (l)->max_payload_bytes, error)
        || !endpoint_params_check (ep, error))
      return FALSE;
  }
  return drive (f, host, w, n, d, out, error);
}
