/* test-avst.c — beats a TLP occupies on the Avalon-ST application interface (avst.h).
 *
 * Expected counts come from the Altera tx_st_data cycle-definition tables cited in avst.h for 64 and 128 bits,
 * from pcie-protocol.md §7 for the 256-bit header-own-beat layout, and for 512 bits from avst.h's rule worked by
 * hand (each case's comment shows the slots). */
#include <check.h>

#include "models/devices/avst.h"
#include "tests/common.h"

/* Beat counts from the Altera tx_st_data cycle-definition tables (avst.h). Case: width, header bytes, address,
 * payload, expected beats. */
static const struct {
  uint32_t width, hdr;
  uint64_t addr;
  uint32_t payload;
  gboolean own;
  uint32_t beats;
} beat_cases[] = {
  { 64, 12, 0x1000, 256, FALSE, 34 }, /* H1H0 | --H2 | 32 data beats */
  { 64, 12, 0x1004, 256, FALSE, 34 }, /* H1H0 | D0H2 | 31.5 data beats -> ceil(67/2) */
  { 64, 16, 0x1000, 256, FALSE, 34 }, /* H1H0 | H3H2 | 32 */
  { 64, 16, 0x1004, 256, FALSE, 35 }, /* H1H0 | H3H2 | D0-- | ... ceil(69/2) */
  { 64, 12, 0x1000, 0, FALSE, 2 }, /* MRd 3 DW */
  { 64, 16, 0x1000, 0, FALSE, 2 }, /* MRd 4 DW */
  { 64, 12, 0x100C, 4, FALSE, 2 }, /* status write, odd DW: D0 shares the 2nd header beat */
  { 128, 12, 0x1000, 256, FALSE, 17 },
  { 128, 12, 0x1004, 256, FALSE, 17 }, /* ceil(67/4) */
  { 128, 16, 0x1004, 256, FALSE, 18 }, /* ceil(69/4) */
  { 128, 12, 0x1000, 0, FALSE, 1 },
  { 128, 16, 0x1000, 0, FALSE, 1 },
  { 128, 12, 0x100C, 4, FALSE, 1 }, /* H0H1H2D0 */
  { 128, 12, 0x1008, 4, FALSE, 2 }, /* aligned: D0 waits for the next beat */
  { 128, 12, 0x1000, 64, FALSE, 5 }, /* cache-line CplD */
  { 256, 16, 0x1000, 256, TRUE, 9 }, /* pcie-protocol.md §7: 1 header + 8 data beats */
  { 256, 12, 0x1000, 0, TRUE, 1 },
  /* 512 bits = 16 DW a beat (the Gen4/Gen5 hard IPs' width), same alignment rule: data starts at DW slot 4
   * after a 3-DW header with a qword-aligned address, 3 with an odd one; 4 or 5 after a 4-DW header. */
  { 512, 12, 0x1000, 256, FALSE, 5 }, /* H0H1H2- then 64 DW: 68 slots = 4 beats + 4 DW */
  { 512, 12, 0x1004, 256, FALSE, 5 }, /* H0H1H2D0: 67 slots */
  { 512, 16, 0x1000, 256, FALSE, 5 }, /* 4 + 64 = 68 */
  { 512, 16, 0x1004, 256, FALSE, 5 }, /* H0..H3 - D0: 69 */
  { 512, 12, 0x1000, 240, FALSE, 4 }, /* 4 + 60 = 64: exactly four full beats */
  { 512, 16, 0x1004, 240, FALSE, 5 }, /* 5 + 60 = 65: the one empty slot costs a whole beat */
  { 512, 12, 0x1004, 244, FALSE, 4 }, /* 3 + 61 = 64 */
  { 512, 12, 0x1000, 512, FALSE, 9 }, /* 4 + 128 = 132 = 8 beats + 4 DW */
  { 512, 16, 0x1000, 4096, FALSE, 65 }, /* 4 + 1024 = 1028 = 64 beats + 4 DW */
  { 512, 12, 0x1000, 64, FALSE, 2 }, /* cache-line CplD: 4 + 16 = 20 */
  { 512, 12, 0x1004, 48, FALSE, 1 }, /* 3 + 12 = 15: header and data share the one beat */
  { 512, 12, 0x1000, 0, FALSE, 1 }, /* MRd: the header alone */
  { 512, 16, 0x1000, 0, FALSE, 1 },
  { 512, 16, 0x1000, 256, TRUE, 5 }, /* own header beat: 1 + 64 / 16 */
  { 512, 12, 0x1000, 4, TRUE, 2 }, /* 1 + 1 */
  { 512, 16, 0x1000, 4096, TRUE, 65 }, /* 1 + 1024 / 16 */
};

START_TEST (test_avst_beats)
{
  int i = _i;
  uint32_t b = avst_beats (beat_cases[i].width, beat_cases[i].own, beat_cases[i].hdr, beat_cases[i].addr,
    beat_cases[i].payload);
  ck_assert_msg (b == beat_cases[i].beats, "case %d: %u beats, want %u", i, b, beat_cases[i].beats);
}
END_TEST

/* The same rule stated another way, over random sizes at every width: a TLP fills header DWs, then one empty
 * slot exactly when the data's qword position does not follow the header on its own (3-DW header with an aligned
 * address, 4-DW header with an odd one), then its data, and takes whole beats. With header_own_beat the header
 * and the data each take whole beats. */
START_TEST (test_empty_slot_rule)
{
  GRand *r = g_rand_new_with_seed (512);
  static const uint32_t widths[] = { 64, 128, 256, 512 };
  for (int iter = 0; iter < 20000; iter++) {
    uint32_t width = widths[g_rand_int_range (r, 0, 4)], per = width / 32;
    uint32_t hdr_dw = g_rand_boolean (r) ? 3 : 4;
    gboolean odd = g_rand_boolean (r), own = g_rand_int_range (r, 0, 4) == 0;
    uint32_t data_dw = (uint32_t) g_rand_int_range (r, 0, 1025);
    uint64_t addr = 0x40000 + (odd ? 4 : 0);
    uint32_t want;
    if (data_dw == 0)
      want = (hdr_dw + per - 1) / per;
    else if (own)
      want = (hdr_dw + per - 1) / per + (data_dw + per - 1) / per;
    else {
      uint32_t empty = (hdr_dw == 3) != odd ? 1 : 0;
      want = (hdr_dw + empty + data_dw + per - 1) / per;
    }
    uint32_t got = avst_beats (width, own, hdr_dw * 4, addr, data_dw * 4);
    ck_assert_msg (got == want, "iter %d: width %u, %u-DW header, %s, %u DW%s: %u beats, want %u", iter, width,
                   hdr_dw, odd ? "odd" : "aligned", data_dw, own ? ", own header beat" : "", got, want);
  }
  g_rand_free (r);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("avst");
  TCase *tc = tcase_create ("beats");
  tcase_add_loop_test (tc, test_avst_beats, 0, G_N_ELEMENTS (beat_cases));
  tcase_add_test (tc, test_empty_slot_rule);
  suite_add_tcase (s, tc);
    return run_suite (s);
}
