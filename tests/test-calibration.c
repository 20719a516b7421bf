/* test-calibration.c — regression of the AN-456 calibration: every published figure we hold, through the real
 * binary (`pciesim validate --format json`), against the accuracy bounds of issue #4.
 *
 * The bounds are the targets, not the current figures: mean |error| <= 2% over every counted figure, each
 * figure within 5% — except the few figures the model is known not to reach (listed below with the bound they
 * do hold), so that a change that makes any figure worse fails CI while the known gaps stay visible. */
#include <check.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "tests/common.h"

/* Issue #4's targets. The mean bound is tighter than "five times better than the formula" (published-calibration.md
 * §1) requires: the formula is about 11% off, so five times better is about 2.2%. */
#define TARGET_MEAN_PCT 2.0
#define TARGET_MAX_PCT 5.0

/* Figures beyond 5% today, with the bound each holds; see README "What the model does not reach". These bounds are
 * not derived from the spec: they are the model's own current errors (+16.5% and +8.4%) rounded up, a ratchet that
 * lets neither figure get worse. Tighten them when the model improves; never loosen one to make a change pass. */
static const struct {
  const char *config, *figure;
  double bound_pct;
} known_misses[] = {
  { "svgx_g2_x1", "simultaneous_write", 17.0 },
  { "svgx_g2_x1", "simultaneous_read", 9.0 },
};

/* The 17 calibrated rows (published-calibration.md §1, Tables 8 and 11), 4 figures each: 7 Stratix V rows and
 * 10 Stratix IV rows, each with DMA read, DMA write and the simultaneous read/write pair. */
#define N_ROWS 17

static JsonObject *
run_validate (JsonParser **parser_out)
{
  /* A tolerance of 100% keeps validate from exiting 1 and from flagging the known misses as beyond-tolerance:
   * this test applies its own per-figure bounds, so the only flag left to see is the protocol-limit one. */
  g_auto (TestRun) r;
  PCIESIM (&r, "validate", "--format", "json", "--tolerance", "100");
  ck_assert_msg (r.status == 0, "validate failed: %s", r.err);
  g_autoptr (GError) e = NULL;
  JsonParser *p = json_parser_new ();
  ck_assert_msg (json_parser_load_from_data (p, r.out, -1, &e), "JSON: %s", e ? e->message : "?");
  *parser_out = p;
  return json_node_get_object (json_parser_get_root (p));
}

static double
known_bound (const char *config, const char *figure)
{
  for (size_t i = 0; i < G_N_ELEMENTS (known_misses); i++)
    if (strcmp (known_misses[i].config, config) == 0 && strcmp (known_misses[i].figure, figure) == 0)
      return known_misses[i].bound_pct;
  return TARGET_MAX_PCT;
}

START_TEST (test_accuracy)
{
  g_autoptr (JsonParser) parser = NULL;
  JsonObject *doc = run_validate (&parser);
  JsonArray *figs = json_object_get_array_member (doc, "figures");
  guint n = json_array_get_length (figs), counted = 0, flagged = 0, rows_seen = 0;
  double sum = 0;
  g_autoptr (GHashTable) rows = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < n; i++) {
    JsonObject *f = json_array_get_object_element (figs, i);
    const char *config = json_object_get_string_member (f, "config");
    const char *figure = json_object_get_string_member (f, "figure");
    const char *flag = json_object_get_string_member (f, "flag");
    double err = fabs (json_object_get_double_member (f, "error_pct"));
    double sim = json_object_get_double_member (f, "simulated_mbps");
    double theo = json_object_get_double_member (f, "theoretical_mbps");
    g_hash_table_add (rows, g_strdup (config));
    /* No honest figure beats the vendor's own upper bound by more than the 3DW/4DW framing difference. */
    ck_assert_msg (sim <= theo, "%s %s: simulated %.1f above the theoretical %.1f", config, figure, sim, theo);
    if (strcmp (flag, "above-protocol-limit") == 0) {
      /* The one published artifact (published-calibration.md §1): svgx_g2_x1 DMA read, 475 > 463 MB/s. */
      ck_assert_msg (strcmp (config, "svgx_g2_x1") == 0 && strcmp (figure, "read") == 0, "unexpected flag on %s %s",
                     config, figure);
      flagged++;
      continue;
    }
    counted++;
    sum += err;
    double bound = known_bound (config, figure);
    ck_assert_msg (err <= bound, "%s %s: |error| %.2f%% > %.1f%%", config, figure, err, bound);
  }
  rows_seen = g_hash_table_size (rows);
  /* A config that stopped being discovered would drop its figures from the mean and could hide a regression. */
  ck_assert_msg (rows_seen >= N_ROWS, "only %u calibrated rows found", rows_seen);
  /* published-calibration.md names one anomaly only: a second flag would mean the model or the limit moved. */
  ck_assert_uint_eq (flagged, 1);
  /* Every calibrated row publishes all four figures: fewer means validate dropped one silently. */
  ck_assert_uint_eq (counted + flagged, 4 * rows_seen);
  double mean = sum / counted;
  ck_assert_msg (mean <= TARGET_MEAN_PCT, "mean |error| %.3f%% > %.1f%%", mean, TARGET_MEAN_PCT);
}
END_TEST

/* The published formula is ~11% off these measurements (published-calibration.md §1): the validate summary must
 * say so, and the model must beat it by at least five times. Worked by hand over the 67 counted figures,
 * lanes × (250 | 500 | 1000) × 256/276 against the §1 tables gives a mean |error| of about 10.7%, so the 9–13%
 * band fails only if validate's formula, or the set of figures it averages over, changes. */
START_TEST (test_beats_theoretical_formula)
{
  g_autoptr (JsonParser) parser = NULL;
  JsonObject *doc = run_validate (&parser);
  JsonObject *s = json_object_get_object_member (doc, "summary");
  double theo = json_object_get_double_member (s, "theoretical_mean_abs_error_pct");
  double mean = json_object_get_double_member (s, "mean_abs_error_pct");
  ck_assert_msg (theo > 9.0 && theo < 13.0, "theoretical formula off by %.2f%%, expected about 11%%", theo);
  ck_assert_msg (mean * 5 <= theo, "model %.2f%% is not five times better than the formula's %.2f%%", mean, theo);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("calibration");
  TCase *tc = tcase_create ("an456");
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_accuracy);
  tcase_add_test (tc, test_beats_theoretical_formula);
  suite_add_tcase (s, tc);
  return run_suite (s);
}
