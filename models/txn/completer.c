/* completer.c — the one completer of memory reads (contract in completer.h). */
#include "models/txn/completer.h"

#include <math.h>

#include "models/base/model_error.h"

void
txn_cpl_init (TxnCompleter *c, const char *name, const TxnCplParams *p, uint32_t mps, SimEngine *engine,
  SimEventFn fire, void *ctx)
{
  *c = (TxnCompleter) { .p = *p, .mps = mps, .name = name, .engine = engine, .fire = fire, .fire_ctx = ctx,
                        .plan_ev = SIM_EVENT_NONE, .rate_memo_bytes = UINT32_MAX };
}

void
txn_cpl_set_port_mps (TxnCompleter *c, uint32_t n_ports, uint32_t port_index, uint32_t mps)
{
  if (c->port_mps == NULL) {
    c->port_mps = g_new0 (uint32_t, n_ports);
    c->n_ports = n_ports;
  }
  g_assert (port_index < c->n_ports);
  c->port_mps[port_index] = mps;
}

void
txn_cpl_clear (TxnCompleter *c, TlpPool *pool)
{
  for (Tlp *t; (t = tlp_fifo_pop (&c->fifo)) != NULL;)
    tlp_free (pool, t);
  for (uint32_t i = 0; i < (c->p.in_order ? 0 : c->n); i++)
    tlp_free (pool, c->heap[i].req);
  c->n = 0;
  g_clear_pointer (&c->heap, g_free);
  g_clear_pointer (&c->port_mps, g_free);
  c->heap_cap = 0;
}

/* --- the any-order heap --------------------------------------------------------------------------------------- */

static inline gboolean
slot_before (const TxnCplSlot *a, const TxnCplSlot *b)
{
  return a->ready_ps < b->ready_ps || (a->ready_ps == b->ready_ps && a->arrival < b->arrival);
}

