/* dma_chain.c — AN-456 chaining DMA engines (contract in dma_chain.h).
 *
 * Each engine is a state machine pulled by the application datapath: engine_peek() says what it would send given
 * the state at that instant — a due descriptor fetch, else data, else the EPLAST write, else the MSI — and
 * engine_take() commits exactly that. An engine has no clock of its own: the only event it schedules is the
 * wake-up at the end of a descriptor's setup time, and whatever may unblock it (a start register write, a
 * completion freeing a tag or buffer space) calls app_kick().
 *
 * Tags and the completion buffer belong to the chain, not to an engine: the endpoint is one requester ID, so
 * every MRd of every engine, descriptor fetches included, draws from one tag space, and every completion lands
 * in one receive buffer. Descriptor contents come from the host memory model once a fetch has completed; the
 * TLPs carry only the timing.
 */
#include "models/devices/dma_chain.h"

#include "models/base/pattern.h"
#include "models/txn/requester.h"
#include "models/observe/pcie_trace.h"

#define MSI_ADDRESS 0xFEE00000u /* x86 local APIC window: the address every MSI on these hosts targets */

/* What follows the data, in AN-456's order: EPLAST, then the MSI when enabled. Both are posted writes and keep
 * their order, so a driver woken by the MSI always finds EPLAST already in host memory. */
typedef enum { TAIL_DATA, TAIL_STATUS, TAIL_MSI, TAIL_DONE } EngineTail;

typedef struct DmaEngine DmaEngine;

/* What a tag's read is for, beside what the requester keeps of it (requester.h: its bytes still to come, the
 * address its next completion must start at, its header slots, when the MRd was committed). */
typedef struct {
  DmaEngine *engine; /* NULL when the tag is free */
  gboolean desc; /* a descriptor fetch rather than data */
  uint32_t n_desc; /* descriptor fetch: how many descriptors it carries */
  uint64_t desc_address;
  gboolean first_fetch; /* the run's first descriptor fetch */
} TagEntry;

struct DmaEngine {
  DmaChain *dma;
  DmaDir dir;
  uint32_t channel;
  uint32_t regs[4]; /* descriptor header DW0..DW3 as software last wrote them; decoded on the DW3 write */
  gboolean running;
  uint32_t n_desc;
  uint64_t table;
  gboolean msi;

  /* Descriptor fetch and FIFO. fifo_count + desc_inflight never exceeds desc_fifo_entries: room is reserved
   * when a fetch is issued, so its descriptors always fit when they land. */
  uint32_t desc_requested; /* descriptors asked for so far */
  uint32_t desc_inflight; /* asked for, not yet arrived */
  DmaDescriptor fifo[DMA_MAX_DESC_FIFO];
  uint32_t fifo_head, fifo_count;
  uint32_t desc_taken; /* descriptors moved into `cur` */

  /* The descriptor being transferred. */
  gboolean have_cur;
  uint64_t cur_host, cur_left; /* next host address and bytes left: requests are cut from here (split.h) */
  SimTime cur_ready_ps; /* after desc_setup_cycles */
  gboolean wake_pending;

  uint64_t requested, completed; /* data bytes of this run: issued (MRd length / MWr payload), finished */
  const Tlp *last_data; /* write engine: its final data MWr, handed to the link and not yet on the wire */
  EngineTail tail;
  uint32_t runs;
  SimTime counter_start_ps, counter_stop_ps;
  uint8_t why; /* StallCause: what it waited for at its last peek (STALL_DATAPATH: it had a TLP) */
  /* Tracing: its phase (transfer, status write, interrupt) and its descriptor fetches, each an open slice. */
  TraceDma tr;
  TraceDmaState phase;
};

struct DmaChain {
  SimEngine *engine;
  DmaParams p;
  PatternMemo read_sum_memo; /* read data completions' checksums, mostly of one length (pattern.h) */
  App *app;
  TlpPool *pool;
  uint16_t requester; /* the endpoint's ID, on every request */
  uint32_t msi_data; /* the MSI data software gave channel 0's write engine */
  DmaMemReadFn mem_read;
  void *mem_ctx;
  SimTime setup_ps; /* desc_setup_cycles in ps: descriptor taken -> its first data TLP may be offered */

  /* Engine of channel c, direction dir: eng[c * DMA_DIR_COUNT + dir]; n_eng = channels x 2. */
  DmaEngine eng[DMA_MAX_CHANNELS * DMA_DIR_COUNT];
  uint32_t n_eng;
  TagEntry tag[DMA_TAG_SPACE];
  /* Tags, cuts and the completion buffer (every byte requested and not yet taken in, and header slots reserved by
   * outstanding requests). */
  TxnRequester txn;
  DmaCounters c;
  DmaCounterFn notify;
  void *notify_ctx;
  /* Why (stall.h): per direction, what its engines wait for; the read round trip of every data MRd; the first
   * descriptor fetch of every run. */
  StallClock rq[DMA_DIR_COUNT];
  LatHist read_rtt;
  SimTime first_fetch_ps[DMA_DIR_COUNT];
  uint32_t first_fetch_n[DMA_DIR_COUNT];
  SimTrace *trace;
  SimTraceCounter tr_tags;
};

