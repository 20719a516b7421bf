/* config_keys.c — the key table: every key a config file or --set accepts, one declarative row per key, and the
 * questions asked of the table.
 *
 * A row is one macro per key type (below): the key's dotted path, the PsConfig field it fills, its bounds, allowed
 * values or words, its default as YAML text (NULL: required, or absent under published.), its unit, and its
 * meaning with the source. The table is the documentation of record: `pciesim keys`, the man page, the bash
 * completion and the manual's key list (docs/configs.md) are all generated from it, in its order. Adding a key
 * is one row here and one field in config.h. Keys are an interface: added, never renamed (design.md).
 */
#include <math.h>
#include <string.h>

#include "app/config/config_private.h"
#include "app/config/nodes.h"
#include "app/base/error.h"

/* The table addresses PsConfig fields by offset so one generic converter serves every key. */
#define OFF(field) offsetof (PsConfig, field)

/* One macro per key type. The field's C type is the one config_private.h gives for the type: int64_t for the
 * integer rows (KEY_INT within [min, max], KEY_POW2 a power of two within them, KEY_ONE_OF one of `allowed` as
 * well), double for KEY_DOUBLE (and for KEY_POINTS' PsPoints' values, within [0, max]), bool for KEY_BOOL, char *
 * for KEY_STRING, the word's index for KEY_ENUM, a mask of words for KEY_WORDS, a PsModeMask for KEY_MODES. */
#define KEY_ROW(path, type, field, min, max, pow2, allowed, words, dflt, unit, doc)                                \
  { path, type, OFF (field), min, max, pow2, allowed, words, dflt, unit, doc }
#define KEY_INT(path, field, min, max, dflt, unit, doc)                                                            \
  KEY_ROW (path, K_INT, field, min, max, FALSE, NULL, NULL, dflt, unit, doc)
#define KEY_POW2(path, field, min, max, dflt, unit, doc)                                                           \
  KEY_ROW (path, K_INT, field, min, max, TRUE, NULL, NULL, dflt, unit, doc)
#define KEY_ONE_OF(path, field, min, max, allowed, dflt, unit, doc)                                                \
  KEY_ROW (path, K_INT, field, min, max, FALSE, allowed, NULL, dflt, unit, doc)
#define KEY_DOUBLE(path, field, min, max, dflt, unit, doc)                                                         \
  KEY_ROW (path, K_DOUBLE, field, min, max, FALSE, NULL, NULL, dflt, unit, doc)
#define KEY_BOOL(path, field, dflt, doc) KEY_ROW (path, K_BOOL, field, 0, 0, FALSE, NULL, NULL, dflt, "", doc)
#define KEY_STRING(path, field, dflt, doc) KEY_ROW (path, K_STRING, field, 0, 0, FALSE, NULL, NULL, dflt, "", doc)
#define KEY_MODES(path, field, dflt, doc) KEY_ROW (path, K_MODES, field, 0, 0, FALSE, NULL, NULL, dflt, "", doc)
#define KEY_ENUM(path, field, words, dflt, doc) KEY_ROW (path, K_ENUM, field, 0, 0, FALSE, NULL, words, dflt, "", doc)
#define KEY_WORDS(path, field, words, dflt, doc)                                                                   \
  KEY_ROW (path, K_WORDS, field, 0, 0, FALSE, NULL, words, dflt, "", doc)
#define KEY_POINTS(path, field, max, dflt, unit, doc)                                                              \
  KEY_ROW (path, K_POINTS, field, 0, max, FALSE, NULL, NULL, dflt, unit, doc)

/* Value lists the spec allows (x12/x32 only without flit mode: r6 defines flit mode for x1..x16).
 * A K_ENUM stores the index of its word, so each word list must be in the order of its C enum in config.h, or
 * a word would select another value. */
static const int64_t lanes_allowed[] = { 1, 2, 4, 8, 12, 16, 32, -1 };
static const int64_t rcb_allowed[] = { 64, 128, -1 };
static const int64_t addr_allowed[] = { 32, 64, -1 };
static const int64_t width_allowed[] = { 64, 128, 256, 512, 1024, -1 };
/* A block of whole lines, read or written: 0 (off) or a power of two of 64 to 4096. A list rather than KEY_POW2,
 * so that a range over it ([0, 512]) meets only values a block can have (ps_config_snap). */
static const int64_t block_allowed[] = { 0, 64, 128, 256, 512, 1024, 2048, 4096, -1 };
static const char *const arbitration_words[] = { "round_robin", "priority", "read_priority", NULL };
static const char *const counter_words[] = { "endpoint", "host", NULL };
static const char *const descriptor_mode_words[] = { "chained", "software", NULL };
static const int64_t channels_allowed[] = { 1, 2, 4, -1 };
static const char *const updatefc_words[] = { "minimum", "recommended", NULL };
static const char *const switch_updatefc_words[] = { "link", "minimum", "recommended", NULL };
static const char *const workload_words[] = { "chaining_dma", "stream", "microbench", NULL };
const char *const ps_microbench_test_words[] = { "lat_rd", "lat_wrrd", "bw_rd", "bw_wr", "bw_rdwr", "lat_cmd_rd",
                                                 "lat_cmd_wrrd", NULL };
static const char *const offsets_words[] = { "sequential", "random", NULL };
static const char *const cache_words[] = { "warm", "cold", "device_warm", "device_thrash", NULL };
static const char *const warm_cache_words[] = { "buffer_socket", "device_socket", "other_socket", NULL };
static const char *const forwarding_words[] = { "cut_through", "store_and_forward", NULL };
static const char *const switch_arbitration_words[] = { "round_robin", "weighted_round_robin", NULL };
static const char *const buffer_words[] = { "per_port", "shared", NULL };
static const char *const mapping_words[] = { "wc", "uc", NULL };
const char *const cfg_dist_words[] = { "fixed", "uniform", "lognormal", "empirical", NULL };
static const int64_t wc_bytes_allowed[] = { 32, 64, -1 };
static const int64_t access_allowed[] = { 1, 2, 4, 8, 16, 32, -1 };
/* The x86 page sizes an IOMMU maps (VT-d second-level tables: 4 KB, 2 MB, 1 GB). */
static const int64_t page_allowed[] = { 4096, 2097152, 1073741824, -1 };
const char *const ps_figure_words[] = { "read", "write", "simultaneous_read", "simultaneous_write", "peak_write",
                                        "peak_write_excluding_read_requests", "peak_read", NULL };

/* The six credit types appear twice (host and endpoint receivers); the macro keeps their ranges identical.
 * 2032 = 127 x 16 and 32752 = 2047 x 16: the largest unscaled header and data advertisements times the largest
 * scale factor of scaled flow control, 16. Data credits are 16 bytes. */
#define CREDIT_KEYS(prefix, field, who)                                                                        \
  KEY_INT (prefix ".ph", field.ph, 0, 2032, "0", "credits",                                                    \
    "posted-header credits " who " advertises; 0 = infinite (spec §3.4.2, Table 2-48 scaled limits); at most "  \
    "127 headers, 2047 data credits of each type without scaled flow control (Gen1-3, spec §2.6.1)"),           \
  KEY_INT (prefix ".pd", field.pd, 0, 32752, "0", "credits (16 bytes)",                                        \
    "posted-data credits " who " advertises; 0 = infinite; else at least max_payload / 16 (spec §3.4.2)"),     \
  KEY_INT (prefix ".nph", field.nph, 0, 2032, "0", "credits",                                                  \
    "non-posted-header credits " who " advertises; 0 = infinite"),                                             \
  KEY_INT (prefix ".npd", field.npd, 0, 32752, "0", "credits (16 bytes)",                                      \
    "non-posted-data credits " who " advertises; 0 = infinite"),                                               \
  KEY_INT (prefix ".cplh", field.cplh, 0, 2032, "0", "credits",                                                \
    "completion-header credits " who " advertises; 0 = infinite (endpoints must, spec §2.6.1: a finite "         \
    "endpoint value is refused)"),                                                                             \
  KEY_INT (prefix ".cpld", field.cpld, 0, 32752, "0", "credits (16 bytes)",                                    \
    "completion-data credits " who " advertises; 0 = infinite; else at least min(max_payload, "                \
    "max_read_request) / 16 (spec §3.4.2)")

