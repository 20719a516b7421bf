/* trace.c — see trace.h for the contract.
 *
 * One object list serves both formats: a declared track or counter. The VCD side adds signals (a track's state
 * and attributes, a counter's value), each with the value of the block being built (cur) and the last value in
 * the file (written); a block is the set of changes at one time, written when time moves past it, so several
 * changes of one signal at one time collapse to the last and a change back to the written value vanishes.
 * Slice ends lie in the future when a slice is reported: each track keeps its one pending end (slices on a
 * track never overlap) and every event first plays the pending ends that come before it, in time order.
 *
 * One file on purpose: the VCD and JSON writers share the object list and the pending-end rule above, which must
 * change together. The options a command line gives (the format a path names, a window) are trace_options.c's.
 */
#include "sim/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "sim/json.h"

/* stdio's buffer: the only place trace bytes wait, so memory does not grow with the trace. */
#define OUT_BUFFER_BYTES (64u << 10)
#define JSON_TAIL "\n]}\n"
#define VCD_MARK "$comment trace truncated at the size cap $end\n"
/* The widest JSON marker, for the room kept for it: ts at its longest (SIM_TIME_MAX ps in us). */
#define JSON_MARK_FMT ",\n{\"ph\": \"i\", \"s\": \"g\", \"pid\": 1, \"tid\": 1, \"name\": \"trace truncated at the size cap\", \"ts\": %s}"
#define TS_MAX "18446744073709.551615"

/* A change of a track's state (and attributes, for a slice start) at a time after the VCD's block time. */
#define TRACE_HELD 8
typedef struct {
  SimTime at;
  guint state;
  gboolean attrs; /* a start: the attributes change too */
  uint64_t attr[SIM_TRACE_ATTRS];
} Held;

typedef struct {
  char *scope, *name;
  char *full; /* "<scope>.<name>", the JSON name, made once so no event allocates */
  gboolean is_track;
  guint tid; /* JSON: tracks numbered from 1 in declaration order */
  guint sig; /* VCD: the state signal (track) or the value signal (counter); attributes follow the state */
  /* Tracks. */
  const char *const *states;
  guint n_states;
  const char *attrs[SIM_TRACE_ATTRS];
  SimTime last_end; /* end of the last slice: the next may not start before */
  SimTime pending_end; /* VCD: the state returns to 0 then; SIM_TIME_MAX for none */
  /* VCD: changes reported ahead of the block time (a CPU thread's own time runs ahead of the engine's, cpu.h),
   * held in time order until the block time gets there, so the other signals' changes between now and then are
   * still written at their own times. */
  Held held[TRACE_HELD];
  guint n_held;
  /* An open slice (sim_trace_begin): its start, state and attributes until it ends. */
  gboolean open;
  SimTime open_start;
  guint open_state;
  uint64_t open_attr[SIM_TRACE_ATTRS];
  /* Counters (JSON): the value reached, for the window's start. */
  uint64_t value;
  gboolean set;
} Obj;

typedef struct {
  guint obj;
  const char *suffix; /* attribute name, or NULL for the object's own signal */
  guint bits;
  char id[8];
  uint64_t cur, written;
  gboolean known, written_known; /* a counter is unknown (x) until first set */
  gboolean dirty;
} Sig;

struct SimTrace {
  SimTraceFormat format;
  SimTraceOptions o;
  char *path, *tmp_path;
  FILE *f;
  gboolean started, stopped, truncated;
  guint n_tracks;
  int write_errno; /* first failed write, 0 for none */
  uint64_t bytes, reserve; /* reserve: room kept for the marker and the ending */
  GArray *objs; /* Obj */
  GString *rec; /* the record being built */
  PsJson j;
  /* VCD */
  GArray *sigs; /* Sig */
  GArray *dirty; /* guint: signals changed in the block at vt */
  SimTime vt; /* time of the block being built */
  SimTime next_end; /* earliest pending slice end, SIM_TIME_MAX for none */
  SimTime last_ts; /* last #T written, for the final marker */
  SimTime latest; /* the latest time of any event: where sim_trace_close() ends open slices */
  gboolean need_dump, any_ts;
  /* JSON */
  gboolean window_reached; /* the counters' values at the window start are out */
  /* With a window that opens after 0: the ids of the flows started inside it and not ended, so a flow whose start
   * was dropped drops its steps and end too (a viewer cannot draw an arrow from nowhere). As many as reads in
   * flight. */
  GHashTable *flows_in;
};

