// doctor's support bundles: the tar and gzip both ways, safe extraction, secrets removed, a bundle
// of this host read back offline, and a bundle of the fake DCU host giving the findings --root gives.
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "doctor/archive.h"
#include "doctor/bundle.h"
#include "doctor/context.h"
#include "test_doctor_fake_host.h"
#include "util/process.h"

using namespace doctor_test;
using dcukit::util::FileType;

namespace {

ArchiveEntry entry(std::string path, FileType type, std::string content = {}, std::string target = {}) {
  ArchiveEntry e;
  e.path = std::move(path);
  e.type = type;
  e.content = std::move(content);
  e.target = std::move(target);
  e.mode = type == FileType::directory ? 0755 : 0644;
  return e;
}

/// The fake DCU host as a bundle would carry it: host/ from the tree, dcukit/ with the given metadata.
std::vector<ArchiveEntry> bundle_of(const FakeHost& h, const nlohmann::json& identity, const nlohmann::json& python) {
  std::vector<ArchiveEntry> out;
  for (auto it = fs::recursive_directory_iterator(h.root()); it != fs::recursive_directory_iterator(); ++it) {
    const std::string rel = "host/" + it->path().lexically_relative(h.root()).string();  // links not followed
    if (it->is_symlink()) {
      out.push_back(entry(rel, FileType::symlink, {}, fs::read_symlink(it->path()).string()));
    } else if (it->is_directory()) {
      out.push_back(entry(rel, FileType::directory));
    } else if (rel.rfind("host/dev/", 0) == 0) {
      ArchiveEntry d = entry(rel, FileType::char_device);
      d.mode = 0660;
      d.gid = 109;  // render
      out.push_back(d);
    } else {
      std::ifstream in(it->path(), std::ios::binary);
      ArchiveEntry f = entry(rel, FileType::regular, std::string(std::istreambuf_iterator<char>(in), {}));
      f.mode = static_cast<unsigned>(it->status().permissions()) & 07777;  // hipcc stays executable
      out.push_back(f);
    }
  }
  nlohmann::json env = h.env;
  out.push_back(entry("dcukit/environment.json", FileType::regular, env.dump()));
  out.push_back(entry("dcukit/identity.json", FileType::regular, identity.dump()));
  out.push_back(entry("dcukit/python.json", FileType::regular, python.dump()));
  return out;
}

}  // namespace

TEST(DoctorArchive, TarRoundTripWithLongNamesLinksAndDevices) {
  const std::string deep =
      "host/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/0000:02:00.0/0000:03:00.0/0000:04:00.0/"
      "0000:05:00.0/0000:06:00.0/0000:07:00.0/0000:08:00.0/0000:09:00.0/0000:0a:00.0/0000:0b:00.0/"
      "0000:0c:00.0/0000:0d:00.0/0000:0e:00.0/0000:0f:00.0/"
      "hwmon/hwmon3/temp1_input";
  ASSERT_GT(deep.size(), 255u);
  std::vector<ArchiveEntry> in{entry("host", FileType::directory),
                               entry(deep, FileType::regular, "57000\n"),
                               entry("host/bin.dat", FileType::regular, std::string("a\0b\0c", 5)),
                               entry("host/empty", FileType::regular),
                               entry("host/opt/dtk", FileType::symlink, {}, "dtk-25.04.4"),
                               entry("host/long-link", FileType::symlink, {}, std::string(150, 'x'))};
  ArchiveEntry dev = entry("host/dev/kfd", FileType::char_device);
  dev.mode = 0660;
  dev.uid = 0;
  dev.gid = 109;
  dev.dev_major = 234;
  in.push_back(dev);
  auto gz = tar_gz_bytes(in);
  ASSERT_TRUE(gz.ok()) << gz.error().message;
  EXPECT_EQ(static_cast<unsigned char>((*gz)[0]), 0x1f);  // gzip's magic
  EXPECT_EQ(static_cast<unsigned char>((*gz)[1]), 0x8b);
  auto out = parse_tar_gz(*gz);
  ASSERT_TRUE(out.ok()) << out.error().message;
  ASSERT_EQ(out->size(), in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    EXPECT_EQ((*out)[i].path, in[i].path) << i;
    EXPECT_EQ((*out)[i].type, in[i].type) << i;
    EXPECT_EQ((*out)[i].content, in[i].content) << i;
    EXPECT_EQ((*out)[i].target, in[i].target) << i;
  }
  EXPECT_EQ((*out)[6].mode, 0660u);
  EXPECT_EQ((*out)[6].gid, 109u);
  EXPECT_EQ((*out)[6].dev_major, 234u);

  EXPECT_FALSE(parse_tar_gz(*gz, ArchiveLimits{.max_total = 100}).ok());  // past the limit: refused
  EXPECT_FALSE(parse_tar_gz("not gzip at all").ok());
  EXPECT_FALSE(parse_tar_gz(gz->substr(0, gz->size() / 2)).ok());  // truncated
  std::string damaged = *gz;
  damaged[damaged.size() / 2] ^= 0x55;
  EXPECT_FALSE(parse_tar_gz(damaged).ok());
}

