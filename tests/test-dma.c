/* test-dma.c — host + application datapath + chaining DMA over the real link model.
 *
 * Expected figures are derived by hand below from the configured latencies and wire times (never copied from a
 * run). The base system is chosen so latencies dominate and small link effects (DLLPs, SKPs, lane padding) stay
 * well inside the tolerances: Gen2 x8 (2 ns symbol time, 8 bytes per symbol time across the link), 128-bit
 * datapath at 250 MHz (4 ns beats), host read latency 1 us, pipelines 100 ns each way, flight 10 ns. */
#include <check.h>
#include <math.h>

#include "models/devices/avst.h"
#include "models/workloads/system.h"
#include "tests/common.h"

static SystemParams
base_params (void)
{
  SystemParams p = {
    .link = {
      .gen = 2, .lanes = 8, .max_payload_bytes = 256,
      .tx_pipeline_ps = 100 * SIM_NS, .rx_pipeline_ps = 100 * SIM_NS, .flight_ps = 10 * SIM_NS,
      .replay_buffer_bytes = 0, .tx_queue_tlps = 0, .updatefc_period_ps = 20 * SIM_US,
      /* Generous finite P/NP credits so flow control never binds here; completions infinite (0). */
      .rx_credits[LINK_DSP] = { .ph = 128, .pd = 2048, .nph = 64, .npd = 64, .cplh = 0, .cpld = 0 },
      .rx_credits[LINK_USP] = { .ph = 64, .pd = 256, .nph = 64, .npd = 64, .cplh = 0, .cpld = 0 },
    },
    .host = {
      .rcb_bytes = 64, .cpl_policy = CPL_POLICY_MPS,
      .read_latency_ns = 1000, .read_latency_per_byte_ps = 0, .cpl_rate_mbps = 0, .cpl_overhead_ns = 0,
      .write_drain_mbps = 0, .write_latency_ns = 0,
      .sw_pio_latency_ns = 500, .sw_pio_gap_ns = 50, .msi_latency_ns = 1000, .poll_interval_ns = 0,
      .iteration_gap_ns = 2000,
    },
    .app = { .width_bits = 128, .clock_mhz = 250, .header_own_beat = FALSE, .tx_gap_cycles = 0,
             .arbitration = APP_ARB_ROUND_ROBIN, .arb_switch_cycles = 0, .rx_overhead_cycles = 0 },
    .dma = { .max_payload_bytes = 256, .max_read_request_bytes = 512, .tags = 32, .cpl_buffer_bytes = 0,
             .desc_max_bytes = 4096, .desc_per_fetch = 32, .desc_fifo_entries = 32, .desc_setup_cycles = 0,
             .addr64 = FALSE, .msi = TRUE, .counter_start = DMA_COUNTER_AT_ENDPOINT },
    .transfer_bytes = 102400,
    .iterations = 3,
  };
  return p;
}

static SystemResult
run (const SystemParams *p, SystemMode mode)
{
  SystemResult r;
  GError *err = NULL;
  gboolean ok = system_run (p, mode, 1, &r, &err);
  ck_assert_msg (ok, "%s run failed: %s", system_mode_name (mode), err ? err->message : "?");
  return r;
}

/* Wire time in ns of a TLP of `bytes` including 20 bytes of Gen2 framing + 3-DW header + LCRC on x8 at
 * Gen2 (2 ns per symbol time, 8 lanes; a packet occupies whole symbol times). */
static double
wire_ns (uint32_t payload)
{
  return ceil ((payload + 20) / 8.0) * 2.0;
}

START_TEST (test_write_split_counts)
{
  /* 100 KB page-aligned, MPS 256: 400 data MWrs per transfer, never crossing 4 KB (split.h), plus one EPLAST. */
  SystemParams p = base_params ();
  SystemResult r = run (&p, SYSTEM_WRITE);
  ck_assert_uint_eq (r.dma.mwrs, p.iterations * (400 + 1));
  ck_assert_uint_eq (r.dma.write_bytes_sent, p.iterations * p.transfer_bytes);
  /* 25 descriptors of 4 KB, all in one 400-byte fetch per transfer. */
  ck_assert_uint_eq (r.dma.desc_fetches, p.iterations);
  ck_assert_uint_eq (r.host.msis, p.iterations);
  /* MPS 128: 800 MWrs. */
  p.dma.max_payload_bytes = 128;
  p.link.max_payload_bytes = 128;
  r = run (&p, SYSTEM_WRITE);
  ck_assert_uint_eq (r.dma.mwrs, p.iterations * (800 + 1));
}
END_TEST

