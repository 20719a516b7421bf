/* cpu.c — cores running programs against the root complex (contract in cpu.h).
 *
 * Each thread is a small interpreter: step() executes one op (or one store or load of a STORE or LOAD op) and
 * either moves on or leaves the thread in a wait state that names what will wake it: its own time (an engine
 * event), the root complex taking a write (host ready()), a load's data, a signal, a barrier. Everything that wakes
 * a thread calls thread_run(), which steps until the thread waits again. The thread's own time is what makes a
 * run of stores cheap: they advance it without events, and only a write that must leave at that time waits for
 * the engine to get there.
 */
#include "models/devices/cpu.h"

#include "models/base/pattern.h"
#include "models/observe/pcie_trace.h"
#include "models/base/units.h"
#include "models/txn/requester.h"

typedef enum {
  T_TIME, /* an event at its own time resumes it */
  T_READY, /* stepping */
  T_PATH, /* writes on their way: a fill buffer to free up, or all of them taken (fence, load) */
  T_SENT, /* DRAIN: the root complex to place every write it took on the wire */
  T_LOAD, /* a load's completion data */
  T_SIGNAL, /* WAIT: signals */
  T_BARRIER, /* BARRIER: the other threads */
  T_DONE,
} ThreadState;

static const char *const state_names[] = { "its own time", "nothing", "its writes to be taken by the root complex",
                                           "its writes to leave the root port", "a load's completion", "a signal (interrupt or poll)",
                                           "the other threads at a barrier", "nothing (ended)" };

/* A write on its way to the root complex: it left the core's buffers at `leave_ps` and asks for the bus then; once
 * the bus has taken it (granted) it is offered to the root complex from `ready_ps` on. */
typedef struct {
  WcWrite w;
  SimTime leave_ps, ready_ps;
} PathWrite;

typedef struct {
  Cpu *cpu;
  guint index;
  CpuOp *ops;
  guint n_ops, pc;
  uint32_t *rounds; /* per op: rounds a LOOP has run */
  ThreadState state;
  gboolean running; /* inside thread_run(): a wake-up from below only changes the state */
  SimTime time; /* the thread's own time, >= the engine's while it steps */
  uint32_t signals, need;
  uint64_t done_bytes; /* bytes of the current STORE or LOAD issued */
  uint64_t load_left; /* completion bytes still due for the outstanding load */
  uint64_t load_address; /* its DW range's first byte */
  uint32_t load_width; /* bytes that load covers of the op */
  Wc *wc;
  PathWrite *ring; /* writes that left the WC buffers, not yet taken by the root complex */
  guint ring_cap, head, len;
  guint granted; /* of those, from the head, the ones the bus has taken (their ready_ps is known) */
  SimTime path_event_ps; /* the earliest path event pending, or SIM_TIME_MAX */
  gboolean host_refused; /* the root complex refused the head: its ready() offers it again */
  gboolean kicking; /* inside path_kick() */
  /* Traced runs (cpu_trace_declare): the phase track and the phase open on it. */
  SimTraceTrack tr;
  TraceCpuState tr_state;
} Thread;

struct Cpu {
  SimEngine *engine;
  Host *host;
  CpuParams p;
  TxnRequester txn; /* the cores' loads: each core's tag is its number; completions checked against them */
  GRand *rand;
  SimTime store_ps, access_ps, post_ps;
  SimTime bus_ps; /* the bus's time per write transaction; 0 = writes never wait for it */
  SimTime bus_free_ps; /* when the bus can start the next write transaction */
  GPtrArray *threads;
  guint n_done, at_barrier;
  void (*done) (void *ctx);
  void *done_ctx;
  CpuCounters c;
  /* Tracing (cpu_trace_declare); NULL when off, and then each hook is one pointer test. */
  SimTrace *trace;
  SimTraceTrack tr_irq;
  SimTime irq_free; /* the end of the last interrupt's slices */
};

