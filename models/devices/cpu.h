/* cpu.h — the host's CPU: cores that run small programs against the root complex (issue #14), separate from the
 * root complex itself (host.h), which it reaches through host_set_cpu().
 *
 * Contract:
 * - A Cpu has threads, each on a core of its own with its own write-combining buffers (wc.h), running a program:
 *   an array of CpuOps executed in order. Ops:
 *     STORE     a PIO write: `bytes` at `address` in stores of at most `width` bytes, cut as memcpy cuts them
 *               (wc_split_width()), to memory mapped write-combining (the stores fill the WC buffers, which leave
 *               as 64-byte or 8-byte partial writes, wc.h) or uncached (`uc`: one write per store). Each store
 *               takes store_ns of the core. A write that left the buffers crosses the path to the root complex
 *               up to where the root complex posts it (post_ns: the whole path access_ns when the root complex
 *               has no posted-write queue, host.h) and is then offered to it (host_cpu_write()); writes are
 *               offered in order, and one the root complex refuses holds those behind it. While as many writes
 *               as the core has WC buffers are on their way (its fill buffers hold them), the core stalls: no
 *               further store issues. The bus the cores share (front-side bus) carries each write as a
 *               transaction of its own — a full line, an 8-byte partial write, a UC store alike — and starts
 *               them at least bus_write_ns apart: a write that leaves while the bus is busy starts its way when
 *               the bus is free (first come, first served among cores; the way itself is pipelined, so only the
 *               start waits). A fence that flushes N partial writes at once so ends (N - 1) x bus_write_ns later
 *               than one that flushes one. A write the root complex refuses waits at its door after the bus
 *               (the bus is not held for it).
 *     LOAD      a PIO read: `bytes` at `address` in uncached loads of at most `width` bytes. A UC load first drains
 *               the WC buffers (SDM §11.3) and waits until the root complex took every write; then it crosses the
 *               path (access_ns), goes out as one MRd (whole DWs around the loaded bytes), and the core waits until
 *               all of its completion data is back across the path (access_ns again): one load outstanding per
 *               core (pcie-protocol.md §9), so N bytes take N / width round trips.
 *     FENCE     SFENCE: the WC buffers drain as partial writes and the core waits until the root complex took
 *               every write it made (posted them: the writes are then globally visible, SDM §11.3, and the core
 *               goes on while the chipset still carries them to the link; the software end of a PIO write).
 *     DRAIN     wait until the root complex has placed every CPU write it took on a root port's wire
 *               (host_cpu_writes_sent(); the thread's time moves to when the last one's last symbol leaves). No
 *               instruction does this: it closes a measurement window that must hold the queued writes' wire
 *               time, so that no figure counts bytes the link has not yet carried.
 *     COMPUTE   the core is busy for `ns`, or for a draw of `dist` (software work: timer reads, bookkeeping).
 *     DMA_START the driver starts a DMA: it works dma_setup_ns plus `count` x dma_desc_ns (system call, pinning
 *               and mapping pages, writing `count` descriptors), then the hook rings the doorbells (register
 *               writes the hook issues with host_pio_write(), delayed by the ps it is given; they are posted
 *               stores that never stall the core). Only the work holds the core.
 *     WAIT      block until `count` signals have come (cpu_signal(): an interrupt handler or a poll saw the end);
 *               signals that came earlier count.
 *     BARRIER   wait until every thread that has not ended has reached a barrier; the last one releases all.
 *     MARK      the hook gets the thread's time (a timer read): software start or end of a transfer.
 *     LOOP      back to op `target` until this LOOP has run `count` times, the core idle `ns` in between; then on.
 *   A thread ends after its last op. When every thread has ended the done function runs.
 * - Time: each thread has its own time, never behind the engine's: work (store_ns, COMPUTE, DMA_START) moves it
 *   forward without events; the thread waits for the engine (one event) only before it must act on the outside
 *   at its own time (a write leaving, a load, a fence, a mark, a barrier). A LOOP's next round always starts in
 *   an event of its own. Waits (host refusal, load data, signals, barrier) resume at the moment they are
 *   satisfied, in the call that satisfied them, or at the thread's time if that is later.
 * - Interrupts: cpu_irq_delay_ps() is the CPU's part of an MSI's delay (host_set_irq_delay()): a draw of the
 *   interrupt delivery distribution plus one of the wake-up distribution, from the CPU's own random stream
 *   (sim_rand_new (engine, CPU_RAND_ID)); fixed distributions draw nothing, so a CPU without random parameters
 *   gives the same results whatever the seed.
 * - Loads carry tag = the thread index, so a core never has two reads with one tag outstanding.
 * - Integrity: the CPU sums pattern_sum() of every write it sent and of every load's DW range it asked for and
 *   got back (pattern.h), for the system's end-of-run checks against what the completer received and sent.
 * - No allocation per store, write or load: each thread's writes on their way sit in a ring sized by its WC
 *   buffers.
 */
#pragma once

#include "models/base/model_error.h"
#include "models/base/dist.h"
#include "models/devices/host.h"
#include "models/devices/wc.h"
#include "sim/trace.h"

