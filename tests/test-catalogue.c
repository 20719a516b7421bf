/* test-catalogue.c — every config the repository ships, through the real binary: each configs/NAME.yaml runs
 * (`pciesim CONFIG --format json --set benchmark.iterations=2`), exits 0, prints the schema-1 JSON contract
 * (docs/reference/design.md), and no simulated figure is above the protocol limit it reports. Also: every
 * device of the AN-456 catalogue (published-calibration.md §1) has its config, with the figures of its table.
 * PCIESIM_EXE and PCIESIM_SOURCE_ROOT come from tests/meson.build. */
#include <check.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>
#include <sys/wait.h>

#include "tests/common.h"

/* configs/NAME.yaml paths relative to the source root, sorted; filled by main() before the runner forks. */
static GPtrArray *configs;

/* The AN-456 device catalogue, published-calibration.md §1, with the table each row's figures come from.
 * Typed out from the document, not listed from configs/, so a deleted or renamed config fails instead of
 * silently leaving the catalogue: 3 a10gx (Table 7) + 7 svgx (8) + 3 cvgt (9) + 5 avgt (10) + 10 sivgx (11) +
 * 5 aiigx (12) + 1 civgx (13) = 34 rows, every one published since the five held-back tables were released. */
static const struct {
  const char *name;
  int table;
} an456[] = {
  { "a10gx_g3_x4", 7 }, { "a10gx_g2_x8", 7 }, { "a10gx_g1_x1", 7 },
  { "svgx_g3_x4", 8 }, { "svgx_g2_x8", 8 }, { "svgx_g2_x4", 8 }, { "svgx_g2_x1", 8 },
  { "svgx_g1_x8", 8 }, { "svgx_g1_x4", 8 }, { "svgx_g1_x1", 8 },
  { "cvgt_g2_x4", 9 }, { "cvgt_g1_x4", 9 }, { "cvgt_g1_x1", 9 },
  { "avgt_g2_x4", 10 }, { "avgt_g2_x1", 10 }, { "avgt_g1_x8", 10 }, { "avgt_g1_x4", 10 },
  { "avgt_g1_x1", 10 },
  { "sivgx_g2_x8", 11 }, { "sivgx_g2_x4_avst128", 11 }, { "sivgx_g2_x4_avst64", 11 },
  { "sivgx_g2_x1", 11 }, { "sivgx_g1_x8_avst128", 11 }, { "sivgx_g1_x8_avst64", 11 },
  { "sivgx_g1_x4", 11 }, { "sivgx_g1_x1", 11 }, { "sivgx_g1_x4_soft", 11 }, { "sivgx_g1_x1_soft", 11 },
  { "aiigx_g1_x8", 12 }, { "aiigx_g1_x4", 12 }, { "aiigx_g1_x1", 12 }, { "aiigx_g1_x4_soft", 12 },
  { "aiigx_g1_x1_soft", 12 },
  { "civgx_g1_x1", 13 },
};

/* builder.c's own guard: the protocol limit is a long-run average over SKP intervals, and a finite window can
 * hold one SKP ordered set fewer than average (< 0.05%). */
/* The same slack as the binary's own guard, which exits 70 above it: a figure failing here (by more than the
 * rounding of the printed numbers) is one that guard let through, not merely a high figure. */
#define LIMIT_SLACK 5e-4

static JsonObject *
member_object (JsonObject *o, const char *name, const char *config)
{
  ck_assert_msg (json_object_has_member (o, name), "%s: JSON lacks '%s'", config, name);
  JsonNode *n = json_object_get_member (o, name);
  ck_assert_msg (JSON_NODE_HOLDS_OBJECT (n), "%s: '%s' is not an object", config, name);
  return json_node_get_object (n);
}

static double
member_number (JsonObject *o, const char *name, const char *config)
{
  ck_assert_msg (json_object_has_member (o, name), "%s: JSON lacks '%s'", config, name);
  JsonNode *n = json_object_get_member (o, name);
  GType t = json_node_get_value_type (n);
  ck_assert_msg (JSON_NODE_HOLDS_VALUE (n) && (t == G_TYPE_INT64 || t == G_TYPE_DOUBLE),
                 "%s: '%s' is not a number", config, name);
  return json_node_get_double (n);
}