// Bundles written by GNU tar read back: the format is tar's, not ours.
TEST(DoctorArchive, ReadsWhatGnuTarWrites) {
  auto tar = dcukit::util::find_program("tar");
  if (!tar) GTEST_SKIP() << "tar is not installed; skipping";
  testutil::TempDir d("gnutar");
  d.write("src/host/etc/hostname", "dcu01\n");
  ASSERT_EQ(::symlink("hostname", d.file("src/host/etc/name").c_str()), 0);
  auto r = dcukit::util::run_capture({*tar, "-czf", d.file("b.tar.gz"), "-C", d.file("src"), "host"}, std::chrono::seconds(60));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status.code, 0) << r->err;
  auto entries = read_tar_gz(d.file("b.tar.gz"));
  ASSERT_TRUE(entries.ok()) << entries.error().message;
  bool file = false, link = false;
  for (const auto& e : *entries) {
    file = file || (e.path == "host/etc/hostname" && e.content == "dcu01\n");
    link = link || (e.path == "host/etc/name" && e.type == FileType::symlink && e.target == "hostname");
  }
  EXPECT_TRUE(file);
  EXPECT_TRUE(link);
}

TEST(DoctorArchive, ExtractionRefusesPathsThatLeaveTheFolder) {
  testutil::TempDir d("extract");
  for (const char* p : {"../escape", "/etc/escape", "host/../../escape", "host/./x"}) {
    auto s = extract({entry(p, FileType::regular, "x")}, d.path());
    EXPECT_FALSE(s.ok()) << p;
  }
  // A symlink the archive made is never written through.
  auto s = extract({entry("host/link", FileType::symlink, {}, d.path() + "/outside"),
                    entry("host/link/file", FileType::regular, "x")},
                   d.path());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("passes through a link"), std::string::npos);
  EXPECT_FALSE(fs::exists(d.file("outside/file")));
  ArchiveEntry setuid = entry("ok/tool", FileType::regular, "#!/bin/sh\n");
  setuid.mode = 04755;
  ASSERT_TRUE(extract({setuid, entry("ok/dev/kfd", FileType::char_device)}, d.path()).ok());
  struct stat st {};
  ASSERT_EQ(::stat(d.file("ok/tool").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);  // never set-id
  EXPECT_TRUE(fs::is_regular_file(d.file("ok/dev/kfd")));
}

