/* completer.h — the one completer of memory reads every model uses: the root complex, the endpoint's memory
 * target, the memory device and the stream's host. It holds the reads a component has taken in, decides which
 * one is answered next and cuts each one's data into completions (split.h's RCB/MPS rules); the component keeps
 * its own counters, its link and its reasons to wait.
 *
 * Contract:
 * - A read is a Tlp the completer owns from txn_cpl_accept() until its last completion leaves (then it is returned
 *   to the pool): its stamp_ps is when its data is ready, and address and length_bytes advance as completions
 *   leave, so each describes its own next completion (spec §2.2.9: the byte count is what remains).
 * - Ready time: max(now, not_before) + latency + extra + length x per-byte cost, the per-byte term rounded to the
 *   picosecond once per read.
 * - Order: in_order serves the oldest read first (one queue in arrival order); otherwise the read whose data is
 *   ready first, the oldest among equals (spec §2.4.1, Table 2-40: a completion may pass one of another
 *   transaction). A read's own completions always leave in increasing address order (spec §2.3.1.1). The any-order
 *   pick is a binary heap keyed on (ready time, arrival number), O(log n) per completion, no allocation once the
 *   heap has grown to the working set.
 * - Cut: p.policy, but a read whose RCB blocks include every one of a naturally aligned block of p.full_block_bytes
 *   (when not 0) goes out as its first RCB block and then by CPL_POLICY_MPS: a root complex that sends a read's
 *   first line at once and the lines gathered meanwhile together, for whole blocks only (line by line otherwise).
 *   Decided at acceptance from the whole read and kept in the read's `order` (TXN_CPL_BLOCK_*), which no one else
 *   reads while the completer owns the read.
 * - Tag reuse (spec §2.2.6.2: a requester never holds one tag twice): with check_tags, a read whose requester and
 *   tag match one the completer holds is a model bug (SIM_INVARIANT): through `tags` (a bitmap, tags.h) when the
 *   component gave one, else by a walk of the reads held, for completers that hold few. The root complex checks
 *   its reads with a set of its own, held ones included.
 * - Pull completers (the link takes a completion when it has room) call txn_cpl_next() / txn_cpl_size() /
 *   txn_cpl_emit() themselves. The return path (txn_cpl_plan()) is for a completer whose completions leave one
 *   at a time through a serial resource: each costs size x per-byte cost, and the overhead when it opens a group of
 *   p.cpl_group_tlps of its read's completions (every completion with groups of 0 or 1), one event per completion,
 *   and a plan not yet started yields to a read that became ready before it.
 * - Room: with p.queue_tlps, a read is taken in only when its completions (txn_cpl_count()) fit beside those of
 *   the reads held and not yet sent, or when it holds none: a completer that reserves a read's completion slots
 *   when it starts the read, as a requester reserves completion space before it sends one (spec §2.6.1).
 *   txn_cpl_room() says whether the component may hand it the next read, and keeps the read's count in its hold_ps
 *   until txn_cpl_accept(); each completion sent frees a slot.
 * - Fence: with p.fence_ps, a read whose `order` carries TXN_CPL_FENCE when accepted (the component's mark: the
 *   root complex's for a read received behind posted writes) holds the return path p.fence_ps more before its
 *   first completion; the component sets or clears the mark on every read it accepts.
 */
#pragma once

#include "models/proto/split.h"
#include "models/proto/tlp.h"
#include "models/txn/tags.h"
#include "sim/engine.h"

