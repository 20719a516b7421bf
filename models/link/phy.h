/* phy.h — the physical layer of one link direction: rates, encodings, symbol timing, lane placement, SKP/EDS.
 *
 * Contract:
 * - Positions on the wire are "slots": one slot is one symbol (byte) on one lane, so symbol time n covers
 *   slots [n·lanes, (n+1)·lanes). A direction keeps an integer slot cursor; nothing accumulates fractional time.
 * - phy_sym_ps() converts a symbol index to picoseconds exactly (rational num/den, floor), so Gen3+ symbol times
 *   with their 130/128 sync-header share (Gen4: 507.8125 ps) never drift however long a run is.
 * - Framing and placement go through Phy.ops (PhyOps), one table per framing mode. Non-flit 8b/10b and 128b/130b
 *   share one table (they differ only in data: EDS size and ordered-set alignment); flit mode has the second.
 * - Flit mode (pcie-protocol.md §1-4, spec §4.2.3.3): the wire is a fixed grid of 256-byte flits, each 236 TLP
 *   bytes + 6 DLP + 8 CRC + 6 FEC, with a SKP ordered set after every skp_flits flits; flits go out whether or
 *   not anything fills them (IDLE/NOP), so the grid depends on time alone. A slot inside a flit is byte i of the
 *   flit, striped over the lanes. TLPs fill the TLP bytes back to back across flit boundaries; a TLP is usable at
 *   the receiver only when the flit holding its last byte has arrived whole (CRC and FEC cover the flit).
 * - Placement functions are pure: given where the wire is free they say where a packet or ordered set goes, how
 *   much padding precedes it and where it ends. The link owns the cursor.
 */
#pragma once

#include "models/base/model_error.h"
#include "sim/engine.h"
#include "models/proto/tlp.h"

typedef struct Phy Phy;

typedef struct {
  uint64_t start_slot; /* first slot of the packet / ordered set (incl. an EDS token) */
  uint64_t end_slot; /* first slot after it */
  uint64_t pad_slots; /* PAD (Gen1/2) or IDL (Gen3+) slots between the base position and start_slot */
  uint64_t avail_slot; /* the receiver may use the packet once this slot has passed (flit mode: its last flit) */
  uint64_t first_flit, last_flit; /* flit mode: flits holding the packet's bytes */
} PhyPlacement;

typedef struct {
  const char *name;
  /* Wire bytes of a TLP with this mode's framing (pcie-protocol.md §2). */
  uint32_t (*tlp_wire_bytes) (const Phy *phy, const Tlp *tlp);
  /* Wire bytes of one DLLP (pcie-protocol.md §3). */
  uint32_t (*dllp_wire_bytes) (const Phy *phy);
  /* A packet of `bytes` following `base_slot` (the cursor when back to back, or a symbol start after idle). */
  void (*place_packet) (const Phy *phy, uint64_t base_slot, uint32_t bytes, PhyPlacement *out);
  /* A SKP ordered set (with its EDS token where the mode has one) following `base_slot`. */
  void (*place_skp) (const Phy *phy, uint64_t base_slot, PhyPlacement *out);
} PhyOps;

struct Phy {
  const PhyOps *ops;
  int gen; /* 1..6 */
  uint32_t lanes; /* 1, 2, 4, 8, 12, 16, 32 (x12 and x32 only without flit mode) */
  gboolean flit; /* flit mode: always at Gen6, optional at Gen1-5 */
  uint32_t skp_flits; /* flit mode: a SKP ordered set after every this many flits (§4) */
  uint64_t group_slots; /* flit mode: skp_flits flits and one SKP, the period of the grid */
  uint32_t mt_per_s; /* transfer rate per lane in MT/s (spec Table 1-1) */
  uint64_t sym_num_ps, sym_den; /* one symbol time = sym_num_ps / sym_den picoseconds, reduced */
  /* log2 of sym_den and of sym_den × lanes where they are powers of two (every generation's sym_den is: 1 at
   * 8b/10b, 8..32 at 128b/130b; every width but x12), else -1: worked out once here, not per packet. */
  int sym_den_shift, slot_den_shift;
  uint32_t start_granule_lanes; /* packets start on lane multiples of this (pcie-protocol.md §2, lane placement) */
  uint32_t tlp_framing_bytes; /* added to each TLP's transaction bytes (§2) */
  uint32_t dllp_bytes; /* §3 */
  uint32_t skp_interval_symbols; /* SKP scheduled once per this many symbol times (§4) */
  uint32_t skp_symbols; /* SKP ordered set length per lane (§4) */
  uint32_t eds_bytes; /* EDS token preceding a SKP at 128b/130b (§2, §4); 0 at 8b/10b */
  uint32_t os_align_symbols; /* ordered sets start on multiples of this many symbol times (128b/130b blocks) */
  uint32_t internal_delay_symbols; /* Ack latency InternalDelay (§3) */
};

