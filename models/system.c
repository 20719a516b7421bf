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
 * what keeps the AN-456 results byte for byte. The PIO benchmark (pio_* below) is another program on the same
 * CPU, with its own accounting. */
#include "models/system.h"

#include "models/pattern.h"
#include "models/units.h"

G_DEFINE_QUARK (pciesim-system-error-quark, system_error)

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
/* The one-link system's BAR0: 256 MB, as AN-456's. */
#define BAR0_BYTES 0x10000000ull
/* The PIO benchmark's BAR1 memory: at most 256 MB, which the 32-bit MMIO window holds after BAR0. */
#define PIO_MAX_BYTES ((uint64_t) 0x10000000)

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
  /* Link usage summed over the counter windows (on_counter): fractions x window length, per LinkDir. */
  SimTime usage_start_ps;
  LinkUsage usage_sum[2];
  LinkCounters usage_counters[2];
  double usage_ps;
  uint32_t usage_windows;
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
  const SystemDriver *d;
  SystemMode mode; /* the first workload's: names the run in messages */
  Work *work;
  guint n_work;
  uint32_t n_engines;
  uint64_t table_stride;
  SimTime iteration_start_ps; /* software decided to start this iteration's transfers */
  uint32_t iteration;
  guint waiting; /* engines of this iteration not yet reported to software */
  gboolean finished;
  gboolean stalled; /* the watchdog stopped the run */
  SimTime watchdog_ps; /* effective bound, stretched by the host's longest quiet stretch */
  uint64_t last_progress;
  Cpu *cpu;
  guint n_threads; /* 1, or one per channel (system.h) */
  /* The PIO benchmark, when it is the run (pio.ep != NULL): its endpoint, link and buffer, the measurement window
   * and the open transfer, the window's length and usage, and the transfers' samples. */
  struct {
    SystemMode mode;
    Endpoint *ep;
    Link *link;
    uint64_t address, bytes;
    uint32_t mps;
    SimTime window_ps, start_ps;
    SimTime *samples;
    uint32_t n;
    LinkUsage usage_sum[2];
    LinkCounters usage_counters[2];
    double usage_ps;
    SimTime stall_ps[2][STALL_COUNT]; /* the link's idle time by cause, by LinkDir: at the window's start, then over it */
    SystemResult *out;
  } pio;
};

static SystemTransferStats transfer_stats (SimTime *v, uint32_t n);
static gboolean pio_check_end (const System *s, GError **error);
static void pio_results (System *s, gboolean ok);

const char *
system_mode_name (SystemMode mode)
{
  switch (mode) {
  case SYSTEM_READ: return "read";
  case SYSTEM_WRITE: return "write";
  case SYSTEM_SIMULTANEOUS: return "simultaneous";
  case SYSTEM_PIO_READ: return "pio_read";
  case SYSTEM_PIO_WRITE: return "pio_write";
  }
  return "?";
}

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
    g_set_error (error, SYSTEM_ERROR, SYSTEM_ERROR_PARAM, "%u tags: the link carries at most %u outstanding requests",
      dma->tags, link_tags_max (link));
    return FALSE;
  }
  if (dma->max_payload_bytes > link->max_payload_bytes) {
    g_set_error (error, SYSTEM_ERROR, SYSTEM_ERROR_PARAM,
      "DMA max payload %u exceeds the link's %u", dma->max_payload_bytes,
      link->max_payload_bytes);
    return FALSE;
  }
  if (transfer_bytes == 0 || transfer_bytes % 4 != 0 || transfer_bytes > max_bytes) {
    g_set_error (error, SYSTEM_ERROR, SYSTEM_ERROR_PARAM,
      "transfer of %" G_GUINT64_FORMAT " bytes: must be whole DWs, 4..%"
      G_GUINT64_FORMAT " (per channel)", transfer_bytes, max_bytes);
    return FALSE;
  }
  uint64_t per = dma->desc_max_bytes ? dma->desc_max_bytes : transfer_bytes;
  uint64_t n = (transfer_bytes + per - 1) / per;
  if (n > 0xffff || n * DMA_DESC_BYTES + DMA_DESC_BYTES > table_stride) {
    g_set_error (error, SYSTEM_ERROR, SYSTEM_ERROR_PARAM, "%" G_GUINT64_FORMAT " descriptors per transfer: at most %"
      G_GUINT64_FORMAT, n, MIN ((uint64_t) 0xffff, table_stride / DMA_DESC_BYTES - 1));
    return FALSE;
  }
  return TRUE;
}

/* A zero-filled CpuParams (tests that fill SystemParams by hand, a SystemDriver without one) is the default CPU:
 * 8 write-combining buffers of 64 bytes (a Core-era core, pcie-protocol.md §9), no costs, no random times. */
