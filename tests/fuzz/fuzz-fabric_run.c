/* fuzz-fabric_run.c — libFuzzer harness that loads a config and, when it is a small fabric, runs it (issue #30).
 *
 * The input is loaded as fuzz-config.c loads it (fuzz-config-file.h); a config with a topology: section is then run
 * by ps_run_fabric() when its run is bounded: at most 16 nodes and 16 flows, 2 MB moved in all (the shipped fabric
 * configs run whole), starts within 1 ms, rate caps of at least 10 MB/s, no link error rate above 1e-6 (at 1e-2
 * nearly every TLP is replayed) and an application clock of at least 10 MHz. Anything larger, or with a deadlock
 * watchdog (benchmark.watchdog_ns) above its default 10 ms, is only loaded: the fuzzer spends its time on shapes,
 * not on long runs.
 *
 * Oracles besides the sanitizers: a rejection at load is PS_ERROR_DATA/NOINPUT/USAGE with a one-line message (as
 * in fuzz-config.c); a config that loads either runs, with every flow's delivered bytes = bytes x iterations, or is
 * refused by a model's parameter check (PS_ERROR_DATA). A deadlock, a flow above a link's protocol limit or a
 * broken invariant (PS_ERROR_INTERNAL, exit 70 from the command line) aborts: a valid config never reaches one. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/run/builder.h"
#include "app/config/config.h"
#include "app/config/load.h"
#include "app/base/error.h"
#include "app/config/topology.h"
#include "tests/fuzz/fuzz-config-file.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void
check_error (const GError *e, gboolean at_load)
{
  if (e->domain != PS_ERROR || !(e->code == PS_ERROR_DATA || (at_load && (e->code == PS_ERROR_NOINPUT
                                                                          || e->code == PS_ERROR_USAGE))))
    abort ();
  if (strchr (e->message, '\n') || strchr (e->message, '\r'))
    abort ();
}

/* A node's or link's own config, or the file's. */
static const PsConfig *
own (const PsConfig *file, const PsConfig *c)
{
  return c ? c : file;
}

static gboolean
quick (const PsConfig *c)
{
  return c->link.ber <= 1e-6 && c->endpoint.clock_mhz >= 10;
}

/* The run is bounded (see the header). */
static gboolean
small (const PsConfig *cfg)
{
  const PsTopology *t = cfg->topology;
  if (t->n_nodes > 16 || t->n_flows > 16 || !quick (cfg) || cfg->benchmark.watchdog_ns > 1e7)
    return FALSE;
  for (guint i = 0; i < t->n_nodes; i++)
    if (!quick (own (cfg, t->nodes[i].cfg)))
      return FALSE;
  for (guint i = 0; i < t->n_links; i++)
    if (!quick (own (cfg, t->links[i].cfg)))
      return FALSE;
  double moved = 0;
  for (guint k = 0; k < t->n_flows; k++) {
    const PsFlow *f = &t->flows[k];
    moved += (double) f->bytes * (double) f->iterations;
    if (f->start_ns > 1e6 || (f->rate_mbps > 0 && f->rate_mbps < 10))
      return FALSE;
  }
  return moved <= 2 * 1024 * 1024;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *path = fuzz_config_path ("pciesim-fuzz-fabric-XXXXXX");
  fuzz_config_write (path, data, size);
  GError *e = NULL;
  PsConfig *cfg = ps_config_load (path, NULL, &e);
  if (!cfg) {
    if (!e)
      abort ();
    check_error (e, TRUE);
    g_error_free (e);
    return 0;
  }
  if (cfg->topology && small (cfg)) {
    PsFabricResult *out = g_new0 (PsFabricResult, 1);
    if (ps_run_fabric (cfg, 1, out, &e)) {
      if (e || !out->ran)
        abort ();
      for (guint k = 0; k < out->n_flows; k++) {
        const PsFlowResult *r = &out->flows[k];
        if (r->ran && r->delivered_bytes != (uint64_t) (r->bytes * r->iterations))
          abort ();
      }
    } else {
      if (!e)
        abort ();
      check_error (e, FALSE);
      g_error_free (e);
    }
    g_free (out);
  }
  ps_config_free (cfg);
  return 0;
}
