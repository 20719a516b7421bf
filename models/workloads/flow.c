/* flow.c — flows across a fabric: their sources, their measurement and their run (contract in flow.h).
 *
 * A flow is a client of its source's transmit side (an endpoint's datapath) that issues its requests one at a time
 * when the side asks (peek/take, fabric.h's FabricTxClient), and a set of counters. Requests carry the flow's
 * number in their cookie and the time they entered the source's transmit interface in their stamp; the fabric's
 * observer (fabric.h) sees them arrive at their target, which gives the one-way latencies and, for writes, the end
 * of the flow. Read data comes back as completions through the source's receive interface (its kind's requests
 * face, fabric.h), checked per tag.
 *
 * The run is a workload of the run harness (run.h), as the DMA benchmark is: its watchdog, settle and checks.
 */
#include "models/workloads/flow.h"

#include <math.h>
#include <string.h>

#include "models/base/pattern.h"
#include "models/txn/requester.h"
#include "models/observe/stall.h"

/* Host memory for flows' buffers: from 512 MB (below it, nothing of the fabric's) to the 32-bit MMIO window, or
 * from 4 GB to the 64-bit one (fabric.h). */
#define HOST_BASE_32 UINT64_C (0x20000000)
#define HOST_BASE_64 UINT64_C (0x100000000)
#define PAGE UINT64_C (0x1000)
/* The upper half of a request's cookie marks it as a flow's (the lower half is the flow's number, and in DMA mode
 * bits 16..31 the DMA's slot), so the observer tells a flow's request from anything else that may reach a target. */
#define FLOW_MAGIC UINT64_C (0x466c6f77)

typedef struct Flows Flows;

typedef struct {
  Flows *run;
  const FlowSpec *s;
  guint index;
  Component *source; /* its kind's requests face (fabric.h) is how the flow sends and gets its completions */
  const Component *target;
  uint16_t requester; /* the source function's ID: the device's with the spec's function number */
  uint64_t base; /* the buffer */
  uint32_t mps;
  uint64_t total; /* bytes x iterations */
  /* Issue: iterations issued whole, bytes of the current one, bytes in all. */
  uint32_t iter;
  uint64_t cursor, issued;
  SimTime first_ps; /* first request taken; UINT64_MAX before */
  SimTime last_dma_ps; /* DMA mode: when the last DMA started; UINT64_MAX before the first */
  SimTime last_write_ps; /* when the last MWr was taken; UINT64_MAX before the first */
  SimTime edge_ps; /* the source's transmit clock edge (fabric.h unit_ps; 0 when its kind has none): paced_from() */
  SimTime dma_tail_ps; /* DMA mode: the engine's own time after a DMA's last byte (flow.h) */
  gboolean wake_pending;
  /* The flow's requester (requester.h): its cuts, and for a read tags tag_base.. tag_base + tags - 1, each with
   * the next address a completion must carry, the bytes still owed and when its request entered the transmit
   * interface (the round trip, flow.h). */
  uint32_t tag_base;
  TxnRequester rq;
  /* DMA mode (flow.h): the DMA being issued, its offset in the window and the bytes of it issued; per DMA in
   * flight (by slot) its start and the bytes still to arrive, and per tag the slot its request belongs to. */
  uint64_t dma_off, dma_pos;
  uint32_t dma_started; /* DMAs started (FlowSpec.alternate) */
  uint32_t dma_slot, n_dma_free;
  uint32_t *dma_free, *tag_dma;
  SimTime *dma_start;
  uint64_t *dma_left;
  /* What the DMAs asked for, for the integrity check: the address-pattern sums of every range read and written. */
  uint64_t want_read_sum, want_write_sum;
  /* Measurement. */
  uint64_t delivered, read_got, read_sum, tlps;
  /* One-way latencies: a histogram of fixed size (the run's, one per flow), so a flow's memory does not grow with
   * the TLPs it sends; the first sample kept apart, exact. */
  LatHist *lat;
  SimTime first_lat_ps;
  /* Read: round trips, request in to its last completion out (flow.h); NULL for a write flow. */
  LatHist *rtt;
  SimTime end_ps;
  gboolean done;
} Flow;

/* What routes a completion to its read flow: the source's requester ID and the flow's tag range, gathered in one
 * small array so the lookup per completion reads a few cache lines rather than every flow and its source. */
typedef struct {
  uint16_t requester;
  uint32_t tag_lo, tag_end;
  Flow *fl;
} ReadTags;

struct Flows {
  Fabric *f;
  Host *host;
  SimEngine *engine;
  TlpPool *pool;
  RunCtx *run;
  Flow *flow;
  guint n, done;
  FlowLinkResult *links;
  FlowRunStats *stats;
  FlowResult *out;
  ReadTags *reads; /* the read flows, in flow order */
  guint n_reads;
};

