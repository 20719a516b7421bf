/* link.c — a full-duplex link: per direction a serialiser (transmitter) and a receiver, plus the data link
 * layer (sequence numbers, replay buffer, coalesced Acks) and flow control (fc.c) on top of the PHY (phy.c).
 *
 * Events. Each direction has at most one "wire" event (the serialiser becomes free, or something became ready
 * while it was idle) and one "arrival" event (the head of a FIFO of packets in flight: every packet on one
 * direction sees the same latency, so arrivals are in order and one event suffices; in flit mode a DLLP may
 * overtake a long TLP and is sorted in, arr_push()). Ack timers and periodic
 * UpdateFC timers add a few events per Ack latency limit and per 30 us. Nothing allocates per packet: TLPs come
 * from the pool, the in-flight FIFO and the replay ring grow by doubling and are then reused.
 *
 * Transmit priority (pcie-protocol.md §3, Mindshare p. 350): the packet in progress finishes; then ordered sets
 * (SKP), Nak, Ack, UpdateFC, replayed TLPs, new TLPs. In flit mode DLLPs skip the serialiser: they ride in the
 * DLP bytes of the next flits (flit_dllps()), and the flit grid places SKPs, so the wire carries TLPs only.
 *
 * Errors (Link.errors: ber > 0 or an injected error; none of this runs otherwise). The transmitter draws each
 * packet's fate as it places it and marks the Arrival; the receiver's data link layer acts on it at delivery
 * (dll_accept(): discard, Nak once, Ack a duplicate), the transmitter keeps the TLPs themselves in its replay
 * ring and resends every unacknowledged one on a Nak or a REPLAY_TIMER expiry; the fourth replay without
 * progress retrains the link (retrain()). The receiver decides at delivery rather than at its pins, so a Nak
 * leaves one receive pipeline late: the one approximation of the error path.
 *
 * Pipelines. tx_pipeline_ps is applied between the serialiser and the channel (together with flight and the
 * receiver's rx_pipeline_ps) rather than before the serialiser: a constant-latency pipeline gives the same
 * arrival times either way, and this way the transmit queue holds only TLPs really waiting for the wire.
 * DLLPs pass through the same pipelines as TLPs up to the receiver's data link layer; a TLP then waits the
 * transaction layer's part of the receive pipeline (LinkParams.rx_tl_pipeline_ps, a second FIFO with one event;
 * empty when that part is 0). Each end has its own pair (LinkParams.end_pipelines), so a direction's latency is its
 * transmitter's transmit pipeline, flight and its receiver's receive pipeline.
 *
 * Cut-through delivery (link_port_set_rx_at_header): a TLP's Arrival is due when its header is in, and its `b`
 * holds when the whole TLP is: what the receiver's data link layer acknowledges by (ack_count()), and what the
 * receiver is told. Arrivals stay in time order: a header is in before its TLP's tail, and the packet after it
 * starts after that tail.
 *
 * Cost. Every packet of every run takes the transmit and arrival paths, so they are kept to what a link without
 * flit mode, errors or a trace needs: the work of those modes sits in functions kept out of line
 * (G_GNUC_NO_INLINE), behind one flag test each, so it neither runs nor widens the hot functions' register
 * saves and stack frames (issue #28: the modes added since round one cost the plain link about a fifth).
 *
 * Not modelled (links start trained): InitFC exchange, the 12-bit modular sequence and credit fields (absolute
 * counters are used instead, with the 2048-TLP window enforced). Flit mode replays flits (flit.c).
 * Known approximation: a packet that becomes ready exactly as the previous one ends mid-symbol (x8/x16) is
 * placed back to back in the same symbol, although its decision instant is up to half a symbol late.
 */
#include "models/link/link_impl.h"

static void wire_fire (SimEngine *engine, void *ctx, uint64_t arg);
static void ack_fire (SimEngine *engine, void *ctx, uint64_t arg);

/* ---- small containers ---- */

/* The FIFO grows by doubling and keeps its capacity, so steady-state traffic never allocates. Both rings keep a
 * power-of-two capacity, so an index wraps with a mask, not a division. The arrival ring starts at 8 entries (320
 * bytes): a ring cycles through all its entries, and a fabric has dozens of them, so one larger than the packets
 * in flight only spreads them over more cache lines. Only an empty FIFO needs a new event: later arrivals are
 * never earlier than the head (same latency, in-order serialiser). */
G_GNUC_NO_INLINE void
arr_grow (Dir *d)
{
  uint32_t cap = d->arr_cap ? d->arr_cap * 2 : 8;
  Arrival *n = g_new (Arrival, cap);
  for (uint32_t k = 0; k < d->arr_len; k++)
    n[k] = d->arr[(d->arr_head + k) & (d->arr_cap - 1)];
  g_free (d->arr);
  d->arr = n;
  d->arr_cap = cap;
  d->arr_head = 0;
}

/* Without errors the replay buffer never replays, so it holds only sizes: that is all the stall rule needs. With
 * errors it holds the TLPs too (`t`, else NULL). */
static void
replay_push (Dir *d, uint32_t bytes, Tlp *t)
{
  /* The ring holds exactly tx_seq - acked_seq entries; wire_fire() pushes before counting the new TLP in tx_seq,
   * so `len` is also the index the new entry takes. */
  uint32_t len = (uint32_t) (d->tx_seq - d->acked_seq);
  if (len == d->replay_cap) {
    uint32_t cap = d->replay_cap ? d->replay_cap * 2 : 64;
    uint32_t *n = g_new (uint32_t, cap);
    for (uint32_t k = 0; k < len; k++)
      n[k] = d->replay[(d->replay_head + k) & (d->replay_cap - 1)];
    g_free (d->replay);
    d->replay = n;
    if (t) {
      Tlp **nt = g_new (Tlp *, cap);
      for (uint32_t k = 0; k < len; k++)
        nt[k] = d->rtlp[(d->replay_head + k) & (d->replay_cap - 1)];
      g_free (d->rtlp);
      d->rtlp = nt;
      SimTime *np = g_new (SimTime, cap);
      for (uint32_t k = 0; k < len; k++)
        np[k] = d->rpin[(d->replay_head + k) & (d->replay_cap - 1)];
      g_free (d->rpin);
      d->rpin = np;
    }
    if (d->flit)
      flit_replay_grow (d, d->replay_cap, cap);
    d->replay_cap = cap;
    d->replay_head = 0;
  }
  d->replay[(d->replay_head + len) & (d->replay_cap - 1)] = bytes;
  if (t)
    d->rtlp[(d->replay_head + len) & (d->replay_cap - 1)] = t;
  d->replay_bytes += bytes;
}

