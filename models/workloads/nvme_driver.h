/* nvme_driver.h — the host's NVMe driver as a workload of the run harness (run.h): it creates the device's queue
 * pairs in host memory, submits commands, rings the doorbells and reaps completions in the interrupt handler of
 * each queue's MSI-X vector, and measures the device (nvme.h) as fio measures a drive: IOPS, MB/s and each
 * command's latency.
 *
 * Contract:
 * - One core per queue pair (as Linux's blk-mq maps queues to CPUs): a core does one thing at a time, submit_ns
 *   to build and submit a command, complete_ns to reap one; work that finds its core busy waits for it.
 * - Submission: a command's entry goes into the SQ ring, then the SQ tail doorbell is written (host_pio_write(): a
 *   1-DW MWr into BAR0) when its submit_ns ends; one doorbell per command. At the start each queue takes commands
 *   until it holds queue_depth or the run's `commands` are all submitted; afterwards a command is submitted for
 *   each one reaped while some remain, so each queue keeps queue_depth in flight.
 * - Completion: queue q's MSI-X (host_route_msi(), its own address) runs its handler, which reaps the entries the
 *   interrupt covers (the count in its message, nvme.h), each complete_ns, submits the new commands, then writes
 *   the CQ head doorbell once.
 * - Commands: block_bytes each, 4 KB pages laid out 8 KB apart (so PRP entries are really scattered: no page
 *   follows another), a write to flash for a write_percent share spread evenly (command k writes when
 *   floor((k + 1) p / 100) > floor(k p / 100)), else a read. Addresses above 4 GB (4-DW headers).
 * - Figures: window = from the first submission's start to the last reaping's end (the device's link's usage over
 *   it too); IOPS = commands / window,
 *   MB/s = data bytes / window; latency per command from its submission's start to its reaping's end (mean,
 *   p50, p99, max: LatHist, stall.h).
 * - Checks: the harness's (run.h), and the ledger of host memory: the completions it sent (command fetches, PRP
 *   lists, write data) and the writes it took in (read data, completion entries), bytes and pattern sums.
 * - MODEL_ERROR_PARAM for parameters the run cannot use (block size not a multiple of 512, above 1 MB, no commands).
 */
#pragma once

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
