/* system.h — the AN-456 benchmark: the driver software that programs endpoints' chaining DMAs and times their
 * transfers, on a fabric (fabric.h), as programs of the host's CPU (cpu.h); the PIO benchmark of issue #14 (a core
 * writing or reading an endpoint's BAR memory); and the system every config describes, the smallest fabric: one
 * root complex, one link, one endpoint with the DMA.
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
 * - The driver is a program of the CPU (cpu.h), one thread, or with software_timed and more than one channel one
 *   thread per channel (thread c programs channel c of every workload, as a driver serving each channel from its
 *   own process does): DMA_START (the driver's work: SystemDriver.cpu's per-transfer and per-descriptor costs, then
 *   the register writes), WAIT for its engines' ends, BARRIER (threads only), LOOP over the iterations with
 *   host.iteration_gap_ns between them. Each iteration starts when every engine of the previous one has been
 *   heard of. Per iteration the host software writes the descriptor tables into host memory (untimed: done
 *   before the run starts, as the published application does outside its measurement), then programs each engine
 *   with four PIO register writes (write engine first in simultaneous mode), and waits for each engine's MSI (or
 *   polls its EPLAST). An MSI reaches its handler host.msi_latency_ns plus the CPU's interrupt and wake-up draws
 *   after its data drained. Throughput per engine per iteration = bytes / counter time (dma_chain.h); the result is the mean over
 *   iterations, in MB/s = 10^6 B/s, as AN-456's application computes it.
 * - With dma.channels = N > 1 every channel's engines are programmed (channel by channel) and each moves
 *   transfer_bytes; a direction's figure per iteration is N x transfer_bytes over the span from its first counter
 *   start to its last counter stop. With software_timed the span is the driver's instead (see SystemParams), from
 *   the first DMA_START of the iteration to the handler or poll that saw the direction's last end, and the
 *   per-transfer times are kept (SystemResult.transfer).
 * - PIO (SYSTEM_PIO_READ, SYSTEM_PIO_WRITE, system_run() only): the endpoint gets BAR1, a memory target of at
 *   least the transfer (a power of two, 4 KB or more), and one CPU thread runs per iteration MARK (start),
 *   COMPUTE (SystemPio.overhead_ns), STORE of transfer_bytes at BAR1 in stores of store_bytes (WC or UC) and FENCE,
 *   or LOAD of transfer_bytes in loads of load_bytes, then MARK (end), and LOOP; after the last, DRAIN and MARK.
 *   Each transfer is timed from its software start to its software end (the samples); the figure is every
 *   iteration's bytes over one window, the first start to the last end pushed on to when the last CPU write the
 *   root complex posted has left the root port (the DRAIN), so the window holds the wire time of every byte it
 *   counts. Link usage covers that window. The checks add: every write the CPU sent reached the memory target (bytes and
 *   pattern sums), every load got the data of its range.
 * - Link usage is measured over the same windows as the figures: every iteration's counter window, from the
 *   first counter start to the last counter stop (in simultaneous mode the union of both engines' windows),
 *   each weighted by its length. The window opens when the engine is started (with DMA_COUNTER_AT_HOST the
 *   counter itself starts earlier, when the start write left the host).
 * - Before returning a figure the run checks every invariant; a broken one is an error (MODEL_ERROR_INVARIANT,
 *   or the component's own domain's invariant code) and no figure is returned. The invariants include data
 *   integrity: every DW carries a pattern of its address (pattern.h) and the checksums the host, each memory
 *   target and each endpoint fold from what they received must equal those of the ranges the descriptors asked
 *   for, so a completion dropped, duplicated or sent to the wrong address shows up even when the byte counts
 *   happen to agree.
 * - Deadlock watchdog: when watchdog_ps of simulated time pass with an engine still owed to software and no TLP
 *   delivered anywhere, the run stops with MODEL_ERROR_DEADLOCK naming what each component waits for (credits of
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

#include "models/base/model_error.h"
#include "models/devices/cpu.h"
#include "models/devices/endpoint.h"
#include "models/devices/host.h"
#include "models/fabric/run.h"
#include "models/analysis/why.h"

typedef enum { SYSTEM_READ, SYSTEM_WRITE, SYSTEM_SIMULTANEOUS, SYSTEM_PIO_READ, SYSTEM_PIO_WRITE } SystemMode;

/* The PIO benchmark's program (see the contract). */
typedef struct {
  uint32_t store_bytes; /* PIO write: bytes per store, a power of two 1..32 (8: a 64-bit memcpy) */
  uint32_t load_bytes; /* PIO read: bytes per uncached load, a power of two 1..32 */
  gboolean write_uc; /* PIO write to BAR memory mapped uncached rather than write-combining */
  double overhead_ns; /* software work inside each timed transfer (timer reads, the call) */
} SystemPio;

typedef struct {
  LinkParams link;
  HostParams host;
  AppParams app;
  DmaParams dma;
  CpuParams cpu;
  SystemPio pio;
  uint32_t bar_read_latency_cycles; /* the endpoint's memory target: completion latency in application cycles */
  uint64_t transfer_bytes; /* per transfer per engine (AN-456: 102,400) */
  uint32_t iterations; /* transfers averaged (AN-456: 20) */
  /* FALSE: each transfer is timed by the engine's counter (dma_chain.h), no software inside. TRUE: by the driver,
   * from the moment software decides to start it (before host.pio_latency_ns) to the moment its handler has
   * seen the end (after host.msi_latency_ns, or at the poll that sees EPLAST): the per-transfer interrupt and
   * context switch of a driver measurement (published-calibration.md §2.2 b). */
  gboolean software_timed;
  SimTime watchdog_ps; /* deadlock watchdog (see above); 0 = RUN_WATCHDOG_DEFAULT_PS */
  /* Test hooks: faults injected into one run so tests can watch the checks catch them. Zero in real runs. */
  HostFault host_fault;
  uint64_t host_fault_at; /* 0-based index of the completion it hits */
  LinkFault link_fault;
  LinkDir link_fault_dir;
  uint64_t link_fault_at; /* 0-based index of the TLP or UpdateFC it hits */
  SimTrace *trace; /* opened, not started; NULL = no trace */
} SystemParams;

