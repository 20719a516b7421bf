/* test-stream.c — the streaming workload (stream.c) itself: its parameters and defaults, its measurement window,
 * its read-side completer and tag limit, and what the run harness finds in it (a stall, a misplaced write).
 * test-link.c uses the stream as a driver for the link's own figures; here the expected figures follow from
 * stream.h's contract and the link's wire times (pcie-protocol.md §1-§2), worked out in each test's comment. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "models/link/phy.h"
#include "models/workloads/stream.h"
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
    ck_assert_msg (g_error_matches (e, MODEL_ERROR, MODEL_ERROR_PARAM), "%s: %s", c->id, e->message);
  else
    ck_assert_msg (g_error_matches (e, MODEL_ERROR, MODEL_ERROR_PARAM), "%s: %s", c->id, e->message);
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

/* Issue #12 item 1: the transfer window (what the config's stream workload measures) runs from the first TLP
 * offered at t = 0 to the last delivery and counts every byte, so a transfer of any size has a figure. On
 * gen2x8 (2 ns symbol times, 8 lanes; 20 + 5 + 30 ns of pipelines and flight) by hand, 3-DW headers and 8 bytes
 * of framing (pcie-protocol.md §2), a TLP taking whole symbol times:
 *   write 4 B:    24 bytes = 3 symbols, 6 ns: 61 ns in all, 4 / 61 ns = 65.574 MB/s
 *   write 256 B:  276 bytes = 34.5 -> 35 symbols, 70 ns: 125 ns, 2048 MB/s
 *   write 1024 B: four 276-byte MWrs back to back (the next starts in lane 4 of the symbol where one ends, so no
 *                 padding): 1104 bytes = 138 symbols, 276 ns: 331 ns, 3093.66 MB/s
 *   read 4 B:     a 20-byte MRd (3 symbols) up, in at 61 ns; a completer of no latency hands the 24-byte CplD
 *                 down at once, 20 ns of pipeline put it at 81 ns, and it starts at the next symbol boundary,
 *                 82 ns: 3 symbols, 5 + 30 ns, in at 123 ns: 32.520 MB/s
 * The link usage covers the same window: every payload byte is in it. */
static const struct {
  StreamMode mode;
  uint64_t bytes;
  SimTime window_ps;
} transfer_cases[] = {
  { STREAM_WRITE, 4, 61000 }, { STREAM_WRITE, 256, 125000 }, { STREAM_WRITE, 1024, 331000 },
  { STREAM_READ, 4, 123000 },
};

START_TEST (test_transfer_window)
{
  StreamParams sp = { .link = gen2x8 (), .mode = transfer_cases[_i].mode, .window = STREAM_WINDOW_TRANSFER,
                      .total_bytes = transfer_cases[_i].bytes };
  StreamResult r;
  run_ok (&sp, &r, "transfer window");
  ck_assert_uint_eq (r.window_ps, transfer_cases[_i].window_ps);
  double want = (double) transfer_cases[_i].bytes * 1e6 / (double) transfer_cases[_i].window_ps;
  ck_assert_msg (fabs (r.mbps - want) < 1e-9 * want, "case %d: %.6f MB/s, want %.6f", _i, r.mbps, want);
  LinkDir data = sp.mode == STREAM_WRITE ? LINK_UPSTREAM : LINK_DOWNSTREAM;
  ck_assert_uint_eq (r.counters[data].payload_bytes, transfer_cases[_i].bytes);
}
END_TEST

/* Every size from one DW to 1 MB, both ways: a figure above 0 and within what the protocol allows its window
 * (link_protocol_limit_window_mbps: the 3-DW MWr and CplD limit plus up to two SKPs the window may lack). */
