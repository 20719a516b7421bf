/* test-host.c — the host model alone over a real link, with a scripted device on the other end.
 *
 * The device is a component of the test's own kind (fabric.h): the smallest thing a fabric can hold, which also
 * shows what a kind must provide. It sends MRds/MWrs and records what comes back. Expected figures are worked
 * out from the host's parameters (latencies, rates) and the spec's splitting rule; where the link's own timing
 * enters, only differences between two arrivals are checked, so the link's latency cancels. */
#include <check.h>
#include <math.h>

#include "models/devices/host.h"
#include "tests/common.h"

#define MAX_SEEN 64

typedef struct {
  SimTime at;
  TlpKind kind;
  uint64_t address, cookie, stamp;
  uint32_t payload, byte_count;
  uint16_t tag;
} Seen;

typedef struct Rig Rig;

typedef struct {
  Component base;
  Rig *rig;
} Device;

struct Rig {
  Fabric *f;
  SimEngine *engine;
  TlpPool *pool;
  Host *host;
  Device device; /* storage of the rig's, so the kind has no free */
  LinkPort *dev;
  guint n;
  Seen seen[MAX_SEEN];
};

static void
dev_receive (Component *c, FabricPort *port, Tlp *t)
{
  Rig *r = ((Device *) c)->rig;
  if (r->n < MAX_SEEN)
    r->seen[r->n++] = (Seen) { sim_now (r->engine), t->kind, t->address, t->cookie, t->stamp_ps,
                                              t->payload_bytes, t->length_bytes, t->tag };
  link_port_consume (port->link_port, t);
  tlp_free (r->pool, t);
}

/* The script checks credits itself before each send and never waits on a refusal. */
static void
dev_tx_ready (Component *c, FabricPort *port)
{
}

static const ComponentKind device_kind = { .name = "device", .receive = dev_receive, .tx_ready = dev_tx_ready };

/* Only what every test needs: RCB 64 as on the root complexes of pcie-protocol.md §6, and an 800 ns latency long
 * enough that two overlapping reads and two serial ones differ by over ten times a CplD's 69 ns on the wire. Every
 * rate left at 0 is "not limiting" (host.h), so each test turns on just the mechanism it measures. */
static HostParams
base_host_params (void)
{
  return (HostParams) { .rcb_bytes = 64, .cpl_policy = CPL_POLICY_MPS, .read_latency_ns = 800 };
}

static void
rig_init (Rig *r, const HostParams *hp)
{
  /* Gen2 x8 moves 8 bytes per 2 ns symbol time, 4 bytes/ns, so wire times are easy to work by hand: a 256-byte
   * CplD is 12 header + 8 framing (STP, sequence, LCRC, END; pcie-protocol.md §2) + 256 = 276 bytes = 69 ns. The
   * fixed pipelines and flight time add the same ~105 ns to every TLP, which is why the tests compare arrivals. */
  LinkParams lp = {
    .gen = 2, .lanes = 8, .max_payload_bytes = 256,
    .tx_pipeline_ps = 50 * SIM_NS, .rx_pipeline_ps = 50 * SIM_NS, .flight_ps = 5 * SIM_NS,
    .updatefc_period_ps = 20 * SIM_US,
    .rx_credits[LINK_DSP] = { .ph = 32, .pd = 512, .nph = 32, .npd = 32 },
    .rx_credits[LINK_USP] = { .ph = 32, .pd = 512, .nph = 32, .npd = 32 },
  };
  *r = (Rig) { 0 };
  r->f = fabric_new (1);
  r->engine = fabric_engine (r->f);
  r->pool = fabric_pool (r->f);
  r->host = host_new (r->f, "host", hp, 1);
  /* A BAR for the PIO write to land in. */
  r->device = (Device) { .base.bars[0] = { .size_bytes = 1 << 20 }, .rig = r };
  fabric_add (r->f, &r->device.base, &device_kind, COMPONENT_ENDPOINT, "device", 1);
  Link *l = fabric_connect (r->f, host_component (r->host), 0, &r->device.base, 0, &lp, NULL);
  ck_assert (l != NULL && fabric_enumerate (r->f, NULL));
  r->dev = link_port (l, LINK_USP);
}

