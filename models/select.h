/* select.h — order statistics of latency samples: the k-th smallest and nearest-rank percentiles, shared by the
 * stream's and the flows' latency figures so both count a percentile the same way.
 *
 * Contract: both reorder v[0..n) in place (n >= 1) and allocate nothing. The p-th percentile is the nearest rank:
 * the ceil(p / 100 x n)-th smallest (1-based), so p = 100 is the maximum and a single sample is every percentile.
 */
#pragma once

#include <math.h>

#include "sim/engine.h"

/* The k-th smallest of v[0..n) (0-based), reordering v: Hoare's selection, linear on average, where sorting the
 * whole window's latencies would cost more than the rest of a short run. */
static inline SimTime
select_kth (SimTime *v, guint n, guint k)
{
  guint lo = 0, hi = n - 1;
  while (lo < hi) {
    SimTime pivot = v[lo + (hi - lo) / 2];
    guint i = lo, j = hi;
    while (i <= j) {
      while (v[i] < pivot)
        i++;
      while (v[j] > pivot)
        j--;
      if (i <= j) {
        SimTime t = v[i];
        v[i] = v[j];
        v[j] = t;
        i++;
        if (j == 0)
          break;
        j--;
      }
    }
    if (k <= j)
      hi = j;
    else if (k >= i)
      lo = i;
    else
      return v[k];
  }
  return v[k];
}

static inline SimTime
select_percentile (SimTime *v, guint n, double p)
{
  guint rank = (guint) ceil (p / 100.0 * n);
  return select_kth (v, n, rank > 0 ? rank - 1 : 0);
}
