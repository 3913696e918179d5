// Tests of the compiler's side of the ABI: the model signature read from an
// imported function, the header, and artifacts built by emitArtifact around
// hand-written LLVM-dialect graphs, loaded and run through the runtime.
#include "codegen/emit/EntryPoints.h"
#include "codegen/emit/HeaderEmitter.h"
#include "codegen/emit/ModelSignature.h"
#include "codegen/emit/ObjectEmitter.h"

#include "autoglm/runtime.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <array>
#include <string>

namespace autoglm {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class Emit : public ::testing::Test {
protected:
  Emit() {
    mlir::DialectRegistry registry;
    registry.insert<mlir::func::FuncDialect, mlir::LLVM::LLVMDialect>();
    mlir::registerBuiltinDialectTranslation(registry);
    mlir::registerLLVMDialectTranslation(registry);
    context_.appendDialectRegistry(registry);
    context_.loadAllAvailableDialects();
  }

  ~Emit() override {
    for (const std::string &dir : dirs_)
      llvm::sys::fs::remove_directories(dir);
  }

  mlir::OwningOpRef<mlir::ModuleOp> parse(llvm::StringRef text) {
    auto module = mlir::parseSourceString<mlir::ModuleOp>(text, &context_);
    EXPECT_TRUE(module) << text.str();
    return module;
  }

  ModelSignature signatureOf(llvm::StringRef text) {
    module_ = parse(text);
    return readSignature(
        module_->lookupSymbol<mlir::func::FuncOp>("main"), "m");
  }

  // Emits `graph` (LLVM dialect, its graph function called @main) as a
  // shared library in a fresh folder; returns its path.
  std::string emitLibrary(llvm::StringRef graph, ModelSignature &signature,
                          std::string *error = nullptr) {
    llvm::SmallString<128> dir;
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("autoglm-emit", dir));
    dirs_.push_back(dir.str().str());
    std::string path = (dir + "/" + signature.name + ".so").str();
    auto module = parse(graph);
    EmitOptions options;
    options.optLevel = 2;
    options.weightsPath = (dir + "/" + signature.name + ".weights").str();
    if (llvm::Error e = emitArtifact(*module, signature,
                                     ArtifactKind::SharedLibrary, path,
                                     options)) {
      std::string message = llvm::toString(std::move(e));
      if (error)
        *error = message;
      else
        ADD_FAILURE() << message;
      return "";
    }
    return path;
  }

  mlir::MLIRContext context_;
  mlir::OwningOpRef<mlir::ModuleOp> module_;
  std::vector<std::string> dirs_;
};

// ---- signatures ---------------------------------------------------------------

constexpr const char *kSymbolicFunction = R"mlir(
func.func @main(
    %x: tensor<?x?x2xf32> {autoglm.name = "x",
                           autoglm.dim_symbols = array<i32: 0, 1, -1>},
    %bias: tensor<?xf32> {autoglm.name = "bias",
                          autoglm.dim_symbols = array<i32: 1>},
    %flag: tensor<3xi8> {autoglm.name = "flag"})
    -> (tensor<?x?x2xf32> {autoglm.name = "sum"},
        tensor<?xf32> {autoglm.name = "b", autoglm.dim_symbols = array<i32: 1>})
    attributes {autoglm.symbols = [{name = "batch", min = 1 : i64, max = 4 : i64},
                                   {name = "seq", min = 2 : i64, max = 8 : i64}]} {
  return %x, %bias : tensor<?x?x2xf32>, tensor<?xf32>
}
)mlir";

