/* test-split.c — request/completion splitting (spec §2.2.7, §2.3.1.1). Expected figures come from the spec's own
 * example and from its legality rules. */
#include <check.h>
#include "models/proto/split.h"
#include "tests/common.h"

START_TEST (test_spec_example_rcb64)
{
  /* Spec §2.3.1.1: 256 bytes at 0x10020 from a root complex with RCB 64 -> 32 + 64 + 64 + 64 + 32. */
  uint32_t out[8];
  guint n = split_completions (0x10020, 256, 64, 256, CPL_POLICY_RCB, out, 8);
  ck_assert_uint_eq (n, 5);
  const uint32_t want[] = { 32, 64, 64, 64, 32 };
  for (guint i = 0; i < 5; i++)
    ck_assert_msg (out[i] == want[i], "completion %u: %u, want %u", i, out[i], want[i]);
}
END_TEST

START_TEST (test_mps_policy)
{
  uint32_t out[8];
  /* Fits MPS: one completion, even though it crosses RCB boundaries (always legal). */
  ck_assert_uint_eq (split_completions (0x10020, 256, 64, 256, CPL_POLICY_MPS, out, 8), 1);
  ck_assert_uint_eq (out[0], 256);
  /* 512 at 0x10020, MPS 256: first ends at 0x10100 (largest RCB multiple <= 0x10120) = 224, then 256, then 32. */
  ck_assert_uint_eq (split_completions (0x10020, 512, 64, 256, CPL_POLICY_MPS, out, 8), 3);
  ck_assert_uint_eq (out[0], 224);
  ck_assert_uint_eq (out[1], 256);
  ck_assert_uint_eq (out[2], 32);
  /* Aligned MRRS 512 with MPS 256 (AN-456 settings): 2 x 256. */
  ck_assert_uint_eq (split_completions (0x20000, 512, 64, 256, CPL_POLICY_MPS, out, 8), 2);
  ck_assert_uint_eq (out[0], 256);
  ck_assert_uint_eq (out[1], 256);
}
END_TEST

/* Property test: for many random requests every legality rule of §2.3.1.1 holds under both policies. */
START_TEST (test_completion_properties)
{
  GRand *r = g_rand_new_with_seed (4242);
  static const uint32_t mpss[] = { 128, 256, 512, 1024, 2048, 4096 };
  for (int iter = 0; iter < 4000; iter++) {
    uint32_t rcb = g_rand_boolean (r) ? 64 : 128;
    uint32_t mps = mpss[g_rand_int_range (r, 0, 6)];
    CplPolicy pol = g_rand_boolean (r) ? CPL_POLICY_MPS : CPL_POLICY_RCB;
    uint64_t addr = ((uint64_t) g_rand_int (r) << 8 | g_rand_int_range (r, 0, 256)) & ~(uint64_t) 3;
    uint32_t to_page = 4096 - (uint32_t) (addr & 4095);
    uint32_t len = 4 * (uint32_t) g_rand_int_range (r, 1, (gint32) to_page / 4 + 1);
    uint32_t out[1100];
    guint n = split_completions (addr, len, rcb, mps, pol, out, G_N_ELEMENTS (out));
    ck_assert_uint_le (n, G_N_ELEMENTS (out));
    /* Counted alone (max 0), the same number as cut one by one. */
    ck_assert_msg (split_completions (addr, len, rcb, mps, pol, NULL, 0) == n, "iter %d: count alone differs", iter);
    uint64_t a = addr, sum = 0;
    for (guint i = 0; i < n; i++) {
      ck_assert_msg (out[i] > 0 && out[i] <= mps, "iter %d cpl %u size %u mps %u", iter, i, out[i], mps);
      if (i > 0)
        ck_assert_msg (a % rcb == 0, "iter %d: middle completion %u starts off RCB", iter, i);
      if (i + 1 < n)
        ck_assert_msg ((a + out[i]) % rcb == 0, "iter %d: completion %u ends off RCB", iter, i);
      ck_assert_msg (a / 4096 == (a + out[i] - 1) / 4096, "iter %d: crosses 4 KB", iter);
      if (pol == CPL_POLICY_RCB)
        ck_assert_msg (a / rcb == (a + out[i] - 1) / rcb, "iter %d: RCB policy completion spans blocks", iter);
      a += out[i];
      sum += out[i];
    }
    ck_assert_uint_eq (sum, len);
    /* MPS policy is the least-TLP legal split: at most one extra completion beyond ceil(len / mps). */
    if (pol == CPL_POLICY_MPS)
      ck_assert_uint_le (n, (len + mps - 1) / mps + 1);
  }
  g_rand_free (r);
}
END_TEST

START_TEST (test_request_split)
{
  GRand *r = g_rand_new_with_seed (7);
  for (int iter = 0; iter < 300; iter++) {
    uint32_t max = 128u << g_rand_int_range (r, 0, 6);
    uint64_t addr = (uint64_t) g_rand_int (r) * 4;
    uint64_t len = 4 * (uint64_t) g_rand_int_range (r, 1, 100000);
    uint32_t out[4];
    guint n = split_requests (addr, len, max, out, 0);
    uint64_t a = addr, sum = 0;
    for (guint i = 0; i < n; i++) {
      uint32_t s = split_next_request (a, len - sum, max);
      ck_assert_uint_le (s, max);
      ck_assert_msg (a / 4096 == (a + s - 1) / 4096, "iter %d: request crosses 4 KB", iter);
      a += s;
      sum += s;
    }
    ck_assert_uint_eq (sum, len);
  }
  g_rand_free (r);
  /* 100 KB page-aligned with MPS 256: 400 MWr; with MRRS 512: 200 MRd. Unaligned start 0x...F00, 512 B max:
   * 256 to the page end, then 512s: 102400 = 256 + 199*512 + 256 -> 201 requests. */
  uint32_t out[1];
  ck_assert_uint_eq (split_requests (0x100000, 102400, 256, out, 0), 400);
  ck_assert_uint_eq (split_requests (0x100000, 102400, 512, out, 0), 200);
  ck_assert_uint_eq (split_requests (0x100F00, 102400, 512, out, 1), 201);
  ck_assert_uint_eq (out[0], 256);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("split");
  TCase *tc = tcase_create ("split");
  tcase_add_test (tc, test_spec_example_rcb64);
  tcase_add_test (tc, test_mps_policy);
  tcase_add_test (tc, test_completion_properties);
  tcase_add_test (tc, test_request_split);
  suite_add_tcase (s, tc);
    return run_suite (s);
}
