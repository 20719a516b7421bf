/* test-builder.c — the config -> model builder (app/run/builder.c): what each key becomes in the models' parameter
 * structs, and what the models' errors become. Configs are small YAML files written here and loaded with
 * ps_config_load(), so every value the test checks is one it wrote; the expected model values follow from the
 * field names' units and from the mapping rules stated in builder.c (credits named by who advertises them,
 * policy words to enums). */
#include <check.h>
#include <math.h>
#include <string.h>

#define TMPDIR_TEMPLATE "pciesim-test-builder-XXXXXX"
#include "tests/common.h"
#include "models/link/phy.h"
#include "app/run/assemble.h"
#include "app/run/builder.h"
#include "app/config/nodes.h"
#include "app/config/config.h"
#include "app/config/load.h"
#include "app/base/error.h"

/* Every key the mapping reads, each set to a value that is not its default and not equal to another's, so a
 * field wired to the wrong key shows. Finite data credits are at least the spec minimum for MPS 512 (512 / 16 =
 * 32, spec §3.4.2), which the loader enforces. */
static const char full_yaml[] =
  "link:\n"
  "  gen: 3\n"
  "  lanes: 4\n"
  "  max_payload: 512\n"
  "  max_read_request: 1024\n"
  "  read_completion_boundary: 128\n"
  "  ecrc: true\n"
  "  address_bits: 64\n"
  "  tx_pipeline_ns: 12.5\n"
  "  rx_pipeline_ns: 1.005\n"
  "  flight_ns: 0.0015\n"
  "  replay_buffer_bytes: 8192\n"
  "  tx_queue_tlps: 3\n"
  "  updatefc_period_ns: 15000\n"
  "  updatefc_hdr_threshold_credits: 5\n"
  "  updatefc_data_threshold_credits: 80\n"
  "  skp_interval_symbols: 740\n"
  "endpoint:\n"
  "  tags: 64\n"
  "  datapath_bits: 512\n"
  "  clock_mhz: 312.5\n"
  "  header_own_beat: true\n"
  "  straddle: true\n"
  "  tx_gap_cycles: 2\n"
  "  rx_overhead_cycles: 3\n"
  "  arb_switch_cycles: 4\n"
  "  ack_every_tlps: 9\n"
  "  completion_buffer_bytes: 16384\n"
  "  completion_buffer_headers: 40\n"
  "  rx_credits: {ph: 1, pd: 32, nph: 3, npd: 4, cplh: 0, cpld: 0}\n"
  "dma:\n"
  "  desc_max_bytes: 8192\n"
  "  desc_per_fetch: 4\n"
  "  desc_fifo_entries: 16\n"
  "  desc_setup_cycles: 7\n"
  "  msi: false\n"
  "  channels: 2\n"
  "host:\n"
  "  rx_credits: {ph: 11, pd: 42, nph: 33, npd: 44, cplh: 55, cpld: 66}\n"
  "  ack_every_tlps: 8\n"
  "  read_latency_ns: 640.5\n"
  "  read_latency_ps_per_byte: 0.25\n"
  "  completion_mbps: 3000\n"
  "  completion_overhead_ns: 6.5\n"
  "  read_queue_depth: 12\n"
  "  write_drain_mbps: 2500.5\n"
  "  write_latency_ns: 150\n"
  "  pio_latency_ns: 1100\n"
  "  pio_gap_ns: 90\n"
  "  msi_latency_ns: 2500\n"
  "  poll_interval_ns: 4000\n"
  "  iteration_gap_ns: 300\n"
  "benchmark:\n"
  "  transfer_bytes: 65536\n"
  "  iterations: 3\n"
  "  watchdog_ns: 2e6\n";

/* The smallest valid config, for the cases that vary one policy word with --set. */
static const char small_yaml[] = "link:\n  gen: 2\n  lanes: 8\n  max_payload: 256\n";

static PsConfig *
load (const char *name, const char *yaml, const char *const *sets)
{
  g_autofree char *dir = case_dir (name);
  g_autofree char *path = g_build_filename (dir, "c.yaml", NULL);
  g_autoptr (GError) e = NULL;
  ck_assert (g_file_set_contents (path, yaml, -1, &e));
  PsConfig *cfg = ps_config_load (path, sets, &e);
  ck_assert_msg (cfg != NULL, "%s: %s", name, e ? e->message : "?");
  return cfg;
}

/* Field by field: struct padding makes memcmp of two LinkParams meaningless. */
static gboolean
link_params_equal (const LinkParams *a, const LinkParams *b)
{
  return a->gen == b->gen && a->lanes == b->lanes && a->max_payload_bytes == b->max_payload_bytes
         && a->tx_pipeline_ps == b->tx_pipeline_ps && a->rx_pipeline_ps == b->rx_pipeline_ps
         && a->flight_ps == b->flight_ps && a->replay_buffer_bytes == b->replay_buffer_bytes
         && a->tx_queue_tlps == b->tx_queue_tlps && a->updatefc_period_ps == b->updatefc_period_ps
         && memcmp (a->rx_credits, b->rx_credits, sizeof a->rx_credits) == 0
         && a->skp_interval_symbols == b->skp_interval_symbols
         && a->updatefc_hdr_threshold_credits == b->updatefc_hdr_threshold_credits
         && a->updatefc_data_threshold_credits == b->updatefc_data_threshold_credits
         && a->updatefc_latency_symbols == b->updatefc_latency_symbols
         && memcmp (a->ack_every_tlps, b->ack_every_tlps, sizeof a->ack_every_tlps) == 0
         && a->ecrc == b->ecrc;
}

