/* params.h — a PsConfig as the models' parameter structs: the one place where config keys become model fields
 * (the builder, builder.h, runs them). Exposed so tests (test-builder) and tools build exactly what a config
 * describes.
 *
 * Contract: see each declaration. Nothing here runs a model or checks what a model checks itself.
 */
#pragma once

#include "models/base/dist.h"
#include "models/workloads/stream.h"
#include "models/workloads/system.h"
#include "app/config/config.h"

/* The mapping from config keys to model parameters, exposed so tests (test-builder) and tools build exactly what a
 * config describes. Nanoseconds become picoseconds where a field says _ps (units_ns_to_ps); credits keep who
 * advertises them (host.rx_credits limit what the endpoint sends upstream); policy words become the models'
 * enums. Parameters a model validates itself (system_params_check, stream_run) are not checked here. */
void ps_build_link_params (const PsConfig *cfg, LinkParams *out);
void ps_build_system_params (const PsConfig *cfg, SystemParams *out);
void ps_build_stream_params (const PsConfig *cfg, StreamMode mode, StreamParams *out);
/* A random time's keys (cpu.interrupt.*, cpu.wakeup.*) as a distribution (models/base/dist.h), or NULL with a
 * MODEL_ERROR_PARAM error. ps_build_system_params() leaves SystemParams.cpu's distributions NULL: their owner is
 * the caller, who builds them with this. */
Dist *ps_build_dist (const PsDist *d, GError **error);
