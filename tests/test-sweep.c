/* test-sweep.c — `pciesim sweep` and `pciesim merge` as a batch system meets them: outputs identical for any
 * --jobs, shards that merge into the unsharded file, --resume that completes a cut file, located scenario
 * errors and usage errors. Scenarios are written to a temporary directory and kept tiny (4 KB transfers, one
 * iteration, read mode) so the suite stays fast under the sanitizers. PCIESIM_EXE and PCIESIM_SOURCE_ROOT come
 * from tests/meson.build. */
#include <check.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "app/base/error.h"

#define TMPDIR_TEMPLATE "pciesim-test-sweep-XXXXXX"
#include "tests/common.h"

static char *
tmp_path (const char *name)
{
  return g_build_filename (tmpdir_root, name, NULL);
}

static char *
write_tmp (const char *name, const char *text)
{
  return write_file (tmpdir_root, name, text);
}

/* A small scenario on the shipped Gen2 x8 config: `axes` is YAML text placed under axes:. */
static char *
scenario (const char *name, const char *axes)
{
  /* An absolute base: a scenario resolves base: against its own directory (scenario.h), and this one is in tmp. */
  g_autofree char *text = g_strdup_printf ("base: %s/configs/svgx_g2_x8.yaml\n"
                                           "overrides:\n"
                                           "  benchmark.transfer_bytes: 4096\n"
                                           "  benchmark.iterations: 1\n"
                                           "modes: [read]\n"
                                           "axes:\n%s",
                                           source_root (), axes);
  return write_tmp (name, text);
}

/* 4 x 2 = 8 points: pow2 from 128 to 256 gives 128 and 256. Eight is enough for three round-robin shards of
 * unequal size (3, 3, 2) and for two or four workers to be able to finish out of order, yet quick to run. */
static const char axes8[] = "  - key: endpoint.tags\n    values: [1, 2, 4, 32]\n"
                            "  - key: link.max_payload\n    range: {from: 128, to: 256, scale: pow2}\n";

/* Run a sweep that must succeed; args[0] names the output file in tmp, the rest are options. Returns the
 * output file's text. */
static char *
sweep_ok (const char *scen, const char *const *args0)
{
  g_autofree char *out = tmp_path (args0[0]);
  const char *const *extra = args0 + 1;
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  g_ptr_array_add (args, "sweep");
  g_ptr_array_add (args, (gpointer) scen);
  g_ptr_array_add (args, "--output");
  g_ptr_array_add (args, out);
  for (const char *const *a = extra; a && *a; a++)
    g_ptr_array_add (args, (gpointer) *a);
  g_ptr_array_add (args, NULL);
  g_auto (TestRun) r;
  run_program (&r, NULL, NULL, (const char *const *) args->pdata);
  ck_assert_msg (r.status == 0, "sweep %s failed (%d): %s", scen, r.status, r.err);
  /* stderr is not a terminal here, so no progress line may appear. */
  ck_assert_msg (r.err[0] == '\0', "sweep wrote to stderr: %s", r.err);
  return slurp (out);
}

#define SWEEP_OK(scen, ...) sweep_ok ((scen), (const char *const[]) { __VA_ARGS__, NULL })

/* --- determinism, order, values -------------------------------------------------------------------------- */

START_TEST (test_jobs_same_bytes)
{
  g_autofree char *s = scenario ("jobs.yaml", axes8);
  const char *formats[] = { "csv", "json" };
  for (int f = 0; f < 2; f++) {
    /* sweep.h: rows go out in point order whatever finished first, and no wall-clock value is written, so the
     * bytes must match exactly; a worker sharing state with another would show here as a changed figure. */
    g_autofree char *one = SWEEP_OK (s, "j1", "--jobs", "1", "--format", formats[f]);
    g_autofree char *two = SWEEP_OK (s, "j2", "--jobs", "2", "--format", formats[f]);
    g_autofree char *four = SWEEP_OK (s, "j4", "--jobs", "4", "--format", formats[f]);
    ck_assert_msg (strcmp (one, two) == 0 && strcmp (one, four) == 0, "%s differs between --jobs 1, 2, 4",
                   formats[f]);
  }
}
END_TEST

/* Column n (0-based) of a CSV line. */
static char *
csv_field (const char *line, int n)
{
  g_auto (GStrv) f = g_strsplit (line, ",", -1);
  ck_assert_int_lt (n, (int) g_strv_length (f));
  return g_strdup (f[n]);
}

START_TEST (test_order_and_columns)
{
  g_autofree char *s = scenario ("order.yaml", axes8);
  g_autofree char *csv = SWEEP_OK (s, "order.csv", "--jobs", "2");
  g_auto (GStrv) lines = g_strsplit (csv, "\n", -1);
  /* 1 header + 8 points + the empty string after the final newline. */
  ck_assert_int_eq (g_strv_length (lines), 10);
  /* id, the axes in file order, then scenario.h's default metrics: theoretical, and per mode run its MB/s,
   * % of theoretical and link usage (upstream payload first). */
  ck_assert_msg (g_str_has_prefix (lines[0], "id,endpoint.tags,link.max_payload,theoretical_mbps,read_mbps,"
                                             "read_pct_theoretical,read_up_payload_pct,"), "%s", lines[0]);
  /* Default metrics follow the modes run (scenario.h); columns for modes never run would be empty forever. */
  ck_assert_msg (!strstr (lines[0], "write_") && !strstr (lines[0], "simultaneous_"), "unrun modes: %s", lines[0]);
  /* First axis slowest, as nested loops: tags 1,1,2,2,4,4,32,32 and payload 128,256 alternating. */
  const char *tags[] = { "1", "1", "2", "2", "4", "4", "32", "32" };
  for (int i = 0; i < 8; i++) {
    g_autofree char *id = csv_field (lines[i + 1], 0), *t = csv_field (lines[i + 1], 1),
                    *mps = csv_field (lines[i + 1], 2);
    g_autofree char *want_id = g_strdup_printf ("%d", i + 1);
    ck_assert_str_eq (id, want_id);
    ck_assert_str_eq (t, tags[i]);
    ck_assert_str_eq (mps, i % 2 ? "256" : "128");
    /* % of theoretical is derived from the two MB/s columns (both rounded to 0.01). */
    g_autofree char *theo = csv_field (lines[i + 1], 3), *mbps = csv_field (lines[i + 1], 4),
                    *pct = csv_field (lines[i + 1], 5);
    /* The printed % is within 0.005 of the true one. Recomputing it from the printed MB/s, each off by up to
     * 0.005, adds at most 100 x 0.01 / theoretical, under 0.001 for ~3500 MB/s. So 0.01 passes any honest
     * rounding, and not a ratio taken against the wrong column. */
    double want = g_ascii_strtod (mbps, NULL) / g_ascii_strtod (theo, NULL) * 100;
    ck_assert_msg (fabs (g_ascii_strtod (pct, NULL) - want) < 0.01, "point %d: pct %s vs %.3f", i + 1, pct, want);
  }
}
END_TEST

