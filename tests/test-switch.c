/* test-switch.c — the switch (switch.h) and flows across it (flow.h), with every expected figure derived by hand
 * from the links' and datapaths' parameters:
 * - one TLP's one-way latency through a chain of k switches, cut-through and store-and-forward, to the picosecond;
 * - a flow's latency figures over many TLPs (p50 and p99 from a histogram), and its heap not growing with its length;
 * - a shared upstream link split equally by round robin (2..8 flows, each within 1% of the mean) and by weight
 *   with weighted round robin; flows at full speed while their sum fits;
 * - tiny switch buffers throttling by credits, and the deadlock watchdog naming the port and the credit type;
 * - several endpoints reading host memory through switches (integrity, tags shared across requesters);
 * - peer-to-peer reads and writes through switches, by flows and by the chaining DMA;
 * - twenty flows on two endpoints (more transmit clients than a DMA engine has). */
#include <check.h>
#include <math.h>
#include <string.h>

#include "models/workloads/flow.h"
#include "models/fabric/switch.h"
#include "models/workloads/system.h"
#include "tests/common.h"

/* Gen2 x4 everywhere: a symbol time is 2 ns on every lane (5 GT/s, 8b/10b). Pipelines and flight are multiples of
 * 2 ns, so every TLP starts on a symbol boundary and the sums below are exact. */
#define SYM_PS 2000u
#define TX_PIPE_PS (100 * SIM_NS)
#define RX_PIPE_PS (100 * SIM_NS)
#define FLIGHT_PS (10 * SIM_NS)
#define LATENCY_PS (150 * SIM_NS)

static LinkParams
link_g2 (int lanes)
{
  return (LinkParams) {
    .gen = 2, .lanes = lanes, .max_payload_bytes = 256,
    .tx_pipeline_ps = TX_PIPE_PS, .rx_pipeline_ps = RX_PIPE_PS, .flight_ps = FLIGHT_PS,
    .updatefc_period_ps = 20 * SIM_US,
    /* As hard IPs and switch ports do: a TLP or two ahead of the wire, so arbitration decides what goes next. */
    .tx_queue_tlps = 2,
    /* The root port's and the endpoints' receive buffers: generous, so only the switch's can bind. */
    .rx_credits = { [LINK_DSP] = { .ph = 128, .pd = 2048, .nph = 64, .npd = 64 },
                    [LINK_USP] = { .ph = 128, .pd = 2048, .nph = 64, .npd = 64 } },
  };
}

static SwitchParams
switch_base (uint32_t ports, SwitchForwarding fwd)
{
  return (SwitchParams) { .ports = ports, .forwarding = fwd, .latency_ps = LATENCY_PS,
                          .port_credits = { .ph = 64, .pd = 1024, .nph = 64, .npd = 64, .cplh = 64, .cpld = 1024 } };
}

static HostParams
host_base (void)
{
  return (HostParams) { .rcb_bytes = 64, .cpl_policy = CPL_POLICY_MPS, .read_latency_ns = 500 };
}

/* The Virtex-7 integrated block's 64-bit interface at 250 MHz (published-calibration.md §2.3): a 256-byte MWr with a
 * 3-DW header at a qword-aligned address takes ceil ((4 + 64) / 2) = 34 beats of 4 ns each way (avst.h). */
#define BEAT_PS 4000u
#define MWR256_BEATS 34u

static EndpointParams
endpoint_base (void)
{
  return (EndpointParams) {
    .app = { .width_bits = 64, .clock_mhz = 250, .arbitration = APP_ARB_ROUND_ROBIN },
    .bars = { { .size_bytes = 16 << 20 } },
    .rcb_bytes = 128,
  };
}

/* A fabric: host with one root port, a chain of `depth` switches below it, `n` endpoints. Endpoint k hangs below
 * switch place[k] (1-based; 0 = directly on a root port, the host then getting one more port per such endpoint). */
typedef struct {
  Fabric *f;
  Host *host;
  Switch *sw[8];
  Endpoint *ep[16];
  guint n;
} Rig;

static void
connect (Rig *r, Component *dsp, uint32_t dp, Component *usp, uint32_t up, Switch *sd, Switch *su, int lanes)
{
  LinkParams lp = link_g2 (lanes);
  if (sd)
    switch_link_params (sd, &lp, LINK_DSP);
  if (su)
    switch_link_params (su, &lp, LINK_USP);
  g_autoptr (GError) e = NULL;
  ck_assert_msg (fabric_connect (r->f, dsp, dp, usp, up, &lp, &e) != NULL, "%s", e ? e->message : "");
}

/* Chain: host - sw1 - sw2 - ... - sw_depth. Every switch has port 1 for the next switch and ports 2.. for
 * endpoints. `uplink_lanes` is the width of the host-sw1 link; every other link is x4. */
static void
rig_build (Rig *r, guint depth, const SwitchParams *sp, guint n, const guint *place, int uplink_lanes)
{
  *r = (Rig) { .n = n };
  r->f = fabric_new (1);
  HostParams hp = host_base ();
  guint on_root = 0;
  for (guint k = 0; k < n; k++)
    on_root += place[k] == 0;
  r->host = host_new (r->f, "host", &hp, 1 + on_root);
  char name[16];
  for (guint s = 0; s < depth; s++) {
    g_snprintf (name, sizeof name, "sw%u", s + 1);
    r->sw[s] = switch_new (r->f, name, sp);
  }
  EndpointParams ep = endpoint_base ();
  for (guint k = 0; k < n; k++) {
    g_snprintf (name, sizeof name, "ep%u", k);
    r->ep[k] = endpoint_new (r->f, name, &ep);
  }
  if (depth > 0)
    connect (r, host_component (r->host), 0, switch_component (r->sw[0]), 0, NULL, r->sw[0], uplink_lanes);
  for (guint s = 1; s < depth; s++)
    connect (r, switch_component (r->sw[s - 1]), 1, switch_component (r->sw[s]), 0, r->sw[s - 1], r->sw[s], 4);
  guint next_port[8] = { 0 }, next_root = depth > 0 ? 1 : 0;
  for (guint k = 0; k < n; k++) {
    if (place[k] == 0) {
      connect (r, host_component (r->host), next_root++, endpoint_component (r->ep[k]), 0, NULL, NULL, 4);
      continue;
    }
    guint s = place[k] - 1;
    connect (r, switch_component (r->sw[s]), 2 + next_port[s]++, endpoint_component (r->ep[k]), 0, r->sw[s], NULL,
             4);
  }
  g_autoptr (GError) e = NULL;
  ck_assert_msg (fabric_enumerate (r->f, &e), "%s", e ? e->message : "");
}

static FlowSpec
flow (Rig *r, guint src, int dst, FlowOp op, uint64_t bytes, uint32_t iterations)
{
  /* A spec may name an endpoint the rig did not build (a run of fewer flows than specs): no component then. */
  return (FlowSpec) { .name = "f", .source = r->ep[src] ? endpoint_component (r->ep[src]) : NULL,
                      .target = dst < 0 ? NULL : endpoint_component (r->ep[dst]), .op = op, .bytes = bytes,
                      .iterations = iterations, .max_read_request_bytes = 512, .tags = 32 };
}

