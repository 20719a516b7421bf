/* format.c — cells, numbers, the JSON emitter and reader, and the atomic output write of format.h.
 *
 * The emitter is a small state machine: a stack of open containers, each knowing whether it has a member yet and
 * whether it is laid out one member per line. Every token (a key, an array item or a closing bracket) first
 * writes the separator its place needs, so no caller ever writes a comma or a bracket itself. */
#include "format.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "error.h"

PsFormat
ps_format_parse (const char *word, gboolean *ok)
{
  /* The order of names matches the PsFormat enum. */
  static const char *names[] = { "table", "csv", "json", "markdown" };
  for (int i = 0; i < 4; i++)
    if (strcmp (word, names[i]) == 0) {
      *ok = TRUE;
      return (PsFormat) i;
    }
  *ok = FALSE;
  return PS_FORMAT_TABLE;
}

/* g_ascii_formatd() rather than printf: the decimal point is '.' whatever LC_NUMERIC says, so the bytes of a
 * report do not depend on the caller having pinned the locale. It takes one conversion, so the format is built. */
static void
append_double (GString *out, double v, int precision, char conversion)
{
  char fmt[16], buf[G_ASCII_DTOSTR_BUF_SIZE + 320];
  g_snprintf (fmt, sizeof fmt, "%%.%d%c", precision, conversion);
  g_string_append (out, g_ascii_formatd (buf, sizeof buf, fmt, v));
}

void
ps_fmt_fixed (GString *out, double v, int decimals)
{
  if (isfinite (v))
    append_double (out, v, decimals, 'f');
}

/* RFC 4180: quote a cell only when it holds a separator, a quote or edge spaces that readers would trim. User
 * text (config names, sweep axis keys and values) goes through here; fixed vocabularies (figure keys, metric
 * names) need no quoting. Line breaks need no case: config strings hold no control character (config.c) and an
 * axis value must fit on one line (scenario.c). */
void
ps_csv_cell (GString *o, const char *v)
{
  size_t n = strlen (v);
  if (!strpbrk (v, ",\"") && !(n && (v[0] == ' ' || v[n - 1] == ' '))) {
    g_string_append (o, v);
    return;
  }
  g_string_append_c (o, '"');
  for (const char *p = v; *p; p++) {
    if (*p == '"')
      g_string_append_c (o, '"');
    g_string_append_c (o, *p);
  }
  g_string_append_c (o, '"');
}

/* GitHub-flavoured Markdown splits a table row at every unescaped '|', so a label holding one would add a column;
 * "\|" is the table syntax's own escape. */
void
ps_md_cell (GString *o, const char *v)
{
  for (const char *p = v; *p; p++) {
    if (*p == '|')
      g_string_append_c (o, '\\');
    g_string_append_c (o, *p);
  }
}

/* --- JSON out ---------------------------------------------------------------------------------------------- */

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
    append_double (j->out, v, precision, conversion);
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

/* --- JSON in ----------------------------------------------------------------------------------------------- */

/* json-glib reads integers beyond int64 modulo 2^64 (18446744073709551615 as -1): callers that store unsigned
 * 64-bit values cast back, which restores them exactly. */
JsonNode *
ps_json_parse (const char *text, gssize len, GError **error)
{
  g_autoptr (JsonParser) p = json_parser_new_immutable ();
  if (!json_parser_load_from_data (p, text, len, error))
    return NULL;
  JsonNode *root = json_parser_get_root (p);
  if (!root) {
    g_set_error_literal (error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_PARSE, "no JSON value");
    return NULL;
  }
  return json_node_ref (root);
}

/* Every failure is PS_ERROR_CANTCREAT, exit 73, the status README gives to an output that cannot be written,
 * whether the target is a file or standard output. */
gboolean
ps_write_output (const char *path, const GString *data, GError **error)
{
  /* The flush is checked as well as the write: on a full disk the error may appear only when the buffer goes
   * out, and a report that lost its tail must exit 73, not 0. */
  if (!path || strcmp (path, "-") == 0) {
    if (fwrite (data->str, 1, data->len, stdout) != data->len || fflush (stdout) != 0) {
      ps_error_plain (error, PS_ERROR_CANTCREAT, "writing standard output failed");
      return FALSE;
    }
    return TRUE;
  }
  /* g_file_set_contents writes a temporary file beside the target and renames it over: readers never see
   * a half-written file, and a failure leaves no file behind. */
  g_autoptr (GError) e = NULL;
  if (!g_file_set_contents (path, data->str, (gssize) data->len, &e)) {
    ps_error_plain (error, PS_ERROR_CANTCREAT, "%s", e->message);
    return FALSE;
  }
  return TRUE;
}
