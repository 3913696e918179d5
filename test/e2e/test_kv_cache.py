#!/usr/bin/env python3
"""KV caches (--max-seq-len): a decoder attention block exported with past
inputs and present outputs compiles into a model that keeps its keys and
values itself. A prefill and then single-token steps through the runtime's C
API match onnxruntime fed the growing past explicitly; the cache length
advances, rewinds, and a run past the capacity fails cleanly without
changing anything; models without a usable cache get clear compile errors.
A whole decoder (models/glm_tiny.onnx) compiled for a batch of two keeps
one cache per sequence: two prompts, one left-padded, then single-token
steps match onnxruntime fed the growing past explicitly. Both again for the
GPU's code compiled for this CPU (--target=cuda-emulated), where the runtime
keeps the cache length and passes it after the symbol values."""

import ctypes
import os
import sys
import unittest

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_common import (  # noqa: E402
    MODELS_DIR, E2ETestCase, compile_model, describe)

RT_SHARED = os.environ.get("AUTOGLM_RT_SHARED", "")
HEADS, HEAD_DIM, HIDDEN = 2, 8, 16
CAPACITY = 24
# Attention over a cache sums at most CAPACITY products; float32 rounding.
RTOL, ATOL = 1e-4, 1e-5


def attention_block(with_past=True, seed=0):
    """Q/K/V projections, keys and values appended to the past along the
    sequence axis, softmax attention over all of them, merged heads."""
    rng = np.random.default_rng(seed)
    inits = [nh.from_array(rng.standard_normal((HIDDEN, HEADS * HEAD_DIM))
                           .astype(np.float32) * 0.3, w)
             for w in ("wq", "wk", "wv")]
    inits += [nh.from_array(np.array([1, -1, HEADS, HEAD_DIM], np.int64),
                            "split"),
              nh.from_array(np.array([1, -1, HIDDEN], np.int64), "merge"),
              nh.from_array(np.array(HEAD_DIM ** -0.5, np.float32), "scale")]
    nodes = []
    for name in ("q", "k", "v"):
        nodes += [h.make_node("MatMul", ["x", "w" + name], [name + "_p"]),
                  h.make_node("Reshape", [name + "_p", "split"], [name + "_r"]),
                  h.make_node("Transpose", [name + "_r"], [name + "_t"],
                              perm=[0, 2, 1, 3])]
    keys, values = "k_t", "v_t"
    if with_past:
        nodes += [h.make_node("Concat", ["past_key", "k_t"], ["present_key"],
                              axis=2),
                  h.make_node("Concat", ["past_value", "v_t"],
                              ["present_value"], axis=2)]
        keys, values = "present_key", "present_value"
    nodes += [h.make_node("Transpose", [keys], ["kt"], perm=[0, 1, 3, 2]),
              h.make_node("MatMul", ["q_t", "kt"], ["s"]),
              h.make_node("Mul", ["s", "scale"], ["ss"]),
              h.make_node("Softmax", ["ss"], ["p"], axis=-1),
              h.make_node("MatMul", ["p", values], ["o"]),
              h.make_node("Transpose", ["o"], ["ot"], perm=[0, 2, 1, 3]),
              h.make_node("Reshape", ["ot", "merge"], ["y"])]
    cache = [1, HEADS, "past", HEAD_DIM]
    inputs = [h.make_tensor_value_info("x", T.FLOAT, [1, "seq", HIDDEN])]
    outputs = [h.make_tensor_value_info("y", T.FLOAT, [1, "seq", HIDDEN])]
    if with_past:
        inputs += [h.make_tensor_value_info(n, T.FLOAT, cache)
                   for n in ("past_key", "past_value")]
        outputs += [h.make_tensor_value_info(n, T.FLOAT,
                                             [1, HEADS, "total", HEAD_DIM])
                    for n in ("present_key", "present_value")]
    graph = h.make_graph(nodes, "kv", inputs, outputs, inits)
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])
    onnx.checker.check_model(model, full_check=True)
    return model


