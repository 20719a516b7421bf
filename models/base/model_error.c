/* model_error.c — the models' error domain (model_error.h). */
#include "models/base/model_error.h"

G_DEFINE_QUARK (pciesim-model-error-quark, model_error)
