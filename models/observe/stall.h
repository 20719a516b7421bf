/* stall.h — why a transmitter is not sending: the causes (an interface), the clock that splits a transmitter's
 * idle time among them, and a latency histogram. Both are cheap enough to run in every run, traced or not.
 *
 * Contract:
 * - Causes are an interface (JSON results.MODE.stalls and limited_by, flows[].limited_by, the CSV's limited_by
 *   column, docs/why.md): this is the one list of their names, only ever appended, never renamed or renumbered.
 *   STALL_IDLE is "nothing to send and nothing waited for". A clock holds a transmitter idle for STALL_DATAPATH
 *   (its sender's datapath is busy); a verdict names the side instead (STALL_DATAPATH_TX, STALL_DATAPATH_RX).
 * - A StallClock attributes the time a transmitter is idle to one cause at a time. Time accrues only from
 *   `since`, which a busy stretch (stall_busy()) moves to the stretch's end, so busy time is never attributed;
 *   what is busy is counted elsewhere (link usage, datapath beats). Nothing is scheduled: every function runs at
 *   a state change the model already has, and accrues the time since the last one (time is never attributed
 *   twice: a call at or before `since` accrues nothing).
 * - A clock either has a cause of its own or follows another clock, its feeder (stall_follow()): a link
 *   direction that is not refused by the link itself is idle because its sender has nothing, so it takes the
 *   sender's cause. A second feeder (`refine`) may sharpen a cause that only says "waiting for the far end"
 *   (STALL_HOST_LATENCY, STALL_IDLE): a root port waiting for read data is really waiting for the requester's
 *   tags when the requester is out of them. A feeder flushes its followers before its cause changes, so a
 *   follower's time is always attributed to the cause that held then, and recomputes their cause in force
 *   after (`eff`), so the per-packet flush reads one byte. One follower per feeder.
 * - Hook for software (issue #14's CPU): a component that sends for a program keeps a StallClock of its own, sets
 *   STALL_SOFTWARE on it while the program has not asked for anything, and makes it the feeder of the link port
 *   it sends on (link_port_set_stall_feeder()); the direction's idle time then reads `software`.
 * - LatHist: counts of latencies in picoseconds, in 128 buckets per power of two (bucket width under 0.8% of
 *   its value), with the exact count, sum, minimum and maximum; a percentile is its bucket's middle, clamped to
 *   [min, max]. Fixed size, no allocation per sample.
 */
#pragma once

#include <stdbool.h>

#include "sim/engine.h"

typedef enum {
  STALL_IDLE, /* nothing to send, nothing waited for */
  STALL_LINK, /* the wire is busy: the transmit queue in front of it is full */
  STALL_CREDITS_PH,
  STALL_CREDITS_PD,
  STALL_CREDITS_NPH,
  STALL_CREDITS_NPD,
  STALL_CREDITS_CPLH,
  STALL_CREDITS_CPLD,
  STALL_TAGS, /* a requester with reads to issue has no free tag */
  STALL_REPLAY_BUFFER, /* the replay buffer (or flit mode's window) has no room for the next TLP */
  STALL_UNACKED_TLPS, /* 2048 TLPs unacknowledged (spec §3.6.2.1) */
  STALL_DATAPATH, /* the application datapath is busy with a TLP (its beats, turnaround, gap) */
  STALL_DESCRIPTOR_FETCH, /* a DMA engine waits for descriptors (fetch in flight, or being set up) */
  STALL_HOST_LATENCY, /* waiting for read data from the completer (its latency, its return path) */
  STALL_HOST_QUEUE, /* the root complex works on as many reads as it can; more wait in its queue */
  STALL_SOFTWARE, /* waiting for software: a driver, the CPU (#14) */
  STALL_COMPLETION_BUFFER, /* the requester's completion buffer has no room for another read's data */
  STALL_HOST_COMPLETION_RATE, /* the root complex's return path is producing a completion (its per-TLP and per-byte
                               * time, host.completion_overhead_ns and host.completion_mbps, and the fence of a
                               * read behind posted writes, host.completion_fence_ns) */
  STALL_SWITCH_PORT, /* a switch's egress port: its arbitration among ingress ports, or its buffer */
  STALL_DATAPATH_TX, /* the transmit side's own rate: in a verdict its beats, turnarounds and gaps; on a clock a
                      * source pacing its requests (a flow's rate cap, a device's DMA command rate) */
  STALL_DATAPATH_RX, /* verdicts only: its receive side (beats and per-TLP overhead of what it takes in) */
  STALL_COUNT
} StallCause;

extern const char *const stall_cause_names[STALL_COUNT];

/* The flow-control refusal of class c (FcClass order P, NP, Cpl), part p (0 header, 1 data). */
static inline StallCause
stall_credits (int c, int p)
{
  return (StallCause) (STALL_CREDITS_PH + 2 * c + p);
}

typedef struct StallClock StallClock;
struct StallClock {
  SimTime since; /* time before this is attributed (or was busy) */
  uint8_t cause; /* own cause (StallCause) */
  uint8_t eff; /* the cause in force (own or followed), kept current at every change: flushes only read it */
  bool follow; /* take the feeder's cause instead */
  const StallClock *feeder, *refine;
  StallClock *follower;
  SimTime ps[STALL_COUNT];
};

/* What `c` is idle for now: its own cause, or its feeder's (as refined). */
static inline StallCause
stall_effective (const StallClock *c)
{
  return (StallCause) c->eff;
}

/* Limits on how many reads a requester keeps in flight: when one binds, the completer waits for data of the few
 * reads it has, and more of the limited thing would have given it more to return. */
