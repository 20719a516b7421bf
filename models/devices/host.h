/* host.h — the root complex of a fabric: its root ports, system memory behind them, the benchmark's register
 * writes and interrupts, and the path to the CPU (cpu.h).
 *
 * Contract:
 * - A component of the fabric (fabric.h), role root complex, with one or more root ports. TLPs from a root port
 *   are routed as a root complex does (spec §2.2.4): a memory request whose address lies in another root port's
 *   window, and a completion whose requester ID lies below another root port, go out of that port (peer-to-peer,
 *   in arrival order per egress port, holding the ingress port's receive-buffer slot and credits until the egress
 *   link takes it); every other memory request is host memory's, and an MSI the interrupt controller's. A request
 *   for the root port's own subtree, or a completion nobody below asked for, is a model bug (exit 70).
 * - Completer. An MRd is taken out of the root port's receive buffer as soon as it arrives (its NP credit is
 *   freed then) unless read_queue_depth requests are already in the root complex, or its completions do not fit
 *   in the cpl_queue_tlps slots beside theirs; then it waits there, in arrival order, until one finishes (each
 *   completion sent frees a slot). With the IOMMU its translation starts when it is taken in. Its data is ready
 *   read_latency_ns + read_latency_per_byte_ps x length after it is taken in, or after the last posted write
 *   received before it has given back its slot if that is later (a read never passes a posted write, spec
 *   §2.4.1); requests overlap in that latency (memory-level parallelism) but their data leaves through one return
 *   path, the read whose data is ready first going first (completions_in_order: in arrival order), at
 *   cpl_rate_mbps plus cpl_overhead_ns per completion. Completions are cut by the completer
 *   (models/txn/completer.h: RCB/MPS rules).
 * - Posted-write sink. MWr/MSI data drains into memory at write_drain_mbps, one TLP after another; a TLP's
 *   receive-buffer slot, and so its P credits, come back write_latency_ns after its data has drained. With
 *   write_block_bytes set, writes are seen as runs (an MWr starting where the last one ended continues a run):
 *   an MWr that starts a run inside an aligned block of that size, or follows a run that ended inside one,
 *   drains write_partial_block_ns longer for each such edge. The credits a root port advertises are its link's
 *   rx_credits[LINK_DSP] (finite P/NP, infinite Cpl).
 * - IOMMU (iommu_enabled). Every MRd and MWr for host memory (not an MSI, not a peer's) looks its page
 *   (address / iommu_page_bytes) up in an IOTLB of iotlb_entries translations, least recently used replaced. A
 *   miss is a page walk of iommu_walk_ns by the first of iommu_walks walkers free, after any walk before it there
 *   (one walker: walks one after another); the entry is filled at once
 *   and is ready when its walk ends, so a later request for a page being walked waits for that walk, not another.
 *   A read starts no earlier than its translation is ready; a write drains no earlier, and the writes behind it
 *   wait with it (posted writes drain in order). A read whose translation was not ready on arrival starts
 *   iommu_read_resume_ns after it, and iommu_read_resume_group_ns more for each group of cpl_group_tlps of its
 *   completions (cut as the completer will) after the first; the walker that walked for it is busy until then.
 *   Off, nothing is looked up and nothing waits.
 * - Last-level cache. host_set_llc() names the one range of host memory the LLC holds; a read whose first byte
 *   lies outside it is served from DRAM, llc_miss_ns later than read_latency_ns says, one inside it llc_hit_ns
 *   later. Never called, the LLC holds everything (what every host without the parameter models).
 * - Tags: a requester never has two reads with one tag outstanding at host memory (checked on every MRd, exit 70);
 *   different requesters' tags are independent (spec §2.2.6.2), and HostCounters.tag_sharing_high_water counts
 *   how many requesters held one tag number at once.
 * - Transmit: per root port, completions, PIO writes and forwarded TLPs wait in one FIFO per flow-control class and
 *   go, oldest first, whenever link_port_can_send() allows: the host never exceeds the far end's advertised
 *   credits, and follows the spec's ordering table (§2.4.1) as a switch does (switch.h): a read or a completion
 *   never passes an older posted request, and the head of one class waiting for its credits lets the others by. Completions
 *   leave by the root port their requester ID routes to, cut to that port's link's MPS.
 * - Software. host_pio_write() queues register writes (each a 1-DW MWr to the root port whose window holds the
 *   address) after the software latency, spaced by sw_pio_gap_ns; the write's cookie carries the register value,
 *   its stamp_ps the time it left the host.
 *   MSIs reach the handler set with host_set_msi() msi_latency_ns after their data drains; without MSI the
 *   software polls a status address and notices a write at the next multiple of poll_interval_ns.
 * - The CPU's side (cpu.h): host_cpu_write() is a core's store to MMIO leaving the core (a write-combining or
 *   uncached write). Without a posted-write queue (cpu_write_queue_tlps 0) the root complex takes it only when it
 *   can put it on its root port's link at once (the port's FIFO is empty and the link takes the MWr: credits,
 *   queue, replay space), so a core stalls on the link's back-pressure exactly as the other traffic waits for it,
 *   and no CPU write waits inside the root complex. With one, the root complex posts it while fewer than
 *   cpu_write_queue_tlps of the CPU's writes are inside it (taken, not yet handed to a link); a taken write
 *   reaches its root port's FIFO cpu_write_path_ns later and leaves it as the link allows, so the core stalls
 *   only when the queue is full. After a refusal the CPU's ready() runs once the port can send again (no queue)
 *   or the queue has room. host_cpu_read() is a core's uncached load: an MRd with the root complex's own
 *   requester ID, queued behind everything the port sends and every CPU write in the posted-write queue (it never
 *   passes an earlier write); its completions go to the CPU's completion() as they arrive. The path between the
 *   core and the root complex is the CPU's to time (cpu.h), up to where the root complex posts a write. The root complex tells the CPU (sent()) when every
 *   write it took has been placed on a root port's wire (host_cpu_writes_sent()).
 * - Interrupts: the delay between an MSI's data draining and its handler running is msi_latency_ns plus what the
 *   function set with host_set_irq_delay() returns for that MSI (the CPU's random interrupt and wake-up times).
 * - Rates of 0 mean "not limiting". Times are integer picoseconds inside; params are ns/ps/MB/s as named.
 * - No allocation per TLP: requests are kept as their own (consumed) MRd TLPs on an intrusive FIFO.
 */
