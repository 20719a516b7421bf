/* test-machine.c — `pciesim machine` on real dumps: pcie-bench's Broadwell-EP and Haswell E3 servers
 * (tests/data/pciebench/, unchanged), the GPU trained at x8 of x16 and the NVMe SSD behind a PLX switch
 * (tests/data/lspci/). Every expected figure is read off the dump by hand or computed here from the spec:
 * the protocol ceiling of a saturating stream of MPS-sized TLPs (pcie-protocol.md §1, §7, §8): lanes x 8 GT/s x
 * 128/130 / 8 bits of wire, a TLP of MPS + 12 header bytes (3-DW CplDs; MWrs of 32-bit addresses on the ideal
 * host) + 8 framing bytes (STP token and LCRC at 128b/130b), less SKP ordered sets: 16 symbols per lane and a
 * 4-symbol EDS every 370 blocks of 16 symbols (§ SKP table; 0.28%). */
#define TMPDIR_TEMPLATE "pciesim-test-machine-XXXXXX"
#include "tests/common.h"

#include "app/base/error.h"
#include "app/import/machine.h"

/* The hand model of the ceiling at Gen3 (MB/s), within 0.05% of the link model's (the SKP interval's 370-375
 * blocks). */
static double
gen3_ceiling (int lanes, int mps)
{
  double wire = lanes * 8000.0 * 128 / 130 / 8;
  double skp = (16.0 * lanes + 4) / (370.0 * 16 * lanes);
  return wire * mps / (mps + 12.0 + 8.0) * (1 - skp);
}

static char *
dump (const char *dir, const char *name)
{
  return g_build_filename (source_root (), "tests", "data", dir, name, NULL);
}

/* The CSV row of `address`, split into its cells (no cell of these rows holds a quoted comma before `name`). */
static GStrv
row_of (const char *csv, const char *address)
{
  g_autofree char *needle = g_strdup_printf ("\n%s,", address);
  const char *at = strstr (csv, needle);
  ck_assert_msg (at, "no row %s in:\n%s", address, csv);
  const char *eol = strchr (at + 1, '\n');
  g_autofree char *line = g_strndup (at + 1, (gsize) (eol - at - 1));
  return g_strsplit (line, ",", 17);
}

/* Columns: address,kind,link,capable,downgraded,mps,mps_capable,mrrs,relaxed_ordering,tags,tags_capable,
 * read_mbps,write_mbps,capable_read_mbps,capable_write_mbps,limited_by,… */
static void
assert_near (const char *cell, double want, const char *what)
{
  double got = g_ascii_strtod (cell, NULL);
  ck_assert_msg (fabs (got - want) <= want * 0.0005, "%s: %.1f, by hand %.1f", what, got, want);
}

static char *
run_csv (const char *path, const char *tree)
{
  TestRun r = { 0 };
  if (tree)
    PCIESIM (&r, "machine", path, "--tree", tree, "--format", "csv");
  else
    PCIESIM (&r, "machine", path, "--format", "csv");
  ck_assert_msg (r.status == 0, "%s: %s", path, r.err);
  char *out = g_strdup (r.out);
  test_run_clear (&r);
  return out;
}

/* Broadwell-EP (Dell T430): the NFP-6000 03:00.0 at Gen3 x8 (LnkSta line 798), MPS 256 of DevCap's 512 and its
 * root port 00:03.0's 256 (lines 792, 785, 116), MRRS 4096, ExtTag- in DevCtl and DevCap (32 tags), relaxed
 * ordering on (line 791); root port 00:03.0 is x16-capable but trained x8 to the x8 NFP: not downgraded. */
