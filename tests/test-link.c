/* test-link.c — the link in time: saturating streams, lane padding, Ack coalescing, credit-limited throughput
 * and end-of-run invariants. Every expected figure is derived here from pcie-protocol.md formulas. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "models/link/link.h"
#include "models/workloads/stream.h"

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

/* One symbol time in ns (§1): 10 line bits per byte at 8b/10b, 130/128 of 8 at 128b/130b. */
static double
phy_sym_ns (int gen)
{
  return (gen >= 3 ? 8.0 * 130.0 / 128.0 : 10.0) / gts_of (gen);
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
  { 3, 12 }, { 5, 32 }, /* x12 and x32: lane 4·N placement, and 276-byte TLPs fill whole lane groups */
};

START_TEST (test_write_stream)
{
  const GenWidth *c = &stream_cases[_i];
  /* Wide links get a longer run, so the window's tail (one pipeline and flight) stays a small share of it. */
  StreamParams sp = { .link = base_params (c->gen, c->lanes, 256), .mode = STREAM_WRITE,
                      .total_bytes = c->lanes > 8 ? 8u << 20 : 0 };
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
  link_port_set_rx (link_port (l, LINK_DSP), rx_log_consume, &log);
  for (int i = 0; i < count; i++) {
    Tlp *t = tlp_alloc (pool);
    tlp_set (t, TLP_MWR, FALSE, 0, 256);
    link_port_send (link_port (l, LINK_USP), t);
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
  SimTime tx_ps, rx_ps; /* both ends' pipelines; 0: base_params()'s */
} AckRateCase;

static const AckRateCase ack_rate_cases[] = {
  { 3, 1, 256, 512, 0, 0 },
  { 2, 4, 512, 250 - 45, 0, 0 },
  { 3, 8, 1024, 246, 0, 0 },
  /* Gen2 x4, MPS 256: 2 ns symbols, a TLP every 138 ns, the limit 214 - 45 = 169 symbols, 338 ns. */
  { 2, 4, 256, 214 - 45, 100 * SIM_NS, 120 * SIM_NS },
  { 2, 4, 256, 214 - 45, 20 * SIM_NS, 60 * SIM_NS },
};

START_TEST (test_ack_rate)
{
  const AckRateCase *c = &ack_rate_cases[_i];
  StreamParams sp = { .link = base_params (c->gen, c->lanes, c->mps), .mode = STREAM_WRITE,
                      .total_bytes = 4u << 20 };
  if (c->tx_ps) {
    sp.link.tx_pipeline_ps = c->tx_ps;
    sp.link.rx_pipeline_ps = c->rx_ps;
  }
  StreamResult r;
  g_autoptr (GError) err = NULL;
  ck_assert_msg (stream_run (&sp, 1, &r, &err), "case %d: %s", _i, err ? err->message : "");
  /* Ack limit from the formula (§3), checked against the table. */
  double factor = c->mps <= 256 ? (c->lanes == 8 ? 2.5 : 1.4) : 1.0;
  uint32_t internal = c->gen == 1 ? 19 : c->gen == 2 ? 70 : 115;
  uint32_t limit = (uint32_t) floor ((c->mps + 28) * factor / c->lanes) + internal;
  ck_assert_msg (limit == c->table_limit, "case %d: formula %u vs table %u", _i, limit, c->table_limit);
  /* TLPs arrive every T = (MPS + 20) / lanes symbol times. The Ack timer starts when the receiver's data link
   * layer checks the first TLP no Ack covers, rx after its last symbol reached the pins, and the Ack's first symbol
   * leaves the pins one limit after that arrival, having entered the receiver's transmit pipeline tx before: so
   * limit - rx - tx after the check. It covers the TLPs checked by then (AckNak_Seq_Num = NEXT_RCV_SEQ - 1, spec
   * §3.6.3.1), not those still in the receive pipeline: k = floor((limit - rx - tx) / T) + 1 TLPs per Ack. With
   * 100 + 120 ns of pipelines that is 1 (118 / 138 ns), with 20 + 60 ns 2 (258 / 138); an Ack that also covered the
   * TLPs at the pins, in the receive pipeline, would take ceil(limit / T) = 3 in both. */
  double sym_ns = phy_sym_ns (c->gen);
  double t_tlp = (c->mps + 20.0) / c->lanes;
  double pipes = (double) (sp.link.tx_pipeline_ps + sp.link.rx_pipeline_ps) / SIM_NS / sym_ns;
  double k = floor ((limit - pipes) / t_tlp) + 1;
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
  lp.rx_credits[LINK_DSP].ph = c->tlps_of_credit;
  lp.rx_credits[LINK_DSP].pd = c->tlps_of_credit * 256 / 16; /* §5: 16 bytes per data credit */
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
  lp.rx_pipeline_ps = 60 * SIM_NS;
  lp.flight_ps = 50 * SIM_NS;
  lp.replay_buffer_bytes = n * 276; /* §2: 256 + 12 header + 8 framing per TLP */
  StreamParams sp = { .link = lp, .mode = STREAM_WRITE };
  StreamResult r;
  g_autoptr (GError) err = NULL;
  ck_assert_msg (stream_run (&sp, 1, &r, &err), "n=%u: %s", n, err ? err->message : "");
  /* Gen2 x4, 2 ns symbols: TLP 69 symbols = 138 ns; one way 100 + 50 + 60 = 210 ns. The Ack limit, 214 - 45 =
   * 169 symbols = 338 ns (§3), runs pin to pin (spec §3.6.3.1, InternalDelay covering the receiver's own
   * pipelines): from the TLP's last symbol at the receiver's pins (138 + 100 + 50) to the Ack's first symbol
   * leaving them, so the Ack enters the receiver's serialiser 338 - 60 (its receive pipeline) - 100 (its transmit
   * pipeline) = 178 ns after delivery. All n TLPs are delivered before that ((n-1)·138 < 178), so one Ack (4 ns)
   * frees the whole buffer. Cycle = 138 + 210 + 178 + 4 + 210 ns per n TLPs (a receiver timing from delivery
   * instead would add the 160 ns of pipelines once more). */
  double cycle_ns = 138.0 + 210.0 + (169 * 2.0 - 60.0 - 100.0) + 4.0 + 210.0;
  double want = n * 256.0 / cycle_ns * 1000.0;
  ck_assert_msg (fabs (r.mbps - want) < 0.02 * want, "n=%u: %.1f MB/s, want %.1f", n, r.mbps, want);
  /* One TLP at a time: each goes on the wire as it is handed over (at the next 2 ns symbol boundary), so its
   * latency is the same 138 + 210 ns, and so is the 99th percentile. */
  if (n == 1)
    ck_assert_msg (r.latency_p99_ns >= 348.0 && r.latency_p99_ns <= 350.0, "p99 %.3f ns, want 348..350",
                   r.latency_p99_ns);
}
END_TEST

/* Pipelines longer than the Ack limit (Gen2 x4, MPS 256: 169 symbols, 338 ns; a TLP 138 ns, 50 ns of flight). The
 * Ack is scheduled only once the TLP is checked (spec §3.6.3.1) and must leave the pins one limit after the TLP
 * arrived there, so the check sits at most the limit less the transmit pipeline behind the pins: the rest of the
 * receive pipeline is the transaction layer's, and DLLPs do not wait for it. Case 0: a 100 ns transmit and 400 ns
 * receive pipeline: the check is 238 ns behind the pins, the Ack leaves them 338 ns after the TLP arrived, and the
 * transmitter's own Ack is in 50 + 238 ns later. Case 1: the transmit pipeline alone (400 ns) outlasts the limit:
 * the TLP is checked at the pins and the Ack scheduled at once, leaving them 400 ns later, 62 ns late; it is in
 * at the transmitter's data link layer after 50 ns of flight. Case 2: as case 1, with 300 ns of the receive pipeline
 * said to be the transaction layer's (link.rx_transaction_ns): the same. One TLP per cycle (a replay buffer of one
 * TLP); each TLP is delivered 138 + tx + 50 + 400 ns after its hand-over, whatever the split. */
typedef struct {
  SimTime tx_ps, tl_ps;
  double cycle_ns;
} AckPipeCase;

static const AckPipeCase ack_pipe_cases[] = {
  { 100 * SIM_NS, 0, 138.0 + 100.0 + 50.0 + 338.0 + 4.0 + 50.0 + 238.0 },
  { 400 * SIM_NS, 0, 138.0 + 400.0 + 50.0 + 4.0 + 400.0 + 50.0 },
  { 400 * SIM_NS, 300 * SIM_NS, 138.0 + 400.0 + 50.0 + 4.0 + 400.0 + 50.0 },
};

START_TEST (test_ack_pipelines_beyond_limit)
{
  const AckPipeCase *c = &ack_pipe_cases[_i];
  LinkParams lp = base_params (2, 4, 256);
  lp.tx_pipeline_ps = c->tx_ps;
  lp.rx_pipeline_ps = 400 * SIM_NS;
  lp.rx_tl_pipeline_ps[LINK_DSP] = lp.rx_tl_pipeline_ps[LINK_USP] = c->tl_ps;
  lp.flight_ps = 50 * SIM_NS;
  lp.replay_buffer_bytes = 276;
  StreamParams sp = { .link = lp, .mode = STREAM_WRITE };
  StreamResult r;
  g_autoptr (GError) err = NULL;
  ck_assert_msg (stream_run (&sp, 1, &r, &err), "%s", err ? err->message : "");
  double want = 256.0 / c->cycle_ns * 1000.0;
  ck_assert_msg (fabs (r.mbps - want) < 0.02 * want, "case %d: %.1f MB/s, want %.1f", _i, r.mbps, want);
  double lat = 138.0 + (double) c->tx_ps / SIM_NS + 50.0 + 400.0;
  /* Up to 8 ns more: a SKP ordered set (4 symbols, §4) that fell due as a TLP was handed over goes first. */
  ck_assert_msg (r.latency_p99_ns >= lat && r.latency_p99_ns <= lat + 8.0, "case %d: p99 %.1f ns, want %.0f", _i,
                 r.latency_p99_ns, lat);
}
END_TEST

/* Issue #12 item 4's case: Gen5 x16, MPS 256, an 8 KB replay buffer, 50 ns pipelines each way, here with 30 ns of
 * flight. */
START_TEST (test_ack_pin_to_pin_gen5)
{
  LinkParams lp = base_params (5, 16, 256);
  lp.tx_pipeline_ps = 50 * SIM_NS;
  lp.rx_pipeline_ps = 50 * SIM_NS;
  lp.flight_ps = 30 * SIM_NS;
  lp.replay_buffer_bytes = 8192;
  StreamParams sp = { .link = lp, .mode = STREAM_WRITE, .total_bytes = 4u << 20 };
  StreamResult r;
  g_autoptr (GError) err = NULL;
  ck_assert_msg (stream_run (&sp, 1, &r, &err), "%s", err ? err->message : "");
  /* 8192 / 276 = 29 TLPs per window. Symbol 8 / 32 GT/s × 130/128 = 0.25390625 ns; the Ack limit of Table 3-12
   * (168 symbols, 42.7 ns) is shorter than the 50 ns transmit pipeline, so a TLP is checked at the pins and its Ack
   * scheduled at once (spec §3.6.3.1: no sooner, no later), and DLLPs take no receive pipeline. A cycle: the first
   * TLP (276 / 16 = 17.25 symbols), 80 ns to the pins, the Ack (8 / 16 lanes, within one symbol), 80 ns back. */
  double sym = 8.0 / 32.0 * 130.0 / 128.0;
  double cycle = 17.25 * sym + 80.0 + 1 * sym + 80.0;
  double want = 29 * 256.0 / cycle * 1000.0;
  ck_assert_msg (fabs (r.mbps - want) < 0.01 * want, "%.1f MB/s, want %.1f", r.mbps, want);
}
END_TEST

/* ---- tags a requester may have outstanding (spec §2.2.6.2): 10-bit tags, 1024 values less the 256 of 8-bit
 * tags (Tag[9:8] = 0 is not a 10-bit tag); 14-bit tags in flit mode, 2^14 less the 2^10 with Tag[13:10] = 0 ---- */

START_TEST (test_tags_max)
{
  LinkParams p = base_params (5, 8, 256);
  ck_assert_uint_eq (link_tags_max (&p), 1024 - 256);
  p.flit_mode = TRUE;
  ck_assert_uint_eq (link_tags_max (&p), 16384 - 1024);
  p = base_params (6, 8, 256);
  ck_assert_uint_eq (link_tags_max (&p), 16384 - 1024);
}
END_TEST

/* ---- 12-bit sequence numbers: at most 2048 TLPs unacknowledged (spec §3.6.2.1) ---- */

START_TEST (test_seq_window)
{
  /* Gen3 x8, MPS 256, 100 us of flight each way, no replay-buffer limit: the window of 2048 TLPs (512 KB) is
   * sent in 2048 × 276 / 8 symbol times ≈ 71.8 us, well inside the 200 us round trip, so the rate is the window
   * per round trip. The round trip: the first TLP (34.5 symbols), the way to the receiver, the Ack limit of
   * Table 3-12 (203 symbols, pin to pin), the Ack (1 symbol), the way back. */
  LinkParams lp = base_params (3, 8, 256);
  lp.flight_ps = 100 * SIM_US;
  StreamParams sp = { .link = lp, .mode = STREAM_WRITE, .total_bytes = 32u << 20 };
  StreamResult r;
  g_autoptr (GError) err = NULL;
  ck_assert_msg (stream_run (&sp, 1, &r, &err), "%s", err ? err->message : "");
  double sym_ns = 1.0 * 130.0 / 128.0;
  double one_way = (lp.tx_pipeline_ps + lp.flight_ps + lp.rx_pipeline_ps) / 1000.0;
  double cycle = (34.5 + 203 + 1) * sym_ns + 2 * one_way;
  double want = 2048 * 256.0 / cycle * 1000.0;
  ck_assert_msg (fabs (r.mbps - want) < 0.01 * want, "%.1f MB/s, want %.1f", r.mbps, want);
}
END_TEST

/* ---- SRIS (pcie-protocol.md §4, spec §4.2.8): SKPs every 154 symbols (8b/10b), every 37 blocks (128b/130b) ---- */

START_TEST (test_sris)
{
  int gen = _i == 0 ? 1 : 3;
  LinkParams lp = base_params (gen, 4, 256);
  lp.sris = TRUE;
  StreamParams sp = { .link = lp, .mode = STREAM_WRITE };
  StreamResult r;
  g_autoptr (GError) err = NULL;
  ck_assert_msg (stream_run (&sp, 1, &r, &err), "%s", err ? err->message : "");
  /* As skp_share(), with the SRIS intervals: 4 of 154 symbols; 16 + EDS 4/4 + the IDL to the block (7.5 on
   * average) per 37 blocks of 16. */
  double share = gen < 3 ? 4.0 / 154.0 : (16.0 + 1.0 + 7.5) / (37.0 * 16.0);
  double want = wire_mbps (gen, 4) * 256.0 / 276.0 * (1 - share);
  ck_assert_msg (fabs (r.mbps - want) < 0.005 * want, "Gen%d SRIS: %.2f MB/s, want %.2f", gen, r.mbps, want);
  /* The ordered sets themselves: the IDL before them is idle. */
  double os = gen < 3 ? share : (16.0 + 1.0) / 592.0;
  ck_assert_msg (fabs (r.usage[LINK_UPSTREAM].ordered_sets - os) < 0.05 * os,
                 "ordered sets %.5f", r.usage[LINK_UPSTREAM].ordered_sets);
}
END_TEST

/* SKPs that fall due during one packet (pcie-protocol.md §4): at 128b/130b one goes after it, the rest are not
 * sent (issue #39 point 10). Gen3 x1 with SRIS (an SKP due every 37 blocks, 592 symbol times) and MPS 4096: a TLP
 * is 4096 + 12 + 8 = 4116 symbol times, so about 7 SKPs fall due during each. After it: the EDS (4 symbols on x1)
 * ends the data block, IDLs fill it to its 16-symbol boundary (4116 + 4 = 4120 -> 4128), the SKP takes 16, and the
 * next TLP starts a block: 4144 symbol times per 4096 payload bytes. Sending all 7 back to back would cost 96 more. */
START_TEST (test_skp_deferred_not_back_to_back)
{
  LinkParams lp = base_params (3, 1, 4096);
  lp.sris = TRUE;
  StreamParams sp = { .link = lp, .mode = STREAM_WRITE, .total_bytes = 4u << 20 };
  StreamResult r;
  g_autoptr (GError) err = NULL;
  ck_assert_msg (stream_run (&sp, 1, &r, &err), "%s", err ? err->message : "");
  double want = wire_mbps (3, 1) * 4096.0 / 4144.0;
  ck_assert_msg (fabs (r.mbps - want) < 0.003 * want, "%.2f MB/s, want %.2f", r.mbps, want);
}
END_TEST

/* ---- flit mode (pcie-protocol.md §1-4, spec §4.2.3.3) ---- */

/* Share of the wire a flit-mode SKP takes: S symbols on every lane after every N flits of 256 bytes (§4). */
static double
flit_os_share (int lanes, double skp_symbols, double flits)
{
  return skp_symbols * lanes / (flits * 256.0 + skp_symbols * lanes);
}

/* The figure: a saturating MWr stream at Gen6 x16, MPS 256, 4-DW headers: lanes × 8000 MB/s × 236/256
 * × 256/272 less the ordered sets (40 symbols after every 748 flits at 64 GT/s x16). */
START_TEST (test_flit_gen6_stream)
{
  StreamParams sp = { .link = base_params (6, 16, 256), .mode = STREAM_WRITE, .addr64 = TRUE,
                      .total_bytes = 8u << 20 };
  StreamResult r;
  g_autoptr (GError) err = NULL;
  ck_assert_msg (stream_run (&sp, 1, &r, &err), "%s", err ? err->message : "");
  double want = 16 * 8000.0 * 236.0 / 256.0 * 256.0 / 272.0 * (1 - flit_os_share (16, 40, 748));
  ck_assert_msg (fabs (r.mbps - want) < 0.005 * want, "%.1f MB/s, want %.1f", r.mbps, want);
  /* Ack/Nak and UpdateFC cost no wire bytes in flit mode: they ride in the DLP bytes of the reverse flits. */
  LinkUsage down = r.usage[LINK_DOWNSTREAM];
  ck_assert_msg (r.counters[LINK_DOWNSTREAM].acks > 0 && down.dllp == 0 && down.payload == 0
                 && down.tlp_overhead == 0, "reverse: %" G_GUINT64_FORMAT " Acks, DLLP share %g", 
                 r.counters[LINK_DOWNSTREAM].acks, down.dllp);
  /* The data direction: payload 256 of every 272 TLP bytes in 236 of every 256 flit bytes; flit overhead 20. */
  LinkUsage up = r.usage[LINK_UPSTREAM];
  double pay = 256.0 / 272.0 * 236.0 / 256.0 * (1 - flit_os_share (16, 40, 748));
  ck_assert_msg (fabs (up.payload - pay) < 0.005 * pay, "payload share %.5f, want %.5f", up.payload, pay);
  double sum = up.payload + up.tlp_overhead + up.dllp + up.ordered_sets + up.idle;
  ck_assert_msg (fabs (sum - 1) < 1e-12 && up.idle > -1e-12, "usage sums to %.15f, idle %g", sum, up.idle);
  ck_assert_msg (r.mbps <= link_protocol_limit_mbps (&sp.link, 16) * 1.001, "%.1f above the limit %.1f", r.mbps,
                 link_protocol_limit_mbps (&sp.link, 16));
}
END_TEST

/* Flit packing (spec §4.2.3.4.1, pcie-protocol.md §2): a flit half (TLP bytes 0-127, 128-235) holds bytes of at
 * most 8 TLPs, partial ones included. Gen6 x16, saturating MWr streams, by hand:
 * - 4-byte writes, 3-DW header: 16-byte TLPs. The first flit's first half takes 8 whole TLPs; its second half 6
 *   whole and a 7th that ends 4 bytes into the next flit. That flit's first half then has the partial one and
 *   room for 7 more (bytes 4-115): the 9th would start at 116, so it waits for byte 128, and the second half
 *   again takes 7. Steady state 14 TLPs = 56 payload bytes per flit (without the rule 236 / 16 × 4 = 59).
 * - 4-byte writes, 4-DW header (20 bytes) and 64-byte writes, 3-DW header (76 bytes): at most 7 and 3 TLPs touch a
 *   half, so the rule never binds: 236 / 20 × 4 and 236 / 76 × 64 payload bytes per flit. */
typedef struct {
  uint32_t payload;
  gboolean addr64;
  double payload_per_flit;
} FlitPackCase;

static const FlitPackCase flit_pack_cases[] = {
  { 4, FALSE, 56.0 },
  { 4, TRUE, 236.0 / 20.0 * 4.0 },
  { 64, FALSE, 236.0 / 76.0 * 64.0 },
};

START_TEST (test_flit_packing)
{
  const FlitPackCase *c = &flit_pack_cases[_i];
  StreamParams sp = { .link = base_params (6, 16, 256), .mode = STREAM_WRITE, .addr64 = c->addr64,
                      .tlp_payload_bytes = c->payload, .total_bytes = c->payload * 40000u };
  StreamResult r;
  g_autoptr (GError) err = NULL;
  ck_assert_msg (stream_run (&sp, 1, &r, &err), "%s", err ? err->message : "");
  double want = 16 * 8000.0 * c->payload_per_flit / 256.0 * (1 - flit_os_share (16, 40, 748));
  ck_assert_msg (fabs (r.mbps - want) < 0.005 * want, "case %d: %.1f MB/s, want %.1f", _i, r.mbps, want);
}
END_TEST

/* Spec §4.2.3.4.1: a transmitter with nothing to send fills TLP bytes with NOPs in 4-DW units and cannot change
 * bytes already sent. Gen6 x1 (one byte per 125-ps symbol time, a flit of 256 symbol times, TLP bytes 0-235), a
 * 16-byte MWr handed over at symbol 5 of an idle wire starts at byte 16 and ends at symbol 32 (without the NOPs:
 * 21); a second handed over with it follows back to back, ending at 48; one handed over at symbol 240 (in the
 * flit's DLP/CRC/FEC bytes) starts the next flit: ends at 256 + 16. */
static void
placed_end (void *ctx, LinkPort *port, const Tlp *tlp, SimTime end_ps)
{
  (void) port;
  (void) tlp;
  GArray *ends = ctx;
  g_array_append_val (ends, end_ps);
}

static void
send_two (SimEngine *e, void *ctx, uint64_t n)
{
  (void) e;
  Link *l = ctx;
  LinkPort *dev = link_port (l, LINK_USP);
  for (uint64_t k = 0; k < n; k++) {
    Tlp *t = tlp_alloc (link_pool (l));
    tlp_set (t, TLP_MWR, FALSE, 0, 4);
    link_port_send (dev, t);
  }
}

START_TEST (test_flit_nop_align)
{
  g_autoptr (SimEngine) e = sim_engine_new (1);
  TlpPool *pool = tlp_pool_new ();
  LinkParams p = base_params (6, 1, 256);
  Link *l = link_new (e, &p, pool);
  LinkPort *dev = link_port (l, LINK_USP);
  g_autoptr (GArray) ends = g_array_new (FALSE, FALSE, sizeof (SimTime));
  link_port_set_tx_placed (dev, placed_end, ends);
  sim_schedule_at (e, 5 * 125, send_two, l, 2);
  sim_schedule_at (e, 240 * 125, send_two, l, 1);
  sim_run (e);
  ck_assert_uint_eq (ends->len, 3);
  ck_assert_uint_eq (g_array_index (ends, SimTime, 0), 32 * 125);
  ck_assert_uint_eq (g_array_index (ends, SimTime, 1), 48 * 125);
  ck_assert_uint_eq (g_array_index (ends, SimTime, 2), (256 + 16) * 125);
  link_free (l);
  tlp_pool_free (pool);
}
END_TEST

/* Spec §3.6.2.1, flit mode: at most MAX_UNACKNOWLEDGED_FLITS = min(retry buffer, 511) flits unacknowledged, counted
 * in flits, not bytes. Gen6 x16, 256-byte MWr with 4-DW headers (272 bytes, 222.1 payload bytes per flit), 5 us of
 * flight each way: the window binds, and a window of W flits carries at most W flits per round trip. The round
 * trip is at least 2 × (20 + 5000 + 30) ns and at most that plus the Ack latency limit (168 symbols, §3) and a
 * few flits (2 ns each). The receiver Acks every TLP once checked, so the window reopens TLP by TLP at the pace
 * the TLPs came in; a TLP sent after the wire idled starts a new flit, and 272 bytes then span 2. A TLP is admitted
 * while the unacknowledged flits and its own 2 stay within W, and none of them spans more than 2: at least W / 2
 * TLPs in flight. A 4096-byte retry buffer holds 16 flits: counting bytes instead (15 TLPs of 272 bytes, 3840
 * payload bytes per round trip) would exceed 16 × 222.1. */
static const uint32_t flit_window_cases[] = { 4096, 0 };

START_TEST (test_flit_window)
{
  LinkParams lp = base_params (6, 16, 256);
  lp.flight_ps = 5 * SIM_US;
  lp.replay_buffer_bytes = flit_window_cases[_i];
  lp.ack_every_tlps[LINK_DSP] = 1;
  double w = _i == 0 ? 16 : 511;
  StreamParams sp = { .link = lp, .mode = STREAM_WRITE, .addr64 = TRUE, .total_bytes = _i == 0 ? 1u << 20 : 8u << 20 };
  StreamResult r;
  g_autoptr (GError) err = NULL;
  ck_assert_msg (stream_run (&sp, 1, &r, &err), "%s", err ? err->message : "");
  double per_flit = 236.0 * 256.0 / 272.0, rtt_min = 2 * 5050.0, rtt_max = rtt_min + 168 * 0.125 + 4 * 2.0;
  double hi = w * per_flit / rtt_min * 1000.0, lo = floor (w / 2) * 256.0 / rtt_max * 1000.0;
  ck_assert_msg (r.mbps <= hi && r.mbps >= lo, "window %.0f flits: %.1f MB/s, want %.1f..%.1f", w, r.mbps, lo, hi);
}
END_TEST

/* §2: flit mode helps small TLPs and costs large ones. Gen5 x8, 3-DW headers, writes (MWr) and reads (CplD):
 * non-flit a TLP of P payload takes P + 20 bytes at 128b/130b with one SKP of 16 + 4 symbols (+ the IDL to the
 * block, half a block on average) per 370 blocks; flit mode P + 12 bytes in 236 of 256, one SKP of 16 symbols
 * after 187 flits at x8. */
typedef struct {
  uint32_t payload;
  gboolean read;
} FlitCmpCase;

static const FlitCmpCase flit_cmp_cases[] = { { 32, FALSE }, { 512, FALSE }, { 32, TRUE }, { 512, TRUE } };

START_TEST (test_flit_vs_nonflit)
{
  const FlitCmpCase *c = &flit_cmp_cases[_i];
  double got[2];
  for (int flit = 0; flit < 2; flit++) {
    LinkParams lp = base_params (5, 8, 512);
    lp.flit_mode = flit;
    StreamParams sp = { .link = lp, .mode = c->read ? STREAM_READ : STREAM_WRITE, .tlp_payload_bytes = c->payload,
                        .total_bytes = 2u << 20, .tags = 256, .max_read_request_bytes = 512 };
    StreamResult r;
    g_autoptr (GError) err = NULL;
    ck_assert_msg (stream_run (&sp, 1, &r, &err), "case %d flit %d: %s", _i, flit, err ? err->message : "");
    got[flit] = r.mbps;
  }
  double p = c->payload;
  double nonflit = wire_mbps (5, 8) * p / (p + 20) * (1 - skp_share (5, 8));
  /* Reads: the downstream wire also carries the Acks of the MRds. The pipelines (20 + 30 ns) outlast the Ack
   * latency limit (Table 3-12, x8 MPS 512: 182 symbols, 46.2 ns), so each MRd is Acked as soon as it is checked
   * (spec §3.6.3.1): one 8-byte Ack per completion. */
  if (c->read)
    nonflit = wire_mbps (5, 8) * p / (p + 20 + 8) * (1 - skp_share (5, 8));
  double flit = wire_mbps (5, 8) * 236.0 / 256.0 * p / (p + 12) * (1 - flit_os_share (8, 16, 187));
  ck_assert_msg (fabs (got[1] - flit) < 0.01 * flit, "case %d: flit %.1f MB/s, want %.1f", _i, got[1], flit);
  ck_assert_msg (got[0] <= nonflit * 1.005 && got[0] > nonflit * 0.97, "case %d: non-flit %.1f MB/s, want %.1f", _i,
                 got[0], nonflit);
  /* §2's example: flit mode wins at 32 bytes, loses at 512. */
  ck_assert_msg (c->payload < 256 ? got[1] > got[0] : got[1] < got[0], "case %d: flit %.1f vs non-flit %.1f", _i,
                 got[1], got[0]);
}
END_TEST

/* ---- errors, Nak and replay (pcie-protocol.md §10, spec §3.6) ---- */

typedef struct {
  int n;
  uint64_t addr[64]; /* delivery order */
  SimTime last_rx;
  Link *link;
} OrderLog;

static void
order_log_consume (void *ctx, LinkPort *port, Tlp *tlp)
{
  OrderLog *log = ctx;
  if (log->n < 64)
    log->addr[log->n] = tlp->address;
  log->n++;
  log->last_rx = sim_now (g_engine);
  link_port_consume (port, tlp);
  tlp_free (link_pool (log->link), tlp);
}

/* n MWrs of 256 bytes at addresses 0, 256, ... from the device, all queued at time 0. */
static Link *
error_link (SimEngine *e, TlpPool *pool, const LinkParams *p, OrderLog *log)
{
  Link *l = link_new (e, p, pool);
  log->link = l;
  link_port_set_rx (link_port (l, LINK_DSP), order_log_consume, log);
  return l;
}

static void
send_mwrs (Link *l, TlpPool *pool, int n)
{
  for (int i = 0; i < n; i++) {
    Tlp *t = tlp_alloc (pool);
    tlp_set (t, TLP_MWR, FALSE, (uint64_t) i * 256, 256);
    link_port_send (link_port (l, LINK_USP), t);
  }
}

/* The end of every error run: nothing left unacknowledged or out of range, no TLP lost by the link. */
static void
finish_error_link (Link *l, TlpPool *pool)
{
  g_autoptr (GError) err = NULL;
  ck_assert_msg (link_check_invariants (l, &err), "%s", err ? err->message : "");
  link_free (l);
  ck_assert_uint_eq (tlp_pool_live (pool), 0);
  tlp_pool_free (pool);
}

static void
assert_in_order_once (const OrderLog *log, int n)
{
  ck_assert_msg (log->n == n, "%d TLPs delivered, want %d", log->n, n);
  for (int i = 0; i < n; i++)
    ck_assert_msg (log->addr[i] == (uint64_t) i * 256, "TLP %d carries address %" G_GUINT64_FORMAT, i, log->addr[i]);
}

/* Eight MWrs with TLP 2 corrupted in its first transmission (link_inject_lcrc()), run to the end: each delivered
 * once and in order. */
static Link *
run_one_lost (SimEngine *e, TlpPool *pool, const LinkParams *p, OrderLog *log)
{
  Link *l = error_link (e, pool, p, log);
  link_inject_lcrc (l, LINK_UPSTREAM, 2, 1);
  send_mwrs (l, pool, 8);
  sim_run (e);
  assert_in_order_once (log, 8);
  return l;
}

/* One corrupted TLP: the receiver discards it and the five behind it (sequence error, no second Nak), sends one
 * Nak, and the transmitter replays the six unacknowledged TLPs; everything arrives once and in order. The long
 * flight makes all eight leave before the Nak is back, so the count of replayed TLPs is exact; REPLAY_TIMER is set
 * beyond that round trip (its spec value, 3 Ack limits, is not: it would replay before the Nak is back). In flit
 * mode the lost flit is the one holding TLP 2's last byte (link_inject_lcrc()), 268-byte TLPs packed in 236 bytes a
 * flit: bytes 708-943, flit 3, where TLP 3 (from byte 804) starts too, so two TLPs arrive corrupted. */
START_TEST (test_error_one_lcrc)
{
  g_autoptr (SimEngine) e = sim_engine_new (1);
  g_engine = e;
  TlpPool *pool = tlp_pool_new ();
  LinkParams p = base_params (2, 4, 256);
  p.flit_mode = _i == 1;
  p.flight_ps = 10 * SIM_US;
  p.replay_timer_symbols = 100000; /* 200 us at Gen2 */
  OrderLog log = { 0 };
  Link *l = run_one_lost (e, pool, &p, &log);
  LinkErrors up = link_errors (l, LINK_UPSTREAM), down = link_errors (l, LINK_DOWNSTREAM);
  ck_assert_msg (up.tlp_errors == 1u + (uint64_t) _i && up.naks == 1 && up.replays == 1 && up.replay_timeouts == 0
                 && up.retrains == 0 && up.replayed_tlps == 6, "flit %d: %" G_GUINT64_FORMAT " errors, %"
                 G_GUINT64_FORMAT " Naks, %" G_GUINT64_FORMAT " replays, %" G_GUINT64_FORMAT " replayed", _i,
                 up.tlp_errors, up.naks, up.replays, up.replayed_tlps);
  ck_assert_uint_eq (down.tlp_errors + down.dllp_errors + down.naks + down.replays, 0);
  finish_error_link (l, pool);
}
END_TEST

/* Flit mode replays flits (spec §4.2.3.4.2, pcie-protocol.md §10). Gen3 x4 flit mode: a flit is 64 symbols of
 * 8125/8 ps, 65 ns; 20 + 500 + 30 ns from the serialiser to the far data link layer (the Ack limit, 214 symbols,
 * leaves the 30 ns receive pipeline whole). Eight 256-byte MWrs (268 bytes, 3-DW headers) fill flits 0-9 (2144 TLP
 * bytes, 236 a flit), on the wire from 0 to 650 ns; the flit holding TLP 2's last byte, flit 3 (bytes 708-943),
 * is lost, and with it TLP 3, which starts in it. TLP 2 is in, corrupted, at 4 × 65 + 550 = 810 ns; the Nak rides
 * in the DLP bytes of the first reverse flit whose DLP has not gone out, flit 12 (810 ns is 798 symbols, slot 3192,
 * byte 120 of flit 12), and is in at 13 × 65 + 550 = 1395 ns; 1395 ns is symbol 1374, slot 5496, so the replay
 * starts with flit 22 (slot 5632). A standard Nak resends flits 3-9, seven flits, and TLP 7 is in with its last,
 * flit 9, resent as flit 28: 29 × 65 + 550 = 2435 ns; six TLPs (2-7) go again. A selective Nak resends flit 3
 * alone, as flit 22: 23 × 65 + 550 = 2045 ns, and TLPs 4-7, kept by the receiver, are delivered with it: one flit
 * on the wire (the TLPs 2 and 3 that had bytes in it) instead of seven, the last delivery 6 flits (390 ns) sooner.
 * No SKP (every 93 flits at x4) and no REPLAY_TIMER (set beyond the round trip) intervene. */
START_TEST (test_flit_replay)
{
  gboolean selective = _i == 1;
  g_autoptr (SimEngine) e = sim_engine_new (1);
  g_engine = e;
  TlpPool *pool = tlp_pool_new ();
  LinkParams p = base_params (3, 4, 256);
  p.flit_mode = TRUE;
  p.flit_selective_nak = selective;
  p.flight_ps = 500 * SIM_NS;
  p.replay_timer_symbols = 100000;
  OrderLog log = { 0 };
  Link *l = run_one_lost (e, pool, &p, &log);
  LinkErrors up = link_errors (l, LINK_UPSTREAM);
  uint64_t flits = selective ? 1 : 7, tlps = selective ? 2 : 6;
  ck_assert_msg (up.tlp_errors == 2 && up.naks == 1 && up.replays == 1 && up.replay_timeouts == 0
                 && up.replayed_bytes == flits * 256 && up.replayed_tlps == tlps,
                 "selective %d: %" G_GUINT64_FORMAT " errors, %" G_GUINT64_FORMAT " Naks, %" G_GUINT64_FORMAT
                 " replays, %" G_GUINT64_FORMAT " bytes and %" G_GUINT64_FORMAT " TLPs resent", _i, up.tlp_errors,
                 up.naks, up.replays, up.replayed_bytes, up.replayed_tlps);
  SimTime want = (selective ? 2045 : 2435) * SIM_NS;
  ck_assert_msg (log.last_rx == want, "selective %d: last delivery at %" G_GUINT64_FORMAT " ps, want %"
                 G_GUINT64_FORMAT, _i, log.last_rx, want);
  finish_error_link (l, pool);
}
END_TEST

/* Four 256-byte MWrs at addresses from arg × 256 on. */
static void
send_four (SimEngine *e, void *ctx, uint64_t arg)
{
  (void) e;
  Link *l = ctx;
  for (uint64_t i = arg; i < arg + 4; i++) {
    Tlp *t = tlp_alloc (link_pool (l));
    tlp_set (t, TLP_MWR, FALSE, i * 256, 256);
    link_port_send (link_port (l, LINK_USP), t);
  }
}

/* IDLE flits are not replayed (spec §4.2.3.4.2, pcie-protocol.md §10): only flits that carried TLP bytes take a
 * flit sequence number and a place in the retry buffer. Gen3 x4 flit mode (65 ns flits), 5 us of flight: four
 * 268-byte MWrs at 0 fill flits 0-4 (1072 TLP bytes, 236 a flit); flits 5-29 go IDLE; four more at 2 us, symbol
 * 1970 (of 8125/8 ps), 50 symbols into flit 30, start at its first 4-DW boundary not yet on the wire (slot 200 of
 * 4 lanes: TLP byte 208, §4.2.3.4.1's NOP padding before it) and end at byte 208 + 1072 = 1280 from flit 30's
 * first, in flit 35: six flits. Flit 3, holding TLP 2's last byte, is lost; the Nak is back after about 10 us, when
 * both bursts are on the wire, and a standard Nak resends flits 3 and 4 and the six of the second burst: 8 × 256
 * bytes, none of the 25 IDLE flits between them. */
START_TEST (test_flit_replay_skips_idle)
{
  g_autoptr (SimEngine) e = sim_engine_new (1);
  g_engine = e;
  TlpPool *pool = tlp_pool_new ();
  LinkParams p = base_params (3, 4, 256);
  p.flit_mode = TRUE;
  p.flight_ps = 5 * SIM_US;
  p.replay_timer_symbols = 100000;
  OrderLog log = { 0 };
  Link *l = error_link (e, pool, &p, &log);
  link_inject_lcrc (l, LINK_UPSTREAM, 2, 1);
  sim_schedule_at (e, 0, send_four, l, 0);
  sim_schedule_at (e, 2 * SIM_US, send_four, l, 4);
  sim_run (e);
  assert_in_order_once (&log, 8);
  LinkErrors up = link_errors (l, LINK_UPSTREAM);
  ck_assert_msg (up.replays == 1 && up.replayed_bytes == 8 * 256, "%" G_GUINT64_FORMAT " replays, %" G_GUINT64_FORMAT
                 " bytes resent, want 1 and %d", up.replays, up.replayed_bytes, 8 * 256);
  finish_error_link (l, pool);
}
END_TEST

/* A lost Ack: nothing else acknowledges the one TLP, so REPLAY_TIMER expires and replays it; the receiver discards
 * the duplicate and Acks again. The timer counts from the TLP's last symbol at the transmitter's pins (spec
 * §3.6.2.1): the serialiser's end plus the transmit pipeline. Its limit (pcie-protocol.md §10): for a port
 * limited to rates below 16 GT/s 3 × the Ack latency limit, Gen2 x4 MPS 256: 3 × 169 symbols of 2 ns, the
 * 276-byte TLP ending after 69 symbols and the 20 ns pipeline being 10 more; for a port supporting 16 GT/s or
 * more the simplified 24,000 symbols at whatever rate it trained, Gen4 x8: the TLP ends in symbol 35 (276 / 8 =
 * 34.5), a 64-symbol pipeline, symbols of 8 / 16 GT/s × 130/128 = 8125/16 ps; a Gen5 port trained at Gen3 x8
 * (symbols of 8125/8 ps), not 3 × 203. */
typedef struct {
  int gen, lanes, supported_gen;
  SimTime tx_pipe_ps, expiry_ps;
} LostAckCase;

static const LostAckCase lost_ack_cases[] = {
  { 2, 4, 0, 20 * SIM_NS, (69 + 10 + 3 * 169) * 2 * SIM_NS },
  { 4, 8, 0, 64 * 8125 / 16, (35 + 64 + 24000) * UINT64_C (8125) / 16 },
  { 3, 8, 5, 64 * 8125 / 8, (35 + 64 + 24000) * UINT64_C (8125) / 8 },
};

START_TEST (test_error_lost_ack)
{
  const LostAckCase *c = &lost_ack_cases[_i];
  g_autoptr (SimEngine) e = sim_engine_new (1);
  g_engine = e;
  TlpPool *pool = tlp_pool_new ();
  LinkParams p = base_params (c->gen, c->lanes, 256);
  p.tx_pipeline_ps = c->tx_pipe_ps;
  p.supported_gen = c->supported_gen;
  OrderLog log = { 0 };
  Link *l = error_link (e, pool, &p, &log);
  link_inject_fault (l, LINK_FAULT_LOST_ACK, LINK_DOWNSTREAM, 0);
  send_mwrs (l, pool, 1);
  sim_run_until (e, c->expiry_ps - 1);
  ck_assert_uint_eq (link_errors (l, LINK_UPSTREAM).replays, 0);
  sim_run_until (e, c->expiry_ps);
  LinkErrors up = link_errors (l, LINK_UPSTREAM);
  ck_assert_msg (up.replays == 1 && up.replay_timeouts == 1, "Gen%d at %" G_GUINT64_FORMAT " ps: %" G_GUINT64_FORMAT
                 " replays", c->gen, c->expiry_ps, up.replays);
  sim_run (e);
  assert_in_order_once (&log, 1);
  ck_assert_uint_eq (link_errors (l, LINK_DOWNSTREAM).dllp_errors, 1);
  up = link_errors (l, LINK_UPSTREAM);
  ck_assert_uint_eq (up.replays, 1);
  finish_error_link (l, pool);
}
END_TEST

/* A BER no error is drawn at must change nothing: the same figure as at BER 0 to the last bit, and no REPLAY_TIMER
 * expiry. Issue #26's case: Gen5 x16, MPS 256, a 100 ns transmit pipeline, BER 1e-12; over 4 MB (about 10^8 bits)
 * this seed draws no error, and the round trip, about 0.3 us, is far inside 24,000 symbols (6.1 us). Issue #39's:
 * Gen3 x16, MPS 128, a 300 ns receive and 100 ns transmit pipeline at both ends, 5 ns of flight, BER 1e-15. Its
 * REPLAY_TIMER is 3 × the Ack latency limit (Table 3-12, x16 MPS 128: 144 symbols, so 432 symbols of 1.016 ns,
 * 439 ns), not much more than the Ack's round trip through both pipelines. The timer runs at the pins (spec
 * §3.6.2.1: the Ack's arrival there resets it): a TLP's last symbol leaves the pins, is checked 5 + 300 ns later,
 * and the Ack that covers it reaches the sender's pins 100 + 5 ns after that at the soonest, 410 ns, inside the
 * limit, while counting the sender's own 300 ns receive pipeline too (710 ns) would expire it on every TLP. And
 * xdma_g3_x8's link as a stream with a 600 ns receive pipeline (Gen3 x8, MPS 256, 150 ns transmit pipeline, 32
 * posted header credits, Acks on every TLP, a 3-TLP transmit queue, the recommended UpdateFC latency): the timer
 * restarted by an Ack while the TLPs left unacknowledged are still in the transmit pipeline counts from the first
 * one's passing the pins, when one is outstanding there (§3.6.2.1: started by a TLP's transmission), not from the
 * Ack; the round trip, 150 + 1 + 600 + 150 + 1 ns, is inside 3 × 203 symbols (618 ns) only so. */
typedef struct {
  int gen, lanes;
  uint32_t mps;
  SimTime tx_ps, rx_ps;
  double ber;
  uint32_t ph; /* posted header credits of the receiver, 0 = infinite */
} ErrorFreeCase;

static const ErrorFreeCase error_free_cases[] = {
  { 5, 16, 256, 100 * SIM_NS, 30 * SIM_NS, 1e-12, 0 },
  { 3, 16, 128, 100 * SIM_NS, 300 * SIM_NS, 1e-15, 0 },
  { 3, 8, 256, 150 * SIM_NS, 600 * SIM_NS, 1e-18, 32 },
};

START_TEST (test_error_free_ber_costs_nothing)
{
  const ErrorFreeCase *c = &error_free_cases[_i];
  StreamResult r[2];
  for (int k = 0; k < 2; k++) {
    LinkParams lp = base_params (c->gen, c->lanes, c->mps);
    lp.tx_pipeline_ps = c->tx_ps;
    lp.rx_pipeline_ps = c->rx_ps;
    lp.ber = k ? c->ber : 0;
    if (c->ph) {
      lp.flight_ps = 1 * SIM_NS;
      lp.rx_credits[LINK_DSP].ph = c->ph;
      lp.rx_credits[LINK_DSP].pd = 512;
      lp.ack_every_tlps[LINK_DSP] = lp.ack_every_tlps[LINK_USP] = 1;
      lp.tx_queue_tlps = 3;
      lp.updatefc_latency_symbols = LINK_UPDATEFC_LATENCY_RECOMMENDED;
    }
    StreamParams sp = { .link = lp, .mode = STREAM_WRITE, .total_bytes = 4u << 20 };
    g_autoptr (GError) err = NULL;
    ck_assert_msg (stream_run (&sp, 1, &r[k], &err), "%s", err ? err->message : "");
  }
  LinkErrors up = r[1].errors[LINK_UPSTREAM], down = r[1].errors[LINK_DOWNSTREAM];
  ck_assert_uint_eq (up.tlp_errors + up.dllp_errors + down.tlp_errors + down.dllp_errors, 0);
  ck_assert_msg (up.replays == 0 && up.replay_timeouts == 0, "case %d: %" G_GUINT64_FORMAT " replays, %"
                 G_GUINT64_FORMAT " timeouts", _i, up.replays, up.replay_timeouts);
  ck_assert_msg (r[1].mbps == r[0].mbps, "case %d: %.3f MB/s at BER %g, %.3f at 0", _i, r[1].mbps, c->ber, r[0].mbps);
}
END_TEST

/* REPLAY_TIMER against an Ack that reaches the transmitter's pins just inside its limit, and just outside (spec
 * §3.6.2.1: the timer counts at the pins, from the TLP's last symbol leaving them until the Ack's arrives; the
 * port's receive pipeline after that is not in it). Gen2 x4 (2 ns symbols), one 276-byte MWr, pipelines 20 ns
 * transmit and 300 ns receive at both ends, 5 ns of flight, the receiver Acking every TLP as it is delivered. The
 * TLP's last symbol leaves the serialiser at 138 ns (69 symbols) and the pins at 158 ns, when the timer starts
 * (symbol 79); it is at the far pins at 163 ns and delivered at 463 ns, when the Ack is due: it goes on the wire
 * at the next symbol boundary, 464 ns, for two symbols (8 bytes over 4 lanes), and its last symbol leaves the pins
 * at 488 ns and reaches the TLP's sender at 493 ns, 167.5 symbols after the timer started. A limit of 168 symbols
 * (due at 494 ns) sees it in time: no replay, though the Ack is processed only at 793 ns. A limit of 167 (due at
 * 492 ns) expires first: one timeout and one replay, whose duplicate the receiver discards. */
START_TEST (test_replay_timer_ack_at_pins)
{
  uint32_t limit = _i == 0 ? 168 : 167;
  g_autoptr (SimEngine) e = sim_engine_new (1);
  g_engine = e;
  TlpPool *pool = tlp_pool_new ();
  LinkParams p = base_params (2, 4, 256);
  p.rx_pipeline_ps = 300 * SIM_NS;
  p.ack_every_tlps[LINK_DSP] = 1;
  p.replay_timer_symbols = limit;
  OrderLog log = { 0 };
  Link *l = error_link (e, pool, &p, &log);
  link_inject_lcrc (l, LINK_UPSTREAM, 99, 0); /* the error model on, no error */
  send_mwrs (l, pool, 1);
  sim_run (e);
  assert_in_order_once (&log, 1);
  LinkErrors up = link_errors (l, LINK_UPSTREAM);
  uint64_t want = _i == 0 ? 0 : 1;
  ck_assert_msg (up.replay_timeouts == want && up.replays == want, "limit %u: %" G_GUINT64_FORMAT " timeouts, %"
                 G_GUINT64_FORMAT " replays", limit, up.replay_timeouts, up.replays);
  finish_error_link (l, pool);
}
END_TEST

/* A framing error on the last of four MWrs (Gen3 x8, MPS 256, non-flit): a Receiver Error while a TLP is received
 * schedules a Nak (spec §3.6.3.1), so the TLP is replayed on that Nak: one Nak, one replay of one TLP, no
 * REPLAY_TIMER expiry, one retrain. No later TLP shows a sequence gap, so without the Nak only the timer would
 * replay it. Case 0: the timer set far beyond the round trip (100,000 symbols, 102 us). Case 1: the spec's timer
 * (3 × 203 symbols, 618 ns) and a Recovery of 5 us, during which the timer holds its value (spec §3.6.2.1): it
 * started as the TLP left the pins, the receiver saw the error 5 + 30 ns later and retrained at once, so 583 ns
 * are left when the link is back, and the Nak, sent then, is at the pins 20 + 5 ns after its 8 bytes (1 ns):
 * again no expiry. A timer that ran through the Recovery would expire in it. */
START_TEST (test_error_framing_nak)
{
  g_autoptr (SimEngine) e = sim_engine_new (1);
  g_engine = e;
  TlpPool *pool = tlp_pool_new ();
  LinkParams p = base_params (3, 8, 256);
  if (_i == 0)
    p.replay_timer_symbols = 100000;
  else
    p.retrain_ps = 5 * SIM_US;
  OrderLog log = { 0 };
  Link *l = error_link (e, pool, &p, &log);
  link_inject_fault (l, LINK_FAULT_FRAMING, LINK_UPSTREAM, 3);
  send_mwrs (l, pool, 4);
  sim_run (e);
  assert_in_order_once (&log, 4);
  LinkErrors up = link_errors (l, LINK_UPSTREAM);
  ck_assert_msg (up.framing_errors == 1 && up.retrains == 1 && up.naks == 1 && up.replays == 1
                 && up.replay_timeouts == 0 && up.replayed_tlps == 1,
                 "case %d: %" G_GUINT64_FORMAT " framing errors, %" G_GUINT64_FORMAT " retrains, %" G_GUINT64_FORMAT
                 " Naks, %" G_GUINT64_FORMAT " replays (%" G_GUINT64_FORMAT " timeouts) of %" G_GUINT64_FORMAT " TLPs",
                 _i, up.framing_errors, up.retrains, up.naks, up.replays, up.replay_timeouts, up.replayed_tlps);
  finish_error_link (l, pool);
}
END_TEST

/* REPLAY_NUM (spec §3.6.2.1): a TLP corrupted in its first `times` transmissions is replayed `times` times; the
 * fourth replay without progress rolls REPLAY_NUM over and retrains the link first, which stays idle for
 * retrain_ps. Three replays do not. Only the first failure is Nak'd: NAK_SCHEDULED stays set until a good TLP in
 * order arrives (spec §3.6.3.1), so the REPLAY_TIMER starts every later replay. */
START_TEST (test_error_retrain)
{
  uint32_t times = _i == 0 ? 3 : 4;
  g_autoptr (SimEngine) e = sim_engine_new (1);
  g_engine = e;
  TlpPool *pool = tlp_pool_new ();
  LinkParams p = base_params (3, 8, 256);
  p.retrain_ps = 5 * SIM_US;
  OrderLog log = { 0 };
  Link *l = error_link (e, pool, &p, &log);
  link_inject_lcrc (l, LINK_UPSTREAM, 0, times);
  send_mwrs (l, pool, 4);
  /* The watchdog's description names the recovery while it runs. */
  for (SimTime t = 0; times == 4 && link_errors (l, LINK_UPSTREAM).retrains == 0; t += 50 * SIM_NS)
    sim_run_until (e, t);
  if (times == 4) {
    g_autoptr (GString) why = g_string_new (NULL);
    link_describe_wait (l, why);
    ck_assert_msg (strstr (why->str, "retraining") && strstr (why->str, "replaying (0 of 4 resent, REPLAY_NUM 0)"),
                   "%s", why->str);
  }
  sim_run (e);
  assert_in_order_once (&log, 4);
  LinkErrors up = link_errors (l, LINK_UPSTREAM);
  ck_assert_msg (up.tlp_errors == times && up.naks == 1 && up.replays == times && up.replay_timeouts == times - 1
                 && up.retrains == times / 4,
                 "%u bad: %" G_GUINT64_FORMAT " errors, %" G_GUINT64_FORMAT " Naks, %" G_GUINT64_FORMAT
                 " replays, %" G_GUINT64_FORMAT " retrains", times, up.tlp_errors, up.naks, up.replays, up.retrains);
  /* Each round trip is well under a microsecond: only a retrain makes the run last beyond 5 us. */
  ck_assert_msg ((log.last_rx > p.retrain_ps) == (times == 4), "last delivery at %" G_GUINT64_FORMAT " ps",
                 log.last_rx);
  finish_error_link (l, pool);
}
END_TEST

/* BER sweep on Gen3 x8, MPS 256 (pcie-protocol.md §10, spec §4.2.2.3.5), by hand. Each transmission of a 276-byte
 * TLP first meets its framing: the STP token (32 bits), the sync headers of the blocks it spans (2 bits per lane
 * per 16 symbols: 276 / 8 lanes / 16 × 8 × 2 = 34.5 bits) and its share of what lies between packets once per SKP
 * interval of 370 blocks (5920 symbols, 171.6 TLPs): the IDLs up to the block (7.5 symbols on average), the EDS
 * (4 bytes) and the SKP ordered set (16 symbols), (60 + 4 + 128) × 8 bits and their 12 sync bits, 9.0 bits per
 * TLP. A wrong bit there is a framing error: the TLP is lost and the link retrains, no Nak. Otherwise any wrong
 * bit of the other 272 bytes fails the LCRC: a Nak. Over ~1.3 × 10^5 TLPs both counts stay within 4.5 standard
 * deviations (framing: plus 5% for the averaged padding). Goodput never rises with the error rate. */
START_TEST (test_error_ber_sweep)
{
  static const double bers[] = { 0, 1e-8, 1e-7, 1e-6, 1e-5 };
  double prev = 1e30;
  for (unsigned i = 0; i < G_N_ELEMENTS (bers); i++) {
    LinkParams lp = base_params (3, 8, 256);
    lp.ber = bers[i];
    StreamParams sp = { .link = lp, .mode = STREAM_WRITE, .total_bytes = 32u << 20 };
    StreamResult r;
    g_autoptr (GError) err = NULL;
    ck_assert_msg (stream_run (&sp, 7, &r, &err), "BER %g: %s", bers[i], err ? err->message : "");
    LinkErrors up = r.errors[LINK_UPSTREAM];
    double sent = (double) (sp.total_bytes / 256 + up.replayed_tlps);
    double pf = 1 - pow (1 - bers[i], 32 + 34.5 + 9.0), pl = (1 - pf) * (1 - pow (1 - bers[i], 8 * 272.0));
    double mean = sent * pl, sd = sqrt (sent * pl * (1 - pl));
    ck_assert_msg (sent >= 1e5, "only %.0f TLPs", sent);
    ck_assert_msg (fabs ((double) up.tlp_errors - mean) <= 4.5 * sd + 1e-9, "BER %g: %" G_GUINT64_FORMAT
                   " LCRC errors in %.0f TLPs, want %.1f ± %.1f", bers[i], up.tlp_errors, sent, mean, sd);
    double fmean = sent * pf, fsd = sqrt (sent * pf * (1 - pf));
    ck_assert_msg (fabs ((double) up.framing_errors - fmean) <= 4.5 * fsd + 0.05 * fmean + 1e-9, "BER %g: %"
                   G_GUINT64_FORMAT " framing errors in %.0f TLPs, want %.1f ± %.1f", bers[i], up.framing_errors,
                   sent, fmean, fsd);
    ck_assert_msg (r.mbps <= prev * (1 + 1e-9), "BER %g: %.1f MB/s above %.1f at the lower rate", bers[i], r.mbps,
                   prev);
    /* Every LCRC error is Nak'd unless one is already outstanding, and so is the first TLP after a framing loss;
     * each Nak or timeout starts one replay, and each framing error retrains. */
    ck_assert (up.naks <= up.tlp_errors + up.framing_errors && up.replays <= up.naks + up.replay_timeouts);
    ck_assert (up.retrains >= up.framing_errors);
    ck_assert (bers[i] == 0 || up.replays > 0);
    prev = r.mbps;
  }
}
END_TEST

/* At 8b/10b a byte is 10 line bits (pcie-protocol.md §10): Gen2 x4, each transmission of a 276-byte TLP fails the
 * LCRC with 1 - (1 - BER)^(10 × 276) (8 bits a byte would give 1 - (1 - BER)^2208, 8 standard deviations fewer
 * here); no framing error is drawn at 8b/10b. */
START_TEST (test_error_8b10b)
{
  double ber = 1e-5;
  LinkParams lp = base_params (2, 4, 256);
  lp.ber = ber;
  StreamParams sp = { .link = lp, .mode = STREAM_WRITE, .total_bytes = 16u << 20 };
  StreamResult r;
  g_autoptr (GError) err = NULL;
  ck_assert_msg (stream_run (&sp, 5, &r, &err), "%s", err ? err->message : "");
  LinkErrors up = r.errors[LINK_UPSTREAM];
  double sent = (double) (sp.total_bytes / 256 + up.replayed_tlps);
  double p = 1 - pow (1 - ber, 10 * 276.0), mean = sent * p, sd = sqrt (sent * p * (1 - p));
  ck_assert_msg (fabs ((double) up.tlp_errors - mean) <= 4.5 * sd, "%" G_GUINT64_FORMAT " errors in %.0f TLPs, "
                 "want %.1f ± %.1f", up.tlp_errors, sent, mean, sd);
  ck_assert_uint_eq (up.framing_errors, 0);
}
END_TEST

/* The flit error model (pcie-protocol.md §10), by hand: error events start at each line bit with probability BER,
 * Poisson over a flit's 256 × 8 bits (10 at 8b/10b), mean lambda; each corrupts 2 consecutive bytes of one lane
 * (2 of the 3 interleaved FEC codes, since a lane's bytes are `lanes` apart), or in 1% of events of every lane.
 * FEC corrects one byte per code, so a flit survives no event, or one that stays on its lane:
 * P(lost) = 1 - e^-lambda (1 + 0.99 lambda) on x2 and wider. At the spec's design point, first-bit error rate
 * 10^-6 at 64 GT/s x16, that is 2.25 × 10^-5, below its 3 × 10^-5 (and 30 times the 7 × 10^-7 of independent
 * bit errors). */
static double
flit_loss_by_hand (double ber, double bits_per_byte)
{
  double lambda = 256 * bits_per_byte * ber;
  return 1 - exp (-lambda) * (1 + 0.99 * lambda);
}

/* A long seeded run: lost flits among those carrying TLP bytes within 4.5 standard deviations of the binomial
 * mean. Gen6 x16 at 10^-5 (enough losses for a tight interval) and Gen3 x8 flit mode (FEC at every rate) at the
 * same rate; 256-byte MWr with a 3-DW header: 268 TLP bytes, so 268/236 flits per TLP sent. */
static const int flit_fec_gens[] = { 6, 3 };

START_TEST (test_error_flit_fec)
{
  double ber = 1e-5;
  LinkParams lp = base_params (flit_fec_gens[_i], _i == 0 ? 16 : 8, 256);
  lp.ber = ber;
  lp.flit_lane_correlation = 0.01; /* link.flit_error_lane_correlation's default */
  lp.flit_mode = TRUE;
  StreamParams sp = { .link = lp, .mode = STREAM_WRITE, .total_bytes = 64u << 20 };
  StreamResult r;
  g_autoptr (GError) err = NULL;
  ck_assert_msg (stream_run (&sp, 3, &r, &err), "%s", err ? err->message : "");
  double p = flit_loss_by_hand (ber, 8);
  LinkErrors up = r.errors[LINK_UPSTREAM];
  double flits = (double) (sp.total_bytes / 256 + up.replayed_tlps) * 268.0 / 236.0;
  double mean = flits * p, sd = sqrt (flits * p * (1 - p));
  ck_assert_msg (fabs ((double) up.flit_errors - mean) <= 4.5 * sd, "Gen%d: %" G_GUINT64_FORMAT
                 " lost flits of %.0f, want %.1f ± %.1f", lp.gen, up.flit_errors, flits, mean, sd);
  ck_assert (up.flit_errors > 0 && up.replays > 0);
  /* The design point itself, on the same formula. */
  ck_assert (flit_loss_by_hand (1e-6, 8) > 2.2e-5 && flit_loss_by_hand (1e-6, 8) < 3e-5);
}
END_TEST

/* ---- UpdateFC within the recommended latency (Table 2-54): coalesced like Acks ---- */

/* The policy is the receiver's: link-wide (_i = 0), that end's own (_i = 1, as a switch port has it), or the link's
 * overridden at that end by the minimum rules alone (_i = 2, while the far end's own says recommended). */
START_TEST (test_updatefc_latency)
{
  /* Gen3 x1, MPS 256: latency 512 symbols (Table 3-12 = Table 2-54), a TLP every 276 symbols. Credits for 127
   * TLPs (§5 unscaled maximum) never run out, so only the latency rule sends UpdateFCs: one per
   * ceil(512 / 276) = 2 TLPs, exactly like the Acks, and the stream runs at the saturated rate. By the minimum
   * rules alone an UpdateFC goes only once a type has run out: one per 127 TLPs at most, not one per 2. */
  LinkParams lp = base_params (3, 1, 256);
  lp.rx_credits[LINK_DSP].ph = 127;
  lp.rx_credits[LINK_DSP].pd = 127 * 256 / 16;
  lp.updatefc_latency_symbols = _i == 1 ? 0 : LINK_UPDATEFC_LATENCY_RECOMMENDED;
  lp.end_updatefc[LINK_DSP] = _i > 0;
  lp.end_updatefc_latency_symbols[LINK_DSP] = _i == 1 ? LINK_UPDATEFC_LATENCY_RECOMMENDED : 0;
  lp.end_updatefc[LINK_USP] = _i == 2;
  lp.end_updatefc_latency_symbols[LINK_USP] = LINK_UPDATEFC_LATENCY_RECOMMENDED;
  StreamParams sp = { .link = lp, .mode = STREAM_WRITE };
  StreamResult r;
  g_autoptr (GError) err = NULL;
  ck_assert_msg (stream_run (&sp, 1, &r, &err), "%s", err ? err->message : "");
  double k = ceil (512.0 / 276.0);
  double per_update = (double) r.counters[LINK_UPSTREAM].tlps / (double) r.counters[LINK_DOWNSTREAM].updatefcs;
  if (_i == 2) {
    ck_assert_msg (per_update >= 60, "%.3f TLPs per UpdateFC, want one when credits run out", per_update);
    return;
  }
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
    lp.rx_credits[LINK_DSP].ph = 16;
    lp.rx_credits[LINK_DSP].pd = 16 * 256 / 16;
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
  lp.rx_credits[LINK_DSP].nph = 127; /* §5: the unscaled maximum */
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
  p.rx_credits[LINK_DSP] = (FcCredits) { .ph = 8, .pd = 128, .nph = 8 };
  Link *l = link_new (e, &p, pool);
  RxLog log = { .link = l };
  link_port_set_rx (link_port (l, LINK_DSP), rx_log_consume, &log);
  LinkPort *dev = link_port (l, LINK_USP);
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
  ck_assert (g_error_matches (err, MODEL_ERROR, MODEL_ERROR_INVARIANT));
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

/* link_port_tx_full (link.h): TRUE exactly while the transmit queue holds tx_queue_tlps TLPs, and then
 * link_port_can_send() refuses any TLP, of any class or size, for the full queue (STALL_LINK), even one it would
 * refuse for credits otherwise; a refusal for credits alone is not "full". By hand: a 2-TLP queue and two posted
 * header credits; nothing runs between the two sends, so both stay queued; at time 0 the wire takes the first. */
START_TEST (test_tx_full)
{
  g_autoptr (SimEngine) e = sim_engine_new (1);
  TlpPool *pool = tlp_pool_new ();
  LinkParams p = base_params (3, 4, 256);
  p.tx_queue_tlps = 2;
  p.rx_credits[LINK_DSP] = (FcCredits) { .ph = 2 }; /* two posted headers; data and the rest infinite */
  Link *l = link_new (e, &p, pool);
  LinkPort *dev = link_port (l, LINK_USP);
  Tlp wr = { 0 }, rd = { 0 };
  tlp_set (&wr, TLP_MWR, FALSE, 0, 256);
  tlp_set (&rd, TLP_MRD, FALSE, 0, 512);
  for (int k = 0; k < 2; k++) {
    ck_assert_msg (!link_port_tx_full (dev), "full with %d queued", k);
    ck_assert (link_port_can_send (dev, &wr));
    Tlp *t = tlp_alloc (pool);
    *t = wr;
    link_port_send (dev, t);
  }
  ck_assert_msg (link_port_tx_full (dev), "not full with 2 of 2 queued");
  ck_assert (!link_port_can_send (dev, &wr));
  ck_assert_int_eq (link_port_refused (dev), STALL_LINK);
  ck_assert (!link_port_can_send (dev, &rd));
  ck_assert_int_eq (link_port_refused (dev), STALL_LINK);
  /* The wire takes the first TLP at time 0: room in the queue, but no posted header credit left. */
  sim_run_until (e, 0);
  ck_assert_uint_eq (link_port_tx_queued (dev), 1);
  ck_assert (!link_port_tx_full (dev));
  ck_assert (!link_port_can_send (dev, &wr));
  ck_assert_int_eq (link_port_refused (dev), STALL_CREDITS_PH);
  ck_assert (link_port_can_send (dev, &rd));
  sim_run (e);
  link_free (l);
  tlp_pool_free (pool);
}
END_TEST

/* ---- a sender's refusals that stand: tx-ready only for a change that can cure them ---- */

typedef struct {
  LinkPort *port;
  const Tlp *probe;
  int calls;
  gboolean first_accepted;
} ReadyProbe;

static void
ready_probe (void *ctx, LinkPort *port)
{
  ReadyProbe *r = ctx;
  (void) port;
  gboolean ok = link_port_can_send (r->port, r->probe);
  if (r->calls++ == 0)
    r->first_accepted = ok;
}

/* Two posted header credits, both used: the third write is refused for PH. The first change after that is the
 * wire taking a queued TLP (at time 0), which cannot return a credit; the credits come back only with an UpdateFC.
 * Without a promise the sender hears of that first change and is refused again; with one (until the end of time)
 * it hears only of the UpdateFC, and its write then goes. */
START_TEST (test_refusals_stand)
{
  gboolean promise = _i == 1;
  g_autoptr (SimEngine) e = sim_engine_new (1);
  TlpPool *pool = tlp_pool_new ();
  LinkParams p = base_params (3, 4, 256);
  p.rx_credits[LINK_DSP] = (FcCredits) { .ph = 2 };
  Link *l = link_new (e, &p, pool);
  LinkPort *dev = link_port (l, LINK_USP);
  Tlp wr = { 0 };
  tlp_set (&wr, TLP_MWR, FALSE, 0, 256);
  ReadyProbe r = { .port = dev, .probe = &wr };
  link_port_set_tx_ready (dev, ready_probe, &r);
  for (int k = 0; k < 2; k++) {
    ck_assert (link_port_can_send (dev, &wr));
    Tlp *t = tlp_alloc (pool);
    *t = wr;
    link_port_send (dev, t);
  }
  ck_assert (!link_port_can_send (dev, &wr));
  ck_assert_int_eq (link_port_refused (dev), STALL_CREDITS_PH);
  if (promise)
    link_port_set_refusals_stand (dev, SIM_TIME_MAX);
  sim_run (e);
  ck_assert_msg (r.calls >= 1, "no tx-ready at all");
  ck_assert_msg (r.first_accepted == promise, "promise %d: the first tx-ready %s the write", promise,
                 r.first_accepted ? "accepted" : "refused");
  if (promise)
    ck_assert_int_eq (r.calls, 1);
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
  tcase_add_loop_test (tc, test_refusals_stand, 0, 2);
  tcase_add_loop_test (tc, test_replay_stall, 0, 2);
  tcase_add_loop_test (tc, test_ack_pipelines_beyond_limit, 0, G_N_ELEMENTS (ack_pipe_cases));
  tcase_add_test (tc, test_ack_pin_to_pin_gen5);
  tcase_add_test (tc, test_tags_max);
  tcase_add_test (tc, test_seq_window);
  tcase_add_loop_test (tc, test_sris, 0, 2);
  tcase_add_test (tc, test_skp_deferred_not_back_to_back);
  tcase_add_test (tc, test_flit_gen6_stream);
  tcase_add_loop_test (tc, test_flit_vs_nonflit, 0, G_N_ELEMENTS (flit_cmp_cases));
  tcase_add_loop_test (tc, test_flit_packing, 0, G_N_ELEMENTS (flit_pack_cases));
  tcase_add_test (tc, test_flit_nop_align);
  tcase_add_loop_test (tc, test_flit_window, 0, G_N_ELEMENTS (flit_window_cases));
  tcase_add_loop_test (tc, test_flit_replay, 0, 2);
  tcase_add_test (tc, test_flit_replay_skips_idle);
  tcase_add_loop_test (tc, test_error_one_lcrc, 0, 2);
  tcase_add_loop_test (tc, test_error_lost_ack, 0, G_N_ELEMENTS (lost_ack_cases));
  tcase_add_loop_test (tc, test_error_free_ber_costs_nothing, 0, G_N_ELEMENTS (error_free_cases));
  tcase_add_loop_test (tc, test_replay_timer_ack_at_pins, 0, 2);
  tcase_add_loop_test (tc, test_error_retrain, 0, 2);
  tcase_add_loop_test (tc, test_error_framing_nak, 0, 2);
  tcase_add_test (tc, test_error_ber_sweep);
  tcase_add_test (tc, test_error_8b10b);
  tcase_add_loop_test (tc, test_error_flit_fec, 0, G_N_ELEMENTS (flit_fec_gens));
  tcase_add_loop_test (tc, test_updatefc_latency, 0, 3);
  tcase_add_loop_test (tc, test_slow_consumer, 0, 2);
  tcase_add_test (tc, test_read_stream);
  tcase_add_test (tc, test_invariants);
  tcase_add_test (tc, test_tx_full);
  suite_add_tcase (s, tc);
  SRunner *r = srunner_create (s);
  /* CK_ENV so meson's CK_VERBOSITY=silent keeps stdout pure TAP. */
  srunner_run_all (r, CK_ENV);
  srunner_free (r);
  return 0;
}