gboolean
cpu_params_check (const CpuParams *p, GError **error)
{
  if (!wc_params_check (&p->wc, error))
    return FALSE;
  const double v[] = { p->store_ns, p->access_ns, p->post_ns, p->bus_write_ns, p->dma_setup_ns, p->dma_desc_ns };
  static const char *const names[] = { "store time", "path to the root complex", "write's path to the posted-write "
                                       "queue", "bus time per write transaction", "DMA set-up time",
                                       "time per descriptor" };
  for (guint i = 0; i < G_N_ELEMENTS (v); i++)
    if (!(v[i] >= 0 && v[i] < 1e9)) {
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "CPU %s %g ns: must be finite, >= 0 and below 1 s", names[i],
                   v[i]);
      return FALSE;
    }
  if (p->post_ns > p->access_ns) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "CPU write's path to the posted-write queue %g ns: longer than "
                 "the whole path to the root port, %g ns", p->post_ns, p->access_ns);
    return FALSE;
  }
  if (p->bus_write_ns > p->post_ns) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARAM, "CPU bus time per write transaction %g ns: longer than the "
                 "write's path to where it is posted, %g ns, which the transaction is part of", p->bus_write_ns,
                 p->post_ns);
    return FALSE;
  }
  return TRUE;
}

static void thread_run (Thread *t);
static void resume (SimEngine *e, void *ctx, uint64_t arg);

/* --- writes and loads ------------------------------------------------------------------------------------ */

static void
emit (void *ctx, const WcWrite *w)
{
  Thread *t = ctx;
  SIM_INVARIANT (t->len < t->ring_cap, "cpu thread %u: %u writes on their way, more than its buffers can hold",
                 t->index, t->len);
  /* Without a bus to wait for, the write's way is known as it leaves: granted at once. */
  t->ring[(t->head + t->len++) % t->ring_cap] = (PathWrite) { *w, t->time, t->time + t->cpu->post_ps };
  if (t->cpu->bus_ps == 0)
    t->granted++;
}

static PathWrite *
ring_at (Thread *t, guint i)
{
  return &t->ring[(t->head + i) % t->ring_cap];
}

static void path_event (SimEngine *e, void *ctx, uint64_t arg);

/* The bus takes the writes that have asked for it by now, each when the one before it (of any core) is done with
 * it. Granting in the engine's time, not the thread's, keeps the bus first come, first served among cores whose
 * own times run ahead of the engine by different amounts. */
static void
bus_grant (Thread *t, SimTime now)
{
  Cpu *cpu = t->cpu;
  while (t->granted < t->len) {
    PathWrite *p = ring_at (t, t->granted);
    if (p->leave_ps > now)
      return;
    SimTime start = MAX (p->leave_ps, cpu->bus_free_ps);
    cpu->bus_free_ps = start + cpu->bus_ps;
    p->ready_ps = start + cpu->post_ps;
    t->granted++;
  }
}

/* An event when the path next has something to do: the head offered (unless the root complex refused it: its
 * ready() comes then), the next write's bus request. An event already pending no later does. */
static void
path_schedule (Thread *t, SimTime now)
{
  SimTime at = SIM_TIME_MAX;
  if (t->granted > 0 && !t->host_refused)
    at = ring_at (t, 0)->ready_ps;
  if (t->granted < t->len)
    at = MIN (at, ring_at (t, t->granted)->leave_ps);
  if (at == SIM_TIME_MAX || at <= now || at >= t->path_event_ps)
    return;
  t->path_event_ps = at;
  sim_schedule_at (t->cpu->engine, at, path_event, t, 0);
}

/* Offer the writes that have crossed the path to the root complex, in order. A store narrower than a DW goes out
 * as the DW that holds it (its byte enables select the bytes). A write taken frees a fill buffer, so a thread
 * waiting on the path steps again (it waits again if it still must). */
