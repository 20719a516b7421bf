/* nvme_driver.c — the host's NVMe driver (contract in nvme_driver.h). */
#include "models/workloads/nvme_driver.h"

#include "models/base/pattern.h"
#include "models/base/units.h"

#include <string.h>

#define SQ_BASE UINT64_C (0x100000000) /* 4 GB: each queue's SQ, then its CQ, in a 16 MB region of its own */
#define QUEUE_REGION UINT64_C (0x1000000)
#define PRP_BASE UINT64_C (0x180000000) /* one 4 KB page of PRP list per command slot */
#define DATA_BASE UINT64_C (0x200000000)
#define MSIX_BASE UINT64_C (0xFEE00000) /* the local APIC's window; vector q at + q << 12 */

typedef struct Driver Driver;

typedef struct {
  Driver *drv;
  uint32_t index;
  NvmeSqe *sq;
  uint16_t *cq;
  uint32_t entries, cq_entries, sq_tail;
  uint64_t reaped;
  uint16_t *free_cid;
  uint32_t n_free;
  uint64_t covered; /* entries the latest interrupt covers: the CQ head doorbell goes when they are reaped */
  uint64_t head_sent; /* entries reaped as of the last CQ head doorbell */
  SimTime *start_ps; /* by command ID */
} DrvQueue;

struct Driver {
  NvmeDriverParams p;
  Fabric *f;
  Host *host;
  Nvme *d;
  SimEngine *engine;
  RunCtx *run;
  Cpu *cpu;
  uint32_t queues, depth;
  DrvQueue *q;
  uint64_t submitted, completed, writes_submitted;
  SimTime submit_ps, complete_ps, last_end_ps;
  gboolean cpu_done;
  LatHist *lat;
  uint64_t interrupts, doorbells, bytes;
  /* What host memory must have sent and taken in (the ledger). */
  uint64_t cpl_bytes, cpl_sum, mem_bytes, mem_sum;
  NvmeResult *out;
};

gboolean
nvme_driver_params_check (const NvmeDriverParams *p, GError **error)
{
  if (p->block_bytes == 0 || p->block_bytes % 512 != 0 || p->block_bytes > NVME_MAX_BLOCK_BYTES || p->commands == 0
      || !(p->write_percent >= 0 && p->write_percent <= 100) || !(p->submit_ns >= 0 && p->submit_ns < 1e9)
      || !(p->complete_ns >= 0 && p->complete_ns < 1e9) || p->commands > (uint64_t) UINT32_MAX) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "NVMe driver: block of %u bytes (a multiple of 512 up to %u), "
                 "%" G_GUINT64_FORMAT " commands (at least 1), %g%% writes, %g and %g ns per command",
                 p->block_bytes, NVME_MAX_BLOCK_BYTES, p->commands, p->write_percent, p->submit_ns, p->complete_ns);
    return FALSE;
  }
  return TRUE;
}

/* Its core has built a command (MARK after submit_ns, at the thread's time `ps`): the entry into the SQ ring, then
 * the SQ tail doorbell. */
