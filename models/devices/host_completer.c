/* host_completer.c — the root complex's completer: MRds taken into the request queue (or held in the root port's
 * receive buffer while it is full), the per-requester tag check, and the one return path that splits each
 * request's data into completions at RCB/MPS boundaries (split.h), the read whose data is ready first before the
 * others (or in arrival order, HostParams.cpl_in_order) (contract in host.h; the state in host_impl.h).
 */
#include "models/devices/host_impl.h"

#include <math.h>

#include "models/base/pattern.h"

static void ret_schedule (Host *h);

/* Take request `r` out of the queue, wherever it is (any-order return finishes a later one first). */
static void
reqs_unlink (Host *h, Tlp *r)
{
  Tlp *prev = NULL;
  for (Tlp *x = h->reqs.head; x != r; x = x->next)
    prev = x;
  if (prev)
    prev->next = r->next;
  else
    h->reqs.head = r->next;
  if (h->reqs.tail == r)
    h->reqs.tail = prev;
  r->next = NULL;
}

/* Take an MRd into the root complex's request queue: only now is its receive-buffer slot (and NP credit) free,
 * and only now does its latency start — a held request waits for the root complex, it is not being served.
 * The per-byte term prices larger reads' first data later (pcie-bench's 8 -> 512-byte medians grow ~0.3 ns/B,
 * pcie-protocol.md §8); later completions of the same request are paced by the return path alone. From here on
 * the request's `port` is the root port its completions leave by: the one its requester ID routes to. */
void
host_accept_read (Host *h, Tlp *t)
{
  link_port_consume (h->base.ports[t->port - 1].link_port, t);
  FabricPort *out = fabric_route_id (&h->base, t->requester);
  SIM_INVARIANT (out != NULL, "%s: no root port leads to requester %04x", h->base.name, t->requester);
  t->port = (uint16_t) (out->index + 1);
  /* A read must not pass a posted write received before it (spec §2.4.1, Table 2-40: a non-posted request never
   * passes a posted one): on_rx() left in stamp_ps when the last such write is handed on, and the root complex
   * starts the read no earlier. */
  SimTime start = MAX (sim_now (h->engine), t->stamp_ps);
  t->stamp_ps = start + h->read_latency_ps + host_memory_ps (h, t)
                + (SimTime) llround (t->length_bytes * h->read_ps_per_byte);
  tlp_fifo_push (&h->reqs, t);
  h->n_reqs++;
  ret_schedule (h);
}

/* Requester and tag of a read that reached host memory: no requester may hold one tag twice (spec §2.2.6.2), which
 * is what lets completions of different requesters share tag numbers. A bit per (bus, function, tag): every
 * requester is device 0 of its bus (fabric.h), and each function is a requester of its own. */
static uint32_t
tag_row (const Host *h, uint16_t requester)
{
  return (uint32_t) (requester >> 8) * h->n_functions + (requester & 7u);
}

void
host_tag_claim (Host *h, const Tlp *t)
{
  uint32_t row = tag_row (h, t->requester);
  SIM_INVARIANT ((uint32_t) (t->requester >> 8) < h->n_buses && (t->requester & 7u) < h->n_functions
                 && t->tag < HOST_TAGS, "%s: a read from requester %04x tag %u, which no enumerated function below a "
                 "root port holds", h->base.name, t->requester, t->tag);
  SIM_INVARIANT (!(h->tag_busy[row][t->tag / 64] >> (t->tag % 64) & 1), "%s: requester %04x reuses tag %u while a "
                 "read with it is outstanding", h->base.name, t->requester, t->tag);
  h->tag_busy[row][t->tag / 64] |= UINT64_C (1) << (t->tag % 64);
  uint32_t users = ++h->tag_users[t->tag];
  h->c.tag_sharing_high_water = MAX (h->c.tag_sharing_high_water, users);
}

static void
tag_release (Host *h, const Tlp *t)
{
  h->tag_busy[tag_row (h, t->requester)][t->tag / 64] &= ~(UINT64_C (1) << (t->tag % 64));
  h->tag_users[t->tag]--;
}

/* The head request's next completion has crossed the return path. Requester ID and tag echo the request: the
 * fabric routes the completion back by the ID, and the requester matches it to its request by the tag; the Byte
 * Count carries what is left. */