static void
path_kick (Thread *t)
{
  Cpu *cpu = t->cpu;
  if (t->kicking)
    return;
  t->kicking = TRUE;
  gboolean taken = FALSE;
  SimTime now = sim_now (cpu->engine);
  bus_grant (t, now);
  while (t->granted > 0 && !t->host_refused) {
    const PathWrite *p = ring_at (t, 0);
    if (p->ready_ps > now)
      break;
    uint64_t a = p->w.address & ~(uint64_t) 3, end = (p->w.address + p->w.length_bytes + 3) & ~(uint64_t) 3;
    if (!host_cpu_write (cpu->host, a, (uint32_t) (end - a))) {
      cpu->c.stalls++;
      t->host_refused = TRUE;
      break;
    }
    cpu->c.writes++;
    cpu->c.write_bytes += end - a;
    cpu->c.write_checksum += pattern_sum (a, end - a);
    t->head = (t->head + 1) % t->ring_cap;
    t->len--;
    t->granted--;
    taken = TRUE;
  }
  path_schedule (t, now);
  t->kicking = FALSE;
  if (taken && t->state == T_PATH) {
    t->state = T_READY;
    t->time = MAX (t->time, now);
    thread_run (t);
  }
}

static void
path_event (SimEngine *e, void *ctx, uint64_t arg)
{
  Thread *t = ctx;
  /* The earliest pending event fires; any later one left pending from before is spare (a kick with nothing to
   * do). */
  if (sim_now (e) >= t->path_event_ps)
    t->path_event_ps = SIM_TIME_MAX;
  path_kick (t);
}

static void
host_ready (void *ctx)
{
  Cpu *cpu = ctx;
  for (guint i = 0; i < cpu->threads->len; i++) {
    Thread *t = cpu->threads->pdata[i];
    if (t->host_refused) {
      t->host_refused = FALSE;
      path_kick (t);
    }
  }
}

/* The root complex placed its last CPU write on the wire: a drain waiting for it goes on. */
static void
host_sent (void *ctx)
{
  Cpu *cpu = ctx;
  for (guint i = 0; i < cpu->threads->len; i++) {
    Thread *t = cpu->threads->pdata[i];
    if (t->state == T_SENT) {
      t->state = T_READY;
      t->time = MAX (t->time, sim_now (cpu->engine));
      thread_run (t);
    }
  }
}

/* Wait for writes on their way: until one is taken (`all` FALSE) or all are (TRUE). TRUE when there is nothing to
 * wait for. The ring is seen at the engine's time, so a thread ahead of it first waits for the engine. */
static gboolean
path_clear (Thread *t, gboolean all)
{
  if (all ? t->len == 0 : t->len < t->cpu->p.wc.buffers)
    return TRUE;
  if (t->time > sim_now (t->cpu->engine)) {
    t->state = T_TIME;
    sim_schedule_at (t->cpu->engine, t->time, resume, t, 0);
  } else {
    t->state = T_PATH;
  }
  return FALSE;
}

static void
load_issue (SimEngine *e, void *ctx, uint64_t arg)
{
  Thread *t = ctx;
  txn_req_issue_tag (&t->cpu->txn, (uint16_t) t->index, t->load_address, (uint32_t) t->load_left, sim_now (e));
  host_cpu_read (t->cpu->host, t->load_address, (uint32_t) t->load_left, (uint16_t) t->index);
}

