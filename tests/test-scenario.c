/* test-scenario.c — scenario.c as a unit: point numbering (cartesian, zip), ranges, the --set list of a point,
 * metrics, and errors moved onto the scenario line that caused them. Scenario texts are written here, so every
 * point, value and line:column below is worked out by hand from them. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "app/base/error.h"
#include "app/study/scenario.h"
#define TMPDIR_TEMPLATE "pciesim-test-scenario-XXXXXX"
#include "tests/common.h"

/* name:, base: (the shipped Gen2 x8 row, by absolute path), then `body` from line 3 on. */
static char *
write_scenario (const char *name, const char *body)
{
  g_autofree char *text = g_strdup_printf ("name: t\nbase: %s/configs/svgx_g2_x8.yaml\n%s", source_root (), body);
  return write_file (tmpdir_root, name, text);
}

static PsScenario *
load_ok (const char *name, const char *body)
{
  g_autofree char *path = write_scenario (name, body);
  g_autoptr (GError) e = NULL;
  PsScenario *s = ps_scenario_load (path, &e);
  ck_assert_msg (s, "%s", e ? e->message : "?");
  return s;
}

/* The error loading `body` must be "PATH:WHERE: error: TEXT…". */
static void
load_bad (const char *name, const char *body, const char *where, const char *text)
{
  g_autofree char *path = write_scenario (name, body);
  g_autoptr (GError) e = NULL;
  g_autoptr (PsScenario) s = ps_scenario_load (path, &e);
  ck_assert_msg (!s && e, "%s loaded", name);
  g_autofree char *want = g_strdup_printf ("%s:%s: error: %s", path, where, text);
  ck_assert_msg (g_str_has_prefix (e->message, want), "'%s' does not start with '%s'", e->message, want);
}

static const char *
axis_value (const PsScenario *s, guint point, guint axis)
{
  guint vi[8];
  ps_scenario_point_coords (s, point, vi);
  const PsAxis *a = s->axes->pdata[axis];
  return ((YNode *) a->values->pdata[vi[axis]])->value;
}

static const char cartesian[] = "modes: [read]\n"
                                "axes:\n"
                                "  - key: endpoint.tags\n"
                                "    values: [4, 8, 16]\n"
                                "  - key: link.max_payload\n"
                                "    values: [128, 256]\n";

/* 3 x 2 points, the first axis slowest: (4,128) (4,256) (8,128) (8,256) (16,128) (16,256). */
START_TEST (test_cartesian)
{
  g_autoptr (PsScenario) s = load_ok ("cart.yaml", cartesian);
  ck_assert_uint_eq (s->n_points, 6);
  ck_assert_str_eq (axis_value (s, 2, 0), "8");
  ck_assert_str_eq (axis_value (s, 2, 1), "128");
  ck_assert_str_eq (axis_value (s, 5, 0), "16");
  ck_assert_str_eq (axis_value (s, 5, 1), "256");
  /* A point is a config a user could run by hand: overrides first (none here), then its axis values. */
  g_auto (GStrv) sets = ps_scenario_point_sets (s, 3);
  ck_assert_uint_eq (g_strv_length (sets), 2);
  ck_assert_str_eq (sets[0], "endpoint.tags=8");
  ck_assert_str_eq (sets[1], "link.max_payload=256");
  g_autoptr (GError) e = NULL;
  g_autoptr (PsConfig) c = ps_scenario_point_config (s, 3, &e);
  ck_assert (c);
  ck_assert_int_eq (c->endpoint.tags, 8);
  ck_assert_int_eq (c->link.max_payload, 256);
  ck_assert_uint_eq (s->modes, PS_MODE_READ);
}
END_TEST

/* zip pairs tags with max_read_request (3 values each) and crosses them with 2 payloads: 3 x 2 points. */
START_TEST (test_zip)
{
  g_autoptr (PsScenario) s = load_ok ("zip.yaml", "axes:\n"
                                                  "  - key: endpoint.tags\n"
                                                  "    values: [4, 8, 16]\n"
                                                  "  - key: link.max_payload\n"
                                                  "    values: [128, 256]\n"
                                                  "  - key: link.max_read_request\n"
                                                  "    values: [128, 256, 512]\n"
                                                  "zip: [endpoint.tags, link.max_read_request]\n");
  ck_assert_uint_eq (s->n_points, 6);
  /* Point 3 (index 3): the zipped pair's second values, the payload's second. */
  ck_assert_str_eq (axis_value (s, 3, 0), "8");
  ck_assert_str_eq (axis_value (s, 3, 1), "256");
  ck_assert_str_eq (axis_value (s, 3, 2), "256");
  load_bad ("zip-bad.yaml",
            "axes:\n  - {key: endpoint.tags, values: [4, 8]}\n  - {key: link.max_payload, values: [128]}\n"
            "zip: [endpoint.tags, link.max_payload]\n",
            "6:22", "zipped axes must have as many values");
}
END_TEST

/* pow2 from 1 to 256 is 1, 2, 4 … 256 (9 values); 0 to 0.3 in steps of 0.1 is 4 values, printed as written. */
START_TEST (test_ranges)
{
  g_autoptr (PsScenario) s = load_ok ("range.yaml", "axes:\n"
                                                    "  - key: endpoint.tags\n"
                                                    "    range: {from: 1, to: 256, scale: pow2}\n"
                                                    "  - key: link.flight_ns\n"
                                                    "    range: {from: 0, to: 0.3, step: 0.1}\n");
  const PsAxis *tags = s->axes->pdata[0], *flight = s->axes->pdata[1];
  ck_assert_uint_eq (tags->values->len, 9);
  ck_assert_str_eq (((YNode *) tags->values->pdata[8])->value, "256");
  ck_assert_uint_eq (flight->values->len, 4);
  ck_assert_str_eq (((YNode *) flight->values->pdata[3])->value, "0.3");
  ck_assert_uint_eq (s->n_points, 36);
}
END_TEST

