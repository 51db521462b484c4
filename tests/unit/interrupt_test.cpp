// Background checkpoints (io/checkpoint_writer.hpp) and SIGINT / SIGTERM (core/signals.hpp): the
// same file contents as a synchronous write, errors that surface, a write killed midway that
// leaves the previous checkpoint whole, and an interrupted run that continues bit for bit.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include "flowdg/cases/run.hpp"
#include "flowdg/core/signals.hpp"
#include "flowdg/io/checkpoint.hpp"
#include "flowdg/io/checkpoint_writer.hpp"
#include "core_cases.hpp"

using namespace flowdg;

namespace {

std::filesystem::path fresh_directory(const std::string& name) {
  const auto directory = std::filesystem::temp_directory_path() / cat("flowdg_interrupt_test_", name, "_", ::getpid());
  std::filesystem::remove_all(directory);
  std::filesystem::create_directories(directory);
  return directory;
}

Checkpoint sample_checkpoint(std::size_t n_elements, double value) {
  Checkpoint checkpoint;
  checkpoint.case_toml = "[case]\nname = \"sample\"\n";
  checkpoint.mesh_source = "builtin:sample";
  checkpoint.mesh_hash = 0x1234abcdULL;
  checkpoint.n_elements = static_cast<index_t>(n_elements);
  checkpoint.order = 1;
  checkpoint.n_variables = 4;
  checkpoint.time = 0.25;
  checkpoint.step = 7;
  checkpoint.scheme = "rk4";
  checkpoint.physics = "euler2d";
  checkpoint.coefficients.assign(n_elements * 4 * 3, value);
  for (std::size_t i = 0; i < checkpoint.coefficients.size(); i += 97) checkpoint.coefficients[i] = value + 1e-3 * i;
  return checkpoint;
}

void expect_same(const Checkpoint& a, const Checkpoint& b) {
  EXPECT_EQ(a.case_toml, b.case_toml);
  EXPECT_EQ(a.mesh_source, b.mesh_source);
  EXPECT_EQ(a.mesh_hash, b.mesh_hash);
  EXPECT_EQ(a.n_elements, b.n_elements);
  EXPECT_EQ(a.order, b.order);
  EXPECT_EQ(a.n_variables, b.n_variables);
  EXPECT_EQ(a.time, b.time);
  EXPECT_EQ(a.step, b.step);
  EXPECT_EQ(a.scheme, b.scheme);
  EXPECT_EQ(a.physics, b.physics);
  EXPECT_EQ(a.coefficients, b.coefficients);
}


/// The shared quadrilateral vortex with RK4 (every register), 14 steps, a checkpoint every 3.
Case make(const std::vector<std::string>& overrides = {}) {
  Config config = Config::from_string(flowdg::testing::quadrilateral_vortex_case, "test case");
  config.set("time.scheme=\"rk4\"");
  config.set("time.max_steps=14");
  config.set("output.checkpoint_every=3");
  config.set("output.vtu=false");
  for (const std::string& assignment : overrides) config.set(assignment);
  return load_case(config, Backend::cpu);
}

/// Raises a signal in the process after a given step, as a user's Ctrl-C or a batch system's
/// SIGTERM would arrive mid-run.
class RaiseAfter final : public Hook {
 public:
  RaiseAfter(long long step, int signal, int times = 1) : step_(step), signal_(signal), times_(times) {}
  std::string name() const override { return "raise"; }
  void after_step(LoopState& state) override {
    if (state.step == step_)
      for (int i = 0; i < times_; ++i) std::raise(signal_);
  }

 private:
  long long step_;
  int signal_, times_;
};

}  // namespace

TEST(CheckpointWriter, WritesWhatASynchronousWriteWrites) {
  const auto directory = fresh_directory("same");
  const Checkpoint checkpoint = sample_checkpoint(500, 1.5);
  write_checkpoint((directory / "sync.h5").string(), checkpoint);
  {
    CheckpointWriter writer;
    writer.submit((directory / "async.h5").string(), checkpoint);
    writer.submit((directory / "async2.h5").string(), sample_checkpoint(500, 2.5));  // waits for the first
    writer.wait();
  }
  expect_same(read_checkpoint((directory / "async.h5").string()), read_checkpoint((directory / "sync.h5").string()));
  EXPECT_EQ(read_checkpoint((directory / "async2.h5").string()).coefficients.front(), 2.5);
  EXPECT_FALSE(std::filesystem::exists(directory / "async.h5.tmp"));
  std::filesystem::remove_all(directory);
}

TEST(CheckpointWriter, AnErrorOnTheWriterThreadSurfacesAsAnInputError) {
  CheckpointWriter writer;
  writer.submit("/nonexistent-directory/flowdg/checkpoint.h5", sample_checkpoint(10, 1.0));
  try {
    writer.wait();
    ADD_FAILURE() << "the failed write was not reported";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("/nonexistent-directory/flowdg/checkpoint.h5"), std::string::npos) << error.what();
  }
  writer.wait();  // reported once, then cleared
}

