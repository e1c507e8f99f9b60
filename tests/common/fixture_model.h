#pragma once
// A model config from tests/fixtures/models, for the plan tests: a failure to read it fails the
// test that asked and leaves an empty config.
#include <gtest/gtest.h>

#include <string>

#include "plan/model_config.h"

namespace testutil {

inline dcukit::plan::ModelConfig fixture_model(const std::string& name) {
  auto m = dcukit::plan::load_model_config(std::string(DCUKIT_FIXTURES) + "/models/" + name);
  EXPECT_TRUE(m.ok()) << name << ": " << (m.ok() ? "" : m.error().message);
  return m.ok() ? *m : dcukit::plan::ModelConfig{};
}

}  // namespace testutil
