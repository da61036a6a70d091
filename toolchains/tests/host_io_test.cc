// What runtime code needs from the platform besides the compiler: main's arguments, reading a host file
// (on Corstone-300 through semihosting), stderr, and a heap larger than any TCM or SRAM (newlib's own
// semihosting start-up refuses a heap above the stack, which the Corstone-300 support works around).
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

constexpr char kExpectedGreeting[] = "read back from the host\n";
constexpr std::size_t kHeapBytes = 64u << 20;

bool ReadsGreeting(const char* path) {
  std::FILE* file = std::fopen(path, "rb");
  if (file == nullptr) {
    std::fprintf(stderr, "cannot open %s\n", path);
    return false;
  }
  char text[64] = {};
  const std::size_t size = std::fread(text, 1, sizeof(text) - 1, file);
  std::fclose(file);
  // newlib-nano's printf has no %zu.
  std::printf("read %lu bytes from %s\n", static_cast<unsigned long>(size), path);
  return std::strcmp(text, kExpectedGreeting) == 0;
}

bool AllocatesAndTouches(std::size_t bytes) {
  auto* block = static_cast<unsigned char*>(std::malloc(bytes));
  if (block == nullptr) {
    std::fprintf(stderr, "malloc(%lu) failed\n", static_cast<unsigned long>(bytes));
    return false;
  }
  block[0] = 1;
  block[bytes - 1] = 2;
  const bool kept = block[0] == 1 && block[bytes - 1] == 2;
  std::free(block);
  std::printf("allocated %lu MiB\n", static_cast<unsigned long>(bytes >> 20));
  return kept;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <greeting file>, got %d arguments\n", argc > 0 ? argv[0] : "host_io_test", argc);
    return 2;
  }
  std::fprintf(stderr, "stderr reaches the host\n");
  const bool ok = ReadsGreeting(argv[1]) && AllocatesAndTouches(kHeapBytes);
  return ok ? 0 : 1;
}
