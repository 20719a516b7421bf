/* error.c — the two message shapes of error.h, built in one place so every pciesim error line looks alike, the
 * parts each error carries beside its line, and the did-you-mean.
 *
 * Both shapes end in "error: MESSAGE" after a location ("FILE:LINE:COL" or "pciesim"). The parts are kept in the
 * error's private data (an extended GError domain), so nothing needs to parse a message back. */
#include "app/base/error.h"

#include "sim/engine.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* What ps_error_located() and ps_error_plain() record beside the message. */
typedef struct {
  char *file; /* as given, unescaped; NULL when unlocated */
  int line, col;
  char *text;
  int set_index;
} PsErrorPrivate;

static void
ps_error_private_init (PsErrorPrivate *p)
{
  p->set_index = -1;
}

static void
ps_error_private_copy (const PsErrorPrivate *src, PsErrorPrivate *dest)
{
  *dest = *src;
  dest->file = g_strdup (src->file);
  dest->text = g_strdup (src->text);
}

static void
ps_error_private_clear (PsErrorPrivate *p)
{
  g_clear_pointer (&p->file, g_free);
  g_clear_pointer (&p->text, g_free);
}

/* main.c's finish() turns a GError of any other domain into a usage error: our own failures must carry this one. */
G_DEFINE_EXTENDED_ERROR (PsError, ps_error)

/* The error just set in *error, or NULL when the caller passed no GError** (or one already set, which
 * g_set_error() leaves alone with a warning): only then are the parts worth recording. */
static PsErrorPrivate *
fresh (GError **error, const char *msg)
{
  if (!error || !*error || (*error)->domain != PS_ERROR)
    return NULL;
  PsErrorPrivate *p = ps_error_get_private (*error);
  if (p->text)
    return NULL;
  p->text = g_strdup (msg);
  return p;
}

void
ps_error_located (GError **error, PsErrorCode code, const char *file, int line, int col, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  /* The location is user text too: an include entry can name a path holding a newline (tests/bad). */
  g_autofree char *where = sim_one_line (g_strdup (file));
  msg = sim_one_line (msg);
  gboolean was_set = error && *error;
  g_set_error (error, PS_ERROR, code, "%s:%d:%d: error: %s", where, line, col, msg);
  PsErrorPrivate *p = was_set ? NULL : fresh (error, msg);
  if (p) {
    p->file = g_strdup (file);
    p->line = line;
    p->col = col;
  }
}

void
ps_error_plain (GError **error, PsErrorCode code, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  msg = sim_one_line (msg);
  gboolean was_set = error && *error;
  g_set_error (error, PS_ERROR, code, "pciesim: error: %s", msg);
  if (!was_set)
    fresh (error, msg);
}

const char *
ps_error_text (const GError *error)
{
  if (error->domain != PS_ERROR)
    return error->message;
  const PsErrorPrivate *p = ps_error_get_private (error);
  return p->text ? p->text : error->message;
}

char *
ps_error_location (const GError *error)
{
  if (error->domain != PS_ERROR)
    return NULL;
  const PsErrorPrivate *p = ps_error_get_private (error);
  return p->file ? sim_one_line (g_strdup_printf ("%s:%d:%d", p->file, p->line, p->col)) : NULL;
}

const char *
ps_error_file (const GError *error)
{
  return error->domain == PS_ERROR ? ps_error_get_private (error)->file : NULL;
}

int
ps_error_set_index (const GError *error)
{
  return error->domain == PS_ERROR ? ps_error_get_private (error)->set_index : -1;
}

void
ps_error_mark_set (GError *error, int set_index)
{
  if (error->domain == PS_ERROR)
    ps_error_get_private (error)->set_index = set_index;
}

/* Levenshtein distance with one rolling row: keys are short, so O(n·m) is nothing. It counts bytes, not
 * characters: key names are ASCII, so a non-ASCII typo merely scores a little farther. */
guint
ps_edit_distance (const char *a, const char *b)
{
  size_t la = strlen (a), lb = strlen (b);
  g_autofree guint *row = g_new (guint, lb + 1);
  for (size_t j = 0; j <= lb; j++)
    row[j] = (guint) j;
  for (size_t i = 1; i <= la; i++) {
    guint diag = row[0];
    row[0] = (guint) i;
    for (size_t j = 1; j <= lb; j++) {
      guint up = row[j];
      guint cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = MIN (MIN (row[j] + 1, row[j - 1] + 1), diag + cost);
      diag = up;
    }
  }
  return row[lb];
}

/* The strict < keeps the first of equally close words. */
const char *
ps_closest (const char *const *words, const char *word, guint per_edit)
{
  const char *best = NULL;
  guint best_d = G_MAXUINT;
  for (const char *const *w = words; w && *w; w++) {
    guint d = ps_edit_distance (*w, word);
    if (d < best_d) {
      best_d = d;
      best = *w;
    }
  }
  return best && best_d <= MAX (2u, (guint) strlen (word) / per_edit) ? best : NULL;
}

/* No GError here: a broken invariant is found deep inside an event handler with no error path back to main(),
 * and unwinding would only let more figures be computed from the broken state. _exit() also ends every thread
 * at once (validate and sweep run points on workers), where exit() would run atexit handlers while they go on. */
