#pragma once
/// Everything a roam program needs: `#include <roam/roam.hpp>`.
#include <roam/machine/ids.hpp>
#include <roam/msg/pup.hpp>
#include <roam/obj/array.hpp>
#include <roam/obj/chare.hpp>
#include <roam/obj/group.hpp>
#include <roam/obj/index.hpp>
#include <roam/obj/map.hpp>
#include <roam/obj/nodegroup.hpp>
#include <roam/obj/readonly.hpp>
#include <roam/obj/send_options.hpp>
#include <roam/sched/future.hpp>
#include <roam/sched/runtime.hpp>
#include <roam/sched/task.hpp>
