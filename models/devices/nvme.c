/* nvme.c — the NVMe SSD (contract in nvme.h).
 *
 * Per command a small state record, indexed by (queue, command ID), so nothing allocates per command or per TLP.
 * The transmit side builds each TLP when the link can take it (pump()): the device never holds a backlog of built
 * TLPs but its completion entries and interrupts, which are few. */
#include "models/devices/nvme.h"

#include "models/base/pattern.h"
#include "models/base/units.h"
#include "models/txn/requester.h"

typedef enum { CMD_FREE, CMD_PRP, CMD_DATA_IN, CMD_FLASH, CMD_DATA_OUT } CmdPhase;

typedef struct {
  NvmeSqe sqe;
  CmdPhase phase;
  uint32_t queue;
  uint64_t issued, got; /* data bytes requested or sent; data bytes back (a write's reads) */
  uint32_t prp_issued, prp_got; /* of its PRP list's bytes */
} Cmd;

typedef enum { TAG_FETCH, TAG_PRP, TAG_DATA } TagUse;

/* What a tag's read is for; where its completions stand is the requester's (TxnTag). */
typedef struct {
  TagUse use;
  uint32_t cmd; /* TAG_FETCH: the queue; else the command's index */
  uint32_t slot; /* TAG_FETCH: the SQ slot */
} TagState;

typedef struct {
  uint64_t sq_address, cq_address, msix_address;
  uint32_t entries, cq_entries; /* of its SQ, of its CQ */
  const NvmeSqe *ring;
  uint16_t *cq_ring;
  uint32_t sq_tail, sq_head; /* doorbell; next to fetch */
  uint64_t cq_head; /* entries the host has consumed (its doorbell, counted on) */
  uint64_t cq_posted; /* entries sent */
  uint32_t unsignalled;
  SimEventId timer;
} Queue;

struct Nvme {
  Component base;
  NvmeParams p;
  SimEngine *engine;
  TlpPool *pool;
  GRand *rand;
  LinkPort *port;
  Queue q[NVME_MAX_QUEUES];
  Cmd *cmd; /* queues x queue_depth */
  TxnRequester rq; /* the one requester (models/txn): cuts, tags, completion checks */
  TagState tag[256]; /* by tag number: what each outstanding read is for */
  TlpFifo posted; /* completion entries and MSI-X, built, in order */
  uint32_t *prp_ring, *data_ring; /* commands waiting for their PRP list read, for their data; FIFO rings */
  uint32_t prp_head, prp_len, data_head, data_len;
  uint32_t fetch_rr; /* the next queue to fetch from */
  uint64_t in_flight;
  NvmeCounters c;
};

static const ComponentKind nvme_kind;

gboolean
nvme_params_check (const NvmeParams *p, GError **error)
{
  if (p->queues < 1 || p->queues > NVME_MAX_QUEUES || p->queue_depth < 1 || p->queue_depth > 65535
      || p->tags < 1 || p->tags > 256
      || p->max_read_request_bytes < 128 || p->max_read_request_bytes > 4096
      || (p->max_read_request_bytes & (p->max_read_request_bytes - 1)) != 0 || p->coalesce_threshold < 1 || p->coalesce_threshold > 256
      || !(p->coalesce_time_ns >= 0 && p->coalesce_time_ns < 1e12) || !p->read_latency || !p->program_latency) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "NVMe: %u queues (1..%u), queue depth %u (1..65535), %u tags "
                 "(1..256), MRRS %u (128..4096, a power of two), coalescing threshold %u (1..256) and time %g ns (>= 0), "
                 "both flash latencies", p->queues, NVME_MAX_QUEUES, p->queue_depth, p->tags, p->max_read_request_bytes, p->coalesce_threshold, p->coalesce_time_ns);
    return FALSE;
  }
  return TRUE;
}

/* Pages of a command's data: PRP1, PRP2, then the list's entries (nvme.h). */
static uint64_t
page_address (const NvmeSqe *s, uint32_t i)
{
  return i == 0 ? s->page[0] : s->page[1] + (uint64_t) (i - 1) * s->page_stride_bytes;
}

static uint32_t
pages_of (const NvmeSqe *s)
{
  return (s->bytes + NVME_PAGE_BYTES - 1) / NVME_PAGE_BYTES;
}

/* Every request the device makes (command fetches, PRP lists, data) is cut by the one requester: the next request
 * of `remaining` bytes at `address`, at MRRS (an MRd) or MPS (an MWr), never across a 4 KB page (spec §2.2.7), so
 * never across a PRP page either. */