/* A point's figure is what a plain run of the same config with the same --set values prints. */
START_TEST (test_point_matches_single_run)
{
  g_autofree char *s = scenario ("single.yaml", axes8);
  g_autofree char *json = SWEEP_OK (s, "single.json", "--format", "json");
  g_autoptr (JsonParser) p = json_parser_new ();
  ck_assert (json_parser_load_from_data (p, json, -1, NULL));
  JsonObject *root = json_node_get_object (json_parser_get_root (p));
  /* 4 x 2: merge relies on this total to notice a missing last shard, which leaves no gap in the ids. */
  ck_assert_int_eq (json_object_get_int_member (root, "points_total"), 8);
  JsonArray *points = json_object_get_array_member (root, "points");
  ck_assert_int_eq (json_array_get_length (points), 8);
  /* Point 6 = tags 4 (third value), payload 256 (second): index 5 = 2 x 2 payloads + 1, first axis slowest. */
  JsonObject *pt = json_array_get_object_element (points, 5);
  ck_assert_int_eq (json_object_get_int_member (pt, "id"), 6);
  JsonObject *params = json_object_get_object_member (pt, "params");
  ck_assert_int_eq (json_object_get_int_member (params, "endpoint.tags"), 4);
  ck_assert_int_eq (json_object_get_int_member (params, "link.max_payload"), 256);
  double swept = json_object_get_double_member (json_object_get_object_member (pt, "metrics"), "read_mbps");

  g_autofree char *cfg = g_strdup_printf ("%s/configs/svgx_g2_x8.yaml", source_root ());
  g_auto (TestRun) r;
  PCIESIM (&r, cfg, "--mode", "read", "--format", "json", "--set", "benchmark.transfer_bytes=4096", "--set",
           "benchmark.iterations=1", "--set", "endpoint.tags=4", "--set", "link.max_payload=256");
  ck_assert_msg (r.status == 0, "%s", r.err);
  g_autoptr (JsonParser) q = json_parser_new ();
  ck_assert (json_parser_load_from_data (q, r.out, -1, NULL));
  JsonObject *res = json_object_get_object_member (json_node_get_object (json_parser_get_root (q)), "results");
  double single = json_object_get_double_member (json_object_get_object_member (res, "read"), "mbps");
  /* Both are printed with 2 decimals, so equal runs print equal text; 0.006 only absorbs parsing noise, and a
   * figure one printed step (0.01) away fails: the sweep must not run a point any differently from `pciesim`. */
  ck_assert_msg (fabs (swept - single) < 0.006, "sweep %.2f vs run %.2f", swept, single);
}
END_TEST

/* Issue #12 item 14: sweep --set applies to every point, after the scenario's overrides, so point 6 (tags 4,
 * payload 256) with --set link.max_read_request=128 is the plain run with the same four --sets and that one;
 * MRRS 128 against the scenario's 512 quadruples the read requests, so the figure must move. --mode replaces the
 * scenario's modes: with write, the default metrics are the write ones. A --set of an axis is refused (64). */
START_TEST (test_sweep_set_and_mode)
{
  g_autofree char *s = scenario ("setmode.yaml", axes8);
  g_autofree char *json = SWEEP_OK (s, "setmode.json", "--format", "json", "--set", "link.max_read_request=128");
  g_autoptr (JsonParser) p = json_parser_new ();
  ck_assert (json_parser_load_from_data (p, json, -1, NULL));
  JsonObject *root = json_node_get_object (json_parser_get_root (p));
  JsonArray *sets = json_object_get_array_member (root, "sets");
  ck_assert_uint_eq (json_array_get_length (sets), 1);
  ck_assert_str_eq (json_array_get_string_element (sets, 0), "link.max_read_request=128");
  JsonObject *pt = json_array_get_object_element (json_object_get_array_member (root, "points"), 5);
  double swept = json_object_get_double_member (json_object_get_object_member (pt, "metrics"), "read_mbps");
  g_autofree char *cfg = g_strdup_printf ("%s/configs/svgx_g2_x8.yaml", source_root ());
  double single[2];
  const char *mrrs[] = { "link.max_read_request=128", "link.max_read_request=512" };
  for (int i = 0; i < 2; i++) {
    g_auto (TestRun) r;
    PCIESIM (&r, cfg, "--mode", "read", "--format", "json", "--set", "benchmark.transfer_bytes=4096", "--set",
             "benchmark.iterations=1", "--set", mrrs[i], "--set", "endpoint.tags=4", "--set", "link.max_payload=256");
    ck_assert_msg (r.status == 0, "%s", r.err);
    g_autoptr (JsonParser) q = json_parser_new ();
    ck_assert (json_parser_load_from_data (q, r.out, -1, NULL));
    JsonObject *res = json_object_get_object_member (json_node_get_object (json_parser_get_root (q)), "results");
    single[i] = json_object_get_double_member (json_object_get_object_member (res, "read"), "mbps");
  }
  ck_assert_msg (fabs (swept - single[0]) < 0.006, "sweep %.2f vs run %.2f", swept, single[0]);
  ck_assert_msg (fabs (single[1] - single[0]) > 1, "MRRS made no difference: %.2f", single[0]);

  g_autofree char *csv = SWEEP_OK (s, "mode.csv", "--mode", "write", "--jobs", "2");
  ck_assert_msg (g_str_has_prefix (csv, "id,endpoint.tags,link.max_payload,theoretical_mbps,write_mbps,") &&
                   !strstr (csv, "read_"), "%s", csv);

  g_auto (TestRun) bad;
  PCIESIM (&bad, "sweep", s, "--set", "endpoint.tags=8");
  ck_assert_int_eq (bad.status, PS_ERROR_USAGE);
  ck_assert_msg (strstr (bad.err, "endpoint.tags is an axis of this scenario"), "%s", bad.err);
}
END_TEST