START_TEST (test_broadwell)
{
  g_autofree char *path = dump ("pciebench", "bdw-e5-2630v4-t430-lspci.txt");
  g_autofree char *csv = run_csv (path, NULL);
  g_auto (GStrv) nfp = row_of (csv, "03:00.0");
  ck_assert_str_eq (nfp[1], "endpoint");
  ck_assert_str_eq (nfp[2], "Gen3 x8");
  ck_assert_str_eq (nfp[3], "Gen3 x8");
  ck_assert_str_eq (nfp[4], "no");
  ck_assert_str_eq (nfp[5], "256");
  ck_assert_str_eq (nfp[6], "256");
  ck_assert_str_eq (nfp[7], "4096");
  ck_assert_str_eq (nfp[8], "on");
  ck_assert_str_eq (nfp[9], "32");
  assert_near (nfp[11], gen3_ceiling (8, 256), "NFP read");
  assert_near (nfp[12], gen3_ceiling (8, 256), "NFP write");
  g_auto (GStrv) rp = row_of (csv, "00:03.0");
  ck_assert_str_eq (rp[1], "root port");
  ck_assert_str_eq (rp[3], "Gen3 x8");
  ck_assert_str_eq (rp[4], "no");
  /* The ceiling is the protocol limit pciesim prints for the imported config of the same device. */
  g_autofree char *dir = case_dir ("bdw");
  g_autofree char *cfg = g_build_filename (dir, "nfp.yaml", NULL);
  g_auto (TestRun) imp, run;
  PCIESIM (&imp, "import", "lspci", path, "--device", "03:00.0", "-o", cfg);
  ck_assert_msg (imp.status == 0, "%s", imp.err);
  PCIESIM (&run, cfg, "--format", "json");
  g_autofree char *limit = g_strdup_printf ("\"protocol_limit_read_mbps\": %s,", nfp[11]);
  ck_assert_msg (strstr (run.out, limit), "'%s' not in the imported config's JSON", limit);
}
END_TEST

/* Haswell E3 (Fujitsu TX1310): the NFP-6000 01:00.0 with MPS 128 (line 336: its root port supports 128 only). */
START_TEST (test_e3)
{
  g_autofree char *path = dump ("pciebench", "hsw-e3-1226v3-tx1310-lspci.txt");
  g_autofree char *csv = run_csv (path, NULL);
  g_auto (GStrv) nfp = row_of (csv, "01:00.0");
  ck_assert_str_eq (nfp[2], "Gen3 x8");
  ck_assert_str_eq (nfp[5], "128");
  ck_assert_str_eq (nfp[6], "128");
  ck_assert_str_eq (nfp[7], "512");
  assert_near (nfp[11], gen3_ceiling (8, 128), "NFP read at MPS 128");
}
END_TEST

/* The GPU trained x8 of its x16 (LnkSta line 30, LnkCap line 26): downgraded, both widths said, its capable
 * ceiling twice the trained one (Gen4: the same framing as Gen3 at twice the rate), and it heads the losses. A
 * speed downgrade (Gen3 in LnkSta) says both speeds. */
START_TEST (test_downgraded)
{
  g_autofree char *path = dump ("lspci", "gpu_gen4_x16_at_x8.txt");
  g_autofree char *csv = run_csv (path, NULL);
  g_auto (GStrv) gpu = row_of (csv, "65:00.0");
  ck_assert_str_eq (gpu[2], "Gen4 x8");
  ck_assert_str_eq (gpu[3], "Gen4 x16");
  ck_assert_str_eq (gpu[4], "yes");
  assert_near (gpu[11], 2 * gen3_ceiling (8, 256), "GPU read at Gen4 x8");
  assert_near (gpu[13], 2 * gen3_ceiling (16, 256), "GPU read at Gen4 x16");
  ck_assert_msg (strstr (csv, "trained at Gen4 x8 where both ends can run Gen4 x16"), "%s", csv);
  g_auto (TestRun) t;
  PCIESIM (&t, "machine", path);
  ck_assert_msg (strstr (t.out, "DOWNGRADED") && strstr (t.out, "Losing most") && strstr (t.out, "retrain at Gen4 x16"),
                 "%s", t.out);
  g_autofree char *text = NULL;
  ck_assert (g_file_get_contents (path, &text, NULL, NULL));
  g_auto (GStrv) parts = g_strsplit (text, "LnkSta:\tSpeed 16GT/s (ok), Width x8 (downgraded)", -1);
  ck_assert_uint_eq (g_strv_length (parts), 2);
  g_autofree char *slow = g_strjoinv ("LnkSta:\tSpeed 8GT/s (downgraded), Width x16 (ok)", parts);
  g_autofree char *host = g_build_filename (source_root (), "configs", "hosts", "ideal.yaml", NULL);
  GError *e = NULL;
  g_autofree char *rep = ps_machine_report ("g.txt", slow, strlen (slow), NULL, NULL, 0, host, PS_FORMAT_CSV, &e);
  ck_assert_msg (rep && strstr (rep, "trained at Gen3 x16 where both ends can run Gen4 x16"), "%s",
                 rep ? rep : e->message);
}
END_TEST