/* A random time (models/base/dist.h) of the CPU: its kind and each kind's parameters, in ns; the kind reads only its
 * own. The bound 1e9 ns (1 s) is far beyond any interrupt or wake-up and keeps every draw far inside SimTime. */
#define DIST_KEYS(prefix, field, what)                                                                         \
  KEY_ENUM (prefix ".kind", field.kind, cfg_dist_words, "fixed",                                                   \
    what ": fixed (value_ns), uniform (min_ns..max_ns), lognormal (median_ns and p99_ns: the distribution with " \
    "that median and 99th percentile) or empirical (table) (docs/host-software.md)"),                          \
  KEY_DOUBLE (prefix ".value_ns", field.value_ns, 0, 1e9, "0", "ns", "kind fixed: the time, every time"),      \
  KEY_DOUBLE (prefix ".min_ns", field.min_ns, 0, 1e9, "0", "ns", "kind uniform: the shortest time"),           \
  KEY_DOUBLE (prefix ".max_ns", field.max_ns, 0, 1e9, "0", "ns",                                               \
    "kind uniform: the longest time (>= min_ns)"),                                                             \
  KEY_DOUBLE (prefix ".median_ns", field.median_ns, 0, 1e9, "0", "ns", "kind lognormal: the median (> 0)"),    \
  KEY_DOUBLE (prefix ".p99_ns", field.p99_ns, 0, 1e9, "0", "ns",                                               \
    "kind lognormal: the 99th percentile (>= median_ns); the mean follows, e^(mu + sigma^2 / 2)"),             \
  KEY_POINTS (prefix ".table", field.table, 1e9, "[]", "ns, probability",                                      \
    "kind empirical: [[value_ns, cumulative probability], ...], both non-decreasing, the last probability 1; " \
    "linear between points")

/* The key table: the interface users and scripts depend on. Keys are added, never renamed (design.md).
 * Its order is the order of `pciesim keys` and of the manual's key list generated from it, so keys stay grouped by
 * section. Only link.gen and link.lanes are required: every figure scales with them, so a device file must
 * state them rather than run silently as Gen1 x1. A name of "" (the default) means "the file's base name". */
