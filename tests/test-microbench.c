/* test-microbench.c — the microbench workload (pcie-bench's tests, pcie-protocol.md §11; models/workloads/flow.h DMA mode):
 * one small read on an idle link takes the hand sum of its parts, large writes come within a few per cent of what
 * the wire allows MPS-256 TLPs by hand and never above it, random offsets follow the seed and only the seed, and
 * the JSON carries results.microbench. Bad microbench keys are tests/bad/microbench_*.yaml (test-bad.c). */
#include <check.h>
#include <math.h>
#include <string.h>

#define TMPDIR_TEMPLATE "pciesim-test-microbench-XXXXXX"
#include "tests/common.h"
#include "app/run/builder.h"
#include "app/config/config.h"
#include "app/config/load.h"

static PsConfig *
load (const char *name, const char *yaml, const char *const *sets)
{
  g_autofree char *dir = case_dir (name);
  g_autofree char *path = write_file (dir, "c.yaml", yaml);
  g_autoptr (GError) e = NULL;
  PsConfig *cfg = ps_config_load (path, sets, &e);
  ck_assert_msg (cfg != NULL, "%s", e ? e->message : "");
  return cfg;
}

static PsMicrobenchResult
run (const PsConfig *cfg, uint64_t seed)
{
  g_autoptr (GError) e = NULL;
  PsRunResult r = { 0 };
  ck_assert_msg (ps_run_config (cfg, 0, seed, &r, &e), "%s", e ? e->message : "");
  ck_assert (r.microbench.ran);
  return r.microbench;
}

/* One 64-byte DMA read on an otherwise idle Gen2 x8 link, the parts as test-why.c counts them:
 *   request: 1 beat of the 128-bit datapath at 250 MHz (a 3-DW MRd: the buffer is below 4 GB)      4 ns
 *            on the wire: 12 header + 8 framing bytes over 8 lanes, 2.5 symbols of 2 ns              5 ns
 *            transmit pipeline 100 + flight 5 + receive pipeline 20                               125 ns
 *   host:    read latency 400 + 64 B x 0.5 ps/B, then 10 ns to send the completion               410.032 ns
 *   data:    one CplD: 64 + 12 + 8 bytes over 8 lanes, 10.5 symbols                                21 ns
 *            pipelines and flight                                                                 125 ns
 *            taken in: 12 + 64 bytes over the 16-byte datapath, 5 beats                            20 ns
 * = 710.032 ns; symbol and clock edges add a few ns at most. */
static char *lat_yaml;

/* tests/data/idle_gen2_x8.yaml (test-why.c's idle link) with a cold-cache latency and the test. */
static void
lat_setup (void)
{
  tmpdir_setup ();
  lat_yaml = g_strdup_printf ("include: [%s/tests/data/idle_gen2_x8.yaml]\n"
                              "host:\n"
                              "  cold_cache_latency_ns: 70\n"
                              "benchmark:\n"
                              "  workload: microbench\n"
                              "microbench:\n"
                              "  test: lat_rd\n"
                              "  transfer_bytes: 64\n"
                              "  dmas: 1\n", source_root ());
}

static void
lat_teardown (void)
{
  g_free (lat_yaml);
  tmpdir_teardown ();
}

START_TEST (test_lat_rd_hand_sum)
{
  g_autoptr (PsConfig) cfg = load ("lat", lat_yaml, NULL);
  PsMicrobenchResult m = run (cfg, 1);
  const double hand = 4 + 5 + 125 + 400.032 + 10 + 21 + 125 + 20;
  ck_assert_str_eq (m.test, "lat_rd");
  ck_assert_uint_eq (m.latency.count, 1);
  ck_assert_msg (fabs (m.latency.p50_ns - hand) < 0.01 * hand, "lat_rd 64 B: %.3f ns, by hand %.3f ns",
                 m.latency.p50_ns, hand);
  ck_assert_msg (m.latency.p50_ns >= hand - 0.2 && m.latency.p50_ns <= hand + 2 * 2 + 4, "lat_rd 64 B: %.3f ns",
                 m.latency.p50_ns);
  /* pcie-bench's Gb/s of a latency test: the one DMA's bytes over its round trip. */
  ck_assert_msg (fabs (m.gbps - 64 * 8 / m.latency.p50_ns) < 1e-9, "%.6f Gb/s", m.gbps);
  /* A cold window adds the host's cold-cache latency to the read, nothing else. */
  const char *cold[] = { "microbench.cache=cold", NULL };
  g_autoptr (PsConfig) cc = load ("cold", lat_yaml, cold);
  PsMicrobenchResult c = run (cc, 1);
  ck_assert_msg (fabs (c.latency.p50_ns - m.latency.p50_ns - 70) < 4.5, "cold %.3f ns, warm %.3f ns",
                 c.latency.p50_ns, m.latency.p50_ns);
  /* lat_wrrd: the write (one MWr) goes first and the read queues behind it, so the pair takes longer than the read
   * alone by at least the MWr's wire time (64 + 12 + 8 bytes: 21 ns) and at most that plus the MWr's pipelines,
   * flight and datapath time and the host's completion time. */
  const char *wrrd[] = { "microbench.test=lat_wrrd", NULL };
  g_autoptr (PsConfig) wc = load ("wrrd", lat_yaml, wrrd);
  PsMicrobenchResult w = run (wc, 1);
  ck_assert_msg (w.latency.p50_ns > m.latency.p50_ns + 21 && w.latency.p50_ns < m.latency.p50_ns + 21 + 125 + 20 + 10,
                 "lat_wrrd %.3f ns, lat_rd %.3f ns", w.latency.p50_ns, m.latency.p50_ns);
}
END_TEST

/* Large DMA writes, nothing but the wire in the way (a 256-bit datapath at 500 MHz, 16 GB/s; the host's credits
 * and sink not limiting). By hand: Gen3 x8 carries 8 lanes x 8 GT/s x 128/130 = 7876.92 MB/s of symbols; an MWr
 * of MPS 256 takes 4 (STP token) + 12 (3-DW header) + 256 + 4 (LCRC) = 276 bytes of them, so at most
 * 7876.92 x 256 / 276 = 7306.1 MB/s = 58.449 Gb/s of payload; Acks, UpdateFCs and SKP ordered sets take a
 * little more, under 1% at these rates. */
