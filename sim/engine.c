/* engine.c — events in three places over one pool of records: a binary min-heap of (time, sequence) keys, a
 * calendar of time buckets for events due soon, and a FIFO for events scheduled at the current time.
 *
 * Where an event goes. Due now: the FIFO. Otherwise the heap while it holds fewer than HEAP_SMALL entries, else
 * the calendar if the event falls in its window and its bucket is not crowded, else the heap. The placement never
 * shows in the order: the next event is always the smaller (time, seq) of the calendar's first and the heap's
 * top (and the FIFO after both when they hold nothing due now, below). A one-link run keeps 4 to 7 events
 * pending, and there a shallow heap is the cheapest; a fabric's links each keep a wire, an arrival and an Ack
 * timer, about 80 events, and there a heap's sifts grow deep and their decisions are coin tosses for the branch
 * predictor, while the calendar's cost does not grow with the count (docs/performance.md). The far events (30 us
 * UpdateFC refresh timers, watchdogs) then fill the heap and stay there: all the near traffic goes to the calendar.
 *
 * Calendar. Time is cut into buckets of 2^CAL_SHIFT ps; CAL_N of them, a ring, cover the window from the bucket
 * of `now` on (about 2 us). A bucket is a circular doubly linked list of records in (time, seq) order, threaded
 * through the records; a bitmap of non-empty buckets (and one bit per bitmap word) finds the first due bucket
 * in a few instructions. Inside the window bucket order is time order, so the first record of the first
 * non-empty bucket is the calendar's smallest. A record scheduled now has the largest sequence number yet, so its
 * place in a bucket is after every record due at the same time or earlier: the walk from the tail compares times
 * only, and gives up after CAL_CROWD records (the heap takes the event), so a crowded bucket costs O(log n).
 *
 * Heap. Entries are small key records (time, seq, slot) so sifts do not chase pointers; each record remembers
 * where it is so cancel needs no search. Most handlers schedule their successor, so the running event's heap
 * entry stays at the top while its handler runs (`top_spent`), and the handler's first heap schedule replaces
 * it and sifts down once: a pop and a push for the price of one sift. The spent entry is the smallest key in the
 * heap (due now, scheduled before anything the handler adds), so nothing sifts above it; it is removed normally
 * if nothing replaced it.
 *
 * FIFO. A third of the models' events are scheduled at the current time (a handler kicking the next stage). They
 * run after every calendar or heap entry of the same time, which is exactly the (time, seq) order: an entry due
 * now there was scheduled before the clock reached now and so has a smaller sequence number than anything
 * scheduled at now. A cancelled FIFO entry stays in the ring and is skipped when reached (its record's
 * generation has moved on); the ring empties before the clock moves.
 *
 * Records live in one array grown by doubling and recycled through a free list threaded through `next`. */
#include "sim/engine.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>


/* 1.024 ns buckets, 2048 of them: a 2.1 us window. The models' delays are mostly 16 to 260 ns (a packet on the
 * wire, the next beat, a pipeline), up to 1 us for a Gen1 x1 packet, then the 30 us UpdateFC timers. A fabric's
 * links keep events on symbol boundaries (1 ns at Gen3), so 4 ns buckets held several times each and a third of
 * the inserts walked a bucket; at 1 ns a sixteenth do (docs/performance.md, "fourth round"; earlier, with a 1 us
 * window, 2 ns buckets had run slower). */
#define CAL_SHIFT 10
#define CAL_BITS 11
#define CAL_N (1u << CAL_BITS)
#define CAL_MASK (CAL_N - 1)
#define CAL_WORDS (CAL_N / 64)
/* A new record walks back over at most this many later records of its bucket; beyond, it goes to the heap. */
#define CAL_CROWD 8
/* The heap takes every event while it holds fewer than this (see the top of this file). Measured: 0 costs a
 * one-link run 8%, 4 the bare engine loop 20%, 16 the fabric benchmark 8% (docs/performance.md). */
#define HEAP_SMALL 8

G_STATIC_ASSERT (CAL_WORDS <= 32); /* SimEngine.cal_words has one bit per bitmap word */