START_TEST (test_transfer_window_every_size)
{
  for (uint64_t bytes = 4; bytes <= 1 << 20; bytes *= 4) {
    StreamParams sp = { .link = gen2x8 (), .mode = _i ? STREAM_READ : STREAM_WRITE, .window = STREAM_WINDOW_TRANSFER,
                        .total_bytes = bytes };
    StreamResult r;
    run_ok (&sp, &r, "every size");
    double limit = link_protocol_limit_window_mbps (&sp.link, 12, r.window_ps);
    ck_assert_msg (r.mbps > 0 && r.mbps <= limit, "%s %" G_GUINT64_FORMAT " B: %.2f MB/s, limit %.2f",
                   _i ? "read" : "write", bytes, r.mbps, limit);
  }
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

/* ---- the run harness (run.h): stalls, slow consumers, the ledger ---- */

START_TEST (test_stall)
{
  /* The device advertises 8 completion-data credits (128 bytes), less than one 256-byte CplD needs: the completer
   * can never send. The harness's watchdog finds it, with a 100 us bound (the completer's latency is 0, so nothing
   * stretches it): its first tick at 100 us sees the 4096 bytes requested at t = 0 as progress, its second at
   * 200 us sees none and stops the run, located and worded by the harness, the credit type named. */
  StreamParams sp = { .link = gen2x8 (), .mode = STREAM_READ, .total_bytes = 4096, .watchdog_ps = 100 * SIM_US };
  sp.link.rx_credits[LINK_USP].cpld = 8;
  StreamResult r;
  g_autoptr (GError) e = NULL;
  ck_assert (!stream_run (&sp, 1, &r, &e));
  ck_assert_msg (g_error_matches (e, MODEL_ERROR, MODEL_ERROR_DEADLOCK), "%s", e->message);
  ck_assert_msg (g_str_has_prefix (e->message, "deadlock in the read stream, 0 of 4096 bytes delivered, t = 200.000 "
                                   "us: nothing delivered for 100.000 us; waiting: "), "%s", e->message);
  ck_assert_msg (strstr (e->message, "4096 of 4096 bytes requested") != NULL, "%s", e->message);
  ck_assert_msg (strstr (e->message, "CplD credits 8 of 8") != NULL, "%s", e->message);
}
END_TEST

START_TEST (test_slow_consumer_is_not_a_deadlock)
{
  /* A 1 MB/s consumer takes 256 us per 256-byte MWr, over twenty 10 us watchdog bounds with nothing delivered, yet
   * legal: the harness stretches the bound by one TLP's drain. The transfer window runs from t = 0 to the last of
   * 16 drains, each starting as the previous ends, after the first MWr's wire time (under 1 us): 4096 bytes in
   * 4096 us and under 1 us more, 1 MB/s within 0.03%. */
  StreamParams sp = { .link = gen2x8 (), .mode = STREAM_WRITE, .total_bytes = 4096, .consumer_mbps = 1.0,
                      .window = STREAM_WINDOW_TRANSFER, .watchdog_ps = 10 * SIM_US };
  StreamResult r;
  run_ok (&sp, &r, "slow consumer");
  ck_assert_msg (fabs (r.mbps - 1.0) < 3e-4, "%.6f MB/s", r.mbps);
}
END_TEST

START_TEST (test_ledger_catches_misplaced_write)
{
  /* The MWr at offset 1024 lands one DW past its address: the link and the host take it as well-formed and the
   * byte counts add up, but the host memory's pattern sum (the harness's ledger) differs from the transfer's. */
  StreamParams sp = { .link = gen2x8 (), .mode = STREAM_WRITE, .total_bytes = 4096, .misplace = TRUE,
                      .misplace_offset = 1024 };
  StreamResult r;
  g_autoptr (GError) e = NULL;
  ck_assert_msg (!stream_run (&sp, 1, &r, &e), "a misplaced write passed the run's checks");
  ck_assert_msg (g_error_matches (e, MODEL_ERROR, MODEL_ERROR_INVARIANT), "%s", e->message);
  ck_assert_msg (g_str_has_prefix (e->message, "data integrity: checksum mismatch (host memory "), "%s", e->message);
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
  tcase_add_loop_test (tc, test_transfer_window, 0, G_N_ELEMENTS (transfer_cases));
  tcase_add_loop_test (tc, test_transfer_window_every_size, 0, 2);
  tcase_add_loop_test (tc, test_completion_sizes, 0, G_N_ELEMENTS (cpl_cases));
  tcase_add_loop_test (tc, test_tags_latency, 0, 2);
  tcase_add_test (tc, test_stall);
  tcase_add_test (tc, test_slow_consumer_is_not_a_deadlock);
  tcase_add_test (tc, test_ledger_catches_misplaced_write);
  suite_add_tcase (s, tc);
    return run_suite (s);
}
