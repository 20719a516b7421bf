/* test-dist.c — Check suite for models/dist.
 *
 * Expected figures are the distributions' own definitions worked by hand (dist.h states them): lognormal mean
 * e^(mu + sigma^2 / 2) with mu = ln median and sigma = ln(p99 / median) / 2.32635; uniform mean (min + max) / 2 and
 * p99 min + 0.99 (max - min); an empirical table's mean and quantiles from its line segments. Sample statistics
 * of 10,000 draws must fall within 2% of them. The parameters are chosen so that 2% is about three standard
 * errors of the sample p99 (the noisiest figure), and the seeds are fixed, so the suite replays exactly.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "tests/common.h"
#include "models/base/dist.h"
#include "app/base/error.h"

#define DRAWS 10000

typedef struct {
  double mean_ns, p50_ns, p99_ns;
} Stats;

static int
cmp_time (const void *a, const void *b)
{
  SimTime x = *(const SimTime *) a, y = *(const SimTime *) b;
  return (x > y) - (x < y);
}

/* Mean and the nearest-rank quantiles (the ceil(q n)-th smallest) of n draws, in ns. */
static Stats
sample (const Dist *d, guint32 seed, guint n)
{
  g_autoptr (GRand) r = g_rand_new_with_seed (seed);
  SimTime *v = g_new (SimTime, n);
  double sum = 0;
  for (guint i = 0; i < n; i++) {
    v[i] = dist_draw_ps (d, r);
    sum += (double) v[i];
  }
  qsort (v, n, sizeof *v, cmp_time);
  Stats s = { sum / n / 1000.0, (double) v[(guint) ceil (0.50 * n) - 1] / 1000.0,
              (double) v[(guint) ceil (0.99 * n) - 1] / 1000.0 };
  g_free (v);
  return s;
}

static void
assert_within (const char *what, double got, double want, double rel)
{
  ck_assert_msg (fabs (got - want) <= rel * want, "%s: %.3f, want %.3f within %.1f%%", what, got, want, rel * 100);
}

/* median 10 us, p99 15 us: mu = ln 10000 = 9.21034, sigma = ln 1.5 / 2.32635 = 0.174293, so the mean is
 * 10000 e^(0.174293^2 / 2) = 10000 e^0.0151890 = 10153.05 ns. */
START_TEST (test_lognormal_moments)
{
  g_autoptr (Dist) d = dist_new_lognormal (10000, 15000, NULL);
  ck_assert (d != NULL && dist_is_random (d) && dist_kind (d) == DIST_LOGNORMAL);
  const double sigma = log (15000.0 / 10000.0) / 2.3263478740408408;
  const double mean = 10000.0 * exp (sigma * sigma / 2);
  ck_assert_msg (fabs (mean - 10153.05) < 0.01, "hand mean %.3f", mean);
  static const guint32 seeds[] = { 1, 42, 20240601 };
  for (guint i = 0; i < G_N_ELEMENTS (seeds); i++) {
    Stats s = sample (d, seeds[i], DRAWS);
    assert_within ("lognormal mean", s.mean_ns, mean, 0.02);
    assert_within ("lognormal p50", s.p50_ns, 10000, 0.02);
    assert_within ("lognormal p99", s.p99_ns, 15000, 0.02);
  }
}
END_TEST

/* A wider one, as interrupt latencies are (median 5 us, p99 50 us): sigma = ln 10 / 2.32635 = 0.989796, mean
 * 5000 e^0.489848 = 8160.2 ns. The sample mean of so skewed a distribution needs more draws: 10^5 put 2% at
 * about five standard errors (sqrt(e^sigma^2 - 1) / sqrt(n) = 0.41%). */
