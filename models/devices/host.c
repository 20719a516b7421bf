/* host.c — root complex: root ports and their routing, completer, posted-write sink and benchmark software
 * (contract in host.h).
 *
 * The host's state is FIFOs: `reqs` (reads the root complex works on; their data leaves through one return path,
 * the read whose data is ready first going first unless cpl_in_order) and, each served strictly in order, `sink`
 * (posted writes waiting to give back their receive-buffer slot) and per root port `q` (everything the port sends,
 * completions, PIO writes and forwarded TLPs, one FIFO per flow-control class, each TLP's hold_ps its place in the
 * port's production order). `held` is the overflow of `reqs`: MRds still in a root port's receive buffer. Keeping
 * them there, rather than in an unbounded queue, is what turns a busy root complex into withheld NP credits. A
 * TLP's `port` field says where it came in (index + 1; 0 for one the host made): that is the link whose receive
 * buffer it still occupies, and on which it is consumed when it leaves.
 *
 * Peer-to-peer (a request for another root port's window, a completion for a requester below another port) goes
 * straight to the egress port's FIFOs, with no latency of its own: the model of the root complex's internal
 * fabric is the ingress slot held until the egress link accepts the TLP. The three FIFOs per port are what a
 * switch has (switch.h): a read request waiting for non-posted credits must not hold back posted writes and
 * completions behind it (spec §2.4.1, Table 2-42 A3/A4, D3/D4), or two endpoints reading each other's BARs through
 * the root complex deadlock, each port's head a read the other cannot take while its completions wait behind.
 *
 * The protocol rules the host obeys are the RCB/MPS split of completions (split.h) and the endpoint's credits
 * (the link's job). Every timing here is a platform property with no datasheet value: each is calibrated in a
 * host file of configs/hosts/, with pcie-protocol.md §8 giving the published orders of magnitude.
 *
 * The completer (`reqs` and the return path) is models/txn/completer.c, and the tag-reuse check models/txn/tags.c;
 * here they are joined to the root ports, with `held`. The state is in host_impl.h.
 */
#include "models/devices/host_impl.h"

#include <math.h>

#include "models/base/model_error.h"
#include "models/base/pattern.h"
#include "models/base/units.h"

gboolean
host_params_check (const HostParams *p, uint32_t mps, GError **error)
{
  if (p->rcb_bytes != 64 && p->rcb_bytes != 128) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM,
      "host read completion boundary %u bytes: must be 64 or 128", p->rcb_bytes);
    return FALSE;
  }
  /* Middle completions are RCB multiples no larger than MPS (spec §2.3.1.1): that needs RCB <= MPS, and an MPS
   * that is a power of two (as the spec's encoding makes it) is then a multiple of RCB, as split.h requires. */
  if (mps != 0 && (mps < p->rcb_bytes || (mps & (mps - 1)) != 0)) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "max payload %u bytes: must be a power of two >= RCB %u", mps,
      p->rcb_bytes);
    return FALSE;
  }
  uint32_t fb = p->full_block_bytes;
  if (fb != 0 && (fb < p->rcb_bytes || fb > SPLIT_PAGE_BYTES || (fb & (fb - 1)) != 0)) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "full-block completions over %u bytes: must be a power of "
      "two of RCB %u to %u", fb, p->rcb_bytes, SPLIT_PAGE_BYTES);
    return FALSE;
  }
  uint32_t wb = p->write_block_bytes;
  if (wb != 0 && (wb < 64 || wb > SPLIT_PAGE_BYTES || (wb & (wb - 1)) != 0)) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "posted-write blocks of %u bytes: must be a power of two of "
      "64 to %u", wb, SPLIT_PAGE_BYTES);
    return FALSE;
  }
  if (p->iommu_enabled && (p->iotlb_entries == 0 || p->iotlb_entries > 4096 || p->iommu_page_bytes < 4096
                           || (p->iommu_page_bytes & (p->iommu_page_bytes - 1)) != 0)) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "IOMMU with %u IOTLB entries of %" G_GUINT64_FORMAT " bytes: "
      "needs 1..4096 entries and pages of a power of two, at least 4096 bytes", p->iotlb_entries, p->iommu_page_bytes);
    return FALSE;
  }
  const double v[] = { p->read_latency_ns, p->read_latency_per_byte_ps, p->cpl_rate_mbps, p->cpl_overhead_ns,
                       p->cpl_fence_ns, p->write_drain_mbps, p->write_latency_ns, p->sw_pio_latency_ns,
                       p->sw_pio_gap_ns, p->msi_latency_ns, p->poll_interval_ns, p->iteration_gap_ns,
                       p->cpu_write_path_ns, p->iommu_walk_ns, p->iommu_read_resume_ns,
                       p->iommu_read_resume_group_ns, p->llc_miss_ns, p->write_partial_block_ns, p->llc_hit_ns };
  /* 0 is legal for every one (no latency, or a rate that does not limit). The negated test also rejects NaN;
   * the bound (1e12 ns is over 16 minutes) keeps every conversion to picoseconds far inside SimTime. */
  for (guint i = 0; i < G_N_ELEMENTS (v); i++)
    if (!(v[i] >= 0.0 && v[i] < 1e12)) {
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "host parameter #%u is %g: must be finite and >= 0", i, v[i]);
      return FALSE;
    }
  return TRUE;
}

