/* stream.c — the streaming endpoint and its minimal host counterpart (sink for writes, completer for reads).
 *
 * The stream isolates the link: with no DMA engine, datapath or driver, its figure is what framing, lane
 * placement, SKP ordered sets, DLLPs and credits allow, which can be derived by hand (docs/model.md, "Worked
 * example"). Set beside a chaining-DMA figure for the same config, the difference is what the endpoint and the
 * host cost. The queues allocate nothing: they are TLP FIFOs (tlp.h), threaded through the TLPs themselves.
 *
 * The two ends are two components of a one-link fabric (fabric.h), of kinds of their own: a root complex whose
 * memory is the minimal sink and completer, and an endpoint whose application sends straight to the link. They
 * share one Stream, which holds the measurement.
 *
 * The run is the harness's (run.h), like every other workload's: its watchdog judges a stream that stops moving,
 * its checks cover the link and the TLP pool, and its ledger the host's memory, whose completions sent (read) and
 * writes taken in (write) carry address-pattern sums. The stream asks the harness to drain: its figures (events,
 * simulated time) are those of the run drained to its last Ack, as they were before it ran in the harness. */
#include "models/workloads/stream.h"

#include <math.h>

#include "models/base/pattern.h"
#include "models/fabric/fabric.h"
#include "models/fabric/run.h"
#include "models/observe/stall.h"
#include "models/txn/completer.h"
#include "models/txn/requester.h"

/* Configurable default, because a saturating source needs only enough queued TLPs to keep the serialiser busy
 * between two tx-ready callbacks; an unlimited queue would just hold the whole transfer in memory. */
#define STREAM_TX_QUEUE_TLPS 4u
/* Configurable default, because 1 MB spans hundreds of SKP intervals and Ack periods on every link, so the
 * steady state dominates while a run stays in the millisecond range of wall time. */
#define STREAM_DEFAULT_TOTAL_BYTES (UINT64_C (1) << 20)

typedef struct Stream Stream;

/* Each end's component; its storage is the Stream's. */
typedef struct {
  Component base;
  Stream *s;
} StreamEnd;

struct Stream {
  Fabric *f;
  SimEngine *engine;
  Link *link;
  TlpPool *pool;
  StreamParams p;
  StreamEnd host_end, source_end;
  LinkPort *dev, *host;
  /* source */
  uint64_t issued_bytes; /* MWr payload sent, or MRd bytes requested */
  TxnRequester rq; /* its cuts, tags and completion checks */
  /* host side */
  TlpFifo sink; /* write: TLPs waiting for the consumer */
  SimTime sink_busy_until; /* when the consumer finishes the TLP it is draining */
  SimEventId sink_ev;
  TxnCompleter cpl; /* read: MRds waiting for / under completion, in arrival order */
  SimEventId req_ev;
  /* measurement */
  uint64_t delivered; /* payload taken by the host's consumer (write) or by the device (read) */
  uint64_t read_sum; /* read: pattern sum of the completions the device took in */
  FabricMemory mem; /* the host's memory: completions sent, writes taken in (the ledger's) */
  RunCtx *run;
  gboolean in_window;
  SimTime t0; /* window start, and the bytes already delivered then */
  uint64_t b0;
  LatHist *lat; /* latencies in the window: a fixed histogram, so memory does not grow with the transfer */
  StreamResult *out;
};

static void source_pump (Stream *s);
static void completer_pump (Stream *s);

/* Steady state: deliveries are discrete, so the window runs from one delivery to another: (N - k) TLPs over
 * (N - k) arrival intervals, which is the rate without the start-up latency of the first TLP. A warmup that
 * leaves no delivery after the one opening the window gives an empty window, and a figure of 0 rather than a
 * division by zero: with a transfer of one TLP there is no interval to measure, which is why the config's
 * workload measures the transfer window instead (opened at t = 0 in stream_run, so never empty). Either way the
 * link's counters restart when the window opens, so the usage figures describe the same window as the rate. */
