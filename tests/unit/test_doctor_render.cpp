// doctor's JSON both ways: to_json writes the report, from_json reads it back (a bundle's
// doctor.json, a report a program kept), finding for finding.
#include <gtest/gtest.h>

#include "doctor/render.h"
#include "util/json_text.h"

using namespace dcukit::doctor;

TEST(DoctorRender, AReportSurvivesItsJson) {
  Report r;
  r.root = "/tmp/host";
  Finding a;
  a.id = "driver.loaded";
  a.category = Category::driver;
  a.status = Verdict::ok;
  a.summary = "hycu 6.3.28 is loaded";
  a.evidence = {"/sys/module/hycu/version: 6.3.28"};
  Finding b;
  b.id = "python.torch";
  b.category = Category::python;
  b.status = Verdict::fail;
  b.subject = "/venv/bin/python3";
  b.summary = "a CUDA build of torch on a Hygon DCU host";
  b.why = "it cannot see the DCUs";
  b.fix = "pip install torch from the DTK wheels";
  r.findings = {a, b};
  const auto back = from_json(dcukit::util::json_document(to_json(r)));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->root, r.root);
  ASSERT_EQ(back->findings.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& x = back->findings[i];
    const auto& y = r.findings[i];
    EXPECT_EQ(x.id, y.id);
    EXPECT_EQ(x.category, y.category);
    EXPECT_EQ(x.status, y.status);
    EXPECT_EQ(x.subject, y.subject);
    EXPECT_EQ(x.summary, y.summary);
    EXPECT_EQ(x.evidence, y.evidence);
    EXPECT_EQ(x.why, y.why);
    EXPECT_EQ(x.fix, y.fix);
  }
  EXPECT_EQ(back->summary().fail, 1);
  EXPECT_FALSE(from_json("{\"run_info\": {}}")) << "no findings: not a doctor report";
  EXPECT_FALSE(from_json("not json"));
}
