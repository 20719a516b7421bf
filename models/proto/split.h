/* split.h — how PCIe cuts a transfer into TLPs: requests by MPS/MRRS and the 4 KB rule, read completions by
 * the read completion boundary (RCB) and the completer's MPS.
 *
 * Contract:
 * - Pure functions of their arguments: no state, no allocation, so the host, the DMA engines and the tests all
 *   apply one rule. The "next" functions are the hot-path form (one chunk at a time, O(1)); the array forms are
 *   for tests and tools.
 * - Requests (spec r6.3 §2.2.7): no MWr or MRd crosses a 4 KB address boundary; each is <= the given maximum
 *   (MPS for writes, MRRS for reads). Chunks are taken greedily from the start address, as AN-456's chaining DMA
 *   does: it does not realign its first request, so an unaligned buffer costs one extra short TLP per 4 KB page.
 * - Completions (spec §2.3.1.1, pcie-protocol.md §6): a request that fits one completion (<= MPS and, for the RCB
 *   policy, inside one RCB block) gets one; otherwise the first completion ends on an RCB multiple, middle ones
 *   are multiples of RCB, each is <= MPS, and they come in increasing address order. Completions never cross
 *   4 KB either (the request does not).
 * - rcb is 64 or 128; mps is a multiple of rcb (only rcb and the 4 KB page are used as masks): the MPS, a power
 *   of two of 128..4096, or a smaller completion size a completer chooses (the stream's completion_bytes).
 *   Callers validate.
 */
#pragma once

#include <glib.h>
#include <stdint.h>

/* How large a completer makes its completions. Both are legal; chipsets differ (pcie-protocol.md §6). */
typedef enum {
  CPL_POLICY_MPS, /* as large as MPS allows, cut only on RCB multiples: e.g. 256-byte completions */
  CPL_POLICY_RCB, /* one completion per RCB block ("cache-line completions" with RCB 64) */
} CplPolicy;

#define SPLIT_PAGE_BYTES 4096u /* spec §2.2.7: requests never cross a 4 KB boundary */

/* The "next" forms inline: the requesters and completers cut every TLP with them, several times per TLP. */

/* The mask form needs `a` a power of two, which RCB, MPS and the 4 KB page all are (above). */
static inline uint64_t
split_align_down (uint64_t x, uint64_t a)
{
  return x & ~(a - 1);
}

/* Size of the next request starting at addr with `remaining` bytes left, limited by max_bytes and 4 KB. */
static inline uint32_t
split_next_request (uint64_t addr, uint64_t remaining, uint32_t max_bytes)
{
  /* 1..4096: an address on a page boundary may use the whole page, and this bound is never 0. */
  uint64_t to_page = SPLIT_PAGE_BYTES - (addr & (SPLIT_PAGE_BYTES - 1));
  uint64_t n = MIN (remaining, (uint64_t) max_bytes);
  return (uint32_t) MIN (n, to_page);
}

/* Size of the next completion of a read at addr with `remaining` bytes of the request not yet completed.
 * Spec example (pcie-protocol.md §6), 256 bytes at 0x10020 with RCB 64: the RCB policy returns 32 + 64 + 64 + 64
 * + 32; the MPS policy with MPS 256 returns one 256-byte completion, since the RCB rule only constrains where a
 * read that is split gets cut. */
static inline uint32_t
split_next_completion (uint64_t addr, uint32_t remaining, uint32_t rcb, uint32_t mps, CplPolicy policy)
{
  uint64_t end;
  if (policy == CPL_POLICY_RCB)
    end = split_align_down (addr, rcb) + rcb; /* the next RCB boundary, whatever MPS allows */
  else if (remaining <= mps)
    end = addr + remaining; /* one completion for the rest is always legal when it fits MPS */
  else
    end = split_align_down (addr + mps, rcb); /* largest RCB multiple within MPS; > addr because rcb <= mps */
  /* The request itself never crosses 4 KB; clamping here keeps a malformed request from producing an
   * illegal completion rather than trusting the caller. */
  end = MIN (end, split_align_down (addr, SPLIT_PAGE_BYTES) + SPLIT_PAGE_BYTES);
  return (uint32_t) MIN (end - addr, (uint64_t) remaining);
}

/* Array forms. Each writes at most `max` sizes to out[] and returns how many chunks the transfer needs
 * (which may exceed max: then out[] holds the first max). */
guint split_requests (uint64_t addr, uint64_t len, uint32_t max_bytes, uint32_t *out, guint max);
guint split_completions (uint64_t addr, uint32_t len, uint32_t rcb, uint32_t mps, CplPolicy policy,
  uint32_t *out, guint max);
