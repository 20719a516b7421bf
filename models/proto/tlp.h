/* tlp.h — transaction-layer packets: kinds, sizes, credit costs, and the free-list pool they live in.
 *
 * Contract:
 * - A Tlp is owned by exactly one party at a time: the pool, a sender's queue, the link, or the receiver that was
 *   handed it. The receiver returns it with tlp_free() when done; nothing else frees TLPs.
 * - tlp_pool_alloc() never calls malloc once the pool has grown to the working-set size (it grows by chunks).
 * - Byte and credit figures follow the PCIe Base Spec r6.3 (§2.2 headers, §2.6.1 credits) and are pure functions
 *   of the TLP's fields, so the link, the accounting and the tests all agree on them.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "models/proto/fc.h"

/* Spec §2.7: the optional end-to-end CRC is one DW. */
#define TLP_ECRC_BYTES 4u
/* Spec §2.6.1 (pcie-protocol.md §5): one data credit = 4 DW = 16 bytes. */
#define TLP_DATA_CREDIT_BYTES 16u

typedef enum {
  TLP_MWR, /* posted memory write with data */
  TLP_MRD, /* non-posted memory read request, no data */
  TLP_CPLD, /* completion with data */
  TLP_CPL, /* completion without data */
  TLP_MSI, /* message-signalled interrupt: a 1-DW MWr, counted separately for reports */
  TLP_KIND_COUNT
} TlpKind;

typedef struct Tlp Tlp;
/* Fields are ordered so the struct stays 64 bytes, one cache line. */
struct Tlp {
  Tlp *next; /* intrusive link for queues and the free list */
  TlpKind kind;
  uint8_t header_bytes; /* 12 (3 DW) or 16 (4 DW); completions are always 12 */
  bool ecrc; /* 4-byte end-to-end CRC appended (spec §2.7) */
  /* Requester ID, bus << 8 | device << 3 | function (spec §2.2.6.2): of a request, its sender's; of a completion,
   * the requester's it answers, by which every switch and root port routes it back. */
  uint16_t requester;
  uint32_t payload_bytes; /* data carried (0 for MRd, Cpl) */
  uint32_t length_bytes; /* MRd: bytes requested; CplD: byte count still outstanding incl. this one (§2.2.9) */
  uint64_t address; /* MWr/MRd target; CplD: address of the first payload byte (for ordering checks) */
  /* MRd and its completions: a requester never has two outstanding requests with one tag, so requester and tag
   * name a request across the fabric (spec §2.2.6.2). */
  uint16_t tag;
  uint16_t seq; /* data-link sequence number, set by the link */
  uint16_t port; /* free for the component holding the TLP: e.g. the port it came in on */
  /* Free for a component that forwards the TLP and must leave every other field as the sender wrote it (a
   * switch): e.g. its place in the arrival order (wrapping) and when it may leave. */
  uint16_t order;
  uint64_t hold_ps;
  uint64_t stamp_ps; /* free for the owner: e.g. when a request was issued */
  uint64_t cookie; /* owner-defined */
};

/* Public only for the inline allocation and release below (every TLP passes both); nothing else reads it. */
typedef struct TlpPool TlpPool;
struct TlpPool {
  Tlp *free_list;
  GPtrArray *chunks; /* each a g_new0 (Tlp, TLP_POOL_CHUNK) block */
  size_t live; /* handed out and not yet freed: 0 at the end of a run, or something leaked a TLP */
  size_t capacity;
};

TlpPool *tlp_pool_new (void);
void tlp_pool_free (TlpPool *pool);
/* Another chunk of structs onto the free list (tlp_alloc() when it is empty). */
void tlp_pool_grow (TlpPool *pool);

/* Zero-filled so stale fields of a recycled TLP (tag, requester, cookie) never leak into a new one. */
static inline Tlp *
tlp_alloc (TlpPool *pool)
{
  if (G_UNLIKELY (!pool->free_list))
    tlp_pool_grow (pool);
  Tlp *tlp = pool->free_list;
  pool->free_list = tlp->next;
  memset (tlp, 0, sizeof *tlp);
  pool->live++;
  return tlp;
}

/* A TLP made from a description every field of which its owner set (an arbiter's probe): copied over the recycled
 * struct, whose stale fields it replaces, so the zero fill of tlp_alloc() would be written twice. Next NULL. */
static inline Tlp *
tlp_alloc_copy (TlpPool *pool, const Tlp *from)
{
  if (G_UNLIKELY (!pool->free_list))
    tlp_pool_grow (pool);
  Tlp *tlp = pool->free_list;
  pool->free_list = tlp->next;
  *tlp = *from;
  tlp->next = NULL;
  pool->live++;
  return tlp;
}

