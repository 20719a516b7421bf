/* test-engine.c — Check suite for sim/engine.
 *
 * Every expected value comes from a reference computed here — a plain array sorted by (time, scheduling
 * order), or a count over a fixed list — never from asking the engine, so an engine bug cannot confirm
 * itself. Randomised cases use a fixed GRand seed per table row: a failure names the row and replays exactly.
 */
#include <check.h>

#include "sim/engine.h"

/* Firing log shared by the handlers below: tags in the order the engine ran them, plus the clock check. */
typedef struct {
  GArray *tags; /* uint64_t */
  SimTime last;
  gboolean went_backwards;
} Log;

static void
log_init (Log *log)
{
  log->tags = g_array_new (FALSE, FALSE, sizeof (uint64_t));
  log->last = 0;
  log->went_backwards = FALSE;
}

static void
log_clear (Log *log)
{
  g_array_unref (log->tags);
}

static uint64_t
log_at (const Log *log, guint i)
{
  return g_array_index (log->tags, uint64_t, i);
}

/* Checked after the run rather than asserted here, so one backwards step shows with its case id. */
static void
log_event (Log *log, SimEngine *e, uint64_t tag)
{
  if (sim_now (e) < log->last)
    log->went_backwards = TRUE;
  log->last = sim_now (e);
  g_array_append_val (log->tags, tag);
}

static void
on_log (SimEngine *e, void *ctx, uint64_t arg)
{
  log_event (ctx, e, arg);
}

static void
on_nothing_log (SimEngine *e, void *ctx, uint64_t arg)
{
  (void) e;
  (void) ctx;
  (void) arg;
}

/* ---- heap order against a sorted reference under random schedule / cancel / run_until ---- */

typedef struct {
  SimTime time;
  SimEventId id;
  gboolean cancelled;
  gboolean fired;
} RefEvent;

typedef struct {
  guint32 seed;
  guint ops;
  gint32 span;       /* times are drawn from [now, now + span): a small span forces many ties */
  gint32 cancel_pct; /* share of ops that cancel a random id, live or stale */
  gint32 run_pct;    /* share of ops that call sim_run_until; 0 builds one big heap */
  SimTime base;      /* first event time, to exercise times near SIM_TIME_MAX */
} RandomCase;

/* One row per way a heap goes wrong:
 * 1, 5  spans of 4 and 1 make most events ties (span 1: every event lands on the current instant), so the
 *       order rests on the scheduling-order tie-break and the same-time FIFO, not on time;
 * 2     a span of 10^6 ps makes ties rare: the time comparison and sift paths carry the order;
 * 3     neither cancels nor runs: one 4000-entry heap drained at the end, a plain sort check;
 * 4     45% cancels, so most ids are stale or dead when picked: removal from the middle of the heap, and slot
 *       reuse behind the generation check;
 * 6     times within 2^32 ps of SIM_TIME_MAX (never reaching it: 3000 ops advance at most 3 * 10^6 ps), which
 *       a signed type would put before time 0, and which a double (53-bit mantissa, steps of 2^11 ps up there)
 *       could not tell apart within this row's span of 1000 ps;
 * 7     30% runs: many short sim_run_until() calls interleaved with scheduling into a half-drained heap;
 * 8     a span of 20 us, beyond the engine's calendar window (about 2 us), with many runs: events split between the
 *       calendar and the heap, and the calendar's ring wraps many times as the clock moves on;
 * 9     a span of 8192 ps: a few calendar buckets hold all events, so most overflow to the heap (crowded buckets)
 *       and ties between the two are everywhere. */
static const RandomCase random_cases[] = {
  { 1, 4000, 4, 20, 10, 0 },
  { 2, 4000, 1000000, 20, 10, 0 },
  { 3, 4000, 50, 0, 0, 0 },
  { 4, 4000, 50, 45, 5, 0 },
  { 5, 4000, 1, 30, 15, 0 },
  { 6, 3000, 1000, 25, 10, SIM_TIME_MAX - ((SimTime) 1 << 32) },
  { 7, 6000, 200, 10, 30, 0 },
  { 8, 4000, 20000000, 15, 30, 0 },
  { 9, 4000, 8192, 15, 20, 0 },
};

static gint
ref_order (gconstpointer a, gconstpointer b, gpointer user_data)
{
  const RefEvent *ref = user_data;
  guint i = *(const guint *) a, j = *(const guint *) b;
  if (ref[i].time != ref[j].time)
    return ref[i].time < ref[j].time ? -1 : 1;
  /* The reference index is the scheduling order. */
  return i < j ? -1 : i > j;
}

static guint
ref_pending (const GArray *ref, SimTime *next)
{
  guint n = 0;
  *next = SIM_TIME_MAX;
  for (guint i = 0; i < ref->len; i++) {
    const RefEvent *r = &g_array_index (ref, RefEvent, i);
    if (!r->cancelled && !r->fired) {
      n++;
      *next = MIN (*next, r->time);
    }
  }
  return n;
}

