// A shared-library artifact and an instance of its model, owned the C++ way
// over the runtime's C API.
#ifndef AUTOGLM_RUN_ARTIFACT_H
#define AUTOGLM_RUN_ARTIFACT_H

#include "autoglm/runtime.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace autoglm::run {

// A failure reported by the runtime; the message is agl_last_error().
class RuntimeError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class Artifact {
public:
  explicit Artifact(const std::string &path);
  ~Artifact();
  Artifact(const Artifact &) = delete;
  Artifact &operator=(const Artifact &) = delete;

  const agl_model_desc &model() const { return *model_; }
  /// The mapped weights file, or null when the weights are embedded.
  const void *weights() const { return agl_library_weights(library_); }

private:
  agl_library *library_ = nullptr;
  const agl_model_desc *model_ = nullptr;
};

class Instance {
public:
  /// `weights`: the artifact's mapped weights file, or null if embedded.
  Instance(const agl_model_desc &model, const void *weights);
  ~Instance();
  Instance(const Instance &) = delete;
  Instance &operator=(const Instance &) = delete;

  void run(const std::vector<const void *> &inputs,
           const std::vector<void *> &outputs);
  /// agl_instance_run_shaped: outputShapes[i] must hold the rank of output i.
  void runShaped(const std::vector<const void *> &inputs,
                 const std::vector<const int64_t *> &inputShapes,
                 const std::vector<void *> &outputs,
                 const std::vector<int64_t *> &outputShapes);

  /// The KV cache of a model compiled with --max-seq-len: positions in use,
  /// and a shorter length (0: empty).
  int64_t cacheLength() const;
  void setCacheLength(int64_t length);

  /// Profiles of models compiled with --profile: room for `maxEvents`
  /// kernel events, the events recorded, and forgetting them.
  void setProfileCapacity(size_t maxEvents);
  size_t profileEvents(const agl_profile_event **events,
                       uint64_t *dropped) const;
  void clearProfile();

private:
  agl_instance *instance_ = nullptr;
};

std::vector<std::string> inputNames(const agl_model_desc &model);
std::vector<std::string> outputNames(const agl_model_desc &model);
std::vector<int64_t> shapeOf(const agl_tensor_info &info);

} // namespace autoglm::run

#endif // AUTOGLM_RUN_ARTIFACT_H
