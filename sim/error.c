/* error.c — the two message shapes of error.h, built in one place so every pciesim error line looks alike.
 *
 * Both shapes end in "error: MESSAGE" after a location ("FILE:LINE:COL" or "pciesim"). scenario.c's
 * split_message() parses that separator back to move a point's error onto the scenario file, so a change of
 * shape here must be made there too. */
#include "error.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* main.c's finish() turns a GError of any other domain into a usage error: our own failures must carry this one. */
G_DEFINE_QUARK (pciesim-error-quark, ps_error)

/* Messages quote user text (keys, values, paths) that YAML lets contain newlines and other control characters;
 * printed raw they would break the one-line promise and could forge a second "FILE:LINE: error" line. Spell
 * them out C-style instead. Bytes >= 0x80 are left alone so UTF-8 names stay readable.
 * Takes ownership of msg and returns the string to use in its place (msg itself when nothing needed escaping),
 * so callers simply reassign. The set below is every C0 control but NUL (which cannot occur inside a C string)
 * plus DEL; most messages hold none, and the scan lets them through without a copy. */
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
  /* The location is user text too: an include entry can name a path holding a newline (tests/bad). */
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

/* No GError here: a broken invariant is found deep inside an event handler with no error path back to main(),
 * and unwinding would only let more figures be computed from the broken state. _exit() also ends every thread
 * at once (validate and sweep run points on workers), where exit() would run atexit handlers while they go on. */
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
