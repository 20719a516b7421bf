/* fuzz-lspci.c — libFuzzer harness for the lspci importer (ps_lspci_config) and the whole-machine report
 * (ps_machine_report), which read text users paste from any pciutils version.
 *
 * The input is the `lspci -vvv` dump; a line "--tree--" splits off an `lspci -tv` tree after it, and a first line
 * "#device BDF" selects a device (scripts/fuzz seeds both from tests/data/lspci/). Oracles besides the
 * sanitizers: a rejection is a one-line PS_ERROR_DATA or PS_ERROR_USAGE; an accepted dump gives a config that
 * ps_config_load() accepts (the importer promises a config that runs as is); the machine report of the same dump
 * and tree is a report or such a rejection. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pciesim-version.h"
#include "app/config/config.h"
#include "app/config/load.h"
#include "app/base/error.h"
#include "app/import/lspci.h"
#include "app/import/machine.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static char *path;

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (!path) {
    char *dir = g_dir_make_tmp ("pciesim-fuzz-lspci-XXXXXX", NULL);
    if (!dir)
      abort ();
    path = g_build_filename (dir, "c.yaml", NULL);
    g_free (dir);
  }
  const char *text = (const char *) data;
  size_t dump_len = size;
  const char *tree = NULL;
  size_t tree_len = 0;
  const uint8_t *sep = memmem (data, size, "\n--tree--\n", 10);
  if (sep) {
    dump_len = (size_t) (sep - data) + 1;
    tree = (const char *) sep + 10;
    tree_len = size - dump_len - 9;
  }
  char *device = NULL;
  if (dump_len > 8 && memcmp (data, "#device ", 8) == 0) {
    const uint8_t *nl = memchr (data, '\n', dump_len);
    device = g_strndup (text + 8, (gsize) ((nl ? nl : data + dump_len) - data - 8));
  }
  GError *e = NULL;
  char *config = ps_lspci_config ("d.txt", text, dump_len, "t.txt", tree, tree_len, device,
                                  PCIESIM_SOURCE_ROOT "/configs/hosts/ideal.yaml", "fuzz", NULL, &e);
  if (!config) {
    if (!e || e->domain != PS_ERROR || (e->code != PS_ERROR_DATA && e->code != PS_ERROR_USAGE)
        || strchr (e->message, '\n'))
      abort ();
    g_clear_error (&e);
  } else {
    FILE *f = fopen (path, "wb");
    if (!f || fputs (config, f) < 0 || fclose (f) != 0)
      abort ();
    PsConfig *cfg = ps_config_load (path, NULL, &e);
    if (!cfg) {
      fprintf (stderr, "imported config refused: %s\n%s", e->message, config);
      abort ();
    }
    ps_config_free (cfg);
    g_free (config);
  }
  g_free (device);
  char *report = ps_machine_report ("d.txt", text, dump_len, "t.txt", tree, tree_len,
                                    PCIESIM_SOURCE_ROOT "/configs/hosts/ideal.yaml", PS_FORMAT_JSON, &e);
  if (!report) {
    if (!e || e->domain != PS_ERROR || e->code != PS_ERROR_DATA || strchr (e->message, '\n'))
      abort ();
    g_clear_error (&e);
  }
  g_free (report);
  return 0;
}
