/* The runtime used from plain C and linked statically: the header compiles
 * as C11, and the static library alone runs a model. */
#include "autoglm/runtime.h"

#include <stdio.h>

const agl_model_desc *fake_add_model(void);

#define CHECK(condition)                                                       \
  do {                                                                         \
    if (!(condition)) {                                                        \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__,            \
              #condition, agl_last_error());                                   \
      return 1;                                                                \
    }                                                                          \
  } while (0)

int main(void) {
  const agl_model_desc *model = fake_add_model();
  agl_instance *instance = NULL;
  CHECK(agl_instance_create(model, &instance) == AGL_OK);

  float a[6] = {1, 2, 3, 4, 5, 6};
  float b[6] = {6, 5, 4, 3, 2, -10};
  float y[6] = {0};
  unsigned char positive[6] = {0};
  const void *inputs[2] = {a, b};
  void *outputs[2] = {y, positive};
  CHECK(agl_instance_run(instance, inputs, outputs) == AGL_OK);
  for (int i = 0; i < 6; ++i) {
    CHECK(y[i] == a[i] + b[i]);
    CHECK(positive[i] == (a[i] + b[i] > 0));
  }
  agl_instance_destroy(instance);
  return 0;
}
