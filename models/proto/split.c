/* split.c — request and completion splitting rules; see split.h for the spec references. */
#include "models/proto/split.h"

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
  /* Counted alone, line by line: one per RCB block the range touches (an RCB block never crosses 4 KB). A root
   * complex with completion slots counts every read it takes in (completer.h, Room). */
  if (max == 0 && policy == CPL_POLICY_RCB && len > 0)
    return (guint) ((addr + len + rcb - 1) / rcb - addr / rcb);
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
