#!/usr/bin/env python3
"""The engines bench/run.py compares AutoGLM with: ONNX Runtime, IREE, TVM.

Every measurement runs in a child process of its own (this file, in child
mode), so engines never share a process, a thread pool or spinning worker
threads, and each child is given its thread count before the engine starts:

  ORT   onnxruntime, CPU provider, graph optimization level ORT_ENABLE_ALL,
        intra_op_num_threads = T, inter_op_num_threads = 1.
  IREE  iree-base-compiler / iree-base-runtime: `iree-import-onnx`, then
        `iree-compile` for the llvm-cpu backend with
        --iree-llvmcpu-target-cpu=host; run on the local-task driver with
        --task_topology_group_count=T.
  TVM   apache-tvm: the Relax ONNX frontend, `tvm.compile` for the llvm
        target with mcpu = the host CPU as LLVM names it (znver4 on Zen 4),
        default pipeline, no tuning; run on the Relax VM with
        TVM_NUM_THREADS=T.

A child loads the inputs (.npy), creates the session or loads the compiled
module, runs it `warmup` times, then times `runs` calls one by one
(time.perf_counter around the call; the inputs are already in the engine's
tensor type, so the times hold no conversion of inputs) and writes the
outputs of the last call as .npy files for the caller to check.

A peer that is not installed, or that fails to compile or run a model,
raises PeerError with a short reason for the table.
"""

import hashlib
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
COMPILE_TIMEOUT_S = 900


class PeerError(Exception):
    """A peer could not compile or run a model; str() is the table note."""


def _short(text, limit=60):
    """The last meaningful line of an error output, shortened for a table
    cell."""
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    for ln in reversed(lines):
        if "error" in ln.lower() or "exception" in ln.lower():
            break
    else:
        ln = lines[-1] if lines else "failed"
    ln = ln.replace("|", "/")
    return ln if len(ln) <= limit else ln[:limit - 3] + "..."


def _run_child(spec, env=None, timeout=None):
    """Runs this file in child mode with `spec`; returns its JSON answer."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    try:
        proc = subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--child",
             json.dumps(spec)],
            capture_output=True, text=True, env=full_env, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise PeerError(f"timed out after {timeout} s")
    if proc.returncode != 0:
        raise PeerError(_short(proc.stderr or proc.stdout))
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _installed(module):
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


class Peer:
    name = key = "?"
    module = None  # the Python package that must be importable
    suffix = ""  # of the compiled artifact

    def __init__(self):
        self.version = None
        if _installed(self.module):
            try:
                self.version = _run_child({"engine": self.key,
                                           "action": "version"},
                                          timeout=120)["version"]
                self.missing = None
            except PeerError as e:
                self.missing = f"import fails: {e}"
        else:
            self.missing = "not installed"

    def compile(self, workload):
        """Returns (artifact path or None, compile seconds or None);
        the artifact is cached in the workload's directory."""
        return None, None

    # Seconds of timed runs a measurement may take; None: always `runs`.
    budget_s = None

    def measure(self, workload, artifact, threads, warmup, runs, out_dir):
        """Times the model in a child process; returns a dict with
        median_ms, min_ms, runs and outputs (paths of .npy files)."""
        spec = dict(engine=self.key, action="measure",
                    budget_s=self.budget_s,
                    model=workload["model"], artifact=artifact,
                    inputs=[i["path"] for i in workload["inputs"]],
                    input_names=[i["name"] for i in workload["inputs"]],
                    output_names=[o["name"] for o in workload["outputs"]],
                    threads=threads, warmup=warmup, runs=runs,
                    out_dir=out_dir)
        return _run_child(spec, env=self.env(threads),
                          timeout=COMPILE_TIMEOUT_S)

    def env(self, threads):
        return {}

    def _cached(self, workload, flags, build):
        """Builds the artifact with build(path) unless an artifact made with
        the same engine version and flags is there already."""
        key = hashlib.sha256(json.dumps([self.version, flags]).encode())
        art_dir = os.path.join(workload["dir"], self.key)
        os.makedirs(art_dir, exist_ok=True)
        path = os.path.join(art_dir, f"model-{key.hexdigest()[:12]}"
                                     f"{self.suffix}")
        if os.path.isfile(path):
            return path, None
        start = time.perf_counter()
        build(path + ".tmp")
        seconds = time.perf_counter() - start
        os.rename(path + ".tmp", path)
        return path, seconds