static void
assert_usage (JsonObject *usage, const char *config)
{
  static const char *const dirs[] = { "upstream", "downstream" };
  static const char *const parts[] = { "payload", "tlp_overhead", "dllp", "ordered_sets", "idle" };
  for (guint d = 0; d < G_N_ELEMENTS (dirs); d++) {
    JsonObject *o = member_object (usage, dirs[d], config);
    double sum = 0;
    for (guint p = 0; p < G_N_ELEMENTS (parts); p++)
      sum += member_number (o, parts[p], config);
    /* Loose on purpose: this only proves each direction's time is split into the five parts for every shipped
     * config; test-matrix holds the sum to 1e-5 over every generation and width. */
    ck_assert_msg (sum > 0.9999 && sum < 1.0001, "%s: %s link-usage fractions sum to %g", config, dirs[d], sum);
  }
}

/* A simulated figure: positive and not above the protocol limit. */
static void
assert_figure (JsonObject *mode, const char *key, double limit, const char *config, const char *mode_name)
{
  double v = member_number (mode, key, config);
  /* A mode that ran yet moved nothing would pass the upper bound; it is a broken run, not a slow one. */
  ck_assert_msg (v > 0, "%s %s.%s = %g", config, mode_name, key, v);
  ck_assert_msg (v <= limit * (1 + LIMIT_SLACK), "%s %s.%s = %.2f MB/s is above the protocol limit %.2f MB/s",
                 config, mode_name, key, v, limit);
}

