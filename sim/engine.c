/* engine.c — binary min-heap of (time, sequence) keys over a pool of event records, plus a FIFO for events
 * scheduled at the current time.
 *
 * The heap holds small key entries (time, seq, slot) so sift operations touch 24-byte records instead of
 * chasing pointers; each record remembers its heap position so cancel is O(log n). Records live in one
 * array grown by doubling and recycled through a free list threaded through `next_free`.
 *
 * A third of the models' events are scheduled at the current time (a handler kicking the next stage). Those
 * skip the heap: they go to a FIFO and run after every heap entry of the same time. That is exactly the
 * (time, seq) order, because a heap entry due now was scheduled before the clock reached now and so has a
 * smaller sequence number than anything scheduled at now. A cancelled FIFO entry stays in the ring and is
 * skipped when reached (its record's generation has moved on); the ring empties before the clock moves.
 *
 * Most handlers schedule their successor (the wire's next decision, the next beat). So the running event's
 * heap entry stays at the top while its handler runs (`top_spent`), and the first heap schedule it makes
 * replaces that entry and sifts down once: a pop and a push for the price of one sift, which usually stops at
 * once because a successor is due soon. The spent entry is the smallest key in the heap (due now, scheduled
 * before anything the handler adds), so nothing sifts above it; it is removed normally if nothing replaced it. */
#include "engine.h"

#include <stdarg.h>
#include <string.h>

#include "error.h"

/* seq is unique per engine, so no two keys are equal: the order is total and the heap's shape cannot decide
 * which of two same-time events runs first. */
typedef struct {
  SimTime time;
  uint64_t seq;
  uint32_t slot;
} HeapEntry;

/* A FIFO entry: the generation tells a live event from one cancelled (and its slot perhaps reused) since. */
typedef struct {
  uint32_t slot;
  uint32_t gen;
} NowEntry;

/* The generation is bumped whenever the slot is released (fired or cancelled), which invalidates every copy of
 * the old SimEventId at once without the engine having to know who holds one. */
typedef struct {
  SimEventFn fn;
  void *ctx;
  uint64_t arg;
  uint32_t gen;
  /* Position in heap while pending there, IN_FIFO while pending in the FIFO, NO_SLOT while free. */
  uint32_t heap_pos;
  uint32_t next_free;
} EventRec;

struct SimEngine {
  SimTime now;
  uint64_t seed;
  uint64_t next_seq; /* never reset, so ties keep scheduling order across run loops (64 bits never wrap) */
  uint64_t executed;
  gboolean stop;

  /* heap_cap always equals recs_cap (grow_records() grows both): each entry names a distinct record, so the heap
   * cannot fill up while a record is free and a push needs no bound check of its own. */
  HeapEntry *heap;
  uint32_t heap_len;
  uint32_t heap_cap;

  /* Records are addressed by slot index, never by a kept pointer: growing moves the array. */
  EventRec *recs;
  uint32_t recs_cap;
  uint32_t free_head;

  NowEntry *fifo; /* ring of events due at `now`, in scheduling order; capacity a power of two (index by mask) */
  uint32_t fifo_head, fifo_len, fifo_cap;
  uint32_t fifo_live; /* entries not cancelled */

  gboolean top_spent; /* heap[0] belongs to the event whose handler is running (see the top of this file) */
};

/* Sentinels at the top of the uint32 range: the record count stops doubling at 2^31 (grow_records()), so no real
 * slot or heap position can collide with them. NO_SLOT also ends the free list. */
#define NO_SLOT UINT32_MAX
#define IN_FIFO (UINT32_MAX - 1)

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
  e->recs[entry.slot].heap_pos = pos;
}

/* Both sifts carry the moving entry in a local and shift the others into the hole: one write per level where a
 * swap would need three. */
static void
sift_up (SimEngine *e, uint32_t pos)
{
  HeapEntry entry = e->heap[pos];
  while (pos > 0) {
    uint32_t parent = (pos - 1) / 2;
    if (!entry_less (&entry, &e->heap[parent]))
      break;
    heap_place (e, pos, e->heap[parent]);
    pos = parent;
  }
  heap_place (e, pos, entry);
}