/* A CPU refused a write may try again: without a posted-write queue once the port's FIFO is empty, with one once
 * the queue has room. Called last, with the port's state settled: the CPU may call back in to send. */
static void
cpu_notify (Host *h)
{
  if (h->cpu_waiting && (h->p.cpu_write_queue_tlps == 0 || h->cpu_queued < h->p.cpu_write_queue_tlps)) {
    h->cpu_waiting = FALSE;
    h->cpu.ready (h->cpu_ctx);
  }
}

/* The TLP the port's link takes now, or NULL: the heads oldest first, as a switch's egress (switch.c pick()). A
 * read request or a completion never passes an older posted request (spec §2.4.1, Table 2-42 B2a, D2a); a posted
 * request passes both and a completion a read request when the older one waits for its own credits. The link
 * refusing for its queue or replay space refuses every head alike, so nothing passes then. */
static Tlp *
rp_pick (RootPort *rp, LinkPort *lp)
{
  Tlp *h[FC_CLASS_COUNT] = { rp->q[FC_P].head, rp->q[FC_NP].head, rp->q[FC_CPL].head };
  for (int n = 0; n < FC_CLASS_COUNT; n++) {
    int best = -1;
    for (int c = 0; c < FC_CLASS_COUNT; c++)
      if (h[c] && (best < 0 || h[c]->hold_ps < h[best]->hold_ps))
        best = c;
    if (best < 0)
      return NULL;
    Tlp *t = h[best];
    h[best] = NULL;
    if (best != FC_P && rp->q[FC_P].head && rp->q[FC_P].head->hold_ps < t->hold_ps)
      return NULL;
    if (link_port_can_send (lp, t))
      return t;
    if (link_port_tx_full (lp))
      return NULL;
  }
  return NULL;
}

/* Send while the link takes something. For the host's own TLPs alone a single FIFO could not deadlock (whatever
 * holds its head back the far end or the link frees without waiting for anything behind it); forwarded
 * peer-to-peer traffic needs the classes (top of file). A forwarded TLP leaves the ingress port's receive buffer
 * only now, as it goes out (its credits return then). */
void
host_tx_drain (Host *h, uint32_t port)
{
  RootPort *rp = &h->rp[port];
  LinkPort *lp = h->base.ports[port].link_port;
  while (!rp_empty (rp)) {
    Tlp *t = rp_pick (rp, lp);
    if (t == NULL) {
      rp->tx_blocked = TRUE;
      /* With a queue, a CPU write handed to the link above freed a place although the FIFO is not empty. */
      if (h->p.cpu_write_queue_tlps > 0)
        cpu_notify (h);
      return;
    }
    tlp_fifo_pop (&rp->q[tlp_fc_class (t->kind)]);
    if (t->kind == TLP_MWR && t->cookie == CPU_WRITE_COOKIE && t->requester == h->base.id)
      h->cpu_queued--;
    if (t->port != 0)
      link_port_consume (h->base.ports[t->port - 1].link_port, t);
    else
      t->stamp_ps = sim_now (h->engine); /* "left the host": the performance counter may start here */
    link_port_send (lp, t);
  }
  rp->tx_blocked = FALSE;
  host_stall (h, port);
  /* Last, once the FIFO is empty: the CPU may call back in to send (host_cpu_write), which drains again. */
  cpu_notify (h);
}

static void
host_tx_ready (Component *c, FabricPort *port)
{
  host_tx_drain ((Host *) c, port->index);
}

/* A TLP of another root port's, passed on from `in` to `out`: it keeps its place in `in`'s receive buffer until
 * `out`'s link takes it. A TLP for the subtree it came from would have been routed there by a switch, or is for
 * its own sender: neither reaches a root port in a working fabric. */
static void
forward (Host *h, FabricPort *in, FabricPort *out, Tlp *t)
{
  SIM_INVARIANT (out != in, "%s: a %s at 0x%" G_GINT64_MODIFIER "x from requester %04x came back down root port %u",
                 h->base.name, tlp_kind_name (t->kind), t->address, t->requester, in->index);
  t->port = (uint16_t) (in->index + 1);
  h->c.forwarded++;
  rp_push (h, out->index, t);
  host_tx_drain (h, out->index);
}

/* --- sink and software ---------------------------------------------------------------------------------- */

