/* report.h — the report of one run in every format: a human table, CSV, Markdown and the JSON contract
 * (schema 1, docs/reference/design.md). Models fill a PsRunResult; nothing else prints a run's results. How each value is
 * written (numbers, cells, JSON syntax) is format.h's, shared with validate, sweep and the benchmarks.
 *
 * Contract:
 * - Rendering is a pure function of the result (plus `with_wall`: wall time is the only nondeterministic value,
 *   and it appears only in JSON `stats.wall_s`), so same config + same seed gives the same bytes.
 * - JSON keys of schema 1 are never renamed; new keys may be added.
 * - A published figure above the protocol limit is flagged in every format and excluded from error statistics.
 * - Published figures are compared only with a run of the system they measured: not with another workload, and
 *   not after a --set changed a key that changes what is simulated (ps_config_set_changes()). They are then
 *   shown as not comparable, with the reason, and never flagged against this run's protocol limit.
 * - A report says what was run: the seed, and (JSON, CSV comments) every config key with its value and origin;
 *   the table names the values of its header that nobody gave.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "app/config/config.h"
#include "app/base/format.h"
#include "app/config/topology.h"

typedef struct {
  double payload, tlp_overhead, dllp, ordered_sets, idle; /* fractions of the direction's time, sum 1 */
} PsUsage;

/* Link error counts of one direction (models/link/link.h LinkErrors, whole run). */
typedef struct {
  uint64_t tlp_errors, dllp_errors, naks, replays, replay_timeouts, retrains, replayed_tlps, replayed_bytes,
      flit_errors, framing_errors;
} PsLinkErrors;

/* Why a figure is what it is (models/analysis/why.h, docs/why.md): one transmitter's time, busy by category and idle by
 * cause (only the causes that held it idle at all, in the causes' order); with the busy shares they sum to 1. */
#define PS_MAX_BUSY 6
#define PS_MAX_CAUSES 32
#define PS_MAX_TRANSMITTERS 4
typedef struct {
  char name[48]; /* "link0.up", "endpoint.datapath" */
  guint n_busy, n_idle;
  const char *busy_name[PS_MAX_BUSY], *idle_name[PS_MAX_CAUSES];
  double busy[PS_MAX_BUSY], idle[PS_MAX_CAUSES];
} PsTransmitter;

/* The resource that bounds a figure (models/analysis/why.h, docs/why.md): its cause name (models/observe/stall.h's list), its share
 * of the figure's window, what it alone allows (NaN: no capacity of its own, or the link), the protocol limit, the
 * runner-up, the one-line verdict; and the window's split: the floor and every cause with a share (the causes'
 * order), which add up to 1, and a software-timed figure's driver time per transfer by phase. */
#define PS_SW_PHASES 5
typedef struct {
  bool valid;
  const char *cause, *next;
  double share, next_share, bound_mbps, link_mbps;
  double floor;
  guint n_path;
  const char *path_name[PS_MAX_CAUSES];
  double path[PS_MAX_CAUSES];
  bool has_software;
  const char *software_name[PS_SW_PHASES];
  double software_ns[PS_SW_PHASES];
  char text[480];
} PsVerdict;

typedef struct {
  bool valid;
  uint64_t count;
  double mean_ns, p50_ns, p99_ns, max_ns;
} PsLatency;
/* Per-transfer times of a figure timed by software (models/workloads/system.h SystemTransferStats). */
typedef struct {
  bool valid;
  double mean_ns, p50_ns, p99_ns;
} PsTransferTimes;

typedef struct {
  bool ran;
  double mbps; /* read, write, pio_read or pio_write mode */
  double read_mbps, write_mbps; /* simultaneous mode */
  /* Simultaneous mode, DMA workload: the write figure with the transmit interface's read-request cycles not
   * counted (models/workloads/system.h); 0 when not produced. */
  double write_mbps_excluding_read_requests;
  /* Simultaneous mode, DMA workload, two or more iterations: the interface's steady state over a Signal Tap-like
   * window (models/workloads/system.h); peak_valid FALSE when not produced. */
  bool peak_valid;
  double peak_write_mbps, peak_write_mbps_excluding_read_requests, peak_read_mbps;
  PsUsage upstream, downstream;
  /* The windows behind the figures, so a report can say what each covers (issue #12). A MB/s figure is bytes
   * over its window: the mean per transfer of the DMA counter's time (read and write figures separately), or
   * the stream's single window. Link usage covers usage_windows windows of usage_window_ns on average: the
   * same counter windows (simultaneous mode: first counter start to last stop), or the stream's window. */
  double read_window_ns, write_window_ns; /* 0 for a figure the mode does not produce */
  double usage_window_ns;
  uint32_t usage_windows;
  bool has_errors; /* link.ber > 0: JSON results.MODE.errors is written */
  PsLinkErrors errors_up, errors_down;
  double latency_p99_ns; /* stream workload: TLP latency, 99th percentile; NaN when not measured */
  /* Why (DMA workload): verdicts of the mode's figures, latencies (read: per data MRd, committed -> last
   * completion in; write: per posted write, committed -> delivered to the root complex), the first descriptor
   * fetch's mean per run (0: none), and every transmitter's time over the link-usage windows. */
  PsVerdict read_verdict, write_verdict;
  PsLatency read_latency, write_latency;
  double read_first_fetch_ns, write_first_fetch_ns;
  guint n_transmitters;
  PsTransmitter transmitters[PS_MAX_TRANSMITTERS];
  /* Software-timed figures (PIO modes, dma.descriptor_mode software): each transfer's time from software start to
   * software end, of the read and the write figure; valid FALSE for a figure timed by the engine's counter. */
  PsTransferTimes transfer_read, transfer_write;
  uint64_t events;
  uint64_t tlps; /* TLPs delivered over the link, both directions (not reported; scripts/bench's unit of work) */
  double sim_time_ns;
  unsigned uses; /* PS_USE_*: the mechanisms that worked in this run (not reported; --ranges reads it) */
} PsModeResult;

