/* sweep_file.c — reading a sweep file back, for --resume and merge (contract in sweep_file.h). */
#include "app/study/sweep_file.h"

#include <string.h>

#include "app/base/error.h"

void
sweep_header_clear (SweepHeader *h)
{
  g_free (h->version);
  g_free (h->scenario);
  g_clear_pointer (&h->axes, g_ptr_array_unref);
  g_clear_pointer (&h->metrics, g_ptr_array_unref);
  g_clear_pointer (&h->sets, g_ptr_array_unref);
}

void
sweep_row_clear (gpointer p)
{
  SweepRow *r = p;
  g_free (r->text);
  g_strfreev (r->fields);
  if (r->record)
    json_node_unref (r->record);
}

void
sweep_file_clear (SweepFile *f)
{
  sweep_header_clear (&f->header);
  if (f->rows)
    g_array_unref (f->rows);
}

/* One CSV record (RFC 4180, as ps_csv_cell() writes it: quoted cells, "" for a quote), or NULL when a quote is
 * left open or a quoted cell is followed by anything but a separator. */
GStrv
sweep_csv_split (const char *line)
{
  g_autoptr (GStrvBuilder) b = g_strv_builder_new ();
  g_autoptr (GString) cell = g_string_new (NULL);
  const char *p = line;
  for (;;) {
    g_string_truncate (cell, 0);
    if (*p == '"') {
      for (p++;; p++) {
        if (!*p)
          return NULL;
        if (*p == '"' && p[1] != '"')
          break;
        if (*p == '"')
          p++;
        g_string_append_c (cell, *p);
      }
      p++;
      if (*p && *p != ',')
        return NULL;
    } else {
      size_t n = strcspn (p, ",");
      g_string_append_len (cell, p, (gssize) n);
      p += n;
    }
    g_strv_builder_add (b, cell->str);
    if (!*p)
      return g_strv_builder_end (b);
    p++;
  }
}

/* The id a record holds (1-based), or 0 when it holds none: 0 is free to mean "none" because ids start at 1. */
static guint
parse_id (const char *text)
{
  guint64 id = 0;
  if (!g_ascii_string_to_unsigned (text, 10, 1, G_MAXUINT, &id, NULL))
    return 0;
  return (guint) id;
}

/* A JSON point record: an object with a positive integer id and objects params and metrics. */
static guint
record_id (JsonNode *n)
{
  JsonObject *o = JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
  JsonNode *id = o ? json_object_get_member (o, "id") : NULL;
  JsonNode *params = o ? json_object_get_member (o, "params") : NULL;
  JsonNode *metrics = o ? json_object_get_member (o, "metrics") : NULL;
  if (!id || json_node_get_value_type (id) != G_TYPE_INT64 || !params || !JSON_NODE_HOLDS_OBJECT (params) ||
      !metrics || !JSON_NODE_HOLDS_OBJECT (metrics))
    return 0;
  gint64 v = json_node_get_int (id);
  return v >= 1 && v <= G_MAXUINT ? (guint) v : 0;
}

/* A JSON array member of strings, copied; FALSE when it is missing or holds anything else. */
static gboolean
string_list (JsonObject *o, const char *name, GPtrArray **out)
{
  JsonNode *n = json_object_get_member (o, name);
  if (!n || !JSON_NODE_HOLDS_ARRAY (n))
    return FALSE;
  JsonArray *a = json_node_get_array (n);
  *out = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < json_array_get_length (a); i++) {
    JsonNode *e = json_array_get_element (a, i);
    if (json_node_get_value_type (e) != G_TYPE_STRING)
      return FALSE;
    g_ptr_array_add (*out, g_strdup (json_node_get_string (e)));
  }
  return TRUE;
}

/* The JSON header: its text up to and including the line that opens "points", closed and parsed as a document.
 * json-glib reads a seed above int64 modulo 2^64, which the cast to guint64 undoes. */
