/* test-stream.c — the streaming workload (stream.c) itself: its parameters and defaults, its measurement window,
 * its read-side completer and tag limit, and its stall report. test-link.c uses the stream as a driver for the
 * link's own figures; here the expected figures follow from stream.h's contract and the link's wire times
 * (pcie-protocol.md §1-§2), worked out in each test's comment. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "models/phy.h"
#include "models/stream.h"
#include "tests/common.h"

/* Gen2 x8: 2 ns symbol times of 8 bytes, 4000 MB/s raw after 8b/10b; 55 ns of pipelines and flight each way. */
static LinkParams
gen2x8 (void)
{
  return (LinkParams) { .gen = 2, .lanes = 8, .max_payload_bytes = 256, .tx_pipeline_ps = 20 * SIM_NS,
                        .rx_pipeline_ps = 30 * SIM_NS, .flight_ps = 5 * SIM_NS };
}

static void
run_ok (const StreamParams *sp, StreamResult *r, const char *what)
{
  g_autoptr (GError) e = NULL;
  ck_assert_msg (stream_run (sp, 1, r, &e), "%s: %s", what, e ? e->message : "");
}

/* ---- parameters ---- */

typedef struct {
  const char *id;
  void (*spoil) (StreamParams *p);
  gboolean phy_error; /* refused by the link's PHY (link_params_validate) rather than the stream */
} BadCase;

static void warmup_all (StreamParams *p) { p->total_bytes = 4096; p->warmup_bytes = 4096; }
static void mrrs_small (StreamParams *p) { p->max_read_request_bytes = 64; }
static void mrrs_big (StreamParams *p) { p->max_read_request_bytes = 8192; }
static void mrrs_odd (StreamParams *p) { p->max_read_request_bytes = 384; }
static void rcb_32 (StreamParams *p) { p->rcb_bytes = 32; }
static void cpl_not_rcb (StreamParams *p) { p->completion_bytes = 96; }
static void cpl_above_mps (StreamParams *p) { p->completion_bytes = 512; }
static void tags_many (StreamParams *p) { p->tags = 769; }
static void rate_tiny (StreamParams *p) { p->consumer_mbps = 1e-4; }
static void rate_huge (StreamParams *p) { p->consumer_mbps = 2e9; }
static void rate_nan (StreamParams *p) { p->consumer_mbps = NAN; }
static void rate_negative (StreamParams *p) { p->consumer_mbps = -1; }
static void gen_7 (StreamParams *p) { p->link.gen = 7; }

static const BadCase bad_cases[] = {
  { "warmup = total", warmup_all, FALSE },
  { "MRRS 64", mrrs_small, FALSE },
  { "MRRS 8192", mrrs_big, FALSE },
  { "MRRS 384", mrrs_odd, FALSE },
  { "RCB 32", rcb_32, FALSE },
  { "completion 96 with RCB 64", cpl_not_rcb, FALSE },
  { "completion 512 above MPS 256", cpl_above_mps, FALSE },
  { "769 tags", tags_many, FALSE },
  { "1e-4 MB/s", rate_tiny, FALSE },
  { "2e9 MB/s", rate_huge, FALSE },
  { "NaN MB/s", rate_nan, FALSE },
  { "-1 MB/s", rate_negative, FALSE },
  { "Gen7", gen_7, TRUE },
};

START_TEST (test_bad_params)
{
  const BadCase *c = &bad_cases[_i];
  StreamParams sp = { .link = gen2x8 (), .mode = STREAM_READ };
  c->spoil (&sp);
  StreamResult r;
  g_autoptr (GError) e = NULL;
  ck_assert_msg (!stream_run (&sp, 1, &r, &e), "%s accepted", c->id);
  if (c->phy_error)
    ck_assert_msg (g_error_matches (e, PHY_ERROR, PHY_ERROR_GEN), "%s: %s", c->id, e->message);
  else
    ck_assert_msg (g_error_matches (e, STREAM_ERROR, STREAM_ERROR_PARAM), "%s: %s", c->id, e->message);
}
END_TEST

