/* flit.c — flit mode's parts of the link: DLLPs in the flits' DLP bytes, their arrival order, and the flit-mode
 * theoretical bound. */
#include "models/link/link_impl.h"

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

double
link_theoretical_flit_mbps (int gen, int lanes, uint32_t max_payload_bytes)
{
  /* The per-lane rates of link_theoretical_mbps(); a flit's 256 bytes carry 236 of TLPs (6 DLP, 8 CRC, 6 ECC),
   * packed as the serialiser packs them (flit_payload_per_flit()). */
  double raw = link_theoretical_mbps (gen, lanes, max_payload_bytes) * (max_payload_bytes + 20.0) / max_payload_bytes;
  return raw * flit_payload_per_flit (max_payload_bytes + 12, max_payload_bytes) / PHY_FLIT_BYTES;
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

/* The replay ring grew from old_cap to cap entries (replay_push(), which re-bases it at 0): the first-flit ring
 * beside it follows. */
void
flit_replay_grow (Dir *d, uint32_t old_cap, uint32_t cap)
{
  uint64_t *n = g_new (uint64_t, cap);
  uint32_t len = (uint32_t) (d->tx_seq - d->acked_seq);
  for (uint32_t i = 0; i < len && old_cap; i++)
    n[i] = d->rflit[(d->replay_head + i) & (old_cap - 1)];
  g_free (d->rflit);
  d->rflit = n;
}

/* TLP `seq` (new or replayed) went into flits first_flit..last_flit. Only flits holding TLP bytes take flit
 * sequence numbers and a place in the retry buffer (IDLE flits are not replayed), so the TLP's first flit is
 * numbered among those: the ring beside the replay ring keeps that number. A replayed TLP moves to its new flits. */
static void
flit_placed (Dir *d, uint64_t seq, const PhyPlacement *pl)
{
  gboolean shares = d->tlp_flits && pl->first_flit <= d->last_tlp_flit;
  uint64_t first_new = shares ? d->last_tlp_flit + 1 : pl->first_flit;
  uint64_t number = shares ? d->tlp_flits - 1 : d->tlp_flits;
  if (pl->last_flit >= first_new)
    d->tlp_flits += pl->last_flit + 1 - first_new;
  d->rflit[(d->replay_head + (uint32_t) (seq - d->acked_seq)) & (d->replay_cap - 1)] = number;
  d->last_tlp_flit = MAX (d->last_tlp_flit, pl->last_flit);
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
