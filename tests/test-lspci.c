/* test-lspci.c — `pciesim import lspci` on dumps written for these tests in the format pciutils' ls-caps.c and
 * ls-tree.c print (tests/data/lspci/): a Gen3 x8 NIC, a Gen4 x16 GPU trained at x8, an NVMe SSD behind a PLX
 * switch with the `lspci -tv` tree (pciutils 3.5's one-line LnkSta), a dump made without root and a laptop's
 * several devices (with -D domains and 10-bit tags). Every expected figure was read off the dump by hand: the
 * LnkSta speed word and width, DevCtl's MaxPayload and MaxReadReq, LnkCtl's RCB, and the tags (DevCtl2
 * 10BitTagReq+ → 768, else DevCtl ExtTag+ → 256, else 32; spec §2.2.6.2), and the line each stands on. */
#define TMPDIR_TEMPLATE "pciesim-test-lspci-XXXXXX"
#include "common.h"

#include "app/config.h"
#include "app/load.h"
#include "app/error.h"
#include "app/lspci.h"
#include "app/topology.h"

typedef struct {
  const char *dump, *device, *tree;
  int64_t gen, lanes, mps, mrrs, rcb, tags;
  int sta_line, mps_line, rcb_line, tags_line; /* where the comments must point */
  gboolean downgraded;
} Case;

static const Case cases[] = {
  { "nic_gen3_x8.txt", NULL, NULL, 3, 8, 256, 512, 64, 256, 32, 26, 30, 25, FALSE },
  { "gpu_gen4_x16_at_x8.txt", NULL, NULL, 4, 8, 256, 512, 64, 256, 30, 24, 28, 23, TRUE },
  { "nvme_behind_switch.txt", "05:00.0", "nvme_behind_switch_tree.txt", 3, 4, 256, 4096, 128, 32, 174, 168, 172,
    167, FALSE },
  { "laptop_multi.txt", "0000:02:00.0", NULL, 2, 1, 128, 512, 64, 32, 60, 54, 58, 53, FALSE },
  { "laptop_multi.txt", "03:00.0", NULL, 4, 4, 256, 512, 64, 768, 104, 98, 102, 111, FALSE },
};

static char *
data_path (const char *name)
{
  return g_build_filename (source_root (), "tests", "data", "lspci", name, NULL);
}

/* The comment of the line "  KEY: …" names FILE:LINE. */
static void
assert_cites (const char *text, const char *key, const char *file, int line)
{
  g_autofree char *needle = g_strdup_printf ("\n  %s: ", key);
  const char *at = strstr (text, needle);
  ck_assert_msg (at, "no '%s' in:\n%s", key, text);
  const char *eol = strchr (at + 1, '\n');
  g_autofree char *row = g_strndup (at + 1, (gsize) (eol - at - 1));
  g_autofree char *cite = g_strdup_printf ("%s:%d ", file, line);
  ck_assert_msg (strstr (row, cite), "'%s' does not cite %s", row, cite);
}

START_TEST (test_dumps)
{
  const Case *c = &cases[_i];
  g_autofree char *dir = case_dir ("dumps");
  g_autofree char *out = g_build_filename (dir, "imported.yaml", NULL);
  g_autofree char *dump = data_path (c->dump);
  g_autofree char *tree = c->tree ? data_path (c->tree) : NULL;
  g_auto (TestRun) r;
  const char *args[12] = { "import", "lspci", dump, "-o", out };
  int n = 5;
  if (c->device) {
    args[n++] = "--device";
    args[n++] = c->device;
  }
  if (tree) {
    args[n++] = "--tree";
    args[n++] = tree;
  }
  run_program (&r, NULL, NULL, args);
  ck_assert_msg (r.status == 0, "%s: status %d: %s", c->dump, r.status, r.err);
  ck_assert_msg ((r.err[0] != '\0') == c->downgraded, "%s: stderr '%s'", c->dump, r.err);
  GError *e = NULL;
  g_autoptr (PsConfig) cfg = ps_config_load (out, NULL, &e);
  ck_assert_msg (cfg, "%s: %s", c->dump, e ? e->message : "");
  ck_assert_int_eq (cfg->link.gen, c->gen);
  ck_assert_int_eq (cfg->link.lanes, c->lanes);
  ck_assert_int_eq (cfg->link.max_payload, c->mps);
  ck_assert_int_eq (cfg->link.max_read_request, c->mrrs);
  ck_assert_int_eq (cfg->link.read_completion_boundary, c->rcb);
  ck_assert_int_eq (cfg->endpoint.tags, c->tags);
  g_autofree char *text = NULL;
  ck_assert (g_file_get_contents (out, &text, NULL, NULL));
  assert_cites (text, "gen", dump, c->sta_line);
  assert_cites (text, "lanes", dump, c->sta_line);
  assert_cites (text, "max_payload", dump, c->mps_line);
  assert_cites (text, "max_read_request", dump, c->mps_line);
  assert_cites (text, "read_completion_boundary", dump, c->rcb_line);
  assert_cites (text, "tags", dump, c->tags_line);
  /* A trained-down link is said before anything else: in the comment block above the first key. */
  gsize down = strstr (text, "DOWNGRADED LINK") ? (gsize) (strstr (text, "DOWNGRADED LINK") - text) : 0;
  gsize name = (gsize) (strstr (text, "\nname:") - text);
  ck_assert_msg (c->downgraded ? down && down < name : !down, "%s:\n%s", c->dump, text);
  g_auto (TestRun) run;
  PCIESIM (&run, out, "--format", "csv");
  ck_assert_msg (run.status == 0, "%s: the imported config does not run: %s", c->dump, run.err);
}
END_TEST