const KeyDef cfg_keys[] = {
  KEY_STRING ("name", name, "", "label printed in reports (default: file name)"),

  /* Where the spec defines a reset value (max_payload, max_read_request, the RCB) it is the default: it is what
   * a device runs with unless software changes it. */
  KEY_INT ("link.gen", link.gen, 1, 6, NULL, "generation",
    "PCIe generation: 1..6 = 2.5, 5, 8, 16, 32, 64 GT/s (spec Table 1-1); 6 always runs flit mode"),
  KEY_ONE_OF ("link.lanes", link.lanes, 1, 32, lanes_allowed, NULL, "lanes",
    "negotiated link width (spec §4.2.4.9); x12 and x32 only without flit mode"),
  KEY_BOOL ("link.flit_mode", link.flit_mode, "false",
    "flit mode at 2.5-32 GT/s (spec §4.2.3.3, Table 4-1): 256-byte flits of 236 TLP bytes, DLLPs in the flits, no "
    "per-TLP framing; Gen6 runs it whatever this says"),
  KEY_BOOL ("link.sris", link.sris, "false",
    "separate reference clocks (SRIS): SKP ordered sets every 154 symbols at 8b/10b, every 37 blocks at "
    "128b/130b (spec §4.2.8), a tenth of the flit counts in flit mode (assumption)"),
  KEY_DOUBLE ("link.ber", link.ber, 0, 1e-2, "0", "errors per bit",
    "per-lane bit error rate, per line bit (spec §4.3 requires <= 1e-12 at 2.5-32 GT/s; Gen6 FBER up to 1e-6): "
    "LCRC and DLLP CRC failures, Naks and replays; at 128b/130b framing errors (tokens, IDLs, sync headers) and "
    "their retrains; in flit mode lost flits after FEC (bursty, lane-correlated errors, pcie-protocol.md §10); "
    "0 = no errors"),
  KEY_DOUBLE ("link.flit_error_lane_correlation", link.flit_lane_correlation, 0, 1, "0.01", "fraction",
    "flit mode with link.ber > 0: the fraction of error events that hit the same bytes of every lane, beyond FEC's "
    "reach (pcie-protocol.md §10). ASSUMPTION, no primary figure: 0.001-0.03, common-mode noise (a power or "
    "reference-clock disturbance) against lane-local noise; 0.01 puts a 1e-6 first-bit error rate at Gen6 x16 at "
    "2.25e-5 lost flits, above PCI-SIG's quoted retry probability below 1e-5 (UNCONFIRMED, pcie-protocol.md §10)"),
  KEY_BOOL ("link.flit_selective_nak", link.flit_selective_nak, "false",
    "flit mode with errors: the receivers answer a lost flit with a selective Nak, so only that flit is resent and "
    "the good flits after it wait in the receiver's retry buffer; false = a standard Nak, every flit from the lost "
    "one on is resent (spec §4.2.3.4.2; that a receiver may choose either is UNCONFIRMED, pcie-protocol.md §10)"),
  KEY_DOUBLE ("link.retrain_ns", link.retrain_ns, 1, 1e7, "1000", "ns",
    "link idle while the LTSSM retrains after a REPLAY_NUM rollover (spec §3.6.2.1; no primary figure, "
    "pcie-protocol.md §10: microseconds)"),
  KEY_INT ("link.replay_timer_symbols", link.replay_timer_symbols, 0, 1 << 24, "0", "symbol times",
    "REPLAY_TIMER limit; 0 = the spec's: 1500 flits in flit mode (UNCONFIRMED); non-flit 24000 at 16 GT/s "
    "and above (simplified limit, low end), 3 x the Ack latency limit below (spec §3.6.2.1, pcie-protocol.md §10)"),
  KEY_INT ("link.supported_gen", link.supported_gen, 0, 6, "0", "generation",
    "the highest rate the link's ports support (Link Capabilities' Max Link Speed), when they trained below it; 0 "
    "= link.gen. Outside flit mode a port that supports 16 GT/s or more uses the simplified REPLAY_TIMER limit at "
    "every rate (spec §3.6.2.1, pcie-protocol.md §10)"),
  KEY_POW2 ("link.max_payload", link.max_payload, 128, 4096, "128", "bytes",
    "Max_Payload_Size (spec §7.5.3.4; default 128 is the spec's reset value)"),
  KEY_POW2 ("link.max_read_request", link.max_read_request, 128, 4096, "512", "bytes",
    "Max_Read_Request_Size (spec §7.5.3.4; default 512 is the spec's reset value)"),
  KEY_ONE_OF ("link.read_completion_boundary", link.read_completion_boundary, 64, 128, rcb_allowed, "64", "bytes",
    "root complex RCB (spec §2.3.1.1; Link Control bit 3 resets to 0 = 64 bytes)"),
  KEY_BOOL ("link.ecrc", link.ecrc, "false",
    "append a 4-byte ECRC to every TLP in both directions (spec §2.7); lowers the protocol limit, not the "
    "vendor's theoretical figure"),
  KEY_ONE_OF ("link.address_bits", link.address_bits, 32, 64, addr_allowed, "32", "bits",
    "DMA addresses: 32 gives 3-DW MWr/MRd headers, 64 gives 4-DW (spec §2.2.4)"),
  KEY_DOUBLE ("link.tx_pipeline_ns", link.tx_pipeline_ns, 0, 1e6, "0", "ns",
    "transmit pipeline, TLP accepted -> first symbol on the wire (device files state theirs)"),
  KEY_DOUBLE ("link.rx_pipeline_ns", link.rx_pipeline_ns, 0, 1e6, "0", "ns",
    "receive pipeline, last symbol in -> TLP handed to the transaction layer"),
  KEY_DOUBLE ("link.rx_transaction_ns", link.rx_transaction_ns, 0, 1e6, "0", "ns",
    "of link.rx_pipeline_ns, the part after the receiver's data link layer, which TLPs take and DLLPs do not: an "
    "endpoint's or root port's Ack, Nak and UpdateFC act that much sooner than its TLPs are delivered (a switch "
    "port's is switch.dll_latency_ns). 0 = DLLPs take the whole receive pipeline, up to what the Ack latency limit "
    "allows: an Ack waits for the check (spec §3.6.3.1), so the part before it is at most the limit less "
    "link.tx_pipeline_ns, the rest is this part whatever it is set to. ASSUMPTION, no datasheet splits a hard IP's "
    "receive latency so; at most link.rx_pipeline_ns"),
  KEY_DOUBLE ("link.flight_ns", link.flight_ns, 0, 1e6, "1", "ns",
    "channel propagation each way (about 20 cm of board trace and connector)"),
  KEY_INT ("link.replay_buffer_bytes", link.replay_buffer_bytes, 0, 1 << 24, "0", "bytes",
    "transmit replay buffer; a full buffer stalls new TLPs; 0 = unlimited"),
  KEY_INT ("link.tx_queue_tlps", link.tx_queue_tlps, 0, 1 << 20, "2", "TLPs",
    "TLPs the IP's transmit buffer holds ahead of the wire (hard IPs accept a TLP only when about one more fits; "
    "the application then waits on tx ready); 0 = unlimited (the stream workload, which has no application "
    "to wait, uses 4)"),
  KEY_DOUBLE ("link.updatefc_period_ns", link.updatefc_period_ns, 100, 30000, "30000", "ns",
    "periodic UpdateFC for every finite credit type (spec §2.6.1.2: at least every 30 us)"),
  KEY_ENUM ("link.updatefc_policy", link.updatefc_policy, updatefc_words, "minimum",
    "when receivers return credits: minimum = only the spec §2.6.1.2 rules (exhausted type, 30 us refresh); "
    "recommended = also within the spec Table 2-54 latency after credits are freed, coalesced like Acks"),
  KEY_INT ("link.updatefc_latency_symbols", link.updatefc_latency_symbols, 0, 1 << 20, "0", "symbol times",
    "explicit UpdateFC latency instead of the policy's; 0 = use link.updatefc_policy"),
  KEY_INT ("link.updatefc_hdr_threshold_credits", link.updatefc_hdr_threshold_credits, 0, 2032, "0", "credits",
    "also send UpdateFC once this many header credits were freed; 0 = off"),
  KEY_INT ("link.updatefc_data_threshold_credits", link.updatefc_data_threshold_credits, 0, 32752, "0", "credits",
    "also send UpdateFC once this many data credits were freed; 0 = off"),
  KEY_INT ("link.skp_interval_symbols", link.skp_interval_symbols, 0, 1 << 20, "0", "symbol times",
    "between SKP ordered sets; 0 = the spec minimum (1180 at 8b/10b, 370 blocks at 128b/130b)"),

  KEY_INT ("endpoint.tags", endpoint.tags, 1, 15360, "32", "tags",
    "outstanding read requests (spec §2.2.6.2: 32 with 5-bit tags, 256 with 8-bit extended tags, 768 with "
    "10-bit tags, of the 16 GT/s revision: a port supporting 16 GT/s (link.supported_gen) or flit mode; above 768 "
    "only 14-bit flit-mode tags with the stream workload, 15360 usable: Tag[13:10] != 0)"),
  /* Their table defaults are Gen1 x1's: a config that gives neither gets the hard IP's pair for its link
   * (cfg_apply_datapath_default()), and one that gives one of them the other to go with it. */
  KEY_ONE_OF ("endpoint.datapath_bits", endpoint.datapath_bits, 64, 1024, width_allowed, "64", "bits",
    "application interface width (Avalon-ST; pcie-protocol.md §7: 512 or 1024 bits on Gen4/5 hard IPs); "
    "not given: the hard IP's for link.gen and link.lanes (64 at Gen1 x1, 128 at Gen2 x8, 256 at Gen3 x8, 512 at "
    "Gen4, 1024 at Gen5 x16)"),
  KEY_DOUBLE ("endpoint.clock_mhz", endpoint.clock_mhz, 1, 1000, "125", "MHz",
    "application interface clock (pcie-protocol.md §7); not given: the hard IP's for link.gen and link.lanes "
    "(125 at Gen1 x1, 250 at Gen2 x8 and Gen3 x8, 500 at Gen4 and up)"),
  KEY_BOOL ("endpoint.soft_ip", endpoint.soft_ip, "false",
    "transaction and data link layers built in FPGA fabric rather than hard IP"),
  CREDIT_KEYS ("endpoint.rx_credits", endpoint.rx_credits, "the endpoint"),
  KEY_INT ("endpoint.completion_buffer_bytes", endpoint.completion_buffer_bytes, 0, 1 << 24, "0", "bytes",
    "receive buffer for read completions; outstanding read bytes never exceed it; 0 = unlimited"),
  KEY_INT ("endpoint.completion_buffer_headers", endpoint.completion_buffer_headers, 0, 1 << 16, "0", "completions",
    "header slots of the read-completion buffer: a read is issued only when every "
    "completion it may come back as (one per read completion boundary block it touches, spec §2.3.1.1) has a "
    "slot, as a requester advertising infinite completion credits must (spec §2.6.1); 0 = unlimited"),
  KEY_BOOL ("endpoint.header_own_beat", endpoint.header_own_beat, "false",
    "TLP header never shares an interface beat with data (256-bit Avalon-MM style)"),
  KEY_BOOL ("endpoint.straddle", endpoint.straddle, "false",
    "512/1024-bit datapaths: a TLP may start at any 256-bit boundary of a beat, so two (four) share a beat, both "
    "ways (Intel P-/F-/R-tile Avalon-ST segments, Xilinx PG213/PG343 straddle); false = one TLP per beat, which "
    "caps a 512-bit 250 MHz datapath at 12.8 GB/s of 256-byte TLPs (docs/model.md, 'Straddle')"),
  KEY_INT ("endpoint.tx_gap_cycles", endpoint.tx_gap_cycles, 0, 1000, "0", "cycles",
    "idle application-clock cycles after each transmitted TLP (arbiter turnaround)"),
  KEY_INT ("endpoint.rx_overhead_cycles", endpoint.rx_overhead_cycles, 0, 1000, "0", "cycles",
    "extra application-clock cycles per received TLP (completion bookkeeping)"),
  KEY_INT ("endpoint.rx_overhead_bytes", endpoint.rx_overhead_bytes, 0, 4096, "0", "bytes",
    "extra interface bytes per received TLP, rounded up to whole beats (a per-TLP receive cost that "
    "scales with the width: 16 is 2 beats at 64 bits, 1 at 128 or 256)"),
  KEY_INT ("endpoint.arb_switch_cycles", endpoint.arb_switch_cycles, 0, 1000, "0", "cycles",
    "idle application-clock cycles when the transmit grant moves from one DMA engine to the other"),
  KEY_INT ("endpoint.ack_every_tlps", endpoint.ack_every_tlps, 0, 4096, "0", "TLPs",
    "the endpoint's data link layer Acks at the latest after this many TLPs (the spec bounds only the latency, "
    "§3.6.3.1); 0 = Ack latency timer only"),
  KEY_ENUM ("endpoint.arbitration", endpoint.arbitration, arbitration_words, "round_robin",
    "transmit arbitration between the DMA engines: round_robin, priority (write engine "
    "first) or read_priority (read engine first)"),
  KEY_INT ("endpoint.dma_issue_cycles", endpoint.dma_issue_cycles, 0, 1000000, "0", "cycles",
    "microbench workload: the device's DMA engine starts a DMA command at most once per this many cycles "
    "of endpoint.clock_mhz (a NIC-style engine's command rate; microbench.outstanding is how many it keeps in "
    "flight); 0 = no limit"),
  KEY_DOUBLE ("endpoint.dma_write_gap_ns", endpoint.dma_write_gap_ns, 0, 1e6, "0", "ns",
    "microbench workload: the device's DMA engine sends an MWr at most once per this time, whatever its size "
    "(the engine's per-TLP cost on its write path, in its own clock rather than the interface's); 0 = no limit"),
  KEY_DOUBLE ("endpoint.dma_write_switch_ns", endpoint.dma_write_switch_ns, 0, 1e6, "0", "ns",
    "microbench workload: the time a DMA's first MWr waits after the previous DMA's last MWr on top of "
    "endpoint.dma_write_gap_ns (the engine turning to its next command's data)"),
  KEY_POW2 ("endpoint.dma_write_max_bytes", endpoint.dma_write_max_bytes, 0, 4096, "0", "bytes",
    "microbench workload: the largest MWr payload the device's DMA engine makes, a power of two, when smaller than "
    "link.max_payload (an engine that moves its memory in fixed bursts); 0 = link.max_payload"),
  KEY_DOUBLE ("endpoint.dma_overhead_ns", endpoint.dma_overhead_ns, 0, 1e6, "0", "ns",
    "microbench workload: the DMA engine's own time per DMA outside the PCIe core (taking the command, "
    "signalling its end): part of a DMA's latency (lat_wrrd: twice, a write DMA then a read DMA) and of its slot "
    "among microbench.outstanding, never of a tag's time; 0 = none"),
  KEY_DOUBLE ("endpoint.dma_write_extra_ns", endpoint.dma_write_extra_ns, 0, 1e6, "0", "ns",
    "microbench workload: a write DMA's own time beyond endpoint.dma_overhead_ns (its end signalled only once "
    "its data has left the card), counted as that is (bw_wr, and lat_wrrd's write half); 0 = none"),
  KEY_DOUBLE ("endpoint.dma_ps_per_byte", endpoint.dma_ps_per_byte, 0, 1e6, "0", "ps per byte",
    "microbench workload: the DMA engine's time per byte moving a DMA's data between the PCIe core and the "
    "device's own memory, as endpoint.dma_overhead_ns is counted (lat_wrrd: both halves' bytes); 0 = none"),
  KEY_DOUBLE ("endpoint.dma_read_partial_ns", endpoint.dma_read_partial_ns, 0, 1e6, "0", "ns",
    "microbench workload: added to the DMA engine's issue interval (endpoint.dma_issue_cycles) for a read DMA "
    "whose bytes do not fill whole 8-byte words of the device's memory, whose last word it then writes in "
    "part (a read-modify-write); 0 = none"),
  KEY_DOUBLE ("endpoint.memory_read_latency_ns", endpoint.memory_read_latency_ns, 0, 1e6, "0", "ns",
    "a fabric's endpoint as a read target (peer-to-peer): MRd taken in -> its data ready; on-chip memory "
    "answers within a few cycles, 0 = at once"),
  KEY_INT ("endpoint.bar_read_latency_cycles", endpoint.bar_read_latency_cycles, 0, 1000000, "0", "cycles",
    "BAR memory (the PIO modes' BAR1): a read taken in -> its completion data ready, in "
    "application-clock cycles (the completer's state machine and RAM read); completions cut by RCB and MPS"),

  /* Where AN-456 states a value of its chaining DMA design or benchmark (4 KiB descriptors, MSI, 100 KB
   * transfers averaged over 20), dma.* and benchmark.* take it as the default. */
  KEY_INT ("dma.desc_max_bytes", dma.desc_max_bytes, 0, 1 << 30, "4096", "bytes",
    "driver: largest transfer per descriptor (AN-456: one table entry per memory page); 0 = one descriptor"),
  KEY_INT ("dma.desc_per_fetch", dma.desc_per_fetch, 1, 256, "1", "descriptors",
    "descriptors read by one descriptor-fetch MRd"),
  KEY_INT ("dma.desc_fifo_entries", dma.desc_fifo_entries, 1, 256, "32", "descriptors",
    "descriptors one engine can hold; a fetch goes out when a batch fits"),
  KEY_INT ("dma.desc_setup_cycles", dma.desc_setup_cycles, 0, 100000, "0", "cycles",
    "application-clock cycles from taking a descriptor to its first data TLP"),
  KEY_BOOL ("dma.msi", dma.msi, "true",
    "the engine signals the end of a transfer with an MSI (AN-456: MSI, 4 messages); false = software polls"),
  KEY_ONE_OF ("dma.channels", dma.channels, 1, 4, channels_allowed, "1", "channels",
    "engine pairs (one write, one read each) with their own registers and descriptor tables, sharing tags and the "
    "datapath round robin; each moves benchmark.transfer_bytes (XDMA offers 1, 2 or 4 H2C/C2H channels)"),
  KEY_ENUM ("dma.descriptor_mode", dma.descriptor_mode, descriptor_mode_words, "chained",
    "how a transfer is timed: chained = descriptors chained in a ring, the engine's own counter, no software "
    "inside (AN-456, XDMA hardware figures); software = a driver times each transfer from deciding to start it "
    "to its handler seeing the end (host.pio_latency_ns, host.msi_latency_ns or polling included)"),
  KEY_ENUM ("dma.counter_start", dma.counter_start, counter_words, "endpoint",
    "performance counter starts when the engine decodes the start write (endpoint) or when it leaves the host"),

  CREDIT_KEYS ("host.rx_credits", host.rx_credits, "the root port"),
  KEY_DOUBLE ("host.read_latency_ns", host.read_latency_ns, 0, 1e7, "500", "ns",
    "root complex: MRd received -> first completion ready (pcie-bench: 0.5-1.3 us round trips)"),
  KEY_DOUBLE ("host.read_latency_ps_per_byte", host.read_latency_ps_per_byte, 0, 1e6, "0", "ps per byte",
    "size-dependent part of the read latency (pcie-bench: about 0.3 ns/B on Sandy Bridge-EP)"),
  KEY_DOUBLE ("host.cold_cache_latency_ns", host.cold_cache_latency_ns, 0, 1e6, "0", "ns",
    "added to host.read_latency_ns when microbench.cache is cold: the data comes from DRAM instead of the last-level "
    "cache (pcie-protocol.md §11); 0 = no difference modelled"),
  KEY_INT ("host.llc_bytes", host.llc_bytes, 0, INT64_C (1) << 40, "0", "bytes",
    "last-level cache a window warmed by the CPU stays in (microbench.cache warm): of a larger window only the "
    "last host.llc_bytes the CPU touched are LLC hits, the rest pays host.cold_cache_latency_ns (the CPU's "
    "datasheet: its shared L3 size); 0 = every window fits"),
  KEY_INT ("host.completion_bytes", host.completion_bytes, 0, 4096, "0", "bytes",
    "completion size policy: 0 = up to MPS; else the chunk size the chipset returns (often 64, a cache line)"),
  KEY_ONE_OF ("host.completion_full_block_bytes", host.completion_full_block_bytes, 0, 4096, block_allowed, "0",
              "bytes",
    "with host.completion_bytes at the read completion boundary: a read that covers every cache line of a naturally "
    "aligned block of this many bytes is answered by its first line and then completions of up to MPS, cut on RCB "
    "multiples (docs/host-model.md §1); 0 = never"),
  KEY_DOUBLE ("host.completion_mbps", host.completion_mbps, 0, 1e6, "0", "MB/s",
    "rate at which the host can return completion data; 0 = unlimited"),
  KEY_DOUBLE ("host.completion_overhead_ns", host.completion_overhead_ns, 0, 1e6, "0", "ns",
    "fixed return-path time per completion TLP, on top of the data rate"),
  KEY_DOUBLE ("host.completion_fence_ns", host.completion_fence_ns, 0, 1e6, "0", "ns",
    "return-path time before the first completion of a read received behind posted writes, once per such read: the "
    "root complex confirms they are committed, since the read's completion may not overtake them (spec §2.4.1; "
    "docs/host-model.md §2); 0 = none"),
  KEY_INT ("host.completion_group_tlps", host.completion_group_tlps, 0, 64, "1", "TLPs",
    "a read's completions cross the return path in groups of this many, host.completion_overhead_ns once per group "
    "(the first of each); 0 or 1 = every completion pays it"),
  KEY_INT ("host.read_queue_depth", host.read_queue_depth, 0, 4096, "0", "requests",
    "reads the root complex works on at once; more wait in the root port holding their NP credit; 0 = unlimited"),
  KEY_INT ("host.completion_queue_tlps", host.completion_queue_tlps, 0, 65536, "0", "TLPs",
    "completions the root complex holds for the reads it has taken in and not yet answered: it takes a read in "
    "(starts its page walk and its memory access) only when the read's completions fit beside them, or when it "
    "holds none; more wait in the root port, in arrival order (docs/host-model.md §1); 0 = unlimited"),
  KEY_BOOL ("host.completions_in_order", host.completions_in_order, "false",
    "the root complex returns reads strictly in the order they arrived; false: the read whose data is ready first "
    "goes first (completions of different requests may pass each other, spec §2.4.1 Table 2-40; one request's "
    "stay in address order, §2.3.1.1), so a read waiting on a page walk or a cold line holds back no ready one"),
  KEY_BOOL ("host.numa.buffer_remote", host.numa.buffer_remote, "false",
    "the DMA buffer lies in the memory of the other socket than the device's (pcie-bench's set-up name "
    "sD-sB-sC with sB not sD; numactl and the buffer's address say which): every read and posted write crosses "
    "the sockets' link, host.numa.remote_ns more (docs/host-model.md §3b)"),
  KEY_DOUBLE ("host.numa.remote_ns", host.numa.remote_ns, 0, 1e6, "0", "ns",
    "with host.numa.buffer_remote: what the other socket adds to a read's latency (host.read_latency_ns) and to a "
    "posted write's slot time (host.write_latency_ns): a request's hop over QPI/UPI and its answer's back, the "
    "difference of a CPU's remote and local memory latency (Intel's Memory Latency Checker measures both)"),
  KEY_ENUM ("host.numa.warm_cache", host.numa.warm_cache, warm_cache_words, "buffer_socket",
    "the socket whose last-level cache holds a warm window's lines (microbench.cache warm): where the program that "
    "warmed it ran (pcie-bench's sD-sB-sC: sC). buffer_socket: the buffer's own (a warm line is remote exactly "
    "when the buffer is); device_socket: the device's, whose reads then hit it there, host.numa.remote_ns saved "
    "even for a buffer in the other socket's memory; other_socket: the other one, every warm hit host.numa.remote_ns "
    "more, even for a buffer in the device's socket. A line beyond the LLC, or a cold window, is read from the "
    "buffer's memory (docs/host-model.md §3b)"),
  KEY_BOOL ("host.iommu.enabled", host.iommu.enabled, "false",
    "DMA addresses are translated by an IOMMU (Intel VT-d): every DMA request to host memory looks its page up in "
    "the IOTLB, and a miss waits for a page walk (docs/host-model.md §3)"),
  KEY_INT ("host.iommu.iotlb_entries", host.iommu.iotlb_entries, 1, 4096, "64", "entries",
    "translations the IOTLB holds, least recently used replaced; its reach is entries x page_bytes (the T630 reads "
    "about 112 off pcie-bench's latency by window with 4 KB pages, docs/host-model.md §3)"),
  KEY_ONE_OF ("host.iommu.page_bytes", host.iommu.page_bytes, 4096, 1073741824, page_allowed, "4096", "bytes",
    "the page one IOTLB entry translates: 4 KB, 2 MB or 1 GB (the DMA buffer's mapping)"),
  KEY_DOUBLE ("host.iommu.walk_ns", host.iommu.walk_ns, 0, 1e6, "0", "ns",
    "an IOTLB miss: the page walk's dependent memory reads; one walker, so walks queue behind one another, and "
    "the request (and every posted write behind a write) waits for its translation"),
  KEY_INT ("host.iommu.walks_in_flight", host.iommu.walks_in_flight, 1, 64, "1", "walks",
    "page walks the IOMMU works on at once: a miss takes the first walker free, so with several the misses of "
    "requests that arrive together overlap (host.iommu.walk_ns each) and a request behind waits only if all are "
    "busy; 1: one walk after another"),
  KEY_DOUBLE ("host.iommu.read_resume_ns", host.iommu.read_resume_ns, 0, 1e6, "0", "ns",
    "a read whose translation was not ready when it arrived starts this much after the translation (its request "
    "taken up again by the walker that translated it, busy until then); a posted write drains at once"),
  KEY_DOUBLE ("host.iommu.read_resume_group_ns", host.iommu.read_resume_group_ns, 0, 1e6, "0", "ns",
    "such a read whose completions cross the return path in several groups (host.completion_group_tlps) starts "
    "this much later again for each group after the first: its walker hands it back a group at a time, busy until "
    "the last; 0: the whole read at once"),
  KEY_INT ("host.ack_every_tlps", host.ack_every_tlps, 0, 4096, "0", "TLPs",
    "the root port Acks at the latest after this many TLPs; 0 = Ack latency timer only"),
  KEY_DOUBLE ("host.write_drain_mbps", host.write_drain_mbps, 0, 1e6, "0", "MB/s",
    "rate at which the host drains posted writes from its receive buffer; 0 = unlimited"),
  KEY_DOUBLE ("host.write_latency_ns", host.write_latency_ns, 0, 1e6, "0", "ns",
    "posted write drained -> its receive-buffer slot and P credits released"),
  KEY_ONE_OF ("host.write_block_bytes", host.write_block_bytes, 0, 4096, block_allowed, "0",
              "bytes",
    "posted writes are seen as runs of contiguous MWrs: each edge of a run inside a naturally aligned block of "
    "this many bytes (its start, or its end, seen when the next write does not continue it) drains "
    "host.write_partial_block_ns longer (docs/host-model.md §2); 0 = no edge costs anything"),
  KEY_DOUBLE ("host.write_partial_block_ns", host.write_partial_block_ns, 0, 1e6, "0", "ns",
    "drain time a posted write adds per run edge inside a host.write_block_bytes block"),
  KEY_DOUBLE ("host.pio_latency_ns", host.pio_latency_ns, 0, 1e7, "0", "ns",
    "software: decision to start a DMA -> its first PIO write leaves the root port"),
  KEY_DOUBLE ("host.pio_gap_ns", host.pio_gap_ns, 0, 1e7, "0", "ns",
    "software: between consecutive uncached register writes"),
  KEY_DOUBLE ("host.msi_latency_ns", host.msi_latency_ns, 0, 1e8, "0", "ns",
    "software: MSI received -> handler has seen it"),
  KEY_DOUBLE ("host.poll_interval_ns", host.poll_interval_ns, 0, 1e8, "1000", "ns",
    "software: status polling period when MSI is off"),
  KEY_DOUBLE ("host.iteration_gap_ns", host.iteration_gap_ns, 0, 1e9, "0", "ns",
    "software: bookkeeping between one transfer's end and programming the next"),
  KEY_DOUBLE ("host.cpu_access_ns", host.cpu_access_ns, 0, 1e6, "0", "ns",
    "the path between a core and the root port, each way (front-side bus, chipset): a PIO write's stores cross it "
    "once on their way out, a PIO read pays it twice per load"),
  KEY_INT ("host.cpu_write_queue_tlps", host.cpu_write_queue_tlps, 0, 4096, "0", "TLPs",
    "the root complex's queue of a core's posted writes: it takes a write while fewer than this many are inside it "
    "(not yet handed to the root port's link), and a fence ends once its writes are taken; 0 = no queue, a write "
    "is taken only when the root port can send it at once"),
  KEY_DOUBLE ("host.cpu_write_post_ns", host.cpu_write_post_ns, 0, 1e6, "0", "ns",
    "with host.cpu_write_queue_tlps: the part of host.cpu_access_ns a core's write crosses before the queue takes "
    "it (the front-side bus's write transaction, which a fence waits for); the rest it crosses inside the root "
    "complex; at most host.cpu_access_ns"),
  KEY_DOUBLE ("host.cpu_write_transaction_ns", host.cpu_write_transaction_ns, 0, 1e6, "0", "ns",
    "the time the bus between the cores and the root complex (front-side bus) is held per CPU write "
    "transaction: a full write-combining line, each 8-byte partial write and each uncached store is one, and the "
    "cores' writes start that far apart at least (its part of host.cpu_write_post_ns, or of host.cpu_access_ns "
    "without a queue, is pipelined); 0 = writes never wait for one another"),

  /* A fabric's switches (docs/fabrics.md, "What the switch model does and does not do"): every switch node's
   * values unless the node gives its own. */
  KEY_ENUM ("switch.forwarding", sw.forwarding, forwarding_words, "cut_through",
    "cut_through: a TLP leaves once its header is in and routed; store_and_forward: once the whole TLP and its LCRC "
    "are in (pcie-protocol.md §8: PLX/Broadcom switches cut through)"),
  KEY_DOUBLE ("switch.latency_ns", sw.latency_ns, 0, 1e6, "150", "ns",
    "port-to-port latency, pin to pin, from the header (cut-through) or the whole TLP (store-and-forward) in to "
    "the first symbol out (pcie-protocol.md §8: Gen2 140-160 ns, PEX 8647 140 ns max; Gen3 about 150 ns)"),
  KEY_DOUBLE ("switch.dll_latency_ns", sw.dll_latency_ns, 0, 1e6, "50", "ns",
    "a port's own receive path, pins to its data link layer: what an Ack or UpdateFC takes to act (a TLP's is part "
    "of switch.latency_ns, at most that). ASSUMPTION, no datasheet gives it: 20-100 ns, a few clocks of a 250-500 "
    "MHz core for the PHY (deskew, decoding) and the CRC check, a part of the 105-160 ns port to port; left unset "
    "it is at most switch.latency_ns"),
  KEY_ENUM ("switch.updatefc_policy", sw.updatefc_policy, switch_updatefc_words, "link",
    "when switch ports return credits: link = as link.updatefc_policy says for every receiver; minimum or "
    "recommended as there, for the switch's ports alone. UNCONFIRMED: no switch datasheet states its UpdateFC "
    "cadence; the spec requires only the minimum rules (§2.6.1.2) and recommends Table 2-54's latency"),
  KEY_ENUM ("switch.arbitration", sw.arbitration, switch_arbitration_words, "round_robin",
    "egress arbitration among ingress ports: round_robin (one TLP each in turn) or weighted_round_robin "
    "(weights: of the switch node, TLPs in a row per port; pcie-protocol.md §8)"),
  KEY_ENUM ("switch.buffer", sw.buffer, buffer_words, "per_port",
    "per_port: a TLP holds its ingress port's buffer (its credits) until it leaves; shared: a TLP that fits moves "
    "at once into the central memory (switch.pool.*), returning its port's credits (pcie-protocol.md §8)"),
  KEY_INT ("switch.rx_credits.ph", sw.rx_credits.ph, 0, 2032, "64", "credits",
    "posted-header credits each switch port advertises; 0 = infinite (UNCONFIRMED: no datasheet figure; sized "
    "with the data credits on the PEX 8532's x4 port buffer of pcie-protocol.md §8)"),
  KEY_INT ("switch.rx_credits.pd", sw.rx_credits.pd, 0, 32752, "640", "credits (16 bytes)",
    "posted-data credits each switch port advertises: 10 KB, what the PEX 8532 drains from a x4 port in 2,560 "
    "clocks (pcie-protocol.md §8; UNCONFIRMED for other switches)"),
  KEY_INT ("switch.rx_credits.nph", sw.rx_credits.nph, 0, 2032, "64", "credits",
    "non-posted-header credits each switch port advertises (UNCONFIRMED, as switch.rx_credits.ph)"),
  KEY_INT ("switch.rx_credits.npd", sw.rx_credits.npd, 0, 32752, "64", "credits (16 bytes)",
    "non-posted-data credits each switch port advertises (reads carry none)"),
  KEY_INT ("switch.rx_credits.cplh", sw.rx_credits.cplh, 0, 2032, "64", "credits",
    "completion-header credits each switch port advertises: finite, a switch is no completer (spec §2.6.1; "
    "UNCONFIRMED size, as switch.rx_credits.ph)"),
  KEY_INT ("switch.rx_credits.cpld", sw.rx_credits.cpld, 0, 32752, "640", "credits (16 bytes)",
    "completion-data credits each switch port advertises (as switch.rx_credits.pd)"),
  KEY_INT ("switch.pool.ph", sw.pool.ph, 0, 1 << 20, "0", "credits",
    "switch.buffer shared: the central memory's posted headers; 0 = unlimited"),
  KEY_INT ("switch.pool.pd", sw.pool.pd, 0, 1 << 24, "0", "credits (16 bytes)",
    "switch.buffer shared: the central memory's posted data; 0 = unlimited"),
  KEY_INT ("switch.pool.nph", sw.pool.nph, 0, 1 << 20, "0", "credits",
    "switch.buffer shared: the central memory's non-posted headers; 0 = unlimited"),
  KEY_INT ("switch.pool.npd", sw.pool.npd, 0, 1 << 24, "0", "credits (16 bytes)",
    "switch.buffer shared: the central memory's non-posted data; 0 = unlimited"),
  KEY_INT ("switch.pool.cplh", sw.pool.cplh, 0, 1 << 20, "0", "credits",
    "switch.buffer shared: the central memory's completion headers; 0 = unlimited"),
  KEY_INT ("switch.pool.cpld", sw.pool.cpld, 0, 1 << 24, "0", "credits (16 bytes)",
    "switch.buffer shared: the central memory's completion data; 0 = unlimited"),
  KEY_INT ("fabric.active_flows", fabric.active_flows, 0, 1 << 16, "0", "flows",
    "run only the first N flows of the flows: list (0 = all), so a sweep can vary how many transfers share a "
    "fabric"),

  /* The host's CPU (models/devices/cpu.h): its cores, the PIO modes' program and the driver's costs. The defaults are a
   * CPU that costs nothing and draws nothing, which is what every config before it ran. */
  KEY_INT ("cpu.wc_buffers", cpu.wc_buffers, 1, 64, "8", "buffers",
    "write-combining buffers per core (pcie-protocol.md §9: Pentium 4 6, Core-era cores 8-10)"),
  KEY_ONE_OF ("cpu.wc_buffer_bytes", cpu.wc_buffer_bytes, 32, 64, wc_bytes_allowed, "64", "bytes",
    "write-combining buffer size: a full one leaves as one write of this size (Intel SDM §11.3.1: 64; 32 on P6)"),
  KEY_DOUBLE ("cpu.store_ns", cpu.store_ns, 0, 1e6, "0", "ns", "core time per store instruction of a PIO write"),
  KEY_ENUM ("cpu.pio_write_mapping", cpu.pio_write_mapping, mapping_words, "wc",
    "how the BAR a PIO write stores to is mapped: wc = write-combining (64-byte writes, 8-byte partial writes "
    "for a partly filled buffer), uc = uncached (one write per store) (pcie-protocol.md §9)"),
  KEY_ONE_OF ("cpu.store_bytes", cpu.store_bytes, 1, 32, access_allowed, "8", "bytes",
    "PIO write: bytes per store, as memcpy cuts the copy (8: 64-bit moves; 16: SSE; 32: AVX)"),
  KEY_ONE_OF ("cpu.load_bytes", cpu.load_bytes, 1, 32, access_allowed, "4", "bytes",
    "PIO read: bytes per uncached load; each load waits for its completion (one outstanding per core)"),
  KEY_DOUBLE ("cpu.transfer_overhead_ns", cpu.transfer_overhead_ns, 0, 1e6, "0", "ns",
    "PIO modes: software work inside each timed transfer besides the accesses (timer reads, the call)"),
  KEY_DOUBLE ("cpu.dma_setup_ns", cpu.dma_setup_ns, 0, 1e8, "0", "ns",
    "driver: work per DMA start before its doorbell (system call, set-up)"),
  KEY_DOUBLE ("cpu.dma_descriptor_ns", cpu.dma_descriptor_ns, 0, 1e6, "0", "ns",
    "driver: work per descriptor of a DMA start (pinning and mapping its page, writing the descriptor)"),
  DIST_KEYS ("cpu.interrupt", cpu.interrupt,
             "MSI delivered (after host.msi_latency_ns) -> the interrupt handler runs, a random time"),
  DIST_KEYS ("cpu.wakeup", cpu.wakeup, "interrupt handler -> the process waiting for the transfer runs, a random time"),

  KEY_INT ("benchmark.transfer_bytes", benchmark.transfer_bytes, 1, (double) (1ULL << 40), "102400", "bytes",
    "bytes per transfer (AN-456 uses 100 KB = 102400); a DMA moves whole DWs: a size that is not one "
    "is moved rounded up to whole DWs and counted at the bytes asked; a PIO transfer any number of bytes"),
  KEY_INT ("benchmark.iterations", benchmark.iterations, 1, 1000000, "20", "", "transfers averaged (AN-456 uses 20)"),
  KEY_MODES ("benchmark.modes", benchmark.modes, "[read, write, simultaneous]",
    "modes run by default: read, write, simultaneous, or all (the three), and pio_read, pio_write (a CPU core "
    "reading or writing BAR memory)"),
  KEY_ENUM ("benchmark.workload", benchmark.workload, workload_words, "chaining_dma",
    "chaining_dma (AN-456 engine, host and datapath), stream (saturating link-only source, no DMA engine) or "
    "microbench (pcie-bench's tests, microbench.*)"),
  KEY_POW2 ("benchmark.stream_payload_bytes", benchmark.stream_payload_bytes, 0, 4096, "0", "bytes",
    "stream workload: bytes per TLP, the MWr payload (write) or read request (read); 0 = max_payload "
    "(write) or max_read_request (read)"),
  KEY_ENUM ("microbench.test", microbench.test, ps_microbench_test_words, "lat_rd",
    "microbench workload, pcie-bench's tests (pcie-protocol.md §11): lat_rd (one DMA read at a time), lat_wrrd (a "
    "write then a read of the same address), bw_rd, bw_wr, bw_rdwr (microbench.outstanding DMAs in flight), "
    "lat_cmd_rd and lat_cmd_wrrd (lat_rd and lat_wrrd through the device's direct command path: at most 64 "
    "bytes, none of its DMA engine's costs, endpoint.dma_*)"),
  KEY_INT ("microbench.transfer_bytes", microbench.transfer_bytes, 1, 1 << 20, "64", "bytes",
    "microbench: bytes per DMA, any number (pcie-bench's transfer size): its TLPs carry the whole DWs that hold "
    "them, with first and last byte enables (spec §2.2.5), and the figures count the bytes asked for"),
  KEY_INT ("microbench.window_bytes", microbench.window_bytes, 4, 1 << 30, "8192", "bytes",
    "microbench: the host buffer the DMAs' offsets lie in (pcie-bench's window); each DMA takes a slot of "
    "microbench.host_offset + microbench.transfer_bytes rounded up to 64-byte cache lines, and the window holds "
    "at least one"),
  KEY_INT ("microbench.host_offset", microbench.host_offset, 0, 63, "0", "bytes",
    "microbench: where each DMA starts in its host cache line, bytes from the 64-byte boundary (pcie-bench's HO); "
    "the slots themselves start on cache lines"),
  KEY_INT ("microbench.device_offset", microbench.device_offset, 0, 63, "0", "bytes",
    "microbench: where each DMA starts in the device's memory, bytes from a 64-byte boundary (pcie-bench's DO): "
    "the engine moves whole 8-byte words there, so an offset inside a word costs a read its partial word "
    "(endpoint.dma_read_partial_ns) and shifts where a write's MWrs are cut (endpoint.dma_write_max_bytes counts "
    "the words); the host addresses are microbench.host_offset's"),
  KEY_INT ("microbench.outstanding", microbench.outstanding, 1, 65535, "64", "DMAs",
    "microbench bw_*: DMAs in flight at once (lat_* run one at a time); the tags still bound the reads"),
  KEY_INT ("microbench.dmas", microbench.dmas, 1, 10000000, "1000", "DMAs",
    "microbench: DMAs measured per test (bw_rdwr: this many reads and this many writes)"),
  KEY_ENUM ("microbench.offsets", microbench.offsets, offsets_words, "sequential",
    "microbench: DMA offsets in the window, sequential (transfer-sized slots in order, wrapping) or random (slots "
    "drawn from a stream seeded by --seed)"),
  KEY_ENUM ("microbench.cache", microbench.cache, cache_words, "warm",
    "microbench: host cache state of the window, pcie-bench's HWarm, Cold, DWarm and DThrash: warm (the CPU "
    "touched the window: reads hit the last-level cache, up to host.llc_bytes of it); cold, device_warm (the "
    "device read it: an I/O read does not allocate in the LLC) and device_thrash add host.cold_cache_latency_ns "
    "to every read"),
  KEY_DOUBLE ("benchmark.watchdog_ns", benchmark.watchdog_ns, 1000, 1e12, "1e7", "ns",
    "deadlock watchdog: stop with an internal error naming what each component waits for when this much "
    "simulated time passes with a transfer unfinished and no TLP delivered (stretched by the host's longest wait)"),

  /* No defaults and not required: a figure the source does not give stays NaN and is not compared. */
  KEY_STRING ("published.source", published.source, NULL, "where the published figures come from (document and table)"),
  KEY_DOUBLE ("published.dma_read_mbps", published.dma_read_mbps, 0, 1e6, NULL, "MB/s",
    "published DMA read throughput (compared only, never a model input)"),
  KEY_DOUBLE ("published.dma_write_mbps", published.dma_write_mbps, 0, 1e6, NULL, "MB/s",
    "published DMA write throughput"),
  KEY_DOUBLE ("published.simultaneous_read_mbps", published.simultaneous_read_mbps, 0, 1e6, NULL, "MB/s",
    "published read throughput with both engines running"),
  KEY_DOUBLE ("published.simultaneous_write_mbps", published.simultaneous_write_mbps, 0, 1e6, NULL, "MB/s",
    "published write throughput with both engines running"),
  KEY_DOUBLE ("published.theoretical_mbps", published.theoretical_mbps, 0, 1e6, NULL, "MB/s",
    "the vendor's theoretical maximum as printed"),
  KEY_DOUBLE ("published.peak_write_mbps", published.peak_write_mbps, 0, 1e6, NULL, "MB/s",
    "published steady-state write throughput of the interface in simultaneous mode, read-request cycles counted "
    "(a logic analyser's window, published-calibration.md §2.1; compared with results.simultaneous.peak)"),
  KEY_DOUBLE ("published.peak_write_excluding_read_requests_mbps", published.peak_write_excluding_read_requests_mbps, 0,
    1e6, NULL, "MB/s", "the same with the read-request cycles left out"),
  KEY_DOUBLE ("published.peak_read_mbps", published.peak_read_mbps, 0, 1e6, NULL, "MB/s",
    "published steady-state completion throughput of the receive interface in simultaneous mode"),
  KEY_WORDS ("published.suspect.figures", published.suspect_figures, ps_figure_words, NULL,
    "published figures suspected to be measurement artifacts: shown flagged with the reason, left out of "
    "validate's statistics (counted with --strict)"),
  KEY_STRING ("published.suspect.reason", published.suspect_reason, NULL,
    "why the figures are suspect: the evidence, in one line (required with published.suspect.figures)"),
  KEY_WORDS ("published.accepted.figures", published.accepted_figures, ps_figure_words, NULL,
    "published figures whose known deviation is accepted (docs/trust.md): validate compares each with "
    "published.accepted.tolerance_pct instead of its --tolerance, and still fails when one moves beyond it"),
  KEY_DOUBLE ("published.accepted.tolerance_pct", published.accepted_tolerance_pct, 0, 100, NULL, "%",
    "the accepted figures' own tolerance, |error| in percent (required with published.accepted.figures)"),
  KEY_STRING ("published.accepted.reason", published.accepted_reason, NULL,
    "why the deviation is accepted: what the model cannot reach and why, in one line (required with "
    "published.accepted.figures)"),
};

