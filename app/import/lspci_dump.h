/* lspci_dump.h — the reading half of `pciesim import lspci` (internal to app/lspci*.c): an `lspci -vvv` dump
 * split into lines, each device's header and labelled fields with the line and column every byte came from, the
 * link, payload, tag and BAR values read out of them, and the `lspci -tv` tree read into parents. Every value keeps
 * its source (Src) so the writer (lspci.c) can print the dump line beside it and errors point at the node. Errors
 * are PS_ERROR_DATA, located in the dump. Nothing here writes a config. */
#pragma once

#include <stdint.h>

#include <glib.h>

typedef struct {
  char *text; /* the line from its first non-blank character, trailing blanks cut */
  int indent; /* columns before it, a tab to the next multiple of 8 as a terminal shows it */
  int col; /* 1-based column of text, in bytes */
  gboolean label; /* starts "Word…:" as lspci's field labels do */
} Line;

typedef struct {
  const char *name;
  char *copy; /* the input with NULs at line ends; Line.text points into it */
  GArray *lines; /* of Line, index 0 = line 1 */
} Text;

/* A labelled line with its continuation lines joined by blanks. `segs` maps offsets of the joined text back to
 * lines, so a value is reported at the line that holds it. */
typedef struct {
  guint from; /* offset in text */
  int line, col;
  const char *raw; /* that line's text, for the comment */
} Seg;

typedef struct {
  int line, col; /* 0 = absent */
  GString *text;
  GArray *segs;
} Field;

enum { F_DEVCAP, F_DEVCTL, F_LNKCAP, F_LNKCTL, F_LNKSTA, F_DEVCAP2, F_DEVCTL2, F_REGION0, F_N = F_REGION0 + 6 };

typedef struct {
  int line; /* of the header */
  unsigned domain, bus, dev, fn;
  char bdf[16]; /* "DDDD:BB:DD.F" */
  char *shown; /* the address as the dump writes it */
  const char *desc; /* the rest of the header line */
  int denied_line, denied_col;
  int express_line;
  /* its ARI capability's line, 0 without: an ARI device numbers its functions across the device numbers of its bus
   * (lspci shows function 9 as BB:01.1) */
  int ari_line;
  const char *express; /* "Express (v2) Endpoint, MSI 00" */
  /* its SR-IOV capability (a PF's): the lines "Initial VFs: …, Number of VFs: N, …" and "VF offset: O, stride: S,
   * …" (ls-ecaps.c), 0 without; VF k (1..N) has routing ID the PF's + O + (k - 1) * S (SR-IOV 1.1 2.1.3) */
  int iov_vfs_line, iov_offset_line;
  unsigned iov_num_vfs, iov_offset, iov_stride;
  /* A bridge's "Bus: primary=PP, secondary=SS, subordinate=UU" line (ls-kernel's show_htype1), 0 without: the
   * buses SS..UU lie below it, so the dump alone tells which port a device hangs from. */
  int bus_line;
  unsigned sec_bus, sub_bus;
  Field f[F_N];
} Dev;

/* What a function is, from its Express capability's device/port type (spec 7.5.3.2, as ls-caps.c words it) or,
 * without one, from its header: what `pciesim machine` lists and what `import lspci` refuses to take for a DMA
 * device. */
typedef enum {
  KIND_ENDPOINT, /* "Endpoint", "Legacy Endpoint" */
  KIND_RCIEP, /* "Root Complex Integrated Endpoint": no link */
  KIND_ROOT_PORT,
  KIND_SWITCH_UP, /* a switch's upstream port */
  KIND_SWITCH_DOWN, /* a switch's downstream port */
  KIND_BRIDGE, /* a PCI Express to PCI/PCI-X bridge or back, or a conventional PCI bridge */
  KIND_OTHER, /* a Root Complex Event Collector, or a function with no Express capability */
} Kind;

Kind lspci_kind (const Dev *d);
/* "endpoint", "root port", "switch upstream port", … for reports and messages. */
const char *lspci_kind_name (Kind k);

/* Where a value came from: for its comment ("FILE:LINE the line") and its errors. */
typedef struct {
  int line, col;
  const char *raw;
} Src;

