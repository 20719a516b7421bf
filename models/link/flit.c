/* flit.c — flit mode's parts of the link: DLLPs in the flits' DLP bytes, their arrival order, packing TLPs into
 * flits, replay by flits (standard and selective Nak), and the flit-mode theoretical bound. */
#include "models/link/link_impl.h"

#include <string.h>

/* Flit mode only: a DLLP rides in the next flit's DLP bytes and so may arrive before a long TLP placed earlier
 * (whose last flit is later); it moves in ahead of it. Out of line: every other mode appends (arr_push()). */
G_GNUC_NO_INLINE void
arr_insert_sorted (Dir *d, const Arrival *a)
{
  uint32_t k = d->arr_len;
  for (; k > 0 && d->arr[(d->arr_head + k - 1) & (d->arr_cap - 1)].at > a->at; k--)
    d->arr[(d->arr_head + k) & (d->arr_cap - 1)] = d->arr[(d->arr_head + k - 1) & (d->arr_cap - 1)];
  d->arr[(d->arr_head + k) & (d->arr_cap - 1)] = *a;
  if (d->arr_len++ == 0) {
    d->arr_ev = sim_schedule_at (d->link->engine, a->at, arr_fire, d, 0);
  } else if (k == 0) {
    sim_cancel (d->link->engine, d->arr_ev);
    d->arr_ev = sim_schedule_at (d->link->engine, a->at, arr_fire, d, 0);
  }
}

/* Flit mode: DLLPs due now ride in the DLP bytes of the next flits whose DLP has not gone out: an Ack or Nak in
 * bytes 0-1 and one other DLLP in bytes 2-5 of each flit (§3), so each kind takes the next flit it has not used
 * yet. They cost no wire bytes of their own; the receiver has them when the flit is in. */
G_GNUC_NO_INLINE void
flit_dllps (Dir *d)
{
  gboolean fc = d->fc_due[FC_P] || d->fc_due[FC_NP] || d->fc_due[FC_CPL];
  if (!d->ack_due && !d->nak_due && !fc)
    return;
  Link *l = d->link;
  const Phy *phy = &l->phy;
  Dir *o = &l->d[1 - d->dir];
  SimTime now = sim_now (l->engine);
  /* Not before the cursor when a retrain holds the wire (retrain()). */
  uint64_t now_slot = phy_sym_at_or_after (phy, now) * phy->lanes;
  uint64_t k = phy_flit_dlp_at_or_after (phy, MAX (now_slot, d->retrain_end_slot));
  while (d->nak_due || d->ack_due) {
    uint64_t f = MAX (k, d->ack_flit);
    d->ack_flit = f + 1;
    Arrival a = ack_build (d, o, d->nak_due ? ARR_NAK : ARR_ACK, now);
    if (d->nak_due)
      d->nak_due = FALSE;
    else
      d->ack_due = FALSE;
    d->cnt.dllps++;
    send_to_far_side (d, phy_flit_start (phy, f) + PHY_FLIT_BYTES, &a);
  }
  for (int c = 0; c < FC_CLASS_COUNT; c++) {
    if (!d->fc_due[c])
      continue;
    uint64_t f = MAX (k, d->dllp_flit);
    d->dllp_flit = f + 1;
    Arrival a = updatefc_build (d, o, (FcClass) c, now);
    d->cnt.dllps++;
    send_to_far_side (d, phy_flit_start (phy, f) + PHY_FLIT_BYTES, &a);
  }
}

/* ---- packing TLPs into flits ---- */

static void flit_placed (Dir *d, uint64_t seq, const PhyPlacement *pl);

/* Spec §4.2.3.4.1 (pcie-protocol.md §2): a flit half holds bytes of at most 8 TLPs, a TLP that only starts or
 * ends in it included. The halves are the flit's bytes 0-127 and 128-255, so the TLP bytes (0-235) split 128 +
 * 108. A TLP that would be the ninth starts at the next half instead; the bytes skipped are NOP padding, which
 * ends on a 4-DW boundary (128 or the next flit), so no further rule applies to it. */
#define FLIT_HALF_TLP_BYTES 128u
#define FLIT_HALF_TLPS_MAX 8u

/* The half (flit × 2 + 0 or 1) holding TLP byte `off` of flit k. */
static inline uint64_t
half_of (uint64_t k, uint32_t off)
{
  return k * 2 + (off >= FLIT_HALF_TLP_BYTES);
}