#define CPU_RAND_ID UINT32_C (0x43505500)
#define CPU_MAX_THREADS 16u

typedef struct {
  WcParams wc; /* every core's write-combining buffers */
  double store_ns; /* core time per store instruction */
  double access_ns; /* the path between a core and the root complex (front-side bus, chipset), each way */
  double post_ns; /* a write's part of it before the root complex posts it (<= access_ns; = it without a queue) */
  double bus_write_ns; /* the bus's time per write transaction, shared by every core (<= post_ns); 0 = no wait */
  double dma_setup_ns; /* driver work per DMA start (system call, set-up), before the doorbells */
  double dma_desc_ns; /* driver work per descriptor (pinning and mapping a page, writing the descriptor) */
  const Dist *interrupt; /* MSI handled by the root complex -> the handler runs; NULL = 0 (owned by the caller) */
  const Dist *wakeup; /* the handler -> the waiting thread runs; NULL = 0 */
} CpuParams;

typedef enum {
  CPU_OP_STORE,
  CPU_OP_LOAD,
  CPU_OP_FENCE,
  CPU_OP_DRAIN,
  CPU_OP_COMPUTE,
  CPU_OP_DMA_START,
  CPU_OP_WAIT,
  CPU_OP_BARRIER,
  CPU_OP_MARK,
  CPU_OP_LOOP,
} CpuOpKind;

/* DMA_START: `ps` is how long after now the doorbells may ring (the thread's time plus the driver's work).
 * MARK: `ps` is the thread's time. */
typedef void (*CpuHookFn) (void *ctx, guint thread, uint64_t arg, SimTime ps);

typedef struct {
  CpuOpKind kind;
  uint64_t address, bytes; /* STORE, LOAD */
  uint32_t width; /* STORE, LOAD: bytes per access, a power of two 1..32 */
  gboolean uc; /* STORE: uncached rather than write-combining */
  double ns; /* COMPUTE: busy time; LOOP: idle time between rounds */
  const Dist *dist; /* COMPUTE: drawn instead of ns when not NULL */
  uint32_t count; /* WAIT: signals; LOOP: rounds; DMA_START: descriptors */
  uint32_t target; /* LOOP */
  CpuHookFn hook; /* DMA_START, MARK */
  void *ctx;
  uint64_t arg; /* MARK, DMA_START: the hook's; WAIT: 1 when polling brings the signals (a trace's "poll") */
} CpuOp;

typedef struct Cpu Cpu;


gboolean cpu_params_check (const CpuParams *p, GError **error);
/* A CPU joined to `host` (host_set_cpu()); its random stream comes from `engine`. */
Cpu *cpu_new (SimEngine *engine, Host *host, const CpuParams *p);
void cpu_free (Cpu *cpu);
/* A thread running a copy of `ops`; returns its index (0, 1, …). Before cpu_start(). A program is checked when it
 * is added: widths, loop targets and hooks are caller bugs (exit 70). */
guint cpu_add_thread (Cpu *cpu, const CpuOp *ops, guint n_ops);
/* Every thread starts at the current time, each in an event of its own (in thread order); `done` runs when the
 * last thread ends. */
void cpu_start (Cpu *cpu, void (*done) (void *ctx), void *ctx);
/* One signal for thread `thread` (see WAIT). */
void cpu_signal (Cpu *cpu, guint thread);
/* The CPU's part of an MSI's delay (see the contract); for host_set_irq_delay(), ctx = the Cpu. */
SimTime cpu_irq_delay_ps (void *cpu);
/* Traced runs: the CPU's tracks under `scope` (models/observe/pcie_trace.h: a phase track per thread added so far, and the
 * interrupts), between sim_trace_open() and sim_trace_start(). NULL `trace`: nothing (tracing off). */
void cpu_trace_declare (Cpu *cpu, SimTrace *trace, const char *scope);

typedef struct {
  uint64_t stores, loads, writes, write_bytes; /* writes: sent to the root complex, payload bytes on the wire */
  uint64_t write_checksum; /* pattern_sum() of every write's payload range */
  uint64_t load_checksum_wanted, load_checksum; /* every load's DW range, and the completion data it got */
  uint64_t load_bytes; /* completion payload taken in */
  uint64_t stalls; /* times a write was refused by the root complex */
  uint64_t signals, draws; /* signals delivered; random draws made */
  uint64_t irqs; /* MSIs delayed by cpu_irq_delay_ps(), and the two parts of their delay summed (why.h) */
  SimTime interrupt_ps, wakeup_ps;
  WcCounters wc; /* summed over the threads */
} CpuCounters;

CpuCounters cpu_counters (const Cpu *cpu);
/* A count that grows with every store, write, load, completion and signal (the watchdog's sign of life). */
uint64_t cpu_progress (const Cpu *cpu);
/* End of run: every thread ended, nothing pending, no load outstanding, WC buffers empty, loads' data complete. */
gboolean cpu_check_invariants (const Cpu *cpu, GError **error);
/* What each thread that has not ended waits for, appended to `out` ("cpu thread 0: …"). */
void cpu_describe_wait (const Cpu *cpu, GString *out);
