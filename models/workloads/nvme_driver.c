/* nvme_driver.c — the host's NVMe driver (contract in nvme_driver.h). */
#include "models/workloads/nvme_driver.h"

#include "models/base/pattern.h"
#include "models/base/units.h"

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
  uint32_t entries, sq_tail;
  uint64_t reaped;
  uint16_t *free_cid;
  uint32_t n_free;
  SimTime core_ps; /* when its core is free */
  SimTime *start_ps; /* by command ID */
} DrvQueue;

struct Driver {
  NvmeDriverParams p;
  Fabric *f;
  Host *host;
  Nvme *d;
  SimEngine *engine;
  RunCtx *run;
  uint32_t queues, depth;
  DrvQueue *q;
  uint64_t submitted, completed, writes_submitted;
  SimTime submit_ps, complete_ps, last_end_ps;
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
      || !(p->complete_ns >= 0 && p->complete_ns < 1e9)) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "NVMe driver: block of %u bytes (a multiple of 512 up to %u), "
                 "%" G_GUINT64_FORMAT " commands (at least 1), %g%% writes, %g and %g ns per command",
                 p->block_bytes, NVME_MAX_BLOCK_BYTES, p->commands, p->write_percent, p->submit_ns, p->complete_ns);
    return FALSE;
  }
  return TRUE;
}

static SimTime
core_take (DrvQueue *q, SimTime now, SimTime work)
{
  q->core_ps = MAX (q->core_ps, now) + work;
  return q->core_ps;
}

/* One command into queue q's SQ and its doorbell when the core has built it. */
static void
submit (Driver *drv, DrvQueue *q)
{
  SimTime now = sim_now (drv->engine);
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
  q->start_ps[cid] = MAX (q->core_ps, now);
  SimTime ready = core_take (q, now, drv->submit_ps);
  host_pio_write (drv->host, ready - now, nvme_doorbell (drv->d, q->index, FALSE), TRUE, q->sq_tail);
  drv->doorbells++;
}

static void
finished (SimEngine *e, void *ctx, uint64_t arg)
{
  Driver *drv = ctx;
  for (int d = 0; d < 2; d++)
    drv->out->usage[d] = link_usage (fabric_uplink (nvme_component (drv->d)), (LinkDir) d);
  run_finished (drv->run);
}

/* Queue q's MSI-X: reap what it covers, refill, then the CQ head doorbell. */
static void
handler (void *ctx, uint64_t address, uint32_t posted)
{
  DrvQueue *q = ctx;
  Driver *drv = q->drv;
  SimTime now = sim_now (drv->engine);
  drv->interrupts++;
  uint64_t upto = q->reaped + (uint32_t) (posted - (uint32_t) q->reaped);
  if (upto == q->reaped)
    return; /* a coalescing timer's interrupt for entries an earlier one covered */
  for (; q->reaped < upto; q->reaped++) {
    uint64_t a = SQ_BASE + q->index * QUEUE_REGION + QUEUE_REGION / 2 + (q->reaped % q->entries) * NVME_CQE_BYTES;
    drv->mem_bytes += NVME_CQE_BYTES;
    drv->mem_sum += pattern_sum (a, NVME_CQE_BYTES);
    uint16_t cid = q->cq[q->reaped % q->entries];
    SimTime end = core_take (q, now, drv->complete_ps);
    lat_add (drv->lat, end - q->start_ps[cid]);
    q->free_cid[q->n_free++] = cid;
    drv->completed++;
    drv->bytes += drv->p.block_bytes;
    drv->last_end_ps = MAX (drv->last_end_ps, end);
    if (drv->submitted < drv->p.commands)
      submit (drv, q);
  }
  host_pio_write (drv->host, q->core_ps - now, nvme_doorbell (drv->d, q->index, TRUE), TRUE,
                  (uint32_t) (q->reaped % q->entries));
  drv->doorbells++;
  if (drv->completed == drv->p.commands)
    sim_schedule_at (drv->engine, drv->last_end_ps, finished, drv, 0);
}

static void
start (void *self, RunCtx *run)
{
  Driver *drv = self;
  drv->run = run;
  link_stats_reset (fabric_uplink (nvme_component (drv->d)));
  for (uint32_t i = 0; i < drv->queues; i++)
    for (uint32_t k = 0; k < drv->depth && drv->submitted < drv->p.commands; k++)
      submit (drv, &drv->q[i]);
}

static gboolean
owed (void *self)
{
  Driver *drv = self;
  return drv->completed < drv->submitted;
}

static uint64_t
progress (void *self)
{
  Driver *drv = self;
  return drv->submitted + drv->completed + drv->interrupts;
}

/* The device's silence, then every command of a queue reaped and resubmitted one after another. */
static SimTime
quiet (void *self)
{
  Driver *drv = self;
  const Component *c = nvme_component (drv->d);
  return c->kind->silence_ps (c) + (SimTime) drv->depth * (drv->submit_ps + drv->complete_ps)
         + units_ns_to_ps (host_params (drv->host)->msi_latency_ns);
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

static gboolean
check (void *self, RunLedger *ledger, GError **error)
{
  Driver *drv = self;
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
  .check = check, .result = result,
};

gboolean
nvme_run (Fabric *f, Host *host, Nvme *d, const NvmeDriverParams *p, NvmeResult *out, GError **error)
{
  if (!nvme_driver_params_check (p, error))
    return FALSE;
  *out = (NvmeResult) { 0 };
  const NvmeParams *np = nvme_params (d);
  Driver drv = { .p = *p, .f = f, .host = host, .d = d, .engine = fabric_engine (f), .queues = np->queues,
                 .depth = np->queue_depth, .submit_ps = units_ns_to_ps (p->submit_ns),
                 .complete_ps = units_ns_to_ps (p->complete_ns), .out = out };
  drv.lat = g_new0 (LatHist, 1);
  drv.q = g_new0 (DrvQueue, drv.queues);
  for (uint32_t i = 0; i < drv.queues; i++) {
    DrvQueue *q = &drv.q[i];
    *q = (DrvQueue) { .drv = &drv, .index = i, .entries = drv.depth + 1 };
    q->sq = g_new0 (NvmeSqe, q->entries);
    q->cq = g_new0 (uint16_t, q->entries);
    q->free_cid = g_new (uint16_t, drv.depth);
    q->start_ps = g_new0 (SimTime, drv.depth);
    for (uint32_t k = 0; k < drv.depth; k++)
      q->free_cid[q->n_free++] = (uint16_t) (drv.depth - 1 - k);
    uint64_t msix = MSIX_BASE + ((uint64_t) i << 12);
    nvme_create_queue (d, i, SQ_BASE + i * QUEUE_REGION, SQ_BASE + i * QUEUE_REGION + QUEUE_REGION / 2, q->entries,
                       q->sq, q->cq, msix);
    host_route_msi (host, msix, handler, q);
  }
  gboolean ok = run_go (f, &nvme_workload, &drv, p->watchdog_ps, error);
  for (uint32_t i = 0; i < drv.queues; i++) {
    g_free (drv.q[i].sq);
    g_free (drv.q[i].cq);
    g_free (drv.q[i].free_cid);
    g_free (drv.q[i].start_ps);
  }
  g_free (drv.q);
  g_free (drv.lat);
  return ok;
}