static void
host_completion (void *ctx, const Tlp *cpl)
{
  Cpu *cpu = ctx;
  /* The requester's checks (requester.h): a tag a core's load holds, the address and byte count due, no excess. */
  gboolean last;
  SIM_INVARIANT (txn_req_complete (&cpu->txn, cpl, &last) == 0, "cpu: a completion with tag %u at 0x%"
                 G_GINT64_MODIFIER "x, %u bytes (byte count %u), which no core's load expects", cpl->tag, cpl->address,
                 cpl->payload_bytes, cpl->length_bytes);
  Thread *t = cpu->threads->pdata[cpl->tag];
  SIM_INVARIANT (t->state == T_LOAD, "cpu thread %u: a completion while no load is out", t->index);
  cpu->c.load_bytes += cpl->payload_bytes;
  cpu->c.load_checksum += pattern_sum (cpl->address, cpl->payload_bytes);
  t->load_left -= cpl->payload_bytes;
  if (t->load_left > 0)
    return;
  /* The data crosses the path back to the core: the load retires then. */
  cpu->c.loads++;
  t->done_bytes += t->load_width;
  t->time = MAX (t->time, sim_now (cpu->engine) + cpu->access_ps);
  t->state = T_READY;
  thread_run (t);
}

/* --- the interpreter ------------------------------------------------------------------------------------- */

/* Traced runs: the thread's phase from `at` on (models/observe/pcie_trace.h) ends the one open. A thread's time never goes
 * back, so neither do its phases. */
static void
phase (Thread *t, TraceCpuState state, SimTime at)
{
  SimTrace *tr = t->cpu->trace;
  if (state == t->tr_state)
    return;
  if (t->tr_state != TRACE_CPU_IDLE)
    sim_trace_end (tr, t->tr, at);
  if (state != TRACE_CPU_IDLE)
    sim_trace_begin (tr, t->tr, at, state, t->pc, 0);
  t->tr_state = state;
}

/* The phase an op starts (traced runs); WAIT and DMA_START set theirs as they run, MARK takes no time. */
static void
phase_of_op (Thread *t, const CpuOp *op)
{
  static const TraceCpuState of[] = {
    [CPU_OP_STORE] = TRACE_CPU_STORE, [CPU_OP_LOAD] = TRACE_CPU_LOAD, [CPU_OP_FENCE] = TRACE_CPU_FENCE,
    [CPU_OP_DRAIN] = TRACE_CPU_DRAIN, [CPU_OP_COMPUTE] = TRACE_CPU_COMPUTE, [CPU_OP_BARRIER] = TRACE_CPU_BARRIER,
    [CPU_OP_LOOP] = TRACE_CPU_IDLE,
  };
  if (op->kind != CPU_OP_WAIT && op->kind != CPU_OP_DMA_START && op->kind != CPU_OP_MARK)
    phase (t, of[op->kind], t->time);
}

static void
resume (SimEngine *e, void *ctx, uint64_t arg)
{
  Thread *t = ctx;
  t->state = T_READY;
  t->time = MAX (t->time, sim_now (e));
  thread_run (t);
}

/* Wait for the engine to reach the thread's own time. */
static void
wait_time (Thread *t)
{
  t->state = T_TIME;
  sim_schedule_at (t->cpu->engine, t->time, resume, t, 0);
}

/* Release a barrier every live thread has reached (a thread that ends stops counting). The threads go on in
 * thread order; a released thread already stepping goes on by itself. */
static void
barrier_check (Cpu *cpu)
{
  guint live = cpu->threads->len - cpu->n_done;
  if (cpu->at_barrier == 0 || cpu->at_barrier < live)
    return;
  cpu->at_barrier = 0;
  SimTime now = sim_now (cpu->engine);
  for (guint i = 0; i < cpu->threads->len; i++) {
    Thread *t = cpu->threads->pdata[i];
    if (t->state == T_BARRIER) {
      t->state = T_READY;
      t->time = MAX (t->time, now);
    }
  }
  for (guint i = 0; i < cpu->threads->len; i++)
    thread_run (cpu->threads->pdata[i]);
}

static void
thread_end (Thread *t)
{
  Cpu *cpu = t->cpu;
  t->state = T_DONE;
  if (G_UNLIKELY (cpu->trace != NULL))
    phase (t, TRACE_CPU_IDLE, t->time);
  if (++cpu->n_done == cpu->threads->len) {
    if (cpu->done != NULL)
      cpu->done (cpu->done_ctx);
    return;
  }
  barrier_check (cpu);
}

