/* test-why.c — "why is my figure what it is" (issue #15, models/analysis/why.h, models/observe/stall.h): the limited-by verdicts
 * name the resource a config was built to be short of, each transmitter's busy and idle shares sum to 1, the
 * bounds follow Little's law, one MRd's round trip on an idle link is the hand sum of its parts, and the JSON
 * carries all of it.
 *
 * The configs are the shipped Gen2 x8 one with one resource made scarce by --set, so each case knows its answer
 * from what it changed, not from a run: two tags, 32 posted-data credits, a 64-bit datapath, a 256-bit datapath
 * (nothing but the wire left), a host whose reads take 2 us. The latency case writes its own small config. */
#include <check.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#define TMPDIR_TEMPLATE "pciesim-test-why-XXXXXX"
#include "tests/common.h"
#include "app/run/builder.h"
#include "app/config/config.h"
#include "app/config/load.h"

static PsConfig *
load_shipped (const char *const *sets)
{
  g_autoptr (GError) e = NULL;
  g_autofree char *path = g_build_filename (source_root (), "configs", "svgx_g2_x8.yaml", NULL);
  PsConfig *cfg = ps_config_load (path, sets, &e);
  ck_assert_msg (cfg != NULL, "%s", e ? e->message : "");
  return cfg;
}

static void
run (PsConfig *cfg, unsigned modes, PsRunResult *r)
{
  g_autoptr (GError) e = NULL;
  *r = (PsRunResult) { 0 };
  ck_assert_msg (ps_run_config (cfg, modes, 1, r, &e), "%s", e ? e->message : "");
}

/* Every transmitter of a mode: busy by category plus idle by cause is all of its time. */
static void
assert_sums (const PsModeResult *m, const char *what)
{
  ck_assert_uint_eq (m->n_transmitters, 3);
  for (guint i = 0; i < m->n_transmitters; i++) {
    const PsTransmitter *t = &m->transmitters[i];
    double sum = 0;
    for (guint k = 0; k < t->n_busy; k++) {
      ck_assert (t->busy[k] >= 0);
      sum += t->busy[k];
    }
    for (guint k = 0; k < t->n_idle; k++) {
      ck_assert (t->idle[k] > 0);
      sum += t->idle[k];
    }
    ck_assert_msg (fabs (sum - 1) < 1e-9, "%s: %s sums to %.12f", what, t->name, sum);
  }
}

/* The share one transmitter was idle for `cause` (0 when never). */
static double
idle_for (const PsModeResult *m, const char *tx, const char *cause)
{
  for (guint i = 0; i < m->n_transmitters; i++)
    if (strcmp (m->transmitters[i].name, tx) == 0)
      for (guint k = 0; k < m->transmitters[i].n_idle; k++)
        if (strcmp (m->transmitters[i].idle_name[k], cause) == 0)
          return m->transmitters[i].idle[k];
  return 0;
}

static const struct {
  const char *name;
  const char *sets[4];
  int mode; /* PS_READ or PS_WRITE */
  const char *cause, *words; /* the verdict's cause, and words its text must have */
  const char *tx; /* a transmitter idle mostly for that cause (NULL: none, the cause is busy time) */
} cause_cases[] = {
  /* Two reads of 512 bytes in flight cannot cover the read round trip: the requester waits for tags. */
  { "tags", { "endpoint.tags=2", NULL }, PS_READ, "tags", "2 tags x 512 bytes = 1024 bytes in flight", "link0.up" },
  /* 32 posted-data credits are 512 bytes, two MWr of 256 per credit round trip. */
  { "posted credits", { "host.rx_credits.pd=32", NULL }, PS_WRITE, "credits_pd",
    "limited by posted-data credits of the root port", "endpoint.datapath" },
  /* A 256-bit datapath at 250 MHz moves 8 GB/s, twice the Gen2 x8 wire: the wire is what is left. */
  { "link", { "endpoint.datapath_bits=256", NULL }, PS_WRITE, "link", "limited by the link (Gen2 x8)", NULL },
  /* A 64-bit datapath at 250 MHz moves 2 GB/s, half the wire. */
  { "datapath", { "endpoint.datapath_bits=64", NULL }, PS_WRITE, "datapath_tx",
    "limited by the application datapath's transmit side (64 bits at 250 MHz)", "link0.up" },
  /* 4 ns per byte of read (2 us for each 512-byte request, 0.26 us for a descriptor fetch) on a 2 KB transfer:
   * four requests go out at once and the completions' link waits for the host. */
  { "host latency",
    { "host.read_latency_ns=200", "host.read_latency_ps_per_byte=4000", "benchmark.transfer_bytes=2048", NULL },
    PS_READ, "host_latency", "limited by the host's read latency", "link0.down" },
};