/* The switch tree: root port 00:03.0 (Gen3 x16 to the PLX upstream port 02:00.0), downstream port 03:09.0, the
 * SSD on bus 05: one switch, two links, the upper one Gen3 x16 from 02:00.0's LnkSta, the lower the SSD's x4;
 * the SSD's one Region, 16 KB, 64-bit, as its BAR0. */
START_TEST (test_switch_topology)
{
  g_autofree char *dir = case_dir ("switch");
  g_autofree char *out = g_build_filename (dir, "nvme.yaml", NULL);
  g_autofree char *dump = data_path ("nvme_behind_switch.txt");
  g_autofree char *tree = data_path ("nvme_behind_switch_tree.txt");
  g_auto (TestRun) r;
  PCIESIM (&r, "import", "lspci", dump, "--device", "05:00.0", "--tree", tree, "-o", out);
  ck_assert_msg (r.status == 0, "status %d: %s", r.status, r.err);
  GError *e = NULL;
  g_autoptr (PsConfig) cfg = ps_config_load (out, NULL, &e);
  ck_assert_msg (cfg && cfg->topology, "%s", e ? e->message : "no topology");
  const PsTopology *t = cfg->topology;
  ck_assert_uint_eq (t->n_nodes, 3);
  ck_assert_uint_eq (t->n_links, 2);
  int switches = 0;
  for (guint i = 0; i < t->n_nodes; i++) {
    switches += t->nodes[i].type == PS_NODE_SWITCH;
    if (t->nodes[i].type == PS_NODE_ENDPOINT) {
      ck_assert_uint_eq (t->nodes[i].bar_bytes[0], 16 * 1024);
      ck_assert (t->nodes[i].bar64[0]);
    }
  }
  ck_assert_int_eq (switches, 1);
  for (guint i = 0; i < t->n_links; i++) {
    const PsLink *l = &t->links[i];
    gboolean upper = t->nodes[l->a].type == PS_NODE_ROOT_COMPLEX;
    ck_assert_int_eq (l->gen, 3);
    ck_assert_int_eq (l->lanes, upper ? 16 : 4);
  }
  g_autofree char *text = slurp (out);
  ck_assert_msg (strstr (text, "root port 0000:00:03.0") && strstr (text, "upstream port 0000:02:00.0, downstream "
                                                                          "port 0000:03:09.0"), "%s", text);
  g_auto (TestRun) run;
  PCIESIM (&run, out, "--format", "csv");
  ck_assert_msg (run.status == 0, "%s", run.err);
}
END_TEST

/* Without root lspci hides the capabilities: the error is at that line, names what is missing and how to get it. */
START_TEST (test_access_denied)
{
  g_autofree char *dump = data_path ("access_denied.txt");
  g_auto (TestRun) r;
  PCIESIM (&r, "import", "lspci", dump);
  ck_assert_int_eq (r.status, PS_ERROR_DATA);
  g_autofree char *where = g_strdup_printf ("%s:12:2: error: ", dump);
  assert_one_error_line (&r, where);
  const char *const needles[] = { "link.gen", "link.lanes", "link.max_payload", "link.max_read_request",
                                  "link.read_completion_boundary", "endpoint.tags", "sudo lspci -vvv -s 01:00.0" };
  for (size_t i = 0; i < G_N_ELEMENTS (needles); i++)
    ck_assert_msg (strstr (r.err, needles[i]), "'%s' lacks '%s'", r.err, needles[i]);
  ck_assert_str_eq (r.out, "");
}
END_TEST

