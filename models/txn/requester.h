/* requester.h — the one requester every model that issues memory requests uses: the chaining DMA, the flows, the
 * stream's source. It cuts transfers into requests, hands out tags, reserves completion-buffer room and checks
 * every completion against the request it answers; the device keeps its own queues, counters and wire.
 *
 * Contract:
 * - Cutting (spec r6.3 §2.2.7): no request crosses a 4 KB address boundary; an MWr carries at most MPS, an MRd asks
 *   for at most MRRS. Requests are taken greedily from the start address (split.h), as AN-456's chaining DMA does:
 *   a 1000-byte read at 0x3F0 with MRRS 256 is 256 + 256 + 256 + 232 bytes. With `align` each request ends on a
 *   multiple of its maximum instead (a requester that realigns: 16 + 256 + 256 + 256 + 216); both are legal.
 * - Tags (spec §2.2.6.2): `tags` numbers from first_tag on, each held by one outstanding read from
 *   txn_req_issue() to its last completion byte; a stack, so the lowest number goes first and the one freed last
 *   is reused first. Tag fields: 5 bits (32 tags), 8 (256), 10 (768 usable: 256..1023, Tag[9:8] != 00b) and 14
 *   (flit mode); txn_req_tag_bits() names the field a count needs.
 * - Completion buffer (pcie-protocol.md §5: an endpoint advertises infinite completion credits, so the requester
 *   holds back instead): with cpl_buffer_bytes, every byte requested and not yet taken in; with cpl_buffer_headers,
 *   each read's worst case of completions, one per RCB block it touches (spec §2.3.1.1), given back as completions
 *   come or, what the completer did not use, with the tag.
 * - Completion checks (spec §2.3.1.1, §2.2.9, §2.3.2): the tag must be held (else an Unexpected Completion), the
 *   completion must start where the previous one of its request ended, its byte count must equal what the request
 *   still owes and its payload must not exceed it. txn_req_complete() reports every failure as a bit and applies
 *   the completion anyway, so the device decides whether a failure is counted or fatal.
 * - Byte enables (spec §2.2.5): txn_req_byte_enables() for a request of any length at any byte address.
 * - No allocation after txn_req_init().
 */
#pragma once

#include "models/proto/split.h"
#include "models/proto/tlp.h"
#include "sim/engine.h"

typedef struct {
  uint32_t max_payload_bytes; /* MPS: no MWr carries more */
  uint32_t max_read_request_bytes; /* MRRS: no MRd asks for more */
  uint32_t tags; /* tag numbers it may use at once */
  uint32_t first_tag; /* the lowest of them */
  uint32_t rcb_bytes; /* the completer's RCB, for the worst-case completion count (64 when 0) */
  uint32_t cpl_buffer_bytes; /* completion-buffer bytes (0: no limit) */
  uint32_t cpl_buffer_headers; /* completion-buffer header slots (0: no limit) */
  gboolean align; /* end each request on a multiple of its maximum (MPS, MRRS: powers of two) */
  gboolean source_tags; /* the source picks each tag (txn_req_issue_tag()); no free stack */
} TxnReqParams;

/* One tag's request while it is outstanding. */
typedef struct {
  gboolean busy;
  uint64_t next_address; /* where its next completion must start */
  uint32_t remaining; /* bytes it still owes */
  uint32_t cpl_headers; /* header slots still reserved for it */
  SimTime issued_ps; /* when it was issued: the round trip counts from here */
} TxnTag;

typedef struct {
  TxnReqParams p;
  uint32_t *free_tags; /* stack of free tag indices (tag number - first_tag) */
  uint32_t n_free;
  TxnTag *tag; /* by tag index */
  uint32_t cpl_bytes; /* completion-buffer bytes reserved */
  uint32_t cpl_headers; /* completion-buffer header slots reserved */
  /* High waters over the run. */
  uint32_t tags_high_water, cpl_bytes_high_water, cpl_headers_high_water;
} TxnRequester;