/* ---- link: units and who advertises which credits ---- */

START_TEST (test_link)
{
  g_autoptr (PsConfig) cfg = load ("link", full_yaml, NULL);
  LinkParams lp;
  ps_build_link_params (cfg, &lp);
  ck_assert_int_eq (lp.gen, 3);
  ck_assert_int_eq (lp.lanes, 4);
  ck_assert_uint_eq (lp.max_payload_bytes, 512);
  ck_assert (lp.ecrc);
  /* ns -> ps, to the nearest picosecond with halves away from zero: 12.5 ns is 12,500 ps; 1.005 ns is 1005 ps
   * although 1.005 x 1000 is 1004.9999999999999 in binary (truncation would give 1004); 0.0015 ns is 1.5 ps,
   * which rounds up to 2. */
  ck_assert_uint_eq (lp.tx_pipeline_ps, 12500);
  ck_assert_uint_eq (lp.rx_pipeline_ps, 1005);
  ck_assert_uint_eq (lp.flight_ps, 2);
  ck_assert_uint_eq (lp.updatefc_period_ps, 15000 * SIM_NS);
  ck_assert_uint_eq (lp.replay_buffer_bytes, 8192);
  ck_assert_uint_eq (lp.tx_queue_tlps, 3);
  ck_assert_uint_eq (lp.skp_interval_symbols, 740);
  ck_assert_uint_eq (lp.updatefc_hdr_threshold_credits, 5);
  ck_assert_uint_eq (lp.updatefc_data_threshold_credits, 80);
  /* The root port's credits (host.rx_credits) limit what the endpoint sends upstream; the endpoint's limit the
   * host. Each receiver's Ack policy stays with it. */
  const FcCredits host = { 11, 42, 33, 44, 55, 66 }, dev = { 1, 32, 3, 4, 0, 0 }; /* an endpoint's completion credits are infinite */
  ck_assert (memcmp (&lp.rx_credits[LINK_DSP], &host, sizeof host) == 0);
  ck_assert (memcmp (&lp.rx_credits[LINK_USP], &dev, sizeof dev) == 0);
  ck_assert_uint_eq (lp.ack_every_tlps[LINK_DSP], 8);
  ck_assert_uint_eq (lp.ack_every_tlps[LINK_USP], 9);
}
END_TEST

/* ---- policy words ---- */

/* link.updatefc_policy and link.updatefc_latency_symbols: an explicit latency wins over the word. */
static const struct {
  const char *set[3];
  uint32_t latency;
} updatefc_cases[] = {
  { { NULL }, 0 }, /* default: minimum */
  { { "link.updatefc_policy=minimum", NULL }, 0 },
  { { "link.updatefc_policy=recommended", NULL }, LINK_UPDATEFC_LATENCY_RECOMMENDED },
  { { "link.updatefc_policy=recommended", "link.updatefc_latency_symbols=300", NULL }, 300 },
  { { "link.updatefc_latency_symbols=77", NULL }, 77 },
};

START_TEST (test_updatefc_policy)
{
  g_autoptr (PsConfig) cfg = load ("updatefc", small_yaml, updatefc_cases[_i].set);
  LinkParams lp;
  ps_build_link_params (cfg, &lp);
  ck_assert_msg (lp.updatefc_latency_symbols == updatefc_cases[_i].latency, "case %d: %u", _i,
                 lp.updatefc_latency_symbols);
}
END_TEST

/* endpoint.arbitration: read_priority is the datapath's priority mode with each read engine registered first. */
static const struct {
  const char *word;
  AppArbitration arb;
  gboolean read_first;
} arbitration_cases[] = {
  { "round_robin", APP_ARB_ROUND_ROBIN, FALSE },
  { "priority", APP_ARB_PRIORITY, FALSE },
  { "read_priority", APP_ARB_PRIORITY, TRUE },
};

START_TEST (test_arbitration)
{
  g_autofree char *set = g_strdup_printf ("endpoint.arbitration=%s", arbitration_cases[_i].word);
  const char *sets[] = { set, NULL };
  g_autoptr (PsConfig) cfg = load ("arbitration", small_yaml, sets);
  SystemParams sp;
  ps_build_system_params (cfg, &sp);
  ck_assert_msg (sp.app.arbitration == arbitration_cases[_i].arb, "%s", arbitration_cases[_i].word);
  ck_assert_msg (sp.dma.read_first == arbitration_cases[_i].read_first, "%s", arbitration_cases[_i].word);
}
END_TEST

/* host.completion_bytes: 0 means up to MPS; the RCB (when it is not also the MPS) means one per RCB block. */
static const struct {
  const char *set[3];
  CplPolicy policy;
} completion_cases[] = {
  { { "host.completion_bytes=0", NULL }, CPL_POLICY_MPS },
  { { "host.completion_bytes=64", NULL }, CPL_POLICY_RCB },
  { { "host.completion_bytes=256", NULL }, CPL_POLICY_MPS },
  { { "host.completion_bytes=128", "link.read_completion_boundary=128", NULL }, CPL_POLICY_RCB },
  /* RCB 128 = MPS 128: one completion per block and MPS-sized are the same thing; the builder says MPS. */
  { { "host.completion_bytes=128", "link.read_completion_boundary=128", "link.max_payload=128" }, CPL_POLICY_MPS },
};

