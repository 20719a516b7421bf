/* test-fabric.c — the component graph (fabric.h): enumeration and routing worked out by hand, the errors of a graph
 * that cannot be built, and several endpoints at once on one root complex: DMA reads of host memory by 2-4
 * requesters (every completion back at its requester, tags shared across requesters but never reused within
 * one), a shared completer split between them, and peer-to-peer writes and reads between two endpoints through
 * the root complex. Expected figures are derived below from the parameters, or from the one-endpoint system. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "models/workloads/system.h"
#include "tests/common.h"

/* --- a component of the test's own: enumeration does not look at what a component does --------------------- */

typedef struct {
  Component base;
} Dummy;

static void
dummy_receive (Component *c, FabricPort *port, Tlp *t)
{
  ck_abort_msg ("no traffic in this test");
}

static void
dummy_tx_ready (Component *c, FabricPort *port)
{
}

static const ComponentKind dummy_kind = { .name = "dummy", .receive = dummy_receive, .tx_ready = dummy_tx_ready };

static LinkParams
link_params_g2x8 (void)
{
  return (LinkParams) {
    .gen = 2, .lanes = 8, .max_payload_bytes = 256,
    .tx_pipeline_ps = 100 * SIM_NS, .rx_pipeline_ps = 100 * SIM_NS, .flight_ps = 10 * SIM_NS,
    .updatefc_period_ps = 20 * SIM_US,
    /* Generous finite P/NP credits so flow control never binds here; completions infinite (0). */
    .rx_credits = { [LINK_DSP] = { .ph = 128, .pd = 2048, .nph = 64, .npd = 64 },
                    [LINK_USP] = { .ph = 64, .pd = 256, .nph = 64, .npd = 64 } },
  };
}

static Dummy *
dummy (Fabric *f, const char *name, ComponentRole role, uint32_t ports, const FabricBar *bars)
{
  Dummy *d = g_new0 (Dummy, 1);
  for (guint i = 0; bars && bars[i].size_bytes; i++)
    d->base.bars[i] = bars[i];
  fabric_add (f, &d->base, &dummy_kind, role, name, ports);
  return d;
}

/* The dummies are the test's: the fabric must not free them. */
static void
free_all (Fabric *f, Dummy **d, guint n)
{
  fabric_free (f);
  for (guint i = 0; i < n; i++)
    g_free (d[i]);
}

static void
connect (Fabric *f, Component *dsp, uint32_t dp, Component *usp, uint32_t up)
{
  LinkParams lp = link_params_g2x8 ();
  g_autoptr (GError) e = NULL;
  ck_assert_msg (fabric_connect (f, dsp, dp, usp, up, &lp, &e) != NULL, "%s", e ? e->message : "");
}

/* Root complex with three root ports: endpoint a below port 0 (BAR0 1 MB, BAR1 256 KB), nothing on port 1, a
 * switch below port 2 with endpoint b below its first downstream port (BAR0 64 KB, BAR2 16 MB 64-bit) and
 * endpoint c below its second (BAR0 4 KB). By hand, depth first:
 *   bus 0: root complex 00:00.0; root ports 00:01.0, 00:02.0, 00:03.0
 *   port 0: secondary bus 1, a = 01:00.0; a's BAR0 at 0xC0000000, BAR1 at 0xC0100000; window 32
 *           0xC0000000..0xC01FFFFF (rounded up to 1 MB), no 64-bit window; subordinate 1
 *   port 1: empty: no bus, no window
 *   port 2: secondary bus 2, switch upstream port 02:00.0; internal bus 3, downstream ports 03:00.0 and 03:01.0;
 *           DSP 0: bus 4, b = 04:00.0, BAR0 at 0xC0200000, BAR2 at 1 TB; window 32 0xC0200000..0xC02FFFFF,
 *           window 64 1 TB .. + 16 MB - 1
 *           DSP 1: bus 5, c = 05:00.0, BAR0 at 0xC0300000; window 32 0xC0300000..0xC03FFFFF
 *           root port 2: buses 2..5, window 32 0xC0200000..0xC03FFFFF, window 64 as DSP 0's */
