//===- DiagnosticCollector.h - diagnostics to a C callback -----*- C++ -*-===//
//
// The C API never prints: diagnostics emitted during a call go to the
// caller's callback.
//
//===----------------------------------------------------------------------===//

#ifndef SUBGROUPMATRIX_CAPI_DIAGNOSTICCOLLECTOR_H
#define SUBGROUPMATRIX_CAPI_DIAGNOSTICCOLLECTOR_H

#include "SubgroupMatrix-c/SubgroupMatrix.h"

#include "mlir/CAPI/Support.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::subgroup_matrix {

/// Hands every diagnostic emitted while it lives to a callback, as
/// "LOCATION: SEVERITY: MESSAGE" with its notes, instead of stderr. The
/// operation a diagnostic is about is not printed after it: the message and
/// location name it, and a whole function in generic form would bury them.
class DiagnosticCollector {
public:
  DiagnosticCollector(MLIRContext *context, SmTextCallback callback,
                      void *userData)
      : context(context),
        printedOperations(context->shouldPrintOpOnDiagnostic()),
        handler(context, [=](Diagnostic &diagnostic) {
          if (!callback)
            return success();
          std::string text;
          llvm::raw_string_ostream os(text);
          auto print = [&](Diagnostic &d) {
            os << d.getLocation() << ": ";
            switch (d.getSeverity()) {
            case DiagnosticSeverity::Error:
              os << "error: ";
              break;
            case DiagnosticSeverity::Warning:
              os << "warning: ";
              break;
            case DiagnosticSeverity::Note:
              os << "note: ";
              break;
            case DiagnosticSeverity::Remark:
              os << "remark: ";
              break;
            }
            os << d.str();
          };
          print(diagnostic);
          for (Diagnostic &note : diagnostic.getNotes()) {
            os << "\n";
            print(note);
          }
          callback(mlirStringRefCreate(text.data(), text.size()), userData);
          return success();
        }) {
    context->printOpOnDiagnostic(false);
  }
  ~DiagnosticCollector() { context->printOpOnDiagnostic(printedOperations); }

private:
  MLIRContext *context;
  bool printedOperations;
  ScopedDiagnosticHandler handler;
};

} // namespace mlir::subgroup_matrix

#endif // SUBGROUPMATRIX_CAPI_DIAGNOSTICCOLLECTOR_H