/* arg packs the MSI's data (the message number) above its 32-bit address. */
static void
msi_fire (SimEngine *e, void *ctx, uint64_t arg)
{
  Host *h = ctx;
  uint64_t address = arg & 0xffffffffu;
  for (guint i = 0; i < h->msi_routes->len; i++) {
    const Watch *w = &g_array_index (h->msi_routes, Watch, i);
    if (w->address == address) {
      w->fn (w->ctx, address, (uint32_t) (arg >> 32));
      return;
    }
  }
  if (h->msi_fn != NULL)
    h->msi_fn (h->msi_ctx, address, (uint32_t) (arg >> 32));
}

static void
watch_fire (SimEngine *e, void *ctx, uint64_t i)
{
  Host *h = ctx;
  const Watch *w = &g_array_index (h->watch, Watch, i);
  w->fn (w->ctx, w->address, 0);
}

static void sink_release (SimEngine *e, void *ctx, uint64_t arg);

/* Only the head needs an event: release times never decrease along the FIFO (drain is serial and
 * write_latency_ns is one constant), so the head is always the next to release. */
static void
sink_schedule_head (Host *h)
{
  if (h->sink.head != NULL)
    sim_schedule_at (h->engine, h->sink.head->stamp_ps, sink_release, h, 0);
}

/* Adds posted data to the write checksum a contiguous run at a time: pattern sums add over any split of a range
 * whose pieces are whole DWs (pattern.h), and a DMA write's TLPs arrive back to back in address order, so the
 * closed form runs once per run instead of once per TLP. host_counters() adds the open run. */
static void
write_sum (Host *h, uint64_t address, uint32_t bytes)
{
  if (address == h->sum_to && (bytes & 3) == 0 && ((h->sum_to - h->sum_from) & 3) == 0) {
    h->sum_to += bytes;
    return;
  }
  h->c.write_checksum += pattern_sum (h->sum_from, h->sum_to - h->sum_from);
  h->sum_from = address;
  h->sum_to = address + bytes;
}

/* A posted TLP's data is in memory and its slot is free. Consuming here, not on arrival, is the point of the
 * sink: P credits come back write_latency_ns after the drain plus an UpdateFC trip, so posted throughput is
 * bounded by credits x bytes per credit / that loop (pcie-protocol.md §5). write_latency_ns is calibrated on
 * Table 8's simultaneous-mode write drop (configs/hosts/i7-3930k.yaml). */
static void
sink_release (SimEngine *e, void *ctx, uint64_t arg)
{
  Host *h = ctx;
  Tlp *t = tlp_fifo_pop (&h->sink);
  SimTime now = sim_now (e);
  h->c.bytes_written += t->payload_bytes;
  /* An MSI is a posted 1-DW write the root complex turns into an interrupt, not memory: it used a buffer slot and
   * counts in bytes_written (system.c expects 4 bytes per MSI), but the driver runs msi_latency_ns later. */
  if (t->kind == TLP_MSI) {
    h->c.msis++;
    g_assert (t->address <= 0xffffffffu); /* MSI targets the local APIC window, 0xFEEx_xxxx */
    SimTime delay = h->msi_latency_ps + (h->irq_delay_fn != NULL ? h->irq_delay_fn (h->irq_delay_ctx) : 0);
    sim_schedule_at (e, now + delay, msi_fire, h, t->address | (t->cookie & 0xffffffffu) << 32);
  } else {
    h->c.writes++;
    write_sum (h, t->address, t->payload_bytes);
    for (guint i = 0; i < h->watch->len; i++)
      if (g_array_index (h->watch, Watch, i).address == t->address) {
        /* Polling software sees the write at its next poll: the next multiple of the period, strictly after now
         * (a write landing on a poll instant races the read; the model takes the later poll). Period 0 is an
         * idealised busy poll that sees it at once. */
        h->c.polled_writes++;
        SimTime next = h->poll_ps > 0 ? (now / h->poll_ps + 1) * h->poll_ps : now;
        sim_schedule_at (e, next, watch_fire, h, i);
      }
  }
  link_port_consume (h->base.ports[t->port - 1].link_port, t);
  tlp_free (h->pool, t);
  sink_schedule_head (h);
}

/* A completion for a CPU load: out of the root port's receive buffer at once (completion credits are infinite at a
 * root port) and handed to the CPU. */
static void
cpu_completion (Host *h, FabricPort *port, Tlp *t)
{
  SIM_INVARIANT (h->cpu.completion != NULL, "%s: a completion for the root complex's own ID %04x with no CPU to "
                 "take it", h->base.name, t->requester);
  link_port_consume (port->link_port, t);
  h->c.cpu_cpls++;
  h->cpu.completion (h->cpu_ctx, t);
  tlp_free (h->pool, t);
}

void
host_set_irq_delay (Host *h, HostIrqDelayFn fn, void *ctx)
{
  h->irq_delay_fn = fn;
  h->irq_delay_ctx = ctx;
}