/* --- the source: a transmit client ------------------------------------------------------------------------- */

static void
flow_wake (SimEngine *e, void *ctx, uint64_t arg)
{
  Flow *fl = ctx;
  fl->wake_pending = FALSE;
  fl->source->kind->requests->kick (fl->source);
}

/* When the next request may enter the transmit interface: the start time, and with a rate cap the byte it starts
 * at, over the rate, after the first request. */
static SimTime
next_issue_ps (const Flow *fl)
{
  SimTime at = fl->s->start_ps;
  if (fl->s->rate_mbps > 0 && fl->first_ps != UINT64_MAX)
    at = MAX (at, fl->first_ps + (SimTime) llround ((double) fl->issued * 1e6 / fl->s->rate_mbps));
  return at;
}

/* DMA mode: the bytes one DMA moves, both ways with write_first. */
static uint64_t
dma_bytes (const FlowSpec *s)
{
  return (uint64_t) s->transfer_bytes * (s->write_first ? 2 : 1);
}

/* DMA mode: the distance between slots (flow.h). */
static uint64_t
dma_stride (const FlowSpec *s)
{
  return s->dma_stride_bytes ? s->dma_stride_bytes : s->transfer_bytes;
}

/* DMA mode: the slot of the next DMA, the next one along or one drawn from the flow's stream. */
static void
next_offset (Flow *fl)
{
  const FlowSpec *s = fl->s;
  uint64_t tb = dma_stride (s);
  if (s->offsets)
    fl->dma_off = (uint64_t) g_rand_int_range (s->offsets, 0, (gint32) (s->bytes / tb)) * tb;
  else
    fl->dma_off = fl->dma_off + 2 * tb > s->bytes ? 0 : fl->dma_off + tb;
}

/* The most a write flow's next MWr may carry: the engine's piece (mps), less the skew for a DMA's first. */
static uint32_t
write_piece_max (const Flow *fl, FlowOp op)
{
  uint32_t skew = fl->s->write_head_skew_bytes;
  gboolean head = fl->s->transfer_bytes > 0 && fl->dma_pos % fl->s->transfer_bytes == 0;
  return op == FLOW_WRITE && head && skew > 0 && skew < fl->mps ? fl->mps - skew : fl->mps;
}

/* When an engine paced at gap after last counts its next issue from, having issued at now: its own schedule
 * (last + gap) when now is late by up to two clock edges of the transmit interface (edge: the wake and the
 * arbitration each wait for one), which delayed the issue, not the engine, so the edges do not add up to a slower
 * pace; now when it was held back longer. */
static SimTime
paced_from (SimTime last, SimTime gap, SimTime edge, SimTime now)
{
  if (last == UINT64_MAX || gap == 0 || now > last + gap + 2 * edge)
    return now;
  return last + gap;
}

/* The least time from the last MWr to the next: a DMA's first waits write_switch_ps more. */
static SimTime
write_gap (const Flow *fl)
{
  return fl->s->write_gap_ps + (fl->s->transfer_bytes > 0 && fl->dma_pos == 0 ? fl->s->write_switch_ps : 0);
}

/* FlowSpec.alternate: whether the flow's next DMA may start, the other flow's turn being over. */
static gboolean
alternate_turn (const Flow *fl)
{
  if (!fl->s->alternate)
    return TRUE;
  const Flow *other = &fl->run->flow[1 - fl->index];
  uint32_t need = fl->dma_started + (fl->index == 0 ? 0 : 1);
  return other->dma_started >= MIN (need, other->s->iterations);
}

static gboolean
flow_peek (void *ctx, Tlp *probe)
{
  Flow *fl = ctx;
  const FlowSpec *s = fl->s;
  FlowOp op = s->op;
  uint64_t addr = fl->base + fl->cursor, left = s->bytes - fl->cursor;
  if (s->transfer_bytes > 0 && fl->iter < s->iterations) {
    /* A new DMA waits for a slot; the write half of a write_first DMA comes first. */
    if (fl->dma_pos == 0 && (fl->n_dma_free == 0 || !alternate_turn (fl)))
      return FALSE;
    uint64_t pos = fl->dma_pos % s->transfer_bytes;
    if (s->write_first && fl->dma_pos < s->transfer_bytes)
      op = FLOW_WRITE;
    addr = fl->base + fl->dma_off + s->dma_offset_bytes + pos;
    left = s->transfer_bytes - pos;
  }
  if (fl->iter == s->iterations || (op == FLOW_READ && fl->rq.n_free == 0))
    return FALSE;
  SimTime at = next_issue_ps (fl);
  if (s->transfer_bytes > 0 && fl->dma_pos == 0 && fl->last_dma_ps != UINT64_MAX)
    at = MAX (at, fl->last_dma_ps + s->dma_gap_ps);
  if (op == FLOW_WRITE && fl->last_write_ps != UINT64_MAX)
    at = MAX (at, fl->last_write_ps + write_gap (fl));
  if (sim_now (fl->run->engine) < at) {
    /* Nothing else would bring the datapath back at that time. */
    if (!fl->wake_pending) {
      fl->wake_pending = TRUE;
      sim_schedule_at (fl->run->engine, at, flow_wake, fl, 0);
    }
    return FALSE;
  }
  uint32_t size = op == FLOW_WRITE ? txn_req_size_within (&fl->rq, TLP_MWR, addr, left, write_piece_max (fl, op))
                                    : txn_req_size (&fl->rq, TLP_MRD, addr, left);
  *probe = (Tlp) { 0 };
  tlp_set (probe, op == FLOW_WRITE ? TLP_MWR : TLP_MRD, addr > UINT32_MAX, addr, size);
  return TRUE;
}

