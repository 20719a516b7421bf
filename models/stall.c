/* stall.c — the stall causes, the clock's feeders and the latency histogram (contract in stall.h). */
#include "models/stall.h"

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
};

/* Limits on how many reads a requester keeps in flight: when one binds, the completer waits for data of the few
 * reads it has, and more of the limited thing would have given it more to return. */
static gboolean
window_cause (StallCause c)
{
  return c == STALL_TAGS || c == STALL_COMPLETION_BUFFER || c == STALL_CREDITS_NPH || c == STALL_CREDITS_NPD
         || c == STALL_DESCRIPTOR_FETCH;
}

/* From the feeders' causes in force, which are current (stall_update goes feeders first). */
static StallCause
compute (const StallClock *c)
{
  if (!c->follow)
    return (StallCause) c->cause;
  StallCause f = c->feeder ? stall_effective (c->feeder) : STALL_IDLE;
  if (c->refine != NULL && (f == STALL_HOST_LATENCY || f == STALL_IDLE)) {
    StallCause r = stall_effective (c->refine);
    if (f == STALL_IDLE ? r != STALL_IDLE : window_cause (r))
      return r;
  }
  return f;
}

void
stall_update (StallClock *c)
{
  for (StallClock *x = c; x != NULL; x = x->follower)
    x->eff = (uint8_t) compute (x);
}

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

/* Values below 2^LAT_SUB_BITS ps have a bucket each; above, octave k (the top bit at k + LAT_SUB_BITS - 1) is cut
 * into 2^LAT_SUB_BITS equal buckets. */
static guint
bucket_of (uint64_t v)
{
  if (v < (UINT64_C (1) << LAT_SUB_BITS))
    return (guint) v;
  guint top = 63u - (guint) __builtin_clzll (v);
  guint octave = top - LAT_SUB_BITS + 1;
  if (octave >= LAT_OCTAVES)
    return (LAT_OCTAVES << LAT_SUB_BITS) - 1; /* beyond 5 hours: the last bucket (max stays exact) */
  return (octave << LAT_SUB_BITS) | (guint) ((v >> (octave - 1)) & ((1u << LAT_SUB_BITS) - 1));
}

static double
bucket_mid (guint b)
{
  guint octave = b >> LAT_SUB_BITS, sub = b & ((1u << LAT_SUB_BITS) - 1);
  if (octave == 0)
    return sub;
  /* Octave k >= 1 holds [(2^6 + sub) 2^(k-1), (2^6 + sub + 1) 2^(k-1)). */
  double width = ldexp (1.0, (int) octave - 1);
  return ((double) ((1u << LAT_SUB_BITS) + sub) + 0.5) * width;
}

void
lat_add (LatHist *h, SimTime ps)
{
  if (h->count == 0 || ps < h->min)
    h->min = ps;
  if (ps > h->max)
    h->max = ps;
  h->count++;
  h->sum += (double) ps;
  h->n[bucket_of (ps)]++;
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
  s.mean_ns = h->sum / (double) h->count / 1000.0;
  s.p50_ns = lat_percentile_ps (h, 0.5) / 1000.0;
  s.p99_ns = lat_percentile_ps (h, 0.99) / 1000.0;
  s.max_ns = (double) h->max / 1000.0;
  return s;
}
