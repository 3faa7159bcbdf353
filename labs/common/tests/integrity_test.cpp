// The integrity checks' host side (integrity.hpp), checked without a GPU: the guard
// zones' messages, the host's digest that seals are compared against, and the
// device-wide settings' message.
#include "labs/integrity.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "labs/random.hpp"

namespace harness {
namespace {

constexpr std::uint64_t kSecret = 0x1234abcdULL;

std::vector<std::uint8_t> intact_zones() {
  std::vector<std::uint8_t> zones(2 * kGuardBytes);
  for (std::size_t i = 0; i < zones.size(); ++i) zones[i] = guard_byte(kSecret, i);
  return zones;
}

TEST(GuardZones, IntactZonesGiveNoMessage) {
  EXPECT_EQ(describe_guard_damage({"lab1.cu", 7}, 4096, intact_zones(), kSecret), "");
}

TEST(GuardZones, AWritePastTheEndNamesTheBufferAndTheOffset) {
  std::vector<std::uint8_t> zones = intact_zones();
  for (std::size_t i = kGuardBytes; i < kGuardBytes + 4; ++i) zones[i] ^= 0xFF;
  const std::string why = describe_guard_damage({"/src/lab1.cu", 116}, 4096, zones, kSecret);
  EXPECT_NE(why.find("4 bytes of the guard zones around the device buffer of 4096 bytes "
                     "allocated at lab1.cu:116"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("the first 0 bytes past its end (offset 4096)"), std::string::npos) << why;
}

TEST(GuardZones, AWriteBeforeTheStartIsNamedAsSuch) {
  std::vector<std::uint8_t> zones = intact_zones();
  zones[kGuardBytes - 8] ^= 1;
  const std::string why = describe_guard_damage({"lab3.cu", 9}, 12, zones, kSecret);
  EXPECT_NE(why.find("1 bytes of the guard zones"), std::string::npos) << why;
  EXPECT_NE(why.find("the first 8 bytes before its start"), std::string::npos) << why;
}

TEST(GuardZones, TheZonesDependOnTheSecret) {
  int same = 0;
  for (std::size_t i = 0; i < 2 * kGuardBytes; ++i) {
    same += guard_byte(kSecret, i) == guard_byte(kSecret + 1, i);
  }
  EXPECT_LT(same, 16);  // 512 bytes, about 2 equal by chance
}

// The digest written out word by word, as digest_kernel adds it up.
std::uint64_t sequential_digest(const std::vector<unsigned char>& bytes, std::uint64_t key) {
  std::uint64_t sum = 0;
  const std::size_t words = bytes.size() / 8;
  for (std::size_t i = 0; i < words; ++i) {
    std::uint64_t word;
    std::memcpy(&word, bytes.data() + 8 * i, 8);
    sum += splitmix64_mix(word ^ splitmix64_at(key, i));
  }
  for (std::size_t i = words * 8; i < bytes.size(); ++i) {
    sum += splitmix64_at(key ^ bytes[i], i);
  }
  return sum;
}

TEST(Seals, TheHostDigestIsTheDevicesSumOverAnySplit) {
  std::vector<unsigned char> bytes((3 << 20) + 5);  // more than one range, and a tail
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(i * 7);
  EXPECT_EQ(host_digest(bytes.data(), bytes.size(), 99), sequential_digest(bytes, 99));
}

TEST(Seals, AnyChangedByteChangesTheDigest) {
  std::vector<unsigned char> bytes(1001, 3);
  const std::uint64_t sealed = host_digest(bytes.data(), bytes.size(), 5);
  for (std::size_t at : {std::size_t{0}, std::size_t{500}, std::size_t{1000}}) {
    std::vector<unsigned char> changed = bytes;
    changed[at] = 4;
    EXPECT_NE(host_digest(changed.data(), changed.size(), 5), sealed) << "byte " << at;
  }
  EXPECT_NE(host_digest(bytes.data(), bytes.size(), 6), sealed);  // and the key
}

}  // namespace
}  // namespace harness

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
