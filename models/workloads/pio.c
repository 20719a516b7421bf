/* pio.c — the PIO benchmark (contract in pio.h and system.h): one core's program of stores or loads at an
 * endpoint's BAR1, timed by software marks, as a workload of the run harness (run.h).
 *
 * The program is the CPU's (cpu.h): MARK, COMPUTE, STORE or LOAD, FENCE, MARK, LOOP, then DRAIN and a last MARK.
 * The marks are the whole measurement: each transfer's software start and end (the samples), and one window over
 * all of them, closed only once the last write the root complex posted is on the wire. */
#include "models/workloads/pio.h"

#include "models/fabric/run.h"

typedef struct {
  Fabric *f;
  Host *host;
  SimEngine *engine;
  RunCtx *run;
  const SystemDriver *d;
  SystemMode mode;
  Endpoint *ep;
  Link *link;
  Cpu *cpu;
  uint64_t address, bytes;
  uint32_t mps;
  gboolean running; /* the thread is owed to software until it ends */
  SimTime window_ps, start_ps;
  SimTime *samples;
  uint32_t n;
  RunUsage usage;
  SimTime stall_ps[2][STALL_COUNT]; /* the link's idle time by cause, by LinkDir: at the window's start, then over it */
  SystemResult *out;
} Pio;

gboolean
pio_params_check (const SystemParams *p, gboolean write, GError **error)
{
  CpuParams c = system_cpu_params (&p->cpu);
  const uint32_t w[2] = { p->pio.store_bytes, p->pio.load_bytes };
  for (int i = 0; i < 2; i++)
    if (w[i] < 1 || w[i] > 32 || (w[i] & (w[i] - 1)) != 0 || w[i] > c.wc.buffer_bytes) {
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "PIO %s of %u bytes: must be a power of two from 1 to 32, and "
                   "no wider than a write-combining buffer (%u)", i ? "load" : "store", w[i], c.wc.buffer_bytes);
      return FALSE;
    }
  if (p->transfer_bytes == 0 || p->transfer_bytes > PIO_MAX_BYTES) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "PIO transfer of %" G_GUINT64_FORMAT " bytes: must be 1..%"
                 G_GUINT64_FORMAT " (the BAR memory)", p->transfer_bytes, PIO_MAX_BYTES);
    return FALSE;
  }
  if (write && c.store_ns == 0 && c.post_ns == 0 && p->pio.overhead_ns == 0) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "a PIO write on a CPU whose stores take no time, with no path to "
                 "where the root complex posts them and no software overhead, takes no time at all: its software "
                 "end is its start (give the CPU's store time, path or overhead)");
    return FALSE;
  }
  if (!(p->pio.overhead_ns >= 0 && p->pio.overhead_ns < 1e9)) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "PIO overhead %g ns: must be finite, >= 0 and below 1 s",
                 p->pio.overhead_ns);
    return FALSE;
  }
  return TRUE;
}

/* MARK hooks: arg 0 opens a transfer (software start; the first opens the window), 1 closes it (software end, a
 * sample), 2 closes the window once the queued writes are on the wire (the DRAIN before it). The figure is the
 * window's bytes over its length, and link usage covers the window. */
static void
mark (void *ctx, guint thread, uint64_t arg, SimTime at)
{
  Pio *p = ctx;
  if (arg == 0) {
    if (p->n == 0) {
      p->window_ps = at;
      link_stats_reset (p->link);
      for (int d = 0; d < 2; d++)
        stall_read (link_stall_clock (p->link, (LinkDir) d), at, p->stall_ps[d]);
    }
    p->start_ps = at;
    return;
  }
  SimTime dt = at - p->start_ps;
  if (arg == 1) {
    g_assert (dt > 0);
    p->samples[p->n++] = dt;
    return;
  }
  p->window_ps = at - p->window_ps;
  for (int d = 0; d < 2; d++) {
    SimTime now[STALL_COUNT];
    stall_read (link_stall_clock (p->link, (LinkDir) d), at, now);
    for (int c = 0; c < STALL_COUNT; c++)
      p->stall_ps[d][c] = now[c] - p->stall_ps[d][c];
  }
  run_usage_add (&p->usage, p->link, (double) p->window_ps);
}

