/* link_limits.c — analytic bounds of a link: the vendor "theoretical" formula and the protocol limit. */
#include "models/link/link_impl.h"

/* ---- analytic limits ---- */

double
link_theoretical_mbps (int gen, int lanes, uint32_t max_payload_bytes)
{
  /* published-calibration.md §1: per-lane MB/s after 8b/10b, Gen3+ counted without 128b/130b. Deliberately the
   * vendor's naive formula: it must reproduce the published figures (Gen1 x4 → 927), not improve on them. */
  static const double lane_mbps[] = { 0, 250, 500, 1000, 2000, 4000, 8000 };
  if (gen < 1 || gen > 6)
    return 0;
  /* pcie-protocol.md §7: 3-DW header + 8 framing bytes = 20 per TLP. */
  return lanes * lane_mbps[gen] * max_payload_bytes / (max_payload_bytes + 20.0);
}

double
link_theoretical_flit_mbps (int gen, int lanes, uint32_t max_payload_bytes)
{
  /* The per-lane rates of link_theoretical_mbps(); a flit's 256 bytes carry 236 of TLPs (6 DLP, 8 CRC, 6 ECC),
   * packed as the serialiser packs them (flit_payload_per_flit()). */
  double raw = link_theoretical_mbps (gen, lanes, max_payload_bytes) * (max_payload_bytes + 20.0) / max_payload_bytes;
  return raw * flit_payload_per_flit (max_payload_bytes + 12, max_payload_bytes) / PHY_FLIT_BYTES;
}

/* The parts of the bound: the MB/s of payload a wire with no ordered sets carries in back-to-back MPS TLPs with
 * header_bytes of header, the share of the wire SKP ordered sets take, and one SKP ordered set's duration in ps
 * (EDS included). 0 on parameters phy_init_mode() refuses. */
static double
limit_parts (const LinkParams *params, uint32_t header_bytes, double *os_share, double *skp_ps, double *deferred)
{
  /* Defined on the early return too: callers multiply 0 by them, and 0 x an uninitialised NaN is NaN. */
  *os_share = 0;
  *skp_ps = 0;
  *deferred = 0;
  Phy phy;
  if (!phy_init_mode (&phy, params->gen, params->lanes, params->flit_mode, params->sris, params->skp_interval_symbols,
                      NULL))
    return 0;
  double hdr_ecrc = (double) header_bytes + (params->ecrc ? TLP_ECRC_BYTES : 0);
  double sym_ps = (double) phy.sym_num_ps / (double) phy.sym_den;
  if (phy.flit) {
    /* Flit mode: every slot is on the grid of flits and SKPs; 236 of each flit's 256 bytes carry TLPs, packed
     * with no framing by the serialiser's rule (at most 8 per flit half, flit.c), and DLLPs ride in the DLP bytes. */
    *os_share = (double) phy.skp_symbols * phy.lanes / (double) phy.group_slots;
    *skp_ps = phy.skp_symbols * sym_ps;
    uint32_t mps = params->max_payload_bytes;
    return phy_wire_mbps (&phy) * flit_payload_per_flit (mps + (uint32_t) hdr_ecrc, mps) / PHY_FLIT_BYTES;
  }
  /* A saturating stream: TLPs of MPS + header + framing, all multiples of 4 bytes, so lane placement never pads
   * between them; SKPs take at least their own slots (EDS included, no block padding) once per interval; the
   * stream needs no DLLPs on its own direction (Acks and UpdateFCs travel the other way). */
  double tlp = params->max_payload_bytes + hdr_ecrc + phy.tlp_framing_bytes;
  double skp_bytes = (double) phy.skp_symbols * phy.lanes + phy.eds_bytes;
  *os_share = skp_bytes / ((double) phy.skp_interval_symbols * phy.lanes);
  /* At 128b/130b SKPs deferred by one packet are not sent back to back (skp_catch_up()): a TLP longer than the
   * interval is followed by one SKP, not by all that fell due during it. */
  if (phy.gen >= 3)
    *os_share = skp_bytes / MAX ((double) phy.skp_interval_symbols * phy.lanes, tlp + skp_bytes);
  *skp_ps = (phy.skp_symbols + (double) phy.eds_bytes / phy.lanes) * sym_ps;
  /* SKPs that fall due during a packet wait for its end (skp_catch_up()): one MPS TLP longer than the interval
   * carries that many past its own end. */
  *deferred = floor (tlp / phy.lanes / phy.skp_interval_symbols);
  return phy_wire_mbps (&phy) * params->max_payload_bytes / tlp;
}

double
link_protocol_limit_mbps (const LinkParams *params, uint32_t header_bytes)
{
  /* An upper bound for simulated streams; test-link.c and test-phy.c check it. */
  double os_share, skp_ps, deferred;
  double no_os = limit_parts (params, header_bytes, &os_share, &skp_ps, &deferred);
  return no_os * (1.0 - os_share);
}

/* A window of W holds SKPs due at every interval I (flit mode: on a fixed grid), each placed at the first
 * packet boundary after it is due (at most one TLP later): at least W / I - 2 - D of them lie inside, D the SKPs
 * one MPS TLP longer than I defers past the window's end (0 when a TLP is shorter than I; SRIS intervals are
 * 154 symbols at 8b/10b, shorter than a 512-byte TLP at x1). The payload the window can carry is then at most
 * no_os x (1 - (W / I - 2 - D) S / W) = limit + no_os x (2 + D) S / W, and never more than a wire without
 * ordered sets carries. */
double
link_protocol_limit_window_mbps (const LinkParams *params, uint32_t header_bytes, SimTime window_ps)
{
  double os_share, skp_ps, deferred;
  double no_os = limit_parts (params, header_bytes, &os_share, &skp_ps, &deferred);
  if (window_ps == 0)
    return no_os;
  /* Two for the window's ends, and those the window's last TLP defers past its end. */
  return MIN (no_os, no_os * (1.0 - os_share) + no_os * (2.0 + deferred) * skp_ps / (double) window_ps);
}

/* Flit mode is always on at Gen6 (link.h). */
uint32_t
link_tags_max (const LinkParams *params)
{
  return params->flit_mode || params->gen == 6 ? LINK_TAGS_14BIT : LINK_TAGS_10BIT;
}
