// Background checkpoints and interrupts, the cases interrupt_test.cpp leaves out: a background write
// that fails (the run's error, its exit code, the files already written), a process killed inside a
// background write (checked to have been inside it), the VTU of an interrupted run, and the
// interrupt guard's own behaviour (handlers restored, a second signal fatal).
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include <fcntl.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>
#include <sys/wait.h>
#include <unistd.h>

#include "flowdg/cases/run.hpp"
#include "flowdg/core/signals.hpp"
#include "flowdg/io/checkpoint.hpp"
#include "flowdg/io/checkpoint_writer.hpp"
#include "core_cases.hpp"

using namespace flowdg;
namespace fs = std::filesystem;

namespace {

fs::path fresh_directory(const std::string& name) {
  const fs::path directory = fs::temp_directory_path() / cat("flowdg_background_checkpoint_test_", name, "_", ::getpid());
  fs::remove_all(directory);
  fs::create_directories(directory);
  return directory;
}

std::string file_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// A checkpoint of `n_elements` p = 1 triangles whose coefficients all hold `value` (so that any
/// mixture of two versions shows).
Checkpoint uniform_checkpoint(std::size_t n_elements, double value) {
  Checkpoint checkpoint;
  checkpoint.case_toml = "[case]\nname = \"uniform\"\n";
  checkpoint.mesh_source = "builtin:uniform";
  checkpoint.mesh_hash = 0x5eedULL;
  checkpoint.n_elements = static_cast<index_t>(n_elements);
  checkpoint.order = 1;
  checkpoint.n_variables = 4;
  checkpoint.time = value;
  checkpoint.step = static_cast<long long>(value);
  checkpoint.scheme = "rk4";
  checkpoint.physics = "euler2d";
  checkpoint.coefficients.assign(n_elements * 4 * 3, value);
  return checkpoint;
}

void expect_same(const Checkpoint& a, const Checkpoint& b) {
  EXPECT_EQ(a.case_toml, b.case_toml);
  EXPECT_EQ(a.mesh_source, b.mesh_source);
  EXPECT_EQ(a.mesh_hash, b.mesh_hash);
  EXPECT_EQ(a.n_elements, b.n_elements);
  EXPECT_EQ(a.order, b.order);
  EXPECT_EQ(a.time, b.time);
  EXPECT_EQ(a.step, b.step);
  EXPECT_EQ(a.scheme, b.scheme);
  EXPECT_EQ(a.physics, b.physics);
  EXPECT_TRUE(a.coefficients == b.coefficients) << "the coefficients differ";
}

/// The shared quadrilateral vortex (6 x 6, p = 2), RK4, a checkpoint every 3 steps.
Case make(const std::vector<std::string>& overrides) {
  Config config = Config::from_string(flowdg::testing::quadrilateral_vortex_case, "test case");
  config.set("time.scheme=\"rk4\"");
  config.set("output.checkpoint_every=3");
  config.set("output.vtu=false");
  for (const std::string& assignment : overrides) config.set(assignment);
  return load_case(config, Backend::cpu);
}

/// Raises a signal in the process after a given step, as a user's Ctrl-C would arrive.
class RaiseAfter final : public Hook {
 public:
  RaiseAfter(long long step, int signal) : step_(step), signal_(signal) {}
  std::string name() const override { return "raise"; }
  void after_step(LoopState& state) override {
    if (state.step == step_) std::raise(signal_);
  }

 private:
  long long step_;
  int signal_;
};

struct ChildResult {
  int status = 0;
  std::string standard_error;
};

/// Runs the flowdg program with these arguments and waits for it; its standard error is kept.
ChildResult run_cli(const std::vector<std::string>& arguments) {
  // Everything allocated before fork(): the child of a threaded process may only make
  // async-signal-safe calls until it execs.
  std::vector<char*> argv{const_cast<char*>(FLOWDG_CLI)};
  for (const std::string& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));
  argv.push_back(nullptr);
  int pipe_ends[2];
  if (pipe(pipe_ends) != 0) throw std::runtime_error("pipe failed");
  const pid_t child = fork();
  if (child < 0) throw std::runtime_error("fork failed");
  if (child == 0) {
    dup2(pipe_ends[1], STDERR_FILENO);
    close(pipe_ends[0]);
    const int null = ::open("/dev/null", O_WRONLY);
    dup2(null, STDOUT_FILENO);
    execv(FLOWDG_CLI, argv.data());
    _exit(127);
  }
  close(pipe_ends[1]);
  ChildResult result;
  char buffer[512];
  for (ssize_t n; (n = read(pipe_ends[0], buffer, sizeof buffer)) > 0;) result.standard_error.append(buffer, static_cast<std::size_t>(n));
  close(pipe_ends[0]);
  waitpid(child, &result.status, 0);
  return result;
}

}  // namespace