/* zip pairs axes; ranges expand to the values a reader would write out by hand. */
START_TEST (test_zip_and_ranges)
{
  g_autofree char *s = scenario ("zip.yaml", "  - key: link.gen\n    range: {from: 1, to: 3}\n"
                                             "  - key: link.max_read_request\n    values: [128, 256]\n"
                                             "  - key: link.lanes\n    range: {from: 1, to: 4, scale: pow2}\n"
                                             "zip: [link.gen, link.lanes]\n");
  g_autofree char *csv = SWEEP_OK (s, "zip.csv", "--jobs", "2");
  /* The zip group (gen, lanes) takes gen's place: 3 pairs x 2 MRRS values, pairs varying slowest. By hand: gen
   * 1..3 by 1 gives 1, 2, 3 and lanes 1..4 pow2 gives 1, 2, 4, zipped into (1,1) (2,2) (3,4); columns stay in
   * file order (gen, MRRS, lanes) even though lanes moves with gen. */
  const char *want[] = { "1,1,128,1", "2,1,256,1", "3,2,128,2", "4,2,256,2", "5,3,128,4", "6,3,256,4" };
  g_auto (GStrv) lines = g_strsplit (csv, "\n", -1);
  /* 1 header + 6 points + the empty string after the final newline. */
  ck_assert_int_eq (g_strv_length (lines), 8);
  ck_assert_msg (g_str_has_prefix (lines[0], "id,link.gen,link.max_read_request,link.lanes,"), "%s", lines[0]);
  for (int i = 0; i < 6; i++)
    ck_assert_msg (g_str_has_prefix (lines[i + 1], want[i]) && lines[i + 1][strlen (want[i])] == ',',
                   "row %d: '%s', want '%s,…'", i + 1, lines[i + 1], want[i]);
}
END_TEST

/* Every shipped scenario loads and every point's config is valid; point counts are the products of the axis
 * lengths read off each file (zipped axes count once). */
START_TEST (test_shipped_scenarios)
{
  static const struct {
    const char *name;
    guint points;
  } shipped[] = {
    { "tags_vs_payload", 9 * 4 }, /* tags 1..256 pow2, payload 128..1024 pow2 */
    { "transfer_size", 21 }, /* 64 B .. 64 MB pow2, zipped with iterations */
    { "gen_width", 5 * 5 }, /* gen 1..5, lanes 1..16 pow2 */
    { "read_request", 4 * 6 }, /* 4 tag counts, MRRS 128..4096 pow2 */
    { "posted_credits", 6 * 6 }, /* PH 2..64 and PD 16..512, six listed values each */
  };
  for (guint i = 0; i < G_N_ELEMENTS (shipped); i++) {
    g_autofree char *path = g_strdup_printf ("scenarios/%s.yaml", shipped[i].name);
    g_auto (TestRun) r;
    PCIESIM (&r, "sweep", path, "--list");
    ck_assert_msg (r.status == 0, "%s: %s", path, r.err);
    g_auto (GStrv) lines = g_strsplit (r.out, "\n", -1);
    /* --list writes a header and one "id,AXIS…" row per point; + 1 more for the empty string after the last
     * newline. */
    ck_assert_msg (g_strv_length (lines) == shipped[i].points + 2, "%s: %u lines for %u points", path,
                   g_strv_length (lines), shipped[i].points);
  }
}
END_TEST

/* --- shards and merge ------------------------------------------------------------------------------------ */

START_TEST (test_shards_merge)
{
  g_autofree char *s = scenario ("shard.yaml", axes8);
  const char *formats[] = { "csv", "json" };
  for (int f = 0; f < 2; f++) {
    g_autofree char *full = SWEEP_OK (s, "full", "--format", formats[f]);
    g_autofree char *a = SWEEP_OK (s, "s1", "--shard", "1/3", "--format", formats[f]);
    g_autofree char *b = SWEEP_OK (s, "s2", "--shard", "2/3", "--format", formats[f]);
    g_autofree char *c = SWEEP_OK (s, "s3", "--shard", "3/3", "--format", formats[f]);
    if (f == 0) {
      /* Round robin over 8 points: shard 1 has 1,4,7; shard 2 has 2,5,8; shard 3 has 3,6. By hand from sweep.h:
       * shard I keeps index % 3 == I - 1, and ids are index + 1. Line counts: header + rows + the empty tail. */
      g_auto (GStrv) l1 = g_strsplit (a, "\n", -1), l3 = g_strsplit (c, "\n", -1);
      ck_assert_int_eq (g_strv_length (l1), 5);
      ck_assert_int_eq (g_strv_length (l3), 4);
      ck_assert (g_str_has_prefix (l1[1], "1,") && g_str_has_prefix (l1[2], "4,") && g_str_has_prefix (l1[3], "7,"));
      ck_assert (g_str_has_prefix (l3[1], "3,") && g_str_has_prefix (l3[2], "6,"));
    }
    g_autofree char *p1 = tmp_path ("s1"), *p2 = tmp_path ("s2"), *p3 = tmp_path ("s3"), *m = tmp_path ("merged");
    g_auto (TestRun) r;
    /* Any order of inputs. */
    PCIESIM (&r, "merge", p3, p1, p2, "--output", m);
    ck_assert_msg (r.status == 0, "merge: %s", r.err);
    g_autofree char *merged = slurp (m);
    ck_assert_msg (strcmp (merged, full) == 0, "%s: merged shards differ from the unsharded output", formats[f]);
    /* Shards 1 and 3 hold ids 1,3,4,6,7: the first gap is 2, which is what must be named. */
    g_auto (TestRun) missing;
    PCIESIM (&missing, "merge", p1, p3);
    ck_assert_msg (missing.status == PS_ERROR_DATA && strstr (missing.err, "point 2 is missing"), "%d %s",
                   missing.status, missing.err);
  }
}
END_TEST

START_TEST (test_merge_errors)
{
  g_autofree char *s = scenario ("merr.yaml", axes8);
  g_autofree char *csv = SWEEP_OK (s, "m.csv");
  g_autofree char *json = SWEEP_OK (s, "m.json", "--format", "json");
  g_autofree char *pc = tmp_path ("m.csv"), *pj = tmp_path ("m.json"), *none = tmp_path ("none.csv");
  g_auto (TestRun) r1;
  PCIESIM (&r1, "merge", pc, none);
  /* 66, the sysexits code for a missing input, as for a missing config (bad-input.md). */
  ck_assert_int_eq (r1.status, PS_ERROR_NOINPUT);
  g_auto (TestRun) r2;
  PCIESIM (&r2, "merge", pc, pj);
  /* A CSV and a JSON of the same points: merging them would mix formats in one file. */
  ck_assert_msg (r2.status == PS_ERROR_DATA && strstr (r2.err, "header differs"), "%s", r2.err);
  /* Same point, different figures: a shard of another run. One digit after the first decimal point of row 2 is
   * changed, so the id and the columns still parse and only the content tells the rows apart. */
  g_autofree char *edited = g_strdup (csv);
  char *row2 = strstr (edited, "\n2,");
  char *digit = strchr (row2 + 3, '.') + 1;
  *digit = *digit == '9' ? '8' : (char) (*digit + 1);
  g_autofree char *pe = write_tmp ("edited.csv", edited);
  g_auto (TestRun) r3;
  PCIESIM (&r3, "merge", pc, pe);
  ck_assert_msg (r3.status == PS_ERROR_DATA && strstr (r3.err, "point 2 appears twice"), "%s", r3.err);
  /* A cut file is refused: merging it would silently lose points. Five bytes off the end leave the last row
   * without its newline, the mark of a write that never finished. */
  g_autofree char *cut = g_strndup (csv, strlen (csv) - 5);
  g_autofree char *pcut = write_tmp ("cut.csv", cut);
  g_auto (TestRun) r4;
  PCIESIM (&r4, "merge", pcut);
  ck_assert_msg (r4.status == PS_ERROR_DATA && strstr (r4.err, "not a complete sweep output"), "%s", r4.err);
}
END_TEST

