/* topology_fields.c — the topology: and flows: fields as rows of `pciesim keys` (contract in topology.h), beside the
 * parser's file so the two change together: the fixed fields, the node-kind registry's type words, and each kind's
 * own node fields (app/config/nodes.h). */
#include <string.h>

#include "app/config/nodes.h"
#include "app/config/topology.h"

/* The topology: and flows: fields, in the key table's columns. Written here, beside the parser that reads them,
 * so the two change together; NAME stands for a node's, a link's or a flow's name, which is also how --set
 * addresses one element (nodes.NAME.KEY, links.NAME.KEY, flows.NAME.FIELD; docs/fabrics.md). */
static const struct {
  const char *path, *type, *dflt, *unit, *doc;
} fields[] = {
  { "topology.nodes.NAME.type", NULL, "(required)", "",
    "what the node is; exactly one root complex (docs/fabrics.md)" },
  { "topology.nodes.NAME.ports", "integer 1–64", "(as the links use)", "ports",
    "root complex: its root ports; switch: its ports, port 0 upstream (at least 2); an endpoint has one" },
  { "topology.nodes.NAME.bars", "list of up to 6 sizes", "[16777216]", "bytes",
    "an endpoint's BARs: a size in bytes (0: none) or {bytes: N, bits: 64}; flows into an endpoint land in one" },
  { "topology.nodes.NAME.functions", "integer 1–8", "1", "functions",
    "an endpoint's functions (spec §7.5): each a requester with its own ID bus:00.f and tags (§2.2.6.2), all on the "
    "device's one link, datapath and buffers; its BARs are function 0's" },
  { "topology.nodes.NAME.weights", "list of integers 1–255", "(all 1)", "TLPs",
    "a switch's weight per port (port 0 upstream), one per port, read by switch.arbitration: weighted_round_robin" },
  { "topology.nodes.NAME.include", "path or list of paths", "", "",
    "files whose keys go under the node's own (as a config's include:)" },
  { "topology.nodes.NAME.assumptions", "mapping of KEY: [LO, HI]", "", "",
    "ranges of the node's own ASSUMPTION values, as a file's assumptions: (docs/trust.md); "
    "--ranges moves each as nodes.NAME.KEY" },
  { "topology.nodes.NAME.SECTION", "mapping", "", "",
    "any config section (link, endpoint, host, switch, dma, benchmark): the node's own keys over the file's; "
    "--set nodes.NAME.KEY=VALUE sets one" },
  { "topology.links[].a", "node or node.port", "(required)", "", "the end nearer the root complex" },
  { "topology.links[].b", "node or node.port", "(required)", "", "the end farther from the root complex" },
  { "topology.links[].name", "name", "A-B", "", "the link's name in reports and in --set links.NAME.KEY=VALUE" },
  { "topology.links[].a_rx_credits", "mapping of ph/pd/nph/npd/cplh/cpld", "(the end's)", "credits",
    "what end a advertises, the types given (at least one max-size TLP of data, spec §3.4.2; without scaled "
    "flow control on the link, at most 127 header and 2047 data credits, spec §2.6.1)" },
  { "topology.links[].b_rx_credits", "mapping of ph/pd/nph/npd/cplh/cpld", "(the end's)", "credits",
    "what end b advertises, the types given" },
  { "topology.links[].KEY", "a link.* key", "(the file's)", "", "the link's own link.KEY (gen, lanes, max_payload, …)" },
  { "flows[].name", "name", "(required)", "", "the flow's name in reports, sweep metrics and --set flows.NAME.FIELD" },
  { "flows[].source", "node", "(required)", "", "an endpoint" },
  { "flows[].target", "node", "(required)", "", "the root complex (host memory) or another endpoint (its BAR)" },
  { "flows[].op", "one of write/read", "(required)", "", "posted writes to the target, or reads of it" },
  { "flows[].bytes", "integer, whole DWs", "(required)", "bytes", "bytes per iteration" },
  { "flows[].iterations", "integer 1–1000000", "1", "", "times the flow moves its bytes" },
  { "flows[].start_ns", "number 0–1e12", "0", "ns", "when the flow starts" },
  { "flows[].rate_mbps", "number 0–1e6", "0", "MB/s", "a cap on the flow's rate; 0 = none" },
  { "flows[].bar", "integer 0–5", "0", "", "the target endpoint's BAR the flow lands in" },
  { "flows[].function", "integer 0–7", "0", "", "the source's function making the requests, below its functions" },
};

static void
print_field (GString *out, gboolean markdown, const char *path, const char *type, const char *dflt, const char *unit,
  const char *doc)
{
  if (markdown)
    g_string_append_printf (out, "| `%s` | %s | `%s` | %s | %s |\n", path, type, dflt, unit, doc);
  else
    g_string_append_printf (out, "%-36s %-14s %-10s %-12s %s\n", path, type, dflt, unit, doc);
}

/* The fixed fields, the type's words and each kind's own fields (after the node's fixed ones) from the registry. */
void
ps_topology_print_fields (GString *out, gboolean markdown)
{
  g_autofree char *words = g_strjoinv ("/", (char **) ps_node_kind_words ());
  g_autofree char *types = g_strconcat ("one of ", words, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (fields); i++) {
    print_field (out, markdown, fields[i].path, fields[i].type ? fields[i].type : types, fields[i].dflt,
                 fields[i].unit, fields[i].doc);
    if (strcmp (fields[i].path, "topology.nodes.NAME.SECTION") != 0)
      continue;
    for (guint k = 0; ps_node_kind_words ()[k]; k++) {
      const PsNodeKind *kind = ps_node_kind (k);
      for (guint f = 0; f < kind->n_fields; f++) {
        const PsNodeField *nf = &kind->fields[f];
        g_autofree char *path = g_strdup_printf ("topology.nodes.NAME.%s", nf->name);
        g_autofree char *type = g_strdup_printf ("number %g–%g", nf->min, nf->max);
        g_autofree char *dflt = g_strdup_printf ("%g", nf->dflt);
        g_autofree char *doc = nf->lo < nf->hi
                                   ? g_strdup_printf ("type %s: %s. Ranges: the default's, [%g, %g], in the node-kind "
                                                      "registry (a node that keeps the default gets it)", kind->type,
                                                      nf->doc, nf->lo, nf->hi)
                                   : g_strdup_printf ("type %s: %s", kind->type, nf->doc);
        print_field (out, markdown, path, type, dflt, nf->unit, doc);
      }
    }
  }
}
