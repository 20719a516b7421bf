/* stall.c — the stall causes, the clock's feeders and the latency histogram (contract in stall.h). */
#include "models/observe/stall.h"

#include <math.h>

const char *const stall_cause_names[STALL_COUNT] = {
  [STALL_IDLE] = "idle",
  [STALL_LINK] = "link",
  [STALL_CREDITS_PH] = "credits_ph",
  [STALL_CREDITS_PD] = "credits_pd",
  [STALL_CREDITS_NPH] = "credits_nph",
  [STALL_CREDITS_NPD] = "credits_npd",
  [STALL_CREDITS_CPLH] = "credits_cplh",
  [STALL_CREDITS_CPLD] = "credits_cpld",
  [STALL_TAGS] = "tags",
  [STALL_REPLAY_BUFFER] = "replay_buffer",
  [STALL_UNACKED_TLPS] = "unacked_tlps",
  [STALL_DATAPATH] = "datapath",
  [STALL_DESCRIPTOR_FETCH] = "descriptor_fetch",
  [STALL_HOST_LATENCY] = "host_latency",
  [STALL_HOST_QUEUE] = "host_queue",
  [STALL_SOFTWARE] = "software",
  [STALL_COMPLETION_BUFFER] = "completion_buffer",
  [STALL_HOST_COMPLETION_RATE] = "host_completion_rate",
  [STALL_SWITCH_PORT] = "switch_port",
  [STALL_DATAPATH_TX] = "datapath_tx",
  [STALL_DATAPATH_RX] = "datapath_rx",
};

void
stall_link (StallClock *feeder, StallClock *follower)
{
  g_assert (feeder->follower == NULL || feeder->follower == follower);
  feeder->follower = follower;
  follower->feeder = feeder;
  stall_update (follower);
}

void
stall_refine (StallClock *refine, StallClock *follower)
{
  g_assert (refine->follower == NULL || refine->follower == follower);
  refine->follower = follower;
  follower->refine = refine;
  stall_update (follower);
}

void
stall_read (StallClock *c, SimTime t, SimTime out[STALL_COUNT])
{
  stall_flush (c, t);
  for (int i = 0; i < STALL_COUNT; i++)
    out[i] = c->ps[i];
}

/* --- latency histogram ------------------------------------------------------------------------------------- */

static double
bucket_mid (guint b)
{
  guint octave = b >> LAT_SUB_BITS, sub = b & ((1u << LAT_SUB_BITS) - 1);
  if (octave == 0)
    return sub;
  /* Octave k >= 1 holds [(2^7 + sub) 2^(k-1), (2^7 + sub + 1) 2^(k-1)). */
  double width = ldexp (1.0, (int) octave - 1);
  return ((double) ((1u << LAT_SUB_BITS) + sub) + 0.5) * width;
}

double
lat_percentile_ps (const LatHist *h, double p)
{
  if (h->count == 0)
    return 0;
  uint64_t rank = (uint64_t) ceil (p * (double) h->count);
  rank = CLAMP (rank, 1, h->count);
  uint64_t seen = 0;
  for (guint b = 0; b < G_N_ELEMENTS (h->n); b++) {
    seen += h->n[b];
    if (seen >= rank)
      return CLAMP (bucket_mid (b), (double) h->min, (double) h->max);
  }
  return (double) h->max;
}

LatSummary
lat_summary (const LatHist *h)
{
  LatSummary s = { .count = h->count };
  if (h->count == 0)
    return s;
  s.mean_ns = (double) h->sum / (double) h->count / 1000.0;
  s.p50_ns = lat_percentile_ps (h, 0.5) / 1000.0;
  s.p99_ns = lat_percentile_ps (h, 0.99) / 1000.0;
  s.max_ns = (double) h->max / 1000.0;
  return s;
}