static inline bool
stall_window_cause (StallCause c)
{
  return c == STALL_TAGS || c == STALL_COMPLETION_BUFFER || c == STALL_CREDITS_NPH || c == STALL_CREDITS_NPD
         || c == STALL_DESCRIPTOR_FETCH;
}

/* The cause in force of `c`, from its feeders' causes in force, which are current (stall_update goes feeders
 * first). */
static inline StallCause
stall_compute (const StallClock *c)
{
  if (!c->follow)
    return (StallCause) c->cause;
  StallCause f = c->feeder ? (StallCause) c->feeder->eff : STALL_IDLE;
  if (c->refine != NULL && (f == STALL_HOST_LATENCY || f == STALL_IDLE)) {
    StallCause r = (StallCause) c->refine->eff;
    if (f == STALL_IDLE ? r != STALL_IDLE : stall_window_cause (r))
      return r;
  }
  return f;
}

/* Recompute the cause in force of `c` and of the clocks that follow it, after a change (feeders first). Inline:
 * it runs at every stall_set() that changes something, several times per TLP. */
static inline void
stall_update (StallClock *c)
{
  for (StallClock *x = c; x != NULL; x = x->follower)
    x->eff = (uint8_t) stall_compute (x);
}

/* Attribute [since, t) to the effective cause. */
static inline void
stall_flush (StallClock *c, SimTime t)
{
  if (t > c->since) {
    c->ps[stall_effective (c)] += t - c->since;
    c->since = t;
  }
}

/* Flush the followers of `c`, then `c` itself: about to change what they are idle for. */
static inline void
stall_flush_chain (StallClock *c, SimTime t)
{
  for (StallClock *f = c->follower; f != NULL; f = f->follower)
    stall_flush (f, t);
  stall_flush (c, t);
}

/* From t on, idle for `cause`. */
static inline void
stall_set (StallClock *c, SimTime t, StallCause cause)
{
  if (c->cause == cause && !c->follow)
    return;
  stall_flush_chain (c, t);
  c->cause = (uint8_t) cause;
  c->follow = false;
  stall_update (c);
}

/* From t on, idle for whatever the feeder is idle for. */
static inline void
stall_follow (StallClock *c, SimTime t)
{
  if (c->follow)
    return;
  stall_flush_chain (c, t);
  c->follow = true;
  stall_update (c);
}

/* stall_set() and stall_follow() at the engine's present time, read only when something changes: most calls (a
 * refusal per probe, a peek per arbitration) repeat the cause already set. */
static inline void
stall_set_at (StallClock *c, const SimEngine *e, StallCause cause)
{
  if (c->cause != cause || c->follow)
    stall_set (c, sim_now (e), cause);
}

static inline void
stall_follow_at (StallClock *c, const SimEngine *e)
{
  if (!c->follow)
    stall_follow (c, sim_now (e));
}

/* A stall_follow_at() followed at once by a stall_set_at() of the cause in force: the state stays, but what came
 * before now is attributed now (a later busy stretch may start before now and then attributes less). */
static inline void
stall_touch_at (StallClock *c, const SimEngine *e)
{
  if (!c->follow)
    stall_flush_chain (c, sim_now (e));
}

/* Busy over [start, end): what came before start is attributed, nothing until end. */
static inline void
stall_busy (StallClock *c, SimTime start, SimTime end)
{
  stall_flush (c, start);
  if (end > c->since)
    c->since = end;
}

/* `follower` takes its idle cause from `feeder` (when following); `refine`, if not NULL, sharpens it. */
void stall_link (StallClock *feeder, StallClock *follower);
void stall_refine (StallClock *refine, StallClock *follower);

/* Accrued time up to t (flushing `c`), by cause. */
void stall_read (StallClock *c, SimTime t, SimTime out[STALL_COUNT]);

/* --- latency histogram ----------------------------------------------------------------------------------- */

#define LAT_SUB_BITS 7
#define LAT_OCTAVES 48 /* up to 2^54 ps, over 5 hours */

typedef struct {
  uint64_t count, min, max;
  /* In integer picoseconds: exact, where a double sum rounds once it passes 2^53 ps (2.5 hours of latencies), and
   * it costs the per-sample path no conversion. */
  uint64_t sum;
  uint64_t n[LAT_OCTAVES << LAT_SUB_BITS];
} LatHist;

/* Values below 2^LAT_SUB_BITS ps have a bucket each; above, octave k (the top bit at k + LAT_SUB_BITS - 1) is cut
 * into 2^LAT_SUB_BITS equal buckets. */
static inline unsigned
lat_bucket_of (uint64_t v)
{
  if (v < (UINT64_C (1) << LAT_SUB_BITS))
    return (unsigned) v;
  unsigned top = 63u - (unsigned) __builtin_clzll (v);
  unsigned octave = top - LAT_SUB_BITS + 1;
  if (octave >= LAT_OCTAVES)
    return (LAT_OCTAVES << LAT_SUB_BITS) - 1; /* beyond 5 hours: the last bucket (max stays exact) */
  return (octave << LAT_SUB_BITS) | (unsigned) ((v >> (octave - 1)) & ((1u << LAT_SUB_BITS) - 1));
}

/* Inline: one per TLP delivered or read completed. */
static inline void
lat_add (LatHist *h, SimTime ps)
{
  if (h->count == 0 || ps < h->min)
    h->min = ps;
  if (ps > h->max)
    h->max = ps;
  h->count++;
  h->sum += ps;
  h->n[lat_bucket_of (ps)]++;
}

/* p in [0, 1]: the nearest-rank percentile; 0 when empty. */
double lat_percentile_ps (const LatHist *h, double p);

typedef struct {
  uint64_t count;
  double mean_ns, p50_ns, p99_ns, max_ns;
} LatSummary;

LatSummary lat_summary (const LatHist *h);
