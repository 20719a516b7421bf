/* parallel.c — the --jobs machinery (parallel.h). */
#include "app/study/parallel.h"

typedef struct {
  void (*fn) (guint i, gpointer user);
  gpointer user;
} Parallel;

static void
parallel_one (gpointer data, gpointer user)
{
  const Parallel *p = user;
  p->fn (GPOINTER_TO_UINT (data) - 1, p->user);
}

void
ps_first_error_keep (PsFirstError *f, guint index, GError *e)
{
  g_mutex_lock (&f->lock);
  if (!f->error || index < f->index) {
    f->index = index;
    g_clear_error (&f->error);
    f->error = g_steal_pointer (&e);
  }
  g_mutex_unlock (&f->lock);
  g_clear_error (&e);
}

void
ps_sweep_parallel (guint n, int jobs, void (*fn) (guint i, gpointer user), gpointer user)
{
  int workers = jobs > 0 ? jobs : (int) g_get_num_processors ();
  workers = (int) MIN ((guint) MAX (workers, 1), MAX (n, 1));
  Parallel p = { fn, user };
  /* One worker: run in this thread, as a sweep point's own runs do (no pool inside a pool's worker). */
  if (workers == 1) {
    for (guint i = 0; i < n; i++)
      fn (i, user);
    return;
  }
  GThreadPool *pool = g_thread_pool_new (parallel_one, &p, workers, TRUE, NULL);
  /* Queued as i + 1: a GThreadPool cannot queue NULL. Freeing with wait joins every job. */
  for (guint i = 0; i < n; i++)
    g_thread_pool_push (pool, GUINT_TO_POINTER (i + 1), NULL);
  g_thread_pool_free (pool, FALSE, TRUE);
}
