#pragma once
// Programs link roam's layers as static libraries, which keep only the object
// files a program refers to. src/obj/objects.cpp installs, during static
// initialization, hooks that every multi-process run needs (frame delivery and
// the exit broadcast to other nodes). A program with no objects at all never
// referred to that file, so a roam::exit on node 0 never reached the other
// nodes and they ran on until the launcher stopped them. roam.hpp includes
// this header: the dynamic initializer below refers to objects.cpp from every
// program.
namespace roam::detail {

bool objects_layer_linked() noexcept;
// `used`: emitted (and so initialized) even where nothing refers to it.
[[gnu::used]] inline const bool g_objects_layer_linked = objects_layer_linked();

}  // namespace roam::detail
