/* phy.c — generation tables, exact symbol-time arithmetic, and the non-flit framing/placement ops. */
#include "models/phy.h"

G_DEFINE_QUARK (pciesim-phy-error-quark, phy_error)

/* Per-generation facts, pcie-protocol.md §1 (spec Table 1-1), §3 (InternalDelay) and §4 (SKP). */
typedef struct {
  uint32_t mt_per_s; /* per lane; 1 GT/s = 1000 MT/s, one unit interval (UI) per transfer */
  gboolean enc_128b130b; /* FALSE: 8b/10b (Gen1/2); TRUE also brings EDS tokens and block-aligned ordered sets */
  uint32_t internal_delay_symbols; /* §3: 19 at 2.5 GT/s, 70 at 5 GT/s, 115 at >= 8 GT/s */
} GenInfo;

static const GenInfo gen_info[] = {
  [1] = { 2500, FALSE, 19 },
  [2] = { 5000, FALSE, 70 },
  [3] = { 8000, TRUE, 115 },
  [4] = { 16000, TRUE, 115 },
  [5] = { 32000, TRUE, 115 },
};

/* §4: 8b/10b SKP every 1180–1538 symbol times; the default is the shortest interval, because a model that
 * spends the most time on SKPs never overstates what a real transmitter achieves (and the protocol limit uses
 * the same interval, so the two stay consistent). */
#define SKP_INTERVAL_8B10B_SYMBOLS 1180u
/* §4: COM + 3 SKP = 4 symbols per lane. */
#define SKP_SYMBOLS_8B10B 4u
/* §4: 128b/130b SKP every 370–375 blocks of 16 symbols per lane; shortest interval for the same reason. */
#define SKP_INTERVAL_128B130B_BLOCKS 370u
#define BLOCK_SYMBOLS_128B130B 16u
/* §4: a 128b/130b SKP ordered set is 16 symbols, preceded by a 4-symbol EDS token (§2). */
#define SKP_SYMBOLS_128B130B 16u
#define EDS_BYTES_128B130B 4u
/* §2: Gen1/2 STP 1 + sequence 2 + LCRC 4 + END 1; Gen3+ STP token 4 + LCRC 4 — both 8 bytes. */
#define TLP_FRAMING_BYTES_NONFLIT 8u
/* §3: DLLP 8 bytes on the wire in every non-flit mode. */
#define DLLP_BYTES_NONFLIT 8u
/* §2 lane placement: on links wider than x4 packets start only in lane 4·N. */
#define LANE_GROUP 4u

/* Reducing the symbol-time fraction is what leaves sym_den a power of two for every generation, as phy_sym_ps's
 * fast path needs: unreduced, Gen3's would be 8000 · 128 = 1,024,000. */