/* The flit and offset of the last byte of a TLP of `bytes` starting at byte `off` of flit k. */
static void
tlp_last_byte (uint64_t k, uint32_t off, uint32_t bytes, uint64_t *last_k, uint32_t *last_off)
{
  uint64_t end = (uint64_t) off + bytes - 1; /* counted in TLP bytes from flit k's first */
  *last_k = k + end / PHY_FLIT_TLP_BYTES;
  *last_off = (uint32_t) (end % PHY_FLIT_TLP_BYTES);
}

/* Where a TLP goes, given where the wire is free (k, off) and the half the last TLP ended in with its count:
 * moved to the next half while that one already holds 8. Pure, so the protocol limit (flit_payload_per_flit())
 * packs with the very same rule as the serialiser. */
static void
pack_start (uint64_t *k, uint32_t *off, uint64_t half, uint32_t count)
{
  while (half_of (*k, *off) == half && count >= FLIT_HALF_TLPS_MAX) {
    if (*off < FLIT_HALF_TLP_BYTES) {
      *off = FLIT_HALF_TLP_BYTES;
    } else {
      ++*k;
      *off = 0;
    }
  }
}

/* A TLP of `bytes` placed at (k, off): the half it ends in and that half's count become the state. */
static void
pack_commit (uint64_t k, uint32_t off, uint32_t bytes, uint64_t *half, uint32_t *count)
{
  uint64_t h0 = half_of (k, off), last_k;
  uint32_t last_off;
  tlp_last_byte (k, off, bytes, &last_k, &last_off);
  uint64_t h1 = half_of (last_k, last_off);
  *count = h1 == h0 && h0 == *half ? *count + 1 : 1;
  *half = h1;
}

/* Spec §4.2.3.4.1: bytes of a flit already on the wire stay as they went out, and a transmitter with nothing to
 * send fills TLP bytes with NOP TLPs in 4-DW units. So a TLP that follows the previous one back to back (`base` is
 * the cursor) goes right behind it, at DW granularity; one that comes after the wire idled starts at the first
 * 4-DW boundary of the flit's TLP bytes at or after `base` (past its TLP bytes: the next flit). */
#define FLIT_NOP_ALIGN_BYTES 16u

G_GNUC_NO_INLINE void
flit_place_tlp (Dir *d, uint64_t base, uint32_t bytes, uint64_t seq, PhyPlacement *pl)
{
  const Phy *phy = &d->link->phy;
  /* Where the wire is free: the flit and TLP byte there (past a flit's TLP bytes or in a SKP: the next flit). */
  phy->ops->place_packet (phy, base, 1, pl);
  uint64_t k = pl->first_flit;
  uint32_t off = (uint32_t) (pl->start_slot - phy_flit_start (phy, k));
  if (base != d->cursor) {
    off = (off + FLIT_NOP_ALIGN_BYTES - 1) / FLIT_NOP_ALIGN_BYTES * FLIT_NOP_ALIGN_BYTES;
    if (off >= PHY_FLIT_TLP_BYTES) {
      k++;
      off = 0;
    }
  }
  pack_start (&k, &off, d->pack_half, d->pack_count);
  pack_commit (k, off, bytes, &d->pack_half, &d->pack_count);
  phy->ops->place_packet (phy, phy_flit_start (phy, k) + off, bytes, pl);
  pl->pad_slots = pl->start_slot - base;
  flit_placed (d, seq, pl);
}

/* The replay ring grew from old_cap to cap entries (replay_push(), which re-bases it at 0): the rings beside it
 * follow. */
static void *
ring_regrow (void *ring, size_t size, const Dir *d, uint32_t old_cap, uint32_t cap)
{
  char *n = g_malloc (size * cap);
  uint32_t len = (uint32_t) (d->tx_seq - d->acked_seq);
  for (uint32_t i = 0; i < len && old_cap; i++)
    memcpy (n + i * size, (char *) ring + ((d->replay_head + i) & (old_cap - 1)) * size, size);
  g_free (ring);
  return n;
}

void
flit_replay_grow (Dir *d, uint32_t old_cap, uint32_t cap)
{
  d->rflit = ring_regrow (d->rflit, sizeof *d->rflit, d, old_cap, cap);
  d->rlast = ring_regrow (d->rlast, sizeof *d->rlast, d, old_cap, cap);
  d->rlost = ring_regrow (d->rlost, sizeof *d->rlost, d, old_cap, cap);
  d->rat = ring_regrow (d->rat, sizeof *d->rat, d, old_cap, cap);
}

/* TLP `seq` went into flits first_flit..last_flit. Only flits holding TLP bytes take flit sequence numbers and a
 * place in the retry buffer (IDLE flits are not replayed), so the TLP's flits are numbered among those: the rings
 * beside the replay ring keep its first and last. */