static uint32_t
cut (const Nvme *d, uint64_t address, uint64_t remaining, gboolean read)
{
  return txn_req_size (&d->rq, read ? TLP_MRD : TLP_MWR, address, remaining);
}

/* The next data request of a command: where its data stands (page by page, PRP-style) and how much of it. */
static uint32_t
next_data (const Nvme *d, const Cmd *m, uint64_t *address)
{
  uint64_t off = m->issued % NVME_PAGE_BYTES;
  *address = page_address (&m->sqe, (uint32_t) (m->issued / NVME_PAGE_BYTES)) + off;
  return cut (d, *address, MIN ((uint64_t) NVME_PAGE_BYTES - off, m->sqe.bytes - m->issued), m->sqe.write);
}

static void pump (Nvme *d);

static void
push_ring (uint32_t *ring, uint32_t n, uint32_t head, uint32_t *len, uint32_t v)
{
  ring[(head + (*len)++) % n] = v;
}

static uint32_t
n_cmds (const Nvme *d)
{
  return d->p.queues * d->p.queue_depth;
}

static void
post (Nvme *d, Tlp *t)
{
  t->requester = d->base.id;
  t->next = NULL;
  tlp_fifo_push (&d->posted, t);
}

static void
msix (Nvme *d, uint32_t qi)
{
  Queue *q = &d->q[qi];
  q->unsignalled = 0;
  Tlp *t = tlp_alloc (d->pool);
  tlp_set (t, TLP_MSI, FALSE, q->msix_address, 4);
  /* The handler reaps up to the entries posted so far (nvme.h); its vector's data is in the message, its count in
   * the cookie the host hands to the handler. */
  t->cookie = (uint32_t) q->cq_posted;
  d->c.msis++;
  post (d, t);
}

static void
coalesce_fire (SimEngine *e, void *ctx, uint64_t qi)
{
  Nvme *d = ctx;
  d->q[qi].timer = SIM_EVENT_NONE;
  if (d->q[qi].unsignalled > 0)
    msix (d, (uint32_t) qi);
  pump (d);
}

/* The command is done: its completion entry, then the interrupt as coalescing says. */
static void
complete (Nvme *d, uint32_t i)
{
  Cmd *m = &d->cmd[i];
  Queue *q = &d->q[m->queue];
  SIM_INVARIANT (q->cq_posted - q->cq_head < q->cq_entries, "%s: queue %u's CQ is full", d->base.name, m->queue);
  Tlp *t = tlp_alloc (d->pool);
  tlp_set (t, TLP_MWR, TRUE, q->cq_address + (q->cq_posted % q->cq_entries) * NVME_CQE_BYTES, NVME_CQE_BYTES);
  t->cookie = m->sqe.cid;
  q->cq_ring[q->cq_posted % q->cq_entries] = m->sqe.cid;
  post (d, t);
  q->cq_posted++;
  d->c.cqes++;
  d->c.commands++;
  m->sqe.write ? d->c.writes++ : d->c.reads++;
  m->phase = CMD_FREE;
  d->in_flight--;
  if (++q->unsignalled >= d->p.coalesce_threshold || d->p.coalesce_time_ns <= 0)
    msix (d, m->queue);
  else if (!sim_event_pending (d->engine, q->timer))
    q->timer = sim_schedule_in (d->engine, units_ns_to_ps (d->p.coalesce_time_ns), coalesce_fire, d, m->queue);
}

static void
flash_done (SimEngine *e, void *ctx, uint64_t i)
{
  Nvme *d = ctx;
  Cmd *m = &d->cmd[i];
  if (m->sqe.write)
    complete (d, (uint32_t) i);
  else {
    m->phase = CMD_DATA_OUT;
    m->issued = 0;
    push_ring (d->data_ring, n_cmds (d), d->data_head, &d->data_len, (uint32_t) i);
  }
  pump (d);
}

/* Its pages known: a read goes to flash, a write first fetches its data. */
static void
start (Nvme *d, uint32_t i)
{
  Cmd *m = &d->cmd[i];
  m->issued = m->got = 0;
  if (m->sqe.write) {
    m->phase = CMD_DATA_IN;
    push_ring (d->data_ring, n_cmds (d), d->data_head, &d->data_len, i);
    return;
  }
  m->phase = CMD_FLASH;
  sim_schedule_in (d->engine, dist_draw_ps (d->p.read_latency, d->rand), flash_done, d, i);
}