static void
sift_down (SimEngine *e, uint32_t pos)
{
  HeapEntry entry = e->heap[pos];
  uint32_t n = e->heap_len;
  for (;;) {
    uint32_t child = 2 * pos + 1;
    if (child >= n)
      break;
    if (child + 1 < n && entry_less (&e->heap[child + 1], &e->heap[child]))
      child++;
    if (!entry_less (&e->heap[child], &entry))
      break;
    heap_place (e, pos, e->heap[child]);
    pos = child;
  }
  heap_place (e, pos, entry);
}

/* Called only when the free list is empty. Doubling keeps growth to a few reallocations per run, after which no
 * event allocates (the engine.h contract). `cap <= old` catches the uint32 count wrapping past 2^31; it aborts
 * rather than carry on with a pool that silently shrank. */
static void
grow_records (SimEngine *e)
{
  uint32_t old = e->recs_cap;
  uint32_t cap = old ? old * 2 : 256;
  if (cap <= old)
    g_error ("event pool exhausted at %u records", old);
  e->recs = g_renew (EventRec, e->recs, cap);
  e->heap = g_renew (HeapEntry, e->heap, cap);
  e->heap_cap = cap;
  /* Thread the new records onto the free list in ascending order so slot reuse is deterministic. Generations
   * start at 1 so that a zero-filled SimEventId (a g_new0'd model field) never names a live event. */
  for (uint32_t i = old; i < cap; i++) {
    e->recs[i] = (EventRec) { .gen = 1, .heap_pos = NO_SLOT, .next_free = i + 1 < cap ? i + 1 : e->free_head };
  }
  e->free_head = old;
  e->recs_cap = cap;
}

/* The engine draws no random numbers itself: it keeps the run seed only to derive per-component streams
 * (sim_rand_new()), so the order in which components are created cannot shift anyone's draws. */
SimEngine *
sim_engine_new (uint64_t seed)
{
  SimEngine *e = g_new0 (SimEngine, 1);
  e->seed = seed;
  e->free_head = NO_SLOT;
  grow_records (e);
  return e;
}

void
sim_engine_free (SimEngine *engine)
{
  if (!engine)
    return;
  g_free (engine->heap);
  g_free (engine->recs);
  g_free (engine->fifo);
  g_free (engine);
}

