/* error.h — pciesim's GError domain, and the did-you-mean of its messages. Each code is the process exit status it
 * leads to (sysexits.h), so the command line never has to translate: main() exits with error->code.
 *
 * Messages are complete lines. A located one reads "FILE:LINE:COL: error: MESSAGE" (1-based line and column);
 * one without a location reads "pciesim: error: MESSAGE". ps_error_located() builds the first form. Control
 * characters in either (a quoted YAML key may hold a newline) are written as C escapes, so a message is always
 * exactly one line.
 *
 * PS_ERROR is an extended domain: besides the line, an error carries its parts (location, MESSAGE alone, and the
 * --set it came from, if any), so code that moves an error elsewhere reads fields and never parses the text. */
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

/* The parts of an error. For an error of another domain (GLib's, a model's) the text is the whole message and
 * there is no location. */
const char *ps_error_text (const GError *error); /* MESSAGE, without "LOCATION: error: " */
/* "FILE:LINE:COL" as the message shows it (control characters escaped), or NULL when unlocated. */
char *ps_error_location (const GError *error);
/* FILE as the caller of ps_error_located() gave it (unescaped), or NULL when unlocated. */
const char *ps_error_file (const GError *error);
/* Which --set of a config load the error is located in: its position in the list given to ps_config_load(),
 * or -1. Set by config_load.c, the one place that knows which node came from which --set. */
int ps_error_set_index (const GError *error);
void ps_error_mark_set (GError *error, int set_index);

/* Did-you-mean: the word of NULL-terminated `words` closest to `word` by edit distance (bytes; key names are
 * ASCII), or NULL when none is within MAX (2, strlen (word) / per_edit) edits, beyond which a hint misleads more
 * often than it helps. On a tie the earlier word wins, so a message depends only on the list's order. */
const char *ps_closest (const char *const *words, const char *word, guint per_edit);
guint ps_edit_distance (const char *a, const char *b);