/* Default metrics for read alone: theoretical, read MB/s, % of theoretical, 2 x 5 usage shares = 13. */
START_TEST (test_metrics)
{
  g_autoptr (PsScenario) s = load_ok ("m.yaml", cartesian);
  ck_assert_uint_eq (s->metrics->len, 13);
  const PsMetric *pct = &g_array_index (s->metrics, PsMetric, 2);
  ck_assert_str_eq (pct->name, "read_pct_theoretical");
  PsRunResult r = { .theoretical_mbps = 2000 };
  r.modes[PS_READ] = (PsModeResult) { .ran = true, .mbps = 500, .events = 7, .sim_time_ns = 1.5 };
  r.modes[PS_READ].downstream.idle = 0.25;
  ck_assert_double_eq_tol (ps_metric_value (pct, &r), 25.0, 1e-12);
  ck_assert_int_eq (ps_metric_decimals (pct), 2);
  /* The last default metric is the downstream idle share, in percent. */
  const PsMetric *idle = &g_array_index (s->metrics, PsMetric, 12);
  ck_assert_str_eq (idle->name, "read_down_idle_pct");
  ck_assert_double_eq_tol (ps_metric_value (idle, &r), 25.0, 1e-12);
  /* Events print whole, simulated time to the picosecond; a mode that did not run reads NaN. */
  g_autoptr (PsScenario) t = load_ok ("m2.yaml", "modes: [read, write]\naxes:\n  - {key: endpoint.tags, values: [4]}\n"
                                                 "metrics: [read_events, read_sim_time_ns, write_mbps]\n");
  ck_assert_int_eq (ps_metric_decimals (&g_array_index (t->metrics, PsMetric, 0)), 0);
  ck_assert_int_eq (ps_metric_decimals (&g_array_index (t->metrics, PsMetric, 1)), 3);
  ck_assert (isnan (ps_metric_value (&g_array_index (t->metrics, PsMetric, 2), &r)));
  load_bad ("m3.yaml", "axes:\n  - {key: endpoint.tags, values: [4]}\nmetrics: [read_mbsp]\n", "5:11",
            "unknown metric 'read_mbsp' (did you mean 'read_mbps'?)");
}
END_TEST

/* Errors land on the line that caused them: a typo with a did-you-mean from the key table, an override, an axis
 * value of one point, and a run error with no single node to blame. */
START_TEST (test_errors)
{
  load_bad ("e1.yaml", "axes:\n  - key: endpoint.tgas\n    values: [4]\n", "4:10",
            "axis key 'endpoint.tgas' is not a config key (did you mean 'endpoint.tags'?)");
  load_bad ("e2.yaml", "overrides:\n  endpiont: {tags: 4}\naxes:\n  - {key: endpoint.tags, values: [4]}\n", "4:3",
            "override 'endpiont' is not a config key");
  /* "  link.max_payload: 100": the value starts at column 21. */
  load_bad ("e3.yaml", "overrides:\n  link.max_payload: 100\naxes:\n  - {key: endpoint.tags, values: [4]}\n", "4:21",
            "override: link.max_payload must be a power of two from 128 to 4096 (got 100)");
  load_bad ("e4.yaml", "axis: []\n", "3:1", "unknown key 'axis' in a scenario (did you mean 'axes'?)");

  /* "    values: [4, 20000]" on line 6: 20000 starts at column 17; it is the first axis's second value, so point 3. */
  g_autoptr (PsScenario) s = load_ok ("e5.yaml", "modes: [read]\n"
                                                 "axes:\n"
                                                 "  - key: endpoint.tags\n"
                                                 "    values: [4, 20000]\n"
                                                 "  - key: link.max_payload\n"
                                                 "    values: [128, 256]\n");
  g_autoptr (GError) e = NULL;
  g_autoptr (PsConfig) c = ps_scenario_point_config (s, 2, &e);
  ck_assert (!c && e);
  g_autofree char *want = g_strdup_printf ("%s:6:17: error: axis endpoint.tags = 20000 (point 3): endpoint.tags "
                                           "must be between 1 and 15360 (got 20000)", s->path);
  ck_assert_str_eq (e->message, want);
  /* A run error of point 2 names the point at the axes list (line 5, column 3), with a foreign location kept. */
  g_autoptr (GError) run = NULL;
  ps_error_located (&run, PS_ERROR_INTERNAL, "other.yaml", 3, 4, "stalled");
  ps_scenario_locate_error (s, 1, &run);
  g_autofree char *want2 = g_strdup_printf ("%s:5:3: error: point 2 (endpoint.tags=4, link.max_payload=256): "
                                            "other.yaml:3:4: stalled", s->path);
  ck_assert_str_eq (run->message, want2);
  ck_assert_int_eq (run->code, PS_ERROR_INTERNAL);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("scenario");
  TCase *tc = tcase_create ("scenario");
  tcase_add_unchecked_fixture (tc, tmpdir_setup, tmpdir_teardown);
  tcase_add_test (tc, test_cartesian);
  tcase_add_test (tc, test_zip);
  tcase_add_test (tc, test_ranges);
  tcase_add_test (tc, test_metrics);
  tcase_add_test (tc, test_errors);
  suite_add_tcase (s, tc);
  return run_suite (s);
}