static gboolean
rig_run (Rig *r, const FlowSpec *fs, guint n, FlowResult *out, GError **error)
{
  g_autofree FlowLinkResult *links = g_new0 (FlowLinkResult, fabric_n_links (r->f));
  FlowRunStats st;
  return flows_run (r->f, r->host, fs, n, 0, out, links, &st, error);
}

/* --- latency through k switches -------------------------------------------------------------------------- */

/* One 256-byte MWr from ep0 (below sw1) to ep1 (below sw_k), nothing else on the fabric. By hand, from the moment
 * it enters ep0's transmit interface:
 *   34 beats (136 ns) on ep0's interface, then the link takes it on a symbol boundary;
 *   a 256-byte MWr is 256 + 12 + 8 = 276 bytes on the wire (pcie-protocol.md §2): 69 symbol times (138 ns) on x4;
 *   its header is in after STP, sequence number and 12 header bytes: 15 bytes, 4 symbol times (8 ns);
 *   each hop costs the sender's transmit pipeline (ep0's 100 ns, a switch port's 0), the flight (10 ns) and the
 *   receiver's pipeline (a switch port's: its 150 ns latency; ep1's 100 ns);
 *   cut-through, each switch sends on as soon as the header is in: k x (8 ns + pipeline + 10 + 150);
 *   store-and-forward it waits for the whole TLP: k x (138 + pipeline + 10 + 150);
 *   the last hop: 138 + 0 + 10 + 100 ns, then ep1's receive interface starts on its next 4 ns clock edge and takes
 *   34 beats before the memory target has the TLP. */
static SimTime
hand_latency (guint k, gboolean cut_through)
{
  SimTime tx = MWR256_BEATS * BEAT_PS, ser = 69 * SYM_PS, hdr = 4 * SYM_PS;
  SimTime t = tx;
  for (guint i = 0; i < k; i++)
    t += (cut_through ? hdr : ser) + (i == 0 ? TX_PIPE_PS : 0) + FLIGHT_PS + LATENCY_PS;
  t += ser + FLIGHT_PS + RX_PIPE_PS;
  t = (t + BEAT_PS - 1) / BEAT_PS * BEAT_PS;
  return t + MWR256_BEATS * BEAT_PS;
}

/* One 256-byte write from the first endpoint to the second through a chain of k switches whose ports' data link
 * layer takes `dll_ps` of their latency: its flow result. */
static FlowResult
one_write_through_dll (guint k, gboolean cut, SimTime dll_ps)
{
  SwitchParams sp = switch_base (4, cut ? SWITCH_CUT_THROUGH : SWITCH_STORE_AND_FORWARD);
  sp.dll_latency_ps = dll_ps;
  Rig r;
  rig_build (&r, k, &sp, 2, (guint[]) { 1, k }, 4);
  FlowSpec fs = flow (&r, 0, 1, FLOW_WRITE, 256, 1);
  FlowResult out;
  g_autoptr (GError) e = NULL;
  ck_assert_msg (rig_run (&r, &fs, 1, &out, &e), "%s", e ? e->message : "");
  fabric_free (r.f);
  return out;
}

static FlowResult
one_write_through (guint k, gboolean cut)
{
  return one_write_through_dll (k, cut, 0);
}

/* Cases 8-15 give the switch ports a 50 ns data link layer latency (issue #39): it is a part of the 150 ns port to
 * port, the link's receive pipeline, and the switch holds the TLP the other 100 ns, so the hand sum is the same. */
START_TEST (test_latency_through_switches)
{
  guint k = 1 + (guint) _i % 4;
  gboolean cut = _i % 8 < 4;
  SimTime dll = _i >= 8 ? 50 * SIM_NS : 0;
  FlowResult out = one_write_through_dll (k, cut, dll);
  SimTime want = hand_latency (k, cut);
  ck_assert_msg (llround (out.first_tlp_ns * 1000) == (long long) want, "%u switches, %s, DLL %" G_GUINT64_FORMAT
                 " ps: %.3f ns, by hand %.3f ns", k, cut ? "cut-through" : "store-and-forward", dll, out.first_tlp_ns,
                 want / 1000.0);
  ck_assert_uint_eq (out.tlps, 1);
}
END_TEST

/* A cut-through switch between a slow ingress and a fast egress (issue #39): the TLP's last byte cannot leave
 * before it came in. ep0 on an x1 link, ep1 on an x4 link below one switch (Gen2, 2 ns symbols), one 256-byte
 * MWr from ep0 to ep1. By hand: 34 beats (136 ns) on ep0's interface; 276 symbol times (552 ns) on the x1 wire,
 * the header in after 15 (30 ns); ep0's 100 ns transmit pipeline and 10 ns of flight: the header at the switch's
 * pins at 276 ns, the tail at 798 ns. On x4 the TLP takes 69 symbol times (138 ns), so forwarding at the header
 * (276 + 150 ns) would end it at 564 ns, before its tail arrived; it starts instead so that it ends one switch
 * latency after the tail: 798 + 150 = 948 ns, then 10 ns of flight and ep1's 100 ns pipeline (1058 ns), its
 * interface's next 4 ns edge (1060 ns) and 34 beats: 1196 ns. With a 50 ns DLL latency, the same. */
START_TEST (test_cut_through_slow_to_fast)
{
  SwitchParams sp = switch_base (4, SWITCH_CUT_THROUGH);
  sp.dll_latency_ps = _i ? 50 * SIM_NS : 0;
  Rig r = { .n = 2 };
  r.f = fabric_new (1);
  HostParams hp = host_base ();
  r.host = host_new (r.f, "host", &hp, 1);
  r.sw[0] = switch_new (r.f, "sw1", &sp);
  EndpointParams ep = endpoint_base ();
  r.ep[0] = endpoint_new (r.f, "ep0", &ep);
  r.ep[1] = endpoint_new (r.f, "ep1", &ep);
  connect (&r, host_component (r.host), 0, switch_component (r.sw[0]), 0, NULL, r.sw[0], 4);
  connect (&r, switch_component (r.sw[0]), 1, endpoint_component (r.ep[0]), 0, r.sw[0], NULL, 1);
  connect (&r, switch_component (r.sw[0]), 2, endpoint_component (r.ep[1]), 0, r.sw[0], NULL, 4);
  g_autoptr (GError) e = NULL;
  ck_assert_msg (fabric_enumerate (r.f, &e), "%s", e ? e->message : "");
  FlowSpec fs = flow (&r, 0, 1, FLOW_WRITE, 256, 1);
  FlowResult out;
  ck_assert_msg (rig_run (&r, &fs, 1, &out, &e), "%s", e ? e->message : "");
  fabric_free (r.f);
  SimTime in = MWR256_BEATS * BEAT_PS + TX_PIPE_PS + FLIGHT_PS, tail = in + 276 * SYM_PS;
  SimTime out_end = MAX (in + 15 * SYM_PS + LATENCY_PS + 69 * SYM_PS, tail + LATENCY_PS);
  SimTime want = (out_end + FLIGHT_PS + RX_PIPE_PS + BEAT_PS - 1) / BEAT_PS * BEAT_PS + MWR256_BEATS * BEAT_PS;
  ck_assert_msg (llround (out.first_tlp_ns * 1000) == (long long) want, "DLL %d: %.3f ns, by hand %.3f ns", _i,
                 out.first_tlp_ns, want / 1000.0);
}
END_TEST

/* Store-and-forward costs, per switch, the TLP's serialisation minus its header's: (69 - 4) symbol times, seen here
 * without the hand sum: measured on one and on three switches. */
