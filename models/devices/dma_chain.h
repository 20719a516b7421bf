/* dma_chain.h — the AN-456 chaining DMA in the endpoint's application layer: a write engine (endpoint memory
 * -> host memory, MWr) and a read engine (host memory -> endpoint memory, MRd + CplD) that can run at once.
 *
 * Contract:
 * - Programming (AN-456 "chaining DMA descriptor header" registers in BAR0): the write engine's header is at
 *   BAR0 + 0x00..0x0C, the read engine's at + 0x10..0x1C; DW0 = control (bits 15:0 number of descriptors,
 *   bit 16 MSI enable), DW1/DW2 = descriptor table address high/low, DW3 = RCLAST, the index of the last
 *   descriptor; writing DW3 starts the engine. Register values arrive in the PIO MWr's cookie. With
 *   DmaParams.channels > 1, channel c's pair of headers sits at BAR0 + 0x20 c (channel 0 is AN-456's layout).
 * - Descriptor table in host memory: 4 DW of header (DW3 = EPLAST, the status word the engine writes back)
 *   followed by 4-DW descriptors (length, endpoint address, host address). The engine fetches descriptors with
 *   MRds of desc_per_fetch descriptors (<= MRRS, no 4 KB crossing) into a FIFO of desc_fifo_entries, and reads
 *   their contents through DmaMemReadFn when the last completion byte of the fetch has arrived (timing comes from
 *   the TLPs; contents from the host memory model).
 * - Data: the write engine issues MWr <= MPS, the read engine MRd <= MRRS, neither crossing 4 KB (split.h).
 *   Reads are limited by free tags (1..768, shared by both engines and descriptor fetches: one requester ID;
 *   with two or more tags a due descriptor fetch has first claim on the last free one, so a busy read engine
 *   cannot starve the other engine of descriptors) and by the endpoint's completion buffer: bytes requested and
 *   not yet taken out of the buffer by the application never exceed cpl_buffer_bytes, and completions that may
 *   still come (counted worst case, see cpl_buffer_headers) never exceed its header slots (endpoints advertise
 *   infinite completion credits, so the requester must hold itself back; spec §2.6.1, pcie-protocol.md §6).
 * - End of a run: the engine writes EPLAST (a 1-DW MWr to table + 12) after its last data, then an MSI if the
 *   control word enabled it (data = 0 for the write engine, 1 for the read engine; + 2 c on channel c).
 * - Performance counter: starts when the DW3 (start) write is decoded by the engine (DMA_COUNTER_AT_ENDPOINT,
 *   where AN-456's counter physically is) or when that write left the host (DMA_COUNTER_AT_HOST); it stops at
 *   the last data: for writes when the last data MWr leaves the application layer for the IP, for reads when the
 *   last completion data has been taken in. It therefore includes the first descriptor fetch.
 * - The engines are clients of App (datapath.h); the endpoint (endpoint.h) hands the DMA its completions and register
 *   writes. No allocation per TLP.
 * - Why (stall.h): per direction a clock whose cause is what that direction's engines waited for at their last
 *   decision (tags, completion buffer, descriptors, read data; STALL_DATAPATH when they had a TLP), for the
 *   links it feeds. Measured as the run goes: the round trip of every data MRd (committed -> last completion
 *   taken in), and each run's first descriptor fetch (committed -> its data in). Every MWr carries the time it
 *   was committed in stamp_ps, for a receiver that measures its one-way latency.
 * - Tracing (dma_chain_trace_declare()): the requester's tags_outstanding, and per engine its phase (transfer,
 *   status write, interrupt) and its descriptor fetches (a slice while any is in flight).
 */
#pragma once

#include "models/base/model_error.h"
#include "models/devices/datapath.h"

typedef enum { DMA_WRITE = 0, DMA_READ = 1, DMA_DIR_COUNT } DmaDir;

