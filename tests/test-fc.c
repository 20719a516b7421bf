/* test-fc.c — flow-control credit accounting (fc.c) called directly, without a link.
 *
 * Every expected count is worked out in the comments from spec §2.6.1 (pcie-protocol.md §5): one header credit
 * per TLP, one data credit per 16 bytes rounded up, 0 advertised = infinite, and the §2.6.1.2 rule that a receiver
 * owes an UpdateFC when it frees credits of a type the transmitter had exhausted (headers: none left; data: fewer
 * than one max-payload TLP needs). */
#include <check.h>

#include "models/proto/fc.h"

/* Posted-class advertisement with the other two classes infinite. */
static FcAmounts
posted (uint32_t ph, uint32_t pd)
{
  return (FcAmounts) { .n = { [FC_P] = { ph, pd } } };
}

/* ---- the transmitter gates on headers and data separately ---- */

static const struct {
  uint32_t ph, pd, payload;
  uint32_t fits; /* TLPs sent before the first refusal */
} gate_cases[] = {
  { 4, 32, 128, 4 }, /* 8 data credits each: headers and data run out together after 4 */
  { 4, 64, 64, 4 }, /* 4 data credits each: the 4 headers bind, 48 of 64 data credits used */
  { 8, 32, 256, 2 }, /* 16 data credits each: data binds, 2 of 8 headers used */
  { 8, 33, 260, 1 }, /* 260 B = 16.25 DW-quads, rounded up to 17 credits: 33 / 17 = 1 */
  { 2, 0, 4096, 2 }, /* infinite data: only the 2 headers bind */
  { 0, 16, 4, 16 }, /* infinite headers: a 4-byte MWr still takes one whole data credit */
};

START_TEST (test_tx_gating)
{
  FcAmounts adv = posted (gate_cases[_i].ph, gate_cases[_i].pd);
  FcTx tx;
  fc_tx_init (&tx, &adv);
  uint32_t data = (gate_cases[_i].payload + 15) / 16;
  uint32_t n = 0;
  while (n < 1000 && fc_tx_can (&tx, FC_P, 1, data)) {
    fc_tx_consume (&tx, FC_P, 1, data);
    n++;
  }
  ck_assert_msg (n == gate_cases[_i].fits, "case %d: %u TLPs fit, want %u", _i, n, gate_cases[_i].fits);
  /* What is left is the advertisement minus what the n TLPs took, or "infinite". */
  uint64_t hdr_left = gate_cases[_i].ph ? gate_cases[_i].ph - n : UINT64_MAX;
  uint64_t data_left = gate_cases[_i].pd ? gate_cases[_i].pd - n * data : UINT64_MAX;
  ck_assert_uint_eq (fc_tx_available (&tx, FC_P, FC_HDR), hdr_left);
  ck_assert_uint_eq (fc_tx_available (&tx, FC_P, FC_DATA), data_left);
  /* The other classes were advertised infinite: they never block, whatever P has used. */
  ck_assert (fc_tx_can (&tx, FC_NP, 1, 0) && fc_tx_can (&tx, FC_CPL, 1, 256));
}
END_TEST

/* ---- infinite types: never blocked, never announced ---- */

START_TEST (test_infinite)
{
  FcAmounts all = { 0 };
  FcPolicy eager = { .mps_data_credits = 16, .hdr_threshold_credits = 1, .data_threshold_credits = 1 };
  FcTx tx;
  FcRx rx;
  fc_tx_init (&tx, &all);
  fc_rx_init (&rx, &all, &eager);
  for (int i = 0; i < 10000; i++) {
    ck_assert (fc_tx_can (&tx, FC_CPL, 1, 256));
    fc_tx_consume (&tx, FC_CPL, 1, 256);
    fc_rx_receive (&rx, FC_CPL, 1, 256); /* far beyond any finite buffer: no overflow for an infinite type */
  }
  ck_assert_uint_eq (fc_tx_available (&tx, FC_CPL, FC_DATA), UINT64_MAX);
  /* pcie-protocol.md §5: an infinite type needs no UpdateFC, even with thresholds of one credit. */
  ck_assert (!fc_rx_free (&rx, FC_CPL, 1, 256));
  for (int c = 0; c < FC_CLASS_COUNT; c++)
    ck_assert (!fc_rx_class_finite (&rx, c));
  /* One finite part makes the class finite: its UpdateFCs carry both limits. */
  FcAmounts ph_only = posted (8, 0);
  fc_rx_init (&rx, &ph_only, &eager);
  ck_assert (fc_rx_class_finite (&rx, FC_P));
  ck_assert (!fc_rx_class_finite (&rx, FC_NP));
}
END_TEST