static void
rig_finish (Rig *r)
{
  GError *err = NULL;
  ck_assert_msg (host_check_invariants (r->host, &err), "%s", err ? err->message : "");
  ck_assert_uint_eq (tlp_pool_live (r->pool), 0);
  fabric_free (r->f);
}

static void
dev_read (Rig *r, uint64_t address, uint32_t len, uint16_t tag)
{
  Tlp *t = tlp_alloc (r->pool);
  t->kind = TLP_MRD;
  t->header_bytes = 12;
  t->address = address;
  t->length_bytes = len;
  t->requester = r->device.base.id;
  t->tag = tag;
  ck_assert (link_port_can_send (r->dev, t));
  link_port_send (r->dev, t);
}

START_TEST (test_spec_example_on_the_wire)
{
  /* Spec §2.3.1.1 example through the host: 256 bytes at 0x10020, RCB 64, cache-line policy. The policy matters:
   * under the MPS policy 256 bytes fit one completion, which is just as legal and would hide the split. By hand:
   * 0x10020 -> 0x10040 (the next RCB multiple, 32 bytes), three whole RCB blocks to 0x10100, then the 32 left. */
  HostParams hp = base_host_params ();
  hp.cpl_policy = CPL_POLICY_RCB;
  Rig r;
  rig_init (&r, &hp);
  dev_read (&r, 0x10020, 256, 7);
  sim_run_until (r.engine, 50 * SIM_US);
  const uint32_t sizes[] = { 32, 64, 64, 64, 32 };
  ck_assert_uint_eq (r.n, 5);
  uint64_t a = 0x10020;
  uint32_t left = 256;
  for (guint i = 0; i < 5; i++) {
    ck_assert (r.seen[i].kind == TLP_CPLD);
    ck_assert_uint_eq (r.seen[i].payload, sizes[i]);
    ck_assert_uint_eq (r.seen[i].address, a); /* increasing address order */
    ck_assert_uint_eq (r.seen[i].byte_count, left); /* §2.2.9 byte count: what remains, this one included */
    ck_assert_uint_eq (r.seen[i].tag, 7);
    a += sizes[i];
    left -= sizes[i];
  }
  rig_finish (&r);
}
END_TEST

START_TEST (test_return_rate)
{
  /* 1000 MB/s = 1 byte/ns: each 256-byte completion occupies the return path 256 ns, more than its ~70 ns on
   * the Gen2 x8 wire, so arrivals are spaced by exactly the return-path time (+ 20 ns overhead).
   * Exact equality, not a tolerance: equal-sized TLPs entering an idle wire all see the same link latency, and
   * the last completion is in (~2.2 us) before the first SKP falls due (1180 symbol times = 2.36 us at Gen2,
   * phy.c). A host that charged the overhead once per request, or overlapped the return of consecutive
   * completions, gives 256 or 69 ns. */
  HostParams hp = base_host_params ();
  hp.cpl_rate_mbps = 1000;
  hp.cpl_overhead_ns = 20;
  Rig r;
  rig_init (&r, &hp);
  dev_read (&r, 0x20000, 1024, 1);
  sim_run_until (r.engine, 50 * SIM_US);
  ck_assert_uint_eq (r.n, 4);
  for (guint i = 1; i < 4; i++) {
    SimTime d = r.seen[i].at - r.seen[i - 1].at;
    ck_assert_msg (d == 276 * SIM_NS, "completion %u spacing %" G_GUINT64_FORMAT " ps, want 276 ns", i, d);
  }
  rig_finish (&r);
}
END_TEST