/* --- output ----------------------------------------------------------------------------------------------- */

static void
out_raw (SimTrace *t, const char *s, gsize len)
{
  if (t->write_errno != 0 || len == 0)
    return;
  if (fwrite (s, 1, len, t->f) != len) {
    t->write_errno = errno ? errno : EIO;
    t->stopped = TRUE;
    return;
  }
  t->bytes += len;
}

/* "S.UUUUUU": picoseconds as microseconds, exactly. */
static const char *
fmt_us (char *buf, gsize n, SimTime ps)
{
  g_snprintf (buf, n, "%" G_GUINT64_FORMAT ".%06" G_GUINT64_FORMAT, ps / 1000000, ps % 1000000);
  return buf;
}

static void
truncate_at (SimTrace *t, SimTime at)
{
  t->truncated = TRUE;
  t->stopped = TRUE;
  if (t->format == SIM_TRACE_JSON) {
    char us[32];
    g_autofree char *mark = g_strdup_printf (JSON_MARK_FMT, fmt_us (us, sizeof us, at));
    out_raw (t, mark, strlen (mark));
    out_raw (t, JSON_TAIL, strlen (JSON_TAIL));
  } else
    out_raw (t, VCD_MARK, strlen (VCD_MARK));
  fprintf (stderr, "pciesim: warning: trace %s reached its size cap of %" G_GUINT64_FORMAT " bytes at %"
    G_GUINT64_FORMAT ".%03u ns: later events are not in it\n", t->path, t->o.max_bytes, at / 1000,
    (unsigned) (at % 1000));
}

/* Write the record, or stop the trace if it would leave no room for the marker and ending. */
static void
out_record (SimTrace *t, const GString *s, SimTime at)
{
  if (t->stopped)
    return;
  if (t->o.max_bytes != 0 && t->bytes + s->len + t->reserve > t->o.max_bytes) {
    truncate_at (t, at);
    return;
  }
  out_raw (t, s->str, s->len);
}

/* --- declarations ----------------------------------------------------------------------------------------- */

static gboolean
word_ok (const char *s, gboolean dots)
{
  if (s == NULL || *s == '\0')
    return FALSE;
  for (const char *p = s; *p; p++) {
    if (*p == '.' && dots && p != s && p[1] != '\0' && p[1] != '.')
      continue;
    if (!g_ascii_isalnum (*p) && *p != '_')
      return FALSE;
  }
  return TRUE;
}

SimTrace *
sim_trace_open (const char *path, const SimTraceOptions *o, GError **error)
{
  SimTraceFormat format;
  if (!sim_trace_format_from_path (path, &format, error))
    return NULL;
  SIM_INVARIANT (o->window_start_ps < o->window_end_ps, "trace window %" G_GUINT64_FORMAT ":%" G_GUINT64_FORMAT
    " ps is empty", o->window_start_ps, o->window_end_ps);
  g_autofree char *tmp = g_strconcat (path, ".XXXXXX", NULL);
  int fd = g_mkstemp_full (tmp, O_WRONLY, 0666);
  if (fd < 0) {
    int err = errno;
    g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_IO, "cannot create trace %s: %s", path, g_strerror (err));
    return NULL;
  }
  SimTrace *t = g_new0 (SimTrace, 1);
  t->f = fdopen (fd, "w");
  if (t->f == NULL) {
    int err = errno;
    close (fd);
    g_remove (tmp);
    g_free (t);
    g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_IO, "cannot create trace %s: %s", path, g_strerror (err));
    return NULL;
  }
  setvbuf (t->f, NULL, _IOFBF, OUT_BUFFER_BYTES);
  t->format = format;
  t->o = *o;
  t->path = g_strdup (path);
  t->tmp_path = g_steal_pointer (&tmp);
  t->objs = g_array_new (FALSE, TRUE, sizeof (Obj));
  t->sigs = g_array_new (FALSE, TRUE, sizeof (Sig));
  t->dirty = g_array_new (FALSE, FALSE, sizeof (guint));
  t->rec = g_string_sized_new (256);
  t->next_end = SIM_TIME_MAX;
  t->need_dump = TRUE;
  return t;
}

SimTraceFormat
sim_trace_format (const SimTrace *t)
{
  return t->format;
}

