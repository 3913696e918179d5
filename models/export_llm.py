#!/usr/bin/env python3
"""Export decoder-only language models with a KV cache to ONNX, with
onnxruntime references.

The models are transformers' own classes (GlmForCausalLM: RMSNorm, SwiGLU,
grouped-query attention, partial rotary embeddings; GPT2LMHeadModel: learned
positions, LayerNorm, GELU MLP) with small configs and seeded random
weights. `DecoderWithCache` wraps a model so that the exported graph takes
the KV cache as flat tensors and returns the updated cache:

  inputs   input_ids                 int64   [batch, seq]
           attention_mask            int64   [batch, past + seq]   1 = attend
           position_ids              int64   [batch, seq]
           past_key_values.L.key     float32 [batch, kv_heads, past, head_dim]
           past_key_values.L.value   float32 [batch, kv_heads, past, head_dim]
  outputs  logits                    float32 [batch, seq, vocab]
           present.L.key             float32 [batch, kv_heads, past + seq, head_dim]
           present.L.value           float32 [batch, kv_heads, past + seq, head_dim]

(one key/value pair per layer L). Prefill runs with past = 0 (empty past
tensors), each decode step with seq = 1 and the presents of the previous
step as past.

Written for each small model NAME (committed, the end-to-end tests use it):

  models/NAME.onnx                  the model, weights inline
  models/NAME/config.json           the transformers config and export facts
  models/NAME/dims.json             --dim ranges the tests compile with
  models/NAME/inputs.json           graph input names, in order
  models/NAME/outputs.json          graph output names, in order
  models/NAME/prefill/input_<i>.npy   a fixed prompt (past empty)
  models/NAME/prefill/output_<i>.npy  onnxruntime's outputs for it
  models/NAME/decode/input_<i>.npy    the next token against prefill's presents
  models/NAME/decode/output_<i>.npy   onnxruntime's outputs for it
  models/NAME/generate.json         prompt and greedy continuation (ORT loop)

References come from onnxruntime's CPU provider with graph optimizations off
and one thread, as in models/generate.py.

Usage:
  python3 models/export_llm.py                       # the committed models
  python3 models/export_llm.py --bench [--work-dir D]  # the benchmark-size
                                                       # GLM, into D (not committed)
  python3 models/export_llm.py --only glm_tiny

Needs torch and transformers (only to regenerate; the tests need neither).
See docs/exporting-llms.md for exporting a real checkpoint the same way.
"""

import argparse
import hashlib
import json
import os
import shutil
import sys
import warnings

import numpy as np
import onnx

MODELS_DIR = os.path.dirname(os.path.abspath(__file__))
DEFAULT_WORK_DIR = "/tmp/autoglm-llm"
OPSET = 18  # the dynamo exporter's lowest

# The fixed prompt of the references (token ids below every vocabulary).
PROMPT = [1, 17, 342, 1025, 77, 5, 913, 2048, 64, 311, 7, 4000]
GENERATE_TOKENS = 64


# ---------------------------------------------------------------------------
# Model configurations
# ---------------------------------------------------------------------------

def glm_config(**overrides):
    from transformers import GlmConfig
    params = dict(vocab_size=8192, hidden_size=256, intermediate_size=512,
                  num_hidden_layers=2, num_attention_heads=4,
                  num_key_value_heads=2, head_dim=64,
                  max_position_embeddings=512, rms_norm_eps=1e-5,
                  attention_bias=True, tie_word_embeddings=True,
                  pad_token_id=0, eos_token_id=None, bos_token_id=None,
                  rope_parameters=dict(rope_type="default", rope_theta=10000.0,
                                       partial_rotary_factor=0.5))
    params.update(overrides)
    return GlmConfig(**params)


def gpt2_config(**overrides):
    from transformers import GPT2Config
    params = dict(vocab_size=8192, n_positions=512, n_embd=128, n_layer=2,
                  n_head=4, n_inner=512, activation_function="gelu_new",
                  resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
                  tie_word_embeddings=True, bos_token_id=None,
                  eos_token_id=None, pad_token_id=None)
    params.update(overrides)
    return GPT2Config(**params)


# name: (architecture, config factory, seed, --dim ranges of the tests)
MODELS = {
    "glm_tiny": ("glm", glm_config, 1001, dict(batch=[1, 1], seq=[1, 32], past=[0, 96], total=[1, 128])),
    "gpt2_tiny": ("gpt2", gpt2_config, 2002, dict(batch=[1, 1], seq=[1, 32], past=[0, 96], total=[1, 128])),
}