START_TEST (test_enumeration)
{
  Fabric *f = fabric_new (1);
  Dummy *d[5];
  d[0] = dummy (f, "rc", COMPONENT_ROOT_COMPLEX, 3, NULL);
  d[1] = dummy (f, "a", COMPONENT_ENDPOINT, 1,
                (FabricBar[]) { { .size_bytes = 1 << 20 }, { .size_bytes = 256 << 10 }, { 0 } });
  d[2] = dummy (f, "sw", COMPONENT_SWITCH, 3, NULL);
  d[3] = dummy (f, "b", COMPONENT_ENDPOINT, 1,
                (FabricBar[]) { { .size_bytes = 64 << 10 }, { .size_bytes = 0 }, { 0 } });
  d[3]->base.bars[2] = (FabricBar) { .size_bytes = 16 << 20, .is64 = TRUE };
  d[4] = dummy (f, "c", COMPONENT_ENDPOINT, 1, (FabricBar[]) { { .size_bytes = 4096 }, { 0 } });
  Component *rc = &d[0]->base, *a = &d[1]->base, *sw = &d[2]->base, *b = &d[3]->base, *c = &d[4]->base;
  connect (f, rc, 0, a, 0);
  connect (f, rc, 2, sw, 0);
  connect (f, sw, 1, b, 0);
  connect (f, sw, 2, c, 0);
  g_autoptr (GError) e = NULL;
  ck_assert_msg (fabric_enumerate (f, &e), "%s", e ? e->message : "");
  ck_assert_uint_eq (rc->id, 0x0000);
  ck_assert_uint_eq (a->id, 0x0100);
  ck_assert_uint_eq (sw->id, 0x0200);
  ck_assert_uint_eq (b->id, 0x0400);
  ck_assert_uint_eq (c->id, 0x0500);
  for (guint i = 0; i < 3; i++)
    ck_assert_uint_eq (rc->ports[i].id, (i + 1) << 3);
  ck_assert_uint_eq (sw->ports[1].id, 0x0300);
  ck_assert_uint_eq (sw->ports[2].id, 0x0308);
  ck_assert_uint_eq (a->bars[0].base, 0xC0000000);
  ck_assert_uint_eq (a->bars[1].base, 0xC0100000);
  ck_assert_uint_eq (b->bars[0].base, 0xC0200000);
  ck_assert_uint_eq (b->bars[2].base, UINT64_C (0x10000000000));
  ck_assert_uint_eq (c->bars[0].base, 0xC0300000);
  const FabricPort *p0 = &rc->ports[0], *p1 = &rc->ports[1], *p2 = &rc->ports[2];
  ck_assert (p0->secondary_bus == 1 && p0->subordinate_bus == 1);
  ck_assert (p1->subordinate_bus < p1->secondary_bus);
  ck_assert (p2->secondary_bus == 2 && p2->subordinate_bus == 5);
  ck_assert (sw->ports[1].secondary_bus == 4 && sw->ports[1].subordinate_bus == 4);
  ck_assert (sw->ports[2].secondary_bus == 5 && sw->ports[2].subordinate_bus == 5);
  ck_assert (p0->window[FABRIC_MEM32].base == 0xC0000000 && p0->window[FABRIC_MEM32].limit == 0xC01FFFFF);
  ck_assert (p0->window[FABRIC_MEM64].base > p0->window[FABRIC_MEM64].limit);
  ck_assert (p1->window[FABRIC_MEM32].base > p1->window[FABRIC_MEM32].limit);
  ck_assert (p2->window[FABRIC_MEM32].base == 0xC0200000 && p2->window[FABRIC_MEM32].limit == 0xC03FFFFF);
  ck_assert (p2->window[FABRIC_MEM64].base == UINT64_C (0x10000000000)
             && p2->window[FABRIC_MEM64].limit == UINT64_C (0x10000FFFFFF));
  ck_assert (sw->ports[2].window[FABRIC_MEM32].base == 0xC0300000);
  ck_assert (sw->ports[2].window[FABRIC_MEM64].base > sw->ports[2].window[FABRIC_MEM64].limit);
  /* Routing: by address to the port whose window holds it, by ID to the port whose buses do; host memory and
   * requesters that are nowhere have no port. */
  ck_assert_ptr_eq (fabric_route_address (rc, 0xC0150000), p0);
  ck_assert_ptr_eq (fabric_route_address (rc, 0xC0350000), p2);
  ck_assert_ptr_eq (fabric_route_address (rc, UINT64_C (0x10000800000)), p2);
  ck_assert_ptr_null (fabric_route_address (rc, 0x20000000));
  ck_assert_ptr_null (fabric_route_address (rc, 0xC0400000));
  ck_assert_ptr_eq (fabric_route_address (sw, 0xC0300010), &sw->ports[2]);
  ck_assert_ptr_eq (fabric_route_id (rc, 0x0100), p0);
  ck_assert_ptr_eq (fabric_route_id (rc, 0x0500), p2);
  ck_assert_ptr_null (fabric_route_id (rc, 0x0600));
  ck_assert_ptr_eq (fabric_route_id (sw, 0x0400), &sw->ports[1]);
  uint64_t off = 0;
  ck_assert_int_eq (fabric_bar_of (b, UINT64_C (0x10000000010), &off), 2);
  ck_assert_uint_eq (off, 0x10);
  ck_assert_int_eq (fabric_bar_of (b, 0xC0210000, &off), -1);
  ck_assert_str_eq (fabric_link_name (f, 1), "rc-sw");
  ck_assert_ptr_eq (fabric_uplink (b), sw->ports[1].link);
  free_all (f, d, 5);
}
END_TEST

