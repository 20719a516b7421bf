/* test-assumptions.c — assumptions as data (docs/trust.md, "Assumptions as data"): every shipped ASSUMPTION has a
 * range and every range an ASSUMPTION; the loader's rules for ranges; `--ranges` and `pciesim fit`.
 *
 * The shipped-file check reads each YAML file as text, since the marks live in comments, which no YAML parser
 * keeps. A mark belongs to the key on its line (a trailing comment) or to the key right below its comment block
 * (no blank line between, the block at the key's indentation); a block at the top of a file is the file's header,
 * prose about every value, and belongs to no key. A mark on a section covers its numeric leaves in the file. A
 * mark whose comment says "no range" (a setting or a behaviour, not a quantity) is exempt, as are keys that are
 * not numeric (a choice of words has no interval). */
#include <math.h>

#define TMPDIR_TEMPLATE "pciesim-assumptions-XXXXXX"
#include "tests/common.h"

#include <json-glib/json-glib.h>

#include "app/run/builder.h"
#include "app/config/config.h"
#include "app/config/load.h"
#include "app/study/scenario.h"
#include "app/config/ytree.h"

static gboolean
has_mark (const char *text)
{
  return strstr (text, "ASSUMPTION") || strstr (text, "UNCONFIRMED");
}

/* One file: its marked numeric keys (path -> line) against its assumptions: keys. Returns the problems found,
 * one per line, "" when none. */
static char *
check_file (const char *path, const char *rel)
{
  g_autofree char *text = slurp (path);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  g_autoptr (GHashTable) marked = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GString *problems = g_string_new (NULL);
  /* The open sections by indentation: names[i] at indents[i]. */
  char *names[16] = { 0 };
  int indents[16], depth = 0;
  int block_start = -1, block_indent = -1;
  gboolean block_mark = FALSE, block_exempt = FALSE;
  /* A section that carries a mark: its numeric leaves below are marked (until the indentation returns). */
  int mark_section_indent = -1;
  gboolean mark_section_exempt = FALSE;
  for (int i = 0; lines[i]; i++) {
    const char *l = lines[i];
    int ind = 0;
    while (l[ind] == ' ')
      ind++;
    const char *s = l + ind;
    if (*s == '#') {
      if (block_start < 0) {
        block_start = i;
        block_indent = ind;
        block_mark = block_exempt = FALSE;
      }
      block_mark |= has_mark (s);
      block_exempt |= strstr (s, "no range") != NULL;
      continue;
    }
    gboolean header = block_start == 0;
    gboolean from_block = block_start >= 0 && block_mark && block_indent == ind && !header;
    gboolean exempt_block = block_exempt;
    block_start = -1;
    /* A key line: NAME: [value] [# comment]; list items and the like end any block. */
    const char *colon = strchr (s, ':');
    gboolean key_line = *s && colon;
    for (const char *c = s; key_line && c < colon; c++)
      key_line = g_ascii_isalnum (*c) || *c == '_';
    if (!key_line)
      continue;
    while (depth > 0 && indents[depth - 1] >= ind)
      g_free (names[--depth]);
    if (mark_section_indent >= 0 && ind <= mark_section_indent)
      mark_section_indent = -1;
    g_autofree char *name = g_strndup (s, (gsize) (colon - s));
    GString *full = g_string_new (NULL);
    for (int d = 0; d < depth; d++)
      g_string_append_printf (full, "%s.", names[d]);
    g_string_append (full, name);
    const char *hash = strchr (colon, '#');
    g_autofree char *value = g_strstrip (g_strndup (colon + 1, hash ? (gsize) (hash - colon - 1) : strlen (colon + 1)));
    gboolean trail = hash && has_mark (hash), exempt = (hash && strstr (hash, "no range")) || (from_block && exempt_block);
    gboolean in_section = mark_section_indent >= 0;
    if (!*value && depth < 15) {
      /* A section: its name opens a level; a mark on it covers the leaves below. */
      if ((trail || from_block) && !g_str_has_prefix (full->str, "assumptions")) {
        mark_section_indent = ind;
        mark_section_exempt = exempt;
      }
      indents[depth] = ind;
      names[depth++] = g_strdup (name);
    } else if ((trail || from_block || in_section)
               && (ps_config_key_numeric (full->str) || ps_config_key_boolean (full->str))
               && !(exempt || (in_section && mark_section_exempt && !trail && !from_block))) {
      g_hash_table_insert (marked, g_strdup (full->str), GINT_TO_POINTER (i + 1));
    }
    g_string_free (full, TRUE);
  }
  while (depth > 0)
    g_free (names[--depth]);

  g_autoptr (GError) e = NULL;
  g_autoptr (YNode) tree = ytree_load_file (path, &e);
  ck_assert_msg (tree != NULL, "%s: %s", rel, e ? e->message : "empty");
  const YNode *a = ytree_map_get (tree, "assumptions");
  for (guint k = 0; a && k < a->keys->len; k++) {
    const YNode *kn = a->keys->pdata[k];
    if (!g_hash_table_remove (marked, kn->value))
      g_string_append_printf (problems, "%s:%d: range of %s, which no ASSUMPTION or UNCONFIRMED comment marks\n", rel,
                              kn->line, kn->value);
  }
  GHashTableIter it;
  gpointer key, line;
  g_hash_table_iter_init (&it, marked);
  /* A boolean's mark may be a behaviour's, with no range: only a quantity must have one. */
  while (g_hash_table_iter_next (&it, &key, &line))
    if (ps_config_key_numeric (key))
      g_string_append_printf (problems, "%s:%d: %s is marked as an assumption but has no range in assumptions:\n",
                              rel, GPOINTER_TO_INT (line), (char *) key);
  return g_string_free (problems, FALSE);
}

START_TEST (test_shipped_marks_have_ranges)
{
  g_autoptr (GString) all = g_string_new (NULL);
  guint files = 0, ranges = 0;
  const char *const subdirs[] = { "configs", "configs/hosts", "configs/families", "configs/benchmarks", NULL };
  for (const char *const *sub = subdirs; *sub; sub++) {
    g_autofree char *dir = g_build_filename (source_root (), *sub, NULL);
    g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
    ck_assert_ptr_nonnull (d);
    for (const char *n; (n = g_dir_read_name (d));) {
      if (!g_str_has_suffix (n, ".yaml"))
        continue;
      g_autofree char *path = g_build_filename (dir, n, NULL);
      g_autofree char *rel = g_build_filename (*sub, n, NULL);
      g_autofree char *p = check_file (path, rel);
      g_string_append (all, p);
      files++;
      g_autoptr (YNode) tree = ytree_load_file (path, NULL);
      const YNode *a = tree ? ytree_map_get (tree, "assumptions") : NULL;
      ranges += a ? a->keys->len : 0;
    }
  }
  ck_assert_msg (all->len == 0, "%s", all->str);
  /* The check itself must see the shipped ranges, or it would pass on nothing. */
  ck_assert_uint_gt (files, 40);
  ck_assert_uint_gt (ranges, 40);
}
END_TEST

/* A default that is an ASSUMPTION (the key's doc says so) has its range as data in the key table, and a range
 * there is an ASSUMPTION's: read from the key list `pciesim keys` prints, one key per line. */
START_TEST (test_default_marks_have_ranges)
{
  g_autoptr (GString) list = g_string_new (NULL);
  ps_config_print_keys (list, FALSE, NULL);
  g_auto (GStrv) lines = g_strsplit (list->str, "\n", -1);
  g_autoptr (GString) problems = g_string_new (NULL);
  guint ranged = 0;
  for (guint i = 0; lines[i]; i++) {
    g_auto (GStrv) words = g_strsplit (lines[i], " ", 2);
    const char *key = words[0];
    if (!key || !ps_config_key_numeric (key))
      continue;
    double lo, hi;
    gboolean marked = has_mark (lines[i]) && !strstr (lines[i], "no range"), range = ps_config_default_range (key, &lo, &hi);
    /* Only ASSUMPTION: an UNCONFIRMED default (a switch's credits) is sized from a datasheet of another part. */
    marked = marked && strstr (lines[i], "ASSUMPTION");
    if (marked && !range)
      g_string_append_printf (problems, "%s: its default is marked ASSUMPTION but has no range\n", key);
    if (range && !marked)
      g_string_append_printf (problems, "%s: a default's range, but no ASSUMPTION in its doc\n", key);
    ranged += range;
  }
  ck_assert_msg (problems->len == 0, "%s", problems->str);
  ck_assert_uint_ge (ranged, 1);
  /* switch.dll_latency_ns: a fabric with a switch that keeps the default gets the range; one without a switch does
   * not (it never reads the key), nor does a config whose --set gives the value. */
  g_autoptr (GError) e = NULL;
  g_autofree char *hops_path = g_build_filename (source_root (), "configs", "fabric_hops_g3_x4.yaml", NULL);
  g_autofree char *svgx_path = g_build_filename (source_root (), "configs", "svgx_g2_x8.yaml", NULL);
  g_autoptr (PsConfig) hops = ps_config_load (hops_path, NULL, &e);
  ck_assert_msg (hops != NULL, "%s", e ? e->message : "");
  gboolean found = FALSE;
  for (guint a = 0; a < hops->n_assumptions; a++)
    if (strcmp (hops->assumptions[a].key, "switch.dll_latency_ns") == 0) {
      found = TRUE;
      ck_assert_double_eq (hops->assumptions[a].lo, 20);
      ck_assert_double_eq (hops->assumptions[a].hi, 100);
    }
  ck_assert (found);
  g_autoptr (PsConfig) set = ps_config_load (hops_path, (const char *const[]) { "switch.dll_latency_ns=40", NULL }, &e);
  ck_assert_msg (set != NULL, "%s", e ? e->message : "");
  g_autoptr (PsConfig) plain = ps_config_load (svgx_path, NULL, &e);
  ck_assert_msg (plain != NULL, "%s", e ? e->message : "");
  for (guint a = 0; a < set->n_assumptions; a++)
    ck_assert_str_ne (set->assumptions[a].key, "switch.dll_latency_ns");
  for (guint a = 0; a < plain->n_assumptions; a++)
    ck_assert_str_ne (plain->assumptions[a].key, "switch.dll_latency_ns");
}
END_TEST

/* link.flit_error_lane_correlation (a default that is an ASSUMPTION): ranged only where it can matter, flit mode
 * with errors, and it reaches the link. By hand (pcie-protocol.md §10): at a per-flit event mean lambda, a x16 flit
 * is lost with P = 1 - e^-lambda (1 + (1 - c) lambda); lambda = 256 x 8 x 1e-5 = 0.02048 gives 2.05e-4 at c = 0
 * and 2.03e-2 at c = 1, a hundred times as many lost flits: the seeded runs must differ by more than 30x. */