TEST(DoctorBundle, ThisHostRoundTrip) {
  testutil::TempDir d("bundle");
  Request o;
  o.bundle = d.file("host.tar.gz");
  o.env = live_environment();
  o.env["DCUKIT_TEST_TOKEN"] = "do-not-leak";
  o.env["DCUKIT_TEST_URL"] = "https://someone:hunter2@example.com/x";
  o.python_probe = false;
  o.smoke = false;
  o.tool_timeout = std::chrono::milliseconds(5000);
  auto written = run(o);
  ASSERT_TRUE(written.ok()) << written.error().message;
  ASSERT_TRUE(written->bundle.has_value());
  EXPECT_EQ(written->bundle->error, "");
  ASSERT_TRUE(fs::exists(o.bundle));
  EXPECT_GT(written->bundle->files, 10u);
  EXPECT_EQ(fs::status(o.bundle).permissions() & (fs::perms::group_all | fs::perms::others_all), fs::perms::none)
      << "a bundle holds a host's logs and environment: 0600";

  auto entries = read_tar_gz(o.bundle);
  ASSERT_TRUE(entries.ok()) << entries.error().message;
  std::map<std::string, const ArchiveEntry*> by_path;
  for (const auto& e : *entries) by_path[e.path] = &e;
  for (const char* p : {"dcukit/doctor.json", "dcukit/doctor.txt", "dcukit/telemetry.json", "dcukit/environment.json",
                        "dcukit/identity.json", "dcukit/python.json", "dcukit/tools.json", "dcukit/README.txt",
                        "host/proc/meminfo", "host/proc/cpuinfo"})
    EXPECT_TRUE(by_path.count(p)) << p;
  const std::string env = by_path.at("dcukit/environment.json")->content;
  EXPECT_EQ(env.find("do-not-leak"), std::string::npos);
  EXPECT_EQ(env.find("hunter2"), std::string::npos);
  EXPECT_NE(env.find("https://someone:***@example.com/x"), std::string::npos);
  for (const auto& e : *entries) EXPECT_EQ(e.content.find("hunter2"), std::string::npos) << e.path;

  Request base;
  base.python_probe = true;
  base.from_bundle = o.bundle;
  auto offline = run(base);
  ASSERT_TRUE(offline.ok()) << offline.error().message;
  EXPECT_EQ(offline->root, o.bundle);
  for (const char* id : {"host.os", "host.kernel", "host.cpu", "host.numa", "host.memlock", "host.iommu", "driver.gpus",
                         "toolkit.installs", "toolkit.compiler", "toolkit.runtime", "placement.affinity"}) {
    const Finding* live = find(*written, id);
    const Finding* back = find(*offline, id);
    ASSERT_NE(live, nullptr) << id;
    ASSERT_NE(back, nullptr) << id << "\n" << dump(*offline);
    EXPECT_EQ(back->status, live->status) << id << "\n" << dump(*offline);
    EXPECT_EQ(back->summary, live->summary) << id;
  }
  EXPECT_EQ(status(*offline, "host.memory"), status(*written, "host.memory"));
  EXPECT_EQ(find(*offline, "smoke.compute")->summary, "the host tree is not this host: its devices cannot be run");
  EXPECT_EQ(status(*offline, "python.interpreter"), "skip");
  // Nothing of the unpacked folder is left behind under $TMPDIR.
}

TEST(DoctorBundle, AFakeDcuHostReadsAsItsTree) {
  FakeHost h;
  const auto tree = h.run();
  testutil::TempDir d("bundle");
  const std::string answer =
      R"({"python": "3.10.12", "torch": {"version": "2.4.1+das.opt1.dtk25044"}, "torch_cuda": null, "torch_hip": "6.2.41134", "cuda_available": true, "devices": [{"index": 0, "name": "K100_AI", "arch": "gfx928"}], "bf16": true, "packages": []})";
  const nlohmann::json member = {{"uid", 1000},
                                 {"gids", {1000, 109}},
                                 {"user", "alice"},
                                 {"mem_policy", {{"mode", "default"}, {"nodes", nlohmann::json::array()}}}};
  ASSERT_TRUE(write_tar_gz(d.file("dcu.tar.gz"),
                           bundle_of(h, member, {{"interpreter", "/venv/bin/python3"}, {"answer", answer}}))
                  .ok());
  auto r = run_from_bundle(d.file("dcu.tar.gz"), Request{});
  ASSERT_TRUE(r.ok()) << r.error().message;
  for (const auto& f : tree.findings) {
    if (f.category == Category::python || f.category == Category::smoke || f.id == "driver.nodes" ||
        f.id == "driver.groups")
      continue;
    const Finding* back = find(*r, f.id, f.subject);
    ASSERT_NE(back, nullptr) << f.id << " " << f.subject;
    EXPECT_EQ(back->status, f.status) << f.id << " " << f.subject << "\n" << dump(*r);
    EXPECT_EQ(back->summary, f.summary) << f.id;
  }
  EXPECT_EQ(status(*r, "toolkit.mismatch"), "fail");
  EXPECT_EQ(status(*r, "driver.nodes"), "ok") << dump(*r);  // mode 0660, group render(109), alice in it
  EXPECT_EQ(find(*r, "python.interpreter")->summary, "Python 3.10.12 at /venv/bin/python3");
  EXPECT_EQ(find(*r, "python.torch")->summary, "torch 2.4.1+das.opt1.dtk25044 (DTK build)");
  EXPECT_EQ(find(*r, "smoke.compute")->summary, "the host tree is not this host: its devices cannot be run");

  // The recorded owners decide access: without the render group the nodes are closed to alice.
  const nlohmann::json outsider = {{"uid", 1000}, {"gids", {1000}}, {"user", "alice"}};
  ASSERT_TRUE(
      write_tar_gz(d.file("dcu2.tar.gz"), bundle_of(h, outsider, {{"interpreter", "python3"}, {"error", "timed out"}}))
          .ok());
  r = run_from_bundle(d.file("dcu2.tar.gz"), Request{});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(status(*r, "driver.nodes"), "fail") << dump(*r);
  EXPECT_EQ(status(*r, "driver.groups"), "warn");
  EXPECT_EQ(status(*r, "python.interpreter"), "fail");
  EXPECT_EQ(status(*r, "placement.mempolicy"), "skip");
}

