#include "util/dynlib.h"

#include <dlfcn.h>
#include <utility>

namespace dcukit::util {

DynLib::~DynLib() {
  if (m_handle) dlclose(m_handle);
}

DynLib::DynLib(DynLib&& other) noexcept
    : m_handle(std::exchange(other.m_handle, nullptr)), m_error(std::move(other.m_error)) {}

DynLib& DynLib::operator=(DynLib&& other) noexcept {
  if (this != &other) {
    if (m_handle) dlclose(m_handle);
    m_handle = std::exchange(other.m_handle, nullptr);
    m_error = std::move(other.m_error);
  }
  return *this;
}

bool DynLib::open(const std::string& path, Scope scope) {
  if (m_handle) dlclose(m_handle);
  dlerror();
  m_handle = dlopen(path.c_str(), RTLD_NOW | (scope == Scope::global ? RTLD_GLOBAL : RTLD_LOCAL));
  if (!m_handle) {
    const char* e = dlerror();
    m_error = e ? e : "dlopen failed";
  }
  return m_handle != nullptr;
}

void* DynLib::symbol(const char* name) {
  if (!m_handle) return nullptr;
  dlerror();
  void* p = dlsym(m_handle, name);
  if (!p) {
    const char* e = dlerror();
    m_error = e ? e : std::string("symbol not found: ") + name;
  }
  return p;
}

} // namespace dcukit::util