static guint
add_sig (SimTrace *t, guint obj, const char *suffix, guint bits, gboolean known)
{
  Sig s = { .obj = obj, .suffix = suffix, .bits = bits, .known = known };
  /* Identifiers in base 94 over the printable characters '!'..'~' (IEEE 1364 §18.2.1). */
  guint n = t->sigs->len, k = 0;
  do {
    s.id[k++] = (char) ('!' + n % 94);
    n /= 94;
  } while (n > 0);
  g_array_append_val (t->sigs, s);
  return t->sigs->len - 1;
}

static guint
add_obj (SimTrace *t, const char *scope, const char *name)
{
  SIM_INVARIANT (!t->started, "trace: %s.%s declared after sim_trace_start()", scope, name);
  SIM_INVARIANT (word_ok (scope, TRUE) && word_ok (name, FALSE), "trace: bad scope or name '%s' '%s'",
    scope ? scope : "(null)", name ? name : "(null)");
  Obj o = { .scope = g_strdup (scope), .name = g_strdup (name), .full = g_strconcat (scope, ".", name, NULL),
             .pending_end = SIM_TIME_MAX };
  g_array_append_val (t->objs, o);
  return t->objs->len - 1;
}

static guint
bits_for (guint n_states)
{
  guint bits = 1;
  while (bits < 32 && (1u << bits) < n_states)
    bits++;
  return bits;
}

SimTraceTrack
sim_trace_add_track (SimTrace *t, const char *scope, const char *name, const char *const *states, guint n_states,
  const char *const *attrs)
{
  guint i = add_obj (t, scope, name);
  Obj *o = &g_array_index (t->objs, Obj, i);
  SIM_INVARIANT (states != NULL && n_states >= 1, "trace: track %s.%s has no states", scope, name);
  o->is_track = TRUE;
  o->states = states;
  o->n_states = n_states;
  o->sig = add_sig (t, i, NULL, bits_for (n_states), TRUE);
  o->tid = ++t->n_tracks;
  for (guint a = 0; a < SIM_TRACE_ATTRS; a++) {
    o->attrs[a] = attrs ? attrs[a] : NULL;
    SIM_INVARIANT (o->attrs[a] == NULL || word_ok (o->attrs[a], FALSE), "trace: bad attribute name '%s'",
      o->attrs[a]);
    /* Every attribute gets its signal, used or not, so a track's signals are at sig, sig + 1, sig + 2. */
    add_sig (t, i, o->attrs[a], 32, TRUE);
  }
  return i;
}

SimTraceCounter
sim_trace_add_counter (SimTrace *t, const char *scope, const char *name, guint bits)
{
  SIM_INVARIANT (bits >= 1 && bits <= 64, "trace: counter %s.%s of %u bits", scope, name, bits);
  guint i = add_obj (t, scope, name);
  g_array_index (t->objs, Obj, i).sig = add_sig (t, i, NULL, bits, FALSE);
  return i;
}

/* --- VCD -------------------------------------------------------------------------------------------------- */

static void
vcd_value (GString *s, const Sig *sig, uint64_t v)
{
  if (!sig->known) {
    g_string_append (s, sig->bits == 1 ? "x" : "bx ");
  } else if (sig->bits == 1) {
    g_string_append_c (s, v ? '1' : '0');
  } else {
    g_string_append_c (s, 'b');
    int top = 63;
    while (top > 0 && !(v >> top & 1))
      top--;
    for (int b = top; b >= 0; b--)
      g_string_append_c (s, (v >> b & 1) ? '1' : '0');
    g_string_append_c (s, ' ');
  }
  g_string_append (s, sig->id);
  g_string_append_c (s, '\n');
}

static int
cmp_scope (gconstpointer a, gconstpointer b, gpointer data)
{
  const GArray *objs = data;
  guint x = *(const guint *) a, y = *(const guint *) b;
  int c = strcmp (g_array_index (objs, Obj, x).scope, g_array_index (objs, Obj, y).scope);
  return c != 0 ? c : (x > y) - (x < y);
}

