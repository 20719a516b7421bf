/* test-harness.c — the benchmark on any fabric (models/fabric/run.h's harness, app/run/builder.h's one builder): the shipped
 * configs/an456_behind_switches.yaml runs the AN-456 chaining DMA on an endpoint behind two switches, and what the
 * switches cost it follows by hand; the bytes it moves are exactly those the descriptors ask for; a topology
 * without flows must have the one endpoint the benchmark runs on; the new device of docs/adding-a-device.md (a
 * registry row and one model file) builds and runs as its page says. */
#include <check.h>
#include <math.h>
#include <string.h>

#define TMPDIR_TEMPLATE "pciesim-test-harness-XXXXXX"
#include "tests/common.h"
#include "app/run/builder.h"
#include "app/config/config.h"
#include "app/config/load.h"

#define CONFIG "configs/an456_behind_switches.yaml"

static PsConfig *
load (const char *path, const char *const *sets)
{
  g_autofree char *full = g_build_filename (source_root (), path, NULL);
  g_autoptr (GError) e = NULL;
  PsConfig *cfg = ps_config_load (full, sets, &e);
  ck_assert_msg (cfg != NULL, "%s", e ? e->message : "");
  return cfg;
}

static PsModeResult
run_mode (const PsConfig *cfg, unsigned mode, int index)
{
  g_autoptr (GError) e = NULL;
  PsRunResult r = { 0 };
  ck_assert_msg (ps_run_config (cfg, mode, 1, &r, &e), "%s", e ? e->message : "");
  ck_assert (r.modes[index].ran);
  return r.modes[index];
}

/* The write engine's counter time per transfer with each switch's latency at L, less with none. Its MWrs are
 * posted: they stream up the three links without waiting for anything that crosses back, and the counter stops
 * when the last one leaves the endpoint; what waits on a round trip through both switches is the descriptor fetch
 * before the first MWr (its request crosses sw2 and sw1, its completion sw1 and sw2): 4 x L once per transfer.
 * The fetches after it run under the data. So the difference is 4 L, to within one cycle of the 250 MHz datapath
 * (4 ns) where the first MWr lands on a clock edge. (The switches' DLL share is part of L: 0 with it.) */
static const double latency_ns[] = { 150, 300 };

START_TEST (test_write_pays_switch_latency_once)
{
  double l = latency_ns[_i];
  g_autofree char *lat = g_strdup_printf ("switch.latency_ns=%g", l);
  const char *const sets[] = { lat, NULL };
  const char *const none[] = { "switch.latency_ns=0", "switch.dll_latency_ns=0", NULL };
  g_autoptr (PsConfig) with = load (CONFIG, sets);
  g_autoptr (PsConfig) without = load (CONFIG, none);
  PsModeResult a = run_mode (with, PS_MODE_WRITE, PS_WRITE), b = run_mode (without, PS_MODE_WRITE, PS_WRITE);
  double dt = a.write_window_ns - b.write_window_ns;
  ck_assert_msg (dt >= 4 * l - 1e-6 && dt <= 4 * l + 4.0, "L = %g ns: the write counter grew by %.3f ns, not 4 L "
                 "(+ at most one 4 ns cycle)", l, dt);
  /* The figure is the counter's: bytes over that time. */
  ck_assert (fabs (a.mbps - 102400.0 * 1000.0 / a.write_window_ns) < 1e-6 * a.mbps);
}
END_TEST

/* The same fabric built for the driver by hand (ps_build_system_fabric, what the config run builds): per transfer of
 * 102,400 bytes, 102,400 / 4,096 = 25 descriptors of 16 bytes come from host memory as completions, and each
 * engine run ends with a 4-byte EPLAST and a 4-byte MSI into it (benchmarks/an456.yaml: msi); the data goes to
 * host memory (write) or comes from it (read). 20 iterations. */
static const unsigned mode_bits[2] = { PS_MODE_WRITE, PS_MODE_READ };

