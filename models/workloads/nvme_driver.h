/* nvme_driver.h — the host's NVMe driver as a workload of the run harness (run.h): it creates the device's queue
 * pairs in host memory, submits commands, rings the doorbells and reaps completions in the interrupt handler of
 * each queue's MSI-X vector, and measures the device (nvme.h) as fio measures a drive: IOPS, MB/s and each
 * command's latency.
 *
 * Contract:
 * - The driver runs on the host's CPU (cpu.h): one thread per queue pair, each on a core of its own (as Linux's
 *   blk-mq maps queues to CPUs), at most CPU_MAX_THREADS. Its program: submit min(queue_depth, its commands)
 *   commands, each COMPUTE submit_ns then a MARK that writes the entry into the SQ ring and the SQ tail doorbell
 *   (host_pio_write(): a 1-DW MWr into BAR0, one per command); then, per completion, WAIT for its signal,
 *   COMPUTE complete_ns, MARK the reaping, and submit the next command while the queue has some left. The run's
 *   `commands` are shared out evenly, the first queues taking one more.
 * - Completion: queue q's MSI-X (host_route_msi(), its own address) reaches its handler msi_latency_ns plus the
 *   CPU's interrupt and wake-up draws after it drained (host_set_irq_delay(), cpu_irq_delay_ps()); the handler
 *   signals the queue's core once per entry the interrupt covers (the count in its message, nvme.h); the reaping
 *   of the last of them writes the CQ head doorbell.
 * - Commands: block_bytes each, 4 KB pages laid out 8 KB apart (so PRP entries are really scattered: no page
 *   follows another), a write to flash for a write_percent share spread evenly (command k writes when
 *   floor((k + 1) p / 100) > floor(k p / 100)), else a read. Addresses above 4 GB (4-DW headers).
 * - Figures: window = from the first submission's start to the last reaping's end (the device's link's usage over
 *   it too); IOPS = commands / window,
 *   MB/s = data bytes / window; latency per command from its submission's start to its reaping's end (mean,
 *   p50, p99, max: LatHist, stall.h).
 * - Checks: the harness's (run.h), and the ledger of host memory: the completions it sent (command fetches, PRP
 *   lists, write data) and the writes it took in (read data, completion entries), bytes and pattern sums.
 * - MODEL_ERROR_PARAM for parameters the run cannot use (block size not a multiple of 512, above 1 MB, no commands,
 *   more queues than CPU_MAX_THREADS).
 */
#pragma once

#include "models/devices/cpu.h"
#include "models/devices/host.h"
#include "models/devices/nvme.h"
#include "models/fabric/run.h"
#include "models/observe/stall.h"

#define NVME_MAX_BLOCK_BYTES (1u << 20)

typedef struct {
  uint32_t block_bytes; /* per command, whole 512-byte sectors, at most NVME_MAX_BLOCK_BYTES */
  double write_percent; /* 0..100 */
  uint64_t commands; /* in the run, every queue together */
  double submit_ns, complete_ns; /* the driver's core time per command */
  CpuParams cpu; /* the host's CPU (cpu.h): its interrupt and wake-up times; distributions borrowed */
  SimTrace *trace; /* NULL, or opened and not started: the run declares the CPU's tracks and starts it */
  SimTime watchdog_ps;
} NvmeDriverParams;

typedef struct {
  double iops, mbps;
  LatSummary latency;
  uint64_t commands, bytes, interrupts, doorbells;
  SimTime window_ps;
  RunStats stats;
  SimTime end_ps;
  LinkUsage usage[2]; /* the device's link, by LinkDir, over the window */
} NvmeResult;

gboolean nvme_driver_params_check (const NvmeDriverParams *p, GError **error);
/* Runs the driver on `f` (enumerated), its root complex `host`, the device `d`; fills *out. */
gboolean nvme_run (Fabric *f, Host *host, Nvme *d, const NvmeDriverParams *p, NvmeResult *out, GError **error);
