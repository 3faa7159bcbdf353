// Compiled by grader/tests/test_object_check.py with the host compiler: lab4's
// symbol_download (which no function may call) reached without a relocation naming
// it, a copy hidden under a second name, and honest code that must pass.
typedef int cudaError_t;
extern "C" cudaError_t cudaMemcpyFromSymbol(void*, const void*, unsigned long, unsigned long, int);
struct Launch {
  int blocks, threads;
};
namespace lab4 {
static float d_symbol[16];
static float host[16];
// Honest: a switch (its jump table in .rodata points into the body) and no alias.
__attribute__((noinline)) cudaError_t symbol_download(float* h, int n) {
  switch (n & 7) {
    case 0:
      n += 3;
      break;
    case 1:
      n *= 5;
      break;
    case 2:
      n -= 7;
      break;
    case 3:
      n ^= 11;
      break;
    case 4:
      n <<= 2;
      break;
    case 5:
      n >>= 1;
      break;
    default:
      break;
  }
  return cudaMemcpyFromSymbol(h, d_symbol, n * sizeof(float), 0, 2);
}
}  // namespace lab4

// A copy in a helper whose second, local name reads as lab4::symbol_download().
static __attribute__((noinline, used)) void fetch(float* h) __asm__("fetch");
static void fetch(float* h) { cudaMemcpyFromSymbol(h, lab4::d_symbol, 64, 0, 2); }
asm(".set _ZN4lab415symbol_downloadEv, fetch");
// symbol_download's own local alias, and an assembler-local label of it.
asm(".set download_alias, _ZN4lab415symbol_downloadEPfi");
asm(".set .Ldownload, _ZN4lab415symbol_downloadEPfi");
extern "C" cudaError_t download_alias(float*, int);
// An address inside it in data, through the label (past an `endbr64`, say).
asm(".pushsection .data.rel.local\n.quad .Ldownload + 4\n.popsection");

namespace {
// Honest: a local class whose constructor's two symbols share one address.
struct Guard {
  int n;
  __attribute__((noinline)) explicit Guard(int v) : n(v) { lab4::host[0] = static_cast<float>(v); }
};
}  // namespace

namespace lab4 {
void power_global(const float*, float*, int, int, Launch) { fetch(host); }
void power_register(const float*, float*, int n, int, Launch) { download_alias(host, n); }
// A tail call: the assembler resolves the jump, no relocation is left.
void power_best(const float*, float*, int n, int, Launch) { symbol_download(host, n); }
// The label from another section: a reference to .text, not to the symbol.
__attribute__((section(".text.other"))) void power_shared(const float*, float*, int, int, Launch) {
  asm volatile("call .Ldownload" ::: "memory");
}
void power_symbol_global(int n, int, Launch) { host[1] = static_cast<float>(Guard(n).n); }
}  // namespace lab4