START_TEST (test_flit_lane_correlation)
{
  g_autofree char *path = g_build_filename (source_root (), "configs", "gen6_x16_stream.yaml", NULL);
  g_autoptr (GError) e = NULL;
  const char *const noisy[] = { "link.ber=1e-5", NULL };
  g_autoptr (PsConfig) with = ps_config_load (path, noisy, &e);
  ck_assert_msg (with != NULL, "%s", e ? e->message : "");
  g_autoptr (PsConfig) clean = ps_config_load (path, NULL, &e);
  ck_assert_msg (clean != NULL, "%s", e ? e->message : "");
  gboolean found = FALSE;
  for (guint a = 0; a < with->n_assumptions; a++)
    if (strcmp (with->assumptions[a].key, "link.flit_error_lane_correlation") == 0) {
      found = TRUE;
      ck_assert_double_eq (with->assumptions[a].lo, 0.001);
      ck_assert_double_eq (with->assumptions[a].hi, 0.03);
    }
  ck_assert (found);
  for (guint a = 0; a < clean->n_assumptions; a++)
    ck_assert_str_ne (clean->assumptions[a].key, "link.flit_error_lane_correlation");
  uint64_t lost[2];
  for (int c = 0; c < 2; c++) {
    const char *const sets[] = { "link.ber=1e-5", c ? "link.flit_error_lane_correlation=1"
                                                    : "link.flit_error_lane_correlation=0",
                                 "benchmark.transfer_bytes=16777216", NULL };
    g_autoptr (PsConfig) cfg = ps_config_load (path, sets, &e);
    ck_assert_msg (cfg != NULL, "%s", e ? e->message : "");
    g_autofree PsRunResult *r = g_new0 (PsRunResult, 1);
    ck_assert_msg (ps_run_config (cfg, PS_MODE_WRITE, 1, r, &e), "%s", e ? e->message : "");
    lost[c] = r->modes[PS_WRITE].errors_up.flit_errors + r->modes[PS_WRITE].errors_down.flit_errors;
  }
  ck_assert_msg (lost[1] > 30 * MAX (lost[0], 1), "lost flits: %" G_GUINT64_FORMAT " at c = 0, %" G_GUINT64_FORMAT
                 " at c = 1", lost[0], lost[1]);
}
END_TEST

/* The scanner on files made to fail: a mark without a range, a range without a mark, a section's mark. */
START_TEST (test_scanner_catches)
{
  g_autofree char *dir = g_build_filename (tmpdir_root, "scan", NULL);
  g_autofree char *a = write_file (dir, "a.yaml", "# header: every value here is an ASSUMPTION\n"
                                                  "host:\n  read_queue_depth: 8   # ASSUMPTION\n");
  g_autofree char *pa = check_file (a, "a.yaml");
  ck_assert_msg (strstr (pa, "a.yaml:3: host.read_queue_depth is marked") != NULL, "%s", pa);
  g_autofree char *b = write_file (dir, "b.yaml", "host:\n  read_queue_depth: 8\nassumptions:\n"
                                                  "  host.read_queue_depth: [4, 16]\n");
  g_autofree char *pb = check_file (b, "b.yaml");
  ck_assert_msg (strstr (pb, "b.yaml:4: range of host.read_queue_depth, which no") != NULL, "%s", pb);
  g_autofree char *c = write_file (dir, "c.yaml", "host:\n  # ASSUMPTION: both\n  rx_credits:\n    ph: 8\n    pd: 64\n"
                                                  "  write_latency_ns: 100\nassumptions:\n  host.rx_credits.ph: [4, 16]\n");
  g_autofree char *pc = check_file (c, "c.yaml");
  ck_assert_msg (strstr (pc, "host.rx_credits.pd is marked") && !strstr (pc, "write_latency_ns")
                 && !strstr (pc, "rx_credits.ph"), "%s", pc);
  g_autofree char *d = write_file (dir, "d.yaml", "link:\n  # ASSUMPTION (no range: a setting)\n  max_payload: 128\n"
                                                  "  updatefc_policy: minimum   # ASSUMPTION\n");
  g_autofree char *pd = check_file (d, "d.yaml");
  ck_assert_str_eq (pd, "");
}
END_TEST

/* --- the loader's rules ----------------------------------------------------------------------------------- */

static PsConfig *
load_text (const char *name, const char *text, const char *const *sets, GError **error)
{
  g_autofree char *dir = g_build_filename (tmpdir_root, "load", NULL);
  g_autofree char *path = write_file (dir, name, text);
  return ps_config_load (path, sets, error);
}

#define HOST_FILE                                                                                               \
  "host:\n  read_queue_depth: 8\n  write_latency_ns: 350\nassumptions:\n  host.read_queue_depth: [4, 128]\n" \
  "  host.write_latency_ns: [50, 500]\n"

START_TEST (test_ranges_merge)
{
  g_autofree char *dir = g_build_filename (tmpdir_root, "load", NULL);
  g_autofree char *h = write_file (dir, "h.yaml", HOST_FILE);
  g_autoptr (GError) e = NULL;
  /* The including file sets write_latency_ns again without a range: a sourced value, so the range goes; it gives
   * read_queue_depth a range of its own, which replaces the host's. */
  g_autoptr (PsConfig) c = load_text ("c.yaml", "include: h.yaml\nlink: {gen: 3, lanes: 8}\n"
                                      "host: {write_latency_ns: 200}\nassumptions:\n  host.read_queue_depth: [2, 16]\n",
                                      NULL, &e);
  ck_assert_msg (c != NULL, "%s", e ? e->message : "");
  ck_assert_uint_eq (c->n_assumptions, 1);
  ck_assert_str_eq (c->assumptions[0].key, "host.read_queue_depth");
  ck_assert_double_eq (c->assumptions[0].lo, 2);
  ck_assert_double_eq (c->assumptions[0].hi, 16);
  ck_assert_msg (g_str_has_suffix (c->assumptions[0].at, "c.yaml:5:26"), "%s", c->assumptions[0].at);
  /* A --set of an assumed key replaces the assumption too. */
  g_autoptr (PsConfig) s = load_text ("s.yaml", "include: h.yaml\nlink: {gen: 3, lanes: 8}\n",
                                      (const char *const[]) { "host.write_latency_ns=100", NULL }, &e);
  ck_assert_msg (s != NULL, "%s", e ? e->message : "");
  ck_assert_uint_eq (s->n_assumptions, 1);
  ck_assert_str_eq (s->assumptions[0].key, "host.read_queue_depth");
}
END_TEST

static const struct {
  const char *text, *error;
} bad_ranges[] = {
  { "link: {gen: 3, lanes: 8}\nassumptions:\n  host.read_queue_dept: [4, 128]\n",
    ":3:3: error: assumptions: unknown key 'host.read_queue_dept' (did you mean 'host.read_queue_depth'?)" },
  { "link: {gen: 3, lanes: 8}\nassumptions:\n  link.updatefc_policy: [0, 1]\n",
    ":3:3: error: assumptions: 'link.updatefc_policy' is not numeric" },
  { "link: {gen: 3, lanes: 8}\nhost: {read_queue_depth: 200}\nassumptions:\n  host.read_queue_depth: [4, 128]\n",
    ":4:26: error: assumptions: the range [4, 128] of host.read_queue_depth does not contain its value 200" },
  { "link: {gen: 3, lanes: 8}\nassumptions:\n  host.read_queue_depth: [16, 4]\n", ":3:26: error: assumptions: the "
    "range of host.read_queue_depth must have LO < HI" },
  { "link: {gen: 3, lanes: 8}\nassumptions:\n  host.read_queue_depth: 4\n", ":3:26: error: assumptions: the range of "
    "host.read_queue_depth must be [LO, HI]" },
  { "link: {gen: 3, lanes: 8}\nassumptions:\n  host.read_queue_depth: [4, 1e9]\n", ":3:30: error: "
    "host.read_queue_depth must be an integer" },
  { "link: {gen: 3, lanes: 8}\nassumptions: [host.read_queue_depth]\n", ":2:14: error: assumptions must be a "
    "mapping" },
  /* A boolean's range is the one [false, true]: reversed or a number, it is refused where it stands. */
  { "link: {gen: 3, lanes: 8}\nassumptions:\n  host.completions_in_order: [true, false]\n", ":3:30: error: "
    "assumptions: the range of host.completions_in_order must be [false, true]" },
  { "link: {gen: 3, lanes: 8}\nassumptions:\n  host.completions_in_order: [0, 1]\n", ":3:31: error: "
    "host.completions_in_order must be true or false, got '0'" },
};

START_TEST (test_bad_range)
{
  g_autoptr (GError) e = NULL;
  g_autoptr (PsConfig) c = load_text ("bad.yaml", bad_ranges[_i].text, NULL, &e);
  ck_assert_ptr_null (c);
  ck_assert_int_eq (e->code, PS_ERROR_DATA);
  ck_assert_msg (strstr (e->message, bad_ranges[_i].error) != NULL, "got '%s', want '%s'", e->message,
                 bad_ranges[_i].error);
}
END_TEST

START_TEST (test_snap)
{
  ck_assert_double_eq (ps_config_snap ("host.read_queue_depth", 7.6), 8);
  /* max_payload: powers of two, by ratio. */
  ck_assert_double_eq (ps_config_snap ("link.max_payload", 180), 128);
  ck_assert_double_eq (ps_config_snap ("link.max_payload", 182), 256);
  ck_assert_double_eq (ps_config_snap ("endpoint.datapath_bits", 300), 256);
  ck_assert_double_eq (ps_config_snap ("link.address_bits", 50), 64);
  ck_assert_double_eq (ps_config_snap ("host.write_latency_ns", 12.25), 12.25);
  g_autofree char *t = ps_config_set_text ("host.write_latency_ns", 0.1);
  ck_assert_str_eq (t, "host.write_latency_ns=0.10000000000000001");
  /* A boolean is the choice 0 or 1, set by its words, so a search's midpoint reads back as a value. */
  ck_assert (ps_config_key_integer ("host.completions_in_order"));
  ck_assert_double_eq (ps_config_snap ("host.completions_in_order", 0.4), 0);
  ck_assert_double_eq (ps_config_snap ("host.completions_in_order", 0.6), 1);
  g_autofree char *b = ps_config_set_text ("host.completions_in_order", 0.7);
  ck_assert_str_eq (b, "host.completions_in_order=true");
  g_autofree char *f = ps_config_set_text ("host.completions_in_order", 0);
  ck_assert_str_eq (f, "host.completions_in_order=false");
}
END_TEST


/* A memory device's access_latency_ns keeps its default's range as data (the node-kind registry's, 50-200 ns): an
 * assumption nodes.NAME.access_latency_ns while the node keeps the default, none once its node or a --set gives a
 * value. */
