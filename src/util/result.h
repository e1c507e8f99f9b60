#pragma once
// Result<T> and Status: errors as values, so that nothing below the CLI exits or throws across
// a backend boundary. An Error carries a message that names the input or call and what to do.
#include <string>
#include <utility>
#include <variant>

namespace dcukit {

/// What went wrong, in words a user can act on.
struct Error {
  std::string message;
};

/// A value or an Error (std::expected is C++23; Ubuntu 22.04's compilers lack it).
template <class T>
class [[nodiscard]] Result {
public:
  Result(T value) : m_v(std::move(value)) {}
  Result(Error error) : m_v(std::move(error)) {}
  bool ok() const { return m_v.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(m_v); }
  const T& value() const { return std::get<0>(m_v); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(m_v); }

private:
  std::variant<T, Error> m_v;
};

/// Success or an Error.
class [[nodiscard]] Status {
public:
  Status() = default;
  Status(Error error) : m_error(std::move(error.message)), m_failed(true) {}
  static Status success() { return {}; }
  bool ok() const { return !m_failed; }
  explicit operator bool() const { return ok(); }
  const std::string& message() const { return m_error; }
  Error error() const { return Error{m_error}; }

private:
  std::string m_error;
  bool m_failed = false;
};

} // namespace dcukit
