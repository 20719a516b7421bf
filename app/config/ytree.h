/* ytree.h — YAML read into a small located tree, the common ground of configs and scenarios.
 *
 * Contract:
 * - Every node remembers the file (or "--set …" origin) and the 1-based line and column where it starts, so any
 *   later validation error can point at it.
 * - Loading is strict and bounded. Rejected with a located PS_ERROR_DATA: syntax errors (with the context mark
 *   when libyaml gives one), invalid encodings, duplicate keys, non-scalar keys, explicit tags (!!str,
 *   !!python/…), anchors and aliases (they make trees share nodes and let a small file expand exponentially),
 *   nesting deeper than YTREE_MAX_DEPTH, more than one document, files larger than YTREE_MAX_FILE_BYTES, UTF-16
 *   files (texts are UTF-8). A missing or unreadable file is PS_ERROR_NOINPUT.
 *   Loading time is linear in the file's size, whatever the file holds.
 * - An empty document loads as NULL without error; callers decide whether that is acceptable.
 * - ytree_merge() implements include semantics: mappings merge key by key, anything else is replaced.
 */
#pragma once

#include <glib.h>

#include "app/base/error.h"

#define YTREE_MAX_DEPTH 32
#define YTREE_MAX_FILE_BYTES (1024 * 1024)

typedef enum { YNODE_SCALAR, YNODE_MAP, YNODE_SEQ } YNodeKind;

typedef struct YNode YNode;
struct YNode {
  YNodeKind kind;
  char *origin; /* file path or "--set k=v" */
  int line, col; /* 1-based */
  char *value; /* scalar text */
  gboolean plain; /* scalar was unquoted: only plain scalars may be numbers or booleans */
  GPtrArray *keys; /* map: scalar key nodes, in file order */
  GPtrArray *items; /* map: values parallel to keys; seq: elements */
};

YNode *ytree_load_file (const char *path, GError **error);
/* Between ytree_cache_begin() and its ytree_cache_end() (nested calls count, any thread), ytree_load_file() parses a
 * file once and hands out copies of that tree: for callers that load the same config many times over (--ranges).
 * A file edited meanwhile is not read again; a load that fails is not kept. */
void ytree_cache_begin (void);
void ytree_cache_end (void);
/* Parse `text` as YAML; node positions are reported as origin:line:col with `col_offset` added on line 1. */
YNode *ytree_load_string (const char *origin, const char *text, int col_offset, GError **error);

YNode *ytree_scalar_new (const char *origin, int line, int col, const char *value);
YNode *ytree_map_new (const char *origin, int line, int col);
void ytree_free (YNode *node);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (YNode, ytree_free)
YNode *ytree_copy (const YNode *node);

/* Value node for `key` in a map, or NULL. */
YNode *ytree_map_get (const YNode *map, const char *key);
YNode *ytree_map_key_node (const YNode *map, const char *key);
/* Remove `key` from map and return its value (caller owns it), or NULL. */
YNode *ytree_map_take (YNode *map, const char *key);
/* Set key to value (takes ownership of value); replaces an existing value in place, keeping key order. */
void ytree_map_set (YNode *map, const char *key, YNode *value, const YNode *key_pos);
/* Merge `top` over `base` (both maps): keys of top override; nested maps merge. Consumes top. */
void ytree_merge (YNode *base, YNode *top);

const char *ytree_kind_name (YNodeKind kind);

/* A PS_ERROR located at node `n` (FILE:LINE:COL of its origin), the form of every config and scenario error. A
 * macro so that ps_error_located's printf check sees the caller's format. */
#define ytree_error(error, code, n, ...)                                                                       \
  ps_error_located ((error), (code), (n)->origin, (n)->line, (n)->col, __VA_ARGS__)