typedef struct {
  uint32_t rcb_bytes; /* 64 or 128 (spec §2.3.1.1) */
  CplPolicy policy;
  uint32_t full_block_bytes; /* 0, or a power of two >= rcb_bytes: see Cut */
  gboolean in_order; /* serve reads in arrival order; else the one ready first */
  gboolean check_tags; /* refuse a requester's tag while a read with it is held */
  uint32_t depth; /* reads it works on at once (0: no limit); the component holds back the rest (txn_cpl_full()) */
  /* The completions of the reads it holds, not yet sent, at most (0: no limit): see Room. */
  uint32_t queue_tlps;
  SimTime latency_ps; /* from acceptance to the first data */
  double ps_per_byte; /* per requested byte, added to the latency */
  /* Return path (txn_cpl_plan()): per completion, and per completion byte. */
  SimTime cpl_overhead_ps;
  double cpl_ps_per_byte;
  /* A read's completions cross in groups of this many, the overhead paid by each group's first (0 or 1: by every
   * completion); the count lives in the read's hold_ps while the completer owns it. */
  uint32_t cpl_group_tlps;
  /* The return path's time before the first completion of a read accepted with TXN_CPL_FENCE (Fence); 0: none. */
  SimTime fence_ps;
} TxnCplParams;

/* A read's `order` while a completer with full_block_bytes holds it (Cut), in its low bits; TXN_CPL_FENCE (Fence)
 * beside them. */
enum { TXN_CPL_BLOCK_NO, TXN_CPL_BLOCK_FIRST, TXN_CPL_BLOCK_REST, TXN_CPL_BLOCK_MASK = 3, TXN_CPL_FENCE = 4 };

/* One entry of the any-order heap: the arrival number breaks ties between equal ready times. */
typedef struct {
  SimTime ready_ps;
  uint64_t arrival;
  Tlp *req;
} TxnCplSlot;

typedef struct {
  TxnCplParams p;
  uint32_t mps; /* the largest completion: the link's MPS, or a smaller size the completer chooses */
  uint32_t *port_mps; /* a completer behind several ports: by the read's `port` - 1 (txn_cpl_set_port_mps()) */
  uint32_t n_ports;
  const char *name; /* for invariant messages */
  TxnTagSet *tags; /* check_tags through this set when not NULL (the component's, set once enumerated) */
  uint32_t n; /* reads held */
  uint32_t cpl_held; /* with p.queue_tlps: the completions of the reads held, not yet sent (Room) */
  TlpFifo fifo; /* in_order: the reads in arrival order */
  TxnCplSlot *heap; /* any order: a binary heap on (ready_ps, arrival) */
  uint32_t heap_cap;
  uint64_t arrivals;
  /* Return path state (read-only outside completer.c). free_ps: when the path has moved the last planned
   * completion's data; start_ps: when it starts on the planned one (its data is ready); pending: a planned
   * completion's event is scheduled; plan_req / plan_bytes: what it is; prev_free_ps: free_ps before it, so a plan
   * not started yet may be replaced. */
  SimEngine *engine;
  SimEventFn fire;
  void *fire_ctx;
  SimTime free_ps, start_ps, prev_free_ps;
  gboolean pending;
  Tlp *plan_req;
  uint32_t plan_bytes;
  SimEventId plan_ev;
  /* The return path's time for the last completion size (llround() of size × cpl_ps_per_byte): completions are
   * mostly of one size, and the libm call cost a fifth of planning one. size UINT32_MAX: none yet. */
  uint32_t rate_memo_bytes;
  SimTime rate_memo_ps;
} TxnCompleter;

/* An empty completer. `name` must outlive it; `fire` (with `ctx`) is the return path's event, unused (NULL) by pull
 * completers. */
void txn_cpl_init (TxnCompleter *c, const char *name, const TxnCplParams *p, uint32_t mps, SimEngine *engine,
  SimEventFn fire, void *ctx);
/* A completer answering through `n_ports` ports, each with its own MPS: a read's `port` (1-based) names the one its
 * completions leave by. */
void txn_cpl_set_port_mps (TxnCompleter *c, uint32_t n_ports, uint32_t port_index, uint32_t mps);
/* Give every read still held back to `pool` and release the heap. */
void txn_cpl_clear (TxnCompleter *c, TlpPool *pool);

/* Take read `r` (the completer owns it now): its data is ready at max(now, not_before) + latency + extra_ps +
 * the per-byte term. Returns the ready time. */
