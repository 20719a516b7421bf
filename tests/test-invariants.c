/* test-invariants.c — the run's self-checks catch what they promise (system.h, link.h, host.h, error.h): faults
 * injected through the test hooks end in an internal error (PS_ERROR_INTERNAL, exit 70) that names the broken
 * state, never in a figure; a deadlocked config is stopped by the watchdog with what each component waits for;
 * a slow but legal config is not mistaken for a deadlock.
 *
 * Which completion each fault hits was worked out from the parameters: a 102,400-byte read in 4 KB descriptors
 * is preceded by one 400-byte descriptor fetch (25 descriptors), which the host returns in two completions cut
 * at the 256-byte boundary (0x10..0x100 and 0x100..0x1a0, MPS 256); completions 2 and 3 are the two 256-byte
 * halves of the first 512-byte data read (MRRS 512). */
#include <check.h>
#include <string.h>
#include <sys/wait.h>

#include "models/base/pattern.h"
#include "models/workloads/system.h"
#include "app/run/builder.h"
#include "app/base/error.h"
#include "tests/common.h"

static SystemParams
params (void)
{
  return (SystemParams) {
    .link = {
      .gen = 2, .lanes = 8, .max_payload_bytes = 256,
      .tx_pipeline_ps = 100 * SIM_NS, .rx_pipeline_ps = 100 * SIM_NS, .flight_ps = 10 * SIM_NS,
      .updatefc_period_ps = 20 * SIM_US,
      /* Finite posted and non-posted credits at the host, so writes need UpdateFCs; completions infinite. */
      .rx_credits[LINK_DSP] = { .ph = 32, .pd = 256, .nph = 16, .npd = 16 },
      .rx_credits[LINK_USP] = { .ph = 64, .pd = 256, .nph = 64, .npd = 64 },
    },
    .host = { .rcb_bytes = 64, .cpl_policy = CPL_POLICY_MPS, .read_latency_ns = 500, .sw_pio_latency_ns = 500,
              .sw_pio_gap_ns = 50, .msi_latency_ns = 1000, .iteration_gap_ns = 2000 },
    .app = { .width_bits = 128, .clock_mhz = 250, .arbitration = APP_ARB_ROUND_ROBIN },
    .dma = { .max_payload_bytes = 256, .max_read_request_bytes = 512, .tags = 32, .desc_max_bytes = 4096,
             .desc_per_fetch = 32, .desc_fifo_entries = 32, .msi = TRUE, .counter_start = DMA_COUNTER_AT_ENDPOINT },
    .transfer_bytes = 102400,
    .iterations = 2,
  };
}

START_TEST (test_clean_runs)
{
  /* The hooks are off by default and every mode passes every check: the faults below are what fails. */
  SystemParams p = params ();
  for (SystemMode m = SYSTEM_READ; m <= SYSTEM_SIMULTANEOUS; m++) {
    SystemResult r;
    g_autoptr (GError) e = NULL;
    ck_assert_msg (system_run (&p, m, 1, &r, &e), "%s: %s", system_mode_name (m), e ? e->message : "?");
  }
}
END_TEST

/* Link errors at a rate far above any real link's (BER 1e-4: one 276-byte TLP in 4.5 fails), non-flit and flit:
 * every mode still passes every end-of-run check — every byte requested is completed, written where it belongs
 * and folded into matching checksums, every TLP acknowledged, every credit and tag back — while the error
 * counts show the recovery did run: Naks, replays and lost DLLPs. */
START_TEST (test_errors_keep_invariants)
{
  SystemParams p = params ();
  p.link.ber = 1e-4;
  p.link.flit_mode = _i == 1;
  for (SystemMode m = SYSTEM_READ; m <= SYSTEM_SIMULTANEOUS; m++) {
    SystemResult r;
    g_autoptr (GError) e = NULL;
    ck_assert_msg (system_run (&p, m, 1, &r, &e), "%s: %s", system_mode_name (m), e ? e->message : "?");
    uint64_t naks = 0, replays = 0, dllp = 0;
    for (int d = 0; d < 2; d++) {
      naks += r.errors[d].naks;
      replays += r.errors[d].replays;
      dllp += r.errors[d].dllp_errors;
    }
    ck_assert_msg (naks > 10 && replays >= naks && dllp > 0, "%s flit %d: %" G_GUINT64_FORMAT " Naks, %"
                   G_GUINT64_FORMAT " replays, %" G_GUINT64_FORMAT " lost DLLPs", system_mode_name (m), _i, naks,
                   replays, dllp);
  }
}
END_TEST

