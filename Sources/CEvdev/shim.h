#ifndef GESTURED_CEVDEV_SHIM_H
#define GESTURED_CEVDEV_SHIM_H
// libevdev-uinput.h includes <libevdev/libevdev.h>; pkg-config puts /usr/include/libevdev-1.0 on
// the include path, so both resolve there.
#include <libevdev/libevdev.h>
#include <libevdev/libevdev-uinput.h>
#include <linux/input.h>
#include <linux/input-event-codes.h>
#endif
