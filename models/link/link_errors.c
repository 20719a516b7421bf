/* link_errors.c — the link's error model: which packets arrive corrupted, and the data link layer's recovery
 * (Nak, replay, REPLAY_TIMER, retrain). None of it runs on a link without errors (Link.errors). */
#include "models/link/link_impl.h"

/* ---- error model: transmit side ---- */

/* 128b/130b framing (spec §4.2.2.3.5, pcie-protocol.md §10): the receiver checks every token and sync header, so a
 * wrong bit in an STP or SDP token, in the IDL tokens, EDS and ordered sets between packets, or in a block's 2-bit
 * sync header is a framing error, which sends the link to Recovery rather than earning a Nak. Drawn for the wire
 * from where the last draw ended up to a packet's end: the gap's bytes, the packet's `token_bytes`, and 2 sync bits
 * per lane for every 16-symbol block that starts in the range. An error in the IDLs of an idle wire is found when
 * the next packet is drawn rather than when it happens (the model's one approximation here), but it costs that
 * packet only when the Recovery it starts still runs as the packet begins: when an error falls in the last
 * retrain_ps of wire before the packet, or in the packet's own token. An error earlier in the gap is a Recovery
 * the idle link finished unseen: it is counted (framing_errors, retrains) and the packet goes through. Charging
 * every gap's errors to the next packet lost every packet after a long gap at a high BER — on a switch's links a
 * lost UpdateFC after each idle refresh period, for ever. One uniform draw decides both, so the random stream is
 * the same either way. At 8b/10b nothing is drawn here: its K-code framing is not modelled apart from the LCRC. */
static gboolean
framing_draw (Dir *d, const PhyPlacement *pl, uint32_t token_bytes)
{
  Link *l = d->link;
  uint64_t lanes = l->phy.lanes, from = MIN (d->fr_slot, pl->start_slot);
  uint64_t blocks = (pl->end_slot + lanes - 1) / lanes / 16 - (from + lanes - 1) / lanes / 16;
  double gap_bytes = (double) (pl->start_slot - from);
  double bits = 8.0 * (gap_bytes + token_bytes) + 2.0 * (double) (lanes * blocks);
  d->fr_slot = pl->end_slot;
  /* The wire a Recovery ending at the packet's start would have begun on (Link.recovery_bytes); the sync headers
   * counted in proportion to the gap's share of it. */
  double near_gap = MIN (gap_bytes, l->recovery_bytes);
  double near_bits = 8.0 * (near_gap + token_bytes)
                     + 2.0 * (double) (lanes * blocks) * (gap_bytes > 0 ? near_gap / gap_bytes : 1.0);
  double u = g_rand_double (d->rand);
  if (u < -expm1 (near_bits * l->log_q))
    return TRUE;
  if (u < -expm1 (bits * l->log_q)) {
    d->errs.framing_errors++;
    d->errs.retrains++;
  }
  return FALSE;
}

/* A DLLP just placed outside flit mode at 128b/130b: its SDP token (2 bytes) and the wire before it. */
G_GNUC_NO_INLINE void
dllp_draw_framing (Dir *d, const PhyPlacement *pl)
{
  if (d->link->p.ber > 0 && d->link->phy.gen >= 3)
    d->dllp_framing = framing_draw (d, pl, 2) ? ARR_BAD_FRAMING : 0;
}

/* Flit mode: the flits of the TLP just placed, drawn once each and in order (a flit it shares with the TLP before
 * it already was: its fate is drawn_bad), `injected` losing its last; the first lost one, numbered among the
 * flits holding TLP bytes, goes beside the replay ring. */
static uint8_t
flit_draw_bad (Dir *d, const PhyPlacement *pl, uint64_t seq, gboolean injected)
{
  Link *l = d->link;
  uint32_t x = replay_slot (d, seq);
  uint64_t lost = FLIT_NONE;
  for (uint64_t k = pl->first_flit; k <= pl->last_flit; k++) {
    if (k >= d->drawn_flit) {
      d->drawn_bad = (l->p.ber > 0 && g_rand_double (d->rand) < l->p_flit_bad) || (injected && k == pl->last_flit);
      d->drawn_flit = k + 1;
      d->errs.flit_errors += d->drawn_bad;
    } else if (k + 1 != d->drawn_flit) {
      continue;
    }
    if (d->drawn_bad && lost == FLIT_NONE)
      lost = d->rflit[x] + (k - pl->first_flit);
  }
  if (injected && lost == FLIT_NONE)
    lost = d->rflit[x] + (pl->last_flit - pl->first_flit); /* its last flit was drawn with the TLP before it */
  d->rlost[x] = lost;
  return lost != FLIT_NONE ? ARR_BAD_CRC : 0;
}