/* Round trip of one 512-byte read with one tag, by hand (ns):
 *   MRd on the 128-bit interface        1 beat                      4
 *   tx pipeline + wire(12+8 B) + flight + rx pipeline      100 + wire_ns(0) + 10 + 100
 *   host read latency                                      1000
 *   2 x 256-byte CplD (MPS policy), emitted together; the first crosses tx pipeline + wire + flight + rx
 *   pipeline, the second follows it on the wire (wire_ns(256) later)
 *   the second takes 17 beats (3-DW header, qword-aligned: (4 + 64) / 4) on the receive interface
 *   next arbitration: up to one beat to the next clock edge: 2 on average
 * The counter also holds one descriptor fetch (400 bytes -> one 400-byte completion <= MPS? no: 400 > 256, so
 * 256 + 144 with MPS 256 and RCB 64) and the start: treated as one more round trip of the same shape. */
static double
one_tag_round_trip_ns (void)
{
  return 4 + (100 + wire_ns (0) + 10 + 100) + 1000 + (100 + wire_ns (256) + 10 + 100) + wire_ns (256) + 17 * 4 + 2;
}

START_TEST (test_one_tag_latency_bound)
{
  SystemParams p = base_params ();
  p.dma.tags = 1;
  SystemResult r = run (&p, SYSTEM_READ);
  double rt = one_tag_round_trip_ns ();
  /* 200 data reads in series + the descriptor fetch (~ one round trip: same path, 400 bytes back). */
  double want = (double) p.transfer_bytes / ((200 + 1) * rt) * 1e3; /* bytes/ns -> MB/s */
  ck_assert_msg (fabs (r.read_mbps - want) / want < 0.02, "1 tag: %.1f MB/s, hand-derived %.1f (RT %.1f ns)",
    r.read_mbps, want, rt);
  /* A completion buffer of one MRRS holds the engine to one read in flight whatever the tags: same figure. */
  p.dma.tags = 32;
  p.dma.cpl_buffer_bytes = 512;
  SystemResult r2 = run (&p, SYSTEM_READ);
  ck_assert_msg (fabs (r2.read_mbps - r.read_mbps) / r.read_mbps < 0.01, "buffer-limited %.1f vs 1 tag %.1f",
    r2.read_mbps, r.read_mbps);
}
END_TEST

START_TEST (test_tags_scale_until_link_limits)
{
  SystemParams p = base_params ();
  static const uint32_t tags[] = { 1, 2, 4, 8, 16, 32, 64 };
  double prev = 0, first = 0;
  double limit = link_theoretical_mbps (2, 8, 256);
  for (guint i = 0; i < G_N_ELEMENTS (tags); i++) {
    p.dma.tags = tags[i];
    SystemResult r = run (&p, SYSTEM_READ);
    ck_assert_msg (r.read_mbps >= prev * 0.999, "%u tags: %.1f < %.1f with fewer", tags[i], r.read_mbps, prev);
    ck_assert_msg (r.read_mbps < limit, "%u tags: %.1f above the link's %.1f", tags[i], r.read_mbps, limit);
    if (i == 0)
      first = r.read_mbps;
    /* While latency-bound (outstanding bytes below bandwidth x round trip, ~3.5 GB/s x 1.6 us = 5.6 KB, i.e.
     * up to 8 tags of 512 B), n tags give n times the single-tag figure, less the shared wire time. */
    if (tags[i] == 2)
      ck_assert_msg (r.read_mbps > 1.9 * first, "2 tags: %.1f, 1 tag %.1f", r.read_mbps, first);
    prev = r.read_mbps;
  }
  /* With 64 tags the link, not latency, is the limit: within 15% of the vendor figure (reads also pay the
   * descriptor fetch and one round trip of start-up in a 100 KB transfer). */
  ck_assert_msg (prev > 0.85 * limit, "64 tags: %.1f, link %.1f", prev, limit);
}
END_TEST

/* 10-bit tags (issue #12 item 6): past 256, up to 768 reads may be outstanding (spec §2.2.6.2). With a 1 ms host
 * read latency the link is idle most of the time, so a 1 MB read in 512-byte requests (one descriptor, so one
 * fetch) takes, with k tags, one round trip RT for the descriptor fetch, 2048 / k round trips of data (each tag
 * runs its requests one after another), and the last round's completions draining through the wire and the
 * receive interface: k x 512 bytes at one 256-byte CplD per 70 ns (wire_ns (256) = 70, against 17 beats = 68 ns
 * of interface). RT = 1 ms plus about 0.5 us of pipelines and wire. So T(k) = (1 + 2048 / k) RT + k x 140 ns. */
