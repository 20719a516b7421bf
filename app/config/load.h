/* load.h — a config file to a PsConfig ready to run: its keys (config.h) and its fabric (topology.h), composed.
 *
 * Contract:
 * - The one module that knows both: config_load.c reads the keys and hands back the topology: and flows: sections
 *   unparsed, topology.c parses them into the file's config (deriving each node's and link's own config through
 *   ps_config_derive()), and the fabric-only keys are checked last, against what the fabric has. So config_load.c
 *   never includes topology.h, and the dependency runs one way: load -> topology -> config.
 * - Errors as ps_config_load_keys() and ps_topology_parse() give them, located, with the --set an error lies in
 *   marked (error.h).
 */
#pragma once

#include "app/config/config.h"

/* `path` with `sets` ("KEY=VALUE" overrides, NULL-terminated, may be NULL) over it: the config with its fabric
 * attached (PsConfig.topology), or NULL with a located error. Free with ps_config_free(). */
PsConfig *ps_config_load (const char *path, const char *const *sets, GError **error);
