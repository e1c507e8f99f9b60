#include "exporter/settings.h"

#include "exporter/exporter.h"

namespace dcukit::exporter {
namespace {

Status set_deadline(Request& r, std::string_view v) {
  auto d = util::parse_duration(v);
  if (!d || d->count() <= 0) return Error{"give a positive duration, e.g. 8s"};
  r.deadline = *d;
  return {};
}

Status set_names(Request& r, std::string_view v) {
  auto n = parse_name_set(v);
  if (!n) return Error{"choose dcukit, dcgm or amd"};
  r.names = *n;
  return {};
}

const std::vector<Setting> kSettings = {
    {"listen", "ADDR:PORT",
     "Where /metrics is served (9400 is dcgm-exporter's, 9401 guard's; port 0: any free port)",
     util::set_text<&Request::listen>, util::show_text<&Request::listen>},
    {"listen-any", "", "Allow --listen on an address other hosts can reach", util::set_switch<&Request::listen_any>,
     util::show_switch<&Request::listen_any>},
    {"deadline", "DURATION", "The most a scrape waits for its device reading (under Prometheus' 10s timeout)",
     set_deadline, util::show_duration<&Request::deadline>},
    {"names", "SET",
     "Series names and labels: dcukit (dcukit_gpu_*), dcgm (dcgm-exporter's DCGM_FI_DEV_*) or amd (AMD "
     "device-metrics-exporter's gpu_*), so that their Grafana dashboards work unchanged",
     set_names, [](const Request& r) { return std::string(to_string(r.names)); }},
    {"cluster-name", "NAME", "The cluster_name label of --names amd (AMD's dashboards select on it)",
     util::set_text<&Request::cluster>, util::show_text<&Request::cluster>},
    {"job-mapping-dir", "DIR",
     "dcgm-exporter's job-mapping folder: a file a GPU, named by its index, holding the Slurm job id(s) on it "
     "(a prolog writes it); the series get hpc_job (job_id under --names amd)",
     util::set_text<&Request::job_mapping_dir>, util::show_text<&Request::job_mapping_dir>},
};

}  // namespace

const std::vector<Setting>& settings() {
  return kSettings;
}

Result<Request> resolve_request(Request defaults, const std::string& config_file, const util::Pairs& overrides) {
  auto r = util::apply_settings(kSettings, std::move(defaults), config_file, overrides, "exporter");
  if (!r) return r.error();
  if (auto st = validate(*r); !st) return st.error();
  return r;
}

}  // namespace dcukit::exporter