static Tlp *
flow_take (void *ctx, const Tlp *probe)
{
  Flow *fl = ctx;
  SimTime now = sim_now (fl->run->engine), gap = write_gap (fl);
  Tlp *t = tlp_alloc_copy (fl->run->pool, probe);
  t->requester = fl->requester;
  t->cookie = FLOW_MAGIC << 32 | fl->index;
  t->stamp_ps = now;
  gboolean dma = fl->s->transfer_bytes > 0;
  if (dma) {
    if (fl->dma_pos == 0) {
      fl->dma_slot = fl->dma_free[--fl->n_dma_free];
      fl->dma_start[fl->dma_slot] = now;
      fl->last_dma_ps = paced_from (fl->last_dma_ps, fl->s->dma_gap_ps, fl->edge_ps, now);
      fl->dma_left[fl->dma_slot] = dma_bytes (fl->s);
      fl->dma_started++;
      /* The other flow's turn has come: its source's transmit side may have found it waiting. */
      Flow *other = fl->s->alternate ? &fl->run->flow[1 - fl->index] : NULL;
      if (other != NULL && !other->wake_pending) {
        other->wake_pending = TRUE;
        sim_schedule_at (fl->run->engine, now, flow_wake, other, 0);
      }
    }
    t->cookie |= (uint64_t) fl->dma_slot << 16;
  }
  if (t->kind == TLP_MRD) {
    t->tag = txn_req_issue (&fl->rq, t->address, t->length_bytes, now);
    if (dma)
      fl->tag_dma[t->tag - fl->tag_base] = fl->dma_slot;
  }
  uint32_t size = t->kind == TLP_MWR ? t->payload_bytes : t->length_bytes;
  if (t->kind == TLP_MWR) {
    fl->want_write_sum += pattern_sum (t->address, size);
    fl->last_write_ps = paced_from (fl->last_write_ps, gap, fl->edge_ps, now);
  }
  else
    fl->want_read_sum += pattern_sum (t->address, size);
  if (fl->first_ps == UINT64_MAX)
    fl->first_ps = now;
  fl->issued += size;
  fl->tlps++;
  if (dma) {
    fl->dma_pos += size;
    if (fl->dma_pos == dma_bytes (fl->s)) {
      fl->dma_pos = 0;
      fl->iter++;
      next_offset (fl);
    }
    return t;
  }
  fl->cursor += size;
  if (fl->cursor == fl->s->bytes) {
    fl->cursor = 0;
    fl->iter++;
  }
  return t;
}

/* Why a flow with something left to move sends nothing (stall.h, read only when the datapath has nothing): its
 * reads out of tags; every DMA slot in flight, a read's waiting for its data from the completer (a latency test's
 * one DMA); its engine pacing its commands or its rate cap (its transmit side's own rate). */
static StallCause
flow_why (void *ctx)
{
  Flow *fl = ctx;
  const FlowSpec *s = fl->s;
  if (fl->iter == s->iterations)
    return STALL_IDLE;
  gboolean dma = s->transfer_bytes > 0;
  if (dma && fl->dma_pos == 0 && fl->n_dma_free == 0)
    return s->op == FLOW_READ ? STALL_HOST_LATENCY : STALL_IDLE;
  if (s->op == FLOW_READ && fl->rq.n_free == 0 && !(s->write_first && fl->dma_pos < s->transfer_bytes))
    return STALL_TAGS;
  return fl->wake_pending ? STALL_DATAPATH_TX : STALL_IDLE;
}

static const FabricTxClient flow_client = { .peek = flow_peek, .take = flow_take, .why = flow_why };

/* --- measurement ------------------------------------------------------------------------------------------ */

/* Link l's stall clocks (stall.h), times `sign`: subtracted at the window's start and added at its end, they leave
 * the idle time by cause over the window. */