START_TEST (test_node_field_default_range)
{
  static const char *const text = "name: m\nlink: {gen: 3, lanes: 4}\ntopology:\n  nodes:\n    host: {type: root_complex}\n"
                                   "    mem: {type: memory%s}\n  links:\n    - [host, mem]\n";
  for (int given = 0; given < 3; given++) {
    g_autofree char *t = g_strdup_printf (text, given == 1 ? ", access_latency_ns: 150" : "");
    g_autoptr (GError) e = NULL;
    const char *const set[] = { "nodes.mem.access_latency_ns=150", NULL };
    g_autoptr (PsConfig) c = load_text ("mem.yaml", t, given == 2 ? set : NULL, &e);
    ck_assert_msg (c != NULL, "%s", e ? e->message : "");
    const PsAssumption *found = NULL;
    for (guint a = 0; a < c->n_assumptions; a++)
      if (strcmp (c->assumptions[a].key, "nodes.mem.access_latency_ns") == 0)
        found = &c->assumptions[a];
    if (given) {
      ck_assert_msg (found == NULL, "a given value keeps the default's range");
      continue;
    }
    ck_assert (found != NULL);
    ck_assert_double_eq (found->lo, 50);
    ck_assert_double_eq (found->hi, 200);
    ck_assert_double_eq (found->value, 100);
  }
}
END_TEST

/* --- --ranges ----------------------------------------------------------------------------------------------- */

static JsonObject *
ranges_json (JsonParser *p, const char *const *extra)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  for (const char *const *a = extra; *a; a++)
    g_ptr_array_add (args, (gpointer) *a);
  g_ptr_array_add (args, (gpointer) "--format");
  g_ptr_array_add (args, (gpointer) "json");
  g_ptr_array_add (args, NULL);
  g_auto (TestRun) r;
  run_program (&r, NULL, NULL, (const char *const *) args->pdata);
  ck_assert_msg (r.status == 0, "%s", r.err);
  g_autoptr (GError) e = NULL;
  ck_assert_msg (json_parser_load_from_data (p, r.out, -1, &e), "%s", e ? e->message : "");
  return json_node_get_object (json_parser_get_root (p));
}

/* The JSON of a plain run of `config` with extra --sets, by another path than --ranges' own (a process of its own). */
static JsonObject *
plain_json (JsonParser *p, const char *config, const char *const *sets)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  g_ptr_array_add (args, (gpointer) config);
  for (const char *const *s = sets; s && *s; s++) {
    g_ptr_array_add (args, (gpointer) "--set");
    g_ptr_array_add (args, (gpointer) *s);
  }
  g_ptr_array_add (args, NULL);
  return ranges_json (p, (const char *const *) args->pdata);
}

/* One microbench figure of such a run. */
static double
plain_figure (const char *config, const char *member, const char *const *sets)
{
  g_autoptr (JsonParser) p = json_parser_new ();
  JsonObject *o = plain_json (p, config, sets);
  JsonObject *mb = json_object_get_object_member (json_object_get_object_member (o, "results"), "microbench");
  return json_object_get_double_member (mb, member);
}

/* The NFP-6000's microbench: each sensitivity's ends are what a plain run with that one --set gives, and the
 * interval holds the plain value and every end. */
START_TEST (test_ranges_sensitivity_ends)
{
  g_autoptr (JsonParser) p = json_parser_new ();
  JsonObject *o = ranges_json (p, (const char *const[]) { "configs/nfp6000_g3_x8.yaml", "--ranges", "--jobs", "2",
                                                          NULL });
  JsonObject *mb = json_object_get_object_member (json_object_get_object_member (o, "results"), "microbench");
  double value = json_object_get_double_member (mb, "gbps");
  JsonObject *range = json_object_get_object_member (mb, "range");
  double lo = json_object_get_double_member (range, "lo"), hi = json_object_get_double_member (range, "hi");
  ck_assert (lo <= value && value <= hi && lo < hi);
  JsonArray *assumptions = json_object_get_array_member (o, "assumptions");
  guint n = json_array_get_length (assumptions);
  ck_assert_uint_eq (json_object_get_int_member (range, "assumptions"), n);
  /* More than 4 assumptions: one at a time (2 n), no corners nor sample, then the searches (two ends of two
   * figures), each within its budget, plus the plain run. */
  ck_assert_uint_gt (n, 4);
  JsonObject *runs = json_object_get_object_member (o, "ranges_runs");
  gint64 searched = json_object_get_int_member (runs, "searched");
  ck_assert_int_eq (json_object_get_int_member (runs, "searches"), 4);
  ck_assert_int_gt (searched, 4);
  ck_assert_int_le (searched, 4 * json_object_get_int_member (runs, "budget_per_end"));
  ck_assert_int_eq (json_object_get_int_member (runs, "total"), 1 + 2 * n + searched);
  ck_assert_str_eq (json_object_get_string_member (runs, "joint_kind"), "none");
  ck_assert_str_eq (json_object_get_string_member (range, "method"), "worst_case_search");
  JsonArray *sens = json_object_get_array_member (mb, "sensitivity");
  ck_assert_uint_eq (json_array_get_length (sens), n);
  /* The first (the largest effect) checked against plain runs at its two ends. */
  JsonObject *s0 = json_array_get_object_element (sens, 0);
  const char *key = json_object_get_string_member (s0, "key");
  for (int end = 0; end < 2; end++) {
    double v = json_object_get_double_member (s0, end ? "hi_value" : "lo_value");
    g_autofree char *set = g_strdup_printf ("%s=%.17g", key, v);
    double fig = plain_figure ("configs/nfp6000_g3_x8.yaml", "gbps", (const char *const[]) { set, NULL });
    ck_assert_double_eq_tol (json_object_get_double_member (s0, end ? "hi_figure" : "lo_figure"), fig, 5e-4);
    ck_assert (lo <= fig && fig <= hi);
  }
  /* Sorted by effect. */
  double prev = INFINITY;
  for (guint i = 0; i < n; i++) {
    JsonObject *s = json_array_get_object_element (sens, i);
    double d = fabs (json_object_get_double_member (s, "hi_figure") - json_object_get_double_member (s, "lo_figure"));
    ck_assert (d <= prev);
    prev = d;
  }
}
END_TEST

/* The figures --ranges gives intervals of, from a run's JSON, one "MODE.NAME=VALUE" line each: every mode's
 * MB/s (simultaneous: read and write), the microbench's Gb/s and median latency. */
static char *
figures_text (JsonObject *o)
{
  GString *out = g_string_new (NULL);
  JsonObject *results = json_object_get_object_member (o, "results");
  g_autoptr (GList) modes = json_object_get_members (results);
  for (GList *l = modes; l; l = l->next) {
    JsonObject *m = json_object_get_object_member (results, l->data);
    static const char *const names[] = { "mbps", "read_mbps", "write_mbps", "gbps" };
    for (guint i = 0; i < G_N_ELEMENTS (names); i++)
      if (json_object_has_member (m, names[i]) && (i != 1 || !json_object_has_member (m, "mbps")))
        g_string_append_printf (out, "%s.%s=%.17g\n", (char *) l->data, names[i],
                                json_object_get_double_member (m, names[i]));
    if (json_object_has_member (m, "latency_ns") && json_object_has_member (m, "gbps"))
      g_string_append_printf (out, "%s.p50=%.17g\n", (char *) l->data,
                              json_object_get_double_member (json_object_get_object_member (m, "latency_ns"), "p50"));
  }
  ck_assert_msg (out->len > 0, "no figure in the run");
  return g_string_free (out, FALSE);
}

/* A key nothing a config runs reads (models' counters: no interrupt, no poll, IOMMU off, warm cache) is not run
 * alone by --ranges: checked here by running it anyway, at both ends, each a plain run of its own, which must give
 * the plain run's figures. And the same keys where their mechanism works are read, and move a figure (else the
 * check above could pass on a --ranges that skipped everything). */
static const struct {
  const char *config, *set; /* the config and a --set (or NULL) */
  const char *unread, *read; /* one key it must find unread, one it must find read and moving (or NULL) */
} unread_cases[] = {
  { "configs/xdma_g3_x8_poll.yaml", NULL, "cpu.wakeup.p99_ns", "host.poll_interval_ns" }, /* polls, no MSI */
  { "configs/xdma_g3_x8_driver.yaml", NULL, "host.poll_interval_ns", "cpu.wakeup.median_ns" }, /* MSIs, no poll */
  { "configs/nfp6000_g3_x8.yaml", NULL, "host.iommu.walk_ns", "host.read_latency_ps_per_byte" }, /* IOMMU off */
  { "configs/nfp6000_g3_x8.yaml", "microbench.test=bw_wr", "host.read_latency_ps_per_byte", NULL }, /* no MRd */
};

START_TEST (test_ranges_unread)
{
  const char *cfg = unread_cases[_i].config, *given = unread_cases[_i].set;
  g_autoptr (JsonParser) p = json_parser_new ();
  JsonObject *o = ranges_json (p, given ? (const char *const[]) { cfg, "--ranges", "--set", given, NULL }
                                        : (const char *const[]) { cfg, "--ranges", NULL });
  g_autofree char *plain = figures_text (o);
  g_autoptr (JsonParser) pp = json_parser_new ();
  g_autofree char *alone = figures_text (plain_json (pp, cfg, (const char *const[]) { given, NULL }));
  ck_assert_str_eq (plain, alone);
  JsonArray *as = json_object_get_array_member (o, "assumptions");
  guint unread = 0, unread_runs = 0;
  gboolean found = FALSE, found_read = unread_cases[_i].read == NULL;
  for (guint a = 0; a < json_array_get_length (as); a++) {
    JsonObject *x = json_array_get_object_element (as, a);
    const char *key = json_object_get_string_member (x, "key");
    gboolean read = json_object_get_boolean_member (x, "read");
    double value = json_object_get_double_member (x, "value");
    for (int end = 0; end < 2; end++) {
      double v = json_object_get_double_member (x, end ? "hi" : "lo");
      if (v == value || (read && g_strcmp0 (key, unread_cases[_i].read) != 0))
        continue;
      g_autofree char *set = g_strdup_printf ("%s=%.17g", key, v);
      g_autoptr (JsonParser) q = json_parser_new ();
      g_autofree char *fig = figures_text (plain_json (q, cfg, given ? (const char *const[]) { given, set, NULL }
                                                                    : (const char *const[]) { set, NULL }));
      if (read) {
        found_read |= strcmp (fig, plain) != 0;
        continue;
      }
      ck_assert_msg (strcmp (fig, plain) == 0, "%s: %s moves a figure:\n%s\nagainst\n%s", cfg, set, fig, plain);
      unread_runs++;
    }
    unread += !read;
    found |= !read && strcmp (key, unread_cases[_i].unread) == 0;
  }
  ck_assert_msg (found, "%s: %s not found unread", cfg, unread_cases[_i].unread);
  ck_assert_msg (found_read, "%s: %s not found read and moving a figure", cfg, unread_cases[_i].read);
  ck_assert_uint_gt (unread, 0);
  JsonObject *runs = json_object_get_object_member (o, "ranges_runs");
  ck_assert_uint_eq (json_object_get_int_member (runs, "unread"), unread_runs);
}
END_TEST

