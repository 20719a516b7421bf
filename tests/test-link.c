/* test-link.c — the link in time: saturating streams, lane padding, Ack coalescing, credit-limited throughput
 * and end-of-run invariants. Every expected figure is derived here from pcie-protocol.md formulas. */
#include <check.h>
#include <math.h>

#include "models/link.h"
#include "models/stream.h"

static double
gts_of (int gen)
{
  static const double gts[] = { 0, 2.5, 5, 8, 16, 32 }; /* §1 */
  return gts[gen];
}

/* Raw rate of all lanes after encoding, MB/s (§1). */
static double
wire_mbps (int gen, int lanes)
{
  return lanes * gts_of (gen) * 1000.0 / 8.0 * (gen >= 3 ? 128.0 / 130.0 : 0.8);
}

/* Share of symbol times spent on SKPs in a saturating stream (§4): 8b/10b 4 symbols per 1180; 128b/130b 16
 * symbols + EDS (4 bytes over all lanes) + the IDL that fills the data block up to the EDS, on average half a
 * 16-symbol block (the packet ends anywhere in the block), per 370 blocks. */
static double
skp_share (int gen, int lanes)
{
  if (gen < 3)
    return 4.0 / 1180.0;
  return (16.0 + 4.0 / lanes + 7.5) / (370.0 * 16.0);
}

static LinkParams
base_params (int gen, int lanes, uint32_t mps)
{
  return (LinkParams) {
    .gen = gen,
    .lanes = lanes,
    .max_payload_bytes = mps,
    .tx_pipeline_ps = 20 * SIM_NS,
    .rx_pipeline_ps = 30 * SIM_NS,
    .flight_ps = 5 * SIM_NS,
  };
}

/* ---- saturating MWr stream, infinite credits ---- */

typedef struct {
  int gen, lanes;
} GenWidth;

static const GenWidth stream_cases[] = {
  { 1, 1 }, { 2, 1 }, { 3, 1 }, { 4, 1 }, { 5, 1 }, { 1, 8 }, { 2, 8 }, { 3, 8 }, { 4, 8 }, { 5, 8 },
};

START_TEST (test_write_stream)
{
  const GenWidth *c = &stream_cases[_i];
  StreamParams sp = { .link = base_params (c->gen, c->lanes, 256), .mode = STREAM_WRITE };
  StreamResult r;
  g_autoptr (GError) err = NULL;
  ck_assert_msg (stream_run (&sp, 1, &r, &err), "case %d: %s", _i, err ? err->message : "");
  /* §2: 256 payload in 12 header + 8 framing. */
  double want = wire_mbps (c->gen, c->lanes) * 256.0 / 276.0 * (1 - skp_share (c->gen, c->lanes));
  ck_assert_msg (fabs (r.mbps - want) < 0.005 * want, "case %d Gen%d x%d: %.2f MB/s, want %.2f", _i, c->gen,
                 c->lanes, r.mbps, want);
  /* Never above the protocol limit; a finite window may hold one SKP fewer than its average share, which is the
   * only allowance (one SKP of 20 symbols over the window). */
  double limit = link_protocol_limit_mbps (&sp.link, 12);
  double one_skp = 20.0 * 8000.0 / gts_of (c->gen) / (double) r.window_ps;
  ck_assert_msg (r.mbps <= limit * (1 + one_skp), "case %d: %.4f above protocol limit %.4f", _i, r.mbps, limit);
  LinkUsage u = r.usage[LINK_UPSTREAM];
  double sum = u.payload + u.tlp_overhead + u.dllp + u.ordered_sets + u.idle;
  ck_assert_msg (fabs (sum - 1) < 1e-12, "case %d: usage sums to %.15f", _i, sum);
  /* Payload share of symbol time is 256/276 of what SKPs leave. */
  double pay = 256.0 / 276.0 * (1 - skp_share (c->gen, c->lanes));
  ck_assert_msg (fabs (u.payload - pay) < 0.005 * pay, "case %d: payload share %.5f want %.5f", _i, u.payload, pay);
  /* No DLLPs on the data direction (Acks go the other way; infinite credits need no UpdateFC). */
  ck_assert_msg (u.dllp == 0, "case %d: dllp %.6f", _i, u.dllp);
  /* Idle = padding only: at 128b/130b up to a block per SKP (mean 7.5 symbols of 5920); at 8b/10b x8 the
   * lanes 4..7 before a SKP that follows a packet ending in lane 3 (4 of 8 × 1180 slots); nothing at x1. */
  double max_idle = c->gen >= 3 ? 16.0 / 5920.0 : c->lanes == 8 ? 4.0 / (8 * 1180.0) : 0;
  /* The window ends at the last delivery, one pipeline + flight after the wire fell quiet, rounded up to a
   * symbol boundary (symbol time = 8 bits / GT/s × encoding, §1). */
  double sym_ps = 8000.0 / gts_of (c->gen) * (c->gen >= 3 ? 130.0 / 128.0 : 10.0 / 8.0);
  SimTime tail = sp.link.tx_pipeline_ps + sp.link.flight_ps + sp.link.rx_pipeline_ps;
  max_idle += ((double) tail + sym_ps) / (double) r.window_ps;
  ck_assert_msg (u.idle >= -1e-12 && u.idle <= max_idle + 1e-9, "case %d: idle %.6f > %.6f", _i, u.idle, max_idle);
  if (c->gen >= 3)
    ck_assert_msg (u.idle > 2.0 / 5920.0, "case %d: block padding missing (idle %.6f)", _i, u.idle);
}
END_TEST