#pragma once

#include "models/base/model_error.h"
#include "models/fabric/fabric.h"
#include "models/proto/split.h"

typedef struct {
  /* Completer (root complex + memory controller). */
  uint32_t rcb_bytes; /* read completion boundary, 64 or 128 (Link Control bit 3, spec §2.3.1.1) */
  CplPolicy cpl_policy; /* MPS-sized completions or one per RCB block ("cache-line" chipsets) */
  /* With the RCB policy, a read that covers every line of a naturally aligned block of this many bytes is answered
   * by its first line and then MPS-sized completions (completer.h, Cut); 0: never. A power of two >= rcb_bytes,
   * <= 4096. */
  uint32_t full_block_bytes;
  double read_latency_ns; /* MRd delivered by the root port -> its first data ready (memory + coherency) */
  double read_latency_per_byte_ps; /* size-dependent part of the same (pcie-bench: ~0.3 ns/B on SNB-EP) */
  double cpl_rate_mbps; /* how fast the root complex can return completion data; 0 = unlimited */
  double cpl_overhead_ns; /* fixed return-path time per completion TLP, on top of the data rate */
  uint32_t cpl_group_tlps; /* a read's completions per cpl_overhead_ns (0 or 1: each) */
  /* The return path's turn before the first completion of a read received behind posted writes (spec §2.4.1: its
   * completion may not overtake them), once per such read; 0: none. */
  double cpl_fence_ns;
  uint32_t read_queue_depth; /* reads the root complex works on at once; more wait in the root port's receive
                              * buffer holding their NP credits; 0 = unlimited */
  /* And only while the completions of the reads it has taken and not yet answered, a new one's included, are at
   * most this many (completer.h, Room): it reserves a read's completion slots when it starts the read; 0 =
   * unlimited. */
  uint32_t cpl_queue_tlps;
  /* The return path serves the read whose data is ready first (completions for different requests may return in
   * any order, spec §2.4.1; one request's in address order, §2.3.1.1); TRUE: strictly in arrival order. */
  gboolean cpl_in_order;
  /* IOMMU (address translation of DMA to host memory); off unless iommu_enabled. */
  gboolean iommu_enabled;
  uint32_t iotlb_entries; /* translations cached, least recently used replaced */
  uint64_t iommu_page_bytes; /* a power of two, at least 4096: a TLP never spans two pages (split.h) */
  double iommu_walk_ns; /* an IOTLB miss's page walk, from its start to the translation */
  uint32_t iommu_walks; /* walks in flight at once (0 counts as 1); more queue for the first walker free */
  double iommu_read_resume_ns; /* a read that waited for its translation starts this much after it */
  double iommu_read_resume_group_ns; /* and this much more per group of its completions after the first */
  /* Last-level cache (host_set_llc): a read of a line the LLC does not hold takes this much longer (DRAM), and
   * one of a line it holds llc_hit_ns longer (an LLC in the other socket: NUMA). */
  double llc_miss_ns, llc_hit_ns;
  /* Posted-write sink. */
  double write_drain_mbps; /* rate at which posted data is absorbed into memory; 0 = unlimited */
  double write_latency_ns; /* drained -> receive-buffer slot (and its P credits) released */
  uint32_t write_block_bytes; /* a power of two: the unit whose partly written edges cost more; 0 = none */
  double write_partial_block_ns; /* drain time added per run edge inside a block (above) */
  /* Software. */
  double sw_pio_latency_ns; /* software decides to start -> first PIO register write leaves the root port */
  double sw_pio_gap_ns; /* between consecutive uncached register writes */
  double msi_latency_ns; /* MSI written to the APIC -> driver handler runs */
  double poll_interval_ns; /* status polling period when MSI is off */
  double iteration_gap_ns; /* driver bookkeeping between one transfer's end and programming the next */
  /* The CPU's posted writes (host_cpu_write()). */
  uint32_t cpu_write_queue_tlps; /* writes the root complex holds before refusing more; 0 = no queue */
  double cpu_write_path_ns; /* with a queue: a taken write's way through the chipset to the root port */
} HostParams;