START_TEST (test_store_and_forward_adds_serialisation)
{
  double d1, d3;
  SimTime lat[2][2];
  for (int cut = 0; cut < 2; cut++)
    for (int i = 0; i < 2; i++) {
      FlowResult out = one_write_through (i == 0 ? 1 : 3, cut);
      lat[cut][i] = (SimTime) llround (out.first_tlp_ns * 1000);
    }
  /* From one switch to three, the difference between the two modes grows by two TLP-minus-header times, up to the
   * receive clock's 4 ns edge. */
  d1 = (double) (lat[0][0] - lat[1][0]);
  d3 = (double) (lat[0][1] - lat[1][1]);
  ck_assert_msg (fabs (d3 - d1 - 2.0 * (69 - 4) * SYM_PS) <= BEAT_PS, "1 switch: +%.0f ps, 3 switches: +%.0f ps", d1,
                 d3);
}
END_TEST

/* --- the latency figures of many TLPs, and what they cost ----------------------------------------------------- */

/* A write flow through one cut-through switch, capped at 250 MB/s: a 256-byte MWr every 1024 ns, a whole number of
 * the 4 ns interface clock and of the 2 ns symbol time, where one takes 136 ns on the interface and 138 ns on the
 * wire, so each TLP finds the fabric as the first did, L = hand_latency (1, TRUE) = 788 ns, unless it finds a DLLP
 * on the wire (fewer than 1% of the TLPs do, else p99 would be above). So, at any length: first_tlp is L exactly,
 * mean and max no less; p50 and p99 are L's histogram bucket (stall.h: 128 buckets per octave), read as its
 * middle clamped to [L, max]. By hand: L lies in [2^19, 2^20) ps, whose buckets are 2^19 / 128 = 4096 ps wide; L's is
 * [192 x 4096, 193 x 4096) = [786.432, 790.528) ns, its middle 788.480 ns (0.06% above L; exact percentiles
 * would say 788 ns). */
START_TEST (test_uniform_stream_latency)
{
  const uint64_t bytes[] = { 64 << 10, 1 << 20 };
  SimTime want = hand_latency (1, TRUE), width = (SimTime) 1 << (19 - 7);
  ck_assert_uint_eq (want >> 19, 1);
  double mid_ns = ((double) (want / width * width) + width / 2.0) / 1000.0;
  for (guint i = 0; i < G_N_ELEMENTS (bytes); i++) {
    SwitchParams sp = switch_base (4, SWITCH_CUT_THROUGH);
    Rig r;
    rig_build (&r, 1, &sp, 2, (guint[]) { 1, 1 }, 4);
    FlowSpec fs = flow (&r, 0, 1, FLOW_WRITE, bytes[i], 1);
    fs.rate_mbps = 250;
    FlowResult out;
    g_autoptr (GError) e = NULL;
    ck_assert_msg (rig_run (&r, &fs, 1, &out, &e), "%s", e ? e->message : "");
    fabric_free (r.f);
    ck_assert_uint_eq (out.tlps, bytes[i] / 256);
    ck_assert_msg (llround (out.first_tlp_ns * 1000) == (long long) want && out.mean_ns * 1000 >= (double) want
                   && out.max_ns >= out.mean_ns, "%" G_GUINT64_FORMAT " bytes: first %.3f, mean %.3f, max %.3f ns; "
                   "by hand %.3f ns", bytes[i], out.first_tlp_ns, out.mean_ns, out.max_ns, want / 1000.0);
    double p = MIN (mid_ns, out.max_ns);
    ck_assert_msg (fabs (out.p50_ns - p) < 1e-6 && fabs (out.p99_ns - p) < 1e-6, "%" G_GUINT64_FORMAT " bytes: p50 "
                   "%.3f, p99 %.3f ns; by hand the middle of %.3f ns's bucket, %.3f ns, up to max %.3f ns", bytes[i],
                   out.p50_ns, out.p99_ns, want / 1000.0, mid_ns, out.max_ns);
  }
}
END_TEST

/* A read flow's round trip (flow.h, issue #25): one 64-byte read of host memory by an endpoint on a root port, nothing
 * else on the fabric. By hand, from the MRd's entry into ep0's transmit interface:
 *   the MRd (3-DW header, no data) takes ceil (3 / 2) = 2 beats (8 ns) of ep0's 64-bit interface (avst.h);
 *   ep0's transmit pipeline (100 ns); on the wire 12 header + 8 framing bytes (pcie-protocol.md §2) = 20 bytes, 5
 *   symbol times on x4 (10 ns); the flight (10 ns) and the root port's receive pipeline (100 ns): in at 228 ns,
 *   which is also the one-way figure (host memory's receive);
 *   the host's read latency (500 ns): the data is ready at 728 ns;
 *   one CplD of 64 bytes (MPS completions): the root port's transmit pipeline (100 ns), 12 + 64 + 8 = 84 bytes on
 *   the wire (21 symbol times, 42 ns), the flight (10 ns), ep0's receive pipeline (100 ns): in at 980 ns, on a
 *   4 ns clock edge;
 *   ep0's receive interface: the buffer is 4 KB aligned, so the completion's lower address is qword aligned and
 *   its data starts in DW slot 4: ceil ((4 + 16) / 2) = 10 beats (40 ns). The round trip is 1020 ns. */
static SimTime
read_round_trip_ps (void)
{
  const SimTime one_way = 2 * BEAT_PS + TX_PIPE_PS + 5 * SYM_PS + FLIGHT_PS + RX_PIPE_PS;
  return one_way + 500 * SIM_NS + TX_PIPE_PS + 21 * SYM_PS + FLIGHT_PS + RX_PIPE_PS + 10 * BEAT_PS;
}

START_TEST (test_read_round_trip)
{
  SwitchParams sp = switch_base (4, SWITCH_CUT_THROUGH);
  Rig r;
  rig_build (&r, 0, &sp, 1, (guint[]) { 0 }, 4);
  FlowSpec fs = flow (&r, 0, -1, FLOW_READ, 64, 1);
  FlowResult out;
  g_autoptr (GError) e = NULL;
  ck_assert_msg (rig_run (&r, &fs, 1, &out, &e), "%s", e ? e->message : "");
  fabric_free (r.f);
  const SimTime one_way = 2 * BEAT_PS + TX_PIPE_PS + 5 * SYM_PS + FLIGHT_PS + RX_PIPE_PS;
  const SimTime want = read_round_trip_ps ();
  ck_assert_msg (llround (out.first_tlp_ns * 1000) == (long long) one_way, "one way %.3f ns, by hand %.3f ns",
                 out.first_tlp_ns, one_way / 1000.0);
  ck_assert_uint_eq (out.read_latency.count, 1);
  ck_assert_msg (llround (out.read_latency.max_ns * 1000) == (long long) want
                 && llround (out.read_latency.mean_ns * 1000) == (long long) want, "round trip: mean %.3f, max %.3f "
                 "ns; by hand %.3f ns", out.read_latency.mean_ns, out.read_latency.max_ns, want / 1000.0);
}
END_TEST

/* A flow's source is any kind that declares a requests face (fabric.h), not the endpoint by identity: the
 * endpoint's kind copied under another name sources the read above with the round trip worked out there, and the
 * same copy without the face is refused before anything runs (MODEL_ERROR_PARAM, naming the kind). */
