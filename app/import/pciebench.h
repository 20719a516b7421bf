/* pciebench.h — `pciesim import pciebench DIR -o measurements.yaml`: a pcie-bench results directory (its CSV files
 * and sys-lspci.txt) as a measurement file for `pciesim fit` (issue #36), so a user who ran pcie-bench on their
 * board gets a fitted config in two commands.
 *
 * Contract:
 * - The base: the config `pciesim import lspci` writes for the directory's own sys-lspci.txt (the device --device
 *   names, else the one whose "Kernel driver in use:" line names pcie-bench's driver, nfp-pciebench; several such
 *   devices are a PS_ERROR_USAGE listing them), with --host
 *   (default hosts/ideal.yaml), running the microbench workload. Written beside the output as NAME.base.yaml
 *   (NAME.yaml being the output), checked to load; `base:` names it.
 * - Every data row of every CSV file whose header starts "Test," (in name order; the *_cdf.csv distributions have
 *   no such header and are counted as skipped) is one measurement: `set:` microbench.test (BW_DMA_RD -> bw_rd,
 *   BW_DMA_WR -> bw_wr, BW_DMA_RW -> bw_rdwr, LAT_DMA_RD -> lat_rd, LAT_DMA_WRRD -> lat_wrrd, LAT_CMD_RD ->
 *   lat_cmd_rd, LAT_CMD_WRRD -> lat_cmd_wrrd), microbench.transfer_bytes (SZ), microbench.window_bytes (WinSZ),
 *   microbench.offsets (Seq/Rand), microbench.cache (HWarm warm, Cold cold, DWarm device_warm, DThrash
 *   device_thrash), and microbench.host_offset / device_offset (HO, DO) when not 0 — issue #36's key names — and
 *   one metric: the `BW (GB/s)` column, which holds Gb/s (8 x bytes / ns), as microbench_gbps; Med(ns) as
 *   microbench_latency_p50_ns. Values are copied as the CSV writes them.
 * - A row the running pciesim cannot load (a key or value it does not know yet: byte-granular sizes, offsets,
 *   device cache states, the command tests) is written as a comment with the reason, so the file is one `pciesim
 *   fit` accepts today and the same import takes the row once the model does. No runnable row at all is
 *   PS_ERROR_DATA.
 * - Errors: DIR or its sys-lspci.txt missing PS_ERROR_NOINPUT; a CSV row with the wrong number of cells or a
 *   number that is none, PS_ERROR_DATA located FILE:LINE:COL; no -o (two files are written) PS_ERROR_USAGE.
 */
#pragma once

#include <glib.h>

typedef struct {
  const char *dir; /* pcie-bench's results directory */
  const char *device; /* [DDDD:]BB:DD.F, or NULL: the device pcie-bench's driver drives */
  const char *host; /* host file, or NULL for hosts/ideal.yaml */
  const char *output; /* the measurement file; the base goes beside it */
} PsPciebenchImport;

gboolean ps_pciebench_import (const PsPciebenchImport *imp, GError **error);
