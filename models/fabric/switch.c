/* switch.c — the switch component: routing, buffers, ordering and egress arbitration (contract in switch.h).
 *
 * A TLP that arrives is routed at once and queued for its egress port, in the queue of its ingress port and
 * flow-control class, with the earliest time it may leave in hold_ps. Each egress port then has one arbiter,
 * run whenever something may have changed for it: a TLP queued for it, its link ready again (credits, queue),
 * or the earliest hold time among its queues' heads (one event, kept only while something waits for time).
 * The arbiter takes as many TLPs as its link accepts, each from the next ingress port in turn with a TLP that
 * may go: ready, allowed by the ordering rules, and accepted by the link. Only ingress ports with a TLP queued for
 * the egress port are visited (a bitmask per egress port), since a fabric's arbiter runs on every grant and every
 * tx-ready and most ports have nothing queued for a given egress.
 *
 * Everything the link decides (when the header is in, Acks, UpdateFCs, credits) stays the link's: the switch only
 * chooses when to take a TLP out of a receive buffer (link_port_consume) and what to offer an egress link.
 */
#include "models/fabric/switch.h"

G_STATIC_ASSERT (SWITCH_MAX_PORTS <= 64); /* Egress.busy has one bit per ingress port */

/* Tlp.port while the switch holds it: the ingress port, and this bit when the TLP sits in the central memory
 * rather than in its ingress port's receive buffer. */
#define IN_POOL 0x8000u

typedef struct {
  TlpFifo q[FC_CLASS_COUNT];
} Voq;

typedef struct {
  Voq *from; /* by ingress port */
  /* Bit i set while from[i] holds a TLP, so a grant visits only ingress ports with something queued rather than
   * scanning all of them (an empty port's pick() is NULL and leaves `soonest` alone, so skipping it changes
   * nothing). SWITCH_MAX_PORTS is 64, one bit each. */
  uint64_t busy;
  uint32_t queued;
  uint32_t next; /* the ingress port the arbiter offers the grant first */
  uint32_t left; /* weighted round robin: grants `next` still has in this turn */
  SimEventId wake; /* the earliest hold time among the heads that wait for time */
  SimTime wake_at;
  /* After a round of offers: until when offering again would repeat it (the wake's time; SIM_TIME_MAX with no
   * head waiting for time), unless the link calls tx-ready first, and whether its last scan was refused (the
   * refusals then stand until settled_until: link_port_set_refusals_stand()). */
  SimTime settled_until;
  gboolean refused;
  gboolean mixed; /* those refusals named more than one cause: repeating them moves the stall clock's accrual */
} Egress;

struct Switch {
  Component base; /* first: the fabric's view (fabric.h) */
  SwitchParams p;
  SimEngine *engine;
  TlpPool *pool;
  Egress *eg; /* by egress port */
  uint32_t queued;
  /* Central memory (shared buffer) in credits, [class][part]; cap UINT64_MAX = infinite. */
  uint64_t pool_used[FC_CLASS_COUNT][2], pool_cap[FC_CLASS_COUNT][2];
  uint64_t received;
  SwitchCounters c;
};

static const char *const class_name[FC_CLASS_COUNT] = { "posted", "non-posted", "completion" };
static const char *const credit_name[FC_CLASS_COUNT][2] = { { "PH", "PD" }, { "NPH", "NPD" }, { "CplH", "CplD" } };

gboolean
switch_params_check (const SwitchParams *p, GError **error)
{
  if (p->ports < 2 || p->ports > SWITCH_MAX_PORTS) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "a switch has 2..%u ports (one upstream), not %u",
                 SWITCH_MAX_PORTS, p->ports);
    return FALSE;
  }
  /* A second is far beyond any switch (pcie-protocol.md §8: about 100-160 ns); the bound keeps sums in SimTime. */
  if (p->latency_ps > 1000 * SIM_MS) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "port-to-port latency of %" G_GUINT64_FORMAT " ps: "
                 "at most 1 s", p->latency_ps);
    return FALSE;
  }
  if (p->dll_latency_ps > p->latency_ps) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "a port's data link layer latency (%" G_GUINT64_FORMAT
                 " ps) is part of the port-to-port latency (%" G_GUINT64_FORMAT " ps): it cannot exceed it",
                 p->dll_latency_ps, p->latency_ps);
    return FALSE;
  }
  return TRUE;
}

static uint32_t
weight (const Switch *sw, uint32_t port)
{
  return sw->p.arbitration == SWITCH_WEIGHTED_ROUND_ROBIN && sw->p.weights[port] ? sw->p.weights[port] : 1;
}