/* A graph that cannot be built is refused with a message naming what is wrong, never built half-way. */
static const struct {
  const char *id, *want;
} graph_errors[] = {
  { "port-twice", "rc port 0 is used by two links" },
  { "self", "a is linked to itself" },
  { "no-port", "rc has no port 4 (it has 2)" },
  { "facing", "b port 0 faces the root" },
  { "disconnected", "b is not connected to the root complex" },
  { "two-roots", "two root complexes (rc and rc2)" },
  { "bar-size", "a BAR0 of 100 bytes: a BAR is a power of two of at least 128 bytes" },
  { "bar-window", "a BAR0 (2147483648 bytes) does not fit in the 32-bit memory window" },
};

START_TEST (test_graph_errors)
{
  const char *id = graph_errors[_i].id;
  Fabric *f = fabric_new (1);
  Dummy *d[4];
  gboolean big = strcmp (id, "bar-window") == 0, odd = strcmp (id, "bar-size") == 0;
  d[0] = dummy (f, "rc", COMPONENT_ROOT_COMPLEX, 2, NULL);
  d[1] = dummy (f, "a", COMPONENT_ENDPOINT, 1,
                (FabricBar[]) { { .size_bytes = big ? UINT64_C (1) << 31 : odd ? 100 : 4096 }, { 0 } });
  d[2] = dummy (f, "b", COMPONENT_ENDPOINT, 1, NULL);
  guint n = 3;
  LinkParams lp = link_params_g2x8 ();
  GError *e = NULL;
  Link *l = fabric_connect (f, &d[0]->base, 0, &d[1]->base, 0, &lp, &e);
  ck_assert (l != NULL);
  if (strcmp (id, "port-twice") == 0)
    l = fabric_connect (f, &d[0]->base, 0, &d[2]->base, 0, &lp, &e);
  else if (strcmp (id, "self") == 0)
    l = fabric_connect (f, &d[1]->base, 0, &d[1]->base, 0, &lp, &e);
  else if (strcmp (id, "no-port") == 0)
    l = fabric_connect (f, &d[0]->base, 4, &d[2]->base, 0, &lp, &e);
  else if (strcmp (id, "facing") == 0)
    l = fabric_connect (f, &d[2]->base, 0, &d[0]->base, 1, &lp, &e);
  else {
    if (strcmp (id, "two-roots") == 0)
      d[n++] = dummy (f, "rc2", COMPONENT_ROOT_COMPLEX, 1, NULL);
    if (strcmp (id, "disconnected") != 0)
      connect (f, &d[0]->base, 1, &d[2]->base, 0);
    l = fabric_enumerate (f, &e) ? l : NULL;
  }
  ck_assert_msg (l == NULL && g_error_matches (e, MODEL_ERROR, MODEL_ERROR_PARAM), "%s: %s", id,
                 e ? e->message : "accepted");
  ck_assert_msg (strstr (e->message, graph_errors[_i].want), "%s: '%s' not in '%s'", id, graph_errors[_i].want,
                 e->message);
  g_error_free (e);
  free_all (f, d, n);
}
END_TEST

