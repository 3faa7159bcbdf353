// One public dataset case, as listed in datasets/<lab>.json. CMake turns each
// manifest into a header of these (<lab>_cases.hpp) so the manifest stays the
// single list of cases.
#pragma once
#include <ostream>

namespace harness {

struct DatasetCase {
  const char* name;
  long long n;
  const char* distribution;
};

inline std::ostream& operator<<(std::ostream& o, const DatasetCase& c) { return o << c.name; }

}  // namespace harness
