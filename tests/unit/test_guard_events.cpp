// guard's event stream at each level of detail: -q leaves out the transient probe_failed, -v
// adds probe_passed; the state changes are always there.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "guard/events.h"
#include "tempdir.h"

using namespace dcukit::guard;

namespace {

std::string events_at(EventDetail detail, const testutil::TempDir& dir, const std::string& name) {
  const std::string path = dir.file(name);
  {
    EventLog log;
    EXPECT_TRUE(log.open(path));
    log.set_detail(detail);
    log.emit(EventKind::started, State::starting);
    log.emit(EventKind::probe_passed, State::ready, {{"probe", "health"}});
    log.emit(EventKind::probe_failed, State::ready, {{"probe", "health"}});
    log.emit(EventKind::unhealthy, State::unhealthy);
  }
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST(GuardEvents, DetailChoosesTheProbeEventsOnly) {
  testutil::TempDir dir("guard_events");
  const std::string quiet = events_at(EventDetail::quiet, dir, "q.jsonl");
  const std::string normal = events_at(EventDetail::normal, dir, "n.jsonl");
  const std::string verbose = events_at(EventDetail::verbose, dir, "v.jsonl");
  for (const auto* s : {&quiet, &normal, &verbose}) {
    EXPECT_NE(s->find("\"started\""), std::string::npos) << *s;
    EXPECT_NE(s->find("\"unhealthy\""), std::string::npos) << *s;
  }
  EXPECT_EQ(quiet.find("probe_failed"), std::string::npos) << quiet;
  EXPECT_NE(normal.find("probe_failed"), std::string::npos) << normal;
  EXPECT_EQ(normal.find("probe_passed"), std::string::npos) << normal;
  EXPECT_NE(verbose.find("probe_passed"), std::string::npos) << verbose;
  EXPECT_NE(verbose.find("probe_failed"), std::string::npos) << verbose;
}
