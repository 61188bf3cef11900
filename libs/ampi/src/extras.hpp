#pragma once
// What a rank keeps for MPI's smaller corners: generalized requests'
// callbacks (grequest.cpp), user error handlers and added error classes,
// codes and strings (errhandlers.cpp), datatype attributes (type_attrs.cpp),
// communicators' info hints (extras.cpp). A member of the rank, packed with
// it when it moves: the callbacks are code addresses, the same in every
// process of the job; extra states and attribute values are the program's
// words (addresses in the rank's own memory, which moves with it).
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <roam/roam.hpp>

#include "extension.hpp"

namespace roam::ampi {

/// MPI_Grequest_start's callbacks (0: none).
struct grequest_record {
  std::uint64_t query_fn = 0, free_fn = 0, cancel_fn = 0, extra_state = 0;
  void pup(pup_er& p) { p | query_fn | free_fn | cancel_fn | extra_state; }
};

/// A user error handler (MPI_Comm_create_errhandler, MPI_Win_create_errhandler).
struct errhandler_record {
  enum kind_t : int { comm = 0, win = 1 };
  std::uint64_t fn = 0;  // MPI_Comm_errhandler_function* or MPI_Win_errhandler_function*
  int kind = comm;
  bool freed = false;    // MPI_Errhandler_free'd while an object still used it
  void pup(pup_er& p) { p | fn | kind | freed; }
};

struct rank_extras {
  std::map<int, grequest_record> grequests;  // by request handle
  std::map<int, errhandler_record> errhandlers;
  int next_errhandler = 3;  // after MPI_ERRORS_ARE_FATAL (1) and MPI_ERRORS_RETURN (2)
  // MPI_Add_error_class/_code: each added code's class (an added class is
  // its own), their strings, and the last value handed out (MPI_LASTUSEDCODE).
  std::map<int, int> error_classes;
  std::map<int, std::string> error_strings;
  int last_error_code = 0;  // 0: none added yet (MPI_ERR_LASTCODE is the last)
  // Datatype attributes: type handle -> keyval -> the program's value (kept
  // outside type_info: they are not part of the type's layout).
  std::map<int, std::map<int, std::uint64_t>> type_attributes;
  // MPI_Comm_set_info's hints by communicator handle (handles are never reused).
  std::map<int, std::vector<std::pair<std::string, std::string>>> comm_hints;
  // The state of the libraries on the ranks (extension.hpp: libs/armci).
  extension_slots extensions;
  void pup(pup_er& p) {
    p | grequests | errhandlers | next_errhandler | error_classes | error_strings | last_error_code |
        type_attributes | comm_hints | extensions;
  }
};

}  // namespace roam::ampi