/* seq is unique per engine, so no two keys are equal: the order is total and the heap's shape cannot decide
 * which of two same-time events runs first. */
typedef struct {
  SimTime time;
  uint64_t seq;
  uint32_t slot;
} HeapEntry;

/* The sentinel past the heap's last entry (sift_down()): no event has its key, as seq never reaches UINT64_MAX. */
#define HEAP_END ((HeapEntry) { SIM_TIME_MAX, UINT64_MAX, UINT32_MAX })

/* A FIFO entry: the generation tells a live event from one cancelled (and its slot perhaps reused) since. */
typedef struct {
  uint32_t slot;
  uint32_t gen;
} NowEntry;

/* The record (SimEventRec) and the engine's first fields (SimEngineHead) are in engine.h, for its inline accessors. */
typedef SimEventRec EventRec;

G_STATIC_ASSERT (sizeof (EventRec) == 64);

struct SimEngine {
  /* now, and the records: first, so that engine.h's accessors read them through a SimEngineHead pointer. Records
   * are addressed by slot index, never by a kept pointer: growing moves the array. */
  SimEngineHead h;
  uint64_t seed;
  uint64_t next_seq; /* never reset, so ties keep scheduling order across run loops (64 bits never wrap) */
  uint64_t executed;
  gboolean stop;

  uint32_t cal_words; /* calendar (below): a bit per non-zero bitmap word */
  uint32_t cal_len;

  /* heap_cap always equals recs_cap (grow_records() grows both): each entry names a distinct record, so the heap
   * cannot fill up while a record is free and a push needs no bound check of its own. The array holds one entry
   * more, the sentinel HEAP_END at heap[heap_len] (sift_down()). */
  HeapEntry *heap;
  uint32_t heap_len;
  uint32_t heap_cap;

  uint32_t free_head;

  NowEntry *fifo; /* ring of events due at `now`, in scheduling order; capacity a power of two (index by mask) */
  uint32_t fifo_head, fifo_len, fifo_cap;
  uint32_t fifo_live; /* entries not cancelled */

  gboolean top_spent; /* heap[0] belongs to the event whose handler is running (see the top of this file) */

  /* Calendar: each bucket's head record (NO_SLOT when empty) and a bit per non-empty bucket. Bucket b holds the
   * events due in the one bucket-width interval of the window that maps to b. Last, so the scalars above share
   * the first cache lines. */
  uint64_t cal_bits[CAL_WORDS];
  uint32_t cal[CAL_N];
};

G_STATIC_ASSERT (offsetof (struct SimEngine, h) == 0); /* engine.h reads the head through the engine pointer */

/* Sentinels at the top of the uint32 range: the record count stops doubling at 2^31 (grow_records()), so no real
 * slot or heap position can collide with them. NO_SLOT also ends the free list and marks an empty bucket. */
#define NO_SLOT SIM_REC_FREE
#define IN_FIFO (UINT32_MAX - 1)
#define CAL_AT 0x80000000u

G_STATIC_ASSERT (CAL_AT + CAL_N < IN_FIFO);