START_TEST (test_random_order)
{
  const RandomCase *c = &random_cases[_i];
  g_autoptr (SimEngine) e = sim_engine_new (c->seed);
  g_autoptr (GRand) rand = g_rand_new_with_seed (c->seed);
  g_autoptr (GArray) ref = g_array_new (FALSE, FALSE, sizeof (RefEvent));
  Log log;
  log_init (&log);
  SimTime ref_now = 0;

  for (guint op = 0; op < c->ops; op++) {
    gint32 r = g_rand_int_range (rand, 0, 100);
    if (r < c->cancel_pct && ref->len > 0) {
      RefEvent *ev = &g_array_index (ref, RefEvent, g_rand_int_range (rand, 0, (gint32) ref->len));
      /* engine.h: TRUE only for an event still pending; a fired or already cancelled id is a no-op (FALSE). */
      gboolean expect = !ev->fired && !ev->cancelled;
      ck_assert_msg (sim_cancel (e, ev->id) == expect, "case %d op %u: cancel returned %d", _i, op, !expect);
      ev->cancelled |= expect;
    } else if (r < c->cancel_pct + c->run_pct) {
      /* Limits never fall below the clock here; test_limit_below_now covers that case on its own. The reference
       * clock becomes the latest event fired, not the limit: engine.h leaves the clock at the last event. */
      SimTime limit = MAX (ref_now, c->base) + (SimTime) g_rand_int_range (rand, 0, c->span);
      uint64_t expect = 0;
      for (guint i = 0; i < ref->len; i++) {
        RefEvent *ev = &g_array_index (ref, RefEvent, i);
        if (!ev->cancelled && !ev->fired && ev->time <= limit) {
          ev->fired = TRUE;
          ref_now = MAX (ref_now, ev->time);
          expect++;
        }
      }
      uint64_t ran = sim_run_until (e, limit);
      ck_assert_msg (ran == expect, "case %d op %u: ran %" G_GUINT64_FORMAT " events, expected %" G_GUINT64_FORMAT,
                     _i, op, ran, expect);
      ck_assert_msg (sim_now (e) == ref_now, "case %d op %u: clock %" G_GUINT64_FORMAT " != %" G_GUINT64_FORMAT,
                     _i, op, sim_now (e), ref_now);
    } else {
      /* At or after the clock, as the contract demands (the past aborts, test_past_aborts). */
      RefEvent ev = { .time = MAX (ref_now, c->base) + (SimTime) g_rand_int_range (rand, 0, c->span) };
      ev.id = sim_schedule_at (e, ev.time, on_log, &log, ref->len);
      g_array_append_val (ref, ev);
    }

    /* After every operation, not only at the end: an engine that counted a cancelled entry as pending until it
     * surfaced, or reported its time as next, would be right again once drained and pass a final check. */
    SimTime next;
    guint pending = ref_pending (ref, &next);
    ck_assert_msg (sim_pending (e) == pending, "case %d op %u: %zu pending, expected %u", _i, op, sim_pending (e),
                   pending);
    ck_assert_msg (sim_next_time (e) == next, "case %d op %u: next time %" G_GUINT64_FORMAT " != %" G_GUINT64_FORMAT,
                   _i, op, sim_next_time (e), next);
  }
  sim_run (e);

  g_autoptr (GArray) expect = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < ref->len; i++) {
    if (!g_array_index (ref, RefEvent, i).cancelled)
      g_array_append_val (expect, i);
  }
  /* One global sort is a valid reference for the whole log, run_until calls included: every event is scheduled at
   * or after the clock, so nothing scheduled later can belong before an event that has already fired. */
  g_array_sort_with_data (expect, ref_order, ref->data);

  ck_assert_msg (log.tags->len == expect->len, "case %d: %u events fired, expected %u", _i, log.tags->len,
                 expect->len);
  for (guint k = 0; k < expect->len; k++) {
    guint want = g_array_index (expect, guint, k);
    ck_assert_msg (log_at (&log, k) == want, "case %d: event #%u was %" G_GUINT64_FORMAT ", expected %u", _i, k,
                   log_at (&log, k), want);
  }
  ck_assert_msg (!log.went_backwards, "case %d: time ran backwards", _i);
  ck_assert_msg (sim_events_executed (e) == expect->len, "case %d: executed counter", _i);
  ck_assert_msg (sim_pending (e) == 0, "case %d: events left after sim_run", _i);
  log_clear (&log);
}
END_TEST

/* ---- the queue's placement paths, against a sorted reference ---- */

/* engine.c keeps a small heap, a calendar of time buckets over a window ahead of the clock, and a FIFO for the
 * current instant; what lies beyond the window, or would crowd a bucket, goes to the heap. Where an event is kept
 * must never show in the order, so each pattern aims at a path or a seam between two and the order is checked
 * against a plain sort by (time, scheduling order). The patterns do not know the engine's bucket width or window,
 * so they cover every power of two of distance:
 * 0  powers: T0 + 2^k - 1, 2^k and 2^k + 1 for k = 0..44, shuffled, every fifth cancelled: near, far, both sides
 *    of every plausible bucket and window edge, and the FIFO (offset 0);
 * 1  descending: 64 distinct times 1 ps apart, newest earliest, each twice in a row: every new event belongs
 *    before everything in its bucket (a walk to the head, then overflow to the heap) and ties at every time;
 * 2  ties: 60 events at one instant, interleaved with 60 at three times just before it: the first few land in the
 *    heap and the rest elsewhere, and same-time events must still run in scheduling order across the two;
 * 3  wrap: a clock just below a power of two, 64 events 64 Ki ps apart in reverse order: a calendar ring whose
 *    window starts mid-bucket and wraps, with the later half beyond it. */
