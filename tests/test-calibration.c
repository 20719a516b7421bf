/* test-calibration.c — regression of the calibration: every published figure we hold, through the real binary
 * (`pciesim validate --format json`), against the accuracy targets of issue #17.
 *
 * The bounds are the targets, not the current figures: over the 34 AN-456 rows (Tables 7-13) mean |error| <= 1.5%
 * over every counted figure and each figure within 5%, except the figures the model is known not to reach (listed
 * below with the bound they do hold); the Avalon-MM DMA's three Signal Tap figures and XDMA's hardware figure each
 * within 3%. The bounds are a ratchet: a change that makes any figure worse fails CI, the known gaps stay visible,
 * and a bound is only ever tightened. The figures the configs mark as suspect measurements are checked to be
 * exactly the expected ones, each with its reason, so none can be added to escape a bound. */
#include <check.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "tests/common.h"

/* Issue #17's targets. The mean bound is far tighter than "five times better than the formula"
 * (published-calibration.md §1): the formula is about 11% off, so five times better is about 2.2%. */
#define TARGET_MEAN_PCT 1.5
#define TARGET_MAX_PCT 5.0
#define TARGET_OTHER_PCT 3.0 /* Avalon-MM Signal Tap figures (§2.1), XDMA hardware figure (§2.2) */

/* Counted figures beyond 5% today, with the bound each holds; see docs/validation.md "What the model does not reach".
 * The bound is not derived from the spec: it is the model's own current error (+5.16%) rounded up, a ratchet that lets
 * the figure get no worse. Tighten it when the model improves; never loosen one to make a change pass. */
static const struct {
  const char *config, *figure;
  double bound_pct;
} known_misses[] = {
  { "svgx_g1_x1", "simultaneous_write", 5.2 },
};

/* The figures the configs mark as suspect measurements (published.suspect, each with its evidence). */
static const struct {
  const char *config, *figure;
} suspects[] = {
  { "a10gx_g1_x1", "read" }, { "a10gx_g1_x1", "write" }, { "a10gx_g1_x1", "simultaneous_read" },
  { "a10gx_g1_x1", "simultaneous_write" }, { "aiigx_g1_x1_soft", "simultaneous_read" },
  { "sivgx_g2_x8", "simultaneous_read" }, { "svgx_g2_x1", "simultaneous_read" },
  { "svgx_g2_x1", "simultaneous_write" },
};

/* The other systems with published figures (§2.1, §2.2), whose bound is TARGET_OTHER_PCT. */
static gboolean
other_system (const char *config)
{
  return strcmp (config, "avmm256_g3_x8") == 0 || strcmp (config, "xdma_g3_x8") == 0;
}

/* The 34 AN-456 rows (published-calibration.md §1, Tables 7-13), 4 figures each. */
#define N_ROWS 34

static JsonObject *
run_validate (JsonParser **parser_out, gboolean strict)
{
  /* A tolerance of 100% keeps validate from exiting 1 and from flagging the known misses as beyond-tolerance:
   * this test applies its own per-figure bounds, so the flags left to see are the protocol-limit and suspect ones. */
  g_auto (TestRun) r;
  if (strict)
    PCIESIM (&r, "validate", "--format", "json", "--tolerance", "100", "--strict");
  else
    PCIESIM (&r, "validate", "--format", "json", "--tolerance", "100");
  ck_assert_msg (r.status == 0, "validate failed: %s", r.err);
  g_autoptr (GError) e = NULL;
  JsonParser *p = json_parser_new ();
  ck_assert_msg (json_parser_load_from_data (p, r.out, -1, &e), "JSON: %s", e ? e->message : "?");
  *parser_out = p;
  return json_node_get_object (json_parser_get_root (p));
}

static gboolean
is_suspect (const char *config, const char *figure)
{
  for (size_t i = 0; i < G_N_ELEMENTS (suspects); i++)
    if (strcmp (suspects[i].config, config) == 0 && strcmp (suspects[i].figure, figure) == 0)
      return TRUE;
  return FALSE;
}