START_TEST (test_completion_policy)
{
  const char *sets[4] = { completion_cases[_i].set[0], completion_cases[_i].set[1], completion_cases[_i].set[2],
                          NULL };
  g_autoptr (PsConfig) cfg = load ("completion", small_yaml, sets);
  SystemParams sp;
  ps_build_system_params (cfg, &sp);
  ck_assert_msg (sp.host.cpl_policy == completion_cases[_i].policy, "case %d", _i);
}
END_TEST

START_TEST (test_other_words)
{
  /* dma.counter_start, dma.descriptor_mode and link.address_bits, each in both positions. */
  const char *a[] = { "dma.counter_start=host", "dma.descriptor_mode=software", "link.address_bits=64", NULL };
  const char *b[] = { "dma.counter_start=endpoint", "dma.descriptor_mode=chained", "link.address_bits=32", NULL };
  g_autoptr (PsConfig) ca = load ("words-a", small_yaml, a);
  g_autoptr (PsConfig) cb = load ("words-b", small_yaml, b);
  SystemParams sa, sb;
  ps_build_system_params (ca, &sa);
  ps_build_system_params (cb, &sb);
  ck_assert (sa.dma.counter_start == DMA_COUNTER_AT_HOST && sb.dma.counter_start == DMA_COUNTER_AT_ENDPOINT);
  ck_assert (sa.software_timed && !sb.software_timed);
  ck_assert (sa.dma.addr64 && !sb.dma.addr64);
  StreamParams ta, tb;
  ps_build_stream_params (ca, STREAM_WRITE, &ta);
  ps_build_stream_params (cb, STREAM_WRITE, &tb);
  ck_assert (ta.addr64 && !tb.addr64);
}
END_TEST

/* ---- the whole system and the stream ---- */

START_TEST (test_system)
{
  g_autoptr (PsConfig) cfg = load ("system", full_yaml, NULL);
  SystemParams sp;
  ps_build_system_params (cfg, &sp);
  /* The link inside is the one ps_build_link_params() builds. */
  LinkParams lp;
  ps_build_link_params (cfg, &lp);
  ck_assert (link_params_equal (&sp.link, &lp));
  /* The host keeps nanoseconds (its fields say _ns) and converts them itself. */
  ck_assert_uint_eq (sp.host.rcb_bytes, 128);
  ck_assert (sp.host.read_latency_ns == 640.5 && sp.host.read_latency_per_byte_ps == 0.25);
  ck_assert (sp.host.cpl_rate_mbps == 3000 && sp.host.cpl_overhead_ns == 6.5);
  ck_assert_uint_eq (sp.host.read_queue_depth, 12);
  ck_assert (sp.host.write_drain_mbps == 2500.5 && sp.host.write_latency_ns == 150);
  ck_assert (sp.host.sw_pio_latency_ns == 1100 && sp.host.sw_pio_gap_ns == 90);
  ck_assert (sp.host.msi_latency_ns == 2500 && sp.host.poll_interval_ns == 4000);
  ck_assert (sp.host.iteration_gap_ns == 300);
  ck_assert_uint_eq (sp.app.width_bits, 512);
  ck_assert (sp.app.clock_mhz == 312.5 && sp.app.header_own_beat && sp.app.straddle);
  ck_assert_uint_eq (sp.app.tx_gap_cycles, 2);
  ck_assert_uint_eq (sp.app.rx_overhead_cycles, 3);
  ck_assert_uint_eq (sp.app.arb_switch_cycles, 4);
  /* One physical setting may feed two models: MPS bounds the DMA's writes as well as the link's TLPs. */
  ck_assert_uint_eq (sp.dma.max_payload_bytes, 512);
  ck_assert_uint_eq (sp.dma.max_read_request_bytes, 1024);
  ck_assert_uint_eq (sp.dma.tags, 64);
  ck_assert_uint_eq (sp.dma.cpl_buffer_bytes, 16384);
  /* The header budget counts completions per RCB block, so the DMA also gets the link's RCB. */
  ck_assert_uint_eq (sp.dma.cpl_buffer_headers, 40);
  ck_assert_uint_eq (sp.dma.rcb_bytes, 128);
  ck_assert_uint_eq (sp.dma.desc_max_bytes, 8192);
  ck_assert_uint_eq (sp.dma.desc_per_fetch, 4);
  ck_assert_uint_eq (sp.dma.desc_fifo_entries, 16);
  ck_assert_uint_eq (sp.dma.desc_setup_cycles, 7);
  ck_assert (!sp.dma.msi && sp.dma.addr64);
  ck_assert_uint_eq (sp.dma.channels, 2);
  ck_assert_uint_eq (sp.transfer_bytes, 65536);
  ck_assert_uint_eq (sp.iterations, 3);
  ck_assert_uint_eq (sp.watchdog_ps, 2000000 * SIM_NS); /* 2e6 ns */
  /* Test hooks stay off in a built system. */
  ck_assert (sp.host_fault == HOST_FAULT_NONE && sp.link_fault == LINK_FAULT_NONE);
  g_autoptr (GError) e = NULL;
  ck_assert_msg (system_params_check (&sp, &e), "%s", e ? e->message : "");
}
END_TEST