#define T0 ((SimTime) 1000123)

static GArray *
pattern_times (int pattern, SimTime *start)
{
  GArray *t = g_array_new (FALSE, FALSE, sizeof (SimTime));
  *start = T0;
  switch (pattern) {
  case 0:
    for (int k = 0; k <= 44; k++)
      for (int d = -1; d <= 1; d++) {
        SimTime at = T0 + ((SimTime) 1 << k) + (SimTime) d;
        g_array_append_val (t, at);
      }
    break;
  case 1:
    for (int k = 0; k < 64; k++)
      for (int twice = 0; twice < 2; twice++) {
        SimTime at = T0 + 64 - (SimTime) k;
        g_array_append_val (t, at);
      }
    break;
  case 2:
    for (int k = 0; k < 60; k++) {
      SimTime tie = T0 + 5000, other = T0 + 4997 + (SimTime) (k % 3);
      g_array_append_val (t, tie);
      g_array_append_val (t, other);
    }
    break;
  default:
    *start = ((SimTime) 1 << 31) - 1;
    for (int k = 63; k >= 0; k--) {
      SimTime at = *start + (SimTime) k * 65536;
      g_array_append_val (t, at);
    }
    break;
  }
  return t;
}

START_TEST (test_placement)
{
  g_autoptr (SimEngine) e = sim_engine_new (1);
  SimTime start;
  g_autoptr (GArray) times = pattern_times (_i, &start);
  if (_i == 0) {
    /* A fixed shuffle (Fisher-Yates), so the scheduling order is not the time order. */
    g_autoptr (GRand) rand = g_rand_new_with_seed (17);
    for (guint k = times->len - 1; k > 0; k--) {
      guint j = (guint) g_rand_int_range (rand, 0, (gint32) k + 1);
      SimTime x = g_array_index (times, SimTime, k);
      g_array_index (times, SimTime, k) = g_array_index (times, SimTime, j);
      g_array_index (times, SimTime, j) = x;
    }
  }
  Log log;
  log_init (&log);
  /* Move the clock to `start` first: the window then starts at a clock that is not a multiple of anything. */
  sim_schedule_at (e, start, on_nothing_log, NULL, 0);
  ck_assert_uint_eq (sim_run (e), 1);
  ck_assert (sim_now (e) == start);

  g_autoptr (GArray) ref = g_array_new (FALSE, FALSE, sizeof (RefEvent));
  for (guint k = 0; k < times->len; k++) {
    RefEvent ev = { .time = g_array_index (times, SimTime, k) };
    ev.id = sim_schedule_at (e, ev.time, on_log, &log, k);
    g_array_append_val (ref, ev);
  }
  /* Row 0 cancels every fifth: heads, middles and tails of buckets, heap entries and FIFO entries alike. */
  if (_i == 0)
    for (guint k = 0; k < ref->len; k += 5) {
      RefEvent *ev = &g_array_index (ref, RefEvent, k);
      ck_assert_msg (sim_cancel (e, ev->id), "pattern %d: cancel of event %u failed", _i, k);
      ev->cancelled = TRUE;
    }
  SimTime next;
  guint pending = ref_pending (ref, &next);
  ck_assert_msg (sim_pending (e) == pending, "pattern %d: %zu pending, expected %u", _i, sim_pending (e), pending);
  ck_assert_msg (sim_next_time (e) == next, "pattern %d: next time %" G_GUINT64_FORMAT ", expected %"
                 G_GUINT64_FORMAT, _i, sim_next_time (e), next);

  ck_assert_uint_eq (sim_run (e), pending);
  g_autoptr (GArray) expect = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint k = 0; k < ref->len; k++)
    if (!g_array_index (ref, RefEvent, k).cancelled)
      g_array_append_val (expect, k);
  g_array_sort_with_data (expect, ref_order, ref->data);
  ck_assert_uint_eq (log.tags->len, expect->len);
  for (guint k = 0; k < expect->len; k++)
    ck_assert_msg (log_at (&log, k) == g_array_index (expect, guint, k), "pattern %d: event #%u was %" G_GUINT64_FORMAT
                   ", expected %u", _i, k, log_at (&log, k), g_array_index (expect, guint, k));
  ck_assert_msg (!log.went_backwards, "pattern %d: time ran backwards", _i);
  log_clear (&log);
}
END_TEST

/* ---- same-time events run FIFO, including those scheduled at the current time from a handler ---- */