/* --- central memory ----------------------------------------------------------------------------------------- */

static gboolean
pool_fits (const Switch *sw, const Tlp *t)
{
  FcClass c = tlp_fc_class (t->kind);
  return sw->pool_used[c][FC_HDR] + tlp_header_credits (t) <= sw->pool_cap[c][FC_HDR]
         && sw->pool_used[c][FC_DATA] + tlp_data_credits (t) <= sw->pool_cap[c][FC_DATA];
}

static void
pool_move (Switch *sw, const Tlp *t, int sign)
{
  FcClass c = tlp_fc_class (t->kind);
  sw->pool_used[c][FC_HDR] += (uint64_t) (sign * (int64_t) tlp_header_credits (t));
  sw->pool_used[c][FC_DATA] += (uint64_t) (sign * (int64_t) tlp_data_credits (t));
}

/* --- egress arbitration ------------------------------------------------------------------------------------- */

static void egress_run (Switch *sw, uint32_t e);

static void
wake_fire (SimEngine *engine, void *ctx, uint64_t e)
{
  Switch *sw = ctx;
  sw->eg[e].wake = SIM_EVENT_NONE;
  egress_run (sw, (uint32_t) e);
}

/* Whether `a` arrived before `b` (both from one ingress port). Hold times never fall with arrival on one ingress
 * port, but they tie when TLPs are delivered at one instant (the TLPs ending in one flit): the arrival order breaks
 * the tie. It wraps at 16 bits, which is exact while fewer than 32,768 TLPs arrive at the switch at one instant. */
static inline gboolean
older (const Tlp *a, const Tlp *b)
{
  return a->hold_ps < b->hold_ps || (a->hold_ps == b->hold_ps && (int16_t) (uint16_t) (a->order - b->order) < 0);
}

/* A round's refusals: whether there were any, and whether they named more than one cause. */
typedef struct {
  gboolean any, mixed;
  StallCause first;
} Refusals;

static void
refusal (Refusals *r, LinkPort *lp)
{
  StallCause why = link_port_refused (lp);
  if (!r->any)
    r->first = why;
  else if (why != r->first)
    r->mixed = TRUE;
  r->any = TRUE;
}

/* The TLP ingress port i may send to egress link `lp` now, or NULL. The three heads are tried oldest first, and a
 * head not yet ready or not allowed past an older posted head lets a younger one try: a posted head passes, a
 * completion passes a read request. *soonest collects the hold times that are still ahead. */
static Tlp *
pick (Voq *v, SimTime now, LinkPort *lp, SimTime *soonest, Refusals *refused)
{
  Tlp *h[FC_CLASS_COUNT] = { v->q[FC_P].head, v->q[FC_NP].head, v->q[FC_CPL].head };
  for (int n = 0; n < FC_CLASS_COUNT; n++) {
    /* The n-th oldest head: at most three, so a selection by hand. */
    int best = -1;
    for (int c = 0; c < FC_CLASS_COUNT; c++)
      if (h[c] && (best < 0 || older (h[c], h[best])))
        best = c;
    if (best < 0)
      return NULL;
    Tlp *t = h[best];
    h[best] = NULL;
    if (t->hold_ps > now) {
      *soonest = MIN (*soonest, t->hold_ps);
      continue;
    }
    /* Spec §2.4.1 (Table 2-42 B2a, D2a): a read request or a completion never passes an older posted request. */
    if (best != FC_P && v->q[FC_P].head && older (v->q[FC_P].head, t))
      continue;
    if (link_port_can_send (lp, t))
      return t;
    refusal (refused, lp);
  }
  return NULL;
}

/* The wake at `soonest` (UINT64_MAX: none needed), an earlier pending one covering it; then what the round left:
 * until when it stands and whether the link's refusals do. */
static void
egress_settle (Switch *sw, uint32_t e, SimTime soonest, const Refusals *refused)
{
  Egress *g = &sw->eg[e];
  gboolean pending = sim_event_pending (sw->engine, g->wake);
  if (g->queued > 0 && soonest != UINT64_MAX && (!pending || g->wake_at > soonest)) {
    if (pending)
      sim_cancel (sw->engine, g->wake);
    g->wake = sim_schedule_at (sw->engine, soonest, wake_fire, sw, e);
    g->wake_at = soonest;
    pending = TRUE;
  }
  g->settled_until = pending ? g->wake_at : SIM_TIME_MAX;
  g->refused = refused->any;
  g->mixed = refused->mixed;
  link_port_set_refusals_stand (sw->base.ports[e].link_port, refused->any ? g->settled_until : 0);
}