START_TEST (test_stream)
{
  g_autoptr (PsConfig) cfg = load ("stream", full_yaml, NULL);
  StreamParams sp;
  ps_build_stream_params (cfg, _i == 0 ? STREAM_READ : STREAM_WRITE, &sp);
  ck_assert (sp.mode == (_i == 0 ? STREAM_READ : STREAM_WRITE));
  LinkParams lp;
  ps_build_link_params (cfg, &lp);
  ck_assert (link_params_equal (&sp.link, &lp));
  ck_assert_uint_eq (sp.total_bytes, 65536);
  /* A config's transfer is measured whole, from its first TLP (issue #12 item 1): no warmup. */
  ck_assert (sp.window == STREAM_WINDOW_TRANSFER);
  ck_assert_uint_eq (sp.warmup_bytes, 0);
  ck_assert (sp.addr64);
  ck_assert (sp.consumer_mbps == 2500.5);
  ck_assert_uint_eq (sp.max_read_request_bytes, 1024);
  ck_assert_uint_eq (sp.tags, 64);
  ck_assert_uint_eq (sp.rcb_bytes, 128);
  ck_assert_uint_eq (sp.completion_bytes, 0);
  /* The stream's completer takes the fixed read latency alone, in picoseconds: 640.5 ns. */
  ck_assert_uint_eq (sp.completer_latency_ps, 640500);
}
END_TEST

/* The shipped Gen2 x8 config with `sets`, loaded and run in `mode` through ps_run_config(). */
static PsConfig *
run_shipped (const char *const *sets, unsigned mode, PsRunResult *r)
{
  g_autoptr (GError) e = NULL;
  g_autofree char *path = g_build_filename (source_root (), "configs", "svgx_g2_x8.yaml", NULL);
  PsConfig *cfg = ps_config_load (path, sets, &e);
  ck_assert_msg (cfg != NULL, "%s", e ? e->message : "");
  *r = (PsRunResult) { 0 };
  ck_assert_msg (ps_run_config (cfg, mode, 1, r, &e), "%s", e ? e->message : "");
  return cfg;
}

/* Issue #12 item 1, end to end through ps_run_config(): the user's commands on the shipped Gen2 x8 config. A
 * 256-byte stream write printed 0.0 and a 4096-byte read stopped "above the protocol limit". The write is one
 * MWr of 256 + 16 (4-DW header: the host file's 64-bit addresses) + 8 framing = 280 bytes = 35 symbol times of
 * 2 ns across 8 lanes, after the config's transmit pipeline and before its flight and receive pipeline: the
 * figure is 256 bytes over that time. Every other size from one DW up gives a figure above 0. */
START_TEST (test_stream_small_transfers)
{
  const char *const sets[] = { "benchmark.workload=stream", "benchmark.transfer_bytes=256", NULL };
  PsRunResult r;
  g_autoptr (PsConfig) cfg = run_shipped (sets, PS_MODE_WRITE, &r);
  g_autoptr (GError) e = NULL;
  double ns = cfg->link.tx_pipeline_ns + 35 * 2.0 + cfg->link.flight_ns + cfg->link.rx_pipeline_ns;
  ck_assert_msg (fabs (r.modes[PS_WRITE].mbps - 256e3 / ns) < 1e-6, "%.4f MB/s, want %.4f",
                 r.modes[PS_WRITE].mbps, 256e3 / ns);
  ck_assert_double_eq_tol (r.modes[PS_WRITE].write_window_ns, ns, 1e-9);
  for (int64_t bytes = 4; bytes <= 1 << 20; bytes *= 2)
    for (int m = 0; m < 2; m++) {
      cfg->benchmark.transfer_bytes = bytes;
      PsRunResult x = { 0 };
      unsigned mode = m ? PS_MODE_READ : PS_MODE_WRITE;
      ck_assert_msg (ps_run_config (cfg, mode, 1, &x, &e), "%" G_GINT64_FORMAT " B %s: %s", bytes,
                     m ? "read" : "write", e ? e->message : "");
      ck_assert_msg (x.modes[m ? PS_READ : PS_WRITE].mbps > 0, "%" G_GINT64_FORMAT " B: 0 MB/s", bytes);
    }
}
END_TEST

/* docs/model.md "Worked example: where a Gen2 x8 posted-write stream's time goes", reproduced from the config's own
 * values (issue #12 item 2): 400 MWrs of 280 bytes (4-DW headers: the host file's 64-bit addresses) take 35 symbol
 * times of 2 ns each; SKPs fall due every 1180 symbol times (2360 ns) from link-up, 11 of them before the wire goes
 * quiet at 150 + 28,000 + 88 ns (the 12th at 28,320), 4 symbol times each; the transmit pipeline precedes the first
 * symbol and the flight follows the last. Usage counts byte times of the 4000 MB/s wire over the same window, ended on
 * a symbol boundary (28,240 ns, 112,960). */
