/* test-trace.c — Check suite for sim/trace (the VCD and Perfetto writers) and models/trace (the PCIe signal sets).
 *
 * The writers are driven by a synthetic run written here (the models are wired in later): an endpoint's DMA
 * engine reading host memory, N reads of 256 bytes upstream, each answered by two 128-byte completions, with the
 * Acks, UpdateFCs, credits, replay-buffer bytes and tags that go with them. The test keeps that run as a list of
 * events (the reference) and checks each file against the list, never against the writer's own idea of it:
 * - VCD: read back by a strict reader written here (header, $enddefinitions, a $dumpvars of every signal,
 *   strictly increasing #times, every change to a declared identifier and within its width), then the value
 *   of every signal at every reference time is the reference's; and GTKWave's own reader agrees: vcd2fst
 *   converts it, fst2vcd converts that back, and both files give the same waveform.
 * - JSON: parsed by json-glib; per track the slices are time-ordered and never overlap, their count per kind is
 *   the reference's; every flow event lies inside a slice of its track and every flow end has its start;
 *   counters are never negative and end at the reference's last value.
 * - A window keeps only what overlaps it, clips what straddles it, and starts with the values reached; a size
 *   cap keeps the file under it, still valid, with the truncation marked and said on stderr.
 * - Real runs (issue #15): the shipped Gen2 x8 config traced through system_run(): the same checks, the TLPs on
 *   the wire tracks are those the host counted, and the figures are those of the run without a trace; through
 *   the command line, --trace-window and --trace-max-bytes are kept and the report is the untraced one.
 */
#include <check.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <unistd.h>

#define TMPDIR_TEMPLATE "pciesim-test-trace-XXXXXX"
#include "tests/common.h"
#include "models/observe/pcie_trace.h"
#include "app/run/builder.h"
#include "app/config/config.h"
#include "app/config/load.h"
#include "app/base/error.h"
#include "app/base/format.h"

/* --- the synthetic run ------------------------------------------------------------------------------------- */

typedef enum { EV_SLICE, EV_COUNT, EV_FLOW } EvKind;

typedef struct {
  EvKind kind;
  const char *name; /* full name as both files show it: "link0.up.wire" */
  guint32 handle; /* SimTraceTrack or SimTraceCounter */
  SimTime t, dur;
  guint state;
  guint32 a0, a1;
  uint64_t value; /* counters */
  SimTraceFlow phase;
  uint64_t id;
  guint order; /* generation order, the tie-break of the sort */
} Ev;

typedef struct {
  TraceLinkDir down, up;
  TraceDma dma;
  SimTraceCounter tags;
  GArray *ev; /* Ev, sorted by (t, order) */
} Run;

#define READS 40
#define NS(x) ((SimTime) (x) * 1000)

static void
add (Run *r, Ev e)
{
  e.order = r->ev->len;
  g_array_append_val (r->ev, e);
}

static void
slice (Run *r, const char *name, guint32 track, SimTime t, SimTime dur, guint state, guint32 a0, guint32 a1)
{
  add (r, (Ev) { .kind = EV_SLICE, .name = name, .handle = track, .t = t, .dur = dur, .state = state, .a0 = a0,
                 .a1 = a1 });
}

static void
count (Run *r, const char *name, guint32 counter, SimTime t, uint64_t v)
{
  add (r, (Ev) { .kind = EV_COUNT, .name = name, .handle = counter, .t = t, .value = v });
}

static void
flow (Run *r, guint32 track, SimTime t, SimTraceFlow phase, uint64_t id)
{
  add (r, (Ev) { .kind = EV_FLOW, .handle = track, .t = t, .phase = phase, .id = id });
}

static int
cmp_ev (gconstpointer a, gconstpointer b)
{
  const Ev *x = a, *y = b;
  if (x->t != y->t)
    return x->t < y->t ? -1 : 1;
  return (x->order > y->order) - (x->order < y->order);
}

/* Read k goes up at t0 = 1000 + 400 k ns (MRd, 4 ns on the wire); the root port returns an UpdateFC-NP at
 * t0 + 100, Acks the MRd at t0 + 140, and sends two CplDs at t0 + 300 and t0 + 340 (36 ns each), which the
 * endpoint Acks at t0 + 380. Every slice on a wire ends before the next starts there, with a gap, so each
 * slice start and end is a visible change in the VCD. */
static void
run_build (Run *r, SimTrace *t)
{
  r->ev = g_array_new (FALSE, TRUE, sizeof (Ev));
  trace_link_dir_declare (t, "link0.down", &r->down);
  trace_link_dir_declare (t, "link0.up", &r->up);
  trace_dma_declare (t, "ep.dma", &r->dma);
  r->tags = trace_requester_declare (t, "ep.dma");

  uint64_t nph = 4, tags = 0, replay_up = 0, replay_down = 0;
  count (r, "link0.up.credits_nph", r->up.credits[FC_NP][FC_HDR], 0, nph);
  count (r, "link0.up.credits_ph", r->up.credits[FC_P][FC_HDR], 0, 16);
  slice (r, "ep.dma.phase", r->dma.phase, 0, NS (900), TRACE_DMA_DESCRIPTOR_FETCH, 0, 32);
  slice (r, "ep.dma.phase", r->dma.phase, NS (1000), NS (400 * READS), TRACE_DMA_TRANSFER, 0, 256 * READS);
  for (guint k = 0; k < READS; k++) {
    const SimTime t0 = NS (1000 + 400 * k);
    const guint32 tag = k % 8;
    slice (r, "link0.up.wire", r->up.wire, t0, NS (4), TRACE_WIRE_MRD, tag, 256);
    flow (r, r->up.wire, t0, SIM_TRACE_FLOW_START, k + 1);
    count (r, "ep.dma.tags_outstanding", r->tags, t0, ++tags);
    count (r, "link0.up.credits_nph", r->up.credits[FC_NP][FC_HDR], t0, --nph);
    count (r, "link0.up.replay_bytes", r->up.replay_bytes, t0, replay_up += 24);
    slice (r, "link0.down.wire", r->down.wire, t0 + NS (100), NS (2), TRACE_WIRE_UPDATEFC_NP, 0, 0);
    count (r, "link0.up.credits_nph", r->up.credits[FC_NP][FC_HDR], t0 + NS (102), ++nph);
    slice (r, "link0.down.wire", r->down.wire, t0 + NS (140), NS (2), TRACE_WIRE_ACK, 0, 0);
    count (r, "link0.up.replay_bytes", r->up.replay_bytes, t0 + NS (142), replay_up -= 24);
    for (guint c = 0; c < 2; c++) {
      const SimTime tc = t0 + NS (300 + 40 * c);
      slice (r, "link0.down.wire", r->down.wire, tc, NS (36), TRACE_WIRE_CPLD, tag, 128);
      flow (r, r->down.wire, tc, c == 0 ? SIM_TRACE_FLOW_STEP : SIM_TRACE_FLOW_END, k + 1);
      count (r, "link0.down.replay_bytes", r->down.replay_bytes, tc, replay_down += 140);
    }
    count (r, "ep.dma.tags_outstanding", r->tags, t0 + NS (376), --tags);
    slice (r, "link0.up.wire", r->up.wire, t0 + NS (380), NS (2), TRACE_WIRE_ACK, 0, 0);
    count (r, "link0.down.replay_bytes", r->down.replay_bytes, t0 + NS (382), replay_down -= 280);
  }
  const SimTime end = NS (1000 + 400 * READS);
  slice (r, "ep.dma.phase", r->dma.phase, end, NS (20), TRACE_DMA_STATUS_WRITE, 0, 4);
  g_array_sort (r->ev, cmp_ev);
}

static void
run_feed (const Run *r, SimTrace *t)
{
  for (guint i = 0; i < r->ev->len; i++) {
    const Ev *e = &g_array_index (r->ev, Ev, i);
    if (e->kind == EV_SLICE)
      sim_trace_slice (t, e->handle, e->t, e->dur, e->state, e->a0, e->a1);
    else if (e->kind == EV_COUNT)
      sim_trace_count (t, e->handle, e->t, e->value);
    else
      sim_trace_flow (t, e->phase, e->id, e->handle, e->t);
  }
}

/* Write the run to dir/name under the options; the run's reference stays in *r (free with run_clear). */
static char *
write_trace (Run *r, const char *dir, const char *name, const SimTraceOptions *o)
{
  char *path = g_build_filename (dir, name, NULL);
  g_autoptr (GError) e = NULL;
  SimTrace *t = sim_trace_open (path, o, &e);
  ck_assert_msg (t != NULL, "open %s: %s", path, e ? e->message : "?");
  run_build (r, t);
  ck_assert_msg (sim_trace_start (t, &e), "start: %s", e ? e->message : "?");
  run_feed (r, t);
  ck_assert_msg (sim_trace_close (t, &e), "close: %s", e ? e->message : "?");
  return path;
}

static void
run_clear (Run *r)
{
  g_array_unref (r->ev);
}

static const SimTraceOptions all = { 0, SIM_TIME_MAX, 0 };

/* The reference's value of a counter at time t (the last set at or before t), or the state and attributes of a
 * track (0 between slices). */
static gboolean
ref_counter_at (const Run *r, const char *name, SimTime t, uint64_t *v)
{
  gboolean found = FALSE;
  for (guint i = 0; i < r->ev->len; i++) {
    const Ev *e = &g_array_index (r->ev, Ev, i);
    if (e->kind == EV_COUNT && strcmp (e->name, name) == 0 && e->t <= t) {
      *v = e->value;
      found = TRUE;
    }
  }
  return found;
}