static void
idle_add (Flows *r, guint l, double sign)
{
  for (int d = 0; d < 2; d++) {
    SimTime now[STALL_COUNT];
    stall_read (link_stall_clock (fabric_link (r->f, l), (LinkDir) d), sim_now (r->engine), now);
    for (int c = 0; c < STALL_COUNT; c++)
      r->links[l].idle_ps[d][c] += sign * (double) now[c];
  }
}

/* The last flow to finish closes the link-usage window and stops the run; the caller then lets the links settle. */
static void
flow_finish (Flow *fl)
{
  Flows *r = fl->run;
  fl->done = TRUE;
  fl->end_ps = sim_now (r->engine);
  if (++r->done < r->n)
    return;
  r->stats->window_end_ps = sim_now (r->engine);
  r->stats->sim_time_ps = sim_now (r->engine);
  for (guint l = 0; l < fabric_n_links (r->f); l++)
    for (int d = 0; d < 2; d++) {
      r->links[l].usage[d] = link_usage (fabric_link (r->f, l), (LinkDir) d);
      r->links[l].counters[d] = link_counters (fabric_link (r->f, l), (LinkDir) d);
      r->links[l].errors[d] = link_errors (fabric_link (r->f, l), (LinkDir) d);
    }
  for (guint l = 0; l < fabric_n_links (r->f); l++)
    idle_add (r, l, 1);
  run_finished (r->run);
}

static void
add_latency (Flow *fl, SimTime ps)
{
  if (fl->lat->count == 0)
    fl->first_lat_ps = ps;
  lat_add (fl->lat, ps);
}

/* DMA mode: the DMA in `slot` is done (its data delivered, the engine's own time past): its latency, its slot
 * back. */
static void
dma_end (Flow *fl, uint32_t slot)
{
  add_latency (fl, sim_now (fl->run->engine) - fl->dma_start[slot]);
  fl->dma_free[fl->n_dma_free++] = slot;
  fl->source->kind->requests->kick (fl->source);
}

/* Every byte delivered and, with the engine's own time, every DMA ended too. */
static gboolean
all_done (const Flow *fl)
{
  return fl->delivered == fl->total && (fl->s->transfer_bytes == 0 || fl->dma_tail_ps == 0
                                          || fl->n_dma_free == fl->s->outstanding);
}

/* The same after the engine's own time (flow.h): the flow ends with its last DMA's end, not its last byte. */
static void
dma_done (SimEngine *e, void *ctx, uint64_t arg)
{
  Flow *fl = ctx;
  dma_end (fl, (uint32_t) arg);
  if (all_done (fl))
    flow_finish (fl);
}

/* DMA mode: `bytes` of the DMA in `slot` arrived; its last byte ends it (its latency, its slot), or starts the
 * engine's own time that does. */
static void
dma_delivered (Flow *fl, uint32_t slot, uint32_t bytes)
{
  SIM_INVARIANT (slot < fl->s->outstanding && fl->dma_left[slot] >= bytes, "flow %s: %u bytes for DMA slot %u, which "
                 "is owed fewer", fl->s->name, bytes, slot);
  fl->dma_left[slot] -= bytes;
  if (fl->dma_left[slot] > 0)
    return;
  if (fl->dma_tail_ps == 0) {
    dma_end (fl, slot);
    return;
  }
  /* The engine's own time after the data: the slot is the DMA's until then, its tags already free. */
  sim_schedule_at (fl->run->engine, sim_now (fl->run->engine) + fl->dma_tail_ps, dma_done, fl, slot);
}

/* A request reached a component's application: a flow's at its target (flow.h). In a flows run nothing else
 * sends requests, so anything else is a model bug. */
static void
observe (void *ctx, const Component *c, const Tlp *t)
{
  Flows *r = ctx;
  if (t->kind != TLP_MWR && t->kind != TLP_MRD)
    return;
  SIM_INVARIANT (t->cookie >> 32 == FLOW_MAGIC && (t->cookie & 0xffff) < r->n, "%s: a %s at 0x%" G_GINT64_MODIFIER
                 "x that no flow sent", c->name, tlp_kind_name (t->kind), t->address);
  Flow *fl = &r->flow[t->cookie & 0xffff];
  SIM_INVARIANT (c == fl->target, "flow %s: a request reached %s, not its target %s", fl->s->name, c->name,
                 fl->target->name);
  gboolean dma = fl->s->transfer_bytes > 0;
  if (!dma)
    add_latency (fl, sim_now (r->engine) - t->stamp_ps);
  if (t->kind == TLP_MWR) {
    if (dma)
      dma_delivered (fl, (uint32_t) (t->cookie >> 16) & 0xffff, t->payload_bytes);
    fl->delivered += t->payload_bytes;
    if (all_done (fl))
      flow_finish (fl);
  }
}

/* A completion for one of the source's read flows, out of its receive interface: each completion of a
 * request carries the next address of it and the bytes still owed (spec §2.2.9), and the last frees the tag. */
