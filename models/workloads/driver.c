/* driver.c — what the software-driven benchmarks share (contract in system.h): the AN-456 driver (system.c) and the
 * PIO program (pio.c) both name their modes, take the default CPU, bound the run's quiet stretches, turn the run
 * harness's sums into a SystemResult, summarise transfer times and put the fabric's links on a trace. Apart from
 * both, so neither calls the other and the one-link system (onelink.c), which runs either, sits above them. */
#include "models/workloads/system.h"

#include <stdlib.h>

#include "models/base/units.h"
#include "models/fabric/run.h"

const char *
system_mode_name (SystemMode mode)
{
  switch (mode) {
  case SYSTEM_READ: return "read";
  case SYSTEM_WRITE: return "write";
  case SYSTEM_SIMULTANEOUS: return "simultaneous";
  case SYSTEM_PIO_READ: return "pio_read";
  case SYSTEM_PIO_WRITE: return "pio_write";
  }
  return "?";
}

/* A zero-filled CpuParams (tests that fill SystemParams by hand, a SystemDriver without one) is the default CPU:
 * 8 write-combining buffers of 64 bytes (a Core-era core, pcie-protocol.md §9), no costs, no random times. */
CpuParams
system_cpu_params (const CpuParams *c)
{
  if (c != NULL && c->wc.buffers != 0)
    return *c;
  return (CpuParams) { .wc = { .buffers = 8, .buffer_bytes = 64 } };
}

/* Longest stretch in which a healthy run may deliver nothing: every wait the host parameters can impose on one
 * request, added up (a generous upper bound; the link's own delays are microseconds). Eight store gaps cover
 * one channel's two headers, and the first engine starts after four. iteration_gap_ns needs no place here:
 * between iterations no engine is owed, so the watchdog does not judge that stretch. */
SimTime
system_quiet_ps (const HostParams *h, uint32_t mps, uint32_t mrrs)
{
  double ns = h->read_latency_ns + h->read_latency_per_byte_ps * mrrs / 1000.0 + h->cpl_overhead_ns
              + h->write_latency_ns + h->msi_latency_ns + h->poll_interval_ns + h->sw_pio_latency_ns
              + 8 * h->sw_pio_gap_ns;
  if (h->cpl_rate_mbps > 0)
    ns += mps * 1000.0 / h->cpl_rate_mbps;
  if (h->write_drain_mbps > 0)
    ns += mps * 1000.0 / h->write_drain_mbps;
  return units_ns_to_ps (ns);
}

/* The CPU's share of the longest legal quiet stretch: a load's two crossings of the core-to-root-port path, the
 * driver's work before the doorbells, and the interrupt and wake-up times (their 1e-9 bounds, dist.h). 0 for a CPU without costs or random times, so the bound (and the watchdog's ticks) stay
 * what they were before the CPU existed. */
SimTime
system_cpu_quiet_ps (const CpuParams *c, uint32_t descriptors)
{
  if (c == NULL)
    return 0;
  double ns = c->dma_setup_ns + descriptors * c->dma_desc_ns + 2 * c->access_ns;
  if (c->interrupt != NULL)
    ns += dist_bound_ns (c->interrupt);
  if (c->wakeup != NULL)
    ns += dist_bound_ns (c->wakeup);
  return units_ns_to_ps (ns);
}

/* The usage sums as the result's fractions, counters and windows. */
void
system_usage_result (SystemResult *out, const RunUsage *usage)
{
  LinkUsage u[2];
  run_usage_result (usage, u);
  out->downstream = u[LINK_DOWNSTREAM];
  out->upstream = u[LINK_UPSTREAM];
  out->downstream_counters = usage->counters[LINK_DOWNSTREAM];
  out->upstream_counters = usage->counters[LINK_UPSTREAM];
  out->usage_window_ns = usage->windows ? usage->ps / usage->windows / 1000.0 : 0;
  out->usage_windows = usage->windows;
}

/* What a run counts whether or not it passed. */
void
system_run_counts (SystemResult *out, const RunStats *st, Link *link)
{
  out->events = st->events;
  out->tlps = st->tlps;
  for (int dir = 0; dir < 2; dir++)
    out->errors[dir] = link_errors (link, (LinkDir) dir);
  out->tlp_pool_capacity = st->tlp_pool_capacity;
}

static int
cmp_time (const void *a, const void *b)
{
  SimTime x = *(const SimTime *) a, y = *(const SimTime *) b;
  return x < y ? -1 : x > y;
}

/* Mean and nearest-rank percentiles of n per-transfer times (SystemTransferStats); sorts them. */
SystemTransferStats
system_transfer_stats (SimTime *v, uint32_t n)
{
  if (n == 0)
    return (SystemTransferStats) { 0 };
  qsort (v, n, sizeof *v, cmp_time);
  double sum = 0;
  for (uint32_t i = 0; i < n; i++)
    sum += (double) v[i];
  /* Rank ceil(p n), 1-based; computed in integers so 0.99 x 100 is exactly 99. */
  uint32_t r50 = (n * 50 + 99) / 100, r99 = (n * 99 + 99) / 100;
  return (SystemTransferStats) { TRUE, sum / n / 1000.0, (double) v[r50 - 1] / 1000.0, (double) v[r99 - 1] / 1000.0 };
}

void
system_trace_links (const Fabric *f, SimTrace *t)
{
  for (guint i = 0; i < fabric_n_links (f); i++) {
    g_autofree char *name = g_strdup_printf ("link%u", i);
    link_trace_declare (fabric_link (f, i), t, name);
  }
}