/* link_port_tx_full(), inline for the link's own per-TLP calls (can_send, send). */
static inline gboolean
port_tx_full (const LinkPort *port)
{
  const Link *l = port->link;
  return l->p.tx_queue_tlps && port->tx->q_len >= l->p.tx_queue_tlps;
}

/* What can turn a refusal into an acceptance, outside flit mode and errors: a TLP leaving the transmit queue (a
 * full queue), an Ack (replay space, sequence numbers: the window), an UpdateFC (credits). A TLP leaving the queue
 * moves its bytes from the queue to the replay buffer and its count from q_len to tx_seq, so the window's sums do
 * not change; an Ack changes neither the queue nor the credits; an UpdateFC neither the queue nor the window. */
#define PORT_WAIT_QUEUE 1u
#define PORT_WAIT_ACK 2u
#define PORT_WAIT_CREDITS 4u
#define PORT_WAIT_ANY 7u

/* Edge-triggered: a user hears once per refused can_send, which keeps idle sources out of the hot path. A sender
 * whose refusals stand (link_port_set_refusals_stand(): a switch's arbiter) does not hear of a change that none of
 * them waits for: its offers would all be refused again, for the same causes, and its stall clock would end
 * where it is. A congested switch port is refused for credits on most TLPs, and every TLP leaving its queue and
 * every Ack would otherwise re-run its arbitration (issue #28). */
static inline __attribute__ ((always_inline)) void
port_notify (LinkPort *port, unsigned what)
{
  if (port->want_ready && port->ready_fn) {
    if (!(port->waits & what) && sim_now (port->link->engine) < port->stands_until) {
      /* What the repeated round would leave on the stall clock: following, then the same cause, both now. The
       * accrual up to now is not a no-op: a packet placed back to back may start before now (wire_base()). */
      stall_touch_at (&port->tx->stall, port->link->engine);
      return;
    }
    port->waits = 0;
    port->want_ready = FALSE;
    /* Refused no longer: idle (if at all) for what the sender waits for, until it is refused again. */
    stall_follow_at (&port->tx->stall, port->link->engine);
    port->ready_fn (port->ready_ctx, port);
  }
}

/* The TLP's wire bytes as the PHY counts them. Outside flit mode that is the transaction bytes plus a per-mode
 * constant (phy.c's nonflit_tlp_wire_bytes()), worked out here without the indirect call: it runs three times per
 * TLP (the probe, the hand-over and the send each ask link_port_can_send(), and the serialiser once more). */
static inline uint32_t
tlp_wire_bytes (const Phy *phy, const Tlp *t)
{
  if (G_LIKELY (!phy->flit))
    return tlp_transaction_bytes (t) + phy->tlp_framing_bytes;
  return phy->ops->tlp_wire_bytes (phy, t);
}

/* The PHY's placement of a packet; outside flit mode inline, for the same reason as tlp_wire_bytes(). */
static inline void
place_packet (const Phy *phy, uint64_t base, uint32_t bytes, PhyPlacement *pl)
{
  if (G_LIKELY (!phy->flit))
    phy_nonflit_place_packet (phy, base, bytes, pl);
  else
    phy->ops->place_packet (phy, base, bytes, pl);
}

/* ---- credits held ---- */

/* ---- transmitter ---- */

/* A packet ending mid-symbol keeps the wire until that symbol time ends: the next decision is at its boundary. */
static SimTime
wire_free_ps (const Dir *d)
{
  const Phy *phy = &d->link->phy;
  return slot_sym_end_ps (phy, d->cursor);
}

/* SKPs are not in the list: an idle wire keeps no event for them, and skp_catch_up() places them afterwards at
 * their due times. Waking for every SKP would keep an idle link busy and the engine could never drain. */
static gboolean
has_ready (const Dir *d)
{
  return d->ack_due || d->fc_due[FC_P] || d->fc_due[FC_NP] || d->fc_due[FC_CPL] || d->q.head
         || (d->errors && (d->nak_due || d->replay_pos < d->tx_seq - d->acked_seq));
}

/* Make sure a wire event exists no later than the serialiser can act; an earlier pending one already covers it.
 * In flit mode DLLPs take no serialiser time: they go into the next flit's DLP bytes at once. */
void
wire_kick (Dir *d)
{
  if (d->flit)
    flit_dllps (d);
  if (!has_ready (d))
    return;
  SimEngine *e = d->link->engine;
  SimTime at = MAX (sim_now (e), wire_free_ps (d));
  /* wire_fire() clears the id as it runs, and only here is one scheduled or cancelled: an id that is not
   * SIM_EVENT_NONE is pending, which one comparison says. */
  if (d->wire_ev.slot != SIM_EVENT_NONE.slot) {
    if (d->wire_ev_at <= at)
      return;
    sim_cancel (e, d->wire_ev);
  }
  d->wire_ev = sim_schedule_at (e, at, wire_fire, d, 0);
  d->wire_ev_at = at;
}

/* Where the next packet may start: right behind the previous one if that ended within the symbol time just
 * finishing (back to back, lane placement applies), otherwise lane 0 of the next symbol (§2: after idle a packet
 * starts in lane 0). */
static uint64_t
wire_base (const Dir *d, uint64_t now_sym)
{
  uint32_t lanes = d->link->phy.lanes;
  uint64_t now_slot = now_sym * lanes;
  return d->cursor + lanes > now_slot ? d->cursor : now_slot;
}

