/* fuzz-ytree.c — libFuzzer harness for ytree_load_string(), the YAML layer under configs, --set values and
 * scenarios. The input (cut at its first NUL: the function takes a C string) is parsed with a column offset, as
 * --set values are; a tree that loads is copied, merged into a copy of itself and freed, which exercises the
 * include semantics on arbitrary shapes. A rejection must be a one-line PS_ERROR_DATA. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "app/base/error.h"
#include "app/config/ytree.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char *text = g_strndup ((const char *) data, size);
  GError *e = NULL;
  YNode *n = ytree_load_string ("fuzz", text, (int) (size % 7), &e);
  if (e) {
    if (n || e->domain != PS_ERROR || e->code != PS_ERROR_DATA || strchr (e->message, '\n'))
      abort ();
    g_error_free (e);
  } else if (n) {
    if (n->line < 1 || n->col < 1)
      abort ();
    if (n->kind == YNODE_MAP) {
      YNode *base = ytree_copy (n);
      ytree_merge (base, ytree_copy (n));
      ytree_free (base);
    }
    ytree_free (n);
  }
  g_free (text);
  return 0;
}
