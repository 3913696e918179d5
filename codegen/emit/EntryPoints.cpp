//===- EntryPoints.cpp - the C ABI of a compiled model --------------------===//
//
// The compiled graph is one internal function taking bare pointers (inputs,
// outputs, arena, [weights], [symbols, output_dims]). Around it this file
// builds, directly in LLVM IR, what runtime.h promises: the entry function
// of the descriptor (exported as NAME_run_shaped for models with symbols),
// NAME_run and NAME_run_with_weights for static models, NAME_arena_size,
// NAME_model and the descriptor tables, plus autoglm_loadable_model for
// shared libraries.
//
//===----------------------------------------------------------------------===//

#include "codegen/emit/EntryPoints.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

#include <algorithm>
#include <type_traits>

using namespace autoglm;

namespace {

/// Mirrors agl_tensor_info, agl_symbol_info, agl_kernel_info and
/// agl_model_desc in runtime.h.
struct AbiTypes {
  llvm::Type *i32, *i64;
  llvm::PointerType *ptr;
  llvm::StructType *tensorInfo, *symbolInfo, *kernelInfo, *kvCacheInfo,
      *modelDesc;
  llvm::FunctionType *entry; // agl_entry_fn

  explicit AbiTypes(llvm::LLVMContext &ctx) {
    i32 = llvm::Type::getInt32Ty(ctx);
    i64 = llvm::Type::getInt64Ty(ctx);
    ptr = llvm::PointerType::get(ctx, 0);
    // name, dtype, rank, shape, dim_symbols
    tensorInfo = llvm::StructType::create(ctx, {ptr, i32, i32, ptr, ptr},
                                          "agl_tensor_info");
    // name, min, max
    symbolInfo =
        llvm::StructType::create(ctx, {ptr, i64, i64}, "agl_symbol_info");
    // name, flops, bytes
    llvm::Type *f64 = llvm::Type::getDoubleTy(ctx);
    kernelInfo =
        llvm::StructType::create(ctx, {ptr, f64, f64}, "agl_kernel_info");
    // capacity, step, step_symbol, num_caches, length_offset, caches,
    // cache_offsets
    kvCacheInfo = llvm::StructType::create(
        ctx, {i64, i64, i32, i32, i64, ptr, ptr}, "agl_kv_cache_info");
    // abi_version, device, name, num_inputs, num_outputs, inputs, outputs,
    // num_symbols, reserved2, symbols, arena_size, arena_alignment,
    // weights_size, weights_file, run, num_kernels, reserved3, kernels,
    // kv_cache, weights_data
    modelDesc = llvm::StructType::create(
        ctx, {i32, i32, ptr, i32, i32, ptr, ptr, i32, i32, ptr,
              i64, i64, i64, ptr, ptr, i32, i32, ptr, ptr, ptr},
        "agl_model_desc");
    entry = llvm::FunctionType::get(i32, {ptr, ptr, ptr, ptr, ptr, ptr},
                                    false);
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

template <typename T>
llvm::Constant *arrayConstant(llvm::Module &module, const std::vector<T> &data,
                              const llvm::Twine &name) {
  using Unsigned = std::make_unsigned_t<T>;
  return privateConstant(
      module,
      llvm::ConstantDataArray::get(
          module.getContext(),
          llvm::ArrayRef<Unsigned>(
              reinterpret_cast<const Unsigned *>(data.data()), data.size())),
      name);
}

llvm::Constant *tensorTable(llvm::Module &module, const AbiTypes &t,
                            const std::vector<TensorSignature> &tensors,
                            const std::string &prefix) {
  std::vector<llvm::Constant *> entries;
  for (auto [i, tensor] : llvm::enumerate(tensors)) {
    std::string id = prefix + std::to_string(i);
    entries.push_back(llvm::ConstantStruct::get(
        t.tensorInfo,
        {cString(module, tensor.name, id + "_name"),
         llvm::ConstantInt::get(t.i32, tensor.dtype),
         llvm::ConstantInt::get(t.i32, tensor.shape.size()),
         arrayConstant(module, tensor.shape, id + "_shape"),
         tensor.isStatic()
             ? llvm::ConstantPointerNull::get(t.ptr)
             : arrayConstant(module, tensor.dimSymbols, id + "_dim_symbols")}));
  }
  auto *arrayType = llvm::ArrayType::get(t.tensorInfo, entries.size());
  return privateConstant(module, llvm::ConstantArray::get(arrayType, entries),
                         prefix + "table");
}

llvm::Constant *symbolTable(llvm::Module &module, const AbiTypes &t,
                            const ModelSignature &sig) {
  if (sig.symbols.empty())
    return llvm::ConstantPointerNull::get(t.ptr);
  std::vector<llvm::Constant *> entries;
  for (auto [k, symbol] : llvm::enumerate(sig.symbols))
    entries.push_back(llvm::ConstantStruct::get(
        t.symbolInfo,
        {cString(module, symbol.name,
                 sig.name + "_symbol" + std::to_string(k) + "_name"),
         llvm::ConstantInt::get(t.i64, symbol.min),
         llvm::ConstantInt::get(t.i64, symbol.max)}));
  auto *arrayType = llvm::ArrayType::get(t.symbolInfo, entries.size());
  return privateConstant(module, llvm::ConstantArray::get(arrayType, entries),
                         sig.name + "_symbols");
}

llvm::Constant *kernelTable(llvm::Module &module, const AbiTypes &t,
                            const ModelSignature &sig) {
  if (sig.kernels.empty())
    return llvm::ConstantPointerNull::get(t.ptr);
  std::vector<llvm::Constant *> entries;
  llvm::Type *f64 = llvm::Type::getDoubleTy(module.getContext());
  for (auto [k, kernel] : llvm::enumerate(sig.kernels))
    entries.push_back(llvm::ConstantStruct::get(
        t.kernelInfo,
        {cString(module, kernel.name,
                 sig.name + "_kernel" + std::to_string(k) + "_name"),
         llvm::ConstantFP::get(f64, kernel.flops),
         llvm::ConstantFP::get(f64, kernel.bytes)}));
  auto *arrayType = llvm::ArrayType::get(t.kernelInfo, entries.size());
  return privateConstant(module, llvm::ConstantArray::get(arrayType, entries),
                         sig.name + "_kernels");
}

llvm::Constant *kvCacheInfo(llvm::Module &module, const AbiTypes &t,
                            const ModelSignature &sig) {
  if (!sig.kvCache)
    return llvm::ConstantPointerNull::get(t.ptr);
  const KVCacheSignature &kv = *sig.kvCache;
  return privateConstant(
      module,
      llvm::ConstantStruct::get(
          t.kvCacheInfo,
          {llvm::ConstantInt::get(t.i64, kv.capacity),
           llvm::ConstantInt::get(t.i64, kv.step),
           llvm::ConstantInt::get(t.i32, kv.stepSymbol),
           llvm::ConstantInt::get(t.i32, kv.caches.size()),
           llvm::ConstantInt::get(t.i64, kv.lengthSlot >= 0 ? kLengthInSymbols
                                                            : kv.lengthOffset),
           tensorTable(module, t, kv.caches, sig.name + "_cache"),
           arrayConstant(module, kv.cacheOffsets,
                         sig.name + "_cache_offsets")}),
      sig.name + "_kv_cache");
}

llvm::Function *exported(llvm::Module &module, llvm::FunctionType *type,
                         const llvm::Twine &name) {
  auto *f = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage,
                                   name, module);
  f->addFnAttr(llvm::Attribute::NoUnwind);
  return f;
}

/// Fills the body of `entry` (an agl_entry_fn) around `graph`.
void buildEntry(llvm::Function *entry, llvm::Function *graph,
                const ModelSignature &sig, bool externalWeights,
                bool graphTakesShapes, const AbiTypes &t) {
  llvm::LLVMContext &ctx = entry->getContext();
  llvm::Value *arena = entry->getArg(0), *weights = entry->getArg(1),
              *inputs = entry->getArg(2), *outputs = entry->getArg(3),
              *symbols = entry->getArg(4), *outputDims = entry->getArg(5);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", entry));
  size_t totalDims = 0;
  for (const TensorSignature &output : sig.outputs)
    totalDims += output.shape.size();

  // Callers other than the runtime (NAME_run_shaped from C) get the range
  // check too: a value beyond a symbol's max would overrun the buffers.
  // Returns `code` where `bad` holds, and goes on otherwise.
  auto returnIf = [&](llvm::Value *bad, int32_t code) {
    auto *reject = llvm::BasicBlock::Create(ctx, "reject", entry);
    auto *next = llvm::BasicBlock::Create(ctx, "checked", entry);
    b.CreateCondBr(bad, reject, next);
    b.SetInsertPoint(reject);
    b.CreateRet(llvm::ConstantInt::get(t.i32, code));
    b.SetInsertPoint(next);
  };
  if (sig.readsSymbolValues())
    returnIf(b.CreateIsNull(symbols), kBadSymbolsCode);
  if (!sig.symbols.empty()) {
    llvm::Value *bad = b.getFalse();
    for (auto [k, symbol] : llvm::enumerate(sig.symbols)) {
      llvm::Value *value = b.CreateLoad(
          t.i64, b.CreateConstInBoundsGEP1_64(t.i64, symbols, k));
      bad = b.CreateOr(bad, b.CreateICmpSLT(value, b.getInt64(symbol.min)));
      bad = b.CreateOr(bad, b.CreateICmpSGT(value, b.getInt64(symbol.max)));
    }
    returnIf(bad, kBadSymbolsCode);
  }

  // A run that would append past the KV cache's capacity would write past
  // it: refuse it (the runtime checks first, with a message).
  if (sig.kvCache) {
    const KVCacheSignature &kv = *sig.kvCache;
    llvm::Value *length = b.CreateLoad(
        t.i64, kv.lengthSlot >= 0
                   ? b.CreateConstInBoundsGEP1_64(t.i64, symbols, kv.lengthSlot)
                   : b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), arena,
                                                  kv.lengthOffset));
    llvm::Value *step =
        kv.stepSymbol >= 0
            ? b.CreateLoad(t.i64, b.CreateConstInBoundsGEP1_64(
                                      t.i64, symbols, kv.stepSymbol))
            : static_cast<llvm::Value *>(b.getInt64(kv.step));
    returnIf(b.CreateOr(b.CreateICmpSLT(length, b.getInt64(0)),
                        b.CreateICmpSGT(b.CreateAdd(length, step),
                                        b.getInt64(kv.capacity))),
             kCacheFullCode);
  }