/* --- several endpoints on one root complex ----------------------------------------------------------------- */

/* The hand-checkable system of test-dma.c: Gen2 x8, 128-bit datapath at 250 MHz, host read latency 1 us. */
static HostParams
host_params_base (void)
{
  return (HostParams) { .rcb_bytes = 64, .cpl_policy = CPL_POLICY_MPS, .read_latency_ns = 1000,
                        .sw_pio_latency_ns = 500, .sw_pio_gap_ns = 50, .msi_latency_ns = 1000,
                        .iteration_gap_ns = 2000 };
}

static EndpointParams
endpoint_params_base (void)
{
  return (EndpointParams) {
    .app = { .width_bits = 128, .clock_mhz = 250, .arbitration = APP_ARB_ROUND_ROBIN },
    .has_dma = TRUE,
    .dma = { .max_payload_bytes = 256, .max_read_request_bytes = 512, .tags = 32, .desc_max_bytes = 4096,
             .desc_per_fetch = 32, .desc_fifo_entries = 32, .msi = TRUE, .counter_start = DMA_COUNTER_AT_ENDPOINT },
    .bars = { { .size_bytes = 1 << 20 }, { .size_bytes = 1 << 20 } },
    .rcb_bytes = ENDPOINT_RCB_BYTES,
  };
}

#define TRANSFER 102400u
#define ITERATIONS 2u

typedef struct {
  Fabric *f;
  Host *host;
  Endpoint *ep[4];
  SystemWorkload w[4];
  SystemResult r[4];
} Rig;

/* n endpoints, each on its own root port and link; workload k reads or writes host memory (or, with peer set,
 * endpoint `peer`'s BAR1). */
static void
rig_build (Rig *r, guint n, const HostParams *hp, SystemMode mode)
{
  *r = (Rig) { 0 };
  r->f = fabric_new (1);
  r->host = host_new (r->f, "host", hp, n);
  EndpointParams ep = endpoint_params_base ();
  for (guint k = 0; k < n; k++) {
    char name[8];
    g_snprintf (name, sizeof name, "ep%u", k);
    r->ep[k] = endpoint_new (r->f, name, &ep);
    connect (r->f, host_component (r->host), k, endpoint_component (r->ep[k]), 0);
    r->w[k] = (SystemWorkload) { .endpoint = r->ep[k], .mode = mode, .transfer_bytes = TRANSFER };
  }
  g_autoptr (GError) e = NULL;
  ck_assert_msg (fabric_enumerate (r->f, &e), "%s", e ? e->message : "");
}

static gboolean
rig_run (Rig *r, guint n, GError **error)
{
  SystemDriver d = { .iterations = ITERATIONS };
  return system_run_fabric (r->f, r->host, r->w, n, &d, r->r, error);
}