/* Several devices and no --device: exit 64 with the list; a --device the dump lacks likewise; the host bridge has
 * no Express capability (65, at its header line). */
START_TEST (test_choose_device)
{
  g_autofree char *dump = data_path ("laptop_multi.txt");
  g_auto (TestRun) r, absent, bridge;
  PCIESIM (&r, "import", "lspci", dump);
  ck_assert_int_eq (r.status, PS_ERROR_USAGE);
  assert_one_error_line (&r, "pciesim: error: ");
  const char *const bdfs[] = { "0000:00:00.0 Host bridge", "0000:00:1c.0 PCI bridge", "0000:02:00.0 Network "
                               "controller", "0000:03:00.0 Non-Volatile memory controller" };
  for (size_t i = 0; i < G_N_ELEMENTS (bdfs); i++)
    ck_assert_msg (strstr (r.err, bdfs[i]), "'%s' lacks '%s'", r.err, bdfs[i]);
  PCIESIM (&absent, "import", "lspci", dump, "--device", "09:00.0");
  ck_assert_int_eq (absent.status, PS_ERROR_USAGE);
  ck_assert_msg (strstr (absent.err, "no device 09:00.0"), "%s", absent.err);
  PCIESIM (&bridge, "import", "lspci", dump, "--device", "00:00.0");
  ck_assert_int_eq (bridge.status, PS_ERROR_DATA);
  g_autofree char *where = g_strdup_printf ("%s:1:1: error: ", dump);
  assert_one_error_line (&bridge, where);
}
END_TEST

/* --- the text-to-text part on variants of the NIC dump ---------------------------------------------------------- */

static char *
host_include (void)
{
  return g_build_filename (source_root (), "configs", "hosts", "ideal.yaml", NULL);
}

/* Import `dump` (a text) and load the result; NULL with `error` set when the import refused it. */
static PsConfig *
import_text (const char *dump, const char *tree, GError **error)
{
  g_autofree char *host = host_include ();
  g_autofree char *text = ps_lspci_config ("d.txt", dump, strlen (dump), "t.txt", tree, tree ? strlen (tree) : 0,
                                           NULL, host, "test", NULL, error);
  if (!text)
    return NULL;
  g_autofree char *dir = case_dir ("text");
  g_autofree char *path = write_file (dir, "c.yaml", text);
  PsConfig *cfg = ps_config_load (path, NULL, error);
  ck_assert_msg (cfg, "imported config does not load: %s\n%s", (*error)->message, text);
  return cfg;
}

static char *
nic_text (void)
{
  g_autofree char *p = data_path ("nic_gen3_x8.txt");
  return slurp (p);
}

static char *
replace (const char *text, const char *from, const char *to)
{
  g_auto (GStrv) parts = g_strsplit (text, from, -1);
  ck_assert_msg (g_strv_length (parts) > 1, "'%s' not in the dump", from);
  return g_strjoinv (to, parts);
}

/* The six speed words lspci prints, Gen1 to Gen6 (pcie-protocol.md §1), each in LnkSta and LnkCap. */
START_TEST (test_speed_words)
{
  static const char *const words[] = { "2.5GT/s", "5GT/s", "8GT/s", "16GT/s", "32GT/s", "64GT/s" };
  g_autofree char *nic = nic_text ();
  g_autofree char *word = g_strdup_printf ("Speed %s", words[_i]);
  g_autofree char *dump = replace (nic, "Speed 8GT/s", word);
  GError *e = NULL;
  g_autoptr (PsConfig) cfg = import_text (dump, NULL, &e);
  ck_assert_msg (cfg, "%s: %s", words[_i], e ? e->message : "");
  ck_assert_int_eq (cfg->link.gen, _i + 1);
}
END_TEST

/* The same values from the dump however it is laid out: spaces for tabs, no indentation at all (a paste that lost
 * it), CRLF line ends, and pciutils before 3.6 (LnkSta on one line, no (ok) markers, no 10-bit tag bits). */