const size_t cfg_n_keys = G_N_ELEMENTS (cfg_keys);

/* Linear search: ~70 keys, and lookups happen only while loading. */
const KeyDef *
cfg_find_key (const char *path)
{
  for (size_t i = 0; i < cfg_n_keys; i++)
    if (strcmp (cfg_keys[i].path, path) == 0)
      return &cfg_keys[i];
  return NULL;
}

/* A section is a proper prefix of some key at a dot. The dot test keeps "lin" from passing as the start of
 * "link", and a full key path is no section (no key extends it). */
gboolean
cfg_is_section (const char *path)
{
  size_t n = strlen (path);
  for (size_t i = 0; i < cfg_n_keys; i++)
    if (strncmp (cfg_keys[i].path, path, n) == 0 && cfg_keys[i].path[n] == '.')
      return TRUE;
  return FALSE;
}

/* For scenario.c, which checks the keys its overrides and axes name before any point's config loads, so that a
 * typo is reported at the scenario's own line rather than as a failed load. */
gboolean
ps_config_key_exists (const char *path)
{
  return cfg_find_key (path) != NULL;
}

gboolean
ps_config_is_section (const char *path)
{
  return cfg_is_section (path);
}

/* Built once, on first use, from the table: the table stays the one list of keys. */
const char *const *
ps_config_keys (void)
{
  static const char **paths;
  if (g_once_init_enter (&paths)) {
    const char **p = g_new0 (const char *, cfg_n_keys + 1);
    for (size_t i = 0; i < cfg_n_keys; i++)
      p[i] = cfg_keys[i].path;
    g_once_init_leave (&paths, p);
  }
  return paths;
}