TEST_F(Emit, ReadsSymbolsAndDimensionSymbols) {
  ModelSignature sig = signatureOf(kSymbolicFunction);
  ASSERT_EQ(sig.symbols.size(), 2u);
  EXPECT_EQ(sig.symbols[0].name, "batch");
  EXPECT_EQ(sig.symbols[1].min, 2);
  EXPECT_EQ(sig.symbols[1].max, 8);

  ASSERT_EQ(sig.inputs.size(), 3u);
  EXPECT_EQ(sig.inputs[0].shape, (std::vector<int64_t>{4, 8, 2}));
  EXPECT_EQ(sig.inputs[0].dimSymbols, (std::vector<int32_t>{0, 1, -1}));
  EXPECT_EQ(sig.inputs[0].numBytes(), 4 * 8 * 2 * 4);
  EXPECT_EQ(sig.inputs[1].shape, (std::vector<int64_t>{8}));
  EXPECT_TRUE(sig.inputs[2].isStatic());

  // An output's bounds come later, unless its attributes name symbols.
  EXPECT_EQ(sig.outputs[0].shape, (std::vector<int64_t>{-1, -1, 2}));
  EXPECT_EQ(sig.outputs[0].dimSymbols,
            (std::vector<int32_t>{kDimComputed, kDimComputed, kDimStatic}));
  EXPECT_EQ(sig.outputs[1].shape, (std::vector<int64_t>{8}));
  EXPECT_EQ(sig.outputs[1].dimSymbols, (std::vector<int32_t>{1}));

  llvm::Error missing = verifySignature(sig);
  EXPECT_EQ(llvm::toString(std::move(missing)),
            "output 'sum' has no known extent bound in dimension 0");
  setOutputBounds(sig, 0, {4, 8, 2}, {0, 1, kDimStatic});
  EXPECT_FALSE(verifySignature(sig));
  EXPECT_EQ(sig.outputs[0].dimSymbols, (std::vector<int32_t>{0, 1, -1}));

  setOutputBounds(sig, 0, {4, 16, 2}, {0, kDimComputed, kDimStatic});
  EXPECT_FALSE(verifySignature(sig)) << "computed extents have any bound";
  setOutputBounds(sig, 0, {4, 8, 2}, {kDimStatic, kDimStatic, kDimStatic});
  EXPECT_TRUE(sig.outputs[0].isStatic());
}

TEST_F(Emit, VerifyReportsInconsistentSignatures) {
  ModelSignature sig = signatureOf(kSymbolicFunction);
  setOutputBounds(sig, 0, {4, 8, 2}, {0, 1, kDimStatic});

  ModelSignature wrongBound = sig;
  setOutputBounds(wrongBound, 1, {7}, {1});
  EXPECT_EQ(llvm::toString(verifySignature(wrongBound)),
            "output 'b' has extent 7 in dimension 0, but symbol 'seq' goes up "
            "to 8");

  ModelSignature unused = sig;
  unused.symbols.push_back({"extra", 1, 2});
  EXPECT_EQ(llvm::toString(verifySignature(unused)),
            "symbol 'extra' is the extent of no input dimension");

  ModelSignature empty = sig;
  empty.symbols[0].min = 5;
  EXPECT_THAT(llvm::toString(verifySignature(empty)),
              HasSubstr("empty or negative range 5..4"));

  ModelSignature computedInput = sig;
  computedInput.inputs[0].dimSymbols[0] = kDimComputed;
  EXPECT_THAT(llvm::toString(verifySignature(computedInput)),
              HasSubstr("input 'x' ties dimension 0 to symbol -2"));
}

TEST_F(Emit, StaticFunctionsHaveNoSymbols) {
  ModelSignature sig = signatureOf(R"mlir(
func.func @main(%x: tensor<2x3xf32> {autoglm.name = "x"})
    -> (tensor<2x3xf32> {autoglm.name = "y"}) {
  return %x : tensor<2x3xf32>
}
)mlir");
  EXPECT_TRUE(sig.symbols.empty());
  EXPECT_TRUE(sig.inputs[0].isStatic());
  EXPECT_TRUE(sig.outputs[0].isStatic());
  EXPECT_FALSE(verifySignature(sig));
}

// ---- headers -------------------------------------------------------------------