/* The one-endpoint system with the same parameters: what each endpoint should see when nothing is shared. */
static double
alone_read_mbps (const HostParams *hp)
{
  EndpointParams ep = endpoint_params_base ();
  SystemParams p = { .link = link_params_g2x8 (), .host = *hp, .app = ep.app, .dma = ep.dma,
                     .transfer_bytes = TRANSFER, .iterations = ITERATIONS };
  SystemResult r;
  g_autoptr (GError) e = NULL;
  ck_assert_msg (system_run (&p, SYSTEM_READ, 1, &r, &e), "%s", e ? e->message : "");
  return r.read_mbps;
}

/* 2, 3 and 4 endpoints read host memory at once. The system's own checks hold each requester to its own data
 * (its read-data checksum against its buffers, every tag retired, no completion out of order or unexpected) and
 * the host's hold each requester to distinct tags; the test adds what the checks cannot see: that tag numbers
 * really were shared (every requester hands out its lowest free tag first, so all n held tag 0 at once while
 * their first reads waited out the 1 us latency), and that with a completer that costs nothing per byte each
 * endpoint reads as fast as the one-endpoint system, within 1% (the starts differ by the software's stores). */
START_TEST (test_reads_from_several_endpoints)
{
  guint n = 2 + (guint) _i;
  HostParams hp = host_params_base ();
  Rig r;
  rig_build (&r, n, &hp, SYSTEM_READ);
  g_autoptr (GError) e = NULL;
  ck_assert_msg (rig_run (&r, n, &e), "%u endpoints: %s", n, e ? e->message : "");
  HostCounters hc = host_counters (r.host);
  ck_assert_uint_eq (hc.tag_sharing_high_water, n);
  ck_assert_uint_eq (hc.forwarded, 0);
  double alone = alone_read_mbps (&hp);
  for (guint k = 0; k < n; k++) {
    const DmaCounters *dc = &r.r[k].dma;
    ck_assert_uint_eq (dc->read_bytes_completed, (uint64_t) ITERATIONS * TRANSFER);
    ck_assert_uint_eq (dc->unexpected_cpls + dc->out_of_order_cpls, 0);
    ck_assert_msg (dc->tags_high_water > 1, "ep%u used %u tags", k, dc->tags_high_water);
    ck_assert_msg (fabs (r.r[k].read_mbps - alone) < 0.01 * alone, "ep%u: %.1f MB/s, alone %.1f", k,
                   r.r[k].read_mbps, alone);
  }
  fabric_free (r.f);
}
END_TEST

/* One return path shared: at 1000 MB/s (1 byte/ns, a third of what one Gen2 x8 link carries) the root complex
 * is the bottleneck, and two endpoints reading at once get half of it each: 500 MB/s, give or take the start-up
 * of each 100 KB transfer (a descriptor fetch and a first round trip, ~3 us of ~205 us) and the 200 ns by which
 * software starts the second after the first (the first has the path to itself meanwhile): within 3% of 500.
 * Together they cannot beat the path by more than that offset allows (0.1% of 205 us; 1% here). */
START_TEST (test_shared_completer_splits)
{
  HostParams hp = host_params_base ();
  hp.cpl_rate_mbps = 1000;
  Rig r;
  rig_build (&r, 2, &hp, SYSTEM_READ);
  g_autoptr (GError) e = NULL;
  ck_assert_msg (rig_run (&r, 2, &e), "%s", e ? e->message : "");
  for (guint k = 0; k < 2; k++)
    ck_assert_msg (fabs (r.r[k].read_mbps - 500) < 0.03 * 500, "ep%u: %.1f MB/s", k, r.r[k].read_mbps);
  ck_assert_msg (r.r[0].read_mbps + r.r[1].read_mbps < 1010, "%.1f + %.1f MB/s", r.r[0].read_mbps, r.r[1].read_mbps);
  fabric_free (r.f);
}
END_TEST