static const Ev *
ref_slice_at (const Run *r, const char *name, SimTime t)
{
  for (guint i = 0; i < r->ev->len; i++) {
    const Ev *e = &g_array_index (r->ev, Ev, i);
    if (e->kind == EV_SLICE && strcmp (e->name, name) == 0 && e->t <= t && t < e->t + e->dur)
      return e;
  }
  return NULL;
}

/* --- a strict VCD reader ----------------------------------------------------------------------------------- */

/* The value of a signal that is x (unknown): no counter reaches it. */
#define VCD_X G_MAXUINT64

typedef struct {
  char *path; /* scope.name */
  guint width;
  GArray *times, *values; /* SimTime, guint64: the changes, in file order */
} VcdVar;

typedef struct {
  GHashTable *by_id; /* id -> VcdVar */
  GHashTable *by_path; /* path -> VcdVar (borrowed) */
  char *timescale;
  GArray *stamps; /* SimTime, every #T */
  gboolean dumpvars_complete;
  gboolean truncated_comment;
} Vcd;

static void
vcd_var_free (gpointer p)
{
  VcdVar *v = p;
  g_free (v->path);
  g_array_unref (v->times);
  g_array_unref (v->values);
  g_free (v);
}

static void
vcd_clear (Vcd *v)
{
  g_hash_table_unref (v->by_id);
  g_hash_table_unref (v->by_path);
  g_free (v->timescale);
  g_array_unref (v->stamps);
}

/* Parse `text`; on any departure from the format, fail naming the line. `ours`: the file is one of ours, so
 * also insist on our layout (a complete $dumpvars at the first time). */
static void
vcd_parse (Vcd *v, const char *text, gboolean ours)
{
  memset (v, 0, sizeof *v);
  v->by_id = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, vcd_var_free);
  v->by_path = g_hash_table_new (g_str_hash, g_str_equal);
  v->stamps = g_array_new (FALSE, FALSE, sizeof (SimTime));
  g_auto (GStrv) tokens = g_strsplit_set (text, " \t\n", -1);
  g_autoptr (GPtrArray) scope = g_ptr_array_new ();
  gboolean defs_done = FALSE, in_dump = FALSE, have_time = FALSE;
  SimTime now = 0;
  guint dumped = 0;
  for (char **tk = tokens; *tk; tk++) {
    const char *w = *tk;
    if (*w == '\0')
      continue;
    if (!defs_done) {
      /* Header: $keyword … $end. */
      ck_assert_msg (w[0] == '$', "header token '%s' is not a $keyword", w);
      g_autoptr (GPtrArray) args = g_ptr_array_new ();
      char **a = tk + 1;
      for (; *a && strcmp (*a, "$end") != 0; a++)
        if (**a)
          g_ptr_array_add (args, *a);
      ck_assert_msg (*a != NULL, "%s without $end", w);
      if (strcmp (w, "$scope") == 0) {
        ck_assert_msg (args->len == 2, "$scope takes a type and a name");
        g_ptr_array_add (scope, args->pdata[1]);
      } else if (strcmp (w, "$upscope") == 0) {
        ck_assert_msg (scope->len > 0, "$upscope outside any scope");
        g_ptr_array_remove_index (scope, scope->len - 1);
      } else if (strcmp (w, "$var") == 0) {
        ck_assert_msg (args->len >= 4, "$var needs type, size, id, name");
        const char *id = args->pdata[2];
        for (const char *c = id; *c; c++)
          ck_assert_msg (*c >= 33 && *c <= 126, "identifier '%s' has a character outside 33..126", id);
        ck_assert_msg (!g_hash_table_contains (v->by_id, id), "identifier '%s' declared twice", id);
        VcdVar *var = g_new0 (VcdVar, 1);
        GString *p = g_string_new (NULL);
        for (guint s = 0; s < scope->len; s++)
          g_string_append_printf (p, "%s.", (char *) scope->pdata[s]);
        g_string_append (p, args->pdata[3]);
        var->path = g_string_free (p, FALSE);
        var->width = (guint) g_ascii_strtoull (args->pdata[1], NULL, 10);
        ck_assert_msg (var->width >= 1 && var->width <= 64, "%s: width %u", var->path, var->width);
        var->times = g_array_new (FALSE, FALSE, sizeof (SimTime));
        var->values = g_array_new (FALSE, FALSE, sizeof (guint64));
        g_hash_table_insert (v->by_id, g_strdup (id), var);
        g_hash_table_insert (v->by_path, var->path, var);
      } else if (strcmp (w, "$timescale") == 0) {
        g_autofree char *joined = g_strjoinv ("", (char **) (g_ptr_array_add (args, NULL), args->pdata));
        v->timescale = g_strdup (joined);
      } else if (strcmp (w, "$enddefinitions") == 0) {
        ck_assert_msg (scope->len == 0, "$enddefinitions inside a scope");
        defs_done = TRUE;
      } else
        ck_assert_msg (strcmp (w, "$version") == 0 || strcmp (w, "$comment") == 0 || strcmp (w, "$date") == 0,
          "unknown header command %s", w);
      tk = a;
      continue;
    }
    if (w[0] == '#') {
      char *end = NULL;
      SimTime t = g_ascii_strtoull (w + 1, &end, 10);
      ck_assert_msg (end && *end == '\0' && end != w + 1, "bad time '%s'", w);
      ck_assert_msg (!have_time || t > now, "time #%" G_GUINT64_FORMAT " after #%" G_GUINT64_FORMAT, t, now);
      now = t;
      have_time = TRUE;
      g_array_append_val (v->stamps, t);
      continue;
    }
    if (strcmp (w, "$dumpvars") == 0) {
      ck_assert_msg (have_time && !in_dump, "$dumpvars before any time");
      in_dump = TRUE;
      continue;
    }
    if (strcmp (w, "$end") == 0) {
      ck_assert_msg (in_dump, "stray $end");
      in_dump = FALSE;
      if (ours)
        ck_assert_msg (dumped == g_hash_table_size (v->by_id), "$dumpvars has %u of %u signals", dumped,
          g_hash_table_size (v->by_id));
      v->dumpvars_complete = dumped == g_hash_table_size (v->by_id);
      continue;
    }
    if (strcmp (w, "$comment") == 0) {
      g_autoptr (GString) c = g_string_new (NULL);
      for (tk++; *tk && strcmp (*tk, "$end") != 0; tk++)
        g_string_append_printf (c, "%s%s", c->len ? " " : "", *tk);
      ck_assert_msg (*tk != NULL, "$comment without $end");
      v->truncated_comment = strstr (c->str, "truncated") != NULL;
      continue;
    }
    /* A value change: bVALUE ID, or a scalar 0ID / 1ID. */
    ck_assert_msg (have_time, "value change '%s' before any time", w);
    const char *id;
    guint64 val = 0;
    guint bits = 1;
    if (w[0] == 'b') {
      bits = (guint) strlen (w + 1);
      for (const char *c = w + 1; *c; c++) {
        ck_assert_msg (*c == '0' || *c == '1' || *c == 'x', "bad vector '%s'", w);
        val = *c == 'x' || val == VCD_X ? VCD_X : val << 1 | (guint64) (*c - '0');
      }
      id = *++tk;
      ck_assert_msg (id != NULL, "vector '%s' without identifier", w);
    } else {
      ck_assert_msg (w[0] == '0' || w[0] == '1' || w[0] == 'x', "bad value change '%s'", w);
      val = w[0] == 'x' ? VCD_X : (guint64) (w[0] - '0');
      id = w + 1;
    }
    VcdVar *var = g_hash_table_lookup (v->by_id, id);
    ck_assert_msg (var != NULL, "change of undeclared identifier '%s'", id);
    /* Leading zeros may pad a vector to its width, never beyond. */
    ck_assert_msg (bits <= var->width || val == VCD_X || val >> var->width == 0, "%s: value of %u bits in a %u-bit signal",
      var->path, bits, var->width);
    g_array_append_val (var->times, now);
    g_array_append_val (var->values, val);
    dumped += in_dump;
  }
  ck_assert_msg (defs_done, "no $enddefinitions");
}

/* The signal's value at t: its last change at or before t. */
static guint64
vcd_at (const Vcd *v, const char *path, SimTime t)
{
  const VcdVar *var = g_hash_table_lookup (v->by_path, path);
  ck_assert_msg (var != NULL, "no signal %s", path);
  guint64 val = 0;
  gboolean any = FALSE;
  for (guint i = 0; i < var->times->len && g_array_index (var->times, SimTime, i) <= t; i++) {
    val = g_array_index (var->values, guint64, i);
    any = TRUE;
  }
  ck_assert_msg (any, "%s has no value at %" G_GUINT64_FORMAT " ps", path, t);
  return val;
}

