/* pattern.h — the data the DMA benchmark moves, as a checksum instead of bytes.
 *
 * Contract: the 4-byte DW at host address A holds pattern_dw(A), a 64-bit mix of A, so every DW is distinct
 * and a DW delivered to the wrong place, twice, or not at all changes any sum it is part of. pattern_sum(A, n)
 * is the sum (mod 2^64) over the DWs of [A, A + n), n a multiple of 4. Receivers add pattern_sum() of every
 * payload they take in; the end-of-run check compares that with pattern_sum() of the ranges the transfer was
 * asked to move, worked out from the descriptors alone. Sums are additive over any split of a range, so the
 * expected value does not depend on how the data was cut into TLPs, and memory is O(1) whatever the size.
 * Order is not visible in a sum; receivers check addresses in order per request separately. */
#pragma once

#include <stdint.h>

static inline uint64_t
pattern_dw (uint64_t address)
{
  /* splitmix64's finaliser: cheap, and no two addresses map to related values. */
  uint64_t z = address + 0x9e3779b97f4a7c15u;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

static inline uint64_t
pattern_sum (uint64_t address, uint64_t bytes)
{
  uint64_t sum = 0;
  for (uint64_t off = 0; off < bytes; off += 4)
    sum += pattern_dw (address + off);
  return sum;
}