START_TEST (test_source_by_declared_face)
{
  SwitchParams sp = switch_base (4, SWITCH_CUT_THROUGH);
  for (int face = 1; face >= 0; face--) {
    Rig r;
    rig_build (&r, 0, &sp, 1, (guint[]) { 0 }, 4);
    Component *c = endpoint_component (r.ep[0]);
    ComponentKind other = *c->kind;
    other.name = "other kind";
    if (!face)
      other.requests = NULL;
    c->kind = &other;
    FlowSpec fs = flow (&r, 0, -1, FLOW_READ, 64, 1);
    FlowResult out;
    g_autoptr (GError) e = NULL;
    gboolean ok = rig_run (&r, &fs, 1, &out, &e);
    fabric_free (r.f);
    if (face) {
      ck_assert_msg (ok, "%s", e ? e->message : "");
      ck_assert_msg (llround (out.read_latency.max_ns * 1000) == (long long) read_round_trip_ps (),
                     "round trip %.3f ns, by hand %.3f ns", out.read_latency.max_ns, read_round_trip_ps () / 1000.0);
    } else {
      ck_assert (!ok);
      ck_assert_msg (g_error_matches (e, MODEL_ERROR, MODEL_ERROR_PARAM) && strstr (e->message, "other kind"), "%s",
                     e->message);
    }
  }
}
END_TEST

/* Many reads: every request has a round trip, and each is at least the idle one above (a queue only adds). */
START_TEST (test_read_round_trips_counted)
{
  SwitchParams sp = switch_base (4, SWITCH_CUT_THROUGH);
  Rig r;
  rig_build (&r, 0, &sp, 1, (guint[]) { 0 }, 4);
  FlowSpec fs = flow (&r, 0, -1, FLOW_READ, 64 << 10, 2);
  FlowResult out;
  g_autoptr (GError) e = NULL;
  ck_assert_msg (rig_run (&r, &fs, 1, &out, &e), "%s", e ? e->message : "");
  fabric_free (r.f);
  /* 2 x 64 KB in 512-byte requests (MRRS). */
  ck_assert_uint_eq (out.read_latency.count, 2 * (64 << 10) / 512);
  ck_assert_uint_eq (out.tlps, out.read_latency.count);
  ck_assert (out.read_latency.mean_ns > 1020.0 && out.read_latency.max_ns >= out.read_latency.p99_ns
             && out.read_latency.p99_ns >= out.read_latency.p50_ns);
}
END_TEST

/* A slow flow is no deadlock (issue #26): 256 KB capped at 0.1 MB/s needs 2.62 s of simulated time, more than the
 * run's old time budget (1 s + 1 us per byte = 1.26 s), and its requests are 2.56 ms apart. By hand: 1024 MWrs of
 * 256 bytes, the i-th entering at i x 256 / 0.1 ns; the figure is bytes over first-to-last delivery, (1024 x
 * 256) / (1023 x 2.56 ms + one TLP's trip) = 0.1001 MB/s: within 0.2% of the cap. */
START_TEST (test_slow_flow_finishes)
{
  SwitchParams sp = switch_base (4, SWITCH_CUT_THROUGH);
  Rig r;
  rig_build (&r, 1, &sp, 2, (guint[]) { 1, 1 }, 4);
  FlowSpec fs = flow (&r, 0, 1, FLOW_WRITE, 256 << 10, 1);
  fs.rate_mbps = 0.1;
  FlowResult out;
  g_autoptr (GError) e = NULL;
  ck_assert_msg (rig_run (&r, &fs, 1, &out, &e), "%s", e ? e->message : "");
  fabric_free (r.f);
  ck_assert_uint_eq (out.bytes, 256 << 10);
  ck_assert_msg (fabs (out.mbps - 0.1) < 0.0002, "%.6f MB/s", out.mbps);
}
END_TEST

/* The heap in use, as the allocator counts it (under AddressSanitizer, its own allocator's count). */
#if defined(__SANITIZE_ADDRESS__)
/* sanitizer/allocator_interface.h's, which GCC does not install. */
size_t __sanitizer_get_current_allocated_bytes (void);

static size_t
heap_in_use (void)
{
  return __sanitizer_get_current_allocated_bytes ();
}
#else
#include <malloc.h>
static size_t
heap_in_use (void)
{
  struct mallinfo2 m = mallinfo2 ();
  return m.uordblks + m.hblkhd;
}
#endif

/* Samples the heap every microsecond of simulated time while the engine runs; the largest is the run's peak. */
typedef struct {
  size_t peak;
} HeapProbe;

static void
heap_probe (SimEngine *e, void *ctx, uint64_t arg)
{
  HeapProbe *p = ctx;
  p->peak = MAX (p->peak, heap_in_use ());
  sim_schedule_in (e, SIM_US, heap_probe, p, 0);
}

/* A flow's memory goes with what is in flight, not with what it moved: a write flow of 4 MB (16384 TLPs) through a
 * switch peaks at no more heap above what the fabric held before it than one of 256 KB (1024 TLPs) does, within
 * 32 KB. Keeping 8 bytes of latency per TLP would cost 120 KB more (128 KB against 8 KB). */
START_TEST (test_flow_memory_independent_of_length)
{
  const uint64_t bytes[] = { 256 << 10, 4 << 20 };
  size_t grew[2];
  for (guint i = 0; i < 2; i++) {
    SwitchParams sp = switch_base (3, SWITCH_CUT_THROUGH);
    Rig r;
    rig_build (&r, 1, &sp, 1, (guint[]) { 1 }, 4);
    FlowSpec fs = flow (&r, 0, -1, FLOW_WRITE, bytes[i], 1);
    FlowResult out;
    g_autoptr (GError) e = NULL;
    size_t before = heap_in_use ();
    HeapProbe p = { before };
    sim_schedule_in (fabric_engine (r.f), SIM_US, heap_probe, &p, 0);
    ck_assert_msg (rig_run (&r, &fs, 1, &out, &e), "%s", e ? e->message : "");
    fabric_free (r.f);
    ck_assert_uint_eq (out.tlps, bytes[i] / 256);
    grew[i] = p.peak - before;
  }
  ck_assert_msg (grew[0] > 0, "no heap measured");
  ck_assert_msg (grew[1] <= grew[0] + 32 * 1024, "256 KB: %zu bytes of heap at the peak, 4 MB: %zu", grew[0],
                 grew[1]);
}
END_TEST

/* --- sharing a link -------------------------------------------------------------------------------------- */

#define SHARE_BYTES (256u << 10)

/* n endpoints below one switch write to host memory at once through its x4 upstream port, the bottleneck: round
 * robin gives each ingress port one TLP in turn, so each flow gets 1/n of the link, within 1% of the mean; together
 * they fill it (at least 95% of what a single x4 flow reaches alone, never above the protocol limit). */
