// The histogram on the harness's tuner: its space holds only points this
// device runs, each counting exactly; the defaults follow one rule per kind
// of device; `--tune --small` stores a winner that the next plain run at
// that pixel count uses; a plain run at an untuned size says how to tune
// it; bad --tune options are one line and exit 2.
#include "tests/catch.hpp"

#include <cstdlib>
#include <filesystem>
#include <set>

#include "common/machinery/tuner.hpp"
#include "common/machinery/tuning.hpp"
#include "histogram/counts.hpp"
#include "histogram/tests/support.hpp"
#include "histogram/tuning.hpp"

using namespace conv::histogram;
using conv::DeviceFacts;
using conv::TunePoint;

namespace {

using conv::test::ScratchCache;


DeviceFacts gpu_like(DeviceFacts facts) {
  facts.is_gpu = true;
  facts.local_mem_bytes = 48 * 1024;  // what OpenCL offers on NVIDIA's GPUs
  facts.max_work_group = 1024;
  facts.max_work_item_sizes = {1024, 1024, 64};
  return facts;
}

void expect_error(const test::Outcome& r, int status, const std::string& needle) {
  INFO("stderr: " << r.err);
  CHECK(r.status == status);
  CHECK(r.err_lines() == 1);
  CHECK_THAT(r.err, ContainsText(needle));
}

}  // namespace

TEST_CASE("histogram tuning: every point of the small space counts exactly", "[histogram][tuning]") {
  std::mt19937 rng(test::run_seed() + 39);
  const HistogramTunable t;
  // No multiple of any chunk or work-group.
  const RgbImage image = test::random_image(301, 97, rng);
  const Counts expected = serial_count(image);
  const auto problem = tune_problem_of(image.pixels());
  const auto space = conv::tune_space(t, test::facts(), problem, true);
  REQUIRE(space.size() >= 4);
  CHECK(space.front() == t.tune_defaults(test::facts(), problem));
  std::set<std::string> variants;
  for (const TunePoint& p : space) {
    INFO(conv::point_text(t, p) << "; " << test::seed_note());
    CHECK(t.tune_ruled_out(test::facts(), problem, p).empty());
    variants.insert(p.at("variant"));
    const Chosen c = chosen(p);
    CHECK(describe_difference(run_variant(test::device(), image, *c.variant, c.settings, 1, 0).counts, expected) ==
          "");
  }
  CHECK(variants.size() >= 3);
}

TEST_CASE("histogram tuning: the full space holds only what the device allows, defaults first",
          "[histogram][tuning]") {
  const HistogramTunable t;
  for (const DeviceFacts& facts : {test::facts(), gpu_like(test::facts())}) {
    const auto problem = tune_problem_of(7728 * 4354);
    const auto space = conv::tune_space(t, facts, problem);
    REQUIRE(!space.empty());
    CHECK(space.front() == t.tune_defaults(facts, problem));
    std::set<std::string> variants;
    for (const TunePoint& p : space) {
      INFO(conv::point_text(t, p));
      CHECK(t.tune_ruled_out(facts, problem, p).empty());
      CHECK(std::stoul(p.at("wg")) <= (facts.max_work_group ? facts.max_work_group : 1024));
      if (p.at("variant") == "device-merge") CHECK(std::stoul(p.at("chunk")) >= 1024);
      variants.insert(p.at("variant"));
      // Each point's text reads back.
      const auto back = conv::parse_tune_point(t, conv::point_text(t, p));
      REQUIRE(back);
      CHECK(*back == p);
    }
    CHECK(variants.size() == tuned_variants().size());
    CHECK(space.size() > 100);
  }
}

