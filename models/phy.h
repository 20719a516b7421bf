/* phy.h — the physical layer of one link direction: rates, encodings, symbol timing, lane placement, SKP/EDS.
 *
 * Contract:
 * - Positions on the wire are "slots": one slot is one symbol (byte) on one lane, so symbol time n covers
 *   slots [n·lanes, (n+1)·lanes). A direction keeps an integer slot cursor; nothing accumulates fractional time.
 * - phy_sym_ps() converts a symbol index to picoseconds exactly (rational num/den, floor), so Gen3+ symbol times
 *   with their 130/128 sync-header share (Gen4: 507.8125 ps) never drift however long a run is.
 * - Framing and placement go through Phy.ops (PhyOps), one table per framing mode. Non-flit 8b/10b and 128b/130b
 *   share one table (they differ only in data: EDS size and ordered-set alignment); flit mode (Gen6) can be
 *   added as a second table without touching the link, which only calls the ops.
 * - Placement functions are pure: given where the wire is free they say where a packet or ordered set goes, how
 *   much padding precedes it and where it ends. The link owns the cursor.
 */
#pragma once

#include "sim/engine.h"
#include "models/tlp.h"

typedef struct Phy Phy;

typedef struct {
  uint64_t start_slot; /* first slot of the packet / ordered set (incl. an EDS token) */
  uint64_t end_slot; /* first slot after it */
  uint64_t pad_slots; /* PAD (Gen1/2) or IDL (Gen3+) slots between the base position and start_slot */
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
  int gen; /* 1..5 */
  uint32_t lanes; /* 1, 2, 4, 8, 16 */
  uint32_t mt_per_s; /* transfer rate per lane in MT/s (spec Table 1-1) */
  uint64_t sym_num_ps, sym_den; /* one symbol time = sym_num_ps / sym_den picoseconds, reduced */
  uint32_t start_granule_lanes; /* packets start on lane multiples of this (pcie-protocol.md §2, lane placement) */
  uint32_t tlp_framing_bytes; /* added to each TLP's transaction bytes (§2) */
  uint32_t dllp_bytes; /* §3 */
  uint32_t skp_interval_symbols; /* SKP scheduled once per this many symbol times (§4) */
  uint32_t skp_symbols; /* SKP ordered set length per lane (§4) */
  uint32_t eds_bytes; /* EDS token preceding a SKP at 128b/130b (§2, §4); 0 at 8b/10b */
  uint32_t os_align_symbols; /* ordered sets start on multiples of this many symbol times (128b/130b blocks) */
  uint32_t internal_delay_symbols; /* Ack latency InternalDelay (§3) */
};

/* Fill `phy` for a generation and width. skp_interval_symbols 0 selects the default (see phy.c).
 * Returns FALSE with error on an unsupported generation or width. */
gboolean phy_init (Phy *phy, int gen, int lanes, uint32_t skp_interval_symbols, GError **error);

/* Start of symbol time n in picoseconds (exact, floor of the rational). */
SimTime phy_sym_ps (const Phy *phy, uint64_t n);
/* Smallest n with phy_sym_ps(n) >= t: the first symbol boundary at or after t. */
uint64_t phy_sym_at_or_after (const Phy *phy, SimTime t);
/* Ack latency limit in symbol times: (MPS+28)·AckFactor/width + InternalDelay (pcie-protocol.md §3). */
uint32_t phy_ack_limit_symbols (const Phy *phy, uint32_t max_payload_bytes);
/* Raw symbol rate of all lanes after encoding, in MB/s (10^6 bytes/s): lanes × 10^12 / symbol_ps / 10^6. */
double phy_wire_mbps (const Phy *phy);

#define PHY_ERROR (phy_error_quark ())
GQuark phy_error_quark (void);
typedef enum { PHY_ERROR_GEN, PHY_ERROR_LANES } PhyError;