static void
flit_placed (Dir *d, uint64_t seq, const PhyPlacement *pl)
{
  gboolean shares = d->tlp_flits && pl->first_flit <= d->last_tlp_flit;
  uint64_t first_new = shares ? d->last_tlp_flit + 1 : pl->first_flit;
  uint64_t number = shares ? d->tlp_flits - 1 : d->tlp_flits;
  if (pl->last_flit >= first_new)
    d->tlp_flits += pl->last_flit + 1 - first_new;
  uint32_t x = replay_slot (d, seq);
  d->rflit[x] = number;
  d->rlast[x] = number + (pl->last_flit - pl->first_flit);
  d->rlost[x] = FLIT_NONE;
  d->last_tlp_flit = MAX (d->last_tlp_flit, pl->last_flit);
}

/* ---- replay by flits (spec §4.2.3.4.2, pcie-protocol.md §10) ---- */

/* A Nak reached transmitter d: it names the lost flit (a.b, + 1; 0 when the receiver knew none, from the oldest
 * unacknowledged), and a selective one (a.cls) asks for that flit alone. replay_start() follows. */
void
flit_nak (Dir *d, const Arrival *a)
{
  d->replay_from_flit = a->b ? a->b - 1 : 0;
  d->replay_selective = a->cls && a->b;
}

/* When wire flit w is in at the far data link layer. */
static SimTime
flit_in_ps (const Dir *d, uint64_t w)
{
  const Phy *phy = &d->link->phy;
  return slot_sym_end_ps (phy, phy_flit_start (phy, w) + PHY_FLIT_BYTES) + d->link->latency_ps[d->dir];
}

/* The fate of flit j of a replay, drawn once each, in order (j = *drawn - 1 is the last drawn, *bad its fate). */
static gboolean
replay_flit_bad (Dir *d, uint64_t j, uint64_t *drawn, gboolean *bad)
{
  if (j >= *drawn) {
    *bad = d->link->p.ber > 0 && g_rand_double (d->rand) < d->link->p_flit_bad;
    d->errs.flit_errors += *bad;
    *drawn = j + 1;
  }
  return *bad;
}

/* The replay owed, placed at once as whole flits from the first one free at `base`: the flits keep their numbers
 * and contents, so none is repacked, and the next new TLP starts a flit of its own. A standard Nak or a REPLAY_TIMER
 * expiry resends every flit from the lost one (the oldest unacknowledged one) to the last sent, and each TLP is in
 * again when its last resent flit is; a selective Nak resends the lost flit alone, and the TLPs after it, which the
 * receiver kept, go on with it (in order, no sooner than they first came). The receiver's data link layer sees each
 * unacknowledged TLP again (an Arrival, a copy), with the fate of its resent flits, or, kept, its first one's. A
 * TLP with a second lost flit in the one a selective Nak asked for counts as whole once that one is good: the one
 * approximation here. */