START_TEST (test_shared_link_splits_equally)
{
  guint n = 2 + (guint) _i;
  SwitchParams sp = switch_base (2 + n, SWITCH_CUT_THROUGH);
  guint place[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
  Rig r;
  rig_build (&r, 1, &sp, n, place, 4);
  FlowSpec fs[8];
  for (guint k = 0; k < n; k++)
    fs[k] = flow (&r, k, -1, FLOW_WRITE, SHARE_BYTES, 1);
  FlowResult out[8];
  g_autoptr (GError) e = NULL;
  ck_assert_msg (rig_run (&r, fs, n, out, &e), "%u flows: %s", n, e ? e->message : "");
  double mean = 0, sum = 0;
  for (guint k = 0; k < n; k++)
    mean += out[k].mbps / n;
  for (guint k = 0; k < n; k++) {
    ck_assert_msg (fabs (out[k].mbps - mean) <= 0.01 * mean, "%u flows: flow %u %.1f MB/s, mean %.1f", n, k,
                   out[k].mbps, mean);
    sum += out[k].mbps;
  }
  LinkParams lp = link_g2 (4);
  double limit = link_protocol_limit_mbps (&lp, 12); /* 3-DW MWrs: the buffers are below 4 GB */
  ck_assert_msg (sum <= limit * 1.001 && sum >= 0.95 * limit, "%u flows: %.1f MB/s together, limit %.1f", n, sum, limit);
  fabric_free (r.f);
}
END_TEST

/* Weighted round robin, weights 1, 2 and 3 on the three ingress ports: of every 6 TLPs the upstream port sends,
 * 1, 2 and 3 are theirs while all three are busy, so the rates go 1 : 2 : 3 (within 2%: the flows end at
 * different times, and the last ones run alone for a while, which is left out by giving them 1/6, 2/6, 3/6 of
 * the bytes so they all finish together). */
START_TEST (test_weighted_round_robin)
{
  SwitchParams sp = switch_base (5, SWITCH_CUT_THROUGH);
  sp.arbitration = SWITCH_WEIGHTED_ROUND_ROBIN;
  sp.weights[2] = 1;
  sp.weights[3] = 2;
  sp.weights[4] = 3;
  Rig r;
  rig_build (&r, 1, &sp, 3, (guint[]) { 1, 1, 1 }, 4);
  FlowSpec fs[3];
  for (guint k = 0; k < 3; k++)
    fs[k] = flow (&r, k, -1, FLOW_WRITE, (k + 1) * 64 * 1024, 1);
  FlowResult out[3];
  g_autoptr (GError) e = NULL;
  ck_assert_msg (rig_run (&r, fs, 3, out, &e), "%s", e ? e->message : "");
  for (guint k = 1; k < 3; k++)
    ck_assert_msg (fabs (out[k].mbps / out[0].mbps - (k + 1)) <= 0.02 * (k + 1), "flow %u: %.1f MB/s against %.1f",
                   k, out[k].mbps, out[0].mbps);
  fabric_free (r.f);
}
END_TEST

/* Two x4 endpoints behind an x8 upstream link: their sum fits, so each runs as fast as one alone behind the same
 * switch (within 1%). */
START_TEST (test_full_speed_while_sum_fits)
{
  SwitchParams sp = switch_base (4, SWITCH_CUT_THROUGH);
  double alone = 0;
  for (guint n = 1; n <= 2; n++) {
    Rig r;
    rig_build (&r, 1, &sp, n, (guint[]) { 1, 1 }, 8);
    FlowSpec fs[2] = { flow (&r, 0, -1, FLOW_WRITE, SHARE_BYTES, 1), flow (&r, 1, -1, FLOW_WRITE, SHARE_BYTES, 1) };
    FlowResult out[2];
    g_autoptr (GError) e = NULL;
    ck_assert_msg (rig_run (&r, fs, n, out, &e), "%s", e ? e->message : "");
    if (n == 1)
      alone = out[0].mbps;
    for (guint k = 0; k < n; k++)
      ck_assert_msg (fabs (out[k].mbps - alone) <= 0.01 * alone, "flow %u: %.1f MB/s, alone %.1f", k, out[k].mbps,
                     alone);
    fabric_free (r.f);
  }
}
END_TEST

/* --- buffers ------------------------------------------------------------------------------------------------ */

/* A switch whose ports advertise room for two 256-byte writes (PH 2, PD 32): ep0's writes to host memory can have
 * at most two TLPs' credits out at a time, and a credit comes back no sooner than a round trip: the header in
 * (8 ns) + ep0's transmit pipeline (100) + flight (10) + the port latency (150), then the switch takes it on at
 * once and its UpdateFC (8 bytes, 2 symbol times) + flight (10) + ep0's receive pipeline (100) must come back:
 * 382 ns for 512 bytes, 1340 MB/s at most; with big buffers the same flow runs near the x4 link's limit. */
START_TEST (test_tiny_buffers_throttle)
{
  double mbps[2];
  for (int tiny = 0; tiny < 2; tiny++) {
    SwitchParams sp = switch_base (3, SWITCH_CUT_THROUGH);
    if (tiny)
      sp.port_credits = (FcCredits) { .ph = 2, .pd = 32, .nph = 2, .npd = 2, .cplh = 2, .cpld = 32 };
    Rig r;
    rig_build (&r, 1, &sp, 1, (guint[]) { 1 }, 4);
    FlowSpec fs = flow (&r, 0, -1, FLOW_WRITE, SHARE_BYTES, 1);
    FlowResult out;
    g_autoptr (GError) e = NULL;
    ck_assert_msg (rig_run (&r, &fs, 1, &out, &e), "%s", e ? e->message : "");
    mbps[tiny] = out.mbps;
    fabric_free (r.f);
  }
  double bound = 512.0 / 382.0 * 1000;
  ck_assert_msg (mbps[1] <= bound, "tiny buffers: %.1f MB/s, above the credit bound %.1f", mbps[1], bound);
  ck_assert_msg (mbps[1] < 0.85 * mbps[0], "tiny buffers: %.1f MB/s, big ones %.1f", mbps[1], mbps[0]);
}
END_TEST

/* ep1's receive interface takes a millisecond per TLP (1000 cycles of overhead at 1 MHz): the switch's port towards
 * it runs out of ep1's posted credits and everything behind waits. With a 100 us watchdog the run stops, and the
 * message says which switch port waits and for which credits. */
START_TEST (test_watchdog_names_port_and_credits)
{
  SwitchParams sp = switch_base (4, SWITCH_CUT_THROUGH);
  Fabric *f = fabric_new (1);
  HostParams hp = host_base ();
  Host *host = host_new (f, "host", &hp, 1);
  Switch *sw = switch_new (f, "sw", &sp);
  EndpointParams ep = endpoint_base ();
  Endpoint *a = endpoint_new (f, "a", &ep);
  ep.app.clock_mhz = 1;
  ep.app.rx_overhead_cycles = 1000;
  Endpoint *b = endpoint_new (f, "b", &ep);
  Rig r = { .f = f, .host = host };
  connect (&r, host_component (host), 0, switch_component (sw), 0, NULL, sw, 4);
  connect (&r, switch_component (sw), 1, endpoint_component (a), 0, sw, NULL, 4);
  LinkParams lp = link_g2 (4);
  switch_link_params (sw, &lp, LINK_DSP);
  lp.rx_credits[LINK_USP] = (FcCredits) { .ph = 2, .pd = 32, .nph = 2, .npd = 2 };
  g_autoptr (GError) e = NULL;
  ck_assert (fabric_connect (f, switch_component (sw), 2, endpoint_component (b), 0, &lp, &e) != NULL);
  ck_assert (fabric_enumerate (f, &e));
  FlowSpec fs = { .name = "f", .source = endpoint_component (a), .target = endpoint_component (b), .op = FLOW_WRITE,
                  .bytes = 64 * 1024, .iterations = 1 };
  FlowResult out;
  FlowLinkResult links[3];
  FlowRunStats st;
  ck_assert (!flows_run (f, host, &fs, 1, 100 * SIM_US, &out, links, &st, &e));
  ck_assert_msg (g_error_matches (e, MODEL_ERROR, MODEL_ERROR_DEADLOCK), "%s", e->message);
  ck_assert_msg (strstr (e->message, "sw: port 2 (to b)") && strstr (e->message, "waiting for posted credits (PH 0 "
                 "left"), "%s", e->message);
  fabric_free (f);
}
END_TEST

/* --- ordering (spec §2.4.1, Table 2-42) ------------------------------------------------------------------- */

/* Two components of the test's own, so that TLPs can be put on a switch's ingress link by hand: a root complex that
 * only sends, and an endpoint that logs what it receives and holds the first posted write in its receive buffer for
 * 5 us, keeping the one posted header credit it advertises. */
typedef struct {
  Component base;
  TlpKind got[8];
  uint64_t addr[8];
  gboolean ecrc[8];
  SimTime at[8];
  guint n;
  Tlp *held;
  SimTime released;
} Probe;

static void
probe_release (SimEngine *e, void *ctx, uint64_t arg)
{
  Probe *p = ctx;
  p->released = sim_now (e);
  link_port_consume (p->base.ports[0].link_port, p->held);
  tlp_free (fabric_pool (p->base.fabric), p->held);
  p->held = NULL;
}

static void
probe_receive (Component *c, FabricPort *port, Tlp *t)
{
  Probe *p = (Probe *) c;
  ck_assert (p->n < G_N_ELEMENTS (p->got));
  p->got[p->n] = t->kind;
  p->at[p->n] = sim_now (fabric_engine (c->fabric));
  p->ecrc[p->n] = t->ecrc;
  p->addr[p->n++] = t->address;
  if (t->kind == TLP_MWR && p->held == NULL && p->n == 1) {
    p->held = t;
    sim_schedule_at (fabric_engine (c->fabric), sim_now (fabric_engine (c->fabric)) + 5 * SIM_US, probe_release, p, 0);
    return;
  }
  link_port_consume (port->link_port, t);
  tlp_free (fabric_pool (c->fabric), t);
}

static void
probe_tx_ready (Component *c, FabricPort *port)
{
}

static const ComponentKind probe_kind = { .name = "probe", .receive = probe_receive, .tx_ready = probe_tx_ready };

/* rc - switch - ep, the links `up` and `down` made right for the switch's ports (the caller sets the rest),
 * enumerated. probe_free() frees it. */
static Fabric *
probe_fabric (const SwitchParams *sp, LinkParams *up, LinkParams *down, Probe **rc, Probe **ep)
{
  Fabric *f = fabric_new (1);
  *rc = g_new0 (Probe, 1);
  *ep = g_new0 (Probe, 1);
  fabric_add (f, &(*rc)->base, &probe_kind, COMPONENT_ROOT_COMPLEX, "rc", 1);
  (*ep)->base.bars[0].size_bytes = 1 << 20;
  Switch *sw = switch_new (f, "sw", sp);
  fabric_add (f, &(*ep)->base, &probe_kind, COMPONENT_ENDPOINT, "ep", 1);
  switch_link_params (sw, up, LINK_USP);
  switch_link_params (sw, down, LINK_DSP);
  g_autoptr (GError) e = NULL;
  ck_assert_msg (fabric_connect (f, &(*rc)->base, 0, switch_component (sw), 0, up, &e) != NULL, "%s", e->message);
  ck_assert_msg (fabric_connect (f, switch_component (sw), 1, &(*ep)->base, 0, down, &e) != NULL, "%s", e->message);
  ck_assert_msg (fabric_enumerate (f, &e), "%s", e->message);
  return f;
}

static void
probe_free (Fabric *f, Probe *rc, Probe *ep)
{
  fabric_free (f);
  g_free (rc);
  g_free (ep);
}

/* The root complex sends, back to back, two 4-byte posted writes, a read request and a completion, all for the
 * endpoint below the switch. The endpoint grants one posted header credit and holds the first write for 5 us, so
 * the second write waits at the switch's egress; the read (B2a) and the completion (D2a) are younger and must not
 * pass it: the endpoint sees both writes first. In flit mode all four end in one flit and reach the switch at the
 * same instant, which is what once let the younger two pass (_i = 1); non-flit (_i = 0) they arrive apart.
 * Non-flit, the second write's delivery also times the UpdateFC that frees its credit: only the port's data link
 * layer latency delays a DLLP, not the port-to-port latency (by hand, from the release: the UpdateFC's 8 bytes on
 * x4, 4 ns, the endpoint's 100 ns transmit pipeline, 10 ns flight, the switch port's 50 ns; then the 24-byte write
 * (12 header, 4 data, 8 framing), 12 ns, 10 ns flight and the endpoint's 100 ns: 286 ns, plus up to a 2 ns symbol
 * boundary each way and a 4-symbol SKP each way (8 ns); a DLLP waiting out the 150 ns would take 100 ns more). */
START_TEST (test_no_passing_a_blocked_write)
{
  SwitchParams sp = switch_base (2, SWITCH_STORE_AND_FORWARD);
  sp.dll_latency_ps = 50 * SIM_NS;
  LinkParams up = link_g2 (4), down = link_g2 (4);
  up.flit_mode = down.flit_mode = _i == 1;
  up.tx_queue_tlps = 0;
  down.rx_credits[LINK_USP] = (FcCredits) { .ph = 1, .pd = 64, .nph = 64, .npd = 64 };
  Probe *rc, *ep;
  Fabric *f = probe_fabric (&sp, &up, &down, &rc, &ep);
  static const TlpKind kinds[] = { TLP_MWR, TLP_MWR, TLP_MRD, TLP_CPL };
  uint64_t bar = ep->base.bars[0].base;
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++) {
    Tlp *t = tlp_alloc (fabric_pool (f));
    tlp_set (t, kinds[k], FALSE, bar + 64 * k, 4);
    t->requester = kinds[k] == TLP_CPL ? ep->base.id : rc->base.id;
    link_port_send (rc->base.ports[0].link_port, t);
  }
  sim_run (fabric_engine (f));
  ck_assert_uint_eq (ep->n, 4);
  ck_assert_msg (ep->got[0] == TLP_MWR && ep->got[1] == TLP_MWR && ep->addr[1] == bar + 64,
                 "flit %d: the endpoint saw %s, %s, %s, %s", _i, tlp_kind_name (ep->got[0]),
                 tlp_kind_name (ep->got[1]), tlp_kind_name (ep->got[2]), tlp_kind_name (ep->got[3]));
  SimTime dt = ep->at[1] - ep->released;
  ck_assert_msg (_i == 1 || (dt >= 286 * SIM_NS && dt <= (286 + 4 + 16) * SIM_NS), "credit back and write in %"
                 G_GUINT64_FORMAT " ps, want 286-306 ns", dt);
  probe_free (f, rc, ep);
}
END_TEST

