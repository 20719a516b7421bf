/* flow.h — flows of traffic across a fabric: who moves what (a source device writing to, or reading from, host
 * memory or another device's BAR), and the run that moves them all at once and measures each.
 *
 * Contract:
 * - A flow's source is a function of any component whose kind can make requests for it (ComponentKind.requests,
 *   fabric.h: an endpoint's), function 0 unless FlowSpec.function says otherwise: its requests carry that
 *   function's requester ID, and a function's read flows take tag ranges of its own (each function of a device has
 *   its own tags, spec §2.2.6.2); its requests go through the source's transmit side as one more client (an
 *   endpoint's application datapath, datapath.h, so the datapath's width, clock and arbitration apply). A source of
 *   a kind without that face is refused (MODEL_ERROR_PARAM). A write flow sends MWrs of up to
 *   the source link's Max_Payload_Size, a read flow MRds of up to max_read_request_bytes with at most `tags`
 *   outstanding; neither crosses a 4 KB boundary (split.h). Its completions come back through the source's receive
 *   interface (ComponentRequests.set_completions).
 * - The target is host memory (the root complex's completer and posted-write sink, host.h) or a BAR of another
 *   endpoint (its memory target, endpoint.h): peer-to-peer. Each flow has its own buffer there, laid out in flow
 *   order, 4 KB aligned: host memory from 4 GB up with 64-bit addresses (4-DW headers), else from 512 MB up to the
 *   MMIO window; a BAR from its base. Every iteration moves the same buffer again.
 * - Timing: a flow issues `iterations` x `bytes`, back to back, from start_ps on; with a rate cap, its TLP carrying
 *   byte b enters the transmit interface no earlier than its first TLP did + b / rate_mbps.
 * - Figures, per flow: MB/s = bytes moved / (from its first TLP entering the source's transmit interface to the
 *   last data delivered: a write's last MWr at the target, a read's last completion out of the source's receive
 *   interface). Latency: one way, from a request's entry into the source's transmit interface to its arrival at the
 *   target (host memory's receive; an endpoint's, after its receive interface): first_tlp for the flow's first, and
 *   mean, p50, p99 and max over all of them. A read flow's round trip (read_latency): from a request's entry into
 *   the source's transmit interface to its last completion out of the source's receive interface, per request;
 *   mean, p50, p99 and max as the one-way figures. first_tlp, mean and max are exact; p50 and p99 are nearest-rank
 *   percentiles read from a latency histogram (stall.h's LatHist: buckets under 0.8% wide, the bucket's middle
 *   clamped to [min, max]), so a flow's memory does not grow with the TLPs it sends.
 * - Link usage: every link's, over the run's window, from the earliest flow start to the last flow's end.
 * - Checks, as the DMA benchmark's (system.h): a watchdog (no TLP delivered anywhere for watchdog_ps while a
 *   started flow is unfinished: MODEL_ERROR_DEADLOCK, naming what each component waits for), every component's and
 *   link's end-of-run invariants, bytes and address-pattern checksums per memory and per reader, a completion in
 *   order per tag and never for a tag not outstanding, and the TLP pool empty.
 * - DMA mode (transfer_bytes > 0, the pcie-bench microbenchmarks, pcie-protocol.md §11): the buffer of `bytes`
 *   is a window, and the flow issues `iterations` DMAs of transfer_bytes each, at consecutive slots of the window
 *   (dma_stride_bytes each, transfer-sized by default; wrapping at its end) or, with `offsets` set, at slots drawn
 *   from that stream, each DMA dma_offset_bytes into its slot; at most
 *   `outstanding` DMAs are in flight (issued, not yet delivered whole) and a DMA's requests go out back to back;
 *   with dma_gap_ps, DMAs start (their first request enters the transmit interface) at least that far apart:
 *   a device's DMA engine that takes one command per so many cycles.
 *   A write flow's MWrs carry at most write_max_bytes and enter the transmit interface at least write_gap_ps
 *   apart, a DMA's first MWr write_switch_ps more (a device engine's write path); these paces and dma_gap_ps run
 *   in the engine's own time, so an issue the interface's clock edge delays does not delay the next. The
 *   engine's own time per DMA outside the PCIe core (taking the command, moving the data to or from its memory,
 *   signalling the end: dma_overhead_ps, dma_write_extra_ps more for a write, + dma_ps_per_byte x bytes) comes
 *   after the DMA's last byte is delivered: its latency ends and its slot frees only then, while its tags were
 *   freed with its data.
 *   With write_first (a read flow), each DMA writes its slot and then reads it back. Latency is then per DMA: from
 *   its first request entering the transmit interface to its last byte delivered (a read's last completion out
 *   of the receive interface, a write's last MWr at the target); MB/s counts every byte moved, both ways.
 * - No allocation per TLP and nothing kept per TLP: requests come from the fabric's pool, latencies go to one
 *   fixed-size histogram per flow allocated at set-up, so a run's memory goes with its nodes, links and flows and the
 *   TLPs in flight, not with the bytes moved.
 */
#pragma once

#include "models/base/model_error.h"
#include "models/devices/host.h"
#include "models/fabric/run.h"
#include "models/observe/stall.h"

