//===- autoglm-opt.cpp - mlir-opt with the AutoGLM dialect and passes -----===//

#include "compiler/Pipeline.h"

#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  autoglm::registerAutoGLMPipelines();
  mlir::DialectRegistry registry;
  autoglm::registerAutoGLMDialects(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "AutoGLM optimizer driver\n", registry));
}