/* scripts/sweep-parallel: N shards through GNU parallel, merged into the unsharded bytes. */
START_TEST (test_sweep_parallel_script)
{
  g_autofree char *s = scenario ("par.yaml", axes8);
  g_autofree char *full = SWEEP_OK (s, "par-full");
  g_autofree char *out = tmp_path ("par-merged.csv");
  g_autofree char *script = g_build_filename (source_root (), "scripts", "sweep-parallel", NULL);
  g_autofree char *env = g_strdup_printf ("PCIESIM=%s", test_env ("PCIESIM_EXE"));
  /* PCIESIM points the script at the binary under test; by default it would use scripts/pciesim, which builds
   * and runs the checkout's own build/ directory. */
  g_auto (TestRun) r;
  run_program (&r, "env", NULL, (const char *const[]) { env, script, s, "3", "--output", out, NULL });
  ck_assert_msg (r.status == 0, "sweep-parallel failed: %s", r.err);
  /* 3 shards of 8 points, as in test_shards_merge, but through the script users run: the same bytes again. */
  g_autofree char *merged = slurp (out);
  ck_assert_str_eq (merged, full);
  /* The shard directory goes once the merge has succeeded. */
  g_autofree char *shards = g_strconcat (out, ".shards", NULL);
  ck_assert (!g_file_test (shards, G_FILE_TEST_EXISTS));
}
END_TEST

/* One element of a fabric as an axis and as overrides, nested or dotted (issue #26): the points run with those
 * values, exactly as the same --sets on the command line do, and a name the fabric lacks is refused. */
START_TEST (test_element_axes)
{
  g_autofree char *text = g_strdup_printf ("base: %s/configs/fabric_shared_g3_x8.yaml\n"
                                           "overrides:\n  nodes: {e2: {link: {lanes: 2}}}\n  flows.f1.bytes: 65536\n"
                                           "metrics: [f1_mbps, f2_mbps]\n"
                                           "axes:\n  - {key: nodes.e1.link.lanes, values: [1, 4]}\n", source_root ());
  g_autofree char *s = write_tmp ("elements.yaml", text);
  g_autofree char *csv = SWEEP_OK (s, "elements.csv");
  g_auto (GStrv) rows = g_strsplit (csv, "\n", -1);
  ck_assert_str_eq (rows[0], "id,nodes.e1.link.lanes,f1_mbps,f2_mbps");
  for (guint i = 1; i <= 2; i++) {
    g_autofree char *lanes = g_strdup_printf ("nodes.e1.link.lanes=%s", i == 1 ? "1" : "4");
    g_auto (TestRun) r;
    PCIESIM (&r, "configs/fabric_shared_g3_x8.yaml", "--format", "csv", "--set", "nodes.e2.link.lanes=2", "--set",
             "flows.f1.bytes=65536", "--set", lanes);
    ck_assert_msg (r.status == 0, "%s", r.err);
    /* The run's f1 and f2 rows, as the sweep's point: mbps is the 8th field of a flow row. */
    g_auto (GStrv) lines = g_strsplit (r.out, "\n", -1);
    g_autoptr (GString) want = g_string_new (NULL);
    g_string_append_printf (want, "%u,%s", i, i == 1 ? "1" : "4");
    for (guint l = 0; lines[l]; l++) {
      g_auto (GStrv) f = g_strsplit (lines[l], ",", -1);
      if (g_strv_length (f) > 8 && (strcmp (f[1], "f1") == 0 || strcmp (f[1], "f2") == 0))
        g_string_append_printf (want, ",%s", f[7]);
    }
    ck_assert_str_eq (rows[i], want->str);
  }
  g_autofree char *bad_text = g_strdup_printf ("base: %s/configs/fabric_shared_g3_x8.yaml\n"
                                               "axes:\n  - {key: nodes.e9.link.lanes, values: [1, 4]}\n",
                                               source_root ());
  g_autofree char *bad = write_tmp ("elements-bad.yaml", bad_text);
  g_auto (TestRun) r;
  PCIESIM (&r, "sweep", bad);
  ck_assert_msg (r.status == 65 && strstr (r.err, "no node named 'e9'"), "%d: %s", r.status, r.err);
}
END_TEST

/* A read flow's round trips as sweep metrics (issue #25): each cell the run report's CSV figure (the last four
 * columns of a flow row: mean, p50, p99, max), and empty for a write flow, which has none. */
START_TEST (test_flow_read_latency_metrics)
{
  g_autofree char *text = g_strdup_printf ("base: %s/configs/fabric_shared_g3_x8.yaml\n"
                                           "overrides: {flows.f1.op: read, fabric.active_flows: 2}\n"
                                           "metrics: [f1_read_latency_mean_ns, f1_read_latency_p99_ns, "
                                           "f1_read_latency_max_ns, f2_read_latency_mean_ns]\n"
                                           "axes:\n  - {key: flows.f1.bytes, values: [65536]}\n", source_root ());
  g_autofree char *s = write_tmp ("read-latency.yaml", text);
  g_autofree char *csv = SWEEP_OK (s, "read-latency.csv");
  g_auto (GStrv) rows = g_strsplit (csv, "\n", -1);
  ck_assert_str_eq (rows[0], "id,flows.f1.bytes,f1_read_latency_mean_ns,f1_read_latency_p99_ns,"
                             "f1_read_latency_max_ns,f2_read_latency_mean_ns");
  g_auto (TestRun) r;
  PCIESIM (&r, "configs/fabric_shared_g3_x8.yaml", "--format", "csv", "--set", "flows.f1.op=read", "--set",
           "fabric.active_flows=2", "--set", "flows.f1.bytes=65536");
  ck_assert_msg (r.status == 0, "%s", r.err);
  g_auto (GStrv) lines = g_strsplit (r.out, "\n", -1);
  g_autofree char *want = NULL;
  for (guint l = 0; lines[l]; l++) {
    g_auto (GStrv) f = g_strsplit (lines[l], ",", -1);
    if (g_strv_length (f) == 34 && strcmp (f[1], "f1") == 0)
      want = g_strdup_printf ("1,65536,%s,%s,%s,", f[30], f[32], f[33]);
  }
  ck_assert_ptr_nonnull (want);
  ck_assert_str_eq (rows[1], want);
}
END_TEST