/* Whether the TLP just placed arrives corrupted, and how. Non-flit: at 128b/130b a framing error first (its STP
 * token, 4 bytes, and the wire before it), then any wrong bit of its other wire bytes fails the LCRC; at 8b/10b
 * any wrong line bit of its wire bytes, 10 per byte, fails it (pcie-protocol.md §10). Flit mode: any flit holding
 * its bytes lost (FEC could not correct it); each flit is drawn once, in order, so TLPs sharing a flit share its
 * fate, and the first lost one is kept beside the replay ring (the Nak names it, flit.c). link_inject_lcrc() loses
 * the flit holding the TLP's last byte in flit mode (and so the TLP after it, if it starts in that flit). */
G_GNUC_NO_INLINE uint8_t
tlp_draw_bad (Dir *d, uint32_t bytes, const PhyPlacement *pl, uint64_t seq)
{
  Link *l = d->link;
  gboolean bad = FALSE;
  if (l->lcrc_times && l->lcrc_dir == d->dir && l->lcrc_seq == seq) {
    l->lcrc_times--;
    bad = TRUE;
  }
  if (fault_hits (l, LINK_FAULT_FRAMING, d->dir))
    return ARR_BAD_FRAMING;
  if (l->phy.flit)
    return flit_draw_bad (d, pl, seq, bad);
  if (l->p.ber <= 0)
    return bad ? ARR_BAD_CRC : 0;
  uint32_t crc_bytes = bytes;
  if (l->phy.gen >= 3) {
    if (framing_draw (d, pl, 4))
      return ARR_BAD_FRAMING;
    crc_bytes -= 4;
  }
  return g_rand_double (d->rand) < -expm1 (l->bits_per_byte * crc_bytes * l->log_q) || bad ? ARR_BAD_CRC : 0;
}

static void replay_fire (SimEngine *engine, void *ctx, uint64_t arg);

/* REPLAY_TIMER (spec §3.6.2.1): started by a TLP's transmission when it is not running, counted from its last
 * symbol at the port's pins (`from_ps`), or from an Ack's arrival there. A start that falls in a Recovery counts
 * from its end: the timer holds its value while the LTSSM is in Recovery. An Ack processed one receive pipeline
 * after it reached the pins may restart the timer at a due time already past: it fires at once, and
 * replay_fire() looks again for an Ack at the pins. */
G_GNUC_NO_INLINE void
replay_timer_start (Dir *d, SimTime from_ps)
{
  Link *l = d->link;
  if (sim_event_pending (l->engine, d->replay_ev))
    return;
  if (from_ps >= l->recovery_from_ps && from_ps < l->recovery_to_ps)
    from_ps = l->recovery_to_ps;
  SimTime due = phy_sym_ps (&l->phy, phy_sym_at_or_after (&l->phy, from_ps) + l->replay_timer_symbols);
  d->replay_due_ps = MAX (due, sim_now (l->engine));
  d->replay_ev = sim_schedule_at (l->engine, d->replay_due_ps, replay_fire, d, 0);
}

/* Whether an Ack of TLPs not yet acknowledged, or a Nak, has reached d's transmitting port by now and waits in
 * its receive pipeline: the REPLAY_TIMER is reset at the pins by the Ack's arrival (spec §3.6.2.1), not one
 * pipeline later when the model processes it (receive_ack() restarts it from the pins), and a Nak starts the
 * replay itself. Arrivals are in time order (flit mode sorts them in), so the scan ends at the first later one. */
static gboolean
ack_at_pins (const Dir *d, SimTime now)
{
  const Dir *o = d->opp;
  SimTime rx = d->link->rx_pipe_ps[d->dir]; /* the port transmitting on d receives o */
  for (uint32_t k = 0; k < o->arr_len; k++) {
    const Arrival *a = &o->arr[(o->arr_head + k) & (o->arr_cap - 1)];
    if (a->at - rx > now)
      break;
    if (!a->bad && (a->kind == ARR_NAK || (a->kind == ARR_ACK && a->a > d->acked_seq)))
      return TRUE;
  }
  return FALSE;
}

/* A copy to put on the wire: the receiver takes and frees what arrives, while the original stays for replay. */
G_GNUC_NO_INLINE Tlp *
tlp_copy (Link *l, const Tlp *t)
{
  Tlp *c = tlp_alloc (l->pool);
  *c = *t;
  c->next = NULL;
  return c;
}

/* ---- error model: recovery ---- */

/* REPLAY_NUM rolled over (spec §3.6.2.1): the data link layer has the physical layer retrain the link (LTSSM
 * Recovery). Both directions stay idle for retrain_ps; packets already on their way still land. In flit mode the
 * link resumes on a flit boundary of the same grid. */
