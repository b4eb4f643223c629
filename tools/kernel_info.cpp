// kernel-info: builds one step's kernel as a run would (for the given filter
// width, variant and settings), then prints what the compiler says about it
// and writes the program binary (PTX on NVIDIA) for inspection:
//   build/bin/kernel-info --step 6 --filter box:31 --set block=4x8 --dir out/
//   build/bin/kernel-info --step 4 --variant ifelse --kernel my-step4.cl
// On NVIDIA the program is rebuilt with -cl-nv-verbose, whose log gives the
// registers, spills and shared memory of every kernel.
#include <fstream>
#include <iostream>
#include <map>

#include "common/core/program.hpp"
#include "common/machinery/cli.hpp"
#include "common/machinery/device_choice.hpp"
#include "common/machinery/files.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/image_files.hpp"
#include "common/machinery/parse.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/reference.hpp"
#include "common/machinery/registry.hpp"
#include "common/machinery/report.hpp"
#include "common/machinery/settings.hpp"

using namespace conv;

int main(int argc, char** argv) {
  return guarded_main("kernel-info", [&]() -> int {
    CLI::App app("kernel-info: compiler facts and the program binary of one step's kernel", "kernel-info");
    DeviceOptions device_options;
    std::string step_name = "6", filter_spec = "motion45", variant, wg = "auto", dir, kernel_file;
    std::vector<std::string> sets;
    app.add_option("--step", step_name, "Step by name or number")->capture_default_str();
    app.add_option("--filter", filter_spec, "Filter spec (its width is what matters)")->capture_default_str();
    app.add_option("--variant", variant, "Variant (default: the step's first)");
    app.add_option("--set", sets, "A step setting NAME=VALUE");
    app.add_option("--wg", wg, "Work-group shape, or auto (the step's default)")->capture_default_str();
    app.add_option("--dir", dir, "Write each program binary into this folder");
    app.add_option("--kernel", kernel_file, "Build this OpenCL file instead of the step's embedded kernel");
    add_device_options(app, device_options);
    if (int rc = parse_command_line(app, argc, argv); rc >= 0) return rc;

    // Every setting checked before the device is opened (the checks every
    // tool shares: common/core/step.hpp).
    auto step = find_step(step_name);
    RunOptions run;
    if (!variant.empty()) run.values["variant"] = variant;
    std::vector<std::string> names;
    std::map<std::string, std::string> settings;
    for (const auto& s : sets) {
      const auto [name, value] = split_setting(s, "--set");
      names.push_back(name);
      add_setting(settings, name, value);  // --set bank=2 --set bank=4: which?
    }
    check_setting_names({step.get()}, names, "see --variant");
    for (const auto& [name, value] : settings) run.values[name] = value;
    // (check_options below also refuses a setting the chosen variant ignores.)
    if (wg != "auto") std::tie(run.wg_x, run.wg_y) = parse_size(wg, "--wg", 1 << 14);
    step->check_options(run);
    const Filter filter = parse_filter_spec(filter_spec);
    if (app.count("--dir") && dir.empty()) throw UsageError("--dir: empty; name a folder");
    if (!dir.empty()) check_writable(dir + "/" + step->name() + "-0.bin");  // before any work
    if (!kernel_file.empty()) {
      if (!step->builds_kernel_file(run))
        throw UsageError("--kernel " + kernel_file + ": " + step->name() + " " + step->describe(run) +
                         " builds a kernel of its own, not the one --kernel replaces");
      run.kernel_source = read_text_file(kernel_file);
      run.kernel_label = kernel_file;
    }
    DeviceContext device(device_options.choice);
    if (wg == "auto") std::tie(run.wg_x, run.wg_y) = step->default_work_group(device.facts(), filter, run);
    run_step(*step, device, make_problem(synthetic_image(64, 64), filter, Border::zero), run, 1);
    const bool nvidia = device.facts().platform.find("NVIDIA") != std::string::npos;
    int n = 0;
    for (const auto& b : device.built()) {
      std::cout << "== " << b.label << " [" << b.options << "] on " << device.facts().name << "\n";
      // The compiler's log, built afresh (a program from the binary cache has
      // none): its warnings, and on NVIDIA's driver ptxas's registers and spills.
      cl::Program fresh = build_program(device.context(), device.device(), b.source,
                                        b.options + (nvidia ? " -cl-nv-verbose" : ""), b.label);
      std::string log = fresh.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device.device());
      while (!log.empty() && (log.back() == '\n' || log.back() == '\0' || log.back() == ' ')) log.pop_back();
      if (!log.empty()) std::cout << log << "\n";
      std::vector<cl::Kernel> kernels;
      cl::Program(b.program).createKernels(&kernels);
      for (const cl::Kernel& k : kernels) {
        std::cout << "  " << k.getInfo<CL_KERNEL_FUNCTION_NAME>() << ": private memory per work-item: "
                  << k.getWorkGroupInfo<CL_KERNEL_PRIVATE_MEM_SIZE>(device.device())
                  << " bytes, local memory (static): "
                  << k.getWorkGroupInfo<CL_KERNEL_LOCAL_MEM_SIZE>(device.device())
                  << " bytes, work-group limit: "
                  << k.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device.device());
        const auto compiled = k.getWorkGroupInfo<CL_KERNEL_COMPILE_WORK_GROUP_SIZE>(device.device());
        if (compiled[0] != 0)
          std::cout << ", compiled for " << compiled[0] << "x" << compiled[1] << "x" << compiled[2]
                    << " (reqd_work_group_size)";
        std::cout << "\n";
      }
      if (!dir.empty()) {
        auto binaries = b.program.getInfo<CL_PROGRAM_BINARIES>();
        const std::string path = dir + "/" + step->name() + "-" + std::to_string(n++) + (nvidia ? ".ptx" : ".bin");
        write_file_atomically(path, std::vector<std::uint8_t>(binaries.at(0).begin(), binaries.at(0).end()));
        std::cout << "  binary: " << path << "\n";
      }
    }
    return 0;
  });
}
