// The 3D volume (step6-volume/) against its serial reference, on fresh
// random volumes and filters (the seed is printed on failure), sizes that
// are not multiples of the work-group or the block, and every kernel; the
// checks that catch a wrong voxel or an unwritten plane; its errors, and
// its executable. ctest -L step6-volume.
#include "tests/catch.hpp"

#include <algorithm>
#include <string>
#include <tuple>

#include "common/machinery/device_choice.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/reference.hpp"
#include "step6-volume/volume.hpp"
#include "tests/process.hpp"
#include "tests/support.hpp"

using namespace conv;

namespace {

void check_planes(const std::vector<Image>& planes, const std::vector<Reference>& refs, long long terms) {
  REQUIRE(planes.size() == refs.size());
  for (std::size_t k = 0; k < planes.size(); ++k) {
    INFO("filter " << k << " of " << planes.size());
    const Comparison cmp = compare_with_reference_terms(planes[k], refs[k], terms);
    INFO(cmp.describe());
    CHECK(cmp.passed());
  }
}

}  // namespace

TEST_CASE("step6 volume: naive and blocked match the serial reference", "[step6-volume]") {
  auto& device = test::device();
  const std::uint32_t seed = test::run_seed();
  INFO(test::seed_note());
  struct Case { int w, h, d, F; };
  for (const Case c : {Case{19, 13, 11, 3}, Case{23, 17, 9, 7}, Case{7, 7, 7, 7}, Case{5, 4, 3, 1}}) {
    const Volume volume = synthetic_volume(c.w, c.h, c.d, seed);
    for (int bank : {1, 2, 4, 16}) {
      const auto filters = random_filter_bank_3d(bank, c.F, seed + 7);
      std::vector<Reference> refs;
      for (const auto& f : filters) refs.push_back(volume_reference(volume, f));
      for (const std::string variant : {"naive", "blocked"}) {
        for (int block_x : {8, 3}) {
          if (variant == "naive" && block_x != 8) continue;
          INFO(variant << ", " << c.w << "x" << c.h << "x" << c.d << ", F = " << c.F << ", bank " << bank
                       << ", block_x " << block_x);
          const VolumeRun run = run_volume(device, volume, filters, variant, block_x, 8, 4, 2, 0);
          CHECK(run.out_width == c.w - c.F + 1);
          CHECK(run.out_depth == c.d - c.F + 1);
          check_planes(run.outputs, refs, static_cast<long long>(c.F) * c.F * c.F);
        }
      }
    }
  }
}

// The case above can fail: a launch that writes nothing, a plane left
// unwritten and one wrong voxel are each caught.
TEST_CASE("step6 volume: an unwritten plane or a wrong voxel is caught", "[step6-volume]") {
  auto& device = test::device();
  const std::uint32_t seed = test::run_seed();
  INFO(test::seed_note());
  const Volume volume = synthetic_volume(15, 11, 9, seed);
  const auto filters = random_filter_bank_3d(4, 3, seed + 7);
  VolumeLaunch prepared = prepare_volume(device, volume, filters, "blocked", 8, 8, 4, 2);

  SECTION("a launch that writes nothing leaves the poison in every plane") {
    prepared.launch.run = [&device] {
      cl::Event event;
      device.queue().enqueueMarkerWithWaitList(nullptr, &event);
      return event;
    };
    CHECK_THROWS_AS(run_volume(prepared, 0), KernelFault);
    CHECK_THROWS_WITH(run_volume(prepared, 0), ContainsText("output volume 0") &&
                                                   ContainsText("never written"));
  }
  SECTION("one plane still poisoned after the kernel is named") {
    const auto read = prepared.launch.read;
    prepared.launch.read = [read] {
      Image stacked = read();
      const std::size_t plane = stacked.pixels.size() / 4;
      std::fill_n(stacked.pixels.begin() + 2 * plane, plane, poison_value());
      return stacked;
    };
    CHECK_THROWS_WITH(run_volume(prepared, 0), ContainsText("output volume 2") &&
                                                   ContainsText("never written"));
  }
  SECTION("one wrong voxel fails the comparison") {
    VolumeRun run = run_volume(prepared, 0);
    REQUIRE(run.outputs.size() == 4);
    const Reference ref = volume_reference(volume, filters[1]);
    CHECK(compare_with_reference_terms(run.outputs[1], ref, 27).passed());
    run.outputs[1].at(5, 7) += 1.0f;
    CHECK_FALSE(compare_with_reference_terms(run.outputs[1], ref, 27).passed());
  }
}

TEST_CASE("step6 volume: a volume smaller than the filter, a bad variant or bank", "[step6-volume][errors]") {
  auto& device = test::device();
  const Volume volume = synthetic_volume(6, 9, 9, 1);
  CHECK_THROWS_AS(run_volume(device, volume, random_filter_bank_3d(1, 7, 1), "naive", 8, 8, 4, 2, 0), UsageError);
  CHECK_THROWS_AS(run_volume(device, volume, random_filter_bank_3d(1, 3, 1), "tiled", 8, 8, 4, 2, 0), UsageError);
  CHECK_THROWS_AS(random_filter_bank_3d(3, 3, 1), UsageError);
  CHECK_THROWS_AS(synthetic_volume(0, 4, 4, 1), UsageError);
  CHECK_THROWS_WITH(run_volume(device, volume, random_filter_bank_3d(1, 3, 1), "naive", 8, 4096, 4096, 1, 0),
                    ContainsText("limit"));
}

TEST_CASE("step6-volume: --verify passes, bad options are one line", "[step6-volume][cli]") {
  test::Outcome r = test::run_program("step6-volume", {"--size", "21x15x10", "--filter-width", "3", "--bank", "2",
                                                      "--reps", "2", "--verify", "--no-limits"});
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(r.out.find("- OK") != std::string::npos);

  for (const auto& [program, option, value] :
       {std::tuple<std::string, std::string, std::string>{"step6-volume", "--bank", "5"},
        {"step6-volume", "--size", "0"},
        {"step6-volume", "--variant", "tiled"}}) {
    r = test::run_program(program, {option, value});
    INFO(program << " " << option << " " << value << ": " << r.err);
    CHECK(r.status == 2);
    CHECK(r.err_lines() == 1);
  }
}
