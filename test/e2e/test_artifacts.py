#!/usr/bin/env python3
"""What autoglm-compile writes besides runnable code: byte-identical
artifacts from any directory, IR dumps and intermediate forms, and weights
embedded read-only in the object files."""

import os
import re
import struct
import sys
import unittest

import numpy as np
import onnx
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_common import (  # noqa: E402
    MODELS_DIR, E2ETestCase, compile_model, describe)

MODELS = ["mlp", "glm_layer", "resnet_cnn"]

# Weight data printed into IR: hex blobs (dense<"0x..."> or a resource
# section) or long element lists.
WEIGHT_DATA = re.compile(r'"0x[0-9A-Fa-f]{64,}"|dense<\[[^>]{1000,}')

DUMP_NAME = re.compile(r"(\d{3})-([a-z][a-z0-9-]*)\.mlir")


def read(path, mode="r"):
    with open(path, mode) as f:
        return f.read()


class DeterminismTest(E2ETestCase):

    def test_same_bytes_from_anywhere(self):
        # Second compile: another working directory, a relative model path,
        # an absolute output path in another directory. The output's base
        # name stays the same, since it names the symbols.
        cases = [(model, suffix) for model in MODELS for suffix in [".o", ".so"]]
        cases += [("mlp", suffix) for suffix in [".ll", ".s", ".mlir"]]
        for model, suffix in cases:
            model_path = os.path.join(MODELS_DIR, model + ".onnx")
            with self.subTest(model=model, suffix=suffix):
                first_dir = self.cache.path("first", model + suffix, "")
                second_dir = self.cache.path("second", model + suffix, "out", "")
                cwd = self.cache.path("second", model + suffix, "cwd", "")
                a = compile_model(model_path, "m" + suffix, cwd=first_dir)
                self.assertEqual(a.returncode, 0, describe(a))
                b = compile_model(os.path.relpath(model_path, cwd),
                                  os.path.join(second_dir, "m" + suffix),
                                  cwd=cwd)
                self.assertEqual(b.returncode, 0, describe(b))
                self.assertEqual(sorted(os.listdir(first_dir)),
                                 sorted(os.listdir(second_dir)))
                for name in os.listdir(first_dir):
                    self.assertEqual(
                        read(os.path.join(first_dir, name), "rb"),
                        read(os.path.join(second_dir, name), "rb"),
                        f"{name} differs between the two compiles")