  std::vector<llvm::Value *> args;
  auto loadPointers = [&](llvm::Value *table, size_t count) {
    for (size_t i = 0; i < count; ++i)
      args.push_back(
          b.CreateLoad(t.ptr, b.CreateConstInBoundsGEP1_64(t.ptr, table, i)));
  };
  loadPointers(inputs, sig.inputs.size());
  loadPointers(outputs, sig.outputs.size());
  args.push_back(arena);
  if (externalWeights)
    args.push_back(weights);

  if (graphTakesShapes) {
    // The graph writes every extent unconditionally; a caller that does not
    // want them (null output_dims) lends it a stack buffer.
    llvm::IRBuilder<> top(&entry->getEntryBlock(),
                          entry->getEntryBlock().begin());
    llvm::Value *scratch = top.CreateAlloca(
        llvm::ArrayType::get(t.i64, std::max<size_t>(totalDims, 1)));
    args.push_back(symbols);
    args.push_back(
        b.CreateSelect(b.CreateIsNull(outputDims), scratch, outputDims));
    b.CreateCall(graph, args);
    b.CreateRet(llvm::ConstantInt::get(t.i32, 0));
    return;
  }

  b.CreateCall(graph, args);
  // A graph without output_dims has static shapes only: report those.
  if (totalDims > 0) {
    auto *write = llvm::BasicBlock::Create(ctx, "write_dims", entry);
    auto *done = llvm::BasicBlock::Create(ctx, "done", entry);
    b.CreateCondBr(b.CreateIsNull(outputDims), done, write);
    b.SetInsertPoint(write);
    size_t j = 0;
    for (const TensorSignature &output : sig.outputs)
      for (int64_t extent : output.shape)
        b.CreateStore(b.getInt64(extent),
                      b.CreateConstInBoundsGEP1_64(t.i64, outputDims, j++));
    b.CreateBr(done);
    b.SetInsertPoint(done);
  }
  b.CreateRet(llvm::ConstantInt::get(t.i32, 0));
}

} // namespace

