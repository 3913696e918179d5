/* The device side of an instance of a CUDA model: a stream and one block
 * of device memory holding the arena and a buffer per input and output,
 * allocated when the instance is created, and the weights, uploaded once
 * when they are given. A run queues the copies in, the launches and the
 * copies out on the stream, and is waited for at once or, when
 * asynchronous, later: nothing is allocated.
 *
 * The launches of a run are the same every time at the same shape (the
 * same symbol values, the same device buffers), so from a shape's second
 * run on they are one CUDA graph: captured from the model's host code once,
 * then launched whole, which spares the host a launch per kernel and the
 * GPU the gaps between them. A shape's first run is launched op by op: it
 * makes what the products need (cuBLAS handles, plans, workspaces) and
 * finds the kernels, none of which a capture may do. An instance keeps the
 * graphs of up to GRAPH_SLOTS shapes. A KV cache length kept after the
 * symbol values is part of the shape: its launches read it. Profiled runs,
 * runs with host sections, a driver without graphs and AUTOGLM_CUDA_GRAPHS=0
 * stay op by op; so does every run of a shape after a capture that failed. */
#include "launch.h"

#include <stdlib.h>
#include <string.h>

enum { STREAM_NON_BLOCKING = 1 };

/* Where an instance stands with the CUDA graph of one shape. */
enum {
  GRAPH_UNTRIED, /* no run of the shape has succeeded yet */
  GRAPH_NEXT,    /* the next run captures one */
  GRAPH_READY,   /* runs launch `graph` */
  GRAPH_NEVER    /* runs launch op by op */
};

/* Shapes whose graphs an instance of a model with symbols keeps: runs at a
 * few shapes (a server's batch sizes) each get theirs; the shape least
 * recently run gives its slot to a new one. */
enum { GRAPH_SLOTS = 8 };

/* The graph of the runs at one set of symbol values. */
typedef struct graph_slot {
  int state;
  CUgraphExec graph;
  int64_t *symbols; /* agl_model_symbol_values; unused while `used` is 0 */
  int64_t *dims;    /* the output extents the captured run wrote */
  uint64_t used;    /* the instance's run count when last taken; 0: free */
} graph_slot;

struct agl_cuda_instance {
  const agl_model_desc *model;
  const agl_cuda_api *api;
  CUcontext context;
  CUstream stream;
  CUdeviceptr memory;  /* arena, inputs, outputs */
  CUdeviceptr weights; /* 0 until set */
  CUdeviceptr arena;
  agl_cuda_blas *blas; /* made by the first matrix product */
  /* Device addresses as the entry function takes them. */
  void **inputs;
  void **outputs;
  graph_slot slots[GRAPH_SLOTS];
  int num_slots; /* 1 for a model with static shapes */
  uint64_t runs;
  int64_t *slot_values; /* backs the slots' symbols and dims */
  agl_cuda_profile *profile; /* null unless profiling */
};

static uint64_t align_up(uint64_t value) {
  /* cudaMalloc's own granularity; the kernels assume no more than 64. */
  return (value + AGL_CUDA_ALIGNMENT - 1) / AGL_CUDA_ALIGNMENT *
         AGL_CUDA_ALIGNMENT;
}

void agl_cuda_instance_destroy(agl_cuda_instance *instance) {
  if (!instance)
    return;
  if (instance->api) {
    instance->api->cuCtxSetCurrent(instance->context);
    for (int i = 0; i < instance->num_slots; ++i)
      if (instance->slots[i].graph)
        instance->api->cuGraphExecDestroy(instance->slots[i].graph);
    agl_cuda_blas_destroy(instance->blas);
    agl_cuda_profile_destroy(instance->profile);
    if (instance->stream)
      instance->api->cuStreamDestroy(instance->stream);
    if (instance->memory)
      instance->api->cuMemFree(instance->memory);
    if (instance->weights)
      instance->api->cuMemFree(instance->weights);
  }
  free(instance->inputs);
  free(instance->outputs);
  free(instance->slot_values);
  free(instance);
}

