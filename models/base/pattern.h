/* pattern.h — the data the DMA benchmark moves, as a checksum instead of bytes.
 *
 * Contract: the 4-byte DW at host address a holds pattern_dw(a) = a * (K1 + K2 * a) mod 2^64, with K1 odd and
 * K2 even, so K1 + K2 * a is odd and invertible: the value is 0 only at address 0 (never a DMA address), and two
 * DWs differ by (b - a) * (K1 + K2 * (a + b)), nonzero for any a != b. pattern_sum(a, n) is the sum (mod 2^64)
 * over the DWs of [a, a + n), n a multiple of 4, in closed form: O(1) time and memory whatever n is.
 * Receivers add pattern_sum() of every payload they take in; the end-of-run check compares that with the
 * pattern_sum() of the ranges the transfer was asked to move, worked out from the descriptors alone. Sums are
 * additive over any split of a range, so the expected value does not depend on how data was cut into TLPs; and
 * by the two facts above one DW dropped, duplicated or delivered to another address always changes the sum.
 * Order is not visible in a sum: receivers check addresses in order per request separately. */
#pragma once

#include <stdint.h>

#define PATTERN_K1 0x9e3779b97f4a7c15u /* odd */
#define PATTERN_K2 0xbf58476d1ce4e5bau /* even */

static inline uint64_t
pattern_dw (uint64_t address)
{
  return address * (PATTERN_K1 + PATTERN_K2 * address);
}

/* The two sums over k < n that pattern_sum() needs, T1 = n (n - 1) / 2 and T2 = (n - 1) n (2n - 1) / 6, mod 2^64.
 * The divisions are exact only before wrapping, so they are taken out of the factors first: one of n - 1, n is
 * even, and one of the three is a multiple of 3. */
static inline void
pattern_terms (uint64_t n, uint64_t *t1, uint64_t *t2)
{
  *t1 = n % 2 == 0 ? n / 2 * (n - 1) : (n - 1) / 2 * n;
  uint64_t f[3] = { n - 1, n, 2 * n - 1 };
  for (int i = 0; i < 2; i++)
    if (f[i] % 2 == 0) {
      f[i] /= 2;
      break;
    }
  for (int i = 0; i < 3; i++)
    if (f[i] % 3 == 0) {
      f[i] /= 3;
      break;
    }
  *t2 = f[0] * f[1] * f[2];
}

/* Over the DWs a + 4k, k < n: sum a + 4k = n a + 4 T1 and sum (a + 4k)^2 = n a^2 + 8 a T1 + 16 T2. */
static inline uint64_t
pattern_sum_of (uint64_t address, uint64_t n, uint64_t t1, uint64_t t2)
{
  uint64_t s1 = n * address + 4 * t1;
  uint64_t s2 = n * address * address + 8 * address * t1 + 16 * t2;
  return PATTERN_K1 * s1 + PATTERN_K2 * s2;
}

static inline uint64_t
pattern_sum (uint64_t address, uint64_t bytes)
{
  uint64_t n = bytes / 4;
  if (n == 0)
    return 0;
  uint64_t t1, t2;
  pattern_terms (n, &t1, &t2);
  return pattern_sum_of (address, n, t1, t2);
}

/* pattern_sum() for a receiver that sums many payloads of one length (every completion of MPS bytes): the terms of
 * the last length are kept here, and a sum of the same length is a few multiplications. Zero-filled is empty. */
typedef struct {
  uint64_t n, t1, t2;
} PatternMemo;

static inline uint64_t
pattern_sum_memo (PatternMemo *m, uint64_t address, uint64_t bytes)
{
  uint64_t n = bytes / 4;
  if (n == 0)
    return 0;
  if (n != m->n) {
    m->n = n;
    pattern_terms (n, &m->t1, &m->t2);
  }
  return pattern_sum_of (address, n, m->t1, m->t2);
}
