/* test-datapath.c — the endpoint's application datapath (datapath.c) over a real link, with scripted clients.
 *
 * Expected times are worked out from datapath.h's contract: a TLP holds the interface for avst_beats() beats (counts
 * from avst.h's rule, derived in test-avst.c), after arb_switch_cycles idle beats when the grant changes hands, and
 * is followed by tx_gap_cycles; the link gets it at the end of its last beat; every start is on a clock edge.
 * The links are chosen faster than the datapath (or the reverse, where the test says so), so that only the side
 * under test sets the pace. */
#include <check.h>
#include <math.h>

#include "models/devices/datapath.h"
#include "models/devices/avst.h"
#include "tests/common.h"

#define MAX_LOG 256

typedef struct Rig Rig;

/* A client with `left` identical TLPs to send. */
typedef struct {
  Rig *rig;
  guint id;
  TlpKind kind;
  gboolean addr64;
  uint64_t address;
  uint32_t payload;
  uint32_t left;
} Client;

struct Rig {
  SimEngine *engine;
  TlpPool *pool;
  Link *link;
  App *app;
  LinkPort *host;
  /* Transmit: which client each TLP came from and when the app handed it to the link. */
  guint n_sent;
  guint sent_by[MAX_LOG];
  SimTime sent_at[MAX_LOG];
  /* Host side: arrival times of what the app sent; MRds held (not consumed) while hold_reads. */
  guint n_arrived;
  SimTime arrived_at[MAX_LOG];
  gboolean hold_reads;
  TlpFifo held;
  /* Receive: when the app's handler saw each TLP the host sent. */
  guint n_seen;
  SimTime seen_at[MAX_LOG];
};

static gboolean
client_peek (void *ctx, Tlp *probe)
{
  Client *c = ctx;
  if (c->left == 0)
    return FALSE;
  *probe = (Tlp) { 0 }; /* a peek describes every field (AppTxClient) */
  tlp_set (probe, c->kind, c->addr64, c->address, c->payload);
  return TRUE;
}

static Tlp *
client_take (void *ctx, const Tlp *probe G_GNUC_UNUSED)
{
  Client *c = ctx;
  Tlp *t = tlp_alloc (c->rig->pool);
  tlp_set (t, c->kind, c->addr64, c->address, c->payload);
  c->left--;
  return t;
}

static void
client_sent (void *ctx, const Tlp *tlp)
{
  Client *c = ctx;
  Rig *r = c->rig;
  ck_assert_uint_lt (r->n_sent, MAX_LOG);
  r->sent_by[r->n_sent] = c->id;
  r->sent_at[r->n_sent++] = sim_now (r->engine);
}

static const AppTxClient client_ops = { .peek = client_peek, .take = client_take, .sent = client_sent };

static void
host_rx (void *ctx, LinkPort *port, Tlp *t)
{
  Rig *r = ctx;
  if (r->n_arrived < MAX_LOG)
    r->arrived_at[r->n_arrived++] = sim_now (r->engine);
  if (t->kind == TLP_MRD && r->hold_reads) {
    tlp_fifo_push (&r->held, t); /* stays in the root port's buffer, holding its NP credit */
    return;
  }
  link_port_consume (port, t);
  tlp_free (r->pool, t);
}

static void
release_reads (SimEngine *e, void *ctx, uint64_t arg)
{
  Rig *r = ctx;
  r->hold_reads = FALSE;
  for (Tlp *t; (t = tlp_fifo_pop (&r->held)) != NULL;) {
    link_port_consume (r->host, t);
    tlp_free (r->pool, t);
  }
}

static void
app_rx (void *ctx, const Tlp *tlp)
{
  Rig *r = ctx;
  ck_assert_uint_lt (r->n_seen, MAX_LOG);
  r->seen_at[r->n_seen++] = sim_now (r->engine);
}

/* Pipelines and flight of 55 ns in all, as in test-link.c, and the spec's 30 us UpdateFC refresh; credits, queue
 * and replay buffer unlimited unless a test sets them. */
static LinkParams
rig_link_params (int gen, int lanes)
{
  return (LinkParams) { .gen = gen, .lanes = lanes, .max_payload_bytes = 256, .tx_pipeline_ps = 20 * SIM_NS,
                        .rx_pipeline_ps = 30 * SIM_NS, .flight_ps = 5 * SIM_NS, .updatefc_period_ps = 30 * SIM_US };
}