static void
on_completion (void *ctx, const Tlp *t)
{
  Flows *r = ctx;
  Flow *fl = NULL;
  for (guint k = 0; k < r->n_reads && !fl; k++) {
    const ReadTags *x = &r->reads[k];
    if (x->requester == t->requester && t->tag >= x->tag_lo && t->tag < x->tag_end)
      fl = x->fl;
  }
  SIM_INVARIANT (fl != NULL, "requester %04x: a completion for tag %u, which no read flow of it uses", t->requester,
                 t->tag);
  const TxnTag *g = txn_req_tag (&fl->rq, t->tag);
  uint64_t due = g != NULL ? g->next_address : 0;
  uint32_t owed = g != NULL ? g->remaining : 0;
  gboolean last;
  SIM_INVARIANT (txn_req_complete (&fl->rq, t, &last) == 0, "flow %s: a completion for tag %u at 0x%"
                 G_GINT64_MODIFIER "x (byte count %u) where 0x%" G_GINT64_MODIFIER "x (%u bytes owed) was due",
                 fl->s->name, t->tag, t->address, t->length_bytes, due, owed);
  fl->read_sum += pattern_sum (t->address, t->payload_bytes);
  fl->delivered += t->payload_bytes;
  fl->read_got += t->payload_bytes;
  if (fl->s->transfer_bytes > 0)
    dma_delivered (fl, fl->tag_dma[t->tag - fl->tag_base], t->payload_bytes);
  if (last) {
    lat_add (fl->rtt, sim_now (r->engine) - g->issued_ps); /* the tag's record outlives its release */
    fl->source->kind->requests->kick (fl->source);
  }
  if (all_done (fl))
    flow_finish (fl);
}

/* --- the run ------------------------------------------------------------------------------------------------ */

/* A started flow unfinished is owed: quiet then is a stall. A flow not yet started is owed nothing. */
static gboolean
owed (void *self)
{
  const Flows *r = self;
  for (guint k = 0; k < r->n; k++)
    if (!r->flow[k].done && r->flow[k].first_ps != UINT64_MAX)
      return TRUE;
  return FALSE;
}

static void
open_window (SimEngine *e, void *ctx, uint64_t arg)
{
  Flows *r = ctx;
  r->stats->window_start_ps = sim_now (e);
  for (guint l = 0; l < fabric_n_links (r->f); l++) {
    link_stats_reset (fabric_link (r->f, l));
    idle_add (r, l, -1);
  }
}

/* The longest a healthy run may deliver nothing beyond the configured bound: a host's read and write latencies and
 * return path for one request, and the widest gap a rate cap puts between two requests. */
static SimTime
quiet (void *self)
{
  const Flows *r = self;
  const HostParams *h = host_params (r->host);
  double ns = h->read_latency_ns + h->read_latency_per_byte_ps * 4096 / 1000.0 + h->cpl_overhead_ns
              + h->write_latency_ns;
  SimTime extra_ps = 0;
  if (h->cpl_rate_mbps > 0)
    ns += 4096 * 1000.0 / h->cpl_rate_mbps;
  if (h->write_drain_mbps > 0)
    ns += 4096 * 1000.0 / h->write_drain_mbps;
  for (guint k = 0; k < r->n; k++) {
    const FlowSpec *s = r->flow[k].s;
    if (s->rate_mbps > 0)
      ns = MAX (ns, 4096 * 1000.0 / s->rate_mbps);
    if (s->target != NULL && s->target->kind->silence_ps != NULL)
      extra_ps += s->target->kind->silence_ps (s->target);
  }
  return (SimTime) llround (ns * 1000.0) + extra_ps;
}

/* Byte counts and address-pattern sums per reader, and per memory in the run's ledger, from the buffers alone
 * (pattern.h). */
static gboolean
check (void *self, RunLedger *ledger, GError **error)
{
  const Flows *r = self;
  for (guint k = 0; k < r->n; k++) {
    const Flow *fl = &r->flow[k];
    /* What was asked for: the whole buffer each iteration, or in DMA mode what the DMAs issued. */
    gboolean dma = fl->s->transfer_bytes > 0, reads = fl->s->op == FLOW_READ;
    uint64_t sum = fl->s->iterations * pattern_sum (fl->base, fl->s->bytes);
    uint64_t each = dma ? (uint64_t) fl->s->iterations * fl->s->transfer_bytes : fl->total;
    uint64_t rbytes = reads ? each : 0, wbytes = !reads || (dma && fl->s->write_first) ? each : 0;
    uint64_t rsum = dma ? fl->want_read_sum : reads ? sum : 0, wsum = dma ? fl->want_write_sum : reads ? 0 : sum;
    if (reads && (fl->read_got != rbytes || fl->read_sum != rsum))
      return run_integrity_error (error, fl->s->name, "read data", fl->read_sum, rsum);
    RunMemory *w = run_ledger_at (ledger, fl->target, TRUE);
    w->cpl_bytes += rbytes;
    w->cpl_sum += rsum;
    w->mem_bytes += wbytes;
    w->mem_sum += wsum;
  }
  return TRUE;
}

