/* host_impl.h — the root complex's private state and the helpers host.c uses before it defines them (root ports,
 * routing, the posted-write sink, the CPU's path, the IOMMU and the joins to its completer, models/txn/).
 *
 * Contract: nothing but models/devices/host.c and host_cpu.c include this; the rest of pciesim sees host.h only.
 * It is a header of its own so that the state's commentary does not push host.c past the size bound
 * (test-layering.c).
 */
#pragma once

#include "models/base/pattern.h"
#include "models/devices/host.h"
#include "models/txn/completer.h"
#include "models/txn/tags.h"

typedef struct {
  TlpFifo q[FC_CLASS_COUNT]; /* completions, PIO writes and forwarded TLPs, by flow-control class */
  gboolean tx_blocked; /* the link refused the head; its tx-ready callback (armed by the refusal) resumes us */
  StallClock stall; /* what the port waits for when it has nothing to send (host_stall()) */
} RootPort;

typedef struct {
  uint64_t address;
  HostEventFn fn;
  void *ctx;
} Watch;

/* One IOTLB translation: its page, when it was last used (a tick of the IOTLB's clock) and when its walk ends. */
typedef struct {
  uint64_t page;
  uint64_t used;
  SimTime ready_ps;
} IotlbEntry;

struct Host {
  Component base; /* first: the fabric's view (fabric.h) */
  SimEngine *engine;
  HostParams p;
  TlpPool *pool;
  RootPort *rp; /* by root port index (= fabric port index) */
  uint64_t tx_order; /* the production order of TLPs queued at root ports, in their hold_ps */
  gboolean peer_routing; /* more than one root port: requests may be for another port's window */

  /* Parameters in engine units, converted once. */
  SimTime write_latency_ps, msi_latency_ps, poll_ps;
  double drain_ps_per_byte;
  /* drain_ps() of the last payload size: a write stream repeats one size, and the libm rounding was a per-TLP
   * cost of the root complex. */
  uint32_t drain_memo_bytes;
  SimTime drain_memo_ps;
  PatternMemo cpl_sum_memo; /* the completions' checksums, mostly of one length (pattern.h) */

  /* Completer (completer.h): consumed MRds whose data is still to return; the read whose data is ready first
   * leaves first (or arrival order, cpl_in_order), one completion at a time through the return path. */
  TxnCompleter cpl;
  TlpFifo held; /* MRds left in the root port's receive buffer while the request queue is full */

  /* Sink: received MWr/MSI; stamp_ps = when each releases its buffer slot. */
  TlpFifo sink;
  SimTime sink_free; /* when memory has absorbed every posted byte received so far (drain is serial) */
  gboolean posted_since_read; /* a posted request came in after the last read (the next read is fenced) */
  uint64_t write_run_end; /* where the last MWr ended: the next continues its run if it starts there */
  SimTime write_partial_ps; /* HostParams.write_partial_block_ns */

  /* IOMMU: the IOTLB (iotlb_entries, an empty one has page UINT64_MAX and used 0, so it is the first replaced),
   * its use clock, and when each of the iommu_walks page walkers is free. */
  IotlbEntry *iotlb;
  uint64_t iotlb_clock;
  SimTime *walker_free, walk_ps, read_resume_ps, read_resume_group_ps;
  /* Last-level cache: the range it holds, and what a read outside it adds (host_memory_ps()). */
  uint64_t llc_lo, llc_hi;
  SimTime llc_miss_ps, llc_hit_ps;

  GArray *watch; /* Watch: status words software polls */
  HostEventFn msi_fn;
  void *msi_ctx;
  GArray *msi_routes; /* Watch: an MSI to its address goes to its handler (host_route_msi), else to msi_fn */
  HostIrqDelayFn irq_delay_fn;
  void *irq_delay_ctx;

  /* The CPU (cpu.h): its callbacks, and whether it waits for a root port to take a write. */
  HostCpuFns cpu;
  void *cpu_ctx;
  gboolean cpu_waiting;
  uint64_t cpu_unsent; /* CPU writes taken but not yet placed on a root port's wire */
  /* The posted-write queue (cpu_write_queue_tlps > 0): CPU TLPs inside the root complex in the order the CPU made
   * them, each until stamp_ps (its crossing of the chipset's path to the root port), then into the port's FIFO.
   * cpu_queued counts the writes among them and in the ports' FIFOs, not yet handed to a link. */
  TlpFifo cpu_fifo;
  uint32_t cpu_queued;
  gboolean cpu_event;
  SimTime cpu_path_ps;
  SimTime cpu_sent_end_ps; /* when the last placed one's last symbol leaves */

  /* Outstanding reads by requester (bus, function) and tag, for the tag-reuse check (tags.h): a row per function of
   * the most any device of the fabric has, on each bus, so a fabric of single-function devices keeps one per bus. A
   * bit per tag number up to 14-bit tags, since a fabric's read flows take tag ranges side by side (flow.h). */
  TxnTagSet tags;

  HostCounters c;
  /* Posted data taken in since the last addition to c.write_checksum: one contiguous range, a whole number of DWs
   * long (write_sum()). */
  uint64_t sum_from, sum_to;

  /* Test hook (host_inject_fault): which completion to tamper with, and one held back for a swap. */
  HostFault fault;
  uint64_t fault_at, cpl_index;
  Tlp *swapped;
};

/* Marks a CPU write's MWr (the cookie of the root complex's register writes holds a 32-bit value, host_pio_write). */
#define CPU_WRITE_COOKIE (UINT64_C (0x43505557) << 32)

static inline gboolean
rp_empty (const RootPort *rp)
{
  return !rp->q[FC_P].head && !rp->q[FC_NP].head && !rp->q[FC_CPL].head;
}

/* Queue `t` at root port `port`, in its flow-control class's FIFO; hold_ps is its place in the port's
 * production order (rp_pick()). */
static inline void
rp_push (Host *h, uint32_t port, Tlp *t)
{
  t->hold_ps = h->tx_order++;
  tlp_fifo_push (&h->rp[port].q[tlp_fc_class (t->kind)], t);
}

/* host.c: send from root port `port` while its link takes something; then the port's stall cause and the CPU. */
void host_tx_drain (Host *h, uint32_t port);
/* host.c: why root port `port` sends nothing now (stall.h), from its FIFOs and the completer's state. */
void host_stall (Host *h, uint32_t port);
/* host.c: the memory's share of a read's latency beyond read_latency_ns (a line outside the LLC: DRAM). */
SimTime host_memory_ps (const Host *h, const Tlp *t);
