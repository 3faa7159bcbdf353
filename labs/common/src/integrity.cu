#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>

#include "labs/cuda_check.hpp"
#include "labs/fresh.hpp"
#include "labs/integrity.hpp"
#include "labs/parallel.hpp"
#include "labs/random.hpp"
#include "labs/student_calls.hpp"

namespace harness {
namespace {

constexpr std::size_t kZoneBytes = 2 * kGuardBytes;  // before and after

LAB_HOST_DEVICE inline std::uint8_t guard_byte_at(std::uint64_t secret, std::size_t i) {
  return static_cast<std::uint8_t>(splitmix64_at(secret, i / 8) >> (8 * (i % 8)));
}

// Zone byte i of a buffer: the zone before it for i < kGuardBytes, else the one after.
__device__ unsigned char* zone_byte(unsigned char* front, unsigned char* back, std::size_t i) {
  return i < kGuardBytes ? front + i : back + (i - kGuardBytes);
}

__global__ void fill_guards_kernel(unsigned char* front, unsigned char* back,
                                   std::uint64_t secret) {
  for (std::size_t i = threadIdx.x; i < kZoneBytes; i += blockDim.x) {
    *zone_byte(front, back, i) = guard_byte_at(secret, i);
  }
}

struct GuardJob {
  unsigned char* front;
  unsigned char* back;
  std::uint64_t secret;
};

// first[b]: the lowest zone byte of buffer b that is not its guard byte (0xFFFFFFFF: none).
__global__ void check_guards_kernel(const GuardJob* jobs, unsigned* first) {
  const GuardJob job = jobs[blockIdx.x];
  for (std::size_t i = threadIdx.x; i < kZoneBytes; i += blockDim.x) {
    if (*zone_byte(job.front, job.back, i) != guard_byte_at(job.secret, i)) {
      atomicMin(&first[blockIdx.x], static_cast<unsigned>(i));
    }
  }
}

__global__ void digest_kernel(const unsigned char* bytes, std::size_t size, std::uint64_t key,
                              unsigned long long* out) {
  std::uint64_t sum = 0;
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < size / 8;
       i += stride) {
    std::uint64_t word;
    memcpy(&word, bytes + 8 * i, 8);
    sum += splitmix64_mix(word ^ splitmix64_at(key, i));
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    for (std::size_t i = size / 8 * 8; i < size; ++i) sum += splitmix64_at(key ^ bytes[i], i);
  }
  atomicAdd(out, static_cast<unsigned long long>(sum));
}

struct Entry {
  std::size_t bytes;
  AllocatedAt at;
  std::uint64_t secret;
  bool has_record = false;
  bool sealed = false;
  std::uint64_t key = 0, digest = 0;  // the host's record: its digest with this key
};

// The live buffers. Never destroyed: buffers in static storage are freed after
// main returns, in any order.
std::mutex& registry_mutex() {
  static std::mutex* mutex = new std::mutex;
  return *mutex;
}
std::map<const void*, Entry>& registry() {
  static auto* entries = new std::map<const void*, Entry>;
  return *entries;
}

// Device memory of the checks themselves, outside the registry: the jobs, then the results.
class CheckScratch {
 public:
  void* at_least(std::size_t bytes) {
    if (bytes > bytes_) {
      if (ptr_) cudaFree(ptr_);
      ptr_ = nullptr;
      bytes_ = std::max(bytes, std::size_t{64} << 10);
      LAB_CUDA_CHECK(cudaMalloc(&ptr_, bytes_));
    }
    return ptr_;
  }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

unsigned char* front_of(const void* inner) {
  return static_cast<unsigned char*>(const_cast<void*>(inner)) - kGuardBytes;
}

const char* base_name(const char* path) {
  const char* slash = std::strrchr(path, '/');
  return slash ? slash + 1 : path;
}

std::string where(const AllocatedAt& at, std::size_t bytes) {
  return "the device buffer of " + std::to_string(bytes) + " bytes allocated at " +
         base_name(at.file) + ":" + std::to_string(at.line);
}

std::string check_guards(const std::vector<std::pair<const void*, Entry>>& live,
                         CheckScratch& scratch) {
  std::vector<GuardJob> jobs;
  for (const auto& [inner, e] : live) {
    jobs.push_back({front_of(inner), front_of(inner) + kGuardBytes + e.bytes, e.secret});
  }
  const std::size_t jobs_bytes = (jobs.size() * sizeof(GuardJob) + 255) / 256 * 256;
  char* base = static_cast<char*>(scratch.at_least(jobs_bytes + jobs.size() * sizeof(unsigned)));
  auto* first = reinterpret_cast<unsigned*>(base + jobs_bytes);
  LAB_CUDA_CHECK(
      cudaMemcpy(base, jobs.data(), jobs.size() * sizeof(GuardJob), cudaMemcpyHostToDevice));
  LAB_CUDA_CHECK(cudaMemset(first, 0xFF, jobs.size() * sizeof(unsigned)));
  check_guards_kernel<<<static_cast<unsigned>(jobs.size()), 128>>>(
      reinterpret_cast<GuardJob*>(base), first);
  LAB_CHECK_LAUNCH();
  std::vector<unsigned> found(jobs.size());
  LAB_CUDA_CHECK(
      cudaMemcpy(found.data(), first, found.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  for (std::size_t b = 0; b < jobs.size(); ++b) {
    if (found[b] == ~0u) continue;
    const Entry& e = live[b].second;
    std::vector<std::uint8_t> zones(kZoneBytes);
    LAB_CUDA_CHECK(cudaMemcpy(zones.data(), jobs[b].front, kGuardBytes, cudaMemcpyDeviceToHost));
    LAB_CUDA_CHECK(
        cudaMemcpy(zones.data() + kGuardBytes, jobs[b].back, kGuardBytes, cudaMemcpyDeviceToHost));
    // Guarded again, so that the buffer's later checks report later writes only.
    fill_guards_kernel<<<1, 128>>>(jobs[b].front, jobs[b].back, e.secret);
    LAB_CHECK_LAUNCH();
    return describe_guard_damage(e.at, e.bytes, zones, e.secret);
  }
  return "";
}

std::string check_seals(const std::vector<std::pair<const void*, Entry>>& live,
                        CheckScratch& scratch) {
  std::vector<std::pair<const void*, Entry>> sealed;
  for (const auto& item : live) {
    if (item.second.sealed) sealed.push_back(item);
  }
  if (sealed.empty()) return "";
  auto* sums = static_cast<unsigned long long*>(scratch.at_least(sealed.size() * 8));
  LAB_CUDA_CHECK(cudaMemset(sums, 0, sealed.size() * 8));
  for (std::size_t s = 0; s < sealed.size(); ++s) {
    detail::device_digest(sealed[s].first, sealed[s].second.bytes, sealed[s].second.key, sums + s);
  }
  std::vector<unsigned long long> got(sealed.size());
  LAB_CUDA_CHECK(cudaMemcpy(got.data(), sums, got.size() * 8, cudaMemcpyDeviceToHost));
  for (std::size_t s = 0; s < sealed.size(); ++s) {
    const Entry& e = sealed[s].second;
    if (got[s] == e.digest) continue;
    return where(e.at, e.bytes) +
           " changed while the harness held it sealed (its contents no longer match the "
           "host's record): code that may only read it, or never received it, wrote to it; "
           "a launcher may write only its outputs";
  }
  return "";
}

// The device-wide settings a launcher could change and that slow other kernels, as
// the harness keeps them: none of the L2 set aside for persisting lines, the fetch
// granularity the context started with, no cache preference, no access-policy window
// on the default streams.
struct Settings {
  std::size_t persisting_l2 = 0;
  std::size_t l2_fetch = 0;
  cudaFuncCache cache = cudaFuncCachePreferNone;
  std::size_t window_legacy = 0;
  std::size_t window_per_thread = 0;
};

std::size_t limit(cudaLimit which) {
  std::size_t value = 0;
  if (cudaDeviceGetLimit(&value, which) != cudaSuccess) {
    cudaGetLastError();  // not supported on this GPU: nothing a launcher can change either
    return 0;
  }
  return value;
}

std::size_t window_bytes(cudaStream_t stream) {
  cudaStreamAttrValue value{};
  if (cudaStreamGetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &value) !=
      cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return value.accessPolicyWindow.num_bytes;
}

Settings read_settings() {
  Settings s;
  s.persisting_l2 = limit(cudaLimitPersistingL2CacheSize);
  s.l2_fetch = limit(cudaLimitMaxL2FetchGranularity);
  if (cudaDeviceGetCacheConfig(&s.cache) != cudaSuccess) cudaGetLastError();
  s.window_legacy = window_bytes(cudaStreamLegacy);
  s.window_per_thread = window_bytes(cudaStreamPerThread);
  return s;
}

// The harness's: asked for at the first allocation, before any launcher ran, then kept as
// the device reports them, which need not be what was asked (an H200 under CUDA 13.0
// reported 11796480 bytes of persisting L2 after a request of 0).
const Settings& harness_settings() {
  static const Settings settings = [] {
    if (cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0) != cudaSuccess) cudaGetLastError();
    if (cudaDeviceSetCacheConfig(cudaFuncCachePreferNone) != cudaSuccess) cudaGetLastError();
    return read_settings();
  }();
  return settings;
}

void clear_window(cudaStream_t stream) {
  cudaStreamAttrValue none{};
  none.accessPolicyWindow.num_bytes = 0;
  none.accessPolicyWindow.hitProp = cudaAccessPropertyNormal;
  none.accessPolicyWindow.missProp = cudaAccessPropertyNormal;
  LAB_CUDA_CHECK(cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &none));
}

}  // namespace

std::uint8_t guard_byte(std::uint64_t secret, std::size_t i) { return guard_byte_at(secret, i); }

std::uint64_t host_digest(const void* bytes, std::size_t size, std::uint64_t key) {
  const auto* p = static_cast<const unsigned char*>(bytes);
  const std::size_t words = size / 8;
  const std::vector<std::uint64_t> parts =
      map_ranges<std::uint64_t>(words, 1 << 20, [&](std::size_t begin, std::size_t end) {
        std::uint64_t sum = 0;
        for (std::size_t i = begin; i < end; ++i) {
          std::uint64_t word;
          std::memcpy(&word, p + 8 * i, 8);
          sum += splitmix64_mix(word ^ splitmix64_at(key, i));
        }
        return sum;
      });
  std::uint64_t sum = 0;
  for (std::uint64_t part : parts) sum += part;
  for (std::size_t i = words * 8; i < size; ++i) sum += splitmix64_at(key ^ p[i], i);
  return sum;
}

std::string describe_guard_damage(const AllocatedAt& at, std::size_t bytes,
                                  const std::vector<std::uint8_t>& zones, std::uint64_t secret) {
  std::size_t overwritten = 0, first = zones.size();
  for (std::size_t i = 0; i < zones.size(); ++i) {
    if (zones[i] == guard_byte(secret, i)) continue;
    ++overwritten;
    first = std::min(first, i);
  }
  if (overwritten == 0) return "";
  const std::string offset =
      first < kGuardBytes ? std::to_string(kGuardBytes - first) + " bytes before its start"
                          : std::to_string(first - kGuardBytes) + " bytes past its end (offset " +
                                std::to_string(bytes + first - kGuardBytes) + ")";
  return "a write outside a device buffer: " + std::to_string(overwritten) +
         " bytes of the guard zones around " + where(at, bytes) + " were overwritten, the first " +
         offset +
         " (an out-of-bounds write; compute-sanitizer --tool memcheck names the kernel and "
         "thread)";
}

void check_integrity() {
  // Only student code may break a guard zone or a seal: after harness work alone
  // (a yardstick's runs, a redraw) there is nothing new to find.
  if (!student_code_ran_since_asked()) return;
  std::vector<std::pair<const void*, Entry>> live;
  {
    const std::lock_guard<std::mutex> lock(registry_mutex());
    live.assign(registry().begin(), registry().end());
  }
  static CheckScratch scratch;
  std::string wrong = live.empty() ? "" : check_guards(live, scratch);
  if (wrong.empty()) wrong = check_seals(live, scratch);
  if (!wrong.empty()) throw IntegrityError(wrong);
}

void reset_device_settings() {
  const Settings& want = harness_settings();
  LAB_CUDA_CHECK(cudaCtxResetPersistingL2Cache());
  const Settings got = read_settings();
  if (got.persisting_l2 != want.persisting_l2) {
    LAB_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, want.persisting_l2));
  }
  if (got.l2_fetch != want.l2_fetch) {
    LAB_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, want.l2_fetch));
  }
  if (got.cache != want.cache) LAB_CUDA_CHECK(cudaDeviceSetCacheConfig(want.cache));
  if (got.window_legacy != want.window_legacy) clear_window(cudaStreamLegacy);
  if (got.window_per_thread != want.window_per_thread) clear_window(cudaStreamPerThread);
}