SimTime txn_cpl_accept (TxnCompleter *c, Tlp *r, SimTime not_before, SimTime extra_ps);
/* Whether it holds `depth` reads already. */
static inline gboolean
txn_cpl_full (const TxnCompleter *c)
{
  return c->p.depth != 0 && c->n >= c->p.depth;
}
/* How many completions read `r` (not yet accepted: its address, length and port) will leave as, cut as below. */
uint32_t txn_cpl_count (const TxnCompleter *c, const Tlp *r);
/* Read r's completion count: the one txn_cpl_room() noted in its hold_ps before txn_cpl_accept(), else counted. */
static inline uint32_t
txn_cpl_count_noted (const TxnCompleter *c, const Tlp *r)
{
  return r->hold_ps != 0 ? (uint32_t) r->hold_ps : txn_cpl_count (c, r);
}
/* Whether read `r` may be taken in now: not full, and its completions fit (Room). With p.queue_tlps it notes the
 * read's completion count in r->hold_ps for the checks after it and txn_cpl_accept() (a held read is checked at
 * every completion): a component that asks clears hold_ps when it takes the read off its port. */
static inline gboolean
txn_cpl_room (const TxnCompleter *c, Tlp *r)
{
  if (txn_cpl_full (c))
    return FALSE;
  if (c->p.queue_tlps == 0)
    return TRUE;
  if (r->hold_ps == 0)
    r->hold_ps = txn_cpl_count (c, r);
  return c->n == 0 || c->cpl_held + r->hold_ps <= c->p.queue_tlps;
}
/* The read answered next (see Order), or NULL when none is held. Inline, as the two below: every completion asks. */
static inline Tlp *
txn_cpl_next (const TxnCompleter *c)
{
  if (c->n == 0)
    return NULL;
  return c->p.in_order ? c->fifo.head : c->heap[0].req;
}
/* The size of read r's next completion. */
static inline uint32_t
txn_cpl_size (const TxnCompleter *c, const Tlp *r)
{
  uint32_t mps = c->port_mps != NULL ? c->port_mps[r->port - 1] : c->mps;
  CplPolicy policy = c->p.full_block_bytes != 0 && (r->order & TXN_CPL_BLOCK_MASK) == TXN_CPL_BLOCK_REST
                        ? CPL_POLICY_MPS : c->p.policy;
  return split_next_completion (r->address, r->length_bytes, c->p.rcb_bytes, mps, policy);
}
/* Read r's next completion, `size` bytes, from `pool`: a CplD echoing the read's requester, tag and cookie, its
 * byte count what remains. The read advances; after its last completion it leaves the completer and goes back to
 * the pool, and *last is TRUE. */
Tlp *txn_cpl_emit (TxnCompleter *c, Tlp *r, uint32_t size, TlpPool *pool, gboolean *last);

/* Return path: plan the next completion if none is planned (or replace a plan not yet started by one for a read
 * ready earlier). The event `fire` comes when its data has crossed the path; it then calls txn_cpl_emit_planned(),
 * does what it must with the completion while the plan still counts as pending (reads accepted meanwhile are only
 * queued), then txn_cpl_plan_done(). */
void txn_cpl_plan (TxnCompleter *c);
Tlp *txn_cpl_emit_planned (TxnCompleter *c, TlpPool *pool, gboolean *last);
void txn_cpl_plan_done (TxnCompleter *c);

/* Whether a read of `len` bytes at `addr` has every RCB block of a naturally aligned block of `block` bytes among
 * its own (see Cut). */
gboolean txn_cpl_full_block (uint64_t addr, uint32_t len, uint32_t rcb_bytes, uint32_t block);
/* A read's completions as the completer would cut them, without a completer: for tools that predict the wire. */
uint32_t txn_cpl_predict (uint64_t addr, uint32_t remaining, uint32_t rcb_bytes, uint32_t mps, CplPolicy policy);