START_TEST (test_read_latency_and_queue_depth)
{
  /* Two 256-byte reads sent back to back. Unlimited queue: both wait the 800 ns latency in parallel, so the
   * second completion follows the first by no more than its wire time (~70 ns). Queue depth 1: the second
   * request starts its latency only when the first has returned its data, so it arrives 800 ns (plus the
   * first request's ~10 ns difference on the wire) later. */
  HostParams hp = base_host_params ();
  Rig r;
  rig_init (&r, &hp);
  dev_read (&r, 0x30000, 256, 1);
  dev_read (&r, 0x30100, 256, 2);
  sim_run_until (r.engine, 50 * SIM_US);
  ck_assert_uint_eq (r.n, 2);
  /* 80 ns = the second CplD's ~69 ns behind the first on the wire, plus room for an SKP ordered set (4 symbols,
   * 8 ns) or a DLLP (2 ns at x8) slipping between them. A host that served reads one at a time gives ~800 ns. */
  SimTime parallel = r.seen[1].at - r.seen[0].at;
  ck_assert_msg (parallel <= 80 * SIM_NS, "unlimited queue: %" G_GUINT64_FORMAT " ps apart", parallel);
  rig_finish (&r);

  hp.read_queue_depth = 1;
  rig_init (&r, &hp);
  dev_read (&r, 0x30000, 256, 1);
  dev_read (&r, 0x30100, 256, 2);
  sim_run_until (r.engine, 50 * SIM_US);
  ck_assert_uint_eq (r.n, 2);
  SimTime serial = r.seen[1].at - r.seen[0].at;
  /* The first MRd arrives before the second by its own wire time (~6 ns at Gen2 x8), which the queue absorbs.
   * The upper bound pins when the queue slot frees: as the last completion leaves the return path. A host that
   * freed it only once that CplD was serialised (69 ns) or had crossed the link (~105 ns more) would exceed 820. */
  ck_assert_msg (serial >= 800 * SIM_NS && serial <= 820 * SIM_NS, "queue depth 1: %" G_GUINT64_FORMAT " ps apart",
    serial);
  rig_finish (&r);
}
END_TEST

static void
dev_write (Rig *r, uint64_t address, uint32_t len)
{
  Tlp *t = tlp_alloc (r->pool);
  t->kind = TLP_MWR;
  t->header_bytes = 12;
  t->address = address;
  t->payload_bytes = len;
  t->requester = r->device.base.id;
  ck_assert (link_port_can_send (r->dev, t));
  link_port_send (r->dev, t);
}

/* Arrival of the first completion after the scripted device sent `order` ("rw": the MRd then a 256-byte MWr;
 * "wr": the MWr first; "r": the MRd alone) at time 0. */
static SimTime
read_after (const HostParams *hp, const char *order)
{
  Rig r;
  rig_init (&r, hp);
  for (const char *c = order; *c; c++) {
    if (*c == 'r')
      dev_read (&r, 0x50000, 256, 3);
    else
      dev_write (&r, 0x60000, 256);
  }
  sim_run_until (r.engine, 50 * SIM_US);
  SimTime at = 0;
  for (guint i = 0; i < r.n && at == 0; i++)
    if (r.seen[i].kind == TLP_CPLD)
      at = r.seen[i].at;
  ck_assert (at != 0);
  rig_finish (&r);
  return at;
}