/* Generation 1 waits in the heap; generations 2 and 3 are scheduled at the current instant, which engine.c keeps
 * in a ring of 64 entries to start with. Widths up to 17 stay inside it; 256 and 1000 make it grow while
 * generation 1 still runs from the heap, and wrap it while generation 3 is pushed as generation 2 pops. */
static const guint fifo_sizes[] = { 1, 2, 3, 17, 256, 1000 };

#define FIFO_TIME ((SimTime) 5000)
/* Noise tags carry the top bit so none can be mistaken for a same-time tag (0 .. 2999 at most). */
#define NOISE_TAG ((uint64_t) 1 << 63)

typedef struct {
  Log log;
  uint64_t width; /* events per generation */
  uint64_t total; /* three generations */
} Fifo;

/* Tag t spawns t + width at the same time, so the handler-scheduled generation lands behind every event
 * already queued for this instant, and its own members keep their scheduling order. */
static void
on_fifo (SimEngine *e, void *ctx, uint64_t tag)
{
  Fifo *f = ctx;
  log_event (&f->log, e, tag);
  if (tag + f->width < f->total)
    sim_schedule_in (e, 0, on_fifo, f, tag + f->width);
}

START_TEST (test_fifo_same_time)
{
  g_autoptr (SimEngine) e = sim_engine_new (1);
  g_autoptr (GRand) rand = g_rand_new_with_seed (100 + (guint32) _i);
  Fifo f = { .width = fifo_sizes[_i], .total = 3 * (uint64_t) fifo_sizes[_i] };
  log_init (&f.log);

  /* Noise at other times, interleaved with the same-time events, so the heap reorders its entries and a
   * FIFO result cannot be an accident of insertion order. */
  guint noise_before = 0;
  for (uint64_t t = 0; t < f.width; t++) {
    for (int k = 0; k < 2; k++) {
      SimTime at = (SimTime) g_rand_int_range (rand, 0, 2 * (gint32) FIFO_TIME);
      /* Off the instant under test, so the contiguous run of tags below is all same-time events. */
      if (at == FIFO_TIME)
        at++;
      noise_before += at < FIFO_TIME;
      sim_schedule_at (e, at, on_log, &f.log, NOISE_TAG | at);
    }
    sim_schedule_at (e, FIFO_TIME, on_fifo, &f, t);
  }

  /* All three generations count: the limit is inclusive, and events scheduled at the current instant from a
   * handler are due at FIFO_TIME too. The noise after FIFO_TIME must wait. */
  uint64_t ran = sim_run_until (e, FIFO_TIME);
  ck_assert_msg (ran == noise_before + f.total, "width %u: ran %" G_GUINT64_FORMAT ", expected %" G_GUINT64_FORMAT,
                 fifo_sizes[_i], ran, noise_before + f.total);

  /* The same-time events must form one contiguous run 0, 1, 2, ... after the earlier noise. Generation 2 is
   * scheduled while generation 1 is still draining; an engine that ran new same-time events first (a stack)
   * would log 0, width, 2 width, 1, ... instead. */
  for (guint k = 0; k < f.total; k++) {
    uint64_t tag = log_at (&f.log, noise_before + k);
    ck_assert_msg (tag == k, "width %u: position %u holds tag %" G_GUINT64_FORMAT, fifo_sizes[_i], k, tag);
  }
  sim_run (e);
  ck_assert_msg (!f.log.went_backwards, "width %u: time ran backwards", fifo_sizes[_i]);
  log_clear (&f.log);
}
END_TEST

/* ---- sim_run_until limits ---- */

/* Unsorted, with two ties at 10 and at 20, so limits can land exactly on a tie ("<= limit" must run both). */
static const SimTime fixed_times[] = { 30, 10, 20, 40, 20, 10 };

/* Limits before the first event (0, 9), on each tie (10, 20), between events (15, 39, where the clock must stop
 * at 10 and 30, not at the limit), on the last (40) and at SIM_TIME_MAX. The `then` rows return to the same
 * limit (10, 20) or an earlier one: everything due by then has run, so nothing may run twice or move the clock. */
static const struct {
  SimTime limit;
  SimTime then; /* a second, earlier-or-equal limit that must run nothing new */
} until_cases[] = {
  { 0, 0 }, { 9, 5 }, { 10, 10 }, { 15, 0 }, { 20, 20 }, { 39, 30 }, { 40, 10 }, { SIM_TIME_MAX, 0 },
};