/* A key read in some modes only is run alone in those (gpcie: polls and reads of host memory in its DMA modes,
 * neither in its PIO modes), the other modes' figures taken from the plain run: every mode's sensitivity to it is
 * what plain runs with the key at each end give, each a process of its own running every mode. */
static const char *const some_modes_keys[] = { "host.poll_interval_ns", "host.read_latency_ns" };

START_TEST (test_ranges_some_modes)
{
  const char *cfg = "configs/gpcie_arriagx_g1_x4.yaml", *key = some_modes_keys[_i];
  g_autoptr (JsonParser) p = json_parser_new ();
  JsonObject *o = ranges_json (p, (const char *const[]) { cfg, "--ranges", NULL });
  JsonObject *results = json_object_get_object_member (o, "results");
  static const char *const modes[] = { "read", "write", "pio_read", "pio_write" };
  double ends[2] = { NAN, NAN };
  JsonArray *as = json_object_get_array_member (o, "assumptions");
  for (guint a = 0; a < json_array_get_length (as); a++) {
    JsonObject *x = json_array_get_object_element (as, a);
    if (strcmp (json_object_get_string_member (x, "key"), key) == 0) {
      ck_assert (json_object_get_boolean_member (x, "read"));
      ends[0] = json_object_get_double_member (x, "lo");
      ends[1] = json_object_get_double_member (x, "hi");
    }
  }
  ck_assert (!isnan (ends[0]));
  gboolean moved = FALSE;
  for (int end = 0; end < 2; end++) {
    g_autofree char *set = g_strdup_printf ("%s=%.17g", key, ends[end]);
    g_autoptr (JsonParser) q = json_parser_new ();
    JsonObject *plain = json_object_get_object_member (plain_json (q, cfg, (const char *const[]) { set, NULL }),
                                                       "results");
    for (guint m = 0; m < G_N_ELEMENTS (modes); m++) {
      JsonArray *sens = json_object_get_array_member (json_object_get_object_member (results, modes[m]),
                                                      "sensitivity");
      for (guint i = 0; i < json_array_get_length (sens); i++) {
        JsonObject *s = json_array_get_object_element (sens, i);
        if (strcmp (json_object_get_string_member (s, "key"), key) != 0)
          continue;
        double fig = json_object_get_double_member (s, end ? "hi_figure" : "lo_figure");
        double want = json_object_get_double_member (json_object_get_object_member (plain, modes[m]), "mbps");
        ck_assert_msg (fabs (fig - want) < 0.006, "%s %s=%g: --ranges %.2f, a plain run %.2f", modes[m], key,
                       ends[end], fig, want);
        moved |= fabs (json_object_get_double_member (s, "hi_figure") - json_object_get_double_member (s, "lo_figure"))
                 > 0;
      }
    }
  }
  ck_assert_msg (moved, "%s moves no figure of %s: the check would not see a wrong mode", key, cfg);
}
END_TEST

/* A config with no assumption: every interval collapses to the value, in one run. */
START_TEST (test_ranges_none)
{
  /* The Stratix V Gen2 x8 row on the ideal host: every value calibrated or the spec's, no range anywhere. */
  g_autofree char *dir = g_build_filename (tmpdir_root, "none", NULL);
  g_autofree char *text = g_strdup_printf ("include: [%s/configs/benchmarks/an456.yaml, %s/configs/hosts/ideal.yaml, "
                                           "%s/configs/families/svgx.yaml]\nlink: {gen: 2, lanes: 8}\n"
                                           "endpoint: {datapath_bits: 128, clock_mhz: 250}\n", source_root (),
                                           source_root (), source_root ());
  g_autofree char *cfg = write_file (dir, "none.yaml", text);
  g_autoptr (JsonParser) p = json_parser_new ();
  JsonObject *o = ranges_json (p, (const char *const[]) { cfg, "--ranges", "--mode", "read", NULL });
  JsonObject *read = json_object_get_object_member (json_object_get_object_member (o, "results"), "read");
  JsonObject *range = json_object_get_object_member (read, "range");
  ck_assert_double_eq (json_object_get_double_member (range, "lo"), json_object_get_double_member (read, "mbps"));
  ck_assert_double_eq (json_object_get_double_member (range, "hi"), json_object_get_double_member (read, "mbps"));
  ck_assert_int_eq (json_object_get_int_member (range, "samples"), 1);
  g_auto (TestRun) r;
  PCIESIM (&r, cfg, "--ranges", "--mode", "read");
  ck_assert_msg (strstr (r.out, "every figure depends on no assumption") != NULL, "%s", r.out);
}
END_TEST

/* Few assumptions: the corners. Two here, a file of our own over the NFP-6000: 4 corners, 4 one at a time, of
 * which the ends equal to the values repeat the plain run. The same bytes for any --jobs, and for a seed. */
START_TEST (test_ranges_corners_deterministic)
{
  g_autofree char *dir = g_build_filename (tmpdir_root, "corners", NULL);
  const char *text = "link: {gen: 3, lanes: 8, max_payload: 256, tx_pipeline_ns: 150}\n"
                     "host: {read_latency_ns: 300, read_queue_depth: 8}\nendpoint: {tags: 64}\n"
                     "benchmark: {workload: microbench}\nmicrobench: {test: bw_rd, transfer_bytes: 256, dmas: 200}\n"
                     "assumptions:\n  host.read_queue_depth: [8, 16]\n  link.tx_pipeline_ns: [100, 200]\n";
  g_autofree char *cfg = write_file (dir, "two.yaml", text);
  g_auto (TestRun) a, b, c;
  PCIESIM (&a, cfg, "--ranges", "--format", "json", "--jobs", "1");
  PCIESIM (&b, cfg, "--ranges", "--format", "json", "--jobs", "2");
  /* The bound reads no seed (only a --samples sample would); this microbench draws nothing either. */
  PCIESIM (&c, cfg, "--ranges", "--format", "json", "--jobs", "2", "--seed", "99");
  ck_assert_msg (a.status == 0, "%s", a.err);
  /* Only wall_s may differ. */
  g_autoptr (GRegex) wall = g_regex_new ("\"wall_s\": [0-9.e-]+", 0, 0, NULL);
  g_autoptr (GRegex) seed = g_regex_new ("\"seed\": [0-9]+", 0, 0, NULL);
  g_autofree char *wa = g_regex_replace_literal (wall, a.out, -1, 0, "", 0, NULL);
  g_autofree char *wb = g_regex_replace_literal (wall, b.out, -1, 0, "", 0, NULL);
  g_autofree char *wc0 = g_regex_replace_literal (wall, c.out, -1, 0, "", 0, NULL);
  g_autofree char *sa = g_regex_replace_literal (seed, wa, -1, 0, "", 0, NULL);
  g_autofree char *sc = g_regex_replace_literal (seed, wc0, -1, 0, "", 0, NULL);
  ck_assert_str_eq (wa, wb);
  ck_assert_str_eq (sa, sc);
  g_autoptr (JsonParser) p = json_parser_new ();
  ck_assert (json_parser_load_from_data (p, a.out, -1, NULL));
  JsonObject *runs = json_object_get_object_member (json_node_get_object (json_parser_get_root (p)), "ranges_runs");
  ck_assert_int_eq (json_object_get_int_member (runs, "total"), 1 + 4 + 4 + json_object_get_int_member (runs,
                                                                                                        "searched"));
  ck_assert_int_eq (json_object_get_int_member (runs, "corners"), 4);
  ck_assert_str_eq (json_object_get_string_member (runs, "joint_kind"), "corners");
}
END_TEST

/* The figure of flow `flow` in a plain run of `config` with `sets`. */
static double
flow_figure (const char *config, const char *flow, const char *const *sets)
{
  g_autoptr (JsonParser) p = json_parser_new ();
  JsonArray *flows = json_object_get_array_member (plain_json (p, config, sets), "flows");
  for (guint i = 0; i < json_array_get_length (flows); i++) {
    JsonObject *f = json_array_get_object_element (flows, i);
    if (strcmp (json_object_get_string_member (f, "name"), flow) == 0)
      return json_object_get_double_member (f, "mbps");
  }
  ck_abort_msg ("no flow %s", flow);
  return NAN;
}

/* A fabric node's own value with a range of its own: listed as nodes.NAME.KEY beside the file's (and the switches'
 * default dll_latency_ns), moved by --ranges as --set nodes.NAME.KEY moves it; its ends are plain runs with that
 * --set. A --set of it drops the range, and a range that misses the node's value is a located error. */
