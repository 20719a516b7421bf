/* topology_graph.c — paths through a parsed tree (topology.h's ps_topology_path(), topology_impl.h's
 * topo_top_of()): up by each node's upstream link, then down. */
#include "app/config/topology_impl.h"

/* The topmost node above `n` by upstream links: the root complex for a node that hangs below it. */
guint
topo_top_of (const PsTopology *t, guint n)
{
  for (guint steps = 0; t->nodes[n].up_link >= 0 && steps <= t->n_nodes; steps++)
    n = t->links[t->nodes[n].up_link].a;
  return n;
}

guint
ps_topology_path (const PsTopology *t, guint from, guint to, guint *links)
{
  /* Up from `from` to the first node that is `to` or above it, then down to `to` (its upward path reversed). */
  guint up[PS_TOPOLOGY_MAX_NODES], n_up = 0, down[PS_TOPOLOGY_MAX_NODES], n_down = 0;
  for (guint x = to; t->nodes[x].up_link >= 0 && n_down < PS_TOPOLOGY_MAX_NODES; x = t->links[t->nodes[x].up_link].a)
    down[n_down++] = (guint) t->nodes[x].up_link;
  guint x = from;
  for (;;) {
    guint k = 0;
    gboolean above_to = x == to;
    for (k = 0; k < n_down && !above_to; k++)
      above_to = t->links[down[k]].a == x;
    if (above_to) {
      n_down = x == to ? 0 : k;
      break;
    }
    if (t->nodes[x].up_link < 0)
      break;
    up[n_up++] = (guint) t->nodes[x].up_link;
    x = t->links[t->nodes[x].up_link].a;
  }
  guint n = 0;
  for (guint k = 0; k < n_up; k++)
    links[n++] = up[k];
  for (guint k = n_down; k > 0; k--)
    links[n++] = down[k - 1];
  return n;
}