/* A completion fault in a read run, and fragments the internal error's message must hold. */
typedef struct {
  HostFault fault;
  uint64_t at;
  const char *want[6]; /* NULL-terminated */
} CplFault;

static const CplFault cpl_faults[] = {
  /* The second half of the first data read never comes: its tag is never retired and the engine waits for 256
   * bytes forever. The watchdog must say so. */
  { HOST_FAULT_DROP_CPL, 3,
    { "deadlock", "nothing delivered", "read engine", "tags: 1 of 32 outstanding", "waits for 256 bytes" } },
  /* The first half arrives twice: the copy is out of address order for its tag and completes it early; the
   * tag goes straight back out with the next read (free tags are a stack), so the real second half lands on
   * that new request (out of order, and it eats 256 of its bytes), whose own first half then mismatches too and
   * whose second half finds the tag retired: three out of order, one unexpected. */
  { HOST_FAULT_DUP_CPL, 2, { "3 completions out of address order, 1 unexpected" } },
  /* A copy of a request's last completion. The original retires the tag, and the tag goes straight back out
   * with the next read, so the copy lands on that new request: out of order for it,
   * and it eats 256 of the new request's bytes, so the new request's own first half mismatches too and its
   * second half finds the tag retired: two out of order, one unexpected. */
  { HOST_FAULT_DUP_CPL, 3, { "2 completions out of address order, 1 unexpected" } },
  /* The two halves of one request swapped: byte counts and checksums agree, the per-tag order does not. */
  { HOST_FAULT_SWAP_CPL, 2, { "2 completions out of address order, 0 unexpected" } },
};

START_TEST (test_completion_faults)
{
  const CplFault *c = &cpl_faults[_i];
  SystemParams p = params ();
  p.host_fault = c->fault;
  p.host_fault_at = c->at;
  SystemResult r;
  g_autoptr (GError) e = NULL;
  ck_assert_msg (!system_run (&p, SYSTEM_READ, 1, &r, &e), "case %d: the faulty run returned a figure", _i);
  /* The model's own domain, which the builder turns into the exit status: 70, never 65. */
  ps_error_from_model (&e, NULL);
  ck_assert_msg (g_error_matches (e, PS_ERROR, PS_ERROR_INTERNAL), "case %d: not an internal error: %s", _i,
                 e ? e->message : "none");
  ck_assert_msg (!strchr (e->message, '\n'), "case %d: message is not one line: %s", _i, e->message);
  for (const char *const *f = c->want; *f; f++)
    ck_assert_msg (strstr (e->message, *f), "case %d: '%s' not in: %s", _i, *f, e->message);
}
END_TEST

/* The continuous checks stop the process at once: these run in Check's forked child and must exit 70. */
START_TEST (test_extra_credit_exits_70)
{
  /* The host's first UpdateFC (downstream) grants one posted-header credit more than it ever freed. */
  SystemParams p = params ();
  p.link_fault = LINK_FAULT_EXTRA_CREDIT;
  p.link_fault_dir = LINK_DOWNSTREAM;
  p.link_fault_at = 0;
  SystemResult r;
  system_run (&p, SYSTEM_WRITE, 1, &r, NULL);
}
END_TEST

START_TEST (test_bad_sequence_exits_70)
{
  /* The sixth upstream TLP carries the seventh's sequence number. */
  SystemParams p = params ();
  p.link_fault = LINK_FAULT_SKIP_SEQ;
  p.link_fault_dir = LINK_UPSTREAM;
  p.link_fault_at = 5;
  SystemResult r;
  system_run (&p, SYSTEM_WRITE, 1, &r, NULL);
}
END_TEST

START_TEST (test_slow_host_is_not_a_deadlock)
{
  /* 50 ms between the MSI and its handler is five default watchdog periods with nothing delivered, yet legal:
   * the watchdog stretches by the host's waits. */
  SystemParams p = params ();
  p.host.msi_latency_ns = 50e6;
  p.iterations = 1;
  SystemResult r;
  g_autoptr (GError) e = NULL;
  ck_assert_msg (system_run (&p, SYSTEM_WRITE, 1, &r, &e), "%s", e ? e->message : "?");
}
END_TEST