START_TEST (test_ten_bit_tags)
{
  SystemParams p = base_params ();
  p.host.read_latency_ns = 1e6;
  p.transfer_bytes = 1 << 20;
  p.iterations = 1;
  p.dma.desc_max_bytes = 0;
  const double rt_ns = 1e6 + 500;
  for (uint32_t k = 256; k <= 512; k += 256) {
    p.dma.tags = k;
    SystemResult r = run (&p, SYSTEM_READ);
    double t_ns = (1 + 2048.0 / k) * rt_ns + k * 2 * wire_ns (256);
    double want = (double) p.transfer_bytes / t_ns * 1e3;
    ck_assert_msg (fabs (r.read_mbps - want) / want < 0.01, "%u tags: %.2f MB/s, hand %.2f", k, r.read_mbps, want);
    /* Every tag is used at once (there are 2048 requests to fill them). */
    ck_assert_uint_eq (r.dma.tags_high_water, k);
  }
  /* 768 is the most the non-flit link carries; one more is refused before anything is built. */
  p.dma.tags = 768;
  SystemResult r = run (&p, SYSTEM_READ);
  ck_assert_uint_eq (r.dma.tags_high_water, 768);
  p.dma.tags = 769;
  g_autoptr (GError) e = NULL;
  ck_assert (!system_params_check (&p, &e));
}
END_TEST

/* The completion-header budget (issue #12 item 6): with completion_buffer_headers = H a read goes out only when
 * every completion it may come back as has a slot, one per RCB block it touches (spec §2.3.1.1). A page-aligned
 * 512-byte request touches 512 / RCB blocks: 8 at RCB 64, 4 at RCB 128. H = 17 then allows 2 (RCB 64) or 4
 * (RCB 128) data reads in flight whatever the tags and whatever size the host really completes in, so the figure
 * equals that of 2 or 4 tags with no header limit (the one-descriptor fetch, 1 slot, goes before any data). */
START_TEST (test_completion_header_budget)
{
  static const struct { uint32_t rcb, in_flight; } cases[] = { { 64, 2 }, { 128, 4 } };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    SystemParams p = base_params ();
    p.host.rcb_bytes = p.dma.rcb_bytes = cases[i].rcb;
    p.dma.desc_max_bytes = 0;
    p.dma.tags = cases[i].in_flight;
    SystemResult by_tags = run (&p, SYSTEM_READ);
    p.dma.tags = 32;
    p.dma.cpl_buffer_headers = 17;
    SystemResult by_headers = run (&p, SYSTEM_READ);
    ck_assert_msg (fabs (by_headers.read_mbps - by_tags.read_mbps) / by_tags.read_mbps < 0.005,
      "RCB %u: %.1f MB/s with 17 header slots, %.1f with %u tags", cases[i].rcb, by_headers.read_mbps,
      by_tags.read_mbps, cases[i].in_flight);
    ck_assert_uint_le (by_headers.dma.cpl_headers_high_water, 17);
    ck_assert_uint_eq (by_headers.dma.tags_high_water, cases[i].in_flight);
  }
  /* Fewer slots than one request may need (512 / 64 + 1 = 9) is refused: no read could ever go out. */
  SystemParams p = base_params ();
  p.dma.cpl_buffer_headers = 8;
  g_autoptr (GError) e = NULL;
  ck_assert (!system_params_check (&p, &e));
}
END_TEST

/* Issue #12 item 12: link usage covers the windows the MB/s figures are measured over, every iteration's counter
 * window, not only the last one. In write mode the window is the write counter's, so its mean length equals
 * the counter's; upstream the windows hold exactly every data MWr of every iteration (EPLAST and the MSI go
 * after the counter stops, the descriptor fetch has no upstream payload), so the payload share of the 4000 MB/s
 * Gen2 x8 wire is the MB/s figure. In read mode the downstream windows hold every data byte and the 400 bytes
 * of each iteration's one descriptor fetch (25 descriptors of 16 bytes; the PIO start writes come before). */
START_TEST (test_usage_covers_counter_windows)
{
  SystemParams p = base_params ();
  SystemResult w = run (&p, SYSTEM_WRITE);
  ck_assert_uint_eq (w.usage_windows, p.iterations);
  ck_assert_msg (fabs (w.usage_window_ns - w.write_counter_ns) < 1e-6, "usage %.3f ns, counter %.3f ns",
    w.usage_window_ns, w.write_counter_ns);
  ck_assert_uint_eq (w.upstream_counters.payload_bytes, p.iterations * p.transfer_bytes);
  double carried = w.upstream.payload * 8 * 500.0;
  ck_assert_msg (fabs (carried - w.write_mbps) / w.write_mbps < 0.001, "payload share x wire %.2f, figure %.2f",
    carried, w.write_mbps);
  SystemResult r = run (&p, SYSTEM_READ);
  ck_assert_uint_eq (r.usage_windows, p.iterations);
  ck_assert_uint_eq (r.downstream_counters.payload_bytes, p.iterations * (p.transfer_bytes + 400));
}
END_TEST

