// The command-line program as a user runs it: the default case, bad input, restart.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

namespace {

struct Outcome {
  int exit_code;
  std::string output;
};

Outcome run(const std::string& arguments) {
  const std::string command = std::string(FLOWDG_CLI) + " " + arguments + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  std::string output;
  std::array<char, 4096> buffer;
  while (std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) output += buffer.data();
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

}  // namespace

TEST(Cli, DefaultCaseRunsAndLeavesItsFiles) {
  const auto directory = std::filesystem::temp_directory_path() / "flowdg-cli-default";
  std::filesystem::remove_all(directory);
  const Outcome outcome = run("run --backend cpu --set time.end_time=0.0005 --output " + directory.string());
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  EXPECT_NE(outcome.output.find("double-mach"), std::string::npos) << outcome.output;
  for (const char* name : {"summary.json", "solution.vtu", "checkpoint.h5"})
    EXPECT_TRUE(std::filesystem::exists(directory / name)) << name;
  // Continue it to a later time from its checkpoint.
  const Outcome resumed = run("run --backend cpu --set time.end_time=0.001 --output " + directory.string() + "/resumed --restart " +
                              (directory / "checkpoint.h5").string());
  EXPECT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("restarted from"), std::string::npos) << resumed.output;
  std::filesystem::remove_all(directory);
}

TEST(Cli, BadInputIsOneLineAndExitCodeTwo) {
  for (const std::string arguments :
       {"run --backend cpu --set solver.ordr=2", "run --backend cpu --set solver.order=42", "run /nonexistent/case.toml",
        "run --backend cpu --set mesh.file='\"/nonexistent.msh\"'", "convergence --backend cpu --orders x", "run --backend gpu0", "frobnicate"}) {
    const Outcome outcome = run(arguments + " --output /tmp/flowdg-cli-bad");
    EXPECT_EQ(outcome.exit_code, 2) << arguments << "\n" << outcome.output;
    EXPECT_FALSE(outcome.output.empty()) << arguments;
  }
  EXPECT_FALSE(std::filesystem::exists("/tmp/flowdg-cli-bad/summary.json"));
}