gboolean
dma_params_check (const DmaParams *p, GError **error)
{
  /* The MPS and MRRS encodings of Device Control (spec §7.5.3.4, pcie-protocol.md §6). */
  static const uint32_t sizes[] = { 128, 256, 512, 1024, 2048, 4096 };
  gboolean mps_ok = FALSE, mrrs_ok = FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++) {
    mps_ok |= p->max_payload_bytes == sizes[i];
    mrrs_ok |= p->max_read_request_bytes == sizes[i];
  }
  if (!mps_ok || !mrrs_ok) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM,
      "max payload %u / max read request %u: each must be 128..4096, a power of 2",
      p->max_payload_bytes, p->max_read_request_bytes);
    return FALSE;
  }
  /* 32 is the 5-bit default AN-456 runs with; up to 256 are 8-bit extended tags, up to 768 10-bit tags. */
  if (p->tags < 1 || p->tags > DMA_MAX_TAGS) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "tags %u: must be 1..%u", p->tags, DMA_MAX_TAGS);
    return FALSE;
  }
  if (p->rcb_bytes != 0 && p->rcb_bytes != 64 && p->rcb_bytes != 128) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM,
      "read completion boundary %u bytes: must be 64 or 128", p->rcb_bytes);
    return FALSE;
  }
  /* An MRRS-sized request at any DW offset touches at most MRRS / RCB + 1 RCB blocks; fewer header slots than
   * that could leave a request that never fits, and the read engine would wait forever. */
  uint32_t rcb = p->rcb_bytes ? p->rcb_bytes : 64;
  if (p->cpl_buffer_headers != 0 && p->cpl_buffer_headers < p->max_read_request_bytes / rcb + 1) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM,
      "completion buffer of %u headers is smaller than the %u completions one "
      "%u-byte read request may come back as (RCB %u)", p->cpl_buffer_headers, p->max_read_request_bytes / rcb + 1,
      p->max_read_request_bytes, rcb);
    return FALSE;
  }
  if (p->cpl_buffer_bytes != 0 && p->cpl_buffer_bytes < p->max_read_request_bytes) {
    /* A buffer smaller than one request would deadlock the read engine. */
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM,
      "completion buffer %u bytes is smaller than one %u-byte read request",
      p->cpl_buffer_bytes, p->max_read_request_bytes);
    return FALSE;
  }
  /* One fetch is one MRd, so it must fit MRRS; the FIFO must hold a whole fetch, or none would ever be due. */
  if (p->desc_per_fetch < 1 || p->desc_per_fetch * DMA_DESC_BYTES > p->max_read_request_bytes
      || p->desc_fifo_entries < p->desc_per_fetch || p->desc_fifo_entries > DMA_MAX_DESC_FIFO) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM,
      "descriptors per fetch %u / FIFO %u: need 1 <= per fetch <= FIFO <= %u "
      "and per fetch x 16 <= max read request", p->desc_per_fetch, p->desc_fifo_entries, DMA_MAX_DESC_FIFO);
    return FALSE;
  }
  if (p->channels > DMA_MAX_CHANNELS) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "%u DMA channels: at most %u per direction", p->channels,
      DMA_MAX_CHANNELS);
    return FALSE;
  }
  /* TLP lengths count whole DWs (partial-DW byte enables are not modelled) and pattern.h checks data per DW. */
  if (p->desc_max_bytes % 4 != 0) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "descriptor size %u bytes: must be whole DWs", p->desc_max_bytes);
    return FALSE;
  }
  return TRUE;
}

/* --- tags and completion buffer ------------------------------------------------------------------------- */

static uint32_t desc_fetch_bytes (const DmaEngine *e);

/* A due descriptor fetch has first claim on the last free tag (with two or more tags). Without that, a read
 * engine that always has a request ready takes every tag the moment it frees, and the write engine's next
 * descriptor fetch starves until the read engine has issued its whole transfer.
 * The completion buffer counts every byte requested and not yet read out by the application, descriptor
 * fetches included, and so do its header slots, with each request's worst-case completion count. An endpoint
 * advertises infinite completion credits (pcie-protocol.md §5), so nothing on the link would stop completions
 * from overflowing either: the requester must hold back before the MRd goes out. */
static StallCause
read_blocker (const DmaChain *d, uint64_t address, uint32_t bytes, gboolean desc)
{
  uint32_t reserve = 0;
  if (!desc && d->p.tags >= 2)
    for (uint32_t i = 0; i < d->n_eng && !reserve; i++)
      if (d->eng[i].running && desc_fetch_bytes (&d->eng[i]) > 0)
        reserve = 1; /* one due fetch is enough: the rest need not be asked (each asks its requester) */
  TxnReqBlock b = txn_req_fits (&d->txn, address, bytes, reserve);
  return b == TXN_REQ_NO_TAG ? STALL_TAGS : b == TXN_REQ_NO_BUFFER ? STALL_COMPLETION_BUFFER : STALL_IDLE;
}

static gboolean
read_fits (const DmaChain *d, uint64_t address, uint32_t bytes, gboolean desc)
{
  return read_blocker (d, address, bytes, desc) == STALL_IDLE;
}

/* Claimed when the MRd is committed, not when it reaches the wire: a tag may not be reused while a request
 * holding it is outstanding, since completions are matched to their request only by requester ID and tag. */
