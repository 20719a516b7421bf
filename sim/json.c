/* json.c — the JSON emitter of json.h.
 *
 * A small state machine: a stack of open containers, each knowing whether it has a member yet and whether it is
 * laid out one member per line. Every token (a key, an array item or a closing bracket) first writes the
 * separator its place needs, so no caller ever writes a comma or a bracket itself. */
#include "sim/json.h"

#include <math.h>
#include <string.h>

/* g_ascii_formatd() rather than printf: the decimal point is '.' whatever LC_NUMERIC says, so the bytes of a
 * report do not depend on the caller having pinned the locale. It takes one conversion, so the format is built. */
void
ps_append_double (GString *out, double v, int precision, char conversion)
{
  char fmt[16], buf[G_ASCII_DTOSTR_BUF_SIZE + 320];
  g_snprintf (fmt, sizeof fmt, "%%.%d%c", precision, conversion);
  g_string_append (out, g_ascii_formatd (buf, sizeof buf, fmt, v));
}

void
ps_json_init (PsJson *j, GString *out)
{
  *j = (PsJson) { .out = out, .next_break = -1 };
}

static void
newline (PsJson *j, int indent)
{
  g_string_append_c (j->out, '\n');
  for (int i = 0; i < indent; i++)
    g_string_append_c (j->out, ' ');
}

/* Before a member (its key) or an array item: the comma after the previous one, then the line break or space. */
static void
separate (PsJson *j)
{
  if (j->depth == 0)
    return;
  PsJsonLevel *l = &j->level[j->depth - 1];
  if (l->any)
    g_string_append_c (j->out, ',');
  if (j->next_break >= 0)
    newline (j, j->next_break);
  else if (l->indent)
    newline (j, l->indent);
  else if (l->any)
    g_string_append_c (j->out, ' ');
  j->next_break = -1;
  l->any = TRUE;
}

/* A value in an array is an item and needs its separator; in an object, its key has already written one. */
static void
value_start (PsJson *j)
{
  if (j->depth > 0 && !j->level[j->depth - 1].object)
    separate (j);
}

static void
open_container (PsJson *j, int indent, gboolean object)
{
  g_assert (j->depth < PS_JSON_MAX_DEPTH);
  value_start (j);
  g_string_append_c (j->out, object ? '{' : '[');
  j->level[j->depth++] = (PsJsonLevel) { .object = object, .indent = indent & ~PS_JSON_BREAK_EMPTY,
                                                  .break_empty = (indent & PS_JSON_BREAK_EMPTY) != 0 };
}

void
ps_json_object (PsJson *j, int indent)
{
  open_container (j, indent, TRUE);
}

void
ps_json_array (PsJson *j, int indent)
{
  open_container (j, indent, FALSE);
}

void
ps_json_end (PsJson *j)
{
  g_assert (j->depth > 0);
  PsJsonLevel *l = &j->level[--j->depth];
  if (j->next_break >= 0)
    newline (j, j->next_break);
  else if (l->indent && (l->any || l->break_empty))
    newline (j, l->indent - 2);
  j->next_break = -1;
  g_string_append_c (j->out, l->object ? '}' : ']');
  /* A document laid out in lines is a text file and ends its last line; a one-line record is a line of a larger
   * file, whose writer ends it. */
  if (j->depth == 0 && l->indent)
    g_string_append_c (j->out, '\n');
}

void
ps_json_break (PsJson *j, int indent)
{
  j->next_break = indent;
}

/* JSON string escaping per RFC 8259: quotes, backslash and control characters; UTF-8 passes through. Bytes
 * from 0x80 up are copied unchanged rather than \u-escaped, so a non-ASCII name stays readable in the file. */
static void
append_string (GString *out, const char *s)
{
  g_string_append_c (out, '"');
  for (const unsigned char *p = (const unsigned char *) (s ? s : ""); *p; p++) {
    switch (*p) {
    case '"':
      g_string_append (out, "\\\"");
      break;
    case '\\':
      g_string_append (out, "\\\\");
      break;
    case '\n':
      g_string_append (out, "\\n");
      break;
    case '\t':
      g_string_append (out, "\\t");
      break;
    case '\r':
      g_string_append (out, "\\r");
      break;
    /* The short escapes keep the common cases readable; \b, \f and the rest of C0 take the \u form, which is
     * equally valid and needs no table. */
    default:
      if (*p < 0x20)
        g_string_append_printf (out, "\\u%04x", *p);
      else
        g_string_append_c (out, (char) *p);
    }
  }
  g_string_append_c (out, '"');
}

void
ps_json_key (PsJson *j, const char *key)
{
  separate (j);
  append_string (j->out, key);
  g_string_append (j->out, ": ");
}

void
ps_json_string (PsJson *j, const char *s)
{
  value_start (j);
  append_string (j->out, s);
}

void
ps_json_int (PsJson *j, gint64 v)
{
  value_start (j);
  g_string_append_printf (j->out, "%" G_GINT64_FORMAT, v);
}

void
ps_json_uint (PsJson *j, guint64 v)
{
  value_start (j);
  g_string_append_printf (j->out, "%" G_GUINT64_FORMAT, v);
}

/* JSON has no NaN or infinity: an absent figure is null. */
static void
number (PsJson *j, double v, int precision, char conversion)
{
  value_start (j);
  if (isfinite (v))
    ps_append_double (j->out, v, precision, conversion);
  else
    g_string_append (j->out, "null");
}

void
ps_json_fixed (PsJson *j, double v, int decimals)
{
  number (j, v, decimals, 'f');
}

void
ps_json_general (PsJson *j, double v, int significant)
{
  number (j, v, significant, 'g');
}

void
ps_json_bool (PsJson *j, gboolean v)
{
  value_start (j);
  g_string_append (j->out, v ? "true" : "false");
}

void
ps_json_raw (PsJson *j, const char *json)
{
  value_start (j);
  g_string_append (j->out, json);
}

void
ps_json_string_member (PsJson *j, const char *key, const char *s)
{
  ps_json_key (j, key);
  ps_json_string (j, s);
}

void
ps_json_int_member (PsJson *j, const char *key, gint64 v)
{
  ps_json_key (j, key);
  ps_json_int (j, v);
}

void
ps_json_uint_member (PsJson *j, const char *key, guint64 v)
{
  ps_json_key (j, key);
  ps_json_uint (j, v);
}

void
ps_json_fixed_member (PsJson *j, const char *key, double v, int decimals)
{
  ps_json_key (j, key);
  ps_json_fixed (j, v, decimals);
}

void
ps_json_bool_member (PsJson *j, const char *key, gboolean v)
{
  ps_json_key (j, key);
  ps_json_bool (j, v);
}