static void
sift_up (TxnCplSlot *h, uint32_t i)
{
  TxnCplSlot x = h[i];
  while (i > 0 && slot_before (&x, &h[(i - 1) / 2])) {
    h[i] = h[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h[i] = x;
}

static void
sift_down (TxnCplSlot *h, uint32_t n, uint32_t i)
{
  TxnCplSlot x = h[i];
  for (uint32_t k; (k = 2 * i + 1) < n; i = k) {
    if (k + 1 < n && slot_before (&h[k + 1], &h[k]))
      k++;
    if (!slot_before (&h[k], &x))
      break;
    h[i] = h[k];
  }
  h[i] = x;
}

/* Take read r out of the heap. It is almost always the top (the read planned is the one ready first); a read that
 * became ready earlier after its plan had started is the exception, found by a walk. */
static void
heap_remove (TxnCompleter *c, const Tlp *r)
{
  uint32_t i = 0;
  while (c->heap[i].req != r)
    i++;
  c->n--;
  if (i == c->n)
    return;
  c->heap[i] = c->heap[c->n];
  if (i > 0 && slot_before (&c->heap[i], &c->heap[(i - 1) / 2]))
    sift_up (c->heap, i);
  else
    sift_down (c->heap, c->n, i);
}

/* --- reads ------------------------------------------------------------------------------------------------------ */

static void
check_tag (const TxnCompleter *c, const Tlp *t)
{
  uint32_t n = c->p.in_order ? 0 : c->n;
  for (const Tlp *q = c->fifo.head; q != NULL; q = q->next)
    SIM_INVARIANT (q->requester != t->requester || q->tag != t->tag, "%s: requester %04x reuses tag %u while a "
                   "read with it is outstanding", c->name, t->requester, t->tag);
  for (uint32_t i = 0; i < n; i++)
    SIM_INVARIANT (c->heap[i].req->requester != t->requester || c->heap[i].req->tag != t->tag, "%s: requester "
                   "%04x reuses tag %u while a read with it is outstanding", c->name, t->requester, t->tag);
}

gboolean
txn_cpl_full_block (uint64_t addr, uint32_t len, uint32_t rcb_bytes, uint32_t block)
{
  /* The read's RCB blocks span [first, end); the first aligned block at or after `first` must end by `end`. */
  uint64_t first = addr / rcb_bytes * rcb_bytes, end = (addr + len + rcb_bytes - 1) / rcb_bytes * rcb_bytes;
  return len > 0 && (first + block - 1) / block * block + block <= end;
}

SimTime
txn_cpl_accept (TxnCompleter *c, Tlp *r, SimTime not_before, SimTime extra_ps)
{
  if (c->p.check_tags && c->tags != NULL)
    txn_tags_claim (c->tags, r->requester, r->tag);
  else if (c->p.check_tags)
    check_tag (c, r);
  if (c->p.full_block_bytes != 0 || c->p.fence_ps != 0) {
    uint16_t fence = c->p.fence_ps != 0 ? r->order & TXN_CPL_FENCE : 0;
    gboolean block = c->p.full_block_bytes != 0
                     && txn_cpl_full_block (r->address, r->length_bytes, c->p.rcb_bytes, c->p.full_block_bytes);
    r->order = (uint16_t) ((block ? TXN_CPL_BLOCK_FIRST : TXN_CPL_BLOCK_NO) | fence);
  }
  if (c->p.queue_tlps != 0) /* txn_cpl_room()'s count when it was asked (Room) */
    c->cpl_held += txn_cpl_count_noted (c, r);
  r->hold_ps = 0; /* completions sent (the return path's groups) */
  SimTime start = MAX (sim_now (c->engine), not_before);
  r->stamp_ps = start + c->p.latency_ps + extra_ps;
  if (c->p.ps_per_byte != 0) /* llround() costs as much as the rest of the acceptance */
    r->stamp_ps += (SimTime) llround (r->length_bytes * c->p.ps_per_byte);
  if (c->p.in_order)
    tlp_fifo_push (&c->fifo, r);
  else {
    if (c->n == c->heap_cap) {
      c->heap_cap = MAX (16u, 2 * c->heap_cap);
      c->heap = g_renew (TxnCplSlot, c->heap, c->heap_cap);
    }
    r->next = NULL;
    c->heap[c->n] = (TxnCplSlot) { r->stamp_ps, c->arrivals++, r };
    sift_up (c->heap, c->n);
  }
  c->n++;
  return r->stamp_ps;
}

Tlp *
txn_cpl_emit (TxnCompleter *c, Tlp *r, uint32_t size, TlpPool *pool, gboolean *last)
{
  /* What tlp_set (TLP_CPLD) makes (spec §2.2: completions have 3-DW headers), field by field: every completion
   * passes here, and the call was a tenth of the completer's time. */
  Tlp *cpl = tlp_alloc (pool);
  cpl->kind = TLP_CPLD;
  cpl->header_bytes = 12;
  cpl->address = r->address;
  cpl->payload_bytes = size;
  cpl->length_bytes = r->length_bytes; /* byte count: what remains of the request, this completion included */
  cpl->requester = r->requester;
  cpl->tag = r->tag;
  cpl->cookie = r->cookie;
  r->address += size;
  r->length_bytes -= size;
  r->hold_ps++;
  if (c->p.queue_tlps != 0) {
    SIM_INVARIANT (c->cpl_held > 0, "%s: a completion sent beyond those its reads were counted for", c->name);
    c->cpl_held--;
  }
  if (c->p.full_block_bytes != 0 && (r->order & TXN_CPL_BLOCK_MASK) == TXN_CPL_BLOCK_FIRST)
    r->order = (uint16_t) ((r->order & ~TXN_CPL_BLOCK_MASK) | TXN_CPL_BLOCK_REST);
  *last = r->length_bytes == 0;
  if (*last) {
    if (c->p.check_tags && c->tags != NULL)
      txn_tags_release (c->tags, r->requester, r->tag);
    if (c->p.in_order) {
      g_assert (c->fifo.head == r); /* in order, only the head is ever answered */
      tlp_fifo_pop (&c->fifo);
      c->n--;
    } else
      heap_remove (c, r);
    tlp_free (pool, r);
  }
  return cpl;
}

uint32_t
txn_cpl_count (const TxnCompleter *c, const Tlp *r)
{
  uint32_t mps = c->port_mps != NULL ? c->port_mps[r->port - 1] : c->mps;
  if (c->p.full_block_bytes == 0 || !txn_cpl_full_block (r->address, r->length_bytes, c->p.rcb_bytes,
                                                         c->p.full_block_bytes))
    return split_completions (r->address, r->length_bytes, c->p.rcb_bytes, mps, c->p.policy, NULL, 0);
  /* A whole block's read: its first completion as any other, then the rest by MPS (Cut). */
  uint32_t first = split_next_completion (r->address, r->length_bytes, c->p.rcb_bytes, mps, c->p.policy);
  return 1 + split_completions (r->address + first, r->length_bytes - first, c->p.rcb_bytes, mps, CPL_POLICY_MPS,
                                NULL, 0);
}

uint32_t
txn_cpl_predict (uint64_t addr, uint32_t remaining, uint32_t rcb_bytes, uint32_t mps, CplPolicy policy)
{
  return split_next_completion (addr, remaining, rcb_bytes, mps, policy);
}

/* --- the return path ---------------------------------------------------------------------------------------- */

void
txn_cpl_plan (TxnCompleter *c)
{
  Tlp *r = txn_cpl_next (c);
  if (r == NULL)
    return;
  SimTime now = sim_now (c->engine);
  if (c->pending) {
    /* A read that came in after the plan and is ready before the planned one's data replaces the plan, as long as
     * the return path has not started on it. */
    if (r == c->plan_req || c->start_ps <= now)
      return;
    sim_cancel (c->engine, c->plan_ev);
    c->free_ps = c->prev_free_ps;
    c->pending = FALSE;
  }
  c->plan_req = r;
  c->prev_free_ps = c->free_ps;
  uint32_t size = txn_cpl_size (c, r);
  SimTime start = MAX (MAX (now, r->stamp_ps), c->free_ps);
  gboolean opens = c->p.cpl_group_tlps <= 1 || r->hold_ps % c->p.cpl_group_tlps == 0;
  /* A fenced read's turn comes before its first completion (a plan replaced before it started undoes it too). */
  SimTime fence = c->p.fence_ps != 0 && r->hold_ps == 0 && (r->order & TXN_CPL_FENCE) ? c->p.fence_ps : 0;
  if (size != c->rate_memo_bytes) {
    c->rate_memo_bytes = size;
    c->rate_memo_ps = (SimTime) llround (size * c->p.cpl_ps_per_byte);
  }
  SimTime done = start + fence + (opens ? c->p.cpl_overhead_ps : 0) + c->rate_memo_ps;
  c->start_ps = start;
  c->free_ps = done;
  c->pending = TRUE;
  c->plan_bytes = size;
  c->plan_ev = sim_schedule_at (c->engine, done, c->fire, c->fire_ctx, size);
}

Tlp *
txn_cpl_emit_planned (TxnCompleter *c, TlpPool *pool, gboolean *last)
{
  g_assert (c->pending);
  return txn_cpl_emit (c, c->plan_req, c->plan_bytes, pool, last);
}

void
txn_cpl_plan_done (TxnCompleter *c)
{
  c->pending = FALSE;
  txn_cpl_plan (c);
}
