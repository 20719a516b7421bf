/* format.c — cells, numbers, the JSON reader and the atomic output write of format.h (the emitter is the
 * kernel's, sim/json.c). */
#include "app/base/format.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app/base/error.h"

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

void
ps_fmt_fixed (GString *out, double v, int decimals)
{
  if (isfinite (v))
    ps_append_double (out, v, decimals, 'f');
}

/* RFC 4180: quote a cell only when it holds a separator, a quote or edge spaces that readers would trim. User
 * text (config names, sweep axis keys and values) goes through here; fixed vocabularies (figure keys, metric
 * names) need no quoting. Line breaks need no case: config strings hold no control character (config_values.c) and an
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

/* Every failure is PS_ERROR_CANTCREAT, exit 73, the status docs/commands.md gives to an output that cannot be written,
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
    /* GLib's message names its temporary file ("Failed to create file “OUT.XXXXXX”: REASON"); the user named OUT,
     * and the reason (after the last colon) is the same for it. */
    const char *why = strrchr (e->message, ':');
    ps_error_plain (error, PS_ERROR_CANTCREAT, "cannot write %s: %s", path, why && why[1] ? why + 2 : e->message);
    return FALSE;
  }
  return TRUE;
}