START_TEST (test_layouts)
{
  g_autofree char *nic = nic_text ();
  g_autoptr (GString) flat = g_string_new (NULL), spaces = g_string_new (NULL), crlf = g_string_new (NULL);
  g_auto (GStrv) lines = g_strsplit (nic, "\n", -1);
  for (char **l = lines; *l; l++) {
    g_string_append_printf (flat, "%s\n", *l + strspn (*l, "\t "));
    g_autofree char *sp = replace (**l == '\t' ? *l : "\t", "\t", "    ");
    g_string_append_printf (spaces, "%s\n", **l == '\t' ? sp : *l);
    g_string_append_printf (crlf, "%s\r\n", *l);
  }
  g_autofree char *old = replace (nic, "Speed 8GT/s (ok), Width x8 (ok)\n\t\t\t", "Speed 8GT/s, Width x8, ");
  const char *const variants[] = { flat->str, spaces->str, crlf->str, old };
  for (size_t i = 0; i < G_N_ELEMENTS (variants); i++) {
    GError *e = NULL;
    g_autoptr (PsConfig) cfg = import_text (variants[i], NULL, &e);
    ck_assert_msg (cfg, "variant %zu: %s", i, e ? e->message : "");
    ck_assert_int_eq (cfg->link.gen, 3);
    ck_assert_int_eq (cfg->link.lanes, 8);
    ck_assert_int_eq (cfg->link.max_payload, 256);
    ck_assert_int_eq (cfg->link.max_read_request, 512);
    ck_assert_int_eq (cfg->link.read_completion_boundary, 64);
    ck_assert_int_eq (cfg->endpoint.tags, 256);
  }
}
END_TEST

/* An SR-IOV capability lists the VFs' BARs as "Region N:" lines of its own (pciutils' ls-ecaps.c), indented under
 * it: they are no BARs of the device. The NIC's own, Region 0 (8 MB) and Region 3 (32 KB), both 64-bit, stay its
 * BAR0 and BAR3; taking the capability's lines was "a second Region 0" before. */
START_TEST (test_sriov_regions)
{
  g_autofree char *nic = nic_text ();
  g_autofree char *dump = replace (nic, "\tKernel driver in use", "\tCapabilities: [160 v1] Single Root I/O "
                                   "Virtualization (SR-IOV)\n\t\tIOVCap:\tMigration-, Interrupt Message Number: "
                                   "000\n\t\tVF offset: 16, stride: 1, Device ID: 154c\n\t\tRegion 0: Memory at "
                                   "000038bffd000000 (64-bit, prefetchable)\n\t\tRegion 3: Memory at 000038bffc000000 "
                                   "(64-bit, prefetchable)\n\tKernel driver in use");
  const char *tree = "-[0000:00]-+-00.0  Host\n           \\-1c.0-[01]----00.0  NIC\n";
  GError *e = NULL;
  g_autoptr (PsConfig) cfg = import_text (dump, tree, &e);
  ck_assert_msg (cfg && cfg->topology, "%s", e ? e->message : "no topology");
  const PsTopology *t = cfg->topology;
  for (guint i = 0; i < t->n_nodes; i++)
    if (t->nodes[i].type == PS_NODE_ENDPOINT) {
      ck_assert_uint_eq (t->nodes[i].bar_bytes[0], 8 * 1024 * 1024);
      ck_assert_uint_eq (t->nodes[i].bar_bytes[3], 32 * 1024);
      ck_assert (t->nodes[i].bar64[0] && t->nodes[i].bar64[3]);
    }
}
END_TEST

/* Bad input: exit 65 located at the line and column at fault (the NIC's LnkSta is line 32, "Speed" at column 11
 * after two tabs and "LnkSta:\t"; its value at 17), never a crash. */
typedef struct {
  const char *from, *to; /* "Latency@" in `to` stands for a NUL after "Latency" */
  const char *where, *needle;
} Bad;

static const Bad bad_cases[] = {
  { "Speed 8GT/s (ok), Width x8 (ok)", "Speed 12GT/s (ok), Width x8 (ok)", "d.txt:32:17: error: ", "'12GT/s'" },
  { "Speed 8GT/s (ok), Width x8 (ok)", "Speed 8GT/s (ok), Width x3 (ok)", "d.txt:32:35: error: ", "'x3'" },
  { "Speed 8GT/s (ok), Width x8 (ok)", "Speed unknown, Width x0", "d.txt:32:17: error: ", "too old" },
  { "MaxPayload 256 bytes, MaxReadReq", "MaxPayload 100 bytes, MaxReadReq", "d.txt:26:15: error: ", "MaxPayload" },
  { "RCB 64 bytes", "RCB 32 bytes", "d.txt:30:", "RCB" },
  { "RlxdOrd+ ExtTag+ PhantFunc-", "RlxdOrd+ PhantFunc-", "d.txt:24:", "ExtTag" },
  { "\t\tLnkSta:\tSpeed", "\t\tLnkStat:\tSpeed", "d.txt:21:", "no LnkSta" },
  { "\tKernel driver in use: i40e", "01:00.0 Ethernet controller: again", "d.txt:72:1: error: ", "listed twice" },
  { "01:00.0 Ethernet", "XX:00.0 Ethernet", "d.txt:1:1: error: ", "no device" },
  { "\tLatency: 0,", "\tLatency@: 0,", "d.txt:5:9: error: ", "NUL" },
  { "\t\tLnkSta:\tSpeed", "\t\tLnkSta:\tSpeed 8GT/s, Width x8\n\t\tLnkSta:\tSpeed", "d.txt:33:", "second LnkSta" },
};