/* Buffers (flow.h) and tags: each flow's buffer after the previous ones in the same memory; a source function's read
 * flows take consecutive tag ranges, all within what its link carries (each function has tags of its own). */
static gboolean
lay_out (Flows *r, GError **error)
{
  uint64_t host_next[2] = { HOST_BASE_32, HOST_BASE_64 };
  const uint64_t host_end[2] = { FABRIC_MMIO32_BASE, FABRIC_MMIO64_BASE };
  g_autoptr (GHashTable) next = g_hash_table_new (NULL, NULL); /* target component + bar -> offset */
  g_autoptr (GHashTable) tags = g_hash_table_new (NULL, NULL); /* source component + function -> next tag */
  for (guint k = 0; k < r->n; k++) {
    Flow *fl = &r->flow[k];
    const FlowSpec *s = fl->s;
    uint64_t room = (s->bytes + PAGE - 1) & ~(PAGE - 1);
    if (s->target == NULL) {
      int h = s->addr64 ? 1 : 0;
      if (host_end[h] - host_next[h] < room) {
        g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "flow %s: %" G_GUINT64_FORMAT " bytes do not fit in host "
                     "memory below the MMIO window with the other flows' buffers", s->name, s->bytes);
        return FALSE;
      }
      fl->base = host_next[h];
      host_next[h] += room;
    } else {
      const FabricBar *bar = s->bar < FABRIC_MAX_BARS ? &fl->target->bars[s->bar] : NULL;
      if (bar == NULL || bar->size_bytes == 0 || s->target == s->source) {
        g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "flow %s: %s has no BAR%u to hold its buffer", s->name,
                     fl->target->name, s->bar);
        return FALSE;
      }
      gpointer key = (gpointer) ((const char *) fl->target + s->bar);
      uint64_t off = GPOINTER_TO_SIZE (g_hash_table_lookup (next, key));
      /* A register block is not memory: a BAR that starts with one starts its buffers after it. */
      if (off == 0 && fl->target->kind->reserved_bytes != NULL)
        off = fl->target->kind->reserved_bytes (fl->target, s->bar);
      if (bar->size_bytes - off < room) {
        g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "flow %s: %s BAR%u (%" G_GUINT64_FORMAT " bytes) cannot "
                     "hold its %" G_GUINT64_FORMAT " bytes after the other flows' buffers", s->name, fl->target->name,
                     s->bar, bar->size_bytes, s->bytes);
        return FALSE;
      }
      fl->base = bar->base + off;
      g_hash_table_insert (next, key, GSIZE_TO_POINTER (off + room));
    }
    if (s->op == FLOW_READ) {
      gpointer key = (gpointer) ((const char *) fl->source + s->function);
      uint32_t base = GPOINTER_TO_UINT (g_hash_table_lookup (tags, key));
      uint32_t max = link_tags_max (link_params (fabric_uplink (fl->source)));
      if (s->tags == 0 || base + s->tags > max) {
        g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "flow %s: %u tags from %u on: %s's link carries tags 0..%u",
                     s->name, s->tags, base, fl->source->name, max - 1);
        return FALSE;
      }
      fl->tag_base = base;
      g_hash_table_insert (tags, key, GUINT_TO_POINTER (base + s->tags));
    }
  }
  return TRUE;
}