static uint16_t
tag_get (DmaChain *d, DmaEngine *e, gboolean desc, uint64_t address, uint32_t bytes)
{
  uint16_t t = txn_req_issue (&d->txn, address, bytes, sim_now (d->engine));
  d->tag[t] = (TagEntry) { .engine = e, .desc = desc };
  d->c.cpl_headers_high_water = MAX (d->c.cpl_headers_high_water, d->txn.cpl_headers);
  d->c.tags_in_use++;
  d->c.tags_high_water = MAX (d->c.tags_high_water, d->c.tags_in_use);
  d->c.cpl_buffer_high_water_bytes = MAX (d->c.cpl_buffer_high_water_bytes, d->txn.cpl_bytes);
  trace_tags (d->trace, d->tr_tags, sim_now (d->engine), d->c.tags_in_use);
  return t;
}

/* Freed with the request's last completion byte (the requester has taken it back): a partly completed request
 * still owns its tag. */
static void
tag_put (DmaChain *d, uint16_t t)
{
  d->tag[t].engine = NULL;
  d->c.tags_in_use--;
  trace_tags (d->trace, d->tr_tags, sim_now (d->engine), d->c.tags_in_use);
  /* A requester that waited for a tag or for buffer space may go now (its next peek says for sure). */
  for (int dir = 0; dir < DMA_DIR_COUNT; dir++)
    if (d->rq[dir].cause == STALL_TAGS || d->rq[dir].cause == STALL_COMPLETION_BUFFER)
      stall_set_at (&d->rq[dir], d->engine, STALL_DATAPATH);
}

/* --- engine state --------------------------------------------------------------------------------------- */

/* The descriptor's setup time is over. Peek returned FALSE while it ran, and the arbiter may have no other
 * reason to ask again. */
static void
wake (SimEngine *se, void *ctx, uint64_t arg)
{
  DmaEngine *e = ctx;
  e->wake_pending = FALSE;
  app_kick (e->dma->app);
}

/* Move the next fetched descriptor into `cur`, starting its setup time. A zero-length descriptor is taken and
 * skipped: it counts in desc_taken, which data_done() needs to see the table's end, but moves no data. */
static void
take_descriptor (DmaEngine *e)
{
  DmaChain *d = e->dma;
  while (!e->have_cur && e->fifo_count > 0) {
    DmaDescriptor *x = &e->fifo[e->fifo_head];
    e->fifo_head = (e->fifo_head + 1) % DMA_MAX_DESC_FIFO;
    e->fifo_count--;
    e->desc_taken++;
    if (x->length_bytes == 0)
      continue;
    e->have_cur = TRUE;
    e->cur_host = x->host_address;
    e->cur_left = x->length_bytes;
    e->cur_ready_ps = sim_now (d->engine) + d->setup_ps;
  }
}

/* Every descriptor taken, none in progress, and every byte issued finished: for writes handed to the IP, for
 * reads taken in from completions. EPLAST may go only then, since it tells software the data has moved. */
static gboolean
data_done (const DmaEngine *e)
{
  return e->desc_taken == e->n_desc && !e->have_cur && e->completed == e->requested;
}

/* Size of the next descriptor fetch, 0 when none is due. It is due when descriptors remain and the FIFO has
 * room for a whole batch, counting those already in flight. The first descriptor follows the table's 16-byte
 * header (whose DW3 is EPLAST). A fetch may be cut at a 4 KB boundary (spec §2.2.7): the rest comes with the
 * next one. The cut stays a whole number of descriptors only because tables are 16-byte aligned (system.c
 * places them on page boundaries); engine_take() divides by DMA_DESC_BYTES. */
static uint32_t
desc_fetch_bytes (const DmaEngine *e)
{
  const DmaParams *p = &e->dma->p;
  uint32_t left = e->n_desc - e->desc_requested;
  uint32_t want = MIN (left, p->desc_per_fetch);
  if (want == 0 || e->fifo_count + e->desc_inflight + want > p->desc_fifo_entries)
    return 0;
  uint64_t addr = e->table + DMA_DESC_BYTES * (1 + (uint64_t) e->desc_requested);
  return txn_req_size (&e->dma->txn, TLP_MRD, addr, (uint64_t) want * DMA_DESC_BYTES);
}

static uint8_t
header_for (uint64_t address)
{
  /* 64-bit addressing only when the address needs it (spec §2.2.4.1: a 4-DW header with upper bits 0 is illegal). */
  return address > 0xffffffffu ? 16 : 12;
}

/* What a probe/TLP is for; kept in Tlp.cookie while the TLP is ours (the host reads only an MSI's cookie, and
 * an MSI's is replaced by its message number when taken). */
enum { ACT_DESC = 1, ACT_DATA, ACT_STATUS, ACT_MSI };

/* What the engine would send next, without committing. Order inside an engine: a due descriptor fetch first
 * (it feeds everything after it), then data, then the EPLAST status write, then the MSI. */