/* --- IOMMU ------------------------------------------------------------------------------------------------- */

/* When the translation of `address` is ready for a request that resumes `resume` after it (host.h). A linear
 * search: the IOTLB is small (tens to a hundred entries on the parts modelled) and is searched only with the IOMMU
 * on. Each walker is a serial resource, as the return path is: a miss takes the walker free first, and its walk
 * starts when that walker's previous one ends; the walker is busy until the request has resumed. */
static SimTime
iommu_translate (Host *h, uint64_t address, SimTime resume)
{
  SimTime now = sim_now (h->engine);
  uint64_t page = address / h->p.iommu_page_bytes;
  IotlbEntry *victim = &h->iotlb[0];
  for (uint32_t i = 0; i < h->p.iotlb_entries; i++) {
    IotlbEntry *e = &h->iotlb[i];
    if (e->page == page) {
      e->used = ++h->iotlb_clock;
      h->c.iotlb_hits++;
      return e->ready_ps > now ? e->ready_ps + resume : now;
    }
    if (e->used < victim->used)
      victim = e;
  }
  h->c.iotlb_misses++;
  SimTime *walker = &h->walker_free[0];
  for (uint32_t i = 1; i < MAX (h->p.iommu_walks, 1u); i++)
    if (h->walker_free[i] < *walker)
      walker = &h->walker_free[i];
  SimTime ready = MAX (now, *walker) + h->walk_ps;
  *walker = ready + resume;
  *victim = (IotlbEntry) { .page = page, .used = ++h->iotlb_clock, .ready_ps = ready };
  return ready + resume;
}

/* --- memory: the last-level cache ----------------------------------------------------------------------- */

void
host_set_llc (Host *h, uint64_t lo, uint64_t hi)
{
  h->llc_lo = lo;
  h->llc_hi = hi;
}

/* A read's first line decides: pcie-bench's DMAs are at most a few lines, laid out so that a window's lines are
 * either all warm or all cold where the range cuts it. */
SimTime
host_memory_ps (const Host *h, const Tlp *t)
{
  return t->address >= h->llc_lo && t->address < h->llc_hi ? h->llc_hit_ps : h->llc_miss_ps;
}

/* The time the memory controller takes to drain `bytes` of posted data, rounded to the picosecond. */
static SimTime
drain_ps (Host *h, uint32_t bytes)
{
  if (bytes != h->drain_memo_bytes) {
    h->drain_memo_bytes = bytes;
    h->drain_memo_ps = (SimTime) llround (bytes * h->drain_ps_per_byte);
  }
  return h->drain_memo_ps;
}

/* The drain time a posted write adds for the edges of write runs it makes inside a block (host.h, Posted-write
 * sink): its run's start if it starts one, and the run before it if that ended inside one. A write stream of whole
 * blocks pays nothing; the root complex's memory side, not the link, sees the edges. */
static SimTime
partial_block_ps (Host *h, const Tlp *t)
{
  uint32_t block = h->p.write_block_bytes;
  if (block == 0 || t->kind != TLP_MWR)
    return 0;
  uint32_t edges = 0;
  if (t->address != h->write_run_end)
    edges = (h->write_run_end % block != 0 && h->write_run_end != UINT64_MAX) + (t->address % block != 0);
  h->write_run_end = t->address + t->payload_bytes;
  return edges * h->write_partial_ps;
}

/* Take an MRd into the root complex's request queue: only now is its receive-buffer slot (and NP credit) free,
 * and only now does its latency start — a held request waits for the root complex, it is not being served.
 * The per-byte term prices larger reads' first data later (pcie-bench's 8 -> 512-byte medians grow ~0.3 ns/B,
 * pcie-protocol.md §8); later completions of the same request are paced by the return path alone. From here on
 * the request's `port` is the root port its completions leave by: the one its requester ID routes to. */
static void
host_accept_read (Host *h, Tlp *t)
{
  link_port_consume (h->base.ports[t->port - 1].link_port, t);
  FabricPort *out = fabric_route_id (&h->base, t->requester);
  SIM_INVARIANT (out != NULL, "%s: no root port leads to requester %04x", h->base.name, t->requester);
  t->port = (uint16_t) (out->index + 1);
  /* The walk of a read that misses starts when the root complex takes the read in, not while it waits outside. */
  if (h->p.iommu_enabled) {
    SimTime resume = h->read_resume_ps;
    if (h->read_resume_group_ps != 0) {
      /* Its walker hands the read back one group of its completions at a time (host.h). */
      uint32_t group = MAX (h->p.cpl_group_tlps, 1u);
      uint32_t groups = (txn_cpl_count_noted (&h->cpl, t) + group - 1) / group;
      resume += (groups - 1) * h->read_resume_group_ps;
    }
    SimTime ready = iommu_translate (h, t->address, resume); /* once: MAX evaluates twice */
    t->stamp_ps = MAX (t->stamp_ps, ready);
  }
  /* A read must not pass a posted write received before it (spec §2.4.1, Table 2-40: a non-posted request never
   * passes a posted one): on_rx() left in stamp_ps when the last such write is handed on, and the root complex
   * starts the read no earlier. */
  txn_cpl_accept (&h->cpl, t, t->stamp_ps, host_memory_ps (h, t));
  txn_cpl_plan (&h->cpl);
}