/* ECRC is end to end (spec §2.7): the TLP's originator adds it or not, and a switch forwards what it got. A root
 * complex on a link without ECRC sends a write through a switch whose link to the endpoint has link.ecrc set: it
 * arrives without ECRC. */
START_TEST (test_switch_adds_no_ecrc)
{
  SwitchParams sp = switch_base (2, SWITCH_CUT_THROUGH);
  LinkParams up = link_g2 (4), down = link_g2 (4);
  down.ecrc = TRUE;
  Probe *rc, *ep;
  Fabric *f = probe_fabric (&sp, &up, &down, &rc, &ep);
  Tlp *t = tlp_alloc (fabric_pool (f));
  tlp_set (t, TLP_MWR, FALSE, ep->base.bars[0].base, 4);
  link_port_send (rc->base.ports[0].link_port, t);
  sim_run (fabric_engine (f));
  ck_assert_uint_eq (ep->n, 1);
  ck_assert_msg (!ep->ecrc[0], "the switch added an ECRC");
  probe_free (f, rc, ep);
}
END_TEST

/* --- traffic of every kind through switches ----------------------------------------------------------------- */

/* Four endpoints below a two-switch chain read host memory at once: every completion comes back to its requester
 * through both switches (each flow's read checksum and byte count, checked by the run, and the completions' order
 * per tag), and since every requester hands out its lowest free tag first, all four held tag 0 at once. */
