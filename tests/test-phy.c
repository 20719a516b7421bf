/* test-phy.c — symbol timing, Ack limits, lane placement and the analytic limits, each against a figure worked
 * out by hand from pcie-protocol.md (the arithmetic is in the test, not copied from the code). */
#include <check.h>
#include <math.h>

#include "models/link/link.h"
#include "models/link/phy.h"

/* ---- symbol times (§1) ---- */

typedef struct {
  int gen;
  uint64_t n;
  SimTime want_ps;
} SymCase;

/* Gen1 symbol = 10 UI × 400 ps; Gen2 10 × 200 ps. 128b/130b: a 16-symbol block is 130 UI, UI = 125 / 62.5 /
 * 31.25 ps for Gen3/4/5, so 16 symbols = 16250 / 8125 / 4062.5 ps. */
static const SymCase sym_cases[] = {
  { 1, 1, 4000 },
  { 2, 1, 2000 },
  { 3, 16, 130 * 125 },
  { 4, 16, 8125 },
  { 4, 2, 8125 / 8 }, /* 1015.625 -> floor */
  { 5, 16, 4062 }, /* 4062.5 -> floor */
  { 5, 32, 8125 },
  /* No drift after 10^10 symbols: 10^10 / 16 blocks × 130 UI × 31.25 ps. */
  { 5, UINT64_C (10000000000), UINT64_C (10000000000) / 16 * 4062 + UINT64_C (10000000000) / 16 / 2 },
  { 3, UINT64_C (16000000000), UINT64_C (1000000000) * 16250 },
};

START_TEST (test_symbol_time)
{
  const SymCase *c = &sym_cases[_i];
  Phy phy;
  ck_assert (phy_init (&phy, c->gen, 1, 0, NULL));
  SimTime got = phy_sym_ps (&phy, c->n);
  ck_assert_msg (got == c->want_ps, "case %d: Gen%d sym %" G_GUINT64_FORMAT " -> %" G_GUINT64_FORMAT " ps", _i, c->gen,
                 c->n, got);
  /* The inverse finds the boundary itself, and the next one for a time just after it. */
  ck_assert_msg (phy_sym_at_or_after (&phy, got) <= c->n, "case %d inverse", _i);
  ck_assert_msg (phy_sym_at_or_after (&phy, got + 1) == c->n + 1 || phy_sym_ps (&phy, c->n + 1) == got,
                 "case %d inverse+1", _i);
}
END_TEST

/* ---- Ack latency limit (§3, spec Table 3-12) ---- */

typedef struct {
  int gen, lanes;
  uint32_t mps, want;
} AckCase;

static const AckCase ack_cases[] = {
  /* Table 3-12 at >= 8 GT/s, copied from pcie-protocol.md §3. */
  { 3, 1, 128, 333 },
  { 3, 2, 128, 224 },
  { 3, 4, 128, 169 },
  { 3, 8, 128, 163 },
  { 3, 16, 128, 144 },
  { 3, 1, 256, 512 },
  { 3, 8, 256, 203 },
  { 4, 16, 256, 168 },
  { 3, 4, 512, 250 },
  { 3, 8, 512, 182 },
  { 5, 16, 1024, 246 },
  { 3, 2, 2048, 1153 },
  { 3, 1, 4096, 4239 },
  /* The x12 and x32 columns. */
  { 3, 12, 128, 154 },
  { 3, 32, 128, 129 },
  { 4, 12, 512, 205 },
  { 5, 32, 1024, 180 },
  { 3, 12, 4096, 802 },
  { 3, 32, 2048, 244 },
  /* §3: at 2.5 GT/s subtract 96, at 5 GT/s subtract 45. */
  { 1, 8, 256, 203 - 96 },
  { 1, 1, 128, 333 - 96 },
  { 2, 4, 256, 214 - 45 },
  { 2, 4, 512, 250 - 45 },
};

START_TEST (test_ack_limit)
{
  const AckCase *c = &ack_cases[_i];
  Phy phy;
  ck_assert (phy_init (&phy, c->gen, c->lanes, 0, NULL));
  uint32_t got = phy_ack_limit_symbols (&phy, c->mps);
  ck_assert_msg (got == c->want, "case %d: Gen%d x%d MPS %u: %u, want %u", _i, c->gen, c->lanes, c->mps, got, c->want);
}
END_TEST

/* ---- lane placement (§2) and SKP/EDS placement (§4) ---- */

