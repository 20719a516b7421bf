/* pcie_trace.h — the PCIe signal sets a traced run declares, and the calls models make to fill them, on top
 * of the generic writers of sim/trace.h. docs/traces.md shows users the same names and codes.
 *
 * Contract:
 * - Names and codes are an interface (waveform setups and scripts key on them): states and signals are only ever
 *   appended, never renumbered or renamed.
 * - A link direction, declared under a scope such as "link0.down" (root port -> endpoint) or "link0.up":
 *     wire              track: the state codes of TraceWire (0 idle, the TLP kinds, the DLLP kinds, SKP), one
 *                       slice per packet from its first to its last symbol on the wire, attributes tag and
 *                       length_bytes (TLP payload, or the MRd's requested length; 0 for DLLPs and SKP);
 *     credits_ph … credits_cpld
 *                       counters: credits the receiver has advertised that the transmitter has not used yet
 *                       (limit - consumed, fc.h); an infinite type is never set;
 *     replay_bytes      counter: bytes of TLPs in the replay buffer (sent, not yet acknowledged).
 * - A requester (a DMA engine's read side, the CPU): tags_outstanding, a counter of reads in flight.
 * - A DMA engine: phase, a track in the states of TraceDmaState with attributes descriptor (its index) and bytes,
 *   and fetch, a second track of the same states for its descriptor fetches, which overlap its transfer.
 *   Phases end when the next begins, so models write them as open slices (sim_trace_begin/end).
 * - The host's CPU (cpu.h), under "cpu": per thread "cpu.threadN" a track `phase` in the states of TraceCpuState
 *   (what the program does: compute for software work, store/load/fence/drain for PIO, setup and descriptors for
 *   a driver starting a DMA, wait for a driver waiting for an interrupt, poll for one polling a status word,
 *   barrier; idle between rounds), attribute `op` (the program's op index); and `irq`, one track for every
 *   interrupt, in the same states: interrupt from the MSI's data in memory to its handler running (the root
 *   complex's msi_latency_ns and the CPU's interrupt delivery), then wakeup until the waiting thread runs. The
 *   phases follow each thread's own time, which runs ahead of the engine's (the writer holds them, sim/trace.h);
 *   an interrupt that would start before the previous one ended is shown from that end.
 * - Buffer occupancies and anything else: sim_trace_add_counter() under the component's scope.
 * - Flows: trace_read_request() at the MRd's slice start, trace_read_completion() at each completion's slice
 *   start, `last` set on the completion that ends the request (its byte count equals its length, spec §2.2.9).
 *   The id is the caller's and must be unique among the reads in flight (a running count of requests is).
 * - Every call below is a pointer test and nothing else when the trace is NULL (tracing off).
 */
#pragma once

#include "models/proto/fc.h"
#include "sim/trace.h"

typedef enum {
  TRACE_WIRE_IDLE,
  TRACE_WIRE_MWR,
  TRACE_WIRE_MRD,
  TRACE_WIRE_CPLD,
  TRACE_WIRE_CPL,
  TRACE_WIRE_MSI,
  TRACE_WIRE_ACK,
  TRACE_WIRE_NAK,
  TRACE_WIRE_UPDATEFC_P,
  TRACE_WIRE_UPDATEFC_NP,
  TRACE_WIRE_UPDATEFC_CPL,
  TRACE_WIRE_SKP,
  TRACE_WIRE_COUNT
} TraceWire;

typedef enum {
  TRACE_DMA_IDLE,
  TRACE_DMA_DESCRIPTOR_FETCH,
  TRACE_DMA_TRANSFER,
  TRACE_DMA_STATUS_WRITE,
  TRACE_DMA_INTERRUPT,
  TRACE_DMA_STATE_COUNT
} TraceDmaState;

typedef enum {
  TRACE_CPU_IDLE,
  TRACE_CPU_COMPUTE,
  TRACE_CPU_STORE,
  TRACE_CPU_LOAD,
  TRACE_CPU_FENCE,
  TRACE_CPU_DRAIN,
  TRACE_CPU_SETUP,
  TRACE_CPU_DESCRIPTORS,
  TRACE_CPU_WAIT,
  TRACE_CPU_POLL,
  TRACE_CPU_BARRIER,
  TRACE_CPU_INTERRUPT,
  TRACE_CPU_WAKEUP,
  TRACE_CPU_STATE_COUNT
} TraceCpuState;

extern const char *const trace_wire_names[TRACE_WIRE_COUNT];
extern const char *const trace_cpu_state_names[TRACE_CPU_STATE_COUNT];
extern const char *const trace_dma_state_names[TRACE_DMA_STATE_COUNT];

typedef struct {
  SimTraceTrack wire;
  SimTraceCounter credits[FC_CLASS_COUNT][2]; /* [class][FC_HDR or FC_DATA] */
  SimTraceCounter replay_bytes;
} TraceLinkDir;

typedef struct {
  SimTraceTrack phase; /* transfer, status write, interrupt */
  SimTraceTrack fetch; /* descriptor fetches: a slice while any is in flight (they overlap the transfer) */
} TraceDma;

/* Declarations, between sim_trace_open() and sim_trace_start(); each does nothing when the trace is NULL. */
void trace_link_dir_declare (SimTrace *t, const char *scope, TraceLinkDir *d);
SimTraceCounter trace_requester_declare (SimTrace *t, const char *scope);
void trace_dma_declare (SimTrace *t, const char *scope, TraceDma *d);
/* A CPU track (a thread's phase, with the attribute `op`, or the interrupts, without) named `name` under `scope`. */
SimTraceTrack trace_cpu_declare (SimTrace *t, const char *scope, const char *name, gboolean op);

static inline void
trace_wire (SimTrace *t, const TraceLinkDir *d, TraceWire what, SimTime start, SimTime dur, uint32_t tag,
  uint32_t length_bytes)
{
  sim_trace_slice (t, d->wire, start, dur, what, tag, length_bytes);
}

static inline void
trace_credits (SimTrace *t, const TraceLinkDir *d, FcClass cls, FcPart part, SimTime at, uint64_t available)
{
  sim_trace_count (t, d->credits[cls][part], at, available);
}

static inline void
trace_replay_bytes (SimTrace *t, const TraceLinkDir *d, SimTime at, uint64_t bytes)
{
  sim_trace_count (t, d->replay_bytes, at, bytes);
}

static inline void
trace_tags (SimTrace *t, SimTraceCounter tags_outstanding, SimTime at, uint64_t n)
{
  sim_trace_count (t, tags_outstanding, at, n);
}

static inline void
trace_dma_phase (SimTrace *t, const TraceDma *d, TraceDmaState state, SimTime start, SimTime dur,
  uint32_t descriptor, uint32_t bytes)
{
  sim_trace_slice (t, d->phase, start, dur, state, descriptor, bytes);
}

static inline void
trace_read_request (SimTrace *t, const TraceLinkDir *d, uint64_t id, SimTime at)
{
  sim_trace_flow (t, SIM_TRACE_FLOW_START, id, d->wire, at);
}

static inline void
trace_read_completion (SimTrace *t, const TraceLinkDir *d, uint64_t id, SimTime at, gboolean last)
{
  sim_trace_flow (t, last ? SIM_TRACE_FLOW_END : SIM_TRACE_FLOW_STEP, id, d->wire, at);
}