START_TEST (test_run_until)
{
  SimTime limit = until_cases[_i].limit;
  g_autoptr (SimEngine) e = sim_engine_new (1);
  Log log;
  log_init (&log);
  for (guint k = 0; k < G_N_ELEMENTS (fixed_times); k++)
    sim_schedule_at (e, fixed_times[k], on_log, &log, k);

  /* The reference: count what the limit admits, latest admitted time as the clock (0 if none), earliest other
   * time as next. */
  uint64_t expect = 0;
  SimTime clock = 0, next = SIM_TIME_MAX;
  for (guint k = 0; k < G_N_ELEMENTS (fixed_times); k++) {
    if (fixed_times[k] <= limit) {
      expect++;
      clock = MAX (clock, fixed_times[k]);
    } else {
      next = MIN (next, fixed_times[k]);
    }
  }

  ck_assert_msg (sim_run_until (e, limit) == expect, "limit %" G_GUINT64_FORMAT ": wrong event count", limit);
  ck_assert_msg (sim_now (e) == clock, "limit %" G_GUINT64_FORMAT ": clock %" G_GUINT64_FORMAT ", expected %"
                 G_GUINT64_FORMAT, limit, sim_now (e), clock);
  ck_assert_msg (sim_pending (e) == G_N_ELEMENTS (fixed_times) - expect, "limit %" G_GUINT64_FORMAT ": pending",
                 limit);
  ck_assert_msg (sim_next_time (e) == next, "limit %" G_GUINT64_FORMAT ": next time", limit);
  for (guint k = 0; k < log.tags->len; k++)
    ck_assert_msg (fixed_times[log_at (&log, k)] <= limit, "limit %" G_GUINT64_FORMAT ": ran a later event", limit);

  ck_assert_msg (sim_run_until (e, until_cases[_i].then) == 0, "limit %" G_GUINT64_FORMAT ": rerun ran events",
                 limit);
  ck_assert_msg (sim_now (e) == clock, "limit %" G_GUINT64_FORMAT ": rerun moved the clock", limit);

  ck_assert_msg (sim_run (e) == G_N_ELEMENTS (fixed_times) - expect, "limit %" G_GUINT64_FORMAT ": remainder",
                 limit);
  ck_assert_msg (!log.went_backwards, "limit %" G_GUINT64_FORMAT ": time ran backwards", limit);
  log_clear (&log);
}
END_TEST

/* A limit below the current time runs nothing, not even events due now (those wait in the same-time FIFO), and
 * a cancelled one ahead of them in the FIFO stays cancelled. */
START_TEST (test_limit_below_now)
{
  g_autoptr (SimEngine) e = sim_engine_new (1);
  Log log;
  log_init (&log);
  sim_schedule_at (e, 10, on_log, &log, 0);
  ck_assert (sim_run (e) == 1);
  SimEventId first = sim_schedule_at (e, 10, on_log, &log, 1);
  sim_schedule_at (e, 10, on_log, &log, 2);
  sim_schedule_at (e, 10, on_log, &log, 3);
  ck_assert (sim_cancel (e, first));
  /* By hand: three scheduled at now, one cancelled, so 2 pending and due at 10; a limit of 5 admits none. */
  ck_assert_msg (sim_run_until (e, 5) == 0, "a limit below now ran events");
  ck_assert_msg (sim_pending (e) == 2, "%zu pending, expected 2", sim_pending (e));
  ck_assert_msg (sim_next_time (e) == 10, "next time %" G_GUINT64_FORMAT, sim_next_time (e));
  ck_assert_msg (sim_run_until (e, 10) == 2, "the events due now did not run");
  ck_assert_msg (log.tags->len == 3 && log_at (&log, 1) == 2 && log_at (&log, 2) == 3, "wrong events or order");
  log_clear (&log);
}
END_TEST

/* While a handler runs, its own event is neither pending nor next, whatever the engine keeps of it meanwhile. */
typedef struct {
  guint calls;
  gboolean ok;
  SimEventId later;
} Query;

static void
on_query (SimEngine *e, void *ctx, uint64_t arg)
{
  Query *q = ctx;
  q->calls++;
  if (arg == 10) {
    /* Pending: 20 and 30. */
    q->ok &= sim_pending (e) == 2 && sim_next_time (e) == 20;
    sim_schedule_at (e, 15, on_query, q, 15);
    q->ok &= sim_pending (e) == 3 && sim_next_time (e) == 15;
  } else if (arg == 15) {
    /* 15 itself is running, so only 20 and 30 count; then 30 is cancelled, leaving 20. */
    q->ok &= sim_pending (e) == 2 && sim_next_time (e) == 20;
    q->ok &= sim_cancel (e, q->later);
    q->ok &= sim_pending (e) == 1 && sim_next_time (e) == 20;
  } else if (arg == 20) {
    q->ok &= sim_pending (e) == 0 && sim_next_time (e) == SIM_TIME_MAX;
  }
}

START_TEST (test_query_from_handler)
{
  g_autoptr (SimEngine) e = sim_engine_new (1);
  Query q = { .ok = TRUE };
  sim_schedule_at (e, 10, on_query, &q, 10);
  sim_schedule_at (e, 20, on_query, &q, 20);
  q.later = sim_schedule_at (e, 30, on_query, &q, 30);
  /* 10, 15 and 20 run; 30 was cancelled from inside the handler at 15. */
  ck_assert_uint_eq (sim_run (e), 3);
  ck_assert_msg (q.calls == 3 && q.ok, "%u calls, pending or next time wrong inside a handler", q.calls);
}
END_TEST

/* ---- sim_stop from a handler ---- */

/* Ties around the stopping event check that "stop" means after this handler, not after this instant. */
static const SimTime stop_times[] = { 10, 20, 20, 20, 30 };

typedef struct {
  Log log;
  uint64_t stop_tag;
} Stopper;

