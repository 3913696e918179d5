# lit configuration of AutoGLM's FileCheck tests.
import os

import lit.formats

config.name = "AutoGLM"
config.test_format = lit.formats.ShTest()
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.autoglm_build_dir, "test", "lit")
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py"]

# Tools under test first, then LLVM's FileCheck / not / split-file.
config.environment["PATH"] = os.pathsep.join(
    [config.autoglm_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ["PATH"])]
)
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%models", os.path.join(config.autoglm_source_dir, "models")))
config.substitutions.append(("%fixtures", os.path.join(config.autoglm_source_dir, "test", "e2e", "fixtures")))
config.substitutions.append(("%runtime_include", os.path.join(config.autoglm_source_dir, "runtime", "include")))
config.substitutions.append(("%runtime_lib", config.runtime_lib_dir))

# --target=cuda compiles kernels with the CUDA toolkit's ptxas; tests that
# build real GPU objects need it (CI machines have it, without a GPU).
_cuda_home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
if os.access(os.path.join(_cuda_home, "bin", "ptxas"), os.X_OK):
    config.available_features.add("cuda-toolkit")
for _variable in ("CUDA_HOME", "CUDA_PATH"):
    if _variable in os.environ:
        config.environment[_variable] = os.environ[_variable]

# mlir-runner and its support libraries run lowered functions on the CPU
# (the GPU kernels with their threads emulated).
_llvm_lib_dir = os.path.join(os.path.dirname(config.llvm_tools_dir), "lib")
_runner_libs = [os.path.join(_llvm_lib_dir, name) for name in
                ("libmlir_runner_utils.so", "libmlir_c_runner_utils.so")]
if os.access(os.path.join(config.llvm_tools_dir, "mlir-runner"), os.X_OK) and \
        all(os.path.isfile(lib) for lib in _runner_libs):
    config.available_features.add("mlir-runner")
    config.substitutions.append(("%mlir_runner_utils", _runner_libs[0]))
    config.substitutions.append(("%mlir_c_runner_utils", _runner_libs[1]))