/* The first descriptor read is inside the counter: adding D to the host's read latency adds D once to a write
 * transfer (k = 1: the single descriptor fetch; data MWrs never wait for the host) and twice to a read transfer
 * (k = 2: the descriptor fetch, then the data pipeline starts D later; with 32 tags x 512 B = 16 KB in flight,
 * far above bandwidth x latency, the steady state is not latency-bound, so the end moves by the same D).
 * So figure(D) = bytes / (bytes / figure(0) + k D). */
START_TEST (test_first_descriptor_read_in_counter)
{
  SystemParams p = base_params ();
  const double d_ns = 2000;
  SystemResult w0 = run (&p, SYSTEM_WRITE), r0 = run (&p, SYSTEM_READ);
  p.host.read_latency_ns += d_ns;
  SystemResult w1 = run (&p, SYSTEM_WRITE), r1 = run (&p, SYSTEM_READ);
  double b = (double) p.transfer_bytes;
  double want_w = b / (b / w0.write_mbps * 1e3 + 1 * d_ns) * 1e3;
  double want_r = b / (b / r0.read_mbps * 1e3 + 2 * d_ns) * 1e3;
  ck_assert_msg (fabs (w1.write_mbps - want_w) / want_w < 0.002, "write %.2f, hand %.2f", w1.write_mbps, want_w);
  ck_assert_msg (fabs (r1.read_mbps - want_r) / want_r < 0.005, "read %.2f, hand %.2f", r1.read_mbps, want_r);
}
END_TEST

START_TEST (test_simultaneous_and_determinism)
{
  SystemParams p = base_params ();
  SystemResult w = run (&p, SYSTEM_WRITE), r = run (&p, SYSTEM_READ), s = run (&p, SYSTEM_SIMULTANEOUS);
  ck_assert (s.read_mbps > 0 && s.write_mbps > 0);
  /* Sharing the transmit datapath and the upstream link can only cost each engine. */
  ck_assert_msg (s.write_mbps <= w.write_mbps * 1.001, "sim write %.1f > alone %.1f", s.write_mbps, w.write_mbps);
  ck_assert_msg (s.read_mbps <= r.read_mbps * 1.001, "sim read %.1f > alone %.1f", s.read_mbps, r.read_mbps);
  SystemResult s2 = run (&p, SYSTEM_SIMULTANEOUS);
  ck_assert (s2.read_mbps == s.read_mbps && s2.write_mbps == s.write_mbps && s2.events == s.events);
  double sum = s.upstream.payload + s.upstream.tlp_overhead + s.upstream.dllp + s.upstream.ordered_sets
               + s.upstream.idle;
  ck_assert_msg (fabs (sum - 1.0) < 1e-9, "upstream usage sums to %g", sum);
}
END_TEST

START_TEST (test_rcb_policy_and_polling)
{
  /* Cache-line completions and status polling still move every byte and retire every tag (system_run checks
   * the invariants); 64-byte completions carry more overhead, so reads cannot get faster. */
  SystemParams p = base_params ();
  SystemResult a = run (&p, SYSTEM_READ);
  p.host.cpl_policy = CPL_POLICY_RCB;
  p.dma.msi = FALSE;
  p.host.poll_interval_ns = 1000;
  SystemResult b = run (&p, SYSTEM_READ);
  ck_assert_uint_eq (b.host.cpls, p.iterations * (102400 / 64 + 400 / 64 + 1));
  ck_assert_msg (b.read_mbps <= a.read_mbps * 1.001, "RCB %.1f > MPS %.1f", b.read_mbps, a.read_mbps);
}
END_TEST

/* Datapath-bound cases: a Gen3 x8 link (about 35 ns per 256-byte MWr on the wire) behind a 64-bit interface at
 * 125 MHz (8 ns beats). The counter difference between a 200 KB and a 100 KB transfer cancels every fixed cost
 * (PIO, descriptor fetch, pipelines) and leaves the beats of the extra 100 KB, derived from avst.h's table. */
static double
write_counter_delta_ns (SystemParams *p, SystemMode mode)
{
  p->transfer_bytes = 102400;
  SystemResult a = run (p, mode);
  p->transfer_bytes = 204800;
  SystemResult b = run (p, mode);
  return b.write_counter_ns - a.write_counter_ns;
}