START_TEST (test_causes)
{
  g_autoptr (PsConfig) cfg = load_shipped (cause_cases[_i].sets);
  PsRunResult r;
  int mode = cause_cases[_i].mode;
  run (cfg, 1u << mode, &r);
  const PsModeResult *m = &r.modes[mode];
  const PsVerdict *v = mode == PS_READ ? &m->read_verdict : &m->write_verdict;
  ck_assert (v->valid);
  ck_assert_msg (strcmp (v->cause, cause_cases[_i].cause) == 0, "%s: limited by %s (%s)", cause_cases[_i].name,
                 v->cause, v->text);
  ck_assert_msg (strstr (v->text, cause_cases[_i].words) != NULL, "%s: '%s'", cause_cases[_i].name, v->text);
  ck_assert_msg (v->share > v->next_share && v->share <= 1, "%s: %f vs %f", cause_cases[_i].name, v->share,
                 v->next_share);
  /* The verdict's line ends with what the link alone allows, unless the link is the bound. */
  ck_assert ((strstr (v->text, "the link alone would allow") != NULL) == (strcmp (v->cause, "link") != 0));
  assert_sums (m, cause_cases[_i].name);
  /* A verdict names the datapath's side; a transmitter's clock waits for "datapath" (stall.h). */
  const char *stall = strcmp (v->cause, "datapath_tx") == 0 ? "datapath" : v->cause;
  if (cause_cases[_i].tx != NULL)
    ck_assert_msg (idle_for (m, cause_cases[_i].tx, stall) > 0.3, "%s: %s idle for %s %.3f", cause_cases[_i].name,
                   cause_cases[_i].tx, stall, idle_for (m, cause_cases[_i].tx, stall));
}
END_TEST

/* Little's law: with tags the bound, no more than tags x MRRS bytes are in flight per read round trip, so the
 * figure cannot pass the bound the verdict states, and it nearly reaches it. Same for posted-data credits: 512
 * bytes per credit round trip. */
START_TEST (test_bounds)
{
  {
    g_autoptr (PsConfig) cfg = load_shipped (cause_cases[0].sets);
    PsRunResult r;
    run (cfg, 1u << PS_READ, &r);
    const PsModeResult *m = &r.modes[PS_READ];
    double bound = 2 * 512 / (m->read_latency.mean_ns * 1e-9) / 1e6;
    ck_assert_msg (fabs (m->read_verdict.bound_mbps - bound) < 1e-6 * bound, "%f vs %f", m->read_verdict.bound_mbps,
                   bound);
    ck_assert_msg (m->mbps <= bound * 1.001 && m->mbps > bound * 0.8, "%f MB/s against a bound of %f", m->mbps,
                   bound);
  }
  {
    g_autoptr (PsConfig) cfg = load_shipped (cause_cases[1].sets);
    PsRunResult r;
    run (cfg, 1u << PS_WRITE, &r);
    const PsModeResult *m = &r.modes[PS_WRITE];
    ck_assert_msg (m->mbps <= m->write_verdict.bound_mbps * 1.001 && m->mbps > m->write_verdict.bound_mbps * 0.8,
                   "%f MB/s against a bound of %f", m->mbps, m->write_verdict.bound_mbps);
    /* The bound's round trip is measured: at least the UpdateFC's way back, at most the whole window. */
    ck_assert (m->write_verdict.bound_mbps < m->write_verdict.link_mbps);
  }
}
END_TEST

