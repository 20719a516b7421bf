/* split.c — request and completion splitting rules; see split.h for the spec references. */
#include "models/proto/split.h"

/* The mask form needs `a` a power of two, which RCB, MPS and the 4 KB page all are (split.h). */
static inline uint64_t
align_down (uint64_t x, uint64_t a)
{
  return x & ~(a - 1);
}

uint32_t
split_next_request (uint64_t addr, uint64_t remaining, uint32_t max_bytes)
{
  /* 1..4096: an address on a page boundary may use the whole page, and this bound is never 0. */
  uint64_t to_page = SPLIT_PAGE_BYTES - (addr & (SPLIT_PAGE_BYTES - 1));
  uint64_t n = MIN (remaining, (uint64_t) max_bytes);
  return (uint32_t) MIN (n, to_page);
}

/* Spec example (pcie-protocol.md §6), 256 bytes at 0x10020 with RCB 64: the RCB policy returns 32 + 64 + 64 + 64
 * + 32; the MPS policy with MPS 256 returns one 256-byte completion, since the RCB rule only constrains where a
 * read that is split gets cut. */
uint32_t
split_next_completion (uint64_t addr, uint32_t remaining, uint32_t rcb, uint32_t mps, CplPolicy policy)
{
  uint64_t end;
  if (policy == CPL_POLICY_RCB)
    end = align_down (addr, rcb) + rcb; /* the next RCB boundary, whatever MPS allows */
  else if (remaining <= mps)
    end = addr + remaining; /* one completion for the rest is always legal when it fits MPS */
  else
    end = align_down (addr + mps, rcb); /* largest RCB multiple within MPS; > addr because rcb <= mps */
  /* The request itself never crosses 4 KB; clamping here keeps a malformed request from producing an
   * illegal completion rather than trusting the caller. */
  end = MIN (end, align_down (addr, SPLIT_PAGE_BYTES) + SPLIT_PAGE_BYTES);
  return (uint32_t) MIN (end - addr, (uint64_t) remaining);
}

/* The array forms keep counting past `max`, so a caller can size out[] with a first call at max 0. The loops end
 * because every chunk is at least one byte for valid arguments (max_bytes >= 1; rcb <= mps, split.h). */
guint
split_requests (uint64_t addr, uint64_t len, uint32_t max_bytes, uint32_t *out, guint max)
{
  guint n = 0;
  while (len > 0) {
    uint32_t s = split_next_request (addr, len, max_bytes);
    if (n < max)
      out[n] = s;
    n++;
    addr += s;
    len -= s;
  }
  return n;
}

guint
split_completions (uint64_t addr, uint32_t len, uint32_t rcb, uint32_t mps, CplPolicy policy, uint32_t *out,
  guint max)
{
  guint n = 0;
  while (len > 0) {
    uint32_t s = split_next_completion (addr, len, rcb, mps, policy);
    if (n < max)
      out[n] = s;
    n++;
    addr += s;
    len -= s;
  }
  return n;
}
