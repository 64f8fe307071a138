#ifndef GESTURED_CMTDEV_SHIM_H
#define GESTURED_CMTDEV_SHIM_H
// mtdev converts multitouch protocol A (SYN_MT_REPORT, no slots) into protocol B slots. The
// plumbing header lets us feed events we read through libevdev (or from a recording) instead of
// letting mtdev read the fd itself.
#include <mtdev.h>
#include <mtdev-plumbing.h>
#endif
