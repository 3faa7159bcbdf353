// The lab4 variants as the harness sees them: name, launcher, where the array
// lives, how the grid is chosen, and the seed's default configuration.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "power_array.cuh"

namespace lab4 {

using PointerPower = void (*)(const float*, float*, int, int, Launch);
using SymbolPower = void (*)(int, int, Launch);
using WindowLauncher = void (*)(const float*, float*, int, int, Launch);

enum class Storage { Pointer, Symbol };

enum class Grid {
  Cover,       // one element per thread: blocks * threads >= n, any threads
  FixedBlock,  // the same with threads == kBlockSize (a __shared__ array of that size)
  Free,        // the variant picks its grid (blocks = 0)
};

struct PowerVariant {
  const char* name;
  const char* letter;  // the exercise's item: (a), (b), ...
  Storage storage;
  PointerPower pointer;  // set when storage == Pointer
  SymbolPower symbol;    // set when storage == Symbol
  Grid grid;
  Launch defaults;  // the seed's configuration: blocks of 128 threads
};

struct WindowVariant {
  const char* name;
  const char* letter;
  WindowLauncher run;
  Grid grid;
  Launch defaults;
};

const std::vector<PowerVariant>& power_variants();
const std::vector<WindowVariant>& window_variants();
// The named variant; throws std::invalid_argument listing the known names.
const PowerVariant& find_power_variant(const std::string& name);
const WindowVariant& find_window_variant(const std::string& name);
bool is_window_variant(const std::string& name);

// The configuration to launch a variant with on n elements: `requested.blocks == 0`
// means "just enough blocks to cover n". Throws std::invalid_argument with the
// reason for a configuration that cannot work.
Launch resolve_launch(Grid grid, long long n, Launch requested);
// Throws std::invalid_argument when a symbol variant cannot hold n elements.
void check_fits_symbol(const PowerVariant& v, long long n);
void check_power_k(long long k);
void check_radius(long long radius);

std::ostream& operator<<(std::ostream& o, const Launch& l);

}  // namespace lab4