static gboolean
engine_decide (DmaEngine *e, Tlp *probe)
{
  DmaChain *d = e->dma;
  if (!e->running)
    return FALSE;
  /* Settle the descriptor FIFO first: taking a descriptor frees FIFO room, which may make a fetch due, and take()
   * must see exactly the state this peek decided on. */
  take_descriptor (e);
  uint32_t fetch = desc_fetch_bytes (e);
  uint64_t addr = e->table + DMA_DESC_BYTES * (1 + (uint64_t) e->desc_requested);
  if (fetch > 0 && read_fits (d, addr, fetch, TRUE)) {
    *probe = (Tlp) { .kind = TLP_MRD, .header_bytes = header_for (addr), .address = addr, .length_bytes = fetch,
                     .cookie = ACT_DESC };
    return TRUE;
  }
  if (e->have_cur) {
    SimTime now = sim_now (d->engine);
    /* Still setting up: one wake-up event brings the arbiter back, as an idle link would never call tx-ready. */
    if (now < e->cur_ready_ps) {
      if (!e->wake_pending) {
        e->wake_pending = TRUE;
        sim_schedule_at (d->engine, e->cur_ready_ps, wake, e, 0);
      }
      return FALSE;
    }
    /* Cut greedily from the current host address, never across 4 KB (split.h): an unaligned buffer costs one
     * short TLP per page, as AN-456's engine does not realign. */
    if (e->dir == DMA_WRITE) {
      uint32_t n = txn_req_size (&d->txn, TLP_MWR, e->cur_host, e->cur_left);
      *probe = (Tlp) { .kind = TLP_MWR, .header_bytes = header_for (e->cur_host), .address = e->cur_host,
                       .payload_bytes = n, .cookie = ACT_DATA };
      return TRUE;
    }
    /* Reads wait only for tags and buffer space, never for earlier data: up to `tags` MRRS-sized requests in
     * flight are what hide the host's read latency. */
    uint32_t n = txn_req_size (&d->txn, TLP_MRD, e->cur_host, e->cur_left);
    if (!read_fits (d, e->cur_host, n, FALSE))
      return FALSE; /* a completion freeing a tag or buffer space kicks the app */
    *probe = (Tlp) { .kind = TLP_MRD, .header_bytes = header_for (e->cur_host), .address = e->cur_host,
                     .length_bytes = n, .cookie = ACT_DATA };
    return TRUE;
  }
  /* EPLAST goes to table + 12, the header's DW3. For a write engine data_done() holds once the last MWr is in
   * the IP; since posted writes are not reordered, EPLAST still reaches memory after the data. */
  if (e->tail == TAIL_STATUS && data_done (e)) {
    *probe = (Tlp) { .kind = TLP_MWR, .header_bytes = header_for (e->table + 12), .address = e->table + 12,
                     .payload_bytes = 4, .cookie = ACT_STATUS };
    return TRUE;
  }
  /* The MSI address is 32-bit (the APIC window), so a 3-DW header. */
  if (e->tail == TAIL_MSI) {
    *probe = (Tlp) { .kind = TLP_MSI, .header_bytes = 12, .address = MSI_ADDRESS, .payload_bytes = 4,
                     .cookie = ACT_MSI };
    return TRUE;
  }
  return FALSE;
}

/* Why a running engine had nothing for engine_decide(): the same tests, in the same order, named. Out of line:
 * inlined, it made engine_peek(), asked three times per TLP, save and restore registers every time. */
static G_GNUC_NO_INLINE StallCause
engine_why_not (const DmaEngine *e)
{
  const DmaChain *d = e->dma;
  if (e->have_cur) {
    if (sim_now (d->engine) < e->cur_ready_ps)
      return STALL_DESCRIPTOR_FETCH; /* the descriptor is being set up */
    return read_blocker (d, e->cur_host, txn_req_size (&d->txn, TLP_MRD, e->cur_host, e->cur_left), FALSE);
  }
  uint32_t fetch = desc_fetch_bytes (e);
  if (fetch > 0) {
    StallCause b = read_blocker (d, e->table + DMA_DESC_BYTES * (1 + (uint64_t) e->desc_requested), fetch, TRUE);
    if (b != STALL_IDLE)
      return b;
  }
  if (e->desc_taken < e->n_desc)
    return STALL_DESCRIPTOR_FETCH;
  if (!data_done (e))
    return e->dir == DMA_READ ? STALL_HOST_LATENCY : STALL_DATAPATH;
  return STALL_IDLE;
}

/* What the engine would send next, and (stall.h) what it waits for when nothing. */
static gboolean
engine_peek (void *ctx, Tlp *probe)
{
  DmaEngine *e = ctx;
  gboolean ok = engine_decide (e, probe);
  if (e->running) {
    e->why = (uint8_t) (ok ? STALL_DATAPATH : engine_why_not (e));
    stall_set_at (&e->dma->rq[e->dir], e->dma->engine, (StallCause) e->why);
  }
  return ok;
}

static StallCause
engine_why (void *ctx)
{
  const DmaEngine *e = ctx;
  return e->running ? (StallCause) e->why : STALL_IDLE;
}

static void
engine_refused (void *ctx, StallCause why)
{
  DmaEngine *e = ctx;
  e->why = (uint8_t) why;
  stall_set_at (&e->dma->rq[e->dir], e->dma->engine, why);
}

