#ifndef GESTURED_CUDEV_SHIM_H
#define GESTURED_CUDEV_SHIM_H
#include <libudev.h>
#endif