START_TEST (test_reads_through_switches)
{
  SwitchParams sp = switch_base (4, SWITCH_CUT_THROUGH);
  Rig r;
  rig_build (&r, 2, &sp, 4, (guint[]) { 1, 1, 2, 2 }, 4);
  FlowSpec fs[4];
  for (guint k = 0; k < 4; k++)
    fs[k] = flow (&r, k, -1, FLOW_READ, 64 * 1024, 2);
  FlowResult out[4];
  g_autoptr (GError) e = NULL;
  ck_assert_msg (rig_run (&r, fs, 4, out, &e), "%s", e ? e->message : "");
  HostCounters hc = host_counters (r.host);
  ck_assert_uint_eq (hc.tag_sharing_high_water, 4);
  ck_assert_uint_eq (hc.cpl_bytes, 4 * 2 * 64 * 1024);
  for (guint k = 0; k < 4; k++) {
    ck_assert_uint_eq (out[k].bytes, 2 * 64 * 1024);
    /* 64 KB in 512-byte requests, twice. */
    ck_assert_uint_eq (out[k].tlps, 2 * 128);
  }
  fabric_free (r.f);
}
END_TEST

/* A completer of the test's own that answers as a simple device does: a read request stays in its receive buffer,
 * holding its non-posted credit, until the completion has gone to the link; its own reads go out behind the
 * completions it owes. It sends `left` 64-byte reads to `target`. */
typedef struct {
  Component base;
  uint64_t target;
  guint left, tag, cpls;
  TlpFifo owed; /* MRds still in the receive buffer */
} Peer;

static void
peer_send (Peer *p)
{
  LinkPort *lp = p->base.ports[0].link_port;
  TlpPool *pool = fabric_pool (p->base.fabric);
  for (;;) {
    Tlp probe = { 0 };
    Tlp *r = p->owed.head;
    if (r != NULL) {
      tlp_set (&probe, TLP_CPLD, FALSE, r->address, r->length_bytes);
      probe.requester = r->requester;
      probe.tag = r->tag;
    } else if (p->left > 0) {
      tlp_set (&probe, TLP_MRD, FALSE, p->target + 64 * p->tag, 64);
      probe.requester = p->base.id;
      probe.tag = (uint16_t) p->tag;
    } else {
      return;
    }
    if (!link_port_can_send (lp, &probe))
      return; /* tx_ready calls again */
    Tlp *t = tlp_alloc (pool);
    *t = probe;
    link_port_send (lp, t);
    if (r != NULL) {
      link_port_consume (lp, tlp_fifo_pop (&p->owed));
      tlp_free (pool, r);
    } else {
      p->left--;
      p->tag++;
    }
  }
}

static void
peer_receive (Component *c, FabricPort *port, Tlp *t)
{
  Peer *p = (Peer *) c;
  if (t->kind == TLP_MRD) {
    tlp_fifo_push (&p->owed, t);
  } else {
    p->cpls++;
    link_port_consume (port->link_port, t);
    tlp_free (fabric_pool (c->fabric), t);
  }
  peer_send (p);
}

static void
peer_tx_ready (Component *c, FabricPort *port)
{
  peer_send ((Peer *) c);
}

static const ComponentKind peer_kind = { .name = "peer", .receive = peer_receive, .tx_ready = peer_tx_ready };

/* Two such completers on two root ports read each other's BAR through the root complex, 64 reads each. Each grants
 * one non-posted header credit; the root complex, which routes peer-to-peer and so may not advertise infinite
 * completion credits (pcie-protocol.md §5), grants two completion headers per root port. A read forwarded to a peer
 * whose one credit is held waits at the root port; the completions behind it must pass it (Table 2-42 D3/D4). If
 * they could not, each peer's read would wait for the other's completion, which waits behind the other's read at
 * the other root port, with both completion buffers full: a deadlock, the run ending with reads unanswered. */
START_TEST (test_peers_read_each_other_through_root_complex)
{
  Fabric *f = fabric_new (1);
  HostParams hp = host_base ();
  Host *host = host_new (f, "host", &hp, 2);
  Peer *peer[2];
  LinkParams lp = link_g2 (4);
  lp.rx_credits[LINK_DSP] = (FcCredits) { .ph = 128, .pd = 2048, .nph = 64, .npd = 64, .cplh = 2, .cpld = 8 };
  lp.rx_credits[LINK_USP] = (FcCredits) { .ph = 128, .pd = 2048, .nph = 1, .npd = 1 };
  g_autoptr (GError) e = NULL;
  for (guint k = 0; k < 2; k++) {
    peer[k] = g_new0 (Peer, 1);
    peer[k]->base.bars[0].size_bytes = 1 << 20;
    peer[k]->left = 64;
    fabric_add (f, &peer[k]->base, &peer_kind, COMPONENT_ENDPOINT, k ? "p1" : "p0", 1);
    ck_assert_msg (fabric_connect (f, host_component (host), k, &peer[k]->base, 0, &lp, &e) != NULL, "%s",
                   e ? e->message : "");
  }
  ck_assert_msg (fabric_enumerate (f, &e), "%s", e ? e->message : "");
  for (guint k = 0; k < 2; k++)
    peer[k]->target = peer[1 - k]->base.bars[0].base;
  for (guint k = 0; k < 2; k++)
    peer_send (peer[k]);
  sim_run (fabric_engine (f));
  for (guint k = 0; k < 2; k++)
    ck_assert_msg (peer[k]->cpls == 64 && peer[k]->left == 0 && peer[k]->owed.head == NULL,
                   "p%u: %u of 64 reads answered, %u not sent, %s owed", k, peer[k]->cpls, peer[k]->left,
                   peer[k]->owed.head ? "some" : "none");
  ck_assert_uint_eq (host_counters (host).forwarded, 2 * (64 + 64));
  fabric_free (f);
  for (guint k = 0; k < 2; k++)
    g_free (peer[k]);
}
END_TEST

/* Issue #30: an endpoint that sources more flows than the chaining DMA has engines (nine aborted on a fixed client
 * table of nine): ep0 sources six writes into host memory and six reads from it, and ep1 writes eight flows into
 * ep0's BAR0, each flow 4 KB twice. Every flow moves its 8 KB, the host completes 6 x 8 KB of reads and ep0's
 * memory takes 8 x 8 KB of writes. */
