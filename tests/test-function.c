/* test-function.c — multi-function endpoints (endpoint.h, fabric.h, flow.h): a device of several functions, each a
 * requester with its own ID and tags behind the device's one link. Every expected figure is derived by hand:
 * - the IDs the enumeration gives the functions (bus:00.f) and completions coming back to the function that asked,
 *   counted per function (bytes / MPS), with both functions using the same tag numbers at once;
 * - Little's law: a read flow of T tags over a round trip of at least the host's read latency L moves at most
 *   T x MRRS / L; two functions of one device, T tags each, move twice that, as two devices would;
 * - a flow naming a function its device lacks is refused;
 * - through the program: each function's tags counted on their own against the 768 a Gen3 link carries, and the
 *   report naming a multi-function source's function and requester ID, and nothing more for a single-function one. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "models/devices/endpoint.h"
#include "models/workloads/flow.h"
#define TMPDIR_TEMPLATE "pciesim-test-function-XXXXXX"
#include "tests/common.h"

/* Gen2 x4 (5 GT/s, 8b/10b: 2000 MB/s raw), MPS 256: one 256-byte CplD is 256 + 12 + 8 = 276 bytes on the wire, so
 * the link carries read data at up to 2000 x 256 / 276 = 1855 MB/s, far above the latency-bound rates below. */
static LinkParams
link_g2x4 (void)
{
  return (LinkParams) {
    .gen = 2, .lanes = 4, .max_payload_bytes = 256, .tx_pipeline_ps = 100 * SIM_NS, .rx_pipeline_ps = 100 * SIM_NS,
    .flight_ps = 10 * SIM_NS, .updatefc_period_ps = 20 * SIM_US, .tx_queue_tlps = 2,
    .rx_credits = { [LINK_DSP] = { .ph = 128, .pd = 2048, .nph = 64, .npd = 64 },
                    [LINK_USP] = { .ph = 128, .pd = 2048, .nph = 64, .npd = 64 } },
  };
}

/* The host completes at MPS (RCB 64 never cuts a 512-byte read at a 512-aligned address earlier), after
 * read_latency_ns. */
static HostParams
host_base (double latency_ns)
{
  return (HostParams) { .rcb_bytes = 64, .cpl_policy = CPL_POLICY_MPS, .read_latency_ns = latency_ns };
}

typedef struct {
  Fabric *f;
  Host *host;
  Endpoint *ep[2];
} Rig;

/* `n` devices of `functions` each, device k on root port k. */
static void
rig_build (Rig *r, guint n, uint32_t functions, double latency_ns)
{
  *r = (Rig) { 0 };
  r->f = fabric_new (1);
  HostParams hp = host_base (latency_ns);
  r->host = host_new (r->f, "host", &hp, n);
  EndpointParams ep = {
    .app = { .width_bits = 128, .clock_mhz = 250, .arbitration = APP_ARB_ROUND_ROBIN },
    .bars = { { .size_bytes = 1 << 20 } }, .rcb_bytes = ENDPOINT_RCB_BYTES, .functions = functions,
  };
  for (guint k = 0; k < n; k++) {
    char name[8];
    g_snprintf (name, sizeof name, "dev%u", k);
    r->ep[k] = endpoint_new (r->f, name, &ep);
    LinkParams lp = link_g2x4 ();
    g_autoptr (GError) e = NULL;
    ck_assert_msg (fabric_connect (r->f, host_component (r->host), k, endpoint_component (r->ep[k]), 0, &lp, &e),
                   "%s", e ? e->message : "");
  }
  g_autoptr (GError) e = NULL;
  ck_assert_msg (fabric_enumerate (r->f, &e), "%s", e ? e->message : "");
}

/* --- completions routed to the function that asked -------------------------------------------------------- */

#define READS 8u /* per function */
#define READ_BYTES 512u

/* A requester of the test's own on the device's datapath: READS reads of READ_BYTES per function, alternating
 * functions, function f's i-th read with tag i (so both functions hold the same tag numbers at once) at its own
 * buffer; completions counted by the function their requester ID names. */