START_TEST (test_read_waits_for_earlier_writes)
{
  /* Spec §2.4.1 (Table 2-40): a read request must not pass a posted write received before it, so the root
   * complex starts the read only once that write has been handed on, write_latency_ns (2 us here) after it
   * drained. By hand against the read alone: the MWr arrives first (its 276 bytes take 69 ns at Gen2 x8 and the
   * MRd queues behind it on the wire), and the read's 800 ns latency starts 2 us after the write's arrival, so its
   * completion comes 2000 + 69 ns later. A host that let the read pass starts it at its own arrival: ~75 ns later.
   * A write received after the read delays nothing: its completion leaves with the read alone's timing, give or
   * take a DLLP on the wire (Acks and UpdateFCs for the write share the return link). */
  HostParams hp = base_host_params ();
  hp.write_latency_ns = 2000;
  SimTime alone = read_after (&hp, "r"), behind = read_after (&hp, "wr"), ahead = read_after (&hp, "rw");
  SimTime d = behind - alone;
  ck_assert_msg (d >= 2060 * SIM_NS && d <= 2080 * SIM_NS, "read behind a write: %" G_GUINT64_FORMAT " ps later", d);
  ck_assert_msg (ahead >= alone && ahead - alone <= 10 * SIM_NS, "read ahead of a write: %" G_GINT64_FORMAT " ps later",
    (gint64) (ahead - alone));
}
END_TEST

START_TEST (test_write_drain_and_pio)
{
  /* 500 MB/s drain: 64 MWrs of 256 bytes reach the host much faster than that (Gen2 x8), so host memory
   * fills at 0.5 bytes/ns; credits (32 PH, 512 PD = 8 KB) keep the rest waiting in the device. */
  HostParams hp = base_host_params ();
  hp.write_drain_mbps = 500;
  hp.sw_pio_latency_ns = 0;
  Rig r;
  rig_init (&r, &hp);
  guint sent = 0;
  /* The scripted device keeps the link fed whenever credits allow. */
  while (sent < 64) {
    Tlp probe = { .kind = TLP_MWR, .header_bytes = 12, .payload_bytes = 256 };
    if (link_port_can_send (r.dev, &probe)) {
      Tlp *t = tlp_alloc (r.pool);
      *t = probe;
      t->address = 0x40000 + 256 * (uint64_t) sent;
      link_port_send (r.dev, t);
      sent++;
      continue;
    }
    SimTime next = sim_next_time (r.engine);
    ck_assert (next != SIM_TIME_MAX);
    sim_run_until (r.engine, next);
  }
  /* The last send went as soon as PD credits came back, so at t0 the host holds the 8 KB those credits cover
   * (32 TLPs, 16.4 us of draining): the 10 us window below lies wholly inside the steady drain. */
  SimTime t0 = sim_now (r.engine);
  sim_run_until (r.engine, t0 + 5 * SIM_US);
  uint64_t b0 = host_counters (r.host).bytes_written;
  sim_run_until (r.engine, t0 + 15 * SIM_US);
  uint64_t b1 = host_counters (r.host).bytes_written;
  /* 10 us at 0.5 bytes/ns is 5000 bytes. bytes_written grows a whole TLP at a time when its drain ends, so a
   * window sees 19 or 20 TLPs (4864 or 5120 bytes): one TLP, 256 bytes, is the tolerance. A sink that ignored
   * the drain rate would have taken all 16 KB within ~0.1 us of the last send, and the window would see 0. */
  ck_assert_msg (llabs ((long long) (b1 - b0) - 5000) <= 256, "drained %" G_GUINT64_FORMAT " bytes in 10 us, want 5000",
    b1 - b0);
  sim_run_until (r.engine, t0 + 100 * SIM_US);
  ck_assert_uint_eq (host_counters (r.host).bytes_written, 64 * 256);

  /* A PIO write carries its register value and the time it left the root port. */
  uint64_t reg = r.device.base.bars[0].base + 4;
  SimTime at = host_pio_write (r.host, 100 * SIM_NS, reg, FALSE, 0xCAFE);
  sim_run_until (r.engine, sim_now (r.engine) + 10 * SIM_US);
  ck_assert_uint_ge (r.n, 1);
  ck_assert (r.seen[r.n - 1].kind == TLP_MWR);
  ck_assert_uint_eq (r.seen[r.n - 1].cookie, 0xCAFE);
  ck_assert_uint_eq (r.seen[r.n - 1].address, reg);
  /* Nothing else waits in the host's transmit FIFO and the device has credits, so the write leaves as soon as it
   * is queued: a stamp taken when software decided (100 ns earlier) or at arrival (~105 ns later) fails here. */
  ck_assert_uint_eq (r.seen[r.n - 1].stamp, at);
  rig_finish (&r);
}
END_TEST