/* Each flow's verdict as a sweep metric (FLOW_limited_by, issue #25): every cell is the cause the point's own run
 * gives as that flow's limited_by.cause in its JSON, and a flow left out by fabric.active_flows has an empty one. */
START_TEST (test_flow_limited_by_metric)
{
  g_autofree char *text = g_strdup_printf ("base: %s/configs/fabric_shared_g3_x8.yaml\n"
                                           "overrides: {flows.f1.bytes: 65536, flows.f2.bytes: 65536, "
                                           "fabric.active_flows: 2}\n"
                                           "metrics: [f1_limited_by, f2_limited_by, f3_limited_by]\n"
                                           "axes:\n  - {key: nodes.e1.link.lanes, values: [1, 8]}\n", source_root ());
  g_autofree char *s = write_tmp ("flow-limited-by.yaml", text);
  g_autofree char *csv = SWEEP_OK (s, "flow-limited-by.csv");
  g_auto (GStrv) rows = g_strsplit (csv, "\n", -1);
  ck_assert_str_eq (rows[0], "id,nodes.e1.link.lanes,f1_limited_by,f2_limited_by,f3_limited_by");
  for (guint i = 1; i <= 2; i++) {
    const char *lanes = i == 1 ? "1" : "8";
    g_autofree char *set = g_strdup_printf ("nodes.e1.link.lanes=%s", lanes);
    g_auto (TestRun) r;
    PCIESIM (&r, "configs/fabric_shared_g3_x8.yaml", "--format", "json", "--set", "flows.f1.bytes=65536", "--set",
             "flows.f2.bytes=65536", "--set", "fabric.active_flows=2", "--set", set);
    ck_assert_msg (r.status == 0, "%s", r.err);
    g_autoptr (JsonParser) p = json_parser_new ();
    g_autoptr (GError) e = NULL;
    ck_assert_msg (json_parser_load_from_data (p, r.out, -1, &e), "%s", e ? e->message : "");
    JsonArray *flows = json_object_get_array_member (json_node_get_object (json_parser_get_root (p)), "flows");
    g_autofree char *want = g_strdup_printf ("%u,%s", i, lanes);
    for (guint k = 0; k < 2; k++) {
      JsonObject *f = json_array_get_object_element (flows, k);
      ck_assert_str_eq (json_object_get_string_member (f, "name"), k ? "f2" : "f1");
      JsonObject *lb = json_object_get_object_member (f, "limited_by");
      const char *cause = json_object_get_string_member (lb, "cause");
      ck_assert_msg (cause != NULL && cause[0] != '\0', "flow %u has no cause: %s", k, r.out);
      char *more = g_strdup_printf ("%s,%s", want, cause);
      g_free (want);
      want = more;
    }
    /* f3 did not run: its cell is empty. */
    char *more = g_strconcat (want, ",", NULL);
    g_free (want);
    want = more;
    ck_assert_str_eq (rows[i], want);
  }
}
END_TEST

/* scripts/plot draws PNG and SVG from a sweep CSV, and names the columns when asked for one that is not there. */
START_TEST (test_plot_script)
{
  g_autofree char *s = scenario ("plot.yaml", axes8);
  g_autofree char *csv = SWEEP_OK (s, "plot.csv");
  g_autofree char *in = tmp_path ("plot.csv"), *png = tmp_path ("plot.png"), *svg = tmp_path ("plot.svg");
  g_autofree char *script = g_build_filename (source_root (), "scripts", "plot", NULL);
  const char *line[] = { "line", in, "--x", "endpoint.tags", "--y", "read_mbps", "--series",
                         "link.max_payload", "--logx", "-o", png, NULL };
  const char *heat[] = { "heatmap", in, "--x", "link.max_payload", "--y", "endpoint.tags", "--z",
                         "read_mbps", "-o", svg, NULL };
  const char *bad[] = { "line", in, "--x", "endpoint.tagz", "--y", "read_mbps", "-o", png, NULL };
  /* The sweep's second axis (link.max_payload, two values) not given as --series: each tags value has two rows in
   * the one line, which would zigzag; refused as a usage error naming the column (issue #26). */
  const char *zigzag[] = { "line", in, "--x", "endpoint.tags", "--y", "read_mbps", "-o", png, NULL };
  const char *const *cmds[] = { line, heat, bad, zigzag };
  /* scripts/plot's documented statuses follow pciesim's: 65 when a named column is not in the CSV, not 64. */
  const int want[] = { 0, 0, 65, 64 };
  for (int i = 0; i < 4; i++) {
    g_auto (TestRun) r;
    run_program (&r, script, NULL, cmds[i]);
    ck_assert_msg (r.status == want[i], "plot %d: status %d: %s", i, r.status, r.err);
    ck_assert_msg (i != 3 || strstr (r.err, "give it as --series (columns that vary: link.max_payload"), "%s", r.err);
  }
  g_autofree char *png_data = NULL, *svg_data = NULL;
  gsize png_len = 0;
  ck_assert (g_file_get_contents (png, &png_data, &png_len, NULL));
  /* The 8-byte PNG signature, not the file name: a script that wrote an error text to `plot.png` would fail. */
  ck_assert_msg (png_len > 8 && memcmp (png_data, "\x89PNG\r\n\x1a\n", 8) == 0, "not a PNG");
  svg_data = slurp (svg);
  ck_assert_msg (strstr (svg_data, "<svg") != NULL, "not an SVG");
}
END_TEST

/* Issue #12 item 14: several --series columns make one line per combination (here a zipped pair: tags 1 with
 * payload 128, tags 2 with 256, so two lines over two transfer sizes), a sweep's JSON plots exactly as its CSV
 * (the same gnuplot script, data included), and the legend stands outside the plot area. */
