/* test-matrix.c — every generation (1–5) × every width (x1…x16) runs end to end through the real binary, and
 * each run obeys the two bounds no model may break: the write figure stays at or below the analytic protocol
 * limit, and every direction's time is fully accounted for (usage fractions sum to 1). */
#include <check.h>
#include <json-glib/json-glib.h>
#include <math.h>

#include "tests/common.h"

/* Every width the matrix runs, with Gen1–Gen5 from the loop index: link.gen accepts 1..5 (config_keys.c), so the
 * 25 cases cover every generation a config can name. x8 and x16 are the risky widths: lane placement pads packets
 * only on links wider than x4 (pcie-protocol.md §2). */
static const int widths[] = { 1, 2, 4, 8, 16 };

static double
usage_sum (JsonObject *usage)
{
  static const char *parts[] = { "payload", "tlp_overhead", "dllp", "ordered_sets", "idle" };
  double s = 0;
  for (size_t i = 0; i < G_N_ELEMENTS (parts); i++)
    s += json_object_get_double_member (usage, parts[i]);
  return s;
}

START_TEST (test_gen_width)
{
  int gen = 1 + _i / 5, lanes = widths[_i % 5];
  /* A real calibrated device file as the base, so only generation and width change between the 25 runs. */
  const char *config = "configs/svgx_g2_x8.yaml";
  g_autofree char *set_gen = g_strdup_printf ("link.gen=%d", gen);
  g_autofree char *set_lanes = g_strdup_printf ("link.lanes=%d", lanes);
  /* Two iterations keep 25 runs quick; the bounds hold for any transfer. */
  g_auto (TestRun) r;
  PCIESIM (&r, config, "--mode", "write", "--format", "json", "--set", set_gen, "--set", set_lanes, "--set",
           "benchmark.iterations=2");
  ck_assert_msg (r.status == 0, "Gen%d x%d failed: %s", gen, lanes, r.err);
  g_autoptr (JsonParser) p = json_parser_new ();
  ck_assert (json_parser_load_from_data (p, r.out, -1, NULL));
  JsonObject *doc = json_node_get_object (json_parser_get_root (p));
  double limit = json_object_get_double_member (doc, "protocol_limit_mbps");
  JsonObject *w = json_object_get_object_member (json_object_get_object_member (doc, "results"), "write");
  double mbps = json_object_get_double_member (w, "mbps");
  /* Write mode only: protocol_limit_mbps is the ceiling of a saturating MPS-sized MWr stream (link.h), so it
   * bounds the write figure directly. A figure above it means some framing, encoding or SKP cost went uncharged
   * at that generation and width; mbps > 0 catches a run that moved nothing yet exited 0. */
  ck_assert_msg (mbps > 0 && mbps <= limit, "Gen%d x%d: write %.1f MB/s vs protocol limit %.1f", gen, lanes, mbps,
                 limit);
  JsonObject *u = json_object_get_object_member (w, "link_usage");
  /* Fractions are printed with 6 decimals: five of them sum to 1 within 5e-6 plus rounding. A sum off by more
   * means a stretch of link time was counted twice or in no category, which a throughput check alone misses. */
  ck_assert_msg (fabs (usage_sum (json_object_get_object_member (u, "upstream")) - 1) < 1e-5, "Gen%d x%d upstream",
                 gen, lanes);
  ck_assert_msg (fabs (usage_sum (json_object_get_object_member (u, "downstream")) - 1) < 1e-5,
                 "Gen%d x%d downstream", gen, lanes);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("matrix");
  TCase *tc = tcase_create ("gen_width");
  /* Per case, and far above Check's 4 s default: a run takes milliseconds here, but `meson test --setup valgrind`
   * traces every spawned pciesim through memcheck, which is many times slower. */
  tcase_set_timeout (tc, 60);
  tcase_add_loop_test (tc, test_gen_width, 0, 25);
  suite_add_tcase (s, tc);
  return run_suite (s);
}