# The benchmark-size GLM: generated on demand (--bench), not committed.
BENCH_MODELS = {
    "glm_bench": ("glm", lambda: glm_config(
        vocab_size=32768, hidden_size=1024, intermediate_size=2816,
        num_hidden_layers=6, num_attention_heads=16, num_key_value_heads=4,
        head_dim=64, max_position_embeddings=2048, tie_word_embeddings=False),
        3003, dict(batch=[1, 1], seq=[1, 128], past=[0, 1023], total=[1, 1151])),
}


def build_model(arch, config, seed):
    import torch
    from transformers import GlmForCausalLM, GPT2LMHeadModel
    torch.manual_seed(seed)
    config._attn_implementation = "eager"
    cls = GlmForCausalLM if arch == "glm" else GPT2LMHeadModel
    model = cls(config)
    # Random weights of unit-scale products (the initializer's are tiny), so
    # that every layer changes the logits and a wrong op shows in them.
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() == 1 and ("norm" in name or ".ln_" in name):
                base = 1.0 if name.endswith("weight") else 0.0
                p.copy_(base + 0.1 * torch.randn_like(p))
            elif p.dim() == 1:
                p.copy_(0.05 * torch.randn_like(p))
            elif "embed" in name or name.endswith(("wte.weight", "wpe.weight")):
                p.copy_(0.25 * torch.randn_like(p))
            else:
                # Linear stores [out, in], GPT-2's Conv1D [in, out].
                fan_in = p.shape[0] if arch == "gpt2" else p.shape[1]
                p.copy_(torch.randn_like(p) / np.sqrt(fan_in))
    return model.eval()


# ---------------------------------------------------------------------------
# The wrapper that fixes the graph's signature
# ---------------------------------------------------------------------------

def kv_geometry(config):
    """(layers, kv_heads, head_dim) of a config."""
    layers = config.num_hidden_layers
    heads = config.num_attention_heads
    kv_heads = getattr(config, "num_key_value_heads", None) or heads
    head_dim = getattr(config, "head_dim", None) or config.hidden_size // heads
    return layers, kv_heads, head_dim


def make_wrapper(model):
    import torch
    from transformers import DynamicCache

    class DecoderWithCache(torch.nn.Module):
        """Flat past tensors in, logits and flat presents out.

        The additive attention mask [batch, 1, seq, past + seq] is built
        here from the 2-D padding mask and the causal pattern (a query at
        position past + i sees keys 0..past + i), so the model takes it as
        prepared and the graph needs no mask-building control flow."""

        def __init__(self, model):
            super().__init__()
            self.model = model
            self.layers = model.config.num_hidden_layers

        def forward(self, input_ids, attention_mask, position_ids, *past):
            seq = input_ids.shape[1]
            total = attention_mask.shape[1]
            cache = DynamicCache(config=self.model.config)
            for i in range(self.layers):
                layer = cache.layers[i]
                layer.keys, layer.values = past[2 * i], past[2 * i + 1]
                layer.device = input_ids.device
                layer.is_initialized = True
            key_pos = torch.arange(total, device=input_ids.device)
            query_pos = torch.arange(seq, device=input_ids.device) + (total - seq)
            causal = key_pos[None, :] <= query_pos[:, None]
            keep = causal[None, None, :, :] & (attention_mask[:, None, None, :] != 0)
            mask = torch.where(keep, torch.tensor(0.0),
                               torch.tensor(torch.finfo(torch.float32).min))
            out = self.model(input_ids=input_ids, attention_mask=mask,
                             position_ids=position_ids, cache=cache,
                             use_cache=True)
            presents = []
            for i in range(self.layers):
                presents += [out.cache.layers[i].keys, out.cache.layers[i].values]
            return (out.logits, *presents)

    return DecoderWithCache(model)


def io_names(config):
    layers = config.num_hidden_layers
    inputs = ["input_ids", "attention_mask", "position_ids"]
    outputs = ["logits"]
    for i in range(layers):
        inputs += [f"past_key_values.{i}.key", f"past_key_values.{i}.value"]
        outputs += [f"present.{i}.key", f"present.{i}.value"]
    return inputs, outputs


