/* model_error.h — the models' one error domain (the kernel has its own, sim/trace.h's; the application its own,
 * app/base/error.h's): what a model refuses or finds, in three codes that say what the program should do with it.
 *
 * Contract:
 * - MODEL_ERROR_PARAM: a parameter the model cannot use, from a config (exit 65 through the builder); the message
 *   names the parameter and its value.
 * - MODEL_ERROR_INVARIANT: a run broke one of the model's end-of-run or in-run invariants (a bug: exit 70).
 * - MODEL_ERROR_DEADLOCK: a run stopped moving while work was owed (exit 70), the message naming what each
 *   component waits for.
 * Every model raises these and no other domain, so the builder maps models' errors without knowing the models.
 */
#pragma once

#include <glib.h>

#define MODEL_ERROR (model_error_quark ())
GQuark model_error_quark (void);
typedef enum { MODEL_ERROR_PARAM, MODEL_ERROR_INVARIANT, MODEL_ERROR_DEADLOCK } ModelError;
