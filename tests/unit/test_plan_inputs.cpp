// Issue 9: what a model directory can hold that plan must refuse with a message naming the file
// and the field: never an abort, an allocation without bound, a wrapped number or a silent value.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "plan/model_config.h"
#include "plan/safetensors.h"
#include "plan/weights.h"
#include "tempdir.h"

using namespace dcukit::plan;

namespace {

constexpr const char* kBase = R"("hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100,
    "intermediate_size": 128, "torch_dtype": "bfloat16")";

/// parse_model_config of the base config with `extra` fields after it (later keys win).
dcukit::Result<ModelConfig> config_with(const std::string& extra) {
  return parse_model_config("{" + std::string(kBase) + (extra.empty() ? "" : ", " + extra) + "}", "/m/config.json");
}

void expect_error(const dcukit::Result<ModelConfig>& m, const std::string& part) {
  ASSERT_FALSE(m.ok()) << "accepted; expected an error saying " << part;
  EXPECT_NE(m.error().message.find(part), std::string::npos) << m.error().message;
  EXPECT_NE(m.error().message.find("/m/config.json"), std::string::npos) << m.error().message;
}

/// A safetensors file: the 8-byte little-endian length, `header`, then `data` zero bytes.
void write_safetensors(const testutil::TempDir& dir, const std::string& name, const std::string& header,
                       std::size_t data) {
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[static_cast<std::size_t>(i)] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
  dir.write(name, bytes + header + std::string(data, '\0'));
}

dcukit::Result<SafetensorsTotal> read_header(const std::string& header, std::size_t data, std::int64_t layers = 2) {
  testutil::TempDir dir("plan_inputs");
  write_safetensors(dir, "model.safetensors", header, data);
  return read_safetensors(dir.path(), layers);
}

void expect_error(const dcukit::Result<SafetensorsTotal>& t, const std::string& part) {
  ASSERT_FALSE(t.ok()) << "accepted; expected an error saying " << part;
  EXPECT_NE(t.error().message.find(part), std::string::npos) << t.error().message;
  EXPECT_NE(t.error().message.find("model.safetensors"), std::string::npos) << t.error().message;
}

}  // namespace

TEST(PlanInputs, TheBaseConfigPlans) {
  ASSERT_TRUE(config_with("").ok());
}

TEST(PlanInputs, NumbersJsonCannotHoldAreAnErrorNotAnAbort) {
  expect_error(config_with(R"("max_position_embeddings": 1e400)"), "is not valid JSON");
  expect_error(config_with(R"("hidden_size": -1e400)"), "is not valid JSON");
}

TEST(PlanInputs, CountsOutOfRangeAreRefusedBeforeAnyAllocation) {
  expect_error(config_with(R"("num_hidden_layers": 1e12)"),
               "num_hidden_layers is 1000000000000.0; dcukit plan takes a whole number from 0 to 10000");
  expect_error(config_with(R"("num_hidden_layers": 18446744073709551615)"), "num_hidden_layers");
  expect_error(config_with(R"("vocab_size": 2.5)"), "vocab_size is 2.5");
  expect_error(config_with(R"("hidden_size": "4096")"), "hidden_size is \"4096\", not a number");
  expect_error(config_with(R"("intermediate_size": -5)"), "intermediate_size is -5");
}

TEST(PlanInputs, KvHeadsMustBePositiveAndDivideTheHeads) {
  expect_error(config_with(R"("num_key_value_heads": 0)"), "num_key_value_heads is 0 with 4 attention heads");
  expect_error(config_with(R"("num_key_value_heads": -2)"), "num_key_value_heads is -2");
  expect_error(config_with(R"("num_key_value_heads": 3)"), "divide num_attention_heads");
  expect_error(config_with(R"("num_key_value_heads": 8)"), "num_key_value_heads is 8");
  ASSERT_TRUE(config_with(R"("num_key_value_heads": 2)").ok());
}

TEST(PlanInputs, HeadDimMustBePositive) {
  expect_error(config_with(R"("head_dim": 0)"), "the head width is 0");
  expect_error(config_with(R"("head_dim": -128)"), "the head width is -128");
  // Without head_dim, hidden_size / heads: 2 / 4 is 0 channels.
  expect_error(parse_model_config(R"({"hidden_size": 2, "num_hidden_layers": 2, "num_attention_heads": 4,
      "vocab_size": 100, "intermediate_size": 128})",
                                  "/m/config.json"),
               "the head width is 0");
}

