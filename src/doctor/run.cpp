#include "doctor/run.h"

#include <fmt/format.h>

#include <filesystem>
#include <future>
#include <optional>

#include "doctor/bundle.h"
#include "doctor/checks.h"
#include "doctor/context.h"
#include "doctor/smoke.h"
#include "util/files.h"
#include "util/progress.h"

namespace dcukit::doctor {
namespace {

Context gather(const Request& r) {
  Context c;
  c.root = util::Root(r.root);
  c.env = r.env;
  c.offline = r.offline || !c.root.is_host();
  c.identity = r.identity ? *r.identity : live_identity(c.root);
  c.mem_policy = r.mem_policy ? r.mem_policy : (c.offline ? std::nullopt : live_mem_policy());
  c.recorded_stats = r.recorded_stats;
  if (r.record) c.root.record_to(r.record);
  return c;
}

}  // namespace

Report examine(const Request& r) {
  Report report;
  report.run_info = core::collect_run_info("dcukit doctor", r.command);
  report.root = r.root;
  Context c = gather(r);

  // The probe runs while the files are read: importing torch and vLLM takes seconds.
  std::future<Result<stack::PythonStack>> probe;
  std::optional<util::Ticker> probing;  // says the probe's time on stderr while it runs
  if (r.python_output) {
    c.python = stack::parse_probe_output(*r.python_output, r.python.empty() ? "python3" : r.python);
  } else if (r.python_error) {
    c.python = Result<stack::PythonStack>(Error{*r.python_error});
  } else if (!r.python_probe) {
    c.python_skip = "not asked (--no-python or --quick)";
  } else if (!c.root.is_host() && r.python.empty()) {
    c.python_skip = "the host tree is not this host: its Python cannot be run (pass --python to ask an interpreter)";
  } else {
    stack::ProbeOptions o;
    o.interpreter = r.python.empty() ? "python3" : r.python;
    o.search_path = c.getenv("PATH");
    o.timeout = r.python_timeout;
    probe = std::async(std::launch::async, [o] { return stack::probe_python(o); });
    if (r.progress) probing.emplace(*r.progress, "Python probe (" + o.interpreter + ")", r.python_timeout);
  }

  c.scan = scan_gpus(c.root, !c.offline, r.telemetry_timeout, r.captures);
  report.telemetry = c.scan.snapshot;
  c.toolkits = discover_toolkits(c.root, c.env);
  auto& out = report.findings;
  check_host(c, out);
  check_driver(c, out);
  check_toolkits(c, out);
  if (probe.valid()) c.python = probe.get();
  probing.reset();
  if (c.python) {
    report.python.interpreter = c.python->ok() ? (*c.python)->interpreter : (r.python.empty() ? "python3" : r.python);
    if (c.python->ok())
      report.python.answer = (*c.python)->answer;
    else
      report.python.error = c.python->error().message;
  }
  check_python(c, out);
  check_devices(c, out);
  check_placement(c, out);
  check_residue(c, out);

  if (!r.smoke || c.offline) {
    add(out, Category::smoke, "smoke.compute", Verdict::skip,
        !r.smoke ? "not asked (--no-smoke or --quick)" : "the host tree is not this host: its devices cannot be run");
  } else {
    std::optional<util::Ticker> smoking;
    if (r.progress) smoking.emplace(*r.progress, "smoke test", r.smoke_timeout);
    auto smoke = run_smoke(r.smoke_timeout);
    smoking.reset();
    report.device_hung = smoke.hung;
    out.insert(out.end(), smoke.findings.begin(), smoke.findings.end());
  }
  return report;
}

Result<Report> run(const Request& r) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!r.from.empty()) {
    if (!r.bundle.empty() || !r.from_bundle.empty() || r.root != "/")
      return Error{"--from reads a pasted collect_env: it cannot be combined with --bundle, --from-bundle or --root"};
    if (Status s = util::check_readable(r.from, util::kCollectEnvInput); !s)
      return Error{fmt::format("--from: {}; pass a file holding the output of `python -m "
                               "torch.utils.collect_env` or vLLM's `python collect_env.py`",
                               s.message())};
    return run_from_collect_env(r.from, r);
  }
  if (!r.bundle.empty() && !r.from_bundle.empty())
    return Error{"--bundle writes a bundle of this host and --from-bundle reads one: pass one of them"};
  if (!r.bundle.empty() && r.root != "/")
    return Error{"--bundle collects this live host; it cannot be combined with --root"};
  if (!fs::is_directory(r.root, ec))
    return Error{
        fmt::format("--root {}: not a folder; pass the folder that stands for / (with sys/, proc/, etc/)", r.root)};
  if (!r.from_bundle.empty()) {
    if (Status s = util::check_readable(r.from_bundle, util::kBundleInput); !s)
      return Error{fmt::format("--from-bundle: {}; pass a .tar.gz made by dcukit doctor --bundle", s.message())};
    return run_from_bundle(r.from_bundle, r);
  }
  if (!r.bundle.empty()) return write_bundle(r);
  return examine(r);
}

}  // namespace dcukit::doctor