static void
done (void *ctx)
{
  Pio *p = ctx;
  p->running = FALSE;
  p->out->sim_time_ps = sim_now (p->engine);
  run_finished (p->run);
}

static void
start (void *self, RunCtx *run)
{
  Pio *p = self;
  p->run = run;
  p->running = TRUE;
  cpu_start (p->cpu, done, p);
}

static gboolean
owed (void *self)
{
  return ((Pio *) self)->running;
}

static uint64_t
progress (void *self)
{
  return cpu_progress (((Pio *) self)->cpu);
}

static SimTime
quiet (void *self)
{
  const Pio *p = self;
  return system_quiet_ps (host_params (p->host), p->mps, 0) + system_cpu_quiet_ps (p->d->cpu, 0);
}

/* PIO reads move a few bytes per round trip, so the budget is 1 KB/s rather than the DMA's 1 MB/s. */
static SimTime
budget (void *self)
{
  const Pio *p = self;
  return SIM_MS * 1000 + (SimTime) p->d->iterations * (p->bytes * 1000) * SIM_US;
}

static void
where (void *self, GString *out)
{
  const Pio *p = self;
  g_string_append_printf (out, "the %s run, transfer %u of %u", system_mode_name (p->mode), p->n + 1,
                          p->d->iterations);
}

static void
describe_wait (void *self, GString *out)
{
  cpu_describe_wait (((Pio *) self)->cpu, out);
}

/* What the memory target received and sent must be what the CPU sent and asked for, and the CPU must have stored
 * every byte of every transfer. */
static gboolean
check (void *self, RunLedger *ledger, GError **error)
{
  const Pio *p = self;
  if (!cpu_check_invariants (p->cpu, error))
    return FALSE;
  CpuCounters c = cpu_counters (p->cpu);
  EndpointCounters e = endpoint_counters (p->ep);
  HostCounters h = host_counters (p->host);
  uint64_t want_stored = p->mode == SYSTEM_PIO_WRITE ? p->bytes * p->d->iterations : 0;
  if (c.wc.bytes_stored != want_stored || e.bytes_written != c.write_bytes || e.writes != c.writes
      || h.cpu_writes != c.writes || e.cpl_bytes != c.load_bytes || h.cpu_cpls != e.cpls) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_INVARIANT, "bytes moved do not add up: the CPU stored %"
      G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " bytes and sent %" G_GUINT64_FORMAT " writes (%" G_GUINT64_FORMAT
      " bytes), the memory target took %" G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT " bytes); it completed %"
      G_GUINT64_FORMAT " bytes in %" G_GUINT64_FORMAT " completions, the CPU took %" G_GUINT64_FORMAT " in %"
      G_GUINT64_FORMAT, c.wc.bytes_stored, want_stored, c.writes, c.write_bytes, e.writes, e.bytes_written,
      e.cpl_bytes, e.cpls, c.load_bytes, h.cpu_cpls);
    return FALSE;
  }
  RunMemory *m = run_ledger_at (ledger, endpoint_component (p->ep), FALSE);
  m->mem_sum += c.write_checksum;
  m->cpl_sum += c.load_checksum_wanted;
  return TRUE;
}