START_TEST (test_bw_wr_protocol_limit)
{
  static const char yaml[] = "link:\n"
                             "  gen: 3\n"
                             "  lanes: 8\n"
                             "  max_payload: 256\n"
                             "endpoint:\n"
                             "  datapath_bits: 256\n"
                             "  clock_mhz: 500\n"
                             "benchmark:\n"
                             "  workload: microbench\n"
                             "microbench:\n"
                             "  test: bw_wr\n"
                             "  transfer_bytes: 2048\n"
                             "  window_bytes: 1048576\n"
                             "  outstanding: 64\n"
                             "  dmas: 2000\n";
  g_autoptr (PsConfig) cfg = load ("bw_wr", yaml, NULL);
  PsMicrobenchResult m = run (cfg, 1);
  const double hand = 8 * 8e3 * 128 / 130 / 8 * 256 / 276 * 8 / 1000;
  ck_assert_msg (m.gbps <= hand && m.gbps > 0.99 * hand, "bw_wr 2 KB: %.3f Gb/s, by hand at most %.3f", m.gbps,
                 hand);
  ck_assert_uint_eq (m.latency.count, 2000);
}
END_TEST

/* The server root complex's mechanisms (docs/host-model.md), each on a Gen3 x8 link with a 256-bit 500 MHz
 * datapath (16 GB/s, never the limit) and no pipelines, so the mechanism under test is the bound. */
static const char server_yaml[] = "link:\n"
                                  "  gen: 3\n"
                                  "  lanes: 8\n"
                                  "  max_payload: 256\n"
                                  "  max_read_request: 512\n"
                                  "  updatefc_policy: recommended\n"
                                  "endpoint:\n"
                                  "  datapath_bits: 256\n"
                                  "  clock_mhz: 500\n"
                                  "  tags: 64\n"
                                  "benchmark:\n"
                                  "  workload: microbench\n"
                                  "microbench:\n"
                                  "  test: bw_rd\n"
                                  "  window_bytes: 1048576\n"
                                  "  outstanding: 64\n"
                                  "  dmas: 4000\n";

static double
server_gbps (const char *name, const char *const *sets)
{
  g_autoptr (PsConfig) cfg = load (name, server_yaml, sets);
  return run (cfg, 1).gbps;
}

static void
assert_near (double got, double hand, double tolerance, const char *what)
{
  ck_assert_msg (fabs (got - hand) <= tolerance * hand, "%s: %.3f Gb/s, by hand %.3f", what, got, hand);
}

/* Full blocks (host.completion_full_block_bytes, docs/host-model.md §1): 512-byte reads at random 512-byte slots
 * from a root complex that returns one completion per 64-byte line, nothing else in the way. By hand, with the
 * link's 7876.92 MB/s of symbols and 20 bytes of framing and header per completion: line by line a read is eight
 * completions, 8 x (64 + 20) = 672 bytes, at most 7876.92 x 512 / 672 = 6001.5 MB/s = 48.01 Gb/s; with blocks of
 * 512 every read is a whole block, one line and then up to MPS, 64 + 256 + 192, 512 + 3 x 20 = 572 bytes, at most
 * 7876.92 x 512 / 572 = 7050.6 MB/s = 56.41 Gb/s. Acks and UpdateFCs take a little more (under 2%). */
START_TEST (test_full_block_completions)
{
  const char *line[] = { "microbench.transfer_bytes=512", "host.completion_bytes=64", NULL };
  const char *block[] = { "microbench.transfer_bytes=512", "host.completion_bytes=64",
                          "host.completion_full_block_bytes=512", NULL };
  const char *half[] = { "microbench.transfer_bytes=256", "host.completion_bytes=64",
                         "host.completion_full_block_bytes=512", NULL };
  const double link = 8 * 8e3 * 128 / 130 / 8, by_line = link * 512 / 672 * 8 / 1000;
  const double by_block = link * 512 / 572 * 8 / 1000, by_line_256 = link * 256 / 336 * 8 / 1000;
  double g = server_gbps ("line", line);
  ck_assert_msg (g <= by_line && g > 0.98 * by_line, "line by line: %.3f Gb/s, by hand at most %.3f", g, by_line);
  g = server_gbps ("block", block);
  ck_assert_msg (g <= by_block && g > 0.98 * by_block, "full blocks: %.3f Gb/s, by hand at most %.3f", g, by_block);
  /* 256-byte reads cover half a block: line by line still. */
  g = server_gbps ("half", half);
  ck_assert_msg (g <= by_line_256 && g > 0.98 * by_line_256, "half blocks: %.3f Gb/s, by hand at most %.3f", g,
                 by_line_256);
}
END_TEST

/* Return-path groups (host.completion_group_tlps, docs/host-model.md §1): line-by-line reads whose return path, 30
 * ns per group, is slower than the link (10.66 ns per line completion). By hand, a read's time on the path is
 * 30 ns x its groups: 192 bytes (three lines) one at a time 90 ns, 192 x 8 / 90 = 17.07 Gb/s; in pairs two groups,
 * 60 ns, 25.60 Gb/s; 256 bytes (four lines) in pairs also two, 60 ns, 34.13 Gb/s: the odd line costs a whole
 * group. The link would carry them at 48.0 Gb/s. */
START_TEST (test_completion_groups)
{
  const char *one[] = { "microbench.transfer_bytes=192", "host.completion_bytes=64",
                        "host.completion_overhead_ns=30", NULL };
  const char *pairs[] = { "microbench.transfer_bytes=192", "host.completion_bytes=64",
                          "host.completion_overhead_ns=30", "host.completion_group_tlps=2", NULL };
  const char *pairs256[] = { "microbench.transfer_bytes=256", "host.completion_bytes=64",
                             "host.completion_overhead_ns=30", "host.completion_group_tlps=2", NULL };
  double g = server_gbps ("one", one), hand = 192 * 8 / 90.0;
  ck_assert_msg (g <= hand && g > 0.98 * hand, "one by one: %.3f Gb/s, by hand at most %.3f", g, hand);
  g = server_gbps ("pairs", pairs), hand = 192 * 8 / 60.0;
  ck_assert_msg (g <= hand && g > 0.98 * hand, "pairs: %.3f Gb/s, by hand at most %.3f", g, hand);
  g = server_gbps ("pairs256", pairs256), hand = 256 * 8 / 60.0;
  ck_assert_msg (g <= hand && g > 0.98 * hand, "pairs, 256 B: %.3f Gb/s, by hand at most %.3f", g, hand);
}
END_TEST

/* The fence (host.completion_fence_ns, docs/host-model.md §2): 128-byte reads and writes alternating (bw_rdwr),
 * the reads' two line completions one group of the return path, 30 ns, slower than anything else: the link takes
 * them in 2 x (64 + 20) / 7.877 = 21.3 ns, a 128-byte MWr (20 bytes of header and framing below 4 GB) and an MRd
 * upstream the same 21.3, and no engine limit is set. Every read comes in behind a write, so each pays the fence,
 * 20 ns, before its first completion: a pair takes 30 + 20 = 50 ns on the path, 128 x 8 / 50 = 20.48 Gb/s each
 * way, where without it 30 ns give 34.13. Reads alone (bw_rd) follow no write: 30 ns, 34.13 Gb/s. */