START_TEST (test_bad_input)
{
  const Bad *b = &bad_cases[_i];
  g_autofree char *nic = nic_text ();
  g_autofree char *dump = replace (nic, b->from, b->to);
  gsize len = strlen (dump);
  char *nul = strstr (dump, "Latency@");
  if (nul)
    nul[7] = '\0';
  g_autofree char *host = host_include ();
  GError *e = NULL;
  g_autofree char *text = ps_lspci_config ("d.txt", dump, len, NULL, NULL, 0, NULL, host, "test", NULL, &e);
  ck_assert_msg (!text && e, "case %d accepted:\n%s", _i, text);
  ck_assert_int_eq (e->code, PS_ERROR_DATA);
  ck_assert_msg (g_str_has_prefix (e->message, b->where) && strstr (e->message, b->needle)
                 && !strchr (e->message, '\n'), "case %d: '%s' (want '%s' … '%s')", _i, e->message, b->where,
                 b->needle);
  g_error_free (e);
}
END_TEST

/* Trees that are no `lspci -tv`, or that do not hold the device, are located errors too. */
START_TEST (test_bad_tree)
{
  g_autofree char *nic = nic_text ();
  g_autofree char *host = host_include ();
  static const struct {
    const char *tree, *where, *needle;
  } trees[] = {
    { "-[0000:00]-+-00.0  Host\n           \\-1c.0-[01]----00.0  NIC\n", NULL, NULL }, /* fine: one root port */
    { "-[0000:00]-+-00.0  Host\n           \\-1c.0-[02]----00.0  NIC\n", "d.txt:1:1: error: ", "not in the tree" },
    { "-[0000:00]-+-00.0  Host\n           \\-1c.0-[01]----zz.0  NIC\n", "t.txt:2:27: error: ", "'z'" },
    { "-[0000:00]-+-00.0  Host\n      \\-1c.0-[01]----00.0  NIC\n", "t.txt:2:9: error: ", "no bus above it" },
    { "-[0000:00]-+-1c.0-[05]----00.0-[01]----00.0  NIC\n", "t.txt:1:", "below 2 bridges" },
    { "-[0000:00]-+-01.0  NIC at the root\n-[0000:01]-+-00.0  NIC\n", "t.txt:2:14: error: ", "root bus" },
  };
  for (size_t i = 0; i < G_N_ELEMENTS (trees); i++) {
    GError *e = NULL;
    g_autofree char *text = ps_lspci_config ("d.txt", nic, strlen (nic), "t.txt", trees[i].tree,
                                             strlen (trees[i].tree), NULL, host, "test", NULL, &e);
    if (!trees[i].where) {
      ck_assert_msg (text && strstr (text, "topology:"), "tree %zu: %s", i, e ? e->message : "");
      continue;
    }
    ck_assert_msg (!text && e, "tree %zu accepted:\n%s", i, text);
    ck_assert_msg (g_str_has_prefix (e->message, trees[i].where) && strstr (e->message, trees[i].needle),
                   "tree %zu: '%s'", i, e->message);
    g_error_free (e);
  }
}
END_TEST

static Suite *
lspci_suite (void)
{
  Suite *s = suite_create ("lspci");
  TCase *tc = tcase_create ("import");
  tcase_add_unchecked_fixture (tc, tmpdir_setup, tmpdir_teardown);
  tcase_set_timeout (tc, 60);
  tcase_add_loop_test (tc, test_dumps, 0, G_N_ELEMENTS (cases));
  tcase_add_test (tc, test_switch_topology);
  tcase_add_test (tc, test_access_denied);
  tcase_add_test (tc, test_choose_device);
  tcase_add_loop_test (tc, test_speed_words, 0, 6);
  tcase_add_test (tc, test_layouts);
  tcase_add_test (tc, test_sriov_regions);
  tcase_add_loop_test (tc, test_bad_input, 0, G_N_ELEMENTS (bad_cases));
  tcase_add_test (tc, test_bad_tree);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return run_suite (lspci_suite ());
}
