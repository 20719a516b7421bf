/* wc.c — see wc.h for the contract. */
#include "models/devices/wc.h"

#include "sim/engine.h"

/* 8-byte chunks: the unit of a partial write (SDM §11.3.1). */
#define CHUNK_BYTES 8u

typedef struct {
  gboolean used;
  uint64_t line; /* address of the line's first byte */
  uint64_t valid; /* bit i: byte line + i was stored */
  uint64_t taken; /* allocation order, for the FIFO replacement */
} WcBuffer;

struct Wc {
  WcParams p;
  uint64_t full_mask; /* valid bits of a full buffer */
  WcEmitFn emit;
  void *ctx;
  uint64_t next_taken;
  WcCounters counters;
  WcBuffer buf[WC_MAX_BUFFERS];
};

gboolean
wc_params_check (const WcParams *p, GError **error)
{
  if (p->buffers < 1 || p->buffers > WC_MAX_BUFFERS) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "%u write-combining buffers: must be 1 to %u", p->buffers,
      WC_MAX_BUFFERS);
    return FALSE;
  }
  if (p->buffer_bytes != 32 && p->buffer_bytes != 64) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "write-combining buffer of %u bytes: must be 64, or 32 (P6)",
      p->buffer_bytes);
    return FALSE;
  }
  return TRUE;
}

Wc *
wc_new (const WcParams *p, WcEmitFn emit, void *ctx)
{
  SIM_INVARIANT (wc_params_check (p, NULL), "wc_new: unchecked parameters (%u x %u bytes)", p->buffers,
    p->buffer_bytes);
  Wc *wc = g_new0 (Wc, 1);
  wc->p = *p;
  wc->full_mask = p->buffer_bytes == 64 ? UINT64_MAX : (UINT64_C (1) << p->buffer_bytes) - 1;
  wc->emit = emit;
  wc->ctx = ctx;
  return wc;
}

void
wc_free (Wc *wc)
{
  g_free (wc);
}

static void
emit (Wc *wc, uint64_t address, uint32_t length, uint8_t enables, WcWriteKind kind)
{
  const WcWrite w = { address, length, enables, kind };
  if (kind == WC_FULL)
    wc->counters.full_writes++;
  else if (kind == WC_UC)
    wc->counters.uc_writes++;
  else
    wc->counters.partial_writes++;
  wc->emit (wc->ctx, &w);
}

/* A partly filled buffer leaves one 8-byte write per chunk with a valid byte. */
static void
drain (Wc *wc, WcBuffer *b, WcWriteKind kind)
{
  for (uint32_t off = 0; off < wc->p.buffer_bytes; off += CHUNK_BYTES) {
    const uint8_t enables = (uint8_t) (b->valid >> off);
    if (enables != 0)
      emit (wc, b->line + off, CHUNK_BYTES, enables, kind);
  }
  b->used = FALSE;
}

static WcBuffer *
oldest (Wc *wc)
{
  WcBuffer *o = NULL;
  for (uint32_t i = 0; i < wc->p.buffers; i++)
    if (wc->buf[i].used && (o == NULL || wc->buf[i].taken < o->taken))
      o = &wc->buf[i];
  return o;
}

static void
check_store (const Wc *wc, uint64_t address, uint32_t width)
{
  SIM_INVARIANT (width >= 1 && width <= 32 && width <= wc->p.buffer_bytes && (width & (width - 1)) == 0
                  && address % width == 0,
    "write-combining store of %u bytes at 0x%" G_GINT64_MODIFIER "x: the width must be a power of two up to 32 "
    "(and the buffer size %u) and the address a multiple of it", width, address, wc->p.buffer_bytes);
  (void) wc;
}

void
wc_store (Wc *wc, uint64_t address, uint32_t width)
{
  check_store (wc, address, width);
  wc->counters.bytes_stored += width;
  const uint64_t line = address - address % wc->p.buffer_bytes;
  WcBuffer *b = NULL, *free_buf = NULL;
  for (uint32_t i = 0; i < wc->p.buffers && b == NULL; i++) {
    if (wc->buf[i].used && wc->buf[i].line == line)
      b = &wc->buf[i];
    else if (!wc->buf[i].used && free_buf == NULL)
      free_buf = &wc->buf[i];
  }
  if (b == NULL) {
    if (free_buf == NULL) {
      free_buf = oldest (wc);
      drain (wc, free_buf, WC_EVICT);
    }
    b = free_buf;
    *b = (WcBuffer) { TRUE, line, 0, wc->next_taken++ };
  }
  /* width <= 32, so the shift below never reaches 64. */
  b->valid |= ((UINT64_C (1) << width) - 1) << (address - line);
  if (b->valid == wc->full_mask) {
    b->used = FALSE;
    emit (wc, line, wc->p.buffer_bytes, 0xff, WC_FULL);
  }
}

void
wc_fence (Wc *wc)
{
  WcBuffer *b;
  while ((b = oldest (wc)) != NULL)
    drain (wc, b, WC_FENCE);
}

void
wc_store_uc (Wc *wc, uint64_t address, uint32_t width)
{
  check_store (wc, address, width);
  wc_fence (wc);
  wc->counters.bytes_stored += width;
  emit (wc, address, width, 0xff, WC_UC);
}

uint32_t
wc_split_width (uint64_t address, uint64_t length, uint32_t width)
{
  uint32_t w = width;
  while (w > 1 && (w > length || address % w != 0))
    w /= 2;
  return w;
}

void
wc_copy (Wc *wc, gboolean uc, uint64_t address, uint64_t length, uint32_t width)
{
  while (length > 0) {
    uint32_t w = wc_split_width (address, length, width);
    if (uc)
      wc_store_uc (wc, address, w);
    else
      wc_store (wc, address, w);
    address += w;
    length -= w;
  }
}

guint
wc_buffers_in_use (const Wc *wc)
{
  guint n = 0;
  for (uint32_t i = 0; i < wc->p.buffers; i++)
    n += wc->buf[i].used;
  return n;
}

WcCounters
wc_counters (const Wc *wc)
{
  return wc->counters;
}
