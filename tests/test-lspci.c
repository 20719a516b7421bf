/* test-lspci.c — `pciesim import lspci` on dumps written for these tests in the format pciutils' ls-caps.c and
 * ls-tree.c print (tests/data/lspci/): a Gen3 x8 NIC, a Gen4 x16 GPU trained at x8, an NVMe SSD behind a PLX
 * switch with the `lspci -tv` tree (pciutils 3.5's one-line LnkSta), a dump made without root, a laptop's
 * several devices (with -D domains and 10-bit tags), a dual-port NIC (two functions, ARI, SR-IOV) with its
 * tree, and that NIC with 4 SR-IOV VFs enabled and two of them dumped. Every expected figure was read off the
 * dump by hand: the LnkSta speed word and width, DevCtl's MaxPayload and MaxReadReq, LnkCtl's RCB, and the tags
 * (DevCtl2 10BitTagReq+ → 768, else DevCtl ExtTag+ → 256, else 32; spec §2.2.6.2), the functions drawn in the
 * tree, and the line each stands on. */
#define TMPDIR_TEMPLATE "pciesim-test-lspci-XXXXXX"
#include "tests/common.h"

#include "app/config/config.h"
#include "app/config/load.h"
#include "app/base/error.h"
#include "app/import/lspci.h"
#include "app/config/topology.h"

typedef struct {
  const char *dump, *device, *tree;
  int64_t gen, lanes, mps, mrrs, rcb, tags;
  int sta_line, mps_line, rcb_line, tags_line; /* where the comments must point */
  gboolean downgraded;
  int mrrs_line; /* when not mps_line's */
  int64_t supported_gen; /* LnkCap's speed when above LnkSta's (link.supported_gen), else 0; cited at cap_line */
  int cap_line;
} Case;