#define SYSTEM_PEAK_WINDOW_CYCLES 142u /* Intel's Signal Tap window (published-calibration.md §2.1) */

/* Per-transfer times of a software-timed figure: mean, and the 50th and 99th percentiles by nearest rank (the
 * sample of rank ceil(p n) in ascending order). valid is FALSE for a figure timed by the engine's counter. */
typedef struct {
  gboolean valid;
  double mean_ns, p50_ns, p99_ns;
} SystemTransferStats;

typedef struct {
  double read_mbps, write_mbps; /* mean over iterations (PIO modes: over their one window); 0 for an engine the
                                 * mode does not run */
  SystemTransferStats transfer[DMA_DIR_COUNT]; /* by DmaDir: write (C2H, PIO write), read (H2C, PIO read) */
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
                           * starts); one for the PIO modes, whose window holds every iteration */
  LinkErrors errors[2]; /* by LinkDir, whole run (all iterations) */
  uint64_t events; /* engine events executed, settle phase included */
  uint64_t tlps; /* TLPs delivered over the link, both directions, settle phase included (fabric.h) */
  SimTime sim_time_ps; /* when the last iteration's software saw its end */
  HostCounters host;
  DmaCounters dma;
  CpuCounters cpu;
  size_t tlp_pool_capacity; /* TLP structs ever allocated: the working set */
  WhyResult why; /* over the same windows as the link usage */
} SystemResult;

/* Parameters a model refuses come back in that model's domain with its _PARAM code (MODEL_ERROR_PARAM, …), those
 * only the system can judge (tags the link cannot carry, a transfer the memory map cannot hold) as
 * MODEL_ERROR_PARAM. The run's own findings are the harness's (run.h): the system's domain is the run's. */

gboolean system_params_check (const SystemParams *p, GError **error);
/* The checks system_run() makes for `mode` (the DMA's limits, or the PIO program's). */
gboolean system_mode_check (const SystemParams *p, SystemMode mode, GError **error);
/* The endpoint the benchmarks drive: the datapath and the chaining DMA of `p`, its memory target completing at the
 * link's RCB after bar_read_latency_cycles, BAR0 256 MB (AN-456's: the DMA's registers, then memory) and, in the
 * PIO modes, BAR1: the PIO memory, a power of two that holds the transfer (at least a page). */
void system_endpoint_params (const SystemParams *p, SystemMode mode, EndpointParams *ep);
/* The DMA's limits in the benchmark's memory map: a transfer of whole DWs its buffer and descriptor table hold, a
 * payload and tags the link carries (MODEL_ERROR_PARAM). */
gboolean system_transfer_check (const DmaParams *dma, const LinkParams *link, uint64_t transfer_bytes,
  GError **error);
/* The one-link fabric (onelink.c), enumerated: root complex "host" with one root port, endpoint "endpoint", the link
 * between them; NULL with the first model's parameter error. The caller frees it. */
Fabric *system_one_link (uint64_t seed, const HostParams *hp, const EndpointParams *ep, const LinkParams *lp,
  Host **host, Endpoint **endpoint, Link **link, GError **error);
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
  const CpuParams *cpu; /* the CPU the driver runs on; NULL: 8 WC buffers of 64 bytes, no costs, no random times */
} SystemDriver;

/* Runs the workloads on `f` (enumerated, not yet run; the caller frees it), `host` its root complex; fills out[k]
 * for workload k. Every parameter check of system_params_check() applies per workload, against the endpoint's link.
 * The run's checks cover the whole fabric: every component's and link's invariants, and bytes and checksums per
 * workload and per memory (host, each memory target). */
gboolean system_run_fabric (Fabric *f, Host *host, const SystemWorkload *w, guint n, const SystemDriver *d,
  SystemResult *out, GError **error);

/* Shared with the PIO benchmark (pio.c). The CPU a zero-filled CpuParams stands for (8 WC buffers of 64 bytes, no
 * costs); the longest stretch the host's parameters let a healthy run deliver nothing (for its largest payload and
 * read request) and the CPU's share of it (driver work for `descriptors`, a load's round trip, interrupt and
 * wake-up bounds); mean and nearest-rank percentiles of n per-transfer times (sorts them); usage sums as the
 * result's fractions and windows; the counts a run reports whether or not it passed; every link on a trace. */
CpuParams system_cpu_params (const CpuParams *c);
SimTime system_quiet_ps (const HostParams *h, uint32_t mps, uint32_t mrrs);
SimTime system_cpu_quiet_ps (const CpuParams *c, uint32_t descriptors);
SystemTransferStats system_transfer_stats (SimTime *v, uint32_t n);
void system_usage_result (SystemResult *out, const RunUsage *usage);
void system_run_counts (SystemResult *out, const RunStats *st, Link *link);
void system_trace_links (const Fabric *f, SimTrace *t);