TEST(DoctorBundle, WhatIsNotABundleIsNamed) {
  testutil::TempDir d("bundle");
  ASSERT_TRUE(write_tar_gz(d.file("other.tar.gz"), {entry("README", FileType::regular, "hi")}).ok());
  auto r = run_from_bundle(d.file("other.tar.gz"), Request{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("not a dcukit bundle"), std::string::npos) << r.error().message;
  d.write("plain.tar.gz", "plain text");
  r = run_from_bundle(d.file("plain.tar.gz"), Request{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("not a .tar.gz"), std::string::npos) << r.error().message;
  ASSERT_TRUE(write_tar_gz(d.file("evil.tar.gz"), {entry("host/../../evil", FileType::regular, "x")}).ok());
  r = run_from_bundle(d.file("evil.tar.gz"), Request{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("refusing"), std::string::npos) << r.error().message;
}

TEST(DoctorArchive, AnArchiveThatUnpacksPastItsLimitIsRefusedBeforeItIsHeld) {
  // 2.3 MB of gzip once unpacked to 1.55 GB of memory; the default limit is 128 MiB.
  testutil::TempDir d("bomb");
  ASSERT_TRUE(write_tar_gz(d.file("bomb.tar.gz"), {entry("host/zeros", FileType::regular, std::string(3u << 20, '\0'))})
                  .ok());
  EXPECT_LT(fs::file_size(d.file("bomb.tar.gz")), 64u * 1024) << "compresses like a bomb";
  auto r = read_tar_gz(d.file("bomb.tar.gz"), ArchiveLimits{.max_total = 1u << 20});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("unpacks to more than 1 MiB"), std::string::npos) << r.error().message;
  EXPECT_EQ(ArchiveLimits{}.max_total, 128u << 20);
  std::vector<ArchiveEntry> many;
  for (int i = 0; i < 20; ++i) many.push_back(entry("host/f" + std::to_string(i), FileType::regular, "x"));
  ASSERT_TRUE(write_tar_gz(d.file("many.tar.gz"), many).ok());
  auto m = read_tar_gz(d.file("many.tar.gz"), ArchiveLimits{.max_entries = 10});
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("more than 10 entries"), std::string::npos) << m.error().message;
}

TEST(DoctorBundle, AHostFolderThatIsALinkIsRefusedNotReadAsThisHost) {
  testutil::TempDir d("bundle");
  // host -> / would make every check read the analyst's machine; dcukit/identity.json ->
  // /etc/passwd would read one of its files.
  const std::vector<std::vector<ArchiveEntry>> bundles{
      {entry("host", FileType::symlink, {}, "/"), entry("dcukit/environment.json", FileType::regular, "{}")},
      {entry("host/etc/hostname", FileType::regular, "dcu01\n"),
       entry("dcukit/identity.json", FileType::symlink, {}, "/etc/passwd")},
      {entry("host/", FileType::symlink, {}, ".."), entry("dcukit/environment.json", FileType::regular, "{}")}};
  int n = 0;
  for (const auto& b : bundles) {
    const std::string file = d.file("linked" + std::to_string(n++) + ".tar.gz");
    ASSERT_TRUE(write_tar_gz(file, b).ok());
    auto r = run_from_bundle(file, Request{});
    ASSERT_FALSE(r.ok()) << b[0].path;
    EXPECT_NE(r.error().message.find("refusing the member"), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find("link outside host/"), std::string::npos) << r.error().message;
  }
  // Links within host/ stay allowed: util::Root follows them inside the tree.
  ASSERT_TRUE(write_tar_gz(d.file("inner.tar.gz"), {entry("host/etc/hostname", FileType::regular, "dcu01\n"),
                                                     entry("host/etc/alias", FileType::symlink, {}, "/etc/hostname"),
                                                     entry("dcukit/environment.json", FileType::regular, "{}")})
                  .ok());
  auto inner = run_from_bundle(d.file("inner.tar.gz"), Request{});
  EXPECT_TRUE(inner.ok()) << inner.error().message;
}

// A bundle of an NVIDIA host whose sysfs has no link files (a container): the device figures come
// from the bundle's own `nvidia-smi -q`, a real capture of an H100, read by telemetry's parser.
TEST(DoctorBundle, AnH100BundleReadsItsNvidiaSmiCapture) {
  DCUKIT_REQUIRE_SHARED(samples, "samples/nvidia-smi");
  FakeHost h("");
  const std::string dev = "/sys/devices/pci0000:00/0000:00:09.0";
  h.write(dev + "/class", "0x030200\n");
  h.write(dev + "/vendor", "0x10de\n");
  h.write(dev + "/device", "0x2330\n");
  h.write(dev + "/numa_node", "0\n");
  h.link("/sys/bus/pci/devices/0000:00:09.0", "../../../devices/pci0000:00/0000:00:09.0");
  h.link(dev + "/driver", "../../../bus/pci/drivers/nvidia");
  h.write("/proc/driver/nvidia/version", "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15\n");
  std::ifstream in(samples + "/q-h100-80gb-idle.txt", std::ios::binary);
  const std::string q(std::istreambuf_iterator<char>(in), {});
  ASSERT_FALSE(q.empty());
  testutil::TempDir d("bundle");
  auto entries = bundle_of(h, {{"uid", 1000}, {"gids", {1000}}, {"user", "alice"}}, {{"interpreter", "python3"}});
  entries.push_back(entry("dcukit/tools/nvidia-smi-q.txt", FileType::regular, q));
  ASSERT_TRUE(write_tar_gz(d.file("h100.tar.gz"), entries).ok());

  Request base;
  base.from_bundle = d.file("h100.tar.gz");
  auto r = run(base);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->telemetry.devices.size(), 1u) << dump(*r);
  const auto* inv = find(*r, "devices.inventory", "0000:00:09.0");
  ASSERT_NE(inv, nullptr) << dump(*r);
  EXPECT_NE(inv->summary.find("NVIDIA H100 80GB HBM3"), std::string::npos) << inv->summary;
  EXPECT_NE(inv->summary.find("Gen5 x16"), std::string::npos) << inv->summary;
  const auto* link = find(*r, "devices.pcie_link", "0000:00:09.0");
  ASSERT_NE(link, nullptr);
  EXPECT_EQ(link->status, Verdict::ok) << dump(*r);
  EXPECT_NE(link->evidence.at(0).find("(nvidia-smi)"), std::string::npos) << link->evidence.at(0);
  const auto* ecc = find(*r, "devices.ecc", "0000:00:09.0");
  ASSERT_NE(ecc, nullptr);
  EXPECT_EQ(ecc->status, Verdict::ok) << dump(*r);  // the capture's volatile DRAM counts are 0
}