/* Every reference time: each track's state and attributes, and each counter's value, are the reference's. */
static void
vcd_matches_run (const Vcd *v, const Run *r, SimTime from, SimTime to)
{
  static const char *const tracks[] = { "link0.down.wire", "link0.up.wire", "ep.dma.phase" };
  static const char *const counters[] = { "link0.up.credits_nph", "link0.up.credits_ph", "link0.up.replay_bytes",
                                          "link0.down.replay_bytes", "ep.dma.tags_outstanding" };
  guint checked = 0;
  for (guint i = 0; i < r->ev->len; i++) {
    const SimTime ts[2] = { g_array_index (r->ev, Ev, i).t,
                            g_array_index (r->ev, Ev, i).t + g_array_index (r->ev, Ev, i).dur };
    for (guint k = 0; k < 2; k++) {
      const SimTime t = ts[k];
      if (t < from || t >= to)
        continue;
      for (guint n = 0; n < G_N_ELEMENTS (tracks); n++) {
        const Ev *s = ref_slice_at (r, tracks[n], t);
        ck_assert_msg (vcd_at (v, tracks[n], t) == (s ? s->state : 0), "%s at %" G_GUINT64_FORMAT " ps: %"
          G_GUINT64_FORMAT ", want %u", tracks[n], t, vcd_at (v, tracks[n], t), s ? s->state : 0);
        if (s && s->state != 0 && strstr (tracks[n], "wire")) {
          g_autofree char *tag = g_strconcat (tracks[n], "_tag", NULL);
          g_autofree char *len = g_strconcat (tracks[n], "_length_bytes", NULL);
          ck_assert_uint_eq (vcd_at (v, tag, t), s->a0);
          ck_assert_uint_eq (vcd_at (v, len, t), s->a1);
        }
      }
      for (guint n = 0; n < G_N_ELEMENTS (counters); n++) {
        /* Not set yet: unknown. */
        uint64_t want = VCD_X;
        ref_counter_at (r, counters[n], t, &want);
        ck_assert_msg (vcd_at (v, counters[n], t) == want, "%s at %" G_GUINT64_FORMAT " ps: %" G_GUINT64_FORMAT
          ", want %" G_GUINT64_FORMAT, counters[n], t, vcd_at (v, counters[n], t), want);
      }
      checked++;
    }
  }
  ck_assert_msg (checked > 10, "only %u reference times inside the file", checked);
}

/* --- JSON -------------------------------------------------------------------------------------------------- */

static JsonNode *
json_load (const char *path)
{
  g_autofree char *text = slurp (path);
  g_autoptr (GError) e = NULL;
  JsonNode *root = ps_json_parse (text, -1, &e);
  ck_assert_msg (root != NULL, "%s does not parse: %s", path, e ? e->message : "?");
  return root;
}

static SimTime
ts_ps (JsonObject *o, const char *key)
{
  ck_assert_msg (json_object_has_member (o, key), "event without %s", key);
  double us = json_object_get_double_member (o, key);
  ck_assert_msg (us >= 0, "negative %s", key);
  return (SimTime) llround (us * 1e6);
}

typedef struct {
  SimTime ts, end;
} Span;

typedef struct {
  GHashTable *thread; /* tid -> name */
  GHashTable *slices; /* tid -> GArray of Span */
  GHashTable *kinds; /* slice name -> count (in a GUINT_TO_POINTER) */
  GHashTable *last_counter; /* counter name -> last value */
  GHashTable *first_counter_ts; /* counter name -> first ts */
  guint flows, instants;
  SimTime min_ts, max_end;
  JsonNode *root;
} Perfetto;

static void
perfetto_clear (Perfetto *p)
{
  g_hash_table_unref (p->thread);
  g_hash_table_unref (p->slices);
  g_hash_table_unref (p->kinds);
  g_hash_table_unref (p->last_counter);
  g_hash_table_unref (p->first_counter_ts);
  json_node_unref (p->root);
}

/* Read and check the file: the structure, per-track order and overlap, flows bound to slices, counters >= 0. */
static void
perfetto_load (Perfetto *p, const char *path)
{
  memset (p, 0, sizeof *p);
  p->root = json_load (path);
  p->thread = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  p->slices = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, (GDestroyNotify) g_array_unref);
  p->kinds = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  p->last_counter = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  p->first_counter_ts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  p->min_ts = SIM_TIME_MAX;
  ck_assert (JSON_NODE_HOLDS_OBJECT (p->root));
  JsonArray *ev = json_object_get_array_member (json_node_get_object (p->root), "traceEvents");
  ck_assert (ev != NULL);
  typedef struct {
    guint tid;
    SimTime ts;
    const char *ph;
    guint64 id;
  } Flow;
  g_autoptr (GArray) flows = g_array_new (FALSE, FALSE, sizeof (Flow));
  for (guint i = 0; i < json_array_get_length (ev); i++) {
    JsonObject *o = json_array_get_object_element (ev, i);
    const char *ph = json_object_get_string_member (o, "ph");
    const char *name = json_object_get_string_member_with_default (o, "name", "");
    const guint tid = (guint) json_object_get_int_member_with_default (o, "tid", 0);
    ck_assert_int_eq (json_object_get_int_member (o, "pid"), 1);
    if (strcmp (ph, "M") == 0) {
      JsonObject *args = json_object_get_object_member (o, "args");
      if (strcmp (name, "thread_name") == 0)
        g_hash_table_insert (p->thread, GUINT_TO_POINTER (tid),
          g_strdup (json_object_get_string_member (args, "name")));
    } else if (strcmp (ph, "X") == 0) {
      ck_assert_msg (g_hash_table_contains (p->thread, GUINT_TO_POINTER (tid)), "slice on unnamed track %u", tid);
      Span s = { ts_ps (o, "ts"), 0 };
      s.end = s.ts + ts_ps (o, "dur");
      GArray *a = g_hash_table_lookup (p->slices, GUINT_TO_POINTER (tid));
      if (a == NULL) {
        a = g_array_new (FALSE, FALSE, sizeof (Span));
        g_hash_table_insert (p->slices, GUINT_TO_POINTER (tid), a);
      } else {
        const Span *prev = &g_array_index (a, Span, a->len - 1);
        ck_assert_msg (s.ts >= prev->end, "track %u: slice at %" G_GUINT64_FORMAT " ps starts before the previous "
          "ends (%" G_GUINT64_FORMAT " ps)", tid, s.ts, prev->end);
      }
      g_array_append_val (a, s);
      guint n = GPOINTER_TO_UINT (g_hash_table_lookup (p->kinds, name));
      g_hash_table_insert (p->kinds, g_strdup (name), GUINT_TO_POINTER (n + 1));
      p->min_ts = MIN (p->min_ts, s.ts);
      p->max_end = MAX (p->max_end, s.end);
    } else if (strcmp (ph, "C") == 0) {
      JsonObject *args = json_object_get_object_member (o, "args");
      gint64 v = json_object_get_int_member (args, "value");
      ck_assert_msg (v >= 0, "counter %s negative: %" G_GINT64_FORMAT, name, v);
      g_hash_table_insert (p->last_counter, g_strdup (name), g_memdup2 (&v, sizeof v));
      SimTime ts = ts_ps (o, "ts");
      if (!g_hash_table_contains (p->first_counter_ts, name))
        g_hash_table_insert (p->first_counter_ts, g_strdup (name), g_memdup2 (&ts, sizeof ts));
      p->min_ts = MIN (p->min_ts, ts);
      p->max_end = MAX (p->max_end, ts);
    } else if (strcmp (ph, "s") == 0 || strcmp (ph, "t") == 0 || strcmp (ph, "f") == 0) {
      ck_assert_str_eq (json_object_get_string_member (o, "cat"), "flow");
      if (ph[0] != 's')
        ck_assert_str_eq (json_object_get_string_member (o, "bp"), "e");
      Flow f = { tid, ts_ps (o, "ts"), ph, (guint64) json_object_get_int_member (o, "id") };
      g_array_append_val (flows, f);
      p->flows++;
    } else {
      ck_assert_msg (strcmp (ph, "i") == 0, "unexpected phase %s", ph);
      p->instants++;
    }
  }
  /* Every flow event lies in a slice of its own track, and every step or end follows its start. */
  g_autoptr (GHashTable) started = g_hash_table_new (g_int64_hash, g_int64_equal);
  for (guint i = 0; i < flows->len; i++) {
    Flow *f = &g_array_index (flows, Flow, i);
    GArray *a = g_hash_table_lookup (p->slices, GUINT_TO_POINTER (f->tid));
    gboolean inside = FALSE;
    for (guint k = 0; a && k < a->len && !inside; k++)
      inside = g_array_index (a, Span, k).ts <= f->ts && f->ts <= g_array_index (a, Span, k).end;
    ck_assert_msg (inside, "flow %s id %" G_GUINT64_FORMAT " at %" G_GUINT64_FORMAT " ps is in no slice of track %u",
      f->ph, f->id, f->ts, f->tid);
    if (f->ph[0] == 's')
      g_hash_table_add (started, &f->id);
    else
      ck_assert_msg (g_hash_table_contains (started, &f->id), "flow %" G_GUINT64_FORMAT " %s without its start",
        f->id, f->ph);
  }
}

static guint
kind_count (const Perfetto *p, const char *name)
{
  return GPOINTER_TO_UINT (g_hash_table_lookup (p->kinds, name));
}

static gint64
last_counter (const Perfetto *p, const char *name)
{
  const gint64 *v = g_hash_table_lookup (p->last_counter, name);
  ck_assert_msg (v != NULL, "no counter %s", name);
  return *v;
}

/* --- tests ------------------------------------------------------------------------------------------------- */