/* An MRd of `bytes` at `address` with a free tag (the caller checked there is one and the link takes it). */
static Tlp *
mrd (Nvme *d, const Tlp *probe, TagState ts)
{
  uint16_t tag = txn_req_issue (&d->rq, probe->address, probe->length_bytes, sim_now (d->engine));
  Tlp *t = tlp_alloc (d->pool);
  *t = *probe;
  t->requester = d->base.id;
  t->tag = tag;
  d->tag[tag] = ts;
  return t;
}

/* One TLP of the next class that has one and the link takes; FALSE when none goes now. */
static gboolean
send_one (Nvme *d)
{
  Tlp probe = { 0 };
  if (d->posted.head != NULL) {
    if (!link_port_can_send (d->port, d->posted.head))
      return FALSE;
    link_port_send (d->port, tlp_fifo_pop (&d->posted));
    return TRUE;
  }
  if (d->rq.n_free > 0)
    for (uint32_t k = 0; k < d->p.queues; k++) {
      uint32_t qi = (d->fetch_rr + k) % d->p.queues;
      Queue *q = &d->q[qi];
      if (q->sq_head == q->sq_tail)
        continue;
      uint64_t a = q->sq_address + (uint64_t) q->sq_head * NVME_SQE_BYTES;
      tlp_set (&probe, TLP_MRD, TRUE, a, 0);
      probe.length_bytes = cut (d, a, NVME_SQE_BYTES, TRUE);
      g_assert (probe.length_bytes == NVME_SQE_BYTES); /* an entry is 64-byte aligned: one request */
      if (!link_port_can_send (d->port, &probe))
        return FALSE;
      link_port_send (d->port, mrd (d, &probe, (TagState) { .use = TAG_FETCH, .cmd = qi, .slot = q->sq_head }));
      q->sq_head = (q->sq_head + 1) % q->entries;
      d->fetch_rr = (qi + 1) % d->p.queues;
      d->c.fetches++;
      return TRUE;
    }
  if (d->rq.n_free > 0 && d->prp_len > 0) {
    uint32_t i = d->prp_ring[d->prp_head];
    Cmd *m = &d->cmd[i];
    uint32_t list = (pages_of (&m->sqe) - 1) * NVME_PRP_BYTES;
    uint64_t a = m->sqe.prp_list + m->prp_issued;
    tlp_set (&probe, TLP_MRD, TRUE, a, 0);
    probe.length_bytes = cut (d, a, list - m->prp_issued, TRUE);
    if (!link_port_can_send (d->port, &probe))
      return FALSE;
    link_port_send (d->port, mrd (d, &probe, (TagState) { .use = TAG_PRP, .cmd = i }));
    m->prp_issued += probe.length_bytes;
    if (m->prp_issued == list) {
      d->prp_head = (d->prp_head + 1) % n_cmds (d);
      d->prp_len--;
      d->c.prp_lists++;
    }
    return TRUE;
  }
  if (d->data_len == 0)
    return FALSE;
  uint32_t i = d->data_ring[d->data_head];
  Cmd *m = &d->cmd[i];
  uint64_t address;
  uint32_t size = next_data (d, m, &address);
  if (m->sqe.write) {
    if (d->rq.n_free == 0)
      return FALSE;
    tlp_set (&probe, TLP_MRD, TRUE, address, 0);
    probe.length_bytes = size;
  } else
    tlp_set (&probe, TLP_MWR, TRUE, address, size);
  if (!link_port_can_send (d->port, &probe))
    return FALSE;
  if (m->sqe.write) {
    link_port_send (d->port, mrd (d, &probe, (TagState) { .use = TAG_DATA, .cmd = i }));
    d->c.data_mrd++;
  } else {
    Tlp *t = tlp_alloc (d->pool);
    *t = probe;
    t->requester = d->base.id;
    link_port_send (d->port, t);
    d->c.data_mwr++;
    d->c.bytes_to_host += size;
  }
  m->issued += size;
  if (m->issued == m->sqe.bytes) {
    d->data_head = (d->data_head + 1) % n_cmds (d);
    d->data_len--;
    if (!m->sqe.write)
      complete (d, i);
  }
  return TRUE;
}

static void
pump (Nvme *d)
{
  if (d->port == NULL)
    return;
  while (send_one (d))
    ;
}

