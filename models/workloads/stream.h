/* stream.h — a saturating streaming endpoint on one link: the simplest workload that gives a throughput figure.
 *
 * Contract:
 * - Write mode: the device sends max-payload MWr TLPs upstream as fast as credits, the replay buffer and the
 *   transmit queue allow; the host consumes each at consumer_mbps (0 = at once) and frees its credits.
 * - Read mode: the device keeps up to `tags` MRd requests of max_read_request_bytes outstanding upstream; a
 *   simple host completer answers each after completer_latency_ps with CplDs of completion_bytes split at RCB
 *   boundaries (pcie-protocol.md §6), in address order. (The full host model is models/host.[ch].)
 * - Throughput is payload bytes over a window, in MB/s (10^6 B/s), and LinkUsage covers the same window:
 *   STREAM_WINDOW_TRANSFER runs from the source's start (t = 0, the first TLP offered) to the last delivery and
 *   counts every byte: the transfer's own figure, as a DMA counter times it, defined for any total from one DW up.
 *   STREAM_WINDOW_STEADY runs from the delivery that completes warmup_bytes to the last delivery: the steady
 *   state without the first TLP's latency, which needs deliveries after the warmup (an empty window gives 0).
 * - Its two ends are the components of a one-link fabric (fabric.h): the source is an endpoint whose requests carry
 *   its requester ID and tags no two outstanding requests share, the host a root complex of its own kind.
 * - Deterministic: no randomness is used; the seed only seeds the engine, for symmetry with other runs.
 * - It runs in the run harness (run.h): a stream that stops moving is a deadlock found by the harness's watchdog
 *   (watchdog_ps, as every workload's), located and worded by the harness; the drained run is checked by the
 *   harness (the link's invariants, so every TLP was acknowledged; every TLP back in the pool; the host memory's
 *   completions sent and writes taken in, in bytes and address-pattern sums, against the transfer).
 */
#pragma once

#include "models/base/model_error.h"
#include "models/link/link.h"

typedef enum { STREAM_WRITE, STREAM_READ } StreamMode;
typedef enum { STREAM_WINDOW_STEADY, STREAM_WINDOW_TRANSFER } StreamWindow;

typedef struct {
  LinkParams link; /* tx_queue_tlps 0 is replaced by STREAM_TX_QUEUE_TLPS (see stream.c) */
  StreamMode mode;
  uint64_t total_bytes; /* payload to move; 0 = 1,048,576 */
  StreamWindow window; /* what the figure measures (see above); the config workload uses TRANSFER */
  uint64_t warmup_bytes; /* STEADY: excluded from the measurement; 0 = total / 8 */
  gboolean addr64; /* 4-DW MWr/MRd headers (64-bit addresses) instead of 3-DW */
  double consumer_mbps; /* write mode: host sink rate in MB/s (fractions allowed); 0 = consumes on arrival */
  uint32_t max_read_request_bytes; /* read mode: MRRS; 0 = 512 (spec §7.5.3.4 default) */
  uint32_t tags; /* read mode: outstanding requests; 0 = 32 (5-bit tags) */
  uint32_t rcb_bytes; /* read mode: completer's read completion boundary; 0 = 64 (root complex, §6) */
  uint32_t completion_bytes; /* read mode: CplD payload size, a multiple of RCB; 0 = max payload */
  SimTime completer_latency_ps; /* read mode: MRd received -> first completion ready */
  /* Bytes each TLP moves: the MWr payload (write) or the read request (read); 0 = max payload (write) or
   * max_read_request_bytes (read). Small ones show per-TLP overheads, e.g. flit against non-flit framing. */
  uint32_t tlp_payload_bytes;
  SimTime watchdog_ps; /* the harness's deadlock watchdog (run.h); 0 = RUN_WATCHDOG_DEFAULT_PS */
  /* Tests: the source sends the MWr that starts at misplace_offset one DW past its address, a write the link and
   * the host take as well-formed, so only the ledger's pattern sums can catch it. */
  gboolean misplace;
  uint64_t misplace_offset;
  SimTrace *trace; /* opened, not started: the run declares its link ("link0", models/observe/pcie_trace.h) and starts it;
                    * NULL = no trace */
} StreamParams;

typedef struct {
  double mbps; /* payload MB/s over the measurement window */
  LinkErrors errors[2]; /* by LinkDir, whole run */
  /* 99th percentile (nearest rank) of the TLP latency in the window: write, an MWr from its hand-off to the link
   * to the host taking it; read, an MRd from its hand-off to its last completion's arrival. In ns; read from a
   * LatHist (stall.h: a bucket's middle, under 0.4% from the exact figure), so nothing grows with the transfer. */
  double latency_p99_ns;
  uint64_t payload_bytes; /* whole run */
  SimTime window_ps; /* measurement window */
  SimTime sim_time_ps; /* end of the drained run */
  uint64_t events; /* the model's: the harness's watchdog ticks left out */
  uint64_t tlps; /* TLPs delivered over the link, whole run (fabric_tlps_delivered) */
  LinkUsage usage[2]; /* by LinkDir, over the window */
  LinkCounters counters[2]; /* by LinkDir, over the window */
} StreamResult;


gboolean stream_run (const StreamParams *p, uint64_t seed, StreamResult *out, GError **error);
