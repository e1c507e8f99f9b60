#include "util/http.h"

#include <mutex>

namespace dcukit::util {
namespace {

std::size_t append_body(char* data, std::size_t size, std::size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
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
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers.get());
  request.tls.apply(h);
  if (request.method == "POST") {
    curl_easy_setopt(h, CURLOPT_POST, 1L);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, request.body.c_str());
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  }
  const CURLcode rc = curl_easy_perform(h);
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