/* A fetched entry: its command's record (by its ID, free until now), then its PRP list or its work. */
static void
fetched (Nvme *d, uint32_t qi, uint32_t slot)
{
  const NvmeSqe *s = &d->q[qi].ring[slot];
  SIM_INVARIANT (s->cid < d->p.queue_depth && s->bytes > 0 && s->bytes % 512 == 0, "%s: queue %u's entry %u: "
                 "command ID %u, %u bytes", d->base.name, qi, slot, s->cid, s->bytes);
  uint32_t i = qi * d->p.queue_depth + s->cid;
  Cmd *m = &d->cmd[i];
  SIM_INVARIANT (m->phase == CMD_FREE, "%s: queue %u: command ID %u reused while in flight", d->base.name, qi, s->cid);
  *m = (Cmd) { .sqe = *s, .queue = qi };
  d->in_flight++;
  if (pages_of (s) > 2) {
    m->phase = CMD_PRP;
    push_ring (d->prp_ring, n_cmds (d), d->prp_head, &d->prp_len, i);
  } else
    start (d, i);
}

static void
completion (Nvme *d, const Tlp *t)
{
  gboolean last;
  SIM_INVARIANT (txn_req_complete (&d->rq, t, &last) == 0, "%s: a completion for tag %u at 0x%" G_GINT64_MODIFIER
                 "x, byte count %u: not the next one of an outstanding read", d->base.name, t->tag, t->address,
                 t->length_bytes);
  const TagState *ts = &d->tag[t->tag];
  d->c.bytes_from_host += ts->use == TAG_DATA ? t->payload_bytes : 0;
  gboolean listed = FALSE;
  if (ts->use == TAG_PRP) {
    Cmd *m = &d->cmd[ts->cmd];
    m->prp_got += t->payload_bytes;
    listed = m->prp_got == (pages_of (&m->sqe) - 1) * NVME_PRP_BYTES;
  }
  if (ts->use == TAG_DATA) {
    Cmd *m = &d->cmd[ts->cmd];
    m->got += t->payload_bytes;
    if (m->got == m->sqe.bytes) {
      m->phase = CMD_FLASH;
      sim_schedule_in (d->engine, dist_draw_ps (d->p.program_latency, d->rand), flash_done, d, ts->cmd);
    }
  }
  if (!last)
    return;
  if (ts->use == TAG_FETCH)
    fetched (d, ts->cmd, ts->slot);
  else if (listed)
    start (d, ts->cmd);
}

static void
receive (Component *comp, FabricPort *port, Tlp *t)
{
  Nvme *d = (Nvme *) comp;
  link_port_consume (port->link_port, t);
  fabric_delivered (comp, t);
  if (t->kind == TLP_CPLD)
    completion (d, t);
  else {
    uint64_t off;
    SIM_INVARIANT (t->kind == TLP_MWR && fabric_bar_of (comp, t->address, &off) == 0 && off >= NVME_DOORBELL_BASE
                   && (off - NVME_DOORBELL_BASE) / 8 < d->p.queues && off % 4 == 0,
                   "%s: a %s at 0x%" G_GINT64_MODIFIER "x, not a doorbell write", comp->name,
                   tlp_kind_name (t->kind), t->address);
    Queue *q = &d->q[(off - NVME_DOORBELL_BASE) / 8];
    uint32_t v = (uint32_t) t->cookie;
    gboolean sq = (off - NVME_DOORBELL_BASE) % 8 == 0;
    uint32_t n = sq ? q->entries : q->cq_entries;
    SIM_INVARIANT (v < n, "%s: doorbell value %u beyond its queue's %u entries", comp->name, v, n);
    if (sq)
      q->sq_tail = v;
    else
      q->cq_head += (v + n - q->cq_head % n) % n;
  }
  tlp_free (d->pool, t);
  pump (d);
}

static void
tx_ready (Component *comp, FabricPort *port)
{
  pump ((Nvme *) comp);
}

static void
attached (Component *comp, FabricPort *port)
{
  Nvme *d = (Nvme *) comp;
  d->port = port->link_port;
  d->rq.p.max_payload_bytes = link_params (port->link)->max_payload_bytes;
}

static gboolean
check (const Component *comp, GError **error)
{
  const Nvme *d = (const Nvme *) comp;
  if (d->in_flight != 0 || d->rq.n_free != d->p.tags || d->posted.head != NULL) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_INVARIANT, "%s: %" G_GUINT64_FORMAT " commands in flight, %u of %u "
                 "tags outstanding at the end", comp->name, d->in_flight, d->p.tags - d->rq.n_free, d->p.tags);
    return FALSE;
  }
  return TRUE;
}

static uint64_t
progress (const Component *comp)
{
  const NvmeCounters *c = &((const Nvme *) comp)->c;
  return c->fetches + c->prp_lists + c->data_mwr + c->data_mrd + c->cqes + c->msis + c->bytes_from_host;
}

static void
describe_wait (const Component *comp, GString *out)
{
  const Nvme *d = (const Nvme *) comp;
  if (d->in_flight > 0)
    g_string_append_printf (out, "%" G_GUINT64_FORMAT " commands in flight, %u reads outstanding", d->in_flight,
                            d->p.tags - d->rq.n_free);
}