START_TEST (test_lognormal_wide)
{
  g_autoptr (Dist) d = dist_new_lognormal (5000, 50000, NULL);
  Stats s = sample (d, 7, 100000);
  assert_within ("wide lognormal mean", s.mean_ns, 8160.2, 0.02);
  assert_within ("wide lognormal p50", s.p50_ns, 5000, 0.02);
  assert_within ("wide lognormal p99", s.p99_ns, 50000, 0.04);
}
END_TEST

/* 1..3 us: mean 2000, p50 2000, p99 1000 + 0.99 x 2000 = 2980. */
START_TEST (test_uniform_moments)
{
  g_autoptr (Dist) d = dist_new_uniform (1000, 3000, NULL);
  Stats s = sample (d, 3, DRAWS);
  assert_within ("uniform mean", s.mean_ns, 2000, 0.02);
  assert_within ("uniform p50", s.p50_ns, 2000, 0.02);
  assert_within ("uniform p99", s.p99_ns, 2980, 0.02);
}
END_TEST

/* (100 ns, 0), (200 ns, 0.5), (1000 ns, 1): half the mass uniform on 100..200, half on 200..1000, so the mean is
 * 0.5 x 150 + 0.5 x 600 = 375, p99 200 + (0.99 - 0.5) / 0.5 x 800 = 984, and half the draws are <= 200 ns. (The
 * sample median is no check here: it sits on the knee, where the slope of 1600 ns per unit of probability
 * turns its 0.005 standard error into 4%.) Every draw lies in [100, 1000] ns. */
START_TEST (test_empirical_moments)
{
  static const DistPoint t[] = { { 100, 0 }, { 200, 0.5 }, { 1000, 1 } };
  g_autoptr (Dist) d = dist_new_empirical (t, G_N_ELEMENTS (t), NULL);
  ck_assert (d != NULL && dist_kind (d) == DIST_EMPIRICAL);
  Stats s = sample (d, 11, DRAWS);
  assert_within ("empirical mean", s.mean_ns, 375, 0.02);
  assert_within ("empirical p99", s.p99_ns, 984, 0.02);
  g_autoptr (GRand) r = g_rand_new_with_seed (5);
  guint below_knee = 0;
  for (int i = 0; i < DRAWS; i++) {
    SimTime v = dist_draw_ps (d, r);
    ck_assert_msg (v >= 100000 && v <= 1000000, "draw %d: %" G_GUINT64_FORMAT " ps outside the table", i, v);
    below_knee += v <= 200000;
  }
  assert_within ("share <= 200 ns", (double) below_knee / DRAWS, 0.5, 0.04);
}
END_TEST

/* (100 ns, 0.5), (300 ns, 1): a point mass of 1/2 at 100 ns, the rest uniform on 100..300, so half the draws
 * are exactly 100000 ps and the mean is 0.5 x 100 + 0.5 x 200 = 150 ns. A zero-width segment (the repeated
 * probability 0.5) must never be chosen: it would divide by zero. */
START_TEST (test_empirical_point_mass)
{
  static const DistPoint t[] = { { 100, 0.5 }, { 150, 0.5 }, { 300, 1 } };
  g_autoptr (Dist) d = dist_new_empirical (t, G_N_ELEMENTS (t), NULL);
  g_autoptr (GRand) r = g_rand_new_with_seed (9);
  guint at_min = 0;
  double sum = 0;
  for (int i = 0; i < DRAWS; i++) {
    SimTime v = dist_draw_ps (d, r);
    at_min += v == 100000;
    sum += (double) v / 1000.0;
  }
  assert_within ("point mass share", (double) at_min / DRAWS, 0.5, 0.04);
  /* The mass of 150..300 is uniform (150 ns and above), so the mean is 0.5 x 100 + 0.5 x 225 = 162.5 ns. */
  assert_within ("point mass mean", sum / DRAWS, 162.5, 0.02);
}
END_TEST

