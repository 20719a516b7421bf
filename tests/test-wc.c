/* test-wc.c — Check suite for models/wc.
 *
 * Each case lists the writes the SDM's rules give for a store sequence (pcie-protocol.md §9, worked by hand in
 * the case's comment) and compares them one by one, address, length, byte enables and kind, with what the module
 * emitted. The cases (#14): 64 aligned bytes -> one 64-byte write; 72 -> 64 + 8; 40 -> five 8-byte
 * writes on the fence; fences flush; UC stores one write each; more lines than buffers -> eviction order.
 */
#include <check.h>

#include "tests/common.h"
#include "models/devices/wc.h"
#include "app/base/error.h"

#define LOG_MAX 64

typedef struct {
  guint n;
  WcWrite w[LOG_MAX];
} Log;

static void
on_write (void *ctx, const WcWrite *w)
{
  Log *log = ctx;
  ck_assert_uint_lt (log->n, LOG_MAX);
  log->w[log->n++] = *w;
}

static const char *const kind_names[] = { "full", "evict", "fence", "uc" };

/* The writes logged since `from` are exactly `want`. */
static void
expect (const Log *log, guint from, const WcWrite *want, guint n)
{
  ck_assert_msg (log->n - from == n, "%u writes, want %u", log->n - from, n);
  for (guint i = 0; i < n; i++) {
    const WcWrite *g = &log->w[from + i], *e = &want[i];
    ck_assert_msg (g->address == e->address && g->length_bytes == e->length_bytes
                     && g->byte_enables == e->byte_enables && g->kind == e->kind,
      "write %u: 0x%" G_GINT64_MODIFIER "x %u bytes be 0x%02x %s, want 0x%" G_GINT64_MODIFIER "x %u bytes be 0x%02x %s",
      i, g->address, g->length_bytes, g->byte_enables, kind_names[g->kind], e->address, e->length_bytes,
      e->byte_enables, kind_names[e->kind]);
  }
}

static Wc *
make (Log *log, uint32_t buffers, uint32_t bytes)
{
  const WcParams p = { buffers, bytes };
  ck_assert (wc_params_check (&p, NULL));
  log->n = 0;
  return wc_new (&p, on_write, log);
}

#define BASE UINT64_C (0x10000)

/* 64 aligned bytes in 8-byte stores fill one buffer: it leaves as one 64-byte write at the eighth store, and
 * the fence after finds nothing. Likewise in 16- and 32-byte stores. */
START_TEST (test_64_aligned)
{
  static const uint32_t widths[] = { 4, 8, 16, 32 };
  Log log;
  g_autoptr (Wc) wc = make (&log, 8, 64);
  for (guint i = 0; i < G_N_ELEMENTS (widths); i++) {
    guint from = log.n;
    wc_copy (wc, FALSE, BASE, 64, widths[i]);
    const WcWrite want[] = { { BASE, 64, 0xff, WC_FULL } };
    expect (&log, from, want, 1);
    ck_assert_uint_eq (wc_buffers_in_use (wc), 0);
    wc_fence (wc);
    expect (&log, from, want, 1);
  }
}
END_TEST

/* 72 bytes: the first line fills (one 64-byte write); 8 bytes of the second wait for the fence, then leave as
 * one 8-byte partial write, all enables on. */
START_TEST (test_72_bytes)
{
  Log log;
  g_autoptr (Wc) wc = make (&log, 8, 64);
  wc_copy (wc, FALSE, BASE, 72, 8);
  const WcWrite full[] = { { BASE, 64, 0xff, WC_FULL } };
  expect (&log, 0, full, 1);
  ck_assert_uint_eq (wc_buffers_in_use (wc), 1);
  wc_fence (wc);
  const WcWrite want[] = { { BASE, 64, 0xff, WC_FULL }, { BASE + 64, 8, 0xff, WC_FENCE } };
  expect (&log, 0, want, 2);
  WcCounters c = wc_counters (wc);
  ck_assert_uint_eq (c.full_writes, 1);
  ck_assert_uint_eq (c.partial_writes, 1);
  ck_assert_uint_eq (c.bytes_stored, 72);
}
END_TEST