/* stream.h: total 0 moves 1,048,576 bytes; the caller's parameters are left as they were. */
START_TEST (test_defaults)
{
  StreamParams sp = { .link = gen2x8 (), .mode = _i == 0 ? STREAM_WRITE : STREAM_READ };
  StreamParams copy = sp;
  StreamResult r;
  run_ok (&sp, &r, "defaults");
  ck_assert_uint_eq (r.payload_bytes, 1048576);
  ck_assert (memcmp (&sp, &copy, sizeof sp) == 0);
}
END_TEST

/* ---- the measurement window ---- */

START_TEST (test_window)
{
  /* A 1000 MB/s consumer is the bottleneck (the link carries ~3700): it drains a 256-byte MWr in exactly
   * 256 x 10^6 / 1000 = 256,000 ps, back to back, so deliveries come exactly 256 ns apart. 1 MiB is 4096 TLPs;
   * the window opens at the delivery that completes the default warmup of total / 8 (TLP 512) and closes at the
   * last: 3584 intervals, 917,504,000 ps, at exactly 1000 MB/s. */
  StreamParams sp = { .link = gen2x8 (), .mode = STREAM_WRITE, .consumer_mbps = 1000 };
  StreamResult r;
  run_ok (&sp, &r, "1000 MB/s consumer");
  ck_assert_uint_eq (r.window_ps, 3584 * (SimTime) 256000);
  ck_assert_msg (fabs (r.mbps - 1000.0) < 1e-9, "%.12f MB/s", r.mbps);
  /* A warmup that leaves only the last delivery opens and closes the window at once: 0, not a division by 0. */
  sp.warmup_bytes = 1048576 - 1;
  run_ok (&sp, &r, "empty window");
  ck_assert_uint_eq (r.window_ps, 0);
  ck_assert (r.mbps == 0);
}
END_TEST

/* ---- headers: 64-bit addresses give 4-DW MWrs ---- */

START_TEST (test_addr64_write)
{
  /* A saturating write stream of 256-byte MWrs with 4-DW headers: 256 + 16 + 8 framing = 280 bytes per TLP on a
   * 4000 MB/s wire that loses 4 of every 1180 symbol times to SKPs (pcie-protocol.md §4). */
  StreamParams sp = { .link = gen2x8 (), .mode = STREAM_WRITE, .addr64 = TRUE };
  StreamResult r;
  run_ok (&sp, &r, "addr64");
  double want = 4000.0 * 256.0 / 280.0 * (1 - 4.0 / 1180.0);
  ck_assert_msg (fabs (r.mbps - want) < 0.005 * want, "%.2f MB/s, want %.2f", r.mbps, want);
}
END_TEST

/* ---- read side: completion sizes ---- */

static const struct {
  uint32_t rcb, completion, mrrs;
  double mean; /* payload per CplD on the wire */
} cpl_cases[] = {
  { 64, 64, 512, 64 }, /* one completion per RCB block */
  { 64, 256, 512, 256 }, /* MPS-sized: two per request */
  { 64, 192, 512, 512.0 / 3 }, /* a multiple of RCB that is no power of two: 192 + 192 + 128 per request */
  { 128, 128, 512, 128 },
  { 64, 256, 128, 128 }, /* requests smaller than the completion size: one completion each */
};