static SystemParams
datapath_params (void)
{
  SystemParams p = base_params ();
  p.link.gen = 3;
  p.app.width_bits = 64;
  p.app.clock_mhz = 125;
  p.iterations = 1;
  /* Infinite posted credits at the host: the credit loop (UpdateFC timing) is the link's subject, not this one's. */
  p.link.rx_credits[LINK_DSP].ph = p.link.rx_credits[LINK_DSP].pd = 0;
  return p;
}

START_TEST (test_datapath_header_beats)
{
  SystemParams p = datapath_params ();
  /* 64-bit, 3-DW header, qword-aligned address: H1H0 | --H2 | 32 data beats = 34 beats per 256-byte MWr. */
  double d = write_counter_delta_ns (&p, SYSTEM_WRITE);
  double want = 400 * 34 * 8.0;
  ck_assert_msg (fabs (d - want) / want < 0.002, "64-bit: %.0f ns per 100 KB, hand %.0f", d, want);
  /* One idle beat of arbiter turnaround per TLP: 35 beats. */
  p.app.tx_gap_cycles = 1;
  d = write_counter_delta_ns (&p, SYSTEM_WRITE);
  want = 400 * 35 * 8.0;
  ck_assert_msg (fabs (d - want) / want < 0.002, "64-bit + gap: %.0f ns, hand %.0f", d, want);
  /* 128-bit at 125 MHz: (4 + 64) / 4 = 17 beats. */
  p = datapath_params ();
  p.app.width_bits = 128;
  d = write_counter_delta_ns (&p, SYSTEM_WRITE);
  want = 400 * 17 * 8.0;
  ck_assert_msg (fabs (d - want) / want < 0.002, "128-bit: %.0f ns, hand %.0f", d, want);
}
END_TEST

/* Issue #12 item 8: a 512-bit datapath at 250 MHz (4 ns beats, 16 DW each) behind a Gen4 x16 link (about 9 ns
 * of wire per 256-byte CplD, far faster) receives read data as fast as its beats allow. Without straddle a
 * 256-byte CplD (3-DW header, aligned: 4 + 64 = 68 DW slots) takes 5 whole beats, 20 ns; with straddle it takes
 * 9 segments of 256 bits (8 DW, 2 ns) and the next starts in the same beat: 18 ns. The read counter's growth
 * from 100 KB to 200 KB is the extra 400 completions' time (the reads in flight cover the host latency). */
static double
read_counter_delta_ns (SystemParams *p)
{
  p->transfer_bytes = 102400;
  SystemResult a = run (p, SYSTEM_READ);
  p->transfer_bytes = 204800;
  SystemResult b = run (p, SYSTEM_READ);
  return b.read_counter_ns - a.read_counter_ns;
}

START_TEST (test_straddle_receive)
{
  static const struct { gboolean straddle; double ns_per_cpl; } cases[] = { { FALSE, 20 }, { TRUE, 18 } };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    SystemParams p = base_params ();
    p.link.gen = 4;
    p.link.lanes = 16;
    p.app.width_bits = 512;
    p.app.straddle = cases[i].straddle;
    p.iterations = 1;
    p.dma.tags = 64;
    double d = read_counter_delta_ns (&p), want = 400 * cases[i].ns_per_cpl;
    ck_assert_msg (fabs (d - want) / want < 0.005, "straddle %d: %.0f ns per 100 KB, hand %.0f", cases[i].straddle,
                   d, want);
  }
}
END_TEST

/* The receive side's per-TLP overhead in interface bytes (datapath.h): the same datapath-bound Gen3 x8 system reading,
 * where completions come faster than the interface takes them in. Each 256-byte CplD (3-DW header, aligned)
 * takes 34 beats at 64 bits and 17 at 128, plus the overhead rounded up to whole beats: 16 bytes are 2 beats at
 * 64 bits but 1 at 128, and 8 bytes still cost a whole 128-bit beat. 100 KB more is 400 completions. */
START_TEST (test_rx_overhead_bytes)
{
  static const struct {
    uint32_t width, bytes, beats;
  } cases[] = { { 64, 0, 34 }, { 64, 16, 36 }, { 64, 8, 35 }, { 128, 16, 18 }, { 128, 8, 18 } };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    SystemParams p = datapath_params ();
    p.app.width_bits = cases[i].width;
    p.app.rx_overhead_bytes = cases[i].bytes;
    double d = read_counter_delta_ns (&p), want = 400 * cases[i].beats * 8.0;
    ck_assert_msg (fabs (d - want) / want < 0.005, "%u-bit, %u bytes: %.0f ns per 100 KB, hand %.0f",
                   cases[i].width, cases[i].bytes, d, want);
  }
}
END_TEST

