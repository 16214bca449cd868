#include "one.cubind.h"
#include "two.cubind.h"

int main(void) {
  float a[4] = {1, 2, 3, 4};
  cubind_config cfg = cubind_config_1d(4, 32);
  return one_call(&cfg, a, 4) == CUBIND_SUCCESS && two_call(&cfg, a, 4) == CUBIND_SUCCESS ? 0 : 77;
}