typedef struct {
  const char *id;
  int gen, lanes;
  gboolean skp;
  uint64_t base;
  uint32_t bytes;
  uint64_t want_start, want_end, want_pad;
} PlaceCase;

static const PlaceCase place_cases[] = {
  /* x8: 276 bytes = 69 four-lane groups: symbol 34 ends in lane 3, the next packet starts in lane 4. */
  { "x8 first", 1, 8, FALSE, 0, 276, 0, 276, 0 },
  { "x8 back to back", 1, 8, FALSE, 276, 276, 276, 552, 0 },
  /* A DW-multiple packet never pads behind another one: x16 groups are 4 lanes too. */
  { "x16 lane 4", 2, 16, FALSE, 20, 24, 20, 44, 0 },
  /* x4 and narrower start in lane 0; every packet is a DW multiple so no pad. */
  { "x4", 2, 4, FALSE, 280, 8, 280, 288, 0 },
  /* Gen1 x8 SKP after a packet ending in lane 3: pad lanes 4..7 (4 slots), then 4 symbols × 8 lanes. */
  { "g1 x8 skp", 1, 8, TRUE, 276, 0, 280, 280 + 32, 4 },
  { "g1 x1 skp", 1, 1, TRUE, 276, 0, 276, 280, 0 },
  /* Gen3 x8: the OS begins a 16-symbol block (128 slots): next block at 384; EDS in slots 380..383 (last DW of
   * the block), IDL from 276 to 380 = 104 slots, OS = 16 × 8 slots. */
  { "g3 x8 skp", 3, 8, TRUE, 276, 0, 380, 384 + 128, 104 },
  /* Gen3 x1: 276 + 4 EDS = 280 -> block boundary 288; EDS at 284, pad 8, OS 16 symbols. */
  { "g3 x1 skp", 3, 1, TRUE, 276, 0, 284, 288 + 16, 8 },
  /* Gen4 x4 exactly at a block end minus one DW: no pad. */
  { "g4 x4 skp", 4, 4, TRUE, 60, 0, 60, 64 + 64, 0 },
};

START_TEST (test_placement)
{
  const PlaceCase *c = &place_cases[_i];
  Phy phy;
  ck_assert (phy_init (&phy, c->gen, c->lanes, 0, NULL));
  PhyPlacement pl;
  if (c->skp)
    phy.ops->place_skp (&phy, c->base, &pl);
  else
    phy.ops->place_packet (&phy, c->base, c->bytes, &pl);
  ck_assert_msg (pl.start_slot == c->want_start && pl.end_slot == c->want_end && pl.pad_slots == c->want_pad,
                 "%s: start %" G_GUINT64_FORMAT " end %" G_GUINT64_FORMAT " pad %" G_GUINT64_FORMAT, c->id,
                 pl.start_slot, pl.end_slot, pl.pad_slots);
}
END_TEST

/* ---- published theoretical maximum (published-calibration.md §1) ---- */

typedef struct {
  int gen, lanes;
  double published;
} TheoCase;

static const TheoCase theo_cases[] = {
  { 2, 8, 3710 }, { 2, 4, 1855 }, { 1, 4, 927 }, { 2, 1, 463 }, { 1, 1, 231 }, { 3, 4, 3710 }, { 1, 8, 1855 },
};

START_TEST (test_theoretical)
{
  const TheoCase *c = &theo_cases[_i];
  double lane = c->gen == 1 ? 250.0 : c->gen == 2 ? 500.0 : 1000.0; /* §1: per lane after 8b/10b */
  double formula = c->lanes * lane * 256.0 / (256.0 + 20.0);
  double got = link_theoretical_mbps (c->gen, c->lanes, 256);
  ck_assert_msg (fabs (got - formula) < 0.5, "case %d: %.3f vs formula %.3f", _i, got, formula);
  /* The application note truncates: 927.5 is printed 927. */
  ck_assert_msg (got >= c->published && got < c->published + 1, "case %d: %.3f vs published %.0f", _i, got,
                 c->published);
}
END_TEST

/* Flit mode's naive bound (issue #26: no per-TLP framing there), by hand: Gen6 x16 is 16 x 8000 MB/s, 236 of each
 * flit's 256 bytes carry TLPs, and a 256-byte MWr adds a 12-byte header: 128000 x 0.921875 x 256 / 268 = 112716.4;
 * Gen5 x16 in flit mode half that, 56358.2. */