void
skp_catch_up (Dir *d, uint64_t now_sym)
{
  const Phy *phy = &d->link->phy;
  /* §4: SKPs are scheduled on a fixed interval and sent at the next packet boundary; one that fell due while
   * the wire was idle went out at its due time (lane 0), so it is placed there retroactively. At 8b/10b those
   * that fell due while a packet (or a retrain) held the wire all go after it, back to back; at 128b/130b only
   * one does, the others are not sent (pcie-protocol.md §4). */
  uint64_t placed_end = UINT64_MAX;
  while (d->skp_due_sym <= now_sym) {
    uint64_t due_slot = d->skp_due_sym * phy->lanes;
    if (phy->gen >= 3 && d->cursor == placed_end && due_slot < placed_end) {
      d->skp_due_sym += phy->skp_interval_symbols;
      continue;
    }
    uint64_t base = d->cursor > due_slot ? d->cursor : due_slot;
    PhyPlacement pl;
    phy->ops->place_skp (phy, base, &pl);
    if (G_UNLIKELY (d->link->trace != NULL))
      trace_wire (d->link->trace, &d->tr, TRACE_WIRE_SKP, slot_ps (phy, pl.start_slot),
                  slot_ps (phy, pl.end_slot) - slot_ps (phy, pl.start_slot), 0, 0);
    d->s_os += pl.end_slot - pl.start_slot;
    d->cursor = placed_end = pl.end_slot;
    d->cnt.skps++;
    d->skp_due_sym += phy->skp_interval_symbols;
  }
}

/* DLLPs follow the same lane placement as TLPs (§2), and only their own bytes count as DLLP time: padding in
 * front of them stays idle, as for TLPs. */
static inline __attribute__ ((always_inline)) uint64_t
place_dllp (Dir *d, uint64_t base, TraceWire what)
{
  const Phy *phy = &d->link->phy;
  /* Flit mode sends its DLLPs in DLP bytes (flit_dllps()), not here: the non-flit size, without the indirect call. */
  uint32_t bytes = G_LIKELY (!phy->flit) ? phy->dllp_bytes : phy->ops->dllp_wire_bytes (phy);
  PhyPlacement pl;
  place_packet (phy, base, bytes, &pl);
  SimTime start = slot_ps (phy, pl.start_slot), end = slot_ps (phy, pl.end_slot);
  stall_busy (&d->stall, start, end);
  if (G_UNLIKELY (d->link->trace != NULL))
    trace_wire (d->link->trace, &d->tr, what, start, end - start, 0, 0);
  if (G_UNLIKELY (d->errors))
    dllp_draw_framing (d, &pl);
  d->cursor = pl.end_slot;
  d->s_dllp += bytes;
  d->cnt.dllps++;
  return pl.end_slot;
}

/* §3: the Ack timer (AckNak_LATENCY_TIMER) of direction d's receiver starts when its data link layer checks a TLP
 * (at `check_ps`) that no scheduled Ack covers, and the Ack is scheduled when it expires (spec §3.6.3.1). The
 * limit runs pin to pin, and its InternalDelay covers the receiver's own pipelines: the Ack's first symbol leaves
 * the pins one limit after the TLP's last symbol arrived there, so the timer, at the data link layer, is the limit
 * less the receiving end's receive pipeline up to it and its transmit pipeline. A receiver whose pipelines outlast
 * the limit cannot meet it: its timer is nil, the Ack is scheduled as the TLP is checked, and it leaves the pins
 * one pipeline after that, late by the excess (docs/limits.md). */
G_GNUC_NO_INLINE void
ack_timer_start (Dir *d, SimTime check_ps)
{
  Link *l = d->link;
  SimTime pin = check_ps - l->rx_pipe_ps[1 - d->dir];
  SimTime due = phy_sym_ps (&l->phy, phy_sym_at_or_after (&l->phy, pin) + l->ack_limit_symbols);
  SimTime tx = l->tx_pipe_ps[1 - d->dir]; /* of the receiving end, which sends the Ack */
  due = MAX (due - MIN (due, tx), MAX (check_ps, sim_now (l->engine)));
  d->ack_ev = sim_schedule_at (l->engine, due, ack_fire, d, 0);
}

/* An Ack left out the TLP a cut-through port took at its header, its tail still on its way (ack_count()): once
 * that is in, the TLP needs an Ack of its own, as if it were checked then. */
G_GNUC_NO_INLINE void
ack_left_out (Dir *d)
{
  Link *l = d->link;
  if (sim_event_pending (l->engine, d->ack_ev))
    return;
  if (l->ack_timer[d->dir])
    ack_timer_start (d, d->rx_whole_ps);
  else
    d->ack_ev = sim_schedule_at (l->engine, d->rx_whole_ps, ack_fire, d, 0);
}

/* ---- the serialiser ---- */

/* The next TLP for the wire: the oldest not yet resent while a replay runs (replays go before new TLPs, §3),
 * else the head of the queue. Returns the TLP itself (for the tx-placed callback, which knows it by address);
 * with errors the wire carries a copy. */
static Tlp *
tlp_next (Dir *d, uint32_t *bytes, uint64_t *seq, gboolean *replayed)
{
  Link *l = d->link;
  const Phy *phy = &l->phy;
  uint64_t unacked = d->tx_seq - d->acked_seq;
  if (d->errors && d->replay_pos < unacked) {
    uint32_t i = (d->replay_head + d->replay_pos) & (d->replay_cap - 1);
    *seq = d->acked_seq + d->replay_pos++;
    *bytes = d->replay[i];
    *replayed = TRUE;
    d->errs.replayed_tlps++;
    d->errs.replayed_bytes += *bytes;
    return d->rtlp[i];
  }
  Tlp *t = tlp_fifo_pop (&d->q);
  d->q_len--;
  /* No replay-space check: link_port_can_send() reserved the space (q_bytes) when it accepted the TLP. */
  *bytes = tlp_wire_bytes (phy, t);
  d->q_bytes -= *bytes;
  *seq = d->tx_seq;
  *replayed = FALSE;
  /* Spec §3: 12-bit sequence number; the model keeps the full count and the TLP carries its low bits. */
  t->seq = (uint16_t) (d->tx_seq & 0xfff);
  if (fault_hits (d->link, LINK_FAULT_SKIP_SEQ, d->dir))
    t->seq = (uint16_t) ((t->seq + 1) & 0xfff);
  replay_push (d, *bytes, d->errors ? t : NULL);
  d->tx_seq++;
  d->replay_pos += d->errors;
  return t;
}