/* Grant as long as the egress link takes TLPs. A TLP leaves its ingress buffer as it goes (the ingress port's
 * credits are freed then, or the central memory's). When nothing more can go, the link's tx-ready (armed by the
 * refused can_send) or the wake event at the next hold time brings the arbiter back. */
static void
egress_run (Switch *sw, uint32_t e)
{
  Egress *g = &sw->eg[e];
  FabricPort *op = &sw->base.ports[e];
  uint32_t n = sw->base.n_ports;
  SimTime now = sim_now (sw->engine), soonest = UINT64_MAX;
  Refusals refused = { FALSE, FALSE, STALL_IDLE };
  while (g->queued > 0) {
    Tlp *t = NULL;
    uint32_t from = 0;
    soonest = UINT64_MAX;
    refused = (Refusals) { FALSE, FALSE, STALL_IDLE };
    if (link_port_tx_full (op->link_port)) {
      /* The usual state of a congested egress: every offer would be refused for the full queue alone. All a scan
       * would leave is that refusal (once: repeats change nothing), made iff some head is ready (the oldest ready
       * head of a port is never held back by the ordering rules, so it is offered), and the hold times ahead. */
      const Tlp *ready = NULL;
      for (uint64_t m = g->busy; m != 0; m &= m - 1) {
        const Voq *v = &g->from[__builtin_ctzll (m)];
        for (int c = 0; c < FC_CLASS_COUNT; c++) {
          const Tlp *h = v->q[c].head;
          if (h && h->hold_ps > now)
            soonest = MIN (soonest, h->hold_ps);
          else if (h)
            ready = h;
        }
      }
      if (ready && !link_port_can_send (op->link_port, ready))
        refusal (&refused, op->link_port);
      break;
    }
    /* The ports from `next` up, then those below it: the round-robin order (next + k) % n, busy ports only. */
    uint64_t part[2] = { g->busy & (~(uint64_t) 0 << g->next), g->busy & ~(~(uint64_t) 0 << g->next) };
    for (int h = 0; h < 2 && t == NULL; h++)
      for (uint64_t m = part[h]; m != 0 && t == NULL; m &= m - 1) {
        from = (uint32_t) __builtin_ctzll (m);
        t = pick (&g->from[from], now, op->link_port, &soonest, &refused);
      }
    if (t == NULL)
      break;
    /* Round robin: the next grant is offered to the port after the winner. Weighted: the winner keeps the offer
     * for weights[winner] grants in a row, then passes it on. A port skipped for having nothing loses its turn. */
    if (from != g->next || sw->p.arbitration == SWITCH_ROUND_ROBIN) {
      g->next = from;
      g->left = weight (sw, from);
    }
    if (--g->left == 0) {
      g->next = from + 1 < n ? from + 1 : 0;
      g->left = weight (sw, g->next);
    }
    Voq *v = &g->from[from];
    Tlp *popped = tlp_fifo_pop (&v->q[tlp_fc_class (t->kind)]);
    g_assert (popped == t);
    if (!v->q[FC_P].head && !v->q[FC_NP].head && !v->q[FC_CPL].head)
      g->busy &= ~((uint64_t) 1 << from);
    g->queued--;
    sw->queued--;
    if (t->port & IN_POOL) {
      pool_move (sw, t, -1);
      sw->c.pooled++;
    } else {
      link_port_consume (sw->base.ports[t->port].link_port, t);
    }
    sw->c.forwarded++;
    link_port_send (op->link_port, t);
  }
  egress_settle (sw, e, soonest, &refused);
}

/* --- the fabric's table ------------------------------------------------------------------------------------- */