/* Ops that act on the outside at the thread's time: the engine must be there first (loads and fences wait for it
 * themselves, after the path). */
static gboolean
needs_engine_time (const Thread *t, const CpuOp *op)
{
  return (op->kind == CPU_OP_MARK || op->kind == CPU_OP_BARRIER) && t->time > sim_now (t->cpu->engine);
}

/* A store fills the core's buffers without the engine; the writes it releases cross the path on their own
 * (path_kick()), and the core goes on while a fill buffer is free. */
static void
step_store (Thread *t, const CpuOp *op)
{
  Cpu *cpu = t->cpu;
  if (t->done_bytes == op->bytes) {
    t->done_bytes = 0;
    t->pc++;
    return;
  }
  if (!path_clear (t, FALSE))
    return;
  uint64_t a = op->address + t->done_bytes;
  uint32_t w = wc_split_width (a, op->bytes - t->done_bytes, op->width);
  if (op->uc)
    wc_store_uc (t->wc, a, w);
  else
    wc_store (t->wc, a, w);
  t->done_bytes += w;
  cpu->c.stores++;
  t->time += cpu->store_ps;
  path_kick (t);
}

static void
step_load (Thread *t, const CpuOp *op, SimTime now)
{
  Cpu *cpu = t->cpu;
  /* A UC load drains the WC buffers and is ordered after every earlier write (SDM §11.3). */
  wc_fence (t->wc);
  path_kick (t);
  if (!path_clear (t, TRUE))
    return;
  if (t->done_bytes == op->bytes) {
    t->done_bytes = 0;
    t->pc++;
    return;
  }
  if (t->time > now) {
    wait_time (t);
    return;
  }
  uint64_t a = op->address + t->done_bytes;
  uint32_t w = wc_split_width (a, op->bytes - t->done_bytes, op->width);
  uint64_t dw = a & ~(uint64_t) 3, end = (a + w + 3) & ~(uint64_t) 3;
  cpu->c.load_checksum_wanted += pattern_sum (dw, end - dw);
  t->load_address = dw;
  t->load_left = end - dw;
  t->load_width = w;
  t->state = T_LOAD;
  if (cpu->access_ps > 0)
    sim_schedule_in (cpu->engine, cpu->access_ps, load_issue, t, 0);
  else
    load_issue (cpu->engine, t, 0);
}

/* The driver's set-up and descriptor writes take their time before the engines start (the hook). */
static void
step_dma_start (Thread *t, const CpuOp *op, SimTime now)
{
  Cpu *cpu = t->cpu;
  SimTime work = units_ns_to_ps (cpu->p.dma_setup_ns + op->count * cpu->p.dma_desc_ns);
  SimTime delay = t->time - now + work;
  if (G_UNLIKELY (cpu->trace != NULL)) {
    /* A phase of no time (a driver with no set-up cost, the engines' own benchmark) is left out. */
    SimTime setup = MIN (units_ns_to_ps (cpu->p.dma_setup_ns), work);
    if (setup > 0)
      phase (t, TRACE_CPU_SETUP, t->time);
    if (work > setup)
      phase (t, TRACE_CPU_DESCRIPTORS, t->time + setup);
  }
  t->pc++;
  op->hook (op->ctx, t->index, op->arg, delay);
  t->time = now + delay;
}