static void
measure (Stream *s, uint32_t bytes)
{
  s->delivered += bytes;
  SimTime now = sim_now (s->engine);
  if (!s->in_window && s->delivered >= s->p.warmup_bytes) {
    s->in_window = TRUE;
    s->t0 = now;
    s->b0 = s->delivered;
    link_stats_reset (s->link);
  }
  if (s->delivered == s->p.total_bytes) {
    StreamResult *o = s->out;
    o->window_ps = now - s->t0;
    o->mbps = o->window_ps ? (double) (s->delivered - s->b0) * 1e6 / (double) o->window_ps : 0;
    for (int d = 0; d < 2; d++) {
      o->usage[d] = link_usage (s->link, (LinkDir) d);
      o->counters[d] = link_counters (s->link, (LinkDir) d);
    }
    run_finished (s->run);
  }
}

/* The host's memory takes in a write's payload (write mode). */
static void
host_took (Stream *s, const Tlp *t)
{
  s->mem.bytes_written += t->payload_bytes;
  s->mem.write_checksum += pattern_sum (t->address, t->payload_bytes);
}

/* A TLP's latency, counted once the window is open (stamp: hand-off to the link, kept in `cookie`). */
static void
latency (Stream *s, uint64_t stamp)
{
  if (s->in_window)
    lat_add (s->lat, sim_now (s->engine) - stamp);
}

/* ---- write mode ---- */

/* bytes / (MB/s) = bytes · 10^6 / rate picoseconds; truncating loses under 1 ps per TLP. validate() bounds the
 * rate from below, so the product stays far inside SimTime. */
static SimTime
drain_ps (const Stream *s, const Tlp *tlp)
{
  return (SimTime) ((double) tlp->payload_bytes * 1e6 / s->p.consumer_mbps);
}

/* The sink is a single server draining at consumer_mbps: one pending event for the head, none while empty. */
static void
sink_fire (SimEngine *e, void *ctx, uint64_t arg)
{
  (void) e;
  (void) arg;
  Stream *s = ctx;
  s->sink_ev = SIM_EVENT_NONE;
  Tlp *t = tlp_fifo_pop (&s->sink);
  link_port_consume (s->host, t);
  host_took (s, t);
  latency (s, t->cookie);
  measure (s, t->payload_bytes);
  tlp_free (s->pool, t);
  if (s->sink.head) {
    s->sink_busy_until += drain_ps (s, s->sink.head);
    s->sink_ev = sim_schedule_at (s->engine, s->sink_busy_until, sink_fire, s, 0);
  }
}

/* A TLP stays in the root port's receive buffer, holding its posted credits, until the consumer has drained it:
 * with finite posted credits a slow consumer throttles the source through flow control, as a full posted buffer
 * does. Delivery is counted when the consumer takes the data, so the figure is the rate the host absorbs. */
static void
host_rx_write (void *ctx, LinkPort *port, Tlp *tlp)
{
  (void) port;
  Stream *s = ctx;
  if (!s->p.consumer_mbps) {
    link_port_consume (s->host, tlp);
    host_took (s, tlp);
    latency (s, tlp->cookie);
    measure (s, tlp->payload_bytes);
    tlp_free (s->pool, tlp);
    return;
  }
  tlp_fifo_push (&s->sink, tlp);
  if (s->sink.head == tlp) {
    SimTime start = MAX (sim_now (s->engine), s->sink_busy_until);
    s->sink_busy_until = start + drain_ps (s, tlp);
    s->sink_ev = sim_schedule_at (s->engine, s->sink_busy_until, sink_fire, s, 0);
  }
}

/* ---- read mode ---- */

static void
req_fire (SimEngine *e, void *ctx, uint64_t arg)
{
  (void) e;
  (void) arg;
  Stream *s = ctx;
  s->req_ev = SIM_EVENT_NONE;
  completer_pump (s);
}

static void
host_rx_read (void *ctx, LinkPort *port, Tlp *tlp)
{
  (void) port;
  Stream *s = ctx;
  /* The completer takes the request into its own queue at once, freeing the NPH credit. */
  link_port_consume (s->host, tlp);
  txn_cpl_accept (&s->cpl, tlp, 0, 0);
  if (txn_cpl_next (&s->cpl) == tlp)
    completer_pump (s);
}