/* The planned completion has crossed the return path. Requester ID and tag echo the request: the fabric routes the
 * completion back by the ID, and the requester matches it to its request by the tag; the Byte Count carries what is
 * left. */
static void
host_ret_emit (SimEngine *e, void *ctx, uint64_t size)
{
  Host *h = ctx;
  /* Why (stall.h): the root port waited for this completion's data until the return path started on it, and for
   * the path to produce it since; no event marks that start, so the time since is given its cause now. */
  uint32_t port = h->cpl.plan_req->port - 1;
  StallClock *sc = &h->rp[port].stall;
  if (!sc->follow && (sc->cause == STALL_HOST_LATENCY || sc->cause == STALL_HOST_QUEUE) && h->cpl.start_ps > sc->since)
    stall_set (sc, h->cpl.start_ps, STALL_HOST_COMPLETION_RATE);
  gboolean last;
  Tlp *c = txn_cpl_emit_planned (&h->cpl, h->pool, &last);
  h->c.cpls++;
  h->c.cpl_bytes += size;
  h->c.cpl_checksum += pattern_sum_memo (&h->cpl_sum_memo, c->address, size);
  /* The last completion frees a place in the root complex for the oldest held MRd, and every completion a slot
   * (host.completion_queue_tlps): the held MRds it makes room for, in order, start their walk and latency only
   * now. The plan is still pending here, so host_accept_read()'s txn_cpl_plan() returns at once and
   * txn_cpl_plan_done() below plans the next completion, whichever request is first by then. */
  if (last)
    txn_tags_release (&h->tags, c->requester, c->tag);
  while (h->held.head != NULL && txn_cpl_room (&h->cpl, h->held.head))
    host_accept_read (h, tlp_fifo_pop (&h->held));
  /* Test faults act after the counters above: the host's tallies describe what it meant to send, so catching the
   * difference is left to the endpoint's tag, order and checksum checks, which is what the tests want to see. */
  if (h->fault == HOST_FAULT_NONE || h->cpl_index++ != h->fault_at) {
    rp_push (h, port, c);
    if (h->swapped != NULL)
      rp_push (h, port, g_steal_pointer (&h->swapped));
  } else if (h->fault == HOST_FAULT_DROP_CPL) {
    tlp_free (h->pool, c);
  } else if (h->fault == HOST_FAULT_DUP_CPL) {
    Tlp *twin = tlp_alloc (h->pool);
    *twin = *c;
    rp_push (h, port, c);
    rp_push (h, port, twin);
  } else if (h->fault == HOST_FAULT_MISROUTE_CPL) {
    c->requester = (uint16_t) (((c->requester >> 8) % (h->tags.n_buses - 1) + 1) << 8);
    FabricPort *out = fabric_route_id (&h->base, c->requester);
    g_assert (out != NULL);
    port = out->index;
    rp_push (h, port, c);
  } else {
    h->swapped = c; /* HOST_FAULT_SWAP_CPL: sent right after the next completion */
  }
  host_tx_drain (h, port);
  txn_cpl_plan_done (&h->cpl);
  /* The next completion is planned: the port now waits for its data, or for its production. */
  host_stall (h, port);
}