/* Tracing: the engine's phase moves on (the previous one ends now). */
static void
engine_phase (DmaEngine *e, TraceDmaState next, uint32_t descriptor, uint32_t bytes)
{
  SimTrace *t = e->dma->trace;
  SimTime now = sim_now (e->dma->engine);
  if (G_LIKELY (t == NULL))
    return;
  if (e->phase != TRACE_DMA_IDLE)
    sim_trace_end (t, e->tr.phase, now);
  e->phase = next;
  if (next != TRACE_DMA_IDLE)
    sim_trace_begin (t, e->tr.phase, now, next, descriptor, bytes);
}

/* The run ends when its last TLP is committed, before that TLP reaches the host: software, which reprograms the
 * engine only after seeing EPLAST or the MSI, therefore always finds it stopped (engine_start asserts it). */
static void
finish_run (DmaEngine *e)
{
  e->tail = TAIL_DONE;
  e->running = FALSE;
  e->runs++;
}

static void
advance_cur (DmaEngine *e, uint32_t bytes)
{
  e->cur_host += bytes;
  e->cur_left -= bytes;
  e->have_cur = e->cur_left > 0;
}

static Tlp *
engine_take (void *ctx, const Tlp *peeked)
{
  DmaEngine *e = ctx;
  DmaChain *d = e->dma;
  /* The arbiter's probe, not a second peek: arbitration calls peek and take in one event with nothing between but
   * the link's credit check, so the state is the one peek decided on (its FIFO settled, its cause set) and this
   * commits exactly the TLP the credits were checked for. A peek here cost a fifth of the engine's time. */
  const Tlp probe = *peeked;
  Tlp *t = tlp_alloc_copy (d->pool, &probe);
  t->requester = d->requester;
  switch (probe.cookie) {
  case ACT_DESC: {
    /* Reserves the FIFO room (desc_inflight) now, so later fetches cannot promise it twice. */
    uint32_t n = probe.length_bytes / DMA_DESC_BYTES;
    t->tag = tag_get (d, e, TRUE, probe.address, probe.length_bytes);
    d->tag[t->tag].n_desc = n;
    d->tag[t->tag].desc_address = probe.address;
    d->tag[t->tag].first_fetch = e->desc_requested == 0;
    if (G_UNLIKELY (d->trace != NULL) && e->desc_inflight == 0)
      sim_trace_begin (d->trace, e->tr.fetch, sim_now (d->engine), TRACE_DMA_DESCRIPTOR_FETCH, e->desc_requested,
                       probe.length_bytes);
    e->desc_requested += n;
    e->desc_inflight += n;
    d->c.desc_fetches++;
    d->c.mrds++;
    break;
  }
  case ACT_DATA:
    /* Issued now; a write finishes at engine_sent(), a read when its completions are taken in
     * (dma_chain_completion). */
    e->requested += probe.kind == TLP_MRD ? probe.length_bytes : probe.payload_bytes;
    if (probe.kind == TLP_MRD) {
      t->tag = tag_get (d, e, FALSE, probe.address, probe.length_bytes);
      d->c.read_bytes_requested += probe.length_bytes;
      d->c.mrds++;
      advance_cur (e, probe.length_bytes);
    } else {
      d->c.mwrs++;
      advance_cur (e, probe.payload_bytes);
      t->stamp_ps = sim_now (d->engine); /* issued: a posted write's one-way latency counts from here */
    }
    break;
  case ACT_STATUS:
    t->stamp_ps = sim_now (d->engine);
    d->c.mwrs++;
    e->tail = e->msi ? TAIL_MSI : TAIL_DONE;
    if (!e->msi)
      finish_run (e);
    break;
  case ACT_MSI:
    /* MSI data: message 0 = write engine, 1 = read engine (AN-456); channel c's add 2c; all on top of what
     * software programmed (dma_chain_set_msi_data). */
    t->cookie = d->msi_data + e->channel * DMA_DIR_COUNT + e->dir;
    finish_run (e);
    break;
  default:
    g_assert_not_reached ();
  }
  return t;
}

/* The notification goes out at the instant the stop is decided, with the stop time already recorded: for a
 * write engine (on_placed()) the end of the last MWr's last symbol, which lies ahead. */
static void
stop_counter (DmaEngine *e, SimTime at)
{
  e->counter_stop_ps = at;
  if (e->dma->notify != NULL)
    e->dma->notify (e->dma->notify_ctx, e->dir, TRUE);
}

/* The app handed a TLP to the link. The write engine's data counts as sent now (it may start its status write),
 * but its counter stops only when the last data has left the transmitter (on_placed): stopping it at the
 * hand-off would credit the transfer with bytes still queued in the IP, a throughput above what the wire
 * carries. */
static void
engine_sent (void *ctx, const Tlp *t)
{
  DmaEngine *e = ctx;
  if (t->kind == TLP_MWR && t->cookie == ACT_DATA) {
    e->completed += t->payload_bytes;
    e->dma->c.write_bytes_sent += t->payload_bytes;
    /* Remembered by pointer: the link keeps the TLP (for replay) at least until it is placed, so the pointer
     * cannot be reused before on_placed() compares it. */
    if (data_done (e)) {
      e->last_data = t;
      engine_phase (e, TRACE_DMA_STATUS_WRITE, e->desc_taken, 4);
    }
  } else if (t->kind == TLP_MWR && t->cookie == ACT_STATUS)
    engine_phase (e, e->msi ? TRACE_DMA_INTERRUPT : TRACE_DMA_IDLE, e->desc_taken, 4);
  else if (t->kind == TLP_MSI)
    engine_phase (e, TRACE_DMA_IDLE, 0, 0);
}