START_TEST (test_vcd_well_formed)
{
  g_autofree char *dir = case_dir ("vcd");
  Run r;
  g_autofree char *path = write_trace (&r, dir, "run.vcd", &all);
  g_autofree char *text = slurp (path);
  ck_assert_msg (g_str_has_prefix (text, "$version pciesim $end\n$timescale 1 ps $end\n"), "header: %.60s", text);
  Vcd v;
  vcd_parse (&v, text, TRUE);
  ck_assert_str_eq (v.timescale, "1ps");
  /* 2 wires x (state, tag, length) + 2 x (6 credits + replay) + the DMA's phase and fetch tracks with their 2
   * attributes each + tags. */
  ck_assert_uint_eq (g_hash_table_size (v.by_id), 2 * 3 + 2 * 7 + 2 * 3 + 1);
  ck_assert (v.dumpvars_complete);
  /* The first time is 0 (the dump), the last the end of the last slice: the status write's. */
  ck_assert_uint_eq (g_array_index (v.stamps, SimTime, 0), 0);
  ck_assert_uint_eq (g_array_index (v.stamps, SimTime, v.stamps->len - 1), NS (1000 + 400 * READS + 20));
  vcd_matches_run (&v, &r, 0, SIM_TIME_MAX);
  /* The state names are in the header, for a reader without docs/traces.md. */
  ck_assert (strstr (text, "$comment link0.up.wire states: 0=idle 1=MWr 2=MRd 3=CplD") != NULL);
  vcd_clear (&v);
  run_clear (&r);
}
END_TEST

/* GTKWave's reader: vcd2fst exits 0 whatever it is fed (measured: garbage too), so the FST it wrote is read
 * back with fst2vcd and must give the same waveform as ours, signal by signal. */
static void
assert_gtkwave_reads (const char *vcd_path, const Run *r, SimTime from, SimTime to)
{
  g_autofree char *vcd2fst = g_find_program_in_path ("vcd2fst");
  g_autofree char *fst2vcd = g_find_program_in_path ("fst2vcd");
  if (vcd2fst == NULL || fst2vcd == NULL) {
    fprintf (stderr, "# SKIP GTKWave check: vcd2fst/fst2vcd not found (Debian package gtkwave, installed by "
      "scripts/test)\n");
    return;
  }
  g_autofree char *fst = g_strconcat (vcd_path, ".fst", NULL);
  g_auto (TestRun) conv;
  run_program (&conv, vcd2fst, NULL, (const char *const[]) { vcd_path, fst, NULL });
  ck_assert_msg (conv.status == 0, "vcd2fst: status %d: %s", conv.status, conv.err);
  g_auto (TestRun) back;
  run_program (&back, fst2vcd, NULL, (const char *const[]) { fst, NULL });
  ck_assert_msg (back.status == 0 && strstr (back.out, "$enddefinitions") != NULL, "fst2vcd: status %d: %s",
    back.status, back.err);
  Vcd theirs;
  vcd_parse (&theirs, back.out, FALSE);
  g_autofree char *text = slurp (vcd_path);
  Vcd ours;
  vcd_parse (&ours, text, TRUE);
  ck_assert_uint_eq (g_hash_table_size (theirs.by_id), g_hash_table_size (ours.by_id));
  if (r)
    vcd_matches_run (&theirs, r, from, to);
  vcd_clear (&theirs);
  vcd_clear (&ours);
}

START_TEST (test_vcd_gtkwave)
{
  g_autofree char *dir = case_dir ("gtkwave");
  Run r;
  g_autofree char *path = write_trace (&r, dir, "run.vcd", &all);
  assert_gtkwave_reads (path, &r, 0, SIM_TIME_MAX);
  run_clear (&r);
}
END_TEST

START_TEST (test_json_valid)
{
  g_autofree char *dir = case_dir ("json");
  Run r;
  g_autofree char *path = write_trace (&r, dir, "run.json", &all);
  Perfetto p;
  perfetto_load (&p, path);
  /* Tracks named as declared, in declaration order (tid = order + 1). */
  ck_assert_str_eq (g_hash_table_lookup (p.thread, GUINT_TO_POINTER (1)), "link0.down.wire");
  ck_assert_str_eq (g_hash_table_lookup (p.thread, GUINT_TO_POINTER (2)), "link0.up.wire");
  ck_assert_str_eq (g_hash_table_lookup (p.thread, GUINT_TO_POINTER (3)), "ep.dma.phase");
  ck_assert_str_eq (g_hash_table_lookup (p.thread, GUINT_TO_POINTER (4)), "ep.dma.fetch");
  ck_assert_uint_eq (g_hash_table_size (p.thread), 4);
  /* The TLP and DLLP counts are the run's: READS MRds, two CplDs each, an Ack each way per read. */
  ck_assert_uint_eq (kind_count (&p, "MRd"), READS);
  ck_assert_uint_eq (kind_count (&p, "CplD"), 2 * READS);
  ck_assert_uint_eq (kind_count (&p, "Ack"), 2 * READS);
  ck_assert_uint_eq (kind_count (&p, "UpdateFC_NP"), READS);
  ck_assert_uint_eq (kind_count (&p, "descriptor_fetch"), 1);
  ck_assert_uint_eq (kind_count (&p, "transfer"), 1);
  ck_assert_uint_eq (p.flows, 3 * READS);
  ck_assert_uint_eq (p.instants, 0);
  /* Counters end where the run left them: every credit back, no tag or replay byte outstanding. */
  ck_assert_int_eq (last_counter (&p, "link0.up.credits_nph"), 4);
  ck_assert_int_eq (last_counter (&p, "ep.dma.tags_outstanding"), 0);
  ck_assert_int_eq (last_counter (&p, "link0.down.replay_bytes"), 0);
  /* Times to the picosecond: the last slice ends at 1000 + 400 READS + 20 ns. */
  ck_assert_uint_eq (p.max_end, NS (1000 + 400 * READS + 20));
  perfetto_clear (&p);
  run_clear (&r);
}
END_TEST

/* Window [2950, 5010) ns. Read 4 (t0 = 2600 ns) has its second CplD on 2940..2976 ns: it straddles the start and
 * is clipped to 2950..2976; the DMA transfer slice (1000..17000 ns) is clipped to the whole window; read 10
 * (t0 = 5000 ns) has its MRd inside (5000..5004) and everything after outside. */
#define WIN_START NS (2950)
#define WIN_END NS (5010)

START_TEST (test_json_window)
{
  g_autofree char *dir = case_dir ("json-window");
  Run r;
  const SimTraceOptions o = { WIN_START, WIN_END, 0 };
  g_autofree char *path = write_trace (&r, dir, "win.json", &o);
  Perfetto p;
  perfetto_load (&p, path);
  ck_assert_uint_eq (p.min_ts, WIN_START);
  ck_assert_uint_le (p.max_end, WIN_END);
  /* MRds with t0 in the window: reads 5..10 (t0 = 3000 ... 5000 ns). */
  ck_assert_uint_eq (kind_count (&p, "MRd"), 6);
  /* CplDs overlapping it: read 4's second (clipped) and reads 5..9's two. */
  ck_assert_uint_eq (kind_count (&p, "CplD"), 1 + 2 * 5);
  ck_assert_uint_eq (kind_count (&p, "transfer"), 1);
  ck_assert_uint_eq (kind_count (&p, "descriptor_fetch"), 0);
  GArray *down = g_hash_table_lookup (p.slices, GUINT_TO_POINTER (1));
  ck_assert_uint_eq (g_array_index (down, Span, 0).ts, WIN_START);
  ck_assert_uint_eq (g_array_index (down, Span, 0).end, NS (2976));
  GArray *dma = g_hash_table_lookup (p.slices, GUINT_TO_POINTER (3));
  ck_assert_uint_eq (g_array_index (dma, Span, 0).ts, WIN_START);
  ck_assert_uint_eq (g_array_index (dma, Span, 0).end, WIN_END);
  /* Every counter set before the window starts there, with the value it had: read 4's tag is still out. */
  static const char *const counters[] = { "link0.up.credits_nph", "link0.up.credits_ph", "link0.up.replay_bytes",
                                          "link0.down.replay_bytes", "ep.dma.tags_outstanding" };
  for (guint i = 0; i < G_N_ELEMENTS (counters); i++) {
    const SimTime *first = g_hash_table_lookup (p.first_counter_ts, counters[i]);
    ck_assert_msg (first && *first == WIN_START, "%s does not start at the window", counters[i]);
  }
  perfetto_clear (&p);
  run_clear (&r);
}
END_TEST

START_TEST (test_vcd_window)
{
  g_autofree char *dir = case_dir ("vcd-window");
  Run r;
  const SimTraceOptions o = { WIN_START, WIN_END, 0 };
  g_autofree char *path = write_trace (&r, dir, "win.vcd", &o);
  g_autofree char *text = slurp (path);
  Vcd v;
  vcd_parse (&v, text, TRUE);
  /* The dump is at the window's start, the last mark at its end, and nothing lies outside. */
  ck_assert_uint_eq (g_array_index (v.stamps, SimTime, 0), WIN_START);
  ck_assert_uint_eq (g_array_index (v.stamps, SimTime, v.stamps->len - 1), WIN_END);
  /* At the start the down wire is in read 4's second CplD (tag 4), and read 4's tag is outstanding. */
  ck_assert_uint_eq (vcd_at (&v, "link0.down.wire", WIN_START), TRACE_WIRE_CPLD);
  ck_assert_uint_eq (vcd_at (&v, "link0.down.wire_tag", WIN_START), 4);
  ck_assert_uint_eq (vcd_at (&v, "ep.dma.tags_outstanding", WIN_START), 1);
  vcd_matches_run (&v, &r, WIN_START, WIN_END);
  vcd_clear (&v);
  assert_gtkwave_reads (path, &r, WIN_START, WIN_END);
  run_clear (&r);
}
END_TEST

/* stderr of the calls between begin and end, into a file, read back. */
typedef struct {
  int saved;
  char *path;
} Capture;