/* PhyOps.place_packet outside flit mode, here so the link's per-packet path can inline it (the op calls it). At
 * x1..x4 the granule is the width itself, i.e. lane 0: a packet of whole DWs ends on a symbol boundary there, so
 * back-to-back packets pad nothing (§2 "pack back to back"). Wider links pad up to the next lane 4·N. */
static inline void
phy_nonflit_place_packet (const Phy *phy, uint64_t base_slot, uint32_t bytes, PhyPlacement *out)
{
  uint64_t g = phy->start_granule_lanes;
  out->start_slot = (base_slot + g - 1) / g * g;
  out->pad_slots = out->start_slot - base_slot;
  out->end_slot = out->start_slot + bytes;
  out->avail_slot = out->end_slot;
}

/* Fill `phy` for a generation and width. skp_interval_symbols 0 selects the default (see phy.c).
 * Returns FALSE with error on an unsupported generation or width. Non-flit, but Gen6 always runs flit mode. */
gboolean phy_init (Phy *phy, int gen, int lanes, uint32_t skp_interval_symbols, GError **error);
/* The same with the framing mode: `flit` selects flit mode at any generation (forced at Gen6); `sris` the SKP
 * intervals of separate reference clocks (§4, spec §4.2.8). */
gboolean phy_init_mode (Phy *phy, int gen, int lanes, gboolean flit, gboolean sris, uint32_t skp_interval_symbols,
                        GError **error);

/* Flit mode: first slot of flit k; the flit holding `slot` (or the next one when `slot` lies in a flit's
 * DLP/CRC/FEC bytes or in a SKP); the first flit whose DLP bytes start at or after `slot` (a DLLP decided then
 * rides in it); SKP ordered sets starting in [from, to). */
uint64_t phy_flit_start (const Phy *phy, uint64_t k);
uint64_t phy_flit_dlp_at_or_after (const Phy *phy, uint64_t slot);
uint64_t phy_flit_skps_between (const Phy *phy, uint64_t from, uint64_t to);
/* Flit mode: probability that a flit is lost (FEC cannot correct it, CRC catches it) at a first-bit error rate per
 * line bit, errors coming in bursts, some across lanes (phy.c, pcie-protocol.md §10); FEC corrects at every rate. */
double phy_flit_error_prob (const Phy *phy, double ber, double lane_correlation);

/* Flit layout (spec §4.2.3.3, pcie-protocol.md §1). */
#define PHY_FLIT_BYTES 256u
#define PHY_FLIT_TLP_BYTES 236u
#define PHY_FLIT_DLP_BYTES 6u

/* Start of symbol time n in picoseconds (exact, floor of the rational). Inline, as the next one: the link converts
 * between symbols and picoseconds several times per packet. */
static inline SimTime
phy_sym_ps (const Phy *phy, uint64_t n)
{
  /* Split n so the products stay below 2^64 for any n: (q·den + r)·num/den = q·num + r·num/den. */
  uint64_t den = phy->sym_den;
  if (G_LIKELY (phy->sym_den_shift >= 0)) {
    /* Shifts give the same floors as the divisions, which cost more than the rest of the per-packet arithmetic. */
    int sh = phy->sym_den_shift;
    return (n >> sh) * phy->sym_num_ps + (((n & (den - 1)) * phy->sym_num_ps) >> sh);
  }
  uint64_t q = n / den, r = n % den;
  return q * phy->sym_num_ps + r * phy->sym_num_ps / den;
}

/* Smallest n with phy_sym_ps(n) >= t: the first symbol boundary at or after t. */
static inline uint64_t
phy_sym_at_or_after (const Phy *phy, SimTime t)
{
  /* The least n with floor(n·num/den) >= t is ceil(t·den/num), as t is whole; split t = q·num + r so nothing
   * overflows (r·den < num·den, a few hundred thousand). */
  uint64_t num = phy->sym_num_ps, den = phy->sym_den;
  uint64_t q = t / num, r = t % num;
  return q * den + (r * den + num - 1) / num;
}
/* Ack latency limit in symbol times: (MPS+28)·AckFactor/width + InternalDelay (pcie-protocol.md §3). */
uint32_t phy_ack_limit_symbols (const Phy *phy, uint32_t max_payload_bytes);
/* Raw symbol rate of all lanes after encoding, in MB/s (10^6 bytes/s): lanes × 10^12 / symbol_ps / 10^6. */
double phy_wire_mbps (const Phy *phy);

