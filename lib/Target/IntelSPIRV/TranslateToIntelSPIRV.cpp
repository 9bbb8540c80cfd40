//===- TranslateToIntelSPIRV.cpp - per-invocation kernels to SPIR-V -------===//
//
// `sm-translate --emit-intel-spirv` takes the output of
// `sm-opt --sm-lower-to-intel` through MLIR's LLVM lowering (with the
// OpenCL/SPIR-V flavour of the GPU dialect's conversion) to LLVM IR, and
// through LLVM's SPIR-V backend (LLVM 22's llc, in a process of its own),
// with SPV_INTEL_subgroup_matrix_multiply_accumulate enabled, to a binary.
//
// `--emit-intel-host-llvm` makes the same LLVM IR runnable on the host: the
// kernels keep every instruction the lowering produced, and only the
// builtins (the multiply-accumulate and the invocation ids) are left for a
// host runtime to define.
//
//===----------------------------------------------------------------------===//

#include "SubgroupMatrix/Target/Translations.h"

#include "SubgroupMatrix/IR/SubgroupMatrixDialect.h"
#include "SubgroupMatrix/Transforms/PackedIntegerBuffers.h"

#include "mlir/Conversion/ConvertToLLVM/ToLLVMPass.h"
#include "mlir/Conversion/GPUToLLVMSPV/GPUToLLVMSPVPass.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Analysis/VectorUtils.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"

using namespace mlir;

/// OpenCL's address space of workgroup memory.
static constexpr unsigned workgroupAddressSpace = 3;

extern "C" {
void LLVMInitializeSPIRVTargetInfo();
void LLVMInitializeSPIRVTarget();
void LLVMInitializeSPIRVTargetMC();
void LLVMInitializeSPIRVAsmPrinter();
}

/// Points the loads, stores and address computations that use `from` at
/// `to`, a pointer to the same memory in another address space; returns
/// false, changing nothing, if some use is anything else.
static bool repointAccesses(llvm::Value *from, llvm::Value *to) {
  for (llvm::User *user : from->users()) {
    if (auto *gep = dyn_cast<llvm::GetElementPtrInst>(user)) {
      if (gep->getPointerOperand() != from)
        return false;
      continue;
    }
    if (auto *store = dyn_cast<llvm::StoreInst>(user)) {
      if (store->getValueOperand() == from)
        return false;
      continue;
    }
    if (!isa<llvm::LoadInst>(user))
      return false;
  }
  for (llvm::User *user : llvm::make_early_inc_range(from->users())) {
    if (auto *gep = dyn_cast<llvm::GetElementPtrInst>(user)) {
      SmallVector<llvm::Value *> indices(gep->indices());
      auto *moved = llvm::GetElementPtrInst::Create(
          gep->getSourceElementType(), to, indices, "", gep->getIterator());
      moved->setIsInBounds(gep->isInBounds());
      if (!repointAccesses(gep, moved)) {
        moved->eraseFromParent();
        return false;
      }
      gep->eraseFromParent();
    } else {
      user->replaceUsesOfWith(from, to);
    }
  }
  return true;
}

/// Per-invocation memrefs become `alloca T, N` in the address space that
/// stands for no memory space (global memory on this path). LLVM's SPIR-V
/// backend takes an array allocation only with
/// SPV_INTEL_variable_length_array and a stack variable only in the
/// Function address space: each becomes one allocation of `[N x T]` in the
/// data layout's alloca address space, its accesses pointed at it.
static void allocateArraysOnTheStack(llvm::Module &module) {
  SmallVector<llvm::AllocaInst *> allocations;
  for (llvm::Function &function : module)
    for (llvm::Instruction &instruction : llvm::instructions(function))
      if (auto *alloca = dyn_cast<llvm::AllocaInst>(&instruction))
        if (isa<llvm::ConstantInt>(alloca->getArraySize()))
          allocations.push_back(alloca);
  unsigned stackSpace = module.getDataLayout().getAllocaAddrSpace();
  for (llvm::AllocaInst *alloca : allocations) {
    if (!alloca->isArrayAllocation() && alloca->getAddressSpace() == stackSpace)
      continue;
    uint64_t count =
        cast<llvm::ConstantInt>(alloca->getArraySize())->getZExtValue();
    auto *array = llvm::ArrayType::get(alloca->getAllocatedType(), count);
    auto *whole = new llvm::AllocaInst(
        array, stackSpace,
        /*ArraySize=*/nullptr, alloca->getAlign(), "", alloca->getIterator());
    whole->takeName(alloca);
    if (alloca->getAddressSpace() == stackSpace) {
      alloca->replaceAllUsesWith(whole);
    } else if (!repointAccesses(alloca, whole)) {
      alloca->setName(whole->getName());
      whole->eraseFromParent();
      continue;
    }
    alloca->eraseFromParent();
  }
}