/* One decision per event: SKPs that fell due, then at most one packet, then (if more is ready) a new event for
 * when it ends. Deciding at every packet boundary rather than queueing a batch is what lets an Ack or UpdateFC
 * that falls due during a long TLP overtake the TLPs queued behind it. UpdateFC classes go P, NP, Cpl: a fixed
 * order keeps runs reproducible. In flit mode DLLPs never reach here (flit_dllps()). */
static void
wire_fire (SimEngine *e, void *ctx, uint64_t arg)
{
  (void) arg;
  Dir *d = ctx;
  Link *l = d->link;
  const Phy *phy = &l->phy;
  Dir *o = d->opp; /* the opposite direction, whose receiver our DLLPs serve */
  d->wire_ev = SIM_EVENT_NONE;
  SimTime now = sim_now (e);
  uint64_t now_sym = phy_sym_at_or_after (phy, now);
  uint64_t base = wire_base (d, now_sym);
  if (d->skp_due_sym <= now_sym) {
    skp_catch_up (d, now_sym);
    if (wire_free_ps (d) > now) {
      /* Decide the next packet when the ordered set ends: a DLLP may become due meanwhile. */
      wire_kick (d);
      return;
    }
    base = wire_base (d, now_sym);
  }
  gboolean drained = FALSE;
  if (d->nak_due || d->ack_due) {
    /* §3 priority: Nak before Ack. */
    ArrivalKind kind = d->nak_due ? ARR_NAK : ARR_ACK;
    uint64_t end = place_dllp (d, base, kind == ARR_NAK ? TRACE_WIRE_NAK : TRACE_WIRE_ACK);
    Arrival a = ack_build (d, o, kind, now);
    if (kind == ARR_NAK)
      d->nak_due = FALSE;
    else
      d->ack_due = FALSE;
    send_to_far_side (d, end, &a);
  } else if (d->fc_due[FC_P] || d->fc_due[FC_NP] || d->fc_due[FC_CPL]) {
    FcClass c = d->fc_due[FC_P] ? FC_P : d->fc_due[FC_NP] ? FC_NP : FC_CPL;
    uint64_t end = place_dllp (d, base, (TraceWire) (TRACE_WIRE_UPDATEFC_P + c));
    Arrival a = updatefc_build (d, o, c, now);
    send_to_far_side (d, end, &a);
  } else if (G_UNLIKELY (d->flit && d->errors && d->replay_pos < d->tx_seq - d->acked_seq)) {
    flit_replay_place (d, base);
  } else if (has_ready (d)) {
    uint32_t bytes;
    uint64_t seq;
    gboolean replayed;
    Tlp *t = tlp_next (d, &bytes, &seq, &replayed);
    PhyPlacement pl;
    if (G_LIKELY (!d->flit))
      phy_nonflit_place_packet (phy, base, bytes, &pl);
    else
      flit_place_tlp (d, base, bytes, seq, &pl);
    stall_busy (&d->stall, slot_ps (phy, pl.start_slot), slot_ps (phy, pl.end_slot));
    if (G_UNLIKELY (l->trace != NULL)) {
      trace_tlp (l, d, t, &pl, replayed);
      trace_replay_bytes (l->trace, &d->tr, now, d->replay_bytes);
    }
    d->cursor = pl.end_slot;
    d->s_payload += t->payload_bytes;
    d->s_overhead += bytes - t->payload_bytes; /* header, ECRC and framing */
    if (d->flit && pl.last_flit >= d->charged_flit) {
      /* Each flit carrying TLP bytes charges its DLP, CRC and FEC bytes once; IDLE flits stay idle. */
      d->s_overhead += (pl.last_flit + 1 - MAX (pl.first_flit, d->charged_flit)) * (PHY_FLIT_BYTES - PHY_FLIT_TLP_BYTES);
      d->charged_flit = pl.last_flit + 1;
    }
    d->cnt.tlps++;
    d->cnt.payload_bytes += t->payload_bytes;
    /* When the last symbol leaves the serialiser: the tx-placed time and, outside flit mode (where the TLP is
     * usable once its last symbol is in: avail_slot is end_slot), the start of its way to the far side. */
    SimTime end_ps = slot_sym_end_ps (phy, pl.end_slot);
    LinkPort *tx = d->tx_port;
    if (tx->placed_fn && !replayed)
      tx->placed_fn (tx->placed_ctx, tx, t, end_ps);
    Arrival a = { .kind = ARR_TLP, .cls = tlp_fc_class (t->kind), .tlp = t, .a = seq };
    if (d->errors) {
      a.tlp = tlp_copy (l, t);
      a.bad = tlp_draw_bad (d, bytes, &pl, seq);
    }
    SimTime at;
    if (d->rx_port->at_header && !d->flit && !d->errors) {
      /* Cut-through: due once the symbol time holding the header's last byte is in. Before the header on the
       * wire: STP and sequence number (3 bytes) at 8b/10b, the 4-byte STP token at 128b/130b (pcie-protocol.md
       * §2); a TLP is never split by an ordered set outside flit mode, so its bytes run on from start_slot. */
      at = end_ps + l->latency_ps[d->dir];
      a.b = at;
      uint64_t hdr_end = pl.start_slot + (phy->gen <= 2 ? 3u : 4u) + t->header_bytes;
      a.at = slot_sym_end_ps (phy, hdr_end) + l->latency_ps[d->dir];
      arr_push (d, &a);
    } else if (!d->flit) {
      a.at = at = end_ps + l->latency_ps[d->dir];
      arr_push (d, &a);
    } else {
      if (d->errors)
        a.b = a.bad ? d->rlost[replay_slot (d, seq)] + 1 : 0; /* the lost flit, which the Nak will name */
      at = send_to_far_side (d, pl.avail_slot, &a);
      if (d->errors)
        d->rat[replay_slot (d, seq)] = at;
    }
    if (d->errors) {
      SimTime pin = end_ps + l->tx_pipe_ps[d->dir];
      d->rpin[(d->replay_head + (seq - d->acked_seq)) & (d->replay_cap - 1)] = pin;
      replay_timer_start (d, pin);
    }
    drained = !replayed;
  }
  wire_kick (d);
  /* A TLP left the queue: a sender refused for a full queue may now go on. */
  if (drained)
    port_notify (d->tx_port, PORT_WAIT_QUEUE);
}