static void
rig_init (Rig *r, const LinkParams *lp, const AppParams *ap)
{
  *r = (Rig) { 0 };
  g_autoptr (GError) e = NULL;
  ck_assert_msg (app_params_check (ap, &e), "%s", e ? e->message : "");
  r->engine = sim_engine_new (1);
  r->pool = tlp_pool_new ();
  r->link = link_new (r->engine, lp, r->pool);
  LinkPort *dev = link_port (r->link, LINK_USP);
  r->app = app_new (r->engine, ap, dev, r->pool);
  /* Alone on the port, the app takes its callbacks directly (in a fabric the endpoint passes them on). */
  link_port_set_rx (dev, app_link_rx, r->app);
  link_port_set_tx_ready (dev, app_link_tx_ready, r->app);
  r->host = link_port (r->link, LINK_DSP);
  link_port_set_rx (r->host, host_rx, r);
  app_set_rx (r->app, app_rx, r);
}

static void
rig_finish (Rig *r)
{
  ck_assert (app_idle (r->app));
  g_autoptr (GError) e = NULL;
  ck_assert_msg (link_check_invariants (r->link, &e), "%s", e ? e->message : "");
  app_free (r->app);
  link_free (r->link);
  ck_assert_uint_eq (tlp_pool_live (r->pool), 0);
  tlp_pool_free (r->pool);
  sim_engine_free (r->engine);
}

/* ---- parameters ---- */

START_TEST (test_params)
{
  static const uint32_t widths[] = { 32, 64, 96, 128, 256, 512, 1024, 2048 };
  for (guint i = 0; i < G_N_ELEMENTS (widths); i++) {
    AppParams p = { .width_bits = widths[i], .clock_mhz = 250 };
    g_autoptr (GError) e = NULL;
    gboolean want = widths[i] == 64 || widths[i] == 128 || widths[i] == 256 || widths[i] == 512
                    || widths[i] == 1024;
    ck_assert_msg (app_params_check (&p, &e) == want, "width %u", widths[i]);
    ck_assert (want || e != NULL);
  }
  /* Straddle needs at least two 256-bit segments a beat. */
  for (guint i = 0; i < G_N_ELEMENTS (widths); i++) {
    AppParams p = { .width_bits = widths[i], .clock_mhz = 250, .straddle = TRUE };
    g_autoptr (GError) e = NULL;
    ck_assert_msg (app_params_check (&p, &e) == (widths[i] == 512 || widths[i] == 1024), "straddle %u", widths[i]);
  }
  static const double clocks[] = { 0, -125, NAN, 2000.5 };
  for (guint i = 0; i < G_N_ELEMENTS (clocks); i++) {
    AppParams p = { .width_bits = 128, .clock_mhz = clocks[i] };
    g_autoptr (GError) e = NULL;
    ck_assert_msg (!app_params_check (&p, &e), "clock %g accepted", clocks[i]);
  }
}
END_TEST

/* One period in whole picoseconds, rounded to the nearest: 1e6 / MHz. */
static const struct {
  double mhz;
  SimTime ps;
} clock_cases[] = {
  { 250, 4000 }, { 125, 8000 }, { 62.5, 16000 }, { 156.25, 6400 }, { 300, 3333 }, { 2000, 500 },
};

START_TEST (test_cycle)
{
  Rig r;
  LinkParams lp = rig_link_params (2, 8);
  AppParams ap = { .width_bits = 128, .clock_mhz = clock_cases[_i].mhz };
  rig_init (&r, &lp, &ap);
  ck_assert_msg (app_cycle_ps (r.app) == clock_cases[_i].ps, "%g MHz: %" G_GUINT64_FORMAT " ps", clock_cases[_i].mhz,
                 app_cycle_ps (r.app));
  rig_finish (&r);
}
END_TEST

/* ---- transmit: one client, the datapath sets the pace ---- */

typedef struct {
  const char *id;
  uint32_t width;
  gboolean own, addr64;
  uint64_t address;
  uint32_t payload, gap;
  double mhz;
  uint32_t beats; /* by hand, from test-avst.c's derivations; with straddle, 256-bit segments */
  double mbps; /* payload / ((beats + gap) x period) */
  gboolean straddle;
} TxCase;