START_TEST (test_config_runs)
{
  const char *config = configs->pdata[_i];
  /* Two iterations: the contract, not the figures, is under test here (test-calibration checks those). */
  g_auto (TestRun) run;
  PCIESIM (&run, config, "--format", "json", "--set", "benchmark.iterations=2");
  /* Exit 0 also says the end-of-run invariants held (byte counts, credits, data checksums): a broken model
   * exits 70 without printing a figure (bad-input.md). */
  ck_assert_msg (run.status == 0, "%s: exit %d: %s", config, run.status, run.err);

  g_autoptr (JsonParser) p = json_parser_new ();
  g_autoptr (GError) e = NULL;
  ck_assert_msg (json_parser_load_from_data (p, run.out, -1, &e), "%s: not JSON: %s", config, e ? e->message : "");
  JsonNode *rootn = json_parser_get_root (p);
  ck_assert_msg (JSON_NODE_HOLDS_OBJECT (rootn), "%s: JSON root is not an object", config);
  JsonObject *root = json_node_get_object (rootn);
  /* Scripts depend on schema 1's keys (design.md: add keys freely, never rename); a new number must be deliberate. */
  ck_assert_int_eq (json_object_get_int_member (root, "schema"), 1);
  ck_assert_msg (json_object_has_member (root, "version") && json_object_has_member (root, "name")
                     && json_object_has_member (root, "model"),
                 "%s: version, name or model missing", config);
  /* The path exactly as given, not a resolved path or the last file an include pulled in: scripts key rows on it. */
  ck_assert_str_eq (json_object_get_string_member (root, "config"), config);
  /* A fabric runs its flows, not the benchmark's modes (docs/fabrics.md): each flow moved data (the binary holds
   * each to the protocol limit of every link on its path, exit 70 above it), each link's time in each direction
   * splits into the five parts. It has no one link, so no top-level link summary or limit (issue #26). */
  if (strcmp (json_object_get_string_member (root, "model"), "fabric") == 0) {
    ck_assert_msg (!json_object_has_member (root, "link") && !json_object_has_member (root, "protocol_limit_mbps")
                   && !json_object_has_member (root, "theoretical_mbps"), "%s: a fabric with a top-level link", config);
    JsonArray *flows = json_object_get_array_member (root, "flows");
    ck_assert_msg (flows && json_array_get_length (flows) > 0, "%s: no flow ran", config);
    for (guint i = 0; i < json_array_get_length (flows); i++)
      ck_assert_double_gt (member_number (json_array_get_object_element (flows, i), "mbps", config), 0);
    JsonArray *links = json_object_get_array_member (root, "links");
    ck_assert_msg (links && json_array_get_length (links) > 0, "%s: no links", config);
    static const char *const dirs[] = { "a_to_b", "b_to_a" };
    static const char *const parts[] = { "payload", "tlp_overhead", "dllp", "ordered_sets", "idle" };
    for (guint i = 0; i < json_array_get_length (links); i++)
      for (guint d = 0; d < 2; d++) {
        JsonObject *u = member_object (member_object (json_array_get_object_element (links, i), "usage", config),
                                       dirs[d], config);
        double sum = 0;
        for (guint q = 0; q < G_N_ELEMENTS (parts); q++)
          sum += member_number (u, parts[q], config);
        ck_assert_msg (sum > 0.9999 && sum < 1.0001, "%s: link %u %s sums to %g", config, i, dirs[d], sum);
      }
    return;
  }
  JsonObject *link = member_object (root, "link", config);
  static const char *const link_keys[] = { "gen", "lanes", "max_payload", "max_read_request",
                                           "read_completion_boundary" };
  /* No shipped file sets the RCB (the key table's default applies) and most take MRRS from an include: the report must
   * still show the values that ran, defaults included. */
  for (guint k = 0; k < G_N_ELEMENTS (link_keys); k++)
    ck_assert_double_gt (member_number (link, link_keys[k], config), 0);

  double theoretical = member_number (root, "theoretical_mbps", config);
  double limit = member_number (root, "protocol_limit_mbps", config);
  /* Reads are held to the limit of 3-DW completions, writes to that of their MWrs' headers (docs/output.md), which is
   * the same or lower; both below the vendor formula. */
  double read_limit = member_number (root, "protocol_limit_read_mbps", config);
  ck_assert_msg (read_limit >= limit && read_limit <= theoretical, "%s: read limit %g, write limit %g", config,
                 read_limit, limit);
  /* The vendor formula (published-calibration.md §1) ignores DLLPs, ordered sets and lane padding, and counts Gen3
   * lanes at 1000 MB/s without 128b/130b; the protocol limit charges all of them, so it can only be lower. */
  ck_assert_msg (theoretical > 0 && limit > 0 && limit <= theoretical, "%s: theoretical %g, limit %g", config,
                 theoretical, limit);

  JsonObject *results = member_object (root, "results", config);
  ck_assert_msg (json_object_get_size (results) > 0, "%s: no mode ran", config);
  /* A microbench config runs one of pcie-bench's tests (docs/validation.md, "pcie-bench microbenchmarks"): Gb/s
   * within what the link carries both ways, a latency per DMA, the link's time split as for the modes. */
  if (strcmp (json_object_get_string_member (root, "model"), "microbench") == 0) {
    JsonObject *mb = member_object (results, "microbench", config);
    double gbps = member_number (mb, "gbps", config);
    ck_assert_msg (gbps > 0 && gbps * 125 <= read_limit + limit, "%s: %g Gb/s", config, gbps);
    ck_assert_double_gt (member_number (member_object (mb, "latency_ns", config), "p50", config), 0);
    assert_usage (member_object (root, "link_usage", config), config);
    return;
  }
  static const char *const modes[] = { "read", "write", "simultaneous" };
  for (guint m = 0; m < G_N_ELEMENTS (modes); m++) {
    if (!json_object_has_member (results, modes[m]))
      continue;
    JsonObject *r = member_object (results, modes[m], config);
    /* Simultaneous mode moves data both ways, so it has a figure per direction and no single mbps (report.c). */
    if (m == 2) {
      assert_figure (r, "read_mbps", read_limit, config, modes[m]);
      assert_figure (r, "write_mbps", limit, config, modes[m]);
      /* Added keys (Avalon-MM DMA figures, published-calibration.md §2.1): the mean of the two, and writes with
       * the read-request cycles not counted, which can only be faster. */
      double rd = member_number (r, "read_mbps", config), wr = member_number (r, "write_mbps", config);
      double mean = member_number (r, "both_directions_mean_mbps", config);
      /* All three are printed with 2 decimals: the two inputs' rounding moves their mean by up to 0.005 and the
       * printed mean's own by another 0.005, so 0.011 allows that rounding and a little float noise, no more. */
      ck_assert_msg (fabs (mean - (rd + wr) / 2) < 0.011, "%s: both_directions_mean_mbps %.2f, read %.2f, write %.2f",
                     config, mean, rd, wr);
      double excl = member_number (r, "write_mbps_excluding_read_requests", config);
      ck_assert_msg (excl >= wr, "%s: write excluding read requests %.2f < write %.2f", config, excl, wr);
    } else
      assert_figure (r, "mbps", m == 0 ? read_limit : limit, config, modes[m]);
    assert_usage (member_object (r, "link_usage", config), config);
    /* Events and simulated time show the figure came from a run that advanced, not from a formula or a default. */
    ck_assert_double_gt (member_number (r, "events", config), 0);
    ck_assert_double_gt (member_number (r, "sim_time_ns", config), 0);
  }
  assert_usage (member_object (root, "link_usage", config), config);
  JsonObject *stats = member_object (root, "stats", config);
  ck_assert_double_gt (member_number (stats, "events", config), 0);
}
END_TEST