/* ---- receiver ---- */

/* Timer expiry and the count trigger end alike: the opposite transmitter owes an Ack, which will read rx_seq
 * when it goes on the wire. The count restarts now, as the spec restarts the timer once an Ack is scheduled. */
static void
ack_fire (SimEngine *e, void *ctx, uint64_t arg)
{
  (void) e;
  (void) arg;
  Dir *d = ctx;
  Dir *rev = d->opp;
  d->ack_ev = SIM_EVENT_NONE;
  d->rx_unacked = 0;
  rev->ack_due = TRUE;
  wire_kick (rev);
}

/* Error model: the far transmitter's limit is below what this receiver has granted, i.e. an UpdateFC was lost.
 * Looking at the far side only decides whether an event is needed: it stands for a refresh timer that never
 * stops, whose firings with nothing lost would change nothing but their DLLP bandwidth. */
static gboolean
fc_stale (const Dir *d, FcClass c)
{
  uint64_t h, dd;
  fc_rx_current_limit (&d->fc_rx, c, &h, &dd);
  return (!d->fc_tx.infinite[c][FC_HDR] && d->fc_tx.limit[c][FC_HDR] < h)
         || (!d->fc_tx.infinite[c][FC_DATA] && d->fc_tx.limit[c][FC_DATA] < dd);
}

#define FC_TIMER_CHECK 4u /* fc_timer_fire's arg: class | this = a refresh kept running only for lost UpdateFCs */

/* The §2.6.1.2 periodic refresh. It guards against a corrupted UpdateFC, which is dropped and never replayed;
 * without errors the model still pays its bandwidth. Started by arriving TLPs (receive_tlp()); with errors it keeps
 * running while an UpdateFC of the class is lost (fc_stale()), or a transmitter could wait for ever. */
static void
fc_timer_fire (SimEngine *e, void *ctx, uint64_t arg)
{
  Dir *d = ctx;
  FcClass c = (FcClass) (arg & ~FC_TIMER_CHECK);
  Dir *rev = &d->link->d[1 - d->dir];
  d->fc_timer[c] = SIM_EVENT_NONE;
  SimTime due = d->fc_last_sent_ps[c] + d->link->p.updatefc_period_ps;
  if (arg & FC_TIMER_CHECK) {
    if (!fc_stale (d, c))
      return;
  } else if (sim_now (e) < due) {
    /* An UpdateFC went out since the timer was armed: the period counts from that one. */
    d->fc_timer[c] = sim_schedule_at (e, due, fc_timer_fire, d, c);
    return;
  }
  if (d->link->errors)
    d->fc_timer[c] = sim_schedule_at (e, sim_now (e) + d->link->p.updatefc_period_ps, fc_timer_fire, d,
                                      c | FC_TIMER_CHECK);
  rev->fc_due[c] = TRUE;
  wire_kick (rev);
}

/* The eager UpdateFC latency ran out: credits freed since the last UpdateFC go back now, all in one DLLP. */
static void
fc_lat_fire (SimEngine *e, void *ctx, uint64_t arg)
{
  (void) e;
  Dir *d = ctx;
  Dir *rev = &d->link->d[1 - d->dir];
  d->fc_lat_timer[arg] = SIM_EVENT_NONE;
  rev->fc_due[arg] = TRUE;
  wire_kick (rev);
}

/* The transaction layer takes a TLP the data link layer passed. Credits are taken before the rx callback runs,
 * because the consumer may release them at once (link_port_consume()) and fc.c would reject a release of credits
 * not yet taken. */
static inline __attribute__ ((always_inline)) void
deliver_tlp (Dir *d, Tlp *t, SimTime whole_ps)
{
  Link *l = d->link;
  SimEngine *e = l->engine;
  FcClass c = tlp_fc_class (t->kind);
  fc_rx_receive (&d->fc_rx, c, tlp_header_credits (t), tlp_data_credits (t));
  /* §2.6.1.2 periodic refresh, armed only by traffic so an idle link lets the engine drain. */
  if (fc_rx_class_finite (&d->fc_rx, c) && !sim_event_pending (e, d->fc_timer[c])) {
    SimTime due = MAX (sim_now (e), d->fc_last_sent_ps[c] + l->p.updatefc_period_ps);
    d->fc_timer[c] = sim_schedule_at (e, due, fc_timer_fire, d, c);
  }
  LinkPort *port = d->rx_port;
  port->rx_tail_ps = whole_ps;
  if (port->observe_fn)
    port->observe_fn (port->observe_ctx, t);
  if (port->rx_fn) {
    port->rx_fn (port->rx_ctx, port, t);
  } else {
    /* No consumer attached: behave as an infinitely fast sink. */
    link_port_consume (port, t);
    tlp_free (l->pool, t);
  }
}

/* The transaction layer's pipeline (Link.tl_pipe_ps): TLPs come out in order, one event for the head. */
static void
tlq_fire (SimEngine *e, void *ctx, uint64_t arg)
{
  (void) arg;
  Dir *d = ctx;
  d->tlq_ev = SIM_EVENT_NONE;
  while (d->tlq_len && d->tlq[d->tlq_head].at <= sim_now (e)) {
    Arrival a = d->tlq[d->tlq_head];
    d->tlq_head = (d->tlq_head + 1) & (d->tlq_cap - 1);
    d->tlq_len--;
    deliver_tlp (d, a.tlp, a.b);
  }
  if (d->tlq_len && !sim_event_pending (e, d->tlq_ev))
    d->tlq_ev = sim_schedule_at (e, d->tlq[d->tlq_head].at, tlq_fire, d, 0);
}