typedef struct Host Host;

/* The LLC holds host memory [lo, hi) and nothing else (host.h, "Last-level cache"); call before the run. */
void host_set_llc (Host *h, uint64_t lo, uint64_t hi);

/* host_params_check() refuses parameters with MODEL_ERROR_PARAM; host_check_invariants() reports a broken end
 * state with MODEL_ERROR_INVARIANT. */

/* address: the MSI or status address; value: MSI data (the message) or 0 for a status write. */
typedef void (*HostEventFn) (void *ctx, uint64_t address, uint32_t value);

/* max_payload_bytes: the MPS of the links the root ports drive (each completion is cut to its port's). */
/* max_payload_bytes 0: not known yet (host_new(), before its links), that check is left out. */
gboolean host_params_check (const HostParams *p, uint32_t max_payload_bytes, GError **error);

/* A root complex named `name` with `root_ports` root ports (fabric ports 0..), added to `f`; the fabric frees it. */
Host *host_new (Fabric *f, const char *name, const HostParams *params, uint32_t root_ports);
Component *host_component (Host *host);
/* The checked downcast: `c` as a host, or NULL when it is a component of another kind. */
Host *host_from_component (Component *c);
const HostParams *host_params (const Host *host);

/* Queue a 1-DW register write after `delay_ps` (software latency, spacing); returns when it will be queued. */
SimTime host_pio_write (Host *host, SimTime delay_ps, uint64_t address, gboolean addr64, uint32_t value);
/* Software learns of a write to `address` by polling (used when MSI is off). */
void host_watch_status (Host *host, uint64_t address, HostEventFn fn, void *ctx);
void host_set_msi (Host *host, HostEventFn fn, void *ctx);
/* Interrupts by vector: an MSI or MSI-X whose message address is `address` (a vector's, 32-bit) runs `fn`, the
 * device's own handler, instead of the one host_set_msi() set; so devices with interrupts share the host. */