TEST(BackgroundCheckpoint, AFailedWriteStopsTheRunWithAnInputErrorAndKeepsTheLastCheckpoint) {
  // A first run leaves checkpoint.h5 (step 6). A second run into the same directory cannot write
  // (a directory sits where its temporary file goes): its first background write, at step 3,
  // fails on the writer thread and must stop the run at the next checkpoint with that error,
  // leaving the first run's checkpoint as it was.
  const fs::path directory = fresh_directory("failed_write");
  const std::string path = (directory / "checkpoint.h5").string();
  Case first = make({"time.max_steps=6"});
  first.output_directory = directory.string();
  RunOptions options;
  options.quiet = true;
  run_case(first, options);
  const Checkpoint before = read_checkpoint(path);
  ASSERT_EQ(before.step, 6);

  fs::create_directories(directory / "checkpoint.h5.tmp" / "occupied");
  Case second = make({"time.max_steps=12"});
  second.output_directory = directory.string();
  try {
    run_case(second, options);
    ADD_FAILURE() << "the failed background write was not reported";
  } catch (const InputError& error) {
    const std::string expected = cat("cannot write checkpoint '", path, "': cannot create '", path, ".tmp'");
    EXPECT_EQ(std::string(error.what()).rfind(expected, 0), 0u) << error.what();
    EXPECT_EQ(error.exit_code(), 2);
  }
  expect_same(read_checkpoint(path), before);
  fs::remove_all(directory);
}

namespace {

/// Stops the run as a non-physical state would, after a given step.
class FailAfter final : public Hook {
 public:
  explicit FailAfter(long long step) : step_(step) {}
  std::string name() const override { return "fail"; }
  void after_step(LoopState& state) override {
    if (state.step == step_) throw NumericalError("injected failure");
  }

 private:
  long long step_;
};

}  // namespace

TEST(BackgroundCheckpoint, AFailedWriteIsReportedWithANumericalFailureThatFollowsIt) {
  // The checkpoint of step 3 fails on the writer thread; before the next one is due the run fails
  // numerically at step 4. Both are reported (neither hides the other), and last_good.h5 is
  // still written.
  const fs::path directory = fresh_directory("failed_write_then_blow_up");
  fs::create_directories(directory / "checkpoint.h5.tmp" / "occupied");
  Case problem = make({"time.max_steps=12"});
  problem.output_directory = directory.string();
  RunOptions options;
  options.quiet = true;
  FailAfter fail(4);
  options.extra_hooks = {&fail};
  const std::string path = (directory / "checkpoint.h5").string();
  const std::string checkpoint_failure =
      cat("besides, the background checkpoint failed: cannot write checkpoint '", path, "': cannot create '", path, ".tmp'");
  try {
    run_case(problem, options);
    ADD_FAILURE() << "the run did not fail";
  } catch (const NumericalError& error) {
    const std::string message = error.what();
    EXPECT_EQ(message.rfind("injected failure, at step 4", 0), 0u) << message;
    EXPECT_NE(message.find("last_good.h5"), std::string::npos) << message;
    EXPECT_NE(message.find(checkpoint_failure), std::string::npos) << message;
  }
  EXPECT_EQ(read_checkpoint((directory / "last_good.h5").string()).step, 3);
  const std::string summary = file_text(directory / "summary.json");
  EXPECT_NE(summary.find(checkpoint_failure), std::string::npos) << summary;
  fs::remove_all(directory);
}

TEST(BackgroundCheckpoint, TheCommandLineExitsWith2OnAFailedWriteAndHdf5ClosesCleanly) {
  // The same failure through the program: exit code 2, one clear line on standard error, and no
  // complaint from HDF5 at exit (a failure left on the writer thread's error stack once made
  // libhdf5 print "infinite loop closing library").
  const fs::path directory = fresh_directory("failed_write_cli");
  const fs::path case_file = directory / "case.toml";
  std::ofstream(case_file) << flowdg::testing::quadrilateral_vortex_case;
  const fs::path output = directory / "run";
  fs::create_directories(output / "checkpoint.h5.tmp" / "occupied");
  const ChildResult result = run_cli({"run", case_file.string(), "--backend", "cpu", "--output=" + output.string(), "--set",
                                      "output.checkpoint_every=2", "--set", "output.vtu=false"});
  ASSERT_TRUE(WIFEXITED(result.status)) << result.standard_error;
  EXPECT_EQ(WEXITSTATUS(result.status), 2) << result.standard_error;
  const std::string path = (output / "checkpoint.h5").string();
  EXPECT_EQ(result.standard_error.rfind(cat("flowdg: error: cannot write checkpoint '", path, "': cannot create '", path, ".tmp'"), 0), 0u)
      << result.standard_error;
  EXPECT_EQ(result.standard_error.find("HDF5"), std::string::npos) << result.standard_error;
  EXPECT_EQ(std::count(result.standard_error.begin(), result.standard_error.end(), '\n'), 1) << result.standard_error;
  fs::remove_all(directory);
}