START_TEST (test_read_requests_take_write_beats)
{
  /* Simultaneous, round robin, 32 tags: the read engine always has a request ready until it has issued all of
   * its 200 per 100 KB, so requests alternate with the first 200 MWrs. Reads end no later than writes (their
   * completions need the same 34 beats per 256 bytes on the receive side, in parallel), so the extra 100 KB of
   * writes costs 400 MWr x 34 beats + 200 MRd x 2 beats (3-DW header on 64 bits). */
  SystemParams p = datapath_params ();
  double d = write_counter_delta_ns (&p, SYSTEM_SIMULTANEOUS);
  double want = (400 * 34 + 200 * 2) * 8.0;
  ck_assert_msg (fabs (d - want) / want < 0.005, "simultaneous write: %.0f ns per 100 KB, hand %.0f", d, want);
  /* With a 3-beat multiplexer turnaround each request slipped between two writes costs 2 switches. */
  p = datapath_params ();
  p.app.arb_switch_cycles = 3;
  d = write_counter_delta_ns (&p, SYSTEM_SIMULTANEOUS);
  want = (400 * 34 + 200 * (2 + 2 * 3)) * 8.0;
  ck_assert_msg (fabs (d - want) / want < 0.005, "with switch beats: %.0f ns per 100 KB, hand %.0f", d, want);
  /* Alone, the write engine never switches: no cost. */
  d = write_counter_delta_ns (&p, SYSTEM_WRITE);
  want = 400 * 34 * 8.0;
  ck_assert_msg (fabs (d - want) / want < 0.002, "write alone with switch beats: %.0f ns, hand %.0f", d, want);
}
END_TEST

/* The peak window (system.h): 142 cycles of the interface in the middle of the second transfer, counted as a logic
 * analyser would, on the datapath-bound system above (round robin). By hand: completions come back faster than the
 * 64-bit interface takes them in, so the receive side is busy throughout, 32 data beats of every 34 (256-byte
 * CplD, 3-DW header). The read engine fills its 32 tags within the first ~2500 cycles (a request every 36 cycles
 * against one drained every 68), so at the window (about 7000 of the transfer's 14000 write cycles) each request
 * that completes frees a tag for one more: one MRd (2 beats, plus the turnaround twice) per 68 cycles, and MWrs
 * (34 beats, 32 carrying data) fill the rest. Write: (68 - 2 - 2 x switch) / 68 x 32/34 of the interface; without
 * the request cycles 32/34. In MB/s: x 8 bytes x 125 MHz. A window holds whole requests (2.09 on average), so the
 * write figure is good to one request's cycles (2 + 2 x switch) plus a cycle cut at each edge; the other two only
 * to the edges, a cycle each: 1/142 of the interface is 7 MB/s. */
START_TEST (test_peak_window)
{
  static const struct {
    uint32_t switch_cycles;
    double write, excluding;
  } cases[] = { { 0, 66.0 / 68 * 32 / 34, 32.0 / 34 }, { 3, 60.0 / 68 * 32 / 34, 32.0 / 34 } };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    SystemParams p = datapath_params ();
    p.app.arb_switch_cycles = cases[i].switch_cycles;
    p.iterations = 2;
    SystemResult r = run (&p, SYSTEM_SIMULTANEOUS);
    ck_assert (r.peak_valid);
    const double full = 8 * 125.0, tol = full / 142 + 0.01;
    const double tol_write = (2 + 2 * cases[i].switch_cycles + 2) * full / 142 + 0.01;
    ck_assert_msg (fabs (r.peak_write_mbps - cases[i].write * full) <= tol_write, "switch %u: peak write %.1f, hand %.1f",
                   cases[i].switch_cycles, r.peak_write_mbps, cases[i].write * full);
    ck_assert_msg (fabs (r.peak_write_mbps_excluding_read_requests - cases[i].excluding * full) <= 2 * tol,
                   "switch %u: excluding requests %.1f, hand %.1f", cases[i].switch_cycles,
                   r.peak_write_mbps_excluding_read_requests, cases[i].excluding * full);
    ck_assert_msg (fabs (r.peak_read_mbps - 32.0 / 34 * full) <= tol, "switch %u: peak read %.1f, hand %.1f",
                   cases[i].switch_cycles, r.peak_read_mbps, 32.0 / 34 * full);
  }
  /* One transfer leaves nowhere to place the window; one engine alone is not the measurement. */
  SystemParams p = datapath_params ();
  ck_assert (!run (&p, SYSTEM_SIMULTANEOUS).peak_valid);
  p.iterations = 2;
  ck_assert (!run (&p, SYSTEM_WRITE).peak_valid);
}
END_TEST