typedef struct {
  int64_t gen, lanes;
  gboolean downgraded; /* lspci's marker on either */
  Src speed, width;
} LinkVals;

typedef struct {
  unsigned domain, bus, dev, fn;
  int parent; /* the bridge above (index), -1 on a root bus */
  int line, col;
} TDev;

typedef struct {
  LinkVals sta, cap;
  int64_t mps, mrrs, rcb, tags;
  Src mps_src, mrrs_src, rcb_src, tags_src;
  const Dev *link_dev; /* whose link, MaxPayload, RCB and ExtTag these are: the device's, or a VF's PF */
  const char *link_why, *mps_why, *rcb_why; /* NULL, or why a VF's value is its PF's */
  const char *tags_why;
  char *tags_note; /* a capability left unused, or NULL */
} Values;

static inline Line *
line_at (const Text *t, guint i)
{
  return &g_array_index (t->lines, Line, i);
}

void
lspci_text_clear (Text *t);

gboolean
lspci_split_lines (Text *t, const char *name, const char *data, gsize len, GError **error);

void
lspci_dev_clear (Dev *d);

/* "[DDDD:]BB:DD.F" at s, followed by a blank or the end (or anything when `tail` is FALSE). Device numbers above
 * 1f and functions above 7 do not exist. */
gboolean
lspci_parse_bdf (const char *s, gboolean tail, unsigned *dom, unsigned *bus, unsigned *dev, unsigned *fn, int *len);

void
lspci_format_bdf (char out[16], unsigned dom, unsigned bus, unsigned dev, unsigned fn);

gboolean
lspci_is_header (const Line *l);

/* One device: from its header to the next header. A field takes the lines after its label that are indented deeper
 * or carry no label, and stops at any line that is one of the fields read: each line joins at most one field, so
 * the work stays linear whatever the indentation. */
gboolean
lspci_read_device (const Text *t, guint first, guint end, Dev *d, GError **error);

/* Whether d is an endpoint whose LnkSta and LnkCap both read "Speed unknown, Width x0": an SR-IOV VF, whose Link
 * registers are reserved (SR-IOV 1.1 3.5). */
gboolean lspci_link_reads_zero (const Dev *d);

/* Whether d's link is down: LnkSta's width reads x0 and d is no SR-IOV VF (whose LnkCap reads zeros too). */
gboolean lspci_link_down (const Dev *d);

/* Every device of the dump into `devs` (of Dev, with lspci_dev_clear as its clear function): each header to the
 * next. A device listed twice, more than 65536, or none is a located PS_ERROR_DATA. */
gboolean lspci_read_devices (const Text *t, GArray *devs, GError **error);

/* MaxPayload of DevCap (what the function supports), 0 when the dump lacks it. */
int64_t lspci_devcap_mps (const Dev *d);

/* Whether `flag` ("RlxdOrd", "ExtTag", "10BitTagReq") reads + in field fi: 1, 0, or -1 when not shown. */
int lspci_flag (const Dev *d, int fi, const char *flag);

/* "Speed 16GT/s (downgraded), Width x8 (ok)" of LnkSta or LnkCap. */
gboolean
lspci_read_link (const Text *t, const Dev *d, int fi, LinkVals *v, GError **error);

/* ls-tree.c draws a bus's devices in one column after "+-", "\-" or "--": a bus header "[DDDD:BB]-" puts them 2
 * columns after its "-", a bridge "-[SS]-" or "-[SS-UU]-" 3 after (it adds a '-' of its own). Devices are read at
 * the column of the last bus that opened there: the drawing is depth-first. */
gboolean
lspci_parse_tree (const Text *t, GArray *devs, GError **error);

/* Everything the config needs from the device, or a located error. `pf` is the physical function when d is one of
 * its SR-IOV VFs (NULL otherwise): the link, MaxPayload, RCB and ExtTag are then the PF's. */
gboolean
lspci_read_values (const Text *t, const Dev *d, const Dev *pf, Values *v, GError **error);

/* MaxReadReq and the tags alone (of a device whose DevCtl is there, and of its PF's when `pf` is given). */
gboolean
lspci_read_requests (const Text *t, const Dev *d, const Dev *pf, Values *v, GError **error);