/* A fixed value takes nothing from the stream: the numbers after its draws are those of a fresh stream. */
START_TEST (test_fixed_draws_nothing)
{
  g_autoptr (Dist) d = dist_new_fixed (1234.5678, NULL);
  ck_assert (d != NULL && !dist_is_random (d));
  g_autoptr (GRand) used = g_rand_new_with_seed (77), fresh = g_rand_new_with_seed (77);
  for (int i = 0; i < 100; i++)
    ck_assert_uint_eq (dist_draw_ps (d, used), 1234568); /* 1234567.8 ps rounds up */
  for (int i = 0; i < 10; i++)
    ck_assert_uint_eq (g_rand_int (used), g_rand_int (fresh));
  /* Nothing to draw from: a NULL stream is allowed. */
  ck_assert_uint_eq (dist_draw_ps (d, NULL), 1234568);
  /* Halves round away from zero, as units_ns_to_ps() does: 1.0005 ns is 1000.5 ps -> 1001. */
  g_autoptr (Dist) h = dist_new_fixed (1.0005, NULL);
  ck_assert_uint_eq (dist_draw_ps (h, NULL), 1001);
}
END_TEST

/* How many numbers a draw takes is fixed per kind (dist.h): lognormal two doubles, uniform and empirical one.
 * A g_rand_double() is two 32-bit numbers, so the stream after k draws equals a fresh one after 2k or 4k ints. */
START_TEST (test_draw_consumption)
{
  static const DistPoint t[] = { { 1, 0 }, { 2, 1 } };
  Dist *ds[] = { dist_new_uniform (1, 2, NULL), dist_new_lognormal (1, 2, NULL), dist_new_empirical (t, 2, NULL),
                 dist_new_lognormal (5, 5, NULL) };
  const guint ints_per_draw[] = { 2, 4, 2, 4 };
  for (guint k = 0; k < G_N_ELEMENTS (ds); k++) {
    g_autoptr (GRand) used = g_rand_new_with_seed (123), fresh = g_rand_new_with_seed (123);
    for (int i = 0; i < 3; i++)
      dist_draw_ps (ds[k], used);
    for (guint i = 0; i < 3 * ints_per_draw[k]; i++)
      g_rand_int (fresh);
    ck_assert_msg (g_rand_int (used) == g_rand_int (fresh), "kind %u takes %u ints per draw", k, ints_per_draw[k]);
    dist_free (ds[k]);
  }
}
END_TEST

/* p99 == median: sigma 0, every draw the median exactly. */
START_TEST (test_lognormal_degenerate)
{
  g_autoptr (Dist) d = dist_new_lognormal (5, 5, NULL);
  g_autoptr (GRand) r = g_rand_new_with_seed (1);
  for (int i = 0; i < 1000; i++)
    ck_assert_uint_eq (dist_draw_ps (d, r), 5000);
}
END_TEST

/* Same seed, same draws; another seed, other draws; and a copy draws as its original. */
START_TEST (test_determinism)
{
  g_autoptr (Dist) d = dist_new_lognormal (2000, 9000, NULL);
  g_autoptr (Dist) c = dist_copy (d);
  static const DistPoint t[] = { { 10, 0.1 }, { 20, 0.7 }, { 90, 1 } };
  g_autoptr (Dist) e = dist_new_empirical (t, 3, NULL);
  g_autoptr (Dist) ec = dist_copy (e);
  g_autoptr (GRand) a = g_rand_new_with_seed (99), b = g_rand_new_with_seed (99), o = g_rand_new_with_seed (100);
  guint differ = 0;
  for (int i = 0; i < 1000; i++) {
    SimTime x = dist_draw_ps (d, a), y = dist_draw_ps (c, b), z = dist_draw_ps (d, o);
    ck_assert_uint_eq (x, y);
    differ += x != z;
    ck_assert_uint_eq (dist_draw_ps (e, a), dist_draw_ps (ec, b));
  }
  /* Two continuous draws from independent streams coincide to the picosecond almost never. */
  ck_assert_msg (differ >= 990, "only %u of 1000 draws differ between seeds 99 and 100", differ);
}
END_TEST

