/* test-tlp.c — TLP sizes and credit costs against pcie-protocol.md §2/§5, and the pool's no-malloc contract. */
#include <check.h>

#include "models/proto/tlp.h"

typedef struct {
  const char *id;
  TlpKind kind;
  gboolean addr64, ecrc;
  uint32_t size; /* payload, or read length for MRd */
  uint32_t want_header, want_payload, want_data_credits;
  FcClass want_class;
} SizeCase;

/* Expected values from §2 (3 DW = 12 bytes, 4 DW = 16; MSI = 1-DW MWr) and §5 (ceil(payload/16) data credits).
 * The rows that are not plain multiples each aim at one likely slip:
 * - "MWr32 4B" and "MWr32 20B" (5 DW -> ceil(5/4) = 2) catch credits computed by truncating division (0 and 1).
 * - "CplD 64" asks for a 64-bit address on purpose: completions carry no address field, so their header stays
 *   3 DW whatever the request used; a model that passes addr64 through would say 16.
 * - the MRd rows expect 0 payload and 0 data credits for a 512-byte length: a read request carries no data and
 *   costs NPH only (§5 "MRd: 1 NPH"), so charging the read length as NPD would show here.
 * - "MSI" passes size 0 and still expects 4 bytes and 1 credit: an MSI is always a 1-DW write (§2). */
static const SizeCase size_cases[] = {
  { "MWr32 256", TLP_MWR, FALSE, FALSE, 256, 12, 256, 256 / 16, FC_P },
  { "MWr64 256", TLP_MWR, TRUE, FALSE, 256, 16, 256, 256 / 16, FC_P },
  { "MWr32 4B", TLP_MWR, FALSE, FALSE, 4, 12, 4, 1, FC_P },
  { "MWr32 20B", TLP_MWR, FALSE, TRUE, 20, 12, 20, 2, FC_P },
  { "MRd32 512", TLP_MRD, FALSE, FALSE, 512, 12, 0, 0, FC_NP },
  { "MRd64 512", TLP_MRD, TRUE, FALSE, 512, 16, 0, 0, FC_NP },
  { "CplD 64", TLP_CPLD, TRUE, FALSE, 64, 12, 64, 4, FC_CPL },
  { "Cpl", TLP_CPL, FALSE, FALSE, 0, 12, 0, 0, FC_CPL },
  { "MSI", TLP_MSI, FALSE, FALSE, 0, 12, 4, 1, FC_P },
};

START_TEST (test_sizes)
{
  const SizeCase *c = &size_cases[_i];
  Tlp t = { 0 };
  tlp_set (&t, c->kind, c->addr64, 0x1000, c->size);
  t.ecrc = c->ecrc;
  ck_assert_msg (t.header_bytes == c->want_header, "%s: header %u", c->id, t.header_bytes);
  ck_assert_msg (t.payload_bytes == c->want_payload, "%s: payload %u", c->id, t.payload_bytes);
  ck_assert_msg (tlp_data_credits (&t) == c->want_data_credits, "%s: data credits %u", c->id, tlp_data_credits (&t));
  /* §5: one header credit per TLP of every kind, with or without data. */
  ck_assert_msg (tlp_header_credits (&t) == 1, "%s", c->id);
  ck_assert_msg (tlp_fc_class (c->kind) == c->want_class, "%s: class", c->id);
  uint32_t want_bytes = c->want_header + (c->ecrc ? 4 : 0) + c->want_payload; /* §2: ECRC is 1 DW */
  ck_assert_msg (tlp_transaction_bytes (&t) == want_bytes, "%s: %u bytes", c->id, tlp_transaction_bytes (&t));
  /* The read length must survive in length_bytes, since the completer splits from it, not from payload_bytes. */
  if (c->kind == TLP_MRD)
    ck_assert_msg (t.length_bytes == c->size, "%s: length", c->id);
}
END_TEST

START_TEST (test_pool_steady_state)
{
  TlpPool *pool = tlp_pool_new ();
  /* 300 is more than one growth chunk (256 in tlp.c), so the pool must have grown twice before the steady state,
   * and the capacity check below proves that a working set straddling chunks still stops growing. */
  Tlp *held[300];
  for (int i = 0; i < 300; i++)
    held[i] = tlp_alloc (pool);
  ck_assert_uint_eq (tlp_pool_live (pool), 300);
  size_t cap = tlp_pool_capacity (pool);
  ck_assert_uint_ge (cap, 300);
  for (int i = 0; i < 300; i++)
    tlp_free (pool, held[i]);
  ck_assert_uint_eq (tlp_pool_live (pool), 0);
  /* A working set that fits never grows the pool again, and structs come back zeroed. Each round scribbles 99
   * into every struct it holds, and the free list hands the same structs back next round, so a tlp_alloc() that
   * skipped zeroing would fail on the second round rather than pass by luck on fresh memory. */
  for (int round = 0; round < 1000; round++) {
    for (int i = 0; i < 300; i++) {
      held[i] = tlp_alloc (pool);
      ck_assert_uint_eq (held[i]->payload_bytes, 0);
      held[i]->payload_bytes = 99;
    }
    for (int i = 0; i < 300; i++)
      tlp_free (pool, held[i]);
  }
  ck_assert_uint_eq (tlp_pool_capacity (pool), cap);
  tlp_pool_free (pool);
}
END_TEST

START_TEST (test_names)
{
  ck_assert_str_eq (tlp_kind_name (TLP_MWR), "MWr");
  ck_assert_str_eq (tlp_kind_name (TLP_CPLD), "CplD");
  /* Reports print kind names straight into tables: an out-of-range kind must give a placeholder, not NULL. */
  ck_assert_str_eq (tlp_kind_name (TLP_KIND_COUNT), "?");
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("tlp");
  TCase *tc = tcase_create ("tlp");
  tcase_add_loop_test (tc, test_sizes, 0, G_N_ELEMENTS (size_cases));
  tcase_add_test (tc, test_pool_steady_state);
  tcase_add_test (tc, test_names);
  suite_add_tcase (s, tc);
  SRunner *r = srunner_create (s);
  /* CK_ENV so meson's CK_VERBOSITY=silent keeps stdout pure TAP. */
  srunner_run_all (r, CK_ENV);
  srunner_free (r);
  return 0;
}
