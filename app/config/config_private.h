/* config_private.h — what the files of the config module share, and nothing outside them includes: the key
 * table's row type and the table, the state of one walk over a config's tree, and the steps one file does for
 * another. config.h stays the module's one public header.
 *
 * The module is five files, each saying one thing:
 * - config_keys.c    the key table, one declarative row per key (one macro per key type: KEY_INT, KEY_DOUBLE,
 *                    …), and the questions asked of it (is it a key or a section, its type, the closest name);
 * - config_values.c  one YAML value converted into its key's field, and a file's assumption ranges;
 * - config_load.c    a config loaded: includes, --set, the walk of the tree against the table, defaults, origins;
 * - config_rules.c   the rules that need several keys, checked once every value is converted;
 * - config_emit.c    a loaded config written back: resolved_config JSON, CSV comment lines, `pciesim keys`.
 * Internal names start with cfg_; the public ones (config.h) with ps_.
 */
#pragma once

#include <stddef.h>

#include "app/config/config.h"
#include "app/config/ytree.h"

typedef enum { K_INT, K_DOUBLE, K_BOOL, K_STRING, K_MODES, K_ENUM, K_WORDS, K_POINTS } KeyType;

/* One key of the table. Integer value constraints: a range, optionally only powers of two, or an explicit list. */
typedef struct {
  const char *path;
  KeyType type;
  /* Into PsConfig. The field's C type must be the one cfg_convert_value() writes for `type`: int64_t for K_INT,
   * double, bool, char * (owned), unsigned for K_MODES (a PsModeMask), int for K_ENUM, unsigned for K_WORDS (bit i
   * set for words[i]), PsPoints (owned) for K_POINTS. */
  size_t offset;
  /* Bounds of K_INT and K_DOUBLE, doubles for both: exact for integers, since every bound is below 2^53. */
  double min, max;
  gboolean pow2;
  const int64_t *allowed; /* terminated by -1, so no list may hold a negative value */
  const char *const *words; /* K_ENUM, K_WORDS: NULL-terminated names; K_ENUM stores the index, K_WORDS a mask */
  const char *dflt; /* YAML text; NULL = required (or absent for published.*) */
  const char *unit;
  const char *doc; /* meaning and source: one line of `pciesim keys`, also quoted when a required key is missing */
} KeyDef;

/* seen maps the table's own path strings (static, so never freed) to the node each value came from: combination
 * checks use it to point at a value, and the load to find required keys that never appeared. */
typedef struct {
  PsConfig *cfg;
  GHashTable *seen; /* key path -> value node (not owned) */
} Walk;

/* config_keys.c: the table in `pciesim keys` order; PsConfig.origins is indexed like it. */
extern const KeyDef cfg_keys[];
extern const size_t cfg_n_keys;
extern const char *const cfg_dist_words[]; /* the kinds of a random time, in PsDistKind order */
const KeyDef *cfg_find_key (const char *path); /* NULL: no such key */
gboolean cfg_is_section (const char *path);
char *cfg_suggest (const char *prefix, const char *word);
char *cfg_suggest_path (const char *path);
const char *cfg_type_name (const KeyDef *k);

/* config_values.c */
gboolean cfg_convert_value (const KeyDef *k, const YNode *n, PsConfig *cfg, GError **error);
gboolean cfg_check_assumptions (const YNode *a, GError **error);
gboolean cfg_merge_assumptions (YNode *base, const YNode *file, GError **error);
gboolean cfg_take_assumptions (PsConfig *cfg, const YNode *a, GError **error);

/* config_rules.c */
gboolean cfg_check_combinations (Walk *w, const YNode *root, GError **error);
void cfg_apply_datapath_default (PsConfig *cfg);
void cfg_apply_switch_dll_default (PsConfig *cfg);

/* config_emit.c */
const PsKeyOrigin *cfg_origin_of (const PsConfig *cfg, size_t i);
char *cfg_set_changes (const PsConfig *cfg);