TEST_F(Emit, HeaderOfAModelWithSymbols) {
  ModelSignature sig = signatureOf(kSymbolicFunction);
  setOutputBounds(sig, 0, {4, 8, 2}, {0, 1, kDimStatic});
  const std::string header = emitHeader(sig, "m.onnx");
  EXPECT_THAT(header, HasSubstr("#define M_SYMBOLS 2\n"));
  EXPECT_THAT(header, HasSubstr("#define M_SYMBOL_1_NAME \"seq\"\n"
                                "#define M_SYMBOL_1_MIN 2\n"
                                "#define M_SYMBOL_1_MAX 8\n"));
  EXPECT_THAT(header, HasSubstr("#define M_OUTPUT_DIMS 4\n"));
  EXPECT_THAT(header, HasSubstr("#define M_INPUT_0_SHAPE {4, 8, 2}\n"
                                "#define M_INPUT_0_DIM_SYMBOLS {0, 1, -1}\n"));
  EXPECT_THAT(header, HasSubstr("#define M_INPUT_2_DIM_SYMBOLS {-1}\n"));
  EXPECT_THAT(header, HasSubstr("upper bounds"));
  EXPECT_THAT(header, HasSubstr("int32_t m_run_shaped(void *arena, const void "
                                "*weights,\n    const void *const *inputs, "
                                "void *const *outputs,\n    const int64_t "
                                "*symbols, int64_t *output_dims);"));
  EXPECT_THAT(header, Not(HasSubstr("m_run(")));
  EXPECT_THAT(header, Not(HasSubstr("m_run_with_weights")));
}

TEST_F(Emit, HeaderOfAStaticModelHasNoSymbols) {
  ModelSignature sig = signatureOf(R"mlir(
func.func @main(%x: tensor<2x3xf32> {autoglm.name = "x"})
    -> (tensor<2x3xf32> {autoglm.name = "y"}) {
  return %x : tensor<2x3xf32>
}
)mlir");
  const std::string header = emitHeader(sig, "m.onnx");
  EXPECT_THAT(header, HasSubstr("int32_t m_run(void *arena"));
  EXPECT_THAT(header, HasSubstr("m_run_with_weights"));
  EXPECT_THAT(header, Not(HasSubstr("SYMBOL")));
  EXPECT_THAT(header, Not(HasSubstr("run_shaped")));
}

// ---- artifacts -------------------------------------------------------------------

// y[i] = 2 * x[i] for i < n; the graph's trailing arguments, when `shaped`,
// are symbols (n = symbols[0]) and output_dims (written: n).
std::string twiceGraph(bool shaped, int64_t n = 4) {
  std::string args = "%x: !llvm.ptr, %y: !llvm.ptr, %arena: !llvm.ptr";
  std::string count = "%n = llvm.mlir.constant(" + std::to_string(n) +
                      " : i64) : i64";
  if (shaped) {
    args += ", %symbols: !llvm.ptr, %dims: !llvm.ptr";
    count = "%n = llvm.load %symbols : !llvm.ptr -> i64\n"
            "    llvm.store %n, %dims : i64, !llvm.ptr";
  }
  return R"mlir(
module {
  llvm.func @main()mlir" +
         args + R"mlir() {
    %c0 = llvm.mlir.constant(0 : i64) : i64
    %c1 = llvm.mlir.constant(1 : i64) : i64
    )mlir" +
         count + R"mlir(
    llvm.br ^loop(%c0 : i64)
  ^loop(%i: i64):
    %done = llvm.icmp "sge" %i, %n : i64
    llvm.cond_br %done, ^exit, ^body
  ^body:
    %px = llvm.getelementptr %x[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %v = llvm.load %px : !llvm.ptr -> f32
    %w = llvm.fadd %v, %v : f32
    %py = llvm.getelementptr %y[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %w, %py : f32, !llvm.ptr
    %next = llvm.add %i, %c1 : i64
    llvm.br ^loop(%next : i64)
  ^exit:
    llvm.return
  }
}
)mlir";
}