static void
vcd_header (SimTrace *t, GString *h)
{
  g_string_append (h, "$version pciesim $end\n$timescale 1 ps $end\n");
  for (guint i = 0; i < t->objs->len; i++) {
    const Obj *o = &g_array_index (t->objs, Obj, i);
    if (!o->is_track)
      continue;
    g_string_append_printf (h, "$comment %s.%s states:", o->scope, o->name);
    for (guint k = 0; k < o->n_states; k++)
      g_string_append_printf (h, " %u=%s", k, o->states[k]);
    g_string_append (h, " $end\n");
  }
  /* Objects sorted by scope (then declaration), so each scope opens once; nested parts open and close as the
   * dot-separated paths of neighbours differ. */
  g_autoptr (GArray) order = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < t->objs->len; i++)
    g_array_append_val (order, i);
  g_array_sort_with_data (order, cmp_scope, t->objs);
  g_auto (GStrv) open = g_new0 (char *, 1);
  for (guint k = 0; k < order->len; k++) {
    const Obj *o = &g_array_index (t->objs, Obj, g_array_index (order, guint, k));
    g_auto (GStrv) parts = g_strsplit (o->scope, ".", -1);
    guint common = 0, n_open = g_strv_length (open);
    while (common < n_open && parts[common] && strcmp (open[common], parts[common]) == 0)
      common++;
    for (guint d = common; d < n_open; d++)
      g_string_append (h, "$upscope $end\n");
    for (guint d = common; parts[d]; d++)
      g_string_append_printf (h, "$scope module %s $end\n", parts[d]);
    g_strfreev (open);
    open = g_steal_pointer (&parts);
    const guint n_sigs = o->is_track ? 1 + SIM_TRACE_ATTRS : 1;
    for (guint s = 0; s < n_sigs; s++) {
      const Sig *sig = &g_array_index (t->sigs, Sig, o->sig + s);
      if (s > 0 && sig->suffix == NULL)
        continue; /* an unused attribute: declared nowhere, never changes */
      g_string_append_printf (h, "$var reg %u %s %s%s%s $end\n", sig->bits, sig->id, o->name,
        sig->suffix ? "_" : "", sig->suffix ? sig->suffix : "");
    }
  }
  for (guint d = g_strv_length (open); d > 0; d--)
    g_string_append (h, "$upscope $end\n");
  g_string_append (h, "$enddefinitions $end\n");
}

static void
vcd_set (SimTrace *t, guint sig, uint64_t v)
{
  Sig *s = &g_array_index (t->sigs, Sig, sig);
  s->cur = v;
  s->known = TRUE;
  if (!s->dirty) {
    s->dirty = TRUE;
    g_array_append_val (t->dirty, sig);
  }
}

static gboolean
in_window (const SimTrace *t, SimTime at)
{
  return at >= t->o.window_start_ps && at < t->o.window_end_ps;
}

/* Write the block at vt: the first one in the window is a $dumpvars of every declared signal. Outside the
 * window the changes only become the values that a later $dumpvars shows. */
static void
vcd_flush (SimTrace *t)
{
  GString *r = t->rec;
  g_string_truncate (r, 0);
  if (in_window (t, t->vt) && t->need_dump) {
    g_string_append_printf (r, "#%" G_GUINT64_FORMAT "\n$dumpvars\n", t->vt);
    for (guint i = 0; i < t->sigs->len; i++) {
      Sig *s = &g_array_index (t->sigs, Sig, i);
      if (s->suffix != NULL || i == g_array_index (t->objs, Obj, s->obj).sig)
        vcd_value (r, s, s->cur);
    }
    g_string_append (r, "$end\n");
  } else if (in_window (t, t->vt)) {
    for (guint k = 0; k < t->dirty->len; k++) {
      const Sig *s = &g_array_index (t->sigs, Sig, g_array_index (t->dirty, guint, k));
      if (!s->written_known || s->cur != s->written) {
        if (r->len == 0)
          g_string_append_printf (r, "#%" G_GUINT64_FORMAT "\n", t->vt);
        vcd_value (r, s, s->cur);
      }
    }
  }
  const gboolean dump = t->need_dump && r->len > 0;
  if (r->len > 0)
    out_record (t, r, t->vt);
  const gboolean written = r->len > 0 && !t->stopped;
  /* The file now holds every signal's cur (a dump) or every changed one's (a block). */
  for (guint i = 0; written && dump && i < t->sigs->len; i++) {
    Sig *s = &g_array_index (t->sigs, Sig, i);
    s->written = s->cur;
    s->written_known = s->known;
  }
  for (guint k = 0; k < t->dirty->len; k++) {
    Sig *s = &g_array_index (t->sigs, Sig, g_array_index (t->dirty, guint, k));
    if (written) {
      s->written = s->cur;
      s->written_known = s->known;
    }
    s->dirty = FALSE;
  }
  g_array_set_size (t->dirty, 0);
  if (!written)
    return;
  t->need_dump = FALSE;
  t->last_ts = t->vt;
  t->any_ts = TRUE;
}

