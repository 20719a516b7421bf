/* fuzz-config.c — libFuzzer harness for the config loader (ps_config_load), the path every user file takes.
 *
 * The input is written to a file in a private temporary directory and loaded as a config, so the file checks
 * (size, NUL bytes) and includes relative to it run as they do for the command line. The directory links to the
 * include directories of configs/ (benchmarks/, hosts/, families/), so seeds taken from configs/ load whole.
 * If the input starts with "#set " the rest of its first line is also passed as one --set override, which reaches apply_set().
 *
 * Oracles besides the sanitizers: a rejection must carry a PsErrorCode of the pciesim domain and a one-line
 * message (main() prints it as the only line of stderr), and an accepted config must have its required fields. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pciesim-version.h"
#include "app/config/config.h"
#include "app/config/load.h"
#include "app/base/error.h"
#include "tests/fuzz/fuzz-config-file.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void
check_error (const GError *e)
{
  if (e->domain != PS_ERROR || (e->code != PS_ERROR_DATA && e->code != PS_ERROR_NOINPUT && e->code != PS_ERROR_USAGE))
    abort ();
  if (strchr (e->message, '\n') || strchr (e->message, '\r'))
    abort ();
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *path = fuzz_config_path ("pciesim-fuzz-config-XXXXXX");
  fuzz_config_write (path, data, size);
  char *set = NULL;
  if (size > 5 && memcmp (data, "#set ", 5) == 0) {
    const uint8_t *nl = memchr (data, '\n', size);
    set = g_strndup ((const char *) data + 5, (gsize) ((nl ? nl : data + size) - data - 5));
  }
  const char *sets[] = { set, NULL };
  GError *e = NULL;
  PsConfig *cfg = ps_config_load (path, sets, &e);
  if (cfg) {
    if (e || cfg->link.gen < 1 || cfg->link.lanes < 1 || !cfg->name)
      abort ();
    ps_config_free (cfg);
  } else {
    if (!e)
      abort ();
    check_error (e);
    g_error_free (e);
  }
  g_free (set);
  return 0;
}
