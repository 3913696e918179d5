//===- EntryPoints.cpp - the C ABI of a compiled model --------------------===//
//
// The compiled graph is one internal function taking bare pointers (inputs,
// outputs, arena). Around it this file builds, directly in LLVM IR, what
// runtime.h promises: NAME_run, NAME_arena_size, NAME_model and the
// descriptor tables, plus autoglm_loadable_model for shared libraries.
//
//===----------------------------------------------------------------------===//

#include "codegen/emit/EntryPoints.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

using namespace autoglm;

namespace {

/// Mirrors agl_tensor_info and agl_model_desc in runtime.h.
struct AbiTypes {
  llvm::Type *i32, *i64;
  llvm::PointerType *ptr;
  llvm::StructType *tensorInfo, *modelDesc;

  explicit AbiTypes(llvm::LLVMContext &ctx) {
    i32 = llvm::Type::getInt32Ty(ctx);
    i64 = llvm::Type::getInt64Ty(ctx);
    ptr = llvm::PointerType::get(ctx, 0);
    tensorInfo = llvm::StructType::create(ctx, {ptr, i32, i32, ptr},
                                          "agl_tensor_info");
    modelDesc = llvm::StructType::create(
        ctx, {i32, i32, ptr, i32, i32, ptr, ptr, i64, i64, i64, ptr, ptr},
        "agl_model_desc");
  }
};

llvm::Constant *privateConstant(llvm::Module &module, llvm::Constant *init,
                                const llvm::Twine &name) {
  return new llvm::GlobalVariable(module, init->getType(), /*isConstant=*/true,
                                  llvm::GlobalValue::PrivateLinkage, init, name);
}

llvm::Constant *cString(llvm::Module &module, llvm::StringRef text,
                        const llvm::Twine &name) {
  auto *init = llvm::ConstantDataArray::getString(module.getContext(), text);
  auto *global = llvm::cast<llvm::GlobalVariable>(
      privateConstant(module, init, name));
  global->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  return global;
}

llvm::Constant *tensorTable(llvm::Module &module, const AbiTypes &t,
                            const std::vector<TensorSignature> &tensors,
                            const std::string &prefix) {
  std::vector<llvm::Constant *> entries;
  for (auto [i, tensor] : llvm::enumerate(tensors)) {
    std::string id = prefix + std::to_string(i);
    auto *shape = privateConstant(
        module,
        llvm::ConstantDataArray::get(module.getContext(),
                                     llvm::ArrayRef<uint64_t>(
                                         reinterpret_cast<const uint64_t *>(
                                             tensor.shape.data()),
                                         tensor.shape.size())),
        id + "_shape");
    entries.push_back(llvm::ConstantStruct::get(
        t.tensorInfo, {cString(module, tensor.name, id + "_name"),
                       llvm::ConstantInt::get(t.i32, tensor.dtype),
                       llvm::ConstantInt::get(t.i32, tensor.shape.size()),
                       shape}));
  }
  auto *arrayType = llvm::ArrayType::get(t.tensorInfo, entries.size());
  return privateConstant(module, llvm::ConstantArray::get(arrayType, entries),
                         prefix + "table");
}

llvm::Function *exported(llvm::Module &module, llvm::FunctionType *type,
                         const llvm::Twine &name) {
  auto *f = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage,
                                   name, module);
  f->addFnAttr(llvm::Attribute::NoUnwind);
  return f;
}

} // namespace

