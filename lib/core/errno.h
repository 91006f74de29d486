// Linux errno values, as the platform table reports them (asm-generic
// numbering, shared by x86, arm, arm64 and riscv). lib/ includes no OS
// header, so the values it must recognise are spelled out here; the Linux
// backend static_asserts that they match the host's <errno.h>.
#ifndef HKE_LIB_CORE_ERRNO_H_
#define HKE_LIB_CORE_ERRNO_H_

namespace hke::err {

constexpr int kEPERM = 1;
constexpr int kENOENT = 2;
constexpr int kESRCH = 3;
constexpr int kEINTR = 4;
constexpr int kEIO = 5;
constexpr int kENXIO = 6;
constexpr int kE2BIG = 7;
constexpr int kEBADF = 9;
constexpr int kEAGAIN = 11;
constexpr int kENOMEM = 12;
constexpr int kEACCES = 13;
constexpr int kEFAULT = 14;
constexpr int kEBUSY = 16;
constexpr int kEEXIST = 17;
constexpr int kENODEV = 19;
constexpr int kENOTDIR = 20;
constexpr int kEISDIR = 21;
constexpr int kEINVAL = 22;
constexpr int kEMFILE = 24;
constexpr int kENOTTY = 25;
constexpr int kEFBIG = 27;
constexpr int kENOSPC = 28;
constexpr int kERANGE = 34;
constexpr int kENOSYS = 38;
constexpr int kENODATA = 61;
constexpr int kEPROTO = 71;
constexpr int kEOVERFLOW = 75;
constexpr int kEOPNOTSUPP = 95;
constexpr int kEADDRINUSE = 98;
constexpr int kETIMEDOUT = 110;
constexpr int kEALREADY = 114;
constexpr int kERESTARTSYS = 512;  // kernel-internal; never seen by user space
constexpr int kENOTSUPP = 524;     // kernel-internal ENOTSUPP, returned by some KFD paths

// Static name of an errno ("ENOMEM"); nullptr for values not listed here.
const char* ErrnoName(int error);

}  // namespace hke::err

#endif  // HKE_LIB_CORE_ERRNO_H_