START_TEST (test_completion_fence)
{
  const char *rdwr[] = { "microbench.test=bw_rdwr", "microbench.transfer_bytes=128", "host.completion_bytes=64",
                         "host.completion_overhead_ns=30", "host.completion_group_tlps=2",
                         "host.completion_fence_ns=20", NULL };
  g_autoptr (PsConfig) cfg = load ("fence", server_yaml, rdwr);
  PsMicrobenchResult m = run (cfg, 1);
  double hand = 128 * 8 / 50.0;
  ck_assert_msg (m.read_gbps <= hand && m.read_gbps > 0.98 * hand, "fenced reads: %.3f Gb/s, by hand at most %.3f",
                 m.read_gbps, hand);
  const char *rd[] = { "microbench.transfer_bytes=128", "host.completion_bytes=64", "host.completion_overhead_ns=30",
                       "host.completion_group_tlps=2", "host.completion_fence_ns=20", NULL };
  double g = server_gbps ("nofence", rd);
  hand = 128 * 8 / 30.0;
  ck_assert_msg (g <= hand && g > 0.98 * hand, "reads alone: %.3f Gb/s, by hand at most %.3f", g, hand);
}
END_TEST

/* Read concurrency: 64 tags keep far more reads in flight than the root complex works on, so it holds `depth`
 * reads at a time, each for its latency (the completion leaves at once: no return-path time), and small reads
 * run at depth x bytes / latency: 8 x 64 B / 1000 ns = 0.512 B/ns = 4.096 Gb/s; 16 reads, 8.192 Gb/s. A cold
 * window adds the DRAM access, 1000 ns more, halving it: 2.048 Gb/s. (The link would carry 64-byte reads at
 * ~48 Gb/s.) The first reads' way to the host and the last one's back add ~0.1% over 4000 DMAs. */
START_TEST (test_read_concurrency)
{
  const char *d8[] = { "microbench.transfer_bytes=64", "host.read_latency_ns=1000", "host.read_queue_depth=8", NULL };
  const char *d16[] = { "microbench.transfer_bytes=64", "host.read_latency_ns=1000", "host.read_queue_depth=16",
                        NULL };
  const char *cold[] = { "microbench.transfer_bytes=64", "host.read_latency_ns=1000", "host.read_queue_depth=8",
                         "host.cold_cache_latency_ns=1000", "microbench.cache=cold", NULL };
  assert_near (server_gbps ("d8", d8), 4.096, 0.01, "8 reads of 64 B in 1000 ns");
  assert_near (server_gbps ("d16", d16), 8.192, 0.01, "16 reads of 64 B in 1000 ns");
  assert_near (server_gbps ("cold", cold), 2.048, 0.01, "8 reads of 64 B in 2000 ns");
}
END_TEST

/* Posted-write acceptance. A root port whose posted buffer covers its credit loop and whose drain keeps up
 * passes 2 KB DMA writes at the wire's rate: 58.449 Gb/s at most (test_bw_wr_protocol_limit's hand figure), at
 * least 99% of it. A drain of 4000 MB/s, below the wire's 7306 MB/s, is the bound instead: 32 Gb/s. A small buffer
 * is the bound when the loop is long: 64 PD credits (1 KB) held 1000 ns each after their data drained give at
 * most 1024 B per 1000 ns = 8.192 Gb/s, and the loop's other parts (a 256-byte MWr's 35 ns on the wire, the
 * UpdateFC's way back) take it lower by a few per cent. */
START_TEST (test_posted_write_acceptance)
{
  const char *keeps_up[] = { "microbench.test=bw_wr", "microbench.transfer_bytes=2048", "host.rx_credits.ph=64",
                             "host.rx_credits.pd=1024", "host.write_latency_ns=100", "host.write_drain_mbps=39000",
                             NULL };
  const char *drain[] = { "microbench.test=bw_wr", "microbench.transfer_bytes=2048", "host.rx_credits.ph=64",
                          "host.rx_credits.pd=1024", "host.write_latency_ns=100", "host.write_drain_mbps=4000", NULL };
  const char *buffer[] = { "microbench.test=bw_wr", "microbench.transfer_bytes=2048", "host.rx_credits.ph=64",
                           "host.rx_credits.pd=64", "host.write_latency_ns=1000", NULL };
  const double wire = 8 * 8e3 * 128 / 130 / 8 * 256 / 276 * 8 / 1000;
  double k = server_gbps ("keeps_up", keeps_up);
  ck_assert_msg (k <= wire && k > 0.99 * wire, "keeps up: %.3f Gb/s, wire %.3f", k, wire);
  assert_near (server_gbps ("drain", drain), 32.0, 0.01, "drain 4000 MB/s");
  double b = server_gbps ("buffer", buffer);
  ck_assert_msg (b <= 8.192 && b > 0.9 * 8.192, "1 KB buffer, 1000 ns: %.3f Gb/s, at most 8.192", b);
}
END_TEST

/* Write runs' edges inside a block (host.write_block_bytes, docs/host-model.md §2): a drain of 4000 MB/s (0.25
 * ns a byte, below the wire's 7306 MB/s, so the drain is the bound) and 10 ns per edge inside a 512-byte block.
 * 512-byte writes at random 512-byte slots write whole blocks: no edge, 512 B per 128 ns, 32 Gb/s. 256-byte writes
 * at random 256-byte slots (4096 in the 1 MB window): a DMA at an odd slot starts inside a block, one at an even
 * slot ends inside one, so a DMA pays one edge on average (its start or the run before's end): 64 + 10 ns per
 * 256 bytes, 27.68 Gb/s. The same writes in order continue one run from slot to slot (an edge only where the
 * window wraps): 32 Gb/s. Without edge costs both are the drain's 32 Gb/s. The posted buffer (16 KB) fills at the
 * wire's rate before the drain binds: over 40000 DMAs that head start is under 0.2% of a run. */
START_TEST (test_write_block_edges)
{
  static const struct { const char *bytes, *offsets, *edge; double hand; } cases[] = {
    { "512", "random", "10", 32.0 }, { "256", "random", "10", 256 * 8 / 74.0 }, { "256", "sequential", "10", 32.0 },
    { "256", "random", "0", 32.0 },
  };
  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autofree char *bytes = g_strconcat ("microbench.transfer_bytes=", cases[i].bytes, NULL);
    g_autofree char *offsets = g_strconcat ("microbench.offsets=", cases[i].offsets, NULL);
    g_autofree char *edge = g_strconcat ("host.write_partial_block_ns=", cases[i].edge, NULL);
    const char *sets[] = { "microbench.test=bw_wr", bytes, offsets, edge, "host.write_block_bytes=512",
                           "host.write_drain_mbps=4000", "host.rx_credits.ph=64", "host.rx_credits.pd=1024",
                           "host.write_latency_ns=100", "microbench.dmas=40000", NULL };
    g_autofree char *what = g_strdup_printf ("%s-byte writes, %s, %s ns an edge", cases[i].bytes, cases[i].offsets,
                                             cases[i].edge);
    assert_near (server_gbps ("edges", sets), cases[i].hand, 0.01, what);
  }
}
END_TEST