class Runtime:
    """The runtime's C API through ctypes, on one loaded artifact."""

    def __init__(self, artifact):
        self.lib = ctypes.CDLL(RT_SHARED, mode=ctypes.RTLD_GLOBAL)
        lib = self.lib
        lib.agl_last_error.restype = ctypes.c_char_p
        self.library = ctypes.c_void_p()
        self.model = ctypes.c_void_p()
        self.check(lib.agl_library_open(artifact.encode(),
                                        ctypes.byref(self.library),
                                        ctypes.byref(self.model)))
        self.instance = ctypes.c_void_p()
        self.check(lib.agl_instance_create(self.model,
                                           ctypes.byref(self.instance)))
        lib.agl_library_weights.restype = ctypes.c_void_p
        weights = lib.agl_library_weights(self.library)
        if weights:  # a weights file (the GPU's code always has one)
            self.check(lib.agl_instance_set_weights(
                self.instance, ctypes.c_void_p(weights)))

    def close(self):
        self.lib.agl_instance_destroy(self.instance)
        self.lib.agl_library_close(self.library)

    def check(self, status):
        if status != 0:
            raise RuntimeError(f"status {status}: "
                               f"{self.lib.agl_last_error().decode()}")

    def run(self, x):
        """One run on x [1, seq, HIDDEN]; returns (status, y)."""
        x = np.ascontiguousarray(x, dtype=np.float32)
        y = np.zeros((1, 16, HIDDEN), np.float32)  # the bound of `seq`
        shape = (ctypes.c_int64 * 3)(*x.shape)
        inputs = (ctypes.c_void_p * 1)(x.ctypes.data)
        shapes = (ctypes.c_void_p * 1)(ctypes.addressof(shape))
        outputs = (ctypes.c_void_p * 1)(y.ctypes.data)
        out_shape = (ctypes.c_int64 * 3)()
        out_shapes = (ctypes.c_void_p * 1)(ctypes.addressof(out_shape))
        status = self.lib.agl_instance_run_shaped(self.instance, inputs,
                                                  shapes, outputs, out_shapes)
        return status, y[:, :out_shape[1]].copy()

    def run_decoder(self, ids, mask, positions, vocab):
        """One run of a decoder (input_ids, attention_mask, position_ids ->
        logits); returns the logits, or raises on a failed status."""
        feeds = [np.ascontiguousarray(a, dtype=np.int64)
                 for a in (ids, mask, positions)]
        logits = np.zeros(ids.shape + (vocab,), np.float32)
        shapes = [(ctypes.c_int64 * 2)(*a.shape) for a in feeds]
        inputs = (ctypes.c_void_p * 3)(*[a.ctypes.data for a in feeds])
        shape_ptrs = (ctypes.c_void_p * 3)(
            *[ctypes.addressof(x) for x in shapes])
        outputs = (ctypes.c_void_p * 1)(logits.ctypes.data)
        out_shape = (ctypes.c_int64 * 3)()
        out_shapes = (ctypes.c_void_p * 1)(ctypes.addressof(out_shape))
        self.check(self.lib.agl_instance_run_shaped(
            self.instance, inputs, shape_ptrs, outputs, out_shapes))
        return logits

    def length(self):
        value = ctypes.c_int64(-1)
        self.check(self.lib.agl_instance_cache_length(self.instance,
                                                      ctypes.byref(value)))
        return value.value

    def set_length(self, length):
        return self.lib.agl_instance_set_cache_length(
            self.instance, ctypes.c_int64(length))


class BatchedDecoderTest(E2ETestCase):
    """glm_tiny with a cache for two sequences that advance together."""

    BATCH, CAPACITY, MAX_SEQ = 2, 32, 8
    TARGET = ()  # options that pick the target

    def test_padded_batch_matches_onnxruntime_with_explicit_past(self):
        import onnxruntime as ort
        model = os.path.join(MODELS_DIR, "glm_tiny.onnx")
        artifact = self.compiled(
            model, ".so", *self.TARGET, "--dim", f"batch={self.BATCH}", "--dim",
            f"seq=1..{self.MAX_SEQ}", "--dim", f"past=0..{self.CAPACITY}",
            "--dim", f"total=1..{self.CAPACITY}", "--max-seq-len",
            str(self.CAPACITY))
        session = ort.InferenceSession(model,
                                       providers=["CPUExecutionProvider"])
        runtime = Runtime(artifact)
        self.addCleanup(runtime.close)
        names = [i.name for i in session.get_inputs()]
        past_shape = session.get_inputs()[3].shape
        heads, head_dim = past_shape[1], past_shape[3]
        past = {n: np.zeros((self.BATCH, heads, 0, head_dim), np.float32)
                for n in names[3:]}
        vocab = session.get_outputs()[0].shape[2]
        # Prompts of 5 and 3 tokens, the second padded on the left; its
        # positions count its own tokens only (as transformers' generate).
        ids = np.array([[11, 7, 301, 42, 5], [0, 0, 99, 3, 250]], np.int64)
        mask = np.array([[1, 1, 1, 1, 1], [0, 0, 1, 1, 1]], np.int64)
        positions = np.array([[0, 1, 2, 3, 4], [1, 1, 0, 1, 2]], np.int64)
        rng = np.random.default_rng(3)
        for step in range(4):
            feeds = {"input_ids": ids, "attention_mask": mask,
                     "position_ids": positions, **past}
            expected = session.run(None, feeds)
            past = dict(zip(names[3:], expected[1:]))
            logits = runtime.run_decoder(ids, mask, positions, vocab)
            # Rows of the padding see no token; only real positions count.
            real = mask[:, -ids.shape[1]:] == 1
            np.testing.assert_allclose(logits[real], expected[0][real],
                                       rtol=1e-4, atol=1e-5,
                                       err_msg=f"step {step}")
            self.assertEqual(runtime.length(), mask.shape[1])
            ids = rng.integers(1, vocab, (self.BATCH, 1), dtype=np.int64)
            mask = np.concatenate([mask, np.ones((self.BATCH, 1), np.int64)],
                                  axis=1)
            positions = positions[:, -1:] + 1


