#include "lib/core/status.h"

#include "lib/core/errno.h"

namespace hke {

const char* StatusName(Status s) {
  if (s.ok()) return "ok";
  if (s.domain() == HKE_DOMAIN_ERRNO) {
    const char* n = err::ErrnoName(static_cast<int>(s.code()));
    return n != nullptr ? n : "errno";
  }
  if (s.domain() != HKE_DOMAIN_API) return "unknown";
  switch (s.code()) {
    case HKE_STATUS_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case HKE_STATUS_OUT_OF_RANGE: return "OUT_OF_RANGE";
    case HKE_STATUS_UNSUPPORTED: return "UNSUPPORTED";
    case HKE_STATUS_RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case HKE_STATUS_DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case HKE_STATUS_VERSION_MISMATCH: return "VERSION_MISMATCH";
    case HKE_STATUS_BUFFER_TOO_SMALL: return "BUFFER_TOO_SMALL";
    case HKE_STATUS_FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case HKE_STATUS_NOT_IMPLEMENTED: return "NOT_IMPLEMENTED";
    case HKE_STATUS_INTERNAL: return "INTERNAL";
    case HKE_STATUS_PROTOCOL: return "PROTOCOL";
    case HKE_STATUS_FORKED_CHILD: return "FORKED_CHILD";
    case HKE_STATUS_INVALID_HANDLE: return "INVALID_HANDLE";
    case HKE_STATUS_UNAVAILABLE: return "UNAVAILABLE";
    case HKE_STATUS_OVERFLOW: return "OVERFLOW";
    case HKE_STATUS_ALREADY_EXISTS: return "ALREADY_EXISTS";
    case HKE_STATUS_NOT_FOUND: return "NOT_FOUND";
    case HKE_STATUS_INVALID_NODE: return "INVALID_NODE";
    default: return "unknown";
  }
}

namespace err {

const char* ErrnoName(int error) {
  switch (error) {
    case kEPERM: return "EPERM";
    case kENOENT: return "ENOENT";
    case kESRCH: return "ESRCH";
    case kEINTR: return "EINTR";
    case kEIO: return "EIO";
    case kENXIO: return "ENXIO";
    case kE2BIG: return "E2BIG";
    case kEBADF: return "EBADF";
    case kEAGAIN: return "EAGAIN";
    case kENOMEM: return "ENOMEM";
    case kEACCES: return "EACCES";
    case kEFAULT: return "EFAULT";
    case kEBUSY: return "EBUSY";
    case kEEXIST: return "EEXIST";
    case kENODEV: return "ENODEV";
    case kENOTDIR: return "ENOTDIR";
    case kEISDIR: return "EISDIR";
    case kEINVAL: return "EINVAL";
    case kEMFILE: return "EMFILE";
    case kENOTTY: return "ENOTTY";
    case kEFBIG: return "EFBIG";
    case kENOSPC: return "ENOSPC";
    case kERANGE: return "ERANGE";
    case kENOSYS: return "ENOSYS";
    case kENODATA: return "ENODATA";
    case kEPROTO: return "EPROTO";
    case kEOVERFLOW: return "EOVERFLOW";
    case kEOPNOTSUPP: return "EOPNOTSUPP";
    case kEADDRINUSE: return "EADDRINUSE";
    case kETIMEDOUT: return "ETIMEDOUT";
    case kEALREADY: return "EALREADY";
    case kERESTARTSYS: return "ERESTARTSYS";
    case kENOTSUPP: return "ENOTSUPP";
    default: return nullptr;
  }
}

}  // namespace err
}  // namespace hke

extern "C" const char* hke_status_name(hke_status_t status) {
  return hke::StatusName(hke::Status(status));
}