/* pcie-bench's IOMMU knee: 512-byte reads, sequential, over a window against an IOTLB of 16 entries of 4 KB
 * (reach 64 KB) and walks of 1000 ns. Within the reach only the first pass walks (16 walks, under 6% of the run):
 * at least 94% of the figure without the IOMMU. One page beyond it every page walks on every pass (least recently
 * used replacement, test-host.c), and the one walker is the bound: a 4 KB page per 1000 ns = 32.768 Gb/s. */
START_TEST (test_iommu_knee_bandwidth)
{
  const char *off[] = { "microbench.transfer_bytes=512", "microbench.window_bytes=65536", NULL };
  const char *in[] = { "microbench.transfer_bytes=512", "microbench.window_bytes=65536", "host.iommu.enabled=true",
                       "host.iommu.iotlb_entries=16", "host.iommu.walk_ns=1000", NULL };
  const char *out[] = { "microbench.transfer_bytes=512", "microbench.window_bytes=69632", "host.iommu.enabled=true",
                        "host.iommu.iotlb_entries=16", "host.iommu.walk_ns=1000", NULL };
  double base = server_gbps ("iommu_off", off), fits = server_gbps ("iommu_in", in);
  ck_assert_msg (fits <= base && fits >= 0.94 * base, "window = reach: %.3f Gb/s, without IOMMU %.3f", fits, base);
  assert_near (server_gbps ("iommu_out", out), 32.768, 0.01, "window = reach + 4 KB");
}
END_TEST

/* A read that missed is handed back a group of its completions at a time (host.iommu.read_resume_group_ns,
 * docs/host-model.md §3): random reads over 64 MB against one IOTLB entry all miss (but one in 16384), and one
 * walker of 1000 ns, 100 more for a read's first group of two line completions and 100 for each further one, is the
 * bound. By hand: 128 bytes (two lines, one group) one read per 1100 ns, 0.931 Gb/s; 256 bytes (four lines, two
 * groups) per 1200 ns, 1.707 Gb/s (1.862 without the groups' time); 512 bytes line by line (four groups) per
 * 1400 ns, 2.926 Gb/s, and a whole block (64 + 256 + 192: two groups) per 1200, 3.413 Gb/s. */
START_TEST (test_iommu_read_resume_groups_bandwidth)
{
  static const struct { const char *bytes, *block; double hand; } cases[] = {
    { "128", "0", 128 * 8 / 1100.0 }, { "256", "0", 256 * 8 / 1200.0 }, { "512", "0", 512 * 8 / 1400.0 },
    { "512", "512", 512 * 8 / 1200.0 },
  };
  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autofree char *bytes = g_strconcat ("microbench.transfer_bytes=", cases[i].bytes, NULL);
    g_autofree char *block = g_strconcat ("host.completion_full_block_bytes=", cases[i].block, NULL);
    const char *sets[] = { bytes, block, "microbench.window_bytes=67108864", "microbench.offsets=random",
                           "host.completion_bytes=64", "host.completion_group_tlps=2", "host.iommu.enabled=true",
                           "host.iommu.iotlb_entries=1", "host.iommu.walk_ns=1000", "host.iommu.read_resume_ns=100",
                           "host.iommu.read_resume_group_ns=100", NULL };
    g_autofree char *what = g_strdup_printf ("%s bytes, block %s", cases[i].bytes, cases[i].block);
    assert_near (server_gbps ("groups", sets), cases[i].hand, 0.01, what);
  }
}
END_TEST

/* The root complex takes a read in, starting its walk, only when the read's completions fit in
 * host.completion_queue_tlps beside those not yet sent (completer.h, Room; docs/host-model.md §2). Random reads
 * over 64 MB against one IOTLB entry all miss (but one in 16384); four walkers of 1000 ns, memory 200 ns, a return
 * path that costs nothing, so a read's completions all leave when its data is ready. Without the queue four reads
 * walk at once: 4 x 256 B per 1000 ns, 8.192 Gb/s. A queue of 4 holds one 256-byte read (four line completions):
 * each waits for the one before to leave, walk and memory in turn, 256 B per 1200 ns, 1.707 Gb/s; a queue of 5 the
 * same (a second read's four do not fit beside the first's); 8, two at a time, 3.413 Gb/s. A whole 512-byte block
 * leaves as three completions (64 + 256 + 192): a queue of 6 holds two, 2 x 512 B per 1200 ns, 6.827 Gb/s. */
START_TEST (test_completion_queue_exposes_walks)
{
  static const struct { const char *bytes, *queue; double hand; } cases[] = {
    { "256", "0", 4 * 256 * 8 / 1000.0 }, { "256", "4", 256 * 8 / 1200.0 }, { "256", "5", 256 * 8 / 1200.0 },
    { "256", "8", 2 * 256 * 8 / 1200.0 }, { "512", "6", 2 * 512 * 8 / 1200.0 },
  };
  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autofree char *bytes = g_strconcat ("microbench.transfer_bytes=", cases[i].bytes, NULL);
    g_autofree char *queue = g_strconcat ("host.completion_queue_tlps=", cases[i].queue, NULL);
    const char *sets[] = { bytes, queue, "microbench.window_bytes=67108864", "microbench.offsets=random",
                           "host.completion_bytes=64", "host.completion_full_block_bytes=512",
                           "host.read_latency_ns=200", "host.iommu.enabled=true", "host.iommu.iotlb_entries=1",
                           "host.iommu.walk_ns=1000", "host.iommu.walks_in_flight=4", NULL };
    g_autofree char *what = g_strdup_printf ("%s-byte reads, completion queue %s", cases[i].bytes, cases[i].queue);
    assert_near (server_gbps ("queue", sets), cases[i].hand, 0.01, what);
  }
}
END_TEST

/* A device's own issue rate: one DMA command per 10 cycles at 500 MHz (20 ns), and a write's 64 bytes cross the
 * 256-bit interface at 500 MHz (16 B/ns) in 4 ns before the next command: a 64-byte write every 24 ns, 21.33 Gb/s,
 * where the wire would carry 64-byte MWrs (12 header + 8 framing + 64 bytes) at 7876.9 x 64 / 84 = 6002 MB/s,
 * 48 Gb/s, and the root port's credits are infinite. */
START_TEST (test_device_issue_rate)
{
  const char *slow[] = { "microbench.test=bw_wr", "microbench.transfer_bytes=64", "endpoint.dma_issue_cycles=10",
                         NULL };
  assert_near (server_gbps ("issue", slow), 21.333, 0.01, "one 64-byte write DMA per 24 ns");
}
END_TEST