static void
retrain (Link *l, Dir *cause)
{
  const Phy *phy = &l->phy;
  cause->errs.retrains++;
  uint64_t slot = phy_sym_at_or_after (phy, sim_now (l->engine) + l->p.retrain_ps) * phy->lanes;
  if (phy->flit) {
    uint64_t f = phy_flit_dlp_at_or_after (phy, slot);
    if (phy_flit_start (phy, f) < slot)
      f++;
    slot = phy_flit_start (phy, f);
  }
  /* REPLAY_TIMER holds its value while the LTSSM is in Recovery (spec §3.6.2.1): a running one is put off by the
   * part of this Recovery that one already under way did not cover; one started meanwhile counts from its end
   * (replay_timer_start()). */
  SimTime now = sim_now (l->engine), end_ps = slot_ps (phy, slot);
  SimTime held_from = MAX (now, l->recovery_to_ps);
  if (now >= l->recovery_to_ps)
    l->recovery_from_ps = now;
  l->recovery_to_ps = MAX (l->recovery_to_ps, end_ps);
  for (int i = 0; i < 2; i++) {
    Dir *x = &l->d[i];
    x->retrain_end_slot = slot;
    x->cursor = MAX (x->cursor, slot);
    x->fr_slot = MAX (x->fr_slot, slot); /* no IDLs while the LTSSM retrains */
    if (end_ps > held_from && sim_event_pending (l->engine, x->replay_ev)) {
      sim_cancel (l->engine, x->replay_ev);
      x->replay_due_ps += end_ps - held_from;
      x->replay_ev = sim_schedule_at (l->engine, x->replay_due_ps, replay_fire, x, 0);
    }
  }
}

/* A replay (spec §3.6.2.1): every unacknowledged TLP goes again, in order, before any new one. The fourth replay
 * without forward progress rolls REPLAY_NUM over and retrains the link first. */
G_GNUC_NO_INLINE void
replay_start (Dir *d, gboolean timeout)
{
  Link *l = d->link;
  if (d->tx_seq == d->acked_seq)
    return;
  sim_cancel (l->engine, d->replay_ev);
  d->replay_ev = SIM_EVENT_NONE;
  d->errs.replays++;
  d->errs.replay_timeouts += timeout;
  if (timeout) {
    /* Flit mode: every unacknowledged flit goes again (flit_replay_place() starts at the oldest). */
    d->replay_from_flit = 0;
    d->replay_selective = FALSE;
  }
  if (++d->replay_num == 4) {
    d->replay_num = 0;
    retrain (l, d);
    wire_kick (&l->d[1 - d->dir]);
  }
  d->replay_pos = 0;
  wire_kick (d);
}

static void
replay_fire (SimEngine *e, void *ctx, uint64_t arg)
{
  (void) arg;
  Dir *d = ctx;
  d->replay_ev = SIM_EVENT_NONE;
  if (ack_at_pins (d, sim_now (e)))
    return;
  replay_start (d, TRUE);
}

/* A framing error at the receiver of d (spec §4.2.2.3.5): the packet is lost and the link retrains; a TLP lost so
 * earns a Nak (dll_accept()), a DLLP is covered by the next one or the REPLAY_TIMER. */
void
framing_error (Dir *d)
{
  d->errs.framing_errors++;
  retrain (d->link, d);
}

/* The receiver's data link layer (spec §3.6.3): a corrupted TLP or one past a lost one is discarded and Nak'd,
 * one Nak at a time (NAK_SCHEDULED until a good TLP in order arrives); a duplicate, from a replay of TLPs already
 * received, is discarded and Ack'd. TRUE: the TLP is the next in order and good. */
G_GNUC_NO_INLINE gboolean
dll_accept (Dir *d, const Arrival *a)
{
  Link *l = d->link;
  Dir *rev = &l->d[1 - d->dir];
  if (!a->bad && a->a == d->rx_seq) {
    d->nak_scheduled = FALSE;
    return TRUE;
  }
  tlp_free (l->pool, a->tlp);
  /* A framing error while a TLP is received is a Receiver Error: the link retrains and, like a bad LCRC, it
   * schedules a Nak unless one is (spec §3.6.3.1), so the TLP does not wait for the next one's sequence gap or the
   * REPLAY_TIMER; the Nak goes once the Recovery ends. */
  if (a->bad == ARR_BAD_FRAMING)
    framing_error (d);
  else if (a->bad)
    d->errs.tlp_errors++;
  if (!a->bad && a->a < d->rx_seq) {
    rev->ack_due = TRUE;
  } else if (!d->nak_scheduled) {
    d->nak_scheduled = TRUE;
    d->nak_flit = d->flit ? a->b : 0; /* flit mode: the lost flit, + 1 (flit_draw_bad()) */
    d->errs.naks++;
    rev->nak_due = TRUE;
  }
  wire_kick (rev);
  return FALSE;
}

void
link_inject_fault (Link *link, LinkFault fault, LinkDir dir, uint64_t nth)
{
  link->fault = fault;
  link->fault_dir = dir;
  link->fault_countdown = nth;
  if (fault == LINK_FAULT_LOST_ACK || fault == LINK_FAULT_FRAMING)
    link->errors = link->d[0].errors = link->d[1].errors = TRUE;
}

void
link_inject_lcrc (Link *link, LinkDir dir, uint64_t seq, uint32_t times)
{
  link->errors = link->d[0].errors = link->d[1].errors = TRUE;
  link->lcrc_dir = dir;
  link->lcrc_seq = seq;
  link->lcrc_times = times;
}

LinkErrors
link_errors (const Link *link, LinkDir dir)
{
  return link->d[dir].errs;
}
