/* run.h — the run harness: what every workload on a fabric (the chaining-DMA driver, the PIO program, flows and
 * the microbenchmarks built on them, the stream) needs besides its own traffic, written once.
 *
 * A figure printed from a broken run looks exactly like a result, so a workload returns none before the harness
 * has checked the run: a watchdog for runs that stop moving, a time budget for runs that keep moving and never
 * end, every component's and link's end-of-run invariants, the workload's own byte counts and address-pattern
 * checksums per memory (the ledger), and every TLP back in the pool.
 *
 * Contract:
 * - A workload is a table of functions (RunWorkload) over its own state, in the manner of ComponentKind (fabric.h):
 *   start its traffic, say whether anything is owed (work started and not finished: quiet then is a stall), its
 *   longest legal quiet stretch and its time budget, where it stands and what it waits for (the deadlock message),
 *   its end-of-run checks (filling the memory ledger) and its results. It calls run_finished() when its last work
 *   ends; the run then stops.
 * - run_go(): start (the workload's first events), then a watchdog event every bound, bound = watchdog_ps (0:
 *   RUN_WATCHDOG_DEFAULT_PS) + the workload's quiet stretch. A tick that finds the fabric's progress count (plus
 *   the workload's own, e.g. a CPU's) unchanged while the workload owes something stops the run: MODEL_ERROR_DEADLOCK,
 *   "deadlock in WHERE, t = T us: HOW; waiting: WHAT", WHAT being what every component, link and the workload wait
 *   for. Quiet with nothing owed (between iterations, before a delayed start) is legal. Polled rather than re-armed
 *   on every delivery: re-arming would put a cancel and a schedule on the per-TLP hot path, while a tick costs one
 *   event per period; a stall is reported between one and two bounds after the last delivery.
 * - A finished run settles (200 us at a time, until the links are quiet, at most a simulated second: the last Acks
 *   and UpdateFCs) and is checked; a workload that asks to drain (the stream, whose figures are those of the drained
 *   run) has the watchdog stopped and the engine run dry instead, within the same simulated second. Then: the
 *   fabric's invariants, no event in the past, the workload's check, then its ledger (per memory: bytes and pattern
 *   sums of the completions it sent and of the writes it took in, against what the workload asked for, read through
 *   the component's memory hook, fabric.h), then the TLP pool empty. The workload's result() is called either way,
 *   with ok: figures only from a run that passed.
 * - Usage sums (RunUsage): link usage over measurement windows, each window's fractions weighted by its length, so
 *   the result is the share of all the windows' time; counters summed as they are.
 * - One error domain for what a run finds: MODEL_ERROR with PARAM (a parameter the workload cannot use), INVARIANT and
 *   DEADLOCK. The harness adds no event per TLP: its only events are the watchdog's ticks.
 */
#pragma once

#include "models/base/model_error.h"
#include "models/fabric/fabric.h"
#include "models/link/link.h"


#define RUN_WATCHDOG_DEFAULT_PS (10 * SIM_MS)

typedef struct RunCtx RunCtx;
typedef struct RunLedger RunLedger;

typedef struct {
  /* Schedules the workload's first events (or starts its program). */
  void (*start) (void *self, RunCtx *run);
  /* Work started and not finished: a quiet fabric now is a stall. */
  gboolean (*owed) (void *self);
  /* A sign of life beyond the fabric's components (a CPU's steps); NULL: none. */
  uint64_t (*progress) (void *self);
  /* The longest stretch in which a healthy run of this workload may deliver nothing beyond the configured bound. */
  SimTime (*quiet_ps) (void *self);
  /* The backstop for a run that keeps delivering but never ends: far beyond any legal run. */
  SimTime (*budget_ps) (void *self);
  /* Where the run stands ("the read run, iteration 3 of 20") and what the workload itself waits for (clauses led by
   * "; ", may be NULL), for the deadlock message. */
  void (*where) (void *self, GString *out);
  void (*describe_wait) (void *self, GString *out);
  /* End-of-run checks after the fabric's; fills the ledger with what each memory must have seen. May be NULL. */
  gboolean (*check) (void *self, RunLedger *ledger, GError **error);
  /* Figures from a run that passed (ok), the run's counts either way. */
  void (*result) (void *self, const RunCtx *run, gboolean ok);
  /* Once finished, run the engine dry rather than settle (see the contract). */
  gboolean drain;
} RunWorkload;

/* Runs `w` on `f` (enumerated; the workload set up on it) to its end and checks it (see the contract). */
gboolean run_go (Fabric *f, const RunWorkload *w, void *self, SimTime watchdog_ps, GError **error);
/* The workload's last work has ended: the run stops (and then settles). */
void run_finished (RunCtx *run);

/* The run's counts, for the workload's result: engine events (the settle included), of those the watchdog's own
 * ticks (so a workload can count only the model's), TLPs delivered over links, TLP structs ever allocated. */
typedef struct {
  uint64_t events, ticks, tlps;
  size_t tlp_pool_capacity;
} RunStats;
RunStats run_stats (const RunCtx *run);

/* The memory ledger: what each memory (a component with a memory hook) must have sent as completions and taken in
 * as writes, in bytes and pattern sums (pattern.h). want_bytes FALSE: only the sums are checked (a memory whose
 * byte totals the workload checks itself). */
typedef struct {
  const Component *c;
  gboolean want_bytes;
  uint64_t cpl_bytes, cpl_sum, mem_bytes, mem_sum;
} RunMemory;
/* The ledger's entry for `c`, added (zero) at the end when new: entries are checked in the order added. The pointer
 * stays valid for the check. */
RunMemory *run_ledger_at (RunLedger *ledger, const Component *c, gboolean want_bytes);
/* A mismatch of a pattern sum: MODEL_ERROR_INVARIANT naming where and what. Returns FALSE. */
gboolean run_integrity_error (GError **error, const char *where, const char *what, uint64_t got, uint64_t want);

/* Link usage over measurement windows (see the contract). */
typedef struct {
  LinkUsage sum[2]; /* by LinkDir, fractions x window length */
  LinkCounters counters[2];
  double ps; /* the windows' total length */
  uint32_t windows;
} RunUsage;
/* Adds a window of `win` ps of `link`'s usage since its last reset. */
void run_usage_add (RunUsage *u, Link *link, double win);
/* The sums as fractions of the windows' time (idle absorbing the rounding, so the five sum to 1), by LinkDir. */
void run_usage_result (const RunUsage *u, LinkUsage out[2]);