/* bw_rdwr's split (issue #25): a read flow and a write flow, each with its own engine issuing one 64-byte DMA per
 * 10 cycles at 500 MHz (20 ns), the writes 4 ns more for their data, as test_device_issue_rate's: each way's
 * bytes over the run's one window, which the writes' 24 ns set, 21.33 Gb/s each way by hand, where the wire would carry
 * far more (upstream a 64-byte MWr and an MRd, 84 + 20 bytes per 20 ns = 5.2 GB/s of the link's 7.9; downstream a
 * 64-byte CplD, 4.2 GB/s) and 64 reads in flight cover the round trip (about 0.5 us) many times over. The two
 * figures share the run's window, which the last read's way back lengthens by about 1%: each within 2% of the
 * hand figure, equal to each other, and adding up to the total to the rounding. A test that reads only has it
 * all as read, one that writes only all as write. */
START_TEST (test_bw_rdwr_split)
{
  const char *both[] = { "microbench.test=bw_rdwr", "microbench.transfer_bytes=64", "endpoint.dma_issue_cycles=10",
                         NULL };
  g_autoptr (PsConfig) cfg = load ("rdwr", server_yaml, both);
  PsMicrobenchResult m = run (cfg, 1);
  assert_near (m.read_gbps, 21.333, 0.02, "bw_rdwr read, over the writes' window of one DMA per 24 ns");
  assert_near (m.write_gbps, 21.333, 0.02, "bw_rdwr write, one 64-byte DMA per 24 ns");
  ck_assert_msg (fabs (m.read_gbps - m.write_gbps) < 1e-9, "read %.6f, write %.6f Gb/s", m.read_gbps, m.write_gbps);
  ck_assert_msg (fabs (m.read_gbps + m.write_gbps - m.gbps) < 1e-9 * m.gbps, "read %.6f + write %.6f != %.6f Gb/s",
                 m.read_gbps, m.write_gbps, m.gbps);
  const char *rd[] = { "microbench.transfer_bytes=64", NULL }, *wr[] = { "microbench.test=bw_wr", NULL };
  g_autoptr (PsConfig) rc = load ("rd_only", server_yaml, rd);
  g_autoptr (PsConfig) wc = load ("wr_only", server_yaml, wr);
  PsMicrobenchResult r = run (rc, 1), w = run (wc, 1);
  ck_assert (r.read_gbps == r.gbps && r.write_gbps == 0 && w.write_gbps == w.gbps && w.read_gbps == 0);
}
END_TEST

/* Random offsets: DMAs of 1984 bytes (31 cache lines, so slots as long) in an 8 KB window have four slots, and only
 * the one at 3968 crosses a 4 KB boundary (split.h), which costs it one more MRd, so a run's mean latency counts how often that slot was drawn:
 * a property of the draws alone. The same seed draws the same slots; three seeds do not all draw alike. */
START_TEST (test_random_offsets_seeded)
{
  static const char yaml[] = "link:\n"
                             "  gen: 3\n"
                             "  lanes: 8\n"
                             "  max_payload: 256\n"
                             "  max_read_request: 512\n"
                             "benchmark:\n"
                             "  workload: microbench\n"
                             "microbench:\n"
                             "  test: lat_rd\n"
                             "  transfer_bytes: 1984\n"
                             "  window_bytes: 8192\n"
                             "  offsets: random\n"
                             "  dmas: 400\n";
  g_autoptr (PsConfig) cfg = load ("random", yaml, NULL);
  PsMicrobenchResult a = run (cfg, 1), b = run (cfg, 1), c = run (cfg, 2), d = run (cfg, 3);
  ck_assert (a.latency.mean_ns == b.latency.mean_ns && a.latency.max_ns == b.latency.max_ns && a.gbps == b.gbps);
  ck_assert_msg (a.latency.mean_ns != c.latency.mean_ns || a.latency.mean_ns != d.latency.mean_ns,
                 "seeds 1, 2, 3 all gave %.6f ns", a.latency.mean_ns);
  /* Sequential offsets visit every slot in turn, one crossing in four, whatever the seed. */
  const char *seq[] = { "microbench.offsets=sequential", NULL };
  g_autoptr (PsConfig) sc = load ("sequential", yaml, seq);
  PsMicrobenchResult s1 = run (sc, 1), s2 = run (sc, 2);
  ck_assert (s1.latency.mean_ns == s2.latency.mean_ns);
  ck_assert (s1.latency.max_ns > s1.latency.p50_ns);
}
END_TEST

/* pcie-bench's sizes with byte enables (spec §2.2.5): a DMA's TLPs carry the whole DWs that hold its bytes, so
 * 63 bytes travel as the 16 DWs of a 64-byte DMA, and 3 bytes 3 into a line (bytes 3..5) or 5 (bytes 3..7) as the
 * 2 DWs of an 8-byte DMA at the line's start, 1 byte as 1 DW: the same round trip on the idle link, to the
 * picosecond. The figure counts the bytes asked: a 63-byte stream is 63/64 of the 64-byte one, TLP for TLP. */
START_TEST (test_byte_enables)
{
  const char *sz[][3] = { { "microbench.transfer_bytes=63", NULL }, { "microbench.transfer_bytes=64", NULL },
                          { "microbench.transfer_bytes=3", "microbench.host_offset=3", NULL },
                          { "microbench.transfer_bytes=5", "microbench.host_offset=3", NULL },
                          { "microbench.transfer_bytes=8", NULL }, { "microbench.transfer_bytes=1", NULL },
                          { "microbench.transfer_bytes=4", NULL } };
  double p50[G_N_ELEMENTS (sz)];
  for (guint i = 0; i < G_N_ELEMENTS (sz); i++) {
    g_autofree char *name = g_strdup_printf ("be%u", i);
    g_autoptr (PsConfig) cfg = load (name, lat_yaml, sz[i]);
    p50[i] = run (cfg, 1).latency.mean_ns;
  }
  ck_assert_msg (p50[0] == p50[1], "63 B %.3f ns, 64 B %.3f ns", p50[0], p50[1]);
  ck_assert_msg (p50[2] == p50[4] && p50[3] == p50[4], "3 B at 3 %.3f, 5 B at 3 %.3f, 8 B %.3f ns", p50[2], p50[3],
                 p50[4]);
  ck_assert_msg (p50[5] == p50[6], "1 B %.3f ns, 4 B %.3f ns", p50[5], p50[6]);
  ck_assert_msg (p50[4] != p50[1], "8 B and 64 B alike (%.3f ns): the test would not see a wrong size", p50[4]);
  const char *b63[] = { "microbench.transfer_bytes=63", NULL }, *b64[] = { "microbench.transfer_bytes=64", NULL };
  double g63 = server_gbps ("bw63", b63), g64 = server_gbps ("bw64", b64);
  ck_assert_msg (fabs (g63 - g64 * 63 / 64) < 1e-9 * g64, "63 B %.6f Gb/s, 64 B %.6f Gb/s", g63, g64);
}
END_TEST