/* A completion sent to the wrong requester (the host's test fault gives the 5th completion the other endpoint's
 * ID, so the fabric routes it there) never passes for a result: the victim finds a completion out of order for
 * one of its tags and the rightful requester waits for data that never comes. */
START_TEST (test_misrouted_completion_is_caught)
{
  HostParams hp = host_params_base ();
  Rig r;
  rig_build (&r, 2, &hp, SYSTEM_READ);
  host_inject_fault (r.host, HOST_FAULT_MISROUTE_CPL, 4);
  g_autoptr (GError) e = NULL;
  ck_assert (!rig_run (&r, 2, &e));
  ck_assert_msg (e->domain != MODEL_ERROR || e->code != MODEL_ERROR_PARAM, "%s", e->message);
  ck_assert_msg (strstr (e->message, "out of address order") || strstr (e->message, "deadlock"), "%s", e->message);
  fabric_free (r.f);
}
END_TEST

/* Peer-to-peer: endpoint A's DMA reads from and writes to endpoint B's BAR1, both engines at once, through the
 * root complex. By hand, per iteration of 100 KB each way: A's write engine sends 400 MWrs of 256 bytes (MPS), its
 * read engine 200 MRds of 512 bytes (MRRS), and B's memory target answers each with two 256-byte CplDs (MPS
 * policy, 256-byte aligned: RCB 64 never cuts earlier): the root complex forwards 400 + 200 + 400 TLPs, port to
 * port, the completions routed back by A's ID. B's memory takes 400 writes and 200 reads; host memory sees only
 * the descriptor fetches (one 400-byte fetch per engine: 25 descriptors) and the status writes and MSIs. */
START_TEST (test_peer_to_peer)
{
  HostParams hp = host_params_base ();
  Rig r;
  rig_build (&r, 2, &hp, SYSTEM_SIMULTANEOUS);
  r.w[0].peer = r.ep[1];
  r.w[0].peer_bar = 1;
  g_autoptr (GError) e = NULL;
  ck_assert_msg (rig_run (&r, 1, &e), "%s", e ? e->message : "");
  HostCounters hc = host_counters (r.host);
  EndpointCounters bc = endpoint_counters (r.ep[1]);
  ck_assert_uint_eq (hc.forwarded, ITERATIONS * (400 + 200 + 400));
  ck_assert_uint_eq (bc.writes, ITERATIONS * 400);
  ck_assert_uint_eq (bc.bytes_written, ITERATIONS * TRANSFER);
  ck_assert_uint_eq (bc.reads, ITERATIONS * 200);
  ck_assert_uint_eq (bc.cpls, ITERATIONS * 400);
  ck_assert_uint_eq (hc.reads, ITERATIONS * 2);
  ck_assert_uint_eq (hc.read_bytes_requested, ITERATIONS * 2 * 400);
  ck_assert_uint_eq (hc.writes + hc.msis, ITERATIONS * 2 * 2);
  ck_assert_uint_eq (r.r[0].dma.read_bytes_completed, ITERATIONS * TRANSFER);
  /* Through two links and the root complex, the read is slower than from host memory alone would be... but not
   * by more than the second link's round trip allows: both figures are positive and below the link's. */
  ck_assert (r.r[0].read_mbps > 0 && r.r[0].write_mbps > 0);
  ck_assert (r.r[0].read_mbps < link_theoretical_mbps (2, 8, 256));
  fabric_free (r.f);
}
END_TEST

/* Spec §2.3.1.1 (pcie-protocol.md §6): only a root complex may complete reads at a 64-byte RCB; an endpoint's
 * memory target uses 128, so an endpoint asked for 64 is refused, and 0 or 128 is accepted. */
START_TEST (test_endpoint_rcb)
{
  EndpointParams ep = endpoint_params_base ();
  g_autoptr (GError) e = NULL;
  ep.rcb_bytes = 64;
  ck_assert (!endpoint_params_check (&ep, &e));
  ck_assert_msg (strstr (e->message, "only a root complex may use 64"), "%s", e->message);
  ep.rcb_bytes = 0;
  ck_assert (endpoint_params_check (&ep, NULL));
  ep.rcb_bytes = 128;
  ck_assert (endpoint_params_check (&ep, NULL));
}
END_TEST

