/* nodes.h — the node-kind registry: every kind of node a topology: may name, one row each: its type word, the role
 * it plays in the tree (root complex, switch, endpoint: what the topology's checks and routing know of it), the
 * config section its parameters come from, and its factory (config -> model component). The builder has no
 * if/else over kinds: it calls the row's factory. A new device is one model file and one row here
 * (docs/adding-a-device.md).
 *
 * Contract:
 * - Rows 0..2 are root_complex, switch and endpoint, in PsNodeType order, so a kind's index equals its role for
 *   those three. Type words are unique.
 * - A kind's node fields are read by the topology parser into PsNode.field[] in the row's order (defaults first),
 *   so a factory reads b->node->field[i]; a field on a node of another kind is an unknown key.
 * - A factory checks its parameters (the model's own check, its error in the model's domain) before it constructs,
 *   adds the component to b->f and returns it; NULL with the error. It never frees the fabric.
 */
#pragma once

#include "models/workloads/system.h"
#include "app/config/topology.h"

typedef struct {
  Fabric *f;
  const PsNode *node;
  const PsConfig *cfg; /* the node's own config */
  const SystemParams *sp; /* its model parameters (ps_build_system_params (cfg)) */
  int dma_mode; /* >= 0: the benchmark's endpoint, a SystemMode (app/run/builder.h) */
} PsNodeBuild;

/* A parameter of a kind's own, written in its node's mapping (topology.nodes.NAME.FIELD): a number with its unit
 * in its name, its range, default and meaning (a row of `pciesim keys`). */
typedef struct {
  const char *name;
  const char *unit;
  double min, max, dflt;
  const char *doc;
  /* A default that is an ASSUMPTION: its range as data (lo < hi), which a node keeping the default gets as its
   * assumption nodes.NAME.FIELD (load.c), as a config keeping a ranged default of the key table does; else 0, 0. */
  double lo, hi;
  /* > 0: the value is a whole multiple of it (a count: 1; a block of 512-byte sectors: 512), a located error else. */
  double step;
} PsNodeField;

typedef struct {
  const char *type; /* topology.nodes.NAME.type */
  PsNodeType role;
  const char *section; /* the config section of its parameters (NULL: its node fields only) */
  Component *(*build) (const PsNodeBuild *b, GError **error);
  const PsNodeField *fields; /* its own node fields, at most PS_NODE_MAX_FIELDS; NULL: none */
  guint n_fields;
  /* What the kind can do, asked by the topology's checks instead of its type word: issue requests (be a flow's
   * source), have several functions (functions:, each a requester of its own). */
  gboolean requests, functions;
  /* The workload a topology without flows: runs on a node of this kind (a row of app/run/workloads.h, which runs
   * on the first such node); NULL: the benchmark's chaining DMA, on the one endpoint. */
  const char *workload;
} PsNodeKind;

/* The row of type word `type`, or NULL; its index in *index. */
const PsNodeKind *ps_node_kind_find (const char *type, guint *index);
const PsNodeKind *ps_node_kind (guint index);
/* Field `name` of node `n` (its kind's; asserted to exist). */
double ps_node_field (const PsNode *n, const char *name);
/* `v` as node field `field` accepts it (a whole multiple of its step, within its range: what --ranges varies),
 * by the first kind that has such a field with a step; else `v`. */
double ps_node_field_snap (const char *field, double v);
/* The type words, NULL-terminated, in row order. */
const char *const *ps_node_kind_words (void);
/* Flow-control credits as the models take them (the config's ranges keep the casts lossless). */
FcCredits ps_credits (const PsCredits *c);