SimTime
sim_now (const SimEngine *engine)
{
  return engine->now;
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

SimEventId
sim_schedule_at (SimEngine *e, SimTime at, SimEventFn fn, void *ctx, uint64_t arg)
{
  /* Always checked, NDEBUG or not: one comparison, and an event in the past would silently reorder time. */
  if (G_UNLIKELY (at < e->now))
    ps_invariant_failed (__FILE__, __LINE__, "event scheduled in the past: %" G_GUINT64_FORMAT " ps < now %"
                         G_GUINT64_FORMAT " ps", at, e->now);
  if (e->free_head == NO_SLOT)
    grow_records (e);
  uint32_t slot = e->free_head;
  EventRec *r = &e->recs[slot];
  e->free_head = r->next_free;
  r->fn = fn;
  r->ctx = ctx;
  r->arg = arg;
  /* The sequence number advances for FIFO entries too, so heap ties keep meaning scheduling order. */
  uint64_t seq = e->next_seq++;
  if (at == e->now) {
    if (e->fifo_len == e->fifo_cap)
      fifo_grow (e);
    e->fifo[(e->fifo_head + e->fifo_len++) & (e->fifo_cap - 1)] = (NowEntry) { slot, r->gen };
    e->fifo_live++;
    r->heap_pos = IN_FIFO;
    return (SimEventId) { slot, r->gen };
  }
  /* A handler's first heap schedule takes over the spent root (see the top of this file); there is only one
   * spent entry, so later schedules from the same handler push normally. */
  if (e->top_spent) {
    e->top_spent = FALSE;
    e->heap[0] = (HeapEntry) { at, seq, slot };
    sift_down (e, 0);
    return (SimEventId) { slot, r->gen };
  }
  uint32_t pos = e->heap_len++;
  e->heap[pos] = (HeapEntry) { at, seq, slot };
  r->heap_pos = pos;
  sift_up (e, pos);
  return (SimEventId) { slot, r->gen };
}

/* The overflow is checked here, not left to sim_schedule_at(): the wrapped sum would be reported as a time in
 * the past, which hides that the delay itself was absurd. */
SimEventId
sim_schedule_in (SimEngine *e, SimTime delay, SimEventFn fn, void *ctx, uint64_t arg)
{
  if (G_UNLIKELY (delay > SIM_TIME_MAX - e->now))
    ps_invariant_failed (__FILE__, __LINE__, "event delay of %" G_GUINT64_FORMAT " ps overflows simulated time",
                         delay);
  return sim_schedule_at (e, e->now + delay, fn, ctx, arg);
}

/* LIFO reuse: the slot freed last is handed out next, which keeps the records a run touches few and cached. */
static void
release_slot (SimEngine *e, uint32_t slot)
{
  EventRec *r = &e->recs[slot];
  r->gen++;
  r->heap_pos = NO_SLOT;
  r->next_free = e->free_head;
  e->free_head = slot;
}

/* Remove the heap entry at pos, keeping the heap property. The last entry fills the hole and may have come from
 * another subtree, so it can need to move up as well as down. */
static void
heap_remove (SimEngine *e, uint32_t pos)
{
  uint32_t last = --e->heap_len;
  if (pos == last)
    return;
  HeapEntry moved = e->heap[last];
  heap_place (e, pos, moved);
  if (pos > 0 && entry_less (&moved, &e->heap[(pos - 1) / 2]))
    sift_up (e, pos);
  else
    sift_down (e, pos);
}

/* The bound check comes first so SIM_EVENT_NONE (slot UINT32_MAX) is simply not pending, never an out-of-range
 * read; a fired or cancelled event fails on the generation, and a free record is never pending whatever its
 * generation. */
gboolean
sim_event_pending (const SimEngine *e, SimEventId id)
{
  return id.slot < e->recs_cap && e->recs[id.slot].gen == id.gen && e->recs[id.slot].heap_pos != NO_SLOT;
}

gboolean
sim_cancel (SimEngine *e, SimEventId id)
{
  if (!sim_event_pending (e, id))
    return FALSE;
  uint32_t pos = e->recs[id.slot].heap_pos;
  /* A ring cannot drop an entry from its middle: a FIFO entry stays where it is and is skipped when reached,
   * recognised by the generation that release_slot() is about to bump. Only the live count changes now. */
  if (pos == IN_FIFO)
    e->fifo_live--;
  else
    heap_remove (e, pos);
  release_slot (e, id.slot);
  return TRUE;
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
    /* Heap entries due now precede the FIFO (see the top of this file); otherwise the FIFO, if live, is next. */
    if (e->fifo_live > 0 && !(e->heap_len > 0 && e->heap[0].time == e->now)) {
      NowEntry ne;
      /* fifo_live > 0 means a live entry lies ahead, so skipping cancelled ones always terminates. */
      do {
        ne = e->fifo[e->fifo_head];
        e->fifo_head = (e->fifo_head + 1) & (e->fifo_cap - 1);
        e->fifo_len--;
      } while (e->recs[ne.slot].gen != ne.gen);
      at = e->now;
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
      if (e->heap_len == 0)
        break;
      HeapEntry top = e->heap[0];
      if (top.time > limit)
        break;
      /* Not popped: the handler's first heap schedule reuses the entry, else it is removed after the handler. */
      e->top_spent = TRUE;
      slot = top.slot;
      at = top.time;
    }
    EventRec *r = &e->recs[slot];
    SimEventFn fn = r->fn;
    void *ctx = r->ctx;
    uint64_t arg = r->arg;
    /* Free before calling so the handler can reuse the slot when it reschedules itself. fn, ctx and arg were
     * copied out first: that reuse overwrites the record, and a growth of the pool would leave `r` dangling. */
    release_slot (e, slot);
    e->now = at;
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
  return e->heap_len - (e->top_spent ? 1 : 0) + e->fifo_live;
}

SimTime
sim_next_time (const SimEngine *e)
{
  if (e->fifo_live > 0)
    return e->now;
  if (e->top_spent) {
    /* The spent top is not pending; the smallest pending key is one of its children. */
    SimTime t = SIM_TIME_MAX;
    for (uint32_t c = 1; c <= 2 && c < e->heap_len; c++)
      t = MIN (t, e->heap[c].time);
    return t;
  }
  return e->heap_len ? e->heap[0].time : SIM_TIME_MAX;
}

uint64_t
sim_events_executed (const SimEngine *e)
{
  return e->executed;
}

size_t
sim_event_capacity (const SimEngine *e)
{
  return e->recs_cap;
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

/* The models' view of error.h's exit: formatted here so that models include the engine alone. */
void
sim_invariant_failed (const char *file, int line, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  ps_invariant_failed (file, line, "%s", msg);
}