/* The LLC against the window (host.llc_bytes): a warm window of 8 slots of 64 bytes, read in order, of which the
 * LLC holds the last 128 bytes (2 slots): 6 reads in 8 come from DRAM, host.cold_cache_latency_ns (70 ns) later,
 * so the mean round trip is the all-warm one + 70 x 6/8 = 52.5 ns (one DMA at a time on an idle link), give or take
 * the 4 ns clock of the device's datapath that takes each completion in (3 ns over 6 reads in 8). A cold window
 * pays it on every read, whatever the LLC holds (70 ns, one clock either way); device_warm reads as cold. */
START_TEST (test_llc_window)
{
  const char *all[] = { "microbench.window_bytes=512", "microbench.dmas=8", NULL };
  const char *part[] = { "microbench.window_bytes=512", "microbench.dmas=8", "host.llc_bytes=128", NULL };
  const char *cold[] = { "microbench.window_bytes=512", "microbench.dmas=8", "host.llc_bytes=128",
                         "microbench.cache=cold", NULL };
  const char *dwarm[] = { "microbench.window_bytes=512", "microbench.dmas=8", "microbench.cache=device_warm", NULL };
  g_autoptr (PsConfig) ac = load ("llc_all", lat_yaml, all);
  g_autoptr (PsConfig) pc = load ("llc_part", lat_yaml, part);
  g_autoptr (PsConfig) cc = load ("llc_cold", lat_yaml, cold);
  g_autoptr (PsConfig) dc = load ("llc_dwarm", lat_yaml, dwarm);
  double a = run (ac, 1).latency.mean_ns, p = run (pc, 1).latency.mean_ns, c = run (cc, 1).latency.mean_ns;
  double d = run (dc, 1).latency.mean_ns;
  ck_assert_msg (fabs (p - a - 52.5) <= 3, "LLC holds 2 of 8 slots: %.4f ns, all warm %.4f ns", p, a);
  ck_assert_msg (fabs (c - a - 70) <= 4 && d == c, "cold %.4f, device_warm %.4f, warm %.4f ns", c, d, a);
}
END_TEST

/* A device engine's own costs (endpoint.dma_*), each alone on test_device_issue_rate's server link:
 * - one MWr per 20 ns (dma_write_gap_ns) bounds 64-byte writes at 64 B / 20 ns = 25.6 Gb/s, as one DMA per 20 ns;
 * - MWrs of at most 128 bytes (dma_write_max_bytes) cut 512-byte writes in four: the wire then carries at most
 *   7876.92 MB/s x 128 / (128 + 12 + 8) = 6812.5 MB/s = 54.50 Gb/s of payload (3-DW headers, below 4 GB), where
 *   MPS-256 MWrs allow 58.45; Acks and UpdateFCs take under 2% more;
 * - a read DMA ending inside an 8-byte word (63 bytes) issues dma_read_partial_ns (20) later than the engine's 20
 *   ns: one per 40 ns, 63 x 8 / 40 = 12.6 Gb/s; a 64-byte one keeps 20 ns (25.6 Gb/s);
 * - the engine's time outside the core (dma_overhead_ns 50, dma_ps_per_byte 1000) adds 50 + 64 = 114 ns to one
 *   64-byte read's round trip on the idle link, and 2 x 50 + 128 = 228 ns to a write-then-read's, and nothing to
 *   lat_cmd_rd's (the direct command path); a write's own 30 more (dma_write_extra_ns) makes that 258, the read 114;
 * - the engine keeps its write pace in its own time, not the interface's 2-ns edges: 2048-byte writes in 64-byte
 *   MWrs 13 ns apart run at 64 x 8 / 13 = 39.38 Gb/s (each gap rounded to an edge would give 14 ns, 36.57); with
 *   dma_write_switch_ns 5, 128-byte writes (two MWrs) take 13 + 18 = 31 ns each, 128 x 8 / 31 = 33.03 Gb/s (edges:
 *   32 ns, 32.0). The link (64-byte MWrs: 7876.92 x 64 / 84 MB/s = 48.0 Gb/s) bounds neither. */
START_TEST (test_engine_costs)
{
  const char *gap[] = { "microbench.test=bw_wr", "endpoint.dma_write_gap_ns=20", NULL };
  assert_near (server_gbps ("wgap", gap), 25.6, 0.01, "one 64-byte MWr per 20 ns");
  const char *cut[] = { "microbench.test=bw_wr", "microbench.transfer_bytes=512", "endpoint.dma_write_max_bytes=128",
                        NULL };
  double c = server_gbps ("wcut", cut);
  ck_assert_msg (c <= 54.50 && c >= 0.98 * 54.50, "512-byte writes in 128-byte MWrs: %.3f Gb/s, at most 54.50", c);
  const char *part[] = { "microbench.transfer_bytes=63", "endpoint.dma_issue_cycles=10",
                         "endpoint.dma_read_partial_ns=20", NULL };
  const char *whole[] = { "microbench.transfer_bytes=64", "endpoint.dma_issue_cycles=10",
                          "endpoint.dma_read_partial_ns=20", NULL };
  assert_near (server_gbps ("partial", part), 12.6, 0.01, "63-byte reads, one per 40 ns");
  assert_near (server_gbps ("whole", whole), 25.6, 0.01, "64-byte reads, one per 20 ns");
  const char *eng[] = { "endpoint.dma_overhead_ns=50", "endpoint.dma_ps_per_byte=1000", NULL };
  const char *engw[] = { "endpoint.dma_overhead_ns=50", "endpoint.dma_ps_per_byte=1000", "microbench.test=lat_wrrd",
                         NULL };
  const char *wr[] = { "microbench.test=lat_wrrd", NULL };
  g_autoptr (PsConfig) b = load ("eng0", lat_yaml, NULL);
  g_autoptr (PsConfig) e = load ("eng1", lat_yaml, eng);
  g_autoptr (PsConfig) bw = load ("eng2", lat_yaml, wr);
  g_autoptr (PsConfig) ew = load ("eng3", lat_yaml, engw);
  double d = run (e, 1).latency.mean_ns - run (b, 1).latency.mean_ns;
  double dw = run (ew, 1).latency.mean_ns - run (bw, 1).latency.mean_ns;
  ck_assert_msg (fabs (d - 114) < 1e-6 && fabs (dw - 228) < 1e-6, "lat_rd +%.4f ns, lat_wrrd +%.4f ns", d, dw);
  const char *xr[] = { "endpoint.dma_write_extra_ns=30", NULL };
  const char *xw[] = { "endpoint.dma_write_extra_ns=30", "microbench.test=lat_wrrd", NULL };
  g_autoptr (PsConfig) xrc = load ("eng5", lat_yaml, xr);
  g_autoptr (PsConfig) xwc = load ("eng6", lat_yaml, xw);
  ck_assert_msg (run (xrc, 1).latency.mean_ns == run (b, 1).latency.mean_ns
                 && fabs (run (xwc, 1).latency.mean_ns - run (bw, 1).latency.mean_ns - 30) < 1e-6,
                 "a write's extra 30 ns: on lat_wrrd only");
  const char *pace[] = { "microbench.test=bw_wr", "microbench.transfer_bytes=2048", "endpoint.dma_write_max_bytes=64",
                         "endpoint.dma_write_gap_ns=13", NULL };
  const char *sw[] = { "microbench.test=bw_wr", "microbench.transfer_bytes=128", "endpoint.dma_write_max_bytes=64",
                       "endpoint.dma_write_gap_ns=13", "endpoint.dma_write_switch_ns=5", NULL };
  assert_near (server_gbps ("wpace", pace), 39.38, 0.01, "64-byte MWrs 13 ns apart in the engine's time");
  assert_near (server_gbps ("wswitch", sw), 33.03, 0.01, "two MWrs per DMA, 13 + 18 ns");
  /* The direct command path has none of the engine's costs: lat_cmd_rd with them is lat_rd without. */
  const char *cmd[] = { "endpoint.dma_overhead_ns=50", "endpoint.dma_ps_per_byte=1000", "microbench.test=lat_cmd_rd",
                        NULL };
  g_autoptr (PsConfig) cc = load ("eng4", lat_yaml, cmd);
  PsMicrobenchResult m = run (cc, 1);
  ck_assert_msg (m.latency.mean_ns == run (b, 1).latency.mean_ns && strcmp (m.test, "lat_cmd_rd") == 0,
                 "lat_cmd_rd %.4f ns (%s)", m.latency.mean_ns, m.test);
}
END_TEST