/* The SSD behind the PLX switch: with the switch's upstream link (02:00.0's LnkSta) cut to x2, the SSD's own x4
 * link no longer bounds it: its ceiling is the x2 link's, and the row names that port. */
START_TEST (test_narrower_above)
{
  g_autofree char *path = dump ("lspci", "nvme_behind_switch.txt");
  g_autofree char *tree = dump ("lspci", "nvme_behind_switch_tree.txt");
  g_autofree char *csv = run_csv (path, tree);
  g_auto (GStrv) ssd = row_of (csv, "05:00.0");
  ck_assert_str_eq (ssd[2], "Gen3 x4");
  assert_near (ssd[11], gen3_ceiling (4, 256), "SSD read");
  ck_assert_str_eq (ssd[15], "its own link");
  g_autofree char *text = NULL;
  ck_assert (g_file_get_contents (path, &text, NULL, NULL));
  /* 02:00.0's LnkSta is the first "Width x16" after its header. */
  char *up = strstr (text, "\n02:00.0 ");
  ck_assert (up);
  char *w = strstr (up, "LnkSta:");
  ck_assert (w && (w = strstr (w, "Width x16")));
  memcpy (w, "Width x2 ", 9);
  g_autofree char *treetext = NULL;
  gsize tl = 0;
  ck_assert (g_file_get_contents (tree, &treetext, &tl, NULL));
  g_autofree char *host = g_build_filename (source_root (), "configs", "hosts", "ideal.yaml", NULL);
  GError *e = NULL;
  g_autofree char *rep = ps_machine_report ("n.txt", text, strlen (text), "t.txt", treetext, tl, host, PS_FORMAT_CSV,
                                            &e);
  ck_assert_msg (rep, "%s", e ? e->message : "");
  g_auto (GStrv) cut = row_of (rep, "05:00.0");
  assert_near (cut[11], gen3_ceiling (2, 256), "SSD read below an x2 link");
  ck_assert_msg (strstr (rep, "\n05:00.0,") && strstr (strstr (rep, "\n05:00.0,"), "the narrower link above it, at "
                 "switch upstream port 02:00.0 (Gen3 x2)"), "%s", rep);
}
END_TEST

/* The laptop's dump holds no port above its SSD 0000:03:00.0 (DevCap MaxPayload 512, DevCtl 256): its capable MPS is
 * its own, and the change says the port must be checked; root port 0000:00:1c.0 (DevCap 256) has the Wi-Fi card
 * 0000:02:00.0 below it (DevCap 128), so its link's capable MPS is 128. The SR-IOV VFs of nic_sriov_vfs.txt have
 * no link of their own (their LnkSta and LnkCap read zeros): "VF". */
