#include "labs/parallel.hpp"

#include <algorithm>
#include <exception>
#include <thread>

namespace harness {

std::size_t range_count(std::size_t count, std::size_t grain) {
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  return std::max<std::size_t>(1, std::min(cores, count / std::max<std::size_t>(grain, 1)));
}

void for_ranges(std::size_t count, std::size_t grain,
                const std::function<void(std::size_t, std::size_t, std::size_t)>& body) {
  const std::size_t ranges = range_count(count, grain);
  std::vector<std::exception_ptr> failed(ranges);
  std::vector<std::thread> threads;
  auto run = [&](std::size_t index) {
    try {
      body(index, count * index / ranges, count * (index + 1) / ranges);
    } catch (...) {
      failed[index] = std::current_exception();
    }
  };
  for (std::size_t index = 1; index < ranges; ++index) threads.emplace_back(run, index);
  run(0);
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& e : failed) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace harness
