/* test-pbimport.c — `pciesim import pciebench` on pcie-bench's three calibration folders (tests/data/pciebench/,
 * copied unchanged, Apache-2.0) and the blind set-ups' configs (configs/pciebench/). What is expected is read off
 * the CSV files here, independently of the importer: every data row of a table (a file whose header starts
 * "Test,") is either a measurement or a comment saying why not; a row's figure is its "BW (GB/s)" cell (which
 * holds Gb/s) or its "Med(ns)" cell, copied as written; the distributions (*_cdf.csv) are skipped. */
#define TMPDIR_TEMPLATE "pciesim-test-pbimport-XXXXXX"
#include "tests/common.h"

static const char *const folders[] = { "hsw-Xeon-E5-2620v3_dell-t630", "hsw-Xeon-E5-2620v3_dell-t630-iommu",
                                       "hsw-Xeon-E5-2620v3_dell-t630-iommu-nosp" };

/* Data rows of the folder's tables and the files without a table, counted from the files themselves. */
static void
count_rows (const char *dir, guint *rows, guint *skipped)
{
  *rows = *skipped = 0;
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  ck_assert (d);
  for (const char *n; (n = g_dir_read_name (d));) {
    if (!g_str_has_suffix (n, ".csv"))
      continue;
    g_autofree char *path = g_build_filename (dir, n, NULL), *text = NULL;
    ck_assert (g_file_get_contents (path, &text, NULL, NULL));
    if (!g_str_has_prefix (text, "Test,")) {
      (*skipped)++;
      continue;
    }
    g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
    for (guint i = 1; lines[i]; i++)
      *rows += g_strstrip (lines[i])[0] != '\0';
  }
}

static guint
count_prefix (const char *text, const char *prefix)
{
  guint n = 0;
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    n += g_str_has_prefix (lines[i], prefix);
  return n;
}

START_TEST (test_folders)
{
  g_autofree char *dir = g_build_filename (source_root (), "tests", "data", "pciebench", folders[_i], NULL);
  g_autofree char *tmp = case_dir (folders[_i]);
  g_autofree char *out = g_build_filename (tmp, "m.yaml", NULL);
  g_autofree char *host = g_build_filename (source_root (), "configs", "hosts", "haswell-e5-2620v3.yaml", NULL);
  g_auto (TestRun) r;
  PCIESIM (&r, "import", "pciebench", dir, "--host", host, "-o", out);
  ck_assert_msg (r.status == 0, "%s", r.err);
  g_autofree char *text = NULL;
  ck_assert (g_file_get_contents (out, &text, NULL, NULL));
  guint rows, skipped;
  count_rows (dir, &rows, &skipped);
  guint taken = count_prefix (text, "  - {set: "), refused = count_prefix (text, "  # not run by this pciesim (");
  ck_assert_msg (taken + refused == rows, "%u measurements + %u comments, %u rows in the tables", taken, refused, rows);
  ck_assert_uint_gt (taken, 0);
  g_autofree char *head = g_strdup_printf ("%u rows of", rows);
  g_autofree char *skip = g_strdup_printf ("(%u files without a table skipped)", skipped);
  ck_assert_msg (strstr (text, head) && strstr (text, skip), "%.400s", text);
  ck_assert_msg (g_str_has_prefix (strstr (text, "\nbase: ") + 1, "base: m.base.yaml\n"), "%.400s", text);
  /* The calibration host's NFP (05:00.0, nfp-pciebench, line 919 of its lspci): MPS 256 and MRRS 512 there. */
  g_autofree char *base = g_build_filename (tmp, "m.base.yaml", NULL), *btext = NULL;
  ck_assert (g_file_get_contents (base, &btext, NULL, NULL));
  ck_assert_msg (strstr (btext, "device 05:00.0") && strstr (btext, "workload: microbench"), "%.600s", btext);
  if (_i != 0)
    return;
  /* Two rows read off the files by hand: bw_dma_sz_sweep.csv line 5 (64-byte random reads in an 8 KB warm window,
   * 32.0185… "GB/s", i.e. Gb/s) and lat_dma_sizes.csv line 3 (8-byte sequential reads, median 533.33 ns). */
  ck_assert_msg (strstr (text, "  - {set: {microbench.test: bw_rd, microbench.transfer_bytes: 64, "
                         "microbench.window_bytes: 8192, microbench.offsets: random, microbench.cache: warm}, "
                         "microbench_gbps: 32.01853935504803}   # bw_dma_sz_sweep.csv:5\n"), "bw row missing");
  ck_assert_msg (strstr (text, "microbench.transfer_bytes: 8, microbench.window_bytes: 8192, microbench.offsets: "
                         "sequential, microbench.cache: warm}, microbench_latency_p50_ns: 533.3333333333334}   # "
                         "lat_dma_sizes.csv:3\n"), "lat row missing");
  /* bw_dma_sz_sweep.csv line 83: 32-byte reads and writes in turn, 11.567… Gb/s of one direction's bytes, compared
   * with the run's reads alone (microbench_gbps adds both directions: twice the figure). */
  ck_assert_msg (strstr (text, "  - {set: {microbench.test: bw_rdwr, microbench.transfer_bytes: 32, "
                         "microbench.window_bytes: 8192, microbench.offsets: random, microbench.cache: warm}, "
                         "microbench_read_gbps: 11.567703250896802}   # bw_dma_sz_sweep.csv:83\n"), "rdwr row missing");
  /* Every row runs now, the device offsets' too: bw_dma_off_rd.csv line 18 (64-byte sequential reads 1 byte into
   * the device's word, 12.69… Gb/s). */
  ck_assert_msg (refused == 0, "%u rows refused", refused);
  ck_assert_msg (strstr (text, "microbench.transfer_bytes: 64, microbench.window_bytes: 8192, microbench.offsets: "
                         "sequential, microbench.cache: warm, microbench.device_offset: 1}, microbench_gbps: "
                         "12.69287143604409}   # bw_dma_off_rd.csv:18\n"), "device offset row missing");
  /* fit accepts the file: its first measurements, one parameter with a range in the host file. */
  g_autoptr (GString) small = g_string_new ("base: m.base.yaml\nparameters: [host.cold_cache_latency_ns]\n"
                                            "measurements:\n");
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  guint n = 0;
  for (guint i = 0; lines[i] && n < 2; i++)
    if (g_str_has_prefix (lines[i], "  - {set: ")) {
      g_string_append_printf (small, "%s\n", lines[i]);
      n++;
    }
  g_autofree char *fitfile = write_file (tmp, "small.yaml", small->str);
  g_auto (TestRun) fit;
  PCIESIM (&fit, "fit", fitfile, "--jobs", "2");
  ck_assert_msg (fit.status == 0, "%s", fit.err);
}
END_TEST