static void
host_receive (Component *comp, FabricPort *port, Tlp *t)
{
  Host *h = (Host *) comp;
  SimTime now = sim_now (h->engine);
  t->port = (uint16_t) (port->index + 1);
  switch (t->kind) {
  case TLP_MRD:
  case TLP_MWR:
  case TLP_MSI:
    /* One root port has no peer to route to: every request from below is for the host. */
    if (h->peer_routing) {
      FabricPort *out = fabric_route_address (comp, t->address);
      if (out != NULL) {
        forward (h, port, out, t);
        return;
      }
    }
    break;
  default: {
    if (t->requester == comp->id) {
      cpu_completion (h, port, t);
      return;
    }
    /* The root complex's own reads are the CPU's, above; every other completion is a peer's, for a requester below
     * a root port. */
    FabricPort *out = fabric_route_id (comp, t->requester);
    SIM_INVARIANT (out != NULL && t->requester != comp->id, "%s: a completion for requester %04x, which nobody "
                   "below asked for", comp->name, t->requester);
    forward (h, port, out, t);
    return;
  }
  }
  fabric_delivered (comp, t);
  if (t->kind == TLP_MRD) {
    /* With room in the request queue the root complex takes the request out of the receive buffer at once, so
     * its NP credit returns immediately; otherwise it waits in the buffer, holding the credit. */
    h->c.reads++;
    h->c.read_bytes_requested += t->length_bytes;
    /* No requester holds one tag twice (tags.h); HostCounters.tag_sharing_high_water counts how many share one. */
    uint32_t users = txn_tags_claim (&h->tags, t->requester, t->tag);
    h->c.tag_sharing_high_water = MAX (h->c.tag_sharing_high_water, users);
    /* Writes release in arrival order, so the sink's tail is the last posted write received before this read
     * and still unreleased: the read may not start before it (host_accept_read). */
    t->stamp_ps = h->sink.tail != NULL ? h->sink.tail->stamp_ps : 0;
    /* And its completions wait for the return path to confirm those writes committed (HostParams.cpl_fence_ns):
     * once per turn from posted writes to a read, whatever was released meanwhile. */
    t->order = h->posted_since_read ? TXN_CPL_FENCE : 0;
    h->posted_since_read = FALSE;
    t->hold_ps = 0; /* the completer's from here (txn_cpl_room()); a switch on the way left its time in it */
    /* Behind a held read, or without room for its completions (completer.h, Room), it waits in arrival order. */
    if (h->held.head == NULL && txn_cpl_room (&h->cpl, t))
      host_accept_read (h, t);
    else
      tlp_fifo_push (&h->held, t);
    host_stall (h, port->index);
    return;
  }
  /* Data drains behind what is already draining (sink_free); the slot is held write_latency_ns beyond that. */
  h->posted_since_read = TRUE;
  SimTime from = MAX (now, h->sink_free);
  if (h->p.iommu_enabled && t->kind == TLP_MWR) {
    SimTime ready = iommu_translate (h, t->address, 0);
    from = MAX (from, ready);
  }
  SimTime drained = from + drain_ps (h, t->payload_bytes) + partial_block_ps (h, t);
  h->sink_free = drained;
  t->stamp_ps = drained + h->write_latency_ps;
  /* A non-empty sink already has its head's event; the head's release schedules the next one. */
  gboolean was_empty = h->sink.head == NULL;
  tlp_fifo_push (&h->sink, t);
  if (was_empty)
    sink_schedule_head (h);
}

static void
pio_emit (SimEngine *e, void *ctx, uint64_t arg)
{
  Host *h = ctx;
  Tlp *t = (Tlp *) (uintptr_t) arg;
  FabricPort *out = fabric_route_address (&h->base, t->address);
  SIM_INVARIANT (out != NULL, "%s: a register write to 0x%" G_GINT64_MODIFIER "x, which no root port's window "
                 "holds", h->base.name, t->address);
  rp_push (h, out->index, t);
  host_tx_drain (h, out->index);
}

/* A PIO register write is a 1-DW MWr into an endpoint's BAR (AN-456's descriptor header registers). The model
 * moves no data bytes, so the register value rides in the cookie. AN-456's BAR0 is 32-bit, so its writes take a
 * 3-DW header; addr64 exists for a BAR above 4 GB. */
SimTime
host_pio_write (Host *h, SimTime delay_ps, uint64_t address, gboolean addr64, uint32_t value)
{
  /* Allocated now (from the pool, no malloc once warm) and carried through the event's argument. */
  Tlp *t = tlp_alloc (h->pool);
  tlp_set (t, TLP_MWR, addr64, address, 4);
  t->requester = h->base.id;
  t->cookie = value;
  h->c.pio_writes++;
  SimTime at = sim_now (h->engine) + delay_ps;
  sim_schedule_at (h->engine, at, pio_emit, h, (uint64_t) (uintptr_t) t);
  return at;
}

void
host_watch_status (Host *h, uint64_t address, HostEventFn fn, void *ctx)
{
  Watch w = { address, fn, ctx };
  g_array_append_val (h->watch, w);
}

void
host_route_msi (Host *h, uint64_t address, HostEventFn fn, void *ctx)
{
  Watch w = { address, fn, ctx };
  g_array_append_val (h->msi_routes, w);
}

void
host_set_msi (Host *h, HostEventFn fn, void *ctx)
{
  h->msi_fn = fn;
  h->msi_ctx = ctx;
}

/* bytes / (MB/s) in ps: 1 byte at 1 MB/s takes 1 us = 1e6 ps. */
static double
ps_per_byte (double mbps)
{
  return mbps > 0.0 ? 1e6 / mbps : 0.0;
}

static void
host_attached (Component *comp, FabricPort *port)
{
  Host *h = (Host *) comp;
  txn_cpl_set_port_mps (&h->cpl, comp->n_ports, port->index, link_params (port->link)->max_payload_bytes);
  link_port_set_stall_feeder (port->link_port, &h->rp[port->index].stall, NULL);
}