static void
sw_receive (Component *c, FabricPort *in, Tlp *t)
{
  Switch *sw = (Switch *) c;
  FabricPort *out = t->kind == TLP_CPL || t->kind == TLP_CPLD ? fabric_route_id (c, t->requester)
                                                              : fabric_route_address (c, t->address);
  if (out == NULL)
    out = &c->ports[0];
  SIM_INVARIANT (out != in && out->link != NULL, "%s: a %s at 0x%" G_GINT64_MODIFIER "x for requester %04x came in "
                 "on port %u and routes back out of it", c->name, tlp_kind_name (t->kind), t->address, t->requester,
                 in->index);
  sw->received++;
  SimTime now = sim_now (sw->engine);
  /* Cut-through: the header is in now; the last byte at the tail time. On a faster egress link the TLP starts late
   * enough for its last byte to leave after that (switch.h); otherwise at once. Both times are at the data link
   * layer: the rest of the port-to-port latency follows. */
  SimTime tail = link_port_rx_tail_ps (in->link_port), ser = link_tlp_wire_ps (out->link, t);
  t->hold_ps = MAX (now, tail > ser ? tail - ser : 0) + (sw->p.latency_ps - sw->p.dll_latency_ps);
  t->port = (uint16_t) in->index;
  t->order = (uint16_t) sw->received;
  if (sw->p.buffer == SWITCH_BUFFER_SHARED && pool_fits (sw, t)) {
    pool_move (sw, t, +1);
    t->port |= IN_POOL;
    link_port_consume (in->link_port, t);
  }
  Egress *g = &sw->eg[out->index];
  /* A TLP still in the port-to-port latency is not offered by a scan; if the egress port's last round stands (or
   * it had nothing queued), a scan would repeat that round and only the wake can change: that is all done. Most
   * arrivals: a new TLP always waits for the latency, and a congested egress keeps its refusals for long. */
  gboolean settled = t->hold_ps > now && (g->queued == 0 || (g->settled_until > now && !g->mixed));
  Refusals refused = { g->queued > 0 && g->refused, FALSE, STALL_IDLE };
  TlpFifo *q = &g->from[in->index].q[tlp_fc_class (t->kind)];
  /* Only heads are offered, and only theirs hold times wake the port: a TLP behind another changes nothing yet. */
  SimTime wake = q->head == NULL ? t->hold_ps : UINT64_MAX;
  tlp_fifo_push (q, t);
  g->busy |= (uint64_t) 1 << in->index;
  g->queued++;
  sw->queued++;
  sw->c.queued_high_water = MAX (sw->c.queued_high_water, sw->queued);
  if (settled) {
    /* Behind another TLP of its queue (the port had one, so its round stands and named one cause): nothing the
     * round left changes, the wake included. */
    if (wake != UINT64_MAX)
      egress_settle (sw, out->index, wake, &refused);
  } else
    egress_run (sw, out->index);
}

static void
sw_tx_ready (Component *c, FabricPort *port)
{
  egress_run ((Switch *) c, port->index);
}

/* The data link layer latency is the port's receive pipeline (switch_link_params()); a link made without it would
 * silently run a switch with another. */
static void
sw_attached (Component *c, FabricPort *port)
{
  Switch *sw = (Switch *) c;
  const LinkParams *lp = link_params (port->link);
  LinkEnd end = link_port_end (port->link_port);
  SIM_INVARIANT (lp->end_pipelines[end] && lp->end_rx_pipeline_ps[end] == sw->p.dll_latency_ps && lp->end_tx_pipeline_ps[end] == 0,
                 "%s port %u: its link was not made with switch_link_params()", c->name, port->index);
  if (sw->p.forwarding == SWITCH_CUT_THROUGH)
    link_port_set_rx_at_header (port->link_port, TRUE);
  link_port_set_forwarding (port->link_port, TRUE);
}

static gboolean
sw_check (const Component *c, GError **error)
{
  const Switch *sw = (const Switch *) c;
  gboolean pool_empty = TRUE;
  for (int k = 0; k < FC_CLASS_COUNT; k++)
    pool_empty = pool_empty && sw->pool_used[k][FC_HDR] == 0 && sw->pool_used[k][FC_DATA] == 0;
  if (sw->queued != 0 || !pool_empty || sw->received != sw->c.forwarded) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_INVARIANT, "%s: work left at the end (%u TLPs queued, central "
                 "memory %s, %" G_GUINT64_FORMAT " received, %" G_GUINT64_FORMAT " forwarded)", c->name, sw->queued,
                 pool_empty ? "empty" : "in use", sw->received, sw->c.forwarded);
    return FALSE;
  }
  return TRUE;
}

static uint64_t
sw_progress (const Component *c)
{
  const Switch *sw = (const Switch *) c;
  return sw->received + sw->c.forwarded;
}

/* Per egress port with TLPs queued: how many of each class and, for the oldest head of each class, why it waits:
 * the credits of its type the next receiver has left (the watchdog's question: which port waits for what). */