/* Why a read may not be issued now. */
typedef enum {
  TXN_REQ_OK,
  TXN_REQ_NO_TAG, /* every tag (beyond those reserved) is held */
  TXN_REQ_NO_BUFFER, /* its completions would not fit the completion buffer */
} TxnReqBlock;

/* What is wrong with a completion: bits, 0 when nothing. */
enum {
  TXN_CPL_UNEXPECTED = 1, /* no read holds its tag (spec §2.3.2); nothing else was applied */
  TXN_CPL_ADDRESS = 2, /* does not start where the request's previous completion ended */
  TXN_CPL_BYTE_COUNT = 4, /* byte count differs from what the request still owes */
  TXN_CPL_EXCESS = 8, /* more data than the request still owes */
};

void txn_req_init (TxnRequester *q, const TxnReqParams *p);
void txn_req_clear (TxnRequester *q);

/* The size of the next request of a transfer at addr with `left` bytes to go (MPS for writes, MRRS for reads, and
 * 4 KB; `align` applied). Inline, as txn_req_fits(): a device asks on every peek. */
static inline uint32_t
txn_req_size (const TxnRequester *q, TlpKind kind, uint64_t addr, uint64_t left)
{
  uint32_t max = kind == TLP_MRD ? q->p.max_read_request_bytes : q->p.max_payload_bytes;
  if (G_UNLIKELY (q->p.align)) /* to the next multiple of max, which (a power of two up to 4 KB) stays in the page */
    max -= (uint32_t) (addr & (max - 1));
  return split_next_request (addr, left, max);
}

/* The same for a source that cuts finer than MPS/MRRS on its own (an engine whose pieces are smaller, or whose first
 * piece of a DMA is short): at most `piece` bytes, never more than the requester's maximum. */
static inline uint32_t
txn_req_size_within (const TxnRequester *q, TlpKind kind, uint64_t addr, uint64_t left, uint32_t piece)
{
  uint32_t max = MIN (piece, kind == TLP_MRD ? q->p.max_read_request_bytes : q->p.max_payload_bytes);
  if (G_UNLIKELY (q->p.align))
    max -= (uint32_t) (addr & (max - 1));
  return split_next_request (addr, left, max);
}

/* First and last DW byte enables of a request of `len` bytes at byte address `addr` (spec §2.2.5): 1 bit per byte,
 * bit 0 the DW's lowest byte; a request within one DW has last_be 0. */
void txn_req_byte_enables (uint64_t addr, uint32_t len, uint8_t *first_be, uint8_t *last_be);
/* The tag field a requester with `tags` tags needs: 5, 8, 10 or 14 bits (0 beyond 14 bits' 16384). */
uint32_t txn_req_tag_bits (uint32_t tags);

/* The most completions a read of `bytes` at `address` may come back as (0 without a header limit): one per RCB block
 * it touches, because a completer may end a completion at every RCB boundary (spec §2.3.1.1). */
static inline uint32_t
txn_req_cpl_headers (const TxnRequester *q, uint64_t address, uint32_t bytes)
{
  if (q->p.cpl_buffer_headers == 0)
    return 0;
  uint64_t rcb = q->p.rcb_bytes ? q->p.rcb_bytes : 64;
  return (uint32_t) ((address + bytes - 1) / rcb - address / rcb + 1);
}
/* Whether a read of `bytes` at addr may be issued now, with `reserve` tags kept back for another use. */
static inline TxnReqBlock
txn_req_fits (const TxnRequester *q, uint64_t addr, uint32_t bytes, uint32_t reserve)
{
  if (q->n_free <= reserve)
    return TXN_REQ_NO_TAG;
  if ((q->p.cpl_buffer_bytes != 0 && q->cpl_bytes + bytes > q->p.cpl_buffer_bytes)
      || (q->p.cpl_buffer_headers != 0
          && q->cpl_headers + txn_req_cpl_headers (q, addr, bytes) > q->p.cpl_buffer_headers))
    return TXN_REQ_NO_BUFFER;
  return TXN_REQ_OK;
}
/* Issue it: its tag (a number), its completion-buffer room reserved, its round trip starting at `now`. */
uint16_t txn_req_issue (TxnRequester *q, uint64_t addr, uint32_t bytes, SimTime now);
/* The same with the tag chosen by the source (a CPU core's number): the requester checks it is one of its own and
 * free (SIM_INVARIANT). Only with source_tags, which txn_req_issue() may not be called with, and without a
 * completion-buffer header limit (a source that picks its tags reserves no header slots). */
