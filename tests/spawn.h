/* spawn.h — run a program to completion and keep its exit status and output, for the suites that test processes.
 *
 * Contract: spawn_run() waits for the program (searched in PATH when argv[0] has no slash) started in `cwd` (NULL:
 * ours) with `envp` (NULL: ours), and fills a Run whose out and err are always strings. It never fails the test
 * itself: a program that cannot be started gives status -1 and the reason in err, and one killed by a signal
 * status -1 too, so the caller asserts with a message of its own. Clear a Run with run_clear() or g_auto (Run). */
#pragma once

#include <glib.h>
#include <string.h>
#include <sys/wait.h>

typedef struct {
  int status; /* exit status, or -1 */
  char *out, *err;
} Run;

static inline void
run_clear (Run *r)
{
  g_free (r->out);
  g_free (r->err);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Run, run_clear)

static inline void
spawn_run (Run *r, const char *cwd, const char *const *argv, char **envp)
{
  int wait_status = 0;
  GError *e = NULL;
  memset (r, 0, sizeof *r);
  if (!g_spawn_sync (cwd, (char **) argv, envp, G_SPAWN_SEARCH_PATH, NULL, NULL, &r->out, &r->err, &wait_status, &e)) {
    r->status = -1;
    r->out = g_strdup ("");
    r->err = g_strdup (e->message);
    g_error_free (e);
    return;
  }
  r->status = WIFEXITED (wait_status) ? WEXITSTATUS (wait_status) : -1;
}
