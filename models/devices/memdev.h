/* memdev.h — a plain memory device: an endpoint with no datapath and no engine, whose BARs are memory that takes
 * writes and answers reads after a fixed access latency. The worked example of docs/adding-a-device.md: a device
 * in one model file, plugged into the fabric by its ComponentKind and into configs by one registry row.
 *
 * Contract:
 * - memdev_new() adds the device to `f` as an endpoint (one upstream port) with the given BARs; the fabric frees it.
 *   Parameters it refuses (memdev_params_check: a latency not finite or negative, RCB not 64 or 128, no BAR) are
 *   MODEL_ERROR_PARAM (run.h: the models' shared domain, no domain of its own); memdev_new() aborts on them: the
 *   caller checks first. Work left at the end of a run is MODEL_ERROR_INVARIANT.
 * - A write is taken in when it arrives (its posted credits freed at once). A read waits access_latency_ns from
 *   its arrival, then is answered in address order with CplDs cut at RCB boundaries and the link's MPS (spec
 *   §2.3.1.1, split.h), one request after another, as fast as the link takes them.
 * - Its memory counts (FabricMemory, the run's ledger) fold the address pattern of every byte sent and taken in.
 */
#pragma once

#include "models/base/model_error.h"
#include "models/fabric/fabric.h"

typedef struct {
  double access_latency_ns; /* a read's arrival to its first completion ready */
  uint32_t rcb_bytes; /* read completion boundary, 64 or 128 */
  FabricBar bars[FABRIC_MAX_BARS]; /* sizes; at least one */
} MemdevParams;

typedef struct Memdev Memdev;

gboolean memdev_params_check (const MemdevParams *p, GError **error);
Memdev *memdev_new (Fabric *f, const char *name, const MemdevParams *p);
Component *memdev_component (Memdev *m);
Memdev *memdev_from_component (Component *c);