/* ECRC (spec §2.7) adds one DW to every TLP: 256 payload in 12 header + 4 ECRC + 8 framing = 280 bytes, so the
 * saturated stream and the protocol limit both drop by 276/280 against the ECRC-free figure above. */
START_TEST (test_write_stream_ecrc)
{
  const GenWidth *c = &stream_cases[_i];
  StreamParams sp = { .link = base_params (c->gen, c->lanes, 256), .mode = STREAM_WRITE };
  sp.link.ecrc = TRUE;
  StreamResult r;
  g_autoptr (GError) err = NULL;
  ck_assert_msg (stream_run (&sp, 1, &r, &err), "case %d: %s", _i, err ? err->message : "");
  double want = wire_mbps (c->gen, c->lanes) * 256.0 / 280.0 * (1 - skp_share (c->gen, c->lanes));
  ck_assert_msg (fabs (r.mbps - want) < 0.005 * want, "case %d Gen%d x%d: %.2f MB/s with ECRC, want %.2f", _i,
                 c->gen, c->lanes, r.mbps, want);
  LinkParams plain = sp.link;
  plain.ecrc = FALSE;
  double ratio = link_protocol_limit_mbps (&sp.link, 12) / link_protocol_limit_mbps (&plain, 12);
  ck_assert_msg (fabs (ratio - 276.0 / 280.0) < 1e-12, "case %d: limit ratio %.6f, want 276/280", _i, ratio);
}
END_TEST

/* ---- lane placement visible in time: one and two 276-byte TLPs on an idle Gen1 x8 link ---- */

typedef struct {
  SimTime last_rx;
  int n;
  Link *link;
} RxLog;

static SimEngine *g_engine;

static void
rx_log_consume (void *ctx, LinkPort *port, Tlp *tlp)
{
  RxLog *log = ctx;
  log->last_rx = sim_now (g_engine);
  log->n++;
  link_port_consume (port, tlp);
  tlp_free (link_pool (log->link), tlp);
}

START_TEST (test_lane_padding)
{
  int count = _i + 1;
  g_autoptr (SimEngine) e = sim_engine_new (1);
  g_engine = e;
  TlpPool *pool = tlp_pool_new ();
  LinkParams p = base_params (1, 8, 256);
  Link *l = link_new (e, &p, pool);
  RxLog log = { .link = l };
  link_port_set_rx (link_port (l, LINK_HOST), rx_log_consume, &log);
  for (int i = 0; i < count; i++) {
    Tlp *t = tlp_alloc (pool);
    tlp_set (t, TLP_MWR, FALSE, 0, 256);
    link_port_send (link_port (l, LINK_DEVICE), t);
  }
  sim_run (e);
  /* Gen1 symbol 4 ns. One packet of 276 bytes over 8 lanes ends in symbol 34 (lanes 0..3): the receiver has it
   * after 35 symbol times. Two back to back: the second starts in lane 4, together 552 bytes = 69 symbols. */
  uint64_t symbols = count == 1 ? (276 + 7) / 8 : 2 * 276 / 8;
  SimTime want = symbols * 4000 + p.tx_pipeline_ps + p.flight_ps + p.rx_pipeline_ps;
  ck_assert_msg (log.n == count && log.last_rx == want, "%d TLPs: last at %" G_GUINT64_FORMAT " ps, want %"
                 G_GUINT64_FORMAT, count, log.last_rx, want);
  g_autoptr (GError) err = NULL;
  ck_assert_msg (link_check_invariants (l, &err), "%s", err ? err->message : "");
  link_free (l);
  ck_assert_uint_eq (tlp_pool_live (pool), 0);
  tlp_pool_free (pool);
}
END_TEST