START_TEST (test_many_flows_per_endpoint)
{
  SwitchParams sp = switch_base (4, SWITCH_CUT_THROUGH);
  Rig r;
  rig_build (&r, 1, &sp, 2, (guint[]) { 1, 1 }, 4);
  enum { N = 20 };
  FlowSpec fs[N];
  for (guint k = 0; k < N; k++) {
    fs[k] = flow (&r, k < 12 ? 0 : 1, k < 12 ? -1 : 0, k < 6 || k >= 12 ? FLOW_WRITE : FLOW_READ, 4096, 2);
    fs[k].tags = 4;
  }
  FlowResult out[N];
  g_autoptr (GError) e = NULL;
  ck_assert_msg (rig_run (&r, fs, N, out, &e), "%s", e ? e->message : "");
  for (guint k = 0; k < N; k++)
    ck_assert_uint_eq (out[k].bytes, 2 * 4096);
  ck_assert_uint_eq (host_counters (r.host).cpl_bytes, 6 * 2 * 4096);
  ck_assert_uint_eq (endpoint_counters (r.ep[0]).bytes_written, 8 * 2 * 4096);
  fabric_free (r.f);
}
END_TEST

/* Peer-to-peer through two switches, ep0 (below sw1) and ep1 (below sw2): ep0 reads 64 KB from ep1's BAR0 while
 * ep1 writes 64 KB into ep0's; the requests are routed by address and the completions by ep0's ID, none through
 * the root complex. The run checks both memories' bytes and checksums. */
START_TEST (test_peer_to_peer_through_switches)
{
  SwitchParams sp = switch_base (4, SWITCH_CUT_THROUGH);
  Rig r;
  rig_build (&r, 2, &sp, 2, (guint[]) { 1, 2 }, 4);
  FlowSpec fs[2] = { flow (&r, 0, 1, FLOW_READ, 64 * 1024, 1), flow (&r, 1, 0, FLOW_WRITE, 64 * 1024, 1) };
  FlowResult out[2];
  g_autoptr (GError) e = NULL;
  ck_assert_msg (rig_run (&r, fs, 2, out, &e), "%s", e ? e->message : "");
  HostCounters hc = host_counters (r.host);
  ck_assert_uint_eq (hc.forwarded + hc.reads + hc.writes, 0);
  EndpointCounters c0 = endpoint_counters (r.ep[0]), c1 = endpoint_counters (r.ep[1]);
  ck_assert_uint_eq (c1.cpl_bytes, 64 * 1024);
  ck_assert_uint_eq (c0.bytes_written, 64 * 1024);
  /* 512-byte reads answered in 256-byte completions by ep1 (RCB 128, MPS 256): two each. */
  ck_assert_uint_eq (c1.cpls, 2 * 128);
  ck_assert_uint_eq (switch_counters (r.sw[0]).forwarded, 128 + 256 + 256);
  fabric_free (r.f);
}
END_TEST

/* The chaining DMA through switches: endpoint A (below sw1) reads from and writes to endpoint B's BAR1 (below sw2)
 * in simultaneous mode, with its descriptors, status writes and MSIs in host memory and its registers written by
 * host PIO, all through the switches; system_run_fabric() checks every memory's bytes and checksums. */
START_TEST (test_dma_peer_to_peer_through_switches)
{
  SwitchParams sp = switch_base (4, SWITCH_CUT_THROUGH);
  Fabric *f = fabric_new (1);
  HostParams hp = host_base ();
  hp.msi_latency_ns = 1000;
  Host *host = host_new (f, "host", &hp, 1);
  Switch *s1 = switch_new (f, "sw1", &sp), *s2 = switch_new (f, "sw2", &sp);
  EndpointParams ep = endpoint_base ();
  ep.has_dma = TRUE;
  ep.dma = (DmaParams) { .max_payload_bytes = 256, .max_read_request_bytes = 512, .tags = 32, .desc_max_bytes = 4096,
                         .desc_per_fetch = 32, .desc_fifo_entries = 32, .msi = TRUE };
  ep.bars[0].size_bytes = 1 << 20;
  ep.bars[1].size_bytes = 1 << 20;
  Endpoint *a = endpoint_new (f, "a", &ep), *b = endpoint_new (f, "b", &ep);
  Rig r = { .f = f, .host = host };
  connect (&r, host_component (host), 0, switch_component (s1), 0, NULL, s1, 4);
  connect (&r, switch_component (s1), 1, switch_component (s2), 0, s1, s2, 4);
  connect (&r, switch_component (s1), 2, endpoint_component (a), 0, s1, NULL, 4);
  connect (&r, switch_component (s2), 2, endpoint_component (b), 0, s2, NULL, 4);
  g_autoptr (GError) e = NULL;
  ck_assert_msg (fabric_enumerate (f, &e), "%s", e->message);
  SystemWorkload w = { .endpoint = a, .mode = SYSTEM_SIMULTANEOUS, .transfer_bytes = 32768, .peer = b, .peer_bar = 1 };
  SystemDriver d = { .iterations = 2 };
  SystemResult res;
  ck_assert_msg (system_run_fabric (f, host, &w, 1, &d, &res, &e), "%s", e ? e->message : "");
  EndpointCounters bc = endpoint_counters (b);
  ck_assert_uint_eq (bc.bytes_written, 2 * 32768);
  ck_assert_uint_eq (bc.cpl_bytes, 2 * 32768);
  ck_assert_uint_eq (host_counters (host).forwarded, 0);
  ck_assert (res.read_mbps > 0 && res.write_mbps > 0);
  fabric_free (f);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("switch");
  TCase *tc = tcase_create ("switch");
  tcase_set_timeout (tc, 120);
  tcase_add_loop_test (tc, test_latency_through_switches, 0, 16);
  tcase_add_loop_test (tc, test_cut_through_slow_to_fast, 0, 2);
  tcase_add_test (tc, test_store_and_forward_adds_serialisation);
  tcase_add_test (tc, test_uniform_stream_latency);
  tcase_add_test (tc, test_read_round_trip);
  tcase_add_test (tc, test_source_by_declared_face);
  tcase_add_test (tc, test_read_round_trips_counted);
  tcase_add_test (tc, test_slow_flow_finishes);
  tcase_add_test (tc, test_flow_memory_independent_of_length);
  tcase_add_loop_test (tc, test_shared_link_splits_equally, 0, 7);
  tcase_add_test (tc, test_weighted_round_robin);
  tcase_add_test (tc, test_full_speed_while_sum_fits);
  tcase_add_test (tc, test_tiny_buffers_throttle);
  tcase_add_test (tc, test_watchdog_names_port_and_credits);
  tcase_add_loop_test (tc, test_no_passing_a_blocked_write, 0, 2);
  tcase_add_test (tc, test_switch_adds_no_ecrc);
  tcase_add_test (tc, test_reads_through_switches);
  tcase_add_test (tc, test_peers_read_each_other_through_root_complex);
  tcase_add_test (tc, test_many_flows_per_endpoint);
  tcase_add_test (tc, test_peer_to_peer_through_switches);
  tcase_add_test (tc, test_dma_peer_to_peer_through_switches);
  suite_add_tcase (s, tc);
  return run_suite (s);
}
