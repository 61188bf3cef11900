#pragma once
// Everything the object layer shares with its proxies and the layers above,
// split by concern: collections.hpp (descriptors, registries, ids, index
// arithmetic), sections.hpp, send_path.hpp, population.hpp (construction,
// contributors, location, element hooks, insertion) and chares.hpp. A
// collection (array, group, nodegroup) has a process-wide immutable
// descriptor; each PE keeps its own table of the members it hosts
// (src/obj/pe_objects.cpp). Singleton chares have no descriptor: they are
// addressed by (PE, 64-bit id). Across processes a descriptor travels as a
// `collection_wire` and is rebuilt on arrival: classes and maps are found by
// the stable hashes of their names, which every process of one binary
// registers at start-up.
#include <roam/obj/detail/chares.hpp>
#include <roam/obj/detail/collections.hpp>
#include <roam/obj/detail/population.hpp>
#include <roam/obj/detail/sections.hpp>
#include <roam/obj/detail/send_path.hpp>