static void
capture_begin (Capture *c, const char *dir)
{
  c->path = g_build_filename (dir, "stderr.txt", NULL);
  fflush (stderr);
  c->saved = dup (2);
  FILE *f = fopen (c->path, "w");
  ck_assert (f != NULL);
  dup2 (fileno (f), 2);
  fclose (f);
}

static char *
capture_end (Capture *c)
{
  fflush (stderr);
  dup2 (c->saved, 2);
  close (c->saved);
  char *text = slurp (c->path);
  g_free (c->path);
  return text;
}

/* Caps as shares of the uncapped file's size: a few events past the header, a quarter, a half, one byte short
 * (which must truncate: the writer keeps room for its marker), and twice the size (which must not). */
static const double cap_shares[] = { 0.12, 0.25, 0.5, -1, 2 };

static guint64
full_size (const char *dir, const char *name)
{
  Run r;
  g_autofree char *path = write_trace (&r, dir, name, &all);
  run_clear (&r);
  struct stat st;
  ck_assert_int_eq (g_stat (path, &st), 0);
  return (guint64) st.st_size;
}

/* Write the capped trace; returns its text, with the uncapped one in *full and stderr in *err. */
static char *
write_capped (const char *dir, const char *ext, double share, gsize *len, char **full, char **err)
{
  g_autofree char *full_name = g_strdup_printf ("full.%s", ext), *name = g_strdup_printf ("cap.%s", ext);
  const guint64 size = full_size (dir, full_name);
  const guint64 cap = share < 0 ? size - 1 : (guint64) (share * (double) size);
  Run r;
  const SimTraceOptions o = { 0, SIM_TIME_MAX, cap };
  Capture c;
  capture_begin (&c, dir);
  g_autofree char *path = write_trace (&r, dir, name, &o);
  *err = capture_end (&c);
  run_clear (&r);
  g_autofree char *fp = g_build_filename (dir, full_name, NULL);
  *full = slurp (fp);
  char *text = NULL;
  ck_assert (g_file_get_contents (path, &text, len, NULL));
  ck_assert_msg (*len <= cap, "%zu bytes under a cap of %" G_GUINT64_FORMAT, *len, cap);
  return text;
}

/* Under the cap the file parses, keeps its checks (order, overlap, flows), ends with the truncation instant,
 * and stderr says so in one line; above the full size nothing changes. */
START_TEST (test_json_cap)
{
  g_autofree char *dir = case_dir ("json-cap");
  gsize len;
  g_autofree char *full = NULL, *err = NULL;
  g_autofree char *text = write_capped (dir, "json", cap_shares[_i], &len, &full, &err);
  if (cap_shares[_i] > 1) {
    ck_assert_str_eq (text, full);
    ck_assert_str_eq (err, "");
    return;
  }
  g_autofree char *path = g_build_filename (dir, "cap.json", NULL);
  Perfetto p;
  perfetto_load (&p, path);
  ck_assert_uint_eq (p.instants, 1);
  /* The marker is the last event, and the ending follows it. */
  const char *mark = strstr (text, "\"name\": \"trace truncated at the size cap\"");
  ck_assert (mark != NULL && strstr (mark, "\"ph\"") == NULL);
  ck_assert (g_str_has_suffix (text, "}\n]}\n"));
  ck_assert_msg (g_str_has_prefix (err, "pciesim: warning: trace ") && strstr (err, "size cap of") != NULL
                   && strchr (err, '\n') == err + strlen (err) - 1, "stderr: '%s'", err);
  perfetto_clear (&p);
}
END_TEST

START_TEST (test_vcd_cap)
{
  g_autofree char *dir = case_dir ("vcd-cap");
  gsize len;
  g_autofree char *full = NULL, *err = NULL;
  g_autofree char *text = write_capped (dir, "vcd", cap_shares[_i], &len, &full, &err);
  if (cap_shares[_i] > 1) {
    ck_assert_str_eq (text, full);
    ck_assert_str_eq (err, "");
    return;
  }
  Vcd v;
  vcd_parse (&v, text, TRUE);
  ck_assert (v.truncated_comment);
  ck_assert (g_str_has_suffix (text, "$comment trace truncated at the size cap $end\n"));
  /* What is there is the start of the full file: the cap cuts, it does not change. */
  ck_assert (strncmp (text, full, len - strlen ("$comment trace truncated at the size cap $end\n")) == 0);
  ck_assert_msg (g_str_has_prefix (err, "pciesim: warning: trace ") && strstr (err, "size cap of") != NULL, "%s",
    err);
  vcd_clear (&v);
  g_autofree char *path = g_build_filename (dir, "cap.vcd", NULL);
  assert_gtkwave_reads (path, NULL, 0, 0);
}
END_TEST

/* A cap that cannot hold the header and ending fails at the start, as a usage error, and leaves no file. */
START_TEST (test_cap_below_header)
{
  g_autofree char *dir = case_dir ("tiny");
  static const char *const names[] = { "t.vcd", "t.json" };
  for (guint i = 0; i < 2; i++) {
    g_autofree char *path = g_build_filename (dir, names[i], NULL);
    const SimTraceOptions o = { 0, SIM_TIME_MAX, 100 };
    SimTrace *t = sim_trace_open (path, &o, NULL);
    TraceLinkDir d;
    trace_link_dir_declare (t, "link0.down", &d);
    g_autoptr (GError) e = NULL;
    ck_assert (!sim_trace_start (t, &e));
    ck_assert (g_error_matches (e, SIM_TRACE_ERROR, SIM_TRACE_ERROR_USAGE));
    sim_trace_abort (t);
    ck_assert (!g_file_test (path, G_FILE_TEST_EXISTS));
  }
  /* Nothing else either: no temporary file left beside it. */
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  ck_assert_ptr_null (g_dir_read_name (d));
}
END_TEST

/* Same events, same bytes (no date in the VCD header, no address or clock anywhere). */
START_TEST (test_deterministic)
{
  g_autofree char *dir = case_dir ("det");
  for (guint f = 0; f < 2; f++) {
    const char *ext = f ? "json" : "vcd";
    Run r1, r2;
    g_autofree char *n1 = g_strdup_printf ("a.%s", ext), *n2 = g_strdup_printf ("b.%s", ext);
    g_autofree char *p1 = write_trace (&r1, dir, n1, &all), *p2 = write_trace (&r2, dir, n2, &all);
    g_autofree char *t1 = slurp (p1), *t2 = slurp (p2);
    ck_assert_str_eq (t1, t2);
    run_clear (&r1);
    run_clear (&r2);
  }
}
END_TEST

/* An event reported for a time before one the VCD already wrote is written at the latest time, so the file's
 * times still increase; JSON keeps the time as given. */
START_TEST (test_vcd_late_event)
{
  g_autofree char *dir = case_dir ("late");
  g_autofree char *path = g_build_filename (dir, "late.vcd", NULL);
  SimTrace *t = sim_trace_open (path, &all, NULL);
  SimTraceCounter a = sim_trace_add_counter (t, "x", "a", 8), b = sim_trace_add_counter (t, "x", "b", 8);
  ck_assert (sim_trace_start (t, NULL));
  sim_trace_count (t, a, 1000, 1);
  sim_trace_count (t, a, 2000, 2);
  sim_trace_count (t, b, 1500, 7);
  sim_trace_count (t, a, 3000, 3);
  ck_assert (sim_trace_close (t, NULL));
  g_autofree char *text = slurp (path);
  Vcd v;
  vcd_parse (&v, text, TRUE);
  ck_assert_uint_eq (vcd_at (&v, "x.b", 1999), VCD_X); /* not set before */
  ck_assert_uint_eq (vcd_at (&v, "x.b", 2000), 7);
  ck_assert_uint_eq (vcd_at (&v, "x.a", 2999), 2);
  ck_assert_uint_eq (vcd_at (&v, "x.a", 3000), 3);
  vcd_clear (&v);
}
END_TEST

/* abort removes everything; a successful close leaves exactly PATH. */
START_TEST (test_abort_and_close)
{
  g_autofree char *dir = case_dir ("abort");
  g_autofree char *path = g_build_filename (dir, "x.json", NULL);
  SimTrace *t = sim_trace_open (path, &all, NULL);
  SimTraceCounter c = sim_trace_add_counter (t, "x", "c", 8);
  ck_assert (sim_trace_start (t, NULL));
  sim_trace_count (t, c, 5, 1);
  sim_trace_abort (t);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  ck_assert_ptr_null (g_dir_read_name (d));
  Run r;
  g_autofree char *p = write_trace (&r, dir, "y.vcd", &all);
  g_autoptr (GDir) d2 = g_dir_open (dir, 0, NULL);
  ck_assert_str_eq (g_dir_read_name (d2), "y.vcd");
  ck_assert_ptr_null (g_dir_read_name (d2));
  run_clear (&r);
  /* A directory that does not exist: cannot create (73), nothing written. */
  g_autofree char *bad = g_build_filename (dir, "no", "such", "t.vcd", NULL);
  g_autoptr (GError) e = NULL;
  ck_assert (sim_trace_open (bad, &all, &e) == NULL);
  ck_assert (g_error_matches (e, SIM_TRACE_ERROR, SIM_TRACE_ERROR_IO));
}
END_TEST

START_TEST (test_format_from_path)
{
  SimTraceFormat f;
  ck_assert (sim_trace_format_from_path ("a/b.vcd", &f, NULL) && f == SIM_TRACE_VCD);
  ck_assert (sim_trace_format_from_path ("B.JSON", &f, NULL) && f == SIM_TRACE_JSON);
  g_autoptr (GError) e = NULL;
  ck_assert (!sim_trace_format_from_path ("trace.txt", &f, &e));
  ck_assert (g_error_matches (e, SIM_TRACE_ERROR, SIM_TRACE_ERROR_USAGE));
  ck_assert (!sim_trace_format_from_path ("vcd", &f, NULL));
}
END_TEST