/* ---- the §2.6.1.2 rule: an UpdateFC is owed when an exhausted type gets credits back ---- */

/* Three TLPs of 16 data credits arrive, then a fourth of `fourth` credits; each is freed after it arrives. The
 * first free never owes an UpdateFC here; the fourth's does exactly when that TLP exhausted a type:
 * - PH 4 (infinite data): after 3 TLPs the transmitter still holds 1 header credit, after the 4th none.
 * - PD 64 with MPS 256 (16 credits a full TLP): data counts as exhausted below one full TLP, not only at 0.
 *   After 3 TLPs 16 are left (not exhausted); a 2-credit 4th leaves 14, which a full-size TLP cannot use, so
 *   freeing it owes an UpdateFC although a 14-credit TLP would still fit.
 * - The same without an MPS: the data rule falls back to the header one (none left), and 14 left is plenty. */
static const struct {
  const char *id;
  uint32_t ph, pd, mps_credits, fourth;
  gboolean owed;
} rule_cases[] = {
  { "headers: none left", 4, 0, 16, 16, TRUE },
  { "data: below one MPS TLP", 32, 64, 16, 2, TRUE },
  { "data without MPS: none left", 32, 64, 0, 2, FALSE },
};

START_TEST (test_spec_rule)
{
  FcAmounts adv = posted (rule_cases[_i].ph, rule_cases[_i].pd);
  FcPolicy pol = { .mps_data_credits = rule_cases[_i].mps_credits };
  FcRx rx;
  fc_rx_init (&rx, &adv, &pol);
  for (int i = 0; i < 3; i++)
    fc_rx_receive (&rx, FC_P, 1, 16);
  ck_assert_msg (!fc_rx_free (&rx, FC_P, 1, 16), "%s: first free", rule_cases[_i].id);
  fc_rx_receive (&rx, FC_P, 1, rule_cases[_i].fourth);
  ck_assert_msg (fc_rx_free (&rx, FC_P, 1, rule_cases[_i].fourth) == rule_cases[_i].owed, "%s: fourth free",
                 rule_cases[_i].id);
}
END_TEST

/* ---- thresholds: eager UpdateFCs count credits freed since the last one sent ---- */

START_TEST (test_thresholds)
{
  /* PH 100, PD 1000: far from exhaustion, so only the thresholds can ask. Header threshold 3: the third header
   * freed asks; after the UpdateFC is placed (mark_sent) the count starts again. Data threshold 32: two 16-credit
   * frees. */
  FcAmounts adv = posted (100, 1000);
  FcPolicy hdr = { .mps_data_credits = 16, .hdr_threshold_credits = 3 };
  FcRx rx;
  fc_rx_init (&rx, &adv, &hdr);
  for (int i = 0; i < 10; i++)
    fc_rx_receive (&rx, FC_P, 1, 0);
  ck_assert (!fc_rx_free (&rx, FC_P, 1, 0));
  ck_assert (!fc_rx_free (&rx, FC_P, 1, 0));
  ck_assert (fc_rx_free (&rx, FC_P, 1, 0));
  fc_rx_mark_sent (&rx, FC_P);
  ck_assert (!fc_rx_free (&rx, FC_P, 1, 0));
  FcPolicy data = { .mps_data_credits = 16, .data_threshold_credits = 32 };
  fc_rx_init (&rx, &adv, &data);
  for (int i = 0; i < 4; i++)
    fc_rx_receive (&rx, FC_P, 1, 16);
  ck_assert (!fc_rx_free (&rx, FC_P, 1, 16));
  ck_assert (fc_rx_free (&rx, FC_P, 1, 16));
}
END_TEST

/* ---- limits: what an UpdateFC carries and what the transmitter makes of it ---- */

START_TEST (test_limits)
{
  /* NPH 8 advertised. 5 MRds arrive, 3 are freed: the receiver holds 2 and can grant 8 + 3 = 11 as an absolute
   * limit; a transmitter that has consumed 5 then has 11 - 5 = 6 available. */
  FcAmounts adv = { .n = { [FC_NP] = { 8, 0 } } };
  FcPolicy pol = { 0 };
  FcRx rx;
  FcTx tx;
  fc_rx_init (&rx, &adv, &pol);
  fc_tx_init (&tx, &adv);
  for (int i = 0; i < 5; i++) {
    fc_tx_consume (&tx, FC_NP, 1, 0);
    fc_rx_receive (&rx, FC_NP, 1, 0);
  }
  for (int i = 0; i < 3; i++)
    fc_rx_free (&rx, FC_NP, 1, 0);
  ck_assert_uint_eq (fc_rx_occupied (&rx, FC_NP, FC_HDR), 2);
  uint64_t h, d;
  fc_rx_current_limit (&rx, FC_NP, &h, &d);
  ck_assert_uint_eq (h, 11);
  ck_assert_uint_eq (d, 0); /* NPD infinite: advertised 0, nothing freed */
  fc_tx_update (&tx, FC_NP, h, d);
  ck_assert_uint_eq (fc_tx_available (&tx, FC_NP, FC_HDR), 6);
  /* DLLPs on one direction arrive in order, so a smaller limit is an older UpdateFC: ignored. */
  fc_tx_update (&tx, FC_NP, 9, 0);
  ck_assert_uint_eq (fc_tx_available (&tx, FC_NP, FC_HDR), 6);
}
END_TEST