/* ---- Ack coalescing: one Ack per Ack latency limit (§3) ---- */

typedef struct {
  int gen, lanes;
  uint32_t mps, table_limit; /* limit from the spec table (pcie-protocol.md §3) */
} AckRateCase;

static const AckRateCase ack_rate_cases[] = {
  { 3, 1, 256, 512 },
  { 2, 4, 512, 250 - 45 },
  { 3, 8, 1024, 246 },
};

START_TEST (test_ack_rate)
{
  const AckRateCase *c = &ack_rate_cases[_i];
  StreamParams sp = { .link = base_params (c->gen, c->lanes, c->mps), .mode = STREAM_WRITE,
                      .total_bytes = 4u << 20 };
  StreamResult r;
  g_autoptr (GError) err = NULL;
  ck_assert_msg (stream_run (&sp, 1, &r, &err), "case %d: %s", _i, err ? err->message : "");
  /* Ack limit from the formula (§3), checked against the table. */
  double factor = c->mps <= 256 ? (c->lanes == 8 ? 2.5 : 1.4) : 1.0;
  uint32_t internal = c->gen == 1 ? 19 : c->gen == 2 ? 70 : 115;
  uint32_t limit = (uint32_t) floor ((c->mps + 28) * factor / c->lanes) + internal;
  ck_assert_msg (limit == c->table_limit, "case %d: formula %u vs table %u", _i, limit, c->table_limit);
  /* TLPs arrive every (MPS + 20) / lanes symbol times. The timer starts at the first unacknowledged TLP and the
   * Ack covers every TLP that arrived within `limit`: k = ceil(limit / T) TLPs per Ack. */
  double t_tlp = (c->mps + 20.0) / c->lanes;
  double k = ceil (limit / t_tlp);
  LinkCounters up = r.counters[LINK_UPSTREAM], down = r.counters[LINK_DOWNSTREAM];
  double per_ack = (double) up.tlps / (double) down.acks;
  ck_assert_msg (fabs (per_ack - k) < 0.02 * k, "case %d: %.3f TLPs per Ack, want %.0f (limit %u, T %.1f)", _i,
                 per_ack, k, limit, t_tlp);
  /* Reverse-link DLLP share: 8 bytes per k·T symbol times over `lanes` lanes. */
  double share = 8.0 / c->lanes / (k * t_tlp);
  double got = r.usage[LINK_DOWNSTREAM].dllp;
  ck_assert_msg (fabs (got - share) < 0.03 * share, "case %d: reverse DLLP share %.5f want %.5f", _i, got, share);
}
END_TEST

/* ---- credit-limited writes: throughput = min(link, C / R) ---- */

typedef struct {
  const char *id;
  uint32_t tlps_of_credit; /* posted credits advertised, in 256-byte MWrs */
  gboolean eager; /* UpdateFC after every TLP instead of the §2.6.1.2 minimum */
} FcCase;

static const FcCase fc_cases[] = {
  { "eager, 4 TLPs", 4, TRUE },
  { "eager, 12 TLPs", 12, TRUE },
  { "spec rule, 4 TLPs", 4, FALSE },
  { "spec rule, 2 TLPs", 2, FALSE },
};