/* Tags are per requester (spec §2.2.6.2): a requester that sends a read with a tag its earlier read still holds
 * has broken the protocol, and the completer stops the run (exit 70) rather than answer two requests nobody
 * could tell apart. The same tag after the first read completed is legal. Runs in Check's forked child. */
START_TEST (test_tag_reuse_exits_70)
{
  HostParams hp = base_host_params ();
  Rig r;
  rig_init (&r, &hp);
  dev_read (&r, 0x30000, 256, 5);
  sim_run_until (r.engine, 50 * SIM_US);
  ck_assert_uint_eq (r.n, 1);
  dev_read (&r, 0x30100, 256, 5);
  sim_run_until (r.engine, 100 * SIM_US);
  ck_assert_uint_eq (r.n, 2);
  dev_read (&r, 0x30000, 256, 5);
  dev_read (&r, 0x30100, 256, 5);
  sim_run_until (r.engine, 150 * SIM_US);
}
END_TEST

/* Reads of 64 bytes, one at a time, every 1 KB over a window of `pages` 4 KB pages, `passes` times round:
 * the host's IOTLB counters at the end. */
static HostCounters
iotlb_after (const HostParams *hp, uint32_t pages, uint32_t passes)
{
  Rig r;
  rig_init (&r, hp);
  for (uint32_t p = 0; p < passes; p++)
    for (uint64_t off = 0; off < pages * UINT64_C (4096); off += 1024) {
      dev_read (&r, 0x100000 + off, 64, 1);
      sim_run_until (r.engine, sim_now (r.engine) + 20 * SIM_US);
    }
  HostCounters c = host_counters (r.host);
  rig_finish (&r);
  return c;
}

/* The IOTLB (host.h): least recently used replacement of `entries` translations, so a window of pages walked in
 * order fits when it has at most `entries` pages (only the first pass misses, once per page) and thrashes when it
 * has one page more (every page misses on every pass: the one it needs was the least recently used). That is
 * pcie-bench's knee at a window of entries x page size. By hand, 4 entries and 3 passes of 4 reads per page:
 * 4 pages: 4 misses, 44 hits; 5 pages: 15 misses, 45 hits. 2 MB pages put 5 such pages in one entry: 1 miss. */
START_TEST (test_iommu_knee)
{
  HostParams hp = base_host_params ();
  hp.iommu_enabled = TRUE;
  hp.iotlb_entries = 4;
  hp.iommu_page_bytes = 4096;
  hp.iommu_walk_ns = 300;
  HostCounters in = iotlb_after (&hp, 4, 3), out = iotlb_after (&hp, 5, 3);
  ck_assert_uint_eq (in.iotlb_misses, 4);
  ck_assert_uint_eq (in.iotlb_hits, 44);
  ck_assert_uint_eq (out.iotlb_misses, 15);
  ck_assert_uint_eq (out.iotlb_hits, 45);
  hp.iommu_page_bytes = 2 << 20;
  HostCounters huge = iotlb_after (&hp, 5, 3);
  ck_assert_uint_eq (huge.iotlb_misses, 1);
  /* Off, nothing is translated. */
  hp.iommu_enabled = FALSE;
  HostCounters off = iotlb_after (&hp, 5, 1);
  ck_assert_uint_eq (off.iotlb_misses + off.iotlb_hits, 0);
}
END_TEST

/* Completions of different reads may return in any order (spec §2.4.1, issue #39 point 11): a read whose data is
 * slow (a 512-byte read at 1 ns per byte of latency: 800 + 512 ns) does not hold back one sent right behind it
 * whose data is ready first (64 bytes: 800 + 64 ns, 448 ns sooner). Any order: the small read's one CplD leaves
 * first, then the two of the large one (MPS 256) in address order. In order (host.completions_in_order): the large
 * read's two first. */
