// What student code can break beyond its own output, checked in every run, timed or
// not, sanitizer or none (a check that only runs under a tool can be dodged by code
// that notices the tool):
// - guard zones: every DeviceBuffer sits between two zones of bytes drawn from a
//   secret the host keeps; a write past either end of a buffer changes them;
// - seals: a buffer the harness sealed (a redraw's source, a yardstick's input, an
//   input a launcher may only read) must still hold what the host recorded: a keyed
//   digest of the host's copy, computed on the host, never read back from the device;
// synchronize_or_die runs check_integrity after every wait, so every launcher call
// is checked before anything reads what it left (a wait after harness work alone
// checks nothing: student_code_ran_since_asked). Device-wide settings (limits, the
// cache preference, the persisting-L2 carve-out, access-policy windows) are not judged
// here: the calls that change them are refused by the trace of student code's CUDA
// calls (student_calls.hpp), and the device reads them device-wide, so another process
// on the GPU could move them; time_gpu puts them back before every timed launch
// (reset_device_settings).
#pragma once
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace harness {

// Bytes of guard zone before and after every DeviceBuffer: a multiple of 256, so
// that the inner pointer keeps cudaMalloc's alignment.
inline constexpr std::size_t kGuardBytes = 256;

// A guard zone overwritten, a sealed buffer changed, or a device-wide setting changed.
class IntegrityError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Where a buffer was allocated, for the messages: the caller's file and line.
struct AllocatedAt {
  const char* file;
  int line;
  static AllocatedAt here(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    return {file, line};
  }
};

// Throws IntegrityError naming the first buffer whose guard zone or seal is broken
// (its allocation site, size, and the first byte overwritten). Call once the device
// is idle.
void check_integrity();

// Sets every device-wide setting a launcher could change back to the harness's,
// and clears the persisting lines of the L2: before every timed launch.
void reset_device_settings();

// ---- Host-side parts, checked without a GPU -------------------------------------

// Byte i of the guard zones of the buffer whose secret is `secret`.
std::uint8_t guard_byte(std::uint64_t secret, std::size_t i);

// The keyed digest the device computes of `size` bytes (digest_kernel in
// integrity.cu), computed on the host: sum over the 8-byte words w_i of
// mix(w_i ^ at(key, i)), plus at(key ^ b, i) for each tail byte b at index i.
std::uint64_t host_digest(const void* bytes, std::size_t size, std::uint64_t key);

// The message for a buffer of `bytes` bytes allocated at `at` whose guard zones
// (2 x kGuardBytes: the zone before it, then the zone after it) hold `zones`
// instead of guard_byte(secret, i); "" when intact.
std::string describe_guard_damage(const AllocatedAt& at, std::size_t bytes,
                                  const std::vector<std::uint8_t>& zones, std::uint64_t secret);

namespace detail {
// DeviceBuffer's allocation: `bytes` usable bytes between two guard zones, the
// zones filled and the buffer registered; returns the inner pointer.
void* allocate_guarded(std::size_t bytes, AllocatedAt at);
void free_guarded(void* inner) noexcept;
// Seals the buffer at `inner`: from now on it must hold `host`'s `bytes` bytes.
void seal(const void* inner, const void* host, std::size_t bytes);
// Suspends the seal (the harness is about to rewrite the buffer) or resumes it
// with the same record (the harness put the recorded values back).
void set_sealed(const void* inner, bool sealed);
// Adds the keyed digest of `size` bytes at `bytes` into *out, on the default stream.
void device_digest(const void* bytes, std::size_t size, std::uint64_t key, unsigned long long* out);
}  // namespace detail

}  // namespace harness
