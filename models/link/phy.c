/* phy.c — generation tables, exact symbol-time arithmetic, and the non-flit framing/placement ops. */
#include "models/link/phy.h"

#include <math.h>

/* Per-generation facts, pcie-protocol.md §1 (spec Table 1-1), §3 (InternalDelay) and §4 (SKP). */
typedef enum { ENC_8B10B, ENC_128B130B, ENC_1B1B } Encoding;
typedef struct {
  uint32_t mt_per_s; /* per lane; 1 GT/s = 1000 MT/s, one unit interval (UI) per transfer */
  Encoding enc; /* 128b/130b also brings EDS tokens and block-aligned ordered sets; 1b/1b is Gen6 PAM4 */
  uint32_t internal_delay_symbols; /* §3: 19 at 2.5 GT/s, 70 at 5 GT/s, 115 at >= 8 GT/s */
} GenInfo;

/* Gen6: 64 GT/s PAM4 carries 8 bits per lane in 0.125 ns with no encoding overhead (§1, "1b/1b"), so it is
 * entered as 64000 MT/s of one bit each; the ">= 8 GT/s" InternalDelay applies. */
static const GenInfo gen_info[] = {
  [1] = { 2500, ENC_8B10B, 19 },
  [2] = { 5000, ENC_8B10B, 70 },
  [3] = { 8000, ENC_128B130B, 115 },
  [4] = { 16000, ENC_128B130B, 115 },
  [5] = { 32000, ENC_128B130B, 115 },
  [6] = { 64000, ENC_1B1B, 115 },
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
/* §4 (spec §4.2.8, Table 4-30): flit mode sends a SKP ordered set after a fixed number of flits, by width
 * (x1, x2, x4, x8, x16); 16 symbols at 128b/130b, 40 at 64 GT/s. */
static const uint32_t skp_flits_128b130b[] = { 23, 46, 93, 187, 374 };
static const uint32_t skp_flits_1b1b[] = { 46, 93, 187, 374, 748 };
#define SKP_SYMBOLS_1B1B 40u
/* §4 SRIS (separate reference clocks, spec §4.2.8): a SKP at least every 154 symbols at 8b/10b and every 37
 * blocks at 128b/130b, a tenth of the common-clock interval (1538 symbols, 370 blocks). ASSUMPTION (no figure in
 * our reference): flit mode with SRIS sends SKPs ten times as often as with a common clock too. */
#define SRIS_INTERVAL_8B10B_SYMBOLS 154u
#define SRIS_INTERVAL_128B130B_BLOCKS 37u
#define SRIS_FLIT_DIVISOR 10u
/* ASSUMPTION: flit mode at 2.5/5 GT/s (8b/10b) keeps the 8b/10b SKP (4 symbols) and its intervals, in whole
 * flits inside the spec's bounds (the reference gives flit-mode counts for 128b/130b and 64 GT/s only): with a
 * common clock the fewest flits that reach 1180 symbol times (1184-1280 by width, within the 1538 maximum), with
 * SRIS the most that stay within 154 (none at x1, whose flit lasts 256 symbol times: refused). */
/* pcie-protocol.md §10, the flit error model (phy_flit_error_prob()). ASSUMPTION: an error event corrupts 2
 * consecutive bytes of its lane (decision-feedback equalisers propagate an error into the next few UI; plausible
 * 1-3 bytes; the closed form below is written for 2, so it is a constant of the model, not a key), and a
 * fraction of events, link.flit_error_lane_correlation (default 1%, ASSUMPTION 0.1%-3%, its range as data in
 * app/config/config_values.c: common-mode noise, a power or reference-clock disturbance), hit the same bytes on every
 * lane. With these, a first-bit error
 * rate of 10^-6 at 64 GT/s x16 loses 2.25 × 10^-5 flits after FEC, where independent bit errors gave 7 × 10^-7,
 * forty times fewer: above PCI-SIG's quoted retry probability below 10^-5 (§10, UNCONFIRMED). */
#define FLIT_ERR_BURST_BYTES 2u

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

/* log2 (x) for a power of two, else -1 (Phy.sym_den_shift). */
static int
power_of_two_log (uint64_t x)
{
  return (x & (x - 1)) == 0 ? __builtin_ctzll (x) : -1;
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

static void
nonflit_place_packet (const Phy *phy, uint64_t base_slot, uint32_t bytes, PhyPlacement *out)
{
  phy_nonflit_place_packet (phy, base_slot, bytes, out);
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

/* ---- flit mode ---- */

/* A flit-mode TLP carries no STP, sequence number or LCRC (§2): its header (3 DW base for 32-bit requests and
 * completions, 4 DW for 64-bit), ECRC if enabled, and payload. ASSUMPTION: no orthogonal header content (OHC),
 * which flit-mode requests need only for byte enables other than all-ones and completions only for other than
 * successful status (spec §2.2.1.2); the models' TLPs are whole-DW, successful transfers. */
static uint32_t
flit_tlp_wire_bytes (const Phy *phy, const Tlp *tlp)
{
  (void) phy;
  return tlp_transaction_bytes (tlp);
}

/* Ack/Nak and one other DLLP per flit ride in the DLP bytes (§3): no wire bytes of their own. */
static uint32_t
flit_dllp_wire_bytes (const Phy *phy)
{
  (void) phy;
  return 0;
}

uint64_t
phy_flit_start (const Phy *phy, uint64_t k)
{
  return k / phy->skp_flits * phy->group_slots + k % phy->skp_flits * PHY_FLIT_BYTES;
}

/* The flit whose TLP bytes hold `slot`, with the offset into them; a slot past a flit's TLP bytes or in a SKP
 * moves to the start of the next flit. */
static uint64_t
flit_locate (const Phy *phy, uint64_t slot, uint32_t *off)
{
  uint64_t g = slot / phy->group_slots, r = slot % phy->group_slots;
  uint64_t k;
  if (r < (uint64_t) phy->skp_flits * PHY_FLIT_BYTES) {
    k = g * phy->skp_flits + r / PHY_FLIT_BYTES;
    *off = (uint32_t) (r % PHY_FLIT_BYTES);
    if (*off < PHY_FLIT_TLP_BYTES)
      return k;
    k++;
  } else {
    k = (g + 1) * phy->skp_flits;
  }
  *off = 0;
  return k;
}

uint64_t
phy_flit_dlp_at_or_after (const Phy *phy, uint64_t slot)
{
  uint64_t g = slot / phy->group_slots, r = slot % phy->group_slots;
  if (r >= (uint64_t) phy->skp_flits * PHY_FLIT_BYTES)
    return (g + 1) * phy->skp_flits; /* in a SKP: the next flit */
  uint64_t k = g * phy->skp_flits + r / PHY_FLIT_BYTES;
  return r % PHY_FLIT_BYTES <= PHY_FLIT_TLP_BYTES ? k : k + 1;
}

uint64_t
phy_flit_skps_between (const Phy *phy, uint64_t from, uint64_t to)
{
  /* SKP j >= 1 starts at j · group_slots - its own length. */
  uint64_t skp_slots = phy->group_slots - (uint64_t) phy->skp_flits * PHY_FLIT_BYTES;
  if (to <= from)
    return 0;
  /* Count j with from <= j·G - s < to, i.e. (from + s) / G rounded up .. (to - 1 + s) / G. */
  uint64_t lo = (from + skp_slots + phy->group_slots - 1) / phy->group_slots;
  uint64_t hi = (to - 1 + skp_slots) / phy->group_slots;
  lo = MAX (lo, 1);
  return hi >= lo ? hi - lo + 1 : 0;
}

static void
flit_place_packet (const Phy *phy, uint64_t base_slot, uint32_t bytes, PhyPlacement *out)
{
  uint32_t off;
  uint64_t k = flit_locate (phy, base_slot, &off);
  out->first_flit = k;
  out->start_slot = phy_flit_start (phy, k) + off;
  out->pad_slots = out->start_slot - base_slot;
  uint32_t room = PHY_FLIT_TLP_BYTES - off;
  uint64_t last_off;
  if (bytes <= room) {
    last_off = off + bytes;
  } else {
    uint64_t rest = bytes - room, more = (rest + PHY_FLIT_TLP_BYTES - 1) / PHY_FLIT_TLP_BYTES;
    k += more;
    last_off = rest - (more - 1) * PHY_FLIT_TLP_BYTES;
  }
  out->last_flit = k;
  out->end_slot = phy_flit_start (phy, k) + last_off;
  out->avail_slot = phy_flit_start (phy, k) + PHY_FLIT_BYTES;
}

/* Never called: flit-mode SKPs are part of the grid (phy_flit_start), not placed between packets. */
static void
flit_place_skp (const Phy *phy, uint64_t base_slot, PhyPlacement *out)
{
  (void) phy;
  *out = (PhyPlacement) { .start_slot = base_slot, .end_slot = base_slot, .avail_slot = base_slot };
}

static const PhyOps flit_ops = {
  .name = "flit",
  .tlp_wire_bytes = flit_tlp_wire_bytes,
  .dllp_wire_bytes = flit_dllp_wire_bytes,
  .place_packet = flit_place_packet,
  .place_skp = flit_place_skp,
};

double
phy_flit_error_prob (const Phy *phy, double ber, double lane_correlation)
{
  if (ber <= 0)
    return 0;
  /* Error events (pcie-protocol.md §10): a first bit error at each line bit with probability `ber` (10 line bits
   * per byte at 8b/10b, 8 otherwise) starts an event; over a flit's 256 bytes their number is Poisson with mean
   * lambda (-log (1 - ber) per bit, exact for tiny rates). Each event corrupts FLIT_ERR_BURST_BYTES consecutive
   * bytes of its lane, and with probability `lane_correlation` (link.flit_error_lane_correlation) the same bytes
   * of every lane.
   * FEC (spec §4.2.3.3, at every rate in flit mode, §4.2.1): byte i of the flit belongs to code i mod 3, each
   * code corrects one byte. A lane's consecutive bytes are `lanes` apart, which is never a multiple of 3 (x1-x16),
   * so a one-lane burst of 2 bytes hits two different codes: corrected alone, but it shares a code with any
   * other event's burst. A burst on every lane of a x2 or wider link puts 4 or more bytes into 3 codes: never
   * corrected. So a flit survives with no event, or with one that stays on its lane:
   *   P(lost) = 1 - exp (-lambda) (1 + lambda (1 - c)),  c = the lane correlation (x1: 0).
   * What FEC misses the CRC catches (its escape rate is far below any retry rate here). */
  G_STATIC_ASSERT (FLIT_ERR_BURST_BYTES == 2); /* the closed form above */
  double bits_per_byte = phy->mt_per_s <= 5000 ? 10.0 : 8.0;
  double lambda = -(double) PHY_FLIT_BYTES * bits_per_byte * log1p (-ber);
  double c = phy->lanes > 1 ? lane_correlation : 0.0;
  return -expm1 (-lambda) - exp (-lambda) * lambda * (1.0 - c);
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
  return phy_init_mode (phy, gen, lanes, gen == 6, FALSE, skp_interval_symbols, error);
}

static unsigned
width_index (uint32_t lanes)
{
  return lanes == 1 ? 0 : lanes == 2 ? 1 : lanes == 4 ? 2 : lanes == 8 ? 3 : 4;
}

gboolean
phy_init_mode (Phy *phy, int gen, int lanes, gboolean flit, gboolean sris, uint32_t skp_interval_symbols,
               GError **error)
{
  if (gen < 1 || gen > 6) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "PCIe generation %d not supported (1..6)", gen);
    return FALSE;
  }
  /* x12 and x32 are in the spec's tables up to r5 (Table 3-12 has their AckFactor columns); r6's flit mode
   * defines only x1..x16, its flit-to-lane striping and SKP counts having no x12/x32 entries. */
  if (lanes != 1 && lanes != 2 && lanes != 4 && lanes != 8 && lanes != 12 && lanes != 16 && lanes != 32) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "link width x%d not supported (1, 2, 4, 8, 12, 16, 32)", lanes);
    return FALSE;
  }
  /* Gen6 has no non-flit mode (§1). */
  flit = flit || gen == 6;
  if (flit && (lanes == 12 || lanes == 32)) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "link width x%d is not defined in flit mode (x1..x16)", lanes);
    return FALSE;
  }
  const GenInfo *gi = &gen_info[gen];
  *phy = (Phy) { 0 };
  phy->ops = flit ? &flit_ops : &nonflit_ops;
  phy->gen = gen;
  phy->lanes = (uint32_t) lanes;
  phy->flit = flit;
  phy->mt_per_s = gi->mt_per_s;
  /* UI = 10^6 / MT/s ps. 8b/10b: symbol = 10 UI. 128b/130b: 8 UI per symbol plus 2 sync UI per 16-symbol
   * block, spread evenly: 8 × 130/128 UI (§1). 1b/1b: 8 UI. */
  uint64_t num = gi->enc == ENC_128B130B ? UINT64_C (8000000) * 130
                 : gi->enc == ENC_8B10B ? UINT64_C (10000000) : UINT64_C (8000000);
  uint64_t den = gi->enc == ENC_128B130B ? (uint64_t) gi->mt_per_s * 128 : gi->mt_per_s;
  uint64_t g = gcd64 (num, den);
  phy->sym_num_ps = num / g;
  phy->sym_den = den / g;
  phy->sym_den_shift = power_of_two_log (phy->sym_den);
  phy->slot_den_shift = power_of_two_log (phy->sym_den * phy->lanes);
  phy->start_granule_lanes = lanes > 4 ? LANE_GROUP : (uint32_t) lanes;
  phy->tlp_framing_bytes = flit ? 0 : TLP_FRAMING_BYTES_NONFLIT;
  phy->dllp_bytes = flit ? 0 : DLLP_BYTES_NONFLIT;
  if (gi->enc != ENC_8B10B) {
    phy->skp_interval_symbols = (sris ? SRIS_INTERVAL_128B130B_BLOCKS : SKP_INTERVAL_128B130B_BLOCKS)
                                * BLOCK_SYMBOLS_128B130B;
    phy->skp_symbols = gi->enc == ENC_1B1B ? SKP_SYMBOLS_1B1B : SKP_SYMBOLS_128B130B;
    phy->eds_bytes = flit ? 0 : EDS_BYTES_128B130B; /* flit mode has no framing tokens */
    phy->os_align_symbols = BLOCK_SYMBOLS_128B130B;
  } else {
    phy->skp_interval_symbols = sris ? SRIS_INTERVAL_8B10B_SYMBOLS : SKP_INTERVAL_8B10B_SYMBOLS;
    phy->skp_symbols = SKP_SYMBOLS_8B10B;
    phy->eds_bytes = 0;
    phy->os_align_symbols = 1; /* 8b/10b has no blocks: an ordered set may start at any symbol time */
  }
  /* A configured interval overrides the spec minimum for what-if sweeps; link_params_validate() bounds it below. */
  if (skp_interval_symbols)
    phy->skp_interval_symbols = skp_interval_symbols;
  if (flit) {
    uint32_t flit_symbols = PHY_FLIT_BYTES / phy->lanes;
    if (skp_interval_symbols)
      phy->skp_flits = phy->skp_interval_symbols / flit_symbols;
    else if (gi->enc == ENC_8B10B && sris)
      phy->skp_flits = SRIS_INTERVAL_8B10B_SYMBOLS / flit_symbols;
    else if (gi->enc == ENC_8B10B)
      phy->skp_flits = (SKP_INTERVAL_8B10B_SYMBOLS + flit_symbols - 1) / flit_symbols;
    else
      phy->skp_flits = (gi->enc == ENC_1B1B ? skp_flits_1b1b : skp_flits_128b130b)[width_index (phy->lanes)]
                       / (sris ? SRIS_FLIT_DIVISOR : 1);
    if (phy->skp_flits == 0 && !skp_interval_symbols) {
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "flit mode with SRIS at %u MT/s needs x2 or wider: a x%d "
                   "flit lasts %u symbol times, beyond the %u between SKP ordered sets that SRIS allows",
                   gi->mt_per_s, lanes, flit_symbols, SRIS_INTERVAL_8B10B_SYMBOLS);
      return FALSE;
    }
    phy->skp_flits = MAX (phy->skp_flits, 1);
    phy->skp_interval_symbols = phy->skp_flits * flit_symbols;
    phy->group_slots = (uint64_t) phy->skp_flits * PHY_FLIT_BYTES + (uint64_t) phy->skp_symbols * phy->lanes;
  }
  phy->internal_delay_symbols = gi->internal_delay_symbols;
  return TRUE;
}