/* The shipped config's every mode: the four figures each have a verdict, every transmitter sums to 1. */
START_TEST (test_all_modes)
{
  g_autoptr (PsConfig) cfg = load_shipped (NULL);
  PsRunResult r;
  run (cfg, 1u << PS_READ | 1u << PS_WRITE | 1u << PS_SIMULTANEOUS, &r);
  ck_assert (r.modes[PS_READ].read_verdict.valid && !r.modes[PS_READ].write_verdict.valid);
  ck_assert (r.modes[PS_WRITE].write_verdict.valid && !r.modes[PS_WRITE].read_verdict.valid);
  ck_assert (r.modes[PS_SIMULTANEOUS].read_verdict.valid && r.modes[PS_SIMULTANEOUS].write_verdict.valid);
  for (int i = PS_READ; i <= PS_SIMULTANEOUS; i++)
    assert_sums (&r.modes[i], "shipped");
  /* Every data MRd of the read mode is timed: 20 transfers of 102400 bytes in 512-byte requests. */
  ck_assert_uint_eq (r.modes[PS_READ].read_latency.count, 20 * 102400 / 512);
  /* Every posted write reaching the root complex: 400 data MWr of 256 bytes per transfer and its status write. */
  ck_assert_uint_eq (r.modes[PS_WRITE].write_latency.count, 20 * (102400 / 256 + 1));
}
END_TEST

/* One MRd of 256 bytes on an otherwise idle Gen2 x8 link, with the parts chosen so each is easy to count:
 *   request: 1 beat of the 128-bit datapath at 250 MHz (a 3-DW header)              4 ns
 *            on the wire: 12 header + 8 framing bytes over 8 lanes, 2.5 symbols of 2 ns  5 ns
 *            transmit pipeline 100 + flight 5 + receive pipeline 20                   125 ns
 *   host:    read latency 400 + 256 B x 0.5 ps/B, then 10 ns to send the completion     410.128 ns
 *   data:    one CplD (MPS 256): 256 + 12 + 8 bytes over 8 lanes, 34.5 symbols          69 ns
 *            pipelines and flight                                                       125 ns
 *            taken in: 12 + 256 bytes over the 16-byte datapath, 17 beats               68 ns
 * = 806.128 ns. Symbol and clock-edge alignment add a few ns at most: well within 1%. */
START_TEST (test_read_latency_hand_sum)
{
  g_autofree char *yaml = g_strdup_printf ("include: [%s/tests/data/idle_gen2_x8.yaml]\n"
                                           "benchmark:\n"
                                           "  transfer_bytes: 256\n"
                                           "  iterations: 1\n", source_root ());
  g_autofree char *dir = case_dir ("latency");
  g_autofree char *path = write_file (dir, "c.yaml", yaml);
  g_autoptr (GError) e = NULL;
  g_autoptr (PsConfig) cfg = ps_config_load (path, NULL, &e);
  ck_assert_msg (cfg != NULL, "%s", e ? e->message : "");
  PsRunResult r;
  run (cfg, 1u << PS_READ, &r);
  const PsLatency *l = &r.modes[PS_READ].read_latency;
  const double hand = 4 + 5 + 125 + 400.128 + 10 + 69 + 125 + 68;
  ck_assert_uint_eq (l->count, 1);
  ck_assert_msg (fabs (l->mean_ns - hand) < 0.01 * hand, "one MRd: %.3f ns, by hand %.3f ns", l->mean_ns, hand);
  /* Edges only ever delay: a symbol boundary (2 ns) on the wire, a clock edge (4 ns) into the datapath. */
  ck_assert_msg (l->mean_ns >= hand - 0.2 && l->mean_ns <= hand + 2 * 2 + 4, "one MRd: %.3f ns, by hand %.3f ns",
                 l->mean_ns, hand);
  ck_assert (l->max_ns == l->mean_ns && l->p50_ns == l->mean_ns && l->p99_ns == l->mean_ns);
  /* The descriptor fetch is the same trip with 16 bytes of data (one descriptor) and the 16-byte table header
   * read with it: shorter than the data read, longer than the round trip without data. */
  double fetch = r.modes[PS_READ].read_first_fetch_ns;
  ck_assert_msg (fetch > 4 + 5 + 125 + 400 + 10 + 125 && fetch < hand, "first fetch %.3f ns", fetch);
}
END_TEST

/* The JSON carries the verdict and the stalls (docs/why.md: results.MODE.limited_by, .stalls, .latency_ns). */
static double
member_double (JsonObject *o, const char *name)
{
  JsonNode *n = json_object_get_member (o, name);
  ck_assert_msg (n != NULL, "no member %s", name);
  return json_node_get_double (n);
}