static gboolean
parse_json_header (const char *text, gsize len, SweepHeader *h)
{
  g_autofree char *doc = g_strdup_printf ("%.*s]}", (int) len, text);
  g_autoptr (JsonNode) root = ps_json_parse (doc, -1, NULL);
  JsonObject *o = root && JSON_NODE_HOLDS_OBJECT (root) ? json_node_get_object (root) : NULL;
  const char *ints[] = { "schema", "seed", "points_total" }, *strs[] = { "version", "scenario" };
  for (int i = 0; o && i < 3; i++) {
    JsonNode *n = json_object_get_member (o, ints[i]);
    if (!n || json_node_get_value_type (n) != G_TYPE_INT64)
      return FALSE;
  }
  for (int i = 0; o && i < 2; i++) {
    JsonNode *n = json_object_get_member (o, strs[i]);
    if (!n || json_node_get_value_type (n) != G_TYPE_STRING)
      return FALSE;
  }
  if (!o || json_object_get_int_member (o, "schema") != 1 || !json_object_has_member (o, "points"))
    return FALSE;
  h->format = PS_FORMAT_JSON;
  h->version = g_strdup (json_object_get_string_member (o, "version"));
  h->scenario = g_strdup (json_object_get_string_member (o, "scenario"));
  h->seed = (guint64) json_object_get_int_member (o, "seed");
  h->points_total = (guint64) json_object_get_int_member (o, "points_total");
  return string_list (o, "axes", &h->axes) && string_list (o, "metrics", &h->metrics) &&
         (!json_object_has_member (o, "sets") || string_list (o, "sets", &h->sets));
}

/* Split a sweep file into its header and point records without judging them: resume and merge apply their own
 * rules (resume tolerates a cut tail, merge does not). A row that is no record keeps id 0 for them to refuse.
 * Lines are the unit: the header ends at its first line (CSV) or at the line that opens "points" (JSON, the one
 * header line ending in '['); then every complete line is a point until, in JSON, the "]" line, after which a
 * finished file has exactly "}". */
void
sweep_file_parse (const char *text, gsize len, SweepFile *f)
{
  /* A CSV header starts with "id", a JSON file with '{': the first byte tells the formats apart. */
  f->format = len && text[0] == '{' ? PS_FORMAT_JSON : PS_FORMAT_CSV;
  f->rows = g_array_new (FALSE, TRUE, sizeof (SweepRow));
  g_array_set_clear_func (f->rows, sweep_row_clear);
  const char *end = text + len, *p = text;
  guint line = 1;
  /* The header. A file cut inside it has none: resume treats it as a file that had only begun. */
  for (const char *nl; (nl = memchr (p, '\n', (size_t) (end - p))); p = nl + 1, line++) {
    if (f->format == PS_FORMAT_CSV) {
      g_autofree char *head = g_strndup (text, (gsize) (nl - text));
      g_auto (GStrv) cells = sweep_csv_split (head);
      if (cells && cells[0] && !strcmp (cells[0], "id")) {
        f->header = (SweepHeader) { .format = PS_FORMAT_CSV, .axes = g_ptr_array_new_with_free_func (g_free),
                                    .metrics = g_ptr_array_new_with_free_func (g_free) };
        for (char **c = cells + 1; *c; c++)
          g_ptr_array_add (f->header.axes, g_strdup (*c));
        f->has_header = TRUE;
      }
    } else if (nl > p && nl[-1] == '[')
      f->has_header = parse_json_header (text, (gsize) (nl - text), &f->header);
    else
      continue;
    p = nl + 1;
    line++;
    break;
  }
  if (!f->has_header)
    return;
  for (const char *nl; (nl = memchr (p, '\n', (size_t) (end - p))); p = nl + 1, line++) {
    g_autofree char *l = g_strstrip (g_strndup (p, (gsize) (nl - p)));
    if (f->format == PS_FORMAT_JSON && !strcmp (l, "]")) {
      /* What follows the points must be the object's end and nothing else (not a second file, say). */
      g_autofree char *rest = g_strndup (nl + 1, (gsize) (end - nl - 1));
      f->closed = !strcmp (g_strstrip (rest), "}") && end[-1] == '\n';
      return;
    }
    SweepRow r = { .line = line };
    /* The separating comma belongs to the file, not the row: rows are compared and re-joined without it. */
    size_t n = strlen (l);
    if (f->format == PS_FORMAT_JSON && n && l[n - 1] == ',')
      l[n - 1] = '\0';
    r.text = g_strdup (l);
    if (f->format == PS_FORMAT_CSV) {
      r.fields = sweep_csv_split (r.text);
      r.id = r.fields ? parse_id (r.fields[0]) : 0;
    } else {
      r.record = ps_json_parse (r.text, -1, NULL);
      r.id = r.record ? record_id (r.record) : 0;
    }
    g_array_append_val (f->rows, r);
  }
  /* A cut last line is no row. CSV has no end mark: every complete line makes a finished file. JSON without its
   * "]" was cut. */
  f->closed = f->format == PS_FORMAT_CSV && p == end;
}

/* Every unreadable input is EX_NOINPUT, whatever the reason, as for configs. */
gboolean
sweep_read_text (const char *path, char **text, gsize *len, GError **error)
{
  g_autoptr (GError) e = NULL;
  if (g_file_get_contents (path, text, len, &e))
    return TRUE;
  ps_error_plain (error, PS_ERROR_NOINPUT, "%s", e->message);
  return FALSE;
}
