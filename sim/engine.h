/* engine.h — the discrete-event core of pciesim.
 *
 * Contract:
 * - Simulated time is an unsigned 64-bit count of picoseconds (SimTime). There is no floating-point time
 *   anywhere in the engine: Gen5 symbol times are 250 ps, Gen6 125 ps, so nanoseconds would round.
 * - Events are one-shot callbacks. sim_schedule() stores (fn, ctx, arg) and returns an id that stays valid
 *   until the event fires or is cancelled; sim_cancel() on a stale id is a harmless no-op returning FALSE.
 * - Ordering is total and defined: by time, then by the order in which the events were scheduled. Two events
 *   at the same picosecond therefore run first-scheduled-first, whatever the heap does internally.
 * - Scheduling in the past (or beyond SIM_TIME_MAX) is a programming error: the engine clamps nothing and stops
 *   the process as an internal error (sim_invariant_failed(): one line on stderr, exit 70).
 * - Event records come from a free list that grows by doubling; after warm-up no event allocates.
 * - The engine knows nothing about PCIe and includes no model header. Models include this file.
 * - Each component draws randomness from its own GRand stream, seeded from the run seed and a stable component
 *   id, so adding a component never perturbs another's stream (same config + same seed = same bytes).
 */
#pragma once

#include <glib.h>
#include <stdint.h>

typedef uint64_t SimTime; /* picoseconds */

#define SIM_PS ((SimTime) 1)
#define SIM_NS ((SimTime) 1000)
#define SIM_US ((SimTime) 1000000)
#define SIM_MS ((SimTime) 1000000000)
#define SIM_TIME_MAX UINT64_MAX

typedef struct SimEngine SimEngine;
typedef void (*SimEventFn) (SimEngine *engine, void *ctx, uint64_t arg);

/* Opaque handle of a scheduled event; the generation defeats reuse of a recycled slot. */
typedef struct {
  uint32_t slot;
  uint32_t gen;
} SimEventId;

#define SIM_EVENT_NONE ((SimEventId) { UINT32_MAX, 0 })

SimEngine *sim_engine_new (uint64_t seed);
void sim_engine_free (SimEngine *engine);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimEngine, sim_engine_free)

uint64_t sim_seed (const SimEngine *engine);

/* Schedule fn(engine, ctx, arg) at absolute time `at` (>= now) or `delay` after now. */
SimEventId sim_schedule_at (SimEngine *engine, SimTime at, SimEventFn fn, void *ctx, uint64_t arg);
SimEventId sim_schedule_in (SimEngine *engine, SimTime delay, SimEventFn fn, void *ctx, uint64_t arg);
gboolean sim_cancel (SimEngine *engine, SimEventId id);

/* ---- the accessors a model calls several times per event ----
 * Inline, which needs the record and the engine's first fields here: out of line, the clock and the pending test
 * were a tenth of the engine's instructions per event, most of it the calls. Nothing else reads these structs. */

/* An event record. The generation is bumped whenever the slot is released (fired or cancelled), which invalidates
 * every copy of the old SimEventId at once without the engine having to know who holds one. time and seq are the
 * key of a calendar record (a heap entry carries its own copy). */
typedef struct {
  SimTime time;
  uint64_t seq;
  SimEventFn fn;
  void *ctx;
  uint64_t arg;
  uint32_t gen;
  /* Where it is pending (engine.c: a heap position, a calendar bucket, the FIFO); SIM_REC_FREE when free. */
  uint32_t where;
  /* Calendar: the bucket's ring, next and previous (the head's prev is the tail). Free: next is the free list. */
  uint32_t next, prev;
  /* To a cache line (56 bytes of fields): with many links pending, a calendar walk or a firing touches records
   * all over the array, and a record split over two lines costs two misses. */
  uint64_t pad;
} SimEventRec;

#define SIM_REC_FREE UINT32_MAX

/* The first member of every SimEngine (engine.c), so a SimEngine pointer is one to its head. */
typedef struct {
  SimTime now;
  SimEventRec *recs;
  uint32_t recs_cap;
} SimEngineHead;

static inline SimTime
sim_now (const SimEngine *engine)
{
  return ((const SimEngineHead *) (const void *) engine)->now;
}

/* The bound check comes first so SIM_EVENT_NONE (slot UINT32_MAX) is simply not pending, never an out-of-range
 * read; a fired or cancelled event fails on the generation, and a free record is never pending whatever its
 * generation. */
static inline gboolean
sim_event_pending (const SimEngine *engine, SimEventId id)
{
  const SimEngineHead *h = (const SimEngineHead *) (const void *) engine;
  return id.slot < h->recs_cap && h->recs[id.slot].gen == id.gen && h->recs[id.slot].where != SIM_REC_FREE;
}

/* Run loops. Each returns the number of events it executed. sim_run_until() executes every event with
 * time <= limit and leaves the clock at the last executed event (never beyond it). sim_stop() called from
 * inside a handler ends the current run loop after that handler returns. */
uint64_t sim_run (SimEngine *engine);
uint64_t sim_run_until (SimEngine *engine, SimTime limit);
void sim_stop (SimEngine *engine);
gboolean sim_stopped (const SimEngine *engine);

size_t sim_pending (const SimEngine *engine);
/* Time of the earliest pending event, or SIM_TIME_MAX when none. */
SimTime sim_next_time (const SimEngine *engine);
uint64_t sim_events_executed (const SimEngine *engine);
/* High-water mark of event records ever allocated (memory check for benchmarks and tests). */
size_t sim_event_capacity (const SimEngine *engine);

/* A new GRand for component `component_id`, independent of every other id. Caller frees it. */
GRand *sim_rand_new (const SimEngine *engine, uint32_t component_id);
/* The seed that sim_rand_new() uses; exposed so tests can check streams are distinct. */
uint64_t sim_component_seed (uint64_t run_seed, uint32_t component_id);

/* Continuous invariant checks on the models' hot paths (credit counters, sequence numbers, tags), compiled in
 * unless NDEBUG is defined. A violation is a model bug: it prints "pciesim: error: internal: MESSAGE (FILE:LINE)"
 * as the one line of stderr and exits 70 at once (sim_invariant_failed()), so no figure computed
 * from a broken state is ever printed. MESSAGE should carry the few numbers that show the broken state. The
 * engine offers it so that models need no header of sim/ but this one (design.md §2). */
G_GNUC_NORETURN void sim_invariant_failed (const char *file, int line, const char *fmt, ...) G_GNUC_PRINTF (3, 4);
/* Messages quote user text (keys, values, paths) that YAML lets contain newlines and other control characters;
 * printed raw they would break the one-line promise of every error. Takes ownership of msg and returns it with
 * the C0 controls and DEL spelled out C-style (\n, \x01; UTF-8 left alone), or msg itself when none is there. */
char *sim_one_line (char *msg);
#ifndef NDEBUG
#define SIM_INVARIANT(cond, ...)                                                                               \
  do {                                                                                                         \
    if (G_UNLIKELY (!(cond)))                                                                                  \
      sim_invariant_failed (__FILE__, __LINE__, __VA_ARGS__);                                                  \
  } while (0)
#else
#define SIM_INVARIANT(cond, ...) ((void) sizeof (cond))
#endif