/// Lowers the single gpu.module of `op` (already in the per-invocation form)
/// to an LLVM IR module.
static std::unique_ptr<llvm::Module> lowerToLLVMIR(Operation *op,
                                                   llvm::LLVMContext &context) {
  SmallVector<gpu::GPUModuleOp> gpuModules;
  op->walk([&](gpu::GPUModuleOp module) { gpuModules.push_back(module); });
  if (gpuModules.size() != 1) {
    emitError(op->getLoc())
        << "expected one gpu.module to translate, found " << gpuModules.size();
    return nullptr;
  }
  gpu::GPUModuleOp gpuModule = gpuModules.front();
  WalkResult remaining = gpuModule.walk([](Operation *inner) {
    if (isa<subgroup_matrix::SubgroupMatrixDialect>(inner->getDialect())) {
      inner->emitOpError("is still a subgroup matrix op: lower the module "
                         "with sm-opt --sm-lower-to-intel first");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (remaining.wasInterrupted())
    return nullptr;

  // OpenCL address spaces for the GPU dialect's: global 1, workgroup 3,
  // private 0.
  AttrTypeReplacer replacer;
  replacer.addReplacement([](gpu::AddressSpaceAttr space) -> Attribute {
    unsigned number = space.getValue() == gpu::AddressSpace::Global ? 1
                      : space.getValue() == gpu::AddressSpace::Workgroup
                          ? workgroupAddressSpace
                          : 0;
    return IntegerAttr::get(IntegerType::get(space.getContext(), 64), number);
  });
  replacer.recursivelyReplaceElementsIn(gpuModule, /*replaceAttrs=*/true,
                                        /*replaceLocs=*/false,
                                        /*replaceTypes=*/true);
  // Inherent attributes held as properties are not walked above.
  gpuModule.walk([&](memref::GlobalOp global) {
    global.setType(cast<MemRefType>(replacer.replace(global.getType())));
  });

  PassManager pm(op->getContext(), op->getName().getStringRef());
  OpPassManager &nested = pm.nest<gpu::GPUModuleOp>();
  // Folds the bit casts that bf16 values make on their way (a bf16 value
  // that reached LLVM would need SPV_KHR_bfloat16).
  nested.addPass(createCanonicalizerPass());
  ConvertGpuOpsToLLVMSPVOpsOptions gpuOptions;
  gpuOptions.use64bitIndex = true;
  nested.addPass(createConvertGpuOpsToLLVMSPVOps(gpuOptions));
  nested.addPass(createSCFToControlFlowPass());
  // Views of N-D kernel arguments (collapse_shape) become plain offsets.
  nested.addPass(memref::createExpandStridedMetadataPass());
  nested.addPass(createConvertToLLVMPass());
  nested.addPass(createReconcileUnrealizedCastsPass());
  // Folding the memref descriptors away keeps LLVM's SPIR-V backend from
  // building structs of pointers, which spirv-val rejects.
  nested.addPass(createCanonicalizerPass());
  if (failed(pm.run(op)))
    return nullptr;

  // The LLVM export translates a builtin module: move the body there.
  OpBuilder builder(op->getContext());
  OwningOpRef<ModuleOp> module = ModuleOp::create(builder, gpuModule.getLoc());
  Block *body = module->getBody();
  for (Operation &inner :
       llvm::make_early_inc_range(gpuModule.getBody()->getOperations()))
    inner.moveBefore(body, body->end());
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(*module, context, gpuModule.getName());
  if (!llvmModule) {
    op->emitError("translation to LLVM IR failed");
    return nullptr;
  }
  allocateArraysOnTheStack(*llvmModule);
  return llvmModule;
}

/// bf16 data only moves through the per-invocation code as bits (the
/// instruction reads it packed in integers), but MLIR addresses, loads and
/// stores it as `bfloat`, which SPIR-V can only declare with
/// SPV_KHR_bfloat16. Those accesses become 16-bit integer ones.
static void removeBFloatMemoryAccesses(llvm::Module &module) {
  llvm::Type *i16 = llvm::Type::getInt16Ty(module.getContext());
  // Workgroup arrays of bf16 become arrays of i16.
  for (llvm::GlobalVariable &global :
       llvm::make_early_inc_range(module.globals())) {
    auto *array = dyn_cast<llvm::ArrayType>(global.getValueType());
    if (!array || !array->getElementType()->isBFloatTy())
      continue;
    auto *replacement = new llvm::GlobalVariable(
        module, llvm::ArrayType::get(i16, array->getNumElements()),
        global.isConstant(), global.getLinkage(),
        llvm::UndefValue::get(
            llvm::ArrayType::get(i16, array->getNumElements())),
        "", nullptr, global.getThreadLocalMode(), global.getAddressSpace());
    replacement->takeName(&global);
    replacement->setAlignment(global.getAlign());
    global.replaceAllUsesWith(replacement);
    global.eraseFromParent();
  }
  SmallVector<llvm::Instruction *> accesses;
  for (llvm::Function &function : module)
    for (llvm::Instruction &instruction : llvm::instructions(function))
      if (isa<llvm::GetElementPtrInst, llvm::LoadInst, llvm::StoreInst>(
              instruction))
        accesses.push_back(&instruction);
  SmallVector<llvm::Instruction *> dead;
  for (llvm::Instruction *instruction : accesses) {
    if (auto *gep = dyn_cast<llvm::GetElementPtrInst>(instruction)) {
      if (gep->getSourceElementType()->isBFloatTy())
        gep->setSourceElementType(i16);
      if (gep->getResultElementType()->isBFloatTy())
        gep->setResultElementType(i16);
    } else if (auto *load = dyn_cast<llvm::LoadInst>(instruction)) {
      if (!load->getType()->isBFloatTy())
        continue;
      llvm::IRBuilder<> builder(load);
      llvm::LoadInst *bits = builder.CreateAlignedLoad(
          i16, load->getPointerOperand(), load->getAlign());
      for (llvm::User *user : llvm::make_early_inc_range(load->users()))
        if (auto *cast = dyn_cast<llvm::BitCastInst>(user);
            cast && cast->getType() == i16) {
          cast->replaceAllUsesWith(bits);
          dead.push_back(cast);
        }
      llvm::Value *value = builder.CreateBitCast(bits, load->getType());
      load->replaceAllUsesWith(value);
      dead.push_back(load);
    } else if (auto *store = dyn_cast<llvm::StoreInst>(instruction)) {
      auto *cast = dyn_cast<llvm::BitCastInst>(store->getValueOperand());
      if (!cast || !cast->getType()->isBFloatTy() ||
          cast->getOperand(0)->getType() != i16)
        continue;
      llvm::IRBuilder<> builder(store);
      builder.CreateAlignedStore(cast->getOperand(0),
                                 store->getPointerOperand(), store->getAlign());
      dead.push_back(store);
    }
  }
  for (llvm::Instruction *instruction : dead)
    instruction->eraseFromParent();
  // Bitcasts left without users.
  for (llvm::Function &function : module)
    for (llvm::Instruction &instruction :
         llvm::make_early_inc_range(llvm::instructions(function)))
      if (isa<llvm::BitCastInst>(instruction) && instruction.use_empty())
        instruction.eraseFromParent();
}

/// A matrix carried around a loop becomes a phi of its per-invocation
/// vector, which for large matrices on narrow subgroups is wider than the 16
/// components SPIR-V vectors have (a 16x16 f32 result on a subgroup of 8 is
/// 32 floats). LLVM's SPIR-V backend splits wide vectors in arithmetic but
/// cannot legalize such phis and aborts, so each becomes phis of 16 (or 8)
/// components, split in the predecessors and joined again after the phis.
static void splitWideVectorPhis(llvm::Module &module) {
  constexpr unsigned maxComponents = 16;
  SmallVector<llvm::PHINode *> widePhis;
  for (llvm::Function &function : module)
    for (llvm::Instruction &instruction : llvm::instructions(function))
      if (auto *phi = dyn_cast<llvm::PHINode>(&instruction))
        if (auto *type = dyn_cast<llvm::FixedVectorType>(phi->getType());
            type && type->getNumElements() > maxComponents)
          widePhis.push_back(phi);

  for (llvm::PHINode *phi : widePhis) {
    auto *type = cast<llvm::FixedVectorType>(phi->getType());
    unsigned components = type->getNumElements();
    unsigned chunk = components % 16 == 0 ? 16 : components % 8 == 0 ? 8 : 0;
    if (!chunk)
      continue;
    auto *chunkType = llvm::FixedVectorType::get(type->getElementType(), chunk);
    SmallVector<llvm::PHINode *> parts;
    for (unsigned first = 0; first < components; first += chunk)
      parts.push_back(llvm::PHINode::Create(
          chunkType, phi->getNumIncomingValues(), "", phi->getIterator()));
    for (unsigned i = 0, e = phi->getNumIncomingValues(); i < e; ++i) {
      llvm::BasicBlock *block = phi->getIncomingBlock(i);
      llvm::IRBuilder<> builder(block->getTerminator());
      for (auto [index, part] : llvm::enumerate(parts))
        part->addIncoming(
            builder.CreateShuffleVector(
                phi->getIncomingValue(i),
                llvm::createSequentialMask(index * chunk, chunk, 0)),
            block);
    }
    llvm::IRBuilder<> builder(phi->getParent(),
                              phi->getParent()->getFirstNonPHIIt());
    SmallVector<llvm::Value *> values(parts.begin(), parts.end());
    llvm::Value *whole = llvm::concatenateVectors(builder, values);
    phi->replaceAllUsesWith(whole);
    phi->eraseFromParent();
  }
}

/// An element of a per-invocation vector wider than 16 components read at
/// an index known only at run time (a reduction across the columns of a
/// left matrix: `extractelement <32 x i8> %v, i64 %i`) is spilled by LLVM
/// 22's SPIR-V backend into a Function variable whose Alignment decoration
/// it writes from uninitialized memory (a different value every run, and no
/// power of two). Each becomes reads of 16-component chunks at the index
/// within the chunk, the chunk picked by selects: no memory, and a binary
/// that is the same every time.
static void splitWideDynamicExtracts(llvm::Module &module) {
  constexpr unsigned chunk = 16;
  SmallVector<llvm::ExtractElementInst *> wideExtracts;
  for (llvm::Function &function : module)
    for (llvm::Instruction &instruction : llvm::instructions(function))
      if (auto *extract = dyn_cast<llvm::ExtractElementInst>(&instruction))
        if (auto *type = dyn_cast<llvm::FixedVectorType>(
                extract->getVectorOperandType());
            type && !isa<llvm::ConstantInt>(extract->getIndexOperand()) &&
            type->getNumElements() > chunk &&
            type->getNumElements() % chunk == 0)
          wideExtracts.push_back(extract);

  for (llvm::ExtractElementInst *extract : wideExtracts) {
    llvm::IRBuilder<> builder(extract);
    llvm::Value *vector = extract->getVectorOperand();
    llvm::Value *index = extract->getIndexOperand();
    unsigned components =
        cast<llvm::FixedVectorType>(extract->getVectorOperandType())
            ->getNumElements();
    llvm::Value *within = builder.CreateURem(
        index, llvm::ConstantInt::get(index->getType(), chunk));
    llvm::Value *whichChunk = builder.CreateUDiv(
        index, llvm::ConstantInt::get(index->getType(), chunk));
    llvm::Value *element = nullptr;
    for (unsigned first = 0; first < components; first += chunk) {
      llvm::Value *part = builder.CreateShuffleVector(
          vector, llvm::createSequentialMask(first, chunk, 0));
      llvm::Value *candidate = builder.CreateExtractElement(part, within);
      element =
          element ? builder.CreateSelect(
                        builder.CreateICmpEQ(
                            whichChunk, llvm::ConstantInt::get(index->getType(),
                                                               first / chunk)),
                        candidate, element)
                  : candidate;
    }
    extract->replaceAllUsesWith(element);
    extract->eraseFromParent();
  }
}

/// The SPIR-V extension the kernels use, as llc's `--spirv-ext` takes it.
static constexpr llvm::StringLiteral kSpirvExtensions =
    "--spirv-ext=+SPV_INTEL_subgroup_matrix_multiply_accumulate";

/// The binary LLVM's SPIR-V backend makes of `module`, from LLVM 22's llc in
/// a process of its own; why there is none is reported at `loc`. In-process,
/// the backend is unfit for a caller that compiles many modules (the C API, the
/// Python package, graph compilers): LLVM 22 keeps a module's analysis in a
/// static (`SPIRVModuleAnalysis::MAI`) whose table of block labels, keyed by
/// MachineFunction address, outlives the module, so a later module whose
/// MachineFunction reuses a freed one's address takes the old labels' ids,
/// defined twice or past its id bound (llvm/llvm-project#160613, fixed
/// after LLVM 22); and it reports input it cannot handle with
/// `report_fatal_error`, which ends the process. A forked child would avoid
/// both but can deadlock on a lock that another thread held at the fork (it
/// did, in the sanitizer build's allocator); a new process cannot.
static FailureOr<std::string> emitWithLlc(llvm::Module &module, Location loc) {
  auto fail = [&](const Twine &reason) {
    return emitError(loc, "LLVM's SPIR-V backend failed on these kernels: ")
           << reason.str();
  };
  SmallString<128> bitcodePath, binaryPath, logPath;
  for (auto [path, suffix] :
       {std::pair{&bitcodePath, "bc"}, {&binaryPath, "spv"}, {&logPath, "log"}})
    if (llvm::sys::fs::createTemporaryFile("sm-intel-spirv", suffix, *path))
      return fail("cannot create a temporary file");
  llvm::scope_exit removeFiles([&] {
    for (StringRef path : {bitcodePath, binaryPath, logPath})
      llvm::sys::fs::remove(path);
  });
  {
    std::error_code code;
    llvm::raw_fd_ostream bitcode(bitcodePath, code);
    if (code)
      return fail("cannot write " + bitcodePath);
    llvm::WriteBitcodeToFile(module, bitcode);
  }
  StringRef llc = SM_LLC_PATH;
  SmallVector<StringRef> argv = {llc,
                                 "-mtriple=spirv64-unknown-unknown",
                                 "-filetype=obj",
                                 kSpirvExtensions,
                                 bitcodePath,
                                 "-o",
                                 binaryPath};
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(logPath),
                                          StringRef(logPath)};
  std::string launchError;
  int status = llvm::sys::ExecuteAndWait(llc, argv, std::nullopt, redirects,
                                         /*SecondsToWait=*/0,
                                         /*MemoryLimit=*/0, &launchError);
  if (status != 0) {
    auto log = llvm::MemoryBuffer::getFile(logPath);
    StringRef text = log ? (*log)->getBuffer() : "";
    // llc's report_fatal_error: "LLVM ERROR: <reason>".
    size_t fatal = text.find("LLVM ERROR: ");
    if (fatal != StringRef::npos)
      return fail(text.substr(fatal + 12).split('\n').first);
    if (status < 0)
      return fail("cannot run " + llc + ": " + launchError);
    return fail("llc exited with status " + Twine(status) + ": " +
                text.take_back(1000).trim());
  }
  auto binary = llvm::MemoryBuffer::getFile(binaryPath);
  if (!binary)
    return fail("llc wrote no binary");
  return (*binary)->getBuffer().str();
}

/// LLVM IR has i4 but no packed buffers of it: the kernels read them as
/// bytes (readPackedIntegersAsBytes), their signatures with them.
static LogicalResult readPackedBuffersAsBytes(Operation *op) {
  WalkResult unpacked = op->walk([](gpu::GPUModuleOp kernels) {
    return failed(subgroup_matrix::readPackedIntegersAsBytes(kernels))
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return failure(unpacked.wasInterrupted());
}

LogicalResult
mlir::subgroup_matrix::translateToIntelSPIRV(Operation *op,
                                             raw_ostream &output) {
  llvm::LLVMContext context;
  // Backend errors are reported at the kernels' module, which is emptied
  // into the LLVM module below.
  Location kernelsLoc = op->getLoc();
  op->walk([&](gpu::GPUModuleOp kernels) { kernelsLoc = kernels.getLoc(); });
  if (failed(readPackedBuffersAsBytes(op)))
    return failure();
  std::unique_ptr<llvm::Module> module = lowerToLLVMIR(op, context);
  if (!module)
    return failure();

  LLVMInitializeSPIRVTargetInfo();
  LLVMInitializeSPIRVTarget();
  LLVMInitializeSPIRVTargetMC();
  LLVMInitializeSPIRVAsmPrinter();

  llvm::Triple triple("spirv64-unknown-unknown");
  std::string targetError;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, targetError);
  if (!target)
    return emitError(op->getLoc())
           << "LLVM has no SPIR-V target: " << targetError;
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> machine(
      target->createTargetMachine(triple, "", "", options, std::nullopt));
  module->setTargetTriple(triple);
  module->setDataLayout(machine->createDataLayout());
  removeBFloatMemoryAccesses(*module);
  splitWideVectorPhis(*module);
  splitWideDynamicExtracts(*module);

  FailureOr<std::string> binary = emitWithLlc(*module, kernelsLoc);
  if (failed(binary))
    return failure();
  output << *binary;
  return success();
}

/// The builtins whose LLVM IR signatures use vectors are given bodies that
/// pass them by address to the host runtime, whose C ABI has no vectors.
static void defineHostBuiltins(llvm::Module &module) {
  llvm::LLVMContext &context = module.getContext();
  llvm::Type *i32 = llvm::Type::getInt32Ty(context);
  llvm::Type *ptr = llvm::PointerType::get(context, 0);
  llvm::FunctionCallee runtime = module.getOrInsertFunction(
      "sm_intel_multiply_accumulate",
      llvm::FunctionType::get(
          llvm::Type::getVoidTy(context),
          {i32, ptr, i32, ptr, i32, ptr, i32, ptr, i32, i32}, false));
  for (llvm::Function &function : module) {
    if (!function.isDeclaration() ||
        !function.getName().contains(
            "__spirv_SubgroupMatrixMultiplyAccumulateINTEL"))
      continue;
    auto *entry = llvm::BasicBlock::Create(context, "entry", &function);
    llvm::IRBuilder<> builder(entry);
    const llvm::DataLayout &layout = module.getDataLayout();
    auto spill = [&](llvm::Value *value) {
      llvm::Value *slot = builder.CreateAlloca(value->getType());
      builder.CreateStore(value, slot);
      return slot;
    };
    auto bytes = [&](llvm::Type *type) {
      return builder.getInt32(layout.getTypeAllocSize(type));
    };
    llvm::Argument *k = function.getArg(0), *a = function.getArg(1),
                   *b = function.getArg(2), *c = function.getArg(3),
                   *operands = function.getArg(4);
    llvm::Type *resultType = function.getReturnType();
    llvm::Value *result = builder.CreateAlloca(resultType);
    unsigned rows = 1;
    if (auto *vector = dyn_cast<llvm::FixedVectorType>(resultType))
      rows = vector->getNumElements();
    builder.CreateCall(runtime,
                       {k, spill(a), bytes(a->getType()), spill(b),
                        bytes(b->getType()), spill(c), bytes(c->getType()),
                        result, operands, builder.getInt32(rows)});
    builder.CreateRet(builder.CreateLoad(resultType, result));
  }
}

/// The memref type of each argument of each kernel (null for scalars), read
/// before the lowering turns memrefs into descriptors of LLVM values.
using KernelMemRefs = llvm::StringMap<SmallVector<MemRefType>>;

/// Each kernel's signature text for the host runner.
static llvm::StringMap<std::string> collectKernelSignatures(Operation *op) {
  llvm::StringMap<std::string> signatures;
  op->walk([&](gpu::GPUFuncOp function) {
    if (function.isKernel())
      signatures[function.getName()] =
          subgroup_matrix::getHostRunnerSignature(function);
  });
  return signatures;
}

static KernelMemRefs collectKernelMemRefs(Operation *op) {
  KernelMemRefs kernels;
  op->walk([&](gpu::GPUFuncOp function) {
    if (!function.isKernel())
      return;
    SmallVector<MemRefType> &arguments = kernels[function.getName()];
    for (Type type : function.getArgumentTypes())
      arguments.push_back(dyn_cast<MemRefType>(type));
  });
  return kernels;
}

/// Gives each kernel a host entry point `sm_intel_entry_NAME(ptr args)`,
/// where args[i] points at argument i (a buffer, or a scalar: integers as
/// 32-bit values), and a constant `sm_intel_info_NAME` holding its subgroup
/// size and workgroup size. MLIR passes a memref of rank R as (allocated
/// pointer, aligned pointer, offset, R sizes, R strides); the buffer is
/// dense and row-major, with the leading size unbounded when it is dynamic.
static LogicalResult
defineHostEntries(Operation *op, llvm::Module &module,
                  const KernelMemRefs &memrefs,
                  const llvm::StringMap<std::string> &signatures) {
  llvm::LLVMContext &context = module.getContext();
  llvm::Type *i32 = llvm::Type::getInt32Ty(context);
  llvm::Type *i64 = llvm::Type::getInt64Ty(context);
  llvm::Type *ptr = llvm::PointerType::get(context, 0);
  SmallVector<llvm::Function *> kernels;
  for (llvm::Function &function : module)
    if (function.getMetadata("intel_reqd_sub_group_size"))
      kernels.push_back(&function);
  for (llvm::Function *kernel : kernels) {
    auto readMetadata = [&](StringRef name, unsigned index,
                            unsigned fallback) -> unsigned {
      llvm::MDNode *node = kernel->getMetadata(name);
      if (!node || index >= node->getNumOperands())
        return fallback;
      auto *constant = llvm::mdconst::dyn_extract<llvm::ConstantInt>(
          node->getOperand(index));
      return constant ? constant->getZExtValue() : fallback;
    };
    unsigned info[4] = {readMetadata("intel_reqd_sub_group_size", 0, 16),
                        readMetadata("reqd_work_group_size", 0, 0),
                        readMetadata("reqd_work_group_size", 1, 1),
                        readMetadata("reqd_work_group_size", 2, 1)};
    if (!info[1])
      info[1] = info[0];
    auto *infoType = llvm::ArrayType::get(i32, 4);
    new llvm::GlobalVariable(
        module, infoType, /*isConstant=*/true,
        llvm::GlobalValue::ExternalLinkage,
        llvm::ConstantDataArray::get(context, ArrayRef<uint32_t>(info)),
        ("sm_intel_info_" + kernel->getName()).str());
    auto signature = signatures.find(kernel->getName());
    llvm::Constant *signatureText = llvm::ConstantDataArray::getString(
        context, signature == signatures.end() ? "" : signature->second);
    new llvm::GlobalVariable(module, signatureText->getType(),
                             /*isConstant=*/true,
                             llvm::GlobalValue::ExternalLinkage, signatureText,
                             ("sm_intel_signature_" + kernel->getName()).str());

    auto *entry = llvm::Function::Create(
        llvm::FunctionType::get(llvm::Type::getVoidTy(context), {ptr}, false),
        llvm::GlobalValue::ExternalLinkage,
        "sm_intel_entry_" + kernel->getName(), module);
    llvm::IRBuilder<> builder(
        llvm::BasicBlock::Create(context, "entry", entry));
    SmallVector<llvm::Value *> callArguments;
    unsigned slot = 0;
    auto argumentPointer = [&]() {
      llvm::Value *address =
          builder.CreateConstGEP1_32(ptr, entry->getArg(0), slot++);
      return builder.CreateLoad(ptr, address);
    };
    auto found = memrefs.find(kernel->getName());
    ArrayRef<MemRefType> argumentTypes;
    if (found != memrefs.end())
      argumentTypes = found->second;
    unsigned i = 0, e = kernel->arg_size();
    for (MemRefType memref : argumentTypes) {
      if (i >= e)
        break;
      llvm::Type *type = kernel->getArg(i)->getType();
      if (!memref) {
        llvm::Value *address = argumentPointer();
        if (type == i64)
          callArguments.push_back(
              builder.CreateSExt(builder.CreateLoad(i32, address), i64));
        else
          callArguments.push_back(builder.CreateLoad(type, address));
        ++i;
        continue;
      }
      int64_t rank = memref.getRank();
      ArrayRef<int64_t> shape = memref.getShape();
      bool dense = memref.getLayout().isIdentity() &&
                   llvm::none_of(shape.drop_front(), ShapedType::isDynamic);
      if (!type->isPointerTy() || !dense || i + 3 + 2 * rank > e)
        return emitError(op->getLoc())
               << "kernel '" << kernel->getName().str()
               << "': the host runner passes scalars and dense row-major "
                  "memrefs with static inner sizes, not "
               << memref;
      llvm::Value *data = builder.CreateAddrSpaceCast(argumentPointer(), type);
      callArguments.append({data, data, builder.getInt64(0)});
      for (int64_t size : shape)
        callArguments.push_back(builder.getInt64(
            ShapedType::isDynamic(size) ? int64_t(1) << 40 : size));
      SmallVector<int64_t> strides(rank, 1);
      for (int64_t d = rank - 2; d >= 0; --d)
        strides[d] = strides[d + 1] * shape[d + 1];
      for (int64_t stride : strides)
        callArguments.push_back(builder.getInt64(stride));
      i += 3 + 2 * rank;
    }
    if (i != e)
      return emitError(op->getLoc())
             << "kernel '" << kernel->getName().str()
             << "': its arguments do not match its signature";
    builder.CreateCall(kernel, callArguments);
    builder.CreateRetVoid();
  }
  return success();
}

LogicalResult
mlir::subgroup_matrix::translateToIntelHostLLVM(Operation *op,
                                                raw_ostream &output) {
  llvm::LLVMContext context;
  // Backend errors are reported at the kernels' module, which is emptied
  // into the LLVM module below.
  Location kernelsLoc = op->getLoc();
  op->walk([&](gpu::GPUModuleOp kernels) { kernelsLoc = kernels.getLoc(); });
  if (failed(readPackedBuffersAsBytes(op)))
    return failure();
  KernelMemRefs memrefs = collectKernelMemRefs(op);
  llvm::StringMap<std::string> signatures = collectKernelSignatures(op);
  std::unique_ptr<llvm::Module> module = lowerToLLVMIR(op, context);
  if (!module)
    return failure();
  // The host has no SPIR calling conventions; everything else stays.
  for (llvm::Function &function : *module) {
    function.setCallingConv(llvm::CallingConv::C);
    for (llvm::User *user : function.users())
      if (auto *call = dyn_cast<llvm::CallInst>(user))
        call->setCallingConv(llvm::CallingConv::C);
  }
  // The host runner runs workgroups in parallel, one per host thread: each
  // has the workgroup memory of its own.
  for (llvm::GlobalVariable &global : module->globals())
    if (global.getAddressSpace() == workgroupAddressSpace)
      global.setThreadLocal(true);
  defineHostBuiltins(*module);
  if (failed(defineHostEntries(op, *module, memrefs, signatures)))
    return failure();
  module->print(output, nullptr);
  return success();
}

static void registerDialects(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  registry.insert<subgroup_matrix::SubgroupMatrixDialect>();
}

void mlir::subgroup_matrix::registerToIntelSPIRVTranslation() {
  TranslateFromMLIRRegistration binary(
      "emit-intel-spirv",
      "write the kernels of sm-lower-to-intel's output as an OpenCL SPIR-V "
      "binary (through LLVM's SPIR-V backend)",
      subgroup_matrix::translateToIntelSPIRV, registerDialects);
  TranslateFromMLIRRegistration host(
      "emit-intel-host-llvm",
      "write the kernels of sm-lower-to-intel's output as LLVM IR for the "
      "host, with the builtins left to sm-intel-host-runner's runtime",
      subgroup_matrix::translateToIntelHostLLVM, registerDialects);
}