START_TEST (test_ranges_node_own)
{
  g_autofree char *dir = g_build_filename (tmpdir_root, "node", NULL);
  g_autofree char *text = g_strdup_printf ("include: %s/configs/fabric_hops_g3_x4.yaml\ntopology:\n  nodes:\n"
                                           "    sw2: {type: switch, switch: {latency_ns: 150},\n"
                                           "          assumptions: {switch.latency_ns: [100, 300]}}\n", source_root ());
  g_autofree char *cfg = write_file (dir, "node.yaml", text);
  g_autoptr (JsonParser) p = json_parser_new ();
  JsonObject *o = ranges_json (p, (const char *const[]) { cfg, "--ranges", NULL });
  JsonArray *as = json_object_get_array_member (o, "assumptions");
  ck_assert_uint_eq (json_array_get_length (as), 2);
  JsonObject *a0 = json_array_get_object_element (as, 0);
  ck_assert_str_eq (json_object_get_string_member (a0, "key"), "nodes.sw2.switch.latency_ns");
  ck_assert_double_eq (json_object_get_double_member (a0, "value"), 150);
  ck_assert_msg (g_str_has_suffix (json_object_get_string_member (a0, "at"), "node.yaml:5:44"), "%s",
                 json_object_get_string_member (a0, "at"));
  /* Flow h3 crosses sw2: its sensitivity to the node's latency is what plain runs at the two ends give. */
  JsonArray *flows = json_object_get_array_member (o, "flows");
  JsonObject *h3 = json_array_get_object_element (flows, 3);
  ck_assert_str_eq (json_object_get_string_member (h3, "name"), "h3");
  JsonArray *sens = json_object_get_array_member (h3, "sensitivity");
  JsonObject *s = NULL;
  for (guint i = 0; i < json_array_get_length (sens); i++)
    if (strcmp (json_object_get_string_member (json_array_get_object_element (sens, i), "key"),
                "nodes.sw2.switch.latency_ns") == 0)
      s = json_array_get_object_element (sens, i);
  ck_assert_ptr_nonnull (s);
  double lo = flow_figure (cfg, "h3", (const char *const[]) { "nodes.sw2.switch.latency_ns=100", NULL });
  double hi = flow_figure (cfg, "h3", (const char *const[]) { "nodes.sw2.switch.latency_ns=300", NULL });
  ck_assert (lo != hi);
  ck_assert_double_eq_tol (json_object_get_double_member (s, "lo_figure"), lo, 5e-3);
  ck_assert_double_eq_tol (json_object_get_double_member (s, "hi_figure"), hi, 5e-3);
  JsonObject *range = json_object_get_object_member (h3, "range");
  ck_assert (json_object_get_double_member (range, "lo") <= MIN (lo, hi)
             && MAX (lo, hi) <= json_object_get_double_member (range, "hi"));
  g_autoptr (GError) e = NULL;
  g_autoptr (PsConfig) set = ps_config_load (cfg, (const char *const[]) { "nodes.sw2.switch.latency_ns=120", NULL },
                                             &e);
  ck_assert_msg (set != NULL, "%s", e ? e->message : "");
  for (guint a = 0; a < set->n_assumptions; a++)
    ck_assert (!g_str_has_prefix (set->assumptions[a].key, "nodes."));
  /* A file over it that sets the node's value again without a range drops the range (a sourced value); one that
   * keeps the range and misses it is an error. */
  g_autofree char *over = write_file (dir, "over.yaml", "include: node.yaml\ntopology:\n  nodes:\n"
                                      "    sw2: {switch: {latency_ns: 400}}\n");
  g_autoptr (PsConfig) o2 = ps_config_load (over, NULL, &e);
  ck_assert_msg (o2 != NULL, "%s", e ? e->message : "");
  for (guint a = 0; a < o2->n_assumptions; a++)
    ck_assert (!g_str_has_prefix (o2->assumptions[a].key, "nodes."));
  g_autofree char *bad = write_file (dir, "bad.yaml", "include: node.yaml\ntopology:\n  nodes:\n"
                                     "    sw2: {switch: {latency_ns: 400}, assumptions: {switch.latency_ns: [100, 300]}}\n");
  ck_assert_ptr_null (ps_config_load (bad, NULL, &e));
  ck_assert_msg (strstr (e->message, "the range [100, 300] of switch.latency_ns does not contain its value 400"), "%s",
                 e->message);
}
END_TEST

START_TEST (test_ranges_usage)
{
  g_auto (TestRun) r, t;
  PCIESIM (&r, "configs/svgx_g2_x8.yaml", "--samples", "4");
  ck_assert_int_eq (r.status, 64);
  assert_one_error_line (&r, "pciesim: error: --jobs and --samples need --ranges");
  PCIESIM (&t, "configs/svgx_g2_x8.yaml", "--ranges", "--trace", "x.vcd");
  ck_assert_int_eq (t.status, 64);
}
END_TEST


/* A sweep's interval metrics are --ranges' ends for the point's config: compared with a run of the point alone. */
START_TEST (test_sweep_range_metrics)
{
  g_autofree char *dir = g_build_filename (tmpdir_root, "sweep", NULL);
  g_autofree char *base = g_build_filename (source_root (), "configs", "nfp6000_g3_x8.yaml", NULL);
  g_autofree char *text = g_strdup_printf ("base: %s\naxes:\n  - key: microbench.test\n    values: [bw_wr]\n"
                                           "metrics: [microbench_gbps, microbench_gbps_lo, microbench_gbps_hi]\n", base);
  g_autofree char *sc = write_file (dir, "sc.yaml", text);
  g_auto (TestRun) r;
  PCIESIM (&r, "sweep", sc);
  ck_assert_msg (r.status == 0, "%s", r.err);
  g_auto (GStrv) lines = g_strsplit (r.out, "\n", -1);
  g_auto (GStrv) cells = g_strsplit (lines[1], ",", -1);
  g_autoptr (JsonParser) p = json_parser_new ();
  JsonObject *o = ranges_json (p, (const char *const[]) { "configs/nfp6000_g3_x8.yaml", "--ranges", "--set",
                                                          "microbench.test=bw_wr", NULL });
  JsonObject *mb = json_object_get_object_member (json_object_get_object_member (o, "results"), "microbench");
  JsonObject *range = json_object_get_object_member (mb, "range");
  ck_assert_double_eq_tol (g_ascii_strtod (cells[3], NULL), json_object_get_double_member (range, "lo"), 5e-4);
  ck_assert_double_eq_tol (g_ascii_strtod (cells[4], NULL), json_object_get_double_member (range, "hi"), 5e-4);
  ck_assert (json_object_get_double_member (range, "lo") < json_object_get_double_member (range, "hi"));
}
END_TEST

/* A fabric sweep's flow interval metrics (FLOW_mbps_lo/_hi) are the flow's --ranges ends for the point's config,
 * compared with a run of the point alone, and hold the flow's figure between them. */
START_TEST (test_sweep_flow_range_metrics)
{
  g_autofree char *dir = g_build_filename (tmpdir_root, "sweep_flow", NULL);
  g_autofree char *base = g_build_filename (source_root (), "configs", "fabric_hops_g3_x4.yaml", NULL);
  g_autofree char *text = g_strdup_printf ("base: %s\naxes:\n  - key: link.max_payload\n    values: [128]\n"
                                           "metrics: [h2_mbps, h2_mbps_lo, h2_mbps_hi]\n", base);
  g_autofree char *sc = write_file (dir, "sc.yaml", text);
  g_auto (TestRun) r;
  PCIESIM (&r, "sweep", sc);
  ck_assert_msg (r.status == 0, "%s", r.err);
  g_auto (GStrv) lines = g_strsplit (r.out, "\n", -1);
  ck_assert_str_eq (lines[0], "id,link.max_payload,h2_mbps,h2_mbps_lo,h2_mbps_hi");
  g_auto (GStrv) cells = g_strsplit (lines[1], ",", -1);
  double v = g_ascii_strtod (cells[2], NULL), lo = g_ascii_strtod (cells[3], NULL), hi = g_ascii_strtod (cells[4], NULL);
  ck_assert (lo <= v && v <= hi && lo < hi);
  g_autoptr (JsonParser) p = json_parser_new ();
  JsonObject *o = ranges_json (p, (const char *const[]) { "configs/fabric_hops_g3_x4.yaml", "--ranges", "--set",
                                                          "link.max_payload=128", NULL });
  JsonObject *h2 = json_array_get_object_element (json_object_get_array_member (o, "flows"), 2);
  ck_assert_str_eq (json_object_get_string_member (h2, "name"), "h2");
  JsonObject *range = json_object_get_object_member (h2, "range");
  ck_assert_double_eq_tol (lo, json_object_get_double_member (range, "lo"), 5e-3);
  ck_assert_double_eq_tol (hi, json_object_get_double_member (range, "hi"), 5e-3);
}
END_TEST

/* --- fit -------------------------------------------------------------------------------------------------- */

/* Synthetic measurements: pciesim's own figures with known values, on the NFP-6000's microbenchmarks. Not a write
 * stream's DMA latency: with more than one DMA outstanding it is the time behind the MWrs the card queued for the
 * credit loop, whose fill moves by whole MWrs as the card's 4-ns issue edges and the loop alias (2048-B writes:
 * 862 to 1085 ns median, not monotonic, for link.tx_pipeline_ns 96 to 104), so no search finds a truth from it
 * (set 1 stopped at 1.09% RMS, the pipeline at 97.3); the stream's bandwidth carries the write latency instead. */
static const struct {
  const char *test, *bytes, *metric;
} synthetic[] = {
  { "bw_rd", "64", "microbench_gbps" },
  { "bw_rd", "256", "microbench_gbps" },
  { "bw_wr", "512", "microbench_gbps" },
  { "bw_wr", "2048", "microbench_gbps" },
  { "lat_rd", "8", "microbench_latency_p50_ns" },
};

/* The truth, away from the base's values (8, 350 and the NFP family's 118), inside each range. Set 1 is found by
 * the first simplex; set 2 only after the read queue's integer steps, the simplex again (the other two compensate
 * for a queue of 8 until then: 11.5% RMS and a write latency of 291 ns where a descent that stops after the
 * integers ends); set 3 has a queue deeper than any measured figure needs. */
#define N_TRUTH 3
static const struct {
  const char *key;
  double value[N_TRUTH];
  gboolean integer;
} truth[] = {
  { "host.read_queue_depth", { 10, 5, 24 }, TRUE },
  { "host.write_latency_ns", { 200, 450, 120 }, FALSE },
  { "link.tx_pipeline_ns", { 100, 60, 250 }, FALSE },
};

/* The report's "A to B fit as well" for `key`: FALSE when the line is not there. */
static gboolean
fits_as_well (const char *report, const char *key, double *a, double *b)
{
  g_autofree char *pattern = g_strdup_printf ("(?m)^%s .*constrained: (\\S+) to (\\S+) fit as well", key);
  g_autoptr (GMatchInfo) m = NULL;
  g_autoptr (GRegex) re = g_regex_new (pattern, 0, 0, NULL);
  if (!g_regex_match (re, report, 0, &m))
    return FALSE;
  g_autofree char *sa = g_match_info_fetch (m, 1), *sb = g_match_info_fetch (m, 2);
  *a = g_ascii_strtod (sa, NULL);
  *b = g_ascii_strtod (sb, NULL);
  return TRUE;
}