static G_GNUC_NO_INLINE void
tlq_push (Dir *d, Tlp *t, SimTime at, SimTime whole_ps)
{
  if (d->tlq_len == d->tlq_cap) {
    uint32_t cap = d->tlq_cap ? d->tlq_cap * 2 : 8;
    Arrival *n = g_new (Arrival, cap);
    for (uint32_t k = 0; k < d->tlq_len; k++)
      n[k] = d->tlq[(d->tlq_head + k) & (d->tlq_cap - 1)];
    g_free (d->tlq);
    d->tlq = n;
    d->tlq_cap = cap;
    d->tlq_head = 0;
  }
  d->tlq[(d->tlq_head + d->tlq_len) & (d->tlq_cap - 1)] = (Arrival) { .kind = ARR_TLP, .tlp = t, .at = at, .b = whole_ps };
  if (d->tlq_len++ == 0)
    d->tlq_ev = sim_schedule_at (d->link->engine, at, tlq_fire, d, 0);
}

/* The data link layer accepted a good TLP in sequence (NEXT_RCV_SEQ moves on, what an Ack names); the transaction
 * layer gets it at once, or its pipeline's part later. */
static void
receive_tlp (Dir *d, Tlp *t, SimTime whole_ps)
{
  Link *l = d->link;
  SimEngine *e = l->engine;
  /* No loss and no reordering on one direction: each TLP carries the next sequence number. */
  SIM_INVARIANT (t->seq == (d->rx_seq & 0xfff),
                "link %s: received sequence number %u, expected %u (TLP %" G_GUINT64_FORMAT ")",
                d->dir == LINK_UPSTREAM ? "upstream" : "downstream", t->seq, (unsigned) (d->rx_seq & 0xfff),
                d->rx_seq);
  d->rx_seq++;
  /* Checked once in whole: a cut-through port has it at its header, and its tail comes later (ack_count()). */
  d->rx_whole_ps = whole_ps;
  /* The receiving end decides its Ack policy: upstream TLPs land at the DSP. */
  uint32_t every = l->p.ack_every_tlps[1 - d->dir];
  if (every && ++d->rx_unacked >= every && !d->opp->ack_due) {
    /* Count-triggered Ack: the same DLLP the timer would send, only sooner; it restarts the timer (§3.6.3.1).
     * Decided before the timer so an Ack-every-TLP receiver does not arm a timer only to cancel it. */
    /* ack_fire() clears the id, so one that is not SIM_EVENT_NONE is pending: an Ack-every-TLP receiver, which
     * starts no timer, makes no call per TLP to cancel none. */
    if (d->ack_ev.slot != SIM_EVENT_NONE.slot)
      sim_cancel (e, d->ack_ev);
    if (G_LIKELY (whole_ps <= sim_now (e)))
      ack_fire (e, d, 0);
    else
      d->ack_ev = sim_schedule_at (e, whole_ps, ack_fire, d, 0);
  } else if (l->ack_timer[d->dir] && !d->opp->ack_due && !sim_event_pending (e, d->ack_ev)) {
    ack_timer_start (d, whole_ps);
  }
  SimTime tl = l->tl_pipe_ps[1 - d->dir];
  if (G_LIKELY (tl == 0))
    deliver_tlp (d, t, whole_ps);
  else
    tlq_push (d, t, sim_now (e) + tl, whole_ps + tl);
}

/* Acks are cumulative (§3 coalescing): one names the last TLP received in order, so everything up to it leaves the
 * replay buffer at once, and the freed space may unblock the sender. Inline in arr_fire(): one per TLP here. */
static inline __attribute__ ((always_inline)) void
receive_ack (Dir *d, uint64_t acked)
{
  /* An Ack travelling on d acknowledges TLPs sent on the opposite direction. */
  Dir *o = d->opp;
  SIM_INVARIANT (acked <= o->tx_seq,
                "link: Ack for TLP %" G_GUINT64_FORMAT " but only %" G_GUINT64_FORMAT " were sent", acked, o->tx_seq);
  uint64_t before = o->acked_seq;
  while (o->acked_seq < acked) {
    o->replay_bytes -= o->replay[o->replay_head];
    if (o->errors)
      tlp_free (d->link->pool, o->rtlp[o->replay_head]);
    o->replay_head = (o->replay_head + 1) & (o->replay_cap - 1);
    o->acked_seq++;
  }
  if (G_UNLIKELY (d->link->trace != NULL) && o->acked_seq > before)
    trace_replay_bytes (d->link->trace, &o->tr, sim_now (d->link->engine), o->replay_bytes);
  if (o->errors && o->acked_seq > before) {
    /* Forward progress (spec §3.6.2.1): REPLAY_NUM resets and REPLAY_TIMER restarts while sent TLPs remain. */
    uint64_t m = o->acked_seq - before;
    o->replay_pos = o->replay_pos > m ? (uint32_t) (o->replay_pos - m) : 0;
    o->replay_num = 0;
    sim_cancel (d->link->engine, o->replay_ev);
    o->replay_ev = SIM_EVENT_NONE;
    if (o->replay_pos > 0) {
      /* From the Ack's arrival at the pins, or, if no TLP left unacknowledged had passed them yet (it was still
       * in the transmit pipeline), from the first one's passing: at the pins none was outstanding till then. */
      SimTime pin = sim_now (d->link->engine) - d->link->rx_pipe_ps[o->dir];
      replay_timer_start (o, MAX (pin, o->rpin[o->replay_head]));
    }
  }
  port_notify (o->tx_port, PORT_WAIT_ACK);
}