START_TEST (test_completion_sizes)
{
  /* Requests start on MRRS multiples, so every completion starts on an RCB boundary and is completion_bytes long
   * or the rest of its request (stream.h, split.h). Every downstream TLP is a CplD, so payload over TLPs placed in
   * the window is the mean size; the window cuts at most a request at either end out of ~3500 CplDs. */
  StreamParams sp = { .link = gen2x8 (), .mode = STREAM_READ, .rcb_bytes = cpl_cases[_i].rcb,
                      .completion_bytes = cpl_cases[_i].completion,
                      .max_read_request_bytes = cpl_cases[_i].mrrs };
  StreamResult r;
  run_ok (&sp, &r, "completion sizes");
  LinkCounters down = r.counters[LINK_DOWNSTREAM];
  double mean = (double) down.payload_bytes / (double) down.tlps;
  ck_assert_msg (fabs (mean - cpl_cases[_i].mean) < 0.005 * cpl_cases[_i].mean, "case %d: %.2f bytes per CplD, "
                 "want %.2f", _i, mean, cpl_cases[_i].mean);
  /* Upstream carries only the MRds, one per request; those outstanding when the window opens (at most the 32
   * default tags) were placed before it. */
  LinkCounters up = r.counters[LINK_UPSTREAM];
  double requests = (double) down.payload_bytes / cpl_cases[_i].mrrs;
  ck_assert_msg (fabs ((double) up.tlps - requests) <= 32, "case %d: %" G_GUINT64_FORMAT " MRds for %.1f requests",
                 _i, up.tlps, requests);
}
END_TEST

/* ---- read side: latency and tags bound the rate ---- */

START_TEST (test_tags_latency)
{
  /* With a 10 us completer the link is idle almost all the time and each tag carries one 512-byte request per
   * round trip: the MRd's 20 bytes (2.5 symbol times, 6 ns to its boundary) + 55 ns, the 10 us latency, two
   * 256-byte CplDs back to back (552 bytes = 69 symbol times, 138 ns) + 55 ns; 10,254 ns in all, after which the
   * tag goes out again at once. The completer returns 4 requests' data in 4 x 138 ns, far below 10 us, so tags
   * do not queue behind each other: the rate is tags x 512 bytes / 10,254 ns. */
  uint32_t tags = _i == 0 ? 1 : 4;
  StreamParams sp = { .link = gen2x8 (), .mode = STREAM_READ, .tags = tags, .max_read_request_bytes = 512,
                      .completion_bytes = 256, .completer_latency_ps = 10 * SIM_US, .total_bytes = 256 * 1024 };
  StreamResult r;
  run_ok (&sp, &r, "tags");
  double want = tags * 512.0 / 10254.0 * 1000.0;
  ck_assert_msg (fabs (r.mbps - want) < 0.005 * want, "%u tags: %.2f MB/s, want %.2f", tags, r.mbps, want);
}
END_TEST

/* ---- a stream that cannot move says what it waits for ---- */

START_TEST (test_stall)
{
  /* The device advertises 8 completion-data credits (128 bytes), less than one 256-byte CplD needs: the
   * completer can never send, the engine runs dry, and the error names the credit type. */
  StreamParams sp = { .link = gen2x8 (), .mode = STREAM_READ, .total_bytes = 4096 };
  sp.link.device_rx_credits.cpld = 8;
  StreamResult r;
  g_autoptr (GError) e = NULL;
  ck_assert (!stream_run (&sp, 1, &r, &e));
  ck_assert_msg (g_error_matches (e, STREAM_ERROR, STREAM_ERROR_RUN), "%s", e->message);
  ck_assert_msg (strstr (e->message, "stream stalled: 0 of 4096 bytes") != NULL, "%s", e->message);
  ck_assert_msg (strstr (e->message, "CplD credits 8 of 8") != NULL, "%s", e->message);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("stream");
  TCase *tc = tcase_create ("stream");
  tcase_set_timeout (tc, 60);
  tcase_add_loop_test (tc, test_bad_params, 0, G_N_ELEMENTS (bad_cases));
  tcase_add_loop_test (tc, test_defaults, 0, 2);
  tcase_add_test (tc, test_window);
  tcase_add_test (tc, test_addr64_write);
  tcase_add_loop_test (tc, test_completion_sizes, 0, G_N_ELEMENTS (cpl_cases));
  tcase_add_loop_test (tc, test_tags_latency, 0, 2);
  tcase_add_test (tc, test_stall);
  suite_add_tcase (s, tc);
    return run_suite (s);
}