TEST_CASE("histogram tuning: the defaults are one rule per kind of device", "[histogram][tuning]") {
  const HistogramTunable t;
  DeviceFacts cpu = test::facts();
  cpu.is_gpu = false;
  cpu.max_work_group = 4096;
  cpu.max_work_item_sizes = {4096, 4096, 4096};
  const DeviceFacts gpu = gpu_like(cpu);
  for (long long pixels : {1LL, 256LL, 1000003LL, 7728LL * 4354}) {
    INFO(pixels << " pixels");
    CHECK(conv::point_text(t, t.tune_defaults(cpu, tune_problem_of(pixels))) == "variant=device-merge chunk=1024 wg=64");
    CHECK(conv::point_text(t, t.tune_defaults(gpu, tune_problem_of(pixels))) == "variant=loads-ahead chunk=256 wg=256");
  }
  // A device with a smaller work-group limit gets the work-group halved until it fits.
  DeviceFacts small = gpu;
  small.max_work_group = 128;
  CHECK(t.tune_defaults(small, tune_problem_of(100)).at("wg") == "128");
  CHECK(t.tune_work_groups(small, tune_problem_of(100)) == std::vector<std::string>{"32", "64", "128"});
}

TEST_CASE("histogram tuning: what rules a point out says why", "[histogram][tuning]") {
  const HistogramTunable t;
  const DeviceFacts gpu = gpu_like(test::facts());
  const auto problem = tune_problem_of(1 << 20);
  auto why = [&](const std::string& variant, const std::string& chunk, const std::string& wg,
                 const DeviceFacts& facts) {
    return t.tune_ruled_out(facts, problem, {{"variant", variant}, {"chunk", chunk}, {"wg", wg}});
  };
  CHECK(why("loads-ahead", "256", "256", gpu).empty());
  CHECK_THAT(why("loads-ahead", "256", "2048", gpu), ContainsText("work-group limit"));
  CHECK_THAT(why("lane-copies", "8192", "1024", gpu), ContainsText("16-bit local counter"));
  CHECK_THAT(why("device-merge", "512", "64", gpu), ContainsText("outweigh the image"));
  CHECK_THAT(why("global-partials", "1024", "64", gpu), ContainsText("not one the tuner searches"));
  CHECK_THAT(why("local-atomic", "0", "64", gpu), ContainsText("chunk"));
  DeviceFacts tiny = gpu;
  tiny.local_mem_bytes = 1024;
  CHECK_THAT(why("local-atomic", "128", "256", tiny), ContainsText("local memory"));
}

TEST_CASE("histogram --variant auto: the values given win, the rest resolves", "[histogram][tuning]") {
  ScratchCache cache("auto-resolve");
  const DeviceFacts& facts = test::facts();
  Settings given;
  const AutoChoice plain = resolve_auto(facts, "noise:37x29", 37 * 29, given);
  CHECK(plain.chosen.variant->name == HistogramTunable().tune_defaults(facts, tune_problem_of(37 * 29)).at("variant"));
  CHECK_THAT(plain.origin, ContainsText("documented defaults") &&
                               ContainsText("to tune pixels=1073: build/bin/histogram --tune --image noise:37x29"));
  given.chunk = 4096;
  const AutoChoice with_chunk = resolve_auto(facts, "noise:37x29", 37 * 29, given);
  CHECK(with_chunk.chosen.settings.chunk == 4096);
  CHECK_THAT(with_chunk.origin, ContainsText("chunk given"));
  // A stored winner for this pixel count is what auto runs.
  const HistogramTunable t;
  conv::StoredWinner w{{{"variant", "local-words"}, {"chunk", "128"}, {"wg", "64"}}, 1.0, 2.0};
  REQUIRE(conv::store_winner(t, facts, tune_problem_of(37 * 29), w));
  const AutoChoice tuned = resolve_auto(facts, "noise:37x29", 37 * 29, Settings());
  CHECK(tuned.chosen.variant->name == "local-words");
  CHECK(tuned.chosen.settings.chunk == 128);
  CHECK(tuned.chosen.settings.wg == 64);
  CHECK_THAT(tuned.origin, ContainsText("tuned winner"));
  // Another pixel count is not tuned, and says so.
  CHECK_THAT(resolve_auto(facts, "noise:38x29", 38 * 29, Settings()).origin,
             ContainsText("tuned here: pixels=1073") && ContainsText("--tune --image noise:38x29"));
}