/* 40 bytes: nothing leaves until the fence, then five 8-byte writes in address order. */
START_TEST (test_40_bytes)
{
  Log log;
  g_autoptr (Wc) wc = make (&log, 8, 64);
  wc_copy (wc, FALSE, BASE, 40, 8);
  ck_assert_uint_eq (log.n, 0);
  wc_fence (wc);
  WcWrite want[5];
  for (int i = 0; i < 5; i++)
    want[i] = (WcWrite) { BASE + 8 * i, 8, 0xff, WC_FENCE };
  expect (&log, 0, want, 5);
  ck_assert_uint_eq (wc_buffers_in_use (wc), 0);
  /* A second fence has nothing left to flush. */
  wc_fence (wc);
  ck_assert_uint_eq (log.n, 5);
}
END_TEST

/* Partial chunks carry their valid bytes as enables: a 4-byte store at line + 4 is chunk 0 with bytes 4-7
 * (0xf0); a 2-byte store at line + 10 and a 1-byte one at line + 15 share chunk 8 (bytes 2, 3 and 7: 0x8c). */
START_TEST (test_byte_enables)
{
  Log log;
  g_autoptr (Wc) wc = make (&log, 8, 64);
  wc_store (wc, BASE + 4, 4);
  wc_store (wc, BASE + 10, 2);
  wc_store (wc, BASE + 15, 1);
  wc_fence (wc);
  const WcWrite want[] = { { BASE, 8, 0xf0, WC_FENCE }, { BASE + 8, 8, 0x8c, WC_FENCE } };
  expect (&log, 0, want, 2);
}
END_TEST

/* A copy that starts 8 bytes into a line: 56 bytes of line 0 and 8 of line 1; neither fills, so the fence sends
 * line 0's seven chunks, then line 1's one (line 0's buffer was taken first). An odd length cuts the tail as
 * memcpy does: 13 bytes from BASE in 8-byte stores are 8 + 4 + 1. */
START_TEST (test_unaligned_copy)
{
  Log log;
  g_autoptr (Wc) wc = make (&log, 8, 64);
  wc_copy (wc, FALSE, BASE + 8, 64, 8);
  ck_assert_uint_eq (log.n, 0);
  ck_assert_uint_eq (wc_buffers_in_use (wc), 2);
  wc_fence (wc);
  WcWrite want[8];
  for (int i = 0; i < 8; i++)
    want[i] = (WcWrite) { BASE + 8 + 8 * i, 8, 0xff, WC_FENCE };
  expect (&log, 0, want, 8);

  guint from = log.n;
  wc_copy (wc, TRUE, BASE, 13, 8);
  const WcWrite uc[] = { { BASE, 8, 0xff, WC_UC }, { BASE + 8, 4, 0xff, WC_UC }, { BASE + 12, 1, 0xff, WC_UC } };
  expect (&log, from, uc, 3);
}
END_TEST

/* UC stores are one write each, in order, never combined: 16 bytes in 4-byte stores are four 4-byte writes. */
START_TEST (test_uc_stores)
{
  Log log;
  g_autoptr (Wc) wc = make (&log, 8, 64);
  wc_copy (wc, TRUE, BASE, 16, 4);
  const WcWrite want[] = { { BASE, 4, 0xff, WC_UC }, { BASE + 4, 4, 0xff, WC_UC }, { BASE + 8, 4, 0xff, WC_UC },
                           { BASE + 12, 4, 0xff, WC_UC } };
  expect (&log, 0, want, 4);
  ck_assert_uint_eq (wc_counters (wc).uc_writes, 4);
  ck_assert_uint_eq (wc_buffers_in_use (wc), 0);
}
END_TEST

/* A UC store drains the WC buffers first (SDM §11.3), so an earlier WC store is not passed by a later UC one. */
START_TEST (test_uc_flushes_wc)
{
  Log log;
  g_autoptr (Wc) wc = make (&log, 8, 64);
  wc_store (wc, BASE, 8);
  wc_store (wc, BASE + 128, 8);
  wc_store_uc (wc, 0x2000, 4);
  const WcWrite want[] = { { BASE, 8, 0xff, WC_FENCE }, { BASE + 128, 8, 0xff, WC_FENCE },
                           { 0x2000, 4, 0xff, WC_UC } };
  expect (&log, 0, want, 3);
}
END_TEST