void
arr_fire (SimEngine *e, void *ctx, uint64_t arg)
{
  (void) arg;
  Dir *d = ctx;
  d->arr_ev = SIM_EVENT_NONE;
  /* Packets ending in the same symbol time (a DLLP beside another packet on x16) arrive at the same picosecond:
   * one event takes them all, in wire order. */
  while (d->arr_len && d->arr[d->arr_head].at <= sim_now (e)) {
    Arrival a = d->arr[d->arr_head];
    d->arr_head = (d->arr_head + 1) & (d->arr_cap - 1);
    d->arr_len--;
    if (a.bad && a.kind != ARR_TLP) {
      /* A DLLP with a bad CRC is dropped (spec §3.6.1): the next Ack, the replay timer or the refresh covers it.
       * One that met a framing error is lost too, and the link retrains. */
      d->errs.dllp_errors++;
      if (a.bad == ARR_BAD_FRAMING)
        framing_error (d);
      continue;
    }
    switch (a.kind) {
    case ARR_TLP:
      if (!d->errors || dll_accept (d, &a))
        receive_tlp (d, a.tlp, a.b ? a.b : a.at);
      break;
    case ARR_ACK:
      receive_ack (d, a.a);
      break;
    case ARR_NAK:
      receive_ack (d, a.a);
      if (d->flit)
        flit_nak (d->opp, &a);
      replay_start (d->opp, FALSE);
      break;
    case ARR_UPDATEFC: {
      Dir *o = d->opp;
      /* A limit beyond what the receiver can hold (its advertisement plus all it ever freed) would let the
       * transmitter overrun the buffer: credits above the advertisement. */
      const FcRx *far = &o->fc_rx;
      SIM_INVARIANT ((far->infinite[a.cls][FC_HDR] || a.a <= far->advertised[a.cls][FC_HDR] + far->freed[a.cls][FC_HDR])
                    && (far->infinite[a.cls][FC_DATA]
                        || a.b <= far->advertised[a.cls][FC_DATA] + far->freed[a.cls][FC_DATA]),
                    "credits: UpdateFC grants class %d limits %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT
                    " beyond the receiver's %u/%u advertised + %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT " freed",
                    a.cls, a.a, a.b, far->advertised[a.cls][FC_HDR], far->advertised[a.cls][FC_DATA],
                    far->freed[a.cls][FC_HDR], far->freed[a.cls][FC_DATA]);
      fc_hold (o, (FcClass) a.cls, sim_now (e));
      fc_tx_update (&o->fc_tx, (FcClass) a.cls, a.a, a.b);
      if (G_UNLIKELY (d->link->trace != NULL))
        trace_fc (d->link, o, (FcClass) a.cls, sim_now (e));
      port_notify (o->tx_port, PORT_WAIT_CREDITS);
      break;
    }
    default:
      g_assert_not_reached ();
    }
  }
  /* As wire_ev: cleared above, replaced whenever it is scheduled or cancelled (arr_push(), flit.c), so an id that
   * is not SIM_EVENT_NONE is pending: a handler above pushed an arrival and scheduled this event already. */
  if (d->arr_len && d->arr_ev.slot == SIM_EVENT_NONE.slot)
    d->arr_ev = sim_schedule_at (e, d->arr[d->arr_head].at, arr_fire, d, 0);
}

/* ---- the port API ---- */

/* Every refusal arms the tx-ready callback, so the caller may simply retry from it. */
/* A TLP's size on the wire as this link will send it: with ECRC enabled, link_port_send() marks the TLP of an
 * originating port (`adds`), so a probe asked about before that must be counted with the 4 bytes it will carry. */
static uint32_t
wire_bytes (const Link *l, gboolean adds, const Tlp *tlp)
{
  return tlp_wire_bytes (&l->phy, tlp) + (adds && l->p.ecrc && !tlp->ecrc ? TLP_ECRC_BYTES : 0);
}

SimTime
link_tlp_wire_ps (const Link *link, const Tlp *tlp)
{
  const Phy *phy = &link->phy;
  return phy_sym_ps (phy, ceil_div (wire_bytes (link, FALSE, tlp), phy->lanes));
}

/* The refusal, and why (stall.h): until the next tx-ready the direction is idle, if at all, for that. Kept out of
 * line, so the answer "yes", the common one, stays cheap (link_port_can_send runs several times per TLP). */
static G_GNUC_NO_INLINE gboolean
refuse (LinkPort *port, Dir *d, StallCause why)
{
  port->want_ready = TRUE;
  port->refused_why = (uint8_t) why;
  port->waits |= d->flit || d->errors ? PORT_WAIT_ANY
                 : why == STALL_LINK ? PORT_WAIT_QUEUE
                 : why == STALL_REPLAY_BUFFER || why == STALL_UNACKED_TLPS ? PORT_WAIT_ACK
                 : why >= STALL_CREDITS_PH && why <= STALL_CREDITS_CPLD ? PORT_WAIT_CREDITS : PORT_WAIT_ANY;
  stall_set_at (&d->stall, port->link->engine, why);
  return FALSE;
}

/* Which credit type the TLP lacks: the data part first, since a header short alone is rarer. */
static StallCause
credit_cause (const FcTx *tx, FcClass c, const Tlp *tlp)
{
  gboolean data_short = !tx->infinite[c][FC_DATA] && tx->consumed[c][FC_DATA] + tlp_data_credits (tlp) > tx->limit[c][FC_DATA];
  return stall_credits (c, data_short ? FC_DATA : FC_HDR);
}

/* A TLP the window or the credits hold back: which binds, worked out only on a refusal. The last test that fails
 * names it: credits, then replay space, then the sequence numbers (link_port_can_send's tests, in its order). */
static G_GNUC_NO_INLINE gboolean
refuse_window (LinkPort *port, Dir *d, const Tlp *tlp, uint32_t bytes)
{
  const Link *l = port->link;
  FcClass c = tlp_fc_class (tlp->kind);
  StallCause why = STALL_IDLE;
  if (d->tx_seq - d->acked_seq + d->q_len >= l->window_tlps)
    why = STALL_UNACKED_TLPS;
  if (d->q_bytes + d->replay_bytes + bytes > l->window_bytes)
    why = STALL_REPLAY_BUFFER;
  if (d->flit && !flit_window_fits (l, d, bytes))
    why = l->window_flits < LINK_FLIT_WINDOW ? STALL_REPLAY_BUFFER : STALL_UNACKED_TLPS;
  if (!fc_tx_can (&d->fc_tx, c, tlp_header_credits (tlp), tlp_data_credits (tlp)))
    why = credit_cause (&d->fc_tx, c, tlp);
  return refuse (port, d, why);
}