START_TEST (test_fit_recovers)
{
  g_autofree char *name = g_strdup_printf ("fit%d", _i);
  g_autofree char *dir = g_build_filename (tmpdir_root, name, NULL);
  /* The NFP-6000 on a host of the test's own, whose read concurrency and posted-write path bind the figures (a
   * workstation's: 8 reads at once, 16 posted TLPs of 256 bytes held 350 ns each, 20 ns per completion and no
   * return-path rate), so each parameter moves a measured figure whatever the shipped host file says. */
  g_autofree char *nfp = g_build_filename (source_root (), "configs", "nfp6000_g3_x8.yaml", NULL);
  g_autofree char *base_text = g_strdup_printf (
      "include: [%s]\nhost: {read_queue_depth: 8, write_latency_ns: 350, completion_overhead_ns: 20, "
      "completion_group_tlps: 1, completion_mbps: 0, write_drain_mbps: 0, rx_credits: {ph: 16, pd: 256}}\n"
      "assumptions:\n  host.read_queue_depth: [4, 128]\n"
      "  host.write_latency_ns: [50, 500]\n  link.tx_pipeline_ns: [50, 300]\n  host.cold_cache_latency_ns: [30, 120]\n",
      nfp);
  g_autofree char *base = write_file (dir, "base.yaml", base_text);
  GString *file = g_string_new (NULL);
  g_string_append_printf (file, "base: %s\nparameters: [", base);
  for (guint k = 0; k < G_N_ELEMENTS (truth); k++)
    g_string_append_printf (file, "%s, ", truth[k].key);
  /* One that moves none of these figures: a cold-cache latency, with every test warm. */
  g_string_append (file, "host.cold_cache_latency_ns]\nmeasurements:\n");
  for (guint i = 0; i < G_N_ELEMENTS (synthetic); i++) {
    g_autofree char *t = g_strdup_printf ("microbench.test=%s", synthetic[i].test);
    g_autofree char *b = g_strdup_printf ("microbench.transfer_bytes=%s", synthetic[i].bytes);
    g_autofree char *s0 = g_strdup_printf ("%s=%g", truth[0].key, truth[0].value[_i]);
    g_autofree char *s1 = g_strdup_printf ("%s=%g", truth[1].key, truth[1].value[_i]);
    g_autofree char *s2 = g_strdup_printf ("%s=%g", truth[2].key, truth[2].value[_i]);
    g_autoptr (GError) e = NULL;
    g_autoptr (PsConfig) cfg = ps_config_load (base, (const char *const[]) { t, b, s0, s1, s2, NULL }, &e);
    ck_assert_msg (cfg != NULL, "%s", e ? e->message : "");
    PsRunResult res = { 0 };
    ck_assert (ps_run_config (cfg, cfg->benchmark.modes, 1, &res, &e));
    double v = strstr (synthetic[i].metric, "gbps") ? res.microbench.gbps : res.microbench.latency.p50_ns;
    g_string_append_printf (file, "  - {set: {microbench.test: %s, microbench.transfer_bytes: %s}, %s: %.17g}\n",
                            synthetic[i].test, synthetic[i].bytes, synthetic[i].metric, v);
  }
  g_autofree char *path = write_file (dir, "synthetic.yaml", file->str);
  g_string_free (file, TRUE);
  g_autofree char *out = g_build_filename (dir, "fitted.yaml", NULL);
  g_auto (TestRun) r;
  PCIESIM (&r, "fit", path, "-o", out, "--jobs", "2");
  ck_assert_msg (r.status == 0, "%s", r.err);
  ck_assert_msg (strstr (r.out, "host.cold_cache_latency_ns") && strstr (r.out, "unconstrained: it moves no "
                 "measured figure"), "%s", r.out);
  g_autoptr (GError) e = NULL;
  g_autoptr (PsConfig) fitted = ps_config_load (out, NULL, &e);
  ck_assert_msg (fitted != NULL, "%s", e ? e->message : "");
  for (guint k = 0; k < G_N_ELEMENTS (truth); k++) {
    double v = ps_config_number (fitted, truth[k].key), t = truth[k].value[_i], a, z;
    ck_assert_msg (fits_as_well (r.out, truth[k].key, &a, &z), "%s: no interval\n%s", truth[k].key, r.out);
    ck_assert_msg (a <= v && v <= z, "%s: %g outside its own interval %g to %g", truth[k].key, v, a, z);
    /* issue #37: the interval is a profile (the others re-fitted at each probe), and holds the truth, which fits
     * exactly; with the others held at their fitted values it excluded it (set 1's pipeline: 99.788 to 99.98
     * against 100; set 3's write latency: 450.42 to 451.39 against 450). */
    ck_assert_msg (a <= t && t <= z, "%s: truth %g outside the interval %g to %g\n%s", truth[k].key, t, a, z, r.out);
    ck_assert_int_eq (ps_config_origin (fitted, truth[k].key)->from, PS_FROM_FILE);
    if (truth[k].integer && _i == 2) {
      /* A queue of 24 moves no figure against one of 128: a plateau, reported as one, reaching the range's end
       * and holding the truth; which value of it the search stops at is not the data's to say. */
      ck_assert_msg (a <= t && z == 128 && strstr (r.out, "(to the range's end: a plateau)"), "%s: %g to %g\n%s",
                     truth[k].key, a, z, r.out);
      continue;
    }
    if (truth[k].integer)
      ck_assert_msg (fabs (v - t) <= 1, "%s fitted %g, truth %g\n%s", truth[k].key, v, t, r.out);
    else
      ck_assert_msg (fabs (v - t) <= 0.05 * t, "%s fitted %g, truth %g\n%s", truth[k].key, v, t, r.out);
  }
  /* The unconstrained one is not written: it keeps the base's value, from the base's file. */
  ck_assert_int_eq (ps_config_origin (fitted, "host.cold_cache_latency_ns")->from, PS_FROM_INCLUDE);
  g_autoptr (PsConfig) given = ps_config_load (base, NULL, &e);
  ck_assert_msg (given != NULL, "%s", e ? e->message : "");
  ck_assert_double_eq (fitted->host.cold_cache_latency_ns, given->host.cold_cache_latency_ns);
}
END_TEST

static const struct {
  const char *body, *error;
} bad_fits[] = {
  /* host.read_latency_ns is calibrated on the Haswell host: no range, so not fittable. */
  { "parameters: [host.read_latency_ns]\nmeasurements:\n  - {microbench_gbps: 1}\n",
    ":2:14: error: parameter 'host.read_latency_ns' is not fittable: the base gives it no range" },
  { "measurements: []\n", ":2:15: error: measurements: must list at least one measurement" },
  { "measurements:\n  - {set: {microbench.test: bw_rd}, microbench_gbs: 1}\n",
    ":3:37: error: unknown metric 'microbench_gbs' (did you mean 'microbench_gbps'?)" },
  { "measurements:\n  - {set: {microbench.test: bw_rd}, read_mbps: 1}\n",
    ":3:37: error: metric 'read_mbps' is a benchmark mode's" },
  { "measurements:\n  - {set: {microbench.tset: bw_rd}, microbench_gbps: 1}\n",
    ":3:5: error: microbench.tset=bw_rd: unknown key 'microbench.tset' (did you mean 'microbench.test'?)" },
  /* issue #37: what a fit accepted and ran on. A verdict's text, an interval's end: no number a run measures. */
  { "measurements:\n  - {set: {microbench.test: bw_rd}, microbench_limited_by: 100}\n",
    ":3:37: error: metric 'microbench_limited_by' cannot be measured: it is a verdict's text, not a number" },
  { "measurements:\n  - {set: {microbench.test: bw_rd}, microbench_gbps_lo: 1}\n",
    ":3:37: error: metric 'microbench_gbps_lo' cannot be measured: it is an end of --ranges' interval" },
  { "measurements:\n  - {microbench_gbps: -1}\n", ":3:23: error: microbench_gbps: the measured value must be a "
    "positive number (at most 1e12), not negative" },
  { "measurements:\n  - {microbench_gbps: 1e300}\n", ":3:23: error: microbench_gbps: the measured value must be a "
    "positive number (at most 1e12)" },
  /* A parameter the measurement's own set: fixes (the fit used to override it silently). */
  { "parameters: [link.tx_pipeline_ns]\nmeasurements:\n  - {set: {link.tx_pipeline_ns: 100}, microbench_gbps: 50}\n",
    ":4:12: error: set: fixes link.tx_pipeline_ns, a parameter of this fit" },
  /* One point measured as 400 and as 800: the data contradict each other beyond their uncertainties. */
  { "measurements:\n  - {set: {microbench.test: bw_rd}, microbench_gbps: 400}\n"
    "  - {set: {microbench.test: bw_rd}, microbench_gbps: 800, uncertainty_pct: 5}\n",
    ":4:54: error: microbench_gbps measured 800 here and 400 at line 3, 100% apart, beyond their uncertainties" },
  { "parameters: [link.tx_pipline_ns]\nmeasurements:\n  - {microbench_gbps: 1}\n",
    ":2:14: error: parameter 'link.tx_pipline_ns' is not fittable: no such key (did you mean 'link.tx_pipeline_ns'?)" },
  /* set: takes what --set takes, and refuses it as --set does: a flow's key on a config with no flows. */
  { "measurements:\n  - {set: {flows.p2p.bytes: 4096}, microbench_gbps: 1}\n",
    ":3:5: error: flows.p2p.bytes=4096: 'flows.p2p': this config has no flows: section" },
  { "measurements:\n  - {microbench_gbps: 0}\n", ":3:23: error: microbench_gbps: the measured value must be a positive "
    "number (at most 1e12), not zero" },
  { "mesurements: []\n", ":2:1: error: unknown key 'mesurements' (did you mean 'measurements'?)" },
};

START_TEST (test_fit_bad)
{
  g_autofree char *dir = g_build_filename (tmpdir_root, "badfit", NULL);
  g_autofree char *base = g_build_filename (source_root (), "configs", "nfp6000_g3_x8.yaml", NULL);
  g_autofree char *text = g_strdup_printf ("base: %s\n%s", base, bad_fits[_i].body);
  g_autofree char *path = write_file (dir, "bad.yaml", text);
  g_auto (TestRun) r;
  PCIESIM (&r, "fit", path);
  ck_assert_int_eq (r.status, 65);
  g_autofree char *want = g_strconcat (path, bad_fits[_i].error, NULL);
  assert_one_error_line (&r, want);
}
END_TEST

/* issue #37: a parameter that moves nothing at the file values but does at the truth is fitted, not frozen. On the
 * shipped NFP-6000 with its own write limits off (endpoint.dma_write_max_bytes, dma_write_gap_ns and _switch_ns 0, in every
 * run and measurement: the card's 128-byte MWrs would bind first), host.write_latency_ns moves no write bandwidth
 * while the root port has 512 posted-data credits (the drain, not the credit loop, binds), but with 256 it does.
 * Measurements made (by plain runs here) at 256 credits and 120 ns: the fit must find both, where freezing the
 * latency at 104 ns left 2.5% RMS. */
#define CARD_WRITES_UNLIMITED "endpoint.dma_write_max_bytes=0", "endpoint.dma_write_gap_ns=0", \
  "endpoint.dma_write_switch_ns=0", NULL