agl_status agl_cuda_instance_create(const agl_model_desc *model,
                                    agl_cuda_instance **out) {
  *out = NULL;
  const agl_cuda_api *api;
  CUcontext context;
  agl_status status = agl_cuda_open(&api, &context);
  if (status != AGL_OK)
    return status;
  status = agl_cuda_load_modules(api);
  if (status != AGL_OK)
    return status;

  agl_cuda_instance *instance = calloc(1, sizeof *instance);
  if (instance) {
    instance->inputs = calloc((size_t)model->num_inputs + 1, sizeof(void *));
    instance->outputs =
        calloc((size_t)model->num_outputs + 1, sizeof(void *));
    size_t values = agl_model_symbol_values(model);
    instance->num_slots = values > 0 ? GRAPH_SLOTS : 1;
    size_t per_slot = values + agl_model_output_dims(model);
    instance->slot_values =
        calloc(instance->num_slots * per_slot + 1, sizeof(int64_t));
    for (int i = 0; instance->slot_values && i < instance->num_slots; ++i) {
      instance->slots[i].symbols = instance->slot_values + i * per_slot;
      instance->slots[i].dims = instance->slots[i].symbols + values;
    }
  }
  if (!instance || !instance->inputs || !instance->outputs ||
      !instance->slot_values) {
    agl_cuda_instance_destroy(instance);
    return agl_fail(AGL_ERR_OUT_OF_MEMORY,
                    "cannot allocate an instance of model '%s'",
                    agl_model_label(model));
  }
  instance->model = model;
  instance->api = api;
  instance->context = context;

  CUresult result = api->cuStreamCreate(&instance->stream, STREAM_NON_BLOCKING);
  if (result != AGL_CUDA_SUCCESS) {
    instance->stream = NULL;
    agl_cuda_instance_destroy(instance);
    return agl_cuda_fail(result, "cuStreamCreate");
  }

  /* One allocation: the arena, then each input and output. */
  uint64_t bytes = align_up(model->arena_size);
  for (int32_t i = 0; i < model->num_inputs; ++i)
    bytes += align_up(agl_tensor_num_bytes(&model->inputs[i]));
  for (int32_t i = 0; i < model->num_outputs; ++i)
    bytes += align_up(agl_tensor_num_bytes(&model->outputs[i]));
  if (bytes > 0) {
    result = api->cuMemAlloc(&instance->memory, (size_t)bytes);
    if (result != AGL_CUDA_SUCCESS) {
      instance->memory = 0;
      agl_cuda_instance_destroy(instance);
      return agl_cuda_fail(result, "cannot allocate the model's device "
                                   "memory (cuMemAlloc)");
    }
  }
  CUdeviceptr next = instance->memory;
  instance->arena = next;
  next += align_up(model->arena_size);
  for (int32_t i = 0; i < model->num_inputs; ++i) {
    instance->inputs[i] = (void *)(uintptr_t)next;
    next += align_up(agl_tensor_num_bytes(&model->inputs[i]));
  }
  for (int32_t i = 0; i < model->num_outputs; ++i) {
    instance->outputs[i] = (void *)(uintptr_t)next;
    next += align_up(agl_tensor_num_bytes(&model->outputs[i]));
  }
  *out = instance;
  return AGL_OK;
}

agl_status agl_cuda_instance_set_weights(agl_cuda_instance *instance,
                                         const void *weights) {
  const agl_cuda_api *api = instance->api;
  CUresult result = api->cuCtxSetCurrent(instance->context);
  if (result != AGL_CUDA_SUCCESS)
    return agl_cuda_fail(result, "cuCtxSetCurrent");
  size_t bytes = (size_t)instance->model->weights_size;
  if (!instance->weights && bytes > 0) {
    result = api->cuMemAlloc(&instance->weights, bytes);
    if (result != AGL_CUDA_SUCCESS) {
      instance->weights = 0;
      return agl_cuda_fail(result, "cannot allocate device memory for the "
                                   "weights (cuMemAlloc)");
    }
  }
  if (bytes > 0) {
    result = api->cuMemcpyHtoD(instance->weights, weights, bytes);
    if (result != AGL_CUDA_SUCCESS)
      return agl_cuda_fail(result, "cannot upload the weights (cuMemcpyHtoD)");
  }
  return AGL_OK;
}

void *agl_cuda_instance_buffer(const agl_cuda_instance *instance, int output,
                               int32_t index) {
  return output ? instance->outputs[index] : instance->inputs[index];
}