typedef enum {
  DMA_COUNTER_AT_ENDPOINT, /* start when the engine decodes the start write (hardware counter) */
  DMA_COUNTER_AT_HOST, /* start when the start write left the root port */
} DmaCounterStart;

typedef struct {
  uint32_t length_bytes;
  uint64_t ep_address;
  uint64_t host_address;
} DmaDescriptor;

#define DMA_DESC_BYTES 16u /* 4 DW per descriptor and for the table header (AN-456) */
/* The most outstanding reads one requester may have: 10-bit tags give 768 (pcie-protocol.md §6; spec §2.2.6.2).
 * A link may allow fewer (link_tags_max()); system_params_check() holds the DMA to the link's limit. */
#define DMA_MAX_TAGS 768u
#define DMA_TAG_SPACE 1024u /* 10-bit tag numbers 0..1023 */
#define DMA_MAX_DESC_FIFO 256u
#define DMA_REG_START_DW 3u
#define DMA_MAX_CHANNELS 4u /* engines per direction (XDMA offers 1, 2 or 4 H2C and C2H channels) */
#define DMA_CHANNEL_REG_STRIDE 0x20u /* channel c's two descriptor headers start at BAR0 + 0x20 c */
/* The register block at the start of BAR0, whatever the channel count: what lies beyond is not the DMA's. */
#define DMA_REG_BYTES (DMA_MAX_CHANNELS * DMA_CHANNEL_REG_STRIDE)

typedef struct {
  uint32_t max_payload_bytes; /* MPS: largest MWr (AN-456 runs: 256) */
  uint32_t max_read_request_bytes; /* MRRS: largest MRd (AN-456 runs: 512) */
  uint32_t tags; /* read tags the endpoint may use, 1..768: up to 256 numbered 0.., more as 10-bit tags 256..
                  * (AN-456 runs: 32) */
  uint32_t cpl_buffer_bytes; /* endpoint completion buffer ("RX buffer credit allocation"); 0 = unlimited */
  /* Completion TLPs the completion buffer has header slots for; 0 = unlimited. A read reserves the most
   * completions its request may come back as: one per read-completion-boundary block it touches (spec
   * §2.3.1.1: a completer may split at every RCB), since the requester cannot know how the host will split. */
  uint32_t cpl_buffer_headers;
  uint32_t rcb_bytes; /* the completer's RCB (64 or 128), for cpl_buffer_headers; 0 = 64 */
  uint32_t desc_max_bytes; /* driver: largest transfer per descriptor (e.g. 4096 = one per page); 0 = one */
  uint32_t desc_per_fetch; /* descriptors read by one descriptor MRd */
  uint32_t desc_fifo_entries; /* descriptors an engine can hold; a fetch goes out when a batch fits */
  uint32_t desc_setup_cycles; /* app cycles from taking a descriptor to its first data TLP */
  gboolean addr64; /* host data buffers above 4 GB: MWr/MRd carry 4-DW headers */
  gboolean msi; /* software enables the end-of-run MSI (else it polls EPLAST) */
  /* Channels: independent engine pairs, each with its own registers, descriptor table and runs (0 = 1). All
   * share the tags and completion buffer (one requester ID) and the transmit datapath (round robin), as XDMA's
   * H2C and C2H channels do (published-calibration.md §2.2). */
  uint32_t channels;
  DmaCounterStart counter_start;
  gboolean read_first; /* each channel's read engine registers before its write engine (priority arbitration) */
} DmaParams;

typedef struct DmaChain DmaChain;

/* dma_params_check() refuses parameters with MODEL_ERROR_PARAM; dma_chain_check_invariants() reports a broken end
 * state with MODEL_ERROR_INVARIANT. */

/* Read one 4-DW descriptor at host `address` (the host memory model). FALSE if nothing is there. */
typedef gboolean (*DmaMemReadFn) (void *ctx, uint64_t address, DmaDescriptor *out);

gboolean dma_params_check (const DmaParams *p, GError **error);

/* Registers as the app's transmit clients. Once the app has its link port, dma_chain_attach() (done here already if
 * it has one) watches it for the write engine's last data on the wire. */