/* Requests are served in arrival order, one at a time, each after the fixed latency: the simplest completer that
 * still splits at RCB/MPS like a root complex. The MRd struct itself is the queue entry, so nothing allocates.
 * Ready times rise with arrival order (one fixed latency for all), so waiting on the head never holds back a
 * request that is already ready: requests overlap in their latency and leave one after another. */
static void
completer_pump (Stream *s)
{
  for (Tlp *r; (r = txn_cpl_next (&s->cpl)) != NULL;) {
    SimTime now = sim_now (s->engine);
    if (r->stamp_ps > now) {
      if (!sim_event_pending (s->engine, s->req_ev))
        s->req_ev = sim_schedule_at (s->engine, r->stamp_ps, req_fire, s, 0);
      return;
    }
    /* §6, split.h: completions end on RCB multiples (the first may be shorter) and none exceeds the chosen size,
     * which is the completer's cap (its mps, completer.h). */
    uint32_t chunk = txn_cpl_size (&s->cpl, r);
    Tlp probe = { .kind = TLP_CPLD, .header_bytes = 12, .payload_bytes = chunk };
    if (!link_port_can_send (s->host, &probe))
      return; /* the tx-ready callback resumes us */
    /* The completion carries the request's cookie: its hand-off time, for its latency. */
    gboolean last;
    Tlp *c = txn_cpl_emit (&s->cpl, r, chunk, s->pool, &last);
    s->mem.cpl_bytes += c->payload_bytes;
    s->mem.cpl_checksum += pattern_sum (c->address, c->payload_bytes);
    link_port_send (s->host, c);
  }
}

/* A request's last completion is the one whose byte count equals its own payload (spec §2.2.9); only that one
 * frees a tag, the one resource of the source's that a completion can give back. */
static void
dev_rx_read (void *ctx, LinkPort *port, Tlp *tlp)
{
  (void) port;
  Stream *s = ctx;
  link_port_consume (s->dev, tlp);
  uint32_t bytes = tlp->payload_bytes;
  gboolean last;
  SIM_INVARIANT (txn_req_complete (&s->rq, tlp, &last) == 0, "stream source: a completion for tag %u at 0x%"
                 G_GINT64_MODIFIER "x (byte count %u) it did not expect", tlp->tag, tlp->address, tlp->length_bytes);
  if (last)
    latency (s, tlp->cookie);
  s->read_sum += pattern_sum (tlp->address, bytes);
  tlp_free (s->pool, tlp);
  measure (s, bytes);
  if (last)
    source_pump (s);
}

/* ---- source (device) ---- */

/* Send until the link refuses (credits, replay space, queue) or tags run out; the refusal arms tx-ready.
 * Addresses run from 0 in steps of the requester's cut (MPS or MRRS, or the chosen TLP payload), powers of two of
 * at most 4 KB, so every request but the last is one unit (spec §2.2.7). Tags are the requester's (requester.h),
 * and so are the checks of each completion against its request. */
static void
source_pump (Stream *s)
{
  gboolean write = s->p.mode == STREAM_WRITE;
  while (s->issued_bytes < s->p.total_bytes && (write || s->rq.n_free > 0)) {
    uint32_t n = txn_req_size (&s->rq, write ? TLP_MWR : TLP_MRD, s->issued_bytes, s->p.total_bytes - s->issued_bytes);
    Tlp probe = { 0 };
    tlp_set (&probe, write ? TLP_MWR : TLP_MRD, s->p.addr64, s->issued_bytes, n);
    if (!link_port_can_send (s->dev, &probe))
      return;
    Tlp *t = tlp_alloc (s->pool);
    *t = probe;
    t->cookie = sim_now (s->engine);
    t->requester = s->source_end.base.id;
    if (write && s->p.misplace && s->issued_bytes == s->p.misplace_offset)
      t->address += 4;
    if (!write)
      t->tag = txn_req_issue (&s->rq, t->address, n, t->cookie);
    s->issued_bytes += n;
    link_port_send (s->dev, t);
  }
}