TEST(CheckpointWriter, AWriteKilledMidwayLeavesTheLastCheckpointWhole) {
  // A child process rewrites a large checkpoint over and over (value 1, 2, 3, ...) and is killed
  // with SIGKILL while it writes; whatever moment that hits, the file under the real name is one
  // complete checkpoint: the first one or a later whole one, never a broken file.
  const auto directory = fresh_directory("kill");
  const std::string path = (directory / "checkpoint.h5").string();
  write_checkpoint(path, sample_checkpoint(200000, 0.0));  // 19 MB
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    for (int version = 1;; ++version) write_checkpoint(path, sample_checkpoint(200000, version));
  }
  // Wait until the child is inside a write (its temporary file exists), then kill it.
  for (int tries = 0; tries < 2000 && !std::filesystem::exists(path + ".tmp"); ++tries) usleep(1000);
  usleep(20000);
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status));
  const Checkpoint survivor = read_checkpoint(path);  // throws on a broken file
  const double version = survivor.coefficients[1];
  EXPECT_EQ(survivor.coefficients.size(), 200000u * 12);
  for (std::size_t i = 1; i < survivor.coefficients.size(); i += 97 * 101)
    if (i % 97 != 0) {
      EXPECT_EQ(survivor.coefficients[i], version) << "a mixture of two writes";
    }
  std::filesystem::remove_all(directory);
}

TEST(Interrupt, ASigtermEndsTheRunWithACheckpointAndTheRestartEqualsTheUninterruptedRun) {
  const auto directory = fresh_directory("restart");
  RunOptions options;
  options.quiet = true;
  Case whole = make();
  whole.output_directory = (directory / "whole").string();
  run_case(whole, options);

  Case first = make();
  first.output_directory = (directory / "first").string();
  // Twice at once, as coreutils' timeout delivers it (to the process, then to its process group):
  // the second is the same request, not a second one that would end the process unsaved.
  RaiseAfter raise(5, SIGTERM, 2);
  options.extra_hooks = {&raise};
  try {
    run_case(first, options);
    ADD_FAILURE() << "the run did not stop";
  } catch (const Interrupted& error) {
    EXPECT_EQ(error.exit_code(), 143);
    EXPECT_NE(std::string(error.what()).find("--restart"), std::string::npos) << error.what();
  }
  std::ifstream summary(directory / "first" / "summary.json");
  const std::string text((std::istreambuf_iterator<char>(summary)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"status\": \"interrupted by SIGTERM at step 5"), std::string::npos) << text;
  const Checkpoint saved = read_checkpoint((directory / "first" / "checkpoint.h5").string());
  EXPECT_EQ(saved.step, 5);  // the step in progress finished and was saved

  options.extra_hooks.clear();
  options.restart = (directory / "first" / "checkpoint.h5").string();
  Case second = make();
  second.output_directory = (directory / "second").string();
  run_case(second, options);
  const Checkpoint a = read_checkpoint((directory / "whole" / "checkpoint.h5").string());
  const Checkpoint b = read_checkpoint((directory / "second" / "checkpoint.h5").string());
  EXPECT_EQ(a.step, 14);
  expect_same(a, b);  // bit for bit
  std::filesystem::remove_all(directory);
}

TEST(Interrupt, TheCommandLineExitsWith130OnSigint) {
  // flowdg run as a child process, SIGINT once it reports its first steps.
  const auto directory = fresh_directory("cli");
  int pipe_ends[2];
  ASSERT_EQ(pipe(pipe_ends), 0);
  const std::string output = "--output=" + (directory / "run").string();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    dup2(pipe_ends[1], STDOUT_FILENO);
    close(pipe_ends[0]);
    execl(FLOWDG_CLI, FLOWDG_CLI, "run", FLOWDG_SOURCE_DIR "/examples/vortex_quadrilaterals.toml", "--backend", "cpu",
          output.c_str(), "--set", "time.end_time=1e9", "--set", "time.progress_every=1", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(pipe_ends[1]);
  std::string seen;
  char buffer[256];
  while (seen.find("step 3 ") == std::string::npos) {
    const ssize_t n = read(pipe_ends[0], buffer, sizeof buffer);
    if (n <= 0) break;
    seen.append(buffer, static_cast<std::size_t>(n));
  }
  kill(child, SIGINT);
  while (read(pipe_ends[0], buffer, sizeof buffer) > 0) {
  }
  close(pipe_ends[0]);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status)) << seen;
  EXPECT_EQ(WEXITSTATUS(status), 130);
  EXPECT_TRUE(std::filesystem::exists(directory / "run" / "checkpoint.h5"));
  const Checkpoint saved = read_checkpoint((directory / "run" / "checkpoint.h5").string());
  EXPECT_GE(saved.step, 3);
  std::filesystem::remove_all(directory);
}