START_TEST (test_slow_read_does_not_hold_back_a_ready_one)
{
  HostParams hp = base_host_params ();
  hp.read_latency_per_byte_ps = 1000;
  hp.cpl_in_order = _i == 1;
  Rig r;
  rig_init (&r, &hp);
  dev_read (&r, 0x40000, 512, 1);
  dev_read (&r, 0x50000, 64, 2);
  sim_run_until (r.engine, 20 * SIM_US);
  ck_assert_uint_eq (r.n, 3);
  static const uint16_t any[] = { 2, 1, 1 }, ordered[] = { 1, 1, 2 };
  const uint16_t *want = _i == 1 ? ordered : any;
  for (guint k = 0; k < 3; k++)
    ck_assert_msg (r.seen[k].tag == want[k], "in order %d: completion %u has tag %u, want %u", _i, k, r.seen[k].tag,
                   want[k]);
  /* The large read's completions in address order either way. */
  guint first = _i == 1 ? 0 : 1;
  ck_assert (r.seen[first].address == 0x40000 && r.seen[first + 1].address == 0x40100);
  rig_finish (&r);
}
END_TEST

/* The IOTLB's replacement order (issue #39: an IOTLB made FIFO passed every test), by hand: 4 entries, one 64-byte
 * read each of pages 0, 1, 2, 3, 0, 4, 0. Least recently used: 0-3 miss; 0 hits and becomes the most recent; 4
 * misses and replaces 1, the least recent; 0 hits: 5 misses, 2 hits. First in, first out would replace 0 for 4,
 * and the last read of 0 would miss: 6 and 1. */
START_TEST (test_iotlb_lru_order)
{
  HostParams hp = base_host_params ();
  hp.iommu_enabled = TRUE;
  hp.iotlb_entries = 4;
  hp.iommu_page_bytes = 4096;
  hp.iommu_walk_ns = 300;
  static const uint32_t pages[] = { 0, 1, 2, 3, 0, 4, 0 };
  Rig r;
  rig_init (&r, &hp);
  for (size_t i = 0; i < G_N_ELEMENTS (pages); i++) {
    dev_read (&r, 0x100000 + pages[i] * UINT64_C (4096), 64, 1);
    sim_run_until (r.engine, sim_now (r.engine) + 20 * SIM_US);
  }
  HostCounters c = host_counters (r.host);
  rig_finish (&r);
  ck_assert_msg (c.iotlb_misses == 5 && c.iotlb_hits == 2, "%" G_GUINT64_FORMAT " misses, %" G_GUINT64_FORMAT " hits",
                 c.iotlb_misses, c.iotlb_hits);
}
END_TEST

/* A miss costs its read the walk: the first read of a page completes walk_ns (300) later than without the IOMMU,
 * and a second read of the same page, sent right behind it, waits for that same walk, not another one: its
 * completion follows the first by its wire time (~20 ns for a 64-byte CplD at Gen2 x8), as without the IOMMU. */
/* The tests' IOMMU (on or off): 4 entries of 4 KB, 300-ns walks, `walkers` walkers, reads resuming `resume_ns`
 * after their walk. */
static void
iommu_set (HostParams *hp, gboolean on, uint32_t walkers, double resume_ns)
{
  hp->iommu_enabled = on;
  hp->iotlb_entries = 4;
  hp->iommu_page_bytes = 4096;
  hp->iommu_walk_ns = 300;
  hp->iommu_walks = walkers;
  hp->iommu_read_resume_ns = resume_ns;
}

/* Two 64-byte reads, at 0x70000 and `second`, without (t[0]) and with (t[1]) the tests' IOMMU: when each one's
 * data arrives. */