/* The write figure with the read-request cycles not counted (system.h): on the same datapath-bound system as
 * above, removing the request beats (200 MRd x 2 beats per 100 KB) and the turnarounds around them (200 x 2 x 3
 * beats) from the write counter gives back the write engine's figure alone, whose 400 MWr x 34 beats are the
 * same in both modes; the simultaneous write itself is (400 x 34 + 200 x 2) / (400 x 34) = 2.9% slower without
 * turnarounds and (400 x 34 + 200 x 8) / (400 x 34) = 11.8% slower with them. */
START_TEST (test_write_excluding_read_requests)
{
  static const uint32_t switch_cycles[] = { 0, 3 };
  static const double slower[] = { 1.029, 1.118 };
  for (guint i = 0; i < G_N_ELEMENTS (switch_cycles); i++) {
    SystemParams p = datapath_params ();
    p.app.arb_switch_cycles = switch_cycles[i];
    p.transfer_bytes = 204800; /* fixed costs weigh half as much as at 100 KB */
    SystemResult w = run (&p, SYSTEM_WRITE), s = run (&p, SYSTEM_SIMULTANEOUS);
    double excl = s.write_mbps_excluding_read_requests;
    ck_assert_msg (fabs (excl - w.write_mbps) / w.write_mbps < 0.01, "switch %u: excluding requests %.1f MB/s, "
                   "write alone %.1f", switch_cycles[i], excl, w.write_mbps);
    double ratio = w.write_mbps / s.write_mbps;
    ck_assert_msg (fabs (ratio - slower[i]) < 0.01, "switch %u: alone / simultaneous = %.4f, hand %.4f",
                   switch_cycles[i], ratio, slower[i]);
    /* Alone, the write engine's only requests are its descriptor fetches: a fraction of a percent. */
    ck_assert_msg (w.write_mbps_excluding_read_requests >= w.write_mbps
                   && w.write_mbps_excluding_read_requests < w.write_mbps * 1.005, "write alone: %.1f vs %.1f",
                   w.write_mbps_excluding_read_requests, w.write_mbps);
  }
}
END_TEST

/* dma.channels: engine pairs with their own descriptor tables, sharing tags and the datapath. Every channel
 * moves the whole transfer, so the bytes scale with the channel count; the figure is every channel's bytes over
 * the span of their counters. */
START_TEST (test_channels_move_every_byte)
{
  SystemParams p = base_params ();
  p.dma.channels = 4;
  SystemResult r = run (&p, SYSTEM_SIMULTANEOUS);
  /* Per channel per iteration: 400 data MWrs and both engines' EPLAST; 25 descriptors in one fetch per engine. */
  ck_assert_uint_eq (r.dma.write_bytes_sent, 4 * p.iterations * p.transfer_bytes);
  ck_assert_uint_eq (r.dma.read_bytes_completed, 4 * p.iterations * p.transfer_bytes);
  ck_assert_uint_eq (r.dma.mwrs, 4 * p.iterations * (400 + 2));
  ck_assert_uint_eq (r.dma.desc_fetches, 2 * 4 * p.iterations);
  ck_assert_uint_eq (r.host.msis, 2 * 4 * p.iterations);
  double limit = link_theoretical_mbps (2, 8, 256);
  ck_assert_msg (r.read_mbps < limit && r.write_mbps < limit, "4 channels: %.1f / %.1f above the link's %.1f",
                 r.read_mbps, r.write_mbps, limit);
  /* Polling finds each channel's EPLAST too. */
  p.dma.msi = FALSE;
  p.host.poll_interval_ns = 1000;
  p.dma.channels = 2;
  r = run (&p, SYSTEM_READ);
  ck_assert_uint_eq (r.dma.read_bytes_completed, 2 * p.iterations * p.transfer_bytes);
  /* Three channels (dma_params_check allows any count up to its maximum): every buffer still starts on a 4 KB page
   * (system.h), so no MWr is cut short at a page boundary: 400 data MWrs and one EPLAST per channel and transfer.
   * A third of the 1 GB stride unrounded would start channels 1 and 2 mid-page, adding a cut MWr per page. */
  p = base_params ();
  p.dma.channels = 3;
  r = run (&p, SYSTEM_WRITE);
  ck_assert_uint_eq (r.dma.mwrs, 3 * p.iterations * (400 + 1));
}
END_TEST