/* --- the integrity pattern ------------------------------------------------------------------------------ */

START_TEST (test_pattern_closed_form)
{
  /* The closed form equals the DW-by-DW sum, including ranges that wrap past 2^64 and odd/even DW counts. */
  static const uint64_t starts[] = { 4, 0x10000000, 0x100000000ull, UINT64_MAX - 15 };
  for (guint i = 0; i < G_N_ELEMENTS (starts); i++)
    for (uint64_t n = 0; n <= 4 * 50; n += 4) {
      uint64_t slow = 0;
      for (uint64_t k = 0; k < n; k += 4)
        slow += pattern_dw (starts[i] + k);
      ck_assert_msg (pattern_sum (starts[i], n) == slow, "start %" G_GINT64_MODIFIER "x, %" G_GUINT64_FORMAT " bytes",
                     starts[i], n);
    }
  /* Additive over a split (1 GB in two halves), so any cut into TLPs sums to the whole. */
  uint64_t a = 0x100000000ull, half = 1ull << 29;
  ck_assert (pattern_sum (a, half) + pattern_sum (a + half, half) == pattern_sum (a, 2 * half));
  /* One DW of a 4 KB page moved to the next DW, or counted twice, changes the page's sum. */
  uint64_t page = pattern_sum (a, 4096);
  ck_assert (page - pattern_dw (a + 100) + pattern_dw (a + 104) != page);
  ck_assert (page + pattern_dw (a + 100) != page);
}
END_TEST

/* --- end to end: a config that would deadlock -------------------------------------------------------- */

START_TEST (test_deadlocked_config)
{
  /* 8 posted-data credits at the host hold 128 bytes, less than one 256-byte MWr (16 credits, spec §2.6.1):
   * the writer could never send its first data TLP, with the DMA engine (_i = 0) or the stream source (_i = 1).
   * Such an advertisement is below the spec minimum (§3.4.2), so it is bad data refused at load (exit 65, issue
   * #12 item 9) rather than a run stopped by the watchdog (70), and no figure is printed. The watchdog's own
   * message is tested on model-level deadlocks above (cpl_faults) and in test-stream (test_stall). */
  const char *exe = g_getenv ("PCIESIM_EXE"), *root = g_getenv ("PCIESIM_SOURCE_ROOT");
  ck_assert (exe && root);
  const char *argv[] = { exe, "configs/svgx_g2_x8.yaml", "--mode", "write", "--set", "host.rx_credits.pd=8",
                         "--set", "benchmark.watchdog_ns=100000", "--set",
                         _i ? "benchmark.workload=stream" : "benchmark.workload=chaining_dma", NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  ck_assert (g_spawn_sync (root, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, NULL));
  ck_assert_msg (WIFEXITED (status) && WEXITSTATUS (status) == 65, "status %d, stderr %s", status, err);
  ck_assert_str_eq (out, "");
  const char *nl = strchr (err, '\n');
  ck_assert_msg (nl && nl[1] == '\0', "stderr is not one line: %s", err);
  ck_assert_msg (g_str_has_prefix (err, "--set host.rx_credits.pd=8:1:20: error: host.rx_credits.pd (8) is below "
                                        "the spec minimum of 16 credits"), "%s", err);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("invariants");
  TCase *tc = tcase_create ("faults");
  tcase_add_test (tc, test_clean_runs);
  tcase_add_loop_test (tc, test_errors_keep_invariants, 0, 2);
  tcase_add_loop_test (tc, test_completion_faults, 0, G_N_ELEMENTS (cpl_faults));
  tcase_add_exit_test (tc, test_extra_credit_exits_70, PS_ERROR_INTERNAL);
  tcase_add_exit_test (tc, test_bad_sequence_exits_70, PS_ERROR_INTERNAL);
  tcase_add_test (tc, test_slow_host_is_not_a_deadlock);
  tcase_add_test (tc, test_pattern_closed_form);
  tcase_add_loop_test (tc, test_deadlocked_config, 0, 2);
  suite_add_tcase (s, tc);
    return run_suite (s);
}
