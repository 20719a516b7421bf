/* hardip.c — the hard IPs' datapath table and the rule beyond it (contract in hardip.h). */
#include "models/devices/hardip.h"

/* pcie-protocol.md §7: the Avalon-ST interface of the Intel/Altera hard IP per generation and width (Arria 10
 * user guide, Table 7), first the option that carries the most (on a tie the narrower, whose fixed per-TLP
 * cycles are shorter), then the other. Each covers its link's data rate, as the vendor sized them. */
typedef struct {
  int64_t bits;
  double mhz;
} Datapath;

static const struct {
  int64_t gen, lanes;
  Datapath opt[2]; /* bits 0 = no second option */
} hard_ip[] = {
  { 1, 1, { { 64, 125 }, { 64, 62.5 } } },  { 1, 2, { { 64, 125 } } },   { 1, 4, { { 64, 125 } } },
  { 1, 8, { { 64, 250 }, { 128, 125 } } },  { 2, 1, { { 64, 125 } } },   { 2, 2, { { 64, 125 } } },
  { 2, 4, { { 64, 250 }, { 128, 125 } } },  { 2, 8, { { 128, 250 }, { 256, 125 } } },
  { 3, 1, { { 64, 125 } } },                { 3, 2, { { 64, 250 }, { 128, 125 } } },
  { 3, 4, { { 128, 250 }, { 256, 125 } } }, { 3, 8, { { 256, 250 } } },
};

/* Beyond the table (x12, x16, x32; Gen4 and up), an ASSUMPTION by the table's own rule, the narrowest interface
 * whose raw rate covers the link's: Gen1-3 at the table's 250 MHz, Gen4 and up at 500 MHz, the top of the
 * "512 or 1024 bits at 250-500 MHz" §7 gives for Gen4/5 hard IPs (Gen6 is assumed to be no narrower). Per-lane
 * rates are pcie-protocol.md §1's, MB/s after encoding (Gen6: 64 GT/s PAM4, 8000 MB/s before flit overhead).
 * A link that 1024 bits at 500 MHz (64 GB/s) cannot cover — Gen5 x32, Gen6 x12 and wider — gets that, and the
 * rule says the datapath limits it. */
static char *
datapath_by_rule (int64_t gen, int64_t lanes, Datapath *out)
{
  static const double lane_mbps[] = { 0, 250, 500, 984.6, 1969, 3938, 8000 };
  const double mhz = gen >= 4 ? 500 : 250;
  const double link = lane_mbps[gen] * (double) lanes;
  int64_t bits = gen >= 4 ? 512 : 64;
  while (bits < 1024 && (double) bits / 8 * mhz < link)
    bits *= 2;
  *out = (Datapath) { bits, mhz };
  gboolean limits = (double) bits / 8 * mhz < link;
  return g_strdup_printf ("hard IP for Gen%" G_GINT64_FORMAT " x%" G_GINT64_FORMAT ", by pcie-protocol.md §7's rule "
                          "(narrowest covering the link)%s", gen, lanes,
                          limits ? "; limits this link: more than 1024 bits at 500 MHz would be needed" : "");
}

char *
hardip_datapath_default (int64_t gen, int64_t lanes, int64_t *bits, double *mhz)
{
  Datapath opt[2] = { { 0 } };
  char *rule = NULL;
  for (size_t i = 0; i < G_N_ELEMENTS (hard_ip) && !rule; i++)
    if (hard_ip[i].gen == gen && hard_ip[i].lanes == lanes) {
      opt[0] = hard_ip[i].opt[0];
      opt[1] = hard_ip[i].opt[1];
      rule = g_strdup_printf ("hard IP for Gen%" G_GINT64_FORMAT " x%" G_GINT64_FORMAT ", pcie-protocol.md §7", gen,
                              lanes);
    }
  if (!rule)
    rule = datapath_by_rule (gen, lanes, &opt[0]);
  /* One of the pair given: the option that has it, else the first option's other half. */
  const Datapath *pick = &opt[0];
  for (int i = 0; i < 2 && opt[i].bits; i++)
    if ((*bits > 0 && opt[i].bits == *bits) || (*mhz > 0 && opt[i].mhz == *mhz)) {
      pick = &opt[i];
      break;
    }
  if (*bits <= 0)
    *bits = pick->bits;
  if (!(*mhz > 0))
    *mhz = pick->mhz;
  return rule;
}