/* Runs the model's host code, which queues its work on the stream. */
static agl_status run_host_code(agl_cuda_instance *instance,
                                const int64_t *symbols, int64_t *output_dims,
                                int *capturable) {
  const agl_model_desc *model = instance->model;
  agl_cuda_bind_run(instance->stream, &instance->blas, instance->profile);
  int32_t code =
      model->run((void *)(uintptr_t)instance->arena,
                 (const void *)(uintptr_t)instance->weights,
                 (const void *const *)instance->inputs,
                 (void *const *)instance->outputs, symbols, output_dims);
  agl_status status = agl_cuda_unbind_run(capturable);
  if (status != AGL_OK)
    return status;
  if (code != 0)
    return agl_fail(AGL_ERR_MODEL_FAILED, "model '%s' failed with code %d",
                    agl_model_label(model), (int)code);
  return AGL_OK;
}

static int graphs_wanted(const agl_cuda_instance *instance) {
  const char *setting = getenv("AUTOGLM_CUDA_GRAPHS");
  return instance->api->cuGraphLaunch &&
         !(setting && strcmp(setting, "0") == 0);
}

/* The slot of the run's shape: the one taken by these symbol values, else
 * a free one, else the least recently used one, emptied. */
static graph_slot *slot_for(agl_cuda_instance *instance,
                            const int64_t *symbols) {
  size_t bytes = agl_model_symbol_values(instance->model) * sizeof(int64_t);
  graph_slot *chosen = &instance->slots[0];
  for (int i = 0; i < instance->num_slots; ++i) {
    graph_slot *slot = &instance->slots[i];
    if (slot->used && (!bytes || memcmp(slot->symbols, symbols, bytes) == 0)) {
      chosen = slot;
      break;
    }
    if (slot->used < chosen->used)
      chosen = slot;
  }
  if (!chosen->used || (bytes && memcmp(chosen->symbols, symbols, bytes))) {
    if (chosen->graph)
      instance->api->cuGraphExecDestroy(chosen->graph);
    chosen->graph = NULL;
    chosen->state = GRAPH_UNTRIED;
    if (bytes)
      memcpy(chosen->symbols, symbols, bytes);
  }
  chosen->used = ++instance->runs;
  return chosen;
}

/* Captures the host code's work into the slot's graph; 0 if that failed,
 * with nothing queued (a direct run then does the work). */
static int capture(agl_cuda_instance *instance, graph_slot *slot,
                   const int64_t *symbols, int64_t *output_dims) {
  const agl_cuda_api *api = instance->api;
  if (api->cuStreamBeginCapture(
          instance->stream, AGL_CUDA_CAPTURE_THREAD_LOCAL) != AGL_CUDA_SUCCESS)
    return 0;
  int capturable = 0;
  agl_status status =
      run_host_code(instance, symbols, output_dims, &capturable);
  CUgraph graph = NULL;
  CUresult ended = api->cuStreamEndCapture(instance->stream, &graph);
  CUgraphExec exec = NULL;
  if (status == AGL_OK && capturable && ended == AGL_CUDA_SUCCESS && graph &&
      api->cuGraphInstantiateWithFlags(&exec, graph, 0) != AGL_CUDA_SUCCESS)
    exec = NULL;
  if (graph)
    api->cuGraphDestroy(graph);
  if (!exec)
    return 0;
  slot->graph = exec;
  if (output_dims)
    memcpy(slot->dims, output_dims,
           agl_model_output_dims(instance->model) * sizeof(int64_t));
  return 1;
}

/* Queues the model's work: the graph of the run's shape, or the host
 * code's launches. */
static agl_status launch(agl_cuda_instance *instance, const int64_t *symbols,
                         int64_t *output_dims) {
  int capturable = 0;
  /* A profiled run times each launch: op by op. */
  if (instance->profile) {
    agl_cuda_profile_start_run(instance->profile);
    return run_host_code(instance, symbols, output_dims, &capturable);
  }
  graph_slot *slot = slot_for(instance, symbols);
  if (slot->state == GRAPH_NEXT)
    slot->state = capture(instance, slot, symbols, output_dims) ? GRAPH_READY
                                                                : GRAPH_NEVER;
  if (slot->state == GRAPH_READY) {
    CUresult result =
        instance->api->cuGraphLaunch(slot->graph, instance->stream);
    if (result != AGL_CUDA_SUCCESS)
      return agl_cuda_fail(result, "cannot launch the model's CUDA graph "
                                   "(cuGraphLaunch)");
    /* The host code wrote them when captured; they do not change. */
    if (output_dims)
      memcpy(output_dims, slot->dims,
             agl_model_output_dims(instance->model) * sizeof(int64_t));
    return AGL_OK;
  }
  agl_status status =
      run_host_code(instance, symbols, output_dims, &capturable);
  if (status == AGL_OK && slot->state == GRAPH_UNTRIED)
    slot->state =
        capturable && graphs_wanted(instance) ? GRAPH_NEXT : GRAPH_NEVER;
  return status;
}