START_TEST (test_credit_limited)
{
  const FcCase *c = &fc_cases[_i];
  /* Gen2 x4: symbol 2 ns. Pipelines and flight are multiples of 2 ns so every event falls on a symbol boundary. */
  LinkParams lp = base_params (2, 4, 256);
  lp.tx_pipeline_ps = 100 * SIM_NS;
  lp.rx_pipeline_ps = 100 * SIM_NS;
  lp.flight_ps = 50 * SIM_NS;
  lp.host_rx_credits.ph = c->tlps_of_credit;
  lp.host_rx_credits.pd = c->tlps_of_credit * 256 / 16; /* §5: 16 bytes per data credit */
  if (c->eager) {
    lp.updatefc_hdr_threshold_credits = 1;
    lp.updatefc_data_threshold_credits = 256 / 16;
  }
  StreamParams sp = { .link = lp, .mode = STREAM_WRITE };
  StreamResult r;
  g_autoptr (GError) err = NULL;
  ck_assert_msg (stream_run (&sp, 1, &r, &err), "%s: %s", c->id, err ? err->message : "");
  double sym_ns = 2.0;
  double t_tlp = 276.0 / 4 * sym_ns; /* 138 ns on the wire */
  double t_dllp = 8.0 / 4 * sym_ns; /* UpdateFC: 4 ns */
  double one_way = (lp.tx_pipeline_ps + lp.flight_ps + lp.rx_pipeline_ps) / 1000.0;
  /* R: a TLP's credit leaves with the TLP, which is serialised, travels, is consumed at once, frees the credit
   * into an UpdateFC that is serialised and travels back. */
  double R = t_tlp + one_way + t_dllp + one_way;
  double C = c->tlps_of_credit * 256.0;
  double link = wire_mbps (2, 4) * 256.0 / 276.0 * (1 - skp_share (2, 4));
  double want;
  if (c->eager)
    want = MIN (link, C / R * 1000.0);
  else
    /* The spec rule returns credits only when the last of them is used: one UpdateFC per window, so the window
     * also waits for the serialisation of the TLPs before the last. */
    want = MIN (link, C / (R + (c->tlps_of_credit - 1) * t_tlp) * 1000.0);
  ck_assert_msg (fabs (r.mbps - want) < 0.02 * want, "%s: %.1f MB/s, want %.1f (R %.0f ns)", c->id, r.mbps, want, R);
}
END_TEST

/* ---- replay buffer: a full buffer stalls new TLPs until the Ack returns ---- */

START_TEST (test_replay_stall)
{
  uint32_t n = (uint32_t) _i + 1; /* replay buffer holds n TLPs */
  LinkParams lp = base_params (2, 4, 256);
  lp.tx_pipeline_ps = 100 * SIM_NS;
  lp.rx_pipeline_ps = 100 * SIM_NS;
  lp.flight_ps = 50 * SIM_NS;
  lp.replay_buffer_bytes = n * 276; /* §2: 256 + 12 header + 8 framing per TLP */
  StreamParams sp = { .link = lp, .mode = STREAM_WRITE };
  StreamResult r;
  g_autoptr (GError) err = NULL;
  ck_assert_msg (stream_run (&sp, 1, &r, &err), "n=%u: %s", n, err ? err->message : "");
  /* Gen2 x4, 2 ns symbols: TLP 69 symbols = 138 ns; one way 250 ns; Ack limit 214 - 45 = 169 symbols = 338 ns
   * from the first TLP's arrival; all n TLPs arrive before it fires ((n-1)·138 < 338), so one Ack (4 ns)
   * frees the whole buffer. Cycle = 138 + 250 + 338 + 4 + 250 ns per n TLPs. */
  double cycle_ns = 138.0 + 250.0 + 169 * 2.0 + 4.0 + 250.0;
  double want = n * 256.0 / cycle_ns * 1000.0;
  ck_assert_msg (fabs (r.mbps - want) < 0.02 * want, "n=%u: %.1f MB/s, want %.1f", n, r.mbps, want);
}
END_TEST

/* ---- UpdateFC within the recommended latency (Table 2-54): coalesced like Acks ---- */

