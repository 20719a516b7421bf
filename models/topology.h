/* topology.h — the only module that knows every model: turns a PsConfig into wired components and runs them.
 *
 * Contract: topology_run() runs each requested mode on a fresh engine (so modes never influence each other and
 * each is reproducible alone), fills a PsRunResult, and checks every model's end-of-run invariants; a broken
 * invariant is PS_ERROR_INTERNAL and no figure is returned. It never reads cfg->published. */
#pragma once

#include "models/link.h"
#include "sim/config.h"
#include "sim/report.h"

void topology_link_params (const PsConfig *cfg, LinkParams *out);
gboolean topology_run (const PsConfig *cfg, unsigned modes, uint64_t seed, PsRunResult *out, GError **error);