TEST(BackgroundCheckpoint, AProcessKilledInsideABackgroundWriteLeavesThePreviousCheckpointExactly) {
  // A child process hands a large checkpoint (version 1) to a CheckpointWriter and is SIGKILLed as
  // soon as the writer has created its temporary file. That the temporary file is still there
  // after the kill proves the kill landed inside the write (the write removes or renames it on
  // every way out); should the whole write have slipped in first, the attempt is repeated.
  const fs::path directory = fresh_directory("killed_write");
  const std::string path = (directory / "checkpoint.h5").string(), temporary = path + ".tmp";
  const std::size_t n_elements = 400000;  // 38 MB: tens of milliseconds to write and sync
  const Checkpoint old_version = uniform_checkpoint(n_elements, 0.0);
  const Checkpoint new_version = uniform_checkpoint(n_elements, 1.0);
  write_checkpoint(path, old_version);
  bool killed_inside = false;
  for (int attempt = 0; attempt < 5 && !killed_inside; ++attempt) {
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      CheckpointWriter writer;
      writer.submit(path, new_version);
      writer.wait();
      _exit(0);
    }
    // Polls a file system condition the child causes; no other signal of "inside the write" exists.
    for (int tries = 0; tries < 200000 && !fs::exists(temporary); ++tries) usleep(50);
    kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    killed_inside = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL && fs::exists(temporary);
    if (!killed_inside) write_checkpoint(path, old_version);  // the write won the race: start again
  }
  ASSERT_TRUE(killed_inside) << "the kill never landed inside the write";
  expect_same(read_checkpoint(path), old_version);
  // The next write goes over the dead process's temporary file and replaces the checkpoint.
  write_checkpoint(path, uniform_checkpoint(10, 2.0));
  EXPECT_EQ(read_checkpoint(path).step, 2);
  EXPECT_FALSE(fs::exists(temporary));
  fs::remove_all(directory);
}

TEST(Interrupt, AnInterruptedRunWritesTheVtuOfTheStepItFinished) {
  const fs::path directory = fresh_directory("interrupted_vtu");
  Case problem = make({"time.max_steps=14", "output.vtu=true", "output.vtu_every=4"});
  problem.output_directory = directory.string();
  RunOptions options;
  options.quiet = true;
  RaiseAfter raise(5, SIGINT);
  options.extra_hooks = {&raise};
  try {
    run_case(problem, options);
    ADD_FAILURE() << "the run did not stop";
  } catch (const Interrupted& error) {
    EXPECT_EQ(error.exit_code(), 130);
    EXPECT_EQ(error.signal(), SIGINT);
  }
  EXPECT_TRUE(fs::exists(directory / "solution_00000004.vtu"));
  EXPECT_TRUE(fs::exists(directory / "solution_00000005.vtu"));
  EXPECT_FALSE(fs::exists(directory / "solution_00000008.vtu"));
  const std::string series = file_text(directory / "solution.pvd");
  EXPECT_NE(series.find("solution_00000005.vtu"), std::string::npos) << series;
  EXPECT_EQ(read_checkpoint((directory / "checkpoint.h5").string()).step, 5);
  const std::string summary = file_text(directory / "summary.json");
  EXPECT_NE(summary.find("\"status\": \"interrupted by SIGINT at step 5, t = "), std::string::npos) << summary;
  fs::remove_all(directory);
}

namespace {

volatile std::sig_atomic_t own_handler_calls = 0;
extern "C" void own_handler(int) { own_handler_calls = own_handler_calls + 1; }

}  // namespace

TEST(InterruptGuard, CatchesTheFirstSignalAndRestoresThePreviousHandlers) {
  struct sigaction own {}, saved {};
  own.sa_handler = own_handler;
  sigemptyset(&own.sa_mask);
  ASSERT_EQ(sigaction(SIGTERM, &own, &saved), 0);
  own_handler_calls = 0;
  {
    const InterruptGuard guard;
    EXPECT_EQ(InterruptGuard::received(), 0);
    std::raise(SIGTERM);
    EXPECT_EQ(InterruptGuard::received(), SIGTERM);
    EXPECT_EQ(own_handler_calls, 0) << "the guard's handler did not take the signal";
  }
  struct sigaction current {};
  ASSERT_EQ(sigaction(SIGTERM, nullptr, &current), 0);
  EXPECT_EQ(current.sa_handler, &own_handler);
  std::raise(SIGTERM);
  EXPECT_EQ(own_handler_calls, 1);
  sigaction(SIGTERM, &saved, nullptr);
  {
    const InterruptGuard guard;
    EXPECT_EQ(InterruptGuard::received(), 0) << "a new guard starts without the last one's signal";
  }
}

TEST(InterruptGuard, ASecondSignalEndsTheProcessAtOnceButNotADuplicate) {
  // In a child (a death test): the first signal (SIGTERM) is only recorded; the same again at once
  // (timeout's duplicate delivery) is ignored; a second one (SIGINT) 2 s later takes its default
  // action and kills the process by SIGINT. Exit status 0 would mean the second was swallowed;
  // death by SIGTERM, that the first or its duplicate was not caught.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        const InterruptGuard guard;
        std::raise(SIGTERM);
        std::raise(SIGTERM);
        if (InterruptGuard::received() != SIGTERM) std::_Exit(3);
        std::this_thread::sleep_for(std::chrono::milliseconds(2100));
        std::raise(SIGINT);
        std::_Exit(0);
      },
      ::testing::KilledBySignal(SIGINT), "");
}