START_TEST (test_readme_worked_example)
{
  const char *const sets[] = { "benchmark.workload=stream", NULL };
  PsRunResult r;
  g_autoptr (PsConfig) cfg = run_shipped (sets, PS_MODE_WRITE, &r);
  double ns = cfg->link.tx_pipeline_ns + 400 * 35 * 2.0 + 11 * 4 * 2.0 + cfg->link.flight_ns + cfg->link.rx_pipeline_ns;
  ck_assert_double_eq_tol (ns, 28239, 1e-9);
  ck_assert_msg (fabs (r.modes[PS_WRITE].mbps - 102400e3 / ns) < 1e-6, "%.4f MB/s", r.modes[PS_WRITE].mbps);
  const PsUsage *u = &r.modes[PS_WRITE].upstream;
  ck_assert_double_eq_tol (u->payload, 102400 / 112960.0, 1e-9);
  ck_assert_double_eq_tol (u->tlp_overhead, 400 * 24 / 112960.0, 1e-9);
  ck_assert_double_eq_tol (u->ordered_sets, 11 * 4 * 8 / 112960.0, 1e-9);
  ck_assert_double_eq_tol (u->dllp, 0, 1e-12);
  /* The printed limits: 4000 x 1176/1180 x 256/280 and x 256/276. */
  ck_assert_double_eq_tol (r.protocol_limit_mbps, 4000 * 1176 / 1180.0 * 256 / 280, 1e-9);
  ck_assert_double_eq_tol (r.protocol_limit_read_mbps, 4000 * 1176 / 1180.0 * 256 / 276, 1e-9);
}
END_TEST

/* The models' errors, mapped to exit statuses (builder.h): a refused parameter is 65, a broken invariant or a
 * deadlock 70, in the models' one domain; the message keeps its text behind the prefix, on one line. */
static const struct {
  GQuark (*domain) (void);
  int code;
  PsErrorCode want;
} model_error_cases[] = {
  { model_error_quark, MODEL_ERROR_PARAM, PS_ERROR_DATA },
  { model_error_quark, MODEL_ERROR_INVARIANT, PS_ERROR_INTERNAL },
  { model_error_quark, MODEL_ERROR_DEADLOCK, PS_ERROR_INTERNAL },
  /* Not a model's domain: nothing a config did, so internal. */
  { g_file_error_quark, G_FILE_ERROR_NOENT, PS_ERROR_INTERNAL },
};

START_TEST (test_model_errors)
{
  GError *e = g_error_new_literal (model_error_cases[_i].domain (), model_error_cases[_i].code, "what broke");
  ps_error_from_model (&e, _i % 2 ? "cfg.yaml" : NULL);
  ck_assert_msg (g_error_matches (e, PS_ERROR, model_error_cases[_i].want), "case %d: %s %d", _i,
                 g_quark_to_string (e->domain), e->code);
  ck_assert_str_eq (e->message, _i % 2 ? "pciesim: error: cfg.yaml: what broke" : "pciesim: error: what broke");
  /* Already ours: untouched. */
  ps_error_from_model (&e, "again");
  ck_assert_str_eq (e->message, _i % 2 ? "pciesim: error: cfg.yaml: what broke" : "pciesim: error: what broke");
  g_error_free (e);
}
END_TEST

/* End to end through a model's own check: an all-zero SystemParams, whose generation 0 the PHY refuses (the config
 * would have refused it first, so only a model-level caller meets this), is bad data, not an internal error. */
START_TEST (test_system_param_is_65)
{
  SystemParams sp = { 0 };
  SystemResult r;
  GError *e = NULL;
  ck_assert (!system_run (&sp, SYSTEM_READ, 1, &r, &e));
  ps_error_from_model (&e, NULL);
  ck_assert_msg (g_error_matches (e, PS_ERROR, PS_ERROR_DATA), "%s", e->message);
  g_error_free (e);
}
END_TEST

/* ---- a fabric: link.* as fabric-wide defaults, per node and per link overrides, --set over all ---- */

static const char fabric_yaml[] =
  "link: {gen: 2, lanes: 8, max_payload: 256}\n"
  "topology:\n"
  "  nodes:\n"
  "    host: {type: root_complex}\n"
  "    sw: {type: switch}\n"
  "    a: {type: endpoint, link: {lanes: 2}}\n"
  "    b: {type: endpoint}\n"
  "  links:\n"
  "    - [host, sw]\n"
  "    - [sw, a]\n"
  "    - {a: sw, b: b, name: wide, max_payload: 512, gen: 1}\n"
  "flows:\n"
  "  - {name: w, source: a, target: b, op: write, bytes: 4096}\n"
  "  - {name: r, source: b, target: host, op: read, bytes: 4096}\n";

/* A link's config: its own when it states link keys, else the file's (topology.h). */
static const PsConfig *
link_cfg (const PsConfig *cfg, guint i)
{
  return cfg->topology->links[i].cfg ? cfg->topology->links[i].cfg : cfg;
}