/* A command may wait its flash latency, and an entry its coalescing time, with nothing on the wire. */
static SimTime
silence (const Component *comp)
{
  const Nvme *d = (const Nvme *) comp;
  double flash = MAX (dist_bound_ns (d->p.read_latency), dist_bound_ns (d->p.program_latency));
  return units_ns_to_ps (flash + d->p.coalesce_time_ns);
}

/* BAR0 is registers only. */
static uint64_t
reserved (const Component *comp, uint32_t bar)
{
  return comp->bars[bar].size_bytes;
}

static void
nvme_free (Component *comp)
{
  Nvme *d = (Nvme *) comp;
  for (Tlp *t; (t = tlp_fifo_pop (&d->posted)) != NULL;)
    tlp_free (d->pool, t);
  for (uint32_t i = 0; i < d->p.queues; i++)
    if (sim_event_pending (d->engine, d->q[i].timer))
      sim_cancel (d->engine, d->q[i].timer);
  g_rand_free (d->rand);
  dist_free ((Dist *) d->p.read_latency);
  dist_free ((Dist *) d->p.program_latency);
  txn_req_clear (&d->rq);
  g_free (d->cmd);
  g_free (d->prp_ring);
  g_free (d->data_ring);
  g_free (d);
}

static const ComponentKind nvme_kind = {
  .name = "NVMe SSD", .receive = receive, .tx_ready = tx_ready, .attached = attached, .check_invariants = check,
  .progress = progress, .describe_wait = describe_wait, .silence_ps = silence, .reserved_bytes = reserved,
  .free = nvme_free,
};

Nvme *
nvme_new (Fabric *f, const char *name, const NvmeParams *p)
{
  g_autoptr (GError) e = NULL;
  if (!nvme_params_check (p, &e))
    g_error ("nvme_new: %s", e->message);
  Nvme *d = g_new0 (Nvme, 1);
  d->p = *p;
  d->p.read_latency = dist_copy (p->read_latency);
  d->p.program_latency = dist_copy (p->program_latency);
  d->engine = fabric_engine (f);
  d->pool = fabric_pool (f);
  d->rand = sim_rand_new (d->engine, NVME_RAND_ID);
  d->cmd = g_new0 (Cmd, n_cmds (d));
  d->prp_ring = g_new0 (uint32_t, n_cmds (d));
  d->data_ring = g_new0 (uint32_t, n_cmds (d));
  /* MPS comes with the link (attached()); no completion-buffer limit: the drive's buffer is not modelled. */
  txn_req_init (&d->rq, &(TxnReqParams) { .max_read_request_bytes = p->max_read_request_bytes, .tags = p->tags });
  for (uint32_t i = 0; i < NVME_MAX_QUEUES; i++)
    d->q[i].timer = SIM_EVENT_NONE;
  /* 16 KB of registers: the controller's and the doorbells of up to 64 queue pairs, 64-bit (NVMe 2.0 §3.1). */
  d->base.bars[0] = (FabricBar) { .size_bytes = 16384, .is64 = TRUE };
  fabric_add (f, &d->base, &nvme_kind, COMPONENT_ENDPOINT, name, 1);
  return d;
}

Component *
nvme_component (Nvme *d)
{
  return &d->base;
}

Nvme *
nvme_from_component (Component *c)
{
  return c != NULL && c->kind == &nvme_kind ? (Nvme *) c : NULL;
}

const NvmeParams *
nvme_params (const Nvme *d)
{
  return &d->p;
}

void
nvme_create_queue (Nvme *d, uint32_t qi, uint64_t sq_address, uint64_t cq_address, uint32_t entries,
  uint32_t cq_entries, const NvmeSqe *ring, uint16_t *cq_ring, uint64_t msix_address)
{
  g_assert (qi < d->p.queues && entries > d->p.queue_depth && cq_entries > d->p.queue_depth);
  d->q[qi] = (Queue) { .sq_address = sq_address, .cq_address = cq_address, .msix_address = msix_address,
                       .entries = entries, .cq_entries = cq_entries, .ring = ring, .cq_ring = cq_ring, .timer = SIM_EVENT_NONE };
}

uint64_t
nvme_doorbell (const Nvme *d, uint32_t q, gboolean cq)
{
  return d->base.bars[0].base + NVME_DOORBELL_BASE + 8u * q + (cq ? 4u : 0u);
}

NvmeCounters
nvme_counters (const Nvme *d)
{
  return d->c;
}
