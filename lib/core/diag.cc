#include "lib/core/diag.h"

namespace hke {

Status Diag::Report(hke_diag_level level, Status status, const char* area, const char* message,
                    const char* path, uint32_t line) const {
  if (fn_ == nullptr) return status;
  hke_diag_record r;
  r.level = static_cast<uint32_t>(level);
  r.status = status.raw();
  r.area = area != nullptr ? area : "";
  r.message = message != nullptr ? message : "";
  r.path = path;
  r.line = line;
  fn_(user_, &r);
  return status;
}

Status Diag::Failed(Status status, const char* area, const char* what) const {
  if (fn_ == nullptr) return status;
  FixedText<kMessageCapacity> t;
  t.Append(what).Append(" failed: ").Append(StatusName(status));
  return Error(status, area, t.c_str());
}

}  // namespace hke