/* Tags are shared: with one tag every read of every channel waits for the one before, so two channels move twice
 * the bytes in twice the time (the same figure, within the second descriptor fetch's round trip, 1 of 201). With
 * 32 tags and 4 KB transfers a transfer is 2 round trips RT (descriptor fetch, then all 8 reads at once) plus the
 * 16 completions' wire time W; two channels overlap their round trips but share the wire: 8 KB in 2 RT + 2 W
 * against 4 KB in 2 RT + W. */
START_TEST (test_channels_share_tags)
{
  SystemParams p = base_params ();
  p.dma.tags = 1;
  SystemResult one = run (&p, SYSTEM_READ);
  p.dma.channels = 2;
  SystemResult two = run (&p, SYSTEM_READ);
  ck_assert_msg (fabs (two.read_mbps - one.read_mbps) / one.read_mbps < 0.01, "1 tag: 2 channels %.1f MB/s, "
                 "1 channel %.1f", two.read_mbps, one.read_mbps);
  p = base_params ();
  p.transfer_bytes = 4096;
  one = run (&p, SYSTEM_READ);
  p.dma.channels = 2;
  two = run (&p, SYSTEM_READ);
  double rt = one_tag_round_trip_ns (), w = 16 * wire_ns (256);
  double want = 2 * (2 * rt + w) / (2 * rt + 2 * w);
  ck_assert_msg (fabs (two.read_mbps / one.read_mbps - want) / want < 0.03, "4 KB: 2 channels %.1f MB/s, "
                 "1 channel %.1f: ratio %.3f, hand %.3f", two.read_mbps, one.read_mbps, two.read_mbps / one.read_mbps,
                 want);
}
END_TEST

/* software_timed: the driver's clock adds the software path around the engine's counter. Raising the handler's
 * MSI latency by X leaves the hardware figure alone (but for the transfers' phase against the link's SKP grid)
 * and adds exactly X to every software-timed transfer. */
START_TEST (test_software_timed)
{
  SystemParams p = base_params ();
  const double x_ns = 5000;
  SystemResult hw0 = run (&p, SYSTEM_WRITE);
  p.software_timed = TRUE;
  SystemResult sw0 = run (&p, SYSTEM_WRITE);
  ck_assert_msg (sw0.write_mbps < hw0.write_mbps, "software-timed %.1f >= hardware %.1f", sw0.write_mbps,
                 hw0.write_mbps);
  p.host.msi_latency_ns += x_ns;
  SystemResult sw1 = run (&p, SYSTEM_WRITE);
  p.software_timed = FALSE;
  SystemResult hw1 = run (&p, SYSTEM_WRITE);
  /* Alone within the phase of the transfers against the link's fixed SKP and Ack-timer grids, which the later
   * start shifts: one SKP ordered set (4 of 1180 symbols) in a 28 us transfer of 7000 symbol times is 0.06%. */
  ck_assert_msg (fabs (hw1.write_mbps - hw0.write_mbps) < 1e-3 * hw0.write_mbps, "hardware %.3f moved to %.3f",
                 hw0.write_mbps, hw1.write_mbps);
  double b = (double) p.transfer_bytes;
  double want = b / (b / sw0.write_mbps * 1e3 + x_ns) * 1e3;
  ck_assert_msg (fabs (sw1.write_mbps - want) / want < 1e-3, "software-timed %.3f, hand %.3f", sw1.write_mbps, want);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("dma");
  TCase *tc = tcase_create ("system");
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_write_split_counts);
  tcase_add_test (tc, test_one_tag_latency_bound);
  tcase_add_test (tc, test_tags_scale_until_link_limits);
  tcase_add_test (tc, test_ten_bit_tags);
  tcase_add_test (tc, test_completion_header_budget);
  tcase_add_test (tc, test_usage_covers_counter_windows);
  tcase_add_test (tc, test_first_descriptor_read_in_counter);
  tcase_add_test (tc, test_simultaneous_and_determinism);
  tcase_add_test (tc, test_rcb_policy_and_polling);
  tcase_add_test (tc, test_channels_move_every_byte);
  tcase_add_test (tc, test_channels_share_tags);
  tcase_add_test (tc, test_software_timed);
  suite_add_tcase (s, tc);
  TCase *dp = tcase_create ("datapath");
  tcase_set_timeout (dp, 120);
  tcase_add_test (dp, test_datapath_header_beats);
  tcase_add_test (dp, test_rx_overhead_bytes);
  tcase_add_test (dp, test_straddle_receive);
  tcase_add_test (dp, test_read_requests_take_write_beats);
  tcase_add_test (dp, test_write_excluding_read_requests);
  tcase_add_test (dp, test_peak_window);
  suite_add_tcase (s, dp);
    return run_suite (s);
}
