/* requester.c — the one requester (contract in requester.h). */
#include "models/txn/requester.h"

void
txn_req_init (TxnRequester *q, const TxnReqParams *p)
{
  g_assert (!p->source_tags || p->cpl_buffer_headers == 0); /* txn_req_issue_tag() reserves no header slots */
  *q = (TxnRequester) { .p = *p };
  q->free_tags = g_new (uint32_t, MAX (p->tags, 1u));
  q->tag = g_new0 (TxnTag, MAX (p->tags, 1u));
  /* A stack whose top is index 0: the lowest tag goes first. */
  for (uint32_t i = 0; i < p->tags; i++)
    q->free_tags[i] = p->tags - 1 - i;
  q->n_free = p->tags;
}

void
txn_req_clear (TxnRequester *q)
{
  g_clear_pointer (&q->free_tags, g_free);
  g_clear_pointer (&q->tag, g_free);
}

void
txn_req_byte_enables (uint64_t addr, uint32_t len, uint8_t *first_be, uint8_t *last_be)
{
  uint32_t lo = (uint32_t) (addr & 3u), end = lo + len; /* byte offsets from the first DW's start */
  if (len == 0) {
    *first_be = *last_be = 0; /* a zero-length read (spec §2.2.5): 1 DW with no byte enabled */
    return;
  }
  if (end <= 4) {
    *first_be = (uint8_t) (((1u << len) - 1) << lo);
    *last_be = 0;
    return;
  }
  *first_be = (uint8_t) (0xfu << lo & 0xfu);
  uint32_t tail = end & 3u; /* bytes used of the last DW, 0 when all four */
  *last_be = (uint8_t) (tail ? (1u << tail) - 1 : 0xfu);
}

uint32_t
txn_req_tag_bits (uint32_t tags)
{
  return tags <= 32 ? 5 : tags <= 256 ? 8 : tags <= 768 ? 10 : tags <= 16384 ? 14 : 0;
}

/* Tag index k (taken off the free stack) now holds a read of `bytes` at addr. Inlined in both callers: it is most
 * of what issuing a read costs. */
static inline __attribute__ ((always_inline)) void
claim (TxnRequester *q, uint32_t k, uint64_t addr, uint32_t bytes, SimTime now)
{
  uint32_t hdrs = txn_req_cpl_headers (q, addr, bytes);
  q->tag[k] = (TxnTag) { .busy = TRUE, .next_address = addr, .remaining = bytes, .cpl_headers = hdrs,
                         .issued_ps = now };
  q->cpl_bytes += bytes;
  q->cpl_headers += hdrs;
  q->tags_high_water = MAX (q->tags_high_water, q->p.tags - q->n_free);
  q->cpl_bytes_high_water = MAX (q->cpl_bytes_high_water, q->cpl_bytes);
  q->cpl_headers_high_water = MAX (q->cpl_headers_high_water, q->cpl_headers);
}

uint16_t
txn_req_issue (TxnRequester *q, uint64_t addr, uint32_t bytes, SimTime now)
{
  g_assert (q->n_free > 0 && !q->p.source_tags);
  uint32_t k = q->free_tags[--q->n_free];
  claim (q, k, addr, bytes, now);
  return (uint16_t) (q->p.first_tag + k);
}

Tlp *
txn_req_msi (TlpPool *pool, uint64_t address, uint32_t data, uint16_t requester)
{
  Tlp *t = tlp_alloc (pool);
  tlp_set (t, TLP_MSI, address > UINT32_MAX, address, 4);
  t->requester = requester;
  t->cookie = data; /* the message data: what the host's interrupt handler reads */
  return t;
}