class IRInspectionTest(E2ETestCase):

    def dump(self, model, *options):
        """Compiles with --dump-ir-dir; returns (dump dir, artifact path)."""
        # One folder per option set: their pipelines differ in passes.
        variant = "-".join([model] + [o.strip("-").replace("=", "-").replace("/", "_")
                                      for o in options])
        dump_dir = self.cache.path("dumps", variant, "")
        out = self.cache.path("dumped-artifacts", variant + ".o")
        result = compile_model(os.path.join(MODELS_DIR, model + ".onnx"), out,
                               "--dump-ir-dir", dump_dir, *options)
        self.assertEqual(result.returncode, 0, describe(result))
        return dump_dir, out

    def dumped_passes(self, dump_dir):
        """(number, pass) of each dump file, in order."""
        names = sorted(os.listdir(dump_dir))
        passes = []
        for name in names:
            match = DUMP_NAME.fullmatch(name)
            self.assertIsNotNone(match, f"unexpected dump file name {name!r}")
            passes.append((int(match.group(1)), match.group(2)))
        return passes

    def test_dump_all_numbers_every_pass(self):
        dump_dir, _ = self.dump("mlp", "--dump-all")
        passes = self.dumped_passes(dump_dir)
        self.assertGreater(len(passes), 5)
        self.assertEqual(passes[0], (0, "import"))
        self.assertEqual([n for n, _ in passes], list(range(len(passes))))
        for name in os.listdir(dump_dir):
            self.assertIn("module", read(os.path.join(dump_dir, name)), name)
        for expected in ["canonicalize", "autoglm-lower-to-linalg",
                         "autoglm-bufferize", "autoglm-plan-arena",
                         "convert-func-to-llvm"]:
            self.assertIn(expected, [p for _, p in passes])
        # The last dump is the LLVM dialect the object is made from.
        last = sorted(os.listdir(dump_dir))[-1]
        self.assertIn("llvm.func", read(os.path.join(dump_dir, last)))

    def test_dump_skips_passes_that_changed_nothing(self):
        all_dir, _ = self.dump("mlp", "--dump-all")
        changed_dir, _ = self.dump("mlp")
        every = sorted(os.listdir(all_dir))
        changed = sorted(os.listdir(changed_dir))
        # The same numbering; the files left out are exactly those equal
        # to the dump before them.
        self.assertLess(len(changed), len(every))
        self.assertTrue(set(changed) <= set(every))
        for previous, name in zip(every, every[1:]):
            same = read(os.path.join(all_dir, previous)) == \
                read(os.path.join(all_dir, name))
            self.assertEqual(name not in changed, same, name)
        for name in changed:
            self.assertEqual(read(os.path.join(changed_dir, name)),
                             read(os.path.join(all_dir, name)), name)

    def test_dumps_elide_weights(self):
        # glm_layer has 2.6 MB of weights; no dump may carry them.
        model = onnx.load(os.path.join(MODELS_DIR, "glm_layer.onnx"))
        weight_bytes = sum(numpy_helper.to_array(t).nbytes
                           for t in model.graph.initializer)
        dump_dir, _ = self.dump("glm_layer")
        for name in sorted(os.listdir(dump_dir)):
            path = os.path.join(dump_dir, name)
            self.assertLess(os.path.getsize(path), weight_bytes // 4, name)
            self.assertIsNone(WEIGHT_DATA.search(read(path)), name)

    def test_dumping_does_not_change_the_artifact(self):
        _, dumped = self.dump("resnet_cnn")
        plain = self.compiled(os.path.join(MODELS_DIR, "resnet_cnn.onnx"), ".o")
        self.assertEqual(read(dumped, "rb"), read(plain, "rb"))

    def test_dump_dir_not_creatable(self):
        a_file = self.cache.path("a-file")
        open(a_file, "w").close()
        out_dir = self.cache.path("no-dump-out", "")
        result = compile_model(os.path.join(MODELS_DIR, "mlp.onnx"),
                               os.path.join(out_dir, "m.o"),
                               "--dump-ir-dir", os.path.join(a_file, "dumps"))
        # The diagnostic, then a summary line saying compilation failed.
        message = self.assertCleanError(result, "autoglm-compile", one_line=False)
        self.assertIn("IR dump folder", message.splitlines()[0])
        self.assertIn("a-file", message.splitlines()[0])
        self.assertEqual(os.listdir(out_dir), [])

    def emit(self, form, suffix=".mlir"):
        out = self.cache.path("emit", form, "mlp" + suffix)
        result = compile_model(os.path.join(MODELS_DIR, "mlp.onnx"), out,
                               f"--emit={form}")
        self.assertEqual(result.returncode, 0, describe(result))
        text = read(out)
        self.assertIsNone(WEIGHT_DATA.search(text), form)
        return text

    def test_emit_forms(self):
        op = r"=\s*{}\.\w+"  # an operation of a dialect, not an attribute
        autoglm = self.emit("autoglm")
        self.assertRegex(autoglm, op.format("autoglm"))
        self.assertIn("autoglm.matmul", autoglm)
        self.assertNotRegex(autoglm, op.format("linalg"))

        linalg = self.emit("linalg")
        self.assertIn("linalg.generic", linalg)
        self.assertIn("tensor<", linalg)
        self.assertNotRegex(linalg, op.format("autoglm"))
        self.assertNotIn("memref<", linalg)

        memref = self.emit("memref")
        self.assertIn("memref<", memref)
        self.assertNotIn("tensor<", memref)
        self.assertNotRegex(memref, op.format("autoglm"))

        llvm_dialect = self.emit("llvm-dialect")
        self.assertIn("llvm.func", llvm_dialect)
        self.assertNotIn("func.func", llvm_dialect)
        self.assertNotIn("memref<", llvm_dialect)
        self.assertNotRegex(llvm_dialect, op.format("linalg"))

        llvm_ir = self.emit("llvm", ".ll")
        self.assertIn("target triple", llvm_ir)
        self.assertRegex(llvm_ir, r"define .*@mlp_run\(")

        asm = self.emit("asm", ".s")
        self.assertRegex(asm, r"(?m)^mlp_run:")
        self.assertIn(".rodata", asm)

    def test_suffix_picks_the_form(self):
        out = self.cache.path("by-suffix", "mlp.mlir")
        result = compile_model(os.path.join(MODELS_DIR, "mlp.onnx"), out)
        self.assertEqual(result.returncode, 0, describe(result))
        self.assertEqual(read(out), self.emit("autoglm"))
        out = self.cache.path("by-suffix", "mlp.txt")
        result = compile_model(os.path.join(MODELS_DIR, "mlp.onnx"), out)
        self.assertCleanError(result, "autoglm-compile", "mlp.txt", "--emit")
        self.assertFalse(os.path.exists(out))

    def test_print_ir_after_all(self):
        out = self.cache.path("printed", "mlp.o")
        result = compile_model(os.path.join(MODELS_DIR, "mlp.onnx"), out,
                               "--print-ir-after-all")
        self.assertEqual(result.returncode, 0, describe(result))
        self.assertEqual(result.stdout, "")
        printed = re.findall(r"IR Dump After (\S+)", result.stderr)
        # One print per pass: the dump directory has those plus the import.
        dump_dir, _ = self.dump("mlp", "--dump-all")
        self.assertEqual(len(printed), len(os.listdir(dump_dir)) - 1)
        self.assertIsNone(WEIGHT_DATA.search(result.stderr))
        self.assertEqual(read(out, "rb"), read(self.compiled(
            os.path.join(MODELS_DIR, "mlp.onnx"), ".o"), "rb"))

    def test_print_ir_before_and_after_one_pass(self):
        out = self.cache.path("printed-one", "glm_layer.o")
        result = compile_model(os.path.join(MODELS_DIR, "glm_layer.onnx"), out,
                               "--print-ir-before=autoglm-plan-arena",
                               "--print-ir-after=autoglm-plan-arena")
        self.assertEqual(result.returncode, 0, describe(result))
        headers = re.findall(r"IR Dump (Before|After) \S+ \((\S+)\)",
                             result.stderr)
        self.assertEqual(headers, [("Before", "autoglm-plan-arena"),
                                   ("After", "autoglm-plan-arena")])
        before, after = result.stderr.split("IR Dump After")
        # The planner is what puts the buffers into the arena.
        self.assertIn("memref.alloc", before)
        self.assertNotIn("memref.alloc(", after)
        self.assertIn("autoglm.arena_size", after)

    def test_print_ir_unknown_pass(self):
        out_dir = self.cache.path("unknown-pass", "")
        result = compile_model(os.path.join(MODELS_DIR, "mlp.onnx"),
                               os.path.join(out_dir, "m.o"),
                               "--print-ir-after=autoglm-fuse-epilog")
        self.assertCleanError(result, "autoglm-compile", "autoglm-fuse-epilog",
                              "--print-ir-after", "autoglm-fuse-elementwise")
        self.assertEqual(os.listdir(out_dir), [])

    def test_locations_follow_onnx_nodes(self):
        # mlp's GELU is five ONNX nodes plus the bias Add before it: one
        # fused loop that names all six, through to the memref stage.
        graph = onnx.load(os.path.join(MODELS_DIR, "mlp.onnx")).graph
        gelu = [n.name for n in graph.node if n.name.startswith("act/")]
        self.assertEqual(len(gelu), 5)
        for stage in ["linalg", "memref"]:
            out = self.cache.path("locations", stage, "mlp.mlir")
            result = compile_model(os.path.join(MODELS_DIR, "mlp.onnx"), out,
                                   f"--emit={stage}", "--print-locations")
            self.assertEqual(result.returncode, 0, describe(result))
            text = read(out)
            fused = [line for line in text.splitlines()
                     if re.match(r"#loc\d+ = \[", line) and
                     all(f'"{name}"' in line or
                         self.alias_names(text, line, name) for name in gelu)]
            self.assertTrue(fused, f"no fused location names {gelu}")

    @staticmethod
    def alias_names(text, line, name):
        """Whether a fused location `line` lists an alias #locN = "name"."""
        aliases = re.findall(rf'^(#loc\d+) = "{re.escape(name)}"$', text, re.M)
        return any(re.search(rf"{alias}\b", line.split("=", 1)[1])
                   for alias in aliases)

    def test_print_op_stats_per_stage(self):
        out = self.cache.path("op-stats", "mlp.o")
        result = compile_model(os.path.join(MODELS_DIR, "mlp.onnx"), out,
                               "--print-op-stats")
        self.assertEqual(result.returncode, 0, describe(result))
        stages = re.split(r"// Operations after stage '([a-z-]+)':\n",
                          result.stderr)
        self.assertEqual(stages[1::2],
                         ["autoglm", "linalg", "memref", "llvm-dialect"])
        counts = [dict(re.findall(r"^\s*([a-z_.]+)\s*, (\d+)$", text, re.M))
                  for text in stages[2::2]]
        self.assertEqual(counts[0]["autoglm.matmul"], "2")
        self.assertEqual(counts[0]["autoglm.erf"], "1")
        self.assertNotIn("autoglm.matmul", counts[1])
        self.assertIn("linalg.generic", counts[1])
        self.assertIn("llvm.func", counts[3])

    def test_time_passes(self):
        out = self.cache.path("timed", "mlp.o")
        result = compile_model(os.path.join(MODELS_DIR, "mlp.onnx"), out,
                               "--time-passes")
        self.assertEqual(result.returncode, 0, describe(result))
        self.assertIn("Execution time report", result.stderr)
        # One or two time columns (user, wall), then the name.
        timed = re.findall(r"^(?: +[\d.]+ \( *[\d.]+%\))+ +(.+)$",
                           result.stderr, re.M)
        for name in ["import", "linalg", "FuseElementwise", "PlanArena",
                     "code generation", "Total"]:
            self.assertIn(name, timed)


# --- ELF ------------------------------------------------------------------

SHF_WRITE, SHF_ALLOC, SHF_EXECINSTR = 0x1, 0x2, 0x4
PACKED_COLUMNS = 32  # AGL_SGEMM_PACKED_NR in runtime/include/autoglm/kernels.h


def stored_forms(array):
    """The bytes a weight may be stored as: itself, or a matrix [k, n] (or
    its transpose) packed into panels of PACKED_COLUMNS columns, each k rows
    deep."""
    forms = [array.tobytes()]
    if array.ndim == 2:
        for matrix in (array, array.T):
            k, n = matrix.shape
            if n % PACKED_COLUMNS == 0:
                panels = matrix.reshape(k, n // PACKED_COLUMNS, PACKED_COLUMNS)
                forms.append(np.ascontiguousarray(panels.transpose(1, 0, 2)).tobytes())
    return forms
SHT_NOBITS = 8


def elf_sections(data):
    """(name, flags, file offset, size) of each section of a little-endian
    ELF64 file."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise unittest.SkipTest("not a little-endian ELF64 file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = []
    for i in range(shnum):
        name, kind, flags, _addr, offset, size = struct.unpack_from(
            "<IIQQQQ", data, shoff + i * shentsize)
        headers.append((name, kind, flags, offset, size))
    strtab_offset = headers[shstrndx][3]
    sections = []
    for name, kind, flags, offset, size in headers:
        end = data.index(b"\0", strtab_offset + name)
        sections.append((data[strtab_offset + name:end].decode(), flags,
                         offset, 0 if kind == SHT_NOBITS else size))
    return sections


def header_macro(header_path, suffix):
    match = re.search(rf"#define \w+{suffix} (\d+)u?", read(header_path))
    return int(match.group(1))


class WeightsTest(E2ETestCase):

    def initializers(self, model):
        graph = onnx.load(os.path.join(MODELS_DIR, model + ".onnx")).graph
        return {t.name: numpy_helper.to_array(t) for t in graph.initializer}

    def test_weights_in_read_only_sections(self):
        # Every non-scalar float initializer appears in a section that is
        # allocated, but neither writable nor executable: verbatim, or (a
        # matmul weight) in the GEMM's panels of 32 columns, which the
        # compiler packs from its [k, n] or transposed [n, k] layout.
        for model in ["mlp", "glm_layer"]:
            weights = {name: array for name, array in self.initializers(model).items()
                       if array.dtype == np.float32 and array.size > 1}
            for suffix in [".o", ".so"]:
                artifact = self.compiled(os.path.join(MODELS_DIR, model + ".onnx"),
                                         suffix)
                data = read(artifact, "rb")
                sections = elf_sections(data)
                for name, array in weights.items():
                    with self.subTest(model=model, suffix=suffix, weight=name):
                        offset = max(data.find(form) for form in stored_forms(array))
                        self.assertGreaterEqual(offset, 0, "weight bytes not found")
                        holder = [s for s in sections
                                  if s[2] <= offset and offset + array.nbytes <= s[2] + s[3]]
                        self.assertEqual(len(holder), 1, holder)
                        section, flags, _, _ = holder[0]
                        self.assertTrue(flags & SHF_ALLOC, section)
                        self.assertFalse(flags & (SHF_WRITE | SHF_EXECINSTR), section)
                        self.assertTrue(section.startswith(".rodata")
                                        or section.startswith(".lrodata"), section)

    def test_weights_size_in_header(self):
        # Scalars and shape operands (Reshape targets, Slice bounds) become
        # part of the code rather than weights, and BatchNormalization's
        # statistics fold into the convolution before it, so the lower bound
        # counts the other non-scalar float tensors; nothing is stored twice.
        for model in MODELS:
            with self.subTest(model=model):
                artifact = self.compiled(os.path.join(MODELS_DIR, model + ".onnx"), ".o")
                size = header_macro(os.path.splitext(artifact)[0] + ".h",
                                    "_WEIGHTS_SIZE")
                graph = onnx.load(os.path.join(MODELS_DIR, model + ".onnx")).graph
                folded = {name for n in graph.node
                          if n.op_type == "BatchNormalization" for name in n.input[1:]}
                arrays = list(self.initializers(model).values())
                tensors = sum(a.nbytes for name, a in self.initializers(model).items()
                              if a.dtype == np.float32 and a.size > 1
                              and name not in folded)
                self.assertGreaterEqual(size, tensors)
                constants = sum(numpy_helper.to_array(a.t).nbytes
                                for n in graph.node if n.op_type == "Constant"
                                for a in n.attribute if a.name == "value")
                self.assertLessEqual(size, sum(a.nbytes for a in arrays) + constants)


if __name__ == "__main__":
    unittest.main(verbosity=2)