START_TEST (test_fit_rescreen)
{
  g_autofree char *dir = g_build_filename (tmpdir_root, "rescreen", NULL);
  g_autofree char *base = g_build_filename (source_root (), "configs", "nfp6000_g3_x8.yaml", NULL);
  const char *const sizes[] = { "512", "1024" };
  GString *file = g_string_new (NULL);
  g_string_append_printf (file, "base: %s\nparameters: [host.rx_credits.pd, host.write_latency_ns]\nmeasurements:\n",
                          base);
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++) {
    g_autofree char *test = g_strdup ("microbench.test=bw_wr");
    g_autofree char *bytes = g_strdup_printf ("microbench.transfer_bytes=%s", sizes[i]);
    double at_truth = plain_figure ("configs/nfp6000_g3_x8.yaml", "gbps", (const char *const[]) { test, bytes,
                                    "host.rx_credits.pd=256", "host.write_latency_ns=120", CARD_WRITES_UNLIMITED });
    /* At the file's 81 ns the same credits give another figure: the latency matters there. */
    double at_file = plain_figure ("configs/nfp6000_g3_x8.yaml", "gbps", (const char *const[]) { test, bytes,
                                   "host.rx_credits.pd=256", CARD_WRITES_UNLIMITED });
    ck_assert (fabs (at_truth - at_file) > 0.01 * at_truth);
    g_string_append_printf (file, "  - {set: {microbench.test: bw_wr, microbench.transfer_bytes: %s, "
                            "endpoint.dma_write_max_bytes: 0, endpoint.dma_write_gap_ns: 0, endpoint.dma_write_switch_ns: 0}, "
                            "microbench_gbps: %.17g}\n", sizes[i], at_truth);
  }
  g_autofree char *path = write_file (dir, "rescreen.yaml", file->str);
  g_string_free (file, TRUE);
  g_auto (TestRun) r;
  PCIESIM (&r, "fit", path, "--jobs", "2", "--format", "json");
  ck_assert_msg (r.status == 0, "%s", r.err);
  g_autoptr (JsonParser) p = json_parser_new ();
  ck_assert (json_parser_load_from_data (p, r.out, -1, NULL));
  JsonObject *o = json_node_get_object (json_parser_get_root (p));
  JsonArray *params = json_object_get_array_member (o, "parameters");
  JsonObject *wl = json_array_get_object_element (params, 1);
  ck_assert_str_eq (json_object_get_string_member (wl, "key"), "host.write_latency_ns");
  ck_assert (json_object_get_boolean_member (wl, "constrained"));
  ck_assert_double_eq_tol (json_object_get_double_member (wl, "fitted"), 120, 6);
  ck_assert_double_eq (json_object_get_double_member (json_array_get_object_element (params, 0), "fitted"), 256);
  ck_assert (json_object_get_double_member (o, "rms_pct") < 0.1);
}
END_TEST

/* A boolean assumption is fitted as the choice 0 or 1 and written back as its word: a blind pcie-bench host's read
 * order, with the figures the plain runs give in arrival order (five page walks at once and 128 IOTLB entries set,
 * so that the walkers do not hide the order), comes back true, and the fitted config loads. */
START_TEST (test_fit_boolean)
{
  g_autofree char *dir = g_build_filename (tmpdir_root, "boolean", NULL);
  const char *rel = "configs/pciebench/bdw-Xeon-E5-2630v4-dell-t430-s0-s0-s0-iommu-nosp.yaml";
  g_autofree char *base = g_build_filename (source_root (), rel, NULL);
  const char *const windows[] = { "524288", "1048576" };
  GString *file = g_string_new (NULL);
  g_string_append_printf (file, "base: %s\nparameters: [host.completions_in_order]\nmeasurements:\n", base);
  for (guint i = 0; i < G_N_ELEMENTS (windows); i++) {
    g_autofree char *w = g_strdup_printf ("microbench.window_bytes=%s", windows[i]);
    double in_order = plain_figure (rel, "gbps", (const char *const[]) { w, "host.iommu.walks_in_flight=5",
                                    "host.iommu.iotlb_entries=128", "host.completions_in_order=true", NULL });
    double any = plain_figure (rel, "gbps", (const char *const[]) { w, "host.iommu.walks_in_flight=5",
                               "host.iommu.iotlb_entries=128", NULL });
    ck_assert (fabs (in_order - any) > 0.02 * in_order);
    g_string_append_printf (file, "  - {set: {microbench.window_bytes: %s, host.iommu.walks_in_flight: 5, "
                            "host.iommu.iotlb_entries: 128}, microbench_gbps: %.17g}\n", windows[i], in_order);
  }
  g_autofree char *path = write_file (dir, "order.yaml", file->str);
  g_string_free (file, TRUE);
  g_autofree char *out = g_build_filename (dir, "fitted.yaml", NULL);
  g_auto (TestRun) r;
  PCIESIM (&r, "fit", path, "--jobs", "2", "-o", out);
  ck_assert_msg (r.status == 0, "%s", r.err);
  ck_assert_msg (strstr (r.out, "host.completions_in_order        [false, true]           false        true"),
                 "%s", r.out);
  GError *e = NULL;
  g_autoptr (PsConfig) fitted = ps_config_load (out, NULL, &e);
  ck_assert_msg (fitted != NULL, "%s", e ? e->message : "");
  ck_assert (fitted->host.completions_in_order);
}
END_TEST

/* Measurements that carry an uncertainty are judged against it: a fit that cannot reach one (a 64-byte read's
 * median latency of 5 us, where every value in the ranges gives about 600 ns) names it, exits 1 as validate does
 * for figures beyond tolerance, and still writes the fitted file; the one it reaches is within its 1%. */
START_TEST (test_fit_unexplained)
{
  g_autofree char *dir = g_build_filename (tmpdir_root, "unexplained", NULL);
  g_autofree char *base = g_build_filename (source_root (), "configs", "nfp6000_g3_x8.yaml", NULL);
  g_autofree char *text = g_strdup_printf (
      "base: %s\nparameters: [link.tx_pipeline_ns]\nmeasurements:\n"
      "  - {set: {microbench.test: lat_rd, microbench.transfer_bytes: 8}, microbench_latency_p50_ns: 533, "
      "uncertainty_pct: 20}\n"
      "  - {set: {microbench.test: lat_rd, microbench.transfer_bytes: 64}, microbench_latency_p50_ns: 5000, "
      "uncertainty_pct: 1}\n", base);
  g_autofree char *path = write_file (dir, "unexplained.yaml", text);
  g_autofree char *out = g_build_filename (dir, "fitted.yaml", NULL);
  g_auto (TestRun) r;
  PCIESIM (&r, "fit", path, "-o", out, "--jobs", "2");
  ck_assert_msg (r.status == 1, "%d: %s%s", r.status, r.out, r.err);
  ck_assert (g_file_test (out, G_FILE_TEST_EXISTS));
  g_autofree char *line = g_strdup_printf ("%s:5: microbench.test=lat_rd microbench.transfer_bytes=64", path);
  ck_assert_msg (strstr (r.out, "does NOT explain the data: 1 of the 2") && strstr (r.out, line), "%s", r.out);
  g_auto (TestRun) q;
  PCIESIM (&q, "fit", path, "--jobs", "2", "--format", "json");
  ck_assert_int_eq (q.status, 1);
  g_autoptr (JsonParser) p = json_parser_new ();
  ck_assert_msg (json_parser_load_from_data (p, q.out, -1, NULL), "%s", q.out);
  JsonObject *o = json_node_get_object (json_parser_get_root (p));
  ck_assert_int_eq (json_object_get_int_member (o, "disagree"), 1);
  JsonArray *ms = json_object_get_array_member (o, "measurements");
  ck_assert (json_object_get_boolean_member (json_array_get_object_element (ms, 0), "within_uncertainty"));
  ck_assert (!json_object_get_boolean_member (json_array_get_object_element (ms, 1), "within_uncertainty"));
}
END_TEST

/* A measurement without uncertainty_pct gets no verdict, and says so: the row, the last lines and the JSON (issue
 * #37: a tolerance the user did not state would be the program's guess). Its residual is still given, so a bad fit
 * does not pass for an unjudged one: 5 us where every value in the range gives about 600 ns is a residual beyond
 * 80%, by the numbers alone. The same fit on 1, 2 and 3 threads prints the same bytes: restarts and profiles run
 * as parallel tasks, whose points (and the evaluations the report counts) must not depend on which ran first. */
START_TEST (test_fit_no_verdict)
{
  g_autofree char *dir = g_build_filename (tmpdir_root, "noverdict", NULL);
  g_autofree char *base = g_build_filename (source_root (), "configs", "nfp6000_g3_x8.yaml", NULL);
  g_autofree char *text = g_strdup_printf (
      "base: %s\nparameters: [link.tx_pipeline_ns, host.read_latency_ps_per_byte]\nmeasurements:\n"
      "  - {set: {microbench.test: lat_rd, microbench.transfer_bytes: 8}, microbench_latency_p50_ns: 533, "
      "uncertainty_pct: 20}\n"
      "  - {set: {microbench.test: lat_rd, microbench.transfer_bytes: 64}, microbench_latency_p50_ns: 5000}\n", base);
  g_autofree char *path = write_file (dir, "noverdict.yaml", text);
  g_auto (TestRun) r;
  PCIESIM (&r, "fit", path, "--jobs", "1");
  ck_assert_msg (r.status == 0, "%d: %s%s", r.status, r.out, r.err);
  ck_assert_msg (strstr (r.out, "(no uncertainty: no verdict)"), "%s", r.out);
  ck_assert_msg (strstr (r.out, "the fit explains only the measurements with an uncertainty: each of the 1 is within it\n"
                         "1 measurement gives no uncertainty_pct: no verdict on it"), "%s", r.out);
  for (const char *jobs = "2"; jobs; jobs = strcmp (jobs, "2") == 0 ? "3" : NULL) {
    g_auto (TestRun) q;
    PCIESIM (&q, "fit", path, "--jobs", jobs);
    ck_assert_msg (strcmp (q.out, r.out) == 0, "--jobs %s:\n%s--jobs 1:\n%s", jobs, q.out, r.out);
  }
  g_auto (TestRun) j;
  PCIESIM (&j, "fit", path, "--jobs", "2", "--format", "json");
  ck_assert_int_eq (j.status, 0);
  g_autoptr (JsonParser) p = json_parser_new ();
  ck_assert_msg (json_parser_load_from_data (p, j.out, -1, NULL), "%s", j.out);
  JsonObject *o = json_node_get_object (json_parser_get_root (p));
  ck_assert_int_eq (json_object_get_int_member (o, "unjudged"), 1);
  ck_assert_str_eq (json_object_get_string_member (o, "verdict"), "explains_judged_only");
  JsonObject *m1 = json_array_get_object_element (json_object_get_array_member (o, "measurements"), 1);
  ck_assert_str_eq (json_object_get_string_member (m1, "verdict"), "no_uncertainty");
  ck_assert (!json_object_has_member (m1, "within_uncertainty"));
  ck_assert_double_lt (json_object_get_double_member (m1, "residual_pct"), -80);
  /* Neither measurement with an uncertainty: no verdict at all, exit 0. */
  g_autofree char *none = g_strdup_printf ("base: %s\nparameters: [link.tx_pipeline_ns]\nmeasurements:\n"
                                           "  - {set: {microbench.test: lat_rd, microbench.transfer_bytes: 64}, "
                                           "microbench_latency_p50_ns: 5000}\n", base);
  g_autofree char *npath = write_file (dir, "none.yaml", none);
  g_auto (TestRun) n;
  PCIESIM (&n, "fit", npath, "--jobs", "2", "--format", "json");
  ck_assert_int_eq (n.status, 0);
  g_autoptr (JsonParser) np = json_parser_new ();
  ck_assert_msg (json_parser_load_from_data (np, n.out, -1, NULL), "%s", n.out);
  ck_assert_str_eq (json_object_get_string_member (json_node_get_object (json_parser_get_root (np)), "verdict"),
                    "no_verdict");
  g_auto (TestRun) t;
  PCIESIM (&t, "fit", npath, "--jobs", "2");
  ck_assert_msg (strstr (t.out, "no verdict: no measurement gives uncertainty_pct"), "%s", t.out);
}
END_TEST