TEST(PlanInputs, RopeScalingFactorsBeyondReasonAreRefused) {
  // Today's main turned factor 1e300 into a silent 4096-token limit.
  expect_error(config_with(R"("max_position_embeddings": 4096, "rope_scaling": {"type": "yarn", "factor": 1e300,
      "original_max_position_embeddings": 4096})"),
               "rope_scaling.factor is 1e+300");
  expect_error(config_with(R"("max_position_embeddings": 4096, "rope_scaling": {"type": "yarn", "factor": -4})"),
               "rope_scaling.factor is -4");
  expect_error(config_with(R"("max_position_embeddings": 4096, "rope_scaling": {"type": "yarn", "factor": 1000,
      "original_max_position_embeddings": 1000000})"),
               "beyond the 268435456 dcukit plan takes");
  auto ok = config_with(R"("max_position_embeddings": 4096, "rope_scaling": {"type": "yarn", "factor": 4,
      "original_max_position_embeddings": 4096})");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->max_position_embeddings, 16384);
}

TEST(PlanInputs, AVisionTowerOrRopeTableBeyondAnyCheckpointIsAnErrorNotAWrappedCount) {
  // A pixel shuffle ratio of 1e-200 makes the projector's input infinite; Gemma 3's linear factor on
  // a long context (which does not stretch its context limit), a RoPE table of 2^28 x 1024 rows:
  // both are refused where the weights are counted. The same factor on another model stretches the
  // context limit beyond what plan takes, and the config is refused.
  auto shuffle = config_with(R"("vision_config": {"num_hidden_layers": 2, "hidden_size": 64,
      "pixel_shuffle_ratio": 1e-200, "projector_input_dim": 64, "projector_output_dim": 64, "vision_output_dim": 64})");
  ASSERT_TRUE(shuffle.ok()) << shuffle.error().message;
  auto w = count_weights(*shuffle);
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.error().message.find("beyond the 1 PiB"), std::string::npos) << w.error().message;
  expect_error(config_with(R"("max_position_embeddings": 268435456, "head_dim": 1048576,
      "rope_parameters": {"rope_type": "dynamic", "factor": 1024})"),
               "beyond the 268435456 dcukit plan takes");
  auto rope = config_with(R"("model_type": "gemma3", "max_position_embeddings": 268435456, "head_dim": 1048576,
      "rope_parameters": {"rope_type": "linear", "factor": 1024})");
  ASSERT_TRUE(rope.ok()) << rope.error().message;
  auto r = count_weights(*rope);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("beyond the 1 PiB"), std::string::npos) << r.error().message;
}

TEST(PlanInputs, SafetensorsDtypeOfTheWrongTypeIsAnError) {
  expect_error(read_header(R"({"a.weight": {"dtype": 5, "shape": [2], "data_offsets": [0, 4]}})", 4), "has dtype 5");
  expect_error(read_header(R"({"a.weight": {"dtype": null, "shape": [2], "data_offsets": [0, 4]}})", 4),
               "has dtype null");
  expect_error(read_header(R"({"a.weight": {"shape": [2], "data_offsets": [0, 4]}})", 4), "has dtype missing");
  expect_error(read_header(R"({"a.weight": 7})", 4), "is 7, not an object");
}

TEST(PlanInputs, AHugeLayerIndexIsAnErrorNotAnAbort) {
  expect_error(read_header(R"({"model.layers.99999999999999999999.x": {"dtype": "BF16", "shape": [2],
      "data_offsets": [0, 4]}})",
                           4),
               "layer index that does not fit 64 bits");
  // A large index that fits is a layer beyond the model: left out as multi-token prediction.
  auto mtp =
      read_header(R"({"model.layers.9999999999.x": {"dtype": "BF16", "shape": [2], "data_offsets": [0, 4]}})", 4);
  ASSERT_TRUE(mtp.ok()) << mtp.error().message;
  EXPECT_EQ(mtp->excluded_bytes, 4u);
  EXPECT_EQ(mtp->bytes, 0u);
}

