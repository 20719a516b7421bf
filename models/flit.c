/* flit.c — flit mode's parts of the link: DLLPs in the flits' DLP bytes, their arrival order, and the flit-mode
 * theoretical bound. */
#include "models/link_impl.h"

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
  /* The per-lane rates of link_theoretical_mbps(); a flit's 256 bytes carry 236 of TLPs (6 DLP, 8 CRC, 6 ECC). */
  double raw = link_theoretical_mbps (gen, lanes, max_payload_bytes) * (max_payload_bytes + 20.0) / max_payload_bytes;
  return raw * 236.0 / 256.0 * max_payload_bytes / (max_payload_bytes + 12.0);
}