DmaChain *dma_chain_new (SimEngine *engine, const DmaParams *params, App *app, TlpPool *pool);
void dma_chain_attach (DmaChain *dma);
void dma_chain_free (DmaChain *dma);
/* What enumeration and software set up before the first start: the endpoint's requester ID, carried by every
 * request; where descriptors are read (the host memory model); the MSI data of channel 0's write engine, the
 * others' following it (AN-456 uses 0; an OS gives each function its own vectors). */
void dma_chain_set_requester (DmaChain *dma, uint16_t id);
void dma_chain_set_memory (DmaChain *dma, DmaMemReadFn mem_read, void *ctx);
void dma_chain_set_msi_data (DmaChain *dma, uint32_t data);

/* What the endpoint hands the DMA after the receive interface: a completion for one of its requests (matched by
 * tag; an Unexpected Completion is counted), and a register write at `offset` in the DMA_REG_BYTES block of BAR0
 * with the value the PIO write carried and the time it left the host. */
void dma_chain_completion (DmaChain *dma, const Tlp *tlp);
void dma_chain_register_write (DmaChain *dma, uint64_t offset, uint32_t value, SimTime sent_ps);

/* Called when an engine's performance counter starts (stopped = FALSE) and stops (TRUE). */
typedef void (*DmaCounterFn) (void *ctx, DmaDir dir, gboolean stopped);
void dma_chain_set_counter_notify (DmaChain *dma, DmaCounterFn fn, void *ctx);

typedef struct {
  gboolean running; /* started and not yet finished (EPLAST and MSI out) */
  uint32_t runs; /* completed runs */
  SimTime counter_start_ps, counter_stop_ps; /* last run */
  uint64_t bytes; /* data bytes of the last run */
} DmaEngineStatus;

DmaEngineStatus dma_chain_status (const DmaChain *dma, DmaDir dir); /* channel 0 */
DmaEngineStatus dma_chain_channel_status (const DmaChain *dma, uint32_t channel, DmaDir dir);

typedef struct {
  uint64_t read_bytes_requested, read_bytes_completed, ep_bytes_written; /* read engine, all runs */
  uint64_t write_bytes_sent; /* write engine MWr payload, all runs */
  uint64_t desc_fetches, mrds, mwrs, cpls, out_of_order_cpls;
  uint64_t unexpected_cpls; /* completions whose tag no request held (duplicates): dropped */
  uint64_t read_checksum; /* pattern_sum() of every read data completion taken in (pattern.h) */
  uint32_t tags_in_use, tags_high_water;
  uint32_t cpl_buffer_high_water_bytes;
  uint32_t cpl_headers_high_water; /* completion header slots reserved at once (cpl_buffer_headers) */
} DmaCounters;

DmaCounters dma_chain_counters (const DmaChain *dma);
/* See the contract: what each direction waits for, the data reads' round trips, the first descriptor fetch's mean
 * time per run (0 when none). */
StallClock *dma_chain_stall_clock (DmaChain *dma, DmaDir dir);
const LatHist *dma_chain_read_latency (const DmaChain *dma);
double dma_chain_first_fetch_ns (const DmaChain *dma, DmaDir dir);
/* Declare the requester's counter under `scope` ("endpoint.dma") and each engine's tracks under SCOPE.write /
 * SCOPE.read (SCOPE.chN.write with channels); a NULL trace does nothing. */
void dma_chain_trace_declare (DmaChain *dma, SimTrace *trace, const char *scope);

/* Every tag retired, buffer empty, engines idle, completions in address order and all expected,
 * requested = completed. */
gboolean dma_chain_check_invariants (const DmaChain *dma, GError **error);
/* What the running engines wait for (descriptors, data, tags, completion buffer), appended to `out` in one line;
 * nothing when idle. For the deadlock watchdog's message. */
void dma_chain_describe_wait (const DmaChain *dma, GString *out);
