/* test-determinism.c — same config and seed, same bytes (engine.h, design.md): the JSON report is compared
 * byte for byte, with only stats.wall_s (host time) blanked, across repeated runs, two compilations of the
 * program (the project's optimised build and PCIESIM_EXE_O0, the same sources at -O0) and sweep --jobs.
 * The configs cover the chaining DMA, a stream workload and a no-MSI polled run.
 *
 * The seed (test_seeds): the CPU's interrupt and wake-up times are drawn from its own stream (models/devices/cpu.h), so a
 * config with random times gives the same bytes for one seed and different figures for two, and a config without
 * them the same figures whatever the seed. test-engine checks the per-component streams (sim_rand_new) themselves. */
#include <check.h>
#include <glib.h>
#include <string.h>
#include <sys/wait.h>

#include "tests/common.h"

/* stdout of the given program and arguments, run in the source root; the run must succeed. */
static char *
run (const char *exe, const char *const *args)
{
  g_auto (TestRun) r;
  run_program (&r, exe, NULL, args);
  ck_assert_msg (r.status == 0, "%s failed: %s", args[0], r.err);
  /* Wall time is the one field that depends on the machine, not the model. */
  g_autoptr (GRegex) wall = g_regex_new ("\"wall_s\": *[-0-9.eE+]+", 0, 0, NULL);
  return g_regex_replace_literal (wall, r.out, -1, 0, "\"wall_s\": 0", 0, NULL);
}

/* Three configs that take different paths through the models: Stratix V Gen2 x8 (8b/10b, x8 lane placement),
 * Stratix IV soft IP at Gen1 x4 on the X58 host (another host file, a 64-bit datapath) and Gen3 x4 (128b/130b
 * blocks, an EDS token before each SKP). A nondeterminism confined to one of those paths would still show. */
static const char *const configs[] = {
  "configs/svgx_g2_x8.yaml",
  "configs/sivgx_g1_x4_soft.yaml",
  "configs/svgx_g3_x4.yaml",
};

/* Extra --set per case, so the polled (no-MSI) path and the stream workload are covered too. */
static const char *const variants[][2] = {
  { "--set", "dma.msi=true" },
  { "--set", "dma.msi=false" },
  { "--set", "benchmark.workload=stream" },
};

START_TEST (test_repeat_and_builds)
{
  const char *cfg = configs[_i % G_N_ELEMENTS (configs)];
  const char *const *v = variants[_i / G_N_ELEMENTS (configs)];
  const char *args[] = { cfg, "--format", "json", v[0], v[1], NULL };
  /* Two runs of one binary catch what varies from process to process: an uninitialised read, a hash table keyed
   * on pointers (addresses move with ASLR), anything read from the clock. The -O0 build catches what the
   * optimiser may change: floating-point evaluation order and contraction, or undefined behaviour it exploits. */
  g_autofree char *a = run (test_env ("PCIESIM_EXE"), args);
  g_autofree char *b = run (test_env ("PCIESIM_EXE"), args);
  g_autofree char *c = run (test_env ("PCIESIM_EXE_O0"), args);
  /* Without this, two runs that both printed nothing (or the same error) would compare equal. */
  ck_assert_msg (strstr (a, "\"results\""), "%s %s: not a JSON report: %s", cfg, v[1], a);
  ck_assert_msg (strcmp (a, b) == 0, "%s %s: two runs differ", cfg, v[1]);
  ck_assert_msg (strcmp (a, c) == 0, "%s %s: the -O0 build differs from the optimised one", cfg, v[1]);
}
END_TEST