// A one-card DCU host's bundle with the real hy-smi table of a one-card host: the temperature and
// power that sysfs lacks come from the capture, paired with the sysfs card by position.
TEST(DoctorBundle, ADcuBundleReadsItsHySmiCapture) {
  DCUKIT_REQUIRE_SHARED(samples, "samples/hy-smi");
  FakeHost h;
  h.remove("/sys/bus/pci/devices/0000:0a:00.0");
  h.remove("/sys/devices/pci0000:00/0000:00:07.1");
  std::ifstream in(samples + "/plain-hcu-1card-400w-dec-enc-mixed-host.txt", std::ios::binary);
  const std::string table(std::istreambuf_iterator<char>(in), {});
  ASSERT_FALSE(table.empty());
  testutil::TempDir d("bundle");
  auto entries = bundle_of(h, {{"uid", 1000}, {"gids", {1000, 109}}, {"user", "alice"}}, {{"interpreter", "python3"}});
  entries.push_back(entry("dcukit/tools/hy-smi.txt", FileType::regular, table));
  ASSERT_TRUE(write_tar_gz(d.file("dcu.tar.gz"), entries).ok());

  auto r = run_from_bundle(d.file("dcu.tar.gz"), Request{});
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->telemetry.devices.size(), 1u) << dump(*r);
  const auto& dev = r->telemetry.devices[0];
  EXPECT_EQ(dev.bus_id, "0000:07:00.0");
  EXPECT_EQ(dev.temperature_c, 46.0);
  EXPECT_EQ(dev.power_cap_w, 400.0);
  const auto* inv = find(*r, "devices.inventory", "0000:07:00.0");
  ASSERT_NE(inv, nullptr) << dump(*r);
  EXPECT_NE(dump(*r).find("temperature 46 C (hy-smi)"), std::string::npos) << dump(*r);
  EXPECT_EQ(status(*r, "devices.pcie_link", "0000:07:00.0"), "ok");  // sysfs still gives the link
}