/* --- the two components ------------------------------------------------------------------------------------ */

static void
host_receive (Component *c, FabricPort *port, Tlp *t)
{
  Stream *s = ((StreamEnd *) c)->s;
  (s->p.mode == STREAM_WRITE ? host_rx_write : host_rx_read) (s, port->link_port, t);
}

static void
source_receive (Component *c, FabricPort *port, Tlp *t)
{
  dev_rx_read (((StreamEnd *) c)->s, port->link_port, t);
}

/* The link calls these after a refusal, once credits, queue or replay space have come back. */
static void
source_tx_ready (Component *c, FabricPort *port)
{
  source_pump (((StreamEnd *) c)->s);
}

static void
host_tx_ready (Component *c, FabricPort *port)
{
  completer_pump (((StreamEnd *) c)->s);
}

/* What each end holds, for the harness's deadlock message (the link adds its credits and replay space). */
static void
source_describe_wait (const Component *c, GString *out)
{
  const Stream *s = ((const StreamEnd *) c)->s;
  if (s->delivered == s->p.total_bytes)
    return;
  g_string_append_printf (out, "%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " bytes %s", s->issued_bytes,
                          s->p.total_bytes, s->p.mode == STREAM_WRITE ? "sent" : "requested");
  if (s->p.mode == STREAM_READ)
    g_string_append_printf (out, ", %u of %u tags free", s->rq.n_free, s->p.tags);
}

static void
host_describe_wait (const Component *c, GString *out)
{
  const Stream *s = ((const StreamEnd *) c)->s;
  if (s->p.mode == STREAM_WRITE && s->sink.head)
    g_string_append (out, "TLPs queued for the consumer");
  else if (s->p.mode == STREAM_READ && txn_cpl_next (&s->cpl))
    g_string_append (out, "read requests to complete");
}

static void
host_memory (const Component *c, FabricMemory *out)
{
  *out = ((const StreamEnd *) c)->s->mem;
}

/* The harness's checks cover both ends (the workload's own below): the host needs only its memory for the ledger. */
static const ComponentKind host_kind = { .name = "stream host", .receive = host_receive, .tx_ready = host_tx_ready,
                                         .describe_wait = host_describe_wait, .memory = host_memory };
static const ComponentKind source_kind = { .name = "stream source", .receive = source_receive,
                                           .tx_ready = source_tx_ready, .describe_wait = source_describe_wait };

/* Fills the documented defaults in place, then checks ranges from pcie-protocol.md §6. Defaults first, so a
 * message reports the value the run would have used. */
static gboolean
validate (StreamParams *p, GError **error)
{
  if (!link_params_validate (&p->link, error))
    return FALSE;
  if (!p->total_bytes)
    p->total_bytes = STREAM_DEFAULT_TOTAL_BYTES;
  if (p->window == STREAM_WINDOW_TRANSFER)
    p->warmup_bytes = 0;
  else if (!p->warmup_bytes)
    p->warmup_bytes = p->total_bytes / 8;
  if (!p->link.tx_queue_tlps)
    p->link.tx_queue_tlps = STREAM_TX_QUEUE_TLPS;
  if (!p->max_read_request_bytes)
    p->max_read_request_bytes = 512; /* pcie-protocol.md §6: MRRS default */
  if (!p->tags)
    p->tags = 32; /* §6: 5-bit tags */
  if (!p->rcb_bytes)
    p->rcb_bytes = 64; /* §6: root complex RCB 64 or 128 */
  if (!p->completion_bytes)
    p->completion_bytes = p->link.max_payload_bytes;
  uint32_t mrrs = p->max_read_request_bytes;
  /* Below 1 kB/s a 4 KB TLP drains in over an hour of simulated time: not a rate anyone asks about, and the floor
   * keeps drain_ps() far inside SimTime. */
  if (!(p->consumer_mbps == 0 || (p->consumer_mbps >= 1e-3 && p->consumer_mbps <= 1e9))) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "consumer rate %g MB/s: must be 0 (no limit) or "
                 "0.001..1e9", p->consumer_mbps);
    return FALSE;
  }
  if (p->window == STREAM_WINDOW_STEADY && p->warmup_bytes >= p->total_bytes) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "warmup_bytes must be below total_bytes");
    return FALSE;
  }
  if (mrrs < 128 || mrrs > 4096 || (mrrs & (mrrs - 1))) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "max_read_request_bytes %u is not 128..4096, power of 2",
                 mrrs);
    return FALSE;
  }
  if ((p->rcb_bytes != 64 && p->rcb_bytes != 128) || p->completion_bytes % p->rcb_bytes
      || p->completion_bytes > p->link.max_payload_bytes) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM,
                 "completion_bytes %u must be a multiple of rcb_bytes %u (64 or 128) and <= max payload",
                 p->completion_bytes, p->rcb_bytes);
    return FALSE;
  }
  uint32_t max_tags = link_tags_max (&p->link);
  if (p->tags > max_tags) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "tags %u exceeds %u", p->tags, max_tags);
    return FALSE;
  }
  /* A TLP never exceeds MPS (write) or MRRS (read) and is whole DWs (§2). */
  uint32_t unit_max = p->mode == STREAM_WRITE ? p->link.max_payload_bytes : mrrs;
  uint32_t u = p->tlp_payload_bytes;
  if (u && (u < 4 || (u & (u - 1)) || u > unit_max)) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "TLP payload %u bytes is not a power of 2 from 4 to %u "
                 "(powers of two keep every TLP inside a 4 KB page, spec §2.2.7)", u, unit_max);
    return FALSE;
  }
  return TRUE;
}