typedef enum { FLOW_WRITE, FLOW_READ } FlowOp;

typedef struct {
  const char *name;
  Component *source; /* of a kind with ComponentKind.requests */
  uint32_t function; /* the source device's function that makes the requests (its requester ID and tags), 0..7 */
  Component *target; /* NULL: host memory; else a BAR's memory: an endpoint's memory target, or any device with
                      * memory (fabric_memory) */
  guint bar; /* the target's BAR holding the buffer */
  FlowOp op;
  uint64_t bytes; /* per iteration, whole DWs */
  uint32_t iterations;
  SimTime start_ps;
  double rate_mbps; /* 0: as fast as the fabric lets it */
  uint32_t max_read_request_bytes; /* read: MRRS, 128..4096, a power of two */
  uint32_t tags; /* read: requests outstanding at once */
  gboolean addr64; /* host-memory buffers above 4 GB */
  /* DMA mode (see above); transfer_bytes 0 = off, the buffer moved whole each iteration. */
  uint32_t transfer_bytes; /* whole DWs, at most `bytes` */
  uint32_t outstanding; /* DMAs in flight, at least 1 */
  GRand *offsets; /* random slots from this stream (borrowed, e.g. FLOW_RAND_ID's); NULL = sequential */
  gboolean write_first; /* read flow: each DMA is a write of its slot, then a read of it */
  /* DMA mode, flows 0 and 1 of the run (pcie-bench's bw_rdwr): their DMAs start in turn, flow 0's DMA k once flow
   * 1's DMA k - 1 has started, flow 1's once flow 0's DMA k has (until the other has started all of its own). */
  gboolean alternate;
  SimTime dma_gap_ps; /* a DMA's first request no earlier than this after the previous DMA's; 0 = no limit */
  /* DMA mode: the window's slots are dma_stride_bytes apart (0: transfer_bytes), and each DMA starts
   * dma_offset_bytes into its slot; both whole DWs, offset + transfer_bytes within the stride. */
  uint32_t dma_stride_bytes, dma_offset_bytes;
  /* A host-memory read flow: the last llc_bytes of its buffer are what the host's LLC holds (host_set_llc());
   * 0 = the flow says nothing of the LLC. */
  uint64_t llc_bytes;
  /* A device's DMA engine (flow.h, DMA mode): its MWrs at most write_max_bytes (0: MPS) and write_gap_ps apart;
   * per DMA, its own time outside the PCIe core, dma_overhead_ps (twice with write_first) + dma_ps_per_byte x the
   * DMA's bytes. */
  uint32_t write_max_bytes;
  /* The device-side bytes before a DMA's first byte in its engine's first write piece (its offset inside the
   * engine's memory word, whole DWs): that piece carries this much less than write_max_bytes. */
  uint32_t write_head_skew_bytes;
  /* write_switch_ps: more before a DMA's first MWr, after the last DMA's last (its engine turning to a new
   * command). */
  /* dma_write_extra_ps: a write DMA's (or write_first half's) own time beyond dma_overhead_ps. */
  SimTime write_gap_ps, write_switch_ps, dma_overhead_ps, dma_write_extra_ps;
  double dma_ps_per_byte;
} FlowSpec;

/* The random stream of flow k's offsets: sim_rand_new (engine, FLOW_RAND_ID (k)), one per flow (engine.h). */
#define FLOW_RAND_ID(k) (UINT32_C (0x464c0000) + (uint32_t) (k))

typedef struct {
  double mbps;
  double first_tlp_ns, mean_ns, p50_ns, p99_ns, max_ns; /* one-way latency (see above) */
  LatSummary read_latency; /* read: round trips (see above); count 0 for a write flow */
  uint64_t bytes, tlps; /* data moved, requests sent */
  SimTime start_ps, end_ps; /* the window of mbps */
} FlowResult;

/* One link's share of the run (see above). */
typedef struct {
  LinkUsage usage[2]; /* by LinkDir */
  LinkCounters counters[2];
  LinkErrors errors[2]; /* over the whole run, by LinkDir */
  double idle_ps[2][STALL_COUNT]; /* the link's idle time by cause over the window, by LinkDir (why.h) */
} FlowLinkResult;

typedef struct {
  uint64_t events;
  uint64_t tlps; /* TLPs delivered over links (fabric_tlps_delivered) */
  SimTime sim_time_ps; /* the last flow's end */
  SimTime window_start_ps, window_end_ps; /* of the link usage */
  size_t tlp_pool_capacity;
} FlowRunStats;

/* The run's domain (run.h): a flows run is a workload of the harness. */

/* Runs flows[0..n) on `f` (enumerated, not yet run; the caller frees it), `host` its root complex; fills out[k] for
 * flow k, links[l] for link l (fabric_n_links() entries) and *stats. watchdog_ps 0: 10 ms. Parameters the run
 * cannot use (a source without a link, a target BAR too small, tags beyond the link's) are MODEL_ERROR_PARAM. */
gboolean flows_run (Fabric *f, Host *host, const FlowSpec *flows, guint n, SimTime watchdog_ps, FlowResult *out,
  FlowLinkResult *links, FlowRunStats *stats, GError **error);