static const TxCase tx_cases[] = {
  /* 128 bits at 250 MHz, 256-byte 3-DW MWr: 17 beats + 1 gap = 18 x 4 ns = 72 ns: 256 / 72 = 3555.56 MB/s. */
  { "128b 256B", 128, FALSE, FALSE, 0x10000, 256, 1, 250, 17, 256.0 / 72e-3, FALSE },
  /* 64 bits at 125 MHz, 4-DW header, odd address: ceil(69 / 2) = 35 beats x 8 ns = 280 ns: 914.29 MB/s. */
  { "64b 4DW odd", 64, FALSE, TRUE, 0x100000004, 256, 0, 125, 35, 256.0 / 280e-3, FALSE },
  /* 512 bits at 250 MHz: 256 bytes take 68 of 80 slots, 5 beats = 20 ns: 12800 MB/s. */
  { "512b 256B", 512, FALSE, FALSE, 0x10000, 256, 0, 250, 5, 12800, FALSE },
  /* 240 bytes after a 3-DW header fill exactly 4 beats = 16 ns: 15000 MB/s, more than 256-byte TLPs give. */
  { "512b 240B", 512, FALSE, FALSE, 0x10000, 240, 0, 250, 4, 15000, FALSE },
  /* The same 240 bytes after a 4-DW header at an odd address need 65 slots, a 5th beat: 12000 MB/s. */
  { "512b 240B 4DW odd", 512, FALSE, TRUE, 0x100000004, 240, 0, 250, 5, 12000, FALSE },
  /* Header on its own beat: 1 + 256 / 64 = 5 beats, plus a 1-beat gap, at 500 MHz = 12 ns: 21333.33 MB/s. */
  { "512b own beat", 512, TRUE, FALSE, 0x10000, 256, 1, 500, 5, 256.0 / 12e-3, FALSE },
  /* Issue #12 item 8, straddle: TLPs start on any 256-bit (8-DW) segment, 2 ns at 512 bits and 250 MHz. 256 bytes
   * after a 3-DW header take 68 slots = 9 segments = 18 ns (the next TLP starts in the last beat's upper half):
   * 14222.22 MB/s against 12800 in whole beats. */
  { "512b straddle 256B", 512, FALSE, FALSE, 0x10000, 256, 0, 250, 9, 256.0 / 18e-3, TRUE },
  /* 240 bytes fill 64 slots, 8 segments = 4 whole beats: straddle gains nothing, 15000 MB/s. */
  { "512b straddle 240B", 512, FALSE, FALSE, 0x10000, 240, 0, 250, 8, 15000, TRUE },
  /* 4-DW header, odd address: 65 slots, 9 segments = 18 ns: 13333.33 MB/s, where whole beats give 12000. */
  { "512b straddle 4DW odd", 512, FALSE, TRUE, 0x100000004, 240, 0, 250, 9, 240.0 / 18e-3, TRUE },
  /* 1024 bits at 250 MHz: whole beats of 32 DW, ceil(68 / 32) = 3 = 12 ns, 21333.33 MB/s; with straddle four
   * 1-ns segments a beat, 9 of them: 28444.44 MB/s. */
  { "1024b 256B", 1024, FALSE, FALSE, 0x10000, 256, 0, 250, 3, 256.0 / 12e-3, FALSE },
  { "1024b straddle 256B", 1024, FALSE, FALSE, 0x10000, 256, 0, 250, 9, 256.0 / 9e-3, TRUE },
};

#define TX_TLPS 100

START_TEST (test_tx_rate)
{
  const TxCase *c = &tx_cases[_i];
  /* Gen5 x16 moves a 276-byte TLP in 17.25 symbol times of 0.254 ns, 4.4 ns: faster than every case's datapath,
   * so only the datapath sets the pace. */
  LinkParams lp = rig_link_params (5, 16);
  AppParams ap = { .width_bits = c->width, .clock_mhz = c->mhz, .header_own_beat = c->own, .tx_gap_cycles = c->gap,
                   .straddle = c->straddle };
  Rig r;
  rig_init (&r, &lp, &ap);
  Client cl = { &r, 0, TLP_MWR, c->addr64, c->address, c->payload, TX_TLPS };
  app_add_client (r.app, &client_ops, &cl);
  app_kick (r.app);
  sim_run (r.engine);
  ck_assert_uint_eq (r.n_sent, TX_TLPS);
  /* A beat, or with straddle a 256-bit segment: the period over width / 256. */
  SimTime cycle = app_cycle_ps (r.app) / (c->straddle ? c->width / 256 : 1);
  ck_assert_uint_eq (app_unit_ps (r.app), cycle);
  /* The first arbitration is at time 0, an edge: the first TLP leaves after its beats, each next one a gap and
   * its beats later. */
  for (guint i = 0; i < TX_TLPS; i++) {
    SimTime want = (c->beats + (SimTime) i * (c->beats + c->gap)) * cycle;
    ck_assert_msg (r.sent_at[i] == want, "%s: TLP %u handed over at %" G_GUINT64_FORMAT " ps, want %"
                   G_GUINT64_FORMAT, c->id, i, r.sent_at[i], want);
  }
  ck_assert_uint_eq (app_tx_beats (r.app), (uint64_t) TX_TLPS * c->beats);
  ck_assert_uint_eq (app_tx_kind_beats (r.app, TLP_MWR), (uint64_t) TX_TLPS * c->beats);
  /* Throughput where it counts, at the host: the link only delays each TLP, by up to a symbol time of lane
   * alignment (0.254 ns over a window of ~99 TLP intervals). */
  ck_assert_uint_eq (r.n_arrived, TX_TLPS);
  double mbps = (TX_TLPS - 1) * (double) c->payload * 1e6 / (double) (r.arrived_at[TX_TLPS - 1] - r.arrived_at[0]);
  ck_assert_msg (fabs (mbps - c->mbps) < 1e-3 * c->mbps, "%s: %.2f MB/s at the host, want %.2f", c->id, mbps,
                 c->mbps);
  rig_finish (&r);
}
END_TEST