#define PS_FLOW_SHOWN_HOPS 16

/* A fabric's run (a config with a topology:, docs/fabrics.md), per flow and per link; names are the config's
 * (borrowed). A flow left out by fabric.active_flows has ran = false. Flow figures are models/workloads/flow.h's; link
 * usage covers the run's window (first flow start to last flow end), a the end nearer the root complex. */
typedef struct {
  bool ran;
  const char *name, *source, *target, *op;
  /* The source's function and its requester ID (bus << 8 | device << 3 | function) when the source is a
   * multi-function device; function -1 for a single-function one, whose reports show neither (as before). */
  int function;
  uint16_t requester_id;
  int64_t bytes, iterations;
  uint64_t delivered_bytes; /* what reached the target (writes) or came back (reads): bytes x iterations */
  double mbps, first_tlp_ns, mean_ns, p50_ns, p99_ns, max_ns;
  /* Why (docs/why.md): the flow's verdict, and the link directions its data crosses, in order (the first
   * PS_FLOW_SHOWN_HOPS; their stall split is PsLinkResult.idle). */
  PsVerdict verdict;
  guint n_hops;
  uint16_t hop_link[PS_FLOW_SHOWN_HOPS];
  bool hop_b_to_a[PS_FLOW_SHOWN_HOPS];
  /* A read flow's round trip per request: its entry into the source's transmit interface to its last completion
   * out of the source's receive interface (JSON flows[].read_latency_ns); valid = false for a write flow. */
  PsLatency read_latency;
} PsFlowResult;

typedef struct {
  const char *name, *a, *b;
  int64_t gen, lanes;
  PsUsage a_to_b, b_to_a;
  bool has_errors; /* the link's link.ber > 0: its error counts are reported */
  PsLinkErrors a_to_b_errors, b_to_a_errors; /* over the whole run */
  double idle[2][PS_MAX_CAUSES]; /* a_to_b, b_to_a: idle shares of the window by cause (PsFabricResult's names) */
} PsLinkResult;

typedef struct {
  bool ran;
  guint n_flows, n_links;
  PsFlowResult flows[PS_TOPOLOGY_MAX_FLOWS];
  PsLinkResult links[PS_TOPOLOGY_MAX_LINKS];
  guint n_causes;
  const char *cause_names[PS_MAX_CAUSES]; /* of PsLinkResult.idle */
  double window_ns;
  uint64_t events;
  uint64_t tlps; /* TLPs delivered over links, every link and direction (as PsModeResult.tlps) */
  double sim_time_ns;
} PsFabricResult;

/* A microbench workload's run (pcie-bench's figures, pcie-protocol.md §11): Gb/s (10^9 bit/s) of the bytes every
 * DMA moved over the run (a write then a read of lat_wrrd, the reads and writes of bw_rdwr, both counted) and the
 * per-DMA latency, from its first request entering the device's transmit interface to its last byte delivered
 * (models/workloads/flow.h, DMA mode). */
typedef struct {
  bool ran;
  const char *test; /* ps_microbench_test_words */
  int64_t transfer_bytes;
  double gbps;
  /* gbps split by direction over the same window (they add up to it): a read test's all read, a write test's all
   * write, bw_rdwr its read flow's and its write flow's bytes, lat_wrrd half each (every DMA writes its slot and
   * reads it back). */
  double read_gbps, write_gbps;
  PsLatency latency; /* over every DMA */
  PsUsage upstream, downstream; /* the link's, over the run */
  /* Why (docs/why.md): the data direction's verdict (bw_rdwr, lat_wrrd: the read's completions), and the
   * protocol limit of the test's TLPs in Gb/s. */
  PsVerdict verdict;
  double limit_gbps;
  uint64_t events;
  double sim_time_ns;
  unsigned uses; /* PS_USE_*, as PsModeResult's */
} PsMicrobenchResult;

/* A device's workload (app/run/workloads.h: one a node kind names, run on a topology without flows:): its results
 * as a list of named figures, which every format renders without knowing the workload. A figure is a value with
 * its unit, or a latency distribution (latency.valid: value is then its mean, in ns), with a verdict when the
 * workload gives one. */