static void
ret_emit (SimEngine *e, void *ctx, uint64_t size)
{
  Host *h = ctx;
  Tlp *r = h->ret_req;
  /* Why (stall.h): the root port waited for this completion's data until ret_start, and for the return path to
   * produce it since; no event marks ret_start, so the time since is given its cause now. */
  StallClock *sc = &h->rp[r->port - 1].stall;
  if (!sc->follow && (sc->cause == STALL_HOST_LATENCY || sc->cause == STALL_HOST_QUEUE) && h->ret_start > sc->since)
    stall_set (sc, h->ret_start, STALL_HOST_COMPLETION_RATE);
  Tlp *c = tlp_alloc (h->pool);
  tlp_set (c, TLP_CPLD, FALSE, r->address, (uint32_t) size);
  c->length_bytes = r->length_bytes; /* byte count: what remains of the request, this completion included */
  c->requester = r->requester;
  c->tag = r->tag;
  c->cookie = r->cookie;
  h->c.cpls++;
  h->c.cpl_bytes += size;
  h->c.cpl_checksum += pattern_sum (c->address, size);
  r->address += size;
  r->length_bytes -= (uint32_t) size;
  uint32_t port = r->port - 1;
  /* The last completion frees a place in the root complex for the oldest held MRd, whose latency starts only
   * now. ret_pending is still TRUE here, so host_accept_read()'s ret_schedule() returns at once and the call below
   * plans the next completion, whichever request is at the head by then. */
  if (r->length_bytes == 0) {
    tag_release (h, r);
    reqs_unlink (h, r);
    tlp_free (h->pool, r);
    h->n_reqs--;
    if (h->held.head != NULL)
      host_accept_read (h, tlp_fifo_pop (&h->held));
  }
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
    c->requester = (uint16_t) (((c->requester >> 8) % (h->n_buses - 1) + 1) << 8);
    FabricPort *out = fabric_route_id (&h->base, c->requester);
    g_assert (out != NULL);
    port = out->index;
    rp_push (h, port, c);
  } else {
    h->swapped = c; /* HOST_FAULT_SWAP_CPL: sent right after the next completion */
  }
  host_tx_drain (h, port);
  h->ret_pending = FALSE;
  ret_schedule (h);
  /* The next completion is planned: the port now waits for its data, or for its production. */
  host_stall (h, port);
}

/* Plan the next completion: it leaves the return path once its data is ready and the path has moved the
 * previous completion's data. One event per completion, none while idle. The request served is the one whose
 * data is ready first (the oldest among equals): completions for different tags may return in any order (spec
 * §2.4.1, Table 2-40: a completion may pass another of a different transaction), so a read waiting on a page walk
 * or a cold line does not hold back one that is ready; with cpl_in_order only the head request is looked at, one
 * return path in arrival order. A request's own completions stay in address order. The size is decided now, from
 * where the previous completion ended: applied one completion at a time, split_next_completion() yields the
 * spec's series (the first ends on an RCB multiple, middle ones are RCB multiples, none exceeds MPS). */
static void
ret_schedule (Host *h)
{
  if (h->reqs.head == NULL)
    return;
  Tlp *r = h->reqs.head;
  if (!h->p.cpl_in_order)
    for (Tlp *x = r->next; x != NULL; x = x->next)
      if (x->stamp_ps < r->stamp_ps)
        r = x;
  if (h->ret_pending) {
    /* A read that came in after the plan and is ready before the planned one's data replaces the plan, as long as
     * the return path has not started on it. */
    if (r == h->ret_req || h->ret_start <= sim_now (h->engine))
      return;
    sim_cancel (h->engine, h->ret_ev);
    h->ret_free = h->ret_prev_free;
    h->ret_pending = FALSE;
  }
  h->ret_req = r;
  h->ret_prev_free = h->ret_free;
  uint32_t size = split_next_completion (r->address, r->length_bytes, h->p.rcb_bytes, h->rp[r->port - 1].mps,
    h->p.cpl_policy);
  SimTime start = MAX (MAX (sim_now (h->engine), r->stamp_ps), h->ret_free);
  SimTime done = start + h->cpl_overhead_ps + (SimTime) llround (size * h->cpl_ps_per_byte);
  h->ret_start = start;
  h->ret_free = done;
  h->ret_pending = TRUE;
  h->ret_ev = sim_schedule_at (h->engine, done, ret_emit, h, size);
}