START_TEST (test_partial_dumps)
{
  g_autofree char *path = dump ("lspci", "laptop_multi.txt");
  g_autofree char *csv = run_csv (path, NULL);
  g_auto (GStrv) ssd = row_of (csv, "0000:03:00.0");
  ck_assert_str_eq (ssd[5], "256");
  ck_assert_str_eq (ssd[6], "512");
  g_auto (GStrv) rp = row_of (csv, "0000:00:1c.0");
  ck_assert_str_eq (rp[6], "128");
  g_auto (TestRun) t;
  PCIESIM (&t, "machine", path);
  ck_assert_msg (strstr (t.out, "MaxPayload 512 bytes instead of 256 (the device supports it; the port above is not "
                         "in this dump"), "%s", t.out);
  g_autofree char *vfs = dump ("lspci", "nic_sriov_vfs.txt");
  g_autofree char *vcsv = run_csv (vfs, NULL);
  g_auto (GStrv) vf = row_of (vcsv, "01:02.0");
  ck_assert_str_eq (vf[2], "VF");
}
END_TEST

/* A cut dump: a function with its LnkSta but no DevCtl is a row with its link and no request settings (found by
 * the fuzzer: the settings were read without the field). */
START_TEST (test_no_devctl)
{
  g_autofree char *path = dump ("lspci", "nic_gen3_x8.txt"), *text = NULL;
  ck_assert (g_file_get_contents (path, &text, NULL, NULL));
  g_auto (GStrv) parts = g_strsplit (text, "DevCtl:", -1);
  g_autofree char *cut = g_strjoinv ("DevCtX:", parts);
  g_autofree char *host = g_build_filename (source_root (), "configs", "hosts", "ideal.yaml", NULL);
  GError *e = NULL;
  g_autofree char *rep = ps_machine_report ("c.txt", cut, strlen (cut), NULL, NULL, 0, host, PS_FORMAT_CSV, &e);
  ck_assert_msg (rep, "%s", e ? e->message : "");
  g_auto (GStrv) nic = row_of (rep, "01:00.0");
  ck_assert_str_eq (nic[2], "Gen3 x8");
  ck_assert_str_eq (nic[7], "");
}
END_TEST

/* JSON: the members on the NFP. */
START_TEST (test_json)
{
  g_autofree char *path = dump ("pciebench", "bdw-e5-2630v4-t430-lspci.txt");
  g_auto (TestRun) r;
  PCIESIM (&r, "machine", path, "--format", "json");
  ck_assert_msg (r.status == 0, "%s", r.err);
  const char *nfp = strstr (r.out, "\"address\": \"03:00.0\"");
  ck_assert_msg (nfp, "%s", r.out);
  const char *members[] = { "\"link\": {\"gen\": 3, \"lanes\": 8, \"capable_gen\": 3, \"capable_lanes\": 8, "
                            "\"downgraded\": false", "\"max_payload\": 256", "\"max_read_request\": 4096",
                            "\"tags\": 32", "\"ceiling_mbps\": {\"read\": ", "\"capable_ceiling_mbps\": {",
                            "\"limited_by\": \"its own link\"" };
  const char *end = strchr (nfp, '\n');
  for (size_t i = 0; i < G_N_ELEMENTS (members); i++) {
    const char *m = strstr (nfp, members[i]);
    ck_assert_msg (m && m < end, "'%s' not in the NFP's row", members[i]);
  }
  ck_assert_msg (strstr (r.out, "\"losses\": ["), "%s", r.out);
}
END_TEST

static Suite *
machine_suite (void)
{
  Suite *s = suite_create ("machine");
  TCase *tc = tcase_create ("report");
  tcase_add_unchecked_fixture (tc, tmpdir_setup, tmpdir_teardown);
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_broadwell);
  tcase_add_test (tc, test_e3);
  tcase_add_test (tc, test_downgraded);
  tcase_add_test (tc, test_narrower_above);
  tcase_add_test (tc, test_json);
  tcase_add_test (tc, test_partial_dumps);
  tcase_add_test (tc, test_no_devctl);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return run_suite (machine_suite ());
}