static gboolean
check_spec (const FlowSpec *s, GError **error)
{
  const Component *src = s->source;
  if (src == NULL || fabric_uplink (src) == NULL || !src->enumerated) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "flow %s: its source is no device on the fabric", s->name);
    return FALSE;
  }
  /* What the kind declares, not which kind it is: a drive that runs its own workload has no face to lend. */
  if (src->kind->requests == NULL) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "flow %s: its source %s is a %s, which makes no requests "
                 "for a flow", s->name, src->name, src->kind->name);
    return FALSE;
  }
  if (s->function >= src->n_functions) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "flow %s: %s has no function %u (it has %u)", s->name, src->name,
                 s->function, src->n_functions);
    return FALSE;
  }
  uint32_t mrrs = s->max_read_request_bytes;
  if (s->bytes == 0 || s->bytes % 4 || s->iterations == 0 || !(s->rate_mbps >= 0 && s->rate_mbps < 1e9)
      || (s->op == FLOW_READ && (mrrs < 128 || mrrs > 4096 || (mrrs & (mrrs - 1))))) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "flow %s: %" G_GUINT64_FORMAT " bytes (whole DWs, at least 4) "
                 "x %u iterations (at least 1) at %g MB/s (>= 0), read requests of %u bytes (128..4096, a power of "
                 "two)", s->name, s->bytes, s->iterations, s->rate_mbps, mrrs);
    return FALSE;
  }
  uint64_t tb = s->transfer_bytes, stride = dma_stride (s);
  if (s->write_max_bytes % 4 || !(s->dma_ps_per_byte >= 0 && s->dma_ps_per_byte < 1e9)) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "flow %s: MWrs of at most %u bytes (whole DWs) and %g ps per "
                 "byte (>= 0)", s->name, s->write_max_bytes, s->dma_ps_per_byte);
    return FALSE;
  }
  if (tb > 0 && (tb % 4 || stride % 4 || s->dma_offset_bytes % 4 || s->dma_offset_bytes + tb > stride
                 || stride > s->bytes || s->bytes / stride > G_MAXINT32 || s->outstanding == 0
                 || s->outstanding > 0xffff || s->iterations > UINT32_MAX / 2)) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "flow %s: DMAs of %" G_GUINT64_FORMAT " bytes %u into slots of %"
                 G_GUINT64_FORMAT " (whole DWs, a slot at most the %" G_GUINT64_FORMAT "-byte window) with %u in "
                 "flight (1..65535)", s->name, tb, s->dma_offset_bytes, stride, s->bytes, s->outstanding);
    return FALSE;
  }
  return TRUE;
}

/* Per flow, its figures from its counters and latency histogram (flow.h). */
static void
results (Flows *r, FlowResult *out)
{
  for (guint k = 0; k < r->n; k++) {
    Flow *fl = &r->flow[k];
    FlowResult *o = &out[k];
    *o = (FlowResult) { .bytes = fl->delivered, .tlps = fl->tlps, .start_ps = fl->first_ps, .end_ps = fl->end_ps };
    o->mbps = (double) fl->total * 1e6 / (double) (fl->end_ps - fl->first_ps);
    LatSummary l = lat_summary (fl->lat);
    o->first_tlp_ns = (double) fl->first_lat_ps / 1000.0;
    o->mean_ns = l.mean_ns;
    o->p50_ns = l.p50_ns;
    o->p99_ns = l.p99_ns;
    o->max_ns = l.max_ns;
    o->read_latency = fl->rtt ? lat_summary (fl->rtt) : (LatSummary) { 0 };
  }
}

/* --- the flows as a workload of the run harness (run.h) ------------------------------------------------------ */

static void
start (void *self, RunCtx *run)
{
  Flows *r = self;
  r->run = run;
  SimTime first = UINT64_MAX;
  for (guint k = 0; k < r->n; k++)
    first = MIN (first, r->flow[k].s->start_ps);
  sim_schedule_at (r->engine, first, open_window, r, 0);
  for (guint k = 0; k < r->n; k++)
    r->flow[k].source->kind->requests->kick (r->flow[k].source);
}

/* The budget only backstops a run that keeps delivering and never ends (the watchdog judges progress): it is far
 * beyond what each flow needs, its rate cap's pace included, so a slow flow is never taken for a deadlock. */
static SimTime
budget (void *self)
{
  const Flows *r = self;
  double budget = 1000.0 * SIM_MS;
  for (guint k = 0; k < r->n; k++) {
    const FlowSpec *s = r->flow[k].s;
    budget += (double) s->start_ps + (double) r->flow[k].total * SIM_US;
    if (s->rate_mbps > 0)
      budget += 2.0 * (double) r->flow[k].total * SIM_US / s->rate_mbps;
  }
  return budget < (double) (SIM_TIME_MAX / 2) ? (SimTime) budget : SIM_TIME_MAX / 2;
}

static void
where (void *self, GString *out)
{
  const Flows *r = self;
  g_string_append_printf (out, "the flows, %u of %u finished", r->done, r->n);
}

static void
result (void *self, const RunCtx *run, gboolean ok)
{
  Flows *r = self;
  RunStats st = run_stats (run);
  r->stats->events = st.events;
  r->stats->tlps = st.tlps;
  r->stats->tlp_pool_capacity = st.tlp_pool_capacity;
  if (ok)
    results (r, r->out);
}

static const RunWorkload flows_workload = {
  .start = start, .owed = owed, .quiet_ps = quiet, .budget_ps = budget, .where = where, .check = check,
  .result = result,
};

/* A stack of n free slots that hands out the lowest first. */
static uint32_t *
free_stack (uint32_t n)
{
  uint32_t *s = g_new (uint32_t, n);
  for (uint32_t i = 0; i < n; i++)
    s[i] = n - 1 - i;
  return s;
}