static void
on_stop (SimEngine *e, void *ctx, uint64_t tag)
{
  Stopper *s = ctx;
  log_event (&s->log, e, tag);
  if (tag == s->stop_tag)
    sim_stop (e);
}

START_TEST (test_stop)
{
  const guint n = G_N_ELEMENTS (stop_times);
  g_autoptr (SimEngine) e = sim_engine_new (1);
  Stopper s = { .stop_tag = (uint64_t) _i };
  log_init (&s.log);
  for (guint k = 0; k < n; k++)
    sim_schedule_at (e, stop_times[k], on_stop, &s, k);

  /* Alternate the two run loops so both honour the stop. */
  uint64_t ran = _i % 2 ? sim_run (e) : sim_run_until (e, 1000);
  /* Stopping at tag i means tags 0..i ran (i + 1 events) and the other n - 1 - i wait, the stopper's same-time
   * siblings at 20 among them; the clock stays at the stopper's time. */
  ck_assert_msg (ran == (uint64_t) _i + 1, "stop at %d: ran %" G_GUINT64_FORMAT, _i, ran);
  ck_assert_msg (sim_stopped (e), "stop at %d: not reported stopped", _i);
  ck_assert_msg (sim_now (e) == stop_times[_i], "stop at %d: clock", _i);
  ck_assert_msg (sim_pending (e) == n - 1 - (guint) _i, "stop at %d: pending", _i);

  /* A new run loop starts afresh and finishes the rest in order. */
  ck_assert_msg (sim_run (e) == n - 1 - (guint) _i, "stop at %d: resumed run", _i);
  ck_assert_msg (s.log.tags->len == n, "stop at %d: total fired", _i);
  for (guint k = 0; k < n; k++)
    ck_assert_msg (log_at (&s.log, k) == k, "stop at %d: order at %u", _i, k);
  log_clear (&s.log);
}
END_TEST

/* ---- cancel of stale ids, across slot reuse ---- */

/* Schedule fillers until one lands in `slot` again; the generation check only matters once it does. */
static SimEventId
schedule_into_slot (SimEngine *e, uint32_t slot, SimTime at, Log *log, uint64_t tag)
{
  for (int tries = 0; tries < 10000; tries++) {
    SimEventId id = sim_schedule_at (e, at, on_log, log, tag);
    if (id.slot == slot)
      return id;
  }
  ck_abort_msg ("slot %u was never reused", slot);
  return SIM_EVENT_NONE;
}

START_TEST (test_cancel_stale)
{
  g_autoptr (SimEngine) e = sim_engine_new (1);
  Log log;
  log_init (&log);

  SimEventId a = sim_schedule_at (e, 10, on_log, &log, 1);
  ck_assert (sim_event_pending (e, a));
  ck_assert (sim_cancel (e, a));
  ck_assert_msg (!sim_cancel (e, a), "second cancel of the same id succeeded");
  ck_assert (!sim_event_pending (e, a));

  /* b takes a's slot with a new generation. An engine that checked the slot alone would let the stale `a`
   * cancel b, an unrelated event, which is the bug a model's forgotten timer id would cause. */
  SimEventId b = schedule_into_slot (e, a.slot, 10, &log, 2);
  ck_assert_msg (!sim_cancel (e, a), "cancelled id hit the event now reusing its slot");
  ck_assert_msg (sim_event_pending (e, b), "stale cancel disturbed the slot's new owner");

  SimEventId c = sim_schedule_at (e, 5, on_log, &log, 3);
  ck_assert_uint_eq (sim_run_until (e, 5), 1);
  ck_assert_msg (!sim_cancel (e, c), "cancel of a fired event succeeded");
  SimEventId d = schedule_into_slot (e, c.slot, 20, &log, 4);
  ck_assert_msg (!sim_cancel (e, c), "fired id hit the event now reusing its slot");
  ck_assert (sim_event_pending (e, d));

  /* Models hold SIM_EVENT_NONE before they first arm a timer and cancel it unconditionally (as test_pool_steady
   * does), and a slot far past the record array must be refused, not read out of bounds. */
  ck_assert (!sim_cancel (e, SIM_EVENT_NONE));
  ck_assert (!sim_cancel (e, (SimEventId) { 1u << 30, 1 }));

  sim_run (e);
  /* Tag 3 fired first; b (tag 2) and d (tag 4) survived; the fillers carry the same tags. */
  ck_assert_uint_eq (log_at (&log, 0), 3);
  gboolean saw_b = FALSE, saw_d = FALSE;
  for (guint k = 1; k < log.tags->len; k++) {
    ck_assert_msg (log_at (&log, k) != 1, "cancelled event fired");
    saw_b |= log_at (&log, k) == 2;
    saw_d |= log_at (&log, k) == 4;
  }
  ck_assert (saw_b && saw_d);
  log_clear (&log);
}
END_TEST

typedef struct {
  Log log;
  SimEventId self;
  SimEventId victim;
  gboolean self_cancel;
  gboolean victim_cancel;
} Canceller;

