/* nvme.h — an NVMe SSD on the fabric: a controller with I/O submission/completion queue pairs in host memory,
 * doorbells in BAR0, commands fetched and data moved by its own DMA, completions posted and MSI-X interrupts
 * raised with interrupt coalescing (NVM Express Base Specification 2.0: §3.1 doorbells, §4.1 queues, §4.3 PRPs,
 * §4.6 completion entries, §5.27.1.5 Interrupt Coalescing; docs/reference/design.md).
 *
 * Contract:
 * - A component of role endpoint (fabric.h) with one 64-bit BAR0 of registers (no memory a flow may use). Queue
 *   pair q's SQ tail doorbell is at BAR0 + 0x1000 + 8q, its CQ head doorbell 4 bytes above (doorbell stride 0):
 *   the value a doorbell write carries rides in the MWr's cookie, as the host's register writes do (host.h).
 * - The host's driver creates the queues (nvme_create_queue(): the admin commands that do it are not simulated)
 *   and writes commands into its SQ ring, an array of NvmeSqe that stands for the SQ's host memory: the device
 *   reads an entry only when the 64-byte MRd that fetches it has all its data back.
 * - Per command: a 64-byte MRd fetches the entry (one per command, in SQ order, queues served round robin); with
 *   more than two pages a PRP list read (8 bytes per page after the first) follows; then a read waits its flash
 *   read latency and sends the data by MWrs, a write reads the data by MRds and then waits its program latency
 *   (each a draw of its distribution, dist.h, from the device's own random stream NVME_RAND_ID). Data TLPs are
 *   cut at the pages' 4 KB boundaries, MPS (MWr) and MRRS (MRd) by the device's one cutting function. Then the
 *   16-byte completion entry (MWr at the CQ's next slot) and, by the queue's coalescing, an MSI-X: at once when
 *   coalesce_threshold entries are unsignalled or coalesce_time_ns is 0, else when the oldest unsignalled entry
 *   is coalesce_time_ns old. The MSI-X message goes to the queue's vector's address, and its cookie carries
 *   the count of completion entries posted on that queue so far, which the handler reaps up to (an entry sent
 *   before the MSI-X reached memory before it: posted writes keep their order).
 * - Flash dies are not a bottleneck: every fetched command waits its own latency, overlapping the others.
 * - MRds outstanding at once: at most `tags`; a completion must come in address order for its tag, with a tag
 *   outstanding (exit 70 otherwise).
 * - Transmit: completion entries and MSI-X first, then fetches, PRP list reads, then one command's data at a time,
 *   in the order commands became ready; each as the link takes it (tx_ready resumes). Nothing allocates per TLP
 *   beyond the fabric's pool; command state is per (queue, command ID), allocated with the device.
 * - Parameters: nvme_params_check() refuses them with MODEL_ERROR_PARAM.
 */
#pragma once

#include "models/base/dist.h"
#include "models/fabric/fabric.h"

#define NVME_RAND_ID UINT32_C (0x4e564d00)
#define NVME_DOORBELL_BASE UINT64_C (0x1000) /* NVMe 2.0 §3.1.2: SQ0TDBL */
#define NVME_SQE_BYTES 64u /* NVMe 2.0 §4.2 */
#define NVME_CQE_BYTES 16u /* NVMe 2.0 §4.6 */
#define NVME_PAGE_BYTES 4096u /* CC.MPS = 0: the memory page size PRPs point at */
#define NVME_PRP_BYTES 8u
#define NVME_MAX_QUEUES 64u

typedef struct {
  uint32_t queues; /* I/O queue pairs, 1..NVME_MAX_QUEUES */
  uint32_t queue_depth; /* commands each queue holds at once (its SQ and CQ have one entry more) */
  uint32_t tags; /* MRds outstanding at once, 1..256 (8-bit tags) */
  uint32_t max_read_request_bytes; /* MRRS of its MRds, 128..4096, a power of two */
  uint32_t coalesce_threshold; /* completion entries per interrupt, 1..256 */
  double coalesce_time_ns; /* the oldest unsignalled entry waits at most this; 0 = an interrupt at once */
  const Dist *read_latency, *program_latency; /* per command (the device keeps copies) */
} NvmeParams;

/* A submission queue entry, as the driver wrote it: what the device learns from the 64 bytes it fetches. */
typedef struct {
  uint16_t cid; /* command identifier, 0..queue_depth - 1: unique among the queue's commands in flight */
  gboolean write; /* to flash: the device reads the host's pages */
  uint32_t bytes; /* whole 512-byte sectors */
  uint64_t page[2]; /* PRP1, PRP2 */
  uint64_t prp_list; /* with more than two pages: the list of the pages after the first (PRP2 points at it) */
  uint64_t page_stride_bytes; /* page i (i >= 1) is at page[1] + (i - 1) x stride: what the list holds */
} NvmeSqe;

typedef struct Nvme Nvme;

gboolean nvme_params_check (const NvmeParams *p, GError **error);
/* Added to `f` with its BAR0; the fabric frees it. Asserts parameters nvme_params_check() accepts. */
Nvme *nvme_new (Fabric *f, const char *name, const NvmeParams *p);
Component *nvme_component (Nvme *d);
/* The checked downcast: `c` as an NVMe device, or NULL. */
Nvme *nvme_from_component (Component *c);
const NvmeParams *nvme_params (const Nvme *d);
/* Queue pair q (before traffic): its SQ of `entries` 64-byte entries at sq_address (ring, borrowed: the driver's
 * copy of that memory), its CQ of `cq_entries` 16-byte entries at cq_address (cq_ring, borrowed, the entries'
 * command IDs: that memory, which the device fills as it sends each entry), its MSI-X vector's message address
 * (the host routes by it: host_route_msi()). Both sizes above queue_depth (NVMe 2.0 §4.1: a full queue keeps one
 * entry empty); an entry posted into a full CQ is a model bug (exit 70). */
void nvme_create_queue (Nvme *d, uint32_t q, uint64_t sq_address, uint64_t cq_address, uint32_t entries,
  uint32_t cq_entries, const NvmeSqe *ring, uint16_t *cq_ring, uint64_t msix_address);
/* BAR0's address of queue q's SQ tail (cq FALSE) or CQ head doorbell, once enumerated. */
uint64_t nvme_doorbell (const Nvme *d, uint32_t q, gboolean cq);

typedef struct {
  uint64_t commands, reads, writes; /* completed */
  uint64_t fetches, prp_lists, data_mwr, data_mrd, cqes, msis;
  uint64_t bytes_to_host, bytes_from_host; /* data */
} NvmeCounters;
NvmeCounters nvme_counters (const Nvme *d);