static inline void
txn_req_issue_tag (TxnRequester *q, uint16_t tag, uint64_t addr, uint32_t bytes, SimTime now)
{
  uint32_t k = (uint32_t) tag - q->p.first_tag;
  SIM_INVARIANT (q->p.source_tags && k < q->p.tags && !q->tag[k].busy, "a read with tag %u, which is held or not one "
                 "of the requester's %u from %u", tag, q->p.tags, q->p.first_tag);
  /* No completion-buffer limit, the common case: the tag and its round trip are all there is to keep. */
  q->n_free--;
  q->tag[k] = (TxnTag) { .busy = TRUE, .next_address = addr, .remaining = bytes, .issued_ps = now };
  q->cpl_bytes += bytes;
  q->tags_high_water = MAX (q->tags_high_water, q->p.tags - q->n_free);
  q->cpl_bytes_high_water = MAX (q->cpl_bytes_high_water, q->cpl_bytes);
}
/* The request tag `tag` holds (NULL when the tag is not one of ours or is free). */
static inline TxnTag *
txn_req_tag (TxnRequester *q, uint16_t tag)
{
  if (tag < q->p.first_tag || tag - q->p.first_tag >= q->p.tags)
    return NULL;
  TxnTag *g = &q->tag[tag - q->p.first_tag];
  return g->busy ? g : NULL;
}
/* Take completion `c` in: its faults (the TXN_CPL_ bits), the request's remaining bytes and address advanced,
 * its buffer room freed. *done: it was the request's last byte, and the tag is free again. Inline: every completion
 * a requester takes passes here. */
static inline unsigned
txn_req_complete (TxnRequester *q, const Tlp *c, gboolean *done)
{
  *done = FALSE;
  TxnTag *g = txn_req_tag (q, c->tag);
  if (g == NULL)
    return TXN_CPL_UNEXPECTED;
  unsigned bad = (c->address != g->next_address ? TXN_CPL_ADDRESS : 0)
                 | (c->length_bytes != g->remaining ? TXN_CPL_BYTE_COUNT : 0)
                 | (c->payload_bytes > g->remaining ? TXN_CPL_EXCESS : 0);
  g->next_address = c->address + c->payload_bytes;
  g->remaining -= MIN (g->remaining, c->payload_bytes);
  /* The data has been taken out of the buffer: its bytes and its header slot are free. */
  q->cpl_bytes -= c->payload_bytes; /* excess data wraps it, which the device's end-of-run check reports */
  if (g->cpl_headers > 0) {
    g->cpl_headers--;
    q->cpl_headers--;
  }
  if (g->remaining == 0) {
    /* Slots the completer did not use (it split less than it might have) come back with the tag; a stack, so the
     * tag freed last is reused first. */
    q->cpl_headers -= g->cpl_headers;
    g->busy = FALSE;
    if (!q->p.source_tags)
      q->free_tags[q->n_free] = (uint32_t) (g - q->tag);
    q->n_free++;
    *done = TRUE;
  }
  return bad;
}


/* A message-signalled interrupt (MSI or MSI-X, spec §6.1.4): a 1-DW posted write of `data` to `address`, from
 * `requester`, as a TLP_MSI of `pool`. */
Tlp *txn_req_msi (TlpPool *pool, uint64_t address, uint32_t data, uint16_t requester);