/* --- the run (run.h) ----------------------------------------------------------------------------------------- */

static void
start (void *self, RunCtx *run)
{
  Stream *s = self;
  s->run = run;
  source_pump (s);
}

/* The stream starts at t = 0 and owes every byte until the last is delivered. */
static gboolean
owed (void *self)
{
  const Stream *s = self;
  return s->delivered < s->p.total_bytes;
}

/* Bytes sent or requested and bytes delivered: the link's own traffic (Acks, UpdateFCs) is no sign of the stream's
 * life. The stream's ends count nothing themselves, so this is the whole count. */
static uint64_t
progress (void *self)
{
  const Stream *s = self;
  return s->issued_bytes + s->delivered;
}

/* A healthy stream is silent at most while its consumer drains one TLP (write) or its completer waits out its
 * latency (read). */
static SimTime
quiet (void *self)
{
  const Stream *s = self;
  if (s->p.mode == STREAM_READ)
    return s->p.completer_latency_ps;
  return s->p.consumer_mbps ? (SimTime) ((double) s->p.link.max_payload_bytes * 1e6 / s->p.consumer_mbps) : 0;
}

/* Only a backstop for a stream that keeps delivering and never ends: a microsecond a byte (1 MB/s, far below any
 * link), twice the consumer's time for the transfer, and every request's latency one after another. */
static SimTime
budget (void *self)
{
  const Stream *s = self;
  double total = (double) s->p.total_bytes, ps = 1000.0 * SIM_MS + total * SIM_US;
  if (s->p.consumer_mbps)
    ps += 2.0 * total * SIM_US / s->p.consumer_mbps;
  if (s->p.mode == STREAM_READ)
    ps += (total / 4.0 + 1.0) * (double) s->p.completer_latency_ps;
  return ps < (double) (SIM_TIME_MAX / 2) ? (SimTime) ps : SIM_TIME_MAX / 2;
}

static void
where (void *self, GString *out)
{
  const Stream *s = self;
  g_string_append_printf (out, "the %s stream, %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " bytes delivered",
                          s->p.mode == STREAM_WRITE ? "write" : "read", s->delivered, s->p.total_bytes);
}

/* Addresses run from 0 over total_bytes, so what the host's memory must have sent (read) or taken in (write), and
 * what the device must have read, is one range's pattern sum (pattern.h). */
