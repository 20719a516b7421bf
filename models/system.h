/* system.h — the AN-456 benchmark: the driver software that programs endpoints' chaining DMAs and times their
 * transfers, on a fabric (fabric.h); and the system every config describes, the smallest fabric: one root
 * complex, one link, one endpoint with the DMA.
 *
 * Contract:
 * - system_run() builds a fresh fabric from plain parameter structs (root complex "host" with one root port, link,
 *   endpoint "endpoint" with its datapath and DMA, BAR0 256 MB as AN-456's), runs `iterations` transfers of
 *   `transfer_bytes` in the given mode and tears everything down: runs never influence each other and the same
 *   params + seed give the same result.
 * - system_run_fabric() runs the same benchmark on a fabric the caller built and enumerated: one workload per
 *   endpoint (SystemWorkload), all programmed in each iteration (workload by workload, in the order given) and
 *   all waited for before the next; each workload's figures are its own, as below, over its own link. A
 *   workload's buffers are in host memory or, peer-to-peer, in another endpoint's BAR, whose memory target
 *   completes the DMA's reads and sinks its writes; descriptor tables, EPLAST and MSIs stay in host memory.
 *   Software gives workload k's engines MSI data from 2 x (channels of the workloads before it) on, and one
 *   descriptor table each, so every engine's table, status word and message is its own.
 * - Per iteration the host software writes the descriptor tables into host memory (untimed: done before the
 *   run starts, as the published application does outside its measurement), then programs each engine with four
 *   PIO register writes (write engine first in simultaneous mode), and waits for each engine's MSI (or polls its
 *   EPLAST). Throughput per engine per iteration = bytes / counter time (dma_chain.h); the result is the mean over
 *   iterations, in MB/s = 10^6 B/s, as AN-456's application computes it.
 * - With dma.channels = N > 1 every channel's engines are programmed (channel by channel) and each moves
 *   transfer_bytes; a direction's figure per iteration is N x transfer_bytes over the span from its first counter
 *   start to its last counter stop. With software_timed the span is the driver's instead (see SystemParams).
 * - Link usage is measured over the same windows as the figures: every iteration's counter window, from the
 *   first counter start to the last counter stop (in simultaneous mode the union of both engines' windows),
 *   each weighted by its length. The window opens when the engine is started (with DMA_COUNTER_AT_HOST the
 *   counter itself starts earlier, when the start write left the host).
 * - Before returning a figure the run checks every invariant; a broken one is an error (SYSTEM_ERROR_INVARIANT,
 *   or the component's own domain's invariant code) and no figure is returned. The invariants include data
 *   integrity: every DW carries a pattern of its address (pattern.h) and the checksums the host, each memory
 *   target and each endpoint fold from what they received must equal those of the ranges the descriptors asked
 *   for, so a completion dropped, duplicated or sent to the wrong address shows up even when the byte counts
 *   happen to agree.
 * - Deadlock watchdog: when watchdog_ps of simulated time pass with an engine still owed to software and no TLP
 *   delivered anywhere, the run stops with SYSTEM_ERROR_DEADLOCK naming what each component waits for (credits of
 *   which type, tags, replay buffer, queued TLPs). The bound is stretched by the longest quiet stretch the host
 *   parameters allow (latencies, polling, rates), so a slow but legal config never trips it. A run that keeps
 *   delivering but never finishes stops at a generous time budget instead.
 * - Host memory layout (page-aligned): descriptor tables below 4 GB; data buffers above 4 GB when dma.addr64;
 *   BAR0 32-bit non-prefetchable. Descriptors cover at most dma.desc_max_bytes each.
 * - Why (why.h): each workload's stalls, verdicts and latencies over the same windows as link usage, in
 *   SystemResult.why; measured in every run, at no cost in events (the figures are those of a run without it).
 * - Tracing: with a trace (SystemParams.trace, SystemDriver.trace) the run declares every link ("linkN", in
 *   fabric order) and every workload's DMA ("ENDPOINT.dma"), starts the trace and writes to it as it goes; the
 *   caller closes it. A traced run schedules exactly the events of an untraced one.
 */
#pragma once

#include "models/endpoint.h"
#include "models/host.h"
#include "models/why.h"

typedef enum { SYSTEM_READ, SYSTEM_WRITE, SYSTEM_SIMULTANEOUS } SystemMode;

typedef struct {
  LinkParams link;
  HostParams host;
  AppParams app;
  DmaParams dma;
  uint64_t transfer_bytes; /* per transfer per engine (AN-456: 102,400) */
  uint32_t iterations; /* transfers averaged (AN-456: 20) */
  /* FALSE: each transfer is timed by the engine's counter (dma_chain.h), no software inside. TRUE: by the driver,
   * from the moment software decides to start it (before host.pio_latency_ns) to the moment its handler has
   * seen the end (after host.msi_latency_ns, or at the poll that sees EPLAST): the per-transfer interrupt and
   * context switch of a driver measurement (published-calibration.md §2.2 b). */
  gboolean software_timed;
  SimTime watchdog_ps; /* deadlock watchdog (see above); 0 = SYSTEM_WATCHDOG_DEFAULT_PS */
  /* Test hooks: faults injected into one run so tests can watch the checks catch them. Zero in real runs. */
  HostFault host_fault;
  uint64_t host_fault_at; /* 0-based index of the completion it hits */
  LinkFault link_fault;
  LinkDir link_fault_dir;
  uint64_t link_fault_at; /* 0-based index of the TLP or UpdateFC it hits */
  SimTrace *trace; /* opened, not started; NULL = no trace */
} SystemParams;

