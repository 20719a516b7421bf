/* test-report.c — report.c and format.c as units: the comparison of a result with its published figures, each
 * format's rendering of a made-up result (its numbers chosen here, so every expected cell is worked out by hand),
 * and format.h's numbers, cells and JSON emitter. The JSON is read back with json-glib, as a script would. */
#include <check.h>
#include <json-glib/json-glib.h>
#include <locale.h>
#include <math.h>
#include <string.h>

#include "app/base/format.h"
#include "app/report/report.h"
#include "tests/common.h"

/* Gen2 x4 with 64-bit addresses, published read 1000 and write 2000; the write limit of 1800 (4-DW MWrs) puts
 * the write figure above it; reads have their own limit, 1850 (3-DW CplDs). */
static PsConfig cfg;
static PsRunResult res;

static void
setup (void)
{
  cfg = (PsConfig) { .path = "configs/x.yaml", .name = "x, \"y\" | z" };
  cfg.link.gen = 2;
  cfg.link.lanes = 4;
  cfg.link.max_payload = 256;
  cfg.link.max_read_request = 512;
  cfg.link.read_completion_boundary = 64;
  cfg.link.address_bits = 64;
  cfg.endpoint.tags = 32;
  cfg.endpoint.datapath_bits = 64;
  cfg.endpoint.clock_mhz = 250;
  cfg.benchmark.transfer_bytes = 4096;
  cfg.benchmark.iterations = 1;
  cfg.published.present = true;
  cfg.published.source = "test";
  cfg.published.dma_read_mbps = 1000;
  cfg.published.dma_write_mbps = 2000;
  cfg.published.simultaneous_read_mbps = NAN;
  cfg.published.simultaneous_write_mbps = NAN;
  cfg.published.theoretical_mbps = NAN;
  res = (PsRunResult) { .config = &cfg, .model = "chaining-dma", .theoretical_mbps = 1900, .protocol_limit_mbps = 1800,
                        .protocol_limit_read_mbps = 1850, .wall_s = 1.5 };
  res.modes[PS_READ] = (PsModeResult) { .ran = true, .mbps = 950, .events = 10, .sim_time_ns = 1234.5 };
  res.modes[PS_READ].upstream = (PsUsage) { 0.5, 0.25, 0.125, 0.0625, 0.0625 };
  res.modes[PS_READ].downstream = (PsUsage) { 0, 0, 0, 0, 1 };
}

/* (950 - 1000) / 1000 = -5%; write did not run; a published 2000 above the 1800 limit is flagged. */
START_TEST (test_figures)
{
  PsFigure f[PS_N_FIGURES];
  ck_assert_int_eq (ps_result_figures (&res, f), PS_N_FIGURES);
  ck_assert_str_eq (f[0].key, "read");
  ck_assert_double_eq_tol (f[0].error_pct, -5.0, 1e-12);
  ck_assert (!f[0].above_limit);
  ck_assert (isnan (f[1].simulated) && isnan (f[1].error_pct));
  ck_assert (f[1].above_limit);
  ck_assert (isnan (f[2].published));
  /* Each figure is held to the limit of the TLPs its data travels in (issue #12 item 2): a read of 1820 is
   * above the write limit but not the read one; a write of 1820 is above its own. */
  ck_assert (f[0].limit == 1850 && f[1].limit == 1800 && f[2].limit == 1850 && f[3].limit == 1800);
  cfg.published.dma_read_mbps = 1820;
  cfg.published.dma_write_mbps = 1820;
  ps_result_figures (&res, f);
  ck_assert (!f[0].above_limit && f[1].above_limit);
  cfg.published.dma_read_mbps = 1000;
  cfg.published.dma_write_mbps = 2000;
  /* Another workload is not compared with DMA benchmark figures at all. */
  res.model = "stream";
  ps_result_figures (&res, f);
  ck_assert (isnan (f[0].published) && isnan (f[0].error_pct));
}
END_TEST

/* The table after the '#' comment lines that say what was run. */
static const char *
csv_table (const char *csv)
{
  while (*csv == '#')
    csv = strchr (csv, '\n') + 1;
  return csv;
}

