#ifndef GESTURED_CMOSQUITTO_SHIM_H
#define GESTURED_CMOSQUITTO_SHIM_H
// libmosquitto (Debian libmosquitto-dev, pkg-config libmosquitto): the MQTT client of `gestured
// mqtt`. Its types and constants only: the module links nothing, and
// Sources/GestureMQTTRuntime/Mosquitto.swift, the only file that calls the library, loads it with
// dlopen (why: LibMosquitto there).
#include <mosquitto.h>
#endif