START_TEST (test_json)
{
  TestRun r;
  PCIESIM (&r, "configs/svgx_g2_x8.yaml", "--mode", "read", "--set", "endpoint.tags=2", "--format", "json");
  ck_assert_msg (r.status == 0, "%s", r.err);
  g_autoptr (JsonParser) p = json_parser_new ();
  g_autoptr (GError) e = NULL;
  ck_assert_msg (json_parser_load_from_data (p, r.out, -1, &e), "%s", e ? e->message : "");
  JsonObject *read = json_object_get_object_member (
    json_object_get_object_member (json_node_get_object (json_parser_get_root (p)), "results"), "read");
  JsonObject *lb = json_object_get_object_member (read, "limited_by");
  ck_assert_str_eq (json_object_get_string_member (lb, "cause"), "tags");
  ck_assert (g_str_has_prefix (json_object_get_string_member (lb, "verdict"), "limited by read tags"));
  JsonObject *lat = json_object_get_object_member (read, "latency_ns");
  ck_assert (member_double (lat, "p50") <= member_double (lat, "p99")
             && member_double (lat, "p99") <= member_double (lat, "max") && member_double (lat, "mean") > 0);
  JsonObject *stalls = json_object_get_object_member (read, "stalls");
  g_autoptr (GList) names = json_object_get_members (stalls);
  ck_assert_uint_eq (g_list_length (names), 3);
  for (GList *n = names; n; n = n->next) {
    JsonObject *tx = json_object_get_object_member (stalls, n->data);
    double sum = 0;
    const char *part[] = { "busy", "idle" };
    for (int k = 0; k < 2; k++) {
      JsonObject *o = json_object_get_object_member (tx, part[k]);
      g_autoptr (GList) m = json_object_get_members (o);
      for (GList *x = m; x; x = x->next)
        sum += member_double (o, x->data);
    }
    /* Six decimals each, up to a dozen terms. */
    ck_assert_msg (fabs (sum - 1) < 1e-5, "%s sums to %f", (char *) n->data, sum);
  }
  test_run_clear (&r);
}
END_TEST

/* The host-latency verdict names the root complex's share of the round trip only where it took time (#40): a
 * Gen6 x16 device with 128 tags on the ideal host (no read latency at all) waits on its round trips through the
 * link and its own datapath, and "of which the root complex 0 ns" would name a component that cost nothing. The
 * same device on a host with 300 ns of read latency is told the root complex's 300 ns. */
START_TEST (test_host_latency_names_only_what_took_time)
{
  g_autofree char *ideal = g_build_filename (source_root (), "configs", "hosts", "ideal.yaml", NULL);
  g_autofree char *bench = g_build_filename (source_root (), "configs", "benchmarks", "an456.yaml", NULL);
  g_autofree char *text = g_strdup_printf ("name: g6\ninclude: [%s, %s]\nlink: {gen: 6, lanes: 16, max_payload: 256, "
                                           "max_read_request: 512}\nendpoint: {datapath_bits: 1024, clock_mhz: 500, "
                                           "tags: 128}\n", ideal, bench);
  g_autofree char *path = write_file (tmpdir_root, "g6.yaml", text);
  const char *const slow[] = { "host.read_latency_ns=300", NULL };
  for (int k = 0; k < 2; k++) {
    g_autoptr (GError) e = NULL;
    g_autoptr (PsConfig) cfg = ps_config_load (path, k ? slow : NULL, &e);
    ck_assert_msg (cfg != NULL, "%s", e ? e->message : "");
    PsRunResult r;
    run (cfg, 1u << PS_READ, &r);
    const PsVerdict *v = &r.modes[PS_READ].read_verdict;
    ck_assert_msg (v->valid && g_str_has_prefix (v->text, "limited by the host's read latency"), "%s", v->text);
    ck_assert_msg (k ? strstr (v->text, "of which the root complex 300 ns") != NULL
                     : strstr (v->text, "root complex") == NULL, "%s", v->text);
  }
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("why");
  TCase *tc = tcase_create ("why");
  tcase_set_timeout (tc, 120);
  tcase_add_unchecked_fixture (tc, tmpdir_setup, tmpdir_teardown);
  tcase_add_loop_test (tc, test_causes, 0, G_N_ELEMENTS (cause_cases));
  tcase_add_test (tc, test_bounds);
  tcase_add_test (tc, test_all_modes);
  tcase_add_test (tc, test_read_latency_hand_sum);
  tcase_add_test (tc, test_json);
  tcase_add_test (tc, test_host_latency_names_only_what_took_time);
  suite_add_tcase (s, tc);
  return run_suite (s);
}