typedef struct {
  const char *arg;
  gboolean ok;
  SimTime start, end;
} WindowCase;

static const WindowCase window_cases[] = {
  { "100:200", TRUE, 100000, 200000 },
  { ":5", TRUE, 0, 5000 },
  { "5:", TRUE, 5000, SIM_TIME_MAX },
  { "1.5:2.0005", TRUE, 1500, 2001 },
  { "0:1e3", TRUE, 0, 1000000 },
  { "", FALSE, 0, 0 },
  { "5", FALSE, 0, 0 },
  { "a:b", FALSE, 0, 0 },
  { "5:5", FALSE, 0, 0 },
  { "6:5", FALSE, 0, 0 },
  { "-1:5", FALSE, 0, 0 },
  { "1:2:3", FALSE, 0, 0 },
  { " 1:2", FALSE, 0, 0 },
  { "nan:5", FALSE, 0, 0 },
  { "1:inf", FALSE, 0, 0 },
};

START_TEST (test_parse_window)
{
  const WindowCase *c = &window_cases[_i];
  SimTraceOptions o = all;
  g_autoptr (GError) e = NULL;
  gboolean ok = sim_trace_parse_window (c->arg, &o, &e);
  ck_assert_msg (ok == c->ok, "'%s': %s", c->arg, ok ? "accepted" : e->message);
  if (ok) {
    ck_assert_uint_eq (o.window_start_ps, c->start);
    ck_assert_uint_eq (o.window_end_ps, c->end);
  } else
    ck_assert (g_error_matches (e, SIM_TRACE_ERROR, SIM_TRACE_ERROR_USAGE));
}
END_TEST

/* A slice that starts before the previous one on its track ends is a model bug: exit 70. */
START_TEST (test_overlap_is_internal_error)
{
  g_autofree char *path = g_build_filename (tmpdir_root, "overlap.json", NULL);
  SimTrace *t = sim_trace_open (path, &all, NULL);
  TraceLinkDir d;
  trace_link_dir_declare (t, "l", &d);
  sim_trace_start (t, NULL);
  trace_wire (t, &d, TRACE_WIRE_MWR, 100, 50, 0, 64);
  trace_wire (t, &d, TRACE_WIRE_MWR, 149, 50, 0, 64);
}
END_TEST

/* With tracing off the model's calls do nothing (and touch nothing: the pointer is all they read). */
START_TEST (test_null_trace)
{
  TraceLinkDir d = { 0 };
  TraceDma dma = { 0 };
  trace_link_dir_declare (NULL, "l", &d);
  trace_dma_declare (NULL, "d", &dma);
  ck_assert_uint_eq (trace_requester_declare (NULL, "r"), 0);
  trace_wire (NULL, &d, TRACE_WIRE_MRD, 0, 1, 0, 0);
  trace_credits (NULL, &d, FC_P, FC_DATA, 0, 1);
  trace_replay_bytes (NULL, &d, 0, 1);
  trace_tags (NULL, 0, 0, 1);
  trace_dma_phase (NULL, &dma, TRACE_DMA_TRANSFER, 0, 1, 0, 0);
  trace_read_request (NULL, &d, 1, 0);
  trace_read_completion (NULL, &d, 1, 0, TRUE);
}
END_TEST

/* scripts/plot-trace draws a PNG from the run's JSON (the 8-byte PNG signature, not the name: an error text
 * written to OUT would fail), names it after the input by default, and refuses what is not a trace with 65,
 * a missing file with 66 and a bad command line with 64, leaving no PNG behind. */
static const guint8 png_magic[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };

static void
assert_png (const char *path)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  ck_assert_msg (g_file_get_contents (path, &data, &len, NULL), "no %s", path);
  ck_assert_msg (len > 1000 && memcmp (data, png_magic, 8) == 0, "%s is not a PNG (%zu bytes)", path, len);
}