/* Every TLP the endpoint places passes here; only a write engine's last data MWr stops a counter, at the end of
 * its last symbol on the wire: AN-456's counter stops when the last data has been transferred. */
static void
on_placed (void *ctx, LinkPort *port, const Tlp *t, SimTime end_ps)
{
  (void) port;
  DmaChain *d = ctx;
  DmaEngine *e = NULL;
  for (uint32_t i = DMA_WRITE; i < d->n_eng && e == NULL; i += DMA_DIR_COUNT)
    if (t == d->eng[i].last_data)
      e = &d->eng[i];
  if (e == NULL)
    return;
  e->last_data = NULL;
  stop_counter (e, end_ps);
}

/* --- receive: completions and register writes ------------------------------------------------------------ */

void
dma_chain_completion (DmaChain *d, const Tlp *t)
{
  /* The application takes the data out of the IP's buffer right after this handler: the requester frees its bytes
   * and its header slot now. */
  const TxnTag *rt = txn_req_tag (&d->txn, t->tag);
  gboolean last;
  unsigned bad = txn_req_complete (&d->txn, t, &last);
  if (bad & TXN_CPL_UNEXPECTED) {
    /* An Unexpected Completion (spec §2.3.2): no request of ours holds this tag, e.g. a duplicate. It is dropped
     * and counted; the end-of-run check turns any into an error. */
    d->c.unexpected_cpls++;
    return;
  }
  TagEntry *g = &d->tag[t->tag];
  DmaEngine *e = g->engine;
  d->c.cpls++;
  /* Within one request completions come in increasing address order (spec §2.3.1.1): a gap, an overlap or
   * excess data is counted and fails the end-of-run check. Across tags no order is promised, so none is checked. */
  if (bad & (TXN_CPL_ADDRESS | TXN_CPL_EXCESS))
    d->c.out_of_order_cpls++;
  if (!g->desc) {
    d->c.read_checksum += pattern_sum_memo (&d->read_sum_memo, t->address, t->payload_bytes);
    e->completed += t->payload_bytes;
    d->c.read_bytes_completed += t->payload_bytes;
    d->c.ep_bytes_written += t->payload_bytes; /* endpoint memory is written as the data streams in */
  }
  if (last) {
    if (g->desc) {
      /* All descriptor bytes are in: their contents become visible to the engine. */
      for (uint32_t i = 0; i < g->n_desc; i++) {
        DmaDescriptor x = { 0 };
        gboolean ok = d->mem_read (d->mem_ctx, g->desc_address + (uint64_t) i * DMA_DESC_BYTES, &x);
        g_assert (ok);
        e->fifo[(e->fifo_head + e->fifo_count) % DMA_MAX_DESC_FIFO] = x;
        e->fifo_count++;
      }
      e->desc_inflight -= g->n_desc;
      if (g->first_fetch) {
        d->first_fetch_ps[e->dir] += sim_now (d->engine) - rt->issued_ps;
        d->first_fetch_n[e->dir]++;
      }
      if (d->rq[e->dir].cause == STALL_DESCRIPTOR_FETCH)
        stall_set_at (&d->rq[e->dir], d->engine, STALL_DATAPATH);
      if (G_UNLIKELY (d->trace != NULL) && e->desc_inflight == 0)
        sim_trace_end (d->trace, e->tr.fetch, sim_now (d->engine));
    } else
      lat_add (&d->read_rtt, sim_now (d->engine) - rt->issued_ps);
    tag_put (d, t->tag);
  }
  /* The read counter stops once the application has taken in the last data completion (endpoint memory is
   * written); EPLAST and the MSI come after and are not timed, as AN-456's counter stops at the last data. */
  if (e->dir == DMA_READ && e->running && !g->desc && data_done (e)) {
    stop_counter (e, sim_now (d->engine));
    engine_phase (e, TRACE_DMA_STATUS_WRITE, e->desc_taken, 4);
  }
  app_kick (d->app);
}

static void
engine_start (DmaEngine *e, SimTime sent_ps)
{
  DmaChain *d = e->dma;
  g_assert (!e->running); /* software programs an engine only after it reported the previous run */
  e->running = TRUE;
  e->n_desc = (e->regs[0] & 0xffffu);
  e->msi = (e->regs[0] >> 16) & 1;
  e->table = (uint64_t) e->regs[1] << 32 | e->regs[2];
  g_assert (e->regs[3] + 1 == e->n_desc); /* RCLAST is the last descriptor's index */
  e->desc_requested = e->desc_inflight = e->desc_taken = 0;
  e->fifo_head = e->fifo_count = 0;
  e->have_cur = FALSE;
  e->requested = e->completed = 0;
  e->tail = TAIL_STATUS;
  /* AN-456's counter starts when the engine decodes this write, so it includes the first descriptor fetch's round
   * trip; counting from when the write left the root port adds the PIO write's own trip down the link. */
  e->counter_start_ps = d->p.counter_start == DMA_COUNTER_AT_HOST ? sent_ps : sim_now (d->engine);
  e->counter_stop_ps = 0;
  engine_phase (e, TRACE_DMA_TRANSFER, e->n_desc, 0);
  if (d->notify != NULL)
    d->notify (d->notify_ctx, e->dir, FALSE);
  app_kick (d->app);
}

