#include "Artifact.h"

namespace autoglm::run {

Artifact::Artifact(const std::string &path) {
  if (agl_library_open(path.c_str(), &library_, &model_) != AGL_OK)
    throw RuntimeError(agl_last_error());
}

Artifact::~Artifact() { agl_library_close(library_); }

Instance::Instance(const agl_model_desc &model, const void *weights) {
  if (agl_instance_create(&model, &instance_) != AGL_OK)
    throw RuntimeError(agl_last_error());
  if (weights && agl_instance_set_weights(instance_, weights) != AGL_OK) {
    std::string message = agl_last_error();
    agl_instance_destroy(instance_);
    throw RuntimeError(message);
  }
}

Instance::~Instance() { agl_instance_destroy(instance_); }

void Instance::run(const std::vector<const void *> &inputs,
                   const std::vector<void *> &outputs) {
  if (agl_instance_run(instance_, inputs.data(), outputs.data()) != AGL_OK)
    throw RuntimeError(agl_last_error());
}

void Instance::runShaped(const std::vector<const void *> &inputs,
                         const std::vector<const int64_t *> &inputShapes,
                         const std::vector<void *> &outputs,
                         const std::vector<int64_t *> &outputShapes) {
  if (agl_instance_run_shaped(instance_, inputs.data(), inputShapes.data(),
                              outputs.data(),
                              outputShapes.data()) != AGL_OK)
    throw RuntimeError(agl_last_error());
}

int64_t Instance::cacheLength() const {
  int64_t length = 0;
  if (agl_instance_cache_length(instance_, &length) != AGL_OK)
    throw RuntimeError(agl_last_error());
  return length;
}

void Instance::setCacheLength(int64_t length) {
  if (agl_instance_set_cache_length(instance_, length) != AGL_OK)
    throw RuntimeError(agl_last_error());
}

void Instance::setProfileCapacity(size_t maxEvents) {
  if (agl_instance_set_profile_capacity(instance_, maxEvents) != AGL_OK)
    throw RuntimeError(agl_last_error());
}

size_t Instance::profileEvents(const agl_profile_event **events,
                               uint64_t *dropped) const {
  return agl_instance_profile_events(instance_, events, dropped);
}

void Instance::clearProfile() { agl_instance_clear_profile(instance_); }

namespace {
std::vector<std::string> namesOf(const agl_tensor_info *table, int32_t count) {
  std::vector<std::string> names;
  for (int32_t i = 0; i < count; ++i)
    names.emplace_back(table[i].name ? table[i].name : "");
  return names;
}
} // namespace

std::vector<std::string> inputNames(const agl_model_desc &model) {
  return namesOf(model.inputs, model.num_inputs);
}

std::vector<std::string> outputNames(const agl_model_desc &model) {
  return namesOf(model.outputs, model.num_outputs);
}

std::vector<int64_t> shapeOf(const agl_tensor_info &info) {
  return std::vector<int64_t>(info.shape, info.shape + info.rank);
}

} // namespace autoglm::run