static agl_status enqueue(agl_cuda_instance *instance,
                          const void *const *inputs, void *const *outputs,
                          const int64_t *symbols, int64_t *output_dims) {
  const agl_model_desc *model = instance->model;
  const agl_cuda_api *api = instance->api;
  CUresult result = api->cuCtxSetCurrent(instance->context);
  if (result != AGL_CUDA_SUCCESS)
    return agl_cuda_fail(result, "cuCtxSetCurrent");
  /* A null input is already in its device buffer. With symbolic extents
   * only the run's own elements move, packed at the buffer's start as the
   * kernels read them. */
  for (int32_t i = 0; i < model->num_inputs; ++i) {
    size_t bytes = agl_input_run_bytes(&model->inputs[i], symbols);
    if (!inputs[i] || bytes == 0)
      continue;
    result = api->cuMemcpyHtoDAsync((CUdeviceptr)(uintptr_t)instance->inputs[i],
                                    inputs[i], bytes, instance->stream);
    if (result != AGL_CUDA_SUCCESS)
      return agl_cuda_fail(result, "cannot copy an input to the device");
  }
  agl_status status = launch(instance, symbols, output_dims);
  if (status != AGL_OK)
    return status;
  /* A null output stays in its device buffer. The host code has written
   * the run's extents. */
  if (output_dims &&
      (status = agl_check_output_dims(model, output_dims)) != AGL_OK)
    return status;
  const int64_t *extents = output_dims;
  for (int32_t i = 0; i < model->num_outputs; ++i) {
    const agl_tensor_info *info = &model->outputs[i];
    size_t bytes = agl_output_run_bytes(info, extents);
    if (extents)
      extents += info->rank;
    if (!outputs[i] || bytes == 0)
      continue;
    result = api->cuMemcpyDtoHAsync(
        outputs[i], (CUdeviceptr)(uintptr_t)instance->outputs[i], bytes,
        instance->stream);
    if (result != AGL_CUDA_SUCCESS)
      return agl_cuda_fail(result, "cannot copy an output from the device");
  }
  return AGL_OK;
}

agl_status agl_cuda_instance_enqueue(agl_cuda_instance *instance,
                                     const void *const *inputs,
                                     void *const *outputs,
                                     const int64_t *symbols,
                                     int64_t *output_dims) {
  agl_status status = enqueue(instance, inputs, outputs, symbols, output_dims);
  /* After a failure, let what was queued finish before the caller reuses
   * the buffers; the failure's own message is the one kept. */
  if (status != AGL_OK)
    instance->api->cuStreamSynchronize(instance->stream);
  return status;
}

agl_status agl_cuda_instance_wait(agl_cuda_instance *instance) {
  const agl_cuda_api *api = instance->api;
  CUresult result = api->cuCtxSetCurrent(instance->context);
  if (result == AGL_CUDA_SUCCESS)
    result = api->cuStreamSynchronize(instance->stream);
  if (result != AGL_CUDA_SUCCESS)
    return agl_cuda_fail(result, "the model's kernels failed "
                                 "(cuStreamSynchronize)");
  return AGL_OK;
}

agl_status agl_cuda_instance_set_profile(agl_cuda_instance *instance,
                                         size_t max_events) {
  agl_cuda_profile_destroy(instance->profile);
  instance->profile = NULL;
  if (max_events == 0)
    return AGL_OK;
  CUresult result = instance->api->cuCtxSetCurrent(instance->context);
  if (result != AGL_CUDA_SUCCESS)
    return agl_cuda_fail(result, "cuCtxSetCurrent");
  return agl_cuda_profile_create(instance->api, max_events, &instance->profile);
}

agl_status agl_cuda_instance_collect_profile(agl_cuda_instance *instance,
                                             agl_profile *into) {
  return instance->profile ? agl_cuda_profile_collect(instance->profile, into)
                           : AGL_OK;
}