static void
sw_describe (const Component *c, GString *out)
{
  const Switch *sw = (const Switch *) c;
  SimTime now = sim_now (sw->engine);
  for (uint32_t e = 0; e < c->n_ports; e++) {
    const Egress *g = &sw->eg[e];
    if (g->queued == 0)
      continue;
    const FabricPort *op = &c->ports[e];
    g_string_append_printf (out, "%sport %u (to %s): %u TLPs queued", out->len ? "; " : "", e,
                            op->peer ? op->peer->comp->name : "nothing", g->queued);
    for (int k = 0; k < FC_CLASS_COUNT; k++) {
      uint32_t count = 0;
      const Tlp *head = NULL;
      for (uint32_t i = 0; i < c->n_ports; i++) {
        count += tlp_fifo_len (&g->from[i].q[k]);
        const Tlp *h = g->from[i].q[k].head;
        if (h && (!head || older (h, head)))
          head = h;
      }
      if (count == 0)
        continue;
      g_string_append_printf (out, ", %u %s", count, class_name[k]);
      if (head->hold_ps > now) {
        g_string_append (out, " (in the port-to-port latency)");
        continue;
      }
      uint64_t hl = link_port_credits_left (op->link_port, (FcClass) k, FC_HDR);
      uint64_t dl = link_port_credits_left (op->link_port, (FcClass) k, FC_DATA);
      uint32_t hn = tlp_header_credits (head), dn = tlp_data_credits (head);
      if (hl < hn || dl < dn)
        g_string_append_printf (out, " waiting for %s credits (%s %" G_GUINT64_FORMAT " left, needs %u; %s %"
                                G_GUINT64_FORMAT " left, needs %u)", class_name[k], credit_name[k][FC_HDR], hl, hn,
                                credit_name[k][FC_DATA], dl, dn);
      else
        g_string_append (out, " waiting for the link (transmit queue or replay space)");
    }
  }
}

static void
sw_free (Component *c)
{
  Switch *sw = (Switch *) c;
  for (uint32_t e = 0; e < c->n_ports; e++) {
    sim_cancel (sw->engine, sw->eg[e].wake);
    for (uint32_t i = 0; i < c->n_ports; i++)
      for (int k = 0; k < FC_CLASS_COUNT; k++)
        for (Tlp *t; (t = tlp_fifo_pop (&sw->eg[e].from[i].q[k])) != NULL;)
          tlp_free (sw->pool, t);
    g_free (sw->eg[e].from);
  }
  g_free (sw->eg);
  g_free (sw);
}

static const ComponentKind switch_kind = {
  .name = "switch",
  .receive = sw_receive,
  .tx_ready = sw_tx_ready,
  .attached = sw_attached,
  .check_invariants = sw_check,
  .progress = sw_progress,
  .describe_wait = sw_describe,
  .free = sw_free,
};

Switch *
switch_new (Fabric *f, const char *name, const SwitchParams *p)
{
  g_autoptr (GError) e = NULL;
  if (!switch_params_check (p, &e))
    g_error ("switch_new: %s", e->message);
  Switch *sw = g_new0 (Switch, 1);
  sw->p = *p;
  sw->engine = fabric_engine (f);
  sw->pool = fabric_pool (f);
  sw->eg = g_new0 (Egress, p->ports);
  for (uint32_t i = 0; i < p->ports; i++) {
    sw->eg[i].from = g_new0 (Voq, p->ports);
    sw->eg[i].wake = SIM_EVENT_NONE;
    sw->eg[i].left = weight (sw, 0);
  }
  const uint32_t amounts[FC_CLASS_COUNT][2] = { { p->pool.ph, p->pool.pd }, { p->pool.nph, p->pool.npd },
                                                { p->pool.cplh, p->pool.cpld } };
  for (int k = 0; k < FC_CLASS_COUNT; k++)
    for (int part = 0; part < 2; part++)
      sw->pool_cap[k][part] = amounts[k][part] ? amounts[k][part] : UINT64_MAX;
  fabric_add (f, &sw->base, &switch_kind, COMPONENT_SWITCH, name, p->ports);
  return sw;
}

Component *
switch_component (Switch *sw)
{
  return &sw->base;
}

Switch *
switch_from_component (Component *c)
{
  return c != NULL && c->kind == &switch_kind ? (Switch *) c : NULL;
}

void
switch_link_params (const Switch *sw, LinkParams *lp, LinkEnd end)
{
  lp->end_pipelines[end] = TRUE;
  lp->end_tx_pipeline_ps[end] = 0;
  lp->end_rx_pipeline_ps[end] = sw->p.dll_latency_ps;
  lp->rx_credits[end] = sw->p.port_credits;
  lp->end_updatefc[end] = sw->p.own_updatefc;
  lp->end_updatefc_latency_symbols[end] = sw->p.updatefc_latency_symbols;
}

SwitchCounters
switch_counters (const Switch *sw)
{
  return sw->c;
}
