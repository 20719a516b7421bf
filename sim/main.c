#include <stdio.h>
#include "pciesim-version.h"
int
main (int argc, char **argv)
{
  (void) argc;
  (void) argv;
  printf ("pciesim %s\n", PCIESIM_VERSION);
  return 0;
}