/* Move the block time to x (never back): the block at vt is written, and crossing the window's start writes
 * the values there. */
static void
vcd_goto (SimTrace *t, SimTime x)
{
  if (x <= t->vt)
    return;
  vcd_flush (t);
  const SimTime ws = t->o.window_start_ps;
  if (t->vt < ws && x > ws) {
    t->vt = ws;
    vcd_flush (t);
  }
  t->vt = x;
}

static void
vcd_set_state (SimTrace *t, const Obj *o, guint state, gboolean attrs, const uint64_t *attr)
{
  vcd_set (t, o->sig, state);
  for (guint a = 0; attrs && a < SIM_TRACE_ATTRS; a++)
    if (o->attrs[a])
      vcd_set (t, o->sig + 1 + a, attr[a]);
}

/* Play the pending slice ends and the held changes up to x, in time order (at one time a track's end before its
 * held changes), then move to x. */
static void
vcd_advance (SimTrace *t, SimTime x)
{
  while (t->next_end <= x) {
    SimTime end = t->next_end, next = SIM_TIME_MAX;
    vcd_goto (t, end);
    for (guint i = 0; i < t->objs->len; i++) {
      Obj *o = &g_array_index (t->objs, Obj, i);
      if (o->pending_end == end) {
        vcd_set (t, o->sig, 0);
        o->pending_end = SIM_TIME_MAX;
      } else if (o->pending_end < next)
        next = o->pending_end;
      guint k = 0;
      for (; k < o->n_held && o->held[k].at == end; k++)
        vcd_set_state (t, o, o->held[k].state, o->held[k].attrs, o->held[k].attr);
      if (k > 0) {
        memmove (o->held, o->held + k, (o->n_held - k) * sizeof *o->held);
        o->n_held -= k;
      }
      if (o->n_held > 0 && o->held[0].at < next)
        next = o->held[0].at;
    }
    t->next_end = next;
  }
  vcd_goto (t, x);
}

/* A change of `o` reported for a time after the block time, or behind others held (they stay in order): held.
 * FALSE when it is due now and the caller writes it. A full queue plays its first change first (the block time
 * moves there: the queue's depth bounds how far a model may run ahead without that). */
static gboolean
vcd_hold (SimTrace *t, Obj *o, SimTime at, guint state, gboolean attrs, uint64_t attr0, uint64_t attr1)
{
  if (at <= t->vt && o->n_held == 0)
    return FALSE;
  if (o->n_held == TRACE_HELD)
    vcd_advance (t, o->held[0].at);
  o->held[o->n_held++] = (Held) { at, state, attrs, { attr0, attr1 } };
  t->next_end = MIN (t->next_end, o->held[0].at);
  return TRUE;
}

/* --- JSON ------------------------------------------------------------------------------------------------- */

static PsJson *
json_begin (SimTrace *t, const char *ph, const char *name)
{
  g_string_truncate (t->rec, 0);
  g_string_append (t->rec, ",\n");
  ps_json_init (&t->j, t->rec);
  ps_json_object (&t->j, 0);
  ps_json_string_member (&t->j, "ph", ph);
  ps_json_int_member (&t->j, "pid", 1);
  if (name)
    ps_json_string_member (&t->j, "name", name);
  return &t->j;
}

static void
json_ts (PsJson *j, const char *key, SimTime ps)
{
  char us[32];
  ps_json_key (j, key);
  ps_json_raw (j, fmt_us (us, sizeof us, ps));
}

static void
json_counter (SimTrace *t, const Obj *o, SimTime at)
{
  PsJson *j = json_begin (t, "C", o->full);
  json_ts (j, "ts", at);
  ps_json_key (j, "args");
  ps_json_object (j, 0);
  ps_json_uint_member (j, "value", o->value);
  ps_json_end (j);
  ps_json_end (j);
  out_record (t, t->rec, at);
}

/* Called with the time of each event written: the first at or after the window's start brings the counters'
 * values there (but that of `skip`, the counter whose new value is being written at that time). */
static void
json_reach (SimTrace *t, SimTime at, guint skip)
{
  if (t->window_reached || at < t->o.window_start_ps)
    return;
  t->window_reached = TRUE;
  for (guint i = 0; i < t->objs->len; i++) {
    const Obj *o = &g_array_index (t->objs, Obj, i);
    if (!o->is_track && o->set && i != skip)
      json_counter (t, o, t->o.window_start_ps);
  }
}