/* Why (stall.h) a root port with an empty transmit FIFO sends nothing: the return path producing a completion
 * whose data is ready (its per-TLP and per-byte time), reads in the root complex whose data is not ready (more
 * waiting behind read_queue_depth or the completion slots: the queue), or none at all. The reads are counted
 * whichever port they came from: one root port is what every config has. */
void
host_stall (Host *h, uint32_t port)
{
  StallCause why = !rp_empty (&h->rp[port])                               ? STALL_LINK
                   : h->cpl.pending && h->cpl.start_ps <= sim_now (h->engine) ? STALL_HOST_COMPLETION_RATE
                   : h->held.head != NULL                                  ? STALL_HOST_QUEUE
                   : h->cpl.n > 0                                          ? STALL_HOST_LATENCY
                                                                           : STALL_IDLE;
  stall_set_at (&h->rp[port].stall, h->engine, why);
}

/* The bus numbers are known: one tag set per function a requester may be, on each bus. */
static void
host_enumerated (Component *comp)
{
  Host *h = (Host *) comp;
  uint32_t buses = 1, functions = 1;
  for (uint32_t i = 0; i < comp->n_ports; i++)
    if (comp->ports[i].link != NULL)
      buses = MAX (buses, (uint32_t) comp->ports[i].subordinate_bus + 1);
  for (guint i = 0; i < fabric_n_components (comp->fabric); i++)
    functions = MAX (functions, fabric_component (comp->fabric, i)->n_functions);
  txn_tags_init (&h->tags, comp->name, buses, functions);
}

static gboolean
host_kind_check (const Component *comp, GError **error)
{
  return host_check_invariants ((const Host *) comp, error);
}

/* Deliveries and transmissions: the watchdog's sign of life. pio_writes counts when software queues the stores, so
 * the start of an iteration is itself a sign of life. */
static uint64_t
host_progress (const Component *comp)
{
  const HostCounters *c = &((const Host *) comp)->c;
  return c->reads + c->writes + c->msis + c->pio_writes + c->forwarded + c->cpu_writes + c->cpu_reads + c->cpu_cpls;
}

static void
host_kind_describe (const Component *comp, GString *out)
{
  host_describe_wait ((const Host *) comp, out);
}

static void
host_memory (const Component *comp, FabricMemory *out)
{
  /* host_counters(), not h->c: the write checksum's open run of addresses is added there. */
  HostCounters c = host_counters ((const Host *) comp);
  *out = (FabricMemory) { c.cpl_bytes, c.cpl_checksum, c.bytes_written, c.write_checksum };
}

static void
host_free (Component *comp)
{
  Host *h = (Host *) comp;
  if (h->swapped != NULL)
    tlp_free (h->pool, h->swapped);
  g_array_free (h->watch, TRUE);
  txn_tags_clear (&h->tags);
  txn_cpl_clear (&h->cpl, NULL);
  g_array_free (h->msi_routes, TRUE);
  g_free (h->iotlb);
  g_free (h->walker_free);
  g_free (h->rp);
  g_free (h);
}

static const ComponentKind host_kind = {
  .name = "root complex",
  .receive = host_receive,
  .tx_ready = host_tx_ready,
  .attached = host_attached,
  .enumerated = host_enumerated,
  .check_invariants = host_kind_check,
  .progress = host_progress,
  .describe_wait = host_kind_describe,
  .memory = host_memory,
  .free = host_free,
};

