/* lspci_files.c — `pciesim import lspci`'s files (lspci.h): the dump and tree read, the host file checked and found
 * (shared with import pciebench), its include path relative to the output, and the config written. The text of
 * the config is lspci.c's, from the dump alone; this file knows where things are on disk. */
#include "app/import/lspci.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "app/base/error.h"
#include "app/base/format.h"
#include "app/config/config.h"
#include "app/config/load.h"
#include "app/config/ytree.h"
#include "app/study/validate.h"

static char *
read_input (const char *path, gsize *len, GError **error)
{
  char *data = NULL;
  g_autoptr (GError) e = NULL;
  if (!g_file_get_contents (path, &data, len, &e)) {
    ps_error_plain (error, PS_ERROR_NOINPUT, "%s", e->message);
    return NULL;
  }
  return data;
}

/* `to` relative to directory `from` (both absolute and canonical): "../configs/hosts/ideal.yaml". */
static char *
relative_path (const char *from, const char *to)
{
  g_auto (GStrv) a = g_strsplit (from, G_DIR_SEPARATOR_S, -1);
  g_auto (GStrv) b = g_strsplit (to, G_DIR_SEPARATOR_S, -1);
  guint i = 0;
  while (a[i] && b[i] && strcmp (a[i], b[i]) == 0)
    i++;
  g_autoptr (GString) s = g_string_new (NULL);
  for (guint j = i; a[j]; j++)
    if (*a[j])
      g_string_append (s, ".." G_DIR_SEPARATOR_S);
  for (guint j = i; b[j]; j++)
    g_string_append_printf (s, "%s%s", b[j], b[j + 1] ? G_DIR_SEPARATOR_S : "");
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* Whether two absolute paths share a folder below the root: only then is a relative include shorter and does it
 * survive moving the tree they share. */
static gboolean
shares_folder (const char *a, const char *b)
{
  const char *sa = strchr (a + 1, G_DIR_SEPARATOR), *sb = strchr (b + 1, G_DIR_SEPARATOR);
  gsize na = sa ? (gsize) (sa - a) : strlen (a), nb = sb ? (gsize) (sb - b) : strlen (b);
  return na == nb && strncmp (a, b, na) == 0;
}

/* A host file describes the host alone (configs/hosts/: host:, cpu:, the link keys that are the host's —
 * link.address_bits, where its buffers lie, and link.updatefc_policy, its root port's — and the ranges of its
 * assumptions). A whole config given as --host would bring its own device, workload and assumptions into the
 * import unseen (issue #40): refused at the first key that is not the host's. */
gboolean
ps_lspci_check_host_file (const char *path, GError **error)
{
  GError *e = NULL;
  g_autoptr (YNode) root = ytree_load_file (path, &e);
  if (!root) {
    if (!e)
      ps_error_located (&e, PS_ERROR_DATA, path, 1, 1, "an empty host file: a host file sets host: keys");
    g_propagate_error (error, e);
    return FALSE;
  }
  if (root->kind != YNODE_MAP) {
    ytree_error (error, PS_ERROR_DATA, root, "a host file is a mapping of host: keys, not a %s",
                 ytree_kind_name (root->kind));
    return FALSE;
  }
  static const char *const host_sections[] = { "host", "cpu", "assumptions", NULL };
  static const char *const host_link_keys[] = { "address_bits", "updatefc_policy", NULL };
  for (guint i = 0; i < root->keys->len; i++) {
    const YNode *k = g_ptr_array_index (root->keys, i), *v = g_ptr_array_index (root->items, i);
    if (g_strv_contains (host_sections, k->value))
      continue;
    if (strcmp (k->value, "link") == 0 && v->kind == YNODE_MAP) {
      for (guint j = 0; j < v->keys->len; j++) {
        const YNode *lk = g_ptr_array_index (v->keys, j);
        if (!g_strv_contains (host_link_keys, lk->value)) {
          ytree_error (error, PS_ERROR_DATA, lk, "--host takes a host file, and link.%s is the device's or the "
                       "link's, not the host's (a host file sets host:, cpu:, link.address_bits, "
                       "link.updatefc_policy and assumptions:, as configs/hosts/*.yaml do)", lk->value);
          return FALSE;
        }
      }
      continue;
    }
    ytree_error (error, PS_ERROR_DATA, k, "--host takes a host file, and %s: is no part of one (a host file sets "
                 "host:, cpu:, link.address_bits, link.updatefc_policy and assumptions:, as configs/hosts/*.yaml "
                 "do): a whole config would bring its device, workload and assumptions into the import", k->value);
    return FALSE;
  }
  return TRUE;
}

char *
ps_lspci_host_path (const char *host, GError **error)
{
  /* The host file: as given from here, else under the configs (./configs, the installed ones, the source's). */
  g_autofree char *configs_dir = ps_default_configs_dir ();
  g_autofree char *configs = g_canonicalize_filename (configs_dir, NULL);
  const char *h = host ? host : "hosts/ideal.yaml";
  g_autofree char *path = g_file_test (h, G_FILE_TEST_IS_REGULAR) && host ? g_canonicalize_filename (h, NULL)
                                                                            : g_canonicalize_filename (h, configs);
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR)) {
    ps_error_plain (error, PS_ERROR_NOINPUT, "--host %s: no such file here or in %s", h, configs);
    return NULL;
  }
  if (!ps_lspci_check_host_file (path, error))
    return NULL;
  return g_steal_pointer (&path);
}