/* The refusals: no -o (two files are written), a directory that is none, a CSV row cut short, two devices on
 * pcie-bench's driver without --device. */
START_TEST (test_bad)
{
  g_autofree char *dir = g_build_filename (source_root (), "tests", "data", "pciebench", folders[0], NULL);
  g_autofree char *tmp = case_dir ("bad");
  g_auto (TestRun) noout, nodir, cut;
  PCIESIM (&noout, "import", "pciebench", dir);
  ck_assert_int_eq (noout.status, 64);
  g_autofree char *missing = g_build_filename (tmp, "none", NULL);
  g_autofree char *out = g_build_filename (tmp, "m.yaml", NULL);
  PCIESIM (&nodir, "import", "pciebench", missing, "-o", out);
  ck_assert_int_eq (nodir.status, 66);
  g_autofree char *lspci = g_build_filename (dir, "sys-lspci.txt", NULL), *text = NULL;
  ck_assert (g_file_get_contents (lspci, &text, NULL, NULL));
  g_autofree char *bad = g_build_filename (tmp, "cut", NULL);
  ck_assert (g_mkdir_with_parents (bad, 0755) == 0);
  g_autofree char *l2 = write_file (bad, "sys-lspci.txt", text);
  g_autofree char *c2 = write_file (bad, "a.csv", "Test,PAT,Cache,HO,DO,WinSZ,SZ,BW (GB/s)\nBW_DMA_RD,Rand,HWarm,0,0\n");
  PCIESIM (&cut, "import", "pciebench", bad, "-o", out);
  ck_assert_int_eq (cut.status, 65);
  ck_assert_msg (strstr (cut.err, "a.csv:2:1: error: "), "%s", cut.err);
  /* Two devices bound to pcie-bench's driver (the NIC 01:00.0 made one too): the user chooses with --device. */
  g_auto (GStrv) parts = g_strsplit (text, "Kernel driver in use: igb", 2);
  g_autofree char *two = g_strjoinv ("Kernel driver in use: nfp-pciebench", parts);
  g_autofree char *both = g_build_filename (tmp, "both", NULL);
  ck_assert (g_mkdir_with_parents (both, 0755) == 0);
  g_autofree char *l3 = write_file (both, "sys-lspci.txt", two);
  g_autofree char *c3 = write_file (both, "a.csv", "Test,PAT,Cache,HO,DO,WinSZ,SZ,BW (GB/s)\n"
                                    "BW_DMA_RD,Rand,HWarm,0,0,8192,64,32.0\n");
  g_auto (TestRun) many, chosen;
  PCIESIM (&many, "import", "pciebench", both, "-o", out);
  ck_assert_int_eq (many.status, 64);
  ck_assert_msg (strstr (many.err, "01:00.0") && strstr (many.err, "05:00.0") && strstr (many.err, "--device"), "%s",
                 many.err);
  PCIESIM (&chosen, "import", "pciebench", both, "-o", out, "--device", "05:00.0");
  ck_assert_msg (chosen.status == 0, "%s", chosen.err);
}
END_TEST

/* Each blind set-up's config runs, and --ranges runs on it (issue #36: its bounds say how far the host's unknowns
 * reach). */
START_TEST (test_blind_configs)
{
  g_autofree char *dir = g_build_filename (source_root (), "configs", "pciebench", NULL);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  ck_assert (d);
  guint n = 0;
  for (const char *f; (f = g_dir_read_name (d));) {
    if (!g_str_has_suffix (f, ".yaml") || g_str_has_prefix (f, "hsw-Xeon-E5-2620v3_dell-t630"))
      continue;
    g_autofree char *path = g_build_filename (dir, f, NULL);
    g_auto (TestRun) r;
    PCIESIM (&r, path, "--ranges", "--jobs", "2", "--format", "json");
    ck_assert_msg (r.status == 0 && strstr (r.out, "\"range\": {\"lo\": "), "%s: %d %s", f, r.status, r.err);
    n++;
  }
  ck_assert_uint_eq (n, 18);
}
END_TEST

static Suite *
pbimport_suite (void)
{
  Suite *s = suite_create ("pbimport");
  TCase *tc = tcase_create ("import");
  tcase_add_unchecked_fixture (tc, tmpdir_setup, tmpdir_teardown);
  tcase_set_timeout (tc, 120);
  tcase_add_loop_test (tc, test_folders, 0, G_N_ELEMENTS (folders));
  tcase_add_test (tc, test_bad);
  tcase_add_test (tc, test_blind_configs);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return run_suite (pbimport_suite ());
}