static gboolean
check (void *self, RunLedger *ledger, GError **error)
{
  const Stream *s = self;
  gboolean write = s->p.mode == STREAM_WRITE;
  uint64_t total = s->p.total_bytes, sum = pattern_sum (0, total);
  if (!write && s->read_sum != sum)
    return run_integrity_error (error, "endpoint", "read data", s->read_sum, sum);
  RunMemory *m = run_ledger_at (ledger, &s->host_end.base, TRUE);
  m->cpl_bytes = write ? 0 : total;
  m->cpl_sum = write ? 0 : sum;
  m->mem_bytes = write ? total : 0;
  m->mem_sum = write ? sum : 0;
  return TRUE;
}

/* The counts are the model's: the watchdog's ticks are the harness's, not the stream's. */
static void
result (void *self, const RunCtx *run, gboolean ok)
{
  (void) ok;
  Stream *s = self;
  RunStats st = run_stats (run);
  StreamResult *out = s->out;
  out->payload_bytes = s->delivered;
  out->latency_p99_ns = s->lat->count ? lat_percentile_ps (s->lat, 0.99) / 1000.0 : NAN;
  for (int d = 0; d < 2; d++)
    out->errors[d] = link_errors (s->link, (LinkDir) d);
  out->sim_time_ps = sim_now (s->engine);
  out->events = st.events - st.ticks;
  out->tlps = st.tlps;
}

static const RunWorkload stream_workload = {
  .start = start, .owed = owed, .progress = progress, .quiet_ps = quiet, .budget_ps = budget, .where = where,
  .check = check, .result = result, .drain = TRUE,
};

gboolean
stream_run (const StreamParams *params, uint64_t seed, StreamResult *out, GError **error)
{
  /* A copy, so the defaults fill it without touching the caller's parameters. */
  Stream s = { 0 };
  s.p = *params;
  if (!validate (&s.p, error))
    return FALSE;
  *out = (StreamResult) { 0 };
  s.out = out;
  s.f = fabric_new (seed);
  s.engine = fabric_engine (s.f);
  s.pool = fabric_pool (s.f);
  s.host_end.s = s.source_end.s = &s;
  fabric_add (s.f, &s.host_end.base, &host_kind, COMPONENT_ROOT_COMPLEX, "host", 1);
  fabric_add (s.f, &s.source_end.base, &source_kind, COMPONENT_ENDPOINT, "endpoint", 1);
  s.link = fabric_connect (s.f, &s.host_end.base, 0, &s.source_end.base, 0, &s.p.link, error);
  if (s.link != NULL)
    link_trace_declare (s.link, s.p.trace, "link0");
  if (s.link == NULL || !fabric_enumerate (s.f, error) || (s.p.trace && !sim_trace_start (s.p.trace, error))) {
    fabric_free (s.f);
    return FALSE;
  }
  s.dev = link_port (s.link, LINK_USP);
  s.host = link_port (s.link, LINK_DSP);
  uint32_t unit = s.p.tlp_payload_bytes;
  TxnReqParams rp = { .max_payload_bytes = unit ? unit : s.p.link.max_payload_bytes,
                      .max_read_request_bytes = unit ? unit : s.p.max_read_request_bytes,
                      .tags = s.p.mode == STREAM_WRITE ? 0 : s.p.tags };
  txn_req_init (&s.rq, &rp);
  if (s.p.window == STREAM_WINDOW_TRANSFER) {
    s.in_window = TRUE; /* t0 = 0, b0 = 0: from the first TLP offered, every byte counted */
    link_stats_reset (s.link);
  }
  s.sink_ev = s.req_ev = SIM_EVENT_NONE;
  TxnCplParams cp = { .rcb_bytes = s.p.rcb_bytes, .policy = CPL_POLICY_MPS, .in_order = TRUE, .check_tags = TRUE,
                      .latency_ps = s.p.completer_latency_ps };
  txn_cpl_init (&s.cpl, "stream host", &cp, s.p.completion_bytes, s.engine, NULL, NULL);
  s.lat = g_new0 (LatHist, 1);
  gboolean ok = run_go (s.f, &stream_workload, &s, s.p.watchdog_ps, error);
  g_free (s.lat);
  txn_cpl_clear (&s.cpl, s.pool);
  txn_req_clear (&s.rq);
  fabric_free (s.f);
  return ok;
}