START_TEST (test_plot_series_json)
{
  g_autofree char *text = g_strdup_printf ("base: %s/configs/svgx_g2_x8.yaml\n"
                                           "overrides: {benchmark.iterations: 1}\n"
                                           "modes: [read]\n"
                                           "metrics: [read_mbps]\n"
                                           "axes:\n"
                                           "  - {key: endpoint.tags, values: [1, 2]}\n"
                                           "  - {key: link.max_payload, values: [128, 256]}\n"
                                           "  - {key: benchmark.transfer_bytes, values: [4096, 8192]}\n"
                                           "zip: [endpoint.tags, link.max_payload]\n", source_root ());
  g_autofree char *s = write_tmp ("series.yaml", text);
  g_autofree char *csv = SWEEP_OK (s, "series.csv");
  g_autofree char *json = SWEEP_OK (s, "series.json", "--format", "json");
  g_autofree char *in_csv = tmp_path ("series.csv"), *in_json = tmp_path ("series.json");
  g_autofree char *png = tmp_path ("series.png"), *gp_csv = tmp_path ("csv.gp"), *gp_json = tmp_path ("json.gp");
  g_autofree char *script = g_build_filename (source_root (), "scripts", "plot", NULL);
  const char *inputs[] = { in_csv, in_json }, *scripts[] = { gp_csv, gp_json };
  for (int i = 0; i < 2; i++) {
    const char *args[] = { "line", inputs[i], "--x", "benchmark.transfer_bytes", "--y", "read_mbps", "--series",
                           "endpoint.tags,link.max_payload", "-o", png, "--script", scripts[i], NULL };
    g_auto (TestRun) r;
    run_program (&r, script, NULL, args);
    ck_assert_msg (r.status == 0, "plot %s: status %d: %s", inputs[i], r.status, r.err);
  }
  g_autofree char *a = slurp (gp_csv), *b = slurp (gp_json);
  ck_assert_str_eq (a, b);
  ck_assert_msg (strstr (a, "array T[2]\n") && strstr (a, "T[1] = 'endpoint.tags = 1, link.max_payload = 128'\n") &&
                   strstr (a, "T[2] = 'endpoint.tags = 2, link.max_payload = 256'\n"), "%s", a);
  ck_assert_msg (strstr (a, "set key outside"), "%s", a);
}
END_TEST

/* --- resume ---------------------------------------------------------------------------------------------- */

START_TEST (test_resume_completes)
{
  g_autofree char *s = scenario ("resume.yaml", axes8);
  const char *formats[] = { "csv", "json" };
  for (int f = 0; f < 2; f++) {
    g_autofree char *full = SWEEP_OK (s, "resume-full", "--format", formats[f]);
    size_t len = strlen (full);
    /* Cut inside the header, at a line boundary, inside a row, and just before the end. Every cut must lead to
     * the same bytes as the uninterrupted run: a resume that kept a half row, or re-ran and appended a point it
     * had kept, would differ. The last cut leaves the final CSV row, or the JSON epilogue, unfinished. */
    const char *first_row = strstr (full, f ? "    {\"id\": 1" : "\n1,");
    size_t cuts[] = { 3, (size_t) (first_row - full) + 1, len / 2, len - 2 };
    for (int c = 0; c < 4; c++) {
      g_autofree char *partial = g_strndup (full, cuts[c]);
      g_autofree char *p = write_tmp ("resume-out", partial);
      g_autofree char *done = SWEEP_OK (s, "resume-out", "--resume", "--jobs", "2", "--format", formats[f]);
      ck_assert_msg (strcmp (done, full) == 0, "%s cut at %zu: resumed output differs", formats[f], cuts[c]);
    }
    /* No file yet: --resume runs everything. A batch job re-submitted with the same command line must work
     * whether or not its first attempt got far enough to create the file. */
    g_autofree char *p = tmp_path ("resume-new");
    g_remove (p);
    g_autofree char *fresh = SWEEP_OK (s, "resume-new", "--resume", "--format", formats[f]);
    ck_assert_str_eq (fresh, full);
  }
}
END_TEST

/* Resume must keep rows it did not compute: prove it by planting a row no simulation would produce. */
START_TEST (test_resume_keeps_rows)
{
  g_autofree char *s = scenario ("keep.yaml", axes8);
  g_autofree char *full = SWEEP_OK (s, "keep-full");
  g_auto (GStrv) lines = g_strsplit (full, "\n", -1);
  /* Point 1 is tags 1, payload 128, then one metric per header column after the first three: all 1.25. No run
   * of point 1 gives 1.25 in every column (theoretical alone is thousands of MB/s), so seeing it back proves the
   * row was kept, not recomputed; and row 2 equal to the full run's shows the rest were computed. */
  GString *row = g_string_new ("1,1,128");
  guint commas = 0;
  for (const char *c = lines[0]; *c; c++)
    commas += *c == ',';
  for (guint m = 0; m + 2 < commas; m++)
    g_string_append (row, ",1.25");
  g_autofree char *want = g_string_free (row, FALSE);
  g_autofree char *planted = g_strdup_printf ("%s\n%s\n", lines[0], want);
  g_autofree char *p = write_tmp ("keep-out", planted);
  g_autofree char *done = SWEEP_OK (s, "keep-out", "--resume");
  g_auto (GStrv) got = g_strsplit (done, "\n", -1);
  ck_assert_str_eq (got[1], want);
  ck_assert_str_eq (got[2], lines[2]);
  /* As many lines as the full run: the planted row replaced point 1's, it was not written beside it. */
  ck_assert_int_eq (g_strv_length (got), g_strv_length (lines));
}
END_TEST

/* SIGTERM (what Slurm sends before it kills or pre-empts a job) stops the sweep, which dies of the signal after
 * saving what it finished; --resume then completes the same bytes. Wherever the signal lands — before the
 * handler is installed, while configs load, mid-run — those two facts hold, so the test does not race. */
START_TEST (test_sigterm_saves_and_resumes)
{
  g_autofree char *text = g_strdup_printf ("base: %s/configs/svgx_g2_x8.yaml\n"
                                           "overrides: {benchmark.iterations: 5}\n"
                                           "modes: [read, write]\n"
                                           "axes:\n  - {key: endpoint.tags, range: {from: 1, to: 40}}\n",
                                           source_root ());
  g_autofree char *s = write_tmp ("term.yaml", text);
  /* 40 points x two modes x 5 iterations of the base's 100 KB transfer. The 0.2 s below aims at mid-run but
   * cannot promise it: an optimised build finishes these points in under 0.1 s, so there the test mostly shows
   * that a finished file resumes to itself; slower builds (debug, sanitizers, valgrind) take the mid-run path. */
  g_autofree char *full = SWEEP_OK (s, "term-full", "--jobs", "2");
  g_autofree char *out = tmp_path ("term-out");
  const char *argv[] = { test_env ("PCIESIM_EXE"), "sweep", s, "--jobs", "2", "--output", out, NULL };
  GPid pid;
  ck_assert (g_spawn_async (NULL, (char **) argv, NULL,
                            G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL, NULL,
                            NULL, &pid, NULL));
  g_usleep (G_USEC_PER_SEC / 5);
  kill (pid, SIGTERM);
  int ws = 0;
  ck_assert_int_eq (waitpid (pid, &ws, 0), pid);
  g_spawn_close_pid (pid);
  /* Either it died of the signal, or it had finished already (a very fast machine): never another status.
   * main.c re-raises the signal after saving: dying of it tells the parent (a shell, Slurm, GNU parallel) that
   * the job was interrupted, which no exit status can say unambiguously. */
  ck_assert_msg ((WIFSIGNALED (ws) && WTERMSIG (ws) == SIGTERM) || (WIFEXITED (ws) && WEXITSTATUS (ws) == 0),
                 "wait status %d", ws);
  g_autofree char *done = SWEEP_OK (s, "term-out", "--resume", "--jobs", "2");
  ck_assert_msg (strcmp (done, full) == 0, "resumed output differs from an uninterrupted run");
}
END_TEST