typedef struct {
  const char *what;
  Dist *(*make) (void);
} BadCase;

static Dist *bad_fixed_neg (void) { return dist_new_fixed (-1, NULL); }
static Dist *bad_fixed_nan (void) { return dist_new_fixed (NAN, NULL); }
static Dist *bad_fixed_huge (void) { return dist_new_fixed (2e12, NULL); }
static Dist *bad_uniform_order (void) { return dist_new_uniform (5, 4, NULL); }
static Dist *bad_lognormal_zero (void) { return dist_new_lognormal (0, 1, NULL); }
static Dist *bad_lognormal_order (void) { return dist_new_lognormal (10, 9, NULL); }
static Dist *bad_empirical_empty (void) { return dist_new_empirical (NULL, 0, NULL); }
static Dist *
bad_empirical_last (void)
{
  static const DistPoint t[] = { { 1, 0 }, { 2, 0.9 } };
  return dist_new_empirical (t, 2, NULL);
}
static Dist *
bad_empirical_value_order (void)
{
  static const DistPoint t[] = { { 3, 0 }, { 2, 1 } };
  return dist_new_empirical (t, 2, NULL);
}
static Dist *
bad_empirical_prob_order (void)
{
  static const DistPoint t[] = { { 1, 0.6 }, { 2, 0.5 }, { 3, 1 } };
  return dist_new_empirical (t, 3, NULL);
}
static Dist *
bad_empirical_prob_range (void)
{
  static const DistPoint t[] = { { 1, -0.1 }, { 2, 1 } };
  return dist_new_empirical (t, 2, NULL);
}

static const BadCase bad_cases[] = {
  { "fixed -1", bad_fixed_neg },
  { "fixed NaN", bad_fixed_nan },
  { "fixed 2e12", bad_fixed_huge },
  { "uniform 5..4", bad_uniform_order },
  { "lognormal median 0", bad_lognormal_zero },
  { "lognormal p99 < median", bad_lognormal_order },
  { "empirical empty", bad_empirical_empty },
  { "empirical last 0.9", bad_empirical_last },
  { "empirical values decrease", bad_empirical_value_order },
  { "empirical probabilities decrease", bad_empirical_prob_order },
  { "empirical probability < 0", bad_empirical_prob_range },
};

START_TEST (test_bad_parameters)
{
  const BadCase *c = &bad_cases[_i];
  ck_assert_msg (c->make () == NULL, "%s accepted", c->what);
}
END_TEST

/* The error is a data error (exit 65) whose text names the rule. */
START_TEST (test_error_message)
{
  g_autoptr (GError) e = NULL;
  ck_assert (dist_new_lognormal (10, 9, &e) == NULL);
  ck_assert (g_error_matches (e, MODEL_ERROR, MODEL_ERROR_PARAM));
  ck_assert_msg (strstr (e->message, "below its median") != NULL, "%s", e->message);
}
END_TEST

static Suite *
dist_suite (void)
{
  Suite *s = suite_create ("dist");
  TCase *t = tcase_create ("dist");
  tcase_add_test (t, test_lognormal_moments);
  tcase_add_test (t, test_lognormal_wide);
  tcase_add_test (t, test_uniform_moments);
  tcase_add_test (t, test_empirical_moments);
  tcase_add_test (t, test_empirical_point_mass);
  tcase_add_test (t, test_fixed_draws_nothing);
  tcase_add_test (t, test_draw_consumption);
  tcase_add_test (t, test_lognormal_degenerate);
  tcase_add_test (t, test_determinism);
  tcase_add_loop_test (t, test_bad_parameters, 0, G_N_ELEMENTS (bad_cases));
  tcase_add_test (t, test_error_message);
  suite_add_tcase (s, t);
  return s;
}

int
main (void)
{
  return run_suite (dist_suite ());
}