START_TEST (test_theoretical_flit)
{
  ck_assert_double_eq_tol (link_theoretical_flit_mbps (6, 16, 256), 112716.4, 0.05);
  ck_assert_double_eq_tol (link_theoretical_flit_mbps (5, 16, 256), 56358.2, 0.05);
}
END_TEST

/* ---- protocol limit ---- */

typedef struct {
  int gen, lanes;
  uint32_t mps;
} LimitCase;

static const LimitCase limit_cases[] = { { 1, 1, 256 }, { 2, 8, 256 }, { 3, 8, 256 }, { 4, 16, 512 }, { 5, 1, 128 } };

START_TEST (test_protocol_limit)
{
  const LimitCase *c = &limit_cases[_i];
  LinkParams p = { .gen = c->gen, .lanes = c->lanes, .max_payload_bytes = c->mps };
  double gts = c->gen == 1 ? 2.5 : c->gen == 2 ? 5 : c->gen == 3 ? 8 : c->gen == 4 ? 16 : 32;
  gboolean b128 = c->gen >= 3;
  /* Raw lane rate in MB/s = GT/s × 1000 / 8 bits, times the encoding (§1). */
  double wire = c->lanes * gts * 1000.0 / 8.0 * (b128 ? 128.0 / 130.0 : 8.0 / 10.0);
  /* §4: 4 symbols every 1180 (8b/10b); 16 symbols + a 4-byte EDS every 370 × 16 symbols (128b/130b). */
  double skp = b128 ? (16.0 + 4.0 / c->lanes) / (370.0 * 16.0) : 4.0 / 1180.0;
  /* §2: 8 bytes of framing, and a 3-DW (CplD, MWr with a 32-bit address) or 4-DW (MWr with a 64-bit address)
   * header: 20 or 24 bytes beside the payload. */
  for (uint32_t hdr = 12; hdr <= 16; hdr += 4) {
    double want = wire * (1 - skp) * c->mps / (c->mps + hdr + 8.0);
    double got = link_protocol_limit_mbps (&p, hdr);
    ck_assert_msg (fabs (got - want) < 1e-6 * want, "case %d, %u-byte header: %.4f vs %.4f", _i, hdr, got, want);
    ck_assert_msg (got < link_theoretical_mbps (c->gen, c->lanes, c->mps) + 1e-9, "case %d above theoretical", _i);
  }
  /* Issue #12 item 2, worked by hand for Gen2 x8, MPS 256 with 64-bit addresses: 4000 MB/s of symbols,
   * 4 SKP symbols in every 1180, 256 of every 280 bytes payload: 4000 x 1176/1180 x 256/280 = 3644.746. */
  LinkParams g2 = { .gen = 2, .lanes = 8, .max_payload_bytes = 256 };
  ck_assert (fabs (link_protocol_limit_mbps (&g2, 16) - 3644.746) < 0.001);
}
END_TEST

/* Flit-mode SKP spacing inside the spec's bounds (pcie-protocol.md §4), in symbol times of flits between two
 * ordered sets: 8b/10b 1180-1538 with a common clock, at most 154 with SRIS (a x1 flit, 256, cannot: refused);
 * 128b/130b with SRIS at most 37 blocks of 16. */
START_TEST (test_flit_skp_bounds)
{
  static const int widths[] = { 1, 2, 4, 8, 16 };
  for (guint w = 0; w < G_N_ELEMENTS (widths); w++) {
    int lanes = widths[w];
    Phy phy;
    for (int gen = 1; gen <= 2; gen++) {
      ck_assert (phy_init_mode (&phy, gen, lanes, TRUE, FALSE, 0, NULL));
      ck_assert_msg (phy.skp_interval_symbols >= 1180 && phy.skp_interval_symbols <= 1538, "Gen%d x%d: %u", gen,
                     lanes, phy.skp_interval_symbols);
      g_autoptr (GError) err = NULL;
      gboolean ok = phy_init_mode (&phy, gen, lanes, TRUE, TRUE, 0, &err);
      ck_assert_msg (ok == (lanes > 1), "Gen%d x%d SRIS: %s", gen, lanes, err ? err->message : "accepted");
      ck_assert_msg (!ok || phy.skp_interval_symbols <= 154, "Gen%d x%d SRIS: %u", gen, lanes,
                     phy.skp_interval_symbols);
    }
    ck_assert (phy_init_mode (&phy, 4, lanes, TRUE, TRUE, 0, NULL));
    ck_assert_msg (phy.skp_interval_symbols <= 37 * 16, "Gen4 x%d SRIS: %u", lanes, phy.skp_interval_symbols);
  }
}
END_TEST