ModelSignature twiceSignature(const std::string &name, bool symbolic) {
  ModelSignature sig;
  sig.name = name;
  TensorSignature x{"x", 1, {symbolic ? 8 : 4}, {}};
  TensorSignature y{"y", 1, {symbolic ? 8 : 4}, {}};
  if (symbolic) {
    sig.symbols.push_back({"n", 1, 8});
    x.dimSymbols = y.dimSymbols = {0};
  }
  sig.inputs.push_back(x);
  sig.outputs.push_back(y);
  return sig;
}

TEST_F(Emit, ArtifactWithSymbolsRunsShaped) {
  ModelSignature sig = twiceSignature("twice", true);
  const std::string path = emitLibrary(twiceGraph(true), sig);
  ASSERT_FALSE(path.empty());

  agl_library *library = nullptr;
  const agl_model_desc *model = nullptr;
  ASSERT_EQ(agl_library_open(path.c_str(), &library, &model), AGL_OK)
      << agl_last_error();
  ASSERT_EQ(model->abi_version, AGL_ABI_VERSION);
  ASSERT_EQ(model->num_symbols, 1);
  EXPECT_STREQ(model->symbols[0].name, "n");
  EXPECT_EQ(model->symbols[0].min, 1);
  EXPECT_EQ(model->symbols[0].max, 8);
  ASSERT_NE(model->inputs[0].dim_symbols, nullptr);
  EXPECT_EQ(model->inputs[0].dim_symbols[0], 0);
  EXPECT_EQ(model->outputs[0].shape[0], 8);
  EXPECT_EQ(model->arena_size, 0u);

  agl_instance *instance = nullptr;
  ASSERT_EQ(agl_instance_create(model, &instance), AGL_OK);
  std::array<float, 8> x{1, 2, 3, 4, 5, 6, 7, 8};
  std::array<float, 8> y{};
  y.fill(-1);
  const void *inputs[] = {x.data()};
  void *outputs[] = {y.data()};
  const int64_t xShape[] = {5};
  const int64_t *inputShapes[] = {xShape};
  int64_t yShape[] = {0};
  int64_t *outputShapes[] = {yShape};
  ASSERT_EQ(agl_instance_run_shaped(instance, inputs, inputShapes, outputs,
                                    outputShapes),
            AGL_OK)
      << agl_last_error();
  EXPECT_EQ(yShape[0], 5);
  EXPECT_EQ(y, (std::array<float, 8>{2, 4, 6, 8, 10, -1, -1, -1}));

  const int64_t tooLong[] = {9};
  const int64_t *badShapes[] = {tooLong};
  EXPECT_EQ(agl_instance_run_shaped(instance, inputs, badShapes, outputs,
                                    outputShapes),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(agl_instance_run(instance, inputs, outputs),
            AGL_ERR_INVALID_ARGUMENT);

  // The entry function itself refuses values out of range, for direct
  // callers, and accepts a null output_dims.
  const int64_t nine[] = {9}, three[] = {3};
  EXPECT_EQ(model->run(nullptr, nullptr, inputs, outputs, nine, yShape),
            kBadSymbolsCode);
  EXPECT_EQ(model->run(nullptr, nullptr, inputs, outputs, nullptr, yShape),
            kBadSymbolsCode);
  EXPECT_EQ(model->run(nullptr, nullptr, inputs, outputs, three, nullptr), 0);
  agl_instance_destroy(instance);
  agl_library_close(library);

  // Exported: NAME_run_shaped, not NAME_run.
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr);
  EXPECT_NE(dlsym(handle, "twice_run_shaped"), nullptr);
  EXPECT_EQ(dlsym(handle, "twice_run"), nullptr);
  EXPECT_EQ(dlsym(handle, "twice_run_with_weights"), nullptr);
  dlclose(handle);
}