START_TEST (test_accuracy)
{
  g_autoptr (JsonParser) parser = NULL;
  JsonObject *doc = run_validate (&parser, FALSE);
  JsonArray *figs = json_object_get_array_member (doc, "figures");
  guint n = json_array_get_length (figs), counted = 0, above = 0, suspect = 0, others = 0;
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
    /* No honest figure beats the vendor's own upper bound by more than the 3DW/4DW framing difference. */
    ck_assert_msg (sim <= theo, "%s %s: simulated %.1f above the theoretical %.1f", config, figure, sim, theo);
    if (other_system (config)) {
      others++;
      ck_assert_msg (err <= TARGET_OTHER_PCT, "%s %s: |error| %.2f%% > %.1f%%", config, figure, err,
                     TARGET_OTHER_PCT);
      continue;
    }
    g_hash_table_add (rows, g_strdup (config));
    if (strcmp (flag, "above-protocol-limit") == 0) {
      /* The one published artifact (published-calibration.md §1): svgx_g2_x1 DMA read, 475 > 463 MB/s. */
      ck_assert_msg (strcmp (config, "svgx_g2_x1") == 0 && strcmp (figure, "read") == 0, "unexpected flag on %s %s",
                     config, figure);
      above++;
      continue;
    }
    /* Exactly the expected figures are suspect, and each says why. */
    ck_assert_msg ((strcmp (flag, "suspect") == 0) == is_suspect (config, figure), "%s %s: flag '%s'", config, figure,
                   flag);
    if (is_suspect (config, figure)) {
      ck_assert_msg (json_object_has_member (f, "suspect_reason")
                     && strlen (json_object_get_string_member (f, "suspect_reason")) > 40,
                     "%s %s: suspect without its reason", config, figure);
      suspect++;
      continue;
    }
    counted++;
    sum += err;
    double bound = TARGET_MAX_PCT;
    for (size_t k = 0; k < G_N_ELEMENTS (known_misses); k++)
      if (strcmp (known_misses[k].config, config) == 0 && strcmp (known_misses[k].figure, figure) == 0)
        bound = known_misses[k].bound_pct;
    ck_assert_msg (err <= bound, "%s %s: |error| %.2f%% > %.1f%%", config, figure, err, bound);
  }
  /* A config that stopped being discovered would drop its figures from the mean and could hide a regression. */
  ck_assert_uint_eq (g_hash_table_size (rows), N_ROWS);
  ck_assert_uint_eq (above, 1);
  ck_assert_uint_eq (suspect, G_N_ELEMENTS (suspects));
  /* Every AN-456 row publishes all four figures: fewer means validate dropped one silently. The other systems give
   * three (Avalon-MM) and two (XDMA). */
  ck_assert_uint_eq (counted + above + suspect, 4 * N_ROWS);
  ck_assert_uint_eq (others, 3 + 2);
  double mean = sum / counted;
  ck_assert_msg (mean <= TARGET_MEAN_PCT, "mean |error| %.3f%% > %.1f%%", mean, TARGET_MEAN_PCT);
}
END_TEST

/* --strict counts the suspect figures like any other: the same rows, only the above-limit figure left out. */
START_TEST (test_strict_counts_suspects)
{
  g_autoptr (JsonParser) a = NULL, b = NULL;
  JsonObject *plain = json_object_get_object_member (run_validate (&a, FALSE), "summary");
  JsonObject *strict = json_object_get_object_member (run_validate (&b, TRUE), "summary");
  ck_assert_int_eq (json_object_get_int_member (plain, "suspect"), (gint64) G_N_ELEMENTS (suspects));
  ck_assert_int_eq (json_object_get_int_member (strict, "suspect"), 0);
  ck_assert_int_eq (json_object_get_int_member (strict, "flagged"), 1);
  ck_assert_int_eq (json_object_get_int_member (strict, "figures"),
                    json_object_get_int_member (plain, "figures") + (gint64) G_N_ELEMENTS (suspects));
}
END_TEST

/* The published formula is ~11% off these measurements (published-calibration.md §1): the validate summary must
 * say so, and the model must beat it by at least five times. Worked by hand over the 127 counted AN-456 figures,
 * lanes × (250 | 500 | 1000) × 256/276 against the §1 tables gives a mean |error| of 10.9%; the five Avalon-MM and
 * XDMA figures, compared with their own theoretical 7420 MB/s, take it to about 10.8%. The 9–13% band fails only if
 * validate's formula, or the set of figures it averages over, changes. */
START_TEST (test_beats_theoretical_formula)
{
  g_autoptr (JsonParser) parser = NULL;
  JsonObject *doc = run_validate (&parser, FALSE);
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
  tcase_add_test (tc, test_strict_counts_suspects);
  tcase_add_test (tc, test_beats_theoretical_formula);
  suite_add_tcase (s, tc);
  return run_suite (s);
}