llvm::Error autoglm::addEntryPoints(llvm::Module &module,
                                    llvm::StringRef graphFunction,
                                    const ModelSignature &sig, bool loadable) {
  if (auto e = verifySignature(sig))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "model signature: " +
                                       llvm::toString(std::move(e)));
  llvm::Function *graph = module.getFunction(graphFunction);
  bool externalWeights = sig.takesWeights();
  size_t numArgs = sig.inputs.size() + sig.outputs.size() + 1 + externalWeights;
  // Graphs compiled for symbols also take the symbol values and where to
  // write the output extents; static graphs may or may not.
  bool graphTakesShapes = graph && graph->arg_size() == numArgs + 2;
  if (!graph || (graph->arg_size() != numArgs && !graphTakesShapes))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "compiled graph function '" + graphFunction +
            "' is missing or does not take inputs, outputs, arena (and "
            "weights), optionally followed by symbols and output dims");
  if (sig.readsSymbolValues() && !graphTakesShapes)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "compiled graph function '" + graphFunction +
            "' of a model with symbolic dimensions does not take the symbol "
            "values and output dims");
  graph->setLinkage(llvm::GlobalValue::InternalLinkage);
  graph->setName(sig.name + "_graph");
  // The ABI requires input, output and arena buffers not to overlap; saying
  // so lets LLVM keep values in registers and vectorize across them.
  for (unsigned i = 0; i < graph->arg_size(); ++i)
    graph->addParamAttr(i, llvm::Attribute::NoAlias);

  llvm::LLVMContext &ctx = module.getContext();
  AbiTypes t(ctx);
  const std::string &name = sig.name;

  // The descriptor's agl_entry_fn. Only models that read symbol values (or
  // their KV cache length after them) export it, as NAME_run_shaped; others
  // keep NAME_run(_with_weights).
  llvm::Function *entry;
  if (sig.readsSymbolValues()) {
    entry = exported(module, t.entry, name + "_run_shaped");
  } else {
    entry = llvm::Function::Create(t.entry, llvm::GlobalValue::InternalLinkage,
                                   name + "_entry", module);
    entry->addFnAttr(llvm::Attribute::NoUnwind);
  }
  buildEntry(entry, graph, sig, externalWeights, graphTakesShapes, t);

  if (!sig.readsSymbolValues()) {
    llvm::Constant *null = llvm::ConstantPointerNull::get(t.ptr);
    // int32_t NAME_run_with_weights(void *arena, const void *weights,
    //                               const void *const *in, void *const *out)
    auto *withWeights = exported(
        module,
        llvm::FunctionType::get(t.i32, {t.ptr, t.ptr, t.ptr, t.ptr}, false),
        name + "_run_with_weights");
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", withWeights));
    b.CreateRet(b.CreateCall(entry, {withWeights->getArg(0),
                                     withWeights->getArg(1),
                                     withWeights->getArg(2),
                                     withWeights->getArg(3), null, null}));
    // int32_t NAME_run(void *arena, const void *const *in, void *const *out)
    if (!externalWeights) {
      auto *simple = exported(
          module, llvm::FunctionType::get(t.i32, {t.ptr, t.ptr, t.ptr}, false),
          name + "_run");
      b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", simple));
      b.CreateRet(b.CreateCall(entry, {simple->getArg(0), null,
                                       simple->getArg(1), simple->getArg(2),
                                       null, null}));
    }
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
           llvm::ConstantInt::get(t.i32, sig.device),
           cString(module, name, name + "_name"),
           llvm::ConstantInt::get(t.i32, sig.inputs.size()),
           llvm::ConstantInt::get(t.i32, sig.outputs.size()),
           tensorTable(module, t, sig.inputs, name + "_input"),
           tensorTable(module, t, sig.outputs, name + "_output"),
           llvm::ConstantInt::get(t.i32, sig.symbols.size()),
           llvm::ConstantInt::get(t.i32, 0),
           symbolTable(module, t, sig),
           llvm::ConstantInt::get(t.i64, sig.arenaSize),
           llvm::ConstantInt::get(t.i64, kArenaAlignment),
           llvm::ConstantInt::get(t.i64, sig.weightsSize),
           !sig.weightsFile.empty()
               ? cString(module, sig.weightsFile, name + "_weights_file")
               : llvm::ConstantPointerNull::get(t.ptr),
           entry,
           llvm::ConstantInt::get(t.i32, sig.kernels.size()),
           llvm::ConstantInt::get(t.i32, 0),
           kernelTable(module, t, sig),
           kvCacheInfo(module, t, sig),
           sig.weightsData.empty()
               ? llvm::ConstantPointerNull::get(t.ptr)
               : static_cast<llvm::Constant *>(
                     module.getNamedGlobal(sig.weightsData))}),
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