START_TEST (test_sweep_jobs)
{
  /* test-sweep checks --jobs on its own scenarios; here a shipped one, across jobs and builds at once. With two
   * workers the points finish in an order the scheduler picks, so equal bytes show that results are placed by
   * point index and that no state leaks between points run on one thread. */
  const char *one[] = { "sweep", "scenarios/tags_vs_payload.yaml", "--format", "json", "--jobs", "1", NULL };
  const char *two[] = { "sweep", "scenarios/tags_vs_payload.yaml", "--format", "json", "--jobs", "2", NULL };
  g_autofree char *a = run (test_env ("PCIESIM_EXE"), one);
  g_autofree char *b = run (test_env ("PCIESIM_EXE"), two);
  g_autofree char *c = run (test_env ("PCIESIM_EXE_O0"), two);
  ck_assert_msg (strcmp (a, b) == 0, "sweep --jobs 1 and --jobs 2 differ");
  ck_assert_msg (strcmp (a, c) == 0, "the -O0 build's sweep differs");
}
END_TEST

/* The report with its "seed" field blanked, so reports of two seeds can be compared for their figures. */
static char *
without_seed (const char *report)
{
  g_autoptr (GRegex) seed = g_regex_new ("\"seed\": *[0-9]+", 0, 0, NULL);
  return g_regex_replace_literal (seed, report, -1, 0, "\"seed\": 0", 0, NULL);
}

START_TEST (test_seeds)
{
  /* xdma_g3_x8_driver draws every interrupt's handler and wake-up times (configs/benchmarks/xdma_driver.yaml). */
  const char *r1[] = { "configs/xdma_g3_x8_driver.yaml", "--mode", "read", "--set", "benchmark.transfer_bytes=65536",
                       "--format", "json", "--seed", "1", NULL };
  const char *r2[] = { "configs/xdma_g3_x8_driver.yaml", "--mode", "read", "--set", "benchmark.transfer_bytes=65536",
                       "--format", "json", "--seed", "2", NULL };
  g_autofree char *a = run (test_env ("PCIESIM_EXE"), r1);
  g_autofree char *b = run (test_env ("PCIESIM_EXE"), r1);
  g_autofree char *c = run (test_env ("PCIESIM_EXE_O0"), r1);
  g_autofree char *d = run (test_env ("PCIESIM_EXE"), r2);
  ck_assert_msg (strstr (a, "\"transfer_ns\""), "no per-transfer times: %s", a);
  ck_assert_msg (strcmp (a, b) == 0 && strcmp (a, c) == 0, "one seed, two reports");
  g_autofree char *a0 = without_seed (a), *d0 = without_seed (d);
  ck_assert_msg (strcmp (a0, d0) != 0, "seeds 1 and 2 gave the same figures: nothing random was drawn");
  /* The GPCIe row has no random time: its figures do not follow the seed. */
  const char *g1[] = { "configs/gpcie_arriagx_g1_x4.yaml", "--set", "benchmark.transfer_bytes=4096", "--format",
                       "json", "--seed", "1", NULL };
  const char *g2[] = { "configs/gpcie_arriagx_g1_x4.yaml", "--set", "benchmark.transfer_bytes=4096", "--format",
                       "json", "--seed", "2", NULL };
  g_autofree char *e = run (test_env ("PCIESIM_EXE"), g1);
  g_autofree char *f = run (test_env ("PCIESIM_EXE"), g2);
  ck_assert_msg (strstr (e, "\"seed\": 1") && strstr (f, "\"seed\": 2"), "the seed is not reported");
  g_autofree char *e0 = without_seed (e), *f0 = without_seed (f);
  ck_assert_msg (strcmp (e0, f0) == 0, "a config without random times changed with the seed");
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("determinism");
  TCase *tc = tcase_create ("bytes");
  /* The -O0 build is several times slower, and the sweep runs its points three times. */
  tcase_set_timeout (tc, 120);
  tcase_add_loop_test (tc, test_repeat_and_builds, 0, (int) (G_N_ELEMENTS (configs) * G_N_ELEMENTS (variants)));
  tcase_add_test (tc, test_sweep_jobs);
  tcase_add_test (tc, test_seeds);
  suite_add_tcase (s, tc);
  return run_suite (s);
}
