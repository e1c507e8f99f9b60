#pragma once
// A shared library opened with dlopen, closed when the owner goes (RAII). Errors keep the
// loader's exact message, which is what a user needs to fix a broken runtime.
#include <string>

namespace dcukit::util {

class DynLib {
public:
  DynLib() = default;
  ~DynLib();
  DynLib(DynLib&& other) noexcept;
  DynLib& operator=(DynLib&& other) noexcept;
  DynLib(const DynLib&) = delete;
  DynLib& operator=(const DynLib&) = delete;

  /// How the library's symbols are seen: its own (RTLD_LOCAL), or by every library loaded after
  /// it (RTLD_GLOBAL: MPI, whose plugins resolve its symbols).
  enum class Scope { local, global };
  /// Opens `path` (RTLD_NOW); false with error() set when it cannot.
  bool open(const std::string& path, Scope scope = Scope::local);
  /// The address of `symbol`, or nullptr with error() set.
  void* symbol(const char* name);
  bool is_open() const { return m_handle != nullptr; }
  const std::string& error() const { return m_error; }

private:
  void* m_handle = nullptr;
  std::string m_error;
};

} // namespace dcukit::util