/* The device offset (microbench.device_offset), on test_device_issue_rate's server link:
 * - a 64-byte read starting 1 byte into an 8-byte word of the device's memory has a partial word at each end:
 *   dma_read_partial_ns (20) twice on the engine's 20 ns, one per 60 ns, 64 x 8 / 60 = 8.533 Gb/s; at offset 8
 *   (whole words) it keeps 20 ns (25.6 Gb/s);
 * - a 128-byte write with 128-byte pieces, one piece per dma_write_gap_ns (20): at offset 0 one piece per DMA,
 *   128 x 8 / 20 = 51.2 Gb/s; at offset 1 its 17 words need two pieces, one DMA per 40 ns, 25.6 Gb/s. */
START_TEST (test_device_offset)
{
  const char *rd1[] = { "endpoint.dma_issue_cycles=10", "endpoint.dma_read_partial_ns=20",
                        "microbench.device_offset=1", NULL };
  const char *rd8[] = { "endpoint.dma_issue_cycles=10", "endpoint.dma_read_partial_ns=20",
                        "microbench.device_offset=8", NULL };
  assert_near (server_gbps ("do_rd1", rd1), 8.533, 0.01, "64-byte reads at device offset 1, one per 60 ns");
  assert_near (server_gbps ("do_rd8", rd8), 25.6, 0.01, "64-byte reads at device offset 8, one per 20 ns");
  const char *wr0[] = { "microbench.test=bw_wr", "microbench.transfer_bytes=128", "endpoint.dma_write_max_bytes=128",
                        "endpoint.dma_write_gap_ns=20", NULL };
  const char *wr1[] = { "microbench.test=bw_wr", "microbench.transfer_bytes=128", "endpoint.dma_write_max_bytes=128",
                        "endpoint.dma_write_gap_ns=20", "microbench.device_offset=1", NULL };
  assert_near (server_gbps ("do_wr0", wr0), 51.2, 0.01, "128-byte writes, one piece each");
  assert_near (server_gbps ("do_wr1", wr1), 25.6, 0.01, "128-byte writes at device offset 1, two pieces each");
  /* A write's data crosses the card's interface (256 bits at 500 MHz: 16 B/ns) before the engine's next command:
   * 128-byte writes at 10 cycles (20 ns) a command issue one per 20 + 8 ns, 128 x 8 / 28 = 36.57 Gb/s. */
  const char *wdata[] = { "microbench.test=bw_wr", "microbench.transfer_bytes=128", "endpoint.dma_issue_cycles=10",
                          NULL };
  assert_near (server_gbps ("wdata", wdata), 36.57, 0.01, "128-byte writes, command and data 28 ns");
}
END_TEST

/* NUMA (host.numa.*): a buffer in the other socket's memory adds host.numa.remote_ns (100) to one read's round
 * trip on the idle link, give or take the datapath's 4 ns clock; the same latency with the buffer local, or remote
 * at 0 ns, adds nothing. */
START_TEST (test_numa_remote)
{
  const char *rem[] = { "host.numa.buffer_remote=true", "host.numa.remote_ns=100", NULL };
  const char *loc[] = { "host.numa.remote_ns=100", NULL };
  g_autoptr (PsConfig) b = load ("numa0", lat_yaml, NULL);
  g_autoptr (PsConfig) r = load ("numa1", lat_yaml, rem);
  g_autoptr (PsConfig) l = load ("numa2", lat_yaml, loc);
  double base = run (b, 1).latency.mean_ns, remote = run (r, 1).latency.mean_ns, local = run (l, 1).latency.mean_ns;
  ck_assert_msg (fabs (remote - base - 100) <= 4 && local == base, "remote %.3f, local %.3f, base %.3f ns", remote,
                 local, base);
}
END_TEST

/* Where a warm line is cached decides what its read pays, the buffer's memory what a cold one pays (pcie-bench's
 * sD-sB-sC, docs/host-model.md §3b). By hand with remote_ns 100 over the local figures: a local buffer warmed from
 * the other socket is read 100 ns later; a remote one warmed from the device's socket as a local one, but cold 100
 * ns later than local and cold; a write-then-read reads its own write from the buffer's memory, wherever the
 * window was warmed; and the default, the buffer's socket, is the buffer's remote_ns. */