/* Keys that change nothing a run simulates (config.h): a --set of one of these leaves the published figures
 * comparable. A list of its own rather than a column of the table, which other keys are added to often. */
static const char *const output_keys[] = { "name", "benchmark.modes", "benchmark.watchdog_ns", NULL };

gboolean
ps_config_key_is_output (const char *path)
{
  return g_str_has_prefix (path, "published.") || g_strv_contains (output_keys, path);
}

/* A fabric's keys (switch.*, fabric.*, a memory target's latency) mean nothing to a one-link config: left at their
 * defaults there, they are not written, so its report stays what it was before fabrics existed. */
gboolean
ps_config_key_fabric_only (const char *path)
{
  return g_str_has_prefix (path, "switch.") || g_str_has_prefix (path, "fabric.")
         || strcmp (path, "endpoint.memory_read_latency_ns") == 0;
}

gboolean
ps_config_key_off_by_default (const char *path)
{
  return g_str_has_prefix (path, "host.iommu.") || strcmp (path, "endpoint.dma_issue_cycles") == 0
         || strcmp (path, "endpoint.dma_write_gap_ns") == 0 || strcmp (path, "endpoint.dma_write_max_bytes") == 0
         || strcmp (path, "endpoint.dma_write_switch_ns") == 0
         || strcmp (path, "endpoint.dma_overhead_ns") == 0
         || strcmp (path, "endpoint.dma_write_extra_ns") == 0 || strcmp (path, "endpoint.dma_ps_per_byte") == 0
         || strcmp (path, "endpoint.dma_read_partial_ns") == 0 || strcmp (path, "host.llc_bytes") == 0
         || strcmp (path, "microbench.host_offset") == 0 || strcmp (path, "microbench.device_offset") == 0
         || g_str_has_prefix (path, "host.numa.");
}