// Static models, with graphs that take the trailing arguments or not.
void expectStaticArtifactRuns(const std::string &path, const char *name) {
  agl_library *library = nullptr;
  const agl_model_desc *model = nullptr;
  ASSERT_EQ(agl_library_open(path.c_str(), &library, &model), AGL_OK)
      << agl_last_error();
  EXPECT_EQ(model->num_symbols, 0);
  EXPECT_EQ(model->symbols, nullptr);
  EXPECT_EQ(model->inputs[0].dim_symbols, nullptr);

  agl_instance *instance = nullptr;
  ASSERT_EQ(agl_instance_create(model, &instance), AGL_OK);
  std::array<float, 4> x{1, 2, 3, 4}, y{};
  const void *inputs[] = {x.data()};
  void *outputs[] = {y.data()};
  ASSERT_EQ(agl_instance_run(instance, inputs, outputs), AGL_OK);
  EXPECT_EQ(y, (std::array<float, 4>{2, 4, 6, 8}));
  int64_t yShape[] = {0};
  int64_t *outputShapes[] = {yShape};
  y.fill(0);
  ASSERT_EQ(agl_instance_run_shaped(instance, inputs, nullptr, outputs,
                                    outputShapes),
            AGL_OK);
  EXPECT_EQ(yShape[0], 4);
  EXPECT_EQ(y[3], 8);

  // The entry function reports the static extents itself.
  int64_t dims[] = {-1};
  EXPECT_EQ(model->run(nullptr, nullptr, inputs, outputs, nullptr, dims), 0);
  EXPECT_EQ(dims[0], 4);
  EXPECT_EQ(model->run(nullptr, nullptr, inputs, outputs, nullptr, nullptr), 0);
  agl_instance_destroy(instance);
  agl_library_close(library);

  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr);
  const std::string prefix = name;
  EXPECT_NE(dlsym(handle, (prefix + "_run").c_str()), nullptr);
  EXPECT_NE(dlsym(handle, (prefix + "_run_with_weights").c_str()), nullptr);
  EXPECT_EQ(dlsym(handle, (prefix + "_run_shaped").c_str()), nullptr);
  dlclose(handle);
}

TEST_F(Emit, StaticArtifactFromAGraphWithoutShapeArguments) {
  ModelSignature sig = twiceSignature("twice_plain", false);
  const std::string path = emitLibrary(twiceGraph(false), sig);
  ASSERT_FALSE(path.empty());
  expectStaticArtifactRuns(path, "twice_plain");
}

TEST_F(Emit, StaticArtifactFromAGraphWithShapeArguments) {
  ModelSignature sig = twiceSignature("twice_args", false);
  // With a static signature the graph reads no symbol: fix n in the IR.
  std::string graph = twiceGraph(true);
  const std::string load = "%n = llvm.load %symbols : !llvm.ptr -> i64";
  graph.replace(graph.find(load), load.size(),
                "%n = llvm.mlir.constant(4 : i64) : i64");
  const std::string path = emitLibrary(graph, sig);
  ASSERT_FALSE(path.empty());
  expectStaticArtifactRuns(path, "twice_args");
}

TEST_F(Emit, SymbolsNeedAGraphThatTakesThem) {
  ModelSignature sig = twiceSignature("twice_bad", true);
  std::string error;
  EXPECT_EQ(emitLibrary(twiceGraph(false), sig, &error), "");
  EXPECT_THAT(error, HasSubstr("of a model with symbolic dimensions does not "
                               "take the symbol values and output dims"));

  ModelSignature incomplete = twiceSignature("twice_unbound", true);
  incomplete.outputs[0].shape = {-1};
  incomplete.outputs[0].dimSymbols = {kDimComputed};
  EXPECT_EQ(emitLibrary(twiceGraph(true), incomplete, &error), "");
  EXPECT_EQ(error, "model signature: output 'y' has no known extent bound in "
                   "dimension 0");
}

} // namespace
} // namespace autoglm