/* The base: a directory is missing input (66) named as what it is; a fit file named as the base is said to be one
 * (not "a scenario file"); the fitted file's "was V at FILE:LINE" is where the value is set, not its range; and -o
 * that cannot be written names the file asked for, not GLib's temporary one beside it (issue #37). */
START_TEST (test_fit_files)
{
  g_autofree char *dir = g_build_filename (tmpdir_root, "fitfiles", NULL);
  g_autofree char *configs = g_build_filename (source_root (), "configs", NULL);
  g_autofree char *text = g_strdup_printf ("base: %s\nmeasurements:\n  - {microbench_gbps: 1}\n", configs);
  g_autofree char *d = write_file (dir, "dir.yaml", text);
  g_auto (TestRun) r;
  PCIESIM (&r, "fit", d);
  ck_assert_int_eq (r.status, 66);
  g_autofree char *want = g_strdup_printf ("%s:1:7: error: base config '%s' is a directory, not a config file", d,
                                           configs);
  assert_one_error_line (&r, want);
  g_autofree char *nfp = g_build_filename (source_root (), "configs", "nfp6000_g3_x8.yaml", NULL);
  g_autofree char *fit_text = g_strdup_printf ("base: %s\nparameters: [link.tx_pipeline_ns]\nmeasurements:\n"
                                               "  - {set: {microbench.test: lat_rd, microbench.transfer_bytes: 8}, "
                                               "microbench_latency_p50_ns: 540}\n", nfp);
  g_autofree char *fit = write_file (dir, "fit.yaml", fit_text);
  g_autofree char *on_fit = write_file (dir, "onfit.yaml", "base: fit.yaml\nmeasurements:\n  - {microbench_gbps: 1}\n");
  g_auto (TestRun) q;
  PCIESIM (&q, "fit", on_fit);
  ck_assert_int_eq (q.status, 65);
  ck_assert_msg (strstr (q.err, "is a fit file (it has measurements:), not a config") != NULL, "%s", q.err);
  g_autofree char *out = g_build_filename (dir, "fitted.yaml", NULL);
  g_auto (TestRun) w;
  PCIESIM (&w, "fit", fit, "-o", out, "--jobs", "2");
  ck_assert_msg (w.status == 0, "%s", w.err);
  g_autofree char *fitted = slurp (out);
  /* "(was V at FILE:LINE:COL)": the value the family file gives, found there at that line. */
  g_autoptr (GRegex) re = g_regex_new ("\\(was ([0-9.]+) at ([^:]+):([0-9]+):[0-9]+\\)", 0, 0, NULL);
  g_autoptr (GMatchInfo) m = NULL;
  ck_assert_msg (g_regex_match (re, fitted, 0, &m), "%s", fitted);
  g_autofree char *was = g_match_info_fetch (m, 1), *file = g_match_info_fetch (m, 2), *line = g_match_info_fetch (m, 3);
  g_autofree char *src = slurp (file);
  g_auto (GStrv) lines = g_strsplit (src, "\n", -1);
  int n = atoi (line);
  ck_assert_int_le (n, (int) g_strv_length (lines));
  g_autofree char *want_line = g_strdup_printf ("tx_pipeline_ns: %s", was);
  ck_assert_msg (strstr (lines[n - 1], want_line) != NULL, "%s:%d is '%s'", file, n, lines[n - 1]);
  g_auto (TestRun) o;
  PCIESIM (&o, "fit", fit, "-o", "/nonexistent-dir/fitted.yaml");
  ck_assert_int_eq (o.status, 73);
  assert_one_error_line (&o, "pciesim: error: cannot write /nonexistent-dir/fitted.yaml: No such file or directory");
}
END_TEST

/* --set nodes.NAME.switch.KEY on an endpoint node was accepted and read by nothing; it is refused at the --set, as
 * a switch: section on that node is (tests/bad/topology_switch_*), while the same --set on a switch is taken. */
START_TEST (test_node_switch_set)
{
  g_auto (TestRun) r, s;
  PCIESIM (&r, "configs/fabric_hops_g3_x4.yaml", "--set", "nodes.e0.switch.latency_ns=300");
  ck_assert_int_eq (r.status, 65);
  assert_one_error_line (&r, "--set nodes.e0.switch.latency_ns=300:1:1: error: switch: only a switch node has switch "
                             "keys (e0 is an endpoint): they would be read by nothing");
  PCIESIM (&s, "configs/fabric_hops_g3_x4.yaml", "--set", "nodes.sw1.switch.latency_ns=300");
  ck_assert_msg (s.status == 0, "%s", s.err);
}
END_TEST

/* --samples 0 is no sample (it used to run 4), and one point is "1 Latin-hypercube point". */
START_TEST (test_ranges_samples)
{
  g_autoptr (JsonParser) p = json_parser_new ();
  JsonObject *o = ranges_json (p, (const char *const[]) { "configs/nfp6000_g3_x8.yaml", "--ranges", "--samples", "0",
                                                          NULL });
  ck_assert_int_eq (json_object_get_int_member (json_object_get_object_member (o, "ranges_runs"), "sampled"), 0);
  g_auto (TestRun) r;
  PCIESIM (&r, "configs/nfp6000_g3_x8.yaml", "--ranges", "--samples", "1");
  ck_assert_msg (r.status == 0, "%s", r.err);
  ck_assert_msg (strstr (r.out, ", 1 Latin-hypercube point,") && !strstr (r.out, "1 Latin-hypercube points"), "%s",
                 r.out);
  /* No sensitivity is listed whose ends print the same. */
  ck_assert_msg (!g_regex_match_simple (": ([0-9.]+)→\\1(;|$)", r.out, G_REGEX_MULTILINE, 0), "%s", r.out);
}
END_TEST

/* set: takes every key --set takes: a fabric's flow (flows.NAME.KEY), which the fit used to refuse as unknown. */
START_TEST (test_fit_set_flow)
{
  g_autofree char *dir = g_build_filename (tmpdir_root, "fitflow", NULL);
  g_autofree char *base = g_build_filename (source_root (), "configs", "v7_p2p_g2_x4_1switch.yaml", NULL);
  g_autofree char *text = g_strdup_printf ("base: %s\nparameters: [link.tx_pipeline_ns]\nmeasurements:\n"
                                           "  - {set: {flows.p2p.bytes: 65536}, p2p_mbps: 1400}\n", base);
  g_autofree char *path = write_file (dir, "flow.yaml", text);
  g_auto (TestRun) r;
  PCIESIM (&r, "fit", path, "--jobs", "2");
  ck_assert_msg (r.status == 0 || r.status == 1, "%d: %s", r.status, r.err);
  ck_assert_msg (strstr (r.out, "flows.p2p.bytes=65536") != NULL, "%s", r.out);
}
END_TEST

/* A metric of a mode the measurement's config does not run: XDMA's rows run the three DMA modes, not PIO. */
START_TEST (test_fit_mode_not_run)
{
  g_autofree char *dir = g_build_filename (tmpdir_root, "badfit", NULL);
  g_autofree char *base = g_build_filename (source_root (), "configs", "xdma_g3_x8.yaml", NULL);
  g_autofree char *text = g_strdup_printf ("base: %s\nmeasurements:\n  - {pio_read_mbps: 3000}\n", base);
  g_autofree char *path = write_file (dir, "mode.yaml", text);
  g_auto (TestRun) r;
  PCIESIM (&r, "fit", path);
  ck_assert_int_eq (r.status, 65);
  g_autofree char *want = g_strconcat (path, ":3:6: error: metric 'pio_read_mbps' needs pio_read mode, "
                                       "which the measurement's config does not run", NULL);
  assert_one_error_line (&r, want);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("assumptions");
  TCase *tc = tcase_create ("assumptions");
  tcase_set_timeout (tc, 120);
  tcase_add_unchecked_fixture (tc, tmpdir_setup, tmpdir_teardown);
  tcase_add_test (tc, test_shipped_marks_have_ranges);
  tcase_add_test (tc, test_default_marks_have_ranges);
  tcase_add_test (tc, test_flit_lane_correlation);
  tcase_add_test (tc, test_scanner_catches);
  tcase_add_test (tc, test_ranges_merge);
  tcase_add_loop_test (tc, test_bad_range, 0, G_N_ELEMENTS (bad_ranges));
  tcase_add_test (tc, test_snap);
  tcase_add_test (tc, test_node_field_default_range);
  tcase_add_test (tc, test_ranges_sensitivity_ends);
  tcase_add_loop_test (tc, test_ranges_unread, 0, G_N_ELEMENTS (unread_cases));
  tcase_add_loop_test (tc, test_ranges_some_modes, 0, G_N_ELEMENTS (some_modes_keys));
  tcase_add_test (tc, test_ranges_none);
  tcase_add_test (tc, test_ranges_corners_deterministic);
  tcase_add_test (tc, test_ranges_node_own);
  tcase_add_test (tc, test_ranges_usage);
  tcase_add_test (tc, test_sweep_range_metrics);
  tcase_add_test (tc, test_sweep_flow_range_metrics);
  tcase_add_loop_test (tc, test_fit_recovers, 0, N_TRUTH);
  tcase_add_loop_test (tc, test_fit_bad, 0, G_N_ELEMENTS (bad_fits));
  tcase_add_test (tc, test_fit_mode_not_run);
  tcase_add_test (tc, test_fit_set_flow);
  tcase_add_test (tc, test_fit_files);
  tcase_add_test (tc, test_ranges_samples);
  tcase_add_test (tc, test_node_switch_set);
  tcase_add_test (tc, test_fit_rescreen);
  tcase_add_test (tc, test_fit_boolean);
  tcase_add_test (tc, test_fit_unexplained);
  tcase_add_test (tc, test_fit_no_verdict);
  suite_add_tcase (s, tc);
  return run_suite (s);
}
