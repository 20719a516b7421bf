/* parallel.h — runs that are no scenario's points, on --jobs threads: --ranges' runs, a fit's evaluations, a
 * sweep point's own runs. Below sweep.c and ranges.c, which both use it, so neither calls the other for it.
 *
 * Contract: see each declaration; results never depend on the number of threads.
 */
#pragma once

#include <glib.h>

/* The --jobs machinery for runs that are no scenario's points (--ranges, fit): fn (i, user) for i in 0..n-1 on
 * `jobs` threads (0 = number of processors), returning when all are done. fn must only write its own results. */
void ps_sweep_parallel (guint n, int jobs, void (*fn) (guint i, gpointer user), gpointer user);
/* The error of the lowest-numbered failing job, whatever the threads' timing (as a sweep reports its lowest failing
 * point): ps_first_error_keep() takes `e` (kept or freed) from any thread. Initialise the lock with
 * g_mutex_init(); no error yet when zero-filled. */
typedef struct {
  GMutex lock;
  guint index;
  GError *error;
} PsFirstError;
void ps_first_error_keep (PsFirstError *f, guint index, GError *e);