typedef struct {
  Endpoint *ep;
  TlpPool *pool;
  uint32_t issued;
  uint16_t id; /* the device's, function 0's */
  uint32_t cpls[2], bytes[2], wrong;
  uint16_t seen[2]; /* a completion's requester ID, per function */
} Req;

static uint64_t
req_address (uint32_t fn, uint32_t i)
{
  return UINT64_C (0x20000000) + fn * UINT64_C (0x100000) + i * READ_BYTES;
}

static gboolean
req_peek (void *ctx, Tlp *probe)
{
  Req *q = ctx;
  if (q->issued == 2 * READS)
    return FALSE;
  *probe = (Tlp) { 0 };
  tlp_set (probe, TLP_MRD, FALSE, req_address (q->issued % 2, q->issued / 2), READ_BYTES);
  return TRUE;
}

static Tlp *
req_take (void *ctx, const Tlp *probe)
{
  Req *q = ctx;
  Tlp *t = tlp_alloc_copy (q->pool, probe);
  t->requester = (uint16_t) (q->id | (q->issued % 2));
  t->tag = (uint16_t) (q->issued / 2);
  q->issued++;
  return t;
}

static const AppTxClient req_client = { .peek = req_peek, .take = req_take };

static void
req_cpl (void *ctx, const Tlp *t)
{
  Req *q = ctx;
  uint32_t fn = t->requester & 7u;
  if ((t->requester & ~7u) != q->id || fn > 1 || t->address < req_address (fn, 0)
      || t->address >= req_address (fn, READS)) {
    q->wrong++;
    return;
  }
  q->cpls[fn]++;
  q->bytes[fn] += t->payload_bytes;
  q->seen[fn] = t->requester;
}

/* dev0 on root port 0 of the root complex (bus 0): the port's secondary bus is 1, the device is 01:00, its
 * functions 01:00.0 = 0x0100 and 01:00.1 = 0x0101 (fabric.h). Each function reads 8 x 512 bytes; the host
 * completes each read with 512 / MPS 256 = 2 CplDs, so each function gets 16 completions and 4096 bytes, every
 * one carrying its own requester ID. Both functions hold tags 0..7 at once: the root complex accepts that only
 * because each function is a requester of its own (it would report a reused tag otherwise). */
START_TEST (test_completions_reach_their_function)
{
  Rig r;
  rig_build (&r, 1, 2, 1000);
  Component *c = endpoint_component (r.ep[0]);
  ck_assert_uint_eq (c->id, 0x0100);
  ck_assert_uint_eq (c->n_functions, 2);
  Req q = { .ep = r.ep[0], .pool = fabric_pool (r.f), .id = c->id };
  app_add_client (endpoint_app (r.ep[0]), &req_client, &q);
  endpoint_set_requester (r.ep[0], req_cpl, &q);
  app_kick (endpoint_app (r.ep[0]));
  sim_run_until (fabric_engine (r.f), 1000 * SIM_US);
  ck_assert_uint_eq (q.issued, 2 * READS);
  ck_assert_uint_eq (q.wrong, 0);
  for (uint32_t fn = 0; fn < 2; fn++) {
    ck_assert_uint_eq (q.cpls[fn], READS * READ_BYTES / 256);
    ck_assert_uint_eq (q.bytes[fn], READS * READ_BYTES);
    ck_assert_uint_eq (q.seen[fn], 0x0100 + fn);
  }
  g_autoptr (GError) e = NULL;
  ck_assert_msg (fabric_check_invariants (r.f, &e), "%s", e ? e->message : "");
  fabric_free (r.f);
}
END_TEST

/* --- Little's law ------------------------------------------------------------------------------------------ */

#define LAT_NS 20000.0 /* the host's read latency: the round trip's floor */
#define TAGS 16u
#define MRRS 512u
#define FLOW_BYTES (256u * 1024)