START_TEST (test_plot_trace)
{
  g_autofree char *dir = case_dir ("plot");
  g_autofree char *script = g_build_filename (source_root (), "scripts", "plot-trace", NULL);
  Run r;
  g_autofree char *json = write_trace (&r, dir, "run.json", &all);
  run_clear (&r);
  g_autofree char *png = g_build_filename (dir, "w.png", NULL);
  g_auto (TestRun) ok;
  run_program (&ok, script, NULL, (const char *const[]) { json, "--window", "2900:4200", "-o", png, NULL });
  ck_assert_msg (ok.status == 0, "plot-trace: status %d: %s", ok.status, ok.err);
  assert_png (png);
  g_auto (TestRun) dflt;
  run_program (&dflt, script, NULL, (const char *const[]) { json, NULL });
  ck_assert_msg (dflt.status == 0, "plot-trace: status %d: %s", dflt.status, dflt.err);
  g_autofree char *dflt_png = g_build_filename (dir, "run.png", NULL);
  assert_png (dflt_png);

  static const struct {
    const char *text; /* NULL: the file does not exist */
    const char *arg;
    int status;
  } bad[] = {
    { "{\"traceEvents\": [", NULL, 65 },
    { "{\"x\": 1}", NULL, 65 },
    { "[1, 2]", NULL, 65 },
    { "{\"traceEvents\": [{\"ph\": \"X\", \"tid\": 1}]}", NULL, 65 },
    { "{\"traceEvents\": [{\"ph\": \"C\", \"name\": \"c\", \"ts\": 1, \"args\": {\"value\": \"x\"}}]}", NULL, 65 },
    { NULL, NULL, 66 },
    { "{\"traceEvents\": []}", "5:1", 64 },
    { "{\"traceEvents\": []}", "x:1", 64 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    g_autofree char *name = g_strdup_printf ("bad%u.json", i);
    g_autofree char *in = bad[i].text ? write_file (dir, name, bad[i].text) : g_build_filename (dir, name, NULL);
    g_autofree char *out = g_build_filename (dir, "bad.png", NULL);
    g_auto (TestRun) b;
    if (bad[i].arg)
      run_program (&b, script, NULL, (const char *const[]) { in, "--window", bad[i].arg, "-o", out, NULL });
    else
      run_program (&b, script, NULL, (const char *const[]) { in, "-o", out, NULL });
    ck_assert_msg (b.status == bad[i].status, "case %u: status %d, want %d: %s", i, b.status, bad[i].status, b.err);
    ck_assert_msg (g_str_has_prefix (b.err, "plot-trace: error: "), "case %u: stderr '%s'", i, b.err);
    ck_assert_msg (!g_file_test (out, G_FILE_TEST_EXISTS), "case %u left %s", i, out);
  }
  /* Only PNG output. */
  g_auto (TestRun) svg;
  run_program (&svg, script, NULL, (const char *const[]) { json, "-o", "x.svg", NULL });
  ck_assert_int_eq (svg.status, 64);
  /* An empty trace still draws (empty lanes): not an error. */
  g_autofree char *empty = write_file (dir, "empty.json", "{\"traceEvents\": []}");
  g_autofree char *empty_png = g_build_filename (dir, "empty.png", NULL);
  g_auto (TestRun) e;
  run_program (&e, script, NULL, (const char *const[]) { empty, NULL });
  ck_assert_msg (e.status == 0, "empty trace: status %d: %s", e.status, e.err);
  assert_png (empty_png);
}
END_TEST

/* --- real runs (issue #15) --------------------------------------------------------------------------------- */

/* The shipped Gen2 x8 config in simultaneous mode (every kind of TLP both ways), traced to `path` or not. */
static void
real_run (const char *path, SystemResult *r)
{
  g_autoptr (GError) e = NULL;
  g_autofree char *cfg_path = g_build_filename (source_root (), "configs", "svgx_g2_x8.yaml", NULL);
  const char *const sets[] = { "benchmark.iterations=3", NULL };
  g_autoptr (PsConfig) cfg = ps_config_load (cfg_path, sets, &e);
  ck_assert_msg (cfg != NULL, "%s", e ? e->message : "");
  SystemParams sp;
  ps_build_system_params (cfg, &sp);
  if (path != NULL) {
    SimTraceOptions o = { 0, SIM_TIME_MAX, 0 };
    sp.trace = sim_trace_open (path, &o, &e);
    ck_assert_msg (sp.trace != NULL, "%s", e ? e->message : "");
  }
  ck_assert_msg (system_run (&sp, SYSTEM_SIMULTANEOUS, 1, r, &e), "%s", e ? e->message : "");
  if (path != NULL)
    ck_assert_msg (sim_trace_close (sp.trace, &e), "%s", e ? e->message : "");
}

/* A traced run schedules the untraced run's events and prints its figures. */
static void
assert_untraced_figures (const SystemResult *traced)
{
  SystemResult plain;
  real_run (NULL, &plain);
  ck_assert (traced->read_mbps == plain.read_mbps && traced->write_mbps == plain.write_mbps);
  ck_assert_uint_eq (traced->events, plain.events);
  ck_assert (memcmp (&traced->why.verdict, &plain.why.verdict, sizeof plain.why.verdict) == 0);
}

START_TEST (test_real_json)
{
  g_autofree char *dir = case_dir ("real-json");
  g_autofree char *path = g_build_filename (dir, "run.json", NULL);
  SystemResult r;
  real_run (path, &r);
  Perfetto p;
  perfetto_load (&p, path);
  /* No link errors: every TLP went on the wire once, and the host counted each it received and sent. */
  ck_assert_uint_eq (kind_count (&p, "MRd"), r.host.reads);
  ck_assert_uint_eq (kind_count (&p, "CplD"), r.host.cpls);
  ck_assert_uint_eq (kind_count (&p, "MWr"), r.host.writes + r.host.pio_writes);
  ck_assert_uint_eq (kind_count (&p, "MSI"), r.host.msis);
  ck_assert (r.host.reads > 0 && r.host.cpls > 0 && r.host.msis > 0);
  /* An arrow per MRd (start) and one event per completion (step or end). */
  ck_assert_uint_eq (p.flows, r.host.reads + r.host.cpls);
  /* Every requester's tags are back, and the DMA phases and descriptor fetches are slices of their own. */
  ck_assert_int_eq (last_counter (&p, "endpoint.dma.tags_outstanding"), 0);
  ck_assert_uint_eq (kind_count (&p, "transfer"), 2 * 3);
  ck_assert (kind_count (&p, "descriptor_fetch") > 0);
  ck_assert (g_hash_table_contains (p.last_counter, "link0.up.credits_pd"));
  ck_assert (g_hash_table_contains (p.last_counter, "link0.up.replay_bytes"));
  perfetto_clear (&p);
  assert_untraced_figures (&r);
}
END_TEST

START_TEST (test_real_vcd)
{
  g_autofree char *dir = case_dir ("real-vcd");
  g_autofree char *path = g_build_filename (dir, "run.vcd", NULL);
  SystemResult r;
  real_run (path, &r);
  g_autofree char *text = slurp (path);
  Vcd v;
  vcd_parse (&v, text, TRUE);
  ck_assert (v.dumpvars_complete);
  ck_assert (g_hash_table_lookup (v.by_path, "link0.up.wire") != NULL);
  ck_assert (g_hash_table_lookup (v.by_path, "endpoint.dma.read.phase") != NULL);
  /* The run lasts a few tens of microseconds: the last time mark is there, not at 0 nor beyond a millisecond. */
  SimTime last = g_array_index (v.stamps, SimTime, v.stamps->len - 1);
  ck_assert (last > 10 * SIM_US && last < SIM_MS);
  vcd_clear (&v);
  assert_gtkwave_reads (path, NULL, 0, SIM_TIME_MAX);
  assert_untraced_figures (&r);
}
END_TEST

/* Through the command line: a window keeps [20, 30) us only; a cap keeps the file under it and says so once; the
 * report is the untraced one, byte for byte. */
START_TEST (test_real_cli)
{
  g_autofree char *dir = case_dir ("real-cli");
  g_autofree char *win = g_build_filename (dir, "win.json", NULL);
  g_autofree char *cap = g_build_filename (dir, "cap.json", NULL);
  g_auto (TestRun) plain;
  PCIESIM (&plain, "configs/svgx_g2_x8.yaml", "-m", "write");
  ck_assert_int_eq (plain.status, 0);
  g_auto (TestRun) w;
  PCIESIM (&w, "configs/svgx_g2_x8.yaml", "-m", "write", "--trace", win, "--trace-window", "20000:30000");
  ck_assert_msg (w.status == 0, "%s", w.err);
  ck_assert_str_eq (w.out, plain.out);
  ck_assert_str_eq (w.err, "");
  Perfetto p;
  perfetto_load (&p, win);
  ck_assert_msg (p.min_ts >= 20 * SIM_US && p.max_end <= 30 * SIM_US, "%" G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT,
                 p.min_ts, p.max_end);
  ck_assert (kind_count (&p, "MWr") > 0);
  perfetto_clear (&p);
  g_auto (TestRun) c;
  PCIESIM (&c, "configs/svgx_g2_x8.yaml", "-m", "write", "--trace", cap, "--trace-max-bytes", "200000");
  ck_assert_msg (c.status == 0, "%s", c.err);
  ck_assert_str_eq (c.out, plain.out);
  ck_assert (g_str_has_prefix (c.err, "pciesim: warning: trace ") && strchr (c.err, '\n')[1] == '\0');
  GStatBuf st;
  ck_assert (g_stat (cap, &st) == 0 && st.st_size <= 200000 && st.st_size > 150000);
  perfetto_load (&p, cap);
  ck_assert_uint_eq (p.instants, 1);
  perfetto_clear (&p);
  /* Misuse: an unknown extension, a window without a trace. */
  g_auto (TestRun) bad;
  PCIESIM (&bad, "configs/svgx_g2_x8.yaml", "--trace", "x.txt");
  ck_assert_int_eq (bad.status, 64);
  g_auto (TestRun) bad2;
  PCIESIM (&bad2, "configs/svgx_g2_x8.yaml", "--trace-window", "0:10");
  ck_assert_int_eq (bad2.status, 64);
}
END_TEST

/* --- traces of every run kind (issue #25) ------------------------------------------------------------------- */

/* Slices named `kind` on the track named `track` in a loaded trace: their count, and the sum of their
 * length_bytes attribute (the TLP's payload, or an MRd's requested length). */
static guint
track_kind (const Perfetto *p, const char *track, const char *kind, uint64_t *bytes)
{
  guint n = 0;
  *bytes = 0;
  JsonArray *ev = json_object_get_array_member (json_node_get_object (p->root), "traceEvents");
  for (guint i = 0; i < json_array_get_length (ev); i++) {
    JsonObject *o = json_array_get_object_element (ev, i);
    if (strcmp (json_object_get_string_member (o, "ph"), "X") != 0
        || strcmp (json_object_get_string_member (o, "name"), kind) != 0)
      continue;
    const char *name = g_hash_table_lookup (p->thread, GUINT_TO_POINTER (json_object_get_int_member (o, "tid")));
    if (name == NULL || strcmp (name, track) != 0)
      continue;
    n++;
    JsonObject *args = json_object_get_object_member (o, "args");
    if (args && json_object_has_member (args, "length_bytes"))
      *bytes += (uint64_t) json_object_get_int_member (args, "length_bytes");
  }
  return n;
}

/* A run through the command line, traced to dir/NAME.json and dir/NAME.vcd and untraced: the three reports are
 * the same bytes (a trace changes no figure), the VCD parses (ours and GTKWave's reader) and holds `track`, and the
 * JSON trace is loaded into *p (clear it). Returns the untraced report (--format json), parsed. */
static JsonNode *
traced_cli (const char *dir, const char *name, const char *track, Perfetto *p, const char *const *args)
{
  g_autofree char *json = g_strdup_printf ("%s/%s.json", dir, name);
  g_autofree char *vcd = g_strdup_printf ("%s/%s.vcd", dir, name);
  g_autoptr (GPtrArray) a = g_ptr_array_new ();
  for (const char *const *x = args; *x; x++)
    g_ptr_array_add (a, (gpointer) *x);
  g_ptr_array_add (a, "--format");
  g_ptr_array_add (a, "json");
  g_ptr_array_add (a, NULL);
  g_auto (TestRun) plain;
  run_program (&plain, test_env ("PCIESIM_EXE"), NULL, (const char *const *) a->pdata);
  ck_assert_msg (plain.status == 0, "%s", plain.err);
  const char *paths[] = { json, vcd };
  for (int k = 0; k < 2; k++) {
    g_ptr_array_remove_index (a, a->len - 1);
    g_ptr_array_add (a, "--trace");
    g_ptr_array_add (a, (gpointer) paths[k]);
    g_ptr_array_add (a, NULL);
    g_auto (TestRun) r;
    run_program (&r, test_env ("PCIESIM_EXE"), NULL, (const char *const *) a->pdata);
    ck_assert_msg (r.status == 0, "%s", r.err);
    /* The reports differ only in the wall time. */
    g_autoptr (GRegex) wall = g_regex_new ("\"wall_s\": [0-9.e+-]+", 0, 0, NULL);
    g_autofree char *x = g_regex_replace_literal (wall, r.out, -1, 0, "", 0, NULL);
    g_autofree char *y = g_regex_replace_literal (wall, plain.out, -1, 0, "", 0, NULL);
    ck_assert_str_eq (x, y);
    g_ptr_array_set_size (a, a->len - 3);
    g_ptr_array_add (a, NULL);
  }
  g_autofree char *text = slurp (vcd);
  Vcd v;
  vcd_parse (&v, text, TRUE);
  ck_assert_msg (g_hash_table_lookup (v.by_path, track) != NULL, "%s: no %s", vcd, track);
  vcd_clear (&v);
  assert_gtkwave_reads (vcd, NULL, 0, SIM_TIME_MAX);
  perfetto_load (p, json);
  g_autoptr (GError) e = NULL;
  JsonNode *report = ps_json_parse (plain.out, -1, &e);
  ck_assert_msg (report != NULL, "%s", e ? e->message : "");
  return report;
}

/* A fabric: a read flow and a write flow from two endpoints below a switch. Every link has its tracks under
 * "linkN_NAME"; the uplink carries the read flow's MRds (one per round trip the report counts) and completions
 * (the bytes it delivered) and the write flow's MWrs (the bytes it delivered). */
START_TEST (test_fabric_trace)
{
  g_autofree char *dir = case_dir ("fabric");
  const char *args[] = { "configs/fabric_shared_g3_x8.yaml", "--set", "fabric.active_flows=2", "--set",
                         "flows.f1.op=read", "--set", "flows.f1.bytes=16384", "--set", "flows.f2.bytes=16384", NULL };
  Perfetto p;
  g_autoptr (JsonNode) rep = traced_cli (dir, "fabric", "link0_uplink.up.wire", &p, args);
  JsonArray *flows = json_object_get_array_member (json_node_get_object (rep), "flows");
  JsonObject *rd = json_array_get_object_element (flows, 0), *wr = json_array_get_object_element (flows, 1);
  uint64_t bytes;
  guint mrds = track_kind (&p, "link0_uplink.up.wire", "MRd", &bytes);
  ck_assert_uint_eq (mrds, json_object_get_int_member (json_object_get_object_member (rd, "read_latency_ns"),
                                                        "count"));
  ck_assert_uint_eq (bytes, 16384);
  track_kind (&p, "link0_uplink.down.wire", "CplD", &bytes);
  ck_assert_uint_eq (bytes, json_object_get_int_member (rd, "delivered_bytes"));
  track_kind (&p, "link0_uplink.up.wire", "MWr", &bytes);
  ck_assert_uint_eq (bytes, json_object_get_int_member (wr, "delivered_bytes"));
  track_kind (&p, "link2_sw_e2.up.wire", "MWr", &bytes);
  ck_assert_uint_eq (bytes, 16384);
  ck_assert (g_hash_table_contains (p.last_counter, "link1_sw_e1.up.credits_nph"));
  perfetto_clear (&p);
}
END_TEST

/* The microbenchmark: bw_rdwr's 40 DMAs of 512 bytes each way on link0: the MWrs carry 40 x 512 bytes, the MRds
 * ask for as much and the CplDs bring it. */
START_TEST (test_microbench_trace)
{
  g_autofree char *dir = case_dir ("microbench");
  const char *args[] = { "configs/nfp6000_g3_x8.yaml", "--set", "microbench.test=bw_rdwr", "--set",
                         "microbench.transfer_bytes=512", "--set", "microbench.dmas=40", NULL };
  Perfetto p;
  g_autoptr (JsonNode) rep = traced_cli (dir, "mb", "link0.up.wire", &p, args);
  uint64_t bytes;
  track_kind (&p, "link0.up.wire", "MWr", &bytes);
  ck_assert_uint_eq (bytes, 40 * 512);
  track_kind (&p, "link0.up.wire", "MRd", &bytes);
  ck_assert_uint_eq (bytes, 40 * 512);
  track_kind (&p, "link0.down.wire", "CplD", &bytes);
  ck_assert_uint_eq (bytes, 40 * 512);
  perfetto_clear (&p);
}
END_TEST

/* PIO: three rounds of the CPU's write program (the software overhead, the stores, the fence) on its phase track,
 * and the MWrs on the wire carry the three transfers' bytes. */
START_TEST (test_pio_trace)
{
  g_autofree char *dir = case_dir ("pio");
  const char *args[] = { "configs/gpcie_arriagx_g1_x4.yaml", "-m", "pio_write", "--set", "benchmark.iterations=3",
                         "--set", "benchmark.transfer_bytes=4096", NULL };
  Perfetto p;
  g_autoptr (JsonNode) rep = traced_cli (dir, "pio", "cpu.thread0.phase", &p, args);
  uint64_t bytes;
  ck_assert_uint_eq (track_kind (&p, "cpu.thread0.phase", "compute", &bytes), 3);
  ck_assert_uint_eq (track_kind (&p, "cpu.thread0.phase", "store", &bytes), 3);
  ck_assert_uint_eq (track_kind (&p, "cpu.thread0.phase", "fence", &bytes), 3);
  track_kind (&p, "link0.down.wire", "MWr", &bytes);
  ck_assert_uint_eq (bytes, 3 * 4096);
  perfetto_clear (&p);
}
END_TEST

/* A driver-timed run: per transfer the driver's set-up, its descriptors and its wait, and on the interrupt track
 * one interrupt and one wake-up per MSI the root complex received; a polling driver polls instead. */
START_TEST (test_driver_trace)
{
  g_autofree char *dir = case_dir ("driver");
  const char *args[] = { "configs/xdma_g3_x8_driver.yaml", "--set", "benchmark.iterations=3", "--set",
                         "benchmark.transfer_bytes=4096", NULL };
  Perfetto p;
  g_autoptr (JsonNode) rep = traced_cli (dir, "driver", "cpu.irq", &p, args);
  uint64_t bytes;
  const char *const phases[] = { "setup", "descriptors", "wait" };
  for (int i = 0; i < 3; i++)
    ck_assert_uint_eq (track_kind (&p, "cpu.thread0.phase", phases[i], &bytes), 3);
  guint msis = track_kind (&p, "link0.up.wire", "MSI", &bytes);
  ck_assert_uint_eq (msis, 3);
  ck_assert_uint_eq (track_kind (&p, "cpu.irq", "interrupt", &bytes), msis);
  ck_assert_uint_eq (track_kind (&p, "cpu.irq", "wakeup", &bytes), msis);
  perfetto_clear (&p);
}
END_TEST

START_TEST (test_poll_trace)
{
  g_autofree char *dir = case_dir ("poll");
  const char *poll[] = { "configs/xdma_g3_x8_poll.yaml", "--set", "benchmark.iterations=3", "--set",
                         "benchmark.transfer_bytes=4096", NULL };
  Perfetto p;
  uint64_t bytes;
  g_autoptr (JsonNode) rep = traced_cli (dir, "poll", "cpu.thread0.phase", &p, poll);
  ck_assert_uint_eq (track_kind (&p, "cpu.thread0.phase", "poll", &bytes), 3);
  ck_assert_uint_eq (track_kind (&p, "cpu.irq", "interrupt", &bytes), 0);
  perfetto_clear (&p);
}
END_TEST

/* The stream workload (flit mode, Gen6 x16): its one link's MWrs carry the transfer's 64 KB. */
START_TEST (test_stream_trace)
{
  g_autofree char *dir = case_dir ("stream");
  const char *args[] = { "configs/gen6_x16_stream.yaml", "-m", "write", "--set", "benchmark.transfer_bytes=65536",
                         NULL };
  Perfetto p;
  g_autoptr (JsonNode) rep = traced_cli (dir, "stream", "link0.up.wire", &p, args);
  uint64_t bytes;
  ck_assert_uint_eq (track_kind (&p, "link0.up.wire", "MWr", &bytes), 65536 / 256);
  ck_assert_uint_eq (bytes, 65536);
  perfetto_clear (&p);
  /* A mode the stream does not run leaves nothing to trace: a usage error, and no file. */
  g_autofree char *none = g_build_filename (dir, "none.json", NULL);
  g_auto (TestRun) r;
  PCIESIM (&r, "configs/gen6_x16_stream.yaml", "-m", "simultaneous", "--trace", none);
  ck_assert_msg (r.status == 64 && strstr (r.err, "none of the modes asked for runs here"), "%d: %s", r.status, r.err);
  ck_assert (!g_file_test (none, G_FILE_TEST_EXISTS));
}
END_TEST

/* --trace-window on a fabric: only [2, 4) us is in the file, and it holds TLPs. */
START_TEST (test_fabric_trace_window)
{
  g_autofree char *dir = case_dir ("fabric-window");
  g_autofree char *path = g_build_filename (dir, "win.json", NULL);
  g_auto (TestRun) r;
  PCIESIM (&r, "configs/fabric_shared_g3_x8.yaml", "--set", "flows.f1.op=read", "--trace", path, "--trace-window",
           "2000:4000");
  ck_assert_msg (r.status == 0, "%s", r.err);
  Perfetto p;
  perfetto_load (&p, path);
  ck_assert_msg (p.min_ts >= 2 * SIM_US && p.max_end <= 4 * SIM_US, "%" G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT,
                 p.min_ts, p.max_end);
  ck_assert (kind_count (&p, "MWr") > 0 && kind_count (&p, "CplD") > 0);
  perfetto_clear (&p);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("trace");
  TCase *t = tcase_create ("trace");
  tcase_add_unchecked_fixture (t, tmpdir_setup, tmpdir_teardown);
  tcase_set_timeout (t, 60);
  tcase_add_test (t, test_vcd_well_formed);
  tcase_add_test (t, test_vcd_gtkwave);
  tcase_add_test (t, test_json_valid);
  tcase_add_test (t, test_json_window);
  tcase_add_test (t, test_vcd_window);
  tcase_add_loop_test (t, test_json_cap, 0, G_N_ELEMENTS (cap_shares));
  tcase_add_loop_test (t, test_vcd_cap, 0, G_N_ELEMENTS (cap_shares));
  tcase_add_test (t, test_cap_below_header);
  tcase_add_test (t, test_deterministic);
  tcase_add_test (t, test_vcd_late_event);
  tcase_add_test (t, test_abort_and_close);
  tcase_add_test (t, test_format_from_path);
  tcase_add_loop_test (t, test_parse_window, 0, G_N_ELEMENTS (window_cases));
  tcase_add_exit_test (t, test_overlap_is_internal_error, PS_ERROR_INTERNAL);
  tcase_add_test (t, test_null_trace);
  tcase_add_test (t, test_plot_trace);
  tcase_add_test (t, test_real_json);
  tcase_add_test (t, test_real_vcd);
  tcase_add_test (t, test_real_cli);
  tcase_add_test (t, test_fabric_trace);
  tcase_add_test (t, test_microbench_trace);
  tcase_add_test (t, test_pio_trace);
  tcase_add_test (t, test_driver_trace);
  tcase_add_test (t, test_poll_trace);
  tcase_add_test (t, test_stream_trace);
  tcase_add_test (t, test_fabric_trace_window);
  suite_add_tcase (s, t);
  return run_suite (s);
}
