/* wc.h — a CPU core's write-combining (WC) buffers and its uncached (UC) stores, as seen from the bus: which
 * writes leave the core, of which address and length, in which order (pcie-protocol.md §9; Intel SDM vol. 3A
 * §11.3). It knows nothing of TLPs, links or time: the root port turns each emitted write into an MWr.
 *
 * Contract:
 * - A store has a width of 1, 2, 4, 8, 16 or 32 bytes (no wider than a buffer) and is naturally aligned (address a
 *   multiple of the width), so it lies in one buffer line; anything else is a caller bug (PS_INVARIANT, exit 70).
 *   wc_copy() cuts a byte range into such stores the way memcpy does with a given store width: at each address the
 *   widest power of two that is <= the width, <= the bytes left, and divides the address.
 * - WC stores. There are `buffers` buffers of `buffer_bytes` (64; 32 on P6) bytes. A store fills the buffer that
 *   holds its line, or takes a free one. The moment a buffer has every byte valid it leaves as one write of the
 *   whole line (WC_FULL) and is free again. A buffer needed for a new line when all are in use is taken from the
 *   oldest line — the one whose buffer was taken first (FIFO by allocation; a later store to a line does not make
 *   it younger, since the SDM leaves the policy to the implementation and FIFO needs no recency state) — which
 *   leaves as partial writes (WC_EVICT).
 * - Partial writes: one write per 8-byte aligned chunk of the line that has at least one valid byte, in address
 *   order: address = the chunk's, length 8, byte_enables = the valid bytes (bit i for address + i). On PCIe this
 *   is one 2-DW MWr whose First/Last DW byte enables carry the mask (non-contiguous enables are allowed for a
 *   QW-aligned 2-DW request, spec §2.2.5); the wire carries 8 payload bytes whatever the mask. A chunk with all
 *   bytes valid is the same 8-byte write with byte_enables 0xff.
 * - wc_fence() (SFENCE/MFENCE, and whatever else the SDM lists as draining the buffers: a UC load, an interrupt,
 *   a LOCKed instruction) flushes every buffer in use, oldest first, each as partial writes (WC_FENCE). The
 *   caller calls it before a UC load: this module sees only stores.
 * - UC stores are never combined: wc_store_uc() first flushes the WC buffers as a fence does (SDM §11.3: a UC
 *   access drains them), then emits the store as one write (WC_UC) of its width, all bytes enabled.
 * - No timeout eviction is modelled (real buffers also drain after an implementation-defined idle time; a program
 *   that fences after its copies, as PIO software does, never waits for it).
 * - Writes go out through the emit callback synchronously, in the order above; the callback must not call back
 *   into the same Wc. No allocation after wc_new().
 */
#pragma once

#include <glib.h>
#include <stdint.h>
#include "models/base/model_error.h"

/* Bad parameters (the builder maps them to exit 65). */

#define WC_MAX_BUFFERS 64

typedef struct {
  uint32_t buffers; /* WC buffers per core: 1..WC_MAX_BUFFERS (Pentium 4: 6; Core era: 8-10, pcie-protocol.md §9) */
  uint32_t buffer_bytes; /* 64, or 32 on P6 (SDM §11.3.1) */
} WcParams;

typedef enum {
  WC_FULL, /* a filled buffer: one write of buffer_bytes */
  WC_EVICT, /* an 8-byte partial write of a buffer taken for another line */
  WC_FENCE, /* an 8-byte partial write of a buffer drained by a fence or a UC store */
  WC_UC, /* an uncached store, as it was issued */
} WcWriteKind;

typedef struct {
  uint64_t address;
  uint32_t length_bytes;
  uint8_t byte_enables; /* WC_EVICT/WC_FENCE: valid bytes of the 8; 0xff for the other kinds (every byte) */
  WcWriteKind kind;
} WcWrite;

typedef void (*WcEmitFn) (void *ctx, const WcWrite *w);

typedef struct {
  uint64_t full_writes, partial_writes, uc_writes; /* writes emitted, by kind (partial: evict + fence) */
  uint64_t bytes_stored; /* bytes of every store taken, WC and UC */
} WcCounters;

typedef struct Wc Wc;

gboolean wc_params_check (const WcParams *p, GError **error);
Wc *wc_new (const WcParams *p, WcEmitFn emit, void *ctx);
void wc_free (Wc *wc);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Wc, wc_free)

void wc_store (Wc *wc, uint64_t address, uint32_t width);
void wc_store_uc (Wc *wc, uint64_t address, uint32_t width);
/* The width memcpy uses at `address` with `length` bytes left and at most `width` per access (see above): the
 * widest power of two that is <= width, <= length and divides the address. For loads as for stores. */
uint32_t wc_split_width (uint64_t address, uint64_t length, uint32_t width);
/* `length` bytes from `address` in stores of at most `width` bytes (see above), to WC or UC memory. */
void wc_copy (Wc *wc, gboolean uc, uint64_t address, uint64_t length, uint32_t width);
void wc_fence (Wc *wc);

guint wc_buffers_in_use (const Wc *wc);
WcCounters wc_counters (const Wc *wc);