G_GNUC_NO_INLINE void
flit_replay_place (Dir *d, uint64_t base)
{
  Link *l = d->link;
  const Phy *phy = &l->phy;
  uint32_t unacked = (uint32_t) (d->tx_seq - d->acked_seq);
  uint64_t from = CLAMP (d->replay_from_flit, d->rflit[d->replay_head], d->tlp_flits - 1);
  gboolean selective = d->replay_selective;
  uint64_t n = selective ? 1 : d->tlp_flits - from;
  base = MAX (base, d->retrain_end_slot);
  uint64_t r = phy_flit_dlp_at_or_after (phy, base);
  if (phy_flit_start (phy, r) < base)
    r++;
  uint64_t drawn = 0;
  gboolean bad = FALSE;
  SimTime first_in = flit_in_ps (d, r), pin = 0;
  for (uint32_t i = 0; i < unacked; i++) {
    uint64_t seq = d->acked_seq + i;
    uint32_t x = replay_slot (d, seq);
    uint64_t first = d->rflit[x], last = d->rlast[x], lost = FLIT_NONE, w = r;
    gboolean resent = !selective || first <= from;
    gboolean injected = resent && l->lcrc_times && l->lcrc_dir == d->dir && l->lcrc_seq == seq;
    if (selective) {
      lost = first <= from ? (replay_flit_bad (d, 0, &drawn, &bad) || injected ? from : FLIT_NONE) : d->rlost[x];
      d->rat[x] = MAX (d->rat[x], first_in);
    } else {
      for (uint64_t f = MAX (first, from); f <= last; f++)
        if (replay_flit_bad (d, f - from, &drawn, &bad) && lost == FLIT_NONE)
          lost = f;
      if (injected && lost == FLIT_NONE)
        lost = last; /* link_inject_lcrc(): the flit holding its last byte */
      w = r + (last - from);
      d->rat[x] = flit_in_ps (d, w);
    }
    l->lcrc_times -= injected;
    d->rlost[x] = lost;
    d->errs.replayed_tlps += resent;
    Tlp *t = d->rtlp[x];
    Arrival a = { .kind = ARR_TLP, .cls = tlp_fc_class (t->kind), .tlp = tlp_copy (l, t), .a = seq, .at = d->rat[x],
                  .bad = lost != FLIT_NONE ? ARR_BAD_CRC : 0, .b = lost != FLIT_NONE ? lost + 1 : 0 };
    arr_push (d, &a);
    pin = slot_sym_end_ps (phy, phy_flit_start (phy, w) + PHY_FLIT_BYTES) + l->tx_pipe_ps[d->dir];
    d->rpin[x] = pin;
  }
  uint64_t start = phy_flit_start (phy, r), end = phy_flit_start (phy, r + n - 1) + PHY_FLIT_BYTES;
  stall_busy (&d->stall, slot_ps (phy, start), slot_ps (phy, end));
  d->errs.replayed_bytes += n * PHY_FLIT_BYTES;
  d->s_overhead += n * PHY_FLIT_BYTES;
  d->cursor = end;
  d->charged_flit = MAX (d->charged_flit, r + n);
  d->last_tlp_flit = MAX (d->last_tlp_flit, r + n - 1);
  d->drawn_flit = MAX (d->drawn_flit, r + n);
  d->pack_half = UINT64_MAX;
  d->pack_count = 0;
  d->replay_pos = unacked;
  if (G_UNLIKELY (l->trace != NULL))
    trace_replay_bytes (l->trace, &d->tr, sim_now (l->engine), d->replay_bytes);
  replay_timer_start (d, pin);
}

/* Spec §3.6.2.1, flit mode: the unacknowledged flits (from the oldest unacknowledged TLP's first flit to the last
 * flit holding TLP bytes, counted among flits holding TLP bytes) plus the flits the queued TLPs and this one will
 * fill stay within MAX_UNACKNOWLEDGED_FLITS. */
gboolean
flit_window_fits (const Link *l, const Dir *d, uint32_t bytes)
{
  uint64_t unacked = d->tx_seq > d->acked_seq ? d->tlp_flits - d->rflit[d->replay_head] : 0;
  uint64_t queued = (d->q_bytes + bytes + PHY_FLIT_TLP_BYTES - 1) / PHY_FLIT_TLP_BYTES;
  return unacked + queued <= l->window_flits;
}

/* Payload per flit of a saturating stream of equal TLPs (tlp_bytes on the wire, payload_bytes of it payload),
 * packed by pack_start() and pack_commit() from an empty flit: the packing is periodic once the state at a flit's
 * start (the byte where the next TLP starts, the count of TLPs in its half) repeats, so the mean over that period
 * is exact. Without the 8-per-half rule this is 236 × payload / tlp_bytes. */
double
flit_payload_per_flit (uint32_t tlp_bytes, uint32_t payload_bytes)
{
  /* State at the start of flit k: where the next TLP may start in it (0..235) and the count of its half. */
  enum { STATES = PHY_FLIT_TLP_BYTES * (FLIT_HALF_TLPS_MAX + 1) };
  g_autofree uint64_t *seen_flit = g_new0 (uint64_t, STATES);
  g_autofree uint64_t *seen_tlps = g_new0 (uint64_t, STATES);
  uint64_t k = 0, half = UINT64_MAX, tlps = 0;
  uint32_t off = 0, count = 0;
  for (;;) {
    uint64_t start_k = k;
    uint32_t s = (half == half_of (k, off) ? count : 0) * PHY_FLIT_TLP_BYTES + off;
    if (seen_flit[s])
      return (double) (tlps - seen_tlps[s]) * payload_bytes / (double) (k + 1 - seen_flit[s]);
    seen_flit[s] = k + 1;
    seen_tlps[s] = tlps;
    /* Fill flit k: TLPs start in it until the next one's start falls in a later flit. */
    for (;;) {
      pack_start (&k, &off, half, count);
      if (k != start_k)
        break;
      pack_commit (k, off, tlp_bytes, &half, &count);
      tlps++;
      uint64_t last_k;
      uint32_t last_off;
      tlp_last_byte (k, off, tlp_bytes, &last_k, &last_off);
      k = last_k;
      off = last_off + 1;
      if (off == PHY_FLIT_TLP_BYTES) {
        k++;
        off = 0;
      }
      if (k != start_k)
        break;
    }
  }
}