/* Closest key or section name directly under `prefix` ("" for the top level), or NULL if none is close. A
 * section's name comes up once per key under it, which changes nothing: the first of equals wins. */
char *
cfg_suggest (const char *prefix, const char *word)
{
  size_t np = strlen (prefix);
  g_autoptr (GPtrArray) children = g_ptr_array_new_with_free_func (g_free);
  for (size_t i = 0; i < cfg_n_keys; i++) {
    const char *p = cfg_keys[i].path;
    if (np && (strncmp (p, prefix, np) != 0 || p[np] != '.'))
      continue;
    const char *rest = np ? p + np + 1 : p;
    g_ptr_array_add (children, g_strndup (rest, strcspn (rest, ".")));
  }
  g_ptr_array_add (children, NULL);
  return g_strdup (ps_closest ((const char *const *) children->pdata, word, 3));
}

/* Closest full key path, for a --set whose section is misspelt too, when the leaf alone matched nothing under
 * it. The whole path is compared, so the allowance is a quarter of its length rather than a third. */
char *
cfg_suggest_path (const char *path)
{
  return g_strdup (ps_closest (ps_config_keys (), path, 4));
}

/* --mode on the command line and benchmark.modes in a config share these words, so one list serves both. */
unsigned
ps_mode_parse (const char *word)
{
  if (strcmp (word, "read") == 0)
    return PS_MODE_READ;
  if (strcmp (word, "write") == 0)
    return PS_MODE_WRITE;
  if (strcmp (word, "simultaneous") == 0)
    return PS_MODE_SIMULTANEOUS;
  if (strcmp (word, "all") == 0)
    return PS_MODE_ALL;
  if (strcmp (word, "pio_read") == 0)
    return PS_MODE_PIO_READ;
  if (strcmp (word, "pio_write") == 0)
    return PS_MODE_PIO_WRITE;
  return 0;
}

