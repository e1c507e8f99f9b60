// abi_check LIB NAME: loads a GPU backend library as dcukit does and calls its factory. With the
// wrong ABI version it must refuse, naming both versions (no GPU needed: that check comes
// first); with the right one it gives a backend of kind NAME, or says why the runtime cannot
// start without mentioning the ABI.
#include <dlfcn.h>

#include <cstdio>
#include <memory>
#include <string>

#include "device/backend.h"

using namespace dcukit::device;

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s LIB NAME\n", argv[0]);
    return 2;
  }
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    std::fprintf(stderr, "FAIL dlopen %s: %s\n", argv[1], dlerror());
    return 1;
  }
  auto factory = reinterpret_cast<BackendFactory>(dlsym(lib, kBackendFactorySymbol));
  if (!factory) {
    std::fprintf(stderr, "FAIL %s has no %s\n", argv[1], kBackendFactorySymbol);
    return 1;
  }
  std::string error;
  std::unique_ptr<Backend> stale(factory(kBackendAbiVersion - 1, &error));
  const std::string want = "implements backend ABI " + std::to_string(kBackendAbiVersion) + " but dcukit expects " +
                           std::to_string(kBackendAbiVersion - 1);
  if (stale || error.find(want) == std::string::npos) {
    std::fprintf(stderr, "FAIL a stale ABI was not refused as expected: '%s'\n", error.c_str());
    return 1;
  }
  error.clear();
  std::unique_ptr<Backend> backend(factory(kBackendAbiVersion, &error));
  if (backend) {
    if (to_string(backend->kind()) != argv[2]) {
      std::fprintf(stderr, "FAIL %s made a %s backend\n", argv[1], std::string(to_string(backend->kind())).c_str());
      return 1;
    }
    std::printf("ok: %s refuses ABI %d and starts at ABI %d (%d device(s))\n", argv[2], kBackendAbiVersion - 1,
                kBackendAbiVersion, backend->device_count());
  } else {
    if (error.empty() || error.find("ABI") != std::string::npos) {
      std::fprintf(stderr, "FAIL the right ABI was refused: '%s'\n", error.c_str());
      return 1;
    }
    std::printf("ok: %s refuses ABI %d; at ABI %d it says: %s\n", argv[2], kBackendAbiVersion - 1, kBackendAbiVersion,
                error.c_str());
  }
  return 0;  // the library stays loaded: the GPU runtimes register exit handlers inside it
}
