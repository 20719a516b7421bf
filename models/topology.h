/* topology.h — the only module that knows every model: turns a PsConfig into wired components and runs them.
 *
 * Contract: topology_run() runs each requested mode on a fresh engine (so modes never influence each other and
 * each is reproducible alone), fills a PsRunResult, and checks every model's end-of-run invariants; a broken
 * invariant is PS_ERROR_INTERNAL and no figure is returned. It never reads cfg->published. */
#pragma once

#include "models/stream.h"
#include "models/system.h"
#include "sim/config.h"
#include "sim/report.h"

/* The mapping from config keys to model parameters, exposed so tests (test-builder) and tools build exactly what a
 * config describes. Nanoseconds become picoseconds where a field says _ps (units_ns_to_ps); credits keep who
 * advertises them (host.rx_credits limit what the endpoint sends upstream); policy words become the models'
 * enums. Parameters a model validates itself (system_params_check, stream_run) are not checked here. */
void topology_link_params (const PsConfig *cfg, LinkParams *out);
void topology_system_params (const PsConfig *cfg, SystemParams *out);
void topology_stream_params (const PsConfig *cfg, StreamMode mode, StreamParams *out);
gboolean topology_run (const PsConfig *cfg, unsigned modes, uint64_t seed, PsRunResult *out, GError **error);