TEST(PlanInputs, SafetensorsShapesAreCheckedAgainstTheirBytes) {
  // 2^120 elements in 2 bytes read as "weights 0.00 GiB", exit 0.
  expect_error(read_header(R"({"a": {"dtype": "BF16", "shape": [1073741824, 1073741824, 1073741824, 1073741824],
                                "data_offsets": [0, 2]}})", 2),
               "does not match its 2 bytes");
  expect_error(read_header(R"({"a": {"dtype": "BF16", "shape": [3], "data_offsets": [0, 4]}})", 4),
               "shape [3] of BF16 does not match its 4 bytes");
  expect_error(read_header(R"({"a": {"dtype": "BF16", "data_offsets": [0, 4]}})", 4), "has no shape");
  expect_error(read_header(R"({"a": {"dtype": "BF16", "shape": [-2], "data_offsets": [0, 4]}})", 4),
               "not a list of whole numbers");
  EXPECT_TRUE(read_header(R"({"a": {"dtype": "F8_E4M3", "shape": [2, 2], "data_offsets": [0, 4]}})", 4).ok());
  EXPECT_TRUE(read_header(R"({"a": {"dtype": "BF16", "shape": [], "data_offsets": [0, 2]}})", 2).ok());  // a scalar
}

TEST(PlanInputs, NestedBracketsInAHeaderAreRefusedBeforeTheyCostMemory) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  expect_error(read_header(R"({"a": )" + deep + "}", 4), "not a JSON object");
}

TEST(PlanInputs, SafetensorsOffsetsAreChecked) {
  // end < start used to underflow to 16 EiB of weights.
  expect_error(read_header(R"({"a": {"dtype": "BF16", "shape": [2], "data_offsets": [8, 4]}})", 8),
               "ends (4) before it starts (8)");
  // Past the end of the file: a cut-off download.
  expect_error(read_header(R"({"a": {"dtype": "BF16", "shape": [2], "data_offsets": [0, 4096]}})", 8),
               "past the 8 the file holds");
  expect_error(read_header(R"({"a": {"dtype": "BF16", "shape": [2], "data_offsets": [-1, 4]}})", 8),
               "no valid data_offsets");
  expect_error(read_header(R"({"a": {"dtype": "BF16", "shape": [2], "data_offsets": [0, 4.5]}})", 8),
               "no valid data_offsets");
  // A header length beyond the file.
  testutil::TempDir dir("plan_inputs");
  dir.write("model.safetensors", std::string("\x10\x00\x00\x00\x00\x00\x00\x00{}", 10));
  expect_error(read_safetensors(dir.path(), 2), "the header says 16 bytes but the file has 2");
}

TEST(PlanInputs, IndexTotalSizeIsAWholePositiveNumberOfBytes) {
  auto check = [](const std::string& total, const std::string& part) {
    auto t =
        parse_index_total_size(R"({"metadata": {"total_size": )" + total + "}}", "/m/model.safetensors.index.json");
    ASSERT_FALSE(t.ok()) << total;
    EXPECT_NE(t.error().message.find(part), std::string::npos) << t.error().message;
  };
  check("-5", "metadata.total_size is -5");
  check("1e30", "metadata.total_size is 1e+30");
  check("0", "metadata.total_size is 0");
  check("\"15231233024\"", "not a number");
  auto ok = parse_index_total_size(R"({"metadata": {"total_size": 15231233024}})", "i");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(**ok, 15231233024u);
  auto none = parse_index_total_size(R"({"weight_map": {}})", "i");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

TEST(PlanInputs, TheConfigHintNeverPointsAtItself) {
  testutil::TempDir dir("plan_inputs");
  // config.json is a folder here: the old hint said "the nearest one is X/config.json: pass --model X" for X itself.
  std::filesystem::create_directories(dir.file("m/config.json"));
  auto m = load_model_config(dir.file("m"));
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().message.find("pass --model " + dir.file("m") + "\n"), std::string::npos);
  EXPECT_EQ(m.error().message.find("the nearest one is " + dir.file("m/config.json")), std::string::npos)
      << m.error().message;
  EXPECT_NE(m.error().message.find("is not a readable file"), std::string::npos) << m.error().message;
  // A real one below is still found.
  dir.write("n/sub/config.json", "{}");
  auto n = load_model_config(dir.file("n"));
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.error().message.find("pass --model " + dir.file("n/sub")), std::string::npos) << n.error().message;
}