static void
step (Thread *t)
{
  Cpu *cpu = t->cpu;
  if (t->pc >= t->n_ops) {
    thread_end (t);
    return;
  }
  const CpuOp *op = &t->ops[t->pc];
  SimTime now = sim_now (cpu->engine);
  if (needs_engine_time (t, op)) {
    wait_time (t);
    return;
  }
  if (G_UNLIKELY (cpu->trace != NULL))
    phase_of_op (t, op);
  switch (op->kind) {
  case CPU_OP_STORE:
    step_store (t, op);
    return;
  case CPU_OP_FENCE:
    wc_fence (t->wc);
    path_kick (t);
    if (!path_clear (t, TRUE))
      return;
    t->pc++;
    return;
  case CPU_OP_DRAIN: {
    SimTime end;
    if (!host_cpu_writes_sent (cpu->host, &end)) {
      t->state = T_SENT;
      return;
    }
    t->time = MAX (t->time, end);
    t->pc++;
    return;
  }
  case CPU_OP_LOAD:
    step_load (t, op, now);
    return;
  case CPU_OP_COMPUTE:
    if (op->dist != NULL) {
      cpu->c.draws += dist_is_random (op->dist);
      t->time += dist_draw_ps (op->dist, cpu->rand);
    } else {
      t->time += units_ns_to_ps (op->ns);
    }
    t->pc++;
    return;
  case CPU_OP_DMA_START:
    step_dma_start (t, op, now);
    return;
  case CPU_OP_WAIT:
    t->pc++;
    if (t->signals >= op->count) {
      t->signals -= op->count;
      return;
    }
    t->need = op->count;
    t->state = T_SIGNAL;
    if (G_UNLIKELY (cpu->trace != NULL))
      phase (t, op->arg ? TRACE_CPU_POLL : TRACE_CPU_WAIT, t->time);
    return;
  case CPU_OP_BARRIER:
    t->pc++;
    t->state = T_BARRIER;
    cpu->at_barrier++;
    barrier_check (cpu);
    return;
  case CPU_OP_MARK:
    t->pc++;
    op->hook (op->ctx, t->index, op->arg, t->time);
    return;
  case CPU_OP_LOOP:
    if (++t->rounds[t->pc] < op->count) {
      t->pc = op->target;
      t->time = MAX (t->time, now) + units_ns_to_ps (op->ns);
      wait_time (t);
      return;
    }
    t->rounds[t->pc] = 0;
    t->pc++;
    return;
  }
}

static void
thread_run (Thread *t)
{
  if (t->running)
    return;
  t->running = TRUE;
  while (t->state == T_READY)
    step (t);
  t->running = FALSE;
}

/* --- the component --------------------------------------------------------------------------------------- */

Cpu *
cpu_new (SimEngine *engine, Host *host, const CpuParams *p)
{
  SIM_INVARIANT (cpu_params_check (p, NULL), "cpu_new: unchecked parameters");
  Cpu *cpu = g_new0 (Cpu, 1);
  cpu->engine = engine;
  cpu->host = host;
  cpu->p = *p;
  cpu->rand = sim_rand_new (engine, CPU_RAND_ID);
  cpu->store_ps = units_ns_to_ps (p->store_ns);
  cpu->access_ps = units_ns_to_ps (p->access_ns);
  cpu->post_ps = units_ns_to_ps (p->post_ns);
  cpu->bus_ps = units_ns_to_ps (p->bus_write_ns);
  cpu->threads = g_ptr_array_new ();
  /* A load is one MRd of at most 32 bytes (cpu_add_thread()), so the cut limits never bind: 4 KB, the page. */
  TxnReqParams rp = { .max_payload_bytes = 4096, .max_read_request_bytes = 4096, .tags = CPU_MAX_THREADS,
                      .source_tags = TRUE };
  txn_req_init (&cpu->txn, &rp);
  static const HostCpuFns fns = { host_ready, host_completion, host_sent };
  host_set_cpu (host, &fns, cpu);
  return cpu;
}

void
cpu_free (Cpu *cpu)
{
  if (cpu == NULL)
    return;
  for (guint i = 0; i < cpu->threads->len; i++) {
    Thread *t = cpu->threads->pdata[i];
    wc_free (t->wc);
    g_free (t->ring);
    g_free (t->ops);
    g_free (t->rounds);
    g_free (t);
  }
  g_ptr_array_free (cpu->threads, TRUE);
  txn_req_clear (&cpu->txn);
  g_rand_free (cpu->rand);
  g_free (cpu);
}