/* Callers name one mode bit at a time (the builder's messages); PS_MODE_ALL or any other mask reads as "all". */
const char *
ps_mode_name (unsigned mode)
{
  switch (mode) {
  case PS_MODE_READ:
    return "read";
  case PS_MODE_WRITE:
    return "write";
  case PS_MODE_SIMULTANEOUS:
    return "simultaneous";
  case PS_MODE_PIO_READ:
    return "pio_read";
  case PS_MODE_PIO_WRITE:
    return "pio_write";
  default:
    return "all";
  }
}

/* A node's own key, nodes.NAME.KEY (an assumption of a fabric's node, PsAssumption), read as KEY: the same
 * converter, bounds and snapping. Any other path is itself. */
static const char *
own_key (const char *path)
{
  const char *dot = g_str_has_prefix (path, "nodes.") ? strchr (path + strlen ("nodes."), '.') : NULL;
  return dot ? dot + 1 : path;
}

gboolean
ps_config_key_numeric (const char *path)
{
  const KeyDef *k = cfg_find_key (own_key (path));
  return k && (k->type == K_INT || k->type == K_DOUBLE);
}

/* A boolean is the integer choice 0 (false) or 1 (true): a range [false, true] is searched and fitted as one. */
gboolean
ps_config_key_integer (const char *path)
{
  const KeyDef *k = cfg_find_key (own_key (path));
  return k && (k->type == K_INT || k->type == K_BOOL);
}

