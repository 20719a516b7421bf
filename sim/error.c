#include "error.h"

G_DEFINE_QUARK (pciesim-error-quark, ps_error)

void
ps_error_located (GError **error, PsErrorCode code, const char *file, int line, int col, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, PS_ERROR, code, "%s:%d:%d: error: %s", file, line, col, msg);
}

void
ps_error_plain (GError **error, PsErrorCode code, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, PS_ERROR, code, "pciesim: error: %s", msg);
}
