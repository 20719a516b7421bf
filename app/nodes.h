/* nodes.h — the node-kind registry: every kind of node a topology: may name, one row each: its type word, the role
 * it plays in the tree (root complex, switch, endpoint: what the topology's checks and routing know of it), the
 * config section its parameters come from, and its factory (config -> model component). The builder has no
 * if/else over kinds: it calls the row's factory. A new device is one model file and one row here
 * (docs/adding-a-device.md).
 *
 * Contract:
 * - Rows 0..2 are root_complex, switch and endpoint, in PsNodeType order, so a kind's index equals its role for
 *   those three. Type words are unique.
 * - A factory checks its parameters (the model's own check, its error in the model's domain) before it constructs,
 *   adds the component to b->f and returns it; NULL with the error. It never frees the fabric.
 */
#pragma once

#include "models/system.h"
#include "app/topology.h"

typedef struct {
  Fabric *f;
  const PsNode *node;
  const PsConfig *cfg; /* the node's own config */
  const SystemParams *sp; /* its model parameters (ps_build_system_params (cfg)) */
  int dma_mode; /* >= 0: the benchmark's endpoint, a SystemMode (app/builder.h) */
} PsNodeBuild;

typedef struct {
  const char *type; /* topology.nodes.NAME.type */
  PsNodeType role;
  const char *section; /* the config section of its parameters */
  Component *(*build) (const PsNodeBuild *b, GError **error);
} PsNodeKind;

/* The row of type word `type`, or NULL; its index in *index. */
const PsNodeKind *ps_node_kind_find (const char *type, guint *index);
const PsNodeKind *ps_node_kind (guint index);
/* The type words, NULL-terminated, in row order. */
const char *const *ps_node_kind_words (void);
/* Flow-control credits as the models take them (the config's ranges keep the casts lossless). */
FcCredits ps_credits (const PsCredits *c);