START_TEST (test_fabric_defaults_and_overrides)
{
  g_autoptr (PsConfig) cfg = load ("fabric", fabric_yaml, NULL);
  const PsTopology *t = cfg->topology;
  ck_assert_uint_eq (t->n_nodes, 4);
  ck_assert_uint_eq (t->n_links, 3);
  /* Each link trains to the lower width of its ends: x8 both ends; x2 where the endpoint has 2 lanes; the third
   * states Gen1, which both Gen2 ends reach. */
  ck_assert_int_eq (t->links[0].lanes, 8);
  ck_assert_int_eq (t->links[1].lanes, 2);
  ck_assert_int_eq (t->links[2].lanes, 8);
  ck_assert_int_eq (t->links[2].gen, 1);
  ck_assert_str_eq (t->links[0].name, "host-sw");
  ck_assert_str_eq (t->links[2].name, "wide");
  /* The file's MPS on the first two links, the link's own on the third. */
  ck_assert_int_eq (link_cfg (cfg, 0)->link.max_payload, 256);
  ck_assert_int_eq (link_cfg (cfg, 1)->link.max_payload, 256);
  ck_assert_int_eq (link_cfg (cfg, 2)->link.max_payload, 512);

  /* --set link.max_payload is the fabric-wide default: it sets the links that do not give their own (issue #26),
   * and the link that does keeps it; --set links.NAME.KEY sets that one link alone. */
  const char *const sets[] = { "link.max_payload=128", "fabric.active_flows=1", NULL };
  g_autoptr (PsConfig) c2 = load ("fabric-set", fabric_yaml, sets);
  ck_assert_int_eq (link_cfg (c2, 0)->link.max_payload, 128);
  ck_assert_int_eq (link_cfg (c2, 1)->link.max_payload, 128);
  ck_assert_int_eq (link_cfg (c2, 2)->link.max_payload, 512);
  /* (Raised, not lowered: a link on a flow's path below the MPS of the flow's TLPs is refused at load.) */
  const char *const one[] = { "links.wide.max_payload=1024", NULL };
  g_autoptr (PsConfig) c3 = load ("fabric-one", fabric_yaml, one);
  ck_assert_int_eq (link_cfg (c3, 0)->link.max_payload, 256);
  ck_assert_int_eq (link_cfg (c3, 2)->link.max_payload, 1024);
  /* fabric.active_flows=1 runs the first flow only; the second is reported as not run. */
  PsRunResult r = { 0 };
  g_autoptr (GError) e = NULL;
  ck_assert_msg (ps_run_config (c2, PS_MODE_ALL, 1, &r, &e), "%s", e ? e->message : "");
  ck_assert (r.fabric.ran);
  ck_assert (r.fabric.flows[0].ran && r.fabric.flows[0].mbps > 0);
  ck_assert (!r.fabric.flows[1].ran && isnan (r.fabric.flows[1].mbps));
  /* The write crosses sw-a (a to b: upstream, b_to_a) and wide (downstream, a_to_b), not host-sw. */
  ck_assert_double_gt (r.fabric.links[1].b_to_a.payload, 0);
  ck_assert_double_gt (r.fabric.links[2].a_to_b.payload, 0);
  ck_assert_double_eq (r.fabric.links[0].a_to_b.payload, 0);
  ck_assert_double_eq (r.fabric.links[0].b_to_a.payload, 0);
}
END_TEST

/* --set addressed to one element of a fabric (issue #26): a node's key, a link's, a flow's field, each applied to
 * that element alone, with the node's own value winning over a fabric-wide --set of the same key. */