guint
cpu_add_thread (Cpu *cpu, const CpuOp *ops, guint n_ops)
{
  SIM_INVARIANT (cpu->threads->len < CPU_MAX_THREADS, "cpu: more than %u threads", CPU_MAX_THREADS);
  for (guint i = 0; i < n_ops; i++) {
    const CpuOp *op = &ops[i];
    gboolean access = op->kind == CPU_OP_STORE || op->kind == CPU_OP_LOAD;
    SIM_INVARIANT (!access || (op->width >= 1 && op->width <= 32 && (op->width & (op->width - 1)) == 0
                               && op->width <= cpu->p.wc.buffer_bytes),
                   "cpu: op %u accesses %u bytes at a time: must be a power of two up to 32", i, op->width);
    SIM_INVARIANT (op->kind != CPU_OP_LOOP || (op->target <= i && op->count >= 1), "cpu: loop op %u goes forward "
                   "or runs no round", i);
    SIM_INVARIANT ((op->kind != CPU_OP_DMA_START && op->kind != CPU_OP_MARK) || op->hook != NULL, "cpu: op %u has "
                   "no hook", i);
  }
  Thread *t = g_new0 (Thread, 1);
  t->cpu = cpu;
  t->index = cpu->threads->len;
  t->ops = g_memdup2 (ops, n_ops * sizeof *ops);
  t->n_ops = n_ops;
  t->rounds = g_new0 (uint32_t, n_ops ? n_ops : 1);
  t->state = T_DONE;
  t->path_event_ps = SIM_TIME_MAX;
  t->wc = wc_new (&cpu->p.wc, emit, t);
  /* A store issues while fewer writes than buffers are on their way, and can release at most every buffer as
   * 8-byte chunks, then its own write (a UC store after a fence). */
  t->ring_cap = cpu->p.wc.buffers * (1 + cpu->p.wc.buffer_bytes / 8) + 1;
  t->ring = g_new (PathWrite, t->ring_cap);
  g_ptr_array_add (cpu->threads, t);
  return t->index;
}

void
cpu_start (Cpu *cpu, void (*done) (void *ctx), void *ctx)
{
  cpu->done = done;
  cpu->done_ctx = ctx;
  for (guint i = 0; i < cpu->threads->len; i++) {
    Thread *t = cpu->threads->pdata[i];
    t->time = sim_now (cpu->engine);
    wait_time (t);
  }
}

void
cpu_signal (Cpu *cpu, guint thread)
{
  SIM_INVARIANT (thread < cpu->threads->len, "cpu: a signal for thread %u of %u", thread, cpu->threads->len);
  Thread *t = cpu->threads->pdata[thread];
  cpu->c.signals++;
  t->signals++;
  if (t->state == T_SIGNAL && t->signals >= t->need) {
    t->signals -= t->need;
    t->state = T_READY;
    t->time = MAX (t->time, sim_now (cpu->engine));
    thread_run (t);
  }
}

/* Traced runs: an MSI's data is in memory now, its handler runs after the root complex's msi_latency_ns and the
 * CPU's interrupt draw, the waiting thread after the wake-up draw (host.h, cpu.h). */
static void
trace_irq (Cpu *cpu, SimTime interrupt_ps, SimTime wakeup_ps)
{
  SimTime now = sim_now (cpu->engine);
  SimTime handler = now + units_ns_to_ps (host_params (cpu->host)->msi_latency_ns) + interrupt_ps;
  SimTime start = MAX (now, cpu->irq_free), wake = MAX (handler, start), end = wake + wakeup_ps;
  if (wake > start)
    sim_trace_slice (cpu->trace, cpu->tr_irq, start, wake - start, TRACE_CPU_INTERRUPT, 0, 0);
  if (end > wake)
    sim_trace_slice (cpu->trace, cpu->tr_irq, wake, end - wake, TRACE_CPU_WAKEUP, 0, 0);
  cpu->irq_free = MAX (cpu->irq_free, end);
}