typedef struct {
  const char *name; /* [a-z0-9_]: a JSON member, a CSV cell, a sweep's metric */
  const char *unit;
  double value;
  PsLatency latency;
  PsVerdict verdict;
} PsNamedFigure;

#define PS_MAX_NAMED_FIGURES 8

typedef struct {
  bool ran;
  const char *workload; /* its registry name, the key of its members under "results" */
  const char *node; /* the node it ran on */
  guint n;
  PsNamedFigure fig[PS_MAX_NAMED_FIGURES];
  PsUsage upstream, downstream; /* the node's link, over the figures' window */
  uint64_t events;
  double sim_time_ns;
} PsFiguresResult;

/* Mechanisms that read some keys only when they work, so a run in which one did no work read none of its keys
 * (ps_key_use() in builder.h says which keys; a run's `uses` which worked): the CPU's interrupt and wake-up
 * draws (cpu.interrupt.*, cpu.wakeup.*: one of each per interrupt), the host's polls (host.poll_interval_ns: a
 * write to a watched address), the IOMMU's translations (host.iommu.*), the microbench's cold cache
 * (host.cold_cache_latency_ns) and the root complex's completer (host.read_latency_ns and _ps_per_byte,
 * host.completion_overhead_ns, host.completion_fence_ns, host.completion_mbps, host.completion_group_tlps,
 * host.completion_bytes, host.read_queue_depth, host.completion_queue_tlps: an MRd that reached host memory).
 * The deadlock watchdog's quiet bound and the limited-by verdicts read some of these keys too, but neither moves a
 * figure: the bound only stops a run that delivers nothing. */
enum { PS_USE_IRQ = 1u << 0, PS_USE_POLL = 1u << 1, PS_USE_IOMMU = 1u << 2, PS_USE_COLD_CACHE = 1u << 3,
       PS_USE_HOST_READ = 1u << 4, PS_USE_NUMA = 1u << 5 /* host.numa.buffer_remote */ };

/* Indices into PsRunResult.modes. */
enum { PS_READ, PS_WRITE, PS_SIMULTANEOUS, PS_PIO_READ, PS_PIO_WRITE, PS_N_MODES };

/* --ranges' intervals and sensitivities (ranges.h). */
typedef struct PsRanges PsRanges;

typedef struct {
  const PsConfig *config;
  const char *model; /* what produced the figures, e.g. "chaining-dma" or "stream" */
  double theoretical_mbps;
  /* What the protocol allows each figure (models/link/link.h), with the header its data really travels with: posted
   * writes (write figures) carry the MWr header of their addresses, 4 DW with 64-bit ones; read data comes back
   * in CplDs, always 3 DW (read figures). The JSON keeps the name protocol_limit_mbps for the write limit, which
   * is what it always described: a saturating posted-write stream. */
  double protocol_limit_mbps;
  double protocol_limit_read_mbps;
  PsModeResult modes[PS_N_MODES];
  PsFabricResult fabric; /* a config with a topology: runs its flows instead of the modes */
  PsMicrobenchResult microbench; /* benchmark.workload microbench runs this instead of the modes */
  PsFiguresResult figures; /* a device's workload runs this instead of the modes */
  uint64_t seed;
  double wall_s;
  /* NULL but in a run with --ranges, whose JSON then gives each figure its range and sensitivity (ranges.h). */
  const PsRanges *ranges;
} PsRunResult;

/* Why the published figures of a result are not comparable ("config changed by --set link.lanes"), or NULL when
 * they are (or there are none). Owned by the caller. */
char *ps_result_not_comparable (const PsRunResult *r);

/* One comparable figure: simulated vs published. */
typedef struct {
  const char *label; /* "DMA read", … */
  const char *key; /* ps_figure_words (config.h): "read", "write", "simultaneous_read", "simultaneous_write",
                    * "peak_write", "peak_write_excluding_read_requests", "peak_read" */
  double simulated; /* NaN if the mode did not run */
  double published; /* NaN if not published */
  double error_pct; /* (simulated - published) / published * 100, NaN if either is missing or not comparable */
  double limit; /* the protocol limit of this figure: the read or the write one (PsRunResult) */
  bool above_limit; /* published figure exceeds the protocol limit: flagged, not counted */
  bool comparable; /* the published figure measured the system this run simulates (report.h's contract) */
  bool suspect; /* marked by published.suspect in the config: flagged with its reason, not counted */
  const char *suspect_reason; /* the config's published.suspect.reason (borrowed), NULL when not suspect */
} PsFigure;

/* The comparable figures: the four AN-456 figures, then the three steady-state interface figures of a logic
 * analyser's window (published-calibration.md §2.1), which are compared only where the config publishes them
 * (else their simulated value is NaN, so the AN-456 rows print as before), then the PIO read and write figures
 * (issue #14), shown when their mode ran and never published (their curves are held back). */
#define PS_N_FIGURES 9

/* The figures of a result, in table order. Returns the number filled (always PS_N_FIGURES). */
int ps_result_figures (const PsRunResult *r, PsFigure out[PS_N_FIGURES]);

void ps_report_render (GString *out, const PsRunResult *r, PsFormat format, gboolean with_wall);
