/* endpoint.h — a PCIe endpoint: a device of one or more functions on the fabric (IDs and BARs), its application
 * datapath, and what sits behind it: the AN-456 chaining DMA and a plain memory target.
 *
 * Contract:
 * - A component of the fabric (fabric.h), role endpoint, one port facing the root. Everything it sends and receives
 *   passes the application datapath (datapath.h): the link port's callbacks lead to app_link_rx/app_link_tx_ready.
 * - Functions (spec §7.5; §2.2.6.2): a device has 1..FABRIC_MAX_FUNCTIONS, function f's ID bus:00.f. Each is a
 *   requester of its own (its ID, its tags) and they share the device's link, datapath and buffers; the BARs, the
 *   memory target and the DMA are function 0's (a function's BARs are optional: the others only make requests).
 * - Decoding, as the device's decoder does, at the end of a TLP's receive beats: a completion is for the function
 *   its requester ID's function number names, and goes to the flows' requester (endpoint_set_requester(), which
 *   tells functions apart by that ID) or else to the DMA (function 0's one requester); a memory write in the first DMA_REG_BYTES of BAR0 is a register write when the
 *   endpoint has a DMA; every other memory write or read inside a BAR is the memory target's. A TLP for an address
 *   outside every BAR, a completion for another requester and a register read are routing or driver bugs (exit 70).
 * - Memory target: it stores no data (every address holds the pattern of pattern.h), sinks writes as the receive
 *   interface hands them over, and answers a read mem_read_latency_ns plus mem_read_latency_cycles application-clock
 *   cycles after taking it in (a CPU's PIO read is one such read), with completions cut by
 *   its RCB and its link's MPS (split.h, MPS policy), requests in arrival order, as the datapath's last transmit
 *   client (behind the DMA's engines). It folds what it received and sent into checksums, as the host does, and
 *   checks that a requester never holds one tag twice.
 * - Enumeration gives the DMA the function's requester ID; the rest of the DMA's set-up is the driver's
 *   (dma_chain.h: memory, MSI data, registers).
 * - No allocation per TLP: a read waits as a copy of its MRd taken from the pool.
 */
#pragma once

#include "models/base/model_error.h"
#include "models/devices/dma_chain.h"
#include "models/fabric/fabric.h"

typedef struct {
  AppParams app; /* the application datapath */
  /* The device's functions, 1..FABRIC_MAX_FUNCTIONS (0 = 1): requesters sharing its link and datapath. */
  uint32_t functions;
  gboolean has_dma; /* an AN-456 chaining DMA behind the datapath */
  DmaParams dma;
  /* The BARs' sizes and widths (bases are the enumeration's). With a DMA, BAR0 must hold its register block. */
  FabricBar bars[FABRIC_MAX_BARS];
  /* The memory target's read completion boundary: 0 or ENDPOINT_RCB_BYTES. Spec §2.3.1.1 (pcie-protocol.md §6): only
   * a root complex may use 64 bytes; every other completer, an endpoint's BAR among them, uses 128. */
  uint32_t rcb_bytes;
  /* Memory target: an MRd taken in -> its data ready to return. On-chip memory answers within a few cycles;
   * 0 = at once. */
  double mem_read_latency_ns;
  /* The same in cycles of the application clock, added to it: a BAR memory's completer state machine and RAM read
   * (the PIO read's completion latency, issue #14). */
  uint32_t mem_read_latency_cycles;
} EndpointParams;

typedef struct Endpoint Endpoint;


/* The datapath's and the DMA's own checks, plus the BAR layout the DMA needs. */
gboolean endpoint_params_check (const EndpointParams *p, GError **error);
/* The read completion boundary of an endpoint's memory target (EndpointParams.rcb_bytes), and of any completer but
 * a root complex: spec §2.3.1.1 lets only a root complex complete at 64 bytes (pcie-protocol.md §6). */
#define ENDPOINT_RCB_BYTES 128u

/* An endpoint named `name`, added to `f`; the fabric frees it. */
Endpoint *endpoint_new (Fabric *f, const char *name, const EndpointParams *p);
Component *endpoint_component (Endpoint *ep);
/* The checked downcast: `c` as a endpoint, or NULL when it is a component of another kind. */
Endpoint *endpoint_from_component (Component *c);
const EndpointParams *endpoint_params (const Endpoint *ep);
App *endpoint_app (Endpoint *ep);
DmaChain *endpoint_dma (Endpoint *ep); /* NULL without one */
/* BAR `bar`'s address, once enumerated. */
uint64_t endpoint_bar (const Endpoint *ep, guint bar);

typedef struct {
  uint64_t reads, read_bytes_requested, cpls, cpl_bytes; /* memory target, as a completer */
  uint64_t cpl_checksum; /* pattern_sum() of every completion's data sent */
  uint64_t writes, bytes_written, write_checksum; /* memory target, as a sink */
} EndpointCounters;

EndpointCounters endpoint_counters (const Endpoint *ep);

/* A requester of another kind than the DMA (a flow's source, flow.h): the completions of every function of the device
 * go to `fn`, after the receive interface, instead of to the DMA; `fn` tells them apart by requester ID and tag. */
typedef void (*EndpointCplFn) (void *ctx, const Tlp *cpl);
void endpoint_set_requester (Endpoint *ep, EndpointCplFn fn, void *ctx);
