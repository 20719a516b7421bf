/* format.h — how a value is written in each output format: the format names, CSV and Markdown cells,
 * fixed-precision numbers, the JSON emitter and reader, and the atomic write of a finished output. This is the
 * one place that knows any format's syntax; what is written (which rows, columns and keys) belongs to the
 * renderers: report.c (one run), validate.c, sweep.c and bench/bench.c.
 *
 * Contract:
 * - Numbers: a fixed-precision number is printf's "%.Nf" in the C locale whatever the process locale (a decimal
 *   comma would break CSV and JSON), so 3292.6 with 2 decimals is "3292.60" and 0 with 6 is "0.000000". A
 *   renderer picks N per field and the same value always prints the same digits. A non-finite value is an empty
 *   CSV cell and JSON null. ps_json_general() is "%.Ng" for the few figures whose magnitude varies too much for
 *   fixed decimals (bench timings); it may print an exponent ("1.5e+07"), which JSON allows.
 * - JSON is written by PsJson alone. json-glib's JsonGenerator is not used for writing because it prints every
 *   double with 17 significant digits (3292.6 as 3292.5999999999999) and has one indentation rule per document,
 *   where the schema-1 files fix both the digits and the line layout (one figure, one point per line); PsJson
 *   writes exactly what its caller asks, and its strings are escaped as RFC 8259 wants (quote, backslash and C0
 *   controls; \n \t \r short, the other controls \u00XX; UTF-8 unchanged). JSON is read by json-glib's
 *   JsonParser (ps_json_parse()).
 * - Layout: a container is written on one line ("{"a": 1, "b": 2}") unless it is opened with a line indent:
 *   then every member or item goes on its own line at that indent and the closing bracket on a line of its own,
 *   two spaces less (an empty container stays "{}" unless opened with PS_JSON_BREAK_EMPTY). ps_json_break() puts
 *   just the next member, item or closing bracket on a new line.
 */
#pragma once

#include <glib.h>

#include "sim/json.h"

/* json-glib's own declaration, repeated so that the many includers of report.h (the builder among them) do
 * not see json-glib; the code that reads JSON includes <json-glib/json-glib.h> itself. */
typedef struct _JsonNode JsonNode;

typedef enum { PS_FORMAT_TABLE, PS_FORMAT_CSV, PS_FORMAT_JSON, PS_FORMAT_MARKDOWN } PsFormat;

/* Word -> format. The return value is meaningless when *ok is FALSE: the caller owns the usage error, since only
 * it knows which formats its command accepts. */
PsFormat ps_format_parse (const char *word, gboolean *ok);

/* "%.Nf" of v in the C locale, or nothing when v is not finite. */
void ps_fmt_fixed (GString *out, double v, int decimals);
/* One CSV cell (RFC 4180 quoting when needed) and one Markdown table cell ('|' escaped), for user text. */
void ps_csv_cell (GString *out, const char *s);
void ps_md_cell (GString *out, const char *s);

/* --- JSON in ----------------------------------------------------------------------------------------------- */

/* Parse `text` (len bytes, or up to its NUL when len < 0) as one JSON value; NULL with *error set to the
 * parser's message when it is not one. */
JsonNode *ps_json_parse (const char *text, gssize len, GError **error);

/* Write `data` to `path` atomically (temporary file + rename), or to stdout when path is NULL or "-". */
gboolean ps_write_output (const char *path, const GString *data, GError **error);
