#include "util/http.h"

#include <mutex>

namespace dcukit::util {
namespace {

/// The body so far and its cap: a reply that claims or sends more aborts the transfer.
struct BodySink {
  std::string* body;
  std::size_t max;
  bool over = false;
};

std::size_t append_body(char* data, std::size_t size, std::size_t n, void* user) {
  auto* sink = static_cast<BodySink*>(user);
  if (sink->body->size() + size * n > sink->max) {
    sink->over = true;
    return 0;  // curl stops with CURLE_WRITE_ERROR
  }
  sink->body->append(data, size * n);
  return size * n;
}

}  // namespace

void curl_global_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

void HeaderList::add(const std::string& line) {
  curl_slist* head = curl_slist_append(m_list.get(), line.c_str());
  if (head) {
    (void)m_list.release();
    m_list.reset(head);
  }
}

void Tls::apply(CURL* h) const {
  if (!ca_file.empty()) curl_easy_setopt(h, CURLOPT_CAINFO, ca_file.c_str());
  if (insecure) {
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
  }
}

Result<HttpResponse> http_request(const HttpRequest& request) {
  curl_global_once();
  CurlEasy easy(curl_easy_init());
  if (!easy) return Error{"curl_easy_init failed (out of memory?)"};
  HeaderList headers;
  for (const auto& h : request.headers) headers.add(h);
  HttpResponse response;
  char errbuf[CURL_ERROR_SIZE] = {};
  CURL* h = easy.get();
  curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout.count()));
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, append_body);
  BodySink sink{&response.body, request.max_body};
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(request.max_body));
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers.get());
  request.tls.apply(h);
  if (request.method == "POST") {
    curl_easy_setopt(h, CURLOPT_POST, 1L);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, request.body.c_str());
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  }
  const CURLcode rc = curl_easy_perform(h);
  if (sink.over || rc == CURLE_FILESIZE_EXCEEDED)
    return Error{request.method + " " + request.url + " failed: the reply is larger than " +
                 std::to_string(request.max_body >> 20) + " MiB, far more than this request's answer needs"};
  if (rc != CURLE_OK) {
    return Error{request.method + " " + request.url +
                 " failed: " + (errbuf[0] ? std::string(errbuf) : std::string(curl_easy_strerror(rc)))};
  }
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &response.status);
  return response;
}

std::string url_origin(const std::string& url) {
  const auto scheme = url.find("://");
  const std::size_t host_start = scheme == std::string::npos ? 0 : scheme + 3;
  const auto slash = url.find('/', host_start);
  return slash == std::string::npos ? url : url.substr(0, slash);
}

}  // namespace dcukit::util