/* Channel c's headers are at BAR0 + 0x20 c, the write engine's DW0..DW3 at + 0x00..0x0C and the read engine's at
 * + 0x10..0x1C, so DW = offset bits 3:2. Only the DW3 write starts an engine: software writes DW0..DW2 first. A
 * write to a channel the engine does not have is a driver bug. */
void
dma_chain_register_write (DmaChain *d, uint64_t offset, uint32_t value, SimTime sent_ps)
{
  SIM_INVARIANT (offset < DMA_CHANNEL_REG_STRIDE * (d->n_eng / DMA_DIR_COUNT), "DMA register write at offset 0x%"
                 G_GINT64_MODIFIER "x, beyond its %u channels", offset, d->n_eng / DMA_DIR_COUNT);
  DmaEngine *e = &d->eng[(offset / DMA_CHANNEL_REG_STRIDE) * DMA_DIR_COUNT
                         + ((offset % DMA_CHANNEL_REG_STRIDE) >= 0x10 ? DMA_READ : DMA_WRITE)];
  uint32_t dw = (uint32_t) (offset & 0xf) / 4;
  e->regs[dw] = value;
  if (dw == DMA_REG_START_DW)
    engine_start (e, sent_ps);
}

/* --- life cycle ------------------------------------------------------------------------------------------ */

DmaChain *
dma_chain_new (SimEngine *engine, const DmaParams *params, App *app, TlpPool *pool)
{
  DmaChain *d = g_new0 (DmaChain, 1);
  d->engine = engine;
  d->p = *params;
  d->app = app;
  d->pool = pool;
  d->setup_ps = (SimTime) params->desc_setup_cycles * app_cycle_ps (app);
  /* Tag numbers are handed out lowest first (pushed in reverse), like a priority encoder would. Past 256 the
   * requester uses 10-bit tags, whose usable values are 256..1023 (Tag[9:8] != 00b, pcie-protocol.md §6). */
  TxnReqParams rp = { .max_payload_bytes = params->max_payload_bytes,
                      .max_read_request_bytes = params->max_read_request_bytes, .tags = params->tags,
                      .first_tag = params->tags > 256 ? 256 : 0, .rcb_bytes = params->rcb_bytes,
                      .cpl_buffer_bytes = params->cpl_buffer_bytes, .cpl_buffer_headers = params->cpl_buffer_headers };
  txn_req_init (&d->txn, &rp);
  static const AppTxClient client = { engine_peek, engine_take, engine_sent, engine_why, engine_refused };
  /* Clients in channel order, write before read within a channel: round robin then serves every engine in turn. */
  d->n_eng = (params->channels ? params->channels : 1) * DMA_DIR_COUNT;
  for (uint32_t i = 0; i < d->n_eng; i++) {
    d->eng[i].dma = d;
    d->eng[i].dir = (DmaDir) (i % DMA_DIR_COUNT);
    d->eng[i].channel = i / DMA_DIR_COUNT;
    d->eng[i].tail = TAIL_DONE;
  }
  /* Registration order is the priority order of APP_ARB_PRIORITY: read_first puts each channel's read engine
   * (whose MRds are short and gate a whole round trip) ahead of its write engine. */
  for (uint32_t i = 0; i < d->n_eng; i++)
    app_add_client (app, &client, &d->eng[params->read_first ? i ^ 1u : i]);
  if (app_port (app) != NULL)
    dma_chain_attach (d);
  return d;
}

void
dma_chain_attach (DmaChain *d)
{
  link_port_set_tx_placed (app_port (d->app), on_placed, d);
}

void
dma_chain_set_memory (DmaChain *d, DmaMemReadFn mem_read, void *ctx)
{
  d->mem_read = mem_read;
  d->mem_ctx = ctx;
}

void
dma_chain_set_requester (DmaChain *d, uint16_t id)
{
  d->requester = id;
}

void
dma_chain_set_msi_data (DmaChain *d, uint32_t data)
{
  d->msi_data = data;
}

void
dma_chain_set_counter_notify (DmaChain *d, DmaCounterFn fn, void *ctx)
{
  d->notify = fn;
  d->notify_ctx = ctx;
}

void
dma_chain_free (DmaChain *d)
{
  if (d != NULL) /* an endpoint without a DMA has none */
    txn_req_clear (&d->txn);
  g_free (d);
}

DmaEngineStatus
dma_chain_status (const DmaChain *d, DmaDir dir)
{
  return dma_chain_channel_status (d, 0, dir);
}

DmaEngineStatus
dma_chain_channel_status (const DmaChain *d, uint32_t channel, DmaDir dir)
{
  g_assert (channel * DMA_DIR_COUNT + dir < d->n_eng);
  const DmaEngine *e = &d->eng[channel * DMA_DIR_COUNT + dir];
  return (DmaEngineStatus) { .running = e->running, .runs = e->runs, .counter_start_ps = e->counter_start_ps,
                             .counter_stop_ps = e->counter_stop_ps, .bytes = e->completed };
}