START_TEST (test_updatefc_latency)
{
  /* Gen3 x1, MPS 256: latency 512 symbols (Table 3-12 = Table 2-54), a TLP every 276 symbols. Credits for 127
   * TLPs (§5 unscaled maximum) never run out, so only the latency rule sends UpdateFCs: one per
   * ceil(512 / 276) = 2 TLPs, exactly like the Acks, and the stream runs at the saturated rate. */
  LinkParams lp = base_params (3, 1, 256);
  lp.host_rx_credits.ph = 127;
  lp.host_rx_credits.pd = 127 * 256 / 16;
  lp.updatefc_latency_symbols = LINK_UPDATEFC_LATENCY_RECOMMENDED;
  StreamParams sp = { .link = lp, .mode = STREAM_WRITE };
  StreamResult r;
  g_autoptr (GError) err = NULL;
  ck_assert_msg (stream_run (&sp, 1, &r, &err), "%s", err ? err->message : "");
  double k = ceil (512.0 / 276.0);
  double per_update = (double) r.counters[LINK_UPSTREAM].tlps / (double) r.counters[LINK_DOWNSTREAM].updatefcs;
  ck_assert_msg (fabs (per_update - k) < 0.02 * k, "%.3f TLPs per UpdateFC, want %.0f", per_update, k);
  double want = wire_mbps (3, 1) * 256.0 / 276.0 * (1 - skp_share (3, 1));
  ck_assert_msg (fabs (r.mbps - want) < 0.005 * want, "%.2f MB/s, want %.2f", r.mbps, want);
}
END_TEST

/* ---- a slow consumer: back-pressure through credits, never a receive-buffer overflow ---- */

START_TEST (test_slow_consumer)
{
  /* Gen2 x8 carries ~3697 MB/s; a 1000 MB/s sink must set the pace. With finite credits (16 TLPs) the buffer
   * fills and credits gate the transmitter (fc.c aborts on any overflow); with infinite ones the sink queue
   * absorbs the difference. Either way the measured rate is the sink's. */
  LinkParams lp = base_params (2, 8, 256);
  if (_i == 0) {
    lp.host_rx_credits.ph = 16;
    lp.host_rx_credits.pd = 16 * 256 / 16;
  }
  StreamParams sp = { .link = lp, .mode = STREAM_WRITE, .consumer_mbps = 1000 };
  StreamResult r;
  g_autoptr (GError) err = NULL;
  ck_assert_msg (stream_run (&sp, 1, &r, &err), "case %d: %s", _i, err ? err->message : "");
  ck_assert_msg (fabs (r.mbps - 1000.0) < 5.0, "case %d: %.2f MB/s, want 1000", _i, r.mbps);
  /* A fractional rate is a rate, not a truncated integer: 0.5 MB/s once read as 0, i.e. no limit at all. */
  sp.consumer_mbps = 0.5;
  sp.total_bytes = 64 * 1024;
  ck_assert_msg (stream_run (&sp, 1, &r, &err), "case %d: %s", _i, err ? err->message : "");
  ck_assert_msg (fabs (r.mbps - 0.5) < 0.0025, "case %d: %.4f MB/s, want 0.5", _i, r.mbps);
}
END_TEST

/* ---- saturating reads: CplD stream minus the Acks for the MRds ---- */

START_TEST (test_read_stream)
{
  LinkParams lp = base_params (2, 4, 256);
  lp.host_rx_credits.nph = 127; /* §5: the unscaled maximum */
  StreamParams sp = { .link = lp, .mode = STREAM_READ, .max_read_request_bytes = 512, .tags = 32,
                      .completion_bytes = 256, .rcb_bytes = 64, .completer_latency_ps = 500 * SIM_NS };
  StreamResult r;
  g_autoptr (GError) err = NULL;
  ck_assert_msg (stream_run (&sp, 1, &r, &err), "%s", err ? err->message : "");
  /* Downstream carries 256-byte CplDs (12 header + 8 framing) and the Acks for MRds. MRds arrive one per 512
   * bytes of completions = 2 × 69 symbols; Ack limit Gen2 x4 MPS 256 = 214 - 45 = 169 symbols, so one Ack per
   * ceil(169 / 138) = 2 MRds, i.e. 2 DLLP symbols per 276. */
  double t_mrd = 2 * 276.0 / 4;
  double acks = 1.0 / (ceil (169.0 / t_mrd) * t_mrd);
  double want = wire_mbps (2, 4) * (1 - skp_share (2, 4) - 2.0 * acks) * 256.0 / 276.0;
  ck_assert_msg (fabs (r.mbps - want) < 0.005 * want, "read: %.2f MB/s, want %.2f", r.mbps, want);
  ck_assert (r.mbps <= link_protocol_limit_mbps (&lp, 12)); /* CplDs: 3-DW headers */
  /* An MRd goes every 276 ns (138 symbols), so 30 us use 108.7 of the 127 NPH credits: the §2.6.1.2 exhaustion
   * rule never fires and the host refreshes NP credits only by the periodic rule, once per 30 us of traffic. */
  double periods = (double) r.window_ps / (30.0 * SIM_US);
  double got = (double) r.counters[LINK_DOWNSTREAM].updatefcs;
  ck_assert_msg (fabs (got - periods) <= 1.0, "read: %.0f UpdateFCs in %.2f periods", got, periods);
}
END_TEST

