// An https server for dcukit load's TLS test: cpp-httplib's SSLServer with a self-signed
// certificate made at start (an EC key, subjectAltName IP:127.0.0.1), streaming completions at a
// fixed TTFT and ITL. It writes the certificate to --cert-out, so that a client can trust it with
// --cacert, and prints "PORT <n>" when ready. Listens on 127.0.0.1 only.
//
//   dcukit_tls_server --dir DIR [--ttft-ms 20] [--itl-ms 5]
#include <httplib.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

namespace {

struct Freer {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(X509* p) const { X509_free(p); }
  void operator()(FILE* f) const { std::fclose(f); }
};

/// Writes DIR/cert.pem and DIR/key.pem: a self-signed certificate for 127.0.0.1, valid a day.
bool make_certificate(const std::string& dir) {
  std::unique_ptr<EVP_PKEY, Freer> key(EVP_EC_gen("P-256"));
  std::unique_ptr<X509, Freer> cert(X509_new());
  if (!key || !cert) return false;
  X509* x = cert.get();
  X509_set_version(x, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
  X509_gmtime_adj(X509_getm_notBefore(x), -3600);
  X509_gmtime_adj(X509_getm_notAfter(x), 86400);
  X509_set_pubkey(x, key.get());
  X509_NAME* name = X509_get_subject_name(x);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("127.0.0.1"), -1, -1, 0);
  X509_set_issuer_name(x, name);
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, x, x, nullptr, nullptr, 0);
  for (auto [nid, value] :
       {std::pair{NID_subject_alt_name, "IP:127.0.0.1"}, std::pair{NID_basic_constraints, "CA:TRUE"}}) {
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
    if (!ext) return false;
    X509_add_ext(x, ext, -1);
    X509_EXTENSION_free(ext);
  }
  if (X509_sign(x, key.get(), EVP_sha256()) == 0) return false;
  std::unique_ptr<FILE, Freer> c(std::fopen((dir + "/cert.pem").c_str(), "w"));
  std::unique_ptr<FILE, Freer> k(std::fopen((dir + "/key.pem").c_str(), "w"));
  return c && k && PEM_write_X509(c.get(), x) == 1 &&
         PEM_write_PrivateKey(k.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr) == 1;
}

/// The prompt's length as a server counts it: a token-id array's elements, a text's words.
int prompt_tokens(const nlohmann::json& body) {
  if (!body.is_object() || !body.contains("prompt")) return 0;
  const auto& p = body["prompt"];
  if (p.is_array()) return static_cast<int>(p.size());
  if (!p.is_string()) return 0;
  int words = 0;
  bool in_word = false;
  for (const char c : p.get<std::string>()) {
    const bool space = c == ' ' || c == '\n' || c == '\t';
    words += !space && !in_word;
    in_word = !space;
  }
  return words;
}

std::string chunk(const std::string& text, bool last, int tokens, int prompt) {
  nlohmann::json j = {
      {"id", "cmpl-tls"},
      {"object", "text_completion"},
      {"choices",
       {{{"index", 0}, {"text", text}, {"finish_reason", last ? nlohmann::json("length") : nlohmann::json()}}}}};
  std::string out = "data: " + j.dump() + "\n\n";
  if (last) {
    nlohmann::json usage = {{"choices", nlohmann::json::array()},
                            {"usage", {{"prompt_tokens", prompt}, {"completion_tokens", tokens}}}};
    out += "data: " + usage.dump() + "\n\ndata: [DONE]\n\n";
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = ".";
  int ttft_ms = 20, itl_ms = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--dir")
      dir = v;
    else if (k == "--ttft-ms")
      ttft_ms = std::stoi(v);
    else if (k == "--itl-ms")
      itl_ms = std::stoi(v);
    else {
      std::fprintf(stderr, "unknown flag %s\n", k.c_str());
      return 2;
    }
  }
  if (!make_certificate(dir)) {
    std::fprintf(stderr, "cannot make a certificate in %s\n", dir.c_str());
    return 1;
  }
  httplib::SSLServer server((dir + "/cert.pem").c_str(), (dir + "/key.pem").c_str());
  if (!server.is_valid()) {
    std::fprintf(stderr, "SSLServer rejected the certificate\n");
    return 1;
  }
  server.set_tcp_nodelay(true);  // as uvicorn does: no Nagle delay between small SSE writes
  server.Get("/health", [](const httplib::Request&, httplib::Response& res) { res.set_content("", "text/plain"); });
  server.Get("/v1/models", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(R"({"object":"list","data":[{"id":"tls-fake","object":"model"}]})", "application/json");
  });
  server.Post("/v1/completions", [=](const httplib::Request& req, httplib::Response& res) {
    const auto body = nlohmann::json::parse(req.body, nullptr, false);
    const int tokens = body.is_object() ? body.value("max_tokens", 8) : 8;
    const int prompt = prompt_tokens(body);
    auto sent = std::make_shared<int>(0);
    res.set_chunked_content_provider("text/event-stream", [=](std::size_t, httplib::DataSink& sink) {
      std::this_thread::sleep_for(std::chrono::milliseconds(*sent == 0 ? ttft_ms : itl_ms));
      const std::string out = chunk("tok ", *sent + 1 == tokens, tokens, prompt);
      sink.write(out.data(), out.size());
      if (++*sent == tokens) sink.done();
      return true;
    });
  });
  const int port = server.bind_to_any_port("127.0.0.1");
  if (port <= 0) return 1;
  std::printf("PORT %d\n", port);
  std::fflush(stdout);
  return server.listen_after_bind() ? 0 : 1;
}