char *
ps_lspci_include_path (const char *output, const char *host_path)
{
  /* Relative to the output's folder, so the config and the checkout move together; absolute on stdout, which
   * may go anywhere. */
  if (!output || strcmp (output, "-") == 0)
    return g_strdup (host_path);
  g_autofree char *out_dir = g_path_get_dirname (output);
  g_autofree char *out_abs = g_canonicalize_filename (out_dir, NULL);
  return shares_folder (out_abs, host_path) ? relative_path (out_abs, host_path) : g_strdup (host_path);
}

gboolean
ps_lspci_import (const PsLspciImport *imp, GError **error)
{
  gboolean to_stdout = !imp->output || strcmp (imp->output, "-") == 0;
  g_autofree char *host_path = ps_lspci_host_path (imp->host, error);
  if (!host_path)
    return FALSE;
  g_autofree char *out_dir = to_stdout ? NULL : g_path_get_dirname (imp->output);
  g_autofree char *out_abs = out_dir ? g_canonicalize_filename (out_dir, NULL) : NULL;
  g_autofree char *include = ps_lspci_include_path (imp->output, host_path);
  g_autofree char *note = imp->host ? g_strdup ("the host chosen with --host")
                                    : g_strdup ("no --host given: hosts/ideal.yaml, a host that never limits, so the "
                                                "figures are the device's and the link's upper bound");
  gsize dump_len = 0, tree_len = 0;
  g_autofree char *dump = read_input (imp->dump_path, &dump_len, error);
  if (!dump)
    return FALSE;
  g_autofree char *tree = imp->tree_path ? read_input (imp->tree_path, &tree_len, error) : NULL;
  if (imp->tree_path && !tree)
    return FALSE;
  g_autoptr (GString) notes = g_string_new (NULL);
  g_autofree char *text = ps_lspci_config (imp->dump_path, dump, dump_len, imp->tree_path, tree, tree_len,
                                           imp->device, include, note, notes, error);
  if (!text)
    return FALSE;
  /* Written beside the output (or in the temporary folder for stdout), loaded, then renamed into place: what
   * lands is a config the checks accept, and a failure leaves nothing. */
  g_autofree char *tmp = g_build_filename (out_abs ? out_abs : g_get_tmp_dir (), ".pciesim-import-XXXXXX", NULL);
  int fd = g_mkstemp (tmp);
  if (fd < 0) {
    ps_error_plain (error, PS_ERROR_CANTCREAT, "cannot write in %s: %s", out_abs ? out_abs : g_get_tmp_dir (),
                    g_strerror (errno));
    return FALSE;
  }
  close (fd);
  GString view = { text, strlen (text), strlen (text) + 1 };
  g_autoptr (GError) e = NULL;
  if (!g_file_set_contents (tmp, text, -1, &e)) {
    g_unlink (tmp);
    ps_error_plain (error, PS_ERROR_CANTCREAT, "%s", e->message);
    return FALSE;
  }
  g_autoptr (PsConfig) cfg = ps_config_load (tmp, NULL, &e);
  if (!cfg) {
    g_unlink (tmp);
    ps_error_plain (error, PS_ERROR_INTERNAL, "internal: the config imported from %s does not load: %s",
                    imp->dump_path, ps_error_text (e));
    return FALSE;
  }
  if (to_stdout) {
    g_unlink (tmp);
    if (!ps_write_output (NULL, &view, error))
      return FALSE;
  } else if (g_rename (tmp, imp->output) != 0) {
    int err = errno;
    g_unlink (tmp);
    ps_error_plain (error, PS_ERROR_CANTCREAT, "cannot write %s: %s", imp->output, g_strerror (err));
    return FALSE;
  }
  fputs (notes->str, stderr);
  return TRUE;
}