static void
json_header (SimTrace *t, GString *h)
{
  g_string_append (h, "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n");
  g_string_append (h, "{\"ph\": \"M\", \"pid\": 1, \"name\": \"process_name\", \"args\": {\"name\": \"pciesim\"}}");
  for (guint i = 0; i < t->objs->len; i++) {
    const Obj *o = &g_array_index (t->objs, Obj, i);
    if (!o->is_track)
      continue;
    for (int k = 0; k < 2; k++) {
      g_string_append (h, ",\n");
      PsJson j;
      ps_json_init (&j, h);
      ps_json_object (&j, 0);
      ps_json_string_member (&j, "ph", "M");
      ps_json_int_member (&j, "pid", 1);
      ps_json_int_member (&j, "tid", o->tid);
      ps_json_string_member (&j, "name", k == 0 ? "thread_name" : "thread_sort_index");
      ps_json_key (&j, "args");
      ps_json_object (&j, 0);
      if (k == 0)
        ps_json_string_member (&j, "name", o->full);
      else
        ps_json_int_member (&j, "sort_index", o->tid);
      ps_json_end (&j);
      ps_json_end (&j);
    }
  }
}

/* --- events ----------------------------------------------------------------------------------------------- */

gboolean
sim_trace_start (SimTrace *t, GError **error)
{
  SIM_INVARIANT (!t->started, "trace: started twice");
  t->started = TRUE;
  g_autoptr (GString) h = g_string_new (NULL);
  if (t->format == SIM_TRACE_VCD) {
    vcd_header (t, h);
    t->reserve = strlen (VCD_MARK);
  } else {
    json_header (t, h);
    g_autofree char *mark = g_strdup_printf (JSON_MARK_FMT, TS_MAX);
    t->reserve = strlen (mark) + strlen (JSON_TAIL);
  }
  if (t->o.max_bytes != 0 && h->len + t->reserve > t->o.max_bytes) {
    g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_USAGE, "trace size cap of %" G_GUINT64_FORMAT " bytes is below the %"
      G_GUINT64_FORMAT " bytes of this trace's header and ending", t->o.max_bytes, (guint64) (h->len + t->reserve));
    return FALSE;
  }
  out_raw (t, h->str, h->len);
  return TRUE;
}

static Obj *
obj (SimTrace *t, guint i, gboolean track)
{
  SIM_INVARIANT (t->started && i < t->objs->len && g_array_index (t->objs, Obj, i).is_track == track,
    "trace: event for %s %u, not declared or before sim_trace_start()", track ? "track" : "counter", i);
  return &g_array_index (t->objs, Obj, i);
}

/* VCD: a slice starts: its state and attributes change at `start`. */
static void
vcd_slice_start (SimTrace *t, Obj *o, SimTime start, guint state, uint64_t attr0, uint64_t attr1)
{
  vcd_advance (t, start);
  vcd_set (t, o->sig, state);
  const uint64_t attr[SIM_TRACE_ATTRS] = { attr0, attr1 };
  for (guint a = 0; a < SIM_TRACE_ATTRS; a++)
    if (o->attrs[a])
      vcd_set (t, o->sig + 1 + a, attr[a]);
}