static void
result (void *self, const RunCtx *run, gboolean ok)
{
  Pio *p = self;
  SystemResult *out = p->out;
  RunStats st = run_stats (run);
  system_run_counts (out, &st, p->link);
  if (!ok)
    return;
  DmaDir dir = p->mode == SYSTEM_PIO_READ ? DMA_READ : DMA_WRITE;
  double mbps = (double) p->bytes * p->n * 1e6 / (double) p->window_ps, ns = p->usage.ps / 1000.0;
  *(dir == DMA_READ ? &out->read_mbps : &out->write_mbps) = mbps;
  *(dir == DMA_READ ? &out->read_counter_ns : &out->write_counter_ns) = ns;
  out->transfer[dir] = system_transfer_stats (p->samples, p->n);
  system_usage_result (out, &p->usage);
  out->host = host_counters (p->host);
  out->cpu = cpu_counters (p->cpu);
  /* The verdict (why.h): the data's one hop, its protocol limit for TLPs of the size the core's accesses were
   * cut into, and a hop with nothing to send waits for the program. */
  uint64_t tlps = dir == DMA_WRITE ? out->cpu.writes : out->host.cpu_cpls;
  uint64_t bytes = dir == DMA_WRITE ? out->cpu.write_bytes : out->cpu.load_bytes;
  LinkParams lp = *link_params (p->link);
  if (tlps > 0)
    lp.max_payload_bytes = (uint32_t) MAX (4, (bytes / tlps + 3) / 4 * 4);
  LinkDir ld = dir == DMA_WRITE ? LINK_DOWNSTREAM : LINK_UPSTREAM;
  WhyHop hop = { .usage = ld == LINK_DOWNSTREAM ? out->downstream : out->upstream,
                 .limit_mbps = link_protocol_limit_mbps (&lp, 12) };
  for (int c = 0; c < STALL_COUNT; c++)
    hop.idle_ps[c] = (double) p->stall_ps[ld][c];
  why_hops_verdict (&hop, 1, mbps, STALL_SOFTWARE, 0, &out->why.verdict[dir]);
}

static const RunWorkload pio_workload = {
  .start = start, .owed = owed, .progress = progress, .quiet_ps = quiet, .budget_ps = budget, .where = where,
  .describe_wait = describe_wait, .check = check, .result = result,
};

gboolean
pio_run (Fabric *f, Host *host, Endpoint *ep, const SystemParams *sp, SystemMode mode, const SystemDriver *d,
  SystemResult *out, GError **error)
{
  Pio p = { .f = f, .host = host, .engine = fabric_engine (f), .d = d, .mode = mode, .ep = ep, .out = out };
  *out = (SystemResult) { 0 };
  CpuParams cp = system_cpu_params (d->cpu);
  p.cpu = cpu_new (p.engine, host, &cp);
  host_set_irq_delay (host, cpu_irq_delay_ps, p.cpu);
  p.link = fabric_uplink (endpoint_component (ep));
  p.mps = link_params (p.link)->max_payload_bytes;
  p.address = endpoint_bar (ep, 1);
  p.bytes = sp->transfer_bytes;
  p.samples = g_new (SimTime, d->iterations);
  gboolean write = mode == SYSTEM_PIO_WRITE;
  CpuOp ops[8] = {
    { .kind = CPU_OP_MARK, .hook = mark, .ctx = &p, .arg = 0 },
    { .kind = CPU_OP_COMPUTE, .ns = sp->pio.overhead_ns },
    { .kind = write ? CPU_OP_STORE : CPU_OP_LOAD, .address = p.address, .bytes = p.bytes,
      .width = write ? sp->pio.store_bytes : sp->pio.load_bytes, .uc = sp->pio.write_uc },
  };
  guint n = 3;
  if (write)
    ops[n++] = (CpuOp) { .kind = CPU_OP_FENCE };
  ops[n++] = (CpuOp) { .kind = CPU_OP_MARK, .hook = mark, .ctx = &p, .arg = 1 };
  ops[n++] = (CpuOp) { .kind = CPU_OP_LOOP, .target = 0, .count = d->iterations, .ns = sp->host.iteration_gap_ns };
  /* The transfers run back to back and one window times them all, as a benchmark loop between two timer reads
   * does. A fence ends once the root complex has posted the writes, so the window closes only when the last of
   * them is on the wire: no figure counts bytes the link has not carried (docs, "PIO versus DMA"). */
  ops[n++] = (CpuOp) { .kind = CPU_OP_DRAIN };
  ops[n++] = (CpuOp) { .kind = CPU_OP_MARK, .hook = mark, .ctx = &p, .arg = 2 };
  cpu_add_thread (p.cpu, ops, n);
  /* Traced, the links show the PIO TLPs and the CPU its program (there is no DMA to declare). */
  gboolean ok = TRUE;
  if (d->trace != NULL) {
    system_trace_links (f, d->trace);
    cpu_trace_declare (p.cpu, d->trace, "cpu");
    ok = sim_trace_start (d->trace, error);
  }
  ok = ok && run_go (f, &pio_workload, &p, d->watchdog_ps, error);
  g_free (p.samples);
  cpu_free (p.cpu);
  return ok;
}