class OnnxRuntime(Peer):
    name, key, module = "ORT", "ort", "onnxruntime"


class Iree(Peer):
    name, key, module, suffix = "IREE", "iree", "iree.runtime", ".vmfb"
    FLAGS = ["--iree-hal-target-device=local",
             "--iree-hal-local-target-device-backends=llvm-cpu",
             "--iree-llvmcpu-target-cpu=host"]

    def __init__(self):
        super().__init__()
        if not self.missing and not _installed("iree.compiler"):
            self.missing = "iree-base-compiler not installed"

    def compile(self, workload):
        def build(path):
            mlir = path + ".mlir"
            steps = [
                ("import", [sys.executable, "-m",
                            "iree.compiler.tools.import_onnx",
                            workload["model"], "-o", mlir]),
                ("compile", [sys.executable, "-m",
                             "iree.compiler.tools.scripts.iree_compile",
                             mlir, *self.FLAGS, "-o", path]),
            ]
            try:
                for what, cmd in steps:
                    try:
                        proc = subprocess.run(cmd, capture_output=True,
                                              text=True,
                                              timeout=COMPILE_TIMEOUT_S)
                    except subprocess.TimeoutExpired:
                        raise PeerError(f"{what} timed out")
                    if proc.returncode != 0:
                        raise PeerError(
                            f"{what}: {_short(proc.stderr or proc.stdout)}")
            finally:
                if os.path.exists(mlir):
                    os.remove(mlir)
        return self._cached(workload, self.FLAGS, build)


class Tvm(Peer):
    name, key, module, suffix = "TVM", "tvm", "tvm", ".so"

    def target(self):
        # TVM 0.27 takes targets in dict form only ("llvm -mcpu=..." is
        # rejected).
        return {"kind": "llvm", "mcpu": _tvm_host_cpu() or "znver4"}

    def compile(self, workload):
        target = self.target()

        def build(path):
            _run_child(dict(engine="tvm", action="compile",
                            model=workload["model"], target=target,
                            artifact=path),
                       timeout=COMPILE_TIMEOUT_S)
        return self._cached(workload, [target], build)

    def env(self, threads):
        return {"TVM_NUM_THREADS": str(threads)}


_HOST_CPU = []


def _tvm_host_cpu():
    """LLVM's name for the host CPU as TVM's LLVM sees it."""
    if not _HOST_CPU:
        try:
            _HOST_CPU.append(_run_child({"engine": "tvm",
                                         "action": "host_cpu"},
                                        timeout=120)["cpu"])
        except PeerError:
            _HOST_CPU.append(None)
    return _HOST_CPU[0]


PEERS = [OnnxRuntime, Iree, Tvm]


# ---------------------------------------------------------------------------
# Child mode
# ---------------------------------------------------------------------------

def _time_calls(call, warmup, runs, budget_s=None):
    """`warmup` untimed calls, then `runs` timed ones. With a budget, the
    first warm-up call is timed, and when the rest would take longer than
    budget_s the other warm-up calls are dropped and the timed runs cut to
    what fits (at least 3); when that first call alone took longer than the
    budget, it is the only measurement."""
    if budget_s and warmup > 0:
        start = time.perf_counter()
        result = call()
        first = time.perf_counter() - start
        if first > budget_s:
            return result, [first * 1e3]
        warmup -= 1
        if first * (warmup + runs) > budget_s:
            warmup = 0
            runs = max(3, min(runs, int(budget_s / first)))
    for _ in range(warmup):
        call()
    times = []
    result = None
    for _ in range(runs):
        start = time.perf_counter()
        result = call()
        times.append((time.perf_counter() - start) * 1e3)
    return result, times