/* ---- invariants: unacknowledged TLPs are reported until the Ack arrives ---- */

START_TEST (test_invariants)
{
  g_autoptr (SimEngine) e = sim_engine_new (1);
  g_engine = e;
  TlpPool *pool = tlp_pool_new ();
  LinkParams p = base_params (3, 4, 256);
  p.host_rx_credits = (FcCredits) { .ph = 8, .pd = 128, .nph = 8 };
  Link *l = link_new (e, &p, pool);
  RxLog log = { .link = l };
  link_port_set_rx (link_port (l, LINK_HOST), rx_log_consume, &log);
  LinkPort *dev = link_port (l, LINK_DEVICE);
  int sent = 0;
  for (;;) {
    Tlp probe = { 0 };
    tlp_set (&probe, TLP_MWR, FALSE, 0, 256);
    if (!link_port_can_send (dev, &probe))
      break;
    Tlp *t = tlp_alloc (pool);
    *t = probe;
    link_port_send (dev, t);
    sent++;
  }
  ck_assert_int_eq (sent, 8); /* 8 header credits, 128 data credits = 8 × 16 */
  /* Run until the TLPs are delivered but before the Ack (limit 214 symbols ≈ 217 ns) can come back. */
  SimTime t_del = link_symbol_ps (l, 8 * 276 / 4) + p.tx_pipeline_ps + p.flight_ps + p.rx_pipeline_ps;
  sim_run_until (e, t_del);
  ck_assert_int_eq (log.n, 8);
  g_autoptr (GError) err = NULL;
  ck_assert (!link_check_invariants (l, &err));
  ck_assert (g_error_matches (err, LINK_ERROR, LINK_ERROR_INVARIANT));
  g_clear_error (&err);
  sim_run (e);
  ck_assert_msg (link_check_invariants (l, &err), "%s", err ? err->message : "");
  LinkCounters down = link_counters (l, LINK_DOWNSTREAM);
  ck_assert_uint_ge (down.acks, 1);
  ck_assert_uint_ge (down.updatefcs, 1);
  link_free (l);
  tlp_pool_free (pool);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("link");
  TCase *tc = tcase_create ("link");
  tcase_set_timeout (tc, 60);
  tcase_add_loop_test (tc, test_write_stream, 0, G_N_ELEMENTS (stream_cases));
  tcase_add_loop_test (tc, test_write_stream_ecrc, 0, G_N_ELEMENTS (stream_cases));
  tcase_add_loop_test (tc, test_lane_padding, 0, 2);
  tcase_add_loop_test (tc, test_ack_rate, 0, G_N_ELEMENTS (ack_rate_cases));
  tcase_add_loop_test (tc, test_credit_limited, 0, G_N_ELEMENTS (fc_cases));
  tcase_add_loop_test (tc, test_replay_stall, 0, 2);
  tcase_add_test (tc, test_updatefc_latency);
  tcase_add_loop_test (tc, test_slow_consumer, 0, 2);
  tcase_add_test (tc, test_read_stream);
  tcase_add_test (tc, test_invariants);
  suite_add_tcase (s, tc);
  SRunner *r = srunner_create (s);
  /* CK_ENV so meson's CK_VERBOSITY=silent keeps stdout pure TAP. */
  srunner_run_all (r, CK_ENV);
  srunner_free (r);
  return 0;
}