START_TEST (test_csv)
{
  g_autoptr (GString) o = g_string_new (NULL);
  res.seed = 7;
  ps_report_render (o, &res, PS_FORMAT_CSV, TRUE);
  ck_assert_str_eq (csv_table (o->str),
                    "config,figure,simulated_mbps,published_mbps,theoretical_mbps,protocol_limit_mbps,"
                    "error_pct,above_protocol_limit,suspect,limited_by,limited_by_share,bound_mbps\n"
                    "\"x, \"\"y\"\" | z\",read,950.00,1000.00,1900.00,1850.00,-5.00,false,false,,,\n");
  /* The comments: the run, then one line per key. A config filled by hand has no origins: all read "default". */
  ck_assert_msg (g_str_has_prefix (o->str, "# pciesim 0.1.0: configs/x.yaml (x, \"y\" | z), model chaining-dma, "
                                           "seed 7\n# name = \"x, \\\"y\\\" | z\" (default)\n"), "%s", o->str);
  ck_assert_msg (strstr (o->str, "\n# link.lanes = 4 (default)\n"), "%s", o->str);
  ck_assert_msg (strstr (o->str, "\n# published.simultaneous_read_mbps = null (default)\n"), "%s", o->str);
}
END_TEST

/* Issue #12 item 3: a --set that changed the system (here link.lanes, as the loader would record it) leaves the
 * published figures uncompared in every format: no error, no flag against this run's 1800 MB/s limit (which the
 * published write, 2000, is above), and the reason given. */
START_TEST (test_not_comparable)
{
  cfg.set_changes = "link.lanes";
  PsFigure f[PS_N_FIGURES];
  ps_result_figures (&res, f);
  ck_assert (!f[0].comparable && isnan (f[0].error_pct) && f[0].published == 1000);
  ck_assert (!f[1].comparable && !f[1].above_limit);
  g_autofree char *why = ps_result_not_comparable (&res);
  ck_assert_str_eq (why, "config changed by --set link.lanes");

  g_autoptr (GString) o = g_string_new (NULL);
  ps_report_render (o, &res, PS_FORMAT_TABLE, FALSE);
  ck_assert_msg (strstr (o->str, "DMA read                 950.0          -       1900.0    50.0%        -\n"), "%s",
                 o->str);
  ck_assert_msg (strstr (o->str, "\npublished figures (test) not comparable: config changed by --set link.lanes\n"),
                 "%s", o->str);
  ck_assert_msg (!strstr (o->str, "flagged"), "%s", o->str);
  g_string_truncate (o, 0);
  ps_report_render (o, &res, PS_FORMAT_MARKDOWN, FALSE);
  ck_assert_msg (strstr (o->str, "| DMA read | 950.0 | - | 1900.0 | 50.0% | - |\n"), "%s", o->str);
  ck_assert_msg (strstr (o->str, "not comparable: config changed by --set link.lanes"), "%s", o->str);
  g_string_truncate (o, 0);
  ps_report_render (o, &res, PS_FORMAT_CSV, FALSE);
  ck_assert_msg (strstr (o->str, "# published figures not comparable: config changed by --set link.lanes\n"), "%s",
                 o->str);
  ck_assert_msg (strstr (o->str, ",read,950.00,,1900.00,1850.00,,false,false,,,\n"), "%s", o->str);
  g_string_truncate (o, 0);
  ps_report_render (o, &res, PS_FORMAT_JSON, FALSE);
  g_autoptr (JsonNode) root = ps_json_parse (o->str, -1, NULL);
  ck_assert_msg (root, "%s", o->str);
  JsonObject *doc = json_node_get_object (root);
  JsonObject *pub = json_object_get_object_member (doc, "published");
  ck_assert (!json_object_get_boolean_member (pub, "comparable"));
  ck_assert_str_eq (json_object_get_string_member (pub, "not_comparable"), "config changed by --set link.lanes");
  ck_assert_uint_eq (json_array_get_length (json_object_get_array_member (doc, "comparison")), 0);
}
END_TEST