def _answer(spec, outputs, times, **extra):
    import numpy as np
    paths = []
    os.makedirs(spec["out_dir"], exist_ok=True)
    for name, array in zip(spec["output_names"], outputs):
        path = os.path.join(spec["out_dir"], f"{name}.npy")
        np.save(path, np.asarray(array))
        paths.append(path)
    return dict(median_ms=statistics.median(times), min_ms=min(times),
                runs=len(times), outputs=paths, **extra)


def child_ort(spec):
    import numpy as np
    import onnxruntime as ort
    if spec["action"] == "version":
        return {"version": ort.__version__}
    options = ort.SessionOptions()
    options.graph_optimization_level = (
        ort.GraphOptimizationLevel.ORT_ENABLE_ALL)
    options.intra_op_num_threads = spec["threads"]
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(spec["model"], sess_options=options,
                                   providers=["CPUExecutionProvider"])
    feeds = {name: np.load(path)
             for name, path in zip(spec["input_names"], spec["inputs"])}
    outputs, times = _time_calls(lambda: session.run(None, feeds),
                                 spec["warmup"], spec["runs"])
    return _answer(spec, outputs, times)


def child_iree(spec):
    import numpy as np
    import iree.runtime as rt
    if spec["action"] == "version":
        import iree.compiler.version as cv
        return {"version": cv.VERSION if hasattr(cv, "VERSION")
                else getattr(rt, "__version__", "?")}
    rt.flags.parse_flags(f"--task_topology_group_count={spec['threads']}")
    config = rt.Config("local-task")
    ctx = rt.SystemContext(config=config)
    vm_module = rt.VmModule.mmap(config.vm_instance, spec["artifact"])
    ctx.add_vm_module(vm_module)
    names = [n for n in vm_module.function_names
             if not n.startswith("__") and not n.endswith("$async")]
    if len(names) != 1:
        raise RuntimeError(f"expected one entry function, got {names}")
    function = ctx.modules[vm_module.name][names[0]]
    args = [rt.asdevicearray(config.device, np.load(p))
            for p in spec["inputs"]]
    outputs, times = _time_calls(lambda: function(*args), spec["warmup"],
                                 spec["runs"], spec["budget_s"])
    if not isinstance(outputs, (list, tuple)):
        outputs = [outputs]
    return _answer(spec, [o.to_host() for o in outputs], times)


def child_tvm(spec):
    import numpy as np
    import tvm
    if spec["action"] == "version":
        return {"version": tvm.__version__}
    if spec["action"] == "host_cpu":
        return {"cpu": tvm.target.codegen.llvm_get_system_cpu()}
    from tvm import relax
    if spec["action"] == "compile":
        import onnx
        from tvm.relax.frontend.onnx import from_onnx
        mod = from_onnx(onnx.load(spec["model"]), keep_params_in_input=False)
        target = spec["target"]
        if not isinstance(target, str):
            target = tvm.target.Target(target)
        executable = tvm.compile(mod, target=target)
        executable.export_library(spec["artifact"])
        return {"ok": True}
    device = tvm.cpu()
    vm = relax.VirtualMachine(tvm.runtime.load_module(spec["artifact"]),
                              device)
    args = [tvm.runtime.tensor(np.load(p), device) for p in spec["inputs"]]
    main = vm["main"]
    outputs, times = _time_calls(lambda: main(*args), spec["warmup"],
                                 spec["runs"], spec["budget_s"])
    if hasattr(outputs, "numpy"):
        outputs = [outputs]
    return _answer(spec, [o.numpy() for o in outputs], times)


CHILDREN = {"ort": child_ort, "iree": child_iree, "tvm": child_tvm}


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        spec = json.loads(sys.argv[2])
        print(json.dumps(CHILDREN[spec["engine"]](spec)), flush=True)
        # The answer is out; skip the engines' teardown (IREE's worker
        # threads have aborted the process at exit now and then).
        os._exit(0)
    sys.exit("peers.py is used by bench/run.py (child mode only)")


if __name__ == "__main__":
    main()