START_TEST (test_bytes_exact_behind_switches)
{
  const uint64_t n = 20, bytes = 102400, desc = 25 * 16;
  g_autoptr (PsConfig) cfg = load (CONFIG, NULL);
  SystemMode mode = _i == 0 ? SYSTEM_WRITE : SYSTEM_READ;
  SystemParams sp;
  ps_build_system_params (cfg, &sp);
  g_autoptr (GError) e = NULL;
  g_autoptr (Dist) interrupt = ps_build_dist (&cfg->cpu.interrupt, &e);
  g_autoptr (Dist) wakeup = ps_build_dist (&cfg->cpu.wakeup, &e);
  ck_assert_msg (interrupt && wakeup, "%s", e ? e->message : "");
  sp.cpu.interrupt = interrupt;
  sp.cpu.wakeup = wakeup;
  Host *host;
  Endpoint *ep;
  Fabric *f = ps_build_system_fabric (cfg, mode, 1, &host, &ep, &e);
  ck_assert_msg (f != NULL, "%s", e ? e->message : "");
  ck_assert_uint_eq (fabric_n_links (f), 3);
  SystemWorkload w = { .endpoint = ep, .mode = mode, .transfer_bytes = sp.transfer_bytes };
  SystemDriver d = { .iterations = sp.iterations, .software_timed = sp.software_timed, .cpu = &sp.cpu };
  SystemResult r;
  ck_assert_msg (system_run_fabric (f, host, &w, 1, &d, &r, &e), "%s", e ? e->message : "");
  HostCounters hc = host_counters (host);
  ck_assert_uint_eq (hc.bytes_written, n * ((mode == SYSTEM_WRITE ? bytes : 0) + 4 + 4));
  ck_assert_uint_eq (hc.cpl_bytes, n * ((mode == SYSTEM_READ ? bytes : 0) + desc));
  ck_assert_uint_eq (r.dma.write_bytes_sent, mode == SYSTEM_WRITE ? n * bytes : 0);
  ck_assert_uint_eq (r.dma.ep_bytes_written, mode == SYSTEM_READ ? n * bytes : 0);
  fabric_free (f);
  /* And the config's run is this run: the same figure. */
  PsModeResult m = run_mode (cfg, mode_bits[_i], mode == SYSTEM_WRITE ? PS_WRITE : PS_READ);
  ck_assert (m.mbps == (mode == SYSTEM_WRITE ? r.write_mbps : r.read_mbps));
}
END_TEST

/* docs/adding-a-device.md's example (docs/examples/memory_device.yaml) builds and runs: the memory device takes in
 * every byte written and answers every byte read (the run's ledger checks its counts through its memory hook), and
 * its access latency is on the read's path exactly once: raising it by 1000 ns makes the 512-byte read (one request,
 * completions from the device through the switch to the endpoint) end 1000 ns later, to within one 4 ns cycle of
 * the endpoint's datapath, where the completions land on a clock edge. */
static PsFabricResult
run_example (const char *const *sets)
{
  g_autoptr (PsConfig) cfg = load ("docs/examples/memory_device.yaml", sets);
  g_autoptr (GError) e = NULL;
  PsRunResult r = { 0 };
  ck_assert_msg (ps_run_config (cfg, 0, 1, &r, &e), "%s", e ? e->message : "");
  ck_assert (r.fabric.ran && r.fabric.n_flows == 2);
  return r.fabric;
}

START_TEST (test_memory_device_example)
{
  const char *const slower[] = { "nodes.mem.access_latency_ns=1500", NULL };
  PsFabricResult a = run_example (NULL), b = run_example (slower);
  ck_assert_uint_eq (a.flows[0].delivered_bytes, 512);
  ck_assert_uint_eq (a.flows[1].delivered_bytes, 65536);
  double ta = 512 * 1000.0 / a.flows[0].mbps, tb = 512 * 1000.0 / b.flows[0].mbps;
  ck_assert_msg (fabs (tb - ta - 1000.0) <= 4.0, "the read took %.3f ns longer, not 1000", tb - ta);
  /* The writes are posted: the device's latency is not on their path. */
  ck_assert (a.flows[1].mbps == b.flows[1].mbps);
  /* 20 ms, inside the key's range: the watchdog asks the device how long it may be silent (ComponentKind's
   * silence_ps) instead of knowing only endpoints, so the run ends with the read 20 ms - 500 ns later, not in a
   * deadlock after the default 10 ms of quiet. */
  const char *const slowest[] = { "nodes.mem.access_latency_ns=20000000", NULL };
  PsFabricResult c = run_example (slowest);
  ck_assert_uint_eq (c.flows[0].delivered_bytes, 512);
  double tc = 512 * 1000.0 / c.flows[0].mbps;
  ck_assert_msg (fabs (tc - ta - (20e6 - 500)) <= 4.0, "the read took %.3f ns longer, not 19999500", tc - ta);
}
END_TEST