static inline gboolean
entry_less (const HeapEntry *a, const HeapEntry *b)
{
  return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

/* Every move of an entry goes through here so that the record's back-pointer never goes stale: sim_cancel()
 * finds the entry through it instead of searching the heap. */
static inline void
heap_place (SimEngine *e, uint32_t pos, HeapEntry entry)
{
  e->heap[pos] = entry;
  e->h.recs[entry.slot].where = pos;
}

/* Both sifts carry the moving entry in a local and shift the others into the hole: one write per level where a
 * swap would need three. The entry comes as an argument, not from heap[pos]: the callers have it in hand, and
 * storing it first only to load it back cost a sixth of the sifts' instructions. */
static void
sift_up (SimEngine *e, uint32_t pos, HeapEntry entry)
{
  while (pos > 0) {
    uint32_t parent = (pos - 1) / 2;
    if (!entry_less (&entry, &e->heap[parent]))
      break;
    heap_place (e, pos, e->heap[parent]);
    pos = parent;
  }
  heap_place (e, pos, entry);
}

/* heap[heap_len] is always HEAP_END, a key later than any event's, so a last child without a sibling needs no
 * test of its own: the sentinel never wins the comparison. */
/* Inline: the spent root's replacement (schedule_root()) is most of its calls, and there a call and the registers
 * it saves cost a tenth of the sift. */
static inline void
sift_down (SimEngine *e, uint32_t pos, HeapEntry entry)
{
  uint32_t n = e->heap_len;
  for (uint32_t child; (child = 2 * pos + 1) < n; pos = child) {
    if (entry_less (&e->heap[child + 1], &e->heap[child]))
      child++;
    if (!entry_less (&e->heap[child], &entry))
      break;
    heap_place (e, pos, e->heap[child]);
  }
  heap_place (e, pos, entry);
}

/* Remove the heap entry at pos, keeping the heap property. The last entry fills the hole and may have come from
 * another subtree, so it can need to move up as well as down. */
static void
heap_remove (SimEngine *e, uint32_t pos)
{
  uint32_t last = --e->heap_len;
  HeapEntry moved = e->heap[last];
  e->heap[last] = HEAP_END;
  if (pos == last)
    return;
  if (pos > 0 && entry_less (&moved, &e->heap[(pos - 1) / 2]))
    sift_up (e, pos, moved);
  else
    sift_down (e, pos, moved);
}

/* The first non-empty bucket in time order, i.e. from now's bucket round the ring; the calendar is not empty.
 * Everything in it is due within the window, so a bucket below now's index holds the ring's wrapped part, later
 * than any bucket from now's index up. */
static inline uint32_t
cal_first (const SimEngine *e)
{
  uint32_t i0 = (uint32_t) (e->h.now >> CAL_SHIFT) & CAL_MASK;
  uint32_t w = i0 >> 6;
  uint64_t m = e->cal_bits[w] & (~(uint64_t) 0 << (i0 & 63));
  if (m)
    return (w << 6) | (uint32_t) __builtin_ctzll (m);
  /* Words above w first; if none, the lowest word, which may be w itself with only bits below i0 left. */
  uint32_t above = e->cal_words & ~((2u << w) - 1);
  w = (uint32_t) __builtin_ctz (above ? above : e->cal_words);
  return (w << 6) | (uint32_t) __builtin_ctzll (e->cal_bits[w]);
}

/* Bucket b holds a record: its bit and its bitmap word's bit say so. Inlined into both inserts (cal_insert() and
 * schedule_timed()'s call-free first steps). */
static inline __attribute__ ((always_inline)) void
cal_mark (SimEngine *e, uint32_t b)
{
  e->cal_bits[b >> 6] |= (uint64_t) 1 << (b & 63);
  e->cal_words |= 1u << (b >> 6);
}

/* Bucket b's ring becomes `slot` alone. */
static inline __attribute__ ((always_inline)) void
cal_link_alone (SimEngine *e, uint32_t slot, uint32_t b)
{
  e->cal[b] = slot;
  e->h.recs[slot].next = e->h.recs[slot].prev = slot;
  cal_mark (e, b);
}

/* `slot` into a bucket's ring between `after` and `before` (its next). */
static inline __attribute__ ((always_inline)) void
cal_link_between (SimEngine *e, uint32_t slot, uint32_t after, uint32_t before)
{
  e->h.recs[slot].prev = after;
  e->h.recs[slot].next = before;
  e->h.recs[after].next = slot;
  e->h.recs[before].prev = slot;
}

/* Link a fresh record (the largest sequence number yet) into the calendar, or return FALSE when its bucket is
 * crowded with later records and the heap should take it. */
static inline gboolean
cal_insert (SimEngine *e, uint32_t slot, SimTime at)
{
  uint32_t b = (uint32_t) (at >> CAL_SHIFT) & CAL_MASK;
  EventRec *r = &e->h.recs[slot];
  uint32_t head = e->cal[b];
  if (head == NO_SLOT) {
    cal_link_alone (e, slot, b);
  } else {
    /* Walk back from the tail over records due later (equal times stay ahead: they were scheduled earlier). */
    uint32_t after = e->h.recs[head].prev;
    for (int steps = 0; e->h.recs[after].time > at; steps++) {
      if (after == head) {
        /* Earlier than everything in the bucket: the new head, linked in front of the old one. */
        after = e->h.recs[head].prev;
        e->cal[b] = slot;
        break;
      }
      if (steps == CAL_CROWD)
        return FALSE;
      after = e->h.recs[after].prev;
    }
    cal_link_between (e, slot, after, e->h.recs[after].next);
  }
  r->where = CAL_AT + b;
  e->cal_len++;
  return TRUE;
}

/* Without a branch on whether the record is alone in its bucket (about half are, at random: a mispredicted branch
 * per calendar event). Alone, its ring's prev and next are itself, so the unlinking writes land on the record being
 * removed, the head goes to NO_SLOT and the bucket's bit is cleared; else the bit stays and the word stays set. */
static inline void
cal_remove (SimEngine *e, uint32_t slot)
{
  EventRec *r = &e->h.recs[slot];
  uint32_t b = r->where - CAL_AT;
  uint32_t next = r->next, prev = r->prev;
  uint64_t alone = next == slot;
  e->h.recs[prev].next = next;
  e->h.recs[next].prev = prev;
  uint32_t head = e->cal[b];
  uint32_t after = alone ? NO_SLOT : next;
  e->cal[b] = head == slot ? after : head;
  uint64_t bits = e->cal_bits[b >> 6] & ~(alone << (b & 63));
  e->cal_bits[b >> 6] = bits;
  e->cal_words &= ~((uint32_t) (bits == 0) << (b >> 6));
  e->cal_len--;
}

/* Called only when the free list is empty. Doubling keeps growth to a few reallocations per run, after which no
 * event allocates (the engine.h contract). `cap <= old` catches the uint32 count wrapping past 2^31; it aborts
 * rather than carry on with a pool that silently shrank. */
static void
grow_records (SimEngine *e)
{
  uint32_t old = e->h.recs_cap;
  uint32_t cap = old ? old * 2 : 256;
  if (cap <= old)
    g_error ("event pool exhausted at %u records", old);
  /* Aligned to the record size, so no record straddles two cache lines (g_renew keeps no alignment). */
  EventRec *recs = g_aligned_alloc (cap, sizeof (EventRec), sizeof (EventRec));
  if (old)
    memcpy (recs, e->h.recs, old * sizeof (EventRec));
  g_aligned_free (e->h.recs);
  e->h.recs = recs;
  /* One more than the records: the sentinel after the last entry. */
  e->heap = g_renew (HeapEntry, e->heap, cap + 1);
  e->heap[e->heap_len] = HEAP_END;
  e->heap_cap = cap;
  /* Thread the new records onto the free list in ascending order so slot reuse is deterministic. Generations
   * start at 1 so that a zero-filled SimEventId (a g_new0'd model field) never names a live event. */
  for (uint32_t i = old; i < cap; i++) {
    e->h.recs[i] = (EventRec) { .gen = 1, .where = NO_SLOT, .next = i + 1 < cap ? i + 1 : e->free_head };
  }
  e->free_head = old;
  e->h.recs_cap = cap;
}

/* The engine draws no random numbers itself: it keeps the run seed only to derive per-component streams
 * (sim_rand_new()), so the order in which components are created cannot shift anyone's draws. */
SimEngine *
sim_engine_new (uint64_t seed)
{
  SimEngine *e = g_new0 (SimEngine, 1);
  e->seed = seed;
  e->free_head = NO_SLOT;
  for (uint32_t b = 0; b < CAL_N; b++)
    e->cal[b] = NO_SLOT;
  grow_records (e);
  return e;
}

void
sim_engine_free (SimEngine *engine)
{
  if (!engine)
    return;
  g_free (engine->heap);
  g_aligned_free (engine->h.recs);
  g_free (engine->fifo);
  g_free (engine);
}

uint64_t
sim_seed (const SimEngine *engine)
{
  return engine->seed;
}

/* Copies the ring out from its head rather than g_renew()ing it: live entries may wrap around the old end, and
 * the mask arithmetic is only valid for a capacity that is a power of two (64, then doubling). */
static void
fifo_grow (SimEngine *e)
{
  uint32_t cap = e->fifo_cap ? e->fifo_cap * 2 : 64;
  if (cap <= e->fifo_cap)
    g_error ("same-time event FIFO exhausted at %u entries", e->fifo_cap);
  NowEntry *n = g_new (NowEntry, cap);
  for (uint32_t k = 0; k < e->fifo_len; k++)
    n[k] = e->fifo[(e->fifo_head + k) & (e->fifo_cap - 1)];
  g_free (e->fifo);
  e->fifo = n;
  e->fifo_cap = cap;
  e->fifo_head = 0;
}

/* The paths of sim_schedule_at() that call something, each ending in a tail call or out of line, so that the fast
 * paths (a FIFO entry, the spent root's replacement) keep everything in scratch registers and the function needs no
 * prologue: it ran 1 in 8 of a one-link run's instructions, a quarter of them saving and restoring registers. */
static G_GNUC_NO_INLINE G_GNUC_NORETURN void
schedule_past (const SimEngine *e, SimTime at)
{
  sim_invariant_failed (__FILE__, __LINE__, "event scheduled in the past: %" G_GUINT64_FORMAT " ps < now %"
                        G_GUINT64_FORMAT " ps", at, e->h.now);
}

/* No free record or no FIFO room: grow, then schedule as usual (rare: the pools double). */
static G_GNUC_NO_INLINE SimEventId
schedule_grow (SimEngine *e, SimTime at, SimEventFn fn, void *ctx, uint64_t arg)
{
  if (e->free_head == NO_SLOT)
    grow_records (e);
  if (at == e->h.now && e->fifo_len == e->fifo_cap)
    fifo_grow (e);
  return sim_schedule_at (e, at, fn, ctx, arg);
}

/* The spent root takes the new key and sinks to its place; returns id so the caller's call is a tail call. */
static G_GNUC_NO_INLINE SimEventId
schedule_root (SimEngine *e, SimTime at, uint64_t seq, SimEventId id)
{
  sift_down (e, 0, (HeapEntry) { at, seq, id.slot });
  return id;
}

/* A new heap leaf. */
static G_GNUC_NO_INLINE SimEventId
schedule_heap (SimEngine *e, SimTime at, uint64_t seq, SimEventId id)
{
  uint32_t pos = e->heap_len++;
  e->heap[pos + 1] = HEAP_END;
  sift_up (e, pos, (HeapEntry) { at, seq, id.slot });
  return id;
}

/* The calendar's bucket holds records due later than `at`: the walk back from its tail (cal_insert()), or the
 * heap when the bucket is crowded. */
static G_GNUC_NO_INLINE SimEventId
schedule_walk (SimEngine *e, SimTime at, uint64_t seq, SimEventId id)
{
  if (cal_insert (e, id.slot, at))
    return id;
  return schedule_heap (e, at, seq, id);
}

/* A timed event that does not replace the spent root: the calendar, or a new heap leaf. The calendar's usual
 * cases, an empty bucket, a record due no earlier than the bucket's tail and one earlier than its head, are
 * cal_insert()'s first steps done here without a call and without a branch between them; the walk and the heap
 * are reached by tail calls. The selects keep six more values live and cost six register saves, which the
 * mispredictions they remove outweigh on a fabric (docs/performance.md: a fabric schedules most events here). */
static G_GNUC_NO_INLINE SimEventId
schedule_timed (SimEngine *e, SimTime at, uint64_t seq, SimEventId id)
{
  /* A small heap first; then the calendar, inside its window: buckets from now's on, fewer than CAL_N of them
   * (the difference of bucket numbers cannot overflow: at >= now). */
  if (e->heap_len < HEAP_SMALL || (at >> CAL_SHIFT) - (e->h.now >> CAL_SHIFT) >= CAL_N)
    return schedule_heap (e, at, seq, id);
  uint32_t slot = id.slot;
  EventRec *r = &e->h.recs[slot];
  r->time = at;
  r->seq = seq;
  uint32_t b = (uint32_t) (at >> CAL_SHIFT) & CAL_MASK;
  /* An empty bucket reads as a ring of the new record alone (its prev itself), so that case takes the same
   * straight path as a record due after the tail: whether a bucket is empty is a coin toss for the predictor. */
  r->prev = slot;
  uint32_t head = e->cal[b];
  uint32_t before = head == NO_SLOT ? slot : head;
  /* Hides the value from the optimiser, which otherwise branches on the select to skip the time test below. */
  __asm__ ("" : "+r" (before));
  uint32_t tail = e->h.recs[before].prev;
  SimTime head_time = e->h.recs[before].time;
  /* Due inside the bucket's span: the walk. Else after the tail, or before the head (the new head, a select: about
   * a sixth of inserts, at random, were earlier than the tail). */
  uint32_t walk = (e->h.recs[tail].time > at) & (head_time <= at);
  __asm__ ("" : "+r" (walk)); /* one branch, not two (GCC splits the AND) */
  if (walk)
    return schedule_walk (e, at, seq, id);
  e->cal[b] = head_time > at ? slot : before;
  /* After the tail (equal times stay ahead: they were scheduled earlier), i.e. before the head on the ring; alone,
   * all four links are the record itself. */
  cal_link_between (e, slot, tail, before);
  cal_mark (e, b);
  r->where = CAL_AT + b;
  e->cal_len++;
  return id;
}

SimEventId
sim_schedule_at (SimEngine *e, SimTime at, SimEventFn fn, void *ctx, uint64_t arg)
{
  /* Always checked, NDEBUG or not: one comparison, and an event in the past would silently reorder time. */
  if (G_UNLIKELY (at < e->h.now))
    schedule_past (e, at);
  if (G_UNLIKELY (e->free_head == NO_SLOT || (at == e->h.now && e->fifo_len == e->fifo_cap)))
    return schedule_grow (e, at, fn, ctx, arg);
  uint32_t slot = e->free_head;
  EventRec *r = &e->h.recs[slot];
  e->free_head = r->next;
  r->fn = fn;
  r->ctx = ctx;
  r->arg = arg;
  /* The sequence number advances for FIFO entries too, so heap ties keep meaning scheduling order. */
  uint64_t seq = e->next_seq++;
  SimEventId id = { slot, r->gen };
  if (at == e->h.now) {
    e->fifo[(e->fifo_head + e->fifo_len++) & (e->fifo_cap - 1)] = (NowEntry) { slot, r->gen };
    e->fifo_live++;
    r->where = IN_FIFO;
    return id;
  }
  /* A handler's first heap schedule takes over the spent root (see the top of this file); there is only one
   * spent entry, so later schedules from the same handler go on as usual. */
  if (e->top_spent) {
    e->top_spent = FALSE;
    return schedule_root (e, at, seq, id);
  }
  return schedule_timed (e, at, seq, id);
}

/* The overflow is checked here, not left to sim_schedule_at(): the wrapped sum would be reported as a time in
 * the past, which hides that the delay itself was absurd. */
SimEventId
sim_schedule_in (SimEngine *e, SimTime delay, SimEventFn fn, void *ctx, uint64_t arg)
{
  if (G_UNLIKELY (delay > SIM_TIME_MAX - e->h.now))
    sim_invariant_failed (__FILE__, __LINE__, "event delay of %" G_GUINT64_FORMAT " ps overflows simulated time",
                         delay);
  return sim_schedule_at (e, e->h.now + delay, fn, ctx, arg);
}

/* LIFO reuse: the slot freed last is handed out next, which keeps the records a run touches few and cached. */
static void
release_slot (SimEngine *e, uint32_t slot)
{
  EventRec *r = &e->h.recs[slot];
  r->gen++;
  r->where = NO_SLOT;
  r->next = e->free_head;
  e->free_head = slot;
}

gboolean
sim_cancel (SimEngine *e, SimEventId id)
{
  if (!sim_event_pending (e, id))
    return FALSE;
  uint32_t where = e->h.recs[id.slot].where;
  /* A ring cannot drop an entry from its middle: a FIFO entry stays where it is and is skipped when reached,
   * recognised by the generation that release_slot() is about to bump. Only the live count changes now. */
  if (where == IN_FIFO)
    e->fifo_live--;
  else if (where >= CAL_AT)
    cal_remove (e, id.slot);
  else
    heap_remove (e, where);
  release_slot (e, id.slot);
  return TRUE;
}

/* The time of the calendar's first event; the calendar is not empty. */
static inline SimTime
cal_next_time (const SimEngine *e)
{
  return e->h.recs[e->cal[cal_first (e)]].time;
}

/* Whether a calendar or heap event is due at the current time: such an event precedes the FIFO (see the top of
 * this file). A calendar one is the head of now's bucket, which holds nothing earlier than now. */
static inline gboolean
timed_due_now (const SimEngine *e)
{
  if (e->heap_len > 0 && e->heap[0].time == e->h.now)
    return TRUE;
  uint32_t h = e->cal_len > 0 ? e->cal[(e->h.now >> CAL_SHIFT) & CAL_MASK] : NO_SLOT;
  return h != NO_SLOT && e->h.recs[h].time == e->h.now;
}

uint64_t
sim_run_until (SimEngine *e, SimTime limit)
{
  uint64_t n = 0;
  /* A sim_stop() aimed at an earlier loop must not end this one before it starts. */
  e->stop = FALSE;
  if (e->top_spent) {
    /* Called from a handler: the outer event's entry goes now, as it would have without the deferral. */
    e->top_spent = FALSE;
    heap_remove (e, 0);
  }
  while (!e->stop) {
    uint32_t slot;
    SimTime at;
    if (e->fifo_live > 0 && !timed_due_now (e)) {
      NowEntry ne;
      /* fifo_live > 0 means a live entry lies ahead, so skipping cancelled ones always terminates. */
      do {
        ne = e->fifo[e->fifo_head];
        e->fifo_head = (e->fifo_head + 1) & (e->fifo_cap - 1);
        e->fifo_len--;
      } while (e->h.recs[ne.slot].gen != ne.gen);
      at = e->h.now;
      if (at > limit) {
        /* Put it back: only a caller's limit below the current time gets here. */
        e->fifo_head = (e->fifo_head - 1) & (e->fifo_cap - 1);
        e->fifo_len++;
        break;
      }
      slot = ne.slot;
      e->fifo_live--;
    } else {
      if (e->fifo_live == 0) {
        /* Only cancelled entries are left: drop them before the clock moves on. */
        e->fifo_head = 0;
        e->fifo_len = 0;
      }
      /* The calendar's first against the heap's top. A heap top is not popped: the handler's first heap schedule
       * reuses the entry, else it is removed after the handler. */
      uint32_t first = NO_SLOT;
      if (e->cal_len > 0) {
        first = e->cal[cal_first (e)];
        const EventRec *c = &e->h.recs[first];
        if (e->heap_len > 0 && entry_less (&e->heap[0], &(HeapEntry) { c->time, c->seq, first }))
          first = NO_SLOT;
      } else if (e->heap_len == 0) {
        break;
      }
      if (first != NO_SLOT) {
        at = e->h.recs[first].time;
        if (at > limit)
          break;
        slot = first;
        cal_remove (e, slot);
      } else {
        at = e->heap[0].time;
        if (at > limit)
          break;
        slot = e->heap[0].slot;
        e->top_spent = TRUE;
      }
    }
    EventRec *r = &e->h.recs[slot];
    SimEventFn fn = r->fn;
    void *ctx = r->ctx;
    uint64_t arg = r->arg;
    /* Free before calling so the handler can reuse the slot when it reschedules itself. fn, ctx and arg were
     * copied out first: that reuse overwrites the record, and a growth of the pool would leave `r` dangling. */
    release_slot (e, slot);
    e->h.now = at;
    fn (e, ctx, arg);
    if (e->top_spent) {
      e->top_spent = FALSE;
      heap_remove (e, 0);
    }
    n++;
  }
  /* Added once per loop: a nested loop run from a handler adds its own events, and the handler that ran it
   * counts here once, so nothing is counted twice. */
  e->executed += n;
  return n;
}

uint64_t
sim_run (SimEngine *e)
{
  return sim_run_until (e, SIM_TIME_MAX);
}

void
sim_stop (SimEngine *e)
{
  e->stop = TRUE;
}

gboolean
sim_stopped (const SimEngine *e)
{
  return e->stop;
}

/* The spent root is no longer an event (its record is already free), so it is not counted as pending. */
size_t
sim_pending (const SimEngine *e)
{
  return (size_t) e->cal_len + e->heap_len - (e->top_spent ? 1 : 0) + e->fifo_live;
}

SimTime
sim_next_time (const SimEngine *e)
{
  if (e->fifo_live > 0)
    return e->h.now;
  SimTime t = e->cal_len > 0 ? cal_next_time (e) : SIM_TIME_MAX;
  if (!e->top_spent)
    return e->heap_len > 0 ? MIN (t, e->heap[0].time) : t;
  /* The spent top is not pending; the smallest pending heap key is then one of its children. */
  for (uint32_t c = 1; c <= 2 && c < e->heap_len; c++)
    t = MIN (t, e->heap[c].time);
  return t;
}

uint64_t
sim_events_executed (const SimEngine *e)
{
  return e->executed;
}

size_t
sim_event_capacity (const SimEngine *e)
{
  return e->h.recs_cap;
}

/* SplitMix64 finaliser: a cheap bijective mix so nearby (seed, id) pairs give unrelated streams. */
static uint64_t
mix64 (uint64_t x)
{
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/* The run seed is mixed on its own first, so --seed 1 and 2 do not give streams a bit apart; the id is spread
 * by an odd constant before the XOR, so neighbouring ids differ in many bits. The constants are part of the
 * determinism contract: changing them changes every draw a given --seed makes. */
uint64_t
sim_component_seed (uint64_t run_seed, uint32_t component_id)
{
  return mix64 (mix64 (run_seed) ^ ((uint64_t) component_id * 0xd1b54a32d192ed03ULL));
}

GRand *
sim_rand_new (const SimEngine *e, uint32_t component_id)
{
  uint64_t s = sim_component_seed (e->seed, component_id);
  /* Both halves go in: g_rand_new_with_seed() takes 32 bits, and component seeds that differ only in their high
   * word would then give the same stream. */
  guint32 words[2] = { (guint32) s, (guint32) (s >> 32) };
  return g_rand_new_with_seed_array (words, 2);
}

/* Messages quote user text (keys, values, paths) that YAML lets contain newlines and other control characters;
 * printed raw they would break the one-line promise and could forge a second "FILE:LINE: error" line. Spell
 * them out C-style instead. Bytes >= 0x80 are left alone so UTF-8 names stay readable.
 * Takes ownership of msg and returns the string to use in its place (msg itself when nothing needed escaping),
 * so callers simply reassign. The set below is every C0 control but NUL (which cannot occur inside a C string)
 * plus DEL; most messages hold none, and the scan lets them through without a copy. */
char *
sim_one_line (char *msg)
{
  if (!strpbrk (msg, "\x01\x02\x03\x04\x05\x06\x07\x08\t\n\x0b\x0c\r\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17"
                     "\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x7f"))
    return msg;
  GString *out = g_string_sized_new (strlen (msg) + 16);
  for (const unsigned char *c = (const unsigned char *) msg; *c; c++) {
    if (*c == '\n')
      g_string_append (out, "\\n");
    else if (*c == '\r')
      g_string_append (out, "\\r");
    else if (*c == '\t')
      g_string_append (out, "\\t");
    else if (*c < 0x20 || *c == 0x7f)
      g_string_append_printf (out, "\\x%02x", *c);
    else
      g_string_append_c (out, (char) *c);
  }
  g_free (msg);
  return g_string_free (out, FALSE);
}

/* The one exit of a broken invariant, for the models and the application alike: the program's failure line
 * ("pciesim: error: internal: …", as its other errors read) and status 70 (EX_SOFTWARE). */
void
sim_invariant_failed (const char *file, int line, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  char *msg = sim_one_line (g_strdup_vprintf (fmt, ap));
  va_end (ap);
  /* stdout may hold a half-written report in its buffer: drop it rather than let exit() flush it. */
  fprintf (stderr, "pciesim: error: internal: %s (%s:%d)\n", msg, file, line);
  fflush (stderr);
  g_free (msg);
  _exit (70);
}