/* Every AN-456 device has a config, with a published: block whose source names the row's table. */
START_TEST (test_an456_complete)
{
  for (guint i = 0; i < G_N_ELEMENTS (an456); i++) {
    g_autofree char *file = g_strdup_printf ("%s.yaml", an456[i].name);
    g_autofree char *path = g_build_filename (source_root (), "configs", file, NULL);
    g_autofree char *text = NULL;
    ck_assert_msg (g_file_get_contents (path, &text, NULL, NULL), "AN-456 device %s has no config %s",
                   an456[i].name, path);
    /* Only a top-level `published:` key counts: a comment or a nested key that mentions the word is no block. */
    gboolean has_published = g_str_has_prefix (text, "published:") || strstr (text, "\npublished:") != NULL;
    ck_assert_msg (has_published, "%s: no published figures", an456[i].name);
    g_autofree char *source = g_strdup_printf ("source: \"AN-456 Table %d\"", an456[i].table);
    ck_assert_msg (strstr (text, source) != NULL, "%s: its figures are not those of AN-456 Table %d",
                   an456[i].name, an456[i].table);
  }
}
END_TEST

static gint
cmp_str (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

int
main (void)
{
  configs = g_ptr_array_new_with_free_func (g_free);
  const char *root = g_getenv ("PCIESIM_SOURCE_ROOT");
  g_autofree char *dir = g_build_filename (root ? root : ".", "configs", NULL);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  for (const char *n; d && (n = g_dir_read_name (d));)
    if (g_str_has_suffix (n, ".yaml"))
      g_ptr_array_add (configs, g_build_filename ("configs", n, NULL));
  /* g_dir_read_name() order depends on the file system: sorted, loop index N is the same config everywhere. */
  g_ptr_array_sort (configs, cmp_str);

  Suite *s = suite_create ("catalogue");
  TCase *tc = tcase_create ("configs");
  /* Each config is three full runs; sanitizer builds are many times slower than the default allows. */
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_an456_complete);
  /* At least the 34 AN-456 devices; an empty list would make the loop test vacuous. */
  if (configs->len < G_N_ELEMENTS (an456)) {
    g_printerr ("test-catalogue: only %u configs found under %s\n", configs->len, dir);
    return 1;
  }
  tcase_add_loop_test (tc, test_config_runs, 0, (int) configs->len);
  suite_add_tcase (s, tc);
  run_suite (s);
  g_ptr_array_unref (configs);
  return 0;
}