void
sim_trace_slice_emit (SimTrace *t, SimTraceTrack track, SimTime start, SimTime dur, guint state, uint64_t attr0,
  uint64_t attr1)
{
  Obj *o = obj (t, track, TRUE);
  SIM_INVARIANT (state < o->n_states && start >= o->last_end && dur <= SIM_TIME_MAX - start
                  && attr0 <= UINT32_MAX && attr1 <= UINT32_MAX,
    "trace: slice on %s.%s at %" G_GUINT64_FORMAT " ps (state %u, attributes %" G_GUINT64_FORMAT ", %"
    G_GUINT64_FORMAT ") overlaps the previous one (ends %" G_GUINT64_FORMAT " ps) or is out of range",
    o->scope, o->name, start, state, attr0, attr1, o->last_end);
  const SimTime end = start + dur;
  o->last_end = end;
  t->latest = MAX (t->latest, end);
  if (t->stopped)
    return;
  const SimTime ws = t->o.window_start_ps, we = t->o.window_end_ps;
  if (t->format == SIM_TRACE_VCD) {
    if (vcd_hold (t, o, start, state, TRUE, attr0, attr1)) {
      vcd_hold (t, o, end, 0, FALSE, 0, 0);
      return;
    }
    vcd_slice_start (t, o, start, state, attr0, attr1);
    /* A zero-length slice still happened: its state shows for no time, which VCD cannot say; it is dropped
     * with the block's collapse unless another change keeps the block. */
    o->pending_end = end;
    t->next_end = MIN (t->next_end, end);
    return;
  }
  /* Kept when it overlaps [ws, we), or is a zero-length slice inside it; clipped to the window. */
  if (start >= we || (end <= ws && !(dur == 0 && start >= ws)))
    return;
  const SimTime s = MAX (start, ws), e = MIN (end, we);
  json_reach (t, s, G_MAXUINT);
  PsJson *j = json_begin (t, "X", o->states[state]);
  ps_json_int_member (j, "tid", o->tid);
  json_ts (j, "ts", s);
  json_ts (j, "dur", e - s);
  if (o->attrs[0] || o->attrs[1]) {
    const uint64_t attr[SIM_TRACE_ATTRS] = { attr0, attr1 };
    ps_json_key (j, "args");
    ps_json_object (j, 0);
    for (guint a = 0; a < SIM_TRACE_ATTRS; a++)
      if (o->attrs[a])
        ps_json_uint_member (j, o->attrs[a], attr[a]);
    ps_json_end (j);
  }
  ps_json_end (j);
  out_record (t, t->rec, s);
}

void
sim_trace_count_emit (SimTrace *t, SimTraceCounter counter, SimTime at, uint64_t value)
{
  Obj *o = obj (t, counter, FALSE);
  const Sig *sig = &g_array_index (t->sigs, Sig, o->sig);
  SIM_INVARIANT (sig->bits == 64 || value >> sig->bits == 0, "trace: counter %s.%s value %" G_GUINT64_FORMAT
    " does not fit its %u bits", o->scope, o->name, value, sig->bits);
  o->value = value;
  o->set = TRUE;
  t->latest = MAX (t->latest, at);
  if (t->stopped)
    return;
  if (t->format == SIM_TRACE_VCD) {
    vcd_advance (t, at);
    vcd_set (t, o->sig, value);
    return;
  }
  if (at >= t->o.window_end_ps)
    return;
  if (at < t->o.window_start_ps) {
    /* Before the window only the value counts, unless the window was already reached (an event a little out
     * of order): then it is the value at the window's start. */
    if (t->window_reached)
      json_counter (t, o, t->o.window_start_ps);
    return;
  }
  json_reach (t, at, counter);
  json_counter (t, o, at);
}

void
sim_trace_begin_emit (SimTrace *t, SimTraceTrack track, SimTime start, guint state, uint64_t attr0, uint64_t attr1)
{
  Obj *o = obj (t, track, TRUE);
  SIM_INVARIANT (!o->open && state < o->n_states && start >= o->last_end && attr0 <= UINT32_MAX
                   && attr1 <= UINT32_MAX, "trace: open slice on %s.%s at %" G_GUINT64_FORMAT " ps (state %u) "
    "overlaps the previous one (ends %" G_GUINT64_FORMAT " ps), is open already or is out of range", o->scope,
    o->name, start, state, o->last_end);
  o->open = TRUE;
  o->open_start = start;
  o->open_state = state;
  o->open_attr[0] = attr0;
  o->open_attr[1] = attr1;
  o->last_end = SIM_TIME_MAX; /* no other slice until it ends */
  t->latest = MAX (t->latest, start);
  if (t->stopped || t->format != SIM_TRACE_VCD || vcd_hold (t, o, start, state, TRUE, attr0, attr1))
    return;
  vcd_slice_start (t, o, start, state, attr0, attr1);
}

void
sim_trace_end_emit (SimTrace *t, SimTraceTrack track, SimTime end)
{
  Obj *o = obj (t, track, TRUE);
  SIM_INVARIANT (o->open && end >= o->open_start, "trace: end of %s.%s at %" G_GUINT64_FORMAT " ps without an "
    "open slice before it", o->scope, o->name, end);
  o->open = FALSE;
  o->last_end = o->open_start;
  if (t->format == SIM_TRACE_JSON) {
    /* Written whole now, as the slice it was: JSON keeps every time as given. */
    sim_trace_slice_emit (t, track, o->open_start, end - o->open_start, o->open_state, o->open_attr[0],
      o->open_attr[1]);
    return;
  }
  o->last_end = end;
  t->latest = MAX (t->latest, end);
  if (t->stopped || vcd_hold (t, o, end, 0, FALSE, 0, 0))
    return;
  vcd_advance (t, end);
  vcd_set (t, o->sig, 0);
}