gboolean
ps_config_key_boolean (const char *path)
{
  const KeyDef *k = cfg_find_key (own_key (path));
  return k && k->type == K_BOOL;
}

char *
ps_config_number_text (const char *path, double v)
{
  return ps_config_key_boolean (path) ? g_strdup (v > 0 ? "true" : "false") : g_strdup_printf ("%g", v);
}

double
ps_config_snap (const char *path, double v)
{
  const KeyDef *k = cfg_find_key (own_key (path));
  if (!k && g_str_has_prefix (path, "nodes.") && strrchr (path, '.'))
    return ps_node_field_snap (strrchr (path, '.') + 1, v);
  if (k && k->type == K_BOOL)
    return v >= 0.5 ? 1 : 0;
  if (!k || k->type != K_INT)
    return v;
  double best = round (v);
  /* A power of two is chosen in log space: between 64 and 128, 90 is nearer 64 by ratio. */
  if (k->pow2)
    best = exp2 (round (log2 (MAX (v, 1))));
  for (const int64_t *a = k->allowed; a && *a >= 0; a++)
    if (a == k->allowed || fabs ((double) *a - v) < fabs (best - v))
      best = (double) *a;
  return MIN (MAX (best, k->min), k->max);
}

char *
ps_config_set_text (const char *path, double v)
{
  v = ps_config_snap (path, v);
  if (ps_config_key_boolean (path))
    return g_strdup_printf ("%s=%s", path, v > 0 ? "true" : "false");
  /* 17 significant digits give a double back exactly; an integer key's value is whole. */
  if (ps_config_key_integer (path))
    return g_strdup_printf ("%s=%" G_GINT64_FORMAT, path, (int64_t) v);
  char num[G_ASCII_DTOSTR_BUF_SIZE];
  return g_strdup_printf ("%s=%s", path, g_ascii_formatd (num, sizeof num, "%.17g", v));
}

/* Human-readable type for `pciesim keys`. */
const char *
cfg_type_name (const KeyDef *k)
{
  switch (k->type) {
  case K_INT:
    return k->pow2 ? "power of two" : k->allowed ? "one of" : "integer";
  case K_DOUBLE:
    return "number";
  case K_BOOL:
    return "boolean";
  case K_STRING:
    return "string";
  case K_MODES:
    return "modes";
  case K_ENUM:
    return "one of";
  case K_WORDS:
    return "list of";
  case K_POINTS:
    return "table";
  }
  return "?";
}