START_TEST (test_numa_warm_cache)
{
  struct {
    const char *sets[5];
    double more_ns; /* over the same test local (no --set but remote_ns) */
  } cases[] = {
    { { "host.numa.warm_cache=other_socket", NULL }, 100 },
    { { "host.numa.buffer_remote=true", "host.numa.warm_cache=device_socket", NULL }, 0 },
    { { "host.numa.buffer_remote=true", "host.numa.warm_cache=device_socket", "microbench.cache=cold", NULL }, 100 },
    { { "host.numa.warm_cache=other_socket", "microbench.test=lat_wrrd", NULL }, 0 },
    { { "host.numa.buffer_remote=true", "host.numa.warm_cache=buffer_socket", NULL }, 100 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    /* The local run differs only in the NUMA keys: the same test and cache state. */
    const char *with[7] = { "host.numa.remote_ns=100" }, *local[4] = { "host.numa.remote_ns=100" };
    guint nw = 1, nl = 1;
    for (guint k = 0; cases[i].sets[k]; k++) {
      with[nw++] = cases[i].sets[k];
      if (g_str_has_prefix (cases[i].sets[k], "microbench."))
        local[nl++] = cases[i].sets[k];
    }
    g_autofree char *a = g_strdup_printf ("warm%u", i), *b = g_strdup_printf ("warm%u_local", i);
    g_autoptr (PsConfig) w = load (a, lat_yaml, with);
    g_autoptr (PsConfig) l = load (b, lat_yaml, local);
    double got = run (w, 1).latency.mean_ns, base = run (l, 1).latency.mean_ns;
    ck_assert_msg (fabs (got - base - cases[i].more_ns) <= 4, "case %u: %.3f ns against %.3f local, want +%g", i,
                   got, base, cases[i].more_ns);
  }
}
END_TEST

/* The JSON contract: results.microbench {test, transfer_bytes, gbps, read_gbps, write_gbps, latency_ns {mean, p50,
 * p99, max}}. */
START_TEST (test_json)
{
  g_autofree char *dir = case_dir ("json");
  g_autofree char *path = write_file (dir, "c.yaml", lat_yaml);
  TestRun r = { 0 };
  const char *args[] = { path, "--format", "json", NULL };
  run_program (&r, test_env ("PCIESIM_EXE"), dir, args);
  ck_assert_int_eq (r.status, 0);
  ck_assert_ptr_nonnull (strstr (r.out, "\"microbench\": {\"test\": \"lat_rd\", \"transfer_bytes\": 64, \"gbps\": "));
  ck_assert_ptr_nonnull (strstr (r.out, "\"latency_ns\": {\"mean\": "));
  ck_assert_ptr_nonnull (strstr (r.out, ", \"read_gbps\": "));
  ck_assert_ptr_nonnull (strstr (r.out, ", \"write_gbps\": 0.000, "));
  ck_assert_ptr_nonnull (strstr (r.out, "\"model\": \"microbench\""));
  test_run_clear (&r);
}
END_TEST

/* Sweep metrics: a microbench base defaults to microbench_gbps and the latencies, each cell the run's own figure
 * (the run report's CSV row), and a mode's metric with such a base is refused at its node. */
START_TEST (test_sweep_metrics)
{
  g_autofree char *dir = case_dir ("sweep");
  g_autofree char *cfg = write_file (dir, "c.yaml", lat_yaml);
  g_autofree char *scn = write_file (dir, "s.yaml", "name: s\n"
                                                    "base: c.yaml\n"
                                                    "axes:\n"
                                                    "  - key: microbench.transfer_bytes\n"
                                                    "    values: [64, 256]\n");
  TestRun r = { 0 };
  const char *args[] = { "sweep", scn, NULL };
  run_program (&r, test_env ("PCIESIM_EXE"), dir, args);
  ck_assert_msg (r.status == 0, "%s", r.err);
  ck_assert_ptr_nonnull (strstr (r.out, "id,microbench.transfer_bytes,microbench_gbps,microbench_latency_mean_ns,"
                                        "microbench_latency_p50_ns,microbench_latency_p99_ns,"
                                        "microbench_latency_max_ns\n"));
  TestRun one = { 0 };
  const char *one_args[] = { cfg, "--format", "csv", "--set", "microbench.transfer_bytes=256", NULL };
  run_program (&one, test_env ("PCIESIM_EXE"), dir, one_args);
  ck_assert_int_eq (one.status, 0);
  /* The run's row "c,lat_rd,256,GBPS,MEAN,P50,P99,MAX,LIMIT,CAUSE,SHARE,READ,WRITE" (2 decimals) against the sweep's
   * "2,256,GBPS,MEAN,P50,P99,MAX" (3 decimals): equal up to the run report's rounding. */
  const char *row = strstr (one.out, "\nc,lat_rd,256,"), *cell = strstr (r.out, "\n2,256,");
  ck_assert (row != NULL && cell != NULL);
  g_auto (GStrv) a = g_strsplit (row + strlen ("\nc,lat_rd,256,"), ",", -1);
  g_auto (GStrv) b = g_strsplit (cell + strlen ("\n2,256,"), ",", -1);
  /* The run's row goes on with the verdict, then read_gbps and write_gbps, which are no default sweep columns. */
  ck_assert (g_strv_length (a) == 10 && g_strv_length (b) == 5);
  for (int i = 0; i < 5; i++)
    ck_assert_msg (fabs (g_ascii_strtod (a[i], NULL) - g_ascii_strtod (b[i], NULL)) <= 0.0051, "column %d: run %s, "
                   "sweep %s", i, a[i], b[i]);
  test_run_clear (&r);
  test_run_clear (&one);

  g_autofree char *bad = write_file (dir, "bad.yaml", "name: bad\n"
                                                      "base: c.yaml\n"
                                                      "axes:\n"
                                                      "  - key: microbench.transfer_bytes\n"
                                                      "    values: [64]\n"
                                                      "metrics: [read_mbps]\n");
  const char *bad_args[] = { "sweep", bad, NULL };
  run_program (&r, test_env ("PCIESIM_EXE"), dir, bad_args);
  ck_assert_int_eq (r.status, 65);
  ck_assert_msg (strstr (r.err, "bad.yaml:6:11: error: metric 'read_mbps' is a benchmark mode's") != NULL, "%s", r.err);
  test_run_clear (&r);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("microbench");
  TCase *tc = tcase_create ("microbench");
  tcase_set_timeout (tc, 120);
  tcase_add_unchecked_fixture (tc, lat_setup, lat_teardown);
  tcase_add_test (tc, test_lat_rd_hand_sum);
  tcase_add_test (tc, test_bw_wr_protocol_limit);
  tcase_add_test (tc, test_random_offsets_seeded);
  tcase_add_test (tc, test_read_concurrency);
  tcase_add_test (tc, test_full_block_completions);
  tcase_add_test (tc, test_completion_groups);
  tcase_add_test (tc, test_completion_fence);
  tcase_add_test (tc, test_posted_write_acceptance);
  tcase_add_test (tc, test_write_block_edges);
  tcase_add_test (tc, test_iommu_knee_bandwidth);
  tcase_add_test (tc, test_iommu_read_resume_groups_bandwidth);
  tcase_add_test (tc, test_completion_queue_exposes_walks);
  tcase_add_test (tc, test_device_issue_rate);
  tcase_add_test (tc, test_bw_rdwr_split);
  tcase_add_test (tc, test_byte_enables);
  tcase_add_test (tc, test_llc_window);
  tcase_add_test (tc, test_engine_costs);
  tcase_add_test (tc, test_device_offset);
  tcase_add_test (tc, test_numa_remote);
  tcase_add_test (tc, test_numa_warm_cache);
  tcase_add_test (tc, test_json);
  tcase_add_test (tc, test_sweep_metrics);
  suite_add_tcase (s, tc);
  return run_suite (s);
}