static void
on_submit (void *ctx, guint thread, uint64_t arg, SimTime ps)
{
  Driver *drv = ctx;
  DrvQueue *q = &drv->q[thread];
  uint16_t cid = q->free_cid[--q->n_free];
  uint64_t k = drv->submitted++;
  gboolean write = (uint64_t) ((double) (k + 1) * drv->p.write_percent / 100.0)
                   > (uint64_t) ((double) k * drv->p.write_percent / 100.0);
  uint64_t slot = (uint64_t) q->index * drv->depth + cid;
  uint64_t base = DATA_BASE + slot * 2 * NVME_MAX_BLOCK_BYTES;
  uint32_t pages = (drv->p.block_bytes + NVME_PAGE_BYTES - 1) / NVME_PAGE_BYTES;
  NvmeSqe s = { .cid = cid, .write = write, .bytes = drv->p.block_bytes, .page = { base, base + 2 * NVME_PAGE_BYTES },
                .page_stride_bytes = 2 * NVME_PAGE_BYTES };
  if (pages > 2) {
    s.prp_list = PRP_BASE + slot * NVME_PAGE_BYTES;
    drv->cpl_bytes += (pages - 1) * NVME_PRP_BYTES;
    drv->cpl_sum += pattern_sum (s.prp_list, (pages - 1) * NVME_PRP_BYTES);
  }
  uint64_t sq_address = SQ_BASE + q->index * QUEUE_REGION + (uint64_t) q->sq_tail * NVME_SQE_BYTES;
  drv->cpl_bytes += NVME_SQE_BYTES;
  drv->cpl_sum += pattern_sum (sq_address, NVME_SQE_BYTES);
  for (uint32_t i = 0; i < pages; i++) {
    uint64_t a = i == 0 ? s.page[0] : s.page[1] + (uint64_t) (i - 1) * s.page_stride_bytes;
    uint32_t n = MIN (NVME_PAGE_BYTES, drv->p.block_bytes - i * NVME_PAGE_BYTES);
    *(write ? &drv->cpl_sum : &drv->mem_sum) += pattern_sum (a, n);
  }
  *(write ? &drv->cpl_bytes : &drv->mem_bytes) += drv->p.block_bytes;
  drv->writes_submitted += write;
  q->sq[q->sq_tail] = s;
  q->sq_tail = (q->sq_tail + 1) % q->entries;
  q->start_ps[cid] = ps - drv->submit_ps;
  host_pio_write (drv->host, ps - sim_now (drv->engine), nvme_doorbell (drv->d, q->index, FALSE), TRUE, q->sq_tail);
  drv->doorbells++;
}

/* Its core has reaped the next entry (MARK after complete_ns): the command's latency ends; the last entry an
 * interrupt covered writes the CQ head doorbell. */
static void
on_reap (void *ctx, guint thread, uint64_t arg, SimTime ps)
{
  Driver *drv = ctx;
  DrvQueue *q = &drv->q[thread];
  uint64_t a = SQ_BASE + q->index * QUEUE_REGION + QUEUE_REGION / 2 + (q->reaped % q->cq_entries) * NVME_CQE_BYTES;
  drv->mem_bytes += NVME_CQE_BYTES;
  drv->mem_sum += pattern_sum (a, NVME_CQE_BYTES);
  uint16_t cid = q->cq[q->reaped % q->cq_entries];
  q->reaped++;
  lat_add (drv->lat, ps - q->start_ps[cid]);
  q->free_cid[q->n_free++] = cid;
  drv->completed++;
  drv->bytes += drv->p.block_bytes;
  drv->last_end_ps = MAX (drv->last_end_ps, ps);
  /* The CQ holds twice the queue depth: with at most queue_depth entries unreaped, the device never finds it full
   * while the doorbell lags by fewer than queue_depth reapings. */
  if (q->reaped == q->covered || q->reaped - q->head_sent >= MAX (drv->depth / 2, 1u)) {
    host_pio_write (drv->host, ps - sim_now (drv->engine), nvme_doorbell (drv->d, q->index, TRUE), TRUE,
                    (uint32_t) (q->reaped % q->cq_entries));
    q->head_sent = q->reaped;
    drv->doorbells++;
  }
}

/* Queue q's MSI-X, once the CPU's interrupt and wake-up times have passed (host_set_irq_delay): one signal to its
 * core per entry it covers, each reaped in turn. A coalescing timer's interrupt may cover nothing new. */
static void
handler (void *ctx, uint64_t address, uint32_t posted)
{
  DrvQueue *q = ctx;
  Driver *drv = q->drv;
  drv->interrupts++;
  uint64_t upto = q->covered + (uint32_t) (posted - (uint32_t) q->covered);
  for (; q->covered < upto; q->covered++)
    cpu_signal (drv->cpu, q->index);
}

static void
cpu_done (void *ctx)
{
  Driver *drv = ctx;
  drv->cpu_done = TRUE;
  for (int d = 0; d < 2; d++)
    drv->out->usage[d] = link_usage (fabric_uplink (nvme_component (drv->d)), (LinkDir) d);
  run_finished (drv->run);
}

/* Queue q's core (nvme_driver.h): its first commands, then per completion a reaping and the next command while
 * the queue has some left, then the last reapings. LOOP counts are rounds (cpu.h). */