static void
two_reads (uint64_t second, uint32_t walkers, double resume_ns, SimTime t[2][2])
{
  HostParams hp = base_host_params ();
  for (int on = 0; on < 2; on++) {
    iommu_set (&hp, on, walkers, resume_ns);
    Rig r;
    rig_init (&r, &hp);
    dev_read (&r, 0x70000, 64, 1);
    dev_read (&r, second, 64, 2);
    sim_run_until (r.engine, 50 * SIM_US);
    ck_assert_uint_eq (r.n, 2);
    t[on][0] = r.seen[0].at;
    t[on][1] = r.seen[1].at;
    rig_finish (&r);
  }
}

START_TEST (test_iommu_walk_time)
{
  SimTime t[2][2];
  two_reads (0x70040, 1, 0, t);
  ck_assert_msg (t[1][0] - t[0][0] == 300 * SIM_NS, "first read %" G_GINT64_FORMAT " ps later with the IOMMU",
                 (gint64) (t[1][0] - t[0][0]));
  ck_assert_msg (t[1][1] - t[1][0] == t[0][1] - t[0][0], "second read %" G_GINT64_FORMAT " ps behind the first, %"
                 G_GINT64_FORMAT " ps without the IOMMU", (gint64) (t[1][1] - t[1][0]), (gint64) (t[0][1] - t[0][0]));
}
END_TEST

/* Two misses on different pages arriving together: with two walkers both walks run at once, so each read comes
 * exactly one walk later than without the IOMMU; with one, the second walk waits for the first (host.h). */
START_TEST (test_iommu_walkers_overlap)
{
  SimTime t[2][2];
  two_reads (0x90000, (uint32_t) (_i + 1), 0, t);
  ck_assert_msg (t[1][0] - t[0][0] == 300 * SIM_NS, "first read %" G_GINT64_FORMAT " ps later",
                 (gint64) (t[1][0] - t[0][0]));
  if (_i == 1)
    ck_assert_msg (t[1][1] - t[0][1] == 300 * SIM_NS, "second read %" G_GINT64_FORMAT " ps later with two walkers",
                   (gint64) (t[1][1] - t[0][1]));
  else
    ck_assert_msg (t[1][1] - t[0][1] > 300 * SIM_NS, "second read only %" G_GINT64_FORMAT " ps later with one walker",
                   (gint64) (t[1][1] - t[0][1]));
}
END_TEST

/* A read that missed resumes read_resume_ns (50) after its walk (300), its walker busy until then; a posted write
 * waits for the walk alone. By hand: a read of a page being walked resumes with the one that started the walk,
 * so it follows it as without the IOMMU; two misses on different pages at once: with two walkers each read is
 * 350 ns later than without, with one the second waits for the first's walker, 350, then its own 350: 700 less
 * the few ns it arrived after the first, where a walker free at the walk's end gives at most 650. A read behind a write of
 * another page (both missing, two walkers) waits for the write's release, which its walk delays by 300, not 350. */
START_TEST (test_iommu_read_resume)
{
  SimTime t[2][2];
  two_reads (0x70040, 1, 50, t);
  ck_assert_msg (t[1][0] - t[0][0] == 350 * SIM_NS, "first read %" G_GINT64_FORMAT " ps later",
                 (gint64) (t[1][0] - t[0][0]));
  ck_assert (t[1][1] - t[1][0] == t[0][1] - t[0][0]);
  two_reads (0x90000, 2, 50, t);
  ck_assert (t[1][0] - t[0][0] == 350 * SIM_NS && t[1][1] - t[0][1] == 350 * SIM_NS);
  two_reads (0x90000, 1, 50, t);
  ck_assert_msg (t[1][1] - t[0][1] > 650 * SIM_NS,
                 "second read %" G_GINT64_FORMAT " ps later with one walker", (gint64) (t[1][1] - t[0][1]));
  HostParams hp = base_host_params ();
  hp.write_latency_ns = 2000;
  SimTime plain = read_after (&hp, "wr");
  iommu_set (&hp, TRUE, 2, 50);
  SimTime translated = read_after (&hp, "wr");
  ck_assert_msg (translated - plain == 300 * SIM_NS, "read behind a missing write: %" G_GINT64_FORMAT " ps later",
                 (gint64) (translated - plain));
}
END_TEST