DmaCounters
dma_chain_counters (const DmaChain *d)
{
  return d->c;
}

gboolean
dma_chain_check_invariants (const DmaChain *d, GError **error)
{
  /* Over all runs. Completions out of order or unexpected fail even when the byte counts agree: a swapped pair
   * moves the same bytes, and a dropped duplicate adds none. */
  const DmaCounters *c = &d->c;
  if (d->txn.n_free != d->p.tags || d->txn.cpl_bytes != 0 || d->txn.cpl_headers != 0) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_INVARIANT,
      "DMA: %u of %u tags not retired, %u completion-buffer bytes and %u "
      "header slots held", d->p.tags - d->txn.n_free, d->p.tags, d->txn.cpl_bytes, d->txn.cpl_headers);
    return FALSE;
  }
  if (c->read_bytes_requested != c->read_bytes_completed || c->read_bytes_completed != c->ep_bytes_written) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_INVARIANT,
      "DMA read: %" G_GUINT64_FORMAT " bytes requested, %" G_GUINT64_FORMAT
      " completed, %" G_GUINT64_FORMAT " written to endpoint memory", c->read_bytes_requested,
      c->read_bytes_completed, c->ep_bytes_written);
    return FALSE;
  }
  if (c->out_of_order_cpls != 0 || c->unexpected_cpls != 0) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_INVARIANT, "DMA: %" G_GUINT64_FORMAT " completions out of address order, %"
      G_GUINT64_FORMAT " unexpected (no request held their tag)", c->out_of_order_cpls, c->unexpected_cpls);
    return FALSE;
  }
  for (uint32_t i = 0; i < d->n_eng; i++)
    if (d->eng[i].running) {
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_INVARIANT, "DMA channel %u %s engine still running at the end",
        d->eng[i].channel, d->eng[i].dir == DMA_WRITE ? "write" : "read");
      return FALSE;
    }
  return TRUE;
}

void
dma_chain_describe_wait (const DmaChain *d, GString *out)
{
  for (uint32_t i = 0; i < d->n_eng; i++) {
    const DmaEngine *e = &d->eng[i];
    if (!e->running)
      continue;
    if (d->n_eng > DMA_DIR_COUNT)
      g_string_append_printf (out, "%schannel %u ", out->len ? "; " : "", e->channel);
    g_string_append_printf (out, "%s%s engine: descriptors %u of %u taken (%u being fetched), %" G_GUINT64_FORMAT
      " data bytes done of %" G_GUINT64_FORMAT " issued", out->len && d->n_eng == DMA_DIR_COUNT ? "; " : "",
      e->dir == DMA_WRITE ? "write" : "read", e->desc_taken, e->n_desc, e->desc_inflight, e->completed,
      e->requested);
    if (e->tail != TAIL_DONE && data_done (e))
      g_string_append (out, e->tail == TAIL_STATUS ? ", EPLAST write not sent" : ", MSI not sent");
  }
  if (d->txn.n_free < d->p.tags) {
    /* The oldest-numbered busy tag shows what the requester waits for. */
    uint32_t t = 0;
    while (d->tag[t].engine == NULL)
      t++;
    const TxnTag *rt = txn_req_tag ((TxnRequester *) &d->txn, (uint16_t) t);
    g_string_append_printf (out, "%stags: %u of %u outstanding (tag %u waits for %u bytes at 0x%" G_GINT64_MODIFIER
      "x%s), completion buffer %u bytes held", out->len ? "; " : "", d->p.tags - d->txn.n_free, d->p.tags, t,
      rt->remaining, rt->next_address, d->tag[t].desc ? ", a descriptor fetch" : "", d->txn.cpl_bytes);
    if (d->p.cpl_buffer_headers)
      g_string_append_printf (out, ", %u of %u completion header slots reserved", d->txn.cpl_headers,
        d->p.cpl_buffer_headers);
  }
}

StallClock *
dma_chain_stall_clock (DmaChain *d, DmaDir dir)
{
  return &d->rq[dir];
}

const LatHist *
dma_chain_read_latency (const DmaChain *d)
{
  return &d->read_rtt;
}

double
dma_chain_first_fetch_ns (const DmaChain *d, DmaDir dir)
{
  return d->first_fetch_n[dir] ? (double) d->first_fetch_ps[dir] / d->first_fetch_n[dir] / 1000.0 : 0;
}

void
dma_chain_trace_declare (DmaChain *d, SimTrace *t, const char *scope)
{
  if (t == NULL)
    return;
  d->trace = t;
  d->tr_tags = trace_requester_declare (t, scope);
  for (uint32_t i = 0; i < d->n_eng; i++) {
    DmaEngine *e = &d->eng[i];
    const char *dir = e->dir == DMA_READ ? "read" : "write";
    g_autofree char *s = d->n_eng > DMA_DIR_COUNT ? g_strdup_printf ("%s.ch%u.%s", scope, e->channel, dir)
                                                 : g_strdup_printf ("%s.%s", scope, dir);
    trace_dma_declare (t, s, &e->tr);
  }
}