static void
program (Driver *drv, uint32_t qi, uint64_t commands)
{
  uint32_t first = (uint32_t) MIN ((uint64_t) drv->depth, commands);
  uint32_t steady = (uint32_t) (commands - first);
  const CpuOp submit[2] = { { .kind = CPU_OP_COMPUTE, .ns = drv->p.submit_ns },
                            { .kind = CPU_OP_MARK, .hook = on_submit, .ctx = drv } };
  const CpuOp reap[3] = { { .kind = CPU_OP_WAIT, .count = 1 }, { .kind = CPU_OP_COMPUTE, .ns = drv->p.complete_ns },
                          { .kind = CPU_OP_MARK, .hook = on_reap, .ctx = drv } };
  CpuOp ops[13]; /* 3 + 6 + 4 */
  guint n = 0;
  memcpy (&ops[n], submit, sizeof submit);
  n += 2;
  ops[n++] = (CpuOp) { .kind = CPU_OP_LOOP, .target = 0, .count = first };
  if (steady > 0) {
    guint top = n;
    memcpy (&ops[n], reap, sizeof reap);
    memcpy (&ops[n + 3], submit, sizeof submit);
    n += 5;
    ops[n++] = (CpuOp) { .kind = CPU_OP_LOOP, .target = top, .count = steady };
  }
  guint top = n;
  memcpy (&ops[n], reap, sizeof reap);
  n += 3;
  ops[n++] = (CpuOp) { .kind = CPU_OP_LOOP, .target = top, .count = first };
  guint t = cpu_add_thread (drv->cpu, ops, n);
  g_assert (t == qi);
}

static void
start (void *self, RunCtx *run)
{
  Driver *drv = self;
  drv->run = run;
  link_stats_reset (fabric_uplink (nvme_component (drv->d)));
  cpu_start (drv->cpu, cpu_done, drv);
}

static gboolean
owed (void *self)
{
  Driver *drv = self;
  return !drv->cpu_done;
}

static uint64_t
progress (void *self)
{
  Driver *drv = self;
  return drv->submitted + drv->completed + drv->interrupts + cpu_progress (drv->cpu);
}

/* The device's silence, then every command of a queue reaped and resubmitted one after another. */
static SimTime
quiet (void *self)
{
  Driver *drv = self;
  const Component *c = nvme_component (drv->d);
  const CpuParams *cp = &drv->p.cpu;
  double irq_ns = (cp->interrupt ? dist_bound_ns (cp->interrupt) : 0) + (cp->wakeup ? dist_bound_ns (cp->wakeup) : 0);
  return c->kind->silence_ps (c) + (SimTime) drv->depth * (drv->submit_ps + drv->complete_ps)
         + units_ns_to_ps (host_params (drv->host)->msi_latency_ns + irq_ns);
}

static SimTime
budget (void *self)
{
  Driver *drv = self;
  return (SimTime) (drv->p.commands + 1) * (quiet (self) + 10 * SIM_MS);
}

static void
where (void *self, GString *out)
{
  Driver *drv = self;
  g_string_append_printf (out, "the NVMe run, %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " commands completed",
                          drv->completed, drv->p.commands);
}

static void
describe_wait (void *self, GString *out)
{
  cpu_describe_wait (((Driver *) self)->cpu, out);
}

static gboolean
check (void *self, RunLedger *ledger, GError **error)
{
  Driver *drv = self;
  if (!cpu_check_invariants (drv->cpu, error))
    return FALSE;
  NvmeCounters c = nvme_counters (drv->d);
  if (c.commands != drv->p.commands || drv->completed != drv->p.commands
      || c.writes != drv->writes_submitted) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_INVARIANT, "NVMe: %" G_GUINT64_FORMAT " commands completed by the "
                 "device and %" G_GUINT64_FORMAT " reaped of %" G_GUINT64_FORMAT, c.commands, drv->completed,
                 drv->p.commands);
    return FALSE;
  }
  RunMemory *m = run_ledger_at (ledger, host_component (drv->host), TRUE);
  m->cpl_bytes += drv->cpl_bytes;
  m->cpl_sum += drv->cpl_sum;
  m->mem_bytes += drv->mem_bytes + 4 * c.msis; /* an MSI-X is a 1-DW write the host counts, not memory (host.h) */
  m->mem_sum += drv->mem_sum;
  return TRUE;
}