static uint64_t
gcd64 (uint64_t a, uint64_t b)
{
  while (b) {
    uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

static uint64_t
round_up (uint64_t x, uint64_t m)
{
  return (x + m - 1) / m * m;
}

/* The framing is 8 bytes at both encodings (§2), so one table serves Gen1–5; ECRC, when present, is already part
 * of the transaction bytes because it belongs to the transaction layer. */
static uint32_t
nonflit_tlp_wire_bytes (const Phy *phy, const Tlp *tlp)
{
  return tlp_transaction_bytes (tlp) + phy->tlp_framing_bytes;
}

static uint32_t
nonflit_dllp_wire_bytes (const Phy *phy)
{
  return phy->dllp_bytes;
}

/* At x1..x4 the granule is the width itself, i.e. lane 0: a packet of whole DWs ends on a symbol boundary there,
 * so back-to-back packets pad nothing (§2 "pack back to back"). Wider links pad up to the next lane 4·N. */
static void
nonflit_place_packet (const Phy *phy, uint64_t base_slot, uint32_t bytes, PhyPlacement *out)
{
  out->start_slot = round_up (base_slot, phy->start_granule_lanes);
  out->pad_slots = out->start_slot - base_slot;
  out->end_slot = out->start_slot + bytes;
}

static void
nonflit_place_skp (const Phy *phy, uint64_t base_slot, PhyPlacement *out)
{
  /* The ordered set occupies all lanes from an aligned symbol (§4 "ordered sets go on all lanes at once"); at
   * 128b/130b it must begin a block, and the EDS token sits in the last DW of the data block before it, so the
   * IDL padding fills the block up to the EDS. */
  uint64_t align = (uint64_t) phy->os_align_symbols * phy->lanes;
  uint64_t os_start = round_up (base_slot + phy->eds_bytes, align);
  out->start_slot = os_start - phy->eds_bytes;
  out->pad_slots = out->start_slot - base_slot;
  out->end_slot = os_start + (uint64_t) phy->skp_symbols * phy->lanes;
}

static const PhyOps nonflit_ops = {
  .name = "non-flit",
  .tlp_wire_bytes = nonflit_tlp_wire_bytes,
  .dllp_wire_bytes = nonflit_dllp_wire_bytes,
  .place_packet = nonflit_place_packet,
  .place_skp = nonflit_place_skp,
};

gboolean
phy_init (Phy *phy, int gen, int lanes, uint32_t skp_interval_symbols, GError **error)
{
  /* Gen6 needs flit mode (pcie-protocol.md §1), which has no PhyOps table yet. */
  if (gen < 1 || gen > 5) {
    g_set_error (error, PHY_ERROR, PHY_ERROR_GEN, "PCIe generation %d not supported (1..5)", gen);
    return FALSE;
  }
  /* x12 and x32 appear in older tables, but phy_ack_limit_symbols() has AckFactor columns only for these. */
  if (lanes != 1 && lanes != 2 && lanes != 4 && lanes != 8 && lanes != 16) {
    g_set_error (error, PHY_ERROR, PHY_ERROR_LANES, "link width x%d not supported (1, 2, 4, 8, 16)", lanes);
    return FALSE;
  }
  const GenInfo *gi = &gen_info[gen];
  *phy = (Phy) { 0 };
  phy->ops = &nonflit_ops;
  phy->gen = gen;
  phy->lanes = (uint32_t) lanes;
  phy->mt_per_s = gi->mt_per_s;
  /* UI = 10^6 / MT/s ps. 8b/10b: symbol = 10 UI. 128b/130b: 8 UI per symbol plus 2 sync UI per 16-symbol
   * block, spread evenly: 8 × 130/128 UI (§1). */
  uint64_t num = gi->enc_128b130b ? UINT64_C (8000000) * 130 : UINT64_C (10000000);
  uint64_t den = gi->enc_128b130b ? (uint64_t) gi->mt_per_s * 128 : gi->mt_per_s;
  uint64_t g = gcd64 (num, den);
  phy->sym_num_ps = num / g;
  phy->sym_den = den / g;
  phy->start_granule_lanes = lanes > 4 ? LANE_GROUP : (uint32_t) lanes;
  phy->tlp_framing_bytes = TLP_FRAMING_BYTES_NONFLIT;
  phy->dllp_bytes = DLLP_BYTES_NONFLIT;
  if (gi->enc_128b130b) {
    phy->skp_interval_symbols = SKP_INTERVAL_128B130B_BLOCKS * BLOCK_SYMBOLS_128B130B;
    phy->skp_symbols = SKP_SYMBOLS_128B130B;
    phy->eds_bytes = EDS_BYTES_128B130B;
    phy->os_align_symbols = BLOCK_SYMBOLS_128B130B;
  } else {
    phy->skp_interval_symbols = SKP_INTERVAL_8B10B_SYMBOLS;
    phy->skp_symbols = SKP_SYMBOLS_8B10B;
    phy->eds_bytes = 0;
    phy->os_align_symbols = 1; /* 8b/10b has no blocks: an ordered set may start at any symbol time */
  }
  /* A configured interval overrides the spec minimum for what-if sweeps; link_params_validate() bounds it below. */
  if (skp_interval_symbols)
    phy->skp_interval_symbols = skp_interval_symbols;
  phy->internal_delay_symbols = gi->internal_delay_symbols;
  return TRUE;
}

SimTime
phy_sym_ps (const Phy *phy, uint64_t n)
{
  /* Split n so the products stay below 2^64 for any n: (q·den + r)·num/den = q·num + r·num/den. */
  uint64_t den = phy->sym_den;
  if ((den & (den - 1)) == 0) {
    /* Every generation's reduced denominator is a power of two (1 at 8b/10b, 8..32 at 128b/130b): shifts give
     * the same floors as the divisions, which cost more than the rest of the per-packet arithmetic. */
    unsigned sh = (unsigned) __builtin_ctzll (den);
    return (n >> sh) * phy->sym_num_ps + (((n & (den - 1)) * phy->sym_num_ps) >> sh);
  }
  uint64_t q = n / den, r = n % den;
  return q * phy->sym_num_ps + r * phy->sym_num_ps / den;
}

uint64_t
phy_sym_at_or_after (const Phy *phy, SimTime t)
{
  /* The least n with floor(n·num/den) >= t is ceil(t·den/num), as t is whole; split t = q·num + r so nothing
   * overflows (r·den < num·den, a few hundred thousand). */
  uint64_t num = phy->sym_num_ps, den = phy->sym_den;
  uint64_t q = t / num, r = t % num;
  return q * den + (r * den + num - 1) / num;
}

uint32_t
phy_ack_limit_symbols (const Phy *phy, uint32_t max_payload_bytes)
{
  /* pcie-protocol.md §3 AckFactor table, ×10 to stay integral; columns x1 x2 x4 x8 x16. The spec tables
   * truncate the product, which integer division reproduces (e.g. Gen3 x1 MPS 256: 284·1.4 + 115 → 512).
   * MPS is a power of two (link_params_validate()), so "<= 256" and ">= 512" are the only two rows. */
  static const uint32_t factor_small_x10[] = { 14, 14, 14, 25, 30 }; /* MPS <= 256 */
  static const uint32_t factor_large_x10[] = { 10, 10, 10, 10, 20 }; /* MPS >= 512 */
  unsigned col = phy->lanes == 1 ? 0 : phy->lanes == 2 ? 1 : phy->lanes == 4 ? 2 : phy->lanes == 8 ? 3 : 4;
  uint32_t f = max_payload_bytes <= 256 ? factor_small_x10[col] : factor_large_x10[col];
  return (max_payload_bytes + 28) * f / (10 * phy->lanes) + phy->internal_delay_symbols;
}

double
phy_wire_mbps (const Phy *phy)
{
  return (double) phy->lanes * 1e6 * (double) phy->sym_den / (double) phy->sym_num_ps;
}