namespace detail {

void* allocate_guarded(std::size_t bytes, AllocatedAt at) {
  harness_settings();  // recorded before any launcher can run
  void* whole = nullptr;
  LAB_CUDA_CHECK(cudaMalloc(&whole, kZoneBytes + (bytes == 0 ? 1 : bytes)));
  unsigned char* inner = static_cast<unsigned char*>(whole) + kGuardBytes;
  const std::uint64_t secret = fresh_seed();
  fill_guards_kernel<<<1, 128>>>(front_of(inner), inner + bytes, secret);
  LAB_CHECK_LAUNCH();
  const std::lock_guard<std::mutex> lock(registry_mutex());
  registry()[inner] = Entry{bytes, at, secret};
  return inner;
}

void free_guarded(void* inner) noexcept {
  if (inner == nullptr) return;
  {
    const std::lock_guard<std::mutex> lock(registry_mutex());
    registry().erase(inner);
  }
  cudaFree(front_of(inner));
}

void seal(const void* inner, const void* host, std::size_t bytes) {
  const std::uint64_t key = fresh_seed();
  const std::uint64_t digest = host_digest(host, bytes, key);
  const std::lock_guard<std::mutex> lock(registry_mutex());
  Entry& e = registry().at(inner);
  e.has_record = e.sealed = true;
  e.key = key;
  e.digest = digest;
}

void set_sealed(const void* inner, bool sealed) {
  const std::lock_guard<std::mutex> lock(registry_mutex());
  Entry& e = registry().at(inner);
  if (e.has_record) e.sealed = sealed;
}

void device_digest(const void* bytes, std::size_t size, std::uint64_t key,
                   unsigned long long* out) {
  const std::size_t words = size / 8;
  const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>(1024, words / 256 + 1));
  digest_kernel<<<blocks, 256>>>(static_cast<const unsigned char*>(bytes), size, key, out);
  LAB_CHECK_LAUNCH();
}

}  // namespace detail
}  // namespace harness