/* The spec rule against the eager threshold, on the same sequence (moved from test-link.c). */
START_TEST (test_policy)
{
  gboolean eager = _i == 1;
  FcAmounts adv = posted (4, 64); /* PH 4, PD 64; NP and Cpl infinite */
  FcPolicy pol = { .mps_data_credits = 16, .data_threshold_credits = eager ? 16 : 0 };
  FcRx rx;
  fc_rx_init (&rx, &adv, &pol);
  FcTx tx;
  fc_tx_init (&tx, &adv);
  for (int i = 0; i < 4; i++) {
    ck_assert_msg (fc_tx_can (&tx, FC_P, 1, 16), "case %d: TLP %d", _i, i);
    fc_tx_consume (&tx, FC_P, 1, 16);
    fc_rx_receive (&rx, FC_P, 1, 16);
  }
  ck_assert (!fc_tx_can (&tx, FC_P, 1, 1)); /* all 4 headers used */
  ck_assert (fc_tx_can (&tx, FC_NP, 1, 0)); /* infinite class */
  /* §2.6.1.2: with 4 TLPs outstanding the transmitter (as last advertised) has no header credits at all, so the
   * spec rule fires on the first free already; the eager policy too. */
  ck_assert_msg (fc_rx_free (&rx, FC_P, 1, 16), "case %d: exhausted type freed", _i);
  fc_rx_mark_sent (&rx, FC_P);
  uint64_t h, d;
  fc_rx_current_limit (&rx, FC_P, &h, &d);
  ck_assert (h == 5 && d == 80);
  fc_tx_update (&tx, FC_P, h, d);
  ck_assert_uint_eq (fc_tx_available (&tx, FC_P, FC_HDR), 1);
  /* Next free: the transmitter still has 1 header and 16 data credits (not below one MPS TLP): only eager. */
  ck_assert_msg (fc_rx_free (&rx, FC_P, 1, 16) == eager, "case %d: second free", _i);
  ck_assert_uint_eq (fc_rx_occupied (&rx, FC_P, FC_DATA), 32);
}
END_TEST

/* ---- broken books are internal errors (exit 70), never averaged away ---- */

START_TEST (test_overflow_exits)
{
  FcAmounts adv = posted (2, 32);
  FcPolicy pol = { 0 };
  FcRx rx;
  FcTx tx;
  fc_rx_init (&rx, &adv, &pol);
  fc_tx_init (&tx, &adv);
  if (_i == 0) {
    /* A transmitter that ignored credits: the third header does not fit the 2-header buffer. */
    for (int i = 0; i < 3; i++)
      fc_rx_receive (&rx, FC_P, 1, 0);
  } else if (_i == 1) {
    /* 33 data credits consumed against a limit of 32. */
    fc_tx_consume (&tx, FC_P, 1, 33);
  } else {
    /* More returned than ever taken. */
    fc_rx_receive (&rx, FC_P, 1, 4);
    fc_rx_free (&rx, FC_P, 1, 5);
  }
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("fc");
  SRunner *r = srunner_create (s);
  TCase *tc = tcase_create ("credits");
  tcase_add_loop_test (tc, test_tx_gating, 0, G_N_ELEMENTS (gate_cases));
  tcase_add_test (tc, test_infinite);
  tcase_add_loop_test (tc, test_spec_rule, 0, G_N_ELEMENTS (rule_cases));
  tcase_add_test (tc, test_thresholds);
  tcase_add_test (tc, test_limits);
  tcase_add_loop_test (tc, test_policy, 0, 2);
  suite_add_tcase (s, tc);
  /* sim_invariant_failed() exits the process: only a forked test can watch it. */
  if (srunner_fork_status (r) != CK_NOFORK) {
    tc = tcase_create ("invariants");
    tcase_add_loop_exit_test (tc, test_overflow_exits, 70, 0, 3);
    suite_add_tcase (s, tc);
  }
  srunner_run_all (r, CK_ENV);
  srunner_free (r);
  return 0;
}