/* Read flows of FLOW_BYTES from host memory, flow k from function fn[k] of device dev[k]; their summed MB/s. */
static double
read_mbps (Rig *r, guint n, const guint *dev, const uint32_t *fn, FlowResult *out)
{
  FlowSpec fs[4];
  for (guint k = 0; k < n; k++)
    fs[k] = (FlowSpec) { .name = k ? "b" : "a", .source = endpoint_component (r->ep[dev[k]]), .function = fn[k], .op = FLOW_READ,
                         .bytes = FLOW_BYTES, .iterations = 1, .max_read_request_bytes = MRRS, .tags = TAGS };
  g_autofree FlowLinkResult *links = g_new0 (FlowLinkResult, fabric_n_links (r->f));
  FlowRunStats st;
  g_autoptr (GError) e = NULL;
  ck_assert_msg (flows_run (r->f, r->host, fs, n, 0, out, links, &st, &e), "%s", e ? e->message : "");
  double sum = 0;
  for (guint k = 0; k < n; k++) {
    ck_assert_uint_eq (out[k].bytes, FLOW_BYTES);
    sum += out[k].mbps;
  }
  return sum;
}

/* Little's law: outstanding = rate x round trip. A flow holds at most TAGS reads of MRRS bytes, each out for at least
 * the host's 20 us, so it moves at most 16 x 512 B / 20 us = 409.6 MB/s; and at the rate 16 x 512 B over its mean
 * round trip, within 3% (the law; the flow's window also holds its first request's start-up). The round trip is the
 * 20 us plus the crossings (datapaths, pipelines, serialisation: about 1 us) and some queueing behind the other
 * reads' completions: under 22 us. One function with one such flow: at most 409.6 MB/s. Two functions of the one
 * device, a flow each: 32 reads out at once, at most 819.2 MB/s, and twice the one function's rate within 3% (the
 * shared link carries 819 of its 1855 MB/s, so the round trips barely grow) — as two single-function devices on
 * two links do, within 2%. */
static void
check_little (const FlowResult *fr, const char *what)
{
  const double bound = TAGS * MRRS / (LAT_NS * 1e-9) / 1e6; /* 409.6 */
  double rtt = fr->read_latency.mean_ns, law = TAGS * MRRS / (rtt * 1e-9) / 1e6;
  ck_assert_msg (fr->mbps <= bound, "%s: %.1f MB/s, bound %.1f", what, fr->mbps, bound);
  ck_assert_msg (rtt >= LAT_NS && rtt < LAT_NS + 2000, "%s: round trip %.1f ns", what, rtt);
  ck_assert_msg (fabs (fr->mbps - law) <= 0.03 * law, "%s: %.1f MB/s, %u tags over %.1f ns: %.1f", what, fr->mbps,
                 TAGS, rtt, law);
}

START_TEST (test_two_functions_double_outstanding_reads)
{
  FlowResult out[2];
  Rig r;
  rig_build (&r, 1, 2, LAT_NS);
  double one = read_mbps (&r, 1, (guint[]) { 0 }, (uint32_t[]) { 0 }, out);
  check_little (&out[0], "one function");
  fabric_free (r.f);

  rig_build (&r, 1, 2, LAT_NS);
  double two = read_mbps (&r, 2, (guint[]) { 0, 0 }, (uint32_t[]) { 0, 1 }, out);
  check_little (&out[0], "function 0 of two");
  check_little (&out[1], "function 1 of two");
  ck_assert_msg (fabs (two - 2 * one) <= 0.03 * 2 * one, "two functions %.1f MB/s, one %.1f", two, one);
  fabric_free (r.f);

  /* Two single-function devices: the same figure within 2% (their links are separate, the round trips alike). */
  rig_build (&r, 2, 1, LAT_NS);
  double devices = read_mbps (&r, 2, (guint[]) { 0, 1 }, (uint32_t[]) { 0, 0 }, out);
  ck_assert_msg (fabs (two - devices) <= 0.02 * devices, "two functions %.1f, two devices %.1f MB/s", two, devices);
  fabric_free (r.f);
}
END_TEST

/* A flow from function 2 of a two-function device is refused before anything runs. */
START_TEST (test_flow_from_missing_function)
{
  Rig r;
  rig_build (&r, 1, 2, 1000);
  FlowSpec fs = { .name = "x", .source = endpoint_component (r.ep[0]), .function = 2, .op = FLOW_READ, .bytes = 4096, .iterations = 1,
                  .max_read_request_bytes = MRRS, .tags = TAGS };
  FlowResult out;
  FlowLinkResult links[1];
  FlowRunStats st;
  g_autoptr (GError) e = NULL;
  ck_assert (!flows_run (r.f, r.host, &fs, 1, 0, &out, links, &st, &e));
  ck_assert_msg (strstr (e->message, "no function 2"), "%s", e->message);
  fabric_free (r.f);
}
END_TEST