/* ---- arbitration between two always-ready clients ---- */

START_TEST (test_arbitration)
{
  gboolean rr = _i == 0;
  LinkParams lp = rig_link_params (5, 16);
  /* 128 bits at 250 MHz; 3 idle beats whenever the grant changes client. */
  AppParams ap = { .width_bits = 128, .clock_mhz = 250, .arbitration = rr ? APP_ARB_ROUND_ROBIN : APP_ARB_PRIORITY,
                   .arb_switch_cycles = 3 };
  Rig r;
  rig_init (&r, &lp, &ap);
  /* Client 0 writes 256 bytes (17 beats), client 1 reads (an MRd is its 3-DW header: 1 beat). */
  Client w = { &r, 0, TLP_MWR, FALSE, 0x10000, 256, 6 };
  Client rd = { &r, 1, TLP_MRD, FALSE, 0x20000, 512, 6 };
  app_add_client (r.app, &client_ops, &w);
  app_add_client (r.app, &client_ops, &rd);
  app_kick (r.app);
  sim_run (r.engine);
  ck_assert_uint_eq (r.n_sent, 12);
  /* Round robin alternates from client 0: every TLP after the first changes hands, 11 turnarounds of 3 beats.
   * Priority serves client 0 while it has work: one turnaround, at the 7th TLP. */
  for (guint i = 0; i < 12; i++) {
    guint want = rr ? i % 2 : i / 6;
    ck_assert_msg (r.sent_by[i] == want, "%s: TLP %u from client %u, want %u", rr ? "rr" : "priority", i,
                   r.sent_by[i], want);
  }
  uint64_t switches = rr ? 11 : 1;
  ck_assert_uint_eq (app_tx_switch_cycles (r.app), switches * 3);
  ck_assert_uint_eq (app_tx_kind_beats (r.app, TLP_MWR), 6 * 17);
  ck_assert_uint_eq (app_tx_kind_beats (r.app, TLP_MRD), 6 * 1);
  /* No gap: the last TLP leaves after every beat and every turnaround, 4 ns each. */
  ck_assert_uint_eq (r.sent_at[11], (6 * 17 + 6 * 1 + switches * 3) * 4000);
  rig_finish (&r);
}
END_TEST

/* ---- a client blocked on credits is skipped, not waited for ---- */

START_TEST (test_skip_blocked)
{
  /* The root port advertises 2 NP header credits and keeps the MRds it gets until 5 us. Priority favours
   * client 0 (reads): its first two MRds go, the third has no credit, and client 1's five writes must pass it
   * rather than wait behind it. Once the host frees the reads (an UpdateFC under the §2.6.1.2 rule: the type was
   * exhausted) the remaining three reads go. */
  LinkParams lp = rig_link_params (5, 16);
  lp.rx_credits[LINK_DSP].nph = 2;
  AppParams ap = { .width_bits = 128, .clock_mhz = 250, .arbitration = APP_ARB_PRIORITY };
  Rig r;
  rig_init (&r, &lp, &ap);
  r.hold_reads = TRUE;
  Client rd = { &r, 0, TLP_MRD, FALSE, 0x20000, 512, 5 };
  Client w = { &r, 1, TLP_MWR, FALSE, 0x10000, 256, 5 };
  app_add_client (r.app, &client_ops, &rd);
  app_add_client (r.app, &client_ops, &w);
  sim_schedule_at (r.engine, 5 * SIM_US, release_reads, &r, 0);
  app_kick (r.app);
  sim_run (r.engine);
  ck_assert_uint_eq (r.n_sent, 10);
  static const guint want[] = { 0, 0, 1, 1, 1, 1, 1, 0, 0, 0 };
  for (guint i = 0; i < 10; i++)
    ck_assert_msg (r.sent_by[i] == want[i], "TLP %u from client %u, want %u", i, r.sent_by[i], want[i]);
  /* The writes did not wait for the reads' release; the last reads could not go before it. */
  ck_assert_uint_lt (r.sent_at[6], 5 * SIM_US);
  ck_assert_uint_gt (r.sent_at[7], 5 * SIM_US);
  rig_finish (&r);
}
END_TEST