void host_route_msi (Host *host, uint64_t address, HostEventFn fn, void *ctx);

/* The CPU that sits behind the root complex (cpu.h). */
typedef struct {
  void (*ready) (void *ctx); /* a root port can take a CPU write again after host_cpu_write() refused one */
  void (*completion) (void *ctx, const Tlp *cpl); /* a completion for a CPU load (tag = the load's) */
  void (*sent) (void *ctx); /* the last CPU write taken has been placed on its root port's wire */
} HostCpuFns;

/* Joins the CPU to the root complex (one CPU per root complex). */
void host_set_cpu (Host *host, const HostCpuFns *fns, void *ctx);
/* A core's write of `bytes` (whole DWs, DW-aligned) at `address` in an endpoint's BAR: TRUE when the root complex
 * took it and sent it; FALSE when the root port cannot send it now (ready() follows). */
gboolean host_cpu_write (Host *host, uint64_t address, uint32_t bytes);
/* TRUE when every CPU write taken has been placed on its root port's wire; *end_ps is then when the last one's
 * last symbol leaves the root port. */
gboolean host_cpu_writes_sent (const Host *host, SimTime *end_ps);
/* A core's uncached load of `bytes` (whole DWs, DW-aligned) at `address` with tag `tag`. */
void host_cpu_read (Host *host, uint64_t address, uint32_t bytes, uint16_t tag);
/* The CPU's part of an MSI's delay: called once per MSI when its data has drained, the result added to
 * msi_latency_ns. */
typedef SimTime (*HostIrqDelayFn) (void *ctx);
void host_set_irq_delay (Host *host, HostIrqDelayFn fn, void *ctx);

typedef struct {
  uint64_t reads, read_bytes_requested, cpls, cpl_bytes; /* completer */
  uint64_t writes, bytes_written, msis; /* sink (MWr payload written to memory, status included) */
  uint64_t pio_writes;
  uint64_t cpl_checksum; /* pattern_sum() of every completion's data as sent (pattern.h) */
  uint64_t write_checksum; /* pattern_sum() of every MWr payload written to memory (MSIs are not memory) */
  uint64_t forwarded; /* TLPs passed from one root port to another (peer-to-peer) */
  uint64_t iotlb_hits, iotlb_misses; /* translations of requests for host memory (IOMMU on) */
  uint32_t tag_sharing_high_water; /* the most requesters with reads of one tag number outstanding at once */
  uint64_t cpu_writes, cpu_reads, cpu_cpls; /* the CPU's MWrs and MRds sent, completions returned to it */
  uint64_t polled_writes; /* writes to a watched address, each seen at a poll: the only reads of poll_interval_ns */
} HostCounters;

HostCounters host_counters (const Host *host);
/* End-of-run: no request pending, sink empty, every read fully completed. */
gboolean host_check_invariants (const Host *host, GError **error);
/* What the host still holds (reads, posted writes, transmit queues), appended to `out` in one line; nothing
 * when idle. For the deadlock watchdog's message (the fabric's describe_wait). */
void host_describe_wait (const Host *host, GString *out);

/* Test hook: tamper with the nth completion (0-based) the completer emits, so tests can see the integrity and
 * deadlock checks catch it. MISROUTE gives it the requester ID of the next bus with a requester (bus b -> b + 1,
 * the last back to 1): another endpoint's, when there are two. Never called in a real run. */
typedef enum {
  HOST_FAULT_NONE,
  HOST_FAULT_DROP_CPL,
  HOST_FAULT_DUP_CPL,
  HOST_FAULT_SWAP_CPL,
  HOST_FAULT_MISROUTE_CPL,
} HostFault;
void host_inject_fault (Host *host, HostFault fault, uint64_t nth);