/* A peer-to-peer read completed by an endpoint is split at 128-byte boundaries (spec §2.3.1.1). Endpoint a reads
 * 512 bytes of b's BAR1 from offset 0x40 (MPS 256, so not one completion): a completion is at most MPS and ends on
 * an RCB multiple unless it ends the request, so the first runs 0x40..0xFF (192 bytes), the next 0x100..0x1FF
 * (256) and the last 0x200..0x23F (64). At RCB 64 the first could end on 0x140 (256 bytes) and the rest follow in
 * one: 256 + 256. */
typedef struct {
  Endpoint *a, *b;
  TlpPool *pool;
  gboolean sent;
  uint32_t sizes[4];
  guint n;
} PeerRead;

static gboolean
peer_peek (void *ctx, Tlp *probe)
{
  PeerRead *r = ctx;
  if (r->sent)
    return FALSE;
  *probe = (Tlp) { 0 };
  tlp_set (probe, TLP_MRD, FALSE, endpoint_bar (r->b, 1) + 0x40, 512);
  return TRUE;
}

static Tlp *
peer_take (void *ctx, const Tlp *probe)
{
  PeerRead *r = ctx;
  Tlp *t = tlp_alloc_copy (r->pool, probe);
  t->requester = endpoint_component (r->a)->id;
  t->tag = 7;
  r->sent = TRUE;
  return t;
}

static void
peer_cpl (void *ctx, const Tlp *cpl)
{
  PeerRead *r = ctx;
  if (r->n < G_N_ELEMENTS (r->sizes))
    r->sizes[r->n++] = cpl->payload_bytes;
}

START_TEST (test_endpoint_completes_at_rcb_128)
{
  HostParams hp = host_params_base ();
  Fabric *f = fabric_new (1);
  Host *host = host_new (f, "host", &hp, 2);
  EndpointParams ep = endpoint_params_base ();
  ep.has_dma = FALSE;
  PeerRead r = { 0 };
  r.a = endpoint_new (f, "a", &ep);
  r.b = endpoint_new (f, "b", &ep);
  connect (f, host_component (host), 0, endpoint_component (r.a), 0);
  connect (f, host_component (host), 1, endpoint_component (r.b), 0);
  g_autoptr (GError) e = NULL;
  ck_assert_msg (fabric_enumerate (f, &e), "%s", e ? e->message : "");
  r.pool = fabric_pool (f);
  static const AppTxClient client = { .peek = peer_peek, .take = peer_take };
  app_add_client (endpoint_app (r.a), &client, &r);
  endpoint_set_requester (r.a, peer_cpl, &r);
  app_kick (endpoint_app (r.a));
  sim_run (fabric_engine (f));
  ck_assert_msg (r.n == 3 && r.sizes[0] == 192 && r.sizes[1] == 256 && r.sizes[2] == 64,
                 "%u completions: %u, %u, %u bytes", r.n, r.sizes[0], r.sizes[1], r.sizes[2]);
  fabric_free (f);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("fabric");
  TCase *tc = tcase_create ("fabric");
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_enumeration);
  tcase_add_loop_test (tc, test_graph_errors, 0, G_N_ELEMENTS (graph_errors));
  tcase_add_loop_test (tc, test_reads_from_several_endpoints, 0, 3);
  tcase_add_test (tc, test_shared_completer_splits);
  tcase_add_test (tc, test_misrouted_completion_is_caught);
  tcase_add_test (tc, test_peer_to_peer);
  tcase_add_test (tc, test_endpoint_rcb);
  tcase_add_test (tc, test_endpoint_completes_at_rcb_128);
  suite_add_tcase (s, tc);
  return run_suite (s);
}
