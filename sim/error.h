/* error.h — pciesim's GError domain. Each code is the process exit status it leads to (sysexits.h), so the
 * command line never has to translate: main() exits with error->code.
 *
 * Messages are complete lines. A located one reads "FILE:LINE:COL: error: MESSAGE" (1-based line and column);
 * one without a location reads "pciesim: error: MESSAGE". ps_error_located() builds the first form. Control
 * characters in either (a quoted YAML key may hold a newline) are written as C escapes, so a message is always
 * exactly one line. */
#pragma once

#include <glib.h>

#define PS_ERROR (ps_error_quark ())
GQuark ps_error_quark (void);

typedef enum {
  PS_ERROR_FAILED = 1, /* a result is beyond tolerance (validate) — not an error of the program */
  PS_ERROR_USAGE = 64, /* EX_USAGE: bad command line */
  PS_ERROR_DATA = 65, /* EX_DATAERR: a config or scenario is wrong */
  PS_ERROR_NOINPUT = 66, /* EX_NOINPUT: a named file does not exist or cannot be read */
  PS_ERROR_INTERNAL = 70, /* EX_SOFTWARE: an invariant broke; the result would be wrong */
  PS_ERROR_CANTCREAT = 73, /* EX_CANTCREAT: the output file cannot be written */
} PsErrorCode;

/* "FILE:LINE:COL: error: MESSAGE" with line and col 1-based. */
void ps_error_located (GError **error, PsErrorCode code, const char *file, int line, int col, const char *fmt, ...)
    G_GNUC_PRINTF (6, 7);
/* "pciesim: error: MESSAGE". */
void ps_error_plain (GError **error, PsErrorCode code, const char *fmt, ...) G_GNUC_PRINTF (3, 4);

/* Continuous invariant checks on hot paths (credit counters, sequence numbers, tags), compiled in unless NDEBUG
 * is defined. A violation is a model bug: it prints "pciesim: error: internal: MESSAGE (FILE:LINE)" as the one
 * line of stderr and exits PS_ERROR_INTERNAL at once, so no figure computed from a broken state is ever printed.
 * MESSAGE should carry the few numbers that show the broken state. */
G_GNUC_NORETURN void ps_invariant_failed (const char *file, int line, const char *fmt, ...) G_GNUC_PRINTF (3, 4);
#ifndef NDEBUG
#define PS_INVARIANT(cond, ...)                                                                                \
  do {                                                                                                         \
    if (G_UNLIKELY (!(cond)))                                                                                  \
      ps_invariant_failed (__FILE__, __LINE__, __VA_ARGS__);                                                   \
  } while (0)
#else
#define PS_INVARIANT(cond, ...) ((void) sizeof (cond))
#endif
