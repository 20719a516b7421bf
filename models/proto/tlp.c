/* tlp.c — TLP sizes, credit costs and the chunked free-list pool.
 *
 * The pool hands out structs from chunks of TLP_POOL_CHUNK and never returns memory until tlp_pool_free(),
 * so after warm-up a simulation allocates nothing per TLP (design.md: "no malloc per TLP on the hot path"). */
#include "models/proto/tlp.h"

#include <string.h>

/* Configurable default, because 256 structs (≈ 20 KB) cover the tags × queues of one device with room to spare,
 * while a sweep that creates many pools does not pay for a large first chunk. */
#define TLP_POOL_CHUNK 256

TlpPool *
tlp_pool_new (void)
{
  TlpPool *pool = g_new0 (TlpPool, 1);
  pool->chunks = g_ptr_array_new_with_free_func (g_free);
  return pool;
}

/* The chunks own every struct, so this also reclaims TLPs still handed out: leak checks read tlp_pool_live() first. */
void
tlp_pool_free (TlpPool *pool)
{
  if (!pool)
    return;
  g_ptr_array_unref (pool->chunks);
  g_free (pool);
}

void
tlp_pool_grow (TlpPool *pool)
{
  Tlp *chunk = g_new0 (Tlp, TLP_POOL_CHUNK);
  g_ptr_array_add (pool->chunks, chunk);
  /* Thread in reverse so allocation order follows memory order (friendlier to the cache, and deterministic). */
  for (size_t i = TLP_POOL_CHUNK; i-- > 0;) {
    chunk[i].next = pool->free_list;
    pool->free_list = &chunk[i];
  }
  pool->capacity += TLP_POOL_CHUNK;
}

size_t
tlp_pool_live (const TlpPool *pool)
{
  return pool->live;
}

size_t
tlp_pool_capacity (const TlpPool *pool)
{
  return pool->capacity;
}

void
tlp_fc_class_bad (TlpKind kind)
{
  g_error ("tlp_fc_class: bad kind %d", (int) kind);
}

const char *
tlp_kind_name (TlpKind kind)
{
  /* Never aborts on a bad kind: error messages about such a TLP call it. */
  static const char *const names[TLP_KIND_COUNT] = { "MWr", "MRd", "CplD", "Cpl", "MSI" };
  return (unsigned) kind < TLP_KIND_COUNT ? names[kind] : "?";
}

void
tlp_set (Tlp *tlp, TlpKind kind, gboolean addr64, uint64_t address, uint32_t payload_bytes)
{
  tlp->kind = kind;
  /* pcie-protocol.md §2: MWr/MRd carry 3 DW headers with 32-bit addresses, 4 DW with 64-bit; completions 3 DW. */
  gboolean four_dw = addr64 && (kind == TLP_MWR || kind == TLP_MRD || kind == TLP_MSI);
  tlp->header_bytes = four_dw ? 16 : 12;
  tlp->address = address;
  /* MSI is a 1-DW MWr (pcie-protocol.md §2); reads carry no data but request length_bytes. */
  tlp->payload_bytes = kind == TLP_MSI ? 4 : (kind == TLP_MRD || kind == TLP_CPL) ? 0 : payload_bytes;
  /* For a CplD this makes the byte count (§2.2.9) that of a sole or last completion; a completer that splits a
   * read sets length_bytes to what remains of the request after the call. */
  tlp->length_bytes = kind == TLP_MRD ? payload_bytes : tlp->payload_bytes;
}

guint
tlp_fifo_len (const TlpFifo *f)
{
  guint n = 0;
  for (const Tlp *t = f->head; t != NULL; t = t->next)
    n++;
  return n;
}