Host *
host_new (Fabric *f, const char *name, const HostParams *params, uint32_t root_ports)
{
  /* As every constructor: the caller has checked (the link's MPS is not known yet, 0). */
  g_autoptr (GError) e = NULL;
  if (!host_params_check (params, 0, &e))
    g_error ("host_new: %s", e->message);
  Host *h = g_new0 (Host, 1);
  h->engine = fabric_engine (f);
  h->p = *params;
  h->pool = fabric_pool (f);
  h->rp = g_new0 (RootPort, root_ports);
  h->peer_routing = root_ports > 1;
  h->watch = g_array_new (FALSE, FALSE, sizeof (Watch));
  h->msi_routes = g_array_new (FALSE, FALSE, sizeof (Watch));
  /* Converted once: the per-TLP paths only multiply. Rates of 0 become 0 ps per byte, i.e. no limit. */
  h->llc_hi = UINT64_MAX;
  h->llc_miss_ps = units_ns_to_ps (params->llc_miss_ns);
  h->llc_hit_ps = units_ns_to_ps (params->llc_hit_ns);
  h->drain_ps_per_byte = ps_per_byte (params->write_drain_mbps);
  h->drain_memo_bytes = UINT32_MAX; /* no payload is that large: the first drain_ps() computes */
  h->write_latency_ps = units_ns_to_ps (params->write_latency_ns);
  h->write_partial_ps = units_ns_to_ps (params->write_partial_block_ns);
  h->write_run_end = UINT64_MAX; /* no run yet: the first write's start is an edge only inside a block */
  h->msi_latency_ps = units_ns_to_ps (params->msi_latency_ns);
  h->poll_ps = units_ns_to_ps (params->poll_interval_ns);
  h->cpu_path_ps = units_ns_to_ps (params->cpu_write_path_ns);
  if (params->iommu_enabled) {
    h->iotlb = g_new0 (IotlbEntry, params->iotlb_entries);
    for (uint32_t i = 0; i < params->iotlb_entries; i++)
      h->iotlb[i].page = UINT64_MAX;
    h->walk_ps = units_ns_to_ps (params->iommu_walk_ns);
    h->read_resume_ps = units_ns_to_ps (params->iommu_read_resume_ns);
    h->read_resume_group_ps = units_ns_to_ps (params->iommu_read_resume_group_ns);
    h->walker_free = g_new0 (SimTime, MAX (params->iommu_walks, 1u));
  }
  fabric_add (f, &h->base, &host_kind, COMPONENT_ROOT_COMPLEX, name, root_ports);
  TxnCplParams cp = { .rcb_bytes = params->rcb_bytes, .policy = params->cpl_policy,
                      .full_block_bytes = params->full_block_bytes, .in_order = params->cpl_in_order,
                      .depth = params->read_queue_depth, .queue_tlps = params->cpl_queue_tlps,
                      .latency_ps = units_ns_to_ps (params->read_latency_ns),
                      .ps_per_byte = params->read_latency_per_byte_ps,
                      .cpl_overhead_ps = units_ns_to_ps (params->cpl_overhead_ns),
                      .cpl_group_tlps = params->cpl_group_tlps, .fence_ps = units_ns_to_ps (params->cpl_fence_ns),
                      .cpl_ps_per_byte = ps_per_byte (params->cpl_rate_mbps) };
  txn_cpl_init (&h->cpl, h->base.name, &cp, 0, h->engine, host_ret_emit, h);
  return h;
}

const HostParams *
host_params (const Host *h)
{
  return &h->p;
}

Component *
host_component (Host *h)
{
  return &h->base;
}

Host *
host_from_component (Component *c)
{
  return c != NULL && c->kind == &host_kind ? (Host *) c : NULL;
}

HostCounters
host_counters (const Host *h)
{
  HostCounters c = h->c;
  c.write_checksum += pattern_sum (h->sum_from, h->sum_to - h->sum_from);
  return c;
}

gboolean
host_check_invariants (const Host *h, GError **error)
{
  gboolean tx = FALSE;
  for (uint32_t i = 0; i < h->base.n_ports; i++)
    tx |= !rp_empty (&h->rp[i]);
  tx |= h->cpu_fifo.head != NULL;
  if (h->cpl.n > 0 || h->held.head != NULL || h->sink.head != NULL || tx || h->swapped != NULL) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_INVARIANT, "host: work left at the end (requests %s, held %s, sink %s, "
      "transmit %s, swapped completion %s)", h->cpl.n > 0 ? "pending" : "empty", h->held.head ? "pending" : "empty",
      h->sink.head ? "pending" : "empty", tx ? "pending" : "empty", h->swapped ? "pending" : "none");
    return FALSE;
  }
  /* Counted as emitted, before any test fault: this proves the completer split every request completely; lost,
   * duplicated or swapped completions are the endpoint's checks to catch. */
  if (h->c.cpl_bytes != h->c.read_bytes_requested) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_INVARIANT,
      "host: %" G_GUINT64_FORMAT " bytes requested but %" G_GUINT64_FORMAT
      " completed", h->c.read_bytes_requested, h->c.cpl_bytes);
    return FALSE;
  }
  return TRUE;
}

void
host_inject_fault (Host *h, HostFault fault, uint64_t nth)
{
  h->fault = fault;
  h->fault_at = nth;
}

void
host_describe_wait (const Host *h, GString *out)
{
  /* O(n), and fine: only the watchdog's one-off message counts queues. */
  guint reqs = h->cpl.n, held = tlp_fifo_len (&h->held), sink = tlp_fifo_len (&h->sink),
        tx = tlp_fifo_len (&h->cpu_fifo);
  gboolean blocked = FALSE;
  for (uint32_t i = 0; i < h->base.n_ports; i++) {
    for (int k = 0; k < FC_CLASS_COUNT; k++)
      tx += tlp_fifo_len (&h->rp[i].q[k]);
    blocked |= h->rp[i].tx_blocked;
  }
  if (reqs + held + sink + tx == 0)
    return;
  g_string_append_printf (out, "%s%u reads in the root complex, %u held in the receive buffer, %u posted writes "
    "draining, %u TLPs waiting to transmit%s", out->len ? "; " : "", reqs, held, sink, tx,
    blocked ? " (blocked by the link)" : "");
}