/* How much later than without the IOMMU the last completion of one read of `len` bytes at 0x70000 arrives: a miss,
 * with walks of 300 ns, reads resuming 50 ns after and 20 more per further group of two completions, one per
 * 64-byte line (`full_block` 0) or, with a 512-byte block, a whole block's first line and then MPS-sized ones. */
static SimTime
group_resume_delay (uint32_t len, uint32_t full_block, double group_ns)
{
  HostParams hp = base_host_params ();
  hp.cpl_policy = CPL_POLICY_RCB;
  hp.cpl_group_tlps = 2;
  hp.full_block_bytes = full_block;
  SimTime last[2];
  for (int on = 0; on < 2; on++) {
    iommu_set (&hp, on, 1, 50);
    hp.iommu_read_resume_group_ns = group_ns;
    Rig r;
    rig_init (&r, &hp);
    dev_read (&r, 0x70000, len, 1);
    sim_run_until (r.engine, 50 * SIM_US);
    ck_assert (r.n > 0 && r.seen[r.n - 1].byte_count == r.seen[r.n - 1].payload);
    last[on] = r.seen[r.n - 1].at;
    rig_finish (&r);
  }
  return last[1] - last[0];
}

/* A read that missed is handed back by its walker one group of its completions at a time, read_resume_ns (50) for
 * the first and read_resume_group_ns (20) for each further one. By hand, line by line in pairs: 64 and 128 bytes
 * (one and two lines, one group) 300 + 50 = 350 ns later than without the IOMMU, 192 and 256 bytes (three and four
 * lines, two groups) 370, 512 bytes (eight lines, four groups) 410; a whole 512-byte block leaves as 64 + 256 +
 * 192 (three completions, two groups): 370. Without the group time (0) every size is 350 later. */
START_TEST (test_iommu_read_resume_groups)
{
  const struct { uint32_t len, block; SimTime later_ns; } cases[] = {
    { 64, 0, 350 }, { 128, 0, 350 }, { 192, 0, 370 }, { 256, 0, 370 }, { 512, 0, 410 }, { 512, 512, 370 },
  };
  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++) {
    SimTime d = group_resume_delay (cases[i].len, cases[i].block, 20);
    ck_assert_msg (d == cases[i].later_ns * SIM_NS, "%u bytes (block %u): %" G_GINT64_FORMAT " ps later, by hand %"
                   G_GINT64_FORMAT " ns", cases[i].len, cases[i].block, (gint64) d, (gint64) cases[i].later_ns);
    ck_assert (group_resume_delay (cases[i].len, cases[i].block, 0) == 350 * SIM_NS);
  }
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("host");
  TCase *tc = tcase_create ("host");
  tcase_add_test (tc, test_spec_example_on_the_wire);
  tcase_add_test (tc, test_return_rate);
  tcase_add_test (tc, test_read_latency_and_queue_depth);
  tcase_add_test (tc, test_write_drain_and_pio);
  tcase_add_test (tc, test_read_waits_for_earlier_writes);
  tcase_add_test (tc, test_iommu_knee);
  tcase_add_test (tc, test_iotlb_lru_order);
  tcase_add_loop_test (tc, test_slow_read_does_not_hold_back_a_ready_one, 0, 2);
  tcase_add_test (tc, test_iommu_walk_time);
  tcase_add_loop_test (tc, test_iommu_walkers_overlap, 0, 2);
  tcase_add_test (tc, test_iommu_read_resume);
  tcase_add_test (tc, test_iommu_read_resume_groups);
  tcase_add_exit_test (tc, test_tag_reuse_exits_70, 70);
  suite_add_tcase (s, tc);
    return run_suite (s);
}