#define SYSTEM_WATCHDOG_DEFAULT_PS (10 * SIM_MS)
#define SYSTEM_PEAK_WINDOW_CYCLES 142u /* Intel's Signal Tap window (published-calibration.md §2.1) */

typedef struct {
  double read_mbps, write_mbps; /* mean over iterations; 0 for an engine the mode does not run */
  double read_counter_ns, write_counter_ns; /* mean counter time per transfer */
  /* Write bytes / (write counter time minus the transmit-interface cycles spent on read requests (MRd beats) and
   * on engine turnarounds (arb_switch_cycles) inside that window), mean over iterations: the write figure with
   * the read-request cycles not counted, as Intel reports for its Avalon-MM DMA (published-calibration.md §2.1).
   * A what-if figure of the interface, not a rate the wire carried. 0 when the mode runs no write engine. */
  double write_mbps_excluding_read_requests;
  /* Simultaneous mode, two or more iterations: the interface's steady state as a logic analyser sees it in a
   * SYSTEM_PEAK_WINDOW_CYCLES window (published-calibration.md §2.1's Signal Tap capture), placed in the second
   * transfer at half the first transfer's write counter time from its start, away from both ends: time carrying
   * write data (MWr payload beats) / the window, the same / (window - read-request time: MRd beats and their
   * turnarounds), and time carrying completion data / the window, each x width x clock. peak_valid is FALSE
   * (and the figures 0) in other modes and for a single transfer. */
  gboolean peak_valid;
  double peak_write_mbps, peak_write_mbps_excluding_read_requests, peak_read_mbps;
  LinkUsage upstream, downstream; /* over every iteration's counter window (see above) */
  LinkCounters upstream_counters, downstream_counters; /* the same windows, summed */
  double usage_window_ns; /* mean length of those windows */
  uint32_t usage_windows; /* how many: one per iteration (two when one engine's counter stops before the other's
                           * starts) */
  LinkErrors errors[2]; /* by LinkDir, whole run (all iterations) */
  uint64_t events; /* engine events executed, settle phase included */
  SimTime sim_time_ps; /* when the last iteration's software saw its end */
  HostCounters host;
  DmaCounters dma;
  size_t tlp_pool_capacity; /* TLP structs ever allocated: the working set */
  WhyResult why; /* over the same windows as the link usage */
} SystemResult;

/* Parameters a model refuses come back in that model's domain with its _PARAM code (LINK_ERROR_PARAM, …), those
 * only the system can judge (tags the link cannot carry, a transfer the memory map cannot hold) as
 * SYSTEM_ERROR_PARAM. */
#define SYSTEM_ERROR (system_error_quark ())
GQuark system_error_quark (void);
typedef enum { SYSTEM_ERROR_PARAM, SYSTEM_ERROR_INVARIANT, SYSTEM_ERROR_DEADLOCK } SystemError;

gboolean system_params_check (const SystemParams *p, GError **error);
gboolean system_run (const SystemParams *p, SystemMode mode, uint64_t seed, SystemResult *out, GError **error);
const char *system_mode_name (SystemMode mode);

/* One endpoint's part of a benchmark on a fabric. */
typedef struct {
  Endpoint *endpoint; /* with a chaining DMA */
  SystemMode mode;
  uint64_t transfer_bytes; /* per transfer per engine */
  /* Where the data buffers are: NULL, host memory; else the memory target behind BAR `peer_bar` of this endpoint
   * (peer-to-peer), whose space is shared out among the workloads that name it. */
  Endpoint *peer;
  guint peer_bar;
} SystemWorkload;

/* What system_run_fabric() takes besides the fabric: the driver's side of SystemParams. */
typedef struct {
  uint32_t iterations;
  gboolean software_timed;
  SimTime watchdog_ps;
  SimTrace *trace; /* opened, not started; NULL = no trace */
} SystemDriver;

/* Runs the workloads on `f` (enumerated, not yet run; the caller frees it), `host` its root complex; fills out[k]
 * for workload k. Every parameter check of system_params_check() applies per workload, against the endpoint's link.
 * The run's checks cover the whole fabric: every component's and link's invariants, and bytes and checksums per
 * workload and per memory (host, each memory target). */
gboolean system_run_fabric (Fabric *f, Host *host, const SystemWorkload *w, guint n, const SystemDriver *d,
  SystemResult *out, GError **error);