class KVCacheTest(E2ETestCase):
    TARGET = ()  # options that pick the target

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        if not os.path.isfile(RT_SHARED):
            raise RuntimeError("set AUTOGLM_RT_SHARED to libautoglm_rt.so")
        cls.model = cls.cache.path("kv.onnx")
        onnx.save(attention_block(), cls.model)

    def artifact(self):
        return self.compiled(self.model, ".so", *self.TARGET, "--dim", "seq=1..16",
                             "--dim", "past=1..64", "--max-seq-len",
                             str(CAPACITY))

    def reference(self):
        import onnxruntime as ort
        return ort.InferenceSession(self.model,
                                    providers=["CPUExecutionProvider"])

    def test_steps_match_onnxruntime_with_explicit_past(self):
        session = self.reference()
        runtime = Runtime(self.artifact())
        self.addCleanup(runtime.close)
        rng = np.random.default_rng(1)
        past = np.zeros((1, HEADS, 0, HEAD_DIM), np.float32)
        past_k, past_v = past, past
        self.assertEqual(runtime.length(), 0)
        for seq in (5, 1, 1, 3, 1):
            x = rng.standard_normal((1, seq, HIDDEN)).astype(np.float32)
            y_ref, past_k, past_v = session.run(
                None, {"x": x, "past_key": past_k, "past_value": past_v})
            status, y = runtime.run(x)
            runtime.check(status)
            np.testing.assert_allclose(y, y_ref, rtol=RTOL, atol=ATOL)
            self.assertEqual(runtime.length(), past_k.shape[2])

    def test_rewind_replays_the_same_step(self):
        runtime = Runtime(self.artifact())
        self.addCleanup(runtime.close)
        rng = np.random.default_rng(2)
        runtime.check(runtime.run(rng.standard_normal((1, 4, HIDDEN)))[0])
        step = rng.standard_normal((1, 1, HIDDEN))
        status, first = runtime.run(step)
        runtime.check(status)
        runtime.check(runtime.set_length(4))
        status, again = runtime.run(step)
        runtime.check(status)
        np.testing.assert_array_equal(first, again)
        # Only a shorter length keeps the contents meaningful.
        self.assertNotEqual(runtime.set_length(6), 0)
        self.assertIn("holds 5 positions",
                      runtime.lib.agl_last_error().decode())

    def test_full_cache_is_refused_and_changes_nothing(self):
        runtime = Runtime(self.artifact())
        self.addCleanup(runtime.close)
        x = np.ones((1, 10, HIDDEN), np.float32)
        runtime.check(runtime.run(x)[0])
        runtime.check(runtime.run(x)[0])
        status, _ = runtime.run(x)  # 20 + 10 > 24
        self.assertEqual(status, 7)  # AGL_ERR_CACHE_FULL
        message = runtime.lib.agl_last_error().decode()
        self.assertIn("holds 24 positions; 20 are in use", message)
        self.assertEqual(runtime.length(), 20)
        runtime.check(runtime.set_length(0))
        runtime.check(runtime.run(x)[0])

    def test_model_without_cache_pairs_is_an_error(self):
        path = self.cache.path("no_past.onnx")
        onnx.save(attention_block(with_past=False), path)
        result = compile_model(path, self.cache.path("no_past.so"),
                               "--dim", "seq=1..16", "--max-seq-len", "8")
        self.assertCleanError(result, "autoglm-compile", "found no KV cache",
                              one_line=False)

    def test_prompt_longer_than_the_cache_is_an_error(self):
        result = compile_model(self.model, self.cache.path("small.so"),
                               "--dim", "seq=1..16", "--dim", "past=1..64",
                               "--max-seq-len", "8")
        self.assertCleanError(result, "autoglm-compile", "up to 16 positions",
                              "more than the 8", one_line=False)


GPU_EMULATED = ("--target=cuda-emulated",)


class EmulatedGpuKVCacheTest(KVCacheTest):
    """The GPU's code: the length after the symbol values, the runtime's."""
    TARGET = GPU_EMULATED


class EmulatedGpuBatchedDecoderTest(BatchedDecoderTest):
    TARGET = GPU_EMULATED


if __name__ == "__main__":
    unittest.main()