def example_inputs(config, batch, seq, past):
    import torch
    layers, kv_heads, head_dim = kv_geometry(config)
    ids = torch.arange(seq, dtype=torch.int64).repeat(batch, 1) % config.vocab_size
    mask = torch.ones(batch, past + seq, dtype=torch.int64)
    pos = torch.arange(past, past + seq, dtype=torch.int64).repeat(batch, 1)
    kv = [torch.randn(batch, kv_heads, past, head_dim) for _ in range(2 * layers)]
    return (ids, mask, pos, *kv)


def export(model, path, external_data=False):
    """torch.onnx.export with the dynamo exporter (torch.export, then
    onnxscript's optimizer): one flat graph of standard ops with no
    functions and no If nodes; shapes are read by Shape(start, end) and
    combined by Add/Sub, the mask is built by Range, LessOrEqual and Where,
    the rotary tables by Cos/Sin of the positions. The TorchScript exporter
    (dynamo=False) fails on transformers 5's cache code and writes twice as
    many shape nodes where it runs. `external_data` writes the weights
    to a side file (needed above 2 GB)."""
    import torch
    config = model.config
    layers = config.num_hidden_layers
    wrapper = make_wrapper(model)
    inputs, outputs = io_names(config)
    batch = torch.export.Dim("batch", min=1, max=64)
    seq = torch.export.Dim("seq", min=1, max=4096)
    past = torch.export.Dim("past", min=0, max=4096)
    dynamic_shapes = {
        "input_ids": {0: batch, 1: seq},
        "attention_mask": {0: batch, 1: torch.export.Dim.AUTO},
        "position_ids": {0: batch, 1: seq},
        "past": tuple({0: batch, 2: past} for _ in range(2 * layers)),
    }
    # Traced at past > 0 and seq > 1, so that no size 1 or 0 is specialized.
    args = example_inputs(config, batch=2, seq=5, past=3)
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(wrapper, args, path, input_names=inputs,
                          output_names=outputs, dynamic_shapes=dynamic_shapes,
                          opset_version=OPSET, dynamo=True, optimize=True,
                          external_data=external_data, verbose=False)
    m = onnx.load(path, load_external_data=False)
    # Name the mask's length (torch.export calls it s<N>) and the presents'
    # (an expression such as "past + seq") by one symbol each.
    mask_dim = m.graph.input[1].type.tensor_type.shape.dim[1]
    mask_dim.dim_param = "total"
    for vi in m.graph.output[1:]:
        vi.type.tensor_type.shape.dim[2].dim_param = "total"
    del m.metadata_props[:]
    m.producer_name = "autoglm-export-llm"
    m.producer_version = ""
    if external_data:
        onnx.checker.check_model(path, full_check=True)
        onnx.save_model(m, path)  # the tensors keep pointing at the side file
    else:
        onnx.checker.check_model(m, full_check=True)
        onnx.save_model(m, path)
    return m


# ---------------------------------------------------------------------------
# onnxruntime references
# ---------------------------------------------------------------------------

def ort_session(path):
    import onnxruntime as ort
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    return ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])


def step_inputs(config, tokens, past_len, presents):
    """Feeds of one step: `tokens` (a list) after `past_len` cached
    positions, `presents` the previous step's cache (None: empty)."""
    layers, kv_heads, head_dim = kv_geometry(config)
    seq = len(tokens)
    feeds = [np.array([tokens], np.int64),
             np.ones((1, past_len + seq), np.int64),
             np.arange(past_len, past_len + seq, dtype=np.int64)[None, :]]
    if presents is None:
        presents = [np.zeros((1, kv_heads, 0, head_dim), np.float32)] * (2 * layers)
    return feeds + list(presents)


def write_case(case_dir, feeds, results):
    os.makedirs(case_dir, exist_ok=True)
    for i, a in enumerate(feeds):
        np.save(os.path.join(case_dir, f"input_{i}.npy"), np.ascontiguousarray(a))
    for i, a in enumerate(results):
        np.save(os.path.join(case_dir, f"output_{i}.npy"), np.ascontiguousarray(a))