START_TEST (test_resume_foreign_file)
{
  g_autofree char *s = scenario ("foreign.yaml", axes8);
  g_autofree char *p = write_tmp ("foreign.csv", "id,something,else\n1,2,3\n");
  g_auto (TestRun) r;
  PCIESIM (&r, "sweep", s, "--resume", "--output", p);
  ck_assert_msg (r.status == PS_ERROR_DATA && strstr (r.err, "not an output of this scenario"), "%s", r.err);
  g_autofree char *kept = slurp (p);
  /* The refused file is the user's data: resume must not truncate or rewrite it before deciding. */
  ck_assert_str_eq (kept, "id,something,else\n1,2,3\n");
  /* A shard's file resumed as another shard holds points that are not its own. */
  g_free (SWEEP_OK (s, "shard1.csv", "--shard", "1/2"));
  g_autofree char *p1 = tmp_path ("shard1.csv");
  g_auto (TestRun) r2;
  PCIESIM (&r2, "sweep", s, "--resume", "--shard", "2/2", "--output", p1);
  /* Shard 1/2 holds ids 1,3,5,7; its first row, line 2 of the file, is id 1, which shard 2/2 (ids 2,4,6,8)
   * does not own. */
  ck_assert_msg (r2.status == PS_ERROR_DATA && strstr (r2.err, "line 2 is not a point of this shard"), "%s", r2.err);
}
END_TEST

/* --- errors ---------------------------------------------------------------------------------------------- */

typedef struct {
  const char *text; /* scenario body; BASE is replaced by the shipped config's path */
  int status;
  int line, col; /* hand-counted from `text`; 0 = not located in the scenario */
  const char *needle;
} BadCase;

/* Where each error is located, by the rules of bad-input.md: an unknown key at the key, a bad value at the value
 * (a range's values at the range mapping), a missing key at the mapping that lacks it, a duplicate at its second
 * occurrence. Columns are 1-based characters: "  - key: " is 9 wide, so its value starts at column 10. */
static const BadCase bad_cases[] = {
  { "base: BASE\naxis:\n  - {key: endpoint.tags, values: [1]}\n", 65, 2, 1, "did you mean 'axes'?" },
  { "base: BASE\naxes:\n  - key: endpoint.tagz\n    values: [1]\n", 65, 3, 10, "did you mean 'endpoint.tags'?" },
  /* The bad value is the second item of a flow sequence: "    values: [1, 20000]" -> column 17. */
  { "base: BASE\naxes:\n  - key: endpoint.tags\n    values: [1, 20000]\n", 65, 4, 17,
    "axis endpoint.tags = 20000 (point 2): endpoint.tags must be between 1 and 15360" },
  /* A range value is located at the range. 128 to 8192 in powers of two is 128, 256, 512, 1024, 2048, 4096,
   * 8192: the first value above the spec's largest MPS (4096, pcie-protocol.md §6) is point 7. */
  { "base: BASE\naxes:\n  - key: link.max_payload\n    range: {from: 128, to: 8192, scale: pow2}\n", 65, 4, 12,
    "axis link.max_payload = 8192 (point 7)" },
  /* Column 36 is `log` itself: "    range: {from: 1, to: 4, scale: " is 35 characters. */
  { "base: BASE\naxes:\n  - key: endpoint.tags\n    range: {from: 1, to: 4, scale: log}\n", 65, 4, 36,
    "scale must be linear or pow2" },
  { "base: BASE\naxes:\n  - key: endpoint.tags\n    range: {from: 8, to: 4}\n", 65, 4, 12, "to is below from" },
  { "base: BASE\noverrides:\n  link:\n    lanes: 3\naxes:\n  - {key: endpoint.tags, values: [1]}\n", 65, 4, 12,
    "override: link.lanes must be" },
  { "base: BASE\noverrides:\n  link.lane: 4\naxes:\n  - {key: endpoint.tags, values: [1]}\n", 65, 3, 3,
    "did you mean 'link.lanes'?" },
  { "base: BASE\naxes:\n  - key: endpoint.tags\n    values: []\n", 65, 4, 13, "lists no values" },
  { "base: BASE\naxes:\n  - key: endpoint.tags\n", 65, 3, 5, "needs either values: or range:" },
  /* The zip entry blamed is the second axis, the one whose 3 values disagree with the first's 2. */
  { "base: BASE\naxes:\n  - {key: endpoint.tags, values: [1, 2]}\n  - {key: link.lanes, values: [1, 2, 4]}\n"
    "zip: [endpoint.tags, link.lanes]\n", 65, 5, 22, "as many values" },
  { "base: BASE\naxes:\n  - {key: endpoint.tags, values: [1]}\nzip: [endpoint.tags, link.gen]\n", 65, 4, 22,
    "'link.gen', which is not an axis" },
  { "base: BASE\nmodes: read\nmetrics: [write_mbps]\naxes:\n  - {key: endpoint.tags, values: [1]}\n", 65, 3, 11,
    "needs write mode" },
  { "base: BASE\naxes:\n  - {key: benchmark.modes, values: [read]}\n", 65, 3, 11, "cannot be an axis" },
  /* A fabric's metric over a one-link base (docs/fabrics.md): "metrics: [" is 10 characters. */
  { "base: BASE\nmetrics: [flows_total_mbps]\naxes:\n  - {key: endpoint.tags, values: [1]}\n", 65, 2, 11,
    "is a fabric's: the base config has no topology:" },
  { "base: BASE\naxes:\n  - {key: endpoint.tags, values: [1]}\n  - {key: endpoint.tags, values: [2]}\n", 65, 4,
    11, "given twice" },
  /* A missing base is missing input (66), not bad data, yet still located at the base: value. */
  { "base: no-such-config.yaml\naxes:\n  - {key: endpoint.tags, values: [1]}\n", 66, 1, 7, "does not exist" },
  { "axes:\n  - {key: endpoint.tags, values: [1]}\n", 65, 1, 1, "needs base:" },
  /* ytree's own checks apply to scenarios too. */
  { "base: BASE\naxes:\n  - {key: endpoint.tags, values: [1]}\nbase: BASE\n", 65, 4, 1, "duplicate" },
};

