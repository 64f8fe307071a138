#ifndef GESTURED_CYAML_SHIM_H
#define GESTURED_CYAML_SHIM_H
// libyaml (Debian libyaml-dev, pkg-config yaml-0.1): the parser and emitter the configuration
// file goes through (Sources/YAMLCoding/LibYAML.swift is the only file that calls it).
#include <yaml.h>
#endif