/* Room and credits for a TLP of `bytes` wire bytes: link_port_can_send()'s test without a refusal's bookkeeping,
 * which link_port_send() repeats as its invariant without a second call and a second size. Spec §3.6.2.1: 12-bit
 * sequence numbers, so the transmitter stops at 2048 unacknowledged TLPs; queued TLPs will take numbers too, so
 * they count. Flit mode numbers flits instead, counted in bytes (window_bytes). §3: a full replay buffer stalls
 * new TLPs; queued TLPs already hold their future replay space. */
static inline __attribute__ ((always_inline)) gboolean
tx_fits (const Link *l, const Dir *d, const Tlp *tlp, uint32_t bytes)
{
  FcClass c = tlp_fc_class (tlp->kind);
  return d->tx_seq - d->acked_seq + d->q_len < l->window_tlps && d->q_bytes + d->replay_bytes + bytes <= l->window_bytes
         && fc_tx_can (&d->fc_tx, c, tlp_header_credits (tlp), tlp_data_credits (tlp))
         && (!d->flit || flit_window_fits (l, d, bytes));
}

gboolean
link_port_can_send (LinkPort *port, const Tlp *tlp)
{
  Link *l = port->link;
  Dir *d = port->tx;
  /* A full transmit queue is the usual refusal of a busy sender: answered before the rest is worked out (and
   * before the TLP is looked at, which link_port_tx_full() promises). */
  if (port_tx_full (port))
    return refuse (port, d, STALL_LINK);
  /* §3: a full replay buffer stalls new TLPs; queued TLPs already hold their future replay space. */
  uint32_t bytes = wire_bytes (l, !port->forwards, tlp);
  /* link_params_validate() guarantees room for a 3-DW-header TLP of MPS; a 4-DW header or ECRC can still overflow
   * a buffer sized at that bound, and such a TLP would wait forever. */
  if (l->p.replay_buffer_bytes && (d->flit ? (bytes + PHY_FLIT_TLP_BYTES - 1) / PHY_FLIT_TLP_BYTES > l->window_flits
                                             : bytes > l->p.replay_buffer_bytes))
    g_error ("a %u-byte TLP can never fit the %u-byte replay buffer", bytes, l->p.replay_buffer_bytes);
  if (tx_fits (l, d, tlp, bytes))
    return TRUE;
  return refuse_window (port, d, tlp, bytes);
}

void
link_port_send (LinkPort *port, Tlp *tlp)
{
  Link *l = port->link;
  Dir *d = port->tx;
  /* Counted with the ECRC that the TLP is marked with below, as link_port_can_send() counted it. */
  uint32_t bytes = wire_bytes (l, !port->forwards, tlp);
  SIM_INVARIANT (!port_tx_full (port) && tx_fits (l, d, tlp, bytes), "link_port_send of a %s without credits or "
                 "space", tlp_kind_name (tlp->kind));
  /* §2.6.1: the transmitter consumes the receiver's credits when it commits to sending. */
  FcClass c = tlp_fc_class (tlp->kind);
  fc_hold (d, c, sim_now (l->engine));
  fc_tx_consume (&d->fc_tx, c, tlp_header_credits (tlp), tlp_data_credits (tlp));
  if (G_UNLIKELY (l->trace != NULL))
    trace_fc (l, d, c, sim_now (l->engine));
  /* ECRC is not payload: it costs wire time and replay space but no data credits (spec §2.6.1). */
  tlp->ecrc = tlp->ecrc || (l->p.ecrc && !port->forwards);
  tlp_fifo_push (&d->q, tlp);
  d->q_len++;
  d->q_bytes += bytes;
  wire_kick (d);
}

/* Credits return only here, not on arrival: a slow consumer is what makes a receive buffer fill (§2.6.1). */
void
link_port_consume (LinkPort *port, const Tlp *tlp)
{
  Link *l = port->link;
  Dir *d = port->rx; /* the direction this port receives on */
  FcClass c = tlp_fc_class (tlp->kind);
  Dir *rev = port->tx; /* this port's own transmitter carries the UpdateFC back */
  /* With errors, the UpdateFC that returns these credits may be lost, and a transmitter that waits for them sends
   * no TLP that would start the refresh again (receive_tlp()): a forwarding switch frees its ingress credits long
   * after the last TLP came in, when the refresh started by it has stopped. So freed credits keep the refresh's
   * check running until the transmitter has them (fc_timer_fire()). */
  if (G_UNLIKELY (l->errors) && fc_rx_class_finite (&d->fc_rx, c) && !sim_event_pending (l->engine, d->fc_timer[c]))
    d->fc_timer[c] = sim_schedule_at (l->engine, sim_now (l->engine) + l->p.updatefc_period_ps, fc_timer_fire, d,
                                      c | FC_TIMER_CHECK);
  if (fc_rx_free (&d->fc_rx, c, tlp_header_credits (tlp), tlp_data_credits (tlp))) {
    rev->fc_due[c] = TRUE;
    wire_kick (rev);
  } else if (l->updatefc_latency_symbols[port->end] && fc_rx_class_finite (&d->fc_rx, c) && !rev->fc_due[c]
             && !sim_event_pending (l->engine, d->fc_lat_timer[c])) {
    /* Eager policy: like the Ack timer, started by the first freed credit not yet on its way back. An UpdateFC
     * already due carries these credits too (it reads the limit when placed), so none is started then. */
    SimEngine *e = l->engine;
    uint64_t due_sym = phy_sym_at_or_after (&l->phy, sim_now (e)) + l->updatefc_latency_symbols[port->end];
    d->fc_lat_timer[c] = sim_schedule_at (e, phy_sym_ps (&l->phy, due_sym), fc_lat_fire, d, c);
  }
}

uint64_t
link_port_credits_left (const LinkPort *port, FcClass cls, FcPart part)
{
  return fc_tx_available (&port->link->d[port->end].fc_tx, cls, part);
}

uint32_t
link_port_tx_queued (const LinkPort *port)
{
  return port->link->d[port->end].q_len;
}

gboolean
link_port_tx_full (const LinkPort *port)
{
  return port_tx_full (port);
}