START_TEST (test_element_sets)
{
  const char *const sets[] = { "nodes.host.link.lanes=16", "nodes.sw.link.lanes=16", "nodes.b.link.lanes=4",
                               "links.host-sw.lanes=8", "flows.r.bytes=8192", "link.lanes=1", NULL };
  g_autoptr (PsConfig) c = load ("fabric-elements", fabric_yaml, sets);
  const PsTopology *t = c->topology;
  /* host-sw: the link's own x8 between two x16 ends. sw-a: a keeps its own x2 over the fabric-wide x1. wide: b
   * at its --set x4. */
  ck_assert_int_eq (c->link.lanes, 1);
  ck_assert_int_eq (t->links[0].lanes, 8);
  ck_assert_int_eq (t->links[1].lanes, 2);
  ck_assert_int_eq (t->links[2].lanes, 4);
  ck_assert_int_eq (t->nodes[3].cfg->link.lanes, 4);
  ck_assert_int_eq (t->nodes[2].cfg->link.lanes, 2);
  ck_assert_int_eq (t->flows[1].bytes, 8192);
  ck_assert_int_eq (t->flows[0].bytes, 4096);

  /* A name the fabric lacks, a field a flow lacks, a config without topology: located at the --set. */
  const struct {
    const char *yaml, *set, *want;
  } bad[] = {
    { fabric_yaml, "nodes.bb.link.lanes=4", "--set nodes.bb.link.lanes=4:1:1: error: no node named 'bb' in this "
      "config (did you mean 'b'?)" },
    { fabric_yaml, "flows.w.size=4", "unknown" },
    { fabric_yaml, "links.wide=4", "expected nodes.NAME.KEY=VALUE" },
    { "link: {gen: 2, lanes: 8}\n", "nodes.a.link.lanes=4", "this config has no topology: section" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    g_autofree char *dir = case_dir ("fabric-bad-element");
    g_autofree char *path = g_build_filename (dir, "c.yaml", NULL);
    ck_assert (g_file_set_contents (path, bad[i].yaml, -1, NULL));
    const char *one[] = { bad[i].set, NULL };
    g_autoptr (GError) e = NULL;
    g_autoptr (PsConfig) cfg = ps_config_load (path, one, &e);
    ck_assert_msg (cfg == NULL && e != NULL, "case %u accepted", i);
    ck_assert_msg (strstr (e->message, bad[i].want) != NULL, "case %u: %s", i, e->message);
  }
}
END_TEST

/* Loads `yaml`, a fabric with one endpoint e0 below the root complex host, and runs it, which must succeed. */
static void
run_fabric (const char *name, const char *yaml, PsRunResult *r)
{
  g_autoptr (PsConfig) cfg = load (name, yaml, NULL);
  g_autoptr (GError) e = NULL;
  *r = (PsRunResult) { 0 };
  ck_assert_msg (ps_run_config (cfg, PS_MODE_ALL, 1, r, &e), "%s: %s", name, e ? e->message : "");
}

#define ONE_ENDPOINT(e0)                                                                                        \
  "topology:\n  nodes:\n    host: {type: root_complex}\n    e0: " e0 "\n  links: [[host, e0]]\nflows:\n"

/* Issue #30: read flows take tag ranges of their own side by side; in flit mode (Gen6 here) two flows of 768 tags
 * use tags 768..1535, above the 1024 the root complex's tag table once held (exit 70). Both move their 64 KB. */
START_TEST (test_fabric_tags_above_1024)
{
  PsRunResult r;
  run_fabric ("tags", "link: {gen: 6, lanes: 4}\n" ONE_ENDPOINT ("{type: endpoint, endpoint: {tags: 768}}")
              "  - {name: r0, source: e0, target: host, op: read, bytes: 65536}\n"
              "  - {name: r1, source: e0, target: host, op: read, bytes: 65536}\n", &r);
  for (guint k = 0; k < 2; k++)
    ck_assert_uint_eq (r.fabric.flows[k].delivered_bytes, 65536);
}
END_TEST

/* Flit mode's 14-bit tags leave 2^14 - 2^10 = 15,360 usable per requester (spec §2.2.6.2): twenty read flows of
 * 768 tags take exactly that and all run (the config check once allowed 16,384, which the flow model then refused
 * with no place in the file; tests/bad/topology_read_tags_flit.yaml is the twenty-first flow). */
START_TEST (test_fabric_tags_flit_limit)
{
  GString *y = g_string_new ("link: {gen: 6, lanes: 4}\n" ONE_ENDPOINT ("{type: endpoint, endpoint: {tags: 768}}"));
  for (int k = 0; k < 20; k++)
    g_string_append_printf (y, "  - {name: r%d, source: e0, target: host, op: read, bytes: 4096}\n", k);
  PsRunResult r;
  run_fabric ("tags20", y->str, &r);
  for (guint k = 0; k < 20; k++)
    ck_assert_uint_eq (r.fabric.flows[k].delivered_bytes, 4096);
  g_string_free (y, TRUE);
}
END_TEST

/* Issue #30 (found by randfab, seed 50295): at Gen1 x1 in flit mode with a root port that Acks every TLP, the
 * downstream direction still held a backlog of Ack flits 200 us after the read's last completion, and the
 * end-of-run check called the link broken (exit 70). The run drains until the links are quiet. */
START_TEST (test_fabric_slow_link_drains)
{
  PsRunResult r;
  run_fabric ("drain", "link: {gen: 1, lanes: 1, flit_mode: true, max_payload: 512, max_read_request: 128}\n"
              "host: {ack_every_tlps: 1}\n" ONE_ENDPOINT ("{type: endpoint}")
              "  - {name: r, source: e0, target: host, op: read, bytes: 65536}\n", &r);
  ck_assert_uint_eq (r.fabric.flows[0].delivered_bytes, 65536);
}
END_TEST

/* Issue #30 (found by randfab, seed 7005861): with SRIS a Gen2 x1 link schedules a SKP every 154 symbols, and the
 * ones due during a 3596-byte MWr wait for its end, past the flow's window, so the window holds none of them; the
 * check against the window's protocol limit (which allowed two missing SKPs) called the model wrong (exit 70).
 * (e0's own Gen5 x4 gives it a datapath that keeps up; the link trains to Gen2 x1.) By hand: the TLP is 3576 + 12
 * + 8 = 3596 bytes, 2 ns each at 5 GT/s with 8b/10b, so the flow runs no faster than 3576 B / 7192 ns. */
START_TEST (test_fabric_sris_long_tlp)
{
  PsRunResult r;
  run_fabric ("sris", "link: {gen: 2, lanes: 1, sris: true, max_payload: 4096}\n"
              ONE_ENDPOINT ("{type: endpoint, link: {gen: 5, lanes: 4}}")
              "  - {name: w, source: e0, target: host, op: write, bytes: 3576}\n", &r);
  ck_assert_uint_eq (r.fabric.flows[0].delivered_bytes, 3576);
  ck_assert_double_le (r.fabric.flows[0].mbps, 3576.0 / 7192.0 * 1000.0);
}
END_TEST

/* The registry of workloads (workloads.h) chooses a config's row by the contract's rule, in its order: flows first,
 * then a node whose kind names a workload, then benchmark.workload; every row has exactly one way to run. */
START_TEST (test_workload_rows)
{
  static const char topo[] = "link: {gen: 4, lanes: 4}\ntopology:\n  nodes:\n    host: {type: root_complex}\n"
                             "    ep: {type: endpoint}\n    ssd: {type: nvme}\n  links:\n    - [host, ep]\n"
                             "    - [host, ssd]\n";
  g_autofree char *flows
    = g_strconcat (topo, "flows:\n  - {name: f, source: ep, target: host, op: write, bytes: 4096}\n", NULL);
  const struct {
    const char *yaml, *set, *row;
  } cases[] = {
    { small_yaml, NULL, "chaining-dma" },       { small_yaml, "benchmark.workload=stream", "stream" },
    { small_yaml, "benchmark.workload=microbench", "microbench" }, { topo, "benchmark.workload=stream", "nvme" },
    { flows, "benchmark.workload=microbench", "fabric" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    const char *sets[] = { cases[i].set, NULL };
    g_autofree char *name = g_strdup_printf ("workload_row_%u", i);
    g_autoptr (PsConfig) cfg = load (name, cases[i].yaml, sets);
    const PsWorkloadKind *k = ps_config_workload (cfg);
    ck_assert_msg (k != NULL && strcmp (k->name, cases[i].row) == 0, "case %u: row %s, want %s", i,
                   k ? k->name : "none", cases[i].row);
    ck_assert_int_eq ((k->run != NULL) + (k->run_whole != NULL) + (k->run_mode != NULL), 1);
    ck_assert_ptr_eq (ps_workload_find (cases[i].row), k);
  }
}
END_TEST

/* What a node kind declares it can do (nodes.h: requests, which the topology checks ask) is what its model's kind
 * provides (fabric.h: the requests face a flow sends through): one node of every registered kind, built. */
START_TEST (test_kinds_declare_requests)
{
  g_autoptr (GString) y = g_string_new ("link: {gen: 4, lanes: 4}\ntopology:\n  nodes:\n"
                                        "    host: {type: root_complex}\n    sw: {type: switch}\n");
  g_autoptr (GString) links = g_string_new ("  links:\n    - [host, sw]\n");
  const char *const *words = ps_node_kind_words ();
  for (guint i = 0; words[i]; i++)
    if (strcmp (words[i], "root_complex") != 0 && strcmp (words[i], "switch") != 0) {
      g_string_append_printf (y, "    n%u: {type: %s}\n", i, words[i]);
      g_string_append_printf (links, "    - [sw, n%u]\n", i);
    }
  g_string_append (y, links->str);
  g_autoptr (PsConfig) cfg = load ("kinds_requests", y->str, NULL);
  const PsTopology *t = cfg->topology;
  g_autofree Component **comp = g_new0 (Component *, t->n_nodes);
  g_autofree LinkParams *lps = g_new0 (LinkParams, t->n_links);
  Host *host = NULL;
  g_autoptr (GError) e = NULL;
  Fabric *f = ps_build_fabric (cfg, t, -1, 1, comp, NULL, &host, lps, &e);
  ck_assert_msg (f != NULL, "%s", e ? e->message : "");
  guint requesting = 0;
  for (guint i = 0; i < t->n_nodes; i++) {
    const PsNodeKind *k = ps_node_kind (t->nodes[i].kind);
    ck_assert_msg (k->requests == (comp[i]->kind->requests != NULL), "kind %s declares requests %d, its model %s",
                   k->type, k->requests, comp[i]->kind->requests ? "has the face" : "has none");
    requesting += k->requests;
  }
  ck_assert_uint_ge (requesting, 1);
  fabric_free (f);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("builder");
  TCase *tc = tcase_create ("builder");
  tcase_add_unchecked_fixture (tc, tmpdir_setup, tmpdir_teardown);
  tcase_add_test (tc, test_link);
  tcase_add_loop_test (tc, test_updatefc_policy, 0, G_N_ELEMENTS (updatefc_cases));
  tcase_add_loop_test (tc, test_arbitration, 0, G_N_ELEMENTS (arbitration_cases));
  tcase_add_loop_test (tc, test_completion_policy, 0, G_N_ELEMENTS (completion_cases));
  tcase_add_test (tc, test_other_words);
  tcase_add_test (tc, test_system);
  tcase_add_loop_test (tc, test_stream, 0, 2);
  tcase_add_test (tc, test_stream_small_transfers);
  tcase_add_test (tc, test_readme_worked_example);
  tcase_add_loop_test (tc, test_model_errors, 0, G_N_ELEMENTS (model_error_cases));
  tcase_add_test (tc, test_system_param_is_65);
  tcase_add_test (tc, test_fabric_defaults_and_overrides);
  tcase_add_test (tc, test_element_sets);
  tcase_add_test (tc, test_fabric_tags_above_1024);
  tcase_add_test (tc, test_fabric_tags_flit_limit);
  tcase_add_test (tc, test_fabric_slow_link_drains);
  tcase_add_test (tc, test_fabric_sris_long_tlp);
  tcase_add_test (tc, test_workload_rows);
  tcase_add_test (tc, test_kinds_declare_requests);
  suite_add_tcase (s, tc);
    return run_suite (s);
}
