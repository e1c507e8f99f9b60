#pragma once
// Thin RAII over libcurl: owned easy and multi handles, header lists, process-wide init, and a
// blocking request for the small calls around a benchmark (health checks, /tokenize, /metrics).
// Nothing here knows about dcukit; the load engine drives the multi interface itself.
#include <curl/curl.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "util/result.h"

namespace dcukit::util {

/// Calls curl_global_init once per process (thread-safe); later calls are free.
void curl_global_once();

/// Deleters so that every curl handle is a unique_ptr.
struct CurlEasyDeleter {
  void operator()(CURL* h) const { curl_easy_cleanup(h); }
};
struct CurlMultiDeleter {
  void operator()(CURLM* h) const { curl_multi_cleanup(h); }
};
struct CurlSlistDeleter {
  void operator()(curl_slist* h) const { curl_slist_free_all(h); }
};
using CurlEasy = std::unique_ptr<CURL, CurlEasyDeleter>;
using CurlMulti = std::unique_ptr<CURLM, CurlMultiDeleter>;

/// An owned curl_slist of "Name: value" header lines.
class HeaderList {
public:
  /// Appends one "Name: value" line.
  void add(const std::string& line);
  /// The list to hand to CURLOPT_HTTPHEADER (null when empty); owned by this object.
  curl_slist* get() const { return m_list.get(); }

private:
  std::unique_ptr<curl_slist, CurlSlistDeleter> m_list;
};

/// How TLS peers are checked: by the system's CA store (the default), by a CA file of the
/// user's (a private CA, a self-signed server), or not at all.
struct Tls {
  bool insecure = false;  ///< skip certificate and host-name checks
  std::string ca_file;    ///< PEM file of CA certificates to trust instead of the system's
  /// Sets these on an easy handle.
  void apply(CURL* h) const;
};

/// A blocking HTTP request's inputs.
struct HttpRequest {
  std::string url;
  std::string method = "GET";  ///< "GET" or "POST"
  std::string body;            ///< sent for POST
  std::vector<std::string> headers;
  std::chrono::milliseconds timeout{10000};
  std::size_t max_body = std::size_t{16} << 20;  ///< a longer reply is an Error, not an allocation
  Tls tls;
};

/// What came back: the status (0 when no response arrived) and the body.
struct HttpResponse {
  long status = 0;
  std::string body;
};

/// Performs one request synchronously. A transport failure (refused, timed out, TLS) is an
/// Error naming the URL and curl's reason; any HTTP status, 4xx and 5xx included, is a response.
Result<HttpResponse> http_request(const HttpRequest& request);

/// The scheme, host and port of a URL with any path, query and trailing slash removed:
/// "http://h:8000/v1/" -> "http://h:8000".
std::string url_origin(const std::string& url);

}  // namespace dcukit::util
