#include <check.h>
#include "sim/engine.h"
START_TEST (test_placeholder)
{
  g_autoptr (SimEngine) e = sim_engine_new (1);
  ck_assert_uint_eq (sim_now (e), 0);
}
END_TEST
int
main (void)
{
  Suite *s = suite_create ("engine");
  TCase *tc = tcase_create ("core");
  tcase_add_test (tc, test_placeholder);
  suite_add_tcase (s, tc);
  SRunner *r = srunner_create (s);
  srunner_run_all (r, CK_NORMAL);
  srunner_free (r);
  return 0;
}