static CpuParams
cpu_params_of (const CpuParams *c)
{
  if (c != NULL && c->wc.buffers != 0)
    return *c;
  return (CpuParams) { .wc = { .buffers = 8, .buffer_bytes = 64 } };
}

/* The PIO program's own parameters: widths a core has, and a transfer the BAR memory can hold. */
static gboolean
pio_check (const SystemParams *p, gboolean write, GError **error)
{
  const uint32_t w[2] = { p->pio.store_bytes, p->pio.load_bytes };
  for (int i = 0; i < 2; i++)
    if (w[i] < 1 || w[i] > 32 || (w[i] & (w[i] - 1)) != 0 || w[i] > cpu_params_of (&p->cpu).wc.buffer_bytes) {
      g_set_error (error, SYSTEM_ERROR, SYSTEM_ERROR_PARAM, "PIO %s of %u bytes: must be a power of two from 1 to "
                   "32, and no wider than a write-combining buffer (%u)", i ? "load" : "store", w[i],
                   cpu_params_of (&p->cpu).wc.buffer_bytes);
      return FALSE;
    }
  if (p->transfer_bytes == 0 || p->transfer_bytes > PIO_MAX_BYTES) {
    g_set_error (error, SYSTEM_ERROR, SYSTEM_ERROR_PARAM, "PIO transfer of %" G_GUINT64_FORMAT " bytes: must be "
                 "1..%" G_GUINT64_FORMAT " (the BAR memory)", p->transfer_bytes, PIO_MAX_BYTES);
    return FALSE;
  }
  CpuParams c = cpu_params_of (&p->cpu);
  if (write && c.store_ns == 0 && c.post_ns == 0 && p->pio.overhead_ns == 0) {
    g_set_error (error, SYSTEM_ERROR, SYSTEM_ERROR_PARAM, "a PIO write on a CPU whose stores take no time, with no "
                 "path to where the root complex posts them and no software overhead, takes no time at all: its "
                 "software end is its start (give the CPU's store time, path or overhead)");
    return FALSE;
  }
  if (!(p->pio.overhead_ns >= 0 && p->pio.overhead_ns < 1e9)) {
    g_set_error (error, SYSTEM_ERROR, SYSTEM_ERROR_PARAM, "PIO overhead %g ns: must be finite, >= 0 and below 1 s",
                 p->pio.overhead_ns);
    return FALSE;
  }
  return TRUE;
}

/* A DMA transfer moves whole DWs; a PIO transfer any number of bytes (pio_check). */
static gboolean
params_check (const SystemParams *p, SystemMode mode, GError **error)
{
  gboolean pio = mode == SYSTEM_PIO_READ || mode == SYSTEM_PIO_WRITE;
  if (!link_params_validate (&p->link, error) || !host_params_check (&p->host, p->link.max_payload_bytes, error)
      || !app_params_check (&p->app, error) || !dma_params_check (&p->dma, error)
      || (p->cpu.wc.buffers != 0 && !cpu_params_check (&p->cpu, error)) || (pio && !pio_check (p, mode == SYSTEM_PIO_WRITE, error))
      || (!pio && !work_check (&p->dma, &p->link, p->transfer_bytes, share (BUF_STRIDE, p->dma.channels),
                               TABLE_STRIDE, error)))
    return FALSE;
  if (p->iterations == 0) {
    g_set_error (error, SYSTEM_ERROR, SYSTEM_ERROR_PARAM, "iterations must be at least 1");
    return FALSE;
  }
  return TRUE;
}