gboolean
flows_run (Fabric *f, Host *host, const FlowSpec *specs, guint n, SimTime watchdog_ps, FlowResult *out,
  FlowLinkResult *links, FlowRunStats *stats, GError **error)
{
  g_assert (n >= 1);
  for (guint k = 0; k < n; k++) {
    if (!check_spec (&specs[k], error))
      return FALSE;
    if (specs[k].alternate && (n != 2 || specs[k].transfer_bytes == 0 || !specs[1 - k].alternate)) {
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "flow %s alternates: needs two flows in DMA mode, both "
                   "alternating", specs[k].name);
      return FALSE;
    }
  }
  Flows r = { .f = f, .host = host, .engine = fabric_engine (f), .pool = fabric_pool (f), .n = n, .links = links,
              .stats = stats, .out = out };
  *stats = (FlowRunStats) { 0 };
  memset (links, 0, fabric_n_links (f) * sizeof *links);
  g_autofree Flow *flow = g_new0 (Flow, n);
  /* One block for every flow's histogram: the pages of buckets no latency falls in are never touched. */
  g_autofree LatHist *lat = g_new0 (LatHist, n);
  uint32_t n_read = 0;
  for (guint k = 0; k < n; k++)
    n_read += specs[k].op == FLOW_READ;
  g_autofree LatHist *rtt = g_new0 (LatHist, MAX (n_read, 1));
  r.flow = flow;
  for (guint k = 0; k < n; k++) {
    const FlowSpec *s = &specs[k];
    Flow *fl = &flow[k];
    *fl = (Flow) { .run = &r, .s = s, .index = k, .source = s->source,
                   .requester = (uint16_t) (s->source->id | s->function),
                   .target = s->target ? s->target : host_component (host),
                   .mps = link_params (fabric_uplink (s->source))->max_payload_bytes,
                   .dma_tail_ps = s->dma_overhead_ps * (s->write_first ? 2 : 1)
                                  + (s->write_first || s->op == FLOW_WRITE ? s->dma_write_extra_ps : 0)
                                  + (SimTime) llround (s->dma_ps_per_byte * (double) dma_bytes (s)),
                   .total = s->transfer_bytes ? dma_bytes (s) * s->iterations : s->bytes * s->iterations,
                   .first_ps = UINT64_MAX, .last_dma_ps = UINT64_MAX, .last_write_ps = UINT64_MAX,
                   .edge_ps = s->source->kind->requests->unit_ps ? s->source->kind->requests->unit_ps (s->source)
                                                                 : 0,
                   .lat = &lat[k] };
    if (s->write_max_bytes > 0)
      flow[k].mps = MIN (flow[k].mps, s->write_max_bytes);
  }
  for (guint k = 0, i = 0; k < n; k++)
    if (specs[k].op == FLOW_READ)
      flow[k].rtt = &rtt[i++];
  gboolean ok = lay_out (&r, error);
  /* The LLC holds the end of a read window the CPU warmed: the lines it touched last (host.h). */
  for (guint k = 0; ok && k < n; k++)
    if (specs[k].llc_bytes > 0 && specs[k].target == NULL && specs[k].op == FLOW_READ)
      host_set_llc (host, flow[k].base + specs[k].bytes - MIN (specs[k].llc_bytes, specs[k].bytes),
                    flow[k].base + specs[k].bytes);
  g_autofree ReadTags *reads = g_new0 (ReadTags, n);
  r.reads = reads;
  for (guint k = 0; ok && k < n; k++) {
    Flow *fl = &flow[k];
    gboolean read = fl->s->op == FLOW_READ;
    TxnReqParams rp = { .max_payload_bytes = fl->mps, .max_read_request_bytes = fl->s->max_read_request_bytes,
                        .tags = read ? fl->s->tags : 0, .first_tag = fl->tag_base };
    txn_req_init (&fl->rq, &rp);
    if (read) {
      uint32_t t = fl->s->tags;
      reads[r.n_reads++] = (ReadTags) { fl->requester, fl->tag_base, fl->tag_base + t, fl };
      fl->source->kind->requests->set_completions (fl->source, on_completion, &r);
      fl->tag_dma = g_new0 (uint32_t, t);
    }
    if (fl->s->transfer_bytes > 0) {
      uint32_t o = fl->s->outstanding;
      fl->dma_free = free_stack (o);
      fl->dma_start = g_new0 (SimTime, o);
      fl->dma_left = g_new0 (uint64_t, o);
      fl->n_dma_free = o;
      if (fl->s->offsets)
        next_offset (fl);
    }
    fl->source->kind->requests->add_client (fl->source, &flow_client, fl);
  }
  if (ok) {
    fabric_set_observer (f, observe, &r);
    ok = run_go (f, &flows_workload, &r, watchdog_ps, error);
    fabric_set_observer (f, NULL, NULL);
  }
  for (guint k = 0; k < n; k++) {
    txn_req_clear (&flow[k].rq);
    g_free (flow[k].tag_dma);
    g_free (flow[k].dma_free);
    g_free (flow[k].dma_start);
    g_free (flow[k].dma_left);
  }
  return ok;
}