/* ---- receive: one TLP at a time, beats plus overhead, from the next edge ---- */

/* The host sends n 256-byte CplDs at once, in address order; the run goes until the app has taken them all. */
static void
receive_cpls (Rig *r, guint n)
{
  for (guint i = 0; i < n; i++) {
    Tlp *t = tlp_alloc (r->pool);
    tlp_set (t, TLP_CPLD, FALSE, 0x1000 + 256 * (uint64_t) i, 256);
    ck_assert (link_port_can_send (r->host, t));
    link_port_send (r->host, t);
  }
  sim_run (r->engine);
  ck_assert_uint_eq (r->n_seen, n);
}

START_TEST (test_rx)
{
  /* Gen2 x8 (2 ns symbol times, 8 bytes each): a 256-byte CplD is 12 header + 8 framing + 256 = 276 bytes. The
   * first ends in symbol 34.5, so the app has it at 35 x 2 ns + 55 ns of pipelines and flight = 125 ns; the
   * next ones follow every 69 ns (back to back, starting in lane 4). 128 bits at 250 MHz with 2 cycles of
   * overhead take 17 + 2 = 19 beats = 76 ns each, slower than the link, so the datapath sets the pace: the first
   * starts at the next edge, 128 ns, and is seen at 128 + 76 = 204 ns, the k-th 76 ns after the one before. */
  LinkParams lp = rig_link_params (2, 8);
  AppParams ap = { .width_bits = 128, .clock_mhz = 250, .rx_overhead_cycles = 2 };
  Rig r;
  rig_init (&r, &lp, &ap);
  const guint n = 20;
  receive_cpls (&r, n);
  for (guint i = 0; i < n; i++) {
    SimTime want = (204 + 76 * (SimTime) i) * SIM_NS;
    ck_assert_msg (r.seen_at[i] == want, "CplD %u seen at %" G_GUINT64_FORMAT " ps, want %" G_GUINT64_FORMAT, i,
                   r.seen_at[i], want);
  }
  ck_assert_uint_eq (app_rx_beats (r.app), n * 19);
  rig_finish (&r);
}
END_TEST

/* Receive with straddle (issue #12 item 8): a Gen5 x16 link delivers a 256-byte CplD every 17.25 symbol times of
 * 0.254 ns, 4.4 ns, faster than a 512-bit 250 MHz interface takes it in, so the datapath sets the pace. Whole
 * beats: 5 (68 of 80 DW slots) + 2 overhead cycles = 7 x 4 ns = 28 ns per CplD. Straddled: 9 segments of 2 ns
 * + the same 2 cycles (4 segments) = 26 ns. */
START_TEST (test_rx_straddle)
{
  LinkParams lp = rig_link_params (5, 16);
  AppParams ap = { .width_bits = 512, .clock_mhz = 250, .rx_overhead_cycles = 2, .straddle = _i == 1 };
  Rig r;
  rig_init (&r, &lp, &ap);
  const guint n = 20;
  receive_cpls (&r, n);
  SimTime per = (_i ? 26 : 28) * SIM_NS;
  for (guint i = 1; i < n; i++)
    ck_assert_msg (r.seen_at[i] - r.seen_at[i - 1] == per, "straddle %d: CplD %u %" G_GUINT64_FORMAT " ps after the "
                   "one before, want %" G_GUINT64_FORMAT, _i, i, r.seen_at[i] - r.seen_at[i - 1], per);
  rig_finish (&r);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("app");
  TCase *tc = tcase_create ("app");
  tcase_add_test (tc, test_params);
  tcase_add_loop_test (tc, test_cycle, 0, G_N_ELEMENTS (clock_cases));
  tcase_add_loop_test (tc, test_tx_rate, 0, G_N_ELEMENTS (tx_cases));
  tcase_add_loop_test (tc, test_arbitration, 0, 2);
  tcase_add_test (tc, test_skip_blocked);
  tcase_add_test (tc, test_rx);
  tcase_add_loop_test (tc, test_rx_straddle, 0, 2);
  suite_add_tcase (s, tc);
    return run_suite (s);
}