static void
on_cancel_from_handler (SimEngine *e, void *ctx, uint64_t tag)
{
  Canceller *c = ctx;
  log_event (&c->log, e, tag);
  c->self_cancel = sim_cancel (e, c->self);
  c->victim_cancel = sim_cancel (e, c->victim);
}

START_TEST (test_cancel_from_handler)
{
  g_autoptr (SimEngine) e = sim_engine_new (1);
  Canceller c;
  log_init (&c.log);
  /* The victim shares the canceller's time: it is queued but must not run. */
  c.self = sim_schedule_at (e, 10, on_cancel_from_handler, &c, 1);
  c.victim = sim_schedule_at (e, 10, on_log, &c.log, 2);
  sim_schedule_at (e, 11, on_log, &c.log, 3);

  /* 2 = the canceller and the event at 11. A running event is no longer pending, so cancelling itself must
   * fail: a TRUE here would mean the engine could release the slot of the very event it is executing. */
  ck_assert_uint_eq (sim_run (e), 2);
  ck_assert_msg (!c.self_cancel, "an event could cancel itself while running");
  ck_assert_msg (c.victim_cancel, "a handler could not cancel a pending event");
  ck_assert_uint_eq (c.log.tags->len, 2);
  ck_assert_uint_eq (log_at (&c.log, 0), 1);
  ck_assert_uint_eq (log_at (&c.log, 1), 3);
  log_clear (&c.log);
}
END_TEST

/* ---- the event pool does not grow in steady state ---- */

#define POOL_EVENTS 100000
#define POOL_WARMUP 1000
/* Far above 10 pending events and their timeouts, far below what a per-event allocation would reach. */
#define POOL_SMALL 1024

typedef struct {
  GRand *rand;
  uint64_t fired;
  gboolean rearm_timeout; /* also keep a timeout per chain and cancel it on every step */
  SimEventId timeouts[10];
  size_t warm_capacity;
} Pool;

static void on_timeout (SimEngine *e, void *ctx, uint64_t chain) {}

/* Each of 10 chains reschedules itself, so at most 10 (or 20 with timeouts) events are pending. */
static void
on_chain (SimEngine *e, void *ctx, uint64_t chain)
{
  Pool *p = ctx;
  if (++p->fired == POOL_WARMUP)
    p->warm_capacity = sim_event_capacity (e);
  /* A chain stops once fewer than 10 events remain to the total; the 9 others each have one event pending at
   * that moment and fire it (then stop too), so exactly POOL_EVENTS chain events run. */
  if (p->fired + 10 > POOL_EVENTS)
    return;
  if (p->rearm_timeout) {
    sim_cancel (e, p->timeouts[chain]);
    p->timeouts[chain] = sim_schedule_in (e, 1000 * SIM_NS, on_timeout, p, chain);
  }
  sim_schedule_in (e, (SimTime) g_rand_int_range (p->rand, 0, 100), on_chain, p, chain);
}

START_TEST (test_pool_steady)
{
  g_autoptr (SimEngine) e = sim_engine_new (1);
  g_autoptr (GRand) rand = g_rand_new_with_seed (7);
  Pool p = { .rand = rand, .rearm_timeout = _i == 1 };
  for (uint64_t k = 0; k < G_N_ELEMENTS (p.timeouts); k++) {
    p.timeouts[k] = SIM_EVENT_NONE;
    sim_schedule_at (e, 0, on_chain, &p, k);
  }
  sim_run (e);
  ck_assert_msg (p.fired == POOL_EVENTS, "case %d: %" G_GUINT64_FORMAT " chain events", _i, p.fired);
  ck_assert_msg (sim_event_capacity (e) == p.warm_capacity, "case %d: pool grew from %zu to %zu after warm-up",
                 _i, p.warm_capacity, sim_event_capacity (e));
  /* The second case is the sharp one. Each step cancels a timeout 1000 ns ahead and sets another, but 10,000
   * steps per chain of ~50 ps each last only ~0.5 us, so no timeout is ever due before the chains end: an
   * engine that kept cancelled records until their time would hold ~100,000 of them, not a few dozen. */
  ck_assert_msg (sim_event_capacity (e) <= POOL_SMALL, "case %d: pool holds %zu records", _i,
                 sim_event_capacity (e));
}
END_TEST

/* ---- per-component random streams ---- */

/* Zero seeds and ids, neighbours (1,0)/(1,1), both maxima and a seed using all 64 bits: the values where a mix
 * that drops high bits or converts through a signed type would go wrong. UINT32_MAX also wraps the `id + 1`
 * below to 0, another neighbour. */
static const struct {
  uint64_t seed;
  uint32_t id;
} rand_cases[] = {
  { 0, 0 }, { 1, 0 }, { 1, 1 }, { 42, 7 }, { UINT64_MAX, UINT32_MAX }, { 0x123456789abcdefULL, 1000 },
};