/* Errors on an idle wire (spec §4.2.2.3.5; link_errors.c): configs/fabric_hops_g3_x4.yaml runs five 64 KB write
 * flows 100 us apart through a chain of four store-and-forward switches, so every link idles for up to 400 us
 * between bursts and its UpdateFC refreshes come after idle periods. At BER 1e-5 on Gen3 x4 (4 bytes a ns), a
 * 30 us refresh period is 120,000 bytes of IDLs: 9.6 wrong bits on average. Charged to the next packet, they lost
 * it with probability 1 - e^-9.6 (every refresh UpdateFC lost: the switches' transmitters waited for credits for
 * ever); a Recovery ends retrain_ps (1 us, 4,000 bytes) after its error, so only an error in the last 4,000 bytes
 * before a packet, or in its own token, can cost it: 1 - e^-0.32 = 27%. Every flow then delivers its bytes, and
 * each link that carried one reports its framing errors. */
START_TEST (test_idle_errors_cost_no_packet_after_recovery)
{
  const char *const sets[] = { "switch.forwarding=store_and_forward", "link.ber=1e-5", NULL };
  g_autoptr (PsConfig) cfg = load ("configs/fabric_hops_g3_x4.yaml", sets);
  g_autoptr (GError) e = NULL;
  PsRunResult r = { 0 };
  ck_assert_msg (ps_run_config (cfg, cfg->benchmark.modes, 1, &r, &e), "%s", e ? e->message : "");
  ck_assert_uint_eq (r.fabric.n_flows, 5);
  for (guint k = 0; k < r.fabric.n_flows; k++)
    ck_assert_uint_eq (r.fabric.flows[k].delivered_bytes, 65536);
  uint64_t framing = 0;
  for (guint k = 0; k < r.fabric.n_links; k++)
    framing += r.fabric.links[k].a_to_b_errors.framing_errors + r.fabric.links[k].b_to_a_errors.framing_errors;
  ck_assert_msg (framing > 0, "no framing error at BER 1e-5");
}
END_TEST

/* Without flows, the benchmark needs its one endpoint: two are refused at the topology. */
START_TEST (test_no_flows_needs_one_endpoint)
{
  g_autofree char *dir = case_dir ("two");
  g_autofree char *yaml = g_strdup_printf ("include: [%s/configs/svgx_g2_x8.yaml]\ntopology:\n  nodes:\n    host: {type: root_complex}\n"
                                           "    a: {type: endpoint}\n    b: {type: endpoint}\n"
                                           "  links: [[host, a], [host, b]]\n", source_root ());
  g_autofree char *path = write_file (dir, "c.yaml", yaml);
  g_autoptr (GError) e = NULL;
  g_autoptr (PsConfig) cfg = ps_config_load (path, NULL, &e);
  ck_assert (cfg == NULL);
  ck_assert_msg (g_error_matches (e, PS_ERROR, PS_ERROR_DATA) && strstr (e->message, "exactly one endpoint")
                 && strstr (e->message, "(here 2)"), "%s", e->message);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("harness");
  TCase *tc = tcase_create ("harness");
  tcase_set_timeout (tc, 120);
  tcase_add_unchecked_fixture (tc, tmpdir_setup, tmpdir_teardown);
  tcase_add_loop_test (tc, test_write_pays_switch_latency_once, 0, G_N_ELEMENTS (latency_ns));
  tcase_add_loop_test (tc, test_bytes_exact_behind_switches, 0, 2);
  tcase_add_test (tc, test_idle_errors_cost_no_packet_after_recovery);
  tcase_add_test (tc, test_no_flows_needs_one_endpoint);
  tcase_add_test (tc, test_memory_device_example);
  suite_add_tcase (s, tc);
  return run_suite (s);
}