static void
result (void *self, const RunCtx *run, gboolean ok)
{
  Driver *drv = self;
  NvmeResult *o = drv->out;
  o->stats = run_stats (run);
  if (!ok)
    return;
  o->window_ps = drv->last_end_ps;
  o->commands = drv->completed;
  o->bytes = drv->bytes;
  o->interrupts = drv->interrupts;
  o->doorbells = drv->doorbells;
  o->iops = (double) drv->completed * 1e12 / (double) o->window_ps;
  o->mbps = (double) drv->bytes * 1e6 / (double) o->window_ps;
  o->latency = lat_summary (drv->lat);
  o->end_ps = sim_now (drv->engine);
}

static const RunWorkload nvme_workload = {
  .start = start, .owed = owed, .progress = progress, .quiet_ps = quiet, .budget_ps = budget, .where = where,
  .describe_wait = describe_wait, .check = check, .result = result,
};

gboolean
nvme_run (Fabric *f, Host *host, Nvme *d, const NvmeDriverParams *p, NvmeResult *out, GError **error)
{
  if (!nvme_driver_params_check (p, error) || !cpu_params_check (&p->cpu, error))
    return FALSE;
  if (nvme_params (d)->queues > CPU_MAX_THREADS) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "NVMe driver: %u queues, a core each: at most %u",
                 nvme_params (d)->queues, CPU_MAX_THREADS);
    return FALSE;
  }
  *out = (NvmeResult) { 0 };
  const NvmeParams *np = nvme_params (d);
  Driver drv = { .p = *p, .f = f, .host = host, .d = d, .engine = fabric_engine (f), .queues = np->queues,
                 .depth = np->queue_depth, .submit_ps = units_ns_to_ps (p->submit_ns),
                 .complete_ps = units_ns_to_ps (p->complete_ns), .out = out };
  drv.lat = g_new0 (LatHist, 1);
  drv.cpu = cpu_new (drv.engine, host, &p->cpu);
  host_set_irq_delay (host, cpu_irq_delay_ps, drv.cpu);
  drv.q = g_new0 (DrvQueue, drv.queues);
  for (uint32_t i = 0; i < drv.queues; i++) {
    DrvQueue *q = &drv.q[i];
    *q = (DrvQueue) { .drv = &drv, .index = i, .entries = drv.depth + 1, .cq_entries = 2 * drv.depth };
    q->sq = g_new0 (NvmeSqe, q->entries);
    q->cq = g_new0 (uint16_t, q->cq_entries);
    q->free_cid = g_new (uint16_t, drv.depth);
    q->start_ps = g_new0 (SimTime, drv.depth);
    for (uint32_t k = 0; k < drv.depth; k++)
      q->free_cid[q->n_free++] = (uint16_t) (drv.depth - 1 - k);
    uint64_t msix = MSIX_BASE + ((uint64_t) i << 12);
    nvme_create_queue (d, i, SQ_BASE + i * QUEUE_REGION, SQ_BASE + i * QUEUE_REGION + QUEUE_REGION / 2, q->entries,
                       q->cq_entries, q->sq, q->cq, msix);
    host_route_msi (host, msix, handler, q);
    program (&drv, i, p->commands / drv.queues + (i < p->commands % drv.queues));
  }
  cpu_trace_declare (drv.cpu, p->trace, "cpu");
  gboolean ok = (p->trace == NULL || sim_trace_start (p->trace, error))
                && run_go (f, &nvme_workload, &drv, p->watchdog_ps, error);
  for (uint32_t i = 0; i < drv.queues; i++) {
    g_free (drv.q[i].sq);
    g_free (drv.q[i].cq);
    g_free (drv.q[i].free_cid);
    g_free (drv.q[i].start_ps);
  }
  g_free (drv.q);
  g_free (drv.lat);
  cpu_free (drv.cpu);
  return ok;
}