START_TEST (test_bad_params)
{
  Phy phy;
  GError *err = NULL;
  ck_assert (!phy_init (&phy, 7, 4, 0, &err));
  g_clear_error (&err);
  ck_assert (!phy_init (&phy, 3, 3, 0, &err));
  g_clear_error (&err);
  /* x12 and x32 exist without flit mode only (r6 defines flit mode for x1..x16); Gen6 is always flit mode. */
  ck_assert (phy_init (&phy, 3, 12, 0, NULL) && phy_init (&phy, 5, 32, 0, NULL));
  ck_assert (!phy_init_mode (&phy, 5, 32, TRUE, FALSE, 0, &err));
  g_clear_error (&err);
  ck_assert (!phy_init (&phy, 6, 12, 0, &err));
  g_clear_error (&err);
  ck_assert (phy_init (&phy, 6, 16, 0, NULL) && phy.flit);
  LinkParams p = { .gen = 3, .lanes = 4, .max_payload_bytes = 384 };
  ck_assert (!link_params_validate (&p, &err));
  g_clear_error (&err);
  p.max_payload_bytes = 256;
  p.updatefc_period_ps = 31 * SIM_US;
  ck_assert (!link_params_validate (&p, &err));
  g_clear_error (&err);
  p.updatefc_period_ps = 0;
  ck_assert (link_params_validate (&p, &err));
  p.skp_interval_symbols = 40; /* < 2 × (16 + 16) at 128b/130b */
  ck_assert (!link_params_validate (&p, &err));
  g_clear_error (&err);
  p.skp_interval_symbols = 0;
  p.replay_buffer_bytes = 256 + 12 + 8 - 1; /* one byte short of a max-payload TLP */
  ck_assert (!link_params_validate (&p, &err));
  g_clear_error (&err);
}
END_TEST

/* The flit error model (pcie-protocol.md §10), by hand: lambda = 256 bytes × line bits per byte × BER error events
 * per flit; a flit is lost unless it has none, or one that stays on its lane (99%; on x1 every event does):
 * 1 - e^-lambda (1 + (1 - c) lambda). FEC corrects at every rate, 8b/10b counting 10 line bits per byte. */
typedef struct {
  int gen, lanes;
  double ber, bits, c;
} FecCase;

static const FecCase fec_cases[] = {
  { 6, 16, 1e-6, 8, 0.01 }, { 6, 1, 1e-6, 8, 0 }, { 4, 8, 1e-5, 8, 0.01 }, { 1, 4, 1e-5, 10, 0.01 },
};

START_TEST (test_flit_error_prob)
{
  const FecCase *c = &fec_cases[_i];
  Phy phy;
  ck_assert (phy_init_mode (&phy, c->gen, c->lanes, TRUE, FALSE, 0, NULL));
  double lambda = 256 * c->bits * c->ber;
  double want = 1 - exp (-lambda) * (1 + (1 - c->c) * lambda);
  double got = phy_flit_error_prob (&phy, c->ber, 0.01);
  ck_assert_msg (fabs (got - want) < 1e-3 * want, "case %d: %.4g, want %.4g", _i, got, want);
  /* The spec's design point: below 3 × 10^-5 flits retried at a first-bit error rate of 10^-6. */
  if (_i == 0)
    ck_assert (got < 3e-5 && got > 2e-5);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("phy");
  TCase *tc = tcase_create ("phy");
  tcase_add_loop_test (tc, test_symbol_time, 0, G_N_ELEMENTS (sym_cases));
  tcase_add_loop_test (tc, test_ack_limit, 0, G_N_ELEMENTS (ack_cases));
  tcase_add_loop_test (tc, test_placement, 0, G_N_ELEMENTS (place_cases));
  tcase_add_test (tc, test_theoretical_flit);
  tcase_add_loop_test (tc, test_theoretical, 0, G_N_ELEMENTS (theo_cases));
  tcase_add_loop_test (tc, test_protocol_limit, 0, G_N_ELEMENTS (limit_cases));
  tcase_add_test (tc, test_flit_skp_bounds);
  tcase_add_test (tc, test_bad_params);
  tcase_add_loop_test (tc, test_flit_error_prob, 0, G_N_ELEMENTS (fec_cases));
  suite_add_tcase (s, tc);
  SRunner *r = srunner_create (s);
  /* CK_ENV so meson's CK_VERBOSITY=silent keeps stdout pure TAP. */
  srunner_run_all (r, CK_ENV);
  srunner_free (r);
  return 0;
}