START_TEST (test_markdown)
{
  g_autoptr (GString) o = g_string_new (NULL);
  ps_report_render (o, &res, PS_FORMAT_MARKDOWN, FALSE);
  /* 950 / 1900 is 50% of the theoretical figure. */
  ck_assert_msg (strstr (o->str, "| DMA read | 950.0 | 1000.0 | 1900.0 | 50.0% | -5.0% |\n"), "%s", o->str);
}
END_TEST

/* The JSON contract read back: present keys, absent modes, nulls and the fixed decimals as text. */
START_TEST (test_json)
{
  g_autoptr (GString) o = g_string_new (NULL);
  ps_report_render (o, &res, PS_FORMAT_JSON, FALSE);
  g_autoptr (GError) e = NULL;
  g_autoptr (JsonNode) root = ps_json_parse (o->str, -1, &e);
  ck_assert_msg (root, "%s\n%s", e ? e->message : "", o->str);
  JsonObject *doc = json_node_get_object (root);
  ck_assert_int_eq (json_object_get_int_member (doc, "schema"), 1);
  ck_assert_str_eq (json_object_get_string_member (doc, "name"), "x, \"y\" | z");
  JsonObject *results = json_object_get_object_member (doc, "results");
  ck_assert (json_object_has_member (results, "read") && !json_object_has_member (results, "write"));
  ck_assert (!json_object_has_member (json_object_get_object_member (doc, "stats"), "wall_s"));
  /* Decimals per field: theoretical 1, mbps 2, usage 6, simulated time 3. */
  ck_assert_msg (strstr (o->str, "\"theoretical_mbps\": 1900.0,"), "%s", o->str);
  ck_assert_msg (strstr (o->str, "{\"mbps\": 950.00,\n"), "%s", o->str);
  ck_assert_msg (strstr (o->str, "\"payload\": 0.500000, \"tlp_overhead\": 0.250000"), "%s", o->str);
  ck_assert_msg (strstr (o->str, "\"sim_time_ns\": 1234.500}"), "%s", o->str);
  /* Only the read figure has both values; write's published figure is repeated but not compared. */
  JsonArray *cmp = json_object_get_array_member (doc, "comparison");
  ck_assert_uint_eq (json_array_get_length (cmp), 1);
  JsonObject *pub = json_object_get_object_member (doc, "published");
  ck_assert_double_eq (json_object_get_double_member (pub, "dma_write_mbps"), 2000);
  ck_assert (json_object_get_boolean_member (pub, "comparable"));
  /* What was run: the seed and every key (item 11), each with its value and origin. */
  ck_assert_int_eq (json_object_get_int_member (doc, "seed"), 0);
  JsonObject *keys = json_object_get_object_member (doc, "resolved_config");
  JsonObject *lanes = json_object_get_object_member (keys, "link.lanes");
  ck_assert_int_eq (json_object_get_int_member (lanes, "value"), 4);
  ck_assert_str_eq (json_object_get_string_member (lanes, "from"), "default");
  ck_assert_double_eq (json_object_get_double_member (json_object_get_object_member (keys, "endpoint.clock_mhz"),
                                                      "value"), 250);
  /* with_wall adds the one nondeterministic value, last. */
  g_string_truncate (o, 0);
  ps_report_render (o, &res, PS_FORMAT_JSON, TRUE);
  ck_assert_msg (strstr (o->str, "\"wall_s\": 1.500}\n}\n"), "%s", o->str);
}
END_TEST

/* format.h numbers: "%.Nf" in the C locale whatever LC_NUMERIC says. */
START_TEST (test_numbers)
{
  g_autoptr (GString) o = g_string_new (NULL);
  ps_fmt_fixed (o, 3292.6, 2);
  ck_assert_str_eq (o->str, "3292.60");
  g_string_truncate (o, 0);
  ps_fmt_fixed (o, NAN, 2);
  ck_assert_str_eq (o->str, "");
  /* A decimal-comma locale, where the machine has one; C otherwise (then the check is merely repeated). */
  if (setlocale (LC_NUMERIC, "de_DE.UTF-8") || setlocale (LC_NUMERIC, "fr_FR.UTF-8")) {
    ps_fmt_fixed (o, 0.5, 6);
    setlocale (LC_NUMERIC, "C");
    ck_assert_str_eq (o->str, "0.500000");
  }
}
END_TEST