gboolean
system_params_check (const SystemParams *p, GError **error)
{
  return params_check (p, SYSTEM_READ, error);
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

/* Every thread of the driver (or the PIO program) has ended. */
static void
all_done (void *ctx)
{
  System *s = ctx;
  s->finished = TRUE;
  s->waiting = 0;
  for (guint k = 0; k < s->n_work; k++)
    s->work[k].out->sim_time_ps = sim_now (s->engine);
  if (s->pio.out != NULL)
    s->pio.out->sim_time_ps = sim_now (s->engine);
  sim_stop (s->engine);
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

/* Adds a window of `win` ps of `link`'s usage since its last reset to the sums: fractions weighted by the window's
 * length, counters as they are. */
static void
usage_add (Link *link, double win, LinkUsage sum[2], LinkCounters counters[2])
{
  for (int d = 0; d < 2; d++) {
    LinkUsage u = link_usage (link, (LinkDir) d);
    sum[d].payload += u.payload * win;
    sum[d].tlp_overhead += u.tlp_overhead * win;
    sum[d].dllp += u.dllp * win;
    sum[d].ordered_sets += u.ordered_sets * win;
    sum[d].idle += u.idle * win;
    LinkCounters c = link_counters (link, (LinkDir) d), *cs = &counters[d];
    cs->tlps += c.tlps;
    cs->dllps += c.dllps;
    cs->acks += c.acks;
    cs->updatefcs += c.updatefcs;
    cs->skps += c.skps;
    cs->payload_bytes += c.payload_bytes;
  }
}

/* The usage sums of `usage_ps` ps of windows as the result's fractions and counters. */
static void
usage_result (SystemResult *out, const LinkUsage sum[2], const LinkCounters counters[2], double usage_ps)
{
  LinkUsage u[2];
  for (int d = 0; d < 2; d++) {
    double win = usage_ps > 0 ? usage_ps : 1;
    u[d] = (LinkUsage) { sum[d].payload / win, sum[d].tlp_overhead / win, sum[d].dllp / win,
                         sum[d].ordered_sets / win, sum[d].idle / win };
    /* Idle absorbs the rounding of the weighted sums, so the five still sum to 1. */
    u[d].idle = 1.0 - (u[d].payload + u[d].tlp_overhead + u[d].dllp + u[d].ordered_sets);
  }
  out->downstream = u[LINK_DOWNSTREAM];
  out->upstream = u[LINK_UPSTREAM];
  out->downstream_counters = counters[LINK_DOWNSTREAM];
  out->upstream_counters = counters[LINK_UPSTREAM];
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
  double win = (double) (stop - w->usage_start_ps);
  w->usage_ps += win;
  w->usage_windows++;
  why_close (w->why, stop);
  usage_add (w->link, win, w->usage_sum, w->usage_counters);
}

/* Longest stretch in which a healthy run may deliver nothing: every wait the host parameters can impose on one
 * request, added up (a generous upper bound; the link's own delays are microseconds). Eight store gaps cover
 * one channel's two headers, and the first engine starts after four. iteration_gap_ns needs no place here:
 * between iterations no engine is owed, so the watchdog does not judge that stretch. */
static SimTime
quiet_ps (const HostParams *h, uint32_t mps, uint32_t mrrs)
{
  double ns = h->read_latency_ns + h->read_latency_per_byte_ps * mrrs / 1000.0 + h->cpl_overhead_ns
              + h->write_latency_ns + h->msi_latency_ns + h->poll_interval_ns + h->sw_pio_latency_ns
              + 8 * h->sw_pio_gap_ns;
  if (h->cpl_rate_mbps > 0)
    ns += mps * 1000.0 / h->cpl_rate_mbps;
  if (h->write_drain_mbps > 0)
    ns += mps * 1000.0 / h->write_drain_mbps;
  return units_ns_to_ps (ns);
}

/* The CPU's share of the longest legal quiet stretch: a load's two crossings of the core-to-root-port path, the
 * driver's work before the doorbells, and the interrupt and wake-up times (their 1e-9 bounds, dist.h). 0 for a CPU without costs or random times, so the bound (and the watchdog's ticks) stay
 * what they were before the CPU existed. */
static SimTime
cpu_quiet_ps (const CpuParams *c, uint32_t descriptors)
{
  if (c == NULL)
    return 0;
  double ns = c->dma_setup_ns + descriptors * c->dma_desc_ns + 2 * c->access_ns;
  if (c->interrupt != NULL)
    ns += dist_bound_ns (c->interrupt);
  if (c->wakeup != NULL)
    ns += dist_bound_ns (c->wakeup);
  return units_ns_to_ps (ns);
}

/* Polled rather than re-armed on every delivery: re-arming would put a cancel and a schedule on the per-TLP hot
 * path, while a tick costs one event per period. The price is resolution: a stall is reported between one and
 * two bounds after the last delivery. Quiet with no engine owed (between iterations, after the last report) is
 * legal and only updates the mark. The sign of life is every component's progress count (fabric.h). */
static void
watchdog (SimEngine *e, void *ctx, uint64_t arg)
{
  System *s = ctx;
  uint64_t now = fabric_progress (s->f) + cpu_progress (s->cpu);
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
  fabric_describe_wait (s->f, why);
  cpu_describe_wait (s->cpu, why);
  g_set_error (error, SYSTEM_ERROR, SYSTEM_ERROR_DEADLOCK, "deadlock in the %s run, iteration %u of %u, t = %.3f us: "
    "%s; waiting: %s", system_mode_name (s->mode), s->iteration + 1, s->d->iterations,
    (double) sim_now (s->engine) / 1e6, how, why->len ? why->str : "nothing (software never heard of the end)");
}

/* The pattern sums each memory must have folded (pattern.h), from the memory layout alone, over every iteration:
 * a data buffer read arrives as completions at its reader and leaves its memory as completions; a buffer written
 * arrives in its memory as writes; descriptor tables (after their 16-byte headers) leave host memory as
 * completions and every EPLAST arrives there as a 4-byte write. Byte counts alone would pass a completion sent to
 * the wrong address, or one duplicated while another was dropped; the address pattern catches both. What each
 * memory sent and what each reader took in are summed apart, so a mismatch says at which end the data went
 * wrong. */
typedef struct {
  uint64_t cpl, mem; /* completions sent from it, writes received into it */
  uint64_t cpl_bytes, mem_bytes;
} Want;

static void
want_of (const System *s, Want *host, GHashTable *peers)
{
  uint64_t n = s->d->iterations;
  for (guint k = 0; k < s->n_work; k++) {
    const Work *w = &s->work[k];
    Want *at = host;
    if (w->w->peer != NULL) {
      at = g_hash_table_lookup (peers, w->w->peer);
      if (at == NULL) {
        at = g_new0 (Want, 1);
        g_hash_table_insert (peers, w->w->peer, at);
      }
    }
    for (uint32_t i = 0; i < w->channels * DMA_DIR_COUNT; i++) {
      uint32_t ch = i / DMA_DIR_COUNT, dir = i % DMA_DIR_COUNT;
      if (!w->uses[dir])
        continue;
      uint64_t table = table_addr (s, w->engine0 + i), buf = n * pattern_sum (w->buf[ch][dir], w->w->transfer_bytes);
      host->cpl += n * pattern_sum (table + DMA_DESC_BYTES, (uint64_t) w->n_desc * DMA_DESC_BYTES);
      host->mem += n * pattern_sum (table + 12, 4);
      if (dir == DMA_READ) {
        at->cpl += buf;
        at->cpl_bytes += n * w->w->transfer_bytes;
      } else {
        at->mem += buf;
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

static gboolean
integrity_error (GError **error, const char *where, uint64_t got, uint64_t want, const char *what)
{
  g_set_error (error, SYSTEM_ERROR, SYSTEM_ERROR_INVARIANT, "data integrity: checksum mismatch (%s %s %016"
    G_GINT64_MODIFIER "x, expected %016" G_GINT64_MODIFIER "x): data was dropped, duplicated or misplaced", where,
    what, got, want);
  return FALSE;
}

static gboolean
check_integrity (const System *s, GError **error)
{
  Want host = { 0 };
  g_autoptr (GHashTable) peers = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  want_of (s, &host, peers);
  for (guint k = 0; k < s->n_work; k++) {
    const Work *w = &s->work[k];
    uint64_t got = dma_chain_counters (w->dma).read_checksum, want = want_read (s, w);
    if (got != want)
      return integrity_error (error, endpoint_component (w->w->endpoint)->name, got, want, "read data received");
  }
  HostCounters hc = host_counters (s->host);
  if (hc.cpl_checksum != host.cpl)
    return integrity_error (error, "host", hc.cpl_checksum, host.cpl, "completions sent");
  if (hc.write_checksum != host.mem)
    return integrity_error (error, "host", hc.write_checksum, host.mem, "memory");
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init (&it, peers);
  while (g_hash_table_iter_next (&it, &key, &value)) {
    EndpointCounters ec = endpoint_counters (key);
    const Want *want = value;
    const char *name = endpoint_component (key)->name;
    if (ec.cpl_checksum != want->cpl)
      return integrity_error (error, name, ec.cpl_checksum, want->cpl, "completions sent");
    if (ec.write_checksum != want->mem)
      return integrity_error (error, name, ec.write_checksum, want->mem, "memory");
    if (ec.cpl_bytes != want->cpl_bytes || ec.bytes_written != want->mem_bytes) {
      g_set_error (error, SYSTEM_ERROR, SYSTEM_ERROR_INVARIANT, "bytes moved do not add up: %s's memory completed %"
        G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " bytes and took %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT,
        name, ec.cpl_bytes, want->cpl_bytes, ec.bytes_written, want->mem_bytes);
      return FALSE;
    }
  }
  return TRUE;
}

/* The components' own checks come first, because their messages name the broken mechanism; the system-wide
 * byte totals and checksums then catch what no single component can see, such as data that left one end and
 * arrived at the other in a different amount or place. */
static gboolean
check_invariants (const System *s, GError **error)
{
  if (!fabric_check_invariants (s->f, error))
    return FALSE;
  /* sim_schedule_at() already aborts on a past time; this is the end-of-run statement of the same invariant
   * (README, "Invariants"), independent of how the engine is built. */
  if (sim_next_time (s->engine) < sim_now (s->engine)) {
    g_set_error (error, SYSTEM_ERROR, SYSTEM_ERROR_INVARIANT,
      "an event is scheduled at %" G_GUINT64_FORMAT " ps, before now (%"
      G_GUINT64_FORMAT " ps)", sim_next_time (s->engine), sim_now (s->engine));
    return FALSE;
  }
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
      g_set_error (error, SYSTEM_ERROR, SYSTEM_ERROR_INVARIANT, "bytes moved do not add up: endpoint memory got %"
        G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT ", write engine sent %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT,
        dc.ep_bytes_written, want_read, dc.write_bytes_sent, want_write);
      return FALSE;
    }
  }
  if (hc.bytes_written != host_want) {
    g_set_error (error, SYSTEM_ERROR, SYSTEM_ERROR_INVARIANT, "bytes moved do not add up: host memory got %"
      G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT, hc.bytes_written, host_want);
    return FALSE;
  }
  if (!check_integrity (s, error))
    return FALSE;
  if (tlp_pool_live (fabric_pool (s->f)) != 0) {
    g_set_error (error, SYSTEM_ERROR, SYSTEM_ERROR_INVARIANT, "%zu TLPs not returned to the pool",
      tlp_pool_live (fabric_pool (s->f)));
    return FALSE;
  }
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
        g_set_error (error, SYSTEM_ERROR, SYSTEM_ERROR_PARAM, "%s: peer %s has no BAR%u to hold its buffers",
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

/* The run proper, on a fabric whose workloads are set up (run_fabric): program, run, settle, check, report. */
static gboolean
run (System *s, GError **error)
{
  /* The bound is the configured quiet time plus the host's longest legal one, so a slow host never reads as a
   * deadlock however the watchdog is set. */
  uint32_t mps = s->pio.mps, mrrs = 0, descriptors = 0;
  /* PIO reads move a few bytes per round trip, so their budget is 1 KB/s rather than 1 MB/s. */
  uint64_t budget_bytes = s->pio.bytes * 1000;
  for (guint k = 0; k < s->n_work; k++) {
    mps = MAX (mps, link_params (s->work[k].link)->max_payload_bytes);
    mrrs = MAX (mrrs, s->work[k].dp->max_read_request_bytes);
    budget_bytes = MAX (budget_bytes, s->work[k].w->transfer_bytes);
    descriptors += s->work[k].n_desc * s->work[k].channels * DMA_DIR_COUNT;
  }
  if (s->pio.ep != NULL)
    s->waiting = 1; /* the PIO thread is owed to software until it ends */
  cpu_start (s->cpu, all_done, s);
  s->watchdog_ps = (s->d->watchdog_ps ? s->d->watchdog_ps : SYSTEM_WATCHDOG_DEFAULT_PS)
                   + quiet_ps (host_params (s->host), mps, mrrs) + cpu_quiet_ps (s->d->cpu, descriptors);
  sim_schedule_in (s->engine, s->watchdog_ps, watchdog, s, 0);
  /* Backstop for a run that keeps delivering but never ends (a livelock the watchdog cannot see): far beyond
   * any legal run, as 1 MB/s would be a broken model. */
  SimTime budget = SIM_MS * 1000 + (SimTime) s->d->iterations * budget_bytes * SIM_US;
  sim_run_until (s->engine, budget);
  gboolean ok = TRUE;
  if (!s->finished) {
    g_autofree char *how = s->stalled
      ? g_strdup_printf ("nothing delivered for %.3f us", (double) s->watchdog_ps / 1e6)
      : g_strdup (sim_pending (s->engine) ? "not finished within the time budget" : "no event left to run");
    deadlock_error (s, how, error);
    ok = FALSE;
  } else {
    /* Let the last Acks and UpdateFCs settle so the links' end-of-run checks see quiet links: many Ack and
     * UpdateFC periods (each <= 30 us). */
    sim_run_until (s->engine, sim_now (s->engine) + 200 * SIM_US);
    ok = check_invariants (s, error) && (s->pio.ep == NULL || pio_check_end (s, error));
  }
  /* Figures and counters only from a run that passed every check; events and pool size are kept either way. */
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
          out->transfer[dir] = transfer_stats (w->samples[dir], w->n_samples[dir]);
      }
      out->cpu = cpu_counters (s->cpu);
      out->host = host_counters (s->host);
      out->dma = dma_chain_counters (w->dma);
      usage_result (out, w->usage_sum, w->usage_counters, w->usage_ps);
      out->usage_window_ns = w->usage_windows ? w->usage_ps / w->usage_windows / 1000.0 : 0;
      out->usage_windows = w->usage_windows;
      const double mbps[DMA_DIR_COUNT] = { [DMA_WRITE] = w->uses[DMA_WRITE] ? out->write_mbps : NAN,
                                           [DMA_READ] = w->uses[DMA_READ] ? out->read_mbps : NAN };
      LinkUsage u[2];
      u[LINK_UPSTREAM] = out->upstream;
      u[LINK_DOWNSTREAM] = out->downstream;
      if (s->d->software_timed)
        why_software (s, w);
      why_result (w->why, u, mbps, &out->why);
    }
    out->events = sim_events_executed (s->engine);
    out->tlps = fabric_tlps_delivered (s->f);
    for (int dir = 0; dir < 2; dir++)
      out->errors[dir] = link_errors (w->link, (LinkDir) dir);
    out->tlp_pool_capacity = tlp_pool_capacity (fabric_pool (s->f));
  }
  if (s->pio.ep != NULL)
    pio_results (s, ok);
  return ok;
}

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

/* Mean and nearest-rank percentiles of n per-transfer times (SystemTransferStats); sorts them. */
static int
cmp_time (const void *a, const void *b)
{
  SimTime x = *(const SimTime *) a, y = *(const SimTime *) b;
  return x < y ? -1 : x > y;
}

static SystemTransferStats
transfer_stats (SimTime *v, uint32_t n)
{
  if (n == 0)
    return (SystemTransferStats) { 0 };
  qsort (v, n, sizeof *v, cmp_time);
  double sum = 0;
  for (uint32_t i = 0; i < n; i++)
    sum += (double) v[i];
  /* Rank ceil(p n), 1-based; computed in integers so 0.99 x 100 is exactly 99. */
  uint32_t r50 = (n * 50 + 99) / 100, r99 = (n * 99 + 99) / 100;
  return (SystemTransferStats) { TRUE, sum / n / 1000.0, (double) v[r50 - 1] / 1000.0, (double) v[r99 - 1] / 1000.0 };
}

/* --- the PIO benchmark ------------------------------------------------------------------------------------ */

/* MARK hooks: arg 0 opens a transfer (software start; the first opens the window), 1 closes it (software end, a
 * sample), 2 closes the window once the queued writes are on the wire (the DRAIN before it). The figure is the
 * window's bytes over its length, and link usage covers the window. */
static void
pio_mark (void *ctx, guint thread, uint64_t arg, SimTime at)
{
  System *s = ctx;
  if (arg == 0) {
    if (s->pio.n == 0) {
      s->pio.window_ps = at;
      link_stats_reset (s->pio.link);
      for (int d = 0; d < 2; d++)
        stall_read (link_stall_clock (s->pio.link, (LinkDir) d), at, s->pio.stall_ps[d]);
    }
    s->pio.start_ps = at;
    return;
  }
  SimTime dt = at - s->pio.start_ps;
  if (arg == 1) {
    g_assert (dt > 0);
    s->pio.samples[s->pio.n++] = dt;
    return;
  }
  s->pio.window_ps = at - s->pio.window_ps;
  s->pio.usage_ps = (double) s->pio.window_ps;
  for (int d = 0; d < 2; d++) {
    SimTime now[STALL_COUNT];
    stall_read (link_stall_clock (s->pio.link, (LinkDir) d), at, now);
    for (int c = 0; c < STALL_COUNT; c++)
      s->pio.stall_ps[d][c] = now[c] - s->pio.stall_ps[d][c];
  }
  usage_add (s->pio.link, s->pio.usage_ps, s->pio.usage_sum, s->pio.usage_counters);
}

/* What the memory target received and sent must be what the CPU sent and asked for, and the CPU must have stored
 * every byte of every transfer. */
static gboolean
pio_check_end (const System *s, GError **error)
{
  if (!cpu_check_invariants (s->cpu, error))
    return FALSE;
  CpuCounters c = cpu_counters (s->cpu);
  EndpointCounters e = endpoint_counters (s->pio.ep);
  HostCounters h = host_counters (s->host);
  uint64_t want_stored = s->pio.mode == SYSTEM_PIO_WRITE ? s->pio.bytes * s->d->iterations : 0;
  if (c.wc.bytes_stored != want_stored || e.bytes_written != c.write_bytes || e.writes != c.writes
      || h.cpu_writes != c.writes || e.cpl_bytes != c.load_bytes || h.cpu_cpls != e.cpls) {
    g_set_error (error, SYSTEM_ERROR, SYSTEM_ERROR_INVARIANT, "bytes moved do not add up: the CPU stored %"
      G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " bytes and sent %" G_GUINT64_FORMAT " writes (%" G_GUINT64_FORMAT
      " bytes), the memory target took %" G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT " bytes); it completed %"
      G_GUINT64_FORMAT " bytes in %" G_GUINT64_FORMAT " completions, the CPU took %" G_GUINT64_FORMAT " in %"
      G_GUINT64_FORMAT, c.wc.bytes_stored, want_stored, c.writes, c.write_bytes, e.writes, e.bytes_written,
      e.cpl_bytes, e.cpls, c.load_bytes, h.cpu_cpls);
    return FALSE;
  }
  if (e.write_checksum != c.write_checksum)
    return integrity_error (error, endpoint_component (s->pio.ep)->name, e.write_checksum, c.write_checksum,
                            "memory");
  if (e.cpl_checksum != c.load_checksum_wanted)
    return integrity_error (error, endpoint_component (s->pio.ep)->name, e.cpl_checksum, c.load_checksum_wanted,
                            "completions sent");
  return TRUE;
}

static void
pio_results (System *s, gboolean ok)
{
  SystemResult *out = s->pio.out;
  out->events = sim_events_executed (s->engine);
  out->tlps = fabric_tlps_delivered (s->f);
  for (int dir = 0; dir < 2; dir++)
    out->errors[dir] = link_errors (s->pio.link, (LinkDir) dir);
  out->tlp_pool_capacity = tlp_pool_capacity (fabric_pool (s->f));
  if (!ok)
    return;
  DmaDir dir = s->pio.mode == SYSTEM_PIO_READ ? DMA_READ : DMA_WRITE;
  double mbps = (double) s->pio.bytes * s->pio.n * 1e6 / (double) s->pio.window_ps, ns = s->pio.usage_ps / 1000.0;
  *(dir == DMA_READ ? &out->read_mbps : &out->write_mbps) = mbps;
  *(dir == DMA_READ ? &out->read_counter_ns : &out->write_counter_ns) = ns;
  out->transfer[dir] = transfer_stats (s->pio.samples, s->pio.n);
  usage_result (out, s->pio.usage_sum, s->pio.usage_counters, s->pio.usage_ps);
  out->usage_window_ns = ns;
  out->usage_windows = 1;
  out->host = host_counters (s->host);
  out->cpu = cpu_counters (s->cpu);
  /* The verdict (why.h): the data's one hop, its protocol limit for TLPs of the size the core's accesses were
   * cut into, and a hop with nothing to send waits for the program. */
  uint64_t tlps = dir == DMA_WRITE ? out->cpu.writes : out->host.cpu_cpls;
  uint64_t bytes = dir == DMA_WRITE ? out->cpu.write_bytes : out->cpu.load_bytes;
  LinkParams lp = *link_params (s->pio.link);
  if (tlps > 0)
    lp.max_payload_bytes = (uint32_t) MAX (4, (bytes / tlps + 3) / 4 * 4);
  LinkDir ld = dir == DMA_WRITE ? LINK_DOWNSTREAM : LINK_UPSTREAM;
  WhyHop hop = { .usage = ld == LINK_DOWNSTREAM ? out->downstream : out->upstream,
                 .limit_mbps = link_protocol_limit_mbps (&lp, 12) };
  for (int c = 0; c < STALL_COUNT; c++)
    hop.idle_ps[c] = (double) s->pio.stall_ps[ld][c];
  why_hops_verdict (&hop, 1, mbps, STALL_SOFTWARE, 0, &out->why.verdict[dir]);
}

/* One core runs the PIO program against BAR1 of `ep` (system.h). */
static gboolean trace_start (System *s, GError **error);

static gboolean
run_pio (Fabric *f, Host *host, Endpoint *ep, const SystemParams *p, SystemMode mode, const SystemDriver *d,
  SystemResult *out, GError **error)
{
  System s = { .f = f, .host = host, .engine = fabric_engine (f), .d = d, .mode = mode, .n_threads = 1 };
  *out = (SystemResult) { 0 };
  CpuParams cp = cpu_params_of (d->cpu);
  s.cpu = cpu_new (s.engine, host, &cp);
  host_set_irq_delay (host, cpu_irq_delay_ps, s.cpu);
  s.pio.mode = mode;
  s.pio.ep = ep;
  s.pio.link = fabric_uplink (endpoint_component (ep));
  s.pio.mps = link_params (s.pio.link)->max_payload_bytes;
  s.pio.address = endpoint_bar (ep, 1);
  s.pio.bytes = p->transfer_bytes;
  s.pio.out = out;
  s.pio.samples = g_new (SimTime, d->iterations);
  gboolean write = mode == SYSTEM_PIO_WRITE;
  CpuOp ops[8] = {
    { .kind = CPU_OP_MARK, .hook = pio_mark, .ctx = &s, .arg = 0 },
    { .kind = CPU_OP_COMPUTE, .ns = p->pio.overhead_ns },
    { .kind = write ? CPU_OP_STORE : CPU_OP_LOAD, .address = s.pio.address, .bytes = s.pio.bytes,
      .width = write ? p->pio.store_bytes : p->pio.load_bytes, .uc = p->pio.write_uc },
  };
  guint n = 3;
  if (write)
    ops[n++] = (CpuOp) { .kind = CPU_OP_FENCE };
  ops[n++] = (CpuOp) { .kind = CPU_OP_MARK, .hook = pio_mark, .ctx = &s, .arg = 1 };
  ops[n++] = (CpuOp) { .kind = CPU_OP_LOOP, .target = 0, .count = d->iterations, .ns = p->host.iteration_gap_ns };
  /* The transfers run back to back and one window times them all, as a benchmark loop between two timer reads
   * does. A fence ends once the root complex has posted the writes, so the window closes only when the last of
   * them is on the wire: no figure counts bytes the link has not carried (README, "PIO versus DMA"). */
  ops[n++] = (CpuOp) { .kind = CPU_OP_DRAIN };
  ops[n++] = (CpuOp) { .kind = CPU_OP_MARK, .hook = pio_mark, .ctx = &s, .arg = 2 };
  cpu_add_thread (s.cpu, ops, n);
  /* Traced, the links show the PIO TLPs and the CPU its program (there is no DMA to declare). */
  gboolean ok = trace_start (&s, error) && run (&s, error);
  g_free (s.pio.samples);
  cpu_free (s.cpu);
  return ok;
}

/* Every link and every workload's DMA on the trace, then the trace starts (trace.h: declarations come first). */
static gboolean
trace_start (System *s, GError **error)
{
  SimTrace *t = s->d->trace;
  if (t == NULL)
    return TRUE;
  for (guint i = 0; i < fabric_n_links (s->f); i++) {
    g_autofree char *name = g_strdup_printf ("link%u", i);
    link_trace_declare (fabric_link (s->f, i), t, name);
  }
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
run_fabric (Fabric *f, Host *host, const SystemWorkload *wl, guint n, const SystemDriver *d, SystemResult *out,
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
      g_set_error (error, SYSTEM_ERROR, SYSTEM_ERROR_PARAM, "%s has no DMA to run",
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
    g_set_error (error, SYSTEM_ERROR, SYSTEM_ERROR_PARAM, "iterations must be at least 1");
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
  CpuParams cp = cpu_params_of (d->cpu);
  s.cpu = cpu_new (s.engine, host, &cp);
  host_set_irq_delay (host, cpu_irq_delay_ps, s.cpu);
  s.n_threads = d->software_timed ? max_channels : 1;
  for (guint t = 0; t < s.n_threads; t++)
    add_driver_thread (&s, t);
  gboolean ok = trace_start (&s, error) && run (&s, error);
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
      g_set_error (error, SYSTEM_ERROR, SYSTEM_ERROR_PARAM, "%s: no link or no DMA", c->name);
      return FALSE;
    }
    if (!host_params_check (host_params (host), link_params (l)->max_payload_bytes, error)
        || !endpoint_params_check (ep, error))
      return FALSE;
  }
  return run_fabric (f, host, w, n, d, out, error);
}

/* The smallest fabric, as every config describes it. Only the parameters' checks differ from a fabric of the
 * caller's: system_params_check() names the limits of this memory map. */
gboolean
system_run (const SystemParams *p, SystemMode mode, uint64_t seed, SystemResult *out, GError **error)
{
  if (!params_check (p, mode, error))
    return FALSE;
  gboolean pio = mode == SYSTEM_PIO_READ || mode == SYSTEM_PIO_WRITE;
  /* Everything is built afresh for this run and freed at its end: a mode never inherits credits, queues or
   * timers from another, so its figure is the same whether it ran alone or after the others. */
  Fabric *f = fabric_new (seed);
  Host *host = host_new (f, "host", &p->host, 1);
  EndpointParams ep = { .app = p->app, .has_dma = TRUE, .dma = p->dma, .rcb_bytes = ENDPOINT_RCB_BYTES,
                        .mem_read_latency_cycles = p->bar_read_latency_cycles,
                        .bars = { { .size_bytes = BAR0_BYTES } } };
  /* The PIO benchmark's memory: BAR1, a power of two that holds the transfer (at least a page). */
  if (pio) {
    uint64_t bar1 = 4096;
    while (bar1 < p->transfer_bytes)
      bar1 *= 2;
    ep.bars[1].size_bytes = bar1;
  }
  Endpoint *e = endpoint_new (f, "endpoint", &ep);
  Link *link = fabric_connect (f, host_component (host), 0, endpoint_component (e), 0, &p->link, error);
  gboolean ok = link != NULL && fabric_enumerate (f, error);
  if (ok) {
    if (p->host_fault != HOST_FAULT_NONE)
      host_inject_fault (host, p->host_fault, p->host_fault_at);
    if (p->link_fault != LINK_FAULT_NONE)
      link_inject_fault (link, p->link_fault, p->link_fault_dir, p->link_fault_at);
    SystemWorkload w = { .endpoint = e, .mode = mode, .transfer_bytes = p->transfer_bytes };
    SystemDriver d = { .iterations = p->iterations, .software_timed = p->software_timed,
                       .watchdog_ps = p->watchdog_ps, .cpu = &p->cpu, .trace = p->trace };
    ok = pio ? run_pio (f, host, e, p, mode, &d, out, error) : run_fabric (f, host, &w, 1, &d, out, error);
  }
  fabric_free (f);
  return ok;
}
