/* units.h — the one conversion from the nanoseconds that configs and host files state (as datasheets and
 * measurements do) to the engine's integer picoseconds.
 *
 * Contract:
 * - units_ns_to_ps() rounds to the nearest picosecond, halves away from zero (llround): a picosecond is far below
 *   anything a config can state meaningfully, and rounding, unlike truncation, keeps 1.005 ns at 1005 ps although
 *   1.005 * 1000 is 1004.9999999999999 in binary.
 * - Callers pass finite values >= 0 that their checks bound (host_params_check: < 1e12 ns; the config keys'
 *   ranges), so the result is far inside SimTime.
 * - Shared by the host, the system's driver and the config->model builder, so one value in ns becomes the same
 *   picoseconds wherever it is converted.
 */
#pragma once

#include <math.h>

#include "sim/engine.h"

static inline SimTime
units_ns_to_ps (double ns)
{
  return (SimTime) llround (ns * 1000.0);
}
