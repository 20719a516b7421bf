/* assemble.c — config to fabric (contract in assemble.h). */
#include "app/run/assemble.h"

#include "models/base/units.h"
#include "models/fabric/switch.h"
#include "app/config/nodes.h"
#include "app/run/params.h"

/* One end of a link as the device there makes it: a switch port through the switch (its latency, its credits); a
 * root port or an endpoint with its own pipelines, credits and Ack policy from its node's config. */
static void
link_end (const PsConfig *nc, const PsNode *node, Switch *sw, LinkParams *lp, LinkEnd end)
{
  if (sw) {
    switch_link_params (sw, lp, end);
    lp->ack_every_tlps[end] = 0;
    lp->rx_tl_pipeline_ps[end] = 0; /* the switch holds its TLPs itself (switch.h) */
    return;
  }
  gboolean root = node->type == PS_NODE_ROOT_COMPLEX;
  lp->end_pipelines[end] = TRUE;
  lp->end_tx_pipeline_ps[end] = units_ns_to_ps (nc->link.tx_pipeline_ns);
  lp->end_rx_pipeline_ps[end] = units_ns_to_ps (nc->link.rx_pipeline_ns);
  lp->rx_tl_pipeline_ps[end] = units_ns_to_ps (nc->link.rx_transaction_ns);
  lp->rx_credits[end] = ps_credits (root ? &nc->host.rx_credits : &nc->endpoint.rx_credits);
  lp->ack_every_tlps[end] = (uint32_t) (root ? nc->host.ack_every_tlps : nc->endpoint.ack_every_tlps);
}

/* The fabric's components and links; NULL with the error of the first model that refuses its parameters, prefixed
 * with the node's or link's name. */
Fabric *
ps_build_fabric (const PsConfig *cfg, const PsTopology *t, int dma_mode, uint64_t seed, Component **comp, Endpoint **eps,
  Host **host, LinkParams *lps, GError **error)
{
  Fabric *f = fabric_new (seed);
  for (guint i = 0; i < t->n_nodes; i++) {
    const PsNode *n = &t->nodes[i];
    const PsConfig *nc = n->cfg ? n->cfg : cfg;
    SystemParams sp;
    ps_build_system_params (nc, &sp);
    PsNodeBuild b = { .f = f, .node = n, .cfg = nc, .sp = &sp, .dma_mode = dma_mode };
    comp[i] = ps_node_kind (n->kind)->build (&b, error);
    gboolean ok = comp[i] != NULL;
    if (ok && n->type == PS_NODE_ROOT_COMPLEX)
      *host = host_from_component (comp[i]);
    if (ok && eps && n->type == PS_NODE_ENDPOINT)
      eps[i] = endpoint_from_component (comp[i]);
    if (!ok) {
      g_prefix_error (error, "node %s: ", n->name);
      fabric_free (f);
      return NULL;
    }
  }
  for (guint i = 0; i < t->n_links; i++) {
    const PsLink *l = &t->links[i];
    LinkParams *lp = &lps[i];
    ps_build_link_params (l->cfg ? l->cfg : cfg, lp);
    lp->gen = (int) l->gen;
    lp->lanes = (int) l->lanes;
    const PsNode *ends[2] = { &t->nodes[l->a], &t->nodes[l->b] };
    for (int e = 0; e < 2; e++) {
      const PsConfig *nc = ends[e]->cfg ? ends[e]->cfg : cfg;
      link_end (nc, ends[e], switch_from_component (comp[e ? l->b : l->a]), lp, e ? LINK_USP : LINK_DSP);
      if (l->has_credits[e])
        lp->rx_credits[e ? LINK_USP : LINK_DSP] = ps_credits (&l->credits[e]);
    }
    if (!fabric_connect (f, comp[l->a], l->a_port, comp[l->b], l->b_port, lp, error)) {
      g_prefix_error (error, "link %s: ", l->name);
      fabric_free (f);
      return NULL;
    }
  }
  if (!fabric_enumerate (f, error)) {
    fabric_free (f);
    return NULL;
  }
  return f;
}

/* A traced fabric or microbenchmark (--trace): every link's tracks (models/observe/pcie_trace.h), then the trace starts. A link's
 * scope is "linkN" as in a one-link run, with the topology's name of it after (a trace name is [A-Za-z0-9_], so
 * its other characters become '_'; the index keeps scopes apart). Nothing when `trace` is NULL. */
void
ps_trace_declare_links (Fabric *f, SimTrace *trace, const PsTopology *t)
{
  for (guint i = 0; trace && i < fabric_n_links (f); i++) {
    g_autofree char *scope = t ? g_strdup_printf ("link%u_%s", i, t->links[i].name) : g_strdup_printf ("link%u", i);
    g_strcanon (scope, G_CSET_A_2_Z G_CSET_a_2_z G_CSET_DIGITS "_", '_');
    link_trace_declare (fabric_link (f, i), trace, scope);
  }
}

gboolean
ps_trace_links (Fabric *f, SimTrace *trace, const PsTopology *t, GError **error)
{
  if (trace == NULL)
    return TRUE;
  ps_trace_declare_links (f, trace, t);
  return sim_trace_start (trace, error);
}