TEST_CASE("histogram --tune --small stores a winner that the next plain run uses", "[histogram][tuning][cli]") {
  const std::string cache = test::scratch_dir() + "/tune-cli";
  std::filesystem::remove_all(cache);
  const test::Env env = {{"XDG_CACHE_HOME", cache}};
  const std::string csv = test::scratch_dir() + "/tune-cli.csv";
  const auto r = test::run_histogram({"--tune", "--small", "--image", "noise:123x45", "--budget", "1", "--reps", "1",
                                      "--output", csv},
                                     env);
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, ContainsText("| variant | chunk | wg |") && ContainsText("Stored in"));
  CHECK_THAT(r.err, ContainsText("histogram --tune: pixels=5535:"));
  CHECK_THAT(test::read_file(csv), ContainsText(",call,noise:123x45,123,45,"));
  const std::string store = test::read_file(cache + "/clconv/tuned.txt");
  REQUIRE_THAT(store, ContainsText("histogram\t") && ContainsText("\tpixels=5535\t"));
  // The stored point, as the store holds it: "variant=... chunk=... wg=...".
  const auto at = store.find("\tpixels=5535\t") + std::string("\tpixels=5535\t").size();
  const std::string point = store.substr(at, store.find('\t', at) - at);
  REQUIRE_THAT(point, ContainsText("variant="));

  // Another image of as many pixels: the stored winner, named as such.
  const auto plain = test::run_histogram({"--image", "synthetic:41x135", "--reps", "1", "--verify"}, env);
  INFO("plain stdout: " << plain.out << "\nstderr: " << plain.err);
  CHECK(plain.status == 0);
  CHECK_THAT(plain.out, ContainsText("auto on synthetic:41x135: " + point));
  CHECK_THAT(plain.out, ContainsText("tuned.txt") && !ContainsText("to tune"));
  CHECK_THAT(plain.err, ContainsText("verify: auto (") && ContainsText("OK"));
}

TEST_CASE("histogram: a plain run at an untuned size says how to tune it", "[histogram][tuning][cli]") {
  const std::string cache = test::scratch_dir() + "/untuned";
  std::filesystem::remove_all(cache);
  const auto r = test::run_histogram({"--image", "noise:37x29", "--reps", "1"}, {{"XDG_CACHE_HOME", cache}});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.status == 0);
  CHECK_THAT(r.out, ContainsText("auto on noise:37x29: variant=") && ContainsText("documented defaults for a") &&
                        ContainsText("to tune pixels=1073: build/bin/histogram --tune --image noise:37x29"));
  // Under --csv the note goes to stderr and stdout stays CSV.
  const auto csv = test::run_histogram({"--image", "noise:37x29", "--reps", "1", "--csv"}, {{"XDG_CACHE_HOME", cache}});
  CHECK(csv.status == 0);
  CHECK_THAT(csv.err, ContainsText("histogram: auto on noise:37x29"));
  CHECK_THAT(csv.out, !ContainsText("auto on"));
}

TEST_CASE("bad --tune options, and auto where a named variant is needed, are one line and exit 2", "[histogram][tuning][cli]") {
  expect_error(test::run_histogram({"--tune", "--budget", "-1"}), 2, "--budget");
  expect_error(test::run_histogram({"--tune", "--reps", "0"}), 2, "--reps");
  expect_error(test::run_histogram({"--tune", "--variant", "all"}), 2, "--variant");
  expect_error(test::run_histogram({"--tune", "--image", "synthetic:0x5"}), 2, "must be positive");
  expect_error(test::run_histogram({"--tune", "--output", ""}), 2, "--output");
  expect_error(test::run_histogram({"--tune", "--output", "winners.txt"}), 2, ".csv");
  expect_error(test::run_histogram({"--tune", "--small", "extra"}), 2, "extra");
  expect_error(test::run_histogram({"--breakdown"}), 2, "--breakdown");
  expect_error(test::run_histogram({"--kernel", "x.cl"}), 2, "--kernel");
}