def write_references(path, out_dir, config, dims):
    sess = ort_session(path)
    inputs, outputs = io_names(config)
    assert [i.name for i in sess.get_inputs()] == inputs

    def run(feeds):
        return sess.run(None, dict(zip(inputs, feeds)))

    prefill = step_inputs(config, PROMPT, 0, None)
    prefill_out = run(prefill)
    write_case(os.path.join(out_dir, "prefill"), prefill, prefill_out)
    first = int(np.argmax(prefill_out[0][0, -1]))
    decode = step_inputs(config, [first], len(PROMPT), prefill_out[1:])
    write_case(os.path.join(out_dir, "decode"), decode, run(decode))

    # Greedy generation with the KV cache.
    generated, presents, past_len = [first], prefill_out[1:], len(PROMPT)
    while len(generated) < GENERATE_TOKENS:
        out = run(step_inputs(config, [generated[-1]], past_len, presents))
        presents, past_len = out[1:], past_len + 1
        generated.append(int(np.argmax(out[0][0, -1])))
    # The same continuation without a cache: every step recomputes the
    # whole sequence (a check of the cache path, not written).
    check = list(PROMPT)
    for _ in range(8):
        out = run(step_inputs(config, check, 0, None))
        check.append(int(np.argmax(out[0][0, -1])))
    assert check[len(PROMPT):] == generated[:8], (check, generated)

    with open(os.path.join(out_dir, "inputs.json"), "w") as f:
        json.dump(inputs, f)
        f.write("\n")
    with open(os.path.join(out_dir, "outputs.json"), "w") as f:
        json.dump(outputs, f)
        f.write("\n")
    with open(os.path.join(out_dir, "dims.json"), "w") as f:
        json.dump(dims, f, sort_keys=True)
        f.write("\n")
    with open(os.path.join(out_dir, "generate.json"), "w") as f:
        json.dump(dict(prompt=PROMPT, generated=generated,
                       note="greedy (argmax) decoding, onnxruntime, one "
                            "prefill then one step per token with the KV cache"),
                  f, indent=1)
        f.write("\n")


def describe_config(arch, config, seed, model_proto):
    layers, kv_heads, head_dim = kv_geometry(config)
    ops = {}
    for n in model_proto.graph.node:
        ops[n.op_type] = ops.get(n.op_type, 0) + 1
    return dict(architecture=arch, seed=seed, opset=OPSET,
                layers=layers, heads=config.num_attention_heads,
                kv_heads=kv_heads, head_dim=head_dim,
                hidden=config.hidden_size, vocab=config.vocab_size,
                nodes=len(model_proto.graph.node),
                op_counts=dict(sorted(ops.items())),
                transformers_config=json.loads(config.to_json_string()))


def write_model(name, spec, out_root, references=True):
    arch, make_config, seed, dims = spec
    config = make_config()
    model = build_model(arch, config, seed)
    path = os.path.join(out_root, f"{name}.onnx")
    out_dir = os.path.join(out_root, name)
    if os.path.isdir(out_dir):
        shutil.rmtree(out_dir)
    os.makedirs(out_dir)
    proto = export(model, path)
    with open(os.path.join(out_dir, "config.json"), "w") as f:
        json.dump(describe_config(arch, config, seed, proto), f, indent=1,
                  sort_keys=True)
        f.write("\n")
    if references:
        write_references(path, out_dir, config, dims)
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append",
                        help="export only this model (repeatable)")
    parser.add_argument("--bench", action="store_true",
                        help="export the benchmark-size GLM into --work-dir")
    parser.add_argument("--work-dir", default=DEFAULT_WORK_DIR)
    args = parser.parse_args()
    import torch
    torch.set_num_threads(1)
    if args.bench:
        # Reused while this script is unchanged (as bench/workloads.py does).
        os.makedirs(args.work_dir, exist_ok=True)
        with open(os.path.abspath(__file__), "rb") as f:
            key = hashlib.sha256(f.read()).hexdigest()
        for name, spec in BENCH_MODELS.items():
            stamp = os.path.join(args.work_dir, name, "source.sha256")
            path = os.path.join(args.work_dir, f"{name}.onnx")
            if not (os.path.isfile(stamp) and open(stamp).read() == key):
                path = write_model(name, spec, args.work_dir)
                with open(stamp, "w") as f:
                    f.write(key)
            print(f"{name}: {path}")
        return
    for name, spec in MODELS.items():
        if args.only and name not in args.only:
            continue
        path = write_model(name, spec, MODELS_DIR)
        print(f"{name}: {path} ({os.path.getsize(path)} bytes)")


if __name__ == "__main__":
    main()
