/* trace.h — streaming trace writers: a value change dump (.vcd, IEEE 1364 §18, for GTKWave) or a Chrome/Perfetto
 * trace-event file (.json, for ui.perfetto.dev and chrome://tracing), written as the run goes. The vocabulary is
 * generic — tracks of slices, counters, flows — so this header knows nothing of PCIe; models/observe/pcie_trace.h declares the
 * PCIe signal sets on top of it (docs/traces.md is the user's view of both).
 *
 * Contract:
 * - Life: sim_trace_open() -> declarations (sim_trace_add_track/counter) -> sim_trace_start() -> events ->
 *   sim_trace_close() (or sim_trace_abort()). The format comes from the path's extension (.vcd or .json, any
 *   case); anything else is a usage error. The file is written under a temporary name beside PATH and renamed
 *   over PATH by a successful close, so a failed run never leaves a half-written trace; abort removes it.
 * - Objects. A track is a lane of non-overlapping slices, each in one of the track's states (state 0 is what the
 *   lane shows between slices, e.g. "idle") and carrying up to two integer attributes named at declaration (e.g.
 *   tag and length). A counter is an unsigned integer over time (credits, bytes, tags): never negative by type. A
 *   flow is an arrow between slices (a read request to its completions): a start, any steps, an end, matched by
 *   id, each at a time inside a slice of the track named (pass the slice's start time).
 *   Names are scope + name: scopes are dot-separated paths ("link0.down"); names and scope parts are [A-Za-z0-9_]
 *   (checked: a bad name is a program bug, exit 70).
 * - Formats. VCD: $timescale 1 ps; one $scope per scope part; a track is a `reg` signal of its state code (wide
 *   enough for its states) plus one `reg 32` per attribute (<track>_<attr>), a counter a `reg` of the declared
 *   bits; the state names are listed in a $comment per track; `$dumpvars` gives every value at the first time
 *   written (a counter not yet set is x: unknown, e.g. credits of a type advertised infinite); then `#T` lines, strictly increasing, each with the signals that changed (a change to the value
 *   already there is not written). A slice sets the state and attributes at its start and the state back to 0 at
 *   its end (the attributes keep their values). VCD has no flows: they are not written. JSON: {"traceEvents":
 *   [...]} with displayTimeUnit "ns"; process 1 "pciesim"; each track a thread (tid = 1, 2, … in declaration order)
 *   named "<scope>.<name>" by `M` events; slices are `X` events (name = state name, args = attributes) with ts and
 *   dur in microseconds printed to the picosecond (6 decimals, exact); counters are `C` events named
 *   "<scope>.<name>" with args {"value": V}; flows are `s`/`t`/`f` events (cat and name "flow", the `t` and `f`
 *   bound to their enclosing slice, "bp": "e").
 * - An open slice (sim_trace_begin(), then sim_trace_end()) is a slice whose end is not known when it starts (a
 *   DMA engine's phase): both calls come at their own times, so the VCD writes each change when it happens, and
 *   the JSON writes the slice when it ends. At most one per track, and no other slice on its track while it is
 *   open; sim_trace_close() ends one still open at the last time written.
 * - Times are SimTime picoseconds. A slice's start must not be before the end of the previous slice on its track
 *   (exit 70 otherwise). Events arrive in about the order of their times (models report as the run goes); JSON
 *   keeps every time as given, VCD cannot go back, so a change reported for a time earlier than one already
 *   written is written at the latest time (models stay within a symbol of the present, so this moves nothing
 *   visible). A track's changes reported ahead of the latest time (a slice or open slice starting, or an open
 *   slice ending, later: a CPU thread's own time runs ahead of the engine's) are held per track, in order, and
 *   written when time gets there, so they move no other signal; a track holds up to 8 (beyond, its first is
 *   written at once, moving the time there).
 * - Window [start, end) (SimTraceOptions; "--trace-window START_NS:END_NS"): events wholly outside are dropped;
 *   a slice that straddles an edge is clipped to it (so a flow inside the window still has its slice); at the
 *   window's start the values reached before it are written (VCD $dumpvars; JSON one `C` per counter already
 *   set, at the window's start); flows outside are dropped, and so are the steps and end of a flow whose start was.
 * - Size cap (max_bytes, 0 = none): the file never exceeds it. The writer keeps room for its ending; an event
 *   that would not fit stops the trace: the writer appends a marker (JSON: a global instant event "trace
 *   truncated at the size cap"; VCD: a $comment) and the ending, prints one line "pciesim: warning: …" on
 *   stderr, and ignores every later event, so the file is complete and valid from then on. A cap too small for
 *   the header and ending fails sim_trace_start() (usage error).
 * - Memory is bounded: a scratch record, stdio's 64 KiB buffer and per-signal state, whatever the trace length.
 *   Write errors (a full disk) are kept and reported by sim_trace_close() (exit 73); events after one are
 *   ignored.
 * - Cost when off: models hold a SimTrace * that is NULL when no trace was asked for, and call the inline
 *   sim_trace_slice/count/flow below, which test that pointer and nothing else.
 */
#pragma once

#include <glib.h>

#include "sim/engine.h"

