/* pattern.h — the data the DMA benchmark moves, as a checksum instead of bytes.
 *
 * Contract: the 4-byte DW at host address A holds pattern_dw(A), a 64-bit value of A, so every DW is distinct
 * and a DW delivered to the wrong place, twice, or not at all changes any sum it is part of. pattern_sum(A, n)
 * is the sum (mod 2^64) over the DWs of [A, A + n), n a multiple of 4. Receivers add pattern_sum() of every
 * payload they take in; the end-of-run check compares that with pattern_sum() of the ranges the transfer was
 * asked to move, worked out from the descriptors alone. Sums are additive over any split of a range, so the
 * expected value does not depend on how the data was cut into TLPs, and memory is O(1) whatever the size.
 * Order is not visible in a sum; receivers check addresses in order per request separately.
 *
 * Within a 4 KB page P, DW i holds base(P) + i * step(P), with base and step 64-bit mixes of P and step odd:
 * the DWs of a page are distinct (an odd step is invertible mod 2^64), pages are unrelated, and a range's sum
 * has a closed form per page. Summing DW by DW cost more than the rest of the model per TLP, and the
 * end-of-run check of a 1 GB transfer summed 2^28 DWs. A TLP never crosses a page (split.h), so receivers pay
 * one closed form per TLP; the check pays one per page of the buffer. */
#pragma once

#include <stdint.h>

static inline uint64_t
pattern_mix (uint64_t x)
{
  /* splitmix64's finaliser: cheap, and no two inputs map to related values. */
  uint64_t z = x + 0x9e3779b97f4a7c15u;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

#define PATTERN_PAGE_BYTES 4096u

static inline uint64_t
pattern_base (uint64_t page)
{
  return pattern_mix (page);
}

static inline uint64_t
pattern_step (uint64_t page)
{
  return pattern_mix (page ^ 0x5851f42d4c957f2du) | 1u;
}

static inline uint64_t
pattern_dw (uint64_t address)
{
  uint64_t page = address / PATTERN_PAGE_BYTES, i = (address % PATTERN_PAGE_BYTES) / 4;
  return pattern_base (page) + i * pattern_step (page);
}

static inline uint64_t
pattern_sum (uint64_t address, uint64_t bytes)
{
  uint64_t sum = 0;
  while (bytes > 0) {
    uint64_t page = address / PATTERN_PAGE_BYTES, i0 = (address % PATTERN_PAGE_BYTES) / 4;
    uint64_t k = (PATTERN_PAGE_BYTES - address % PATTERN_PAGE_BYTES) / 4;
    if (k > bytes / 4)
      k = bytes / 4;
    /* DWs i0 .. i0 + k - 1: k bases plus step times (k * i0 + k (k - 1) / 2); k <= 1024, so no overflow. */
    sum += k * pattern_base (page) + (k * i0 + k * (k - 1) / 2) * pattern_step (page);
    address += 4 * k;
    bytes -= 4 * k;
  }
  return sum;
}