START_TEST (test_rand_reproducible)
{
  g_autoptr (SimEngine) e1 = sim_engine_new (rand_cases[_i].seed);
  g_autoptr (SimEngine) e2 = sim_engine_new (rand_cases[_i].seed);
  /* Streams for other ids created in between must not shift this one. */
  g_autoptr (GRand) other = sim_rand_new (e2, rand_cases[_i].id + 1);
  g_rand_int (other);
  g_autoptr (GRand) r1 = sim_rand_new (e1, rand_cases[_i].id);
  g_autoptr (GRand) r2 = sim_rand_new (e2, rand_cases[_i].id);
  for (int k = 0; k < 1000; k++)
    ck_assert_msg (g_rand_int (r1) == g_rand_int (r2), "case %d: draw %d differs", _i, k);
}
END_TEST

#define RAND_IDS 4096

START_TEST (test_rand_distinct)
{
  const uint64_t seeds[] = { 0, 1, 2, UINT64_MAX };
  g_autoptr (GHashTable) comp_seeds = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr (GHashTable) streams = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);

  /* Neighbouring run seeds and ids are the likely collisions, so both vary over the same table. */
  for (guint s = 0; s < G_N_ELEMENTS (seeds); s++) {
    g_autoptr (SimEngine) e = sim_engine_new (seeds[s]);
    for (uint32_t id = 0; id < RAND_IDS; id++) {
      gint64 *cs = g_new (gint64, 1);
      *cs = (gint64) sim_component_seed (seeds[s], id);
      /* A mix as simple as seed + id or seed ^ id would already collide here, at (0,1) and (1,0). */
      ck_assert_msg (g_hash_table_add (comp_seeds, cs), "seed %u id %u: component seed repeats", s, id);

      /* 64 bits of output: a repeat among 16k streams has probability ~1e-11. */
      g_autoptr (GRand) r = sim_rand_new (e, id);
      gint64 *head = g_new (gint64, 1);
      *head = (gint64) ((uint64_t) g_rand_int (r) << 32 | g_rand_int (r));
      ck_assert_msg (g_hash_table_add (streams, head), "seed %u id %u: stream repeats another", s, id);
    }
  }
}
END_TEST

/* ---- contract violations stop the process as internal errors (exit 70) ---- */

static void on_nothing (SimEngine *e, void *ctx, uint64_t arg) {}

START_TEST (test_past_aborts)
{
  g_autoptr (SimEngine) e = sim_engine_new (1);
  sim_schedule_at (e, 100, on_nothing, NULL, 0);
  sim_run (e);
  /* Case 0 is plainly 1 ps in the past. Case 1 is 100 + (SIM_TIME_MAX - 99) = SIM_TIME_MAX + 1, which an
   * unchecked addition wraps to time 0: the past again, in disguise. Both must exit 70 (engine.h). */
  if (_i == 0)
    sim_schedule_at (e, 99, on_nothing, NULL, 0);
  else
    sim_schedule_in (e, SIM_TIME_MAX - 99, on_nothing, NULL, 0);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("engine");
  SRunner *r = srunner_create (s);

  TCase *tc = tcase_create ("order");
  /* The reference is deliberately naive: ref_pending() scans every event after every op, over ten million steps
   * for the 6000-op row, which the valgrind setup slows many times over. */
  tcase_set_timeout (tc, 60);
  tcase_add_loop_test (tc, test_random_order, 0, G_N_ELEMENTS (random_cases));
  tcase_add_loop_test (tc, test_fifo_same_time, 0, G_N_ELEMENTS (fifo_sizes));
  tcase_add_loop_test (tc, test_placement, 0, 4);
  suite_add_tcase (s, tc);

  tc = tcase_create ("run");
  tcase_add_loop_test (tc, test_run_until, 0, G_N_ELEMENTS (until_cases));
  tcase_add_test (tc, test_limit_below_now);
  tcase_add_test (tc, test_query_from_handler);
  tcase_add_loop_test (tc, test_stop, 0, G_N_ELEMENTS (stop_times));
  suite_add_tcase (s, tc);

  tc = tcase_create ("cancel");
  tcase_add_test (tc, test_cancel_stale);
  tcase_add_test (tc, test_cancel_from_handler);
  suite_add_tcase (s, tc);

  tc = tcase_create ("pool");
  /* 100,000 chain events (200,000 schedules with the timeouts) per case. */
  tcase_set_timeout (tc, 60);
  tcase_add_loop_test (tc, test_pool_steady, 0, 2);
  suite_add_tcase (s, tc);

  tc = tcase_create ("rand");
  tcase_add_loop_test (tc, test_rand_reproducible, 0, G_N_ELEMENTS (rand_cases));
  tcase_add_test (tc, test_rand_distinct);
  suite_add_tcase (s, tc);

  /* g_error() ends in a breakpoint trap, which only a forked test can survive. */
  if (srunner_fork_status (r) != CK_NOFORK) {
    tc = tcase_create ("contract");
    tcase_add_loop_exit_test (tc, test_past_aborts, 70, 0, 2);
    suite_add_tcase (s, tc);
  }

  /* CK_ENV so meson's CK_VERBOSITY=silent keeps stdout pure TAP; the TAP lines decide pass/fail. */
  srunner_run_all (r, CK_ENV);
  srunner_free (r);
  return 0;
}