/* Two buffers, three lines A, B, C with one 8-byte store each, then A again, then D. C needs a buffer: A's was
 * taken first, so A leaves (evict). The second store to A takes a buffer again, evicting B (the oldest now);
 * D evicts C. The fence then drains A, then D, in the order their buffers were taken. Storing to A between B
 * and C would not have saved it: the order is by allocation, not by use (wc.h). */
START_TEST (test_eviction_order)
{
  const uint64_t A = BASE, B = BASE + 64, C = BASE + 128, D = BASE + 192;
  Log log;
  g_autoptr (Wc) wc = make (&log, 2, 64);
  wc_store (wc, A, 8);
  wc_store (wc, B, 8);
  ck_assert_uint_eq (log.n, 0);
  wc_store (wc, C, 8);
  wc_store (wc, A + 8, 8);
  wc_store (wc, D, 8);
  wc_fence (wc);
  const WcWrite want[] = { { A, 8, 0xff, WC_EVICT }, { B, 8, 0xff, WC_EVICT }, { C, 8, 0xff, WC_EVICT },
                           { A + 8, 8, 0xff, WC_FENCE }, { D, 8, 0xff, WC_FENCE } };
  expect (&log, 0, want, 5);

  /* A store to a line already buffered does not make it younger: A, B, A + 16, C evicts A, whose two chunks
   * with valid bytes (0 and 2) leave as two writes. */
  guint from = log.n;
  wc_store (wc, A, 8);
  wc_store (wc, B, 8);
  wc_store (wc, A + 16, 8);
  wc_store (wc, C, 8);
  const WcWrite fifo[] = { { A, 8, 0xff, WC_EVICT }, { A + 16, 8, 0xff, WC_EVICT } };
  expect (&log, from, fifo, 2);
}
END_TEST

/* P6: 32-byte buffers, so 64 aligned bytes are two 32-byte writes, and 40 bytes one 32-byte write plus one
 * 8-byte partial write on the fence. */
START_TEST (test_p6_buffers)
{
  Log log;
  g_autoptr (Wc) wc = make (&log, 4, 32);
  wc_copy (wc, FALSE, BASE, 64, 8);
  const WcWrite two[] = { { BASE, 32, 0xff, WC_FULL }, { BASE + 32, 32, 0xff, WC_FULL } };
  expect (&log, 0, two, 2);
  guint from = log.n;
  wc_copy (wc, FALSE, BASE, 40, 8);
  wc_fence (wc);
  const WcWrite want[] = { { BASE, 32, 0xff, WC_FULL }, { BASE + 32, 8, 0xff, WC_FENCE } };
  expect (&log, from, want, 2);
}
END_TEST

static const WcParams bad_params[] = { { 0, 64 }, { WC_MAX_BUFFERS + 1, 64 }, { 8, 48 }, { 8, 128 } };

START_TEST (test_bad_params)
{
  g_autoptr (GError) e = NULL;
  ck_assert (!wc_params_check (&bad_params[_i], &e));
  ck_assert (g_error_matches (e, MODEL_ERROR, MODEL_ERROR_PARAM));
}
END_TEST

/* A misaligned store is a caller bug: the invariant stops the process with exit 70. */
START_TEST (test_misaligned_store)
{
  Log log;
  Wc *wc = make (&log, 8, 64);
  wc_store (wc, BASE + 4, 8);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("wc");
  TCase *t = tcase_create ("wc");
  tcase_add_test (t, test_64_aligned);
  tcase_add_test (t, test_72_bytes);
  tcase_add_test (t, test_40_bytes);
  tcase_add_test (t, test_byte_enables);
  tcase_add_test (t, test_unaligned_copy);
  tcase_add_test (t, test_uc_stores);
  tcase_add_test (t, test_uc_flushes_wc);
  tcase_add_test (t, test_eviction_order);
  tcase_add_test (t, test_p6_buffers);
  tcase_add_loop_test (t, test_bad_params, 0, G_N_ELEMENTS (bad_params));
  tcase_add_exit_test (t, test_misaligned_store, PS_ERROR_INTERNAL);
  suite_add_tcase (s, t);
  return run_suite (s);
}