SimTime
cpu_irq_delay_ps (void *ctx)
{
  Cpu *cpu = ctx;
  SimTime d[2] = { 0, 0 };
  const Dist *dists[2] = { cpu->p.interrupt, cpu->p.wakeup };
  SimTime *sums[2] = { &cpu->c.interrupt_ps, &cpu->c.wakeup_ps };
  cpu->c.irqs++;
  for (int i = 0; i < 2; i++)
    if (dists[i] != NULL) {
      cpu->c.draws += dist_is_random (dists[i]);
      d[i] = dist_draw_ps (dists[i], cpu->rand);
      *sums[i] += d[i];
    }
  if (G_UNLIKELY (cpu->trace != NULL))
    trace_irq (cpu, d[0], d[1]);
  return d[0] + d[1];
}

void
cpu_trace_declare (Cpu *cpu, SimTrace *trace, const char *scope)
{
  if (trace == NULL)
    return;
  cpu->trace = trace;
  cpu->tr_irq = trace_cpu_declare (trace, scope, "irq", FALSE);
  for (guint i = 0; i < cpu->threads->len; i++) {
    Thread *t = cpu->threads->pdata[i];
    g_autofree char *s = g_strdup_printf ("%s.thread%u", scope, i);
    t->tr = trace_cpu_declare (trace, s, "phase", TRUE);
  }
}

CpuCounters
cpu_counters (const Cpu *cpu)
{
  CpuCounters c = cpu->c;
  c.wc = (WcCounters) { 0 };
  for (guint i = 0; i < cpu->threads->len; i++) {
    WcCounters w = wc_counters (((Thread *) cpu->threads->pdata[i])->wc);
    c.wc.full_writes += w.full_writes;
    c.wc.partial_writes += w.partial_writes;
    c.wc.uc_writes += w.uc_writes;
    c.wc.bytes_stored += w.bytes_stored;
  }
  return c;
}

uint64_t
cpu_progress (const Cpu *cpu)
{
  return cpu->c.stores + cpu->c.writes + cpu->c.loads + cpu->c.load_bytes + cpu->c.signals;
}

gboolean
cpu_check_invariants (const Cpu *cpu, GError **error)
{
  for (guint i = 0; i < cpu->threads->len; i++) {
    const Thread *t = cpu->threads->pdata[i];
    if (t->state != T_DONE || t->len > 0 || wc_buffers_in_use (t->wc) > 0) {
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_INVARIANT, "cpu thread %u: not finished at the end (op %u of %u, "
                   "waiting for %s, %u writes pending, %u WC buffers in use)", i, t->pc, t->n_ops,
                   state_names[t->state], t->len, wc_buffers_in_use (t->wc));
      return FALSE;
    }
  }
  if (cpu->c.load_checksum != cpu->c.load_checksum_wanted) {
    g_set_error (error, MODEL_ERROR, MODEL_ERROR_INVARIANT, "data integrity: the CPU's loads got completion data "
                 "%016" G_GINT64_MODIFIER "x, expected %016" G_GINT64_MODIFIER "x", cpu->c.load_checksum,
                 cpu->c.load_checksum_wanted);
    return FALSE;
  }
  return TRUE;
}

void
cpu_describe_wait (const Cpu *cpu, GString *out)
{
  for (guint i = 0; i < cpu->threads->len; i++) {
    const Thread *t = cpu->threads->pdata[i];
    if (t->state == T_DONE)
      continue;
    g_string_append_printf (out, "%scpu thread %u: op %u waits for %s", out->len ? "; " : "", i, t->pc,
                            state_names[t->state]);
    if (t->len > 0)
      g_string_append_printf (out, " (%u writes pending)", t->len);
  }
}