uint32_t
phy_ack_limit_symbols (const Phy *phy, uint32_t max_payload_bytes)
{
  /* pcie-protocol.md §3 AckFactor table, ×10 to stay integral; columns x1 x2 x4 x8 x12 x16 x32. The spec tables
   * truncate the product, which integer division reproduces (e.g. Gen3 x1 MPS 256: 284·1.4 + 115 → 512).
   * MPS is a power of two (link_params_validate()), so "<= 256" and ">= 512" are the only two rows.
   * ASSUMPTION: flit mode keeps these limits (its Ack/Nak ride in the flits' DLP bytes at no wire cost). */
  static const uint32_t factor_small_x10[] = { 14, 14, 14, 25, 30, 30, 30 }; /* MPS <= 256 */
  static const uint32_t factor_large_x10[] = { 10, 10, 10, 10, 20, 20, 20 }; /* MPS >= 512 */
  uint32_t w = phy->lanes;
  unsigned col = w == 1 ? 0 : w == 2 ? 1 : w == 4 ? 2 : w == 8 ? 3 : w == 12 ? 4 : w == 16 ? 5 : 6;
  uint32_t f = max_payload_bytes <= 256 ? factor_small_x10[col] : factor_large_x10[col];
  return (max_payload_bytes + 28) * f / (10 * phy->lanes) + phy->internal_delay_symbols;
}

double
phy_wire_mbps (const Phy *phy)
{
  return (double) phy->lanes * 1e6 * (double) phy->sym_den / (double) phy->sym_num_ps;
}