START_TEST (test_cells)
{
  const char *in[] = { "plain", "a,b", "say \"hi\"", " edge", "a|b" };
  const char *csv[] = { "plain", "\"a,b\"", "\"say \"\"hi\"\"\"", "\" edge\"", "a|b" };
  const char *md[] = { "plain", "a,b", "say \"hi\"", " edge", "a\\|b" };
  for (int i = 0; i < 5; i++) {
    g_autoptr (GString) c = g_string_new (NULL), m = g_string_new (NULL);
    ps_csv_cell (c, in[i]);
    ps_md_cell (m, in[i]);
    ck_assert_str_eq (c->str, csv[i]);
    ck_assert_str_eq (m->str, md[i]);
  }
}
END_TEST

/* The emitter's layouts and escapes, and a document json-glib reads back to the same values. */
START_TEST (test_emitter)
{
  g_autoptr (GString) o = g_string_new (NULL);
  PsJson j;
  ps_json_init (&j, o);
  ps_json_object (&j, 2);
  ps_json_key (&j, "s");
  ps_json_string (&j, "q\"\\\n\t\x01é");
  ps_json_key (&j, "inline");
  ps_json_object (&j, 0);
  ps_json_key (&j, "a");
  ps_json_uint (&j, G_MAXUINT64);
  ps_json_key (&j, "b");
  ps_json_fixed (&j, INFINITY, 2);
  ps_json_break (&j, 4);
  ps_json_key (&j, "c");
  ps_json_general (&j, 15000000, 4);
  ps_json_end (&j);
  ps_json_key (&j, "empty");
  ps_json_array (&j, 0);
  ps_json_end (&j);
  ps_json_key (&j, "kept");
  ps_json_array (&j, 4 | PS_JSON_BREAK_EMPTY);
  ps_json_end (&j);
  ps_json_key (&j, "rows");
  ps_json_array (&j, 4);
  ps_json_raw (&j, "{\"id\": 1}");
  ps_json_bool (&j, FALSE);
  ps_json_end (&j);
  ps_json_end (&j);
  ck_assert_str_eq (o->str, "{\n"
                            "  \"s\": \"q\\\"\\\\\\n\\t\\u0001é\",\n"
                            "  \"inline\": {\"a\": 18446744073709551615, \"b\": null,\n"
                            "    \"c\": 1.5e+07},\n"
                            "  \"empty\": [],\n"
                            "  \"kept\": [\n"
                            "  ],\n"
                            "  \"rows\": [\n"
                            "    {\"id\": 1},\n"
                            "    false\n"
                            "  ]\n"
                            "}\n");
  g_autoptr (JsonNode) back = ps_json_parse (o->str, -1, NULL);
  ck_assert (back);
  JsonObject *doc = json_node_get_object (back);
  ck_assert_str_eq (json_object_get_string_member (doc, "s"), "q\"\\\n\t\x01é");
  /* json-glib reads integers beyond int64 modulo 2^64; the cast back restores them. */
  ck_assert_uint_eq ((guint64) json_object_get_int_member (json_object_get_object_member (doc, "inline"), "a"),
                     G_MAXUINT64);
  g_autoptr (GError) e = NULL;
  ck_assert_ptr_null (ps_json_parse ("{\"a\": ", -1, &e));
  ck_assert (e != NULL);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("report");
  TCase *tc = tcase_create ("report");
  tcase_add_checked_fixture (tc, setup, NULL);
  tcase_add_test (tc, test_figures);
  tcase_add_test (tc, test_csv);
  tcase_add_test (tc, test_not_comparable);
  tcase_add_test (tc, test_markdown);
  tcase_add_test (tc, test_json);
  tcase_add_test (tc, test_numbers);
  tcase_add_test (tc, test_cells);
  tcase_add_test (tc, test_emitter);
  suite_add_tcase (s, tc);
  return run_suite (s);
}