void
sim_trace_flow_emit (SimTrace *t, SimTraceFlow phase, uint64_t id, SimTraceTrack track, SimTime at)
{
  const Obj *o = obj (t, track, TRUE);
  if (t->stopped || t->format == SIM_TRACE_VCD || !in_window (t, at))
    return;
  if (t->o.window_start_ps > 0) {
    if (t->flows_in == NULL)
      t->flows_in = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
    if (phase == SIM_TRACE_FLOW_START)
      g_hash_table_add (t->flows_in, g_memdup2 (&id, sizeof id));
    else if (!(phase == SIM_TRACE_FLOW_END ? g_hash_table_remove : g_hash_table_contains) (t->flows_in, &id))
      return;
  }
  static const char *const ph[] = { "s", "t", "f" };
  json_reach (t, at, G_MAXUINT);
  PsJson *j = json_begin (t, ph[phase], "flow");
  ps_json_string_member (j, "cat", "flow");
  ps_json_int_member (j, "tid", o->tid);
  ps_json_uint_member (j, "id", id);
  json_ts (j, "ts", at);
  if (phase != SIM_TRACE_FLOW_START)
    ps_json_string_member (j, "bp", "e");
  ps_json_end (j);
  out_record (t, t->rec, at);
}

gboolean
sim_trace_truncated (const SimTrace *t)
{
  return t->truncated;
}

uint64_t
sim_trace_bytes (const SimTrace *t)
{
  return t->bytes;
}

/* --- end -------------------------------------------------------------------------------------------------- */

static void
trace_free (SimTrace *t)
{
  for (guint i = 0; i < t->objs->len; i++) {
    g_free (g_array_index (t->objs, Obj, i).scope);
    g_free (g_array_index (t->objs, Obj, i).name);
    g_free (g_array_index (t->objs, Obj, i).full);
  }
  g_array_unref (t->objs);
  if (t->flows_in)
    g_hash_table_unref (t->flows_in);
  g_array_unref (t->sigs);
  g_array_unref (t->dirty);
  g_string_free (t->rec, TRUE);
  g_free (t->path);
  g_free (t->tmp_path);
  g_free (t);
}

/* The VCD's last block: every pending slice end up to the window's end, then a time mark at the end of what
 * the file covers so a viewer shows the last state for its length. */
static void
vcd_finish (SimTrace *t)
{
  SimTime end = MAX (t->vt, t->o.window_start_ps);
  for (guint i = 0; i < t->objs->len; i++) {
    const Obj *o = &g_array_index (t->objs, Obj, i);
    if (o->is_track && o->last_end > end)
      end = o->last_end;
  }
  end = MIN (end, t->o.window_end_ps);
  vcd_advance (t, end);
  if (t->vt < t->o.window_end_ps)
    vcd_flush (t);
  if (!t->stopped && t->any_ts && end > t->last_ts) {
    g_string_printf (t->rec, "#%" G_GUINT64_FORMAT "\n", end);
    out_record (t, t->rec, end);
  }
}

gboolean
sim_trace_close (SimTrace *t, GError **error)
{
  SIM_INVARIANT (t->started, "trace: closed before sim_trace_start() (abort it instead)");
  for (guint i = 0; i < t->objs->len; i++)
    if (g_array_index (t->objs, Obj, i).open)
      sim_trace_end_emit (t, i, MAX (t->latest, g_array_index (t->objs, Obj, i).open_start));
  if (!t->stopped) {
    if (t->format == SIM_TRACE_VCD)
      vcd_finish (t);
    else
      out_raw (t, JSON_TAIL, strlen (JSON_TAIL));
  }
  int err = t->write_errno;
  if (fclose (t->f) != 0 && err == 0)
    err = errno ? errno : EIO;
  if (err == 0 && g_rename (t->tmp_path, t->path) != 0)
    err = errno;
  if (err != 0) {
    g_remove (t->tmp_path);
    g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_IO, "cannot write trace %s: %s", t->path, g_strerror (err));
  }
  trace_free (t);
  return err == 0;
}

void
sim_trace_abort (SimTrace *t)
{
  if (t == NULL)
    return;
  fclose (t->f);
  g_remove (t->tmp_path);
  trace_free (t);
}
