/* json.h — the JSON emitter: exactly the bytes its caller asks for, in the C locale. A kernel utility (it knows
 * nothing of PCIe or of the program's reports): the trace writer and the application's reports both write through
 * it. Its prefix is the program's (ps_) because every report calls it; app/base/format.h says how reports use it.
 *
 * Contract:
 * - Numbers: a fixed-precision number is printf's "%.Nf" in the C locale whatever the process locale (a decimal
 *   comma would break JSON), so 3292.6 with 2 decimals is "3292.60"; a non-finite value is null.
 *   ps_json_general() is "%.Ng" and may print an exponent ("1.5e+07"), which JSON allows.
 * - Strings are escaped as RFC 8259 wants (quote, backslash and C0 controls; \n \t \r short, the other controls
 *   \u00XX; UTF-8 unchanged).
 * - Layout: a container is written on one line ("{"a": 1, "b": 2}") unless it is opened with a line indent:
 *   then every member or item goes on its own line at that indent and the closing bracket on a line of its own,
 *   two spaces less (an empty container stays "{}" unless opened with PS_JSON_BREAK_EMPTY). ps_json_break() puts
 *   just the next member, item or closing bracket on a new line.
 */
#pragma once

#include <glib.h>

/* "%.<precision><conversion>" of v in the C locale, appended to out. */
void ps_append_double (GString *out, double v, int precision, char conversion);

#define PS_JSON_MAX_DEPTH 8
#define PS_JSON_BREAK_EMPTY 0x100 /* or-ed into a line indent: an empty container still closes on its own line */

typedef struct {
  gboolean any; /* a member or item was written */
  gboolean object;
  int indent; /* 0 = on one line */
  gboolean break_empty;
} PsJsonLevel;

typedef struct {
  GString *out;
  int depth;
  int next_break; /* indent of a line break before the next token, -1 for none */
  PsJsonLevel level[PS_JSON_MAX_DEPTH];
} PsJson;

/* Start a document appended to `out`. */
void ps_json_init (PsJson *j, GString *out);
/* indent 0: on one line; else one member or item per line at `indent` spaces (| PS_JSON_BREAK_EMPTY). */
void ps_json_object (PsJson *j, int indent);
void ps_json_array (PsJson *j, int indent);
/* Close the innermost object or array. Closing a document laid out in lines also ends its last line; a one-line
 * document (a record: a line of a larger file) is left without a newline. */
void ps_json_end (PsJson *j);
void ps_json_break (PsJson *j, int indent);
void ps_json_key (PsJson *j, const char *key);
void ps_json_string (PsJson *j, const char *s); /* NULL is written as "" (an absent optional text) */
void ps_json_int (PsJson *j, gint64 v);
void ps_json_uint (PsJson *j, guint64 v);
void ps_json_fixed (PsJson *j, double v, int decimals);
void ps_json_general (PsJson *j, double v, int significant);
void ps_json_bool (PsJson *j, gboolean v);
/* A value already in JSON syntax (a number or record checked or written by the caller), copied as it is. */
void ps_json_raw (PsJson *j, const char *json);
/* A key and its value in one call, as json_object_set_*_member() names them. */
void ps_json_string_member (PsJson *j, const char *key, const char *s);
void ps_json_int_member (PsJson *j, const char *key, gint64 v);
void ps_json_uint_member (PsJson *j, const char *key, guint64 v);
void ps_json_fixed_member (PsJson *j, const char *key, double v, int decimals);
void ps_json_bool_member (PsJson *j, const char *key, gboolean v);