static const Case cases[] = {
  { "nic_gen3_x8.txt", NULL, NULL, 3, 8, 256, 512, 64, 256, 32, 26, 30, 25, FALSE, 0, 0, 0 },
  { "gpu_gen4_x16_at_x8.txt", NULL, NULL, 4, 8, 256, 512, 64, 256, 30, 24, 28, 23, TRUE, 0, 0, 0 },
  { "nvme_behind_switch.txt", "05:00.0", "nvme_behind_switch_tree.txt", 3, 4, 256, 4096, 128, 32, 174, 168, 172,
    167, FALSE, 0, 0, 0 },
  { "laptop_multi.txt", "0000:02:00.0", NULL, 2, 1, 128, 512, 64, 32, 60, 54, 58, 53, FALSE, 0, 0, 0 },
  { "laptop_multi.txt", "03:00.0", NULL, 4, 4, 256, 512, 64, 768, 104, 98, 102, 111, FALSE, 0, 0, 0 },
  /* The dual-port NIC: each function's values from its own lines (01:00.0 from line 64, 01:00.1 from line 151). */
  { "nic_dual_port.txt", "01:00.0", "nic_dual_port_tree.txt", 3, 8, 256, 512, 64, 256, 95, 89, 93, 88, FALSE, 0, 0, 0 },
  { "nic_dual_port.txt", "01:00.1", "nic_dual_port_tree.txt", 3, 8, 256, 512, 64, 256, 182, 176, 180, 175, FALSE, 0,
    0, 0 },
  /* SR-IOV VFs 01:02.0 and 01:02.1 (lines 238, 291) of PF 01:00.0 (line 64: VF offset 16, stride 1, 4 VFs, lines
   * 136-137; 0x0100 + 16 = 01:02.0): the link (LnkSta 95), MaxPayload (89, not the VF's own 128), RCB (93: 128, not
   * the VF's 64) and ExtTag (88: 256, not the VF's ExtTag- 32) are the PF's, MaxReadReq each VF's own (lines 255,
   * 308: 512, 256). */
  { "nic_sriov_vfs.txt", "01:02.0", NULL, 3, 8, 256, 512, 128, 256, 95, 89, 93, 88, FALSE, 255, 0, 0 },
  { "nic_sriov_vfs.txt", "01:02.1", NULL, 3, 8, 256, 256, 128, 256, 95, 89, 93, 88, FALSE, 308, 0, 0 },
  /* The GPU of gpu_gen4_x16_at_x8.txt trained at 8 GT/s x16 instead (LnkSta, line 30): its LnkCap (line 26) says
   * 16 GT/s, so the port supports Gen4 and keeps the simplified REPLAY_TIMER and 10-bit tags at Gen3 (spec
   * §3.6.2.1): link.supported_gen 4. */
  { "gpu_gen4_at_gen3.txt", NULL, NULL, 3, 16, 256, 512, 64, 256, 30, 24, 28, 23, TRUE, 0, 4, 26 },
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
  ck_assert_int_eq (cfg->link.supported_gen, c->supported_gen);
  g_autofree char *text = NULL;
  ck_assert (g_file_get_contents (out, &text, NULL, NULL));
  assert_cites (text, "gen", dump, c->sta_line);
  assert_cites (text, "lanes", dump, c->sta_line);
  assert_cites (text, "max_payload", dump, c->mps_line);
  assert_cites (text, "max_read_request", dump, c->mrrs_line ? c->mrrs_line : c->mps_line);
  assert_cites (text, "read_completion_boundary", dump, c->rcb_line);
  assert_cites (text, "tags", dump, c->tags_line);
  if (c->supported_gen)
    assert_cites (text, "supported_gen", dump, c->cap_line);
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

/* The dual-port X710 (nic_dual_port.txt, nic_dual_port_tree.txt): the tree draws 00.0 (line 2) and 00.1 (line 3)
 * under root port 01.0, the dump has 01:00.0 (line 64) and 01:00.1 (line 151), so the highest function number
 * is 1 and the endpoint has functions: 2. Imported as 01:00.F, both flows come from function F, whose requester
 * ID is 01:00.F (the root port's secondary bus, the first below bus 0, is 1; device 0). The BARs are function
 * 0's either way (pciesim gives BARs to function 0 alone): Region 0 (line 72, 8 MB) and Region 3 (line 73,
 * 32 KB), both 64-bit. */
START_TEST (test_functions)
{
  const unsigned fn = (unsigned) _i;
  g_autofree char *dir = case_dir ("functions");
  g_autofree char *out = g_build_filename (dir, "nic.yaml", NULL);
  g_autofree char *dump = data_path ("nic_dual_port.txt");
  g_autofree char *tree = data_path ("nic_dual_port_tree.txt");
  g_autofree char *device = g_strdup_printf ("01:00.%u", fn);
  g_auto (TestRun) r;
  PCIESIM (&r, "import", "lspci", dump, "--device", device, "--tree", tree, "-o", out);
  ck_assert_msg (r.status == 0, "status %d: %s", r.status, r.err);
  GError *e = NULL;
  g_autoptr (PsConfig) cfg = ps_config_load (out, NULL, &e);
  ck_assert_msg (cfg && cfg->topology, "%s", e ? e->message : "no topology");
  const PsTopology *t = cfg->topology;
  int endpoints = 0;
  for (guint i = 0; i < t->n_nodes; i++)
    if (t->nodes[i].type == PS_NODE_ENDPOINT) {
      endpoints++;
      ck_assert_uint_eq (t->nodes[i].functions, 2);
      ck_assert_uint_eq (t->nodes[i].bar_bytes[0], 8 * 1024 * 1024);
      ck_assert_uint_eq (t->nodes[i].bar_bytes[3], 32 * 1024);
    }
  ck_assert_int_eq (endpoints, 1);
  ck_assert_uint_eq (t->n_flows, 2);
  for (guint i = 0; i < t->n_flows; i++)
    ck_assert_uint_eq (t->flows[i].function, fn);
  /* The value names its lines: both functions in the tree and in the dump; the BARs function 0's Region lines. */
  g_autofree char *text = slurp (out);
  g_autofree char *head = g_strdup_printf ("#   functions: 2 (the highest function number shown, 1, + 1); the flows "
                                           "are function %u's (01:00.%u, imported):", fn, fn);
  ck_assert_msg (strstr (text, head), "no '%s' in:\n%s", head, text);
  const struct {
    unsigned fn;
    const char *file;
    int line;
  } cites[] = { { 0, tree, 2 }, { 0, dump, 64 }, { 1, tree, 3 }, { 1, dump, 151 } };
  for (size_t i = 0; i < G_N_ELEMENTS (cites); i++) {
    g_autofree char *want = g_strdup_printf ("#     function %u  <- %s:%d ", cites[i].fn, cites[i].file,
                                             cites[i].line);
    ck_assert_msg (strstr (text, want), "no '%s' in:\n%s", want, text);
  }
  g_autofree char *bar0 = g_strdup_printf ("BAR0: 8 MB, 64-bit  <- %s:72 ", dump);
  ck_assert_msg (strstr (text, bar0), "no '%s' in:\n%s", bar0, text);
  g_auto (TestRun) run;
  PCIESIM (&run, out, "--format", "json");
  ck_assert_msg (run.status == 0, "the imported config does not run: %s", run.err);
  for (int i = 0; i < 2; i++) {
    g_autofree char *flow = g_strdup_printf ("\"name\": \"%s\", \"source\": \"device\", \"function\": %u, "
                                             "\"requester_id\": \"01:00.%u\"", i ? "read" : "write", fn, fn);
    ck_assert_msg (strstr (run.out, flow), "no '%s' in:\n%s", flow, run.out);
  }
  ck_assert_msg (strstr (run.out, "\"delivered_bytes\": 1048576"), "%s", run.out);
}
END_TEST

/* Without the tree the one-link benchmark has no functions: no key, a comment with the dump's two headers. */
START_TEST (test_functions_without_tree)
{
  g_autofree char *dump = data_path ("nic_dual_port.txt");
  g_auto (TestRun) r;
  PCIESIM (&r, "import", "lspci", dump, "--device", "01:00.1");
  ck_assert_msg (r.status == 0, "status %d: %s", r.status, r.err);
  ck_assert_msg (!strstr (r.out, "\ntopology:") && !strstr (r.out, "function: "), "%s", r.out);
  const char *head = "# 01:00.1 is function 1 of 2 (the highest function number shown, 1, + 1)";
  g_autofree char *f0 = g_strdup_printf ("#     function 0  <- %s:64 01:00.0 Ethernet", dump);
  g_autofree char *f1 = g_strdup_printf ("#     function 1  <- %s:151 01:00.1 Ethernet", dump);
  ck_assert_msg (strstr (r.out, head) && strstr (r.out, f0) && strstr (r.out, f1), "%s", r.out);
}
END_TEST

/* A run that failed with one error line starting `where`, saying each of `says`, writing nothing on stdout. */
static void
assert_error_says (const TestRun *r, const char *where, const char *const *says, size_t n)
{
  assert_one_error_line (r, where);
  for (size_t i = 0; i < n; i++)
    ck_assert_msg (strstr (r->err, says[i]), "'%s' lacks '%s'", r->err, says[i]);
  ck_assert_str_eq (r->out, "");
}

/* Without root lspci hides the capabilities: the error is at that line, names what is missing and how to get it. */
START_TEST (test_access_denied)
{
  g_autofree char *dump = data_path ("access_denied.txt");
  g_auto (TestRun) r;
  PCIESIM (&r, "import", "lspci", dump);
  ck_assert_int_eq (r.status, PS_ERROR_DATA);
  g_autofree char *where = g_strdup_printf ("%s:12:2: error: ", dump);
  const char *const needles[] = { "link.gen", "link.lanes", "link.max_payload", "link.max_read_request",
                                  "link.read_completion_boundary", "endpoint.tags", "sudo lspci -vvv -s 01:00.0" };
  assert_error_says (&r, where, needles, G_N_ELEMENTS (needles));
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

/* Import device `device` (NULL: the only one) of `dump` (a text) and load the result; NULL with `error` set when
 * the import refused it. The config's text is left in `text` when it is not NULL. */
static PsConfig *
import_device (const char *dump, const char *tree, const char *device, char **out, GError **error)
{
  g_autofree char *host = host_include ();
  g_autofree char *text = ps_lspci_config ("d.txt", dump, strlen (dump), "t.txt", tree, tree ? strlen (tree) : 0,
                                           device, host, "test", NULL, error);
  if (!text)
    return NULL;
  if (out)
    *out = g_strdup (text);
  g_autofree char *dir = case_dir ("text");
  g_autofree char *path = write_file (dir, "c.yaml", text);
  PsConfig *cfg = ps_config_load (path, NULL, error);
  ck_assert_msg (cfg, "imported config does not load: %s\n%s", (*error)->message, text);
  return cfg;
}

static PsConfig *
import_text (const char *dump, const char *tree, GError **error)
{
  return import_device (dump, tree, NULL, NULL, error);
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

/* The endpoint's functions in the config, or 0 when it has no topology. */
static unsigned
endpoint_functions (const PsConfig *cfg)
{
  for (guint i = 0; cfg->topology && i < cfg->topology->n_nodes; i++)
    if (cfg->topology->nodes[i].type == PS_NODE_ENDPOINT)
      return cfg->topology->nodes[i].functions;
  return 0;
}

static char *
dual_text (void)
{
  g_autofree char *p = data_path ("nic_dual_port.txt");
  return slurp (p);
}

/* How the count follows from what lspci shows:
 * - sparse numbers: the single NIC (no ARI) drawn with 00.0 and 00.3 under its port: 3 + 1 = 4 functions, 1 and 2
 *   counted though absent; 01.0 on that bus is another device (no ARI: the device number is not the function's);
 * - the dump alone: the dual-port dump with a tree that draws only 00.0: 01:00.1's header (line 151) still makes 2;
 * - ARI beyond 8: the dual-port NIC (ARI) with four VFs drawn at 02.0-02.3, ARI functions 16-19 (2 << 3 | 0..3):
 *   20 numbered, 8 kept, the flows still function 1's;
 * - the tree alone (`lspci -vvv -s 01:00.1` and `lspci -tv`, as docs/your-machine.md suggests): the dump's one
 *   device is function 1, the tree draws 00.0 and 00.1: 2, the BARs 01:00.1's own, said so. */
START_TEST (test_function_counts)
{
  g_autofree char *nic = nic_text ();
  g_autofree char *dual = dual_text ();
  g_autofree char *tree = data_path ("nic_dual_port_tree.txt");
  g_autofree char *dual_tree = slurp (tree);
  g_autofree char *fn1 = g_strdup (g_strstr_len (dual, -1, "01:00.1 Ethernet"));
  ck_assert (fn1);
  static const char sparse[] = "-[0000:00]-+-00.0  Host\n"
                               "           +-01.0-[01]--+-00.0  NIC\n"
                               "           |            +-00.3  NIC\n"
                               "           |            \\-01.0  other\n"
                               "           \\-1f.0  LPC\n";
  static const char one[] = "-[0000:00]-+-00.0  Host\n"
                            "           \\-01.0-[01]----00.0  NIC\n";
  static const char vfs[] = "-[0000:00]-+-00.0  Host\n"
                            "           \\-01.0-[01]--+-00.0  NIC\n"
                            "                        +-00.1  NIC\n"
                            "                        +-02.0  VF\n"
                            "                        +-02.1  VF\n"
                            "                        +-02.2  VF\n"
                            "                        \\-02.3  VF\n";
  const struct {
    const char *dump, *tree, *device;
    unsigned functions, flow_fn;
    const char *needle;
  } counts[] = {
    { nic, sparse, NULL, 4, 0, "so 1, 2, which lspci does not show, count too" },
    { dual, one, "01:00.0", 2, 0, "#     function 1  <- d.txt:151 01:00.1 Ethernet" },
    { dual, vfs, "01:00.1", 8, 1, "functions: 8 (ARI numbers 0-19; a pciesim endpoint has 8 at most, so 8-19 are "
                                   "left out)" },
    { fn1, dual_tree, NULL, 2, 1, "which pciesim gives function 0 (alone with BARs; the dump lacks it)" },
  };
  for (size_t i = 0; i < G_N_ELEMENTS (counts); i++) {
    GError *e = NULL;
    g_autofree char *text = NULL;
    g_autoptr (PsConfig) cfg = import_device (counts[i].dump, counts[i].tree, counts[i].device, &text, &e);
    ck_assert_msg (cfg, "case %zu: %s", i, e ? e->message : "");
    ck_assert_uint_eq (endpoint_functions (cfg), counts[i].functions);
    for (guint k = 0; k < cfg->topology->n_flows; k++)
      ck_assert_uint_eq (cfg->topology->flows[k].function, counts[i].flow_fn);
    ck_assert_msg (strstr (text, counts[i].needle), "case %zu: no '%s' in:\n%s", i, counts[i].needle, text);
  }
}
END_TEST

/* A VF at 01:02.0 is ARI function 16 (2 << 3 | 0): with the tree no flow can come from it, an error at its header
 * (line 151, where the dump's second function stands in this variant); without the tree the one-link benchmark
 * takes it, with a comment. */
START_TEST (test_function_beyond_eight)
{
  g_autofree char *dual = dual_text ();
  g_autofree char *dump = replace (dual, "01:00.1 Ethernet controller: Intel Corporation Ethernet Controller X710 for "
                                   "10GbE SFP+", "01:02.0 Ethernet controller: Intel Corporation Ethernet Virtual "
                                   "Function 700 Series");
  const char *tree = "-[0000:00]-+-00.0  Host\n"
                     "           \\-01.0-[01]--+-00.0  NIC\n"
                     "                        \\-02.0  VF\n";
  g_autofree char *host = host_include ();
  GError *e = NULL;
  g_autofree char *text = ps_lspci_config ("d.txt", dump, strlen (dump), "t.txt", tree, strlen (tree), "01:02.0",
                                           host, "test", NULL, &e);
  ck_assert_msg (!text && e, "accepted:\n%s", text);
  ck_assert_int_eq (e->code, PS_ERROR_DATA);
  ck_assert_msg (g_str_has_prefix (e->message, "d.txt:151:1: error: 01:02.0 is function 16 of an ARI device")
                 && strstr (e->message, "01:00.0 to 01:00.7") && !strchr (e->message, '\n'), "%s", e->message);
  g_error_free (e);
  e = NULL;
  g_autofree char *plain = NULL;
  g_autoptr (PsConfig) cfg = import_device (dump, NULL, "01:02.0", &plain, &e);
  ck_assert_msg (cfg, "%s", e ? e->message : "");
  ck_assert_msg (strstr (plain, "# 01:02.0 is function 16 of 17 (ARI numbers 0-16;"), "%s", plain);
}
END_TEST

/* `pciesim import lspci` of tests/data/lspci/NAME --device DEVICE, which must succeed; the dump's path. */
static char *
import_ok (TestRun *r, const char *name, const char *device)
{
  char *path = data_path (name);
  PCIESIM (r, "import", "lspci", path, "--device", device);
  ck_assert_msg (r->status == 0, "%s %s: status %d: %s", name, device, r->status, r->err);
  return path;
}

/* SR-IOV VFs (tests/data/lspci/nic_sriov_vfs.txt, lines 1-237 as nic_dual_port.txt but PF 01:00.0 with 4 VFs
 * enabled, line 136, RCB 128, line 93, and 01:00.1 with ExtTag-, line 175; VFs 01:02.0 at 238 and 01:02.1 at 291):
 * 01:02.1 is VF 2 of 01:00.0 (0x0100 + 16 + 1 x 1 = 0x0111), the comment says so citing lines 136 and 137 and the
 * VF's own LnkSta (314 = 291 + 23); gen and MaxPayload cite the PF's lines saying why. Without its PF the VF is an
 * error (65) at its LnkSta's label: the root port (lines 1-62) and the VF (238-290 as lines 63-115, LnkSta at 63 +
 * 23 = 86, column 3 after two tabs); with a PF whose Number of VFs is 0 (nic_dual_port.txt, the VF appended at
 * 238: LnkSta 261) likewise, as no VF of it is enabled, and so is 01:02.4 (01:02.1 renamed, LnkSta 314), which
 * would be VF 5 (0x0100 + 16 + 4) of the 4 enabled. */
START_TEST (test_vfs)
{
  g_auto (TestRun) r;
  g_autofree char *path = import_ok (&r, "nic_sriov_vfs.txt", "01:02.1");
  g_autofree char *origin = g_strdup_printf ("# 01:02.1 is SR-IOV virtual function 2 of 01:00.0, by the PF's SR-IOV "
                                             "capability:\n#   %s:136 Initial VFs: 64, Total VFs: 64, Number of VFs: "
                                             "4,", path);
  g_autofree char *offset = g_strdup_printf ("\n#   %s:137 VF offset: 16, stride: 1,", path);
  g_autofree char *gen = g_strdup_printf ("  gen: 3                           # the PF's LnkSta: a VF has no link of "
                                          "its own (SR-IOV 1.1 3.5) (%s:95 LnkSta: Speed 8GT/s", path);
  g_autofree char *mps = g_strdup_printf ("  max_payload: 256                 # the PF's DevCtl: a VF's MaxPayload is "
                                          "RsvdP, the PF's applies (SR-IOV 1.1 3.5) (%s:89 ", path);
  const char *const needles[] = { origin, offset, "its own LnkSta is line 314", gen, mps };
  for (size_t i = 0; i < G_N_ELEMENTS (needles); i++)
    ck_assert_msg (strstr (r.out, needles[i]), "no '%s' in:\n%s", needles[i], r.out);

  g_autofree char *all = slurp (path);
  g_auto (GStrv) lines = g_strsplit (all, "\n", -1);
  g_autoptr (GString) alone = g_string_new (NULL), unenabled = g_string_new (NULL);
  for (guint i = 0; i < 62; i++)
    g_string_append_printf (alone, "%s\n", lines[i]);
  g_autofree char *dual = dual_text ();
  g_string_append (unenabled, dual);
  for (guint i = 237; i < 290; i++) {
    g_string_append_printf (alone, "%s\n", lines[i]);
    g_string_append_printf (unenabled, "%s\n", lines[i]);
  }
  g_autofree char *beyond = replace (all, "01:02.1 Ethernet", "01:02.4 Ethernet");
  const struct {
    const char *dump, *device;
    int line;
  } errs[] = { { alone->str, "01:02.0", 86 }, { unenabled->str, "01:02.0", 261 }, { beyond, "01:02.4", 314 } };
  g_autofree char *dir = case_dir ("vfs");
  for (size_t i = 0; i < G_N_ELEMENTS (errs); i++) {
    g_autofree char *name = g_strdup_printf ("vf%zu.txt", i);
    g_autofree char *file = g_build_filename (dir, name, NULL);
    ck_assert (g_file_set_contents (file, errs[i].dump, -1, NULL));
    g_auto (TestRun) bad;
    PCIESIM (&bad, "import", "lspci", file, "--device", errs[i].device);
    ck_assert_int_eq (bad.status, PS_ERROR_DATA);
    g_autofree char *where = g_strdup_printf ("%s:%d:3: error: %s's LnkSta reads Speed unknown, Width x0: it is an "
                                              "SR-IOV virtual function", file, errs[i].line, errs[i].device);
    g_autofree char *cmd = g_strdup_printf ("sudo lspci -vvv -s %s;", errs[i].device);
    g_autofree char *sys = g_strdup_printf ("/sys/bus/pci/devices/0000:%s/physfn", errs[i].device);
    const char *const says[] = { "whose link, MaxPayload and RCB are its physical function's", cmd, sys };
    assert_error_says (&bad, where, says, G_N_ELEMENTS (says));
  }
}
END_TEST

/* A VF without ARI in a fabric: nic_sriov_vfs.txt with the PF's VF offset 2 (VF 1 = 0x0100 + 2 = 01:00.2), no ARI
 * capability, and VF 01:02.0 renamed 01:00.2, drawn as 00.2 under the root port: three functions, the flows function
 * 2's, the endpoint's link the PF's Gen3 x8 (LnkSta line 95), the run's requests from 01:00.2. */
START_TEST (test_vf_fabric)
{
  g_autofree char *path = data_path ("nic_sriov_vfs.txt");
  g_autofree char *all = slurp (path);
  g_autofree char *offset = replace (all, "VF offset: 16,", "VF offset: 2,");
  g_autofree char *no_ari = replace (offset, "\tCapabilities: [150 v1] Alternative Routing-ID Interpretation (ARI)\n"
                                     "\t\tARICap:\tMFVC- ACS-, Next Function: 0\n\t\tARICtl:\tMFVC- ACS-, Function "
                                     "Group: 0\n", "");
  g_autofree char *dump = replace (no_ari, "01:02.0 Ethernet", "01:00.2 Ethernet");
  const char *tree = "-[0000:00]-+-00.0  Host\n"
                     "           \\-01.0-[01]--+-00.0  NIC\n"
                     "                        +-00.1  NIC\n"
                     "                        \\-00.2  VF\n";
  GError *e = NULL;
  g_autofree char *text = NULL;
  g_autoptr (PsConfig) cfg = import_device (dump, tree, "01:00.2", &text, &e);
  ck_assert_msg (cfg, "%s", e ? e->message : "");
  ck_assert_uint_eq (endpoint_functions (cfg), 3);
  ck_assert_int_eq (cfg->link.gen, 3);
  ck_assert_int_eq (cfg->link.lanes, 8);
  for (guint k = 0; k < cfg->topology->n_flows; k++)
    ck_assert_uint_eq (cfg->topology->flows[k].function, 2);
  ck_assert_msg (strstr (text, "# 01:00.2 is SR-IOV virtual function 1 of 01:00.0") && strstr (text, "(d.txt:95 "),
                 "%s", text);
  g_autofree char *dir = case_dir ("vf_fabric");
  g_autofree char *yaml = write_file (dir, "vf.yaml", text);
  g_auto (TestRun) run;
  PCIESIM (&run, yaml, "--format", "json");
  ck_assert_msg (run.status == 0 && strstr (run.out, "\"requester_id\": \"01:00.2\""), "%s%s", run.out, run.err);
}
END_TEST

/* The functions of one device whose MaxReadReq or tags differ from the imported one's: each named with its line.
 * Importing PF 01:00.0 (MaxReadReq 512, line 89; ExtTag+, line 88): VF 01:02.1, ARI function 17 (2 << 3 | 1), has
 * MaxReadReq 256 (line 308); 01:00.1, function 1, ExtTag- (line 175): 32 tags. VF 01:02.0 (512, and the PF's ExtTag
 * as every VF) differs in neither. The dual-port NIC's two functions agree: no such comment. */
START_TEST (test_functions_differ)
{
  g_auto (TestRun) r;
  g_autofree char *path = import_ok (&r, "nic_sriov_vfs.txt", "01:00.0");
  g_autofree char *mrrs = g_strdup_printf ("\n  max_read_request: 512            # %s:89 MaxPayload 256 bytes, "
                                           "MaxReadReq 512 bytes\n  # function 17 (01:02.1) has MaxReadReq 256 bytes: "
                                           "%s:308 MaxPayload 128 bytes, MaxReadReq 256 bytes\n  #   (the config "
                                           "holds one value for the device: 01:00.0's, the function imported)\n",
                                           path, path);
  g_autofree char *tags = g_strdup_printf ("\n  # function 1 (01:00.1) has 32 tags, 5-bit tags (ExtTag off; spec "
                                           "2.2.6.2: 32): %s:175 RlxdOrd+ ExtTag- ", path);
  ck_assert_msg (strstr (r.out, mrrs) && strstr (r.out, tags), "no '%s' or '%s' in:\n%s", mrrs, tags, r.out);
  ck_assert_msg (!strstr (r.out, "function 16 (01:02.0)"), "%s", r.out);
  g_auto (TestRun) d;
  g_autofree char *dual = import_ok (&d, "nic_dual_port.txt", "01:00.1");
  ck_assert_msg (!strstr (d.out, ") has "), "%s", d.out);
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
  { "Speed 8GT/s (ok), Width x8 (ok)", "Speed unknown, Width x8", "d.txt:32:17: error: ", "too old" },
  /* Both zero on an endpoint whose LnkCap names Gen3 x8 (line 28): its link is down, which the message says
   * (issue #40: it used to be called an SR-IOV VF; a VF's LnkCap reads zeros too, test_link_down). */
  { "Speed 8GT/s (ok), Width x8 (ok)", "Speed unknown, Width x0", "d.txt:32:3: error: ", "link is down" },
  { "Speed 8GT/s (ok), Width x8 (ok)", "Speed 2.5GT/s, Width x0", "d.txt:32:3: error: ", "can run Gen3 x8" },
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

/* --- issue #40: what the import used to accept or misname ------------------------------------------------------- */

/* A VF's Link registers are reserved (SR-IOV 1.1 3.5): LnkCap reads zeros as LnkSta does, and without its PF in the
 * dump that is still the VF message; a real LnkCap with a zero LnkSta is a link that is down, never a VF. */
START_TEST (test_link_down)
{
  g_autofree char *nic = nic_text ();
  g_autofree char *sta = replace (nic, "Speed 8GT/s (ok), Width x8 (ok)", "Speed unknown, Width x0");
  g_autofree char *vf = replace (sta, "Port #0, Speed 8GT/s, Width x8,", "Port #0, Speed unknown, Width x0,");
  GError *e = NULL;
  g_autoptr (PsConfig) a = import_text (sta, NULL, &e);
  ck_assert_msg (!a && e && strstr (e->message, "link is down") && !strstr (e->message, "virtual function"), "%s",
                 e ? e->message : "accepted");
  g_clear_error (&e);
  g_autoptr (PsConfig) b = import_text (vf, NULL, &e);
  ck_assert_msg (!b && e && strstr (e->message, "virtual function"), "%s", e ? e->message : "accepted");
  g_clear_error (&e);
}
END_TEST

/* A root port is no DMA device: pcie-bench's Broadwell server (tests/data/pciebench/, its dump unchanged), root port
 * 00:03.0 (its Express capability on line 115, the text at column 2 after a tab) has the NFP-6000 03:00.0 below it
 * (its Bus: line 104, secondary=03); root port 00:1c.0 (line 329) has no endpoint below it in the dump. */
START_TEST (test_port_refused)
{
  g_autofree char *dump = g_build_filename (source_root (), "tests", "data", "pciebench",
                                            "bdw-e5-2630v4-t430-lspci.txt", NULL);
  g_auto (TestRun) rp, empty, nfp;
  PCIESIM (&rp, "import", "lspci", dump, "--device", "00:03.0");
  ck_assert_int_eq (rp.status, PS_ERROR_DATA);
  g_autofree char *where = g_strdup_printf ("%s:115:2: error: ", dump);
  assert_one_error_line (&rp, where);
  ck_assert_msg (strstr (rp.err, "root port") && strstr (rp.err, "below it: 03:00.0"), "%s", rp.err);
  PCIESIM (&empty, "import", "lspci", dump, "--device", "00:1c.0");
  ck_assert_int_eq (empty.status, PS_ERROR_DATA);
  ck_assert_msg (strstr (empty.err, "no endpoint below it") && strstr (empty.err, "03:00.0"), "%s", empty.err);
  /* The endpoint itself imports: Gen3 x8, MPS 256, MRRS 4096, ExtTag- (lines 798, 792, 791). */
  PCIESIM (&nfp, "import", "lspci", dump, "--device", "03:00.0");
  ck_assert_msg (nfp.status == 0 && strstr (nfp.out, "max_read_request: 4096") && strstr (nfp.out, "tags: 32"),
                 "%d %s", nfp.status, nfp.err);
}
END_TEST

/* --host takes host files: every shipped one is accepted, a whole config (nfp6000_g3_x8.yaml, whose first key,
 * name:, the test finds in its text) is refused at that key, and so is a host file that sets a link key of the device. */
START_TEST (test_host_only)
{
  g_autofree char *dump = data_path ("nic_gen3_x8.txt");
  g_autofree char *config = g_build_filename (source_root (), "configs", "nfp6000_g3_x8.yaml", NULL);
  g_auto (TestRun) whole;
  PCIESIM (&whole, "import", "lspci", dump, "--host", config);
  ck_assert_int_eq (whole.status, PS_ERROR_DATA);
  g_autofree char *text = slurp (config);
  guint name_line = 1;
  for (const char *p = text; !g_str_has_prefix (p, "name:"); p = strchr (p, '\n') + 1)
    name_line++;
  g_autofree char *where = g_strdup_printf ("%s:%u:1: error: ", config, name_line);
  assert_one_error_line (&whole, where);
  ck_assert_msg (strstr (whole.err, "host file"), "%s", whole.err);
  g_autofree char *hosts = g_build_filename (source_root (), "configs", "hosts", NULL);
  g_autoptr (GDir) dir = g_dir_open (hosts, 0, NULL);
  ck_assert (dir);
  guint n = 0;
  for (const char *f; (f = g_dir_read_name (dir));) {
    g_autofree char *path = g_build_filename (hosts, f, NULL);
    GError *e = NULL;
    ck_assert_msg (ps_lspci_check_host_file (path, &e), "%s: %s", f, e ? e->message : "");
    n++;
  }
  ck_assert_uint_ge (n, 7);
  g_autofree char *tmp = case_dir ("host");
  g_autofree char *bad = write_file (tmp, "h.yaml", "host:\n  read_latency_ns: 100\nlink:\n  address_bits: 64\n"
                                     "  gen: 4\n");
  GError *e = NULL;
  ck_assert (!ps_lspci_check_host_file (bad, &e));
  g_autofree char *at = g_strdup_printf ("%s:5:3: error: ", bad);
  ck_assert_msg (g_str_has_prefix (e->message, at) && strstr (e->message, "link.gen"), "%s", e->message);
  g_error_free (e);
}
END_TEST

/* A Gen6 x16 link carries 16 x 8000 MB/s before flit overhead (pcie-protocol.md §1): the datapath the import
 * writes must carry that (bits / 8 x MHz), and the read figure must pass what the default 1024 bits at 500 MHz
 * allowed, 1024 / 8 x 500 = 64000 MB/s, which used to cap it (issue #40). */
START_TEST (test_datapath_follows_link)
{
  g_autofree char *nic = nic_text ();
  g_autofree char *g6 = replace (nic, "Speed 8GT/s (ok), Width x8 (ok)", "Speed 64GT/s (ok), Width x16 (ok)");
  g_autofree char *text = NULL;
  GError *e = NULL;
  g_autoptr (PsConfig) cfg = import_device (g6, NULL, NULL, &text, &e);
  ck_assert_msg (cfg, "%s", e ? e->message : "");
  ck_assert (cfg->endpoint.datapath_bits / 8.0 * cfg->endpoint.clock_mhz >= 16 * 8000.0);
  ck_assert_msg (strstr (text, "datapath_bits: ") && strstr (text, "chosen by the import"), "%s", text);
  g_autofree char *dir = case_dir ("g6");
  g_autofree char *path = write_file (dir, "g6.yaml", text);
  g_auto (TestRun) r;
  PCIESIM (&r, path, "--mode", "read", "--format", "json");
  ck_assert_msg (r.status == 0, "%s", r.err);
  const char *m = strstr (r.out, "\"read\": {\"mbps\": ");
  ck_assert_msg (m, "%s", r.out);
  double mbps = g_ascii_strtod (m + strlen ("\"read\": {\"mbps\": "), NULL);
  ck_assert_msg (mbps > 64000, "Gen6 x16 reads at %.0f MB/s", mbps);
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
  tcase_add_loop_test (tc, test_functions, 0, 2);
  tcase_add_test (tc, test_functions_without_tree);
  tcase_add_test (tc, test_access_denied);
  tcase_add_test (tc, test_choose_device);
  tcase_add_loop_test (tc, test_speed_words, 0, 6);
  tcase_add_test (tc, test_layouts);
  tcase_add_test (tc, test_sriov_regions);
  tcase_add_test (tc, test_function_counts);
  tcase_add_test (tc, test_function_beyond_eight);
  tcase_add_test (tc, test_vfs);
  tcase_add_test (tc, test_functions_differ);
  tcase_add_test (tc, test_vf_fabric);
  tcase_add_loop_test (tc, test_bad_input, 0, G_N_ELEMENTS (bad_cases));
  tcase_add_test (tc, test_bad_tree);
  tcase_add_test (tc, test_link_down);
  tcase_add_test (tc, test_port_refused);
  tcase_add_test (tc, test_host_only);
  tcase_add_test (tc, test_datapath_follows_link);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return run_suite (lspci_suite ());
}