/* A device of 9 functions cannot be: the function number is 3 bits. */
START_TEST (test_nine_functions_refused)
{
  EndpointParams ep = { .app = { .width_bits = 128, .clock_mhz = 250 }, .functions = 9 };
  g_autoptr (GError) e = NULL;
  ck_assert (!endpoint_params_check (&ep, &e));
  ck_assert_msg (strstr (e->message, "9 functions"), "%s", e->message);
}
END_TEST

/* --- through the program ------------------------------------------------------------------------------------ */

/* nic, two functions, on root port 0 (bus 1: IDs 01:00.0 and 01:00.1); two read flows of endpoint.tags 400 each.
 * On two functions: 400 tags per function, under the 768 of a Gen4 link (10-bit tags, spec §2.2.6.2), accepted; on
 * one function: 800 of its 768, refused at the second flow. */
static const char *const two_fn_yaml =
  "link: {gen: 4, lanes: 4}\n"
  "endpoint: {tags: 400}\n"
  "topology:\n"
  "  nodes:\n"
  "    host: {type: root_complex}\n"
  "    nic: {type: endpoint, functions: 2}\n"
  "  links:\n"
  "    - [host, nic]\n"
  "flows:\n"
  "  - {name: r0, source: nic, target: host, op: read, bytes: 65536}\n"
  "  - {name: r1, source: nic, function: 1, target: host, op: read, bytes: 65536}\n";

START_TEST (test_program_tags_per_function)
{
  g_autofree char *dir = tmpdir_case (tmpdir_root, "tags");
  g_autofree char *host = g_build_filename (source_root (), "configs/hosts/ideal.yaml", NULL);
  g_autofree char *text = g_strdup_printf ("include: [%s]\n%s", host, two_fn_yaml);
  g_autofree char *path = write_file (dir, "two.yaml", text);
  g_auto (TestRun) r = { 0 };
  PCIESIM (&r, path, "--format", "json");
  ck_assert_msg (r.status == 0, "%s", r.err);
  ck_assert_msg (strstr (r.out, "\"name\": \"r0\", \"source\": \"nic\", \"function\": 0, \"requester_id\": \"01:00.0\""),
                 "%s", r.out);
  ck_assert_msg (strstr (r.out, "\"name\": \"r1\", \"source\": \"nic\", \"function\": 1, \"requester_id\": \"01:00.1\""),
                 "%s", r.out);
  ck_assert_msg (strstr (r.out, "\"delivered_bytes\": 65536"), "%s", r.out);
  g_auto (TestRun) one = { 0 };
  PCIESIM (&one, path, "--set", "flows.r1.function=0");
  ck_assert_int_eq (one.status, 65);
  ck_assert_msg (strstr (one.err, "flow r1: nic's read flows take 800 tags"), "%s", one.err);
  /* One function per device: no function, no requester ID in the report (its output as before functions). */
  g_auto (TestRun) single = { 0 };
  PCIESIM (&single, path, "--set", "nodes.nic.functions=1", "--set", "flows.r1.function=0", "--set",
           "endpoint.tags=300", "--format", "json");
  ck_assert_msg (single.status == 0, "%s", single.err);
  ck_assert_msg (!strstr (single.out, "\"function\"") && !strstr (single.out, "requester_id"), "%s", single.out);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("function");
  TCase *tc = tcase_create ("function");
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_completions_reach_their_function);
  tcase_add_test (tc, test_two_functions_double_outstanding_reads);
  tcase_add_test (tc, test_flow_from_missing_function);
  tcase_add_test (tc, test_nine_functions_refused);
  tcase_add_test (tc, test_program_tags_per_function);
  tcase_add_unchecked_fixture (tc, tmpdir_setup, tmpdir_teardown);
  suite_add_tcase (s, tc);
  return run_suite (s);
}
