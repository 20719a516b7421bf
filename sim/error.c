#include "error.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

G_DEFINE_QUARK (pciesim-error-quark, ps_error)

/* Messages quote user text (keys, values, paths) that YAML lets contain newlines and other control characters;
 * printed raw they would break the one-line promise and could forge a second "FILE:LINE: error" line. Spell
 * them out C-style instead. Bytes >= 0x80 are left alone so UTF-8 names stay readable. */
static char *
one_line (char *msg)
{
  if (!strpbrk (msg, "\x01\x02\x03\x04\x05\x06\x07\x08\t\n\x0b\x0c\r\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17"
                     "\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x7f"))
    return msg;
  GString *out = g_string_sized_new (strlen (msg) + 16);
  for (const unsigned char *c = (const unsigned char *) msg; *c; c++) {
    if (*c == '\n')
      g_string_append (out, "\\n");
    else if (*c == '\r')
      g_string_append (out, "\\r");
    else if (*c == '\t')
      g_string_append (out, "\\t");
    else if (*c < 0x20 || *c == 0x7f)
      g_string_append_printf (out, "\\x%02x", *c);
    else
      g_string_append_c (out, (char) *c);
  }
  g_free (msg);
  return g_string_free (out, FALSE);
}

void
ps_error_located (GError **error, PsErrorCode code, const char *file, int line, int col, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_autofree char *where = one_line (g_strdup (file));
  msg = one_line (msg);
  g_set_error (error, PS_ERROR, code, "%s:%d:%d: error: %s", where, line, col, msg);
}

void
ps_error_plain (GError **error, PsErrorCode code, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  msg = one_line (msg);
  g_set_error (error, PS_ERROR, code, "pciesim: error: %s", msg);
}

void
ps_invariant_failed (const char *file, int line, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  char *msg = one_line (g_strdup_vprintf (fmt, ap));
  va_end (ap);
  /* stdout may hold a half-written report in its buffer: drop it rather than let exit() flush it. */
  fprintf (stderr, "pciesim: error: internal: %s (%s:%d)\n", msg, file, line);
  fflush (stderr);
  g_free (msg);
  _exit (PS_ERROR_INTERNAL);
}