llvm::Error autoglm::addEntryPoints(llvm::Module &module,
                                    llvm::StringRef graphFunction,
                                    const ModelSignature &sig, bool loadable) {
  llvm::Function *graph = module.getFunction(graphFunction);
  bool externalWeights = !sig.weightsFile.empty();
  size_t numArgs = sig.inputs.size() + sig.outputs.size() + 1 + externalWeights;
  if (!graph || graph->arg_size() != numArgs)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "compiled graph function '" + graphFunction +
            "' is missing or does not take inputs, outputs, arena (and weights)");
  graph->setLinkage(llvm::GlobalValue::InternalLinkage);
  graph->setName(sig.name + "_graph");
  // The ABI requires input, output and arena buffers not to overlap; saying
  // so lets LLVM keep values in registers and vectorize across them.
  for (unsigned i = 0; i < graph->arg_size(); ++i)
    graph->addParamAttr(i, llvm::Attribute::NoAlias);

  llvm::LLVMContext &ctx = module.getContext();
  AbiTypes t(ctx);
  const std::string &name = sig.name;

  // int32_t NAME_run_with_weights(void *arena, const void *weights,
  //                               const void *const *in, void *const *out)
  auto *run = exported(
      module, llvm::FunctionType::get(t.i32, {t.ptr, t.ptr, t.ptr, t.ptr}, false),
      name + "_run_with_weights");
  {
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", run));
    std::vector<llvm::Value *> args;
    auto loadPointers = [&](llvm::Value *table, size_t count) {
      for (size_t i = 0; i < count; ++i)
        args.push_back(b.CreateLoad(
            t.ptr, b.CreateConstInBoundsGEP1_64(t.ptr, table, i)));
    };
    loadPointers(run->getArg(2), sig.inputs.size());
    loadPointers(run->getArg(3), sig.outputs.size());
    args.push_back(run->getArg(0));
    if (externalWeights)
      args.push_back(run->getArg(1));
    b.CreateCall(graph, args);
    b.CreateRet(llvm::ConstantInt::get(t.i32, 0));
  }
  // int32_t NAME_run(void *arena, const void *const *in, void *const *out)
  if (!externalWeights) {
    auto *simple = exported(
        module, llvm::FunctionType::get(t.i32, {t.ptr, t.ptr, t.ptr}, false),
        name + "_run");
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", simple));
    b.CreateRet(b.CreateCall(run, {simple->getArg(0), llvm::ConstantPointerNull::get(t.ptr),
                                   simple->getArg(1), simple->getArg(2)}));
  }

  // uint64_t NAME_arena_size(void)
  auto *arenaSize = exported(module, llvm::FunctionType::get(t.i64, false),
                             name + "_arena_size");
  llvm::IRBuilder<>(llvm::BasicBlock::Create(ctx, "entry", arenaSize))
      .CreateRet(llvm::ConstantInt::get(t.i64, sig.arenaSize));

  // const agl_model_desc *NAME_model(void)
  llvm::Constant *desc = privateConstant(
      module,
      llvm::ConstantStruct::get(
          t.modelDesc,
          {llvm::ConstantInt::get(t.i32, kAbiVersion),
           llvm::ConstantInt::get(t.i32, 0), cString(module, name, name + "_name"),
           llvm::ConstantInt::get(t.i32, sig.inputs.size()),
           llvm::ConstantInt::get(t.i32, sig.outputs.size()),
           tensorTable(module, t, sig.inputs, name + "_input"),
           tensorTable(module, t, sig.outputs, name + "_output"),
           llvm::ConstantInt::get(t.i64, sig.arenaSize),
           llvm::ConstantInt::get(t.i64, kArenaAlignment),
           llvm::ConstantInt::get(t.i64, sig.weightsSize),
           externalWeights
               ? cString(module, sig.weightsFile, name + "_weights_file")
               : llvm::ConstantPointerNull::get(t.ptr),
           run}),
      name + "_desc");
  std::vector<std::string> getters = {name + "_model"};
  if (loadable)
    getters.push_back("autoglm_loadable_model");
  for (const std::string &getter : getters) {
    auto *f = exported(module, llvm::FunctionType::get(t.ptr, false), getter);
    llvm::IRBuilder<>(llvm::BasicBlock::Create(ctx, "entry", f)).CreateRet(desc);
  }
  return llvm::Error::success();
}

uint64_t autoglm::constantDataSize(const llvm::Module &module) {
  uint64_t size = 0;
  const llvm::DataLayout &layout = module.getDataLayout();
  for (const llvm::GlobalVariable &g : module.globals())
    if (g.isConstant() && g.hasInitializer())
      size += layout.getTypeAllocSize(g.getValueType());
  return size;
}
