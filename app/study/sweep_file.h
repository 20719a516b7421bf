/* sweep_file.h — a sweep file's header and rows as sweep.c writes them, and reading a file back (--resume, merge).
 *
 * Contract: reading parses records, never matches bytes: the header with JsonParser or as a CSV record, each point
 * line alone as a CSV record or a JSON object (a JSON Lines record once its separating comma is removed); the
 * row's text is kept beside what it holds, so a row read back is written again unchanged by sweep.c's
 * render_file(), the one writer. Whether two headers agree is sweep.c's question (they agree when they render the
 * same).
 */
#pragma once

#include <json-glib/json-glib.h>

#include "app/base/format.h"

/* Everything before the first point: the same in every shard and every resumed run of one sweep, since merge and
 * resume compare it to decide whether files belong together (so no shard, time or host). JSON's header carries
 * the seed, so resume and merge refuse rows of another seed, and points_total, so merge notices a missing last
 * shard. The CSV header is the column names alone (`columns`: axes then metrics; a header read back from CSV
 * cannot tell them apart and needs not): another --seed goes unnoticed there. */
typedef struct {
  PsFormat format;
  char *version, *scenario; /* JSON */
  guint64 seed, points_total; /* JSON */
  GPtrArray *axes, *metrics; /* char *; CSV read back: every column after id is in axes */
  GPtrArray *sets; /* JSON: the command line's --sets, NULL when none (the key is then absent) */
} SweepHeader;

void sweep_header_clear (SweepHeader *h);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (SweepHeader, sweep_header_clear)

/* A point row read back: its text as written (to be written again unchanged) and what it holds. */
typedef struct {
  guint id; /* 0 when the line is no point record */
  char *text; /* the line, without indentation, separating comma or line break */
  GStrv fields; /* CSV: the cells, unquoted */
  JsonNode *record; /* JSON: the parsed object */
  guint line; /* 1-based line in the file */
} SweepRow;

void sweep_row_clear (gpointer p);

typedef struct {
  PsFormat format;
  gboolean has_header; /* FALSE when the file stops inside it */
  SweepHeader header;
  GArray *rows; /* SweepRow: complete lines only */
  gboolean closed; /* ends as a finished file would (a cut last line or missing JSON end makes it FALSE) */
} SweepFile;

void sweep_file_clear (SweepFile *f);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (SweepFile, sweep_file_clear)

/* One CSV record (RFC 4180, as ps_csv_cell() writes it: quoted cells, "" for a quote), or NULL when a quote is
 * left open or a quoted cell is followed by anything but a separator. */
GStrv sweep_csv_split (const char *line);
/* Split a sweep file into its header and point records without judging them (see sweep_file.c). */
void sweep_file_parse (const char *text, gsize len, SweepFile *f);
/* Read a whole file; every unreadable input is EX_NOINPUT, whatever the reason, as for configs. */
gboolean sweep_read_text (const char *path, char **text, gsize *len, GError **error);
