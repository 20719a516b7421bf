/* host_completer.c — the root complex's side of its completer (completer.h): MRds taken into the request queue (or
 * held in the root port's receive buffer while it is full), the per-requester tag check, and what the root complex
 * does with each completion the return path produces (contract in host.h; the state in host_impl.h).
 */
#include "models/devices/host_impl.h"

#include "models/base/pattern.h"

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
  txn_cpl_accept (&h->cpl, t, t->stamp_ps, host_memory_ps (h, t));
  txn_cpl_plan (&h->cpl);
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

/* The planned completion has crossed the return path. Requester ID and tag echo the request: the fabric routes the
 * completion back by the ID, and the requester matches it to its request by the tag; the Byte Count carries what is
 * left. */
void
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
  h->c.cpl_checksum += pattern_sum (c->address, size);
  /* The last completion frees a place in the root complex for the oldest held MRd, whose latency starts only
   * now. The plan is still pending here, so host_accept_read()'s txn_cpl_plan() returns at once and
   * txn_cpl_plan_done() below plans the next completion, whichever request is first by then. */
  if (last) {
    tag_release (h, c);
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
  txn_cpl_plan_done (&h->cpl);
  /* The next completion is planned: the port now waits for its data, or for its production. */
  host_stall (h, port);
}