/* LIFO reuse keeps the hottest structs in cache; `live` is the leak check of tlp_pool_live(). */
static inline void
tlp_free (TlpPool *pool, Tlp *tlp)
{
  if (!tlp)
    return;
  /* Frees outnumbering allocations betray a double free (or a TLP from another pool). */
  g_assert (pool->live > 0);
  tlp->next = pool->free_list;
  pool->free_list = tlp;
  pool->live--;
}
/* TLPs currently handed out (leak check at the end of a run). */
size_t tlp_pool_live (const TlpPool *pool);
/* TLP structs ever allocated (memory check). */
size_t tlp_pool_capacity (const TlpPool *pool);

/* The size and credit figures below are inline: the link asks them several times per TLP (can_send, send, the
 * serialiser, the receiver, the consumer), and out of line each was a call for a handful of instructions. */

/* A kind outside TlpKind: charging it to some class would corrupt the credit books silently, so it aborts. */
G_GNUC_NORETURN void tlp_fc_class_bad (TlpKind kind);

static inline FcClass
tlp_fc_class (TlpKind kind)
{
  /* Spec §2.6.1, pcie-protocol.md §5 "Costs": writes and messages are posted, reads non-posted. */
  switch (kind) {
  case TLP_MWR:
  case TLP_MSI:
    return FC_P;
  case TLP_MRD:
    return FC_NP;
  case TLP_CPLD:
  case TLP_CPL:
    return FC_CPL;
  case TLP_KIND_COUNT:
  default:
    break;
  }
  tlp_fc_class_bad (kind);
}

/* Data credits: ceil(payload / 16 bytes), spec §2.6.1 ("4 DW = 1 data credit"). Partial credits round up, because
 * a receiver buffers whole 16-byte units: a 4-byte MSI takes a full credit, a 260-byte write 17. Kinds without
 * data (MRd, Cpl) cost none. */
static inline uint32_t
tlp_data_credits (const Tlp *tlp)
{
  return (tlp->payload_bytes + TLP_DATA_CREDIT_BYTES - 1) / TLP_DATA_CREDIT_BYTES;
}

/* Header credits: always 1 per TLP (spec §2.6.1). */
static inline uint32_t
tlp_header_credits (const Tlp *tlp)
{
  (void) tlp;
  return 1;
}

/* Header + optional ECRC + payload: what the transaction layer hands the data link layer. Sequence number, LCRC
 * and framing tokens belong to the data link and physical layers (phy.c adds them), which is why they are not
 * here; ECRC is end-to-end, a transaction-layer field, so it is. */
static inline uint32_t
tlp_transaction_bytes (const Tlp *tlp)
{
  return tlp->header_bytes + (tlp->ecrc ? TLP_ECRC_BYTES : 0) + tlp->payload_bytes;
}
const char *tlp_kind_name (TlpKind kind);
/* A FIFO of TLPs threaded through Tlp.next, for every queue a model keeps (link, host, app, stream): a TLP sits
 * on at most one list at a time (tlp.h's ownership rule), so queueing needs no allocation per TLP. Zero-filled
 * is empty. Inline because the link and the host push and pop on every TLP. */
typedef struct {
  Tlp *head, *tail;
} TlpFifo;

static inline void
tlp_fifo_push (TlpFifo *f, Tlp *tlp)
{
  tlp->next = NULL;
  if (f->tail != NULL)
    f->tail->next = tlp;
  else
    f->head = tlp;
  f->tail = tlp;
}

/* The oldest TLP, unlinked (next = NULL), or NULL when the FIFO is empty. */
static inline Tlp *
tlp_fifo_pop (TlpFifo *f)
{
  Tlp *tlp = f->head;
  if (tlp != NULL) {
    f->head = tlp->next;
    if (f->head == NULL)
      f->tail = NULL;
    tlp->next = NULL;
  }
  return tlp;
}

/* O(n): for diagnostics (the deadlock watchdog's message), not for the hot path. */
guint tlp_fifo_len (const TlpFifo *f);

/* Fill kind, header size, address and sizes: for MRd `payload_bytes` is the read length (length_bytes) and the
 * TLP carries no data; MSI always carries 1 DW; addr64 selects a 4-DW header for MWr/MRd/MSI. */
void tlp_set (Tlp *tlp, TlpKind kind, gboolean addr64, uint64_t address, uint32_t payload_bytes);
