/* pio.h — the PIO benchmark of issue #14: a core writing or reading an endpoint's BAR memory (the program and its
 * figures are specified in system.h, "PIO"), a workload of the run harness (run.h).
 *
 * Contract:
 * - pio_params_check(): the program's own parameters: store and load widths a core has (powers of two 1..32, no
 *   wider than a write-combining buffer), a transfer the BAR memory can hold (1..PIO_MAX_BYTES), a write that takes
 *   some time, a finite overhead. MODEL_ERROR_PARAM otherwise.
 * - pio_run(): one CPU thread runs the program against BAR1 of `ep` on `f` (enumerated) and fills *out; checked by
 *   the harness and by the program's own ledger (every byte the CPU stored reached the memory target, every load
 *   got the data of its range).
 */
#pragma once

#include "models/base/model_error.h"
#include "models/workloads/system.h"

/* The PIO benchmark's BAR1 memory: at most 256 MB, which the 32-bit MMIO window holds after BAR0. */
#define PIO_MAX_BYTES ((uint64_t) 0x10000000)

gboolean pio_params_check (const SystemParams *p, gboolean write, GError **error);
gboolean pio_run (Fabric *f, Host *host, Endpoint *ep, const SystemParams *p, SystemMode mode, const SystemDriver *d,
  SystemResult *out, GError **error);