/* The trace writer's errors. Messages are the text alone (no program name, no "error:"); the application decides
 * how to print them and maps the codes to its exit statuses (a bad option, a file that cannot be written, a
 * program bug such as a bad signal name). */
#define SIM_TRACE_ERROR (sim_trace_error_quark ())
GQuark sim_trace_error_quark (void);
typedef enum {
  SIM_TRACE_ERROR_USAGE, /* an option's text or value is wrong (extension, window, size cap) */
  SIM_TRACE_ERROR_IO, /* the file cannot be created or written */
} SimTraceError;

typedef struct SimTrace SimTrace;
typedef uint32_t SimTraceTrack;
typedef uint32_t SimTraceCounter;

typedef enum { SIM_TRACE_VCD, SIM_TRACE_JSON } SimTraceFormat;
typedef enum { SIM_TRACE_FLOW_START, SIM_TRACE_FLOW_STEP, SIM_TRACE_FLOW_END } SimTraceFlow;

#define SIM_TRACE_ATTRS 2
/* A cap for callers that want one by default: a trace of 4 million TLPs (1 GB moved in 256-byte writes). */
#define SIM_TRACE_DEFAULT_MAX_BYTES (UINT64_C (512) << 20)

typedef struct {
  SimTime window_start_ps; /* 0: from the start */
  SimTime window_end_ps; /* SIM_TIME_MAX: to the end */
  uint64_t max_bytes; /* 0: no cap */
} SimTraceOptions;

/* Usage errors (SIM_TRACE_ERROR_USAGE) name the option's text. */
gboolean sim_trace_format_from_path (const char *path, SimTraceFormat *format, GError **error);
/* "START_NS:END_NS" (either side may be empty: open), non-negative decimals, START < END. */
gboolean sim_trace_parse_window (const char *arg, SimTraceOptions *o, GError **error);

SimTrace *sim_trace_open (const char *path, const SimTraceOptions *o, GError **error);
SimTraceFormat sim_trace_format (const SimTrace *t);

/* `states`: n_states >= 1 names (state 0 shown between slices); `attrs`: SIM_TRACE_ATTRS names, NULL entries
 * (or a NULL array) for unused ones. The strings must outlive the trace (string literals, usually). */
SimTraceTrack sim_trace_add_track (SimTrace *t, const char *scope, const char *name, const char *const *states,
  guint n_states, const char *const *attrs);
/* bits: the VCD width, 1..64. */
SimTraceCounter sim_trace_add_counter (SimTrace *t, const char *scope, const char *name, guint bits);
/* Ends the declarations and writes the header. */
gboolean sim_trace_start (SimTrace *t, GError **error);

void sim_trace_slice_emit (SimTrace *t, SimTraceTrack track, SimTime start, SimTime dur, guint state,
  uint64_t attr0, uint64_t attr1);
void sim_trace_begin_emit (SimTrace *t, SimTraceTrack track, SimTime start, guint state, uint64_t attr0,
  uint64_t attr1);
void sim_trace_end_emit (SimTrace *t, SimTraceTrack track, SimTime end);
void sim_trace_count_emit (SimTrace *t, SimTraceCounter counter, SimTime at, uint64_t value);
void sim_trace_flow_emit (SimTrace *t, SimTraceFlow phase, uint64_t id, SimTraceTrack track, SimTime at);

/* TRUE once the size cap stopped the trace. */
gboolean sim_trace_truncated (const SimTrace *t);
/* Bytes in the file so far (the ending included once closed). */
uint64_t sim_trace_bytes (const SimTrace *t);

/* Finishes the file (pending slice ends up to the window's end, the ending), renames it over PATH and frees
 * the trace, whatever the result. */
gboolean sim_trace_close (SimTrace *t, GError **error);
/* Frees the trace and removes its temporary file: nothing is left at PATH. NULL is a no-op. */
void sim_trace_abort (SimTrace *t);

/* The calls models make: one pointer test when tracing is off. */
static inline void
sim_trace_slice (SimTrace *t, SimTraceTrack track, SimTime start, SimTime dur, guint state, uint64_t attr0,
  uint64_t attr1)
{
  if (G_UNLIKELY (t != NULL))
    sim_trace_slice_emit (t, track, start, dur, state, attr0, attr1);
}

static inline void
sim_trace_begin (SimTrace *t, SimTraceTrack track, SimTime start, guint state, uint64_t attr0, uint64_t attr1)
{
  if (G_UNLIKELY (t != NULL))
    sim_trace_begin_emit (t, track, start, state, attr0, attr1);
}

static inline void
sim_trace_end (SimTrace *t, SimTraceTrack track, SimTime end)
{
  if (G_UNLIKELY (t != NULL))
    sim_trace_end_emit (t, track, end);
}

static inline void
sim_trace_count (SimTrace *t, SimTraceCounter counter, SimTime at, uint64_t value)
{
  if (G_UNLIKELY (t != NULL))
    sim_trace_count_emit (t, counter, at, value);
}

static inline void
sim_trace_flow (SimTrace *t, SimTraceFlow phase, uint64_t id, SimTraceTrack track, SimTime at)
{
  if (G_UNLIKELY (t != NULL))
    sim_trace_flow_emit (t, phase, id, track, at);
}