START_TEST (test_scenario_errors)
{
  const BadCase *c = &bad_cases[_i];
  g_autofree char *base = g_strdup_printf ("%s/configs/svgx_g2_x8.yaml", source_root ());
  g_auto (GStrv) parts = g_strsplit (c->text, "BASE", -1);
  g_autofree char *text = g_strjoinv (base, parts);
  g_autofree char *name = g_strdup_printf ("bad%d.yaml", _i);
  g_autofree char *p = write_tmp (name, text);
  g_auto (TestRun) r;
  PCIESIM (&r, "sweep", p);
  ck_assert_msg (r.status == c->status, "case %d: status %d, want %d (%s)", _i, r.status, c->status, r.err);
  g_autofree char *loc = g_strdup_printf ("%s:%d:%d: error: ", p, c->line, c->col);
  ck_assert_msg (g_str_has_prefix (r.err, loc), "case %d: '%s' does not start with '%s'", _i, r.err, loc);
  ck_assert_msg (strstr (r.err, c->needle), "case %d: '%s' does not say '%s'", _i, r.err, c->needle);
  /* bad-input.md: one line on stderr and nothing on stdout, so a script that captured stdout gets no half CSV. */
  const char *nl = strchr (r.err, '\n');
  ck_assert_msg (nl && nl[1] == '\0', "case %d: stderr is not one line: %s", _i, r.err);
  ck_assert_msg (r.out[0] == '\0', "case %d: wrote output on error", _i);
}
END_TEST

typedef struct {
  const char *args[6];
  const char *needle;
} UsageCase;

/* Every way to get --shard I/N wrong (I below 1, I above N, not numbers, no slash, N of 0, a sign), each echoed
 * as typed so the user sees which argument; then option combinations that cannot mean anything: a table has no
 * stable row format to resume or merge, resume needs a file to read, --jobs 0 means "one per processor" but a
 * negative count means nothing, and --list runs no point that could be resumed. */
static const UsageCase usage_cases[] = {
  { { "--shard", "0/3" }, "--shard '0/3'" },
  { { "--shard", "4/3" }, "--shard '4/3'" },
  { { "--shard", "a/b" }, "--shard 'a/b'" },
  { { "--shard", "3" }, "--shard '3'" },
  { { "--shard", "1/0" }, "--shard '1/0'" },
  { { "--shard", "-1/3" }, "--shard '-1/3'" },
  { { "--format", "table" }, "csv or json" },
  { { "--resume" }, "--resume needs --output" },
  { { "--jobs", "-2" }, "--jobs" },
  { { "--list", "--resume", "--output", "x.csv" }, "--list runs nothing" },
};

START_TEST (test_usage_errors)
{
  const UsageCase *c = &usage_cases[_i];
  g_autofree char *s = scenario ("usage.yaml", axes8);
  const char *args[9] = { "sweep", s };
  for (int i = 0; c->args[i]; i++)
    args[2 + i] = c->args[i];
  g_auto (TestRun) r;
  run_program (&r, NULL, NULL, args);
  ck_assert_msg (r.status == PS_ERROR_USAGE, "case %d: status %d, want 64 (%s)", _i, r.status, r.err);
  ck_assert_msg (strstr (r.err, c->needle), "case %d: '%s' does not say '%s'", _i, r.err, c->needle);
  /* A usage error is found before any point runs, so not even a CSV header may reach stdout. */
  ck_assert_str_eq (r.out, "");
}
END_TEST

START_TEST (test_usage_no_scenario)
{
  g_auto (TestRun) r1;
  PCIESIM (&r1, "sweep");
  ck_assert_int_eq (r1.status, PS_ERROR_USAGE);
  g_auto (TestRun) r2;
  PCIESIM (&r2, "merge");
  ck_assert_int_eq (r2.status, PS_ERROR_USAGE);
  g_auto (TestRun) r3;
  /* A command line that names a file that is not there is well formed: 66 (missing input), not 64. */
  PCIESIM (&r3, "sweep", "scenarios/no_such_scenario.yaml");
  ck_assert_int_eq (r3.status, PS_ERROR_NOINPUT);
}
END_TEST

/* An output that cannot be written is EX_CANTCREAT, and nothing is left behind. */
START_TEST (test_unwritable_output)
{
  g_autofree char *s = scenario ("unwritable.yaml", "  - {key: endpoint.tags, values: [1]}\n");
  /* A file in a directory that does not exist: unwritable for any user, root included, unlike a chmod. */
  g_autofree char *out = g_build_filename (tmpdir_root, "no-such-dir", "out.csv", NULL);
  g_auto (TestRun) r;
  PCIESIM (&r, "sweep", s, "--output", out);
  ck_assert_int_eq (r.status, PS_ERROR_CANTCREAT);
}
END_TEST

static Suite *
sweep_suite (void)
{
  Suite *s = suite_create ("sweep");
  TCase *t = tcase_create ("sweep");
  tcase_add_unchecked_fixture (t, tmpdir_setup, tmpdir_teardown);
  /* Per test: the slowest run several full sweeps (formats x jobs, or shards and their merge), many times
   * slower under the sanitizers and valgrind. */
  tcase_set_timeout (t, 120);
  tcase_add_test (t, test_jobs_same_bytes);
  tcase_add_test (t, test_order_and_columns);
  tcase_add_test (t, test_point_matches_single_run);
  tcase_add_test (t, test_sweep_set_and_mode);
  tcase_add_test (t, test_plot_series_json);
  tcase_add_test (t, test_zip_and_ranges);
  tcase_add_test (t, test_shipped_scenarios);
  tcase_add_test (t, test_shards_merge);
  tcase_add_test (t, test_merge_errors);
  tcase_add_test (t, test_sweep_parallel_script);
  tcase_add_test (t, test_plot_script);
  tcase_add_test (t, test_element_axes);
  tcase_add_test (t, test_flow_read_latency_metrics);
  tcase_add_test (t, test_flow_limited_by_metric);
  tcase_add_test (t, test_resume_completes);
  tcase_add_test (t, test_resume_keeps_rows);
  tcase_add_test (t, test_resume_foreign_file);
  tcase_add_test (t, test_sigterm_saves_and_resumes);
  tcase_add_loop_test (t, test_scenario_errors, 0, G_N_ELEMENTS (bad_cases));
  tcase_add_loop_test (t, test_usage_errors, 0, G_N_ELEMENTS (usage_cases));
  tcase_add_test (t, test_usage_no_scenario);
  tcase_add_test (t, test_unwritable_output);
  suite_add_tcase (s, t);
  return s;
}

int
main (void)
{
  return run_suite (sweep_suite ());
}
